// The ema command line end to end: listing, usage errors and their exit codes, a sweep with every
// sink, the JSON schema, database errors, and resuming after kill -9.
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <set>
#include <sqlite3.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>

#include "support/db.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

using test::run_process;

test::process_result ema(std::vector<std::string> args) {
  args.insert(args.begin(), EMA_EXE);
  return run_process(args);
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

int count_points(const std::string& db_path) { return test::query_int(db_path, "SELECT count(*) FROM points"); }

TEST(Cli, ListShowsProblemsAndVariants) {
  auto r = ema({"list"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("search"), std::string::npos);
  EXPECT_NE(r.out.find("Algorithm 1 of 001_9fea77a744af8951.txt"), std::string::npos);
  auto j = ema({"list", "--json"});
  auto parsed = nlohmann::json::parse(j.out);
  ASSERT_EQ(parsed.size(), 7u);
  EXPECT_EQ(parsed[0]["name"], "bfs");
  EXPECT_EQ(parsed[1]["name"], "gauss");
  EXPECT_EQ(parsed[2]["name"], "rqa");
  EXPECT_EQ(parsed[3]["name"], "search");
  EXPECT_EQ(parsed[4]["name"], "sort");
  EXPECT_EQ(parsed[5]["name"], "sssp");
  EXPECT_EQ(parsed[6]["name"], "stencil");
  EXPECT_FALSE(parsed[3]["variants"].empty());
}

TEST(Cli, UsageErrorsExit2AndListTheValidNames) {
  test::temp_dir dir;
  auto db = dir.file("u.db");
  auto r = ema({"run", "serch", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown problem 'serch'; valid problems: bfs, gauss, rqa, search"), std::string::npos) << r.err;
  r = ema({"run", "search", "--variants", "seq,fast", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown variant 'fast' of problem search; valid variants: seq"), std::string::npos) << r.err;
  r = ema({"run", "search", "--param", "hits=none", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("valid parameters: hit, copies"), std::string::npos) << r.err;
  r = ema({"run", "search", "--param", "hit=often", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("none|first|middle|last|random"), std::string::npos) << r.err;
  r = ema({"run", "search", "--sizes", "2^10..2^x", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'2^x' is not a number"), std::string::npos) << r.err;
  r = ema({"run", "search", "--reps", "0", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  r = ema({"run", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("name a problem or give --all"), std::string::npos) << r.err;
  r = ema({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(db)) << "a usage error must not create the database";
}

TEST(Cli, RunWritesEverySinkAndShowPrintsItAgain) {
  test::temp_dir dir;
  auto db = dir.file("r.db"), json = dir.file("r.json"), csv = dir.file("r.csv"), md = dir.file("r.md");
  auto r = ema({"run", "search", "--variants", "seq,omp", "--sizes", "0,1,1000", "--param", "hit=middle", "--reps", "3", "--no-energy", "--db", db,
                "--json", json, "--csv", csv, "--md", md});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("search"), std::string::npos);
  // stderr is a pipe here: progress as lines, the first when the problem starts (issue 31, item 5).
  EXPECT_NE(r.err.find("ema: [1/6] search seq n = 0\n"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << "a line drawn over itself went to a pipe";
  auto j = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(j["schema"], "ema.run/1");
  ASSERT_EQ(j["points"].size(), 6u);
  const std::set<std::string> statuses = {"ok", "failed", "crashed", "timeout", "oom", "unverified", "skipped"};
  for (const auto& p : j["points"]) {
    for (const char* key : {"problem", "variant", "n", "params", "status", "reason", "verified", "result", "metrics"})
      ASSERT_TRUE(p.contains(key)) << key;
    EXPECT_TRUE(statuses.count(p["status"].get<std::string>()));
    EXPECT_EQ(p["status"], "ok") << p["reason"];
    EXPECT_TRUE(p["verified"].get<bool>());
    EXPECT_EQ(p["params"]["hit"], "middle");
    const auto& total = p["metrics"]["total"];
    for (const char* key : {"median", "min", "max", "unit", "samples"}) EXPECT_TRUE(total.contains(key)) << key;
    EXPECT_EQ(total["samples"].size(), 3u);
    EXPECT_TRUE(p["metrics"].contains("host_peak_rss"));
    EXPECT_EQ(p["metrics"]["energy_cpu"]["unavailable"], "disabled (--no-energy)");
  }
  int found = 0;  // the points are listed in the order they ran (sizes interleaved)
  for (const auto& p : j["points"])
    if (p["n"] == 1000 && p["variant"] == "seq") {
      EXPECT_EQ(p["result"]["index"], 500);
      ++found;
    }
  EXPECT_EQ(found, 1);
  EXPECT_NE(slurp(csv).find("total,s,3,"), std::string::npos);
  EXPECT_NE(slurp(md).find("| variant |"), std::string::npos);

  auto shown = ema({"show", "--db", db, "--json", "-"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_EQ(nlohmann::json::parse(shown.out)["points"], j["points"]);
  auto listing = ema({"show", "--db", db, "--list"});
  EXPECT_NE(listing.out.find("finished"), std::string::npos);
  EXPECT_EQ(ema({"show", "7", "--db", db}).exit_code, 2);
}

// `ema run --threads`: a processor axis over the OpenMP variants (issue 32, item 1). Each thread
// count is a row of its own beside seq, the count the variant ran with recorded; a count past the
// CPUs this process may run on, or none, is refused before anything is stored.
TEST(Cli, ThreadsAxisRunsEachOpenMpVariantAtEachCount) {
  test::temp_dir dir;
  const auto db = dir.file("t.db");
  auto r = ema({"run", "search", "--variants", "seq,omp", "--sizes", "2^16", "--threads", "1..2", "--reps", "3", "--no-energy", "--db", db, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto shown = ema({"show", "--db", db, "--no-fit"});
  EXPECT_NE(shown.out.find("omp omp_threads=1"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("omp omp_threads=2"), std::string::npos) << shown.out;
  const auto j = nlohmann::json::parse(ema({"show", "--db", db, "--json", "-"}).out);
  int omp_points = 0;
  for (const auto& p : j["points"]) {
    if (p["variant"] != "omp") continue;
    ++omp_points;
    const auto threads = p["params"]["launch.omp_threads"].get<std::string>();
    EXPECT_EQ(p["notes"]["launch.omp_threads"], threads) << p.dump();
    EXPECT_EQ(p["notes"]["threads"], threads) << p["notes"].dump();  // search omp's own record of the threads it used
    // Where they ran: OpenMP's binding policy and its places, as the runtime read them.
    const std::set<std::string> binds = {"false", "true", "primary", "close", "spread"};
    EXPECT_EQ(binds.count(p["notes"].value("omp_proc_bind", "")), 1u) << p["notes"].dump();
    EXPECT_TRUE(p["notes"].contains("omp_places")) << p["notes"].dump();
  }
  EXPECT_EQ(omp_points, 2);
  // With OMP_PROC_BIND set, the OpenMP runtime binds ema's first thread to one CPU as it starts;
  // the workers get the whole mask back, so their threads have every place to run on.
  const auto bound = dir.file("bound.db");
  r = test::run_process({"/bin/sh", "-c",
                         "OMP_PROC_BIND=spread \"$0\" run search --variants omp --sizes 2^12 --threads 2 --reps 3 --no-energy --db \"$1\" -q",
                         EMA_EXE, bound});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto b = nlohmann::json::parse(ema({"show", "--db", bound, "--json", "-"}).out);
  ASSERT_EQ(b["points"].size(), 1u);
  EXPECT_EQ(b["points"][0]["notes"]["omp_proc_bind"], "spread") << b["points"][0]["notes"].dump();
  EXPECT_EQ(b["points"][0]["notes"]["omp_places"], "2") << b["points"][0]["notes"].dump();
  for (const char* bad : {"0", "1000000", "x"}) {
    r = ema({"run", "search", "--variants", "omp", "--sizes", "2^10", "--threads", bad, "--db", dir.file("bad.db")});
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("launch.omp_threads"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("bad.db")));
  r = ema({"run", "search", "--variants", "seq", "--sizes", "2^10", "--threads", "1", "--db", dir.file("bad.db")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("none of the chosen variants"), std::string::npos) << r.err;
}

// `ema run --bind close,spread`: the placement of the OpenMP variants' threads as an axis (issue
// 32, item 1). Each worker starts with OMP_PROC_BIND (and OMP_PLACES=cores) set, and the runtime's
// own reading of it is recorded; a policy OpenMP does not have, or one for variants without
// threads, is refused before anything is stored; --resume and --rerun-noisy take no new axis.
TEST(Cli, BindAxisSetsEachWorkersPlacement) {
  test::temp_dir dir;
  const auto db = dir.file("b.db");
  auto r = ema({"run", "search", "--variants", "seq,omp", "--sizes", "2^14", "--threads", "2", "--bind", "close,spread", "--reps", "3", "--no-energy",
                "--db", db, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(ema({"show", "--db", db, "--json", "-"}).out);
  std::set<std::string> seen;
  for (const auto& p : j["points"]) {
    if (p["variant"] != "omp") {
      EXPECT_FALSE(p["params"].contains("launch.omp_bind")) << p.dump();  // seq has no threads to place
      continue;
    }
    const auto bind = p["params"]["launch.omp_bind"].get<std::string>();
    seen.insert(bind);
    EXPECT_EQ(p["status"], "ok") << p.dump();
    EXPECT_EQ(p["notes"]["omp_proc_bind"], bind) << p["notes"].dump();  // what the runtime read, not what was asked
    EXPECT_EQ(p["notes"]["launch.omp_bind"], bind) << p["notes"].dump();
  }
  EXPECT_EQ(seen, (std::set<std::string>{"close", "spread"}));
  const auto shown = ema({"show", "--db", db, "--no-fit"});
  EXPECT_NE(shown.out.find("omp_bind=spread"), std::string::npos) << shown.out;
  for (const char* bad : {"master", "cores", ""}) {
    r = ema({"run", "search", "--variants", "omp", "--sizes", "2^10", "--bind", bad, "--db", dir.file("bad.db")});
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
  }
  r = ema({"run", "search", "--variants", "omp", "--sizes", "2^10", "--bind", "tight", "--db", dir.file("bad.db")});
  EXPECT_NE(r.err.find("launch.omp_bind of search omp must be one of close, spread, primary, false, got 'tight'"), std::string::npos) << r.err;
  r = ema({"run", "search", "--variants", "seq", "--sizes", "2^10", "--bind", "close", "--db", dir.file("bad.db")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("none of the chosen variants"), std::string::npos) << r.err;
  r = ema(
      {"run", "search", "--variants", "omp", "--sizes", "2^10", "--bind", "close", "--param", "launch.omp_bind=spread", "--db", dir.file("bad.db")});
  EXPECT_NE(r.err.find("give --bind or --param launch.omp_bind, not both"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("bad.db")));
  r = ema({"run", "--resume", "--db", db, "--sizes", "2^16"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--resume continues a stored plan; give no --sizes with it"), std::string::npos) << r.err;
}

// `ema run --weak n0 --threads 1,2`: weak scaling (issue 32, item 3). Each count runs at the size
// with p/p0 times the work (search's work is n: 2·n0 at 2 threads), seq at every size reached; `ema
// fit` and the report show the weak efficiency and the class of the time in p instead of a fit in n
// and p; --weak with --sizes or without a processor axis is refused before anything is stored.
TEST(Cli, WeakScalingGrowsTheSizeWithTheThreads) {
  test::temp_dir dir;
  const auto db = dir.file("w.db");
  auto r = ema({"run", "search", "--variants", "seq,omp", "--weak", "2^16,2^18", "--threads", "1,2", "--reps", "3", "--no-energy", "--db", db, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(ema({"show", "--db", db, "--json", "-"}).out);
  std::set<std::pair<std::string, std::uint64_t>> seen;
  for (const auto& p : j["points"]) {
    const auto n = p["n"].get<std::uint64_t>();
    if (p["variant"] == "omp") {
      const auto t = p["params"]["launch.omp_threads"].get<std::string>();
      EXPECT_TRUE((t == "1" && (n == 65536 || n == 262144)) || (t == "2" && (n == 131072 || n == 524288))) << t << " " << n;
    }
    seen.insert({p["variant"].get<std::string>(), n});
  }
  EXPECT_EQ(seen.size(), 8u);  // omp and seq, each at 2^16, 2^17, 2^18, 2^19
  const auto text = ema({"fit", "--db", db});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("weak scaling from n0 = 2^16 at p = 1: the time grows as Θ(1) (the only class 2 counts can fit"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("weak scaling from n0 = 2^18 at p = 1"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("efficiency E_w"), std::string::npos) << text.out;
  const auto fj = nlohmann::json::parse(ema({"fit", "--db", db, "--json"}).out);
  ASSERT_EQ(fj["scaling"].size(), 1u) << fj["scaling"].dump();
  const auto& w = fj["scaling"][0]["weak"];
  ASSERT_EQ(w.size(), 2u) << fj["scaling"][0].dump();
  EXPECT_EQ(w[0]["n0"], 65536);
  ASSERT_EQ(w[0]["rows"].size(), 2u);
  EXPECT_EQ(w[0]["rows"][1]["n"], 131072);
  EXPECT_DOUBLE_EQ(w[0]["rows"][1]["work_ratio"].get<double>(), 2);
  EXPECT_GT(w[0]["rows"][1]["efficiency"].get<double>(), 0);
  const auto html = dir.file("w.html");
  ASSERT_EQ(ema({"report", "--db", db, "--html", html}).exit_code, 0);
  const auto page = slurp(html);
  EXPECT_NE(page.find("weak-scaling efficiency against OpenMP threads"), std::string::npos);
  r = ema({"run", "search", "--variants", "omp", "--weak", "2^16", "--sizes", "2^16", "--threads", "1,2", "--db", dir.file("bad.db")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = ema({"run", "search", "--variants", "seq", "--weak", "2^16", "--db", dir.file("bad.db")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no chosen variant of search has a processor axis"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("bad.db")));
}

// `ema fit` on an experiment with a processor axis also fits each OpenMP variant in n and p
// (analysis/scaling.hpp): T(n, p) = W(n)/p + D(n), the measured speedups with Karp–Flatt, in the
// terminal and the JSON; a variant at one count has no such fit.
TEST(Cli, ThreadsAxisIsFittedInNAndP) {
  test::temp_dir dir;
  const auto db = dir.file("t.db");
  auto r =
      ema({"run", "search", "--variants", "seq,omp", "--sizes", "2^16..2^22", "--threads", "1..2", "--reps", "3", "--no-energy", "--db", db, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto text = ema({"fit", "--db", db});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("scaling with processors: T(n, p) = W(n)/p + D(n)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("search omp — total over OpenMP threads"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Karp–Flatt"), std::string::npos) << text.out;
  const auto j = nlohmann::json::parse(ema({"fit", "--db", db, "--json"}).out);
  ASSERT_TRUE(j.contains("scaling")) << j.dump();
  ASSERT_EQ(j["scaling"].size(), 1u) << j["scaling"].dump();  // omp; seq ran at one count
  const auto& s = j["scaling"][0];
  EXPECT_EQ(s["variant"], "omp");
  EXPECT_EQ(s["axis"], "OpenMP threads");
  EXPECT_FALSE(s["params"].contains("launch.omp_threads")) << s.dump();
  const auto& f = s["fit"];
  // A scan: its W never grows slower than the problem's work, n (which class it is on a busy 2-core
  // machine is the data's; the analysis tests and docs/scaling.md's 16-core runs check that).
  EXPECT_GE(f["work"]["theta"]["n"].get<double>(), 1.0) << f["model"];
  // Two counts cannot make either part firm, and the verdict says why.
  EXPECT_EQ(f["work"]["verdict"]["level"], "tentative");
  EXPECT_NE(f["work"]["verdict"]["reasons"].dump().find("only 2 processor counts"), std::string::npos) << f["work"].dump();
  EXPECT_EQ(f["table_n"], 1 << 22);
  ASSERT_EQ(f["rows"].size(), 2u);
  EXPECT_EQ(f["rows"][0]["p"], 1.0);
  EXPECT_EQ(f["rows"][0]["speedup"], 1.0);
  EXPECT_TRUE(f["rows"][0]["karp_flatt"].is_null());
  const auto& two = f["rows"][1];
  EXPECT_EQ(two["p"], 2.0);
  EXPECT_GT(two["speedup"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(two["efficiency"].get<double>(), two["speedup"].get<double>() / 2);
  EXPECT_DOUBLE_EQ(two["karp_flatt"].get<double>(), (1 / two["speedup"].get<double>() - 0.5) / 0.5);
  // Without the axis there is nothing to fit in p.
  const auto plain = dir.file("plain.db");
  ASSERT_EQ(ema({"run", "search", "--variants", "omp", "--sizes", "2^14..2^16", "--reps", "3", "--no-energy", "--db", plain, "-q"}).exit_code, 0);
  EXPECT_FALSE(nlohmann::json::parse(ema({"fit", "--db", plain, "--json"}).out).contains("scaling"));
}

// `ema run --sms`: the SMs of every single-GPU CUDA variant through CUDA green contexts (issue 32).
// Counts out of range, or given to variants without it, are refused before anything is stored; on a
// machine without a device the CUDA variants are left out as ever (the GPU test test_sms_gpu runs them).
TEST(Cli, SmsAxisRefusesWhatCannotRun) {
  test::temp_dir dir;
  const auto bad = dir.file("bad.db");
  // A build without CUDA has no CUDA variant to give the settings to; it refuses them too.
  const bool cuda_built = ema({"list"}).out.find("cuda-multi") != std::string::npos;
  for (const char* count : {"0", "1000000", "x"}) {
    const auto r = ema({"run", "search", "--variants", "cuda", "--sizes", "2^10", "--sms", count, "--db", bad});
    EXPECT_EQ(r.exit_code, 2) << count << ": " << r.err;
    if (cuda_built) EXPECT_NE(r.err.find("launch.sms"), std::string::npos) << r.err;
  }
  auto r = ema({"run", "search", "--variants", "omp", "--sizes", "2^10", "--sms", "8", "--db", bad});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("none of the chosen variants"), std::string::npos) << r.err;
  r = ema({"run", "search", "--variants", "omp", "--sizes", "2^10", "--sms", "8", "--param", "launch.sms=16", "--db", bad});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("give --sms or --param launch.sms, not both"), std::string::npos) << r.err;
  // The GPUs of a multi-GPU variant likewise (on a machine with devices, at most their number).
  for (const char* count : {"0", "1000000", "x"}) {
    r = ema({"run", "search", "--variants", "cuda-multi", "--sizes", "2^10", "--gpus", count, "--db", bad});
    EXPECT_EQ(r.exit_code, 2) << count << ": " << r.err;
    if (cuda_built) EXPECT_NE(r.err.find("launch.gpus"), std::string::npos) << r.err;
  }
  r = ema({"run", "search", "--variants", "omp", "--sizes", "2^10", "--gpus", "2", "--db", bad});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("none of the chosen variants"), std::string::npos) << r.err;
  if (cuda_built) {
    r = ema({"run", "search", "--variants", "cuda", "--sizes", "2^10", "--gpus", "2", "--db", bad});
    EXPECT_EQ(r.exit_code, 2) << r.err;  // a single-GPU variant takes no GPU count
  }
  EXPECT_FALSE(std::filesystem::exists(bad));
}

TEST(Cli, DatabaseErrorsExit3AndDamageNothing) {
  test::temp_dir dir;
  auto other = dir.file("other.db");
  {
    sqlite3* db = nullptr;
    sqlite3_open(other.c_str(), &db);
    sqlite3_exec(db, "CREATE TABLE t (x); INSERT INTO t VALUES (42);", nullptr, nullptr, nullptr);
    sqlite3_close(db);
  }
  auto before = slurp(other);
  auto r = ema({"run", "search", "--variants", "seq", "--sizes", "16", "--db", other});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("not an ema database"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(other), before);

  r = ema({"run", "search", "--variants", "seq", "--sizes", "16", "--db", dir.file("no/such/dir.db")});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;

  auto locked = dir.file("locked.db");
  ASSERT_EQ(ema({"run", "search", "--variants", "seq", "--sizes", "16", "--reps", "1", "--no-energy", "--db", locked, "-q"}).exit_code, 0);
  sqlite3* holder = nullptr;
  sqlite3_open(locked.c_str(), &holder);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  r = ema({"run", "search", "--variants", "seq", "--sizes", "16", "--db", locked});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("locked by another process"), std::string::npos) << r.err;
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  EXPECT_EQ(count_points(locked), 1);

  r = ema({"show", "--db", dir.file("absent.db")});
  EXPECT_EQ(r.exit_code, 3);
}

// Starts `args`, and kills it with SIGKILL once `db` holds `points` points (or after a minute).
void kill_after_points(const std::vector<std::string>& args, const std::string& db, int points) {
  const int pid = test::spawn_process(args);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (count_points(db) < points && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
}

// `ema run --resume` once the killed run's helpers have let go of the experiment: a worker's guard
// outlives ema by the moment it takes to notice and stop its command, and until then resume says,
// rightly, that another process holds the experiment (exit 3); a user waits, and so does the test.
test::process_result resume_when_free(const std::string& db) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (;;) {
    auto r = ema({"run", "--resume", "--db", db, "-q"});
    if (r.exit_code != 3 || r.err.find("is being run by another ema process") == std::string::npos || std::chrono::steady_clock::now() > deadline)
      return r;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

TEST(Cli, ResumeAfterKill9RedoesNothingThatFinished) {
  test::temp_dir dir;
  auto db = dir.file("k.db");
  const std::vector<std::string> args = {EMA_EXE,  "run", "search",      "--variants", "seq", "--sizes", "2^10..2^22",
                                         "--reps", "40",  "--no-energy", "--db",       db,    "-q"};
  const int total = 13;
  kill_after_points(args, db, 3);
  const int stored = count_points(db);
  ASSERT_GE(stored, 3);
  ASSERT_LT(stored, total) << "the sweep finished before it could be killed";

  auto before = ema({"show", "--db", db, "--json", "-"});
  ASSERT_EQ(before.exit_code, 0) << before.err;
  auto first = nlohmann::json::parse(before.out);
  EXPECT_EQ(first["experiment"]["state"], "running");

  auto r = resume_when_free(db);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("resuming experiment 1"), std::string::npos) << r.err;
  auto after = nlohmann::json::parse(ema({"show", "--db", db, "--json", "-"}).out);
  EXPECT_EQ(after["experiment"]["state"], "finished");
  ASSERT_EQ(after["points"].size(), static_cast<std::size_t>(total));
  for (std::size_t i = 0; i < first["points"].size(); ++i)
    EXPECT_EQ(after["points"][i]["metrics"]["total"]["samples"], first["points"][i]["metrics"]["total"]["samples"])
        << "point " << i << " was run again";
  std::set<std::uint64_t> sizes;
  for (const auto& p : after["points"]) sizes.insert(p["n"].get<std::uint64_t>());
  EXPECT_EQ(sizes.size(), static_cast<std::size_t>(total));

  r = ema({"run", "--resume", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no unfinished experiment"), std::string::npos) << r.err;
}

// A sweep over parameter axes resumes like any other: the stored plan holds every parameter set.
TEST(Cli, ResumeOfASweepWithAxesRunsEachSetOnce) {
  test::temp_dir dir;
  auto db = dir.file("x.db");
  const std::vector<std::string> args = {EMA_EXE,       "run",     "search",         "--variants", "seq", "--sizes",     "2^10..2^20*2", "--param",
                                         "copies=1..3", "--param", "hit=first,none", "--reps",     "30",  "--no-energy", "--db",         db,
                                         "-q"};
  const int total = 11 * 3 * 2;
  kill_after_points(args, db, 5);
  ASSERT_LT(count_points(db), total) << "the sweep finished before it could be killed";
  auto r = resume_when_free(db);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto after = nlohmann::json::parse(ema({"show", "--db", db, "--json", "-"}).out);
  ASSERT_EQ(after["points"].size(), static_cast<std::size_t>(total));
  std::set<std::string> seen;
  for (const auto& p : after["points"])
    EXPECT_TRUE(seen.insert(p["params"].dump() + std::to_string(p["n"].get<std::uint64_t>())).second) << "a point ran twice";
}

TEST(Cli, CtrlCStopsCleanlyAndResumeFinishes) {
  test::temp_dir dir;
  auto db = dir.file("c.db");
  int pid =
      test::spawn_process({EMA_EXE, "run", "search", "--variants", "seq", "--sizes", "2^10..2^22", "--reps", "40", "--no-energy", "--db", db, "-q"});
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (count_points(db) < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  auto shown = nlohmann::json::parse(ema({"show", "--db", db, "--json", "-"}).out);
  EXPECT_EQ(shown["experiment"]["state"], "interrupted");
  const auto stored = shown["points"].size();
  EXPECT_GE(stored, 2u);
  auto r = ema({"run", "--resume", "1", "--db", db, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(ema({"show", "--db", db, "--json", "-"}).out)["points"].size(), 13u);
}

#ifdef EMA_WITH_CUDA
TEST(Cli, CudaVariantWithoutAGpuIsSkippedNotACrash) {
  test::temp_dir dir;
  auto json = dir.file("g.json");
  auto r =
      ema({"run", "search", "--variants", "cuda", "--sizes", "1024", "--reps", "2", "--no-energy", "--db", dir.file("g.db"), "--json", json, "-q"});
  auto j = nlohmann::json::parse(slurp(json));
  const auto& p = j["points"][0];
  if (p["status"] == "ok") GTEST_SKIP() << "a CUDA device is present";
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(p["status"], "skipped");
  EXPECT_NE(p["reason"].get<std::string>().find("no CUDA device"), std::string::npos) << p["reason"];
}
#endif

}  // namespace
}  // namespace ema
