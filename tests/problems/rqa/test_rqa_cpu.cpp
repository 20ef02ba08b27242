// rqa: the exact CPU variant against hand-computed plots and the reference, and the problem's own
// pieces (settings, eps modes, inputs, verifier).
#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "problems/rqa/rqa.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

param_set params_of(const std::vector<std::string>& a) { return param_set::resolve("rqa", find_problem("rqa").params, a); }

rqa::input series(std::vector<double> x, rqa::settings s = {}) {
  rqa::input in;
  in.set_series(x);
  in.s = s;
  return in;
}

/// The exact CPU variants (exact-seq, exact-omp).
std::vector<const variant_desc*> exact_cpu_variants() {
  std::vector<const variant_desc*> out;
  for (const auto* v : variants_of("rqa"))
    if (!uses_gpu(v->backend) && std::string(v->name).starts_with("exact-")) out.push_back(v);
  return out;
}

/// Runs every exact CPU variant on `in` (the verifier compares each with the reference, length by
/// length of both histograms) and returns the reference's histograms for the hand-computed checks.
rqa::histograms exact(const rqa::input& in) {
  auto w = std::make_unique<rqa::kit::typed_workload>();
  w->in = in;
  w->expected = rqa::traits::reference(in);
  for (const auto* v : exact_cpu_variants()) {
    run_context ctx(in.x.size(), params_of({}), 0);
    auto got = v->run(*w, ctx);
    EXPECT_TRUE(got.verified) << v->name << ": " << got.reason;
  }
  return rqa::reference_histograms(in);
}

TEST(Rqa, ConstantSeriesIsOneBigBlock) {
  const std::size_t N = 10;
  auto in = series(std::vector<double>(N, 0.7));
  auto h = exact(in);
  EXPECT_EQ(h.recurrent, N * N - N);
  EXPECT_EQ(h.cells, N * N - N);
  for (std::size_t l = 1; l < N; ++l) EXPECT_EQ(h.diagonal[l], 2u) << l;  // offset l and -l: one line of N - l each
  EXPECT_EQ(h.diagonal[N], 0u);
  // Column j: rows above the diagonal (j of them) and below (N - 1 - j).
  std::vector<std::uint64_t> v(N + 1, 0);
  for (std::size_t j = 0; j < N; ++j) {
    if (j) ++v[j];
    if (N - 1 - j) ++v[N - 1 - j];
  }
  EXPECT_EQ(h.vertical, v);
  auto q = rqa::quantify(h, 2, 2);
  EXPECT_DOUBLE_EQ(q.RR, 1.0);
  EXPECT_DOUBLE_EQ(q.DET, 1.0 - 2.0 / (N * N - N));
  EXPECT_DOUBLE_EQ(q.Lmax, N - 1);
  EXPECT_DOUBLE_EQ(q.Vmax, N - 1);
}

TEST(Rqa, PeriodTwoSeriesHasDiagonalsButNoVerticalLines) {
  std::vector<double> x;
  for (int i = 0; i < 12; ++i) x.push_back(i % 2);
  rqa::settings s;
  s.eps = 0.5;
  auto h = exact(series(x, s));
  auto q = rqa::quantify(h, 2, 2);
  EXPECT_DOUBLE_EQ(q.RR, 60.0 / 132.0);  // even offsets 2..10: 2 * (10 + 8 + 6 + 4 + 2) cells
  EXPECT_DOUBLE_EQ(q.DET, 1.0);          // every line is a whole diagonal, at least 2 long
  EXPECT_DOUBLE_EQ(q.LAM, 0.0);          // rows alternate: every vertical line has length 1
  EXPECT_DOUBLE_EQ(q.Vmax, 1.0);
  EXPECT_DOUBLE_EQ(q.Lmax, 10.0);
}

