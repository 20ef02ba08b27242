#include "store/schema.hpp"

namespace ema::schema {
namespace {

constexpr migration all[] = {
    {1, R"sql(
CREATE TABLE experiments (
  id            INTEGER PRIMARY KEY,
  created_at    TEXT NOT NULL,
  finished_at   TEXT,
  state         TEXT NOT NULL CHECK (state IN ('running', 'finished', 'interrupted')),
  command_line  TEXT NOT NULL,
  ema_version   TEXT NOT NULL,
  git_commit    TEXT NOT NULL,
  machine_json  TEXT NOT NULL,
  ceilings_json TEXT NOT NULL,
  idle_json     TEXT NOT NULL,
  plan_json     TEXT NOT NULL
);
CREATE TABLE points (
  id               INTEGER PRIMARY KEY,
  experiment_id    INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
  ordinal          INTEGER NOT NULL,
  problem          TEXT NOT NULL,
  variant          TEXT NOT NULL,
  backend          TEXT NOT NULL,
  n                INTEGER NOT NULL,
  params_json      TEXT NOT NULL,
  seed             INTEGER NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'crashed', 'timeout', 'oom', 'unverified', 'skipped')),
  reason           TEXT NOT NULL,
  verified         INTEGER NOT NULL,
  result_json      TEXT NOT NULL,
  notes_json       TEXT NOT NULL,
  unavailable_json TEXT NOT NULL,
  started_at       TEXT NOT NULL,
  finished_at      TEXT NOT NULL,
  UNIQUE (experiment_id, ordinal)
);
CREATE INDEX points_by_variant ON points(problem, variant, n);
CREATE TABLE samples (
  point_id INTEGER NOT NULL REFERENCES points(id) ON DELETE CASCADE,
  metric   TEXT NOT NULL,
  rep      INTEGER NOT NULL,
  value    REAL NOT NULL,
  PRIMARY KEY (point_id, metric, rep)
) WITHOUT ROWID;
CREATE TABLE metrics (
  name        TEXT PRIMARY KEY,
  unit        TEXT NOT NULL,
  description TEXT NOT NULL
);
CREATE TABLE probes (
  id            INTEGER PRIMARY KEY,
  created_at    TEXT NOT NULL,
  machine_key   TEXT NOT NULL,
  machine_json  TEXT NOT NULL,
  ceilings_json TEXT NOT NULL
);
)sql"},
    {2, R"sql(
ALTER TABLE points ADD COLUMN instance INTEGER NOT NULL DEFAULT 0;
)sql"},
};

}  // namespace

std::span<const migration> migrations() { return all; }

}  // namespace ema::schema
