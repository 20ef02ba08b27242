#include "runner/merge.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <set>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>
#include <unordered_map>

#include "core/errors.hpp"
#include "core/files.hpp"
#include "core/text.hpp"
#include "inputs/random.hpp"
#include "measure/machine.hpp"
#include "runner/plan.hpp"
#include "runner/shard.hpp"
#include "store/database.hpp"

namespace ema {
namespace {

namespace fs = std::filesystem;

using identity = std::tuple<const std::string&, const std::string&, std::uint64_t, std::string, std::uint64_t, int, const std::string&>;

identity identity_of(const plan_point& p) { return {p.problem, p.variant, p.n, p.params.canonical_json(), p.seed, p.instance, p.phase}; }

std::uint64_t identity_hash(const plan_point& p) {
  return hash_text(fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}", p.problem, p.variant, p.n, p.params.canonical_json(), p.seed,
                               p.instance, p.phase));
}

std::string describe(const plan_point& p) {
  return fmt::format("{} {} n={}{}{}", p.problem, p.variant, p.n, p.params.canonical_json() == "{}" ? "" : " " + p.params.canonical_json(),
                     p.instance ? fmt::format(" #{}", p.instance) : "");
}

// The same measurement: its times, status and every sample bit for bit.
std::uint64_t measurement_print(const point_record& r) {
  std::uint64_t h = mix64(hash_text(r.started_at) ^ mix64(hash_text(r.finished_at) ^ static_cast<std::uint64_t>(r.status)));
  for (const auto& [metric, values] : r.samples) {
    h = mix64(h ^ hash_text(metric));
    for (const double v : values) h = mix64(h ^ std::bit_cast<std::uint64_t>(v));
  }
  return h;
}

// DB or DB:N (its experiment N), a file of that exact name taking precedence.
struct input_spec {
  std::string path;
  std::optional<std::int64_t> experiment;
};

input_spec parse_input(const std::string& text) {
  if (text.empty()) throw usage_error("an input path is empty; give the shards' databases");
  std::error_code ec;
  const auto colon = text.rfind(':');
  if (!fs::exists(text, ec) && colon != std::string::npos && colon > 0 && colon + 1 < text.size() && text.size() - colon <= 10 &&
      text.find_first_not_of("0123456789", colon + 1) == std::string::npos && fs::exists(text.substr(0, colon), ec))
    return {text.substr(0, colon), std::stoll(text.substr(colon + 1))};
  return {text, std::nullopt};
}

// One experiment read for the merge; its plan is read again when its points are copied, so that
// only one input's plan is held at a time.
struct source {
  std::string path, from;
  std::int64_t id = 0;
  bool earlier_merge = false;  ///< a merge of this plan in the output, read first
  experiment_record e;         ///< without its plan
  std::string digest;
  std::optional<shard_spec> shard;
  int points = 0;           ///< stored
  bool carried_whole = true;  ///< every point it holds is in the new experiment (the kept copy, or the same measurement)
};

plan read_plan(const source& s, const nlohmann::json& j) {
  try {
    return plan::from_json(j);
  } catch (const database_error& x) {
    throw database_error(fmt::format("{}: {}", s.from, x.what()));
  }
}

// The merged plan as the inputs are read: the first input's, then every point another adds (a
// calibrated track's sizes, a tie-breaker) that it does not hold yet; each point found by its
// identity through a hash, checked against the point itself.
struct plan_union {
  plan merged;
  bool started = false;
  std::unordered_multimap<std::uint64_t, int> by_hash;
  std::set<std::tuple<std::string, std::string, std::string>> tracks_seen;

  std::optional<int> find(const plan_point& pt) const {
    const auto [lo, hi] = by_hash.equal_range(identity_hash(pt));
    for (auto it = lo; it != hi; ++it)
      if (identity_of(merged.points[static_cast<std::size_t>(it->second)]) == identity_of(pt)) return it->second;
    return std::nullopt;
  }

  void add(const plan& p) {
    if (!started) {
      started = true;
      merged = p;
      merged.shard.reset();
      merged.merged.reset();
      if (merged.calibrated) merged.calibrated->tracks.clear();
      for (const auto& pt : merged.points) by_hash.emplace(identity_hash(pt), pt.ordinal);
    } else {
      for (const auto& pt : p.points)
        if (!find(pt)) {
          plan_point copy = pt;
          copy.ordinal = static_cast<int>(merged.points.size());
          by_hash.emplace(identity_hash(copy), copy.ordinal);
          merged.points.push_back(std::move(copy));
        }
    }
    if (p.calibrated && merged.calibrated)
      for (const auto& t : p.calibrated->tracks)
        if (tracks_seen.insert({t.problem, t.variant, t.params.canonical_json()}).second) merged.calibrated->tracks.push_back(t);
  }
};

