#include "runner/merge.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "core/errors.hpp"
#include "measure/machine.hpp"
#include "runner/plan.hpp"
#include "runner/shard.hpp"
#include "store/database.hpp"

namespace ema {
namespace {

using identity = std::tuple<std::string, std::string, std::uint64_t, std::string, std::uint64_t, int, std::string>;

identity identity_of(const plan_point& p) { return {p.problem, p.variant, p.n, p.params.canonical_json(), p.seed, p.instance, p.phase}; }

std::string describe(const plan_point& p) {
  return fmt::format("{} {} n={}{}{}", p.problem, p.variant, p.n, p.params.canonical_json() == "{}" ? "" : " " + p.params.canonical_json(),
                     p.instance ? fmt::format(" #{}", p.instance) : "");
}

struct source {
  std::string path;
  experiment_record e;
  plan p;
  std::string digest;
  std::vector<point_record> points;
};

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return std::filesystem::exists(a, ec) && std::filesystem::exists(b, ec) && std::filesystem::equivalent(a, b, ec);
}

}  // namespace

std::string array_list(std::vector<int> tasks) {
  std::sort(tasks.begin(), tasks.end());
  tasks.erase(std::unique(tasks.begin(), tasks.end()), tasks.end());
  std::string out;
  for (std::size_t i = 0; i < tasks.size();) {
    std::size_t j = i;
    while (j + 1 < tasks.size() && tasks[j + 1] == tasks[j] + 1) ++j;
    out += fmt::format("{}{}", out.empty() ? "" : ",", j > i ? fmt::format("{}-{}", tasks[i], tasks[j]) : fmt::format("{}", tasks[i]));
    i = j + 1;
  }
  return out;
}