TEST(Rqa, LinesCrossingTileBordersAreCarried) {
  // Long vertical and diagonal lines through many 64-cell tiles and across the 8-line tasks of
  // exact-omp: a constant stretch, a period-3 stretch and noise, 3000 vectors, against the reference.
  std::vector<double> x(1200, 0.25);
  for (int i = 0; i < 900; ++i) x.push_back(0.1 * (i % 3));
  for (int i = 0; i < 900; ++i) x.push_back(0.37 * ((i * 7919) % 101) / 101.0);
  rqa::settings s;
  s.eps = 0.05;
#ifdef EMA_WITH_OPENMP
  ASSERT_EQ(exact_cpu_variants().size(), 2u);  // exact-seq and exact-omp
#endif
  auto h = exact(series(x, s));
  EXPECT_GT(rqa::quantify(h, 2, 2).Lmax, 1000);
}

TEST(Rqa, MicrostatesEstimatorMatchesItsReferenceAndIsBiasedLow) {
  auto p = params_of({"system=logistic", "Q=60", "samples=400", "eps=0.3"});
  const auto& problem = find_problem("rqa");
  auto work = problem.prepare({1500, &p, 9, host_memory_kind::pageable});
  auto& typed = static_cast<rqa::kit::typed_workload&>(*work);
  const auto ref = rqa::reference_microstates(typed.in);
  EXPECT_EQ(ref.samples, 400u);
  EXPECT_GT(ref.used, 390u);
  EXPECT_GT(ref.se, 0);
  int ran = 0;
  for (const auto* v : variants_of("rqa")) {
    if (!std::string(v->name).starts_with("microstates-") || uses_gpu(v->backend)) continue;
    run_context ctx(1500, p, 0);
    auto got = v->run(*work, ctx);
    EXPECT_TRUE(got.verified) << v->name << ": " << got.reason;
    EXPECT_NE(got.result_json.find("\"microstates_used\""), std::string::npos) << got.result_json;
    const auto j = nlohmann::json::parse(got.result_json);
    EXPECT_NEAR(j["LAM_ci95"][0].get<double>(), j["LAM"].get<double>() - 1.96 * j["LAM_se"].get<double>(),
                0.02 * j["LAM_se"].get<double>());  // se is printed to 3 digits
    ++ran;
  }
  EXPECT_GE(ran, 1);
  // Lines cut by the microstate's edge count short, so the estimate sits below the exact LAM.
  const auto exact_lam = rqa::quantify(rqa::reference_histograms(typed.in), 2, 2).LAM;
  EXPECT_LT(ref.value, exact_lam) << "microstates " << ref.value << " exact " << exact_lam;
  // The verifier catches an estimate that is not the reference's.
  auto off = ref;
  off.value += 1e-3;
  const rqa::output wrong = off;
  EXPECT_NE(rqa::traits::check(typed.in, typed.expected, wrong).reason.find("the reference computes"), std::string::npos);
}

TEST(Rqa, MotifEstimatorFallsWithinItsIntervalOfTheExactValues) {
  // LAM, DET, TT and L within 5 standard errors of the exact values and ENTR within 0.1 (the
  // verifier's test where the exact plot is affordable), for three kinds of series.
  for (const char* system : {"logistic", "noise", "rossler"}) {
    auto p = params_of({std::string("system=") + system, "cells=200000", "eps_mode=rr", "eps=0.1"});
    const auto& problem = find_problem("rqa");
    auto work = problem.prepare({3000, &p, 4, host_memory_kind::pageable});
    auto& typed = static_cast<rqa::kit::typed_workload&>(*work);
    const auto q = rqa::quantify(typed.expected.h, 2, 2);
    std::string first;
    for (const auto* v : variants_of("rqa")) {
      if (!std::string(v->name).starts_with("motif-") || uses_gpu(v->backend)) continue;
      run_context ctx(3000, p, 0);
      auto got = v->run(*work, ctx);
      EXPECT_TRUE(got.verified) << system << " " << v->name << ": " << got.reason << " exact LAM " << q.LAM << " DET " << q.DET;
      for (const char* q : {"\"TT\"", "\"L\"", "\"ENTR\"", "\"line_starts_drawn\"", "\"LAM_ci95\"", "\"DET_ci95\""})
        EXPECT_NE(got.result_json.find(q), std::string::npos) << q << " in " << got.result_json;
      if (first.empty()) first = got.result_json;
      EXPECT_EQ(got.result_json, first) << v->name << ": the batches draw the same cells in every variant";
    }
    EXPECT_FALSE(first.empty());
  }
  // A wrong estimate is caught.
  auto p = params_of({"system=logistic", "cells=100000"});
  auto work = find_problem("rqa").prepare({2000, &p, 4, host_memory_kind::pageable});
  auto& typed = static_cast<rqa::kit::typed_workload&>(*work);
  std::vector<rqa::motif_counts> batches;
  for (std::uint64_t b = 0; b < rqa::motif_batches; ++b) batches.push_back(rqa::motif_batch(typed.in, b));
  auto off = rqa::motif_from_batches(typed.in, batches);
  ASSERT_GT(off.lam.se, 0);
  off.lam.value += 10 * off.lam.se;
  const rqa::output wrong = off;
  EXPECT_NE(rqa::traits::check(typed.in, typed.expected, wrong).reason.find("standard errors from the exact"), std::string::npos);
}

