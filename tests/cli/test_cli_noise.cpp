// Noise that is real (issue 29, item 5), end to end: the order a fixed plan runs its sizes in
// (`--order`), a point that ran on a busy machine named in `ema fit` and measured again by
// `ema run --rerun-noisy`, the new measurement replacing the old in tables and fits while the old
// stays in the database, and the options' errors.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>
#include <regex>
#include <string>
#include <vector>

#include "support/db.hpp"
#include "support/ema.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

using test::run_ema;

void sql(const std::string& db, const std::string& statement) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  char* error = nullptr;
  const int rc = sqlite3_exec(h, statement.c_str(), nullptr, nullptr, &error);
  const std::string message = error ? error : "";
  sqlite3_free(error);
  sqlite3_close(h);
  ASSERT_EQ(rc, SQLITE_OK) << message;
}

/// Each stored point's n, by ordinal.
std::vector<std::uint64_t> sizes_by_ordinal(const std::string& db) {
  std::vector<std::uint64_t> out;
  sqlite3* h = nullptr;
  sqlite3_open(db.c_str(), &h);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, "SELECT n FROM points ORDER BY ordinal", -1, &st, nullptr);
  while (sqlite3_step(st) == SQLITE_ROW) out.push_back(static_cast<std::uint64_t>(sqlite3_column_int64(st, 0)));
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

/// This machine's CPU counters read from a folder of the test's (EMA_PROC_ROOT) while it lives,
/// starting at `stat`'s first line; restored when it goes.
struct fixed_proc {
  explicit fixed_proc(const test::temp_dir& dir, const std::string& stat) {
    std::filesystem::create_directories(dir.file("proc"));
    std::ofstream(dir.file("proc/stat")) << stat << "\n";
    ::setenv("EMA_PROC_ROOT", dir.file("proc").c_str(), 1);
  }
  ~fixed_proc() { ::unsetenv("EMA_PROC_ROOT"); }
  fixed_proc(const fixed_proc&) = delete;
  fixed_proc& operator=(const fixed_proc&) = delete;
};

void sweep(const std::string& db, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"run", "search", "--variants", "seq", "--sizes", "2^10..2^16", "--reps", "3", "--no-energy", "--db", db, "-q"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_ema(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

TEST(CliNoise, SizesRunInterleavedUnlessAscendingIsAsked) {
  test::temp_dir dir;
  sweep(dir.file("i.db"));
  // Bit-reversed places of 7 sizes: 0, 4, 2, 6, 1, 5, 3.
  EXPECT_EQ(sizes_by_ordinal(dir.file("i.db")), (std::vector<std::uint64_t>{1024, 16384, 4096, 65536, 2048, 32768, 8192}));
  sweep(dir.file("a.db"), {"--order", "ascending"});
  EXPECT_EQ(sizes_by_ordinal(dir.file("a.db")), (std::vector<std::uint64_t>{1024, 2048, 4096, 8192, 16384, 32768, 65536}));
  auto bad = run_ema({"run", "search", "--sizes", "2^10..2^12", "--order", "random", "--db", dir.file("b.db")});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--order must be interleaved or ascending, got 'random'"), std::string::npos) << bad.err;
  auto budget = run_ema({"run", "search", "--budget", "5s", "--order", "ascending", "--db", dir.file("b.db")});
  EXPECT_EQ(budget.exit_code, 2);
  EXPECT_NE(budget.err.find("a calibrated sweep (--budget) grows its sizes in turn"), std::string::npos) << budget.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("b.db")));
}

