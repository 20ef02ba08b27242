// `ema exec`'s points: commands with their placeholders, phase lines, the input cache and its cap,
// and every way a generator or program can fail, each recorded with its reason.
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "runner/external.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

namespace fs = std::filesystem;

TEST(External, ExpandsPlaceholdersAndQuotesTheInput) {
  EXPECT_EQ(expand_command("gen {n} {input} {seed}", 100, 7, "/tmp/a b's"), "gen 100 '/tmp/a b'\\''s' 7");
  EXPECT_EQ(expand_command("awk '{print $1}' {input}", 1, 1, "x"), "awk '{print $1}' 'x'");
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

TEST(External, PhaseLines) {
  std::map<std::string, double> phases;
  EXPECT_EQ(parse_phase_lines("hello\nema-phase read 0.5\nema-phase sort 1e-3\nema-phase read 0.25\n", phases), "");
  EXPECT_DOUBLE_EQ(phases["read"], 0.75);
  EXPECT_DOUBLE_EQ(phases["sort"], 1e-3);
  for (const char* bad : {"ema-phase read", "ema-phase read abc", "ema-phase read -1", "ema-phase total 1",
                          "ema-phase a b 1", "ema-phase read 1 extra", "ema-phases x 1"}) {
    std::map<std::string, double> p;
    EXPECT_NE(parse_phase_lines(std::string("ok\n") + bad + "\n", p).find("malformed phase line 2"), std::string::npos) << bad;
  }
}

TEST(External, CacheDropsTheLeastRecentlyUsedFirst) {
  test::temp_dir dir;
  auto write = [&](const std::string& name, std::size_t bytes, int age) {
    std::ofstream(dir.file(name)) << std::string(bytes, 'x');
    fs::last_write_time(dir.file(name), fs::file_time_type::clock::now() - std::chrono::hours(age));
  };
  write("old", 1000, 3);
  write("mid", 1000, 2);
  write("new", 1000, 1);
  trim_cache(dir.path(), 2000, dir.file("old"));  // "old" is in use: "mid" goes instead
  EXPECT_TRUE(fs::exists(dir.file("old")));
  EXPECT_FALSE(fs::exists(dir.file("mid")));
  EXPECT_TRUE(fs::exists(dir.file("new")));
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
  for (const auto& e : fs::recursive_directory_iterator(f.dir.file("cache"))) files += e.is_regular_file();
  EXPECT_EQ(files, 0u);
}

}  // namespace
}  // namespace ema
