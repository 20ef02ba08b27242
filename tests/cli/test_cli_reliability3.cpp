// Regression tests of issue 28 (reliability, round 3) outside the cluster path, end to end through
// the `ema` command: readers of outside JSON (deep nesting, files too large for memory), stored
// rows nested too deep.
#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <csignal>
#include <sqlite3.h>
#include <sstream>
#include <thread>
#include <sys/wait.h>
#include <unistd.h>

#include "support/db.hpp"
#include "support/ema.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

namespace fs = std::filesystem;
using test::exec_sql;

test::process_result ema(std::vector<std::string> args, const std::string& cwd = "") { return test::run_ema(std::move(args), cwd); }

std::string deep_json(std::size_t levels) { return std::string(levels, '[') + std::string(levels, ']'); }

// ---- Item 6: deeply nested JSON is refused before anything recursive meets it.

TEST(Reliability3, DeeplyNestedJsonIsRefusedNotACrash) {
  test::temp_dir dir;
  std::ofstream(dir.file("deep.json")) << deep_json(100000);  // 200 KB
  std::ofstream(dir.file("deep-object.json")) << "{\"benchmarks\": " << deep_json(100000) << "}";
  for (const char* tool : {"gbench", "nvbench", "hyperfine"})
    for (const char* file : {"deep.json", "deep-object.json"}) {
      const auto r = ema({"fit", "--from", tool, dir.file(file)});
      EXPECT_EQ(r.exit_code, 2) << tool << " " << file << ": " << r.err;
      EXPECT_NE(r.err.find("nested more than 100 levels"), std::string::npos) << r.err;
    }
  // The same in a stored row: show, merge and report say the row is damaged.
  const auto db = dir.file("d.db");
  ASSERT_EQ(ema({"run", "search", "--variants", "seq", "--sizes", "2^10", "--reps", "3", "--no-energy", "-q", "--db", db}).exit_code, 0);
  exec_sql(db, "UPDATE points SET notes_json = '{\"x\": " + deep_json(100000) + "}'");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"show", "--db", db, "--json", "-"}, {"merge", dir.file("m.db"), db}, {"report", "--db", db, "--md", "-"}}) {
    const auto r = ema(args);
    EXPECT_EQ(r.exit_code, 3) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("nested more than 100 levels deep"), std::string::npos) << args[0] << ": " << r.err;
  }
}

// ---- Item 7: a results file too large for memory is a clear error, never an abort.

