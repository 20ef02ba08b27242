// `ema exec`'s points: commands with their placeholders, phase lines, the input cache and its cap,
// and every way a generator or program can fail, each recorded with its reason.
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "runner/external.hpp"
#include "inputs/input_cache.hpp"
#include "runner/isolate.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

namespace fs = std::filesystem;

TEST(External, ExpandsPlaceholdersAndQuotesTheInput) {
  EXPECT_EQ(expand_command("gen {n} {input} {seed}", 100, 7, "/tmp/a b's"), "gen 100 '/tmp/a b'\\''s' 7");
  EXPECT_EQ(expand_command("awk '{print $1}' {input}", 1, 1, "x"), "awk '{print $1}' 'x'");
  EXPECT_EQ(expand_command("{n}'{n}'\"{seed}\"", 3, 4, "x"), "3'3'\"4\"");
}

TEST(External, ChecksCommands) {
  EXPECT_NO_THROW(check_command("--gen", "gen {n} > {input}", {"input"}));
  EXPECT_NO_THROW(check_command("--run", "awk '{print $1}' {input}", {}));
  EXPECT_THROW(check_command("--gen", "gen {n}", {"input"}), usage_error);
  try {
    check_command("--run", "prog {file}", {});
    FAIL();
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown placeholder {file}"), std::string::npos) << e.what();
  }
}

