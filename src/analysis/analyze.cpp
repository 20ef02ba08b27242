#include "analysis/analyze.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "core/format.hpp"
#include <map>
#include <stdexcept>

namespace ema::fit {
namespace {

void validate(const series& d) {
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (!(d.n[i] > 0) || !std::isfinite(d.n[i])) throw std::invalid_argument(fmt::format("size {} is not a positive number", d.n[i]));
    if (!(d.y[i] > 0) || !std::isfinite(d.y[i]))
      throw std::invalid_argument(fmt::format("the value {} at n = {} is not positive (fits are on relative error)", d.y[i], d.n[i]));
  }
  const auto k = d.sizes().size();
  if (k < 3) throw std::invalid_argument(fmt::format("{} distinct size{}: a fit needs at least 3", k, k == 1 ? "" : "s"));
}

equation_groups fit_groups(const series& d, const analysis_options& o) { return select_groups(fit_family(d, o.family), d.sizes(), o.groups); }

/// The smallest size of the quiet stretch at the top of `d` (see core), 0 when that is all of it.
double quiet_top(const series& d) {
  const auto sizes = d.sizes();
  const std::size_t m = sizes.size();
  if (m < 9) return 0;
  std::vector<std::pair<std::size_t, double>> stretches;  // first index, scatter
  double quietest = INFINITY;
  for (std::size_t i = 0; i + 6 <= m; ++i) {
    if (sizes.back() / sizes[i] < 8) break;
    const double s = between_size_noise(d.within(sizes[i], INFINITY));
    if (!std::isfinite(s)) continue;
    stretches.emplace_back(i, s);
    quietest = std::min(quietest, s);
  }
  for (const auto& [i, s] : stretches)
    if (s <= std::max(1.5 * quietest, quietest + 0.005)) return i ? sizes[i] : 0;
  return 0;
}

/// How fast the leading term of `best` alone grows from lo to hi (growth_exponent): a constant or a
/// lower term would flatten the whole.
double leading_growth(const equation& best, double lo, double hi) {
  return growth_exponent([&](double n) { return std::exp(best.log_term(n)); }, lo, hi);
}

/// Whether `best` grows more slowly than the fastest-growing work over [lo, hi], by more than a
/// quarter of a power of n (a log factor's worth over most ranges), or belongs to a lower class than
/// the work at all: from hi to 2^62 the work grows half as much again as the answer's leading term
/// (a merge sort whose per-key overhead hides its n log n comparisons over every size a machine
/// holds is Θ(n) there, not in its class).
std::optional<work_floor> below_work(const equation& best, const std::vector<std::function<double(double)>>& work, double lo, double hi) {
  std::optional<std::size_t> fastest;
  double we = -INFINITY;
  for (std::size_t i = 0; i < work.size(); ++i)
    if (const double e = growth_exponent(work[i], lo, hi); std::isfinite(e) && e > we) we = e, fastest = i;
  const double ae = leading_growth(best, lo, hi);
  if (!fastest || !std::isfinite(ae)) return std::nullopt;
  const bool lower_class = [&] {
    constexpr double far = 0x1p62;
    if (!(hi < far)) return false;
    const double we_far = growth_exponent(work[*fastest], hi, far), ae_far = leading_growth(best, hi, far);
    return std::isfinite(we_far) && std::isfinite(ae_far) && (we_far - ae_far) * std::log(far / hi) > std::log(1.5);
  }();
  if (!(ae < we - 0.25) && !lower_class) return std::nullopt;
  work_floor f{we, ae, 0};
  const auto& w = work[*fastest];
  try {
    for (double n = 2 * hi; n <= 0x1p62; n *= 2)
      if (w(n) / w(hi) >= 4 * best(n) / best(hi)) {
        f.past = n;
        break;
      }
  } catch (const std::exception&) {
    // a size the problem's work model refuses: the floor stands, with no size named
  }
  return f;
}

/// Whether the leading term of `best` grows over [lo, hi] no faster than the fastest-growing work,
/// within half of what a log factor adds there (ln(ln hi / ln lo) / ln(hi / lo)): the answer is
/// the work's class over the fitted sizes. False where no work is known.
bool grows_as_work(const equation& best, const std::vector<std::function<double(double)>>& work, double lo, double hi) {
  const double we = work_growth(work, lo, hi), ae = leading_growth(best, lo, hi);
  if (!std::isfinite(we) || !std::isfinite(ae) || !(lo > 1) || !(hi > lo)) return false;
  const double log_factor = std::log(std::log(hi) / std::log(lo)) / std::log(hi / lo);
  return ae <= we + 0.5 * log_factor;
}

/// A rising start: the smallest size of the regime from which the answer's class, fitted again
/// there, misses no size by more than max(4σ, 5%) while the sizes below lie under that fit, their
/// cost per unit of the class rising toward it, the smallest by more than max(4σ, 5%). A working
/// set leaving a cache raises the cost per element over a stretch of sizes, not at one (random
/// accesses hit a cache about as often as it holds the data): rqa `exact-seq` on the 2-core VM rose
/// from 0.55 to 0.70 ns a cell over n = 724-1448 and held there to 8192, and one fit across the
/// rise missed 724 by 31%. Not where the class fitted above differs (that is a bend, not a start),
/// nor for fewer than 6 sizes above over a factor of 8; 0 when there is none.
double rising_start(const series& regime, const class_set& cs, const class_set_options& co, double outside_noise, std::optional<class_set>& top) {
  const auto sizes = regime.sizes();
  const auto means = regime.means();
  const std::size_t m = sizes.size();
  const auto& answer = cs.answer();
  if (m < 8 || !answer.steps.empty()) return 0;
  const double mild = std::max(4 * cs.noise, 0.05);
  auto worst = [&](const equation& eq, std::size_t from) {
    double w = 0;
    for (std::size_t i = from; i < m; ++i) w = std::max(w, std::abs(eq(sizes[i]) / means[i] - 1));
    return w;
  };
  if (worst(answer.eq, 0) <= mild) return 0;
  for (std::size_t k = 1; m - k >= 6 && sizes.back() / sizes[k] >= 8; ++k) {
    const auto upper = regime.within(sizes[k], INFINITY);
    auto above = weigh_classes(upper, measured_noise(upper.n, upper.y, outside_noise), co);
    if (!above || !(above->answer().cls == answer.cls) || !above->answer().steps.empty()) return 0;
    const auto& eq = above->answer().eq;
    if (worst(eq, k) > mild) continue;
    // Per unit of the class: its leading term carries the cost at the smallest size (below a
    // fixed cost that leads them, the smallest sizes skipping part of it is no cache's rise).
    bool rising = means[0] < eq(sizes[0]) * (1 - mild) && std::exp(eq.log_term(sizes[0])) >= 0.8 * eq(sizes[0]);
    for (std::size_t i = 0; i < k && rising; ++i)
      rising = means[i] < eq(sizes[i]) && (i == 0 || means[i] / eq(sizes[i]) >= means[i - 1] / eq(sizes[i - 1]));
    if (!rising) return 0;
    top = std::move(above);
    return sizes[k];
  }
  return 0;
}

/// The class set's options as an analysis weighs its regime (class_set.hpp).
class_set_options class_options(const analysis_options& o) { return {.fine_gain = o.groups.fine_gain, .work = o.work}; }

struct core_result {
  equation_groups g;
  std::optional<class_set> classes;
  std::optional<knee_report> knee;
  series regime;
  std::vector<breakpoint> breakpoints;
  double from = 0;
  std::string label;
};

core_result core(const series& d, const analysis_options& o) {
  core_result r;
  std::optional<fit::knee> k;
  if (o.find_knee) k = find_knee(d, o.knee);
  r.from = k ? k->n : 0;
  // Past a cache's edge: the highest breakpoint at or above a named one that leaves six sizes.
  if (!o.caches.empty() && o.working_set) {
    r.breakpoints = find_breakpoints(d);
    name_breakpoints(r.breakpoints, o.caches, o.working_set);
    const auto sizes = d.sizes();
    const breakpoint* named = nullptr;
    for (const auto& b : r.breakpoints) {
      if (!b.cache.empty()) named = named ? named : &b;
      const auto above = std::count_if(sizes.begin(), sizes.end(), [&](double n) { return n >= b.n; });
      if (named && above >= 6 && b.n > r.from) {
        r.from = b.n;
        r.label = fmt::format("past the {} ({}) edge: above n ≈ {}", named->cache, format_bytes(named->cache_bytes), format_size(b.n));
      }
    }
    if (!r.label.empty()) k.reset();  // the cache regime starts above the knee
  }
  if (r.from > 0 && r.label.empty() && k) r.label = fmt::format("above the knee at n ≈ {}", format_size(k->n));
  r.regime = r.from > 0 ? d.within(r.from, INFINITY) : d;
  // The quiet regime at the top: a cost that steps up at a cache's edge, or bends out of a
  // launch-bound start, scatters about any one class across the step; past the last one it does
  // not. Of the stretches that end at the largest size and hold six sizes over a factor of 8, the
  // longest whose scatter between neighbouring sizes is within 1.5 times the quietest one's.
  if (const auto cut = quiet_top(r.regime); cut > 0 && cut > r.from) {
    r.from = cut;
    r.regime = d.within(cut, INFINITY);
    r.label = fmt::format("the quiet stretch at the top: n ≥ {}", format_size(cut));
  }
  r.g = fit_groups(r.regime, o);
  // An exponential the family found is judged by the old rules; a polynomial answer is the set's
  // (with the source's literal rule, EMA's best equation stays and the set judges it).
  if (!r.g.best.theta().exp_base) {
    const auto co = class_options(o);
    r.classes = weigh_classes(r.regime, measured_noise(r.regime.n, r.regime.y, o.noise), co);
    // A sublinear answer whose cost still steepens at the top (a GPU kernel leaving its
    // launch-bound start: a fixed cost, then a rising one while the device fills) has its class in
    // the largest sizes: judged again on the upper half, the answer is that regime's when its class
    // grows faster and the upper half excludes the whole range's class. (A linear or faster answer
    // steepening at the top is a cache's step, which a class of the upper half alone would
    // overstate.)
    if (r.classes && steepens_at_top(*r.classes) && r.classes->answer().cls.n < 1) {
      const auto sizes = r.regime.sizes();
      const double cut = sizes[sizes.size() / 2];
      const auto upper = r.regime.within(cut, INFINITY);
      if (sizes.size() - sizes.size() / 2 >= 5 && sizes.back() / cut >= 8)
        if (auto top = weigh_classes(upper, measured_noise(upper.n, upper.y, o.noise), co);
            top && top->answer().cls.n > r.classes->answer().cls.n && excludes(*top, r.classes->answer().cls)) {
          r.from = cut;
          r.regime = upper;
          r.label = fmt::format("the largest sizes, where the cost steepens: n ≥ {}", format_size(cut));
          r.g = fit_groups(r.regime, o);
          r.classes = std::move(top);
        }
    }
    if (std::optional<class_set> top; r.classes)
      if (const double cut = rising_start(r.regime, *r.classes, co, o.noise, top); cut > 0) {
        const double under = 1 - r.regime.means().front() / top->answer().eq(r.regime.sizes().front());
        r.label = fmt::format("past a rising start: n ≥ {} (below it the cost per unit of {} still rises; n = {} lies {:.0f}% under it)",
                              format_size(cut), top->answer().cls.text(), format_size(r.regime.sizes().front()), 100 * under);
        r.from = cut;
        r.regime = r.regime.within(cut, INFINITY);
        r.g = fit_groups(r.regime, o);
        r.classes = std::move(top);
      }
    if (r.classes && o.groups.rule == best_rule::parsimony) r.g.best = r.classes->answer().eq;
  }
  if (k) {
    knee_report kr{*k, {}, r.g.best.theta()};
    // Below the knee the metric is flat or grows slowly (|slope| <= 0.5): its class is one of the
    // lattice's up to √n times a power of log n; below a linear start (a launch a step, knee.hpp),
    // up to n.
    const auto below = d.within(0, k->n);
    if (below.sizes().size() >= 2) {
      auto slow = o;
      const double top = std::abs(k->slope_below) > o.knee.slow_below ? 1.0 : 0.5;
      slow.family = {.max_n_exponent = top, .max_log_exponent = o.family.max_log_exponent, .exponential = false, .free_exponents = false};
      kr.below = fit_groups(below, slow).best.theta();
    } else {
      kr.below.n = std::round(k->slope_below * 2) / 2;
    }
    r.knee = kr;
  }
  return r;
}

// Where the regime's two ends agree — its best class without the largest sizes and without the
// smallest is one class X, not the class the whole regime shows — the class across the whole is
// mostly a bend between the ends read as another class (a log factor for a cost per element that
// steps up by less than the set's ×1.5, Θ(n) across a start that bends): in the real set
// (tests/analysis/real, 4045 series at 8151861) X was right for 168 of 177 such series and the
// class shown for 2. There the set is weighed again with X allowed its bend — steps from ×1.1 and
// a lower-order term, each taken as soon as it predicts the held-out sizes as well as every class
// without — and its answer shown when it is X (docs/fitting.md, 2026-12-04).
void both_ends_agree(core_result& r, const analysis& a, const analysis_options& o) {
  if (!a.check || !a.without_smallest || !r.classes || o.groups.rule != best_rule::parsimony) return;
  const auto x = a.check->best.theta();
  if (x.exp_base || a.without_smallest->theta() != x || r.g.best.theta() == x) return;
  auto co = class_options(o);
  co.step_gain = 1;
  co.two_term_gain = 1;
  co.min_step = 1.1;
  auto again = weigh_classes(r.regime, measured_noise(r.regime.n, r.regime.y, o.noise), co);
  if (!again || again->answer().cls != x) return;
  r.classes = std::move(again);
  r.g.best = r.classes->answer().eq;
}

nlohmann::json tie_json(const tie_break& t) {
  auto j = t.eq.to_json();
  j["tie_breaker"] = t.n ? nlohmann::json(*t.n) : nlohmann::json(nullptr);
  j["tie_breaker_cost_s"] = std::isfinite(t.cost) ? nlohmann::json(t.cost) : nlohmann::json(nullptr);
  return j;
}

}  // namespace

