// Fuzz tests of every parser of outside input: seeded mutations of the corpus in tests/fuzz/corpus
// (valid inputs and the malformed ones that once broke ema), for a bounded time per parser (CI runs
// them, and again under AddressSanitizer and UBSan). The contract checked: a parser returns a
// well-formed result or throws its documented error (usage_error for what a user gives, database_error
// for rows read back, std::invalid_argument where the fit CSV reader says so); it never crashes,
// hangs, reads out of bounds or throws anything else. Set EMA_FUZZ_SECONDS to fuzz longer and
// EMA_FUZZ_SEED to draw other mutations.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <sqlite3.h>
#include <sstream>

#include "analysis/analyze.hpp"
#include "analysis/series_csv.hpp"
#include "inputs/tool_results.hpp"
#include "core/duration.hpp"
#include "core/errors.hpp"
#include "core/registry.hpp"
#include "core/sizes.hpp"
#include "core/text.hpp"
#include "fuzz/mutator.hpp"
#include "inputs/matrix_market.hpp"
#include "inputs/series.hpp"
#include "inputs/text_file.hpp"
#include "report/analysis_tables.hpp"
#include "report/document.hpp"
#include "report/exports.hpp"
#include "report/fits.hpp"
#include "report/table.hpp"
#include "runner/external.hpp"
#include "runner/merge.hpp"
#include "runner/plan.hpp"
#include "store/database.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

namespace fs = std::filesystem;

std::uint64_t fuzz_seed() {
  const char* s = std::getenv("EMA_FUZZ_SEED");
  return s ? std::strtoull(s, nullptr, 10) : 20261123;
}

std::vector<std::string> corpus(const std::string& target) {
  std::vector<std::string> out;
  const fs::path dir = fs::path(EMA_FUZZ_CORPUS) / target;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    out.push_back(s.str());
  }
  EXPECT_FALSE(out.empty()) << "no corpus for " << target;
  return out;
}

// Runs a target: `one` parses an input and checks what it returns; the exception types in Allowed
// are the documented errors; anything else fails the test, naming the input.
template <class... Allowed>
bool allowed(const std::exception& e) {
  return (... || (dynamic_cast<const Allowed*>(&e) != nullptr));
}

template <class... Allowed, class One>
void fuzz(const std::string& target, std::vector<std::string> dictionary, One&& one, std::size_t most = 200000) {
  const auto inputs = corpus(target);
  test::mutator m(fuzz_seed(), inputs, std::move(dictionary));
  std::size_t failures = 0;
  const auto runs = test::fuzz_for(m, inputs.size(), most, [&](const std::string& input, std::size_t i) {
    auto report = [&](const std::string& what) {
      if (failures++ < 3) ADD_FAILURE() << target << " input " << i << " (seed " << fuzz_seed() << "): " << what << "\ninput: " << valid_utf8(input);
    };
    try {
      one(input);
    } catch (const std::exception& e) {
      if (!allowed<Allowed...>(e)) report(std::string("threw ") + typeid(e).name() + ": " + e.what());
    } catch (...) {
      report("threw something that is not a std::exception");
    }
  });
  EXPECT_EQ(failures, 0u);
  ::testing::Test::RecordProperty("inputs", static_cast<int>(runs));
  std::cerr << target << ": " << runs << " inputs\n";
}

TEST(Fuzz, SizeLists) {
  fuzz<usage_error>("sizes", {"..", "^", "*", "+", ",", "e", "2^48", "2^49", "1e19", "inf", "nan", "-1", "18446744073709551616", "1.0000001"},
                    [](const std::string& text) {
                      const auto sizes = parse_sizes(text);
                      ASSERT_LE(sizes.size(), max_sizes);
                      for (std::size_t i = 0; i < sizes.size(); ++i) {
                        ASSERT_LE(sizes[i], std::uint64_t{1} << 48);
                        if (i) ASSERT_LT(sizes[i - 1], sizes[i]);
                      }
                    });
}