// Reads the experiments of one database (or its experiment `only`) into `out`, their plans into `u`.
void read_sources(database& db, const std::string& path, std::optional<std::int64_t> only, bool earlier_merges_of,
                  const std::string& digest_wanted, plan_union& u, std::vector<source>& out) {
  std::vector<experiment_record> experiments;
  if (only) {
    auto e = db.experiment(*only);
    if (!e) throw usage_error(fmt::format("{} has no experiment {}", path, *only));
    experiments.push_back(std::move(*e));
  } else {
    experiments = db.experiments();
  }
  for (auto& e : experiments) {
    source s;
    s.path = path;
    s.id = e.id;
    s.from = fmt::format("{} experiment {}", path, e.id);
    auto p = read_plan(s, e.plan);
    if (earlier_merges_of) {  // the output: only earlier merges of this plan are read
      if (!p.merged || p.merged->digest != digest_wanted) continue;
      s.earlier_merge = true;
    } else if (p.external) {
      throw usage_error(fmt::format("{}: an `ema exec` experiment; ema merge joins `ema run` shards", s.from));
    }
    try {
      s.digest = stored_plan_digest(p);
    } catch (const database_error& x) {
      throw database_error(fmt::format("{}: {}", s.from, x.what()));
    }
    s.shard = p.shard;
    s.points = static_cast<int>(db.recorded_ordinals(e.id).size());
    e.plan = nullptr;
    s.e = std::move(e);
    u.add(p);
    out.push_back(std::move(s));
  }
}

// Where the merge is written: a new file under a temporary name beside the output, published when
// complete; or the existing output, in one transaction.
struct merge_target {
  std::string path, temp;
  std::optional<database> db;

