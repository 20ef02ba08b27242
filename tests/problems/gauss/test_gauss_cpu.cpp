// gauss: singular matrices on every CPU variant, and the problem's own pieces (generator,
// Matrix Market reader, verifier, work model).
#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

#include "core/errors.hpp"
#include "inputs/matrix_market.hpp"
#include "problems/gauss/gauss_singular.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

using test::gauss_params;

bool cpu(const variant_desc& v) { return !uses_gpu(v.backend); }

TEST(Gauss, CpuVariantsReportASingularMatrix) { test::gauss_variants_report_singular(cpu); }

TEST(Gauss, NonPivotingVariantsDeclineGeneralMatrices) {
  auto general = gauss_params({"matrix=general"}), dense = gauss_params({});
  for (const char* name : {"seq", "omp"}) {
    const auto& v = find_variant("gauss", name);
    ASSERT_NE(v.not_applicable, nullptr) << name;
    const char* why = v.not_applicable(general, 8);
    ASSERT_NE(why, nullptr) << name;
    EXPECT_NE(std::string(why).find("does not pivot"), std::string::npos);
    EXPECT_EQ(v.not_applicable(dense, 8), nullptr);
  }
  EXPECT_EQ(find_variant("gauss", "omp-blocked").not_applicable, nullptr);
}

TEST(Gauss, GeneratorIsDeterministicDominantAndSparseOnRequest) {
  auto dense = gauss_params({}), sparse = gauss_params({"matrix=sparse", "density=0.1"}), general = gauss_params({"matrix=general"});
  auto a = gauss::traits::generate({300, &dense, 5, host_memory_kind::pageable});
  auto b = gauss::traits::generate({300, &dense, 5, host_memory_kind::pageable});
  auto c = gauss::traits::generate({300, &dense, 6, host_memory_kind::pageable});
  ASSERT_EQ(a.m32.size(), 300u * 301u);
  EXPECT_FALSE(a.f64);
  EXPECT_TRUE(std::equal(a.m32.data(), a.m32.data() + a.m32.size(), b.m32.data()));
  EXPECT_FALSE(std::equal(a.m32.data(), a.m32.data() + a.m32.size(), c.m32.data()));
  EXPECT_TRUE(a.dominant);
  auto s = gauss::traits::generate({300, &sparse, 5, host_memory_kind::pageable});
  EXPECT_TRUE(s.dominant);
  std::size_t nonzero = 0;
  for (std::size_t i = 0; i < 300; ++i)
    for (std::size_t j = 0; j < 300; ++j) nonzero += i != j && s.at(i, j) != 0;
  const double fraction = static_cast<double>(nonzero) / (300.0 * 299.0);
  EXPECT_NEAR(fraction, 0.1, 0.01);
  auto g = gauss::traits::generate({300, &general, 5, host_memory_kind::pageable});
  EXPECT_FALSE(g.dominant);
  auto f64 = gauss_params({"type=f64"});
  auto d = gauss::traits::generate({50, &f64, 5, host_memory_kind::pageable});
  EXPECT_TRUE(d.f64);
  EXPECT_EQ(d.m64.size(), 50u * 51u);
}

TEST(Gauss, BadParametersAreNamed) {
  auto p = gauss_params({"density=0"});
  try {
    gauss::traits::generate({10, &p, 1, host_memory_kind::pageable});
    FAIL() << "density 0 was accepted";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("density"), std::string::npos) << e.what();
  }
  auto q = gauss_params({});
  EXPECT_THROW(gauss::traits::generate({0, &q, 1, host_memory_kind::pageable}), usage_error);
}

TEST(Gauss, VerifierNamesWhatIsWrong) {
  auto p = gauss_params({});
  auto in = gauss::traits::generate({40, &p, 2, host_memory_kind::pageable});
  const auto facts = gauss::traits::reference(in);
  gauss::output out;
  auto r = gauss::traits::check(in, facts, out);
  EXPECT_FALSE(r.verified);
  EXPECT_NE(r.reason.find("returned 0 unknowns for 40"), std::string::npos) << r.reason;
  out.x.assign(40, 0.0);
  r = gauss::traits::check(in, facts, out);
  EXPECT_FALSE(r.verified);
  EXPECT_NE(r.reason.find("scaled residual"), std::string::npos) << r.reason;
  out.x[3] = std::nan("");
  r = gauss::traits::check(in, facts, out);
  EXPECT_NE(r.reason.find("x[3] is nan"), std::string::npos) << r.reason;
  out.status = gauss::output::state::singular;
  out.step = 7;
  r = gauss::traits::check(in, facts, out);
  EXPECT_FALSE(r.verified);
  EXPECT_NE(r.reason.find("not singular"), std::string::npos) << r.reason;
}