TEST(Fuzz, Durations) {
  fuzz<usage_error>("durations", {"s", "m", "h", "1e308", "inf", "nan", "-", ".", "e9"}, [](const std::string& text) {
    const double d = parse_duration(text);
    ASSERT_TRUE(std::isfinite(d) && d > 0) << d;
  });
}

TEST(Fuzz, MatrixMarket) {
  fuzz<usage_error>("matrix_market",
                    {"%%MatrixMarket", "matrix", "coordinate", "array", "real", "integer", "general", "symmetric", "\n", " ", "1e308", "-1e308",
                     "inf", "nan", "0", "100001", "4294967296"},
                    [](const std::string& text) {
                      // The check reads what the reader reads, without holding the matrix; where the matrix
                      // is small enough to hold here, both must agree.
                      std::istringstream a(text);
                      const auto info = check_matrix_market(a, "m.mtx");
                      if (info.rows * info.cols > 1 << 20) return;
                      std::istringstream b(text);
                      const auto m = read_matrix_market(b, "m.mtx");
                      ASSERT_EQ(m.rows, info.rows);
                      ASSERT_EQ(m.cols, info.cols);
                      double largest = 0;
                      for (double v : m.values) {
                        ASSERT_TRUE(std::isfinite(v));
                        largest = std::max(largest, std::abs(v));
                      }
                      ASSERT_DOUBLE_EQ(largest, info.largest);
                    });
}

TEST(Fuzz, Series) {
  fuzz<usage_error>("series", {",", "\n", "#", "x", "1e308", "-1e308", "inf", "nan", "\xEF\xBB\xBF", "\r\n", "99999999999999999999"},
                    [](const std::string& text) {
                      for (const char* column : {"", "1", "2", "x", "99999999999999999999"}) {
                        std::istringstream in(text);
                        text_file f(in, "s.csv");
                        try {
                          const auto x = read_series(f, column);
                          ASSERT_GE(x.size(), 2u);
                          for (double v : x) ASSERT_TRUE(std::isfinite(v));
                        } catch (const usage_error&) {
                        }
                      }
                    });
}

TEST(Fuzz, FitCsv) {
  fuzz<std::invalid_argument, usage_error>(
      "fit_csv", {"n,value", ",", "\n", "#", "1e308", "1e-308", "inf", "nan", "0", "-1", "\xEF\xBB\xBF"},
      [](const std::string& text) {
        std::istringstream in(text);
        const auto s = fit::parse_series_csv(in, "d.csv");
        fit::analysis_options o;
        o.bootstrap = 0;
        if (s.size() <= 64) (void)fit::analyze(s, o);  // may refuse: invalid_argument
      },
      20000);
}

TEST(Fuzz, PhaseLines) {
  fuzz<>("phase_lines", {"ema-phase", " ", "\n", "total", "1e308", "inf", "nan", "-0", "0x10", "\t"}, [](const std::string& text) {
    std::map<std::string, double> phases;
    const auto why = parse_phase_lines(text, phases);
    if (!why.empty()) return;
    for (const auto& [name, v] : phases) ASSERT_TRUE(std::isfinite(v) && v >= 0) << name;
  });
}

// Parameters of every problem, as `-p key=value` gives them, then the problem's own checks for a
// few sizes. Path parameters are left out: they name files on this machine.
TEST(Fuzz, ProblemParameters) {
  fuzz<usage_error>(
      "params",
      {"=", "m=", "tau=", "Q=", "copies=", "density=", "eps=", "-1", "0", "9223372036854775807", "-9223372036854775808", "1e308", "nan", "inf", "\n"},
      [](const std::string& text) {
        std::vector<std::string> assignments;
        std::istringstream in(text);
        for (std::string line; std::getline(in, line);)
          if (line.rfind("input=", 0) != 0 && line.rfind("file=", 0) != 0) assignments.push_back(line);
        for (const auto* p : problems()) {
          try {
            const auto params = param_set::resolve(p->name, p->params, assignments);
            static constexpr std::uint64_t sizes[] = {1, 2, 64, 4096};
            if (p->validate) p->validate(params, std::span<const std::uint64_t>(sizes));
            (void)p->work(64, params);
          } catch (const usage_error&) {
          }
        }
      });
}