equation best_equation(const series& data, const analysis_options& o) { return core(data, o).g.best; }

analysis analyze(const series& data, const analysis_options& o) {
  validate(data);
  analysis a;
  a.data = data;
  auto r = core(data, o);
  double without_smallest_from = 0;  // the smallest size the fit without the smallest sizes saw
  if (o.held_out) {
    a.check = held_out(data, [&](const series& s) { return s.sizes().size() >= 3 ? best_equation(s, o) : equation{}; });
    if (const auto sizes = r.regime.sizes(); sizes.size() >= 8) {
      const auto drop = std::max<std::size_t>(1, sizes.size() / 5);
      auto upper = o;
      upper.find_knee = false;
      upper.caches.clear();
      a.without_smallest = best_equation(r.regime.within(sizes[drop], INFINITY), upper);
      without_smallest_from = sizes[drop];
    }
    both_ends_agree(r, a, o);
  }
  a.groups = std::move(r.g);
  a.classes = std::move(r.classes);
  a.knee = std::move(r.knee);
  a.breakpoints = std::move(r.breakpoints);
  a.regime_from = r.from;
  a.regime = std::move(r.label);
  a.off = off_neighbours(data);
  const auto sizes = r.regime.sizes();
  if (!o.work.empty() && sizes.size() >= 2 && !a.groups.best.theta().exp_base)
    a.below_work = below_work(a.groups.best, o.work, sizes.front(), sizes.back());
  a.as_work =
      !a.below_work && sizes.size() >= 2 && !a.groups.best.theta().exp_base && grows_as_work(a.groups.best, o.work, sizes.front(), sizes.back());
  // Only a log factor below: a fixed cost amortised lowers the cost per operation by less than a
  // power of n over a range, while a GPU filling with threads lowers it by a power (rqa
  // `exact-cuda`, a thread per column, grows as n over every size an H200 reaches for n² cells:
  // there the larger sizes' lower class is the machine's, and stays a doubt).
  if (a.as_work && a.without_smallest && !a.without_smallest->theta().exp_base && without_smallest_from > 0 &&
      a.without_smallest->theta().n == a.groups.best.theta().n)
    a.without_smallest_below_work = below_work(*a.without_smallest, o.work, without_smallest_from, sizes.back()).has_value();
  // A cost bound by arithmetic over its work may still move its data as often as it works on it
  // (gauss `cuda-kv1` launches a kernel over the whole matrix for each pivot: n³ bytes), so an
  // answer growing half a power of n or more faster than that work over the sizes is read against
  // the last cache too: its kernel time on the H200 was taken firm for Θ(n⁴) while the matrix
  // (64 MiB at 4096) was about the size of the GPU's 60 MiB L2. (A log factor's excess is the
  // class set's to weigh: a cost per operation rising past a cache steps it up, by a bounded factor.)
  const bool far_above_work = !o.work.empty() && !a.below_work && !a.as_work && sizes.size() >= 2 && !a.groups.best.theta().exp_base &&
                              leading_growth(a.groups.best, sizes.front(), sizes.back()) >= work_growth(o.work, sizes.front(), sizes.back()) + 0.5;
  if ((o.memory_bound || far_above_work) && o.working_set && !o.caches.empty()) {
    const auto& last = o.caches.back();
    const double ws = o.working_set(data.sizes().back());
    // Where the answer grows faster than the work, the cost per operation may still be rising as
    // the data leave the last cache: a random access hits it about as often as it holds the
    // working set, so the rise runs on well past its capacity (bfs `omp-listing` on the 2-core VM,
    // a 32 MiB L3: the time per vertex up 12% a doubling from 2^17 to 2^20, where the graph is
    // 4.5 times the L3, was taken firm for Θ(n log n)). There the window is 16 times the cache.
    const double window = a.as_work ? 2 : cache_residency::faster_window;
    if (ws <= window * last.bytes)
      a.resident =
          cache_residency{last.name, last.bytes, ws, size_for_working_set(o.working_set, (ws <= 2 * last.bytes ? 4 : 16) * last.bytes), a.as_work};
  }
  std::vector<double> band_sizes;
  constexpr int steps = 48;
  for (int i = 0; i <= steps; ++i) band_sizes.push_back(sizes.front() * std::pow(sizes.back() / sizes.front(), static_cast<double>(i) / steps));
  a.uncertainty = bootstrap(r.regime, a.groups.best, o.bootstrap, o.seed, band_sizes);
  if (a.check && !a.check->points.empty() && !o.work.empty() && sizes.size() >= 2 && !a.below_work && !a.groups.best.theta().exp_base &&
      !a.check->best.theta().exp_base && grows_as_work(a.groups.best, o.work, sizes.front(), sizes.back())) {
    // The sizes the check fitted: the data's, up to the first size it held out.
    const auto all = data.sizes();
    const auto first_held = std::find(all.begin(), all.end(), a.check->points.front().n);
    if (first_held != all.begin() && first_held != all.end())
      a.check_below_work = below_work(a.check->best, o.work, all.front(), *std::prev(first_held)).has_value();
  }
  // Past the last cache's edge alone, where the answer grows faster than the work and enough sizes
  // lie there: search `omp` on the 2-core VM (a 32 MiB L3), 2^15..2^29, was taken firm for
  // Θ(n log n), its time per element 0.06 ns up to 2^23 and 0.07-0.08 ns past it, flat on each side.
  if (!o.work.empty() && !a.as_work && !a.below_work && o.working_set && !o.caches.empty() && sizes.size() >= 8 && !a.groups.best.theta().exp_base) {
    const auto& last = o.caches.back();
    const auto edge = std::find_if(sizes.begin(), sizes.end(), [&](double n) { return o.working_set(n) > last.bytes; });
    const auto past = static_cast<std::size_t>(sizes.end() - edge);
    if (edge != sizes.end() && edge - sizes.begin() >= 2 && past >= 6 && sizes.back() / *edge >= 8) {
      auto alone = o;
      alone.find_knee = false;
      alone.caches.clear();
      a.past_cache = analysis::past_cache_fit{best_equation(r.regime.within(*edge, INFINITY), alone), last.name, *edge};
    }
  }
  a.verdict = judge(a, o.noise);
  return a;
}