TEST(CliNoise, ABusyPointIsMeasuredAgainAndReplacesTheOldInTablesAndFits) {
  test::temp_dir dir;
  const auto db = dir.file("n.db");
  // Counters that never move: no point is judged by this machine's real load (a test beside
  // others on two cores is busy), only the one marked below.
  const fixed_proc counters(dir, "cpu  100 0 50 1000 0 0 0 0 0 0");
  sweep(db);
  // As sweep.cpp notes a point during which other processes took the CPUs it left free.
  sql(db,
      "UPDATE points SET notes_json = json_set(notes_json, '$.disturbed', 'other processes kept 1.9 of the 2 CPUs busy') "
      "WHERE n = 4096");
  auto fit = run_ema({"fit", "--db", db});
  ASSERT_EQ(fit.exit_code == 0 || fit.exit_code == 1, true) << fit.err;
  EXPECT_NE(fit.out.find("the machine was busy while n = 2^12 ran"), std::string::npos) << fit.out;
  EXPECT_NE(fit.out.find("`ema run --rerun-noisy` measures it again"), std::string::npos) << fit.out;

  auto again = run_ema({"run", "--db", db, "--rerun-noisy"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("measuring again search seq n=4096: other processes kept 1.9 of the 2 CPUs busy"), std::string::npos) << again.err;
  // Both measurements are stored, the new one a point of its own past the plan's 7 (a size whose
  // time lies off its neighbours on a busy test machine may be measured again too).
  const auto stored = sizes_by_ordinal(db);
  ASSERT_GE(stored.size(), 8u);
  EXPECT_EQ(std::count(stored.begin() + 7, stored.end(), 4096u), 1);
  // Tables and fits use the new one, and say the old one is set aside.
  auto show = run_ema({"show", "--db", db, "--json", "-"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const auto doc = nlohmann::json::parse(show.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << show.out;
  int at_4096 = 0;
  for (const auto& p : doc["points"]) at_4096 += p["n"] == 4096;
  EXPECT_EQ(at_4096, 1) << show.out;
  fit = run_ema({"fit", "--db", db});
  EXPECT_EQ(fit.out.find("the machine was busy"), std::string::npos) << fit.out;
  // At least the one marked; a point whose time lay off its neighbours on this busy machine may
  // have been measured again as well (CI once set aside 2).
  EXPECT_TRUE(std::regex_search(fit.out, std::regex(R"(\b[1-7] earlier measurements? of its points set aside)"))) << fit.out;

  // Nothing is left that ran on a busy machine (whatever lies off its neighbours is measured again).
  again = run_ema({"run", "--db", db, "--rerun-noisy", "1"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.err.find("n=4096: other processes"), std::string::npos) << again.err;
}

TEST(CliNoise, APointWhileOtherProcessesTookTheCpusIsWarnedOfNamedAndMeasuredAgain) {
  // The whole path on this machine's own reading of /proc/stat, moved to a folder of the test's
  // (EMA_PROC_ROOT): the measured program, at n = 2000 only, advances the counters as if other
  // processes had kept 40 s of CPU busy meanwhile; nothing else moves them.
  test::temp_dir dir;
  const fixed_proc counters(dir, "cpu  1000 0 0 100000 0 0 0 0 0 0");
  std::ofstream(dir.file("busy.sh")) << "sleep 0.03\n"  // a point of 4 runs lasts past the meter's 50 ms
                                        "f=\"$EMA_PROC_ROOT/stat\"\n"
                                        "[ \"$1\" = 2000 ] || exit 0\n"
                                        "set -- $(head -n 1 \"$f\")\n"
                                        "printf 'cpu  %d 0 0 %d 0 0 0 0 0 0\\n' $(($2 + 4000)) $(($5 + 10)) > \"$f.new\" && mv \"$f.new\" \"$f\"\n";
  const auto db = dir.file("x.db");
  auto r = run_ema({"exec", "--name", "busy", "--gen", "head -c {n} /dev/zero > {input}", "--run", "sh " + dir.file("busy.sh") + " {n} {input}",
                    "--sizes", "1000,2000,4000,8000,16000", "--reps", "3", "--cache", dir.file("cache"), "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("ema: warning: 1 point ran on a busy machine (other processes kept up to"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("`ema run --db"), std::string::npos) << r.err;
  auto fit = run_ema({"fit", "--db", db});
  EXPECT_NE(fit.out.find("the machine was busy while n = 2000 ran"), std::string::npos) << fit.out;
  // Measured again (busy again: the program does it each time), the newest measurement is the one used.
  r = run_ema({"run", "--db", db, "--rerun-noisy"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("measuring again busy sh n=2000: other processes kept"), std::string::npos) << r.err;
  fit = run_ema({"fit", "--db", db});
  // At least the one marked; a point whose time lay off its neighbours on this busy machine may
  // have been measured again as well (CI once set aside 2).
  EXPECT_TRUE(std::regex_search(fit.out, std::regex(R"(\b[1-7] earlier measurements? of its points set aside)"))) << fit.out;
}

TEST(CliNoise, RoundsMeasureEachPointAgainAPassApartAndTheQuickestIsFitted) {
  test::temp_dir dir;
  // A quiet machine, whatever this one is doing: CI under ASan once read a busy /proc/stat, so a
  // disturbed round gave way to a quiet one and the count of slower rounds set aside was not 6.
  const fixed_proc quiet(dir, "cpu  1000 0 0 100000 0 0 0 0 0 0");
  const auto db = dir.file("r.db");
  auto run =
      run_ema({"run", "search", "--variants", "seq", "--sizes", "2^10..2^12", "--reps", "3", "--no-energy", "--rounds", "3", "--db", db, "-q"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // Three passes over the plan, each in the plan's order (1024, 4096, 2048 interleaved).
  EXPECT_EQ(sizes_by_ordinal(db), (std::vector<std::uint64_t>{1024, 4096, 2048, 1024, 4096, 2048, 1024, 4096, 2048}));
  // One of each point's rounds is fitted and shown; the slower ones stay in the database.
  auto show = run_ema({"show", "--db", db, "--json", "-"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const auto doc = nlohmann::json::parse(show.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << show.out;
  EXPECT_EQ(doc["points"].size(), 3u) << show.out;
  auto table = run_ema({"show", "--db", db});
  EXPECT_NE(table.out.find("rounds: 3, each point measured 3 times, a pass over the plan apart; each row is its quickest round"), std::string::npos)
      << table.out;
  auto fit = run_ema({"fit", "--db", db});
  ASSERT_EQ(fit.exit_code == 0 || fit.exit_code == 1, true) << fit.err;
  EXPECT_NE(fit.out.find("3 sizes from 2^10 to 2^12, 3 values"), std::string::npos) << fit.out;
  EXPECT_NE(fit.out.find("6 slower rounds of its points set aside: each point's quickest of its rounds is fitted (--rounds)"), std::string::npos)
      << fit.out;
  // The kept round is the quickest of each point's three.
  // n = 1024 ran as plan points 0, 3 and 6 (rounds 1 to 3), n = 4096 as 1, 4 and 7.
  sql(db, "UPDATE samples SET value = value * 100 WHERE point_id IN (SELECT id FROM points WHERE ordinal IN (0, 3, 4, 7))");
  show = run_ema({"show", "--db", db, "--json", "-"});
  const auto slowed = nlohmann::json::parse(show.out, nullptr, false);
  ASSERT_TRUE(slowed.is_object()) << show.out;
  for (const auto& p : slowed["points"]) {
    if (p["n"] == 1024) EXPECT_EQ(p["notes"].value("round", 1), 3) << p.dump();
    if (p["n"] == 4096) EXPECT_EQ(p["notes"].value("round", 1), 1) << p.dump();
  }
  // A stored plan whose phase was damaged ("round zz") still runs the point, with no round noted.
  sql(db,
      "PRAGMA foreign_keys = ON; DELETE FROM points WHERE ordinal = 8; UPDATE experiments SET state = 'interrupted', "
      "plan_json = json_set(plan_json, '$.points[8].phase', 'round zz')");
  auto resumed = run_ema({"run", "--db", db, "--resume", "-q"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(sizes_by_ordinal(db).size(), 9u);
  auto notes_of = [&](int ordinal) {
    return nlohmann::json::parse(test::query_text(db, "SELECT notes_json FROM points WHERE ordinal = " + std::to_string(ordinal)), nullptr, false);
  };
  ASSERT_TRUE(notes_of(8).is_object());
  EXPECT_FALSE(notes_of(8).contains("round")) << notes_of(8).dump();
  EXPECT_TRUE(notes_of(7).contains("round")) << notes_of(7).dump();
  // The plan's bounds: --rounds from 1 to 10, not with a budget, a shard or --rerun-noisy.
  auto expect_refused = [&](std::vector<std::string> args, const std::string& says) {
    auto r = run_ema(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  };
  const auto other = dir.file("o.db");
  expect_refused({"run", "search", "--sizes", "2^10", "--rounds", "0", "--db", other}, "--rounds must be between 1 and 10, got 0");
  expect_refused({"run", "search", "--sizes", "2^10", "--rounds", "11", "--db", other}, "--rounds must be between 1 and 10, got 11");
  expect_refused({"run", "search", "--budget", "5s", "--rounds", "2", "--db", other}, "a calibrated sweep (--budget) settles its own verdicts");
  expect_refused({"run", "search", "--sizes", "2^10", "--rounds", "2", "--shard", "1/2", "--db", other}, "give --rounds without --shard");
  expect_refused({"run", "--db", db, "--rerun-noisy", "--rounds", "2"}, "give no --rounds with it");
  EXPECT_FALSE(std::filesystem::exists(other));
}

TEST(CliNoise, RerunNoisyRefusesWhatItCannotMeasureAgain) {
  test::temp_dir dir;
  const auto db = dir.file("r.db");
  auto none = run_ema({"run", "--db", db, "--rerun-noisy"});
  EXPECT_EQ(none.exit_code, 2);
  sweep(db);
  auto expect_refused = [&](std::vector<std::string> args, const std::string& says) {
    auto r = run_ema(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  };
  expect_refused({"run", "--db", db, "--rerun-noisy", "7"}, "has no experiment 7");
  expect_refused({"run", "--db", db, "--rerun-noisy", "x1"}, "--rerun-noisy takes an experiment number, got 'x1'");
  expect_refused({"run", "search", "--db", db, "--rerun-noisy", "1"}, "give no problem with it");
  expect_refused({"run", "--db", db, "--rerun-noisy", "1", "--sms", "8"}, "give no --sms with it");
  expect_refused({"run", "--db", db, "--rerun-noisy", "1", "--bind", "close"}, "give no --bind with it");
  expect_refused({"run", "--db", db, "--rerun-noisy", "1", "--resume"}, "give --rerun-noisy or --resume, not both");
  sql(db, "UPDATE experiments SET state = 'interrupted'");
  expect_refused({"run", "--db", db, "--rerun-noisy", "1"}, "experiment 1 is interrupted, not finished");
  EXPECT_EQ(sizes_by_ordinal(db).size(), 7u) << "nothing was run or lost";
}

}  // namespace
}  // namespace ema
