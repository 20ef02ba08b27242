// Regression tests of issue 28 (reliability, round 3), end to end through the `ema` command: the
// cluster path as an attacker or a careless user meets it. Hostile values of every `ema slurm`
// option, the generated scripts run as Slurm runs them; shards planted in shared folders; merges
// that must never lose a stored point.
#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "support/db.hpp"
#include "support/ema.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

namespace fs = std::filesystem;
using test::exec_sql;
using test::query_int;

test::process_result ema(std::vector<std::string> args, const std::string& cwd = "") { return test::run_ema(std::move(args), cwd); }

using test::slurp;

void spit(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// `module` as a site's profile defines it; here it does nothing.
const std::string prelude = "module() { :; }; export -f module; ";

// Runs a generated script as Slurm runs a task of it: bash, the array's variables set, in `cwd`.
test::process_result run_task(const std::string& script, const std::string& cwd, const std::string& env) {
  return test::run_process({"/bin/bash", "-c", prelude + env + " bash \"$0\"", script}, "", cwd);
}

// sbatch's reading of the words after #SBATCH (Slurm's src/sbatch/opt.c, _get_argument): whitespace
// splits, quotes group, a backslash takes the next character as it is, an unescaped # ends the line.
std::vector<std::string> sbatch_words(const std::string& line) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i >= line.size() || line[i] == '#') break;
    std::string w;
    char quote = 0;
    bool comment = false;
    for (; i < line.size() && (quote || !std::isspace(static_cast<unsigned char>(line[i]))); ++i) {
      const char c = line[i];
      if (c == '\\' && i + 1 < line.size())
        w += line[++i];
      else if (quote && c == quote)
        quote = 0;
      else if (!quote && (c == '"' || c == '\''))
        quote = c;
      else if (!quote && c == '#') {
        comment = true;
        break;
      } else
        w += c;
    }
    words.push_back(w);
    if (comment) break;
  }
  return words;
}

// The options sbatch reads from a script: each #SBATCH word, up to the first command.
std::multimap<std::string, std::string> directives(const std::string& script) {
  std::multimap<std::string, std::string> out;
  std::istringstream in(script);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("#SBATCH", 0) == 0) {
      for (const auto& w : sbatch_words(line.substr(7))) {
        const auto eq = w.find('=');
        out.emplace(w.substr(0, eq), eq == std::string::npos ? "" : w.substr(eq + 1));
      }
    } else if (!line.empty() && line[0] != '#') {
      break;  // sbatch stops at the first command
    }
  }
  return out;
}

std::string value_of(const std::multimap<std::string, std::string>& d, const std::string& key) {
  const auto it = d.find(key);
  return it == d.end() ? "<absent>" : it->second;
}

bool planted_anything(const std::string& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().find("PWNED") == 0) return true;
  return false;
}

// ---- Item 1: nothing a user passes becomes script text.

