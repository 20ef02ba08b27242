#include "runner/plan.hpp"

#include "core/format.hpp"
#include "measure/memory.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>
#include <span>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "measure/gpu.hpp"
#include "measure/machine.hpp"
#include "core/axes.hpp"
#include "core/sizes.hpp"
#include "inputs/random.hpp"
#include "measure/stats.hpp"

namespace ema {
namespace {

nlohmann::json params_object(const param_set& p) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : p.values()) j[k] = v;
  return j;
}

param_set params_from_object(const nlohmann::json& j) {
  param_map m;
  for (const auto& [k, v] : j.items()) m[k] = v.get<std::string>();
  return param_set::from_map(std::move(m));
}

}  // namespace

std::uint64_t point_seed(std::uint64_t base, const std::string& problem, std::uint64_t n, const param_set& params, int instance) {
  // Only the parameters that shape the input: a tuning parameter or a launch setting changes how a
  // variant runs, not what it runs on, so every value of such an axis gets the same input.
  param_map shaping = params.values();
  std::erase_if(shaping, [](const auto& kv) { return kv.first.starts_with("launch."); });
  if (const auto* desc = lookup_problem(problem))
    for (const auto& spec : desc->params)
      if (spec.tuning) shaping.erase(spec.name);
  const auto text = param_set::from_map(std::move(shaping)).canonical_json();
  const auto seed = mix64(mix64(base) ^ hash_text(problem) ^ mix64(n) ^ hash_text(text)) >> 1;
  return instance == 0 ? seed : mix64(seed ^ mix64(static_cast<std::uint64_t>(instance))) >> 1;
}

bool repetition_policy::satisfied(const std::vector<double>& totals, double elapsed) const {
  const int k = static_cast<int>(totals.size());
  if (fixed) return k >= *fixed;
  if (k >= max_reps) return true;
  if (k < min_reps) return false;
  if (elapsed >= max_time) return true;
  return elapsed >= min_time && median_rse(totals) <= target_rse;
}

nlohmann::json repetition_policy::to_json() const {
  nlohmann::json j = {{"warmup", warmup},         {"min_reps", min_reps}, {"max_reps", max_reps},
                      {"target_rse", target_rse}, {"min_time", min_time}, {"max_time", max_time}};
  if (fixed) j["fixed"] = *fixed;
  return j;
}

repetition_policy repetition_policy::from_json(const nlohmann::json& j) {
  repetition_policy p;
  p.warmup = j.value("warmup", p.warmup);
  p.min_reps = j.value("min_reps", p.min_reps);
  p.max_reps = j.value("max_reps", p.max_reps);
  p.target_rse = j.value("target_rse", p.target_rse);
  p.min_time = j.value("min_time", p.min_time);
  p.max_time = j.value("max_time", p.max_time);
  if (j.contains("fixed")) p.fixed = j.at("fixed").get<int>();
  return p;
}

void plan::add(const std::string& problem, const std::string& variant, std::uint64_t n, const param_set& params, const std::string& phase) {
  for (int k = 0; k < instances; ++k) {
    plan_point pt;
    pt.ordinal = std::max(points.empty() ? 0 : points.back().ordinal + 1, whole_size());
    pt.problem = problem;
    pt.variant = variant;
    pt.n = n;
    pt.params = params;
    pt.seed = point_seed(seed, problem, n, params, k);
    pt.instance = k;
    pt.phase = phase;
    points.push_back(std::move(pt));
  }
}

void check_sweep_shape(const plan_request& r) {
  if (r.instances < 1 || r.instances > max_instances)
    throw usage_error(fmt::format("--instances must be between 1 and {}, got {}", max_instances, r.instances));
  if (r.budget && r.sizes) throw usage_error("give either --budget (sizes chosen by calibration) or --sizes, not both");
  if (r.rounds < 1 || r.rounds > max_rounds) throw usage_error(fmt::format("--rounds must be between 1 and {}, got {}", max_rounds, r.rounds));
  if (r.budget && r.rounds > 1)
    throw usage_error("--rounds measures a fixed plan's points again; a calibrated sweep (--budget) settles its own verdicts: give one of them");
  if (!r.budget && (r.start || r.max_size)) throw usage_error("--start and --max-size shape a calibrated sweep; give --budget");
  if (!r.budget && r.settle_share) throw usage_error("--settle-share shapes a calibrated sweep; give --budget");
  if (r.start && *r.start < 1) throw usage_error("--start must be at least 1");
  if (r.max_size && *r.max_size < 1) throw usage_error("--max-size must be at least 1");
  if (r.start && r.max_size && *r.start > *r.max_size)
    throw usage_error(fmt::format("--start {} is larger than --max-size {}", *r.start, *r.max_size));
  if (r.weak && r.sizes) throw usage_error("give either --weak (the sizes at the smallest processor count, grown with it) or --sizes, not both");
  if (r.weak && r.budget) throw usage_error("--weak plans its own sizes from the processor counts; give no --budget with it");
}

