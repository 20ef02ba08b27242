// Shards and merge end to end through the `ema` command (issue 18): a plan split over tasks, each
// into its own database, joined by `ema merge`; every point once, duplicates and missing shards
// named, foreign plans refused with nothing written, a task run again finishing only its part.
#include <gtest/gtest.h>

#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <set>

#include "support/db.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

test::process_result ema(std::vector<std::string> args) {
  args.insert(args.begin(), EMA_EXE);
  return test::run_process(args);
}

std::vector<std::string> shard_run(const std::string& db, const std::string& shard, const std::string& sizes = "2^10..2^13") {
  return {"run", "search", "--variants", "seq,omp", "--sizes", sizes, "--reps", "3", "--no-energy", "-q", "--db", db, "--shard", shard};
}

int points_in(const std::string& db, int experiment = 1) {
  return test::query_int(db, "SELECT COUNT(*) FROM points WHERE experiment_id = " + std::to_string(experiment));
}

TEST(Cluster, ShardsMergeIntoEveryPointOnce) {
  test::temp_dir dir;
  for (int i = 0; i < 3; ++i) {
    auto r = ema(shard_run(dir.file("s" + std::to_string(i) + ".db"), std::to_string(i) + "/3"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const int all = points_in(dir.file("s0.db")) + points_in(dir.file("s1.db")) + points_in(dir.file("s2.db"));
  EXPECT_EQ(all, 8);  // 4 sizes x 2 variants, each in one shard
  auto r = ema({"merge", dir.file("m.db"), dir.file("s0.db"), dir.file("s1.db"), dir.file("s2.db"), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(points_in(dir.file("m.db")), 8);
  EXPECT_EQ(test::query_int(dir.file("m.db"), "SELECT COUNT(DISTINCT ordinal) FROM points"), 8);
  EXPECT_EQ(test::query_int(dir.file("m.db"), "SELECT COUNT(*) FROM experiments WHERE state = 'finished'"), 1);
  // Each point says where it ran and which shard it came from.
  EXPECT_EQ(test::query_int(dir.file("m.db"),
                            "SELECT COUNT(*) FROM points WHERE json_extract(notes_json, '$.shard') IS NOT NULL "
                            "AND json_extract(notes_json, '$.host') IS NOT NULL AND json_extract(notes_json, '$.machine') IS NOT NULL"),
            8);
  auto shown = ema({"show", "--db", dir.file("m.db")});
  EXPECT_EQ(shown.exit_code, 0);
  EXPECT_NE(shown.out.find("8192  omp"), std::string::npos) << shown.out;

  // The same shard twice: one copy kept, and said.
  r = ema({"merge", dir.file("m2.db"), dir.file("s0.db"), dir.file("s1.db"), dir.file("s1.db"), dir.file("s2.db"), "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(points_in(dir.file("m2.db")), 8);
  EXPECT_NE(r.err.find("duplicate point left out"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kept " + dir.file("s1.db") + " experiment 1's"), std::string::npos) << r.err;
}

TEST(Cluster, AMissingShardIsNamedAndResumable) {
  test::temp_dir dir;
  for (int i : {0, 2}) ASSERT_EQ(ema(shard_run(dir.file("s" + std::to_string(i) + ".db"), std::to_string(i) + "/3")).exit_code, 0);
  auto r = ema({"merge", dir.file("m.db"), dir.file("s0.db"), dir.file("s2.db"), "-q"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--array=1"), std::string::npos) << r.err;
  EXPECT_EQ(test::query_int(dir.file("m.db"), "SELECT COUNT(*) FROM experiments WHERE state = 'interrupted'"), 1);
  const int before = points_in(dir.file("m.db"));
  EXPECT_LT(before, 8);
  // A shard stores only its own points: the absent one's part is a gap in the merged plan, which
  // only its task fills. Its task run (here, as Slurm would run it again) and merged again:
  EXPECT_EQ(r.err.find("--resume"), std::string::npos) << r.err;
  EXPECT_EQ(test::query_int(dir.file("m.db"), "SELECT json_array_length(plan_json, '$.points') FROM experiments"), before);
  EXPECT_EQ(test::query_int(dir.file("m.db"), "SELECT json_extract(plan_json, '$.merged.size') FROM experiments"), 8);
  ASSERT_EQ(ema(shard_run(dir.file("s1.db"), "1/3")).exit_code, 0);
  r = ema({"merge", dir.file("m.db"), dir.file("s0.db"), dir.file("s1.db"), dir.file("s2.db"), "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(points_in(dir.file("m.db"), 2), 8);  // the earlier merge replaced by the new experiment
  EXPECT_EQ(test::query_int(dir.file("m.db"), "SELECT COUNT(*) FROM experiments WHERE state = 'finished'"), 1);
  // A point of a present shard that is missing (its task stopped) is in the merge, and a resume runs it.
  test::exec_sql(dir.file("s0.db"),
                 "DELETE FROM samples WHERE point_id = (SELECT MAX(id) FROM points); DELETE FROM points WHERE id = "
                 "(SELECT MAX(id) FROM points); UPDATE experiments SET state = 'interrupted'");
  r = ema({"merge", dir.file("m2.db"), dir.file("s0.db"), dir.file("s1.db"), dir.file("s2.db"), "-q"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("1 planned point is missing"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--resume 1` runs them"), std::string::npos) << r.err;
  r = ema({"run", "--db", dir.file("m2.db"), "--resume", "1", "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(points_in(dir.file("m2.db")), 8);
}

TEST(Cluster, ATaskRunAgainFinishesOnlyItsPart) {
  test::temp_dir dir;
  const auto db = dir.file("s1.db");
  ASSERT_EQ(ema(shard_run(db, "1/2")).exit_code, 0);
  const int mine = points_in(db);
  ASSERT_GT(mine, 1);
  // As a cancelled task leaves it: some points gone, the experiment unfinished.
  test::exec_sql(db,
                 "DELETE FROM samples WHERE point_id = (SELECT MAX(id) FROM points); DELETE FROM points WHERE id = (SELECT MAX(id) "
                 "FROM points); UPDATE experiments SET state = 'interrupted'");
  auto r = ema(shard_run(db, "1/2"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("resuming shard 1/2"), std::string::npos) << r.err;
  EXPECT_EQ(test::query_int(db, "SELECT COUNT(*) FROM experiments"), 1);
  EXPECT_EQ(points_in(db), mine);
  r = ema(shard_run(db, "1/2"));  // finished: nothing runs
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("already finished"), std::string::npos) << r.err;
  EXPECT_EQ(points_in(db), mine);
}

TEST(Cluster, ForeignPlansAndBadOutputsAreRefusedWithNothingWritten) {
  test::temp_dir dir;
  ASSERT_EQ(ema(shard_run(dir.file("a.db"), "0/2")).exit_code, 0);
  ASSERT_EQ(ema(shard_run(dir.file("b.db"), "1/2", "2^10..2^12")).exit_code, 0);  // another plan
  auto r = ema({"merge", dir.file("m.db"), dir.file("a.db"), dir.file("b.db")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("are of different plans"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("m.db")));
  r = ema({"merge", dir.file("a.db"), dir.file("a.db")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is both the output and an input"), std::string::npos) << r.err;
  EXPECT_EQ(test::query_int(dir.file("a.db"), "SELECT COUNT(*) FROM experiments"), 1);
  // A database from a newer ema (a schema this one does not know) is refused, not misread.
  std::filesystem::copy_file(dir.file("a.db"), dir.file("new.db"));
  test::exec_sql(dir.file("new.db"), "PRAGMA user_version = 99");
  r = ema({"merge", dir.file("m.db"), dir.file("new.db")});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("m.db")));
  r = ema({"merge", dir.file("m.db"), dir.file("none.db")});
  EXPECT_NE(r.exit_code, 0);
  r = ema({"run", "search", "--sizes", "2^10", "--shard", "2/2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("part 2 is not one of 0 to 1"), std::string::npos) << r.err;
}

TEST(Cluster, OneCurveIsNotFittedAcrossUnlikeMachinesUnlessAsked) {
  test::temp_dir dir;
  for (int i = 0; i < 2; ++i)
    ASSERT_EQ(ema(shard_run(dir.file("s" + std::to_string(i) + ".db"), std::to_string(i) + "/2", "2^10..2^15")).exit_code, 0);
  // Shard 1 ran on another kind of node.
  test::exec_sql(dir.file("s1.db"), "UPDATE experiments SET machine_json = json_set(machine_json, '$.host.cpu_model', 'Other CPU')");
  auto r = ema({"merge", dir.file("m.db"), dir.file("s0.db"), dir.file("s1.db"), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("run on 2 kinds of machine"), std::string::npos) << r.err;
  // The split keeps equal points apart, so a variant may well sit on one node; put two of seq's
  // points on the other kind of machine, as a split of a larger plan would.
  test::exec_sql(dir.file("m.db"),
                 "UPDATE points SET notes_json = json_set(notes_json, '$.machine', 'Other CPU (2 cores)') "
                 "WHERE variant = 'seq' AND n IN (1024, 4096)");
  r = ema({"fit", "--db", dir.file("m.db"), "--variants", "seq"});
  EXPECT_NE(r.out.find("2 kinds of machine"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("Other CPU"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--across-machines"), std::string::npos) << r.out;
  r = ema({"fit", "--db", dir.file("m.db"), "--variants", "seq", "--across-machines"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("fitted across 2 kinds of machine"), std::string::npos) << r.out;
}

TEST(Cluster, OneProbePerNodeAndNoneWhilePointsRun) {
  test::temp_dir dir;
  ::setenv("EMA_NODE_DIR", dir.file("node").c_str(), 1);
  auto r = ema(shard_run(dir.file("a.db"), "0/2"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("probing this machine's ceilings"), std::string::npos) << r.err;
  r = ema(shard_run(dir.file("b.db"), "1/2"));  // another shard on the node: no second probe
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("probing this machine's ceilings"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("using this node's probe"), std::string::npos) << r.err;
  EXPECT_EQ(test::query_int(dir.file("b.db"), "SELECT COUNT(*) FROM probes"), 1);

  // While a probe holds the node (an exclusive lock), a sweep runs no point; then it goes on.
  const int fd = ::open(dir.file("node/node.lock").c_str(), O_RDWR | O_CREAT, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX), 0);
  const int pid = test::spawn_process(
      {EMA_EXE, "run", "search", "--variants", "seq", "--sizes", "2^10", "--reps", "3", "--no-energy", "-q", "--db", dir.file("c.db")});
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_LE(test::query_int(dir.file("c.db"), "SELECT COUNT(*) FROM points"), 0);  // -1: not even created
  flock(fd, LOCK_UN);
  ::close(fd);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(test::query_int(dir.file("c.db"), "SELECT COUNT(*) FROM points"), 1);
  ::unsetenv("EMA_NODE_DIR");
}

// The scripts ema slurm writes, run as Slurm would run them (the array's environment set, no
// scheduler): every task's database copied to the results folder, a task run again finishing
// nothing new, the merge joining them, --status summarising. (The real Slurm is tested apart.)
TEST(Cluster, SlurmScriptsRunAsTheirTasksWould) {
  test::temp_dir dir;
  const auto results = dir.file("res");
  auto r = ema({"slurm", "search", "--variants", "seq,omp", "--sizes", "2^10..2^13", "--reps", "3", "--no-energy", "--tasks", "3", "--results",
                results, "--module", "none"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("#SBATCH --array=0-2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("#SBATCH --exclusive"), std::string::npos);
  EXPECT_NE(r.out.find("--shard auto/3"), std::string::npos);
  // `module` does not exist here: define it away for the test, as a site's profile would define it.
  const std::string prelude = "module() { :; }; export -f module; ";
  r = ema({"slurm", "--status", results});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("no shard has finished"), std::string::npos) << r.out;
  for (int task = 0; task < 3; ++task) {
    const auto t = test::run_process({"/bin/bash", "-c",
                                      prelude + "SLURM_ARRAY_TASK_ID=" + std::to_string(task) + " TMPDIR=" + dir.path() +
                                          " EMA_NODE_DIR=" + dir.file("node") + " bash " + results + "/array.sbatch"});
    ASSERT_EQ(t.exit_code, 0) << t.err;
    EXPECT_TRUE(std::filesystem::exists(results + "/shard-" + std::to_string(task) + ".db"));
  }
  std::filesystem::create_directories(dir.file("other-node"));
  const auto again = test::run_process(
      {"/bin/bash", "-c", prelude + "SLURM_ARRAY_TASK_ID=1 TMPDIR=" + dir.file("other-node") + " bash " + results + "/array.sbatch"});
  EXPECT_EQ(again.exit_code, 0) << again.err;  // another node: starts from the copy, nothing left to run
  // A task that cannot start (ema refuses its database) must leave the results' copy alone.
  const auto refused = test::run_process({"/bin/bash", "-c", prelude + "SLURM_ARRAY_TASK_ID=2 TMPDIR=/proc/none bash " + results + "/array.sbatch"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_TRUE(std::filesystem::exists(results + "/shard-2.db"));
  r = ema({"slurm", "--status", results});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("3 of 3 shards finished; 8 points stored of the 8"), std::string::npos) << r.out;
  const auto m = test::run_process({"/bin/bash", "-c", prelude + "bash " + results + "/merge.sbatch"});
  EXPECT_EQ(m.exit_code, 0) << m.err;
  EXPECT_EQ(points_in(results + "/merged.db"), 8);
  EXPECT_EQ(test::query_int(results + "/merged.db", "SELECT COUNT(DISTINCT ordinal) FROM points"), 8);
  // Refusals: too many tasks, the plan's own --db, no plan.
  EXPECT_EQ(ema({"slurm", "search", "--variants", "seq", "--sizes", "2^10", "--tasks", "2"}).exit_code, 2);
  EXPECT_EQ(ema({"slurm", "search", "--sizes", "2^10", "--db", "x.db", "--tasks", "1"}).exit_code, 2);
  EXPECT_EQ(ema({"slurm", "--tasks", "2"}).exit_code, 2);
}

}  // namespace
}  // namespace ema
