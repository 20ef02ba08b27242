// The worker protocol (runner/protocol.hpp): a point_spec and a point_answer survive the trip
// through JSON field for field, an absent optional field takes its default, and a missing or
// ill-typed one is named.
#include <gtest/gtest.h>

#include "runner/protocol.hpp"

namespace ema {
namespace {

TEST(Protocol, ASpecRoundTrips) {
  point_spec s;
  s.problem = "sort";
  s.variant = "radix-omp";
  s.n = 1ull << 40;
  s.params = {{"dist", "uniform"}, {"type", "u64"}};
  s.seed = 0xfedcba9876543210ull;
  s.repetitions.fixed = 7;
  s.repetitions.warmup = 2;
  s.repetitions.max_time = 3.5;
  s.energy = {false, 0.25, "disabled (--no-energy)"};
  s.idle = {{"energy_gpu", {61.5, 63.0}}, {"energy_cpu", 40.0}};
  s.cache_dir = "/tmp/cache";
  s.cache_cap = 2e9;
  const auto back = spec_from_json(nlohmann::json::parse(to_json(s).dump()));
  EXPECT_EQ(back.problem, s.problem);
  EXPECT_EQ(back.variant, s.variant);
  EXPECT_EQ(back.n, s.n);
  EXPECT_EQ(back.params, s.params);
  EXPECT_EQ(back.seed, s.seed);
  EXPECT_EQ(back.repetitions.to_json(), s.repetitions.to_json());
  EXPECT_EQ(back.energy, s.energy);
  EXPECT_EQ(back.idle, s.idle);
  EXPECT_EQ(back.cache_dir, s.cache_dir);
  EXPECT_EQ(back.cache_cap, s.cache_cap);
}

TEST(Protocol, AnAnswerRoundTrips) {
  point_answer a;
  a.status = "unverified";
  a.reason = "element 3 out of order";
  a.verified = false;
  a.result = {{"sorted", false}};
  a.samples = {{"total", {1e-3, 1.1e-3}}, {"kernel", {0.9e-3, 1e-3}}};
  a.notes = {{"algorithm", "radix"}, {"levels", 4}};
  a.unavailable = {{"energy_gpu", "not measured: the variant uses no GPU"}};
  a.output_error = "disk full";
  const auto back = answer_from_json(nlohmann::json::parse(to_json(a).dump()));
  EXPECT_EQ(back.status, a.status);
  EXPECT_EQ(back.reason, a.reason);
  EXPECT_EQ(back.verified, a.verified);
  EXPECT_EQ(back.result, a.result);
  EXPECT_EQ(back.samples, a.samples);
  EXPECT_EQ(back.notes, a.notes);
  EXPECT_EQ(back.unavailable, a.unavailable);
  EXPECT_EQ(back.output_error, a.output_error);
  EXPECT_FALSE(answer_from_json(to_json(point_answer{})).output_error);
}

TEST(Protocol, DefaultsAndErrorsAreNamed) {
  const nlohmann::json least = {{"problem", "search"}, {"variant", "seq"}, {"n", 1024}, {"params", nlohmann::json::object()}, {"seed", 1}};
  const auto s = spec_from_json(least);
  EXPECT_TRUE(s.energy.enabled);
  EXPECT_EQ(s.cache_dir, "");
  EXPECT_EQ(s.repetitions.to_json(), repetition_policy{}.to_json());
  for (const char* key : {"problem", "variant", "n", "params", "seed"}) {
    auto j = least;
    j.erase(key);
    try {
      spec_from_json(j);
      ADD_FAILURE() << "a spec without " << key << " was taken";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
  auto wrong = least;
  wrong["n"] = "many";
  EXPECT_THROW(spec_from_json(wrong), std::invalid_argument);
  wrong["n"] = -5;  // not 2^64 - 5
  EXPECT_THROW(spec_from_json(wrong), std::invalid_argument);
  wrong["n"] = 2.5;
  EXPECT_THROW(spec_from_json(wrong), std::invalid_argument);
  // An answer with nothing in it is a failure, not an ok point; a sample list of text is refused.
  EXPECT_EQ(answer_from_json(nlohmann::json::object()).status, "failed");
  EXPECT_THROW(answer_from_json({{"samples", {{"total", {"fast"}}}}}), std::invalid_argument);
}

}  // namespace
}  // namespace ema
