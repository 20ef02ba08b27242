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
  return hash_text(
      fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}", p.problem, p.variant, p.n, p.params.canonical_json(), p.seed, p.instance, p.phase));
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
  int points = 0;             ///< stored
  bool carried_whole = true;  ///< every point it holds is in the new experiment (the kept copy, or the same measurement)
};

plan read_plan(const source& s, const nlohmann::json& j) {
  try {
    return plan::from_json(j);
  } catch (const database_error& x) {
    throw database_error(fmt::format("{}: {}", s.from, x.what()));
  }
}

// The number of points of the whole fixed plan `p` is a part of: its recorded size, or (a plan
// stored whole, by shards and merges made before) its points without a phase.
int whole_size_of(const plan& p) {
  if (const int whole = p.whole_size()) return whole;
  return static_cast<int>(std::count_if(p.points.begin(), p.points.end(), [](const plan_point& pt) { return pt.phase.empty(); }));
}

// The merged plan as the inputs are read: the points of the whole plan each input holds, each at
// its ordinal in the whole plan (a shard that left no database leaves a gap), then every point
// added later (a calibrated track's sizes, a tie-breaker) once, numbered from the plan's size in the
// order read. A point added later is known by its identity, through a hash checked against the
// point itself. Its memory is the merged plan's, whatever the number of inputs.
struct plan_union {
  plan merged;
  bool started = false;
  std::string digest, first;       ///< the plan's, and the input that gave it
  int size = 0;                    ///< the whole plan's points
  std::map<int, plan_point> base;  ///< by ordinal
  std::vector<plan_point> later;
  std::unordered_multimap<std::uint64_t, std::size_t> later_by_hash;  ///< into `later`
  std::unordered_multimap<std::uint64_t, int> by_hash;                ///< once finished: into merged.points
  std::set<std::tuple<std::string, std::string, std::string>> tracks_seen;

  /// The place in merged.points of a point of an input, once finished.
  std::optional<int> find(const plan_point& pt) const {
    const auto [lo, hi] = by_hash.equal_range(identity_hash(pt));
    for (auto it = lo; it != hi; ++it)
      if (identity_of(merged.points[static_cast<std::size_t>(it->second)]) == identity_of(pt)) return it->second;
    return std::nullopt;
  }

  void add(const plan& p, const std::string& from, const std::string& plan_digest) {
    if (started && plan_digest != digest)
      throw usage_error(
          fmt::format("{} and {} are of different plans: their problems, variants, sizes, parameters, seed or repetition "
                      "settings differ. ema merge joins the shards of one `ema run`",
                      first, from));
    const int whole = whole_size_of(p);
    if (!started) {
      started = true;
      digest = plan_digest;
      first = from;
      size = whole;
      merged = p;
      merged.points.clear();
      merged.shard.reset();
      merged.merged.reset();
      if (merged.calibrated) merged.calibrated->tracks.clear();
    } else if (whole != size) {
      throw database_error(
          fmt::format("{}: its plan has {} points where another input's has {}, with the same digest; the database was "
                      "changed by hand or is damaged",
                      from, whole, size));
    }
    for (const auto& pt : p.points) {
      if (pt.phase.empty()) {
        if (pt.ordinal < 0 || pt.ordinal >= size)
          throw database_error(
              fmt::format("{}: point {} is beyond its plan's {}; the database was changed by hand or is damaged", from, pt.ordinal, size));
        const auto [it, added] = base.emplace(pt.ordinal, pt);
        if (!added && identity_of(it->second) != identity_of(pt))
          throw database_error(
              fmt::format("{}: point {} is {} where another input's is {}, with the same plan digest; the database was "
                          "changed by hand or is damaged",
                          from, pt.ordinal, describe(pt), describe(it->second)));
        continue;
      }
      const auto h = identity_hash(pt);
      const auto [lo, hi] = later_by_hash.equal_range(h);
      if (std::none_of(lo, hi, [&](const auto& kv) { return identity_of(later[kv.second]) == identity_of(pt); })) {
        later_by_hash.emplace(h, later.size());
        later.push_back(pt);
      }
    }
    if (p.calibrated && merged.calibrated)
      for (const auto& t : p.calibrated->tracks)
        if (tracks_seen.insert({t.problem, t.variant, t.params.canonical_json()}).second) merged.calibrated->tracks.push_back(t);
  }