std::uint64_t weak_size(const problem_desc& p, const param_set& params, std::uint64_t n0, double scale) {
  if (!(scale >= 1) || !std::isfinite(scale)) throw usage_error(fmt::format("weak scaling: a processor ratio of {} (must be at least 1)", scale));
  const double limit = p.max_size ? static_cast<double>(p.max_size) : 1.8e19;
  auto too_large = [&] {
    return usage_error(
        fmt::format("--weak {}: at {:g} times the processors of the smallest count, {}'s size would pass the largest it "
                    "can represent ({})",
                    n0, scale, p.name, p.max_size ? fmt::format("{}", p.max_size) : std::string("2^64")));
  };
  if (scale == 1) return n0;
  // The problem's work: its operations (its bytes where it counts none); without a work model, n itself.
  auto work = [&](double n) -> double {
    if (!p.work) return n;
    const auto w = p.work(static_cast<std::uint64_t>(n), params);
    return w.ops > 0 ? w.ops : w.bytes;
  };
  const double target = scale * work(static_cast<double>(n0));
  if (!(target > 0) || !std::isfinite(target)) return static_cast<std::uint64_t>(std::llround(static_cast<double>(n0) * scale));
  // The work grows with n: bracket the size (doubling, never past the largest size), then halve
  // the bracket.
  double lo = static_cast<double>(n0), hi = lo;
  while (work(hi) < target) {
    if (hi >= limit) throw too_large();
    lo = hi;
    hi = std::min(hi * 2, limit);
  }
  while (hi - lo > 1) {
    const double mid = std::floor((lo + hi) / 2);
    (work(mid) < target ? lo : hi) = mid;
  }
  const double n = std::abs(work(lo) - target) <= std::abs(work(hi) - target) ? lo : hi;
  if (n > limit) throw too_large();
  return static_cast<std::uint64_t>(n);
}

