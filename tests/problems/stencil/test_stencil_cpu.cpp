// stencil: the CPU variants over every k against seq cell by cell, and the problem's own pieces
// (the initial grids, the Matrix Market input and dump, the two references, the verifier's
// refusals, the work model).
#include <cmath>
#include <fstream>
#include <numbers>

#include "core/errors.hpp"
#include "problems/stencil/host_step.hpp"
#include "problems/stencil/stencil.hpp"
#include "problems/stencil/stencil_cases.hpp"

namespace ema {
namespace {

using test::stencil_params;

stencil::input make(std::uint64_t n, const std::vector<std::string>& a, std::uint64_t seed = 3) {
  const auto p = stencil_params(a);
  return stencil::traits::generate({n, &p, seed, host_memory_kind::pageable});
}

/// T steps of seq's row kernel on the input (the grid every variant must give).
std::vector<float> steps_of(const stencil::input& in, const stencil::coefficients<float>& c) {
  std::vector<float> a(in.grid<float>(), in.grid<float>() + in.cells()), b(in.cells());
  for (std::uint64_t t = 0; t < in.s.steps; ++t) {
    stencil::step_rows(in.s.boundary, c, a.data(), b.data(), in.n, 0, in.n, false);
    a.swap(b);
  }
  return a;
}

stencil::output as_output(const std::vector<float>& g) {
  stencil::output o;
  o.cells = g.data();
  return o;
}

TEST(Stencil, OmpVariantsGiveSeqsGridAtEveryK) {
  test::temp_dir dir;
  for (int k = 1; k <= stencil::settings::max_k; ++k)
    for (std::uint64_t n : {33ull, 130ull}) test::expect_same_grid_as_seq({"omp", "omp-tb"}, n, k, dir);
}

TEST(Stencil, OmpTbTilesSmallerThanTheHaloStillAgree) {
  // Tiles of 8 x 1 cells with k = 5: a tile's halo spans several tiles, and rows are one cell high.
  test::temp_dir dir;
  dense_matrix expected, got;
  const std::vector<std::string> a = {"k=5", "steps=11", "init=random"};
  ASSERT_TRUE(test::run_stencil("seq", 50, a, dir, &expected).verified);
  auto b = a;
  b.push_back("launch.tile_x=8");
  b.push_back("launch.tile_y=1");
  const auto r = test::run_stencil("omp-tb", 50, b, dir, &got);
  EXPECT_TRUE(r.verified) << r.reason;
  EXPECT_EQ(got.values, expected.values);
}

TEST(Stencil, ClosedFormAndStepsAgreeWithinTheirBounds) {
  for (const char* type : {"type=f32", "type=f64"}) {
    const auto in = make(96, {type, "steps=100"});
    const auto closed = stencil::reference_closed_form(in), steps = stencil::reference_by_steps(in);
    double worst = 0;
    for (std::size_t i = 0; i < closed.grid.size(); ++i) worst = std::max(worst, std::abs(closed.grid[i] - steps.grid[i]));
    EXPECT_LE(worst, std::min(closed.bound, steps.bound)) << type;
    EXPECT_GT(closed.bound, 0);
    // The field has not decayed to its mean: the modes still show.
    const auto [lo, hi] = std::minmax_element(closed.grid.begin(), closed.grid.end());
    EXPECT_GT(*hi - *lo, 0.05) << type;
  }
}

TEST(Stencil, TheCheckUsedDependsOnBoundaryAndInit) {
  EXPECT_EQ(stencil::traits::reference(make(20, {"steps=3"})).method, "closed form");
  EXPECT_EQ(stencil::traits::reference(make(20, {"steps=3", "boundary=fixed"})).method, "two-buffer reference in double");
  EXPECT_EQ(stencil::traits::reference(make(20, {"steps=3", "init=random"})).method, "two-buffer reference in double");
}

TEST(Stencil, VerifierRefusesWrongGrids) {
  // Unequal weights, so a west/east mix-up changes the answer.
  const std::vector<std::string> a = {"steps=6", "init=random", "c0=0.5", "cw=0.05", "ce=0.15", "cn=0.2", "cs=0.1"};
  const auto in = make(40, a);
  const auto ref = stencil::traits::reference(in);
  const auto c = in.s.weights<float>();
  auto right = steps_of(in, c);
  EXPECT_TRUE(stencil::traits::check(in, ref, as_output(right)).verified);

  auto mirrored = steps_of(in, {c.c0, c.e, c.w, c.n, c.s});
  auto r = stencil::traits::check(in, ref, as_output(mirrored));
  EXPECT_FALSE(r.verified);
  EXPECT_NE(r.reason.find("beyond the rounding bound"), std::string::npos) << r.reason;

  auto one_off = right;
  one_off[17 * 40 + 3] += 1e-3f;
  r = stencil::traits::check(in, ref, as_output(one_off));
  EXPECT_FALSE(r.verified);
  EXPECT_NE(r.reason.find("cell (17, 3)"), std::string::npos) << r.reason;

  auto nan = right;
  nan[5] = std::nanf("");
  r = stencil::traits::check(in, ref, as_output(nan));
  EXPECT_FALSE(r.verified);
  EXPECT_NE(r.reason.find("cell (0, 5) is nan"), std::string::npos) << r.reason;

  // One step short.
  auto short_in = make(40, {"steps=5", "init=random", "c0=0.5", "cw=0.05", "ce=0.15", "cn=0.2", "cs=0.1"});
  EXPECT_FALSE(stencil::traits::check(in, ref, as_output(steps_of(short_in, c))).verified);
  EXPECT_FALSE(stencil::traits::check(in, ref, stencil::output{}).verified);
}

TEST(Stencil, ResultSummarisesTheGrid) {
  const auto in = make(30, {"steps=0", "init=random"});
  const auto ref = stencil::traits::reference(in);
  std::vector<float> g(in.grid<float>(), in.grid<float>() + in.cells());
  const auto r = stencil::traits::check(in, ref, as_output(g));
  ASSERT_TRUE(r.verified) << r.reason;
  const auto j = nlohmann::json::parse(r.result_json);
  double sum = 0, lo = 1e9, hi = -1e9;
  for (float v : g) sum += v, lo = std::min<double>(lo, v), hi = std::max<double>(hi, v);
  EXPECT_DOUBLE_EQ(j["sum"].get<double>(), sum);
  EXPECT_EQ(j["min"].get<double>(), lo);
  EXPECT_EQ(j["max"].get<double>(), hi);
  EXPECT_EQ(j["max_error"].get<double>(), 0.0);
  ASSERT_EQ(j["probes"].size(), 5u);
  EXPECT_EQ(j["probes"][1]["i"], 15);
  EXPECT_EQ(j["probes"][1]["value"].get<double>(), static_cast<double>(g[15 * 30 + 15]));
}

TEST(Stencil, InitialGridsAreSeededAndBounded) {
  const auto a = make(64, {}), b = make(64, {}), c = make(64, {}, 4);
  EXPECT_TRUE(std::equal(a.g32.data(), a.g32.data() + a.cells(), b.g32.data()));
  EXPECT_FALSE(std::equal(a.g32.data(), a.g32.data() + a.cells(), c.g32.data()));
  EXPECT_EQ(a.modes.size(), 4u);
  for (const auto& m : a.modes) EXPECT_TRUE(m.p != 0 || m.q != 0);
  double v = a.mean;  // the modes' definition: a cos(2 pi (p i + q j) / n + phi) at (3, 5)
  for (const auto& m : a.modes) v += m.a * std::cos(2 * std::numbers::pi * static_cast<double>(m.p * 3 + m.q * 5) / 64 + m.phi);
  EXPECT_FLOAT_EQ(a.g32[3 * 64 + 5], static_cast<float>(v));
  const auto r = make(64, {"init=random", "type=f64"});
  for (std::size_t i = 0; i < r.cells(); ++i) ASSERT_TRUE(r.g64[i] >= -1 && r.g64[i] < 1);
}

TEST(Stencil, MatrixMarketInputAndDump) {
  test::temp_dir dir;
  const std::string path = dir.file("g.mtx");
  {
    std::ofstream f(path);
    f << "%%MatrixMarket matrix array real general\n3 3\n1\n2\n3\n4\n5\n6\n7\n8\n9.5\n";  // column-major
  }
  const auto& problem = find_problem("stencil");
  EXPECT_EQ(problem.size_from_input(stencil_params({"input=" + path})), 3u);
  const auto in = make(3, {"input=" + path, "steps=0"});
  EXPECT_EQ(in.origin, path);
  EXPECT_EQ(in.g32[0 * 3 + 1], 4.0f);  // row 0, column 1
  EXPECT_EQ(in.g32[2 * 3 + 2], 9.5f);
  // dump= writes the final grid, which reads back as the same values.
  dense_matrix out;
  const auto r = test::run_stencil("seq", 3, {"input=" + path, "steps=2", "boundary=fixed"}, dir, &out);
  EXPECT_TRUE(r.verified) << r.reason;
  ASSERT_EQ(out.rows, 3u);
  EXPECT_EQ(out.at(0, 1), 4.0);  // a fixed edge keeps its value
  EXPECT_EQ(out.at(1, 1), 0.6f * 5.0f + 0.1f * 2.0f + 0.1f * 8.0f + 0.1f * 4.0f + 0.1f * 6.0f)
      << "the centre after two steps (its neighbours are fixed edges)";
  // Refusals, each naming what is wrong.
  auto refused = [&](const std::string& text, std::uint64_t n, const char* needle) {
    const std::string bad = dir.file("bad.mtx");
    std::ofstream(bad) << text;
    try {
      const auto p = stencil_params({"input=" + bad});
      problem.validate(p, std::span<const std::uint64_t>(&n, 1));
      ADD_FAILURE() << "accepted: " << text;
    } catch (const usage_error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  refused("%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6\n", 2, "must be square");
  refused("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 3, "side is 2, but the point asks n = 3");
  refused("%%MatrixMarket matrix array real general\n2 2\n1\n2\nx\n4\n", 2, "bad.mtx:5");
  refused("%%MatrixMarket matrix array real general\n1 1\n1e300\n", 1, "beyond the range of f32");
}

TEST(Stencil, BadParametersAreNamed) {
  const auto& problem = find_problem("stencil");
  auto expect_refused = [&](const std::vector<std::string>& a, const char* needle) {
    std::uint64_t n = 8;
    try {
      problem.validate(stencil_params(a), std::span<const std::uint64_t>(&n, 1));
      ADD_FAILURE() << needle;
    } catch (const usage_error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_refused({"k=17"}, "'k'");
  expect_refused({"steps=-1"}, "'steps'");
  expect_refused({"dump=/no/such/folder/x.mtx"}, "does not exist");
  // dump= never replaces a file: not the database, not anything of the user's.
  test::temp_dir dir;
  const auto mine = dir.file("mine.db");
  std::ofstream(mine) << "precious";
  expect_refused({"dump=" + mine}, "never replaces one");
  std::ifstream back(mine);
  std::string text;
  back >> text;
  EXPECT_EQ(text, "precious");
  std::uint64_t two[] = {8, 16};
  try {
    problem.validate(stencil_params({"dump=" + dir.file("g.mtx")}), std::span<const std::uint64_t>(two));
    ADD_FAILURE() << "several sizes into one dump file";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("{n}"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(problem.validate(stencil_params({"dump=" + dir.file("g-{n}.mtx")}), std::span<const std::uint64_t>(two)));
  EXPECT_EQ(stencil::dump_path("g-{n}.mtx", 16), "g-16.mtx");
  std::uint64_t zero = 0;
  EXPECT_THROW(problem.validate(stencil_params({}), std::span<const std::uint64_t>(&zero, 1)), usage_error);
}

TEST(Stencil, WorkModelCountsCellUpdatesAndTheirBytes) {
  const auto& problem = find_problem("stencil");
  const auto w = problem.work(100, stencil_params({"steps=7"}));
  EXPECT_EQ(w.ops, 100.0 * 100 * 7);
  EXPECT_EQ(w.bytes, 2 * 4 * 100.0 * 100 * 7);
  EXPECT_EQ(problem.work(100, stencil_params({"steps=7", "type=f64"})).bytes, 2 * 8 * 100.0 * 100 * 7);
}

TEST(Stencil, StepsPerLoadFollowTheParameter) {
  auto s = stencil::settings::of(stencil_params({"steps=100"}));
  EXPECT_EQ(stencil::steps_per_load(s, 8), 8);
  s = stencil::settings::of(stencil_params({"steps=100", "k=3"}));
  EXPECT_EQ(stencil::steps_per_load(s, 8), 3);
  s = stencil::settings::of(stencil_params({"steps=2", "k=5"}));
  EXPECT_EQ(stencil::steps_per_load(s, 8), 2);
  s = stencil::settings::of(stencil_params({"steps=0"}));
  EXPECT_EQ(stencil::steps_per_load(s, 8), 1);
  // k is a tuning parameter read by the temporal-blocking variants only.
  for (const char* name : {"seq", "omp"}) EXPECT_TRUE(find_variant("stencil", name).tuning.empty()) << name;
  EXPECT_EQ(std::string(find_variant("stencil", "omp-tb").tuning.front()), "k");
}

}  // namespace
}  // namespace ema