TEST(Fuzz, StoredPlans) {
  fuzz<database_error>("plans", {"{", "}", "[", "]", "\"points\"", "\"timeout\"", "-1", "1e308", "null", "true", "\"x\"", ":", ","},
                       [](const std::string& text) {
                         const auto j = nlohmann::json::parse(text, nullptr, false);
                         if (j.is_discarded()) return;
                         (void)plan::from_json(j);
                       });
}

// ---- Other tools' results (ema fit --from): JSON of any depth and shape, each tool's reader.

TEST(Fuzz, ToolResults) {
  fuzz<std::invalid_argument, usage_error>("tool_results",
                                           {"{", "}", "[", "]", "\"benchmarks\"", "\"results\"", "\"name\"", "\"real_time\"", "\"parameters\"",
                                            "\"times\"", "\"states\"", "-1", "1e308", "null", "0.5", ":", ","},
                                           [](const std::string& text) {
                                             bool deep = false;
                                             const auto doc = parse_json(text, &deep);
                                             if (deep || doc.is_discarded()) return;
                                             for (const auto tool : {result_tool::gbench, result_tool::nvbench, result_tool::hyperfine}) {
                                               try {
                                                 (void)parse_tool_results(tool, doc, "fuzzed.json", "", "");
                                               } catch (const std::invalid_argument&) {
                                               } catch (const usage_error&) {
                                               }
                                             }
                                           });
}

// ---- Shards merged: a shard's stored plan changed (extra points under the old digest, ordinals
// ---- past the plan), then ema merge with a good shard; only usage and database errors may come.