namespace {

/// The problems a request names (or all of them), each once.
std::vector<const problem_desc*> chosen_problems(const plan_request& r) {
  if (r.all) return problems();
  if (r.problems.empty()) throw usage_error("name a problem or give --all (see `ema list`)");
  std::vector<const problem_desc*> chosen;
  for (const auto& name : r.problems) {
    const auto* p = &find_problem(name);
    if (std::find(chosen.begin(), chosen.end(), p) != chosen.end())
      throw usage_error(fmt::format("problem '{}' is named twice; each runs once", name));
    chosen.push_back(p);
  }
  return chosen;
}

/// What one problem of a plan is given: its share of the request's parameters, as parameter sets
/// (each combination of its axes' values, core/axes.hpp), and the launch overrides for its variants.
struct problem_share {
  std::vector<param_set> sets;
  std::vector<std::string> launch;
};

/// A parameter must belong to at least one chosen problem; with several problems each takes the
/// ones it declares. Those taken are added to `claimed`.
problem_share share_of(const problem_desc& p, const plan_request& r, bool several, std::set<std::string>& claimed) {
  problem_share out;
  std::vector<std::string> mine;
  for (const auto& a : r.params) {
    auto key = a.substr(0, a.find('='));
    if (key.starts_with(launch_prefix)) {  // a variant's launch override: checked once the variants are known
      out.launch.push_back(a);
      continue;
    }
    bool declared = false;
    for (const auto& s : p.params) declared |= key == s.name;
    if (declared || !several) {
      mine.push_back(a);
      claimed.insert(a);
    }
  }
  auto spec_of = [&](std::string_view key) -> const param_spec* {
    for (const auto& s : p.params)
      if (key == s.name) return &s;
    return nullptr;
  };
  const auto axes = group_assignments(
      mine,
      [&](std::string_view k) {
        const auto* s = spec_of(k);
        return !s || (s->kind != param_kind::text && s->kind != param_kind::path && s->kind != param_kind::output);
      },
      [&](std::string_view k) {
        const auto* s = spec_of(k);
        return s && s->kind == param_kind::integer;
      });
  for (const auto& c : combinations(axes, max_plan_points)) out.sets.push_back(param_set::resolve(p.name, p.params, c));
  return out;
}

/// The variants of `p` the request runs: those named (with several problems, those of this one),
/// else every one this machine can run, with a note for each left out.
/// The variants left out because this machine cannot run them, by the reason: "search cuda", ...
using left_out_variants = std::map<std::string, std::vector<std::string>>;

std::vector<const variant_desc*> chosen_variants(const problem_desc& p, const plan_request& r, bool several, std::vector<std::string>& notes,
                                                 left_out_variants& left_out) {
  std::vector<const variant_desc*> vs;
  if (r.variants.empty()) {
    for (const auto* v : variants_of(p.name)) {
      if (auto a = available(v->backend); !a.ok) {
        left_out[a.reason].push_back(fmt::format("{} {}", p.name, v->name));
        continue;
      }
      vs.push_back(v);
    }
    return vs;
  }
  for (const auto& name : r.variants) {
    if (several && !lookup_variant(p.name, name)) continue;
    const auto* v = &find_variant(p.name, name);
    if (name != v->name) notes.push_back(fmt::format("{} {}: now named {} (read as it)", p.name, name, v->name));
    if (std::find(vs.begin(), vs.end(), v) != vs.end())
      throw usage_error(fmt::format("--variants names {} twice (once by its former name)", v->name));
    vs.push_back(v);
  }
  return vs;
}

/// A count of SMs for a CUDA variant's green context: within the launch field's range, at most the
/// device's SMs, and a size the device can split off (at least its smallest partition, a multiple
/// of its granularity, or all of them); usage_error naming the valid counts otherwise, or why green
/// contexts cannot be made here.
void check_sm_count(const std::string& who, const std::string& value) {
  const auto sms = check_launch_value(sm_field, who, value);
  if (gpu::device_count() == 0) return;  // the variant is left out with why (no CUDA device)
  const auto part = gpu::sm_partitions(0);
  if (!part.unavailable.empty())
    throw usage_error(fmt::format("{}: launch.sms={} needs a CUDA green context, which this machine cannot make: {}", who, value, part.unavailable));
  if (sms > part.sm_count) throw usage_error(fmt::format("{}: launch.sms={}: the device has {} SMs", who, value, part.sm_count));
  if (sms != part.sm_count && (sms < part.min_partition || sms % part.alignment != 0))
    throw usage_error(fmt::format("{}: launch.sms={}: the device splits off at least {} SMs, in multiples of {}, or all {}", who, value,
                                  part.min_partition, part.alignment, part.sm_count));
}

/// Launch overrides, axes too, go to the variants that declare the setting, each value checked
/// against its range: each variant's launch axes. Those taken are added to `claimed`.
std::map<const variant_desc*, std::vector<param_axis>> launch_axes_of(const problem_desc& p, std::span<const variant_desc* const> vs,
                                                                      const std::vector<std::string>& launch, bool several,
                                                                      std::set<std::string>& claimed) {
  std::map<const variant_desc*, std::vector<param_axis>> own_axes;
  for (const auto& axis : group_assignments(
           launch, [](std::string_view) { return true; }, [](std::string_view) { return true; })) {
    const std::string field = axis.key.substr(launch_prefix.size());
    bool taken = false;
    std::set<std::string> offered;
    for (const auto* v : vs) {
      for (const auto& f : v->launch) {
        offered.insert(fmt::format("launch.{}", f.name));
        if (field != f.name) continue;
        for (const auto& value : axis.values) check_launch_value(f, fmt::format("{} {}", p.name, v->name), value);
        own_axes[v].push_back(axis);
        taken = true;
      }
      // Every multi-GPU variant's GPUs, up to the devices there are.
      if (v->backend == backend::multi_gpu) {
        offered.insert(fmt::format("launch.{}", gpus_field.name));
        if (field != gpus_field.name) continue;
        auto f = gpus_field;
        if (const int devices = gpu::device_count(); devices > 0) {
          f.max = devices;
          f.help = "GPUs it splits the work over; at most the devices of this machine";
        }
        for (const auto& value : axis.values) check_launch_value(f, fmt::format("{} {}", p.name, v->name), value);
        own_axes[v].push_back(axis);
        taken = true;
        continue;
      }
      // Every single-GPU CUDA variant's SMs, as the device can partition them.
      if (v->backend == backend::cuda) {
        offered.insert(fmt::format("launch.{}", sm_field.name));
        if (field != sm_field.name) continue;
        for (const auto& value : axis.values) check_sm_count(fmt::format("{} {}", p.name, v->name), value);
        own_axes[v].push_back(axis);
        taken = true;
        continue;
      }
      // Every OpenMP variant's thread count, up to the CPUs this process may run on, and their placement.
      if (v->backend != backend::omp) continue;
      offered.insert(fmt::format("launch.{}", openmp_threads_field.name));
      offered.insert(fmt::format("launch.{}", openmp_bind_name));
      if (field == openmp_bind_name) {
        for (const auto& value : axis.values) check_bind_value(fmt::format("{} {}", p.name, v->name), value);
        own_axes[v].push_back(axis);
        taken = true;
        continue;
      }
      if (field != openmp_threads_field.name) continue;
      auto f = openmp_threads_field;
      if (const int cpus = allowed_cpus(); cpus > 0) {
        f.max = cpus;
        f.help = "OpenMP threads it runs on; at most the CPUs this process may run on (its affinity mask)";
      }
      for (const auto& value : axis.values) check_launch_value(f, fmt::format("{} {}", p.name, v->name), value);
      own_axes[v].push_back(axis);
      taken = true;
    }
    if (!taken && several) continue;  // another chosen problem's, or none's (said by make_plan)
    if (!taken) {
      std::vector<std::string> names;
      for (const auto* v : vs) names.emplace_back(v->name);
      throw usage_error(fmt::format(
          "'{}' is a launch setting of none of the chosen variants of {} ({}); {}", axis.key, p.name, fmt::join(names, ", "),
          offered.empty() ? std::string("they have none (`ema list` shows each variant's)") : fmt::format("theirs: {}", fmt::join(offered, ", "))));
    }
    for (const auto& a : launch)
      if (a.substr(0, a.find('=')) == axis.key) claimed.insert(a);
  }
  return own_axes;
}

using variant_sets = std::map<const variant_desc*, std::vector<param_set>>;

/// Per variant, its parameter sets in plan order, each once: the problem's times its launch axes; a
/// tuning parameter the variant does not read keeps its default, so an axis over it does not
/// multiply the variant's points.
variant_sets sets_of_variants(const problem_desc& p, std::span<const variant_desc* const> vs, const std::vector<param_set>& sets,
                              std::map<const variant_desc*, std::vector<param_axis>>& own_axes) {
  variant_sets own;
  for (const auto* v : vs) {
    std::set<std::string> seen;
    const auto launch_combos = combinations(own_axes[v], max_plan_points);
    for (const auto& given : sets)
      for (const auto& lc : launch_combos) {
        auto set = given;
        for (const auto& spec : p.params)
          if (spec.tuning && std::none_of(v->tuning.begin(), v->tuning.end(), [&](const char* t) { return std::string_view(t) == spec.name; }))
            set = set.with(spec.name, spec.default_value);
        for (const auto& kv : lc) {
          const auto eq = kv.find('=');
          set = set.with(kv.substr(0, eq), kv.substr(eq + 1));
        }
        if (seen.insert(set.canonical_json()).second) own[v].push_back(std::move(set));
      }
  }
  return own;
}

/// A tuning parameter given on the command line that none of the chosen variants reads would be
/// measured as nothing (each keeps the default): the command's error, naming those that read it.
void check_tuning_is_read(const problem_desc& p, std::span<const variant_desc* const> vs, const plan_request& r) {
  if (vs.empty()) return;
  for (const auto& a : r.params) {
    const auto key = a.substr(0, a.find('='));
    for (const auto& spec : p.params) {
      if (!spec.tuning || key != spec.name) continue;
      auto reads = [&](const variant_desc* v) { return std::any_of(v->tuning.begin(), v->tuning.end(), [&](const char* t) { return key == t; }); };
      if (std::any_of(vs.begin(), vs.end(), reads)) continue;
      std::vector<std::string> readers;
      for (const auto* v : variants_of(p.name))
        if (reads(v)) readers.emplace_back(v->name);
      throw usage_error(fmt::format("--param {}: no variant of {} chosen reads {} (it tunes {}; the others keep its default)", a, p.name, key,
                                    readers.empty() ? std::string("no variant of this build") : fmt::format("{}", fmt::join(readers, ", "))));
    }
  }
}

/// One problem's part of a plan, its variants and their parameter sets chosen.
struct problem_part {
  const problem_desc& p;
  std::vector<const variant_desc*> vs;
  std::vector<param_set> sets;  ///< the problem's own
  variant_sets own;