std::string exponent_text(double x) { return std::abs(x) < 5e-4 ? std::string("0") : fmt::format("{:.3g}", x); }

std::string answer_text(const analysis& a) {
  const auto& best = a.groups.best;
  std::string out = best.theta().text();
  const auto* set = a.classes ? &*a.classes : nullptr;
  if (set && !set->answer().steps.empty()) {
    const auto& steps = set->answer().steps;
    out += fmt::format(" in each of {} regimes (", steps.size() + 1);
    for (std::size_t i = 0; i < steps.size(); ++i)
      out += fmt::format("{}×{:.2g} at n ≈ {}", i ? ", " : "", steps[i].factor, format_size(std::round(steps[i].n)));
    out += ")";
  }
  if (best.form.lower) {
    // How much of the cost the leading term carries at the regime's ends: where it is little, the
    // class rests on the largest sizes.
    std::vector<double> sizes;
    for (double n : a.data.sizes())
      if (n >= a.regime_from) sizes.push_back(n);
    theta_class lower;
    lower.n = best.form.l1, lower.log = best.form.l5;
    auto share = [&](double n) {
      const double s = std::exp(best.log_term(n)) / best(n);
      return s < 0.01 ? std::string("under 1%") : fmt::format("{:.0f}%", 100 * s);
    };
    // Less a lower term (a base case cheaper per unit than the class's levels): how much it takes
    // off the leading term's value.
    auto off = [&](double n) { return fmt::format("{:.0f}%", 100 * std::abs(best.lower_term(n)) / std::exp(best.log_term(n))); };
    if (!sizes.empty() && best.form.lower_less)
      out += fmt::format(" less a {} term (a base case cheaper per unit than the {} levels: {} off the leading term at n = {}, {} at n = {})",
                         lower.text(), best.theta().text(), off(sizes.front()), format_size(sizes.front()), off(sizes.back()),
                         format_size(sizes.back()));
    else if (!sizes.empty())
      out += fmt::format(" beside a {} term (the {} term {} of the cost at n = {}, {} at n = {})", lower.text(), best.theta().text(),
                         share(sizes.front()), format_size(sizes.front()), share(sizes.back()), format_size(sizes.back()));
  }
  if (const auto& ci = a.uncertainty.interval; ci && ci->what == "exponent of n")
    out += fmt::format(": exponent of n {}, 95% interval [{}, {}]", exponent_text(ci->estimate), exponent_text(ci->lo), exponent_text(ci->hi));
  if (set && !set->rivals.empty()) {
    std::string names;
    for (auto k : set->rivals) {
      const auto& c = set->classes[k];
      names += fmt::format("{}{}{}", names.empty() ? "" : ", ", c.cls.text(),
                           c.settle ? fmt::format(" (n = {} would tell)", format_size(*c.settle)) : std::string(" (no size tells)"));
    }
    out += fmt::format("; not excluded: {}", names);
  }
  if (set && !set->below_work.empty()) {
    std::string names;
    for (auto k : set->below_work) names += fmt::format("{}{}", names.empty() ? "" : ", ", set->classes[k].cls.text());
    out += fmt::format("; excluded by the work alone (the data leave {}, which grow{} slower than the work the variant must do)", names,
                       set->below_work.size() == 1 ? "s" : "");
  }
  return out;
}

