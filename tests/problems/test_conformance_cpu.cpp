// Every CPU variant of every registered problem over its problem's declared cases (conformance.hpp).
#include "problems/conformance.hpp"

namespace ema {
namespace {

TEST(Conformance, EveryCpuVariantVerifiesAndAgreesWithItsAlgorithmsSeq) {
  int expected = 0;
  for (const auto* v : variants()) expected += !uses_gpu(v->backend);
  EXPECT_EQ(test::check_every_variant([](const variant_desc& v) { return !uses_gpu(v.backend); }), expected);
  EXPECT_GT(expected, 0);
}

}  // namespace
}  // namespace ema