TEST(Rqa, MotifEstimatorDrawsRoundsUntilATargetError) {
  auto p = params_of({"system=logistic", "cells=10000", "rse=0.004"});
  auto work = find_problem("rqa").prepare({2000, &p, 6, host_memory_kind::pageable});
  std::string first;
  for (const auto* v : variants_of("rqa")) {
    if (!std::string(v->name).starts_with("motif-") || uses_gpu(v->backend)) continue;
    run_context ctx(2000, p, 0);
    auto got = v->run(*work, ctx);
    EXPECT_TRUE(got.verified) << v->name << ": " << got.reason;
    if (first.empty()) first = got.result_json;
    EXPECT_EQ(got.result_json, first) << v->name;
  }
  auto j = nlohmann::json::parse(first);
  EXPECT_GT(j["cells"].get<std::uint64_t>(), 10000u);  // more than one round
  EXPECT_EQ(j["cells"].get<std::uint64_t>() % 10000, 0u);
  EXPECT_LE(j["LAM_se"].get<double>(), 0.004 * j["LAM"].get<double>() * 1.0001);
}

TEST(Rqa, MicrostatesEstimatorNeedsQVectors) {
  auto p = params_of({"Q=300"});
  auto work = find_problem("rqa").prepare({256, &p, 1, host_memory_kind::pageable});
  run_context ctx(256, p, 0);
  EXPECT_THROW(find_variant("rqa", "microstates-seq").run(*work, ctx), std::runtime_error);
}

TEST(Rqa, ThresholdZeroStrictAndNot) {
  rqa::settings s;
  s.eps = 0;
  auto h = exact(series({1, 2, 1, 3, 1}, s));
  EXPECT_EQ(h.recurrent, 0u);
  s.strict = false;  // d <= 0: the exactly equal pairs (0, 2), (0, 4), (2, 4) and their mirrors
  h = exact(series({1, 2, 1, 3, 1}, s));
  EXPECT_EQ(h.recurrent, 6u);
}

TEST(Rqa, EmptyAndSinglePointSeries) {
  auto h = exact(series({0.5}));
  EXPECT_EQ(h.cells, 0u);
  EXPECT_EQ(rqa::quantify(h, 2, 2).RR, 0.0);
  rqa::settings s;
  s.theiler = 0;
  h = exact(series({0.5}, s));
  EXPECT_EQ(h.recurrent, 1u);
  auto p = params_of({"system=noise"});
  EXPECT_THROW(rqa::traits::generate({0, &p, 1, host_memory_kind::pageable}), usage_error);
}

TEST(Rqa, WhiteNoiseRecurrenceRate) {
  // Uniform noise, maximum norm, m = 1: P(|x - y| < eps) = 2 eps - eps^2.
  auto p = params_of({"system=noise", "eps=0.1"});
  auto in = rqa::traits::generate({2000, &p, 5, host_memory_kind::pageable});
  auto q = rqa::quantify(rqa::reference_histograms(in), 2, 2);
  EXPECT_NEAR(q.RR, 0.19, 0.005);
  EXPECT_LT(q.DET, 0.35);  // noise: few diagonal lines (P(two in a row) ~ RR)
}