  void too_large(std::uint64_t n, const char* what) const {
    if (p.max_size && n > p.max_size)
      throw usage_error(fmt::format("{} {} is larger than the largest size problem {} can represent ({})", what, n, p.name, p.max_size));
  }
  /// Checks the parameter sets for the sizes (problem_desc::validate).
  void validate(std::span<const std::uint64_t> sizes) const {
    for (const auto& set : sets)
      if (p.validate) p.validate(set, sizes);
  }
  /// What each variant's launch settings, as overridden, cannot run: the command's error, not a
  /// point's failure (variant_desc::launch_refuses).
  void check_launches(std::span<const std::uint64_t> sizes) const {
    for (const auto* v : vs) check_launches(*v, sizes);
  }
  /// The same for one variant at its own sizes.
  void check_launches(const variant_desc& v, std::span<const std::uint64_t> sizes) const {
    if (!v.launch_refuses) return;
    for (const auto& set : own.at(&v))
      for (const auto n : sizes)
        if (const auto why = v.launch_refuses(set, n); !why.empty()) throw usage_error(fmt::format("{} {} at n = {}: {}", p.name, v.name, n, why));
  }
};

/// A calibrated sweep's tracks for one problem: every variant and parameter set from its start.
void plan_tracks(plan& out, const problem_part& part, const plan_request& r) {
  const auto& p = part.p;
  if (!out.calibrated) {
    out.calibrated = calibration{.budget = *r.budget};
    if (r.settle_share) out.calibrated->settle_share = *r.settle_share;
  }
  const auto start = r.start.value_or(parse_sizes(p.default_sizes).front());
  part.too_large(start, "--start");
  if (r.max_size && start > *r.max_size)  // (a --start above it is refused with the request)
    throw usage_error(fmt::format("--max-size {} is below {}'s first size, {} (--start sets another)", *r.max_size, p.name, start));
  const auto largest = p.max_size && r.max_size ? std::min(*r.max_size, p.max_size) : r.max_size.value_or(p.max_size);
  part.validate(std::span<const std::uint64_t>(&start, 1));
  part.check_launches(std::span<const std::uint64_t>(&start, 1));
  for (const auto* v : part.vs)
    for (const auto& set : part.own.at(v)) {
      const auto own = p.largest_size ? p.largest_size(set) : 0;  // these parameters' (problem_desc::largest_size)
      out.calibrated->tracks.push_back({p.name, v->name, set, start, own && (!largest || own < largest) ? own : largest, "", ""});
    }
}

/// A fixed sweep's points for one problem, within the plan's limits of points and memory. Without
/// --sizes each variant runs its back end's default plan (default_plan: a GPU variant takes the
/// problem's GPU plan where it declares one), so at the GPU plan's larger sizes only the GPU
/// variants run.
void plan_points(plan& out, const problem_part& part, const plan_request& r, std::uint64_t from_file) {
  const auto& p = part.p;
  const auto given = r.sizes ? parse_sizes(*r.sizes) : from_file ? std::vector<std::uint64_t>{from_file} : std::vector<std::uint64_t>{};
  std::map<const variant_desc*, std::vector<std::uint64_t>> own_sizes;
  for (const auto* v : part.vs) own_sizes[v] = given.empty() ? parse_sizes(default_plan(p, *v)) : given;
  std::vector<std::uint64_t> sizes;  // every variant's, ascending
  for (const auto& [v, ns] : own_sizes) sizes.insert(sizes.end(), ns.begin(), ns.end());
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  for (auto n : sizes) part.too_large(n, "size");
  part.validate(sizes);
  double total = static_cast<double>(out.points.size());
  for (const auto* v : part.vs) total += static_cast<double>(own_sizes.at(v).size() * part.own.at(v).size()) * r.instances;
  if (total > static_cast<double>(max_plan_points))
    throw usage_error(
        fmt::format("the plan would have more than {} points ({} sizes, {} variants with their parameter "
                    "sets, {} instances of {}); run fewer at a time",
                    max_plan_points, sizes.size(), part.vs.size(), r.instances, p.name));
  // And no more than this process can hold: planning takes about plan_point_bytes a point (the
  // points, their parameters, the stored plan's text), measured on a 750 000-point plan.
  if (const double left = static_cast<double>(memory_this_process_may_add()); total * plan_point_bytes > left)
    throw usage_error(
        fmt::format("the plan's {:.0f} points need about {} to plan and store, more than the {} this process may still "
                    "use (the machine's available memory, ulimit, control group); run fewer at a time",
                    total, format_bytes(total * plan_point_bytes), format_bytes(left)));
  for (const auto* v : part.vs) part.check_launches(*v, own_sizes.at(v));
  // Sizes outermost (interleaved unless --order ascending), then parameter sets, then variants:
  // every variant at one setting side by side.
  for (auto n : run_order(sizes, r.order))
    for (std::size_t k = 0;; ++k) {
      bool any = false;
      for (const auto* v : part.vs)
        if (const auto& sets = part.own.at(v); k < sets.size()) {
          if (const auto& ns = own_sizes.at(v); std::binary_search(ns.begin(), ns.end(), n)) out.add(p.name, v->name, n, sets[k]);
          any = true;
        }
      if (!any) break;
    }
}

/// The processor count a parameter set gives its variant (threads, SMs, GPUs), with the axis's
/// key; none for a set without one.
std::optional<std::pair<std::string, double>> processor_count(const param_set& set) {
  for (const auto* field : {&openmp_threads_field, &sm_field, &gpus_field}) {
    const auto key = fmt::format("{}{}", launch_prefix, field->name);
    if (auto it = set.values().find(key); it != set.values().end()) return std::pair{key, std::stod(it->second)};
  }
  return std::nullopt;
}

/// A weak-scaling plan's points for one problem (`--weak`): each variant set with a processor count
/// p at weak_size(n0, p/p0), p0 the smallest count of that axis among the variant's sets; a set
/// without one (a sequential variant) at every size the others reach from n0, so each has its
/// sequential time beside it.
void plan_weak_points(plan& out, const problem_part& part, const plan_request& r) {
  const auto& p = part.p;
  const auto bases = parse_sizes(*r.weak);
  for (auto n : bases) {
    if (n == 0) throw usage_error("--weak 0: a weak-scaling run grows each processor's share from n0, which must be at least 1");
    part.too_large(n, "--weak size");
  }
  struct planned {
    std::uint64_t n;
    const variant_desc* v;
    std::size_t set;
  };
  std::vector<planned> points;
  bool any_axis = false;
  for (const auto n0 : bases) {
    std::set<std::uint64_t> reached{n0};
    std::vector<std::pair<const variant_desc*, std::size_t>> plain;
    for (const auto* v : part.vs) {
      const auto& sets = part.own.at(v);
      std::map<std::string, double> smallest;
      for (const auto& set : sets)
        if (const auto c = processor_count(set)) smallest[c->first] = smallest.count(c->first) ? std::min(smallest[c->first], c->second) : c->second;
      for (std::size_t k = 0; k < sets.size(); ++k) {
        const auto c = processor_count(sets[k]);
        if (!c) {
          plain.emplace_back(v, k);
          continue;
        }
        any_axis = true;
        const auto n = weak_size(p, sets[k], n0, c->second / smallest.at(c->first));
        reached.insert(n);
        points.push_back({n, v, k});
      }
    }
    for (const auto n : reached)
      for (const auto& [v, k] : plain) points.push_back({n, v, k});
  }
  if (!any_axis)
    throw usage_error(
        fmt::format("--weak grows n with the processors, and no chosen variant of {} has a processor axis: give --threads, "
                    "--sms or --gpus with more than one count",
                    p.name));
  std::vector<std::uint64_t> sizes;
  for (const auto& x : points) sizes.push_back(x.n);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  for (auto n : sizes) part.too_large(n, "weak-scaling size");
  part.validate(sizes);
  const double total = static_cast<double>(points.size()) * r.instances + static_cast<double>(out.points.size());
  if (total > static_cast<double>(max_plan_points))
    throw usage_error(fmt::format("the weak-scaling plan would have more than {} points; run fewer at a time", max_plan_points));
  for (const auto& x : points)
    if (x.v->launch_refuses)
      if (const auto why = x.v->launch_refuses(part.own.at(x.v)[x.set], x.n); !why.empty())
        throw usage_error(fmt::format("{} {} at n = {}: {}", p.name, x.v->name, x.n, why));
  // Ascending in n, each size's variants side by side (a weak plan's sizes are its counts' own).
  std::stable_sort(points.begin(), points.end(), [](const planned& a, const planned& b) { return a.n < b.n; });
  for (const auto& x : points) out.add(p.name, x.v->name, x.n, part.own.at(x.v)[x.set]);
  for (const auto n0 : bases)
    if (std::find(out.weak.begin(), out.weak.end(), n0) == out.weak.end()) out.weak.push_back(n0);
}

}  // namespace

