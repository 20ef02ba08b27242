// Every GPU variant of every registered problem over its problem's declared cases (conformance.hpp);
// run on the GPU machine, exits 77 elsewhere.
#include "problems/conformance.hpp"

namespace ema {
namespace {

TEST(ConformanceGpu, EveryGpuVariantVerifiesAndAgreesWithItsAlgorithmsSeq) {
  int expected = 0;
  for (const auto* v : variants()) expected += uses_gpu(v->backend);
  EXPECT_EQ(test::check_every_variant([](const variant_desc& v) { return uses_gpu(v.backend); }), expected);
  EXPECT_GT(expected, 0) << "a CUDA build registers GPU variants";
}

TEST(ConformanceGpu, EveryLaunchSettingOverriddenStillVerifies) {
  EXPECT_GT(test::check_launch_overrides([](const variant_desc& v) { return uses_gpu(v.backend); }), 0);
}

}  // namespace
}  // namespace ema