TEST(Rqa, EveryNormWindowAndEmbeddingMatchesTheReference) {
  for (const char* norm : {"max", "euclidean", "manhattan"})
    for (const char* m : {"1", "3"})
      for (const char* tau : {"1", "2"})
        for (const char* w : {"0", "1", "5"})
          for (const char* strict : {"true", "false"}) {
            auto p = params_of({"system=logistic", std::string("norm=") + norm, std::string("m=") + m, std::string("tau=") + tau,
                                std::string("theiler=") + w, std::string("strict=") + strict, "eps=0.2"});
            const auto& problem = find_problem("rqa");
            for (std::uint64_t n : {2ull, 7ull, 150ull}) {
              if (n <= 4 && std::string(m) == "3") continue;  // no vector of that dimension
              auto work = problem.prepare({n, &p, 1, host_memory_kind::pageable});
              for (const auto* v : exact_cpu_variants()) {
                run_context ctx(n, p, 0);
                auto got = v->run(*work, ctx);
                EXPECT_TRUE(got.verified) << v->name << " " << norm << " m=" << m << " tau=" << tau << " w=" << w << " n=" << n << ": " << got.reason;
              }
            }
          }
}

TEST(Rqa, EpsModes) {
  auto rr = params_of({"system=noise", "eps_mode=rr", "eps=0.05"});
  auto in = rqa::traits::generate({3000, &rr, 2, host_memory_kind::pageable});
  EXPECT_NEAR(rqa::quantify(rqa::reference_histograms(in), 2, 2).RR, 0.05, 0.003);
  auto sd = params_of({"system=sine", "eps_mode=std", "eps=0.5"});
  in = rqa::traits::generate({1000, &sd, 2, host_memory_kind::pageable});
  EXPECT_NEAR(in.s.eps, 0.5 * std::sqrt(0.5), 1e-3);  // a sine's standard deviation is 1/sqrt(2)
  auto bad = params_of({"eps_mode=rr", "eps=2"});
  EXPECT_THROW(rqa::traits::generate({100, &bad, 1, host_memory_kind::pageable}), usage_error);
}

TEST(Rqa, SeriesFromAFile) {
  test::temp_dir dir;
  const auto path = dir.file("s.csv");
  std::ofstream(path) << "t,v\n0,0.1\n1,0.2\n2,0.1\n3,0.2\n";
  auto p = params_of({"input=" + path, "column=v", "eps=0.05"});
  auto in = rqa::traits::generate({4, &p, 1, host_memory_kind::pageable});
  EXPECT_EQ(std::vector<double>(in.x.begin(), in.x.end()), (std::vector<double>{0.1, 0.2, 0.1, 0.2}));
  try {
    rqa::traits::generate({5, &p, 1, host_memory_kind::pageable});
    FAIL();
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("the series has 4 values, but the point asks n = 5"), std::string::npos) << e.what();
  }
}

TEST(Rqa, VerifierNamesADifferenceAndChecksLargePlotsForConsistency) {
  auto in = series({0.1, 0.2, 0.1, 0.2, 0.3}, {});
  in.s.eps = 0.05;
  auto want = rqa::traits::reference(in);
  rqa::output got{want.h};
  EXPECT_TRUE(rqa::traits::check(in, want, got).verified);
  std::get<rqa::histograms>(got).diagonal[2] += 1;
  EXPECT_NE(rqa::traits::check(in, want, got).reason.find("line histograms differ from the reference at length 2"), std::string::npos);
  // Past the reference's limit: consistency and a sampled RR.
  auto p = params_of({"system=noise", "eps=0.1"});
  auto big = rqa::traits::generate({rqa::reference_limit + 100, &p, 3, host_memory_kind::pageable});
  auto none = rqa::traits::reference(big);
  EXPECT_FALSE(none.have_histograms);
  rqa::output right{rqa::reference_histograms(big)};
  EXPECT_TRUE(rqa::traits::check(big, none, right).verified) << rqa::traits::check(big, none, right).reason;
  auto wrong = right;
  std::get<rqa::histograms>(wrong).recurrent += 5;
  EXPECT_NE(rqa::traits::check(big, none, wrong).reason.find("recurrent cells, but"), std::string::npos);
}

}  // namespace
}  // namespace ema