plan make_plan(const plan_request& r) {
  const auto chosen = chosen_problems(r);
  const bool several = chosen.size() > 1;
  check_sweep_shape(r);
  for (std::size_t i = 0; i < r.variants.size(); ++i)
    for (std::size_t k = 0; k < i; ++k)
      if (r.variants[i] == r.variants[k]) throw usage_error(fmt::format("--variants names '{}' twice", r.variants[i]));
  std::set<std::string> claimed;
  plan out;
  out.seed = r.seed;
  out.instances = r.instances;
  left_out_variants left_out;
  for (const auto* p : chosen) {
    auto share = share_of(*p, r, several, claimed);
    problem_part part{*p, chosen_variants(*p, r, several, out.notes, left_out), std::move(share.sets), {}};
    check_tuning_is_read(*p, part.vs, r);
    auto own_axes = launch_axes_of(*p, part.vs, share.launch, several, claimed);
    part.own = sets_of_variants(*p, part.vs, part.sets, own_axes);
    for (const auto* v : part.vs) part.own[v];  // every variant has its entry, empty or not
    // An input read from a file sets n: it is the one size, and a calibration has nothing to grow.
    const std::uint64_t from_file = p->size_from_input ? p->size_from_input(part.sets.front()) : 0;
    if (from_file && r.budget) throw usage_error(fmt::format("{}: the input file sets n = {}; give no --budget with it", p->name, from_file));
    if (from_file && r.weak) throw usage_error(fmt::format("{}: the input file sets n = {}; give no --weak with it", p->name, from_file));
    if (r.budget)
      plan_tracks(out, part, r);
    else if (r.weak)
      plan_weak_points(out, part, r);
    else
      plan_points(out, part, r, from_file);
  }
  // One line per reason, however many variants it leaves out (every CUDA variant on a machine
  // without a GPU), first the count.
  for (const auto& [why, names] : left_out)
    out.notes.push_back(fmt::format("{} variant{} left out ({}): {}", names.size(), names.size() == 1 ? "" : "s", why, fmt::join(names, ", ")));
  for (const auto& a : r.params)
    if (!claimed.count(a)) throw usage_error(fmt::format("parameter '{}' belongs to none of the chosen problems", a));
  if (!r.variants.empty() && out.points.empty() && (!out.calibrated || out.calibrated->tracks.empty()))
    throw usage_error(fmt::format("none of the variants {} belongs to the chosen problems", fmt::join(r.variants, ",")));
  add_rounds(out, r.rounds);
  return out;
}