namespace {

/// The class set (class_set.hpp): the answer, whether firm, the classes not excluded, the noise,
/// the bends and every class judged.
nlohmann::json class_set_json(const class_set& cs) {
  auto finite = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
  nlohmann::json table = nlohmann::json::array(), rivals = nlohmann::json::array();
  for (const auto& c : cs.classes) {
    table.push_back({{"theta", c.cls.to_json()},
                     {"formula", c.eq.formula()},
                     {"held_out_mse", finite(c.cv)},
                     {"max_rel_err", finite(c.eq.max_rel_err)},
                     {"evidence", finite(c.evidence)},
                     {"coarse", c.coarse},
                     {"excluded", c.excluded},
                     {"below_work", c.below_work},
                     {"settle", c.settle ? nlohmann::json(*c.settle) : nlohmann::json(nullptr)}});
    auto& steps = table.back()["steps"] = nlohmann::json::array();
    for (const auto& st : c.steps) steps.push_back({{"n", st.n}, {"factor", st.factor}});
  }
  for (auto k : cs.rivals) rivals.push_back(cs.classes[k].cls.to_json());
  nlohmann::json by_work = nlohmann::json::array();
  for (auto k : cs.below_work) by_work.push_back(cs.classes[k].cls.to_json());
  return {{"answer", cs.answer().cls.to_json()},
          {"firm", cs.firm()},
          {"not_excluded", rivals},
          {"excluded_by_work", by_work},
          {"finer", cs.finer ? cs.classes[*cs.finer].cls.to_json() : nlohmann::json(nullptr)},
          {"noise", finite(cs.noise)},
          {"between_sizes", finite(cs.between)},
          {"replicates", finite(cs.replicates)},
          {"scatter", {{"relative", finite(cs.scatter.relative)}, {"fixed", finite(cs.scatter.fixed)}}},
          {"size_noise", cs.size_noise},
          {"bend", finite(cs.bend)},
          {"bend_se", finite(cs.bend_se)},
          {"stepped", cs.stepped},
          {"two_term", cs.two_term},
          {"top_bend", finite(cs.top_bend)},
          {"top_bend_se", finite(cs.top_bend_se)},
          {"top_sizes", cs.top_sizes},
          {"candidates", table}};
}

}  // namespace