  /// Lays out merged.points: the plan's own points by ordinal, those added later after them.
  void finish() {
    merged.points.reserve(base.size() + later.size());
    for (auto& [ordinal, pt] : base) merged.points.push_back(std::move(pt));
    base.clear();
    int next = size;
    for (auto& pt : later) {
      pt.ordinal = next++;
      merged.points.push_back(std::move(pt));
    }
    later.clear();
    later_by_hash.clear();
    for (std::size_t i = 0; i < merged.points.size(); ++i) by_hash.emplace(identity_hash(merged.points[i]), static_cast<int>(i));
  }

  /// The whole plan's points no input holds (the parts of shards that left no database).
  int unheld() const {
    return size -
           static_cast<int>(std::count_if(merged.points.begin(), merged.points.end(), [&](const plan_point& pt) { return pt.ordinal < size; }));
  }
};

// Reads the experiments of one database (or its experiment `only`) into `out`, their plans into `u`.
void read_sources(database& db, const std::string& path, std::optional<std::int64_t> only, bool earlier_merges_of, const std::string& digest_wanted,
                  plan_union& u, std::vector<source>& out) {
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
    u.add(p, s.from, s.digest);
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

namespace {

/// What a merge reads before it writes: the inputs and the earlier merges of the plan in the
/// output, every point of them placed in the union of their plans.
struct merge_sources {
  plan_union u;
  std::vector<source> shards, earlier;
  std::vector<source*> order;  ///< the earlier merges first: their copy of a point is kept
  int shard_count = 0;
  const shard_spec* split_by = nullptr;
  bool output_exists = false;
};

/// The inputs as given (`FILE` or `FILE:ID`), none of them the output or one of its files.
std::vector<input_spec> parse_inputs(const std::string& output, const std::vector<std::string>& inputs) {
  if (output.empty()) throw usage_error("the output path is empty; give the database to merge into");
  if (inputs.empty()) throw usage_error("ema merge needs at least one database to merge");
  std::vector<input_spec> specs;
  for (const auto& in : inputs) {
    specs.push_back(parse_input(in));
    const auto& path = specs.back().path;
    if (names_the_database(path, output) || names_the_database(output, path))
      throw usage_error(
          fmt::format("{} is both the output and an input ({}), or one of its files (its journal); merge into a new database", output, in));
  }
  return specs;
}

/// Reads and checks everything first: the inputs (shards of one split), then the earlier merges
/// of this plan in the output.
void read_all(merge_sources& m, const std::vector<input_spec>& specs, const std::string& output) {
  for (const auto& spec : specs) {
    auto db = database::open_read(spec.path);
    const auto before = m.shards.size();
    read_sources(db, spec.path, spec.experiment, false, "", m.u, m.shards);
    if (m.shards.size() == before) throw usage_error(fmt::format("{} holds no experiment to merge", spec.path));
  }
  for (const auto& s : m.shards)
    if (s.shard) {
      if (m.split_by && m.split_by->basis != s.shard->basis)
        throw usage_error(fmt::format("{} was split by {}, another shard by {}: their parts overlap; give every task the same --costs-from", s.from,
                                      s.shard->basis, m.split_by->basis));
      m.split_by = &*s.shard;
      if (m.shard_count && m.shard_count != s.shard->count)
        throw usage_error(fmt::format("{} is a shard of {} parts, another input of {}", s.from, s.shard->count, m.shard_count));
      m.shard_count = s.shard->count;
    }
  std::error_code ec;
  const auto st = fs::status(output, ec);
  if (fs::exists(st) && !fs::is_regular_file(st)) throw database_error(fmt::format("{} is not a regular file; give a database file", output));
  m.output_exists = fs::is_regular_file(st) && fs::file_size(output, ec) > 0;
  if (m.output_exists) {  // an earlier merge of this plan there is read first: every point it holds stays
    auto db = database::open_read(output);
    read_sources(db, output, std::nullopt, true, m.shards.front().digest, m.u, m.earlier);
  }
  m.u.finish();
  for (auto& s : m.earlier) m.order.push_back(&s);
  for (auto& s : m.shards) m.order.push_back(&s);
}

/// The merged experiment's record: the earliest creation, the first source's build and machine,
/// every kind of machine the sources ran on, and the merged plan.
experiment_record merged_record(merge_sources& m, const std::string& command_line, merge_result& result) {
  std::map<std::string, nlohmann::json> machines;
  for (const auto* s : m.order) {
    const auto key = machine_kind(s->e.machine);
    if (!machines.count(key)) machines[key] = {{"machine", s->e.machine}, {"ceilings", s->e.ceilings}};
  }
  result.machines = static_cast<int>(machines.size());
  const auto& head = m.order.front()->e;
  experiment_record e;
  e.created_at = head.created_at;
  for (const auto* s : m.order) e.created_at = std::min(e.created_at, s->e.created_at);
  e.state = "running";
  e.command_line = command_line;
  e.ema_version = head.ema_version;
  e.git_commit = head.git_commit;
  e.machine = head.machine;
  e.machine.erase("machines");
  if (machines.size() > 1) {
    e.machine["machines"] = nlohmann::json::object();
    for (const auto& [key, machine] : machines) e.machine["machines"][key] = machine;
  }
  e.ceilings = head.ceilings;
  e.idle_power = head.idle_power;
  plan& merged = m.u.merged;
  merged.merged = merge_spec{m.shards.front().digest, plan_digest(merged), m.shard_count, merged.calibrated ? 0 : m.u.size};
  e.plan = merged.to_json();
  return e;
}

/// Which source's copy of each merged point was kept, and its measurement's fingerprint.
struct kept_copies {
  std::vector<int> by;  ///< the source (index into order), -1: none
  std::vector<std::uint64_t> print;
};

/// Copies one source's points into the merged experiment: each once, the first copy kept (a later
/// different one named in result.dropped), its notes saying where it came from.
void copy_source(merge_sources& m, std::size_t k, database& out, kept_copies& kept, merge_result& result) {
  auto& s = *m.order[k];
  const plan& merged = m.u.merged;
  std::optional<database> own;
  if (!s.earlier_merge) own.emplace(database::open_read(s.path));
  database& db = s.earlier_merge ? out : *own;  // the output through the writer's own connection
  const auto stored = db.experiment(s.id);
  if (!stored) throw database_error(fmt::format("{} is gone: it changed while the merge read it", s.from));
  const auto p = read_plan(s, stored->plan);
  std::vector<int> to(p.points.size());  // each of its points' place in the merged plan
  for (std::size_t i = 0; i < p.points.size(); ++i) {
    const auto at = m.u.find(p.points[i]);
    if (!at) throw database_error(fmt::format("{} changed while the merge read it; merge again", s.from));
    to[i] = *at;
  }
  for (auto& r : db.points(s.id)) {
    // Its points are in the order of their ordinals (plan::from_json checks it).
    const auto it = std::lower_bound(p.points.begin(), p.points.end(), r.ordinal, [](const plan_point& pt, int o) { return pt.ordinal < o; });
    if (it == p.points.end() || it->ordinal != r.ordinal)
      throw database_error(
          fmt::format("{}: point {} is not in its experiment's plan; the database was changed by hand or is damaged", s.from, r.ordinal));
    const auto& pt = *it;
    if (r.problem != pt.problem || r.variant != pt.variant || r.n != pt.n)
      throw database_error(fmt::format("{}: point {} is {} {} n={} where its plan says {}; the database was changed by hand or is damaged", s.from,
                                       r.ordinal, valid_utf8(r.problem), valid_utf8(r.variant), r.n, describe(pt)));
    const auto target = static_cast<std::size_t>(to[static_cast<std::size_t>(it - p.points.begin())]);
    const auto fingerprint = measurement_print(r);
    if (const int held = kept.by[target]; held >= 0) {
      const auto& keeper = *m.order[static_cast<std::size_t>(held)];
      const bool same = kept.print[target] == fingerprint;
      if (!(same && (keeper.earlier_merge || s.earlier_merge)))
        result.dropped.push_back(
            fmt::format("{} ({}): in {} and {}; kept {}'s", describe(pt), to_string(r.status), keeper.from, s.from, keeper.from));
      if (!same) s.carried_whole = false;
      continue;
    }
    kept.by[target] = static_cast<int>(k);
    kept.print[target] = fingerprint;
    auto notes = nlohmann::json::parse(r.notes_json, nullptr, false);
    if (!notes.is_object()) notes = nlohmann::json::object();
    if (!notes.contains("merged_from")) notes["merged_from"] = s.from;
    if (!notes.contains("machine")) notes["machine"] = machine_kind(s.e.machine);
    if (s.shard && !notes.contains("shard")) notes["shard"] = fmt::format("{}/{}", s.shard->index, s.shard->count);
    r.notes_json = notes.dump();
    r.ordinal = merged.points[target].ordinal;
    r.experiment_id = result.experiment;
    out.record_point(r);
    ++result.points;
  }
}

/// Each point of the whole plan's shard (-1: none recorded): a fixed plan's points belong to the
/// shard that holds them; a shard that left no database owns the rest, recomputed where the plan is
/// held whole and the split was the work model's.
std::vector<int> shard_owners(const merge_sources& m, const std::vector<int>& absent) {
  std::vector<int> owner;  // by ordinal of the whole plan
  const plan& merged = m.u.merged;
  if (!m.shard_count || merged.calibrated) return owner;
  owner.assign(static_cast<std::size_t>(m.u.size), -1);
  for (const auto& s : m.shards)
    if (s.shard)
      for (const int o : s.shard->ordinals) {
        if (o < 0 || o >= m.u.size)
          throw database_error(
              fmt::format("{}: its shard holds point {}, beyond the plan's {}; the database was changed by hand or is "
                          "damaged",
                          s.from, o, m.u.size));
        owner[static_cast<std::size_t>(o)] = s.shard->index;
      }
  if (!absent.empty() && m.split_by->basis == "work model" && !m.u.unheld()) {
    plan base = merged;  // the plan the shards split: its points without a phase, which come first
    base.points.resize(static_cast<std::size_t>(m.u.size));
    const auto computed = split_points(base, m.shard_count);
    for (std::size_t i = 0; i < owner.size(); ++i)
      if (owner[i] < 0) owner[i] = computed[i];
  }
  return owner;
}

/// What no input recorded, by shard (else "one of the absent shards"). A calibrated shard's points
/// are its own, so one that left no database is missing whole.
void count_missing(const merge_sources& m, const kept_copies& kept, merge_result& result) {
  std::set<int> missing_shards, present;
  int tracks = 0;
  for (const auto& s : m.shards)
    if (s.shard) present.insert(s.shard->index), tracks = s.shard->tracks;
  std::vector<int> absent;
  for (int i = 0; i < m.shard_count; ++i)
    if (!present.count(i)) absent.push_back(i);
  const auto owner = shard_owners(m, absent);
  const int unheld = m.u.unheld();
  const plan& merged = m.u.merged;
  result.missing = unheld;
  result.unheld = unheld;
  if (unheld) missing_shards.insert(absent.begin(), absent.end());
  for (std::size_t i = 0; i < merged.points.size(); ++i) {
    if (kept.by[i] >= 0) continue;
    ++result.missing;
    const auto ordinal = static_cast<std::size_t>(merged.points[i].ordinal);
    if (ordinal >= owner.size()) continue;  // not a shard's, or added later
    if (const int shard = owner[ordinal]; shard >= 0)
      missing_shards.insert(shard);
    else
      missing_shards.insert(absent.begin(), absent.end());
  }
  if (m.shard_count && merged.calibrated)
    for (const int i : absent)
      if (i < tracks) missing_shards.insert(i);
  result.missing_shards.assign(missing_shards.begin(), missing_shards.end());
}

}  // namespace

merge_result merge_shards(const std::string& output, const std::vector<std::string>& inputs, const std::string& command_line) {
  const auto specs = parse_inputs(output, inputs);
  merge_sources m;
  read_all(m, specs, output);
  merge_result result;
  result.shard_count = m.shard_count;

  // Write: one new experiment, every point once, in one transaction.
  merge_target target(output, m.output_exists);
  std::vector<experiment_claim> claims;  // no resume of an earlier merge may add points while it is replaced
  for (const auto& s : m.earlier) claims.push_back(experiment_claim::take(output, s.id));
  auto& out = *target.db;
  database::batch batch(out);
  result.experiment = out.create_experiment(merged_record(m, command_line, result));
  kept_copies kept{std::vector<int>(m.u.merged.points.size(), -1), std::vector<std::uint64_t>(m.u.merged.points.size())};
  for (std::size_t k = 0; k < m.order.size(); ++k) copy_source(m, k, out, kept, result);
  count_missing(m, kept, result);

  // The earlier merges: replaced where the new experiment holds all they held.
  for (const auto& s : m.earlier) {
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