void add_rounds(plan& p, int rounds) {
  if (rounds < 1 || rounds > max_rounds) throw usage_error(fmt::format("--rounds must be between 1 and {}, got {}", max_rounds, rounds));
  if (rounds == 1) return;
  if (p.calibrated) throw usage_error("--rounds measures a fixed plan's points again; a calibrated sweep (--budget) settles its own verdicts");
  const std::size_t pass = p.points.size();
  if (static_cast<double>(pass) * rounds > static_cast<double>(max_plan_points))
    throw usage_error(
        fmt::format("{} rounds of {} points make more than the {} points a plan may hold; run fewer at a time", rounds, pass, max_plan_points));
  p.points.reserve(pass * static_cast<std::size_t>(rounds));
  for (int k = 2; k <= rounds; ++k)
    for (std::size_t i = 0; i < pass; ++i) {
      auto pt = p.points[i];
      pt.ordinal = p.points.back().ordinal + 1;
      pt.phase = fmt::format("round {}", k);
      p.points.push_back(std::move(pt));
    }
  p.rounds = rounds;
}

bool plan::runs(const plan_point& pt) const {
  // A shard holds its own points (a calibrated one its own tracks); one made before this stored the
  // whole plan and lists its own.
  if (!shard || calibrated || shard->size) return true;
  return std::binary_search(shard->ordinals.begin(), shard->ordinals.end(), pt.ordinal);
}

int plan::whole_size() const {
  if (shard) return shard->size;
  if (merged) return merged->size;
  return 0;
}

nlohmann::json plan::point_to_json(const plan_point& p) {
  nlohmann::json pj = {{"ordinal", p.ordinal}, {"problem", p.problem},  {"variant", p.variant}, {"n", p.n}, {"params", params_object(p.params)},
                       {"seed", p.seed},       {"instance", p.instance}};
  if (!p.phase.empty()) pj["phase"] = p.phase;
  return pj;
}