TEST(ClusterHostile, EverySlurmValueReadsBackLiterallyAndRunsNothing) {
  test::temp_dir dir;
  // A key file whose name is shell syntax, and a results folder with every character sbatch or a
  // shell treats specially (but a backslash, refused apart).
  const auto keys = dir.file("keys;touch PWNED1'$(touch PWNED2)`touch PWNED3` #\"x.txt");
  spit(keys, "3\n1\n2\n5\n");
  const auto results = dir.file("res 50% #'$(touch PWNED4)\"");
  const std::string comment = "a b#c\"d'$(touch PWNED5)`touch PWNED6`";
  auto r = ema({"slurm",       "sort",          "--variants", "std-sort",
                "--param",     "input=" + keys, "--reps",     "3",
                "--no-energy", "--tasks",       "1",          "--results",
                results,       "--partition",   "gpu,debug",  "--time",
                "1-02:00:00",  "--account",     "proj.x",     "--qos",
                "normal",      "--constraint",  "[a|b]&c*2",  "--gpus-per-task",
                "h100:1",      "--module",      "cuda/13.0",  "--sbatch=--comment=" + comment},
               dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto array = slurp(results + "/array.sbatch");
  const auto d = directives(array);
  EXPECT_EQ(value_of(d, "--partition"), "gpu,debug");
  EXPECT_EQ(value_of(d, "--time"), "1-02:00:00");
  EXPECT_EQ(value_of(d, "--account"), "proj.x");
  EXPECT_EQ(value_of(d, "--constraint"), "[a|b]&c*2");
  EXPECT_EQ(value_of(d, "--gpus-per-task"), "h100:1");
  EXPECT_EQ(value_of(d, "--comment"), comment);
  EXPECT_EQ(value_of(d, "--array"), "0-0");
  // The log path as Slurm's file name pattern: the folder's % doubled, the task's %a kept.
  std::string pattern;
  for (char c : results) pattern += c == '%' ? std::string("%%") : std::string(1, c);
  EXPECT_EQ(value_of(d, "--output"), pattern + "/logs/shard-%a.out");
  EXPECT_EQ(d.count("--exclusive"), 1u);
  // The plan's arguments are data beside the script, never its text.
  EXPECT_NE(slurp(results + "/plan.args").find("input=" + keys + "\n"), std::string::npos);
  EXPECT_EQ(array.find("PWNED1"), std::string::npos) << array;

  // Run as Slurm would: the task, then the merge; nothing planted, every point stored.
  auto t = run_task(results + "/array.sbatch", dir.path(), "SLURM_ARRAY_TASK_ID=0 TMPDIR=" + dir.path());
  ASSERT_EQ(t.exit_code, 0) << t.err;
  t = run_task(results + "/merge.sbatch", dir.path(), "");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_EQ(query_int(results + "/merged.db", "SELECT COUNT(*) FROM points WHERE status = 'ok'"), 1);
  EXPECT_FALSE(planted_anything(dir.path()));
}

TEST(ClusterHostile, ControlCharactersAndValuesOutsideSlurmsGrammarAreRefused) {
  test::temp_dir dir;
  spit(dir.file("keys\ntouch PWNED #.txt"), "3\n1\n2\n");
  const std::vector<std::string> plan = {"slurm", "search", "--variants", "seq", "--sizes", "2^10..2^11", "--tasks", "1"};
  const std::vector<std::vector<std::string>> hostile = {{"--partition", "gpu\ntouch PWNED"},
                                                         {"--time", "1:00\ntouch PWNED"},
                                                         {"--account", "a\ntouch PWNED"},
                                                         {"--qos", "q\rtouch PWNED"},
                                                         {"--constraint", "a\ntouch PWNED"},
                                                         {"--gpus-per-task", "1\ntouch PWNED"},
                                                         {"--module", "m\ntouch PWNED"},
                                                         {"--sbatch=--comment=x\ntouch PWNED"},
                                                         {"--results", dir.file("r\ntouch PWNED")},
                                                         {"--param", "copies=1\ntouch PWNED"},
                                                         {"--partition", "gpu debug"},
                                                         {"--partition", "gpu#x"},
                                                         {"--time", "soon"},
                                                         {"--time", "1:2:3:4"},
                                                         {"--account", "a;b"},
                                                         {"--qos", "$(touch PWNED)"},
                                                         {"--constraint", "a b"},
                                                         {"--gpus-per-task", "0"},
                                                         {"--gpus-per-task", "h100:x"},
                                                         {"--module", "-f"},
                                                         {"--module", "x;touch PWNED"},
                                                         {"--sbatch=-p gpu"},
                                                         {"--sbatch=--array=0-99"},
                                                         {"--sbatch=--output=/tmp/x"},
                                                         {"--results", dir.file("r\\x")},
                                                         {"--json", dir.file("out.json")}};
  for (const auto& extra : hostile) {
    auto args = plan;
    args.insert(args.end(), extra.begin(), extra.end());
    if (extra[0] != "--results") args.insert(args.end(), {"--results", dir.file("res")});
    const auto r = ema(args, dir.path());
    EXPECT_EQ(r.exit_code, 2) << extra[0] << " " << extra.back() << ": " << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line, the value's newline shown as \\n: " << r.err;
    EXPECT_FALSE(fs::exists(dir.file("res"))) << extra[0] << " " << extra.back();
  }
  // A key file whose name holds a newline: valid for `ema run`, refused for a script.
  const auto r =
      ema({"slurm", "sort", "--param", "input=" + dir.file("keys\ntouch PWNED #.txt"), "--sizes", "3", "--tasks", "1", "--results", dir.file("res")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("keys\\ntouch PWNED"), std::string::npos) << r.err;
  EXPECT_FALSE(planted_anything(dir.path()));
}

TEST(ClusterHostile, ScriptsReplaceALinkNeverWriteThroughIt) {
  test::temp_dir dir;
  const auto results = dir.file("res");
  fs::create_directories(results);
  spit(dir.file("victim"), "mine\n");
  fs::create_symlink(dir.file("victim"), results + "/array.sbatch");
  fs::create_symlink(dir.file("victim"), results + "/plan.args");
  auto r = ema({"slurm", "search", "--variants", "seq", "--sizes", "2^10..2^11", "--tasks", "2", "--results", results});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(dir.file("victim")), "mine\n");
  EXPECT_FALSE(fs::is_symlink(results + "/array.sbatch"));
  EXPECT_NE(slurp(results + "/array.sbatch").find("#SBATCH --array=0-1"), std::string::npos);
  // Too many tasks says so in the option's own words.
  r = ema({"slurm", "search", "--variants", "seq", "--sizes", "2^10..2^12", "--tasks", "9", "--results", dir.file("r9")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--tasks 9: the plan has 3 points"), std::string::npos) << r.err;
  // A results folder holding the shards of another split is refused: their merge would mix them.
  ASSERT_EQ(ema({"run", "search", "--variants", "seq", "--sizes", "2^10..2^11", "--reps", "3", "--no-energy", "-q", "--shard", "0/2", "--db",
                 results + "/shard-0.db"})
                .exit_code,
            0);
  r = ema({"slurm", "search", "--variants", "seq", "--sizes", "2^10..2^11", "--reps", "3", "--no-energy", "--tasks", "1", "--results", results});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("this plan split into 2 tasks"), std::string::npos) << r.err;
}

// ---- Item 2: shard databases live in private folders; a planted shard is never taken.

TEST(ClusterHostile, AShardWithoutDbWritesInAPrivateFolderOfItsOwn) {
  test::temp_dir dir;
  const auto tmp = dir.file("tmp");
  fs::create_directories(tmp);
  const std::vector<std::string> shard = {"/usr/bin/env", "TMPDIR=" + tmp, EMA_EXE, "run",         "search", "--variants", "seq", "--sizes",
                                          "2^10..2^11",   "--reps",        "3",     "--no-energy", "-q",     "--shard",    "0/2"};
  auto r = test::run_process(shard);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<fs::path> folders;
  for (const auto& e : fs::directory_iterator(tmp)) folders.push_back(e.path());
  ASSERT_EQ(folders.size(), 1u);
  struct stat st {};
  ASSERT_EQ(::lstat(folders[0].c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_NE(r.err.find((folders[0] / "shard.db").string()), std::string::npos) << r.err;
  EXPECT_EQ(query_int((folders[0] / "shard.db").string(), "SELECT COUNT(*) FROM points"), 1);
  // Run again: a fresh folder, nothing taken from the first.
  r = test::run_process(shard);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("resuming"), std::string::npos) << r.err;
  EXPECT_EQ(std::distance(fs::directory_iterator(tmp), fs::directory_iterator()), 2);
}

TEST(ClusterHostile, ATaskTakesNoPlantedShardAndWritesThroughNoLink) {
  test::temp_dir dir;
  const auto results = dir.file("res");
  const auto tmp = dir.file("node-tmp");
  fs::create_directories(tmp);
  auto r =
      ema({"slurm", "search", "--variants", "seq,omp", "--sizes", "2^10..2^11", "--reps", "3", "--no-energy", "--tasks", "2", "--results", results});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string tag = slurp(results + "/array.sbatch").substr(slurp(results + "/array.sbatch").find("--job-name=ema-") + 15, 12);
  // Links at every name the old scripts used in the shared folder: none is written through.
  spit(dir.file("victim"), "mine\n");
  for (const auto& name : {"ema-" + tag + "-shard-0-of-2.db", "ema-" + tag + "-shard-0-of-2.db.tmp"})
    fs::create_symlink(dir.file("victim"), tmp + "/" + name);
  const auto env = "SLURM_ARRAY_TASK_ID=0 TMPDIR=" + tmp + " EMA_NODE_DIR=" + dir.file("node");
  auto t = run_task(results + "/array.sbatch", dir.path(), env);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_EQ(slurp(dir.file("victim")), "mine\n");
  // The task's own folder is gone once its database is copied back.
  for (const auto& e : fs::directory_iterator(tmp)) EXPECT_TRUE(fs::is_symlink(e.path())) << e.path();
  const int stored = query_int(results + "/shard-0.db", "SELECT COUNT(*) FROM points");
  ASSERT_GE(stored, 1);

  // A "finished" shard of the same plan planted as a link in the results folder: refused, and the
  // file it points at is not changed.
  fs::copy_file(results + "/shard-0.db", dir.file("forged.db"));
  exec_sql(dir.file("forged.db"), "UPDATE samples SET value = 1e-9");
  fs::rename(results + "/shard-0.db", dir.file("real.db"));
  fs::create_symlink(dir.file("forged.db"), results + "/shard-0.db");
  const auto forged = slurp(dir.file("forged.db"));
  t = run_task(results + "/array.sbatch", dir.path(), env);
  EXPECT_EQ(t.exit_code, 2) << t.err;
  EXPECT_NE(t.err.find("not a regular file of"), std::string::npos) << t.err;
  EXPECT_EQ(slurp(dir.file("forged.db")), forged);
  EXPECT_TRUE(fs::is_symlink(results + "/shard-0.db"));
  // One of another user's (where this test may give a file away: as root).
  if (::geteuid() == 0) {
    fs::remove(results + "/shard-0.db");
    fs::copy_file(dir.file("forged.db"), results + "/shard-0.db");
    ASSERT_EQ(::chown((results + "/shard-0.db").c_str(), 65534, 65534), 0);
    t = run_task(results + "/array.sbatch", dir.path(), env);
    EXPECT_EQ(t.exit_code, 2) << t.err;
    EXPECT_NE(t.err.find("not a regular file of"), std::string::npos) << t.err;
  }
}

// ---- Item 3 (and 4, 13, 14, 19): a merge never destroys stored points.

std::vector<std::string> shard_run(const std::string& db, const std::string& shard) {
  return {"run", "search", "--variants", "seq,omp", "--sizes", "2^10..2^13", "--reps", "3", "--no-energy", "-q", "--db", db, "--shard", shard};
}

TEST(ClusterHostile, TheMergeJobRunAgainKeepsThePointsAResumeAdded) {
  test::temp_dir dir;
  const auto results = dir.file("res");
  auto r =
      ema({"slurm", "search", "--variants", "seq,omp", "--sizes", "2^10..2^13", "--reps", "3", "--no-energy", "--tasks", "3", "--results", results});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto env = [&](int task) {
    return "SLURM_ARRAY_TASK_ID=" + std::to_string(task) + " TMPDIR=" + dir.path() + " EMA_NODE_DIR=" + dir.file("node");
  };
  for (int task : {0, 1, 2}) ASSERT_EQ(run_task(results + "/array.sbatch", dir.path(), env(task)).exit_code, 0);
  // Task 1 as a cancelled task leaves it: its last point not stored, its experiment unfinished.
  exec_sql(results + "/shard-1.db",
           "DELETE FROM samples WHERE point_id = (SELECT MAX(id) FROM points); DELETE FROM points WHERE id = "
           "(SELECT MAX(id) FROM points); UPDATE experiments SET state = 'interrupted'");
  auto m = run_task(results + "/merge.sbatch", dir.path(), "");
  EXPECT_NE(m.exit_code, 0);  // task 1's point is missing, and ema says how to run it here
  EXPECT_NE(m.err.find("--resume 1"), std::string::npos) << m.err;
  const auto merged = results + "/merged.db";
  ASSERT_LT(query_int(merged, "SELECT COUNT(*) FROM points"), 8);
  // As ema's message suggests: the missing points run here, into the merged database.
  r = ema({"run", "--db", merged, "--resume", "1", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(query_int(merged, "SELECT COUNT(*) FROM points"), 8);
  // The merge job again (as the same message also suggests): the resumed points stay.
  m = run_task(results + "/merge.sbatch", dir.path(), "");
  EXPECT_EQ(m.exit_code, 0) << m.err;
  EXPECT_NE(m.err.find("replaces it"), std::string::npos) << m.err;
  EXPECT_EQ(query_int(merged, "SELECT COUNT(*) FROM experiments"), 1);
  EXPECT_EQ(query_int(merged, "SELECT COUNT(*) FROM points"), 8);
  EXPECT_EQ(query_int(merged, "SELECT COUNT(DISTINCT ordinal) FROM points"), 8);
  EXPECT_EQ(query_int(merged, "SELECT COUNT(*) FROM experiments WHERE state = 'finished'"), 1);
  // Task 1 resubmitted after all: its point was measured twice; the merged copy is kept and the
  // shard's named as left out, nothing lost.
  ASSERT_EQ(run_task(results + "/array.sbatch", dir.path(), env(1)).exit_code, 0);
  m = run_task(results + "/merge.sbatch", dir.path(), "");
  EXPECT_EQ(m.exit_code, 0) << m.err;
  EXPECT_NE(m.err.find("duplicate point left out"), std::string::npos) << m.err;
  EXPECT_EQ(query_int(merged, "SELECT COUNT(*) FROM points"), 8);
}

TEST(ClusterHostile, AFailedMergeLeavesTheOutputAsItWas) {
  test::temp_dir dir;
  for (int i = 0; i < 2; ++i) ASSERT_EQ(ema(shard_run(dir.file("s" + std::to_string(i) + ".db"), std::to_string(i) + "/2")).exit_code, 0);
  ASSERT_EQ(ema({"run", "search", "--variants", "seq", "--sizes", "2^10", "--reps", "3", "--no-energy", "-q", "--db", dir.file("keep.db")}).exit_code,
            0);
  const auto keep = [&] {
    return std::make_pair(query_int(dir.file("keep.db"), "SELECT COUNT(*) FROM experiments"),
                          query_int(dir.file("keep.db"), "SELECT COUNT(*) FROM points"));
  };
  const auto before = keep();
  // Another plan's shards: refused before anything is written.
  ASSERT_EQ(ema({"run", "search", "--variants", "seq", "--sizes", "2^10..2^12", "--reps", "3", "--no-energy", "-q", "--shard", "0/2", "--db",
                 dir.file("other.db")})
                .exit_code,
            0);
  auto r = ema({"merge", dir.file("keep.db"), dir.file("s0.db"), dir.file("other.db"), "-q"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(keep(), before);
  // A point that fails its check while being copied (its row changed by hand): exit 3, the output
  // as it was, a new output never created, no temporary file left beside it.
  exec_sql(dir.file("s1.db"), "UPDATE points SET ordinal = 999 WHERE id = (SELECT MAX(id) FROM points)");
  r = ema({"merge", dir.file("keep.db"), dir.file("s0.db"), dir.file("s1.db"), "-q"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(keep(), before);
  r = ema({"merge", dir.file("new.db"), dir.file("s0.db"), dir.file("s1.db"), "-q"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("new.db")));
  for (const auto& e : fs::directory_iterator(dir.path())) EXPECT_EQ(e.path().string().find(".ema-"), std::string::npos) << e.path();
}

TEST(ClusterHostile, MergeOutputsAndInputsAreCheckedAsPaths) {
  test::temp_dir dir;
  for (int i = 0; i < 2; ++i) ASSERT_EQ(ema(shard_run(dir.file("s" + std::to_string(i) + ".db"), std::to_string(i) + "/2")).exit_code, 0);
  const auto s0 = slurp(dir.file("s0.db"));
  // The output an input's journal (item 4), an empty path (item 14): refused, nothing written.
  for (const auto& out : {dir.file("s0.db-journal"), dir.file("s1.db-wal"), std::string()}) {
    const auto r = ema({"merge", out, dir.file("s0.db"), dir.file("s1.db")});
    EXPECT_EQ(r.exit_code, 2) << out << ": " << r.err;
  }
  EXPECT_FALSE(fs::exists(dir.file("s0.db-journal")));
  EXPECT_EQ(slurp(dir.file("s0.db")), s0);
  EXPECT_EQ(ema({"merge", dir.file("m.db"), ""}).exit_code, 2);
  EXPECT_EQ(ema({"run", "search", "--sizes", "2^10", "--db", ""}).exit_code, 2);
  // One experiment of a database that holds several (item 19): DB:N.
  ASSERT_EQ(ema({"merge", dir.file("both.db"), dir.file("s0.db"), dir.file("s1.db"), "-q"}).exit_code, 0);
  ASSERT_EQ(ema({"run", "search", "--variants", "seq", "--sizes", "2^10", "--reps", "3", "--no-energy", "-q", "--db", dir.file("both.db")}).exit_code,
            0);
  auto r = ema({"merge", dir.file("one.db"), dir.file("both.db") + ":1", "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(query_int(dir.file("one.db"), "SELECT COUNT(*) FROM points"), 8);
  r = ema({"merge", dir.file("two.db"), dir.file("both.db") + ":9"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("has no experiment 9"), std::string::npos) << r.err;
  // Merged in one transaction (item 13): no experiment is ever left `running` by a merge.
  EXPECT_EQ(query_int(dir.file("one.db"), "SELECT COUNT(*) FROM experiments WHERE state = 'running'"), 0);
}

TEST(ClusterHostile, AMergeWaitsForNoResumeOfTheMergeItReplaces) {
  test::temp_dir dir;
  for (int i : {0, 1}) ASSERT_EQ(ema(shard_run(dir.file("s" + std::to_string(i) + ".db"), std::to_string(i) + "/2")).exit_code, 0);
  ASSERT_EQ(ema({"merge", dir.file("m.db"), dir.file("s0.db"), "-q"}).exit_code, 1);
  // Another process holds experiment 1 (a resume of it is running): the merge is refused.
  const int fd = ::open(dir.file("m.db").c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  lock.l_start = (off_t{1} << 62) + 1;
  lock.l_len = 1;
  ASSERT_EQ(::fcntl(fd, F_OFD_SETLK, &lock), 0);
  auto r = ema({"merge", dir.file("m.db"), dir.file("s0.db"), dir.file("s1.db"), "-q"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("being run by another ema process"), std::string::npos) << r.err;
  ::close(fd);
  r = ema({"merge", dir.file("m.db"), dir.file("s0.db"), dir.file("s1.db"), "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(query_int(dir.file("m.db"), "SELECT COUNT(*) FROM points"), 8);
}

// ---- Item 16: --status reads only small regular files.

TEST(ClusterHostile, StatusNeverHangsOnAPipeNorReadsADeviceWhole) {
  test::temp_dir dir;
  fs::create_directories(dir.file("ema-slurm-fifo"));
  ASSERT_EQ(::mkfifo(dir.file("ema-slurm-fifo/jobs").c_str(), 0600), 0);
  fs::create_directories(dir.file("ema-slurm-zero"));
  fs::create_symlink("/dev/zero", dir.file("ema-slurm-zero/jobs"));
  fs::create_directories(dir.file("ema-slurm-big"));
  {
    std::ofstream f(dir.file("ema-slurm-big/jobs"));
    f << "{\"array\": \"123\", \"pad\": \"" << std::string(1 << 20, 'x') << "\"}";
  }
  const auto start = std::chrono::steady_clock::now();
  const auto r = ema({"slurm", "--status", "123"}, dir.path());
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("neither a results folder nor a job"), std::string::npos) << r.err;
}

// ---- Item 5: a shard changed by hand is refused, never indexed out of bounds.

TEST(ClusterHostile, AForgedShardIsRefusedNotTrusted) {
  test::temp_dir dir;
  for (int i : {0, 1}) ASSERT_EQ(ema(shard_run(dir.file("s" + std::to_string(i) + ".db"), std::to_string(i) + "/2")).exit_code, 0);
  // Extra plan points under the old digest, past the plan's size (once an out-of-bounds write).
  const std::string extra =
      "UPDATE experiments SET plan_json = json_set(plan_json, '$.points[#]', json_object('ordinal', 8, 'problem', 'search', "
      "'variant', 'seq', 'n', 99999, 'params', json_object('hit', 'none', 'copies', '1'), 'seed', 1, 'instance', 0), "
      "'$.points[#]', json_object('ordinal', 9, 'problem', 'search', 'variant', 'omp', 'n', 99999, 'params', json_object('hit', "
      "'none', 'copies', '1'), 'seed', 1, 'instance', 0)";
  fs::copy_file(dir.file("s1.db"), dir.file("past.db"));
  exec_sql(dir.file("past.db"), extra + ")");
  auto r = ema({"merge", dir.file("m.db"), dir.file("s0.db"), dir.file("past.db"), "-q"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("numbers its points out of order"), std::string::npos) << r.err;
  // ... and with the plan's size raised to hold them.
  fs::copy_file(dir.file("s1.db"), dir.file("more.db"));
  exec_sql(dir.file("more.db"), extra + ", '$.shard.size', 10)");
  r = ema({"merge", dir.file("m.db"), dir.file("s0.db"), dir.file("more.db"), "-q"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("does not match its digest"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("m.db")));
  // The same without the part digest a shard records now (a shard of an older ema): the whole plan's.
  exec_sql(dir.file("more.db"), "UPDATE experiments SET plan_json = json_remove(plan_json, '$.shard.part')");
  r = ema({"merge", dir.file("m.db"), dir.file("s0.db"), dir.file("more.db"), "-q"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  // A point row naming another problem than its plan's point.
  fs::copy_file(dir.file("s1.db"), dir.file("odd.db"));
  exec_sql(dir.file("odd.db"), "UPDATE points SET n = 3 WHERE id = (SELECT MIN(id) FROM points)");
  r = ema({"merge", dir.file("m.db"), dir.file("s0.db"), dir.file("odd.db"), "-q"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("where its plan says"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("m.db")));
  // The shards as they were still merge.
  r = ema({"merge", dir.file("m.db"), dir.file("s0.db"), dir.file("s1.db"), "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace ema
