// search: the CPU variants against seq, and the problem's own pieces (generator, verifier, work
// model).
#include <gtest/gtest.h>

#include "core/registry.hpp"
#include "problems/search/search.hpp"

namespace ema {
namespace {

param_set params_of(std::vector<std::string> a) { return param_set::resolve("search", find_problem("search").params, a); }

TEST(Search, GeneratorIsDeterministicAndPlantsTheKey) {
  auto p = params_of({"hit=middle", "copies=4"});
  auto a = search::traits::generate({1000, &p, 5, host_memory_kind::pageable});
  auto b = search::traits::generate({1000, &p, 5, host_memory_kind::pageable});
  ASSERT_EQ(a.data.size(), 1000u);
  EXPECT_TRUE(std::equal(a.data.data(), a.data.data() + 1000, b.data.data()));
  EXPECT_EQ(search::traits::reference(a), 500);
  int copies = 0;
  for (std::size_t i = 0; i < 1000; ++i) {
    EXPECT_LT(a.data[i], 1u << 31);
    copies += a.data[i] == a.key;
  }
  EXPECT_GE(copies, 2);
  EXPECT_LE(copies, 4);
  auto c = search::traits::generate({1000, &p, 6, host_memory_kind::pageable});
  EXPECT_FALSE(std::equal(a.data.data(), a.data.data() + 1000, c.data.data()));
}

TEST(Search, KeyIsAbsentByDefault) {
  auto p = params_of({});
  auto in = search::traits::generate({1 << 16, &p, 11, host_memory_kind::pageable});
  EXPECT_EQ(search::traits::reference(in), -1);
}

TEST(Search, HitModesPlantWhereTheysay) {
  for (auto [hit, where] : {std::pair{"first", 0}, {"middle", 50}, {"last", 99}}) {
    auto p = params_of({std::string("hit=") + hit});
    auto in = search::traits::generate({100, &p, 3, host_memory_kind::pageable});
    EXPECT_EQ(search::traits::reference(in), where) << hit;
  }
}

TEST(Search, VerifierNamesWhatIsWrong) {
  auto p = params_of({"hit=middle", "copies=2"});
  auto in = search::traits::generate({100, &p, 3, host_memory_kind::pageable});
  EXPECT_TRUE(search::traits::check(in, 50, 50).verified);
  EXPECT_NE(search::traits::check(in, 50, 7).reason.find("does not hold the key"), std::string::npos);
  EXPECT_NE(search::traits::check(in, 50, -1).reason.find("returned -1, but index 50"), std::string::npos);
  EXPECT_NE(search::traits::check(in, 50, 100).reason.find("outside"), std::string::npos);
  std::int64_t later = -1;
  for (std::size_t i = 51; i < 100; ++i)
    if (in.data[i] == in.key) later = static_cast<std::int64_t>(i);
  ASSERT_GT(later, 50);
  EXPECT_NE(search::traits::check(in, 50, later).reason.find("lower index 50"), std::string::npos);
}

TEST(Search, WorkModelCountsTheBytesAScanMustRead) {
  const auto& problem = find_problem("search");
  EXPECT_DOUBLE_EQ(problem.work(1024, params_of({})).bytes, 4096);
  EXPECT_DOUBLE_EQ(problem.work(1024, params_of({"hit=first"})).bytes, 4);
  EXPECT_DOUBLE_EQ(problem.work(1024, params_of({"hit=middle"})).bytes, 4 * 513);
  EXPECT_DOUBLE_EQ(problem.work(0, params_of({})).bytes, 0);
}

}  // namespace
}  // namespace ema