nlohmann::json plan::to_json(bool with_points) const {
  nlohmann::json pts = nlohmann::json::array();
  if (with_points)
    for (const auto& p : points) pts.push_back(point_to_json(p));
  nlohmann::json out = {{"points", pts},
                        {"repetitions", reps.to_json()},
                        {"energy", {{"enabled", energy.enabled}, {"window", energy.window}}},
                        {"timeout", timeout},
                        {"seed", seed},
                        {"instances", instances},
                        {"notes", notes}};
  if (rounds > 1) out["rounds"] = rounds;
  if (processes != process_policy::point) out["processes"] = std::string(to_string(processes));
  if (calibrated) {
    nlohmann::json tracks = nlohmann::json::array();
    for (const auto& t : calibrated->tracks)
      tracks.push_back({{"problem", t.problem},
                        {"variant", t.variant},
                        {"params", params_object(t.params)},
                        {"start", t.start},
                        {"max_size", t.max_size},
                        {"stopped", t.stopped},
                        {"settled", t.settled}});
    out["budget"] = calibrated->budget;
    out["calibration"] = {{"min_sizes", calibrated->min_sizes},
                          {"growth", calibrated->growth},
                          {"energy_sizes", calibrated->energy_sizes},
                          {"settle_share", calibrated->settle_share},
                          {"tracks", tracks}};
  }
  if (!input_cache_dir.empty()) out["input_cache"] = {{"dir", input_cache_dir}, {"cap", input_cache_cap}};
  if (!weak.empty()) out["weak"] = weak;
  if (shard) {
    out["shard"] = {{"index", shard->index}, {"count", shard->count}, {"digest", shard->digest}, {"tracks", shard->tracks}, {"basis", shard->basis}};
    if (shard->size)
      out["shard"]["size"] = shard->size;  // its ordinals are its points'
    else
      out["shard"]["ordinals"] = shard->ordinals;
    if (!shard->part.empty()) out["shard"]["part"] = shard->part;
  }
  if (merged) {
    out["merged"] = {{"digest", merged->digest}, {"part", merged->part}, {"shards", merged->shards}};
    if (merged->size) out["merged"]["size"] = merged->size;
  }
  if (external) {
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& [name, command] : external->runs) runs.push_back({{"variant", name}, {"command", command}});
    out["external"] = {{"generator", external->generator},
                       {"runs", runs},
                       {"cache_dir", external->cache_dir},
                       {"cache_cap", external->cache_cap},
                       {"cwd", external->cwd}};
  }
  return out;
}

namespace {
plan read_plan(const nlohmann::json& j);
}

std::string_view to_string(process_policy p) {
  switch (p) {
    case process_policy::point:
      return "point";
    case process_policy::track:
      return "track";
    case process_policy::gpu_track:
      return "gpu-track";
  }
  return "point";
}

std::optional<process_policy> process_policy_from(std::string_view text) {
  for (auto p : {process_policy::point, process_policy::track, process_policy::gpu_track})
    if (to_string(p) == text) return p;
  return std::nullopt;
}

plan plan::from_json(const nlohmann::json& j) {
  try {
    auto p = read_plan(j);
    const auto& r = p.reps;
    auto bad = [](const std::string& what) { throw database_error("the stored plan " + what + "; it was changed by hand or is damaged"); };
    if (!(std::isfinite(p.timeout) && p.timeout > 0)) bad("has a timeout that is not a positive number");
    if (r.warmup < 0 || r.min_reps < 1 || r.max_reps < 1 || (r.fixed && *r.fixed < 1)) bad("has impossible repetition counts");
    if (!(std::isfinite(r.min_time) && std::isfinite(r.max_time) && std::isfinite(r.target_rse) && r.min_time >= 0))
      bad("has repetition times that are not finite");
    if (!(std::isfinite(p.energy.window) && p.energy.window > 0)) bad("has an energy window that is not a positive number");
    if (p.instances < 1 || p.instances > max_instances) bad("has an impossible number of instances");
    if (p.rounds < 1 || p.rounds > max_rounds) bad("has an impossible number of rounds");
    if (p.points.size() > max_plan_points) bad("has more points than a plan may hold");
    if (const int whole = p.whole_size(); whole) {
      // A part of a plan: the plan's own points below its size, in order, the ones added later above.
      if (whole < 0 || static_cast<std::size_t>(whole) > max_plan_points || p.calibrated) bad("has an impossible plan size");
      for (std::size_t i = 0; i < p.points.size(); ++i) {
        const auto& pt = p.points[i];
        if (pt.instance < 0 || pt.ordinal < 0 || (i && pt.ordinal <= p.points[i - 1].ordinal) || (pt.phase.empty() != (pt.ordinal < whole)))
          bad("numbers its points out of order");
      }
      if (p.shard) {
        p.shard->ordinals.clear();
        for (const auto& pt : p.points)
          if (pt.ordinal < whole) p.shard->ordinals.push_back(pt.ordinal);
      }
    } else {
      for (std::size_t i = 0; i < p.points.size(); ++i)
        if (p.points[i].ordinal != static_cast<int>(i) || p.points[i].instance < 0) bad("numbers its points out of order");
    }
    if (p.calibrated &&
        !(std::isfinite(p.calibrated->budget) && p.calibrated->budget > 0 && p.calibrated->growth > 1 && std::isfinite(p.calibrated->growth) &&
          p.calibrated->min_sizes >= 1 && p.calibrated->min_sizes <= 1000 && p.calibrated->settle_share >= 0 && p.calibrated->settle_share <= 0.5))
      bad("has an impossible calibration");
    if (p.shard) {
      const auto& sh = *p.shard;
      if (sh.count < 1 || sh.count > 100000 || sh.index < 0 || sh.index >= sh.count || sh.digest.empty()) bad("has an impossible shard");
      const int bound = sh.size ? sh.size : static_cast<int>(p.points.size());
      for (std::size_t i = 0; i < sh.ordinals.size(); ++i)
        if (sh.ordinals[i] < 0 || sh.ordinals[i] >= bound || (i && sh.ordinals[i] <= sh.ordinals[i - 1]))
          bad("gives its shard points it does not hold");
    }
    if (p.merged && (p.merged->digest.empty() || p.merged->shards < 0 || p.merged->shards > 100000)) bad("has an impossible merge record");
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw database_error(fmt::format("the stored plan is malformed ({}); it was changed by hand or is damaged", e.what()));
  }
}