nlohmann::json to_json(const analysis& a) {
  nlohmann::json j;
  j["answer"] = answer_text(a);
  j["sizes"] = a.data.sizes();
  std::map<double, std::vector<double>> pts;
  for (std::size_t i = 0; i < a.data.size(); ++i) pts[a.data.n[i]].push_back(a.data.y[i]);
  j["points"] = nlohmann::json::array();
  for (const auto& [n, v] : pts) j["points"].push_back({{"n", n}, {"values", v}});
  const auto& g = a.groups;
  j["candidates"] = g.candidates;
  j["best"] = g.best.to_json();
  j["verdict"] = a.verdict.to_json();
  j["off_neighbours"] = nlohmann::json::array();
  for (const auto& o : a.off) j["off_neighbours"].push_back({{"n", o.n}, {"departure", o.departure}});
  j["classes"] = a.classes ? class_set_json(*a.classes) : nlohmann::json(nullptr);
  j["min_error"] = g.min_error.to_json();
  j["equivalent"] = nlohmann::json::array();
  for (const auto& e : g.equivalent) j["equivalent"].push_back(e.to_json());
  j["distinguishable"] = nlohmann::json::array();
  for (const auto& t : g.distinguishable) j["distinguishable"].push_back(tie_json(t));
  j["non_distinguishable"] = nlohmann::json::array();
  for (const auto& t : g.non_distinguishable) j["non_distinguishable"].push_back(tie_json(t));
  if (a.knee)
    j["knee"] = {{"n", a.knee->where.n},
                 {"below", a.knee->below.to_json()},
                 {"above", a.knee->above.to_json()},
                 {"slope_below", a.knee->where.slope_below},
                 {"slope_above", a.knee->where.slope_above}};
  else
    j["knee"] = nullptr;
  j["breakpoints"] = nlohmann::json::array();
  for (const auto& b : a.breakpoints)
    j["breakpoints"].push_back({{"n", b.n},
                                {"slope_below", b.slope_below},
                                {"slope_above", b.slope_above},
                                {"cache", b.cache.empty() ? nlohmann::json(nullptr) : nlohmann::json(b.cache)},
                                {"cache_bytes", b.cache_bytes},
                                {"working_set_bytes", b.working_set}});
  j["regime"] = {{"from", a.regime_from}, {"text", a.regime}};
  if (const auto& ci = a.uncertainty.interval)
    j["leading_exponent"] = {{"what", ci->what}, {"estimate", ci->estimate}, {"lo", ci->lo},
                             {"hi", ci->hi},     {"confidence", 0.95},       {"resamples", ci->resamples}};
  else
    j["leading_exponent"] = nullptr;
  j["band"] = nlohmann::json::array();
  for (const auto& b : a.uncertainty.band) j["band"].push_back({{"n", b.n}, {"lo", b.lo}, {"hi", b.hi}});
  if (a.check) {
    nlohmann::json pj = nlohmann::json::array();
    for (const auto& p : a.check->points) pj.push_back({{"n", p.n}, {"predicted", p.predicted}, {"measured", p.measured}, {"rel_err", p.rel_err}});
    j["held_out"] = {{"best", a.check->best.to_json()}, {"points", pj}, {"max_rel_err", a.check->max_rel_err}};
  } else {
    j["held_out"] = nullptr;
  }
  return j;
}

}  // namespace ema::fit
