// The results database: round trip of experiments, points and samples; the schema and its
// version; and the databases ema must refuse without damaging them.
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sstream>
#include <unistd.h>

#include "core/errors.hpp"
#include "store/database.hpp"
#include "store/remeasured.hpp"
#include "store/schema.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

std::string bytes_of(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

void sql(const std::string& path, const char* text) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, text, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const database_error& e) {
    return e.what();
  }
  return "";
}

point_record sample_point(std::int64_t experiment, int ordinal) {
  point_record p;
  p.experiment_id = experiment;
  p.ordinal = ordinal;
  p.problem = "search";
  p.variant = "seq";
  p.backend = "seq";
  p.n = 1024u << ordinal;
  p.params_json = R"({"hit":"none"})";
  p.seed = 42 + static_cast<unsigned>(ordinal);
  p.status = point_status::ok;
  p.verified = true;
  p.result_json = R"({"index":-1})";
  p.samples["total"] = {1e-3, 2e-3, 1.5e-3};
  p.samples["host_peak_rss"] = {1e6};
  return p;
}

TEST(Database, RoundTrip) {
  test::temp_dir dir;
  auto path = dir.file("r.db");
  std::int64_t id = 0;
  {
    auto db = database::open_write(path);
    experiment_record e;
    e.command_line = "ema run search";
    e.ema_version = "0.1.0";
    e.git_commit = "abc";
    e.machine = {{"host", {{"cpu_model", "test cpu"}}}};
    e.ceilings = {{"host_read_bw_all", {{"value", 1e10}, {"unit", "B/s"}}}};
    e.plan = {{"points", nlohmann::json::array()}};
    id = db.create_experiment(e);
    db.record_point(sample_point(id, 0));
    auto failed = sample_point(id, 1);
    failed.status = point_status::crashed;
    failed.verified = false;
    failed.reason = "killed by signal 11";
    failed.unavailable_json = R"({"energy_cpu":"no powercap"})";
    db.record_point(failed);
    db.set_experiment_state(id, "finished");
  }
  auto db = database::open_read(path);
  auto e = db.experiment(id).value();
  EXPECT_EQ(e.state, "finished");
  EXPECT_FALSE(e.finished_at.empty());
  EXPECT_EQ(e.command_line, "ema run search");
  EXPECT_EQ(e.machine["host"]["cpu_model"], "test cpu");
  EXPECT_DOUBLE_EQ(e.ceilings["host_read_bw_all"]["value"].get<double>(), 1e10);
  auto pts = db.points(id);
  ASSERT_EQ(pts.size(), 2u);
  EXPECT_EQ(pts[0].n, 1024u);
  EXPECT_EQ(pts[0].seed, 42u);
  EXPECT_EQ(pts[0].samples["total"], (std::vector<double>{1e-3, 2e-3, 1.5e-3}));
  EXPECT_EQ(pts[0].samples["host_peak_rss"], (std::vector<double>{1e6}));
  EXPECT_TRUE(pts[0].verified);
  EXPECT_EQ(pts[1].status, point_status::crashed);
  EXPECT_EQ(pts[1].reason, "killed by signal 11");
  EXPECT_EQ(pts[1].unavailable_json, R"({"energy_cpu":"no powercap"})");
  EXPECT_EQ(db.recorded_ordinals(id), (std::set<int>{0, 1}));
  EXPECT_EQ(db.latest_experiment()->id, id);
  EXPECT_FALSE(db.latest_experiment(true).has_value());
}

TEST(Database, APointIsStoredOnceOnly) {
  test::temp_dir dir;
  auto db = database::open_write(dir.file("u.db"));
  auto id = db.create_experiment({});
  db.record_point(sample_point(id, 0));
  EXPECT_THROW(db.record_point(sample_point(id, 0)), database_error);
  EXPECT_EQ(db.points(id).size(), 1u);
}

TEST(Database, SchemaIsVersionedAndMarked) {
  test::temp_dir dir;
  auto path = dir.file("v.db");
  database::open_write(path);
  sqlite3* raw = nullptr;
  sqlite3_open(path.c_str(), &raw);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &s, nullptr);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(s, 0), database::schema_version);
  sqlite3_finalize(s);
  sqlite3_prepare_v2(raw, "PRAGMA application_id", -1, &s, nullptr);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(s, 0), database::application_id);
  sqlite3_finalize(s);
  sqlite3_prepare_v2(raw, "SELECT unit FROM metrics WHERE name = 'total'", -1, &s, nullptr);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)), "s");
  sqlite3_finalize(s);
  sqlite3_close(raw);
  EXPECT_NO_THROW(database::open_write(path));  // reopening migrates nothing and keeps data
}