  explicit merge_target(const std::string& output, bool exists) : path(output) {
    if (exists) {
      db.emplace(database::open_write(path));
      return;
    }
    temp = path + ".ema-XXXXXX";
    const int fd = ::mkstemp(temp.data());
    if (fd < 0) {
      const int why = errno;
      temp.clear();
      throw database_error(fmt::format("cannot create database {}: {}", path, std::strerror(why)));
    }
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, 0644 & ~mask);
    ::close(fd);
    db.emplace(database::open_write(temp));
  }
  merge_target(const merge_target&) = delete;
  merge_target& operator=(const merge_target&) = delete;
  ~merge_target() {
    db.reset();
    if (!temp.empty()) ::unlink(temp.c_str()), ::unlink((temp + "-journal").c_str());
  }
  void publish() {
    db.reset();
    if (temp.empty()) return;
    if (!rename_no_replace(temp, path))
      throw database_error(fmt::format("{} appeared while the merge was written (another process made it); merge again", path));
    temp.clear();
  }
};

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
  if (output.empty()) throw usage_error("the output path is empty; give the database to merge into");
  if (inputs.empty()) throw usage_error("ema merge needs at least one database to merge");
  std::vector<input_spec> specs;
  for (const auto& in : inputs) {
    specs.push_back(parse_input(in));
    const auto& path = specs.back().path;
    if (names_the_database(path, output) || names_the_database(output, path))
      throw usage_error(fmt::format("{} is both the output and an input ({}), or one of its files (its journal); merge into a new database",
                                    output, in));
  }

  // Read and check everything first: the inputs, then the earlier merges of this plan in the output.
  plan_union u;
  std::vector<source> shards;
  for (const auto& spec : specs) {
    auto db = database::open_read(spec.path);
    const auto before = shards.size();
    read_sources(db, spec.path, spec.experiment, false, "", u, shards);
    if (shards.size() == before) throw usage_error(fmt::format("{} holds no experiment to merge", spec.path));
  }
  const auto& first = shards.front();
  for (const auto& s : shards)
    if (s.digest != first.digest)
      throw usage_error(fmt::format("{} and {} are of different plans: their problems, variants, sizes, parameters, seed or repetition "
                                    "settings differ. ema merge joins the shards of one `ema run`",
                                    first.from, s.from));
  int shard_count = 0;
  const shard_spec* split_by = nullptr;
  for (const auto& s : shards)
    if (s.shard) {
      if (split_by && split_by->basis != s.shard->basis)
        throw usage_error(fmt::format("{} was split by {}, another shard by {}: their parts overlap; give every task the same --costs-from",
                                      s.from, s.shard->basis, split_by->basis));
      split_by = &*s.shard;
      if (shard_count && shard_count != s.shard->count)
        throw usage_error(fmt::format("{} is a shard of {} parts, another input of {}", s.from, s.shard->count, shard_count));
      shard_count = s.shard->count;
    }
  std::error_code ec;
  const auto st = fs::status(output, ec);
  if (fs::exists(st) && !fs::is_regular_file(st)) throw database_error(fmt::format("{} is not a regular file; give a database file", output));
  const bool exists = fs::is_regular_file(st) && fs::file_size(output, ec) > 0;
  std::vector<source> earlier;
  if (exists) {  // an earlier merge of this plan there is read first: every point it holds stays
    auto db = database::open_read(output);
    read_sources(db, output, std::nullopt, true, first.digest, u, earlier);
  }
  std::vector<source*> order;
  for (auto& s : earlier) order.push_back(&s);
  for (auto& s : shards) order.push_back(&s);
  plan& merged = u.merged;

  // The machines.
  merge_result result;
  result.shard_count = shard_count;
  std::map<std::string, nlohmann::json> machines;
  for (const auto* s : order) {
    const auto key = machine_kind(s->e.machine);
    if (!machines.count(key)) machines[key] = {{"machine", s->e.machine}, {"ceilings", s->e.ceilings}};
  }
  result.machines = static_cast<int>(machines.size());

  // Write: one new experiment, every point once, in one transaction.
  merge_target target(output, exists);
  std::vector<experiment_claim> claims;  // no resume of an earlier merge may add points while it is replaced
  for (const auto& s : earlier) claims.push_back(experiment_claim::take(output, s.id));
  auto& out = *target.db;
  database::batch batch(out);
  const auto& head = order.front()->e;
  experiment_record e;
  e.created_at = head.created_at;
  for (const auto* s : order) e.created_at = std::min(e.created_at, s->e.created_at);
  e.state = "running";
  e.command_line = command_line;
  e.ema_version = head.ema_version;
  e.git_commit = head.git_commit;
  e.machine = head.machine;
  e.machine.erase("machines");
  if (machines.size() > 1) {
    e.machine["machines"] = nlohmann::json::object();
    for (const auto& [key, m] : machines) e.machine["machines"][key] = m;
  }
  e.ceilings = head.ceilings;
  e.idle_power = head.idle_power;
  merged.merged = merge_spec{first.digest, plan_digest(merged), shard_count};
  e.plan = merged.to_json();
  result.experiment = out.create_experiment(e);

  std::vector<int> kept_by(merged.points.size(), -1);  // the source whose copy was kept
  std::vector<std::uint64_t> print(merged.points.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    auto& s = *order[k];
    std::optional<database> own;
    if (!s.earlier_merge) own.emplace(database::open_read(s.path));
    database& db = s.earlier_merge ? out : *own;  // the output through the writer's own connection
    const auto stored = db.experiment(s.id);
    if (!stored) throw database_error(fmt::format("{} is gone: it changed while the merge read it", s.from));
    const auto p = read_plan(s, stored->plan);
    std::vector<int> to(p.points.size());
    for (std::size_t i = 0; i < p.points.size(); ++i) {
      const auto at = u.find(p.points[i]);
      if (!at) throw database_error(fmt::format("{} changed while the merge read it; merge again", s.from));
      to[i] = *at;
    }
    for (auto& r : db.points(s.id)) {
      if (static_cast<std::size_t>(r.ordinal) >= to.size())
        throw database_error(fmt::format("{}: point {} is not in its experiment's plan; the database was changed by hand or is damaged", s.from,
                                         r.ordinal));
      const auto& pt = p.points[static_cast<std::size_t>(r.ordinal)];
      if (r.problem != pt.problem || r.variant != pt.variant || r.n != pt.n)
        throw database_error(fmt::format("{}: point {} is {} {} n={} where its plan says {}; the database was changed by hand or is damaged",
                                         s.from, r.ordinal, valid_utf8(r.problem), valid_utf8(r.variant), r.n, describe(pt)));
      const auto target_ordinal = static_cast<std::size_t>(to[static_cast<std::size_t>(r.ordinal)]);
      const auto fingerprint = measurement_print(r);
      if (const int held = kept_by[target_ordinal]; held >= 0) {
        const auto& keeper = *order[static_cast<std::size_t>(held)];
        const bool same = print[target_ordinal] == fingerprint;
        if (!(same && (keeper.earlier_merge || s.earlier_merge)))
          result.dropped.push_back(fmt::format("{} ({}): in {} and {}; kept {}'s", describe(pt), to_string(r.status), keeper.from, s.from,
                                               keeper.from));
        if (!same) s.carried_whole = false;
        continue;
      }
      kept_by[target_ordinal] = static_cast<int>(k);
      print[target_ordinal] = fingerprint;
      auto notes = nlohmann::json::parse(r.notes_json, nullptr, false);
      if (!notes.is_object()) notes = nlohmann::json::object();
      if (!notes.contains("merged_from")) notes["merged_from"] = s.from;
      if (!notes.contains("machine")) notes["machine"] = machine_kind(s.e.machine);
      if (s.shard && !notes.contains("shard")) notes["shard"] = fmt::format("{}/{}", s.shard->index, s.shard->count);
      r.notes_json = notes.dump();
      r.ordinal = static_cast<int>(target_ordinal);
      r.experiment_id = result.experiment;
      out.record_point(r);
      ++result.points;
    }
  }

  // What no input recorded, by shard: each point of a fixed plan belongs to the shard that
  // recorded it in its part; a shard that left no database owns the rest (recomputed where the
  // split was the work model's; with times, "one of the absent shards"). A calibrated shard's points
  // are its own, so one that left no database is missing whole.
  std::set<int> missing_shards, present;
  int tracks = 0;
  for (const auto& s : shards)
    if (s.shard) present.insert(s.shard->index), tracks = s.shard->tracks;
  std::vector<int> absent;
  for (int i = 0; i < shard_count; ++i)
    if (!present.count(i)) absent.push_back(i);
  std::vector<int> owner;
  if (shard_count && !merged.calibrated) {
    plan base = merged;  // the plan the shards split: its points without a phase, which come first
    base.points.erase(std::find_if(base.points.begin(), base.points.end(), [](const plan_point& pt) { return !pt.phase.empty(); }),
                      base.points.end());
    owner.assign(base.points.size(), -1);
    for (const auto& s : shards)
      if (s.shard)
        for (const int o : s.shard->ordinals) {
          if (o < 0 || static_cast<std::size_t>(o) >= owner.size())
            throw database_error(fmt::format("{}: its shard holds point {}, beyond the plan's {}; the database was changed by hand or is "
                                             "damaged",
                                             s.from, o, owner.size()));
          owner[static_cast<std::size_t>(o)] = s.shard->index;
        }
    if (!absent.empty() && split_by->basis == "work model") {
      const auto computed = split_points(base, shard_count);
      for (std::size_t i = 0; i < owner.size(); ++i)
        if (owner[i] < 0) owner[i] = computed[i];
    }
  }
  for (const auto& pt : merged.points) {
    if (kept_by[static_cast<std::size_t>(pt.ordinal)] >= 0) continue;
    ++result.missing;
    if (static_cast<std::size_t>(pt.ordinal) >= owner.size()) continue;  // not a shard's, or added later
    if (const int shard = owner[static_cast<std::size_t>(pt.ordinal)]; shard >= 0) missing_shards.insert(shard);
    else missing_shards.insert(absent.begin(), absent.end());
  }
  if (shard_count && merged.calibrated)
    for (const int i : absent)
      if (i < tracks) missing_shards.insert(i);
  result.missing_shards.assign(missing_shards.begin(), missing_shards.end());

  // The earlier merges: replaced where the new experiment holds all they held.
  for (const auto& s : earlier) {
    result.earlier.push_back({s.id, s.points, s.carried_whole});
    if (s.carried_whole) out.delete_experiment(s.id);
  }
  const bool incomplete = result.missing > 0 || !result.missing_shards.empty();
  out.set_experiment_state(result.experiment, incomplete ? "interrupted" : "finished");
  batch.commit();
  claims.clear();
  target.publish();
  return result;
}

}  // namespace ema
