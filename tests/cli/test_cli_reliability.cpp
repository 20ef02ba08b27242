// Regression tests of issue 11, end to end through the `ema` command: each way ema deleted a
// user's data, outlived a timeout, read out of bounds, hung or lied on bad input. Every case is
// run as a careless user or an attacker would run it, and the files around it are checked after.
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/wait.h>
#include <thread>

#include "support/db.hpp"
#include "support/ema.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

test::process_result ema(std::vector<std::string> args, const std::string& cwd = "") { return test::run_ema(std::move(args), cwd); }

using test::slurp;

using test::exec_sql;
using test::query_int;

bool alive(long pid) { return pid > 0 && kill(static_cast<pid_t>(pid), 0) == 0; }

long read_pid(const std::string& path) {
  std::ifstream f(path);
  long pid = 0;
  f >> pid;
  return pid;
}

// Waits for `ready()` for at most `seconds`.
template <class F>
bool wait_for(F&& ready, double seconds = 30) {
  const auto end = clock_type::now() + std::chrono::duration<double>(seconds);
  while (!ready()) {
    if (clock_type::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// ---- Data loss (items 1 and 2)

TEST(Reliability, ExecCacheNeverDeletesTheUsersFiles) {
  test::temp_dir dir;
  fs::create_directories(dir.file("victim/sub"));
  std::ofstream(dir.file("victim/thesis.tex")) << "years of work";
  std::ofstream(dir.file("victim/sub/results.csv")) << "n,value\n";
  auto r = ema({"exec", "--name", "lru", "--gen", "seq {n} > {input}", "--run", "wc -l {input}", "--sizes", "10,20", "--cache", dir.file("victim"),
                "--cache-cap", "1K", "--db", dir.file("victim/ema.db")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("holds files that ema did not write"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir.file("victim/thesis.tex")), "years of work");
  EXPECT_TRUE(fs::exists(dir.file("victim/sub/results.csv")));
  EXPECT_FALSE(fs::exists(dir.file("victim/ema.db")));
  // The database's own path as the cache: refused before either is created.
  r = ema({"exec", "--name", "lru", "--gen", "seq {n} > {input}", "--run", "wc -l {input}", "--sizes", "10", "--cache", dir.file("same.db"), "--db",
           dir.file("same.db")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("same.db")));

  // A new folder becomes ema's; the database kept in it and files put there later survive any cap.
  r = ema({"exec", "--name", "lru", "--gen", "seq {n} > {input}", "--run", "wc -l {input}", "--sizes", "10,20,4000", "--reps", "2", "--cache",
           dir.file("mine"), "--cache-cap", "1K", "--db", dir.file("mine/ema.db"), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ofstream(dir.file("mine/notes.txt")) << "mine";
  r = ema({"exec", "--name", "lru", "--gen", "seq {n} > {input}", "--run", "wc -l {input}", "--sizes", "30,5000", "--reps", "2", "--cache",
           dir.file("mine"), "--cache-cap", "1K", "--db", dir.file("mine/ema.db"), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(query_int(dir.file("mine/ema.db"), "SELECT count(*) FROM experiments"), 2);
  EXPECT_TRUE(fs::exists(dir.file("mine/notes.txt")));
  EXPECT_TRUE(fs::exists(dir.file("mine/CACHEDIR.TAG")));
  std::size_t inputs = 0;
  for (const auto& e : fs::directory_iterator(dir.file("mine/lru"))) inputs += e.path().extension() == ".in";
  EXPECT_EQ(inputs, 1u) << "the cap of 1K keeps only the input in use";
}

TEST(Reliability, RunCacheNeverDeletesTheUsersFilesEither) {
  // ema run opens the same kind of cache for the problems that keep built inputs (bfs's graphs):
  // a folder of the user's is refused before anything is stored; --no-cache opens none.
  test::temp_dir dir;
  fs::create_directories(dir.file("victim"));
  std::ofstream(dir.file("victim/thesis.tex")) << "years of work";
  auto r = ema({"run", "bfs", "--variants", "seq", "--sizes", "2^10", "--reps", "2", "--no-energy", "--cache", dir.file("victim"), "--db",
                dir.file("a.db"), "-q"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("holds files that ema did not write"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir.file("victim/thesis.tex")), "years of work");
  EXPECT_FALSE(fs::exists(dir.file("a.db")));
  r = ema({"run", "bfs", "--variants", "seq", "--sizes", "2^10", "--reps", "2", "--no-energy", "--cache", dir.file("victim"), "--no-cache", "--db",
           dir.file("a.db"), "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // A problem that keeps no inputs never opens it.
  r = ema({"run", "search", "--variants", "seq", "--sizes", "2^10", "--reps", "2", "--no-energy", "--cache", dir.file("victim"), "--db",
           dir.file("b.db"), "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("victim/CACHEDIR.TAG")));
  // A new folder: marked, and a large graph stored there once.
  r = ema({"run", "bfs", "--variants", "seq", "--sizes", "2^18", "--reps", "1", "--no-energy", "--cache", dir.file("mine"), "--db", dir.file("c.db"),
           "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir.file("mine/CACHEDIR.TAG")));
  std::size_t graphs = 0;
  for (const auto& e : fs::directory_iterator(dir.file("mine/bfs"))) graphs += e.path().extension() == ".in";
  EXPECT_EQ(graphs, 1u);
  EXPECT_EQ(query_int(dir.file("c.db"),
                      "SELECT count(*) FROM points WHERE json_extract(notes_json, '$.graph') = "
                      "'built and stored in the input cache'"),
            1);
  // The next run reads it back, and says so.
  r = ema({"run", "bfs", "--variants", "seq", "--sizes", "2^18", "--reps", "1", "--no-energy", "--cache", dir.file("mine"), "--db", dir.file("d.db"),
           "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(query_int(dir.file("d.db"), "SELECT count(*) FROM points WHERE json_extract(notes_json, '$.graph') = 'read from the input cache'"), 1);
}

TEST(Reliability, NoOutputMayOverwriteTheDatabase) {
  test::temp_dir dir;
  const auto db = dir.file("a.db");
  auto r = ema({"run", "search", "--variants", "seq", "--sizes", "2^10", "--reps", "2", "--no-energy", "--db", db, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto before = slurp(db);
  fs::create_symlink(db, dir.file("link.db"));
  const std::vector<std::vector<std::string>> attempts = {
      {"report", "--db", db, "--html", db},
      {"report", "--db", db, "--md", dir.file("link.db")},
      {"show", "--db", db, "--csv", db},
      {"show", "--db", db, "--json", dir.file("a.db-journal")},
      {"run", "search", "--variants", "seq", "--sizes", "2^10", "--db", db, "--json", db},
      {"run", "search", "--variants", "seq", "--sizes", "2^10", "--db", db, "--md", "../" + fs::path(dir.path()).filename().string() + "/a.db"},
      {"exec", "--name", "x", "--gen", "seq {n} > {input}", "--run", "true {input}", "--sizes", "10", "--cache", dir.file("c"), "--db", db, "--csv",
       db},
      {"show", "--db", db, "--json", dir.file("out.json"), "--csv", dir.file("out.json")},
  };
  for (const auto& args : attempts) {
    auto a = ema(args, dir.path());
    EXPECT_EQ(a.exit_code, 2) << args[0] << " " << args.back() << ": " << a.err;
  }
  EXPECT_EQ(slurp(db), before) << "the database changed";
  EXPECT_EQ(query_int(db, "SELECT count(*) FROM experiments"), 1);

  // An output that cannot be written is refused before the sweep, with nothing stored.
  r = ema({"run", "search", "--variants", "seq", "--sizes", "2^10", "--db", db, "--json", dir.file("no/such/folder/x.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
  r = ema({"run", "search", "--variants", "seq", "--sizes", "2^10", "--db", db, "--csv", dir.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(query_int(db, "SELECT count(*) FROM experiments"), 1);
}

// ---- Processes and memory (items 3 and 4)

TEST(Reliability, EndlessOutputEndsThePointNotEma) {
  test::temp_dir dir;
  const auto db = dir.file("z.db");
  auto r = ema({"exec", "--name", "z", "--gen", "seq {n} > {input}", "--run", "cat /dev/zero # {input}", "--sizes", "10", "--timeout", "2", "--cache",
                dir.file("c"), "--db", db, "--json", "-", "-q"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["experiment"]["state"], "finished");
  EXPECT_EQ(j["points"][0]["status"], "timeout");
  EXPECT_NE(j["points"][0]["reason"].get<std::string>().find("MiB to its standard output"), std::string::npos);
}

TEST(Reliability, WhatAPointStartsEndsWithIt) {
  test::temp_dir dir;
  const auto db = dir.file("g.db"), pid_file = dir.file("pid");
  // A grandchild that leaves the process group and holds the pipes: the point ends on time, and so
  // does the grandchild.
  const auto start = clock_type::now();
  auto r = ema({"exec",
                "--name",
                "g",
                "--gen",
                "seq {n} > {input}",
                "--run",
                "sh -c 'setsid sh -c \"echo \\$\\$ > " + pid_file + "; exec sleep 120\" & sleep 0.5' # {input}",
                "--sizes",
                "10",
                "--reps",
                "1",
                "--warmup",
                "0",
                "--timeout",
                "3",
                "--cache",
                dir.file("c"),
                "--db",
                db,
                "-q"});
  EXPECT_LT(std::chrono::duration<double>(clock_type::now() - start).count(), 20.0);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(wait_for([&] { return read_pid(pid_file) > 0; }, 5));
  EXPECT_TRUE(wait_for([&] { return !alive(read_pid(pid_file)); }, 5)) << "the detached grandchild outlived its point";

  // kill -9 of ema ends the program it was measuring, and the generator.
  for (const char* role : {"run", "gen"}) {
    fs::remove(pid_file);
    const std::string slow = "sh -c 'echo $$ > " + pid_file + "; exec sleep 120'";
    const std::string gen = std::string(role) == "gen" ? slow + "; seq {n} > {input}" : "seq {n} > {input}";
    const std::string run = std::string(role) == "run" ? slow + " # {input}" : "true {input}";
    const int pid = test::spawn_process({EMA_EXE, "exec", "--name", std::string("k") + role, "--gen", gen, "--run", run, "--sizes", "10", "--cache",
                                         dir.file("c"), "--db", db, "-q"});
    ASSERT_TRUE(wait_for([&] { return alive(read_pid(pid_file)); })) << role;
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(wait_for([&] { return !alive(read_pid(pid_file)); }, 5)) << "the " << role << " command outlived kill -9 of ema";
  }
}

// ---- Memory safety (item 5)

TEST(Reliability, SizeArithmeticOnParametersNeverOverflows) {
  test::temp_dir dir;
  const auto db = dir.file("r.db");
  auto r = ema({"run", "rqa", "--variants", "exact-seq,motif-seq", "--sizes", "64", "-p", "m=4", "-p", "tau=6148914691236517206", "--db", db});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("tau"), std::string::npos) << r.err;
  r = ema({"run", "rqa", "--variants", "exact-seq", "--sizes", "64", "-p", "m=4", "-p", "tau=22", "--db", db});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no vector of dimension m = 4 with delay tau = 22"), std::string::npos) << r.err;
  for (const char* p : {"Q=0", "samples=4294967296", "cells=1", "m=0", "vmin=0", "eps=-1", "eps=nan", "rse=inf"}) {
    r = ema({"run", "rqa", "--sizes", "64", "-p", p, "--db", db});
    EXPECT_EQ(r.exit_code, 2) << p << ": " << r.err;
  }
  for (const char* p : {"copies=-5", "copies=0", "copies=2000"}) {
    r = ema({"run", "search", "--sizes", "1000", "-p", "hit=first", "-p", p, "--db", db});
    EXPECT_EQ(r.exit_code, 2) << p << ": " << r.err;
  }
  r = ema({"run", "gauss", "--sizes", "2^21", "--db", db});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("largest size"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(db)) << "a refused plan stored something";
}

// ---- Inputs that hang, exhaust memory or lie (items 6 to 10)

TEST(Reliability, SizeListsAndOptionsAreBoundedAndFinite) {
  test::temp_dir dir;
  const auto db = dir.file("o.db");
  const std::vector<std::vector<std::string>> refused = {
      {"--sizes", "1..2^10*inf"},
      {"--sizes", "1..2^40+1"},
      {"--sizes", "1..2^48*1.0000001"},
      {"--sizes", "2^18446744073709551615"},
      {"--min-time", "nan"},
      {"--max-time", "inf"},
      {"--timeout", "inf"},
      {"--timeout", "1e10"},
      {"--rse", "nan"},
      {"--energy-window", "-1"},
      {"--min-reps", "10", "--max-reps", "2"},
      {"--min-time", "2", "--max-time", "1"},
      {"--budget", "1m", "--start", "4096", "--max-size", "16"},
      {"--budget", "1m", "--max-size", "3"},  // below search's first size, 2^10
      {"--budget", "1m", "--start", "-1"},
      {"--budget", "inf"},
      {"--seed", "-1"},
      {"--seed", "18446744073709551616"},
      {"--variants", "seq,seq"},
      {"--variants", ""},
      {"--instances", "100000"},
      // An empty value is refused, never read as the default (CLI11 reads an empty number as not given).
      {"--energy-window", ""},
      {"--reps", ""},
      {"--budget", "1m", "--settle-share", ""},
      {"--seed", ""},
      {"-p", "hit=first", "-p", "hit=first"},  // a value twice (two values make an axis)
  };
  for (const auto& extra : refused) {
    std::vector<std::string> args = {"run", "search", "--db", db};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto start = clock_type::now();
    auto r = ema(args);
    EXPECT_EQ(r.exit_code, 2) << extra[0] << " " << extra.back() << ": " << r.err;
    EXPECT_LT(std::chrono::duration<double>(clock_type::now() - start).count(), 10.0) << extra[0] << " " << extra.back();
  }
  EXPECT_FALSE(fs::exists(db)) << "a refused command stored something";
  for (const std::vector<std::string> other :
       {std::vector<std::string>{"fit", "--db", db, "--metric", ""}, std::vector<std::string>{"report", "--db", db, "--html", ""},
        std::vector<std::string>{"show", "--db", db, "--json", ""}}) {
    auto r = ema(other);
    EXPECT_EQ(r.exit_code, 2) << other[0] << ": " << r.err;
    EXPECT_NE(r.err.find("an empty value"), std::string::npos) << other[0] << ": " << r.err;
  }
  // Huge factors end the range at once.
  auto r = ema({"run", "search", "--variants", "seq", "--sizes", "1..2^10*1e19", "--reps", "1", "--no-energy", "--db", db, "--json", "-", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["points"].size(), 1u);
}

TEST(Reliability, BytesThatAreNotUtf8AreStoredAndShownSafely) {
  test::temp_dir dir;
  const auto db = dir.file("u.db");
  // A program whose stderr is Latin-1 and holds an escape sequence, and that fails.
  auto r = ema({"exec", "--name", "latin", "--gen", "seq {n} > {input}", "--run", "printf 'caf\\351 \\033[31mred\\033[0m\\n' >&2; exit 3 # {input}",
                "--sizes", "10", "--cache", dir.file("c"), "--db", db, "--json", dir.file("run.json")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << "an escape sequence reached the terminal";
  EXPECT_NE(r.out.find("caf\\xe9"), std::string::npos) << r.out;
  auto j = nlohmann::json::parse(slurp(dir.file("run.json")));
  EXPECT_EQ(j["points"][0]["status"], "failed");
  auto shown = ema({"show", "--db", db, "--json", "-"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_TRUE(nlohmann::json::accept(shown.out)) << shown.out;
  shown = ema({"show", "--db", db});
  EXPECT_EQ(shown.out.find('\x1b'), std::string::npos);
  // Raw bytes put in the database by hand still come out as valid JSON.
  exec_sql(db, "UPDATE points SET reason = CAST(X'636166E9201B5B326A' AS TEXT)");
  shown = ema({"show", "--db", db, "--json", "-"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_TRUE(nlohmann::json::accept(shown.out)) << shown.out;
  // A command that is not UTF-8 is refused, not stored to break every later read.
  r = ema(
      {"exec", "--name", "x", "--gen", "seq {n} > {input}", "--run", "cat {input} # caf\xe9", "--sizes", "10", "--cache", dir.file("c"), "--db", db});
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

TEST(Reliability, MarkdownAndTerminalShowStoredTextLiterally) {
  test::temp_dir dir;
  const auto db = dir.file("m.db");
  auto r = ema({"exec", "--name", "md", "--gen", "seq {n} > {input}", "--run", "echo '<script>x</script> | *bold* [l](u)' >&2; exit 1 # {input}",
                "--sizes", "10", "--cache", dir.file("c"), "--db", db, "--md", dir.file("t.md"), "-q"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto md = slurp(dir.file("t.md"));
  EXPECT_EQ(md.find("<script>"), std::string::npos) << md;
  EXPECT_NE(md.find("\\<script\\>"), std::string::npos) << md;
  EXPECT_NE(md.find("\\*bold\\*"), std::string::npos) << md;
  r = ema({"report", "--db", db, "--html", dir.file("r.html")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto html = slurp(dir.file("r.html"));
  EXPECT_EQ(html.find("<script>x"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;x&lt;/script&gt; | *bold* [l](u)"), std::string::npos) << "the report shows the text as it was";
}

TEST(Reliability, GaussNeverVerifiesOnNonFiniteData) {
  test::temp_dir dir;
  const auto db = dir.file("g.db");
  std::ofstream(dir.file("big.mtx")) << "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1e39\n2 2 1\n1 2 0.5\n";
  std::ofstream(dir.file("dup.mtx")) << "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 3e38\n1 1 3e38\n2 2 1\n";
  for (const char* file : {"big.mtx", "dup.mtx"}) {
    auto r = ema({"run", "gauss", "--sizes", "2", "-p", std::string("file=") + dir.file(file), "--db", db});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("beyond the range of f32"), std::string::npos) << r.err;
  }
  auto r = ema(
      {"run", "gauss", "--variants", "seq", "--sizes", "2", "-p", "file=big.mtx", "-p", "type=f64", "--reps", "1", "--no-energy", "--db", db, "-q"},
      dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(Reliability, FilesThatAreNotTextAreNamedForWhatTheyAre) {
  test::temp_dir dir;
  const auto db = dir.file("f.db");
  std::ofstream(dir.file("long.txt")) << std::string(2 << 20, '7');
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"run", "gauss", "--sizes", "2", "-p", "file=/dev/zero"}, "character device"},
      {{"run", "rqa", "--sizes", "2", "-p", "input=/dev/zero"}, "character device"},
      {{"run", "rqa", "--sizes", "2", "-p", "input=" + dir.path()}, "folder"},
      {{"run", "rqa", "--sizes", "2", "-p", "input=" + dir.file("long.txt")}, "longer than"},
      {{"run", "rqa", "--sizes", "2", "-p", "input=" + dir.file("absent")}, "No such file"},
      {{"fit", "--csv", "/dev/zero"}, "character device"},
  };
  for (const auto& [args, says] : cases) {
    auto a = args;
    a.insert(a.end(), {"--db", db});
    const auto start = clock_type::now();
    auto r = ema(a);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << args.back() << ": " << r.err;
    EXPECT_LT(std::chrono::duration<double>(clock_type::now() - start).count(), 10.0);
  }
  EXPECT_FALSE(fs::exists(db));
}

// ---- Smaller, same spirit

TEST(Reliability, SmallerCases) {
  test::temp_dir dir;
  const auto db = dir.file("s.db");
  // A CSV as spreadsheets write it (a byte-order mark, CRLF).
  std::ofstream(dir.file("bom.csv")) << "\xEF\xBB\xBFn,value\r\n1000,1\r\n2000,2\r\n4000,4\r\n8000,8\r\n";
  auto r = ema({"fit", "--csv", dir.file("bom.csv")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // A column number too large to hold.
  std::ofstream(dir.file("s.csv")) << "x\n1\n2\n";
  r = ema({"run", "rqa", "--sizes", "2", "-p", "input=" + dir.file("s.csv"), "-p", "column=99999999999999999999", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("column 99999999999999999999 does not exist"), std::string::npos) << r.err;
  // A device as the database: refused, and no journal appears beside it.
  const bool journal_before = fs::exists("/dev/null-journal");
  r = ema({"run", "search", "--variants", "seq", "--sizes", "2^10", "--db", "/dev/null"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  if (!journal_before) EXPECT_FALSE(fs::exists("/dev/null-journal"));
  // A $(...) in a cache path is never run: a command may hand {input} to a second shell, so such a
  // path is refused (issue 28 item 21) before anything runs.
  fs::create_directories(dir.file("q"));
  r = ema({"exec", "--name", "q", "--gen", "seq {n} > \"{input}\"", "--run", "wc -l \"{input}\"", "--sizes", "10", "--reps", "2", "--cache",
           dir.file("q/$(touch pwned)"), "--db", db, "-q"},
          dir.file("q"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("q/pwned")));
}

TEST(Reliability, ResumeFromAnotherFolderReadsTheSameFiles) {
  test::temp_dir dir;
  fs::create_directories(dir.file("work"));
  fs::create_directories(dir.file("elsewhere"));
  const auto db = dir.file("r.db");
  std::ofstream(dir.file("work/prog.sh")) << "#!/bin/sh\nsleep 0.3\nwc -l \"$1\" > /dev/null\n";
  fs::permissions(dir.file("work/prog.sh"), fs::perms::owner_all);
  std::ofstream(dir.file("work/m.mtx")) << "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 4\n2 2 5\n";
  // Relative --run, --cache and file=, interrupted after its first point, resumed from elsewhere.
  const int pid = test::spawn_process({EMA_EXE, "exec", "--name", "rel", "--gen", "seq {n} > {input}", "--run", "./prog.sh {input}", "--sizes",
                                       "10,20,30,40,50,60", "--reps", "2", "--warmup", "0", "--cache", "cache", "--db", db, "-q"},
                                      dir.file("work"));
  ASSERT_TRUE(wait_for([&] { return query_int(db, "SELECT count(*) FROM points") >= 1; }));
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  auto r = ema({"run", "--resume", "--db", db, "--json", "-", "-q"}, dir.file("elsewhere"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["points"].size(), 6u);
  for (const auto& p : j["points"]) EXPECT_EQ(p["status"], "ok") << p["reason"];
  EXPECT_FALSE(fs::exists(dir.file("elsewhere/cache")));

  r = ema({"run", "gauss", "--variants", "seq", "--sizes", "2", "-p", "file=m.mtx", "--reps", "1", "--no-energy", "--db", db, "--json", "-", "-q"},
          dir.file("work"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["points"][0]["params"]["file"], fs::absolute(dir.file("work/m.mtx")).lexically_normal().string());
}

TEST(Reliability, TwoResumesOfOneExperimentNeverRunItTwice) {
  test::temp_dir dir;
  const auto db = dir.file("t.db");
  auto r = ema({"exec",
                "--name",
                "slow",
                "--gen",
                "seq {n} > {input}",
                "--run",
                "sleep 1 # {input}",
                "--sizes",
                "10,20,30",
                "--reps",
                "1",
                "--warmup",
                "0",
                "--cache",
                dir.file("c"),
                "--db",
                db,
                "--timeout",
                "0.01",
                "-q"});
  ASSERT_EQ(r.exit_code, 1) << r.err;  // every point timed out: now make the experiment unfinished
  exec_sql(db, "DELETE FROM samples; DELETE FROM points; UPDATE experiments SET state = 'interrupted'");
  exec_sql(db, "UPDATE experiments SET plan_json = json_set(plan_json, '$.timeout', 60)");
  const int first = test::spawn_process({EMA_EXE, "run", "--resume", "--db", db, "-q"});
  ASSERT_TRUE(wait_for([&] { return query_int(db, "SELECT count(*) FROM experiments WHERE state = 'running'") == 1; }));
  r = ema({"run", "--resume", "1", "--db", db});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("is being run by another ema process"), std::string::npos) << r.err;
  int status = 0;
  waitpid(first, &status, 0);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(query_int(db, "SELECT count(*) FROM points"), 3);
}

TEST(Reliability, ExitCodesOfBadValuesAndDamagedRows) {
  test::temp_dir dir;
  const auto db = dir.file("e.db");
  // An invalid parameter value is a usage error found before anything is stored.
  auto r = ema({"run", "rqa", "--sizes", "64", "-p", "eps=abc", "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  std::ofstream(dir.file("bad.mtx")) << "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n";
  r = ema({"run", "gauss", "--sizes", "2", "-p", "file=" + dir.file("bad.mtx"), "--db", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.mtx:3: row 3 is outside 1..2"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(db));
  // Hand-corrupted JSON in the database is a database error.
  r = ema({"run", "search", "--variants", "seq", "--sizes", "2^10", "--reps", "1", "--no-energy", "--db", db, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  exec_sql(db, "UPDATE experiments SET plan_json = '{\"points\": 5}', state = 'interrupted'");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"show", "--db", db}, {"run", "--resume", "--db", db}, {"report", "--db", db, "--md", "-"}, {"fit", "--db", db}}) {
    r = ema(args);
    EXPECT_EQ(r.exit_code, 3) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("changed by hand or is damaged"), std::string::npos) << args[0] << ": " << r.err;
  }
  exec_sql(db, "UPDATE points SET result_json = '{not json'");
  r = ema({"show", "--db", db, "--json", "-"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
}

}  // namespace
}  // namespace ema