TEST(Reliability3, AResultsFileTooLargeIsRefusedAndMemoryRunningOutIsAnError) {
  test::temp_dir dir;
  {  // past the limit: refused by its size, before a byte is read
    std::ofstream f(dir.file("huge.json"));
    f.seekp((std::streamoff{64} << 20) + 10);
    f << ' ';
  }
  auto r = ema({"fit", "--from", "gbench", dir.file("huge.json")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("more than 64 MiB"), std::string::npos) << r.err;
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "a limit on the address space is not for AddressSanitizer's shadow memory";
#else
  {  // under the limit, but more than a small memory limit holds once parsed
    std::ofstream f(dir.file("big.json"));
    f << "{\"benchmarks\": [";
    const std::string run =
        R"({"name": "BM_x/1024", "run_type": "iteration", "real_time": 1.5, "cpu_time": 1.5, "time_unit": "ns", "iterations": 10},)";
    for (std::size_t at = 0; at + run.size() < (std::size_t{60} << 20); at += run.size()) f << run;
    f << R"({"name": "BM_x/2048", "run_type": "iteration", "real_time": 3, "cpu_time": 3, "time_unit": "ns", "iterations": 10}]})";
  }
  r = test::run_process({"/bin/bash", "-c", "ulimit -v 400000; exec \"$0\" fit --from gbench \"$1\"", EMA_EXE, dir.file("big.json")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("not enough memory"), std::string::npos) << r.err;
#endif
}

// ---- Item 9: a cached input is checked against its content, and a rebuilt one is said.

TEST(Reliability3, ACachedGraphChangedOnDiskIsRebuiltAndSaid) {
  test::temp_dir dir;
  // 2^18 vertices of degree 16: 2^22 generated edges, the size from which bfs keeps its graphs.
  const std::vector<std::string> run = {"run",    "bfs", "--variants", "seq", "--sizes",     "2^18", "--param", "roots=1",
                                        "--reps", "1",   "--warmup",   "0",   "--no-energy", "-q",   "--cache", dir.file("cache")};
  auto with_db = [&](const std::string& db) {
    auto a = run;
    a.insert(a.end(), {"--db", db});
    return a;
  };
  auto r = ema(with_db(dir.file("a.db")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  fs::path cached;
  for (const auto& e : fs::recursive_directory_iterator(dir.file("cache")))
    if (e.is_regular_file() && e.path().parent_path().filename() == "bfs") cached = e.path();
  ASSERT_FALSE(cached.empty());
  {  // one neighbour id rewritten, still within range: another graph with the same structure
    std::fstream f(cached, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(-4, std::ios::end);
    std::uint32_t id = 0;
    f.read(reinterpret_cast<char*>(&id), 4);
    id = id == 0 ? 1 : id - 1;
    f.seekp(-4, std::ios::end);
    f.write(reinterpret_cast<const char*>(&id), 4);
  }
  r = ema(with_db(dir.file("b.db")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::query_int(dir.file("b.db"), "SELECT COUNT(*) FROM points WHERE json_extract(notes_json, '$.graph') LIKE 'built again%'"), 1);
  r = ema(with_db(dir.file("c.db")));  // stored again: read from the cache now
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::query_int(dir.file("c.db"), "SELECT COUNT(*) FROM points WHERE json_extract(notes_json, '$.graph') LIKE 'read from%'"), 1);
}

// ---- Item 10 (and 20): an output that cannot be written is the run's error, never a point's, and
// ---- never leaves half a file.

TEST(Reliability3, ADumpThatCannotBeWrittenStopsTheRunAndLeavesNoHalfFile) {
  test::temp_dir dir;
  const auto db = dir.file("s.db");
  // A file-size limit of 1 MiB (a full disk, as the writer sees it): the 512 grid (2.7 MB) fails.
  auto r = test::run_process({"/bin/bash", "-c",
                              "trap '' XFSZ; ulimit -f 1024; exec \"$0\" run stencil --variants seq --sizes 256,512 --reps 1 --warmup 0 "
                              "--no-energy -q --param \"dump=$1/g{n}.mtx\" --db \"$2\"",
                              EMA_EXE, dir.path(), db});
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.err.find("g512.mtx"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--resume 1"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(dir.file("g256.mtx")));
  EXPECT_FALSE(fs::exists(dir.file("g512.mtx")));  // no truncated file for a resume to keep
  for (const auto& e : fs::directory_iterator(dir.path())) EXPECT_EQ(e.path().string().find(".ema-"), std::string::npos) << e.path();
  EXPECT_EQ(test::query_int(db, "SELECT COUNT(*) FROM points"), 1);  // the 512 point unrecorded, not `failed`
  r = ema({"run", "--db", db, "--resume", "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::query_int(db, "SELECT COUNT(*) FROM points WHERE status = 'ok'"), 2);
  EXPECT_GT(fs::file_size(dir.file("g512.mtx")), std::uintmax_t{2} << 20);
  // The database's own journal as the dump: refused before anything runs.
  r = ema({"run", "stencil", "--variants", "seq", "--sizes", "64", "--param", "dump=" + db + "-journal", "--db", db});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // An export on a full device after the sweep: exit 5, the experiment stored.
  r = ema(
      {"run", "search", "--variants", "seq", "--sizes", "2^10", "--reps", "3", "--no-energy", "-q", "--db", dir.file("e.db"), "--json", "/dev/full"});
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_EQ(test::query_int(dir.file("e.db"), "SELECT COUNT(*) FROM experiments WHERE state = 'finished'"), 1);
}

// ---- Item 11: a compare gate never passes by a misread threshold or by comparing nothing.

TEST(Reliability3, ACompareGateThatComparesNothingOrMisreadsItsThresholdFails) {
  test::temp_dir dir;
  const auto db = dir.file("c.db");
  for (const char* sizes : {"2^10..2^11", "2^12..2^13"})
    ASSERT_EQ(ema({"run", "search", "--variants", "seq", "--sizes", sizes, "--reps", "3", "--no-energy", "-q", "--db", db}).exit_code, 0);
  auto r = ema({"compare", "1", "1", "--db", db, "--fail-if-slower", "5"});  // meant 5%, once read as 500%
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("write 5% for 5 percent"), std::string::npos) << r.err;
  r = ema({"compare", "1", "2", "--db", db, "--fail-if-slower", "5%"});  // no size in common
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("nothing was compared"), std::string::npos) << r.err;
  r = ema({"compare", "1", "1", "--db", db, "--fail-if-slower", "150%"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// ---- Item 12: a hot journal (a writer killed midway) does not stop the read-only commands.

// Leaves a hot journal beside `db`, as a writer killed in the middle of a transaction does.
void kill_a_writer_midway(const std::string& db) {
  const pid_t child = ::fork();
  if (child == 0) {
    sqlite3* h = nullptr;
    sqlite3_open(db.c_str(), &h);
    sqlite3_exec(h, "PRAGMA cache_size = 2; BEGIN; UPDATE samples SET value = value + 1; UPDATE points SET reason = 'half';", nullptr, nullptr,
                 nullptr);
    ::_exit(0);  // no commit, no rollback, the journal left as it is
  }
  int status = 0;
  ::waitpid(child, &status, 0);
}

TEST(Reliability3, ReadOnlyCommandsWorkAfterAWriterWasKilledMidway) {
  test::temp_dir dir;
  const auto db = dir.file("h.db");
  ASSERT_EQ(ema({"run", "search", "--variants", "seq,omp", "--sizes", "2^10..2^14", "--reps", "20", "--no-energy", "-q", "--db", db}).exit_code, 0);
  const std::vector<std::vector<std::string>> readers = {{"show", "--db", db},
                                                         {"fit", "--db", db},
                                                         {"report", "--db", db, "--md", dir.file("r.md")},
                                                         {"compare", "1", "1", "--db", db},
                                                         {"merge", dir.file("m.db"), db, "-q"}};
  for (const auto& args : readers) {
    kill_a_writer_midway(db);
    ASSERT_GT(fs::file_size(db + "-journal"), 0u);
    const auto r = ema(args);
    EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
    EXPECT_EQ(test::query_int(db, "SELECT COUNT(*) FROM points WHERE reason = 'half'"), 0) << args[0] << ": the half write is rolled back";
  }
}

// ---- Items 13, 17, 18: what show prints, and how fast a usage error comes.

TEST(Reliability3, ShowListsStoredApartFromPlannedAndNeverPrintsControlCharactersRaw) {
  test::temp_dir dir;
  const auto db = dir.file("s.db");
  ASSERT_EQ(ema({"run", "search", "--variants", "seq,omp", "--sizes", "2^10..2^11", "--reps", "3", "--no-energy", "-q", "--db", db}).exit_code, 0);
  exec_sql(db,
           "DELETE FROM samples WHERE point_id = (SELECT MAX(id) FROM points); DELETE FROM points WHERE id = (SELECT MAX(id) FROM points); "
           "UPDATE experiments SET state = 'interrupted'; UPDATE points SET reason = 'x' || char(27) || ']0;pwned' || char(7) || char(27) || '[2J'");
  auto r = ema({"show", "--db", db, "--list"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("3 of 4 planned points stored"), std::string::npos) << r.out;
  // On a terminal (script(1) gives one), --csv - shows an escape sequence, never sends it.
  r = test::run_process({"/usr/bin/script", "-qec", std::string(EMA_EXE) + " show --db " + db + " --csv -", "/dev/null"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("pwned"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
  EXPECT_EQ(r.out.find('\x07'), std::string::npos);
  // Into a pipe the bytes stay as stored (CSV quotes them; the file is the user's data).
  r = ema({"show", "--db", db, "--csv", "-"});
  EXPECT_NE(r.out.find('\x1b'), std::string::npos);
  // An unknown --best key: a usage error and nothing printed before it.
  r = ema({"show", "--db", db, "--best", "nosuch"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
}

// Judged by how the time grows with the axis, not by a time: an axis four times longer may take at
// most eight times as long (the check that compared every pair took 16 times, 11 s at 99999 values
// in the release build), on any machine and under the sanitizers.
TEST(Reliability3, ALongAxisIsCheckedForRepeatsInLinearTime) {
  test::temp_dir dir;
  auto timed = [&](const std::string& axis) {
    const auto start = std::chrono::steady_clock::now();
    auto r = ema({"run", "search", "--param", "hit=first", "--param", "copies=" + axis, "--sizes", "2^10", "--db", dir.file("a.db")});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("copies = 1025 is more than the n = 1024"), std::string::npos) << r.err;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const double shorter = timed("1..24999+1"), longer = timed("1..99999+1");
  EXPECT_LT(longer, 8 * shorter) << fmt::format("{:.2f} s for 99999 values, {:.2f} s for 24999: the repeated-value check compared every pair?",
                                                longer, shorter);
  auto r = ema({"run", "search", "--param", "hit=first", "--param", "copies=1..50000+1,77", "--sizes", "2^17", "--db", dir.file("a.db")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("given the value '77' twice"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("a.db")));
}

// ---- Item 8: a plan is limited by what this process can hold.

TEST(Reliability3, APlanLargerThanMemoryAllowsIsRefusedBeforePlanning) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "a limit on the address space is not for AddressSanitizer's shadow memory";
#else
  test::temp_dir dir;
  // 750 000 points under a 1 GB address space: refused by its estimate, never a bad_alloc midway.
  const auto r = test::run_process({"/bin/bash", "-c",
                                    "ulimit -v 1000000; exec \"$0\" run search --variants seq,omp --param copies=1..25000+1 --param "
                                    "hit=none,first,middle,last,random --sizes 2^15..2^17 --db \"$1\"",
                                    EMA_EXE, dir.file("a.db")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("this process may still use"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("a.db")));
#endif
}

// ---- Items 20, 21, 22: odds and ends of input, and a claim no process outlives ema with.

TEST(Reliability3, InputsThatFailToReadAreTheInputsFault) {
  test::temp_dir dir;
  // /proc/self/mem is a regular file whose first read fails with EIO.
  for (const auto& args : std::vector<std::vector<std::string>>{{"run", "sort", "--param", "input=/proc/self/mem"},
                                                                {"run", "gauss", "--param", "file=/proc/self/mem"},
                                                                {"fit", "--csv", "/proc/self/mem"},
                                                                {"fit", "--from", "gbench", "/proc/self/mem"}}) {
    auto a = args;
    a.insert(a.end(), {"--db", dir.file("e.db")});
    const auto r = ema(a);
    EXPECT_EQ(r.exit_code, 2) << args[1] << ": " << r.err;
    EXPECT_NE(r.err.find("cannot be read"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir.file("e.db")));
  // A graph file declaring 4e9 vertices in a few bytes: refused by the memory it would need (64 GB,
  // more than this process may use under a 2 GB address space; a machine may have more).
#if !defined(__SANITIZE_ADDRESS__)  // a limit on the address space is not for AddressSanitizer's shadow memory
  std::ofstream(dir.file("huge.mtx")) << "%%MatrixMarket matrix coordinate pattern general\n4000000000 4000000000 0\n";
  auto huge = test::run_process({"/bin/bash", "-c", "ulimit -v 2000000; exec \"$0\" run bfs --param input=\"$1\" --db \"$2\"", EMA_EXE,
                                 dir.file("huge.mtx"), dir.file("e.db")});
  EXPECT_EQ(huge.exit_code, 2) << huge.err;
  EXPECT_NE(huge.err.find("would need about"), std::string::npos) << huge.err;
  EXPECT_FALSE(fs::exists(dir.file("e.db")));
#endif
  test::process_result r;
  // Sizes below 1 in another tool's results.
  std::ofstream(dir.file("h.json")) << R"({"results": [{"command": "x", "mean": 1, "times": [1], "parameters": {"n": "0.5"}},)"
                                    << R"({"command": "x", "mean": 2, "times": [2], "parameters": {"n": "1"}}]})";
  r = ema({"fit", "--from", "hyperfine", dir.file("h.json")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("at least 1"), std::string::npos) << r.err;
  // --cache-cap in terabytes.
  r = ema(
      {"run", "search", "--variants", "seq", "--sizes", "2^10", "--reps", "3", "--no-energy", "-q", "--cache-cap", "1T", "--db", dir.file("c.db")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // A problem named twice runs once, refused as --variants named twice is.
  r = ema({"run", "search", "search", "--sizes", "2^10", "--db", dir.file("t.db")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("named twice"), std::string::npos) << r.err;
  // A cache path a second shell would parse: refused, nothing run.
  fs::create_directories(dir.file("c$(touch PWNED)"));
  r = ema({"exec", "--name", "x", "--gen", "seq {n} > {input}", "--run", "sh -c \"cat {input}\"", "--sizes", "10", "--reps", "1", "--cache",
           dir.file("c$(touch PWNED)"), "--db", dir.file("x.db")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_FALSE(fs::exists("PWNED"));
  EXPECT_FALSE(fs::exists(dir.file("PWNED")));
}

// The processes a process started (their parent is `pid`), from /proc.
std::vector<int> children_of(int pid) {
  std::vector<int> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const auto name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(e.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state = 0;
    int ppid = 0;
    rest >> state >> ppid;
    if (ppid == pid) out.push_back(std::stoi(name));
  }
  return out;
}

TEST(Reliability3, NoProcessOutlivesEmaHoldingItsDatabase) {
  test::temp_dir dir;
  const auto db = dir.file("k.db");
  const int pid = test::spawn_process({EMA_EXE,     "exec",
                                       "--name",    "slow",
                                       "--gen",     "seq {n} > {input}",
                                       "--run",     "sleep 30 # {input}",
                                       "--sizes",   "10,20",
                                       "--reps",    "1",
                                       "--warmup",  "0",
                                       "--timeout", "2",
                                       "--cache",   dir.file("c"),
                                       "--db",      db,
                                       "-q"});
  // The guard of the running point: ema's child while the point runs. A child seen may be a
  // short-lived one (the generator) that exits before its descriptors are read: look again until
  // one is read (on a busy machine that can take a few tries). A guard caught between its fork and
  // the closing of what it inherited (the first thing it does; runner/isolate.cpp close_all_but)
  // still has the database: it must have let go of it a moment later (make test caught one in
  // that window on the 2-core machine).
  const auto database = fs::weakly_canonical(db);
  int read = 0;
  for (int i = 0; i < 3000 && read == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    for (const int g : children_of(pid)) {
      std::error_code gone;
      for (fs::directory_iterator fd(fs::path("/proc") / std::to_string(g) / "fd", gone), end; !gone && fd != end; fd.increment(gone)) {
        std::error_code ec;
        if (fs::read_symlink(fd->path(), ec) == database) {
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
          EXPECT_NE(fs::read_symlink(fd->path(), ec), database) << "the guard " << g << " holds the database open (" << fd->path() << ")";
        }
        ++read;
      }
    }
  }
  EXPECT_GT(read, 0) << "no child's descriptors could be read";
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  // At once: the experiment is not claimed by anything ema left behind.
  const auto r = ema({"run", "--db", db, "--resume", "-q"});
  EXPECT_EQ(r.err.find("being run by another ema process"), std::string::npos) << r.err;
}

// ---- Item 21: a launch override no point could run with is the command's error (exit 2), found
// when the plan is made, not a failed point (exit 1) after the sweep started.

TEST(Reliability3, ALaunchOverrideNoPointCanRunWithIsRefusedWhenThePlanIsMade) {
  test::temp_dir dir;
  const auto db = dir.file("x.db");
  struct refused_case {
    std::vector<std::string> args;
    const char* says;
  };
  const std::vector<refused_case> cases = {
      {{"sort", "--variants", "merge-cuda", "--param", "launch.block_x=1024", "--param", "launch.block_y=2", "--sizes", "2^10"},
       "sort merge-cuda at n = 1024: launch.block_x * launch.block_y = 1024 x 2 threads a block; CUDA allows at most 1024"},
      // One bad combination of two axes is enough.
      {{"stencil", "--variants", "cuda-naive", "--param", "launch.block_x=64,128", "--param", "launch.block_y=4,16", "--sizes", "64"},
       "stencil cuda-naive at n = 64: launch.block_x * launch.block_y = 128 x 16"},
      {{"stencil", "--variants", "cuda-listing", "--param", "launch.tile=8", "--param", "k=4", "--sizes", "64"},
       "launch.tile = 8 leaves no inner cells for k = 4"},
      {{"stencil", "--variants", "cuda", "--param", "launch.rows=1", "--sizes", "2^10,2^20"},
       "stencil cuda at n = 1048576: launch.rows = 1 needs more warps than a launch holds"},
      // A calibrated sweep: checked at its first size.
      {{"sort", "--variants", "merge-cuda", "--param", "launch.block_y=1024", "--param", "launch.block_x=2", "--budget", "10"},
       "launch.block_x * launch.block_y = 2 x 1024"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    for (const char* more : {"--reps", "1", "--no-energy", "-q", "--db"}) args.emplace_back(more);
    args.push_back(db);
    const auto r = ema(args);
    if (r.err.find("unknown variant") != std::string::npos) GTEST_SKIP() << "ema was built without CUDA: " << r.err;
    EXPECT_EQ(r.exit_code, 2) << c.args[2] << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(db)) << c.args[2] << ": nothing is stored";
  }
  // Overrides every point can run with still plan (and, with no GPU here, record the points skipped).
  const auto r = ema({"run",         "stencil",
                      "--variants",  "cuda-naive,cuda-listing",
                      "--param",     "launch.block_x=128",
                      "--param",     "launch.block_y=8",
                      "--param",     "launch.tile=16",
                      "--param",     "k=4",
                      "--sizes",     "64",
                      "--reps",      "1",
                      "--no-energy", "-q",
                      "--db",        db});
  EXPECT_NE(r.exit_code, 2) << r.err;
  EXPECT_TRUE(fs::exists(db));
  // k is clamped to the steps as the run clamps it: two steps a load fit a tile of 6.
  const auto clamped = ema({"run", "stencil", "--variants", "cuda-listing", "--param", "launch.tile=6", "--param", "steps=2", "--sizes", "64",
                            "--reps", "1", "--no-energy", "-q", "--db", dir.file("clamped.db")});
  EXPECT_NE(clamped.exit_code, 2) << clamped.err;
}

}  // namespace
}  // namespace ema