TEST(Gauss, ScaledResidualOfAnExactSolutionIsZero) {
  // A = diag(2, 4), b = (2, 8): x = (1, 2) exactly.
  gauss::input in;
  in.n = 2;
  in.m32 = host_array<float>(6, host_memory_kind::pageable);
  const float m[] = {2, 0, 2, 0, 4, 8};
  std::copy(m, m + 6, in.m32.data());
  const auto facts = gauss::traits::reference(in);
  EXPECT_DOUBLE_EQ(facts.norm_inf, 4);
  EXPECT_EQ(gauss::scaled_residual(in, facts.norm_inf, {1, 2}), 0);
  EXPECT_GT(gauss::scaled_residual(in, facts.norm_inf, {1, 2.001}), gauss::residual_bound);
  EXPECT_TRUE(std::isinf(gauss::scaled_residual(in, facts.norm_inf, {1})));
}

TEST(Gauss, WorkModelCountsFlopsAndTheMatrix) {
  const auto& problem = find_problem("gauss");
  auto w = problem.work(3000, gauss_params({}));
  EXPECT_DOUBLE_EQ(w.bytes, 4.0 * 3000 * 3001);
  EXPECT_NEAR(w.ops, 2.0 / 3.0 * 27e9 + 2 * 9e6, 1);
  EXPECT_DOUBLE_EQ(problem.work(10, gauss_params({"type=f64"})).bytes, 8.0 * 10 * 11);
}

dense_matrix parse(const std::string& text) {
  std::istringstream s(text);
  return read_matrix_market(s, "m.mtx");
}

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const usage_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(MatrixMarket, ReadsCoordinateAndArrayGeneralAndSymmetric) {
  auto a = parse("%%MatrixMarket matrix coordinate real general\n% a comment\n\n2 3 3\n1 1 1.5\n2 3 -2\n1 2 4e1\n");
  ASSERT_EQ(a.rows, 2u);
  ASSERT_EQ(a.cols, 3u);
  EXPECT_EQ(a.values, (std::vector<double>{1.5, 40, 0, 0, 0, -2}));
  auto s = parse("%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 2\n3 1 5\n");
  EXPECT_EQ(s.values, (std::vector<double>{2, 0, 5, 0, 0, 0, 5, 0, 0}));
  auto c = parse("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n");  // column-major
  EXPECT_EQ(c.values, (std::vector<double>{1, 3, 2, 4}));
  auto d = parse("%%MatrixMarket matrix array integer symmetric\n2 2\n1\n2\n3\n");
  EXPECT_EQ(d.values, (std::vector<double>{1, 2, 2, 3}));
}

TEST(MatrixMarket, MalformedFilesNameTheLineAndTheFault) {
  EXPECT_EQ(error_of(""), "m.mtx: the file is empty");
  EXPECT_NE(error_of("hello\n").find("m.mtx:1: expected the banner"), std::string::npos);
  EXPECT_NE(error_of("%%MatrixMarket matrix coordinate complex general\n").find("m.mtx:1: field 'complex'"), std::string::npos);
  EXPECT_NE(error_of("%%MatrixMarket matrix coordinate real skew-symmetric\n").find("symmetry"), std::string::npos);
  EXPECT_NE(error_of("%%MatrixMarket matrix coordinate real general\n2 2\n").find("m.mtx:2: the size line"), std::string::npos);
  EXPECT_NE(error_of("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 3\n").find("m.mtx:3: column 'x'"), std::string::npos);
  EXPECT_NE(error_of("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 3\n").find("m.mtx:3: row 3 is outside 1..2"), std::string::npos);
  EXPECT_NE(error_of("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1\n").find("m.mtx:3: expected 3 fields"), std::string::npos);
  EXPECT_NE(error_of("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n").find("ends after 1 of 2 entries"), std::string::npos);
  EXPECT_NE(error_of("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 abc\n").find("m.mtx:3: value 'abc'"), std::string::npos);
  EXPECT_NE(error_of("%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n").find("above the diagonal"), std::string::npos);
  EXPECT_NE(error_of("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n").find("ends before entry (2, 2)"), std::string::npos);
  EXPECT_NE(error_of("%%MatrixMarket matrix array real general\n1 1\n1\n2\n").find("m.mtx:4: unexpected data"), std::string::npos);
}

TEST(Gauss, SolvesAMatrixMarketFileAndChecksItsOrder) {
  test::temp_dir dir;
  const auto path = dir.file("a.mtx");
  std::ofstream(path) << "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 4\n2 1 1\n2 2 -5\n3 3 2\n";
  auto p = gauss_params({"file=" + path});
  const auto& problem = find_problem("gauss");
  for (const auto* v : variants_of("gauss")) {
    if (!cpu(*v)) continue;
    auto w = problem.prepare({3, &p, 1, host_memory_kind::pageable});
    auto got = test::run_gauss(*v, *w, 3, p);
    EXPECT_TRUE(got.verified) << v->name << ": " << got.reason;
  }
  try {
    problem.prepare({4, &p, 1, host_memory_kind::pageable});
    FAIL() << "n = 4 was accepted for an order-3 file";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("has order 3, but the point asks n = 4"), std::string::npos) << e.what();
  }
  std::ofstream(path) << "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1\n";
  EXPECT_THROW(problem.prepare({3, &p, 1, host_memory_kind::pageable}), usage_error);
}

}  // namespace
}  // namespace ema
