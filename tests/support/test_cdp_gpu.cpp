// CUDA dynamic parallelism through the RDC build kind: the children a parent launches all run, and
// a tail launch sees their work (run on the GPU machine; exits 77 elsewhere).
#include <gtest/gtest.h>

#include "support/cdp_smoke.hpp"

namespace ema {
namespace {

TEST(CdpGpu, AParentsChildrenRunAndItsTailLaunchSeesTheirWork) {
  for (int parts : {1, 7, 64}) {
    const auto r = test::run_cdp_smoke(100000, parts);
    EXPECT_EQ(r.device_launches, static_cast<unsigned>(parts));
    EXPECT_EQ(r.wrong_in_tail, 0) << parts << " children";
  }
}

}  // namespace
}  // namespace ema