// The programs are checked before anything is stored (issue 31): a missing or non-executable
// program is named, a builtin or a word with shell syntax is left to the shell.
TEST(External, ChecksThatItsProgramsCanRun) {
  test::temp_dir dir;
  const auto& cwd = dir.path();
  std::ofstream(dir.file("data.txt")) << "x\n";
  std::ofstream(dir.file("prog.sh")) << "#!/bin/sh\n";
  fs::permissions(dir.file("prog.sh"), fs::perms::owner_all);
  for (const char* ok : {"wc -l {input}", "sh -c 'cat {input}'", "./prog.sh {input}", "cd /tmp && ls", "FOO=1 env {input}", "'./odd name' {input}",
                         "  /bin/cat {input}", "{input}"})
    EXPECT_NO_THROW(check_program("--run", ok, cwd)) << ok;
  auto refused = [&](const std::string& command) {
    try {
      check_program("--run", command, cwd);
    } catch (const usage_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(refused("./isort {input}").find("./isort does not exist"), std::string::npos) << refused("./isort {input}");
  EXPECT_NE(refused("./data.txt {input}").find("is not an executable file"), std::string::npos);
  EXPECT_NE(refused("no-such-program-here {input}").find("no program no-such-program-here on the PATH"), std::string::npos);
}

TEST(External, PhaseLines) {
  std::map<std::string, double> phases;
  EXPECT_EQ(parse_phase_lines("hello\nema-phase read 0.5\nema-phase sort 1e-3\nema-phase read 0.25\n", phases), "");
  EXPECT_DOUBLE_EQ(phases["read"], 0.75);
  EXPECT_DOUBLE_EQ(phases["sort"], 1e-3);
  for (const char* bad : {"ema-phase read", "ema-phase read abc", "ema-phase read -1", "ema-phase total 1", "ema-phase user 1",
                          "ema-phase point_wall 1", "ema-phase device_peak 1", "ema-phase a b 1", "ema-phase read 1 extra", "ema-phases x 1"}) {
    std::map<std::string, double> p;
    EXPECT_NE(parse_phase_lines(std::string("ok\nema-phase fine 1\n") + bad + "\n", p).find("malformed phase line 2"), std::string::npos) << bad;
  }
  // The names ema measures around every run (core/metrics.hpp, metric_source::run) are the ones refused, and named.
  std::map<std::string, double> p;
  EXPECT_NE(parse_phase_lines("ema-phase sys 1\n", p).find("not total, user, sys, host_peak_rss, device_peak or point_wall,"), std::string::npos);
  EXPECT_EQ(parse_phase_lines("ema-phase kernel 1\n", p), "");  // a catalogued phase a program may report
}

std::string input_name(int k) { return fmt::format("n{}-s1-{:016x}.in", k, k); }

TEST(InputCache, DropsTheLeastRecentlyUsedInputsFirst) {
  test::temp_dir dir;
  auto cache = input_cache::open(dir.file("cache"));
  auto write = [&](int k, std::size_t bytes, int age) {
    const auto path = cache.input_path("demo", 1, 1, 0).parent_path() / input_name(k);
    std::ofstream(path) << std::string(bytes, 'x');
    fs::last_write_time(path, fs::file_time_type::clock::now() - std::chrono::hours(age));
    return path;
  };
  const auto old = write(1, 1000, 3), mid = write(2, 1000, 2), fresh = write(3, 1000, 1);
  cache.trim(2000, old);  // "old" is in use: "mid" goes instead
  EXPECT_TRUE(fs::exists(old));
  EXPECT_FALSE(fs::exists(mid));
  EXPECT_TRUE(fs::exists(fresh));
}

// Issue 11, item 1: `--cache DIR` deleted the user's files in DIR, the database included.
TEST(InputCache, RefusesAFolderHoldingOthersFilesAndDeletesNothing) {
  test::temp_dir dir;
  fs::create_directories(dir.file("victim/sub"));
  std::ofstream(dir.file("victim/thesis.tex")) << "years of work";
  std::ofstream(dir.file("victim/sub/results.csv")) << "n,value\n";
  try {
    input_cache::open(dir.file("victim"));
    FAIL() << "a folder of the user's was taken as the cache";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("holds files that ema did not write"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::exists(dir.file("victim/thesis.tex")));
  EXPECT_FALSE(fs::exists(dir.file("victim/CACHEDIR.TAG")));
  // Another program's cache tag is respected too.
  fs::create_directories(dir.file("other"));
  std::ofstream(dir.file("other/CACHEDIR.TAG")) << "Signature: 8a477f597d28d172789f06886806bc55\n# someone else's\n";
  EXPECT_THROW(input_cache::open(dir.file("other")), usage_error);
  // A file is not a folder.
  EXPECT_THROW(input_cache::open(dir.file("victim/thesis.tex")), usage_error);
}

TEST(InputCache, TrimsOnlyItsOwnInputsNeverLinksOrOthersFiles) {
  test::temp_dir dir;
  auto cache = input_cache::open(dir.file("cache"));
  EXPECT_TRUE(fs::exists(dir.file("cache/CACHEDIR.TAG")));
  const auto folder = cache.input_path("demo", 1, 1, 0).parent_path();
  // Files a user put in the tagged folder later, and a link to a file outside it.
  std::ofstream(dir.file("cache/notes.txt")) << std::string(5000, 'u');
  std::ofstream(folder / "results.csv") << std::string(5000, 'u');
  std::ofstream(dir.file("precious.in")) << std::string(5000, 'p');
  fs::create_symlink(dir.file("precious.in"), folder / input_name(7));
  std::ofstream(folder / input_name(8)) << std::string(5000, 'x');
  fs::last_write_time(folder / input_name(8), fs::file_time_type::clock::now() - std::chrono::hours(5));
  cache.trim(1, folder / input_name(9));
  EXPECT_FALSE(fs::exists(folder / input_name(8)));  // its own input went
  EXPECT_TRUE(fs::exists(dir.file("cache/notes.txt")));
  EXPECT_TRUE(fs::exists(folder / "results.csv"));
  EXPECT_TRUE(fs::is_symlink(folder / input_name(7)));
  EXPECT_TRUE(fs::exists(dir.file("precious.in")));
  EXPECT_TRUE(fs::exists(dir.file("cache/CACHEDIR.TAG")));
}

TEST(InputCache, AdoptsAnUntaggedFolderOfItsOwnInputs) {
  test::temp_dir dir;
  fs::create_directories(dir.file("legacy/demo"));
  std::ofstream(dir.file("legacy/demo/") + input_name(1)) << "1\n";
  EXPECT_NO_THROW(input_cache::open(dir.file("legacy")));
  EXPECT_TRUE(fs::exists(dir.file("legacy/CACHEDIR.TAG")));
  EXPECT_TRUE(input_cache::input_name(input_name(1)));
  EXPECT_FALSE(input_cache::input_name("thesis.in"));
  EXPECT_FALSE(input_cache::input_name("n1-s1-0123456789abcdeg.in"));
  EXPECT_TRUE(input_cache::input_name("n1-s1-0123456789abcdef.in.partial", true));
}

// Issue 11: a path with shell syntax in it, substituted inside the user's own quotes, must stay a
// path.
TEST(External, TheInputPathIsQuotedForItsShellContext) {
  test::temp_dir dir;
  const std::string path = dir.file("a b $(touch pwned) `touch pwned2` \"q\" 'single'.in");
  std::ofstream(path) << "content\n";
  for (const char* command : {"cat {input}", "cat \"{input}\"", "cat '{input}'", "cat \"x\"{input}'y'; true", "cat \"$(echo {input})\"",
                              "cat `echo {input}`", "echo \"$(cat {input}) $(echo \"{input}\")\""}) {
    const auto expanded = expand_command(command, 1, 1, path);
    auto c = run_isolated({"/bin/sh", "-c", "cd " + expand_command("{input}", 0, 0, dir.path()) + " && " + expanded}, "", 10, nullptr,
                          answer_channel::stdout_);
    EXPECT_FALSE(fs::exists(dir.file("pwned"))) << command << " -> " << expanded;
    EXPECT_FALSE(fs::exists(dir.file("pwned2"))) << command << " -> " << expanded;
    if (std::string(command).find_first_of("x`$") == std::string::npos)  // the path itself, read
      EXPECT_NE(c.stdout_tail.find("content"), std::string::npos) << command << " -> " << expanded << ": " << c.stderr_tail;
  }
  EXPECT_EQ(expand_command("a \"{input}\"", 1, 1, "p"), "a \"\"'p'\"\"");
  EXPECT_EQ(expand_command("a '{input}'", 1, 1, "p"), "a '''p'''");
}

struct exec_fixture {
  test::temp_dir dir;
  plan p;
  exec_fixture(const std::string& gen, const std::string& run) {
    p.reps.min_time = 0;
    p.reps.max_time = 0.05;
    p.reps.min_reps = 3;
    p.external = external_program{gen, {{"prog", run}}, dir.file("cache"), 1e9};
    p.add("demo", "prog", 100, {});
  }
  point_record go(double timeout = 20) {
    point_record r;
    bool interrupted = false;
    run_external_point(p, p.points.front(), timeout, nullptr, r, interrupted);
    EXPECT_FALSE(interrupted);
    return r;
  }
};

TEST(External, MeasuresTheProgramAndItsPhases) {
  exec_fixture f("seq {n} > {input}", "wc -l {input} >/dev/null; echo 'ema-phase count 0.002'");
  auto r = f.go();
  EXPECT_EQ(r.status, point_status::ok) << r.reason;
  EXPECT_TRUE(r.verified);
  EXPECT_GE(r.samples["total"].size(), 3u);
  EXPECT_EQ(r.samples["count"].size(), r.samples["total"].size());
  EXPECT_DOUBLE_EQ(r.samples["count"][0], 0.002);
  EXPECT_GT(r.samples["host_peak_rss"][0], 0);
  ASSERT_EQ(r.samples["user"].size(), r.samples["total"].size());
  EXPECT_EQ(r.samples["point_wall"].size(), 1u);
  EXPECT_NE(r.notes_json.find("\"generated\""), std::string::npos);
  EXPECT_NE(f.go().notes_json.find("\"cached\""), std::string::npos);  // the input is kept for later runs
}

TEST(External, FailuresAreRecordedWithTheirReason) {
  auto r = exec_fixture("echo broken >&2; exit 4", "true {input}").go();
  EXPECT_EQ(r.status, point_status::failed);
  EXPECT_NE(r.reason.find("the generator exited with code 4; stderr: broken"), std::string::npos) << r.reason;

  r = exec_fixture("true {input}", "true {input}").go();
  EXPECT_EQ(r.status, point_status::failed);
  EXPECT_NE(r.reason.find("wrote no input"), std::string::npos) << r.reason;

  r = exec_fixture("seq {n} > {input}", "sleep 30").go(1);
  EXPECT_EQ(r.status, point_status::timeout);
  EXPECT_NE(r.reason.find("timeout"), std::string::npos) << r.reason;

  r = exec_fixture("seq {n} > {input}", "kill -SEGV $$").go();
  EXPECT_EQ(r.status, point_status::crashed);
  EXPECT_NE(r.reason.find("signal 11"), std::string::npos) << r.reason;

  r = exec_fixture("seq {n} > {input}", "echo 'ema-phase sort soon'").go();
  EXPECT_EQ(r.status, point_status::failed);
  EXPECT_NE(r.reason.find("malformed phase line 1"), std::string::npos) << r.reason;

  r = exec_fixture("sleep 30; seq {n} > {input}", "true").go(1);
  EXPECT_EQ(r.status, point_status::timeout);
}

TEST(External, AFailedGenerationLeavesNoInputBehind) {
  exec_fixture f("echo partial > {input}; exit 1", "true {input}");
  f.go();
  std::size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(f.dir.file("cache"))) files += e.is_regular_file() && e.path().filename() != "CACHEDIR.TAG";
  EXPECT_EQ(files, 0u);
}

}  // namespace
}  // namespace ema