TEST(Database, SchemaOneMigratesKeepingItsPoints) {
  test::temp_dir dir;
  auto path = dir.file("old.db");
  sql(path, std::string(schema::migrations()[0].sql).c_str());
  sql(path, fmt::format("PRAGMA user_version = 1; PRAGMA application_id = {};", database::application_id).c_str());
  sql(path,
      "INSERT INTO experiments (id, created_at, state, command_line, ema_version, git_commit, machine_json, "
      "ceilings_json, idle_json, plan_json) VALUES (1, 'then', 'finished', 'ema run', '0.1.0', 'abc', '{}', '{}', '{}', '{}');"
      "INSERT INTO points (id, experiment_id, ordinal, problem, variant, backend, n, params_json, seed, status, reason, "
      "verified, result_json, notes_json, unavailable_json, started_at, finished_at) VALUES (1, 1, 0, 'search', 'seq', "
      "'seq', 1024, '{}', 5, 'ok', '', 1, '{}', '{}', '{}', 'a', 'b');"
      "INSERT INTO samples (point_id, metric, rep, value) VALUES (1, 'total', 0, 0.5);");
  auto db = database::open_write(path);
  auto pts = db.points(1);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_EQ(pts[0].instance, 0);
  EXPECT_EQ(pts[0].samples["total"], std::vector<double>{0.5});
  auto p = sample_point(1, 1);
  p.instance = 3;
  db.record_point(p);
  EXPECT_EQ(db.points(1)[1].instance, 3);
  db.set_experiment_plan(1, {{"points", nlohmann::json::array()}, {"budget", 60}});
  EXPECT_EQ(db.experiment(1)->plan["budget"], 60);
}