TEST(Fuzz, ShardsMerged) {
  test::temp_dir dir;
  for (int i = 0; i < 2; ++i) {
    const auto r = test::run_process({EMA_EXE, "run", "search", "--variants", "seq,omp", "--sizes", "2^10..2^11", "--reps", "3", "--warmup", "0",
                                      "--no-energy", "-q", "--db", dir.file("s" + std::to_string(i) + ".db"), "--shard", std::to_string(i) + "/2"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  std::size_t k = 0;
  fuzz<usage_error, database_error>(
      "shards",
      {"{", "}", "[", "]", "\"points\"", "\"shard\"", "\"ordinals\"", "\"digest\"", "\"part\"", "\"merged\"", "-1", "99999", "null", ":", ","},
      [&](const std::string& text) {
        const auto shard = dir.file("fuzzed.db"), out = dir.file("out-" + std::to_string(k++) + ".db");
        fs::copy_file(dir.file("s1.db"), shard, fs::copy_options::overwrite_existing);
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(shard.c_str(), &db), SQLITE_OK);
        sqlite3_stmt* s = nullptr;
        ASSERT_EQ(sqlite3_prepare_v2(db, "UPDATE experiments SET plan_json = ?1", -1, &s, nullptr), SQLITE_OK);
        sqlite3_bind_text(s, 1, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
        sqlite3_step(s);
        sqlite3_finalize(s);
        sqlite3_close(db);
        try {
          const auto r = merge_shards(out, {dir.file("s0.db"), shard}, "ema merge (fuzz)");
          EXPECT_LE(r.points, 4);  // the plan's 4 points at most, whatever the shard claims
        } catch (...) {
          fs::remove(out);
          throw;
        }
        fs::remove(out);
      },
      5000);
}

// ---- Database rows read back: a real experiment's database, one of its cells changed per input,
// ---- then everything that reads it (the tables, the exports, the fits, the report).

struct cell {
  const char* table;
  const char* column;
};
constexpr cell cells[] = {{"experiments", "machine_json"},
                          {"experiments", "ceilings_json"},
                          {"experiments", "idle_json"},
                          {"experiments", "plan_json"},
                          {"experiments", "state"},
                          {"experiments", "command_line"},
                          {"points", "params_json"},
                          {"points", "result_json"},
                          {"points", "notes_json"},
                          {"points", "unavailable_json"},
                          {"points", "status"},
                          {"points", "n"},
                          {"points", "ordinal"},
                          {"points", "instance"},
                          {"points", "reason"},
                          {"points", "variant"},
                          {"points", "problem"},
                          {"points", "backend"},
                          {"samples", "value"},
                          {"samples", "metric"},
                          {"probes", "ceilings_json"}};

void read_everything(const std::string& path) {
  auto db = database::open_read(path);
  for (const auto& e : db.experiments()) {
    const auto v = load_experiment(db, e.id);
    (void)render_tables(v, table_style::text);
    (void)render_tables(v, table_style::markdown);
    (void)render_analysis_tables(v, table_style::markdown);
    (void)json_text(to_run_json(v));
    (void)to_csv(v);
    if (!v.experiment.plan.empty()) (void)plan::from_json(v.experiment.plan);
    fits_by_metric fits;
    fit_request r;
    r.options.bootstrap = 0;
    try {
      fits["total"] = fit_experiment(v, r);
    } catch (const usage_error&) {  // no point has the metric: the data says so, not a crash
    }
    (void)render_markdown(v, fits);
    (void)render_html(v, fits);
  }
}

TEST(Fuzz, DatabaseRowsReadBack) {
  test::temp_dir dir;
  const auto base = dir.file("base.db");
  auto r = test::run_process({EMA_EXE, "run", "search", "--variants", "seq,omp", "--sizes", "2^10..2^13", "--reps", "3", "--warmup", "0",
                              "--no-energy", "--db", base, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_process({EMA_EXE, "exec", "--name", "x", "--gen", "seq {n} > {input}", "--run", "wc -l {input}", "--sizes", "10,20,40", "--reps", "2",
                         "--cache", dir.file("cache"), "--db", base, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  read_everything(base);  // the unchanged database reads back whole

  // The corpus holds texts to put in a cell; the cell is chosen by the input's first byte.
  const auto texts = corpus("database");
  test::mutator m(fuzz_seed(), texts,
                  {"{", "}", "\"host\"", "\"cpu_model\"", "\"value\"", "null", "[]", "1e308", "-1", "\"\"", "\"energy_gpu\"", "\"total\"", "ok",
                   "failed", "\xff"});
  const auto copy = dir.file("fuzzed.db");
  std::size_t failures = 0;
  const auto runs = test::fuzz_for(m, texts.size(), 1000000, [&](const std::string& text, std::size_t i) {
    fs::copy_file(base, copy, fs::copy_options::overwrite_existing);
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(copy.c_str(), &db), SQLITE_OK);
    const auto& c = cells[m.below(std::size(cells))];
    // The row: the k-th by its key (samples are WITHOUT ROWID: their key is three columns).
    const bool samples = std::string(c.table) == "samples";
    const std::string key = samples ? "point_id, metric, rep" : "rowid", row = samples ? "(" + key + ")" : key;
    const auto sql = std::string("UPDATE ") + c.table + " SET " + c.column + " = ?1 WHERE " + row + " = (SELECT " + key + " FROM " + c.table +
                     " ORDER BY " + key + " LIMIT 1 OFFSET (?2 % (SELECT count(*) FROM " + c.table + ")))";
    sqlite3_stmt* s = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_bind_int64(s, 2, static_cast<sqlite3_int64>(m.below(1000)));
    switch (m.below(4)) {
      case 0:
        sqlite3_bind_int64(s, 1, static_cast<sqlite3_int64>(m.rng()()));
        break;
      case 1:
        sqlite3_bind_double(s, 1, m.below(2) ? HUGE_VAL : -1e300);
        break;
      default:
        sqlite3_bind_text(s, 1, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
        break;
    }
    sqlite3_step(s);  // a constraint may refuse the change: then the database reads back as it was
    sqlite3_finalize(s);
    sqlite3_close(db);
    try {
      read_everything(copy);
    } catch (const database_error&) {
    } catch (const std::exception& e) {
      if (failures++ < 3)
        ADD_FAILURE() << "database input " << i << ": " << c.table << "." << c.column << " = " << valid_utf8(text) << " threw " << typeid(e).name()
                      << ": " << e.what();
    }
  });
  EXPECT_EQ(failures, 0u);
  std::cerr << "database: " << runs << " inputs\n";
}

}  // namespace
}  // namespace ema