merge_result merge_shards(const std::string& output, const std::vector<std::string>& inputs, const std::string& command_line) {
  if (inputs.empty()) throw usage_error("ema merge needs at least one database to merge");
  for (const auto& in : inputs)
    if (in == output || same_file(in, output))
      throw usage_error(fmt::format("{} is both the output and an input; merge into a new database", output));

  // Read and check everything first.
  std::vector<source> sources;
  for (const auto& path : inputs) {
    auto db = database::open_read(path);
    const auto experiments = db.experiments();
    if (experiments.empty()) throw usage_error(fmt::format("{} holds no experiment to merge", path));
    for (const auto& e : experiments) {
      source s;
      s.path = path;
      s.e = e;
      try {
        s.p = plan::from_json(e.plan);
      } catch (const database_error& x) {
        throw database_error(fmt::format("{}, experiment {}: {}", path, e.id, x.what()));
      }
      if (s.p.external) throw usage_error(fmt::format("{}, experiment {}: an `ema exec` experiment; ema merge joins `ema run` shards", path, e.id));
      s.digest = s.p.shard ? s.p.shard->digest : plan_digest(s.p);
      s.points = db.points(e.id);
      sources.push_back(std::move(s));
    }
  }
  const auto& first = sources.front();
  for (const auto& s : sources)
    if (s.digest != first.digest)
      throw usage_error(fmt::format("{} (experiment {}) and {} (experiment {}) are of different plans: their problems, variants, sizes, "
                                    "parameters, seed or repetition settings differ. ema merge joins the shards of one `ema run`",
                                    first.path, first.e.id, s.path, s.e.id));
  int shard_count = 0;
  const shard_spec* split_by = nullptr;
  for (const auto& s : sources)
    if (s.p.shard) {
      if (split_by && split_by->basis != s.p.shard->basis)
        throw usage_error(fmt::format("{} (experiment {}) was split by {}, another shard by {}: their parts overlap; give every task the same "
                                      "--costs-from",
                                      s.path, s.e.id, s.p.shard->basis, split_by->basis));
      split_by = &*s.p.shard;
      if (shard_count && shard_count != s.p.shard->count)
        throw usage_error(fmt::format("{} (experiment {}) is a shard of {} parts, another input of {}", s.path, s.e.id, s.p.shard->count, shard_count));
      shard_count = s.p.shard->count;
    }

  // The merged plan: the whole plan, then any point an input added (a calibrated track's sizes, a
  // tie-breaker) that it does not hold yet.
  plan merged = first.p;
  merged.shard.reset();
  if (merged.calibrated) merged.calibrated->tracks.clear();
  std::map<identity, int> ordinal_of;
  for (const auto& pt : merged.points) ordinal_of.emplace(identity_of(pt), pt.ordinal);
  std::set<std::tuple<std::string, std::string, std::string>> tracks_seen;
  for (const auto& s : sources) {
    for (const auto& pt : s.p.points)
      if (!ordinal_of.count(identity_of(pt))) {
        plan_point copy = pt;
        copy.ordinal = static_cast<int>(merged.points.size());
        ordinal_of.emplace(identity_of(copy), copy.ordinal);
        merged.points.push_back(std::move(copy));
      }
    if (s.p.calibrated && merged.calibrated)
      for (const auto& t : s.p.calibrated->tracks)
        if (tracks_seen.insert({t.problem, t.variant, t.params.canonical_json()}).second) merged.calibrated->tracks.push_back(t);
  }

  // The machines, and every point once.
  merge_result result;
  result.shard_count = shard_count;
  std::map<std::string, nlohmann::json> machines;
  for (const auto& s : sources) {
    const auto key = machine_kind(s.e.machine);
    if (!machines.count(key)) machines[key] = {{"machine", s.e.machine}, {"ceilings", s.e.ceilings}};
  }
  result.machines = static_cast<int>(machines.size());
  std::map<int, std::pair<point_record, std::string>> kept;  // merged ordinal -> the point, where it came from
  for (const auto& s : sources) {
    const std::string from = fmt::format("{} experiment {}", s.path, s.e.id);
    std::map<int, const plan_point*> by_ordinal;
    for (const auto& pt : s.p.points) by_ordinal[pt.ordinal] = &pt;
    for (const auto& r : s.points) {
      const auto it = by_ordinal.find(r.ordinal);
      if (it == by_ordinal.end())
        throw database_error(fmt::format("{}: point {} is not in its experiment's plan; the database was changed by hand or is damaged", from, r.ordinal));
      const int to = ordinal_of.at(identity_of(*it->second));
      if (auto k = kept.find(to); k != kept.end()) {
        result.dropped.push_back(fmt::format("{} ({}): in {} and {}; kept {}'s", describe(*it->second), to_string(r.status), k->second.second, from,
                                             k->second.second));
        continue;
      }
      point_record copy = r;
      copy.ordinal = to;
      auto notes = nlohmann::json::parse(copy.notes_json, nullptr, false);
      if (!notes.is_object()) notes = nlohmann::json::object();
      notes["merged_from"] = from;
      notes["machine"] = machine_kind(s.e.machine);
      if (s.p.shard) notes["shard"] = fmt::format("{}/{}", s.p.shard->index, s.p.shard->count);
      copy.notes_json = notes.dump();
      kept.emplace(to, std::make_pair(std::move(copy), from));
    }
  }

  // What no input recorded, by shard: each point of a fixed plan belongs to the shard that
  // recorded it in its part; a shard that left no database owns the rest (recomputed where the
  // split was the work model's; with times, "one of the absent shards"). A calibrated shard's points
  // are its own, so one that left no database is missing whole.
  std::set<int> missing_shards, present;
  int tracks = 0;
  for (const auto& s : sources)
    if (s.p.shard) present.insert(s.p.shard->index), tracks = s.p.shard->tracks;
  std::vector<int> absent;
  for (int i = 0; i < shard_count; ++i)
    if (!present.count(i)) absent.push_back(i);
  std::vector<int> owner;
  if (shard_count && !first.p.calibrated) {
    owner.assign(first.p.points.size(), -1);
    for (const auto& s : sources)
      if (s.p.shard)
        for (const int o : s.p.shard->ordinals) owner[static_cast<std::size_t>(o)] = s.p.shard->index;
    if (!absent.empty() && split_by->basis == "work model") {
      const auto computed = split_points(first.p, shard_count);
      for (std::size_t i = 0; i < owner.size(); ++i)
        if (owner[i] < 0) owner[i] = computed[i];
    }
  }
  for (const auto& pt : merged.points) {
    if (kept.count(pt.ordinal)) continue;
    ++result.missing;
    if (static_cast<std::size_t>(pt.ordinal) >= owner.size()) continue;  // not a shard's, or added later
    if (const int shard = owner[static_cast<std::size_t>(pt.ordinal)]; shard >= 0) missing_shards.insert(shard);
    else missing_shards.insert(absent.begin(), absent.end());
  }
  if (shard_count && first.p.calibrated)
    for (const int i : absent)
      if (i < tracks) missing_shards.insert(i);
  result.missing_shards.assign(missing_shards.begin(), missing_shards.end());

  // Write: one new experiment.
  experiment_record e;
  e.created_at = first.e.created_at;
  for (const auto& s : sources) e.created_at = std::min(e.created_at, s.e.created_at);
  e.state = "running";
  e.command_line = command_line;
  e.ema_version = first.e.ema_version;
  e.git_commit = first.e.git_commit;
  e.machine = first.e.machine;
  if (machines.size() > 1) {
    e.machine["machines"] = nlohmann::json::object();
    for (const auto& [key, m] : machines) e.machine["machines"][key] = m;
  }
  e.ceilings = first.e.ceilings;
  e.idle_power = first.e.idle_power;
  e.plan = merged.to_json();
  auto out = database::open_write(output);
  result.experiment = out.create_experiment(e);
  for (auto& [ordinal, entry] : kept) {
    entry.first.experiment_id = result.experiment;
    out.record_point(entry.first);
    ++result.points;
  }
  const bool incomplete = result.missing > 0 || !result.missing_shards.empty();
  out.set_experiment_state(result.experiment, incomplete ? "interrupted" : "finished");
  return result;
}

}  // namespace ema