TEST(Database, ProbesAreKeptPerMachine) {
  test::temp_dir dir;
  auto db = database::open_write(dir.file("p.db"));
  EXPECT_FALSE(db.latest_probe("m1").has_value());
  db.store_probe("m1", {{"host", 1}}, {{"device_read_bw", {{"value", 1.0}}}});
  db.store_probe("m1", {{"host", 1}}, {{"device_read_bw", {{"value", 2.0}}}});
  db.store_probe("m2", {{"host", 2}}, {{"device_read_bw", {{"value", 3.0}}}});
  EXPECT_DOUBLE_EQ((*db.latest_probe("m1"))["ceilings"]["device_read_bw"]["value"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ((*db.latest_probe("m2"))["ceilings"]["device_read_bw"]["value"].get<double>(), 3.0);
}

TEST(Database, ForeignSqliteFileIsRefusedAndUntouched) {
  test::temp_dir dir;
  auto path = dir.file("other.db");
  sql(path, "CREATE TABLE customers (id INTEGER); INSERT INTO customers VALUES (1);");
  auto before = bytes_of(path);
  auto m = error_of([&] { database::open_write(path); });
  EXPECT_NE(m.find("is not an ema database"), std::string::npos) << m;
  EXPECT_NE(error_of([&] { database::open_read(path); }).find("not an ema database"), std::string::npos);
  EXPECT_EQ(bytes_of(path), before);
}

TEST(Database, NonSqliteFileIsRefusedAndUntouched) {
  test::temp_dir dir;
  auto path = dir.file("notes.txt");
  std::ofstream(path) << "these are my notes, not a database\n" << std::string(4096, 'x');
  auto before = bytes_of(path);
  auto m = error_of([&] { database::open_write(path); });
  EXPECT_NE(m.find("not an ema database"), std::string::npos) << m;
  EXPECT_EQ(bytes_of(path), before);
}

TEST(Database, NewerSchemaIsRefused) {
  test::temp_dir dir;
  auto path = dir.file("new.db");
  database::open_write(path);
  sql(path, "PRAGMA user_version = 99");
  auto before = bytes_of(path);
  auto m = error_of([&] { database::open_write(path); });
  EXPECT_NE(m.find("newer ema"), std::string::npos) << m;
  EXPECT_EQ(bytes_of(path), before);
}

TEST(Database, LockedDatabaseSaysSo) {
  test::temp_dir dir;
  auto path = dir.file("l.db");
  database::open_write(path);
  sqlite3* holder = nullptr;
  sqlite3_open(path.c_str(), &holder);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  auto m = error_of([&] { database::open_write(path); });
  EXPECT_NE(m.find("locked by another process"), std::string::npos) << m;
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  EXPECT_NO_THROW(database::open_write(path));
}

TEST(Database, UnwritableLocationsSayWhy) {
  test::temp_dir dir;
  EXPECT_NE(error_of([&] { database::open_write(dir.file("missing/dir/x.db")); }).find("does not exist"), std::string::npos);
  EXPECT_NE(error_of([&] { database::open_write(dir.path()); }).find("is a directory"), std::string::npos);
  EXPECT_NE(error_of([&] { database::open_read(dir.file("absent.db")); }).find("does not exist"), std::string::npos);
  if (geteuid() == 0) GTEST_SKIP() << "root can write read-only files; the permission case needs an ordinary user";
  auto path = dir.file("ro.db");
  database::open_write(path);
  std::filesystem::permissions(path, std::filesystem::perms::owner_read);
  auto before = bytes_of(path);
  EXPECT_NE(error_of([&] { database::open_write(path); }).find("not writable"), std::string::npos);
  EXPECT_EQ(bytes_of(path), before);
}

// One rule for which of a point's measurements is fitted (store/remeasured.hpp): `ema fit`, the
// tables and a calibrated sweep's own last fit all read it, so they agree.
point_record measured(int ordinal, std::uint64_t n, const std::string& notes, point_status status = point_status::ok) {
  point_record r;
  r.ordinal = ordinal;
  r.problem = "search";
  r.variant = "seq";
  r.n = n;
  r.status = status;
  r.notes_json = notes;
  return r;
}

TEST(Remeasured, ABusyMeasurementGivesWayToAQuietOneAndARerunReplacesTheOlder) {
  const std::string busy = R"({"disturbed":"other processes kept 1.9 of the 2 CPUs busy"})";
  const std::vector<point_record> points = {
      measured(0, 1024, busy),                        // growth, busy: a quiet one of n = 1024 exists
      measured(1, 2048, busy),                        // busy, alone at its size: kept
      measured(2, 1024, "{}"),                        // the energy window's, quiet
      measured(3, 4096, "{}"),                        // measured again by --rerun-noisy below
      measured(4, 4096, R"({"rerun":true})"),         //
      measured(5, 8192, busy),                        // both busy: both kept
      measured(6, 8192, busy),                        //
      measured(7, 1024, "{}", point_status::crashed)  // did not run ok: not judged
  };
  std::vector<const point_record*> all;
  for (const auto& p : points) all.push_back(&p);
  const auto why = set_aside_reasons(all);
  ASSERT_EQ(why.size(), points.size());
  EXPECT_NE(why[0].find("the machine was busy while it ran (other processes kept 1.9"), std::string::npos) << why[0];
  EXPECT_EQ(why[1], "");
  EXPECT_EQ(why[2], "");
  EXPECT_EQ(why[3], "measured again by --rerun-noisy (plan point 5)");
  EXPECT_EQ(why[4], "");
  EXPECT_EQ(why[5], "");
  EXPECT_EQ(why[6], "");
  EXPECT_EQ(why[7], "");
  EXPECT_EQ(disturbance_note(nlohmann::json::parse(busy)), "other processes kept 1.9 of the 2 CPUs busy");
  EXPECT_EQ(disturbance_note(nlohmann::json::parse(R"({"disturbed":true})")), "the machine was busy");
  EXPECT_FALSE(disturbance_note(nlohmann::json::parse("[1]")));
}

TEST(Remeasured, OfAPointsRoundsTheQuickestIsKept) {
  auto timed = [](int ordinal, std::uint64_t n, const std::string& notes, std::vector<double> total) {
    auto r = measured(ordinal, n, notes);
    r.samples["total"] = std::move(total);
    return r;
  };
  const std::string busy = R"({"disturbed":"other processes kept 1.9 of the 2 CPUs busy"})";
  const std::vector<point_record> points = {
      timed(0, 1024, "{}", {2.0, 2.1, 1.9}),                                      // round 1: slower than round 3
      timed(1, 2048, "{}", {1.0, 1.0}),                                           // round 1 quickest of its rounds
      timed(2, 1024, R"({"round":2})", {3.0, 3.0, 3.0}),                          //
      timed(3, 2048, R"({"round":2})", {1.5, 1.6}),                               //
      timed(4, 1024, R"({"round":3})", {1.2, 1.1, 1.3, 5}),                       // the quickest (median 1.25)
      timed(5, 2048, R"({"round":3})", {}),                                       // no total time: not judged
      timed(6, 4096, "{}", {0.5}),                                                // round 1 ran alone: kept
      timed(7, 8192, "{}", {4.0}),                                                // the quick round was disturbed: the
      timed(8, 8192, busy.substr(0, busy.size() - 1) + R"(,"round":2})", {1.0}),  // quiet one stays
      timed(9, 4096, "{}", {0.1}),                                                // no round note: not rounds, both kept
  };
  std::vector<const point_record*> all;
  for (const auto& p : points) all.push_back(&p);
  const auto why = set_aside_reasons(all);
  ASSERT_EQ(why.size(), points.size());
  EXPECT_EQ(why[0],
            "round 3 of this point took less time (median total 1.25 s against 2 s here): of a point's rounds the quickest is kept (--rounds)");
  EXPECT_EQ(why[1], "");
  EXPECT_NE(why[2].find("round 3 of this point took less time (median total 1.25 s against 3 s here)"), std::string::npos) << why[2];
  EXPECT_NE(why[3].find("round 1 of this point took less time (median total 1 s against 1.55 s here)"), std::string::npos) << why[3];
  EXPECT_EQ(why[4], "");
  EXPECT_EQ(why[5], "");
  EXPECT_EQ(why[6], "");
  EXPECT_EQ(why[7], "");
  EXPECT_NE(why[8].find("the machine was busy while it ran"), std::string::npos) << why[8];
  EXPECT_EQ(why[9], "");
}

}  // namespace
}  // namespace ema