namespace {

plan read_plan(const nlohmann::json& j) {
  plan p;
  for (const auto& x : j.at("points")) {
    plan_point pt;
    pt.ordinal = x.at("ordinal").get<int>();
    pt.problem = x.at("problem").get<std::string>();
    pt.variant = current_variant_name(pt.problem, x.at("variant").get<std::string>());  // a renamed variant as named now
    pt.n = x.at("n").get<std::uint64_t>();
    pt.params = params_from_object(x.at("params"));
    pt.seed = x.at("seed").get<std::uint64_t>();
    pt.instance = x.value("instance", 0);
    pt.phase = x.value("phase", "");
    p.points.push_back(std::move(pt));
  }
  p.reps = repetition_policy::from_json(j.at("repetitions"));
  p.energy.enabled = j.at("energy").at("enabled").get<bool>();
  p.energy.window = j.at("energy").at("window").get<double>();
  p.timeout = j.at("timeout").get<double>();
  p.seed = j.at("seed").get<std::uint64_t>();
  p.notes = j.value("notes", std::vector<std::string>{});
  p.instances = j.value("instances", 1);
  p.rounds = j.value("rounds", 1);
  if (j.contains("processes")) {
    const auto policy = process_policy_from(j.at("processes").get<std::string>());
    if (!policy) throw database_error("the stored plan has an unknown process policy; it was changed by hand or is damaged");
    p.processes = *policy;
  }
  p.weak = j.value("weak", std::vector<std::uint64_t>{});
  if (j.contains("input_cache")) {
    p.input_cache_dir = j.at("input_cache").at("dir").get<std::string>();
    p.input_cache_cap = j.at("input_cache").at("cap").get<double>();
  }
  if (j.contains("calibration")) {
    calibration c;
    c.budget = j.at("budget").get<double>();
    const auto& cj = j.at("calibration");
    c.min_sizes = cj.value("min_sizes", 12);
    c.growth = cj.value("growth", 2.0);
    c.energy_sizes = cj.value("energy_sizes", 5);
    c.settle_share = cj.value("settle_share", 0.0);
    for (const auto& t : cj.at("tracks"))
      c.tracks.push_back({t.at("problem").get<std::string>(),
                          std::string(current_variant_name(t.at("problem").get<std::string>(), t.at("variant").get<std::string>())),
                          params_from_object(t.at("params")), t.at("start").get<std::uint64_t>(), t.value("max_size", std::uint64_t{0}),
                          t.value("stopped", ""), t.value("settled", "")});
    p.calibrated = std::move(c);
  }
  if (j.contains("shard")) {
    const auto& x = j.at("shard");
    shard_spec sh;
    sh.index = x.at("index").get<int>();
    sh.count = x.at("count").get<int>();
    sh.digest = x.at("digest").get<std::string>();
    sh.size = x.value("size", 0);
    if (!sh.size) sh.ordinals = x.value("ordinals", std::vector<int>{});
    sh.tracks = x.value("tracks", 0);
    sh.basis = x.value("basis", "work model");
    sh.part = x.value("part", "");
    p.shard = std::move(sh);
  }
  if (j.contains("merged")) {
    const auto& x = j.at("merged");
    p.merged = merge_spec{x.at("digest").get<std::string>(), x.at("part").get<std::string>(), x.at("shards").get<int>(), x.value("size", 0)};
  }
  if (j.contains("external")) {
    const auto& x = j.at("external");
    external_program e;
    e.generator = x.at("generator").get<std::string>();
    for (const auto& r : x.at("runs")) e.runs.emplace_back(r.at("variant").get<std::string>(), r.at("command").get<std::string>());
    e.cache_dir = x.value("cache_dir", "");
    e.cache_cap = x.value("cache_cap", 0.0);
    e.cwd = x.value("cwd", "");
    p.external = std::move(e);
  }
  return p;
}

}  // namespace

}  // namespace ema
