// stencil: the CUDA variants over every k against seq cell by cell, larger grids against the closed
// form, and a cuda-listing tile too small for k declined (run on the GPU machine; exits 77 elsewhere).
#include "problems/stencil/stencil_cases.hpp"

namespace ema {
namespace {

TEST(StencilGpu, CudaVariantsGiveSeqsGridAtEveryK) {
  test::temp_dir dir;
  for (int k = 1; k <= 16; ++k)
    for (std::uint64_t n : {33ull, 130ull}) test::expect_same_grid_as_seq({"cuda-naive", "cuda-listing", "cuda"}, n, k, dir);
}

TEST(StencilGpu, LargerGridsMatchTheClosedForm) {
  test::temp_dir dir;
  for (const char* name : {"cuda-naive", "cuda-listing", "cuda"})
    for (const char* type : {"type=f32", "type=f64"})
      for (std::uint64_t n : {1000ull, 2053ull}) {
        const auto r = test::run_stencil(name, n, {type, "steps=37"}, dir);
        EXPECT_TRUE(r.verified) << name << " " << type << " n=" << n << ": " << r.reason;
        EXPECT_NE(r.result_json.find("closed form"), std::string::npos) << r.result_json;
      }
}

TEST(StencilGpu, CudaListingDeclinesAKTheTileCannotHold) {
  const auto& v = find_variant("stencil", "cuda-listing");
  EXPECT_NE(v.not_applicable(test::stencil_params({"k=16"}), 100), nullptr);
  EXPECT_EQ(v.not_applicable(test::stencil_params({"k=15"}), 100), nullptr);
  EXPECT_NE(v.not_applicable(test::stencil_params({"k=4", "launch.tile=8"}), 100), nullptr);
  // k is clamped to the steps, as the run clamps it: 2 steps run 2 a load, which a tile of 6 holds.
  EXPECT_EQ(v.not_applicable(test::stencil_params({"steps=2", "launch.tile=6"}), 100), nullptr);
  EXPECT_EQ(v.launch_refuses(test::stencil_params({"steps=2", "launch.tile=6"}), 100), "");
  EXPECT_NE(v.launch_refuses(test::stencil_params({"steps=3", "launch.tile=6"}), 100), "");
}

}  // namespace
}  // namespace ema
