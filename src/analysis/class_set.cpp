#include "analysis/class_set.hpp"

#include "analysis/groups.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace ema::fit {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

/// One point per size: the mean of its replicates.
series per_size_means(const series& d) {
  series s;
  const auto sizes = d.sizes();
  const auto means = d.means();
  for (std::size_t i = 0; i < sizes.size(); ++i) s.add(sizes[i], means[i]);
  return s;
}

series without(const series& s, std::size_t i) {
  series out;
  for (std::size_t k = 0; k < s.size(); ++k)
    if (k != i) out.add(s.n[k], s.y[k]);
  return out;
}

bool is_coarse(double a, double b) {
  return std::any_of(std::begin(coarse_classes), std::end(coarse_classes), [&](const auto& c) { return a == c.first && b == c.second; });
}

/// The held-out errors of ln T for one shape: each size left out in turn, the shape fitted to the
/// rest and its prediction compared. A constant or lower-order term that a fold cannot carry (its
/// coefficient at the bound 0) is that fold's shape without it. Nullopt when a fold cannot be
/// fitted at all.
std::optional<std::vector<double>> held_out_errors(const series& means, const shape& s) {
  std::vector<double> e(means.size());
  for (std::size_t i = 0; i < means.size(); ++i) {
    const auto rest = without(means, i);
    auto f = fit_shape(rest, equation::of(s));
    for (int drop = 1; !f && drop <= 3; ++drop) {  // without c, without the lower term, without both
      auto simpler = s;
      simpler.constant = s.constant && !(drop & 1);
      simpler.lower = s.lower && !(drop & 2);
      if (simpler == s) continue;
      f = fit_shape(rest, equation::of(simpler));
    }
    if (!f) return std::nullopt;
    const double p = (*f)(means.n[i]);
    if (!(p > 0) || !std::isfinite(p)) return std::nullopt;
    e[i] = std::log(means.y[i] / p);
  }
  return e;
}

double mean_square(const std::vector<double>& e) {
  double s = 0;
  for (double x : e) s += x * x;
  return e.empty() ? nan : s / static_cast<double>(e.size());
}

/// The best split of z (ascending in x) into stretches of at least `min_len`, each at its mean,
/// with up to `max_steps` steps, every one up by at least ×`min_step`: the start of each stretch after
/// the first, and the levels. Nullopt when no split with at least one step qualifies.
struct split {
  std::vector<std::size_t> starts;  ///< index of each stretch's first element, the first stretch excluded
  std::vector<double> levels;
  double sse = INFINITY;
};

std::optional<split> best_split(const std::vector<double>& z, int max_steps, std::size_t min_len, double min_step) {
  const std::size_t m = z.size();
  std::vector<double> s1(m + 1, 0), s2(m + 1, 0);
  for (std::size_t i = 0; i < m; ++i) s1[i + 1] = s1[i] + z[i], s2[i + 1] = s2[i] + z[i] * z[i];
  auto mean = [&](std::size_t a, std::size_t b) { return (s1[b] - s1[a]) / static_cast<double>(b - a); };
  auto sse = [&](std::size_t a, std::size_t b) {
    const double k = static_cast<double>(b - a), t = s1[b] - s1[a];
    return std::max(0.0, s2[b] - s2[a] - t * t / k);
  };
  const double rise = std::log(min_step);
  std::optional<split> best;
  auto consider = [&](std::vector<std::size_t> starts) {
    std::vector<std::size_t> edges{0};
    edges.insert(edges.end(), starts.begin(), starts.end());
    edges.push_back(m);
    split sp;
    sp.starts = std::move(starts);
    sp.sse = 0;
    for (std::size_t k = 0; k + 1 < edges.size(); ++k) {
      if (edges[k + 1] - edges[k] < min_len) return;
      sp.levels.push_back(mean(edges[k], edges[k + 1]));
      sp.sse += sse(edges[k], edges[k + 1]);
      if (k && sp.levels[k] < sp.levels[k - 1] + rise) return;
    }
    if (!best || sp.sse < best->sse) best = std::move(sp);
  };
  for (std::size_t a = min_len; a + min_len <= m; ++a) {
    consider({a});
    if (max_steps >= 2)
      for (std::size_t b = a + min_len; b + min_len <= m; ++b) consider({a, b});
  }
  return best;
}

/// ln T at each size minus ln of the class's growing term (a = exponent of n, b = of log2 n).
std::vector<double> class_residuals(const series& means, double a, double b) {
  std::vector<double> z(means.size());
  for (std::size_t i = 0; i < means.size(); ++i)
    z[i] = std::log(means.y[i]) - a * std::log(means.n[i]) - (b != 0 ? b * std::log(std::log2(means.n[i])) : 0.0);
  return z;
}

/// Held-out errors of a class with up to two steps: each size left out, the rest split (stretches
/// of 2 sizes or more: a stretch of 3 with one held out leaves 2), the size predicted by the level
/// of the stretch it falls in. Nullopt when a fold has no qualifying split.
std::optional<std::vector<double>> stepped_errors(const series& means, double a, double b, double min_step) {
  const auto z = class_residuals(means, a, b);
  const std::size_t m = z.size();
  std::vector<double> e(m);
  for (std::size_t i = 0; i < m; ++i) {
    std::vector<double> rest, x;
    for (std::size_t k = 0; k < m; ++k)
      if (k != i) rest.push_back(z[k]), x.push_back(std::log(means.n[k]));
    const auto sp = best_split(rest, 2, 2, min_step);
    if (!sp) return std::nullopt;
    // Which stretch the size falls in; a size in the gap where a step lies could belong to either
    // side (the data place the step only between the sizes measured), so it is predicted by the
    // nearer of the two levels.
    std::size_t stretch = 0;
    const double xi = std::log(means.n[i]);
    bool in_gap = false;
    for (auto start : sp->starts) {
      if (xi > x[start])
        ++stretch;
      else if (xi > x[start - 1])
        in_gap = true;
    }
    e[i] = z[i] - sp->levels[stretch];
    if (in_gap && stretch + 1 < sp->levels.size() && std::abs(z[i] - sp->levels[stretch + 1]) < std::abs(e[i])) e[i] = z[i] - sp->levels[stretch + 1];
  }
  return e;
}

}  // namespace

double between_size_noise(const series& data, bool semilog) {
  auto [x, y] = data.log_log();
  if (semilog)
    for (auto& v : x) v = std::exp(v);
  if (x.size() < 3) return nan;
  double sum = 0;
  int count = 0;
  for (std::size_t i = 1; i + 1 < x.size(); ++i) {
    const double span = x[i + 1] - x[i - 1];
    if (!(span > 0)) continue;
    const double w = (x[i + 1] - x[i]) / span;  // weight of the left neighbour
    const double d = y[i] - (w * y[i - 1] + (1 - w) * y[i + 1]);
    sum += d * d / (1 + w * w + (1 - w) * (1 - w));
    ++count;
  }
  return count ? std::sqrt(sum / count) : nan;
}

std::optional<noise_model> between_size_noise_model(const series& data) {
  const auto [x, y] = data.log_log();
  const std::size_t m = x.size();
  struct second_difference {
    std::size_t i;
    double w, d;  // the left neighbour's weight, the departure from the line through the neighbours
  };
  std::vector<second_difference> diffs;
  for (std::size_t i = 1; i + 1 < m; ++i) {
    const double span = x[i + 1] - x[i - 1];
    if (!(span > 0)) continue;
    const double w = (x[i + 1] - x[i]) / span;
    diffs.push_back({i, w, y[i] - (w * y[i - 1] + (1 - w) * y[i + 1])});
  }
  if (diffs.empty()) return std::nullopt;
  std::vector<double> t(m);
  for (std::size_t k = 0; k < m; ++k) t[k] = std::exp(y[k]);
  // Relative alone: the maximum-likelihood σ² is the mean of d² over its variance factor.
  double relative2 = 0;
  for (const auto& q : diffs) relative2 += q.d * q.d / (1 + q.w * q.w + (1 - q.w) * (1 - q.w));
  relative2 /= static_cast<double>(diffs.size());
  noise_model plain{std::sqrt(relative2), 0};
  if (diffs.size() < 6 || !(relative2 > 0)) return plain;
  // Minus twice the log-likelihood (less a constant) of a model.
  auto deviance = [&](double rel2, double fixed2) {
    double sum = 0;
    for (const auto& q : diffs) {
      auto var = [&](std::size_t k) { return rel2 + fixed2 / (t[k] * t[k]); };
      const double v = var(q.i) + q.w * q.w * var(q.i - 1) + (1 - q.w) * (1 - q.w) * var(q.i + 1);
      sum += std::log(v) + q.d * q.d / v;
    }
    return sum;
  };
  const double plain_deviance = deviance(relative2, 0);
  const double quickest = *std::min_element(t.begin(), t.end());
  double best = plain_deviance;
  noise_model fitted = plain;
  // A grid in logs: the relative part from 0.01% to 100%, the fixed part from 0.1% to 10 times the
  // quickest size's value.
  for (int a = 0; a <= 80; ++a)
    for (int b = 0; b <= 80; ++b) {
      const double rel = std::pow(10.0, -4 + a * 0.05), fixed = quickest * std::pow(10.0, -3 + b * 0.05);
      if (const double d = deviance(rel * rel, fixed * fixed); d < best) best = d, fitted = {rel, fixed};
    }
  return plain_deviance - best >= 6 ? fitted : plain;
}

std::vector<off_size> off_neighbours(const series& data) {
  const auto [x, y] = data.log_log();
  const auto sizes = data.sizes();  // n itself: exp(ln n) need not give it back exactly
  const std::size_t m = x.size();
  std::vector<off_size> out;
  if (m < 5) return out;
  // Each inner size's departure from the line through its two neighbours.
  std::vector<double> d(m, 0.0), scaled;
  for (std::size_t i = 1; i + 1 < m; ++i) {
    const double span = x[i + 1] - x[i - 1];
    if (!(span > 0)) return out;
    const double w = (x[i + 1] - x[i]) / span;
    d[i] = y[i] - (w * y[i - 1] + (1 - w) * y[i + 1]);
    scaled.push_back(std::abs(d[i]));
  }
  std::nth_element(scaled.begin(), scaled.begin() + static_cast<std::ptrdiff_t>(scaled.size() / 2), scaled.end());
  const double typical = scaled[scaled.size() / 2];
  const double bar = std::max(std::log(1.25), 5 * typical);
  for (std::size_t i = 1; i + 1 < m; ++i) {
    if (std::abs(d[i]) < bar) continue;
    auto opposite = [&](std::size_t j) { return j == 0 || j + 1 == m || (d[j] * d[i] < 0 && std::abs(d[j]) >= 0.25 * std::abs(d[i])); };
    // One displaced size moves each neighbour's departure the other way by about half its own; a
    // step in cost between two sizes moves the pair beside it the two ways by as much each, and the
    // sizes beyond the pair far less. A neighbour j departing the other way by three quarters of it
    // or more, with the sizes on either side of the pair (ends of the range included) within half
    // of it, is the other side of a step. (Sizes displaced on either side of one, a zigzag, move
    // the sizes beyond as much as the pair: no step.)
    const double size = std::abs(d[i]);
    auto quiet = [&](std::size_t k) { return k == 0 || k + 1 == m || std::abs(d[k]) < 0.5 * size; };
    auto step_with = [&](std::size_t j) {
      if (j == 0 || j + 1 == m || !(d[j] * d[i] < 0 && std::abs(d[j]) >= 0.75 * size)) return false;
      const std::size_t lo = std::min(i, j), hi = std::max(i, j);
      return quiet(lo - 1) && quiet(hi + 1);
    };
    if (opposite(i - 1) && opposite(i + 1) && !step_with(i - 1) && !step_with(i + 1)) out.push_back({sizes[i], std::expm1(d[i])});
  }
  return out;
}

namespace {

/// What a coarse class may also be fitted as: with steps up in its cost, or with a lower-order term
/// beside it. Used in place of the plain fits when they predict the held-out sizes better enough.
struct alternative {
  bool valid = false;
  double cv = INFINITY;
  std::vector<double> errors;
  std::vector<cost_step> steps;
  equation eq;
};

/// One class of the lattice as fitted: plainly (the better of with and without c, held out), and
/// its alternatives.
struct candidate {
  judged_class judged;
  std::vector<double> errors;  ///< held out, per size
  alternative steps, terms;
};

/// The class n^a · log^b n fitted plainly: of with and without c, the one whose held-out error is
/// least. Nullopt when neither can be fitted or held out.
std::optional<candidate> plain_fit(const series& means, double a, double b) {
  const std::size_t m = means.size();
  std::optional<candidate> best;
  for (bool c : {false, true}) {
    if (c && a == 0 && b == 0) continue;
    const shape s{.a1 = a, .a5 = b, .constant = c};
    if (s.coefficient_count() >= static_cast<int>(m)) continue;
    auto whole = fit_shape(means, equation::of(s));
    if (!whole || (c && !identified(*whole, means.n))) continue;
    auto e = held_out_errors(means, s);
    if (!e) continue;
    if (const double cv = mean_square(*e); !best || cv < best->judged.cv) {
      best = candidate{};
      best->judged.eq = *whole;
      best->judged.cv = cv;
      best->errors = std::move(*e);
    }
  }
  if (!best) return std::nullopt;
  auto& j = best->judged;
  j.cls = j.eq.theta();
  j.cls.n = a, j.cls.log = b;
  j.coarse = is_coarse(a, b);
  return best;
}

/// A coarse class with up to two steps up in its cost (class_set.hpp).
alternative with_steps(const series& means, double a, double b, double min_step) {
  alternative st;
  auto e = stepped_errors(means, a, b, min_step);
  if (!e) return st;
  st.errors = *e;
  st.cv = mean_square(*e);
  const auto z = class_residuals(means, a, b);
  if (auto sp = best_split(z, 2, 3, min_step)) {
    st.valid = true;
    for (std::size_t k = 0; k < sp->starts.size(); ++k) {
      const auto at = sp->starts[k];
      st.steps.push_back({std::sqrt(means.n[at - 1] * means.n[at]), std::exp(sp->levels[k + 1] - sp->levels[k])});
    }
    st.eq = equation::of(shape{.a1 = a, .a5 = b});
    st.eq.a0 = std::exp(sp->levels.back());
    score(st.eq, means.within(means.n[sp->starts.back()], INFINITY));
  }
  return st;
}

/// A coarse class with a coarse lower-order term beside it (and c or not): the best by held-out
/// error of those both of whose terms carry the value at three sizes or more, whose leading term
/// grows at least `two_term_spread` times more than the lower one over the sizes (else the two are
/// near parallel there, and a slight curvature, a cache's or the noise's, passes for the leading
/// class), and carries at least half the value at the largest size (else the data show the lower
/// class with a bend, not the leading class).
alternative with_lower_term(const series& means, double a, double b, const class_set_options& o) {
  const std::size_t m = means.size();
  const bool logs_ok = means.n.front() >= 2;
  alternative two;
  auto growth = [&](double ea, double eb) {  // of n^ea · log2(n)^eb over the sizes, in ln
    const double lo = means.n.front(), hi = means.n.back();
    return ea * std::log(hi / lo) + (eb != 0 ? eb * std::log(std::log2(hi) / std::log2(lo)) : 0.0);
  };
  for (const auto& [la, lb] : coarse_classes) {
    if ((la == 0 && lb == 0) || (lb > 0 && !logs_ok) || !(la < a || (la == a && lb < b))) continue;
    if (growth(a, b) - growth(la, lb) < std::log(o.two_term_spread)) continue;
    for (bool c : {false, true}) {
      const shape s{.a1 = a, .a5 = b, .constant = c, .lower = true, .l1 = la, .l5 = lb};
      if (s.coefficient_count() >= static_cast<int>(m)) continue;
      auto whole = fit_shape(means, equation::of(s));
      if (!whole || !identified(*whole, means.n)) continue;
      if (std::exp(whole->log_term(means.n.back())) < 0.5 * (*whole)(means.n.back())) continue;
      auto e = held_out_errors(means, s);
      if (!e) continue;
      if (const double cv = mean_square(*e); cv < two.cv) {
        two.valid = true;
        two.cv = cv;
        two.errors = *e;
        two.eq = *whole;
      }
    }
  }
  return two;
}

/// Every class of the lattice fitted, with its alternatives where it is coarse, by held-out
/// error ascending.
std::vector<candidate> fit_lattice(const series& means, const class_set_options& o) {
  const std::size_t m = means.size();
  const bool logs_ok = means.n.front() >= 2;
  std::vector<candidate> out;
  for (double a = 0; a <= o.max_n_exponent + 1e-9; a += 0.5)
    for (double b = 0; b <= o.max_log_exponent + 1e-9; b += 0.5) {
      if (b > 0 && !logs_ok) continue;
      auto c = plain_fit(means, a, b);
      if (!c) continue;
      if (c->judged.coarse && m >= 7) c->steps = with_steps(means, a, b, o.min_step);
      if (c->judged.coarse && m >= o.two_term_sizes) c->terms = with_lower_term(means, a, b, o);
      out.push_back(std::move(*c));
    }
  std::stable_sort(out.begin(), out.end(), [](const candidate& x, const candidate& y) { return x.judged.cv < y.judged.cv; });
  return out;
}

/// Steps, or a lower-order term: when a coarse class so fitted predicts the held-out sizes
/// step_gain (steps) or two_term_gain (a lower term) times better than every class without, and
/// still predicts better than all of them with any one size left out of the sums (an advantage
/// owed to one size alone, a cache's edge at the largest, is not a faster class), the set is
/// judged that way: each coarse class by the better of its plain fit and that one. Of the two
/// kinds, the one predicting better. Sets `stepped` or `two_term` where it does so.
void use_alternatives(std::vector<candidate>& all, class_set& out, const class_set_options& o) {
  const std::size_t m = all.front().errors.size();
  double plain = INFINITY, stepped = INFINITY, two_term = INFINITY;
  for (const auto& c : all) {
    plain = std::min(plain, c.judged.cv);
    if (c.steps.valid) stepped = std::min(stepped, c.steps.cv);
    if (c.terms.valid) two_term = std::min(two_term, c.terms.cv);
  }
  // Whether the best alternative still predicts better than every plain class without any one size.
  auto robust = [&](alternative candidate::*kind) {
    for (std::size_t skip = 0; skip < m; ++skip) {
      auto sum = [&](const std::vector<double>& e) {
        double s = 0;
        for (std::size_t i = 0; i < m; ++i)
          if (i != skip) s += e[i] * e[i];
        return s;
      };
      double best_plain = INFINITY, best_alt = INFINITY;
      for (const auto& c : all) {
        best_plain = std::min(best_plain, sum(c.errors));
        if ((c.*kind).valid) best_alt = std::min(best_alt, sum((c.*kind).errors));
      }
      if (!(best_alt < best_plain)) return false;
    }
    return true;
  };
  const bool use_steps = std::isfinite(stepped) && stepped * o.step_gain <= plain && robust(&candidate::steps);
  const bool use_terms = std::isfinite(two_term) && two_term * o.two_term_gain <= plain && robust(&candidate::terms);
  if (!use_steps && !use_terms) return;
  const bool by_steps = use_steps && (!use_terms || stepped <= two_term);
  const auto kind = by_steps ? &candidate::steps : &candidate::terms;
  (by_steps ? out.stepped : out.two_term) = true;
  std::vector<candidate> kept;
  for (auto& c : all) {
    if (!c.judged.coarse) continue;
    if (const auto& alt = c.*kind; alt.valid && alt.cv < c.judged.cv) {
      c.judged.cv = alt.cv;
      c.judged.eq = alt.eq;
      c.judged.steps = alt.steps;
      c.errors = alt.errors;
    }
    kept.push_back(std::move(c));
  }
  std::stable_sort(kept.begin(), kept.end(), [](const candidate& x, const candidate& y) { return x.judged.cv < y.judged.cv; });
  all = std::move(kept);
}

/// The evidence of held-out errors `e` against `against`'s (the chosen class's): Σ (e² − against²)
/// over the sizes, each size's term over its σ², `skip` left out; all over the chosen class's own
/// mean of against²/σ² where that exceeds 1 (a class that misses the sizes by more than their noise
/// — a machine's steps and bends that no class follows — cannot exclude others by differences of
/// the size of its own misses). With one σ for every size, Σ (e² − against²) / max(σ², its cv).
double weighed_evidence(const std::vector<double>& e, const std::vector<double>& against, const std::vector<double>& sigma,
                        std::size_t skip = SIZE_MAX) {
  double sum = 0, own = 0;
  for (std::size_t i = 0; i < e.size(); ++i) {
    const double v = sigma[i] * sigma[i];
    own += against[i] * against[i] / v;
    if (i != skip) sum += (e[i] * e[i] - against[i] * against[i]) / v;
  }
  return sum / std::max(1.0, own / static_cast<double>(e.size()));
}

/// σ of ln T at each size of `means`: the scatter at its value, the replicates' noise, 0.2%.
std::vector<double> noise_at_sizes(const series& means, const noise_model& scatter, double replicates) {
  std::vector<double> out(means.size());
  for (std::size_t i = 0; i < means.size(); ++i) {
    const double at = scatter.at(means.y[i]);
    out[i] = std::max({std::isfinite(at) ? at : 0.0, std::isfinite(replicates) ? replicates : 0.0, 0.002});
  }
  return out;
}

/// The evidence between classes of a set, from their held-out errors.
struct evidence_of {
  const class_set& set;
  const std::vector<std::vector<double>>& errors;
  const class_set_options& o;

  /// Against `against`, scaled by the noise, or by the held-out error of the class it is weighed
  /// against when that is larger: a class that itself misses the sizes by more than the noise (a
  /// machine's steps and bends that no class of the lattice follows) cannot exclude others by
  /// differences of the same size as its own misses. `skip`: a size left out of the sum.
  double operator()(std::size_t k, std::size_t against, std::size_t skip = SIZE_MAX) const {
    return weighed_evidence(errors[k], errors[against], set.size_noise, skip);
  }
  /// Excluded by every size together (above `exclude`), and still by all but any one of them
  /// (above `without_one`): a class that one size alone (a step at the top, a slow outlier)
  /// excludes is not excluded (class_set.hpp).
  bool beyond(std::size_t k, std::size_t against, double without_one) const {
    if ((*this)(k, against) <= o.exclude) return false;
    for (std::size_t j = 0; j < errors[k].size(); ++j)
      if ((*this)(k, against, j) <= without_one) return false;
    return true;
  }
  /// Excluded, as the verdict judges: with one size left out, above `exclude_without_one`.
  bool excluded(std::size_t k, std::size_t against) const { return beyond(k, against, o.exclude_without_one); }
  /// Told apart, as the answer is chosen: with one size left out, still above `exclude`.
  bool told_apart(std::size_t k, std::size_t against) const { return beyond(k, against, o.exclude); }
};

/// How fast the work the variant must do grows over the sizes (the fastest of its measures).
double work_growth_of(const class_set_options& o, const series& means) { return work_growth(o.work, means.n.front(), means.n.back()); }

/// The answer, from coarse to fine: the coarse class predicting best, unless a finer one excludes
/// every coarse class and cuts the held-out error fine_gain times; then parsimony, then the work
/// (class_set.hpp). Sets `chosen` and `by_work`.
void choose(class_set& out, const evidence_of& ev, const series& means, const class_set_options& o) {
  std::optional<std::size_t> coarse_best, fine_best;
  for (std::size_t k = 0; k < out.classes.size(); ++k) {
    if (out.classes[k].coarse && !coarse_best) coarse_best = k;
    if (!out.classes[k].coarse && !fine_best) fine_best = k;
  }
  out.chosen = coarse_best ? *coarse_best : *fine_best;
  if (coarse_best && fine_best && out.classes[*fine_best].cv * o.fine_gain <= out.classes[*coarse_best].cv) {
    bool all_out = true;
    for (std::size_t k = 0; k < out.classes.size(); ++k)
      if (out.classes[k].coarse && !ev.told_apart(k, *fine_best)) all_out = false;
    if (all_out) out.chosen = *fine_best;
  }

  // Of coarse classes the data cannot tell from the one predicting best, the simplest: with the
  // same power of n, the smaller power of log n (parsimony, as EMA's best equation counts a log
  // factor as a coefficient more).
  if (out.classes[out.chosen].coarse) {
    const auto lead = out.chosen;
    for (std::size_t k = 0; k < out.classes.size(); ++k) {
      const auto& c = out.classes[k];
      const auto& now = out.classes[out.chosen];
      if (c.coarse && c.cls.n == now.cls.n && c.cls.log < now.cls.log && !ev.told_apart(k, lead)) out.chosen = k;
    }
  }

  // The work as the tie breaker: no class growing slower than the work over the sizes, of those
  // the data cannot tell from the class chosen without it.
  const double lo = means.n.front(), hi = means.n.back();
  const double floor = work_growth_of(o, means);
  auto growth = [&](std::size_t k) { return class_growth(out.classes[k].cls, lo, hi); };
  const auto lead = out.chosen;
  if (!std::isfinite(floor) || !(growth(lead) < floor - 0.02)) return;
  // The slowest-growing class at the work's growth that the data leave; where they leave none, the
  // fastest-growing power of n below it that is faster than the lead (as near the work as the data
  // allow; never by a log factor alone, which is what a step or a bend fakes).
  std::optional<std::size_t> at_work, toward;
  for (std::size_t k = 0; k < out.classes.size(); ++k) {
    const auto& c = out.classes[k];
    if (!c.coarse || k == lead || ev.told_apart(k, lead)) continue;
    if (!(growth(k) < floor - 0.02)) {
      if (!at_work || growth(k) < growth(*at_work)) at_work = k;
    } else if (c.cls.log == 0 && growth(k) > growth(lead) && (!toward || growth(k) > growth(*toward))) {
      toward = k;
    }
  }
  if (const auto pick = at_work ? at_work : toward) out.chosen = *pick, out.by_work = lead;
}

/// The work's coarse class g fitted with a lower-order term n^l1 · log^l5 n beside it (subtracted
/// where `less`), with and without c: the fit whose held-out errors are least, where both terms carry
/// 5% of the value at three sizes or more (`identified`) and the fit is positive at every size.
struct term_fit {
  equation eq;
  std::vector<double> errors;
  double cv = INFINITY;
};
std::optional<term_fit> work_class_with_term(const series& means, const theta_class& g, double l1, double l5, bool less) {
  std::optional<term_fit> best;
  for (bool c : {false, true}) {
    const shape s{.a1 = g.n, .a5 = g.log, .constant = c, .lower = true, .l1 = l1, .l5 = l5, .lower_less = less};
    if (s.coefficient_count() >= static_cast<int>(means.size())) continue;
    auto whole = fit_shape(means, equation::of(s));
    if (!whole || !(whole->a0 > 0) || !(whole->d > 0) || !identified(*whole, means.n)) continue;
    if (std::any_of(means.n.begin(), means.n.end(), [&](double n) { return !((*whole)(n) > 0); })) continue;
    auto e = held_out_errors(means, s);
    if (!e) continue;
    if (const double cv = mean_square(*e); cv < (best ? best->cv : INFINITY)) best = term_fit{*whole, std::move(*e), cv};
  }
  return best;
}

/// Makes class `at`, fitted as `fit`, the answer in place of `lead` where the data do not tell the
/// two apart (with the fit's held-out errors); false, and nothing changed, where they do.
bool adopt(class_set& out, std::vector<std::vector<double>>& errors, const evidence_of& ev, std::size_t at, std::size_t lead, term_fit&& fit) {
  const auto saved = errors[at];
  errors[at] = fit.errors;
  if (ev.told_apart(at, lead)) {
    errors[at] = saved;
    return false;
  }
  out.classes[at].eq = std::move(fit.eq);
  out.classes[at].cv = fit.cv;
  out.chosen = at;
  return true;
}

/// The work's class with the answer's beside it (class_set.hpp, "The work's class beside a lower
/// term"): where the answer grows slower than the work and the data exclude every class at the
/// work's growth fitted alone, the slowest of those classes is fitted again as a0 · g(n) + d · h(n)
/// (+ c), h the answer's class, both terms carrying 5% of the value at three sizes or more
/// (`identified`); when that fit predicts the held-out sizes better than the answer and the data
/// do not tell it from the answer (as the work's tie breaker judges, with one size left out too),
/// it is the answer, and the answer's class is excluded by the work. A merge sort whose per-key
/// overhead (Θ(n)) hides its n log n comparisons over every size a machine holds is then
/// Θ(n log n) beside a Θ(n) term, as its work says, where its n log n term shows in the data at
/// all. Not for a sublinear answer (a launch-bound start, not a lower term).
void work_beside_answer(class_set& out, std::vector<std::vector<double>>& errors, const evidence_of& ev, const series& means,
                        const class_set_options& o) {
  const double lo = means.n.front(), hi = means.n.back(), floor = work_growth_of(o, means);
  const auto lead = out.chosen;
  const auto& answer = out.classes[lead];
  auto growth = [&](std::size_t k) { return class_growth(out.classes[k].cls, lo, hi); };
  // A sublinear answer is a launch- or latency-bound start, whose class is in the largest sizes
  // (analyze.cpp weighs the upper half again where it steepens there), not a lower-order term.
  if (!std::isfinite(floor) || !answer.coarse || answer.cls.n < 1 || !(growth(lead) < floor - 0.02) || means.size() < o.two_term_sizes || lo < 2)
    return;
  std::optional<std::size_t> at_work;
  for (std::size_t k = 0; k < out.classes.size(); ++k)
    if (out.classes[k].coarse && !(growth(k) < floor - 0.02) && (!at_work || growth(k) < growth(*at_work))) at_work = k;
  if (!at_work) return;
  auto best = work_class_with_term(means, out.classes[*at_work].cls, answer.cls.n, answer.cls.log, false);
  // It must predict the held-out sizes better than the answer does: a term the data do not need
  // (a clean Θ(n), fitted beside an n log n term) only adds scatter held out.
  if (!best || !(best->cv < answer.cv)) return;
  if (adopt(out, errors, ev, *at_work, lead, std::move(*best)) && !out.by_work) out.by_work = lead;
}

/// The work's class less a lower term (class_set.hpp, "The work's class less a lower term"): where
/// the answer grows faster than the work over the sizes, the slowest coarse class at the work's
/// growth is fitted again as a0 · g(n) − d · h(n) (+ c), h the coarse class just below g, both
/// terms carrying 5% of the value at three sizes or more and the fit positive at every size; when
/// that fit predicts the held-out sizes better than the answer and the data do not tell it from
/// the answer, it is the answer. The answer's class stays beside it, never excluded by the work (a
/// cost above the work is possible: a cache's creep): a rival where it is coarse and the data do
/// not exclude it; a finer class is no rival of a coarse answer, here as everywhere in the set.
void work_under_answer(class_set& out, std::vector<std::vector<double>>& errors, const evidence_of& ev, const series& means,
                       const class_set_options& o) {
  const double lo = means.n.front(), hi = means.n.back(), floor = work_growth_of(o, means);
  const auto lead = out.chosen;
  const auto& answer = out.classes[lead];
  auto growth = [&](std::size_t k) { return class_growth(out.classes[k].cls, lo, hi); };
  if (!std::isfinite(floor) || answer.cls.n < 1 || !(growth(lead) > floor + 0.02) || means.size() < o.two_term_sizes || lo < 2) return;
  std::optional<std::size_t> at_work;
  for (std::size_t k = 0; k < out.classes.size(); ++k)
    if (out.classes[k].coarse && !(growth(k) < floor - 0.02) && (!at_work || growth(k) < growth(*at_work))) at_work = k;
  if (!at_work || !(growth(*at_work) < growth(lead))) return;
  const auto g = out.classes[*at_work].cls;
  // h: the coarse class just below g.
  std::optional<std::pair<double, double>> h;
  for (const auto& [a, b] : coarse_classes)
    if (a < g.n || (a == g.n && b < g.log)) h = std::pair{a, b};
  if (!h) return;
  auto best = work_class_with_term(means, g, h->first, h->second, true);
  if (best && best->cv < answer.cv) adopt(out, errors, ev, *at_work, lead, std::move(*best));
}

/// How the data's slope departs from the answer's along the range and over the largest sizes
/// (class_set::bend, top_bend), from 8 sizes.
void measure_bends(class_set& out, const series& means) {
  const std::size_t m = means.size();
  if (m < 8) return;
  const auto& chosen = out.classes[out.chosen];
  // The residuals' slope over each half of the sizes, and its standard error.
  auto half_slope = [&](std::size_t from, std::size_t to, double& se) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    const double k = static_cast<double>(to - from);
    std::vector<double> x, r;
    for (std::size_t i = from; i < to; ++i) {
      x.push_back(std::log(means.n[i]));
      r.push_back(std::log(means.y[i] / chosen.value(means.n[i])));
      sx += x.back(), sy += r.back(), sxx += x.back() * x.back(), sxy += x.back() * r.back();
    }
    const double vx = sxx - sx * sx / k, b = (sxy - sx * sy / k) / vx, a = (sy - b * sx) / k;
    double ss = 0;
    for (std::size_t i = 0; i < x.size(); ++i) ss += (r[i] - a - b * x[i]) * (r[i] - a - b * x[i]);
    const double var = std::max(ss / std::max(1.0, k - 2), out.noise * out.noise);
    se = std::sqrt(var / vx);
    return b;
  };
  double se_lo = 0, se_hi = 0;
  const double lo = half_slope(0, m / 2, se_lo), hi = half_slope(m - m / 2, m, se_hi);
  out.bend = hi - lo;
  out.bend_se = std::hypot(se_lo, se_hi);
  // And over the largest sizes alone, against the answer's own slope there: the 3 largest, the
  // 4 largest, up to a quarter of the sizes; the window that departs most, in standard errors.
  double most = -INFINITY;
  for (std::size_t k = 3; k <= std::max<std::size_t>(4, m / 4); ++k) {
    double se = 0;
    const double b = half_slope(m - k, m, se);
    if (b / se > most) most = b / se, out.top_sizes = k, out.top_bend = b, out.top_bend_se = se;
  }
}

/// The size that settles a rival if the answer is right: the smallest above the data, a quarter
/// of an octave apart, at which one more size, measured as the answer predicts but one σ toward the
/// rival, would exclude it by the set's own rule (both classes fitted again with it, held out,
/// with any one size left out). Naming the size where the two fits differ by a margin instead
/// named sizes that did not settle it half the time: with the size added, the rival's fit bends
/// toward it. Nullopt where no size up to 2^62 would.
std::optional<double> settling_size(const series& means, const class_set& set, std::size_t k, const class_set_options& o) {
  const auto& chosen = set.classes[set.chosen];
  const auto& rival = set.classes[k];
  auto settles = [&](double n) {
    const double answer = chosen.value(n), other = rival.eq(n);
    if (!(answer > 0) || !std::isfinite(answer) || !std::isfinite(other)) return false;
    series more = means;
    more.add(n, answer * std::exp(other > answer ? set.noise : -set.noise));
    const auto a = plain_fit(more, chosen.cls.n, chosen.cls.log);
    const auto r = plain_fit(more, rival.cls.n, rival.cls.log);
    if (!a || !r) return false;
    // The noise as the set would measure it with the size added (a size off the curve widens it).
    const double between = between_size_noise(more);
    const double noise = std::max({std::isfinite(between) ? between : 0.0, std::isfinite(set.replicates) ? set.replicates : 0.0, 0.002});
    const double scale = std::max(noise * noise, a->judged.cv);
    auto evidence = [&](std::size_t skip) {
      double sum = 0;
      for (std::size_t i = 0; i < a->errors.size(); ++i)
        if (i != skip) sum += r->errors[i] * r->errors[i] - a->errors[i] * a->errors[i];
      return sum / scale;
    };
    if (evidence(SIZE_MAX) <= o.exclude) return false;
    for (std::size_t j = 0; j < a->errors.size(); ++j)
      if (evidence(j) <= o.exclude_without_one) return false;
    return true;
  };
  const double largest = means.n.back();
  auto size = [&](int step) { return std::ceil(largest * std::exp2(step / 4.0)); };
  int hi = 1;
  while (size(hi + 1) <= 0x1p62) ++hi;
  if (hi < 1 || !settles(size(hi))) return std::nullopt;
  int lo = 0;  // settles(size(lo)) is false or untried; settles(size(hi)) holds
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    (settles(size(mid)) ? hi : lo) = mid;
  }
  return size(hi);
}

}  // namespace

double class_growth(const theta_class& c, double lo, double hi) { return c.n + c.log * std::log(std::log(hi) / std::log(lo)) / std::log(hi / lo); }

double work_growth(const std::vector<std::function<double(double)>>& work, double lo, double hi) {
  double floor = -INFINITY;
  if (work.empty() || lo < 2) return floor;
  for (const auto& w : work)
    if (const double e = growth_exponent(w, lo, hi); std::isfinite(e)) floor = std::max(floor, e);
  return floor;
}

double growth_exponent(const std::function<double(double)>& f, double lo, double hi) {
  try {
    const double a = f(lo), b = f(hi);
    return a > 0 && b > 0 && std::isfinite(a) && std::isfinite(b) && hi > lo ? std::log(b / a) / std::log(hi / lo) : nan;
  } catch (const std::exception&) {
    return nan;
  }
}

std::optional<class_set> weigh_classes(const series& regime, double replicate_noise, const class_set_options& o) {
  const auto means = per_size_means(regime);
  if (means.size() < 4) return std::nullopt;
  class_set out;
  out.between = between_size_noise(regime);
  out.replicates = replicate_noise;
  out.noise = std::max({std::isfinite(out.between) ? out.between : 0.0, std::isfinite(replicate_noise) ? replicate_noise : 0.0, 0.002});
  const auto model = between_size_noise_model(regime);
  out.scatter = model ? *model : noise_model{out.noise, 0};
  out.size_noise = noise_at_sizes(means, out.scatter, replicate_noise);
  auto all = fit_lattice(means, o);
  if (all.empty()) return std::nullopt;
  use_alternatives(all, out, o);
  std::vector<std::vector<double>> errors;
  for (auto& c : all) out.classes.push_back(std::move(c.judged)), errors.push_back(std::move(c.errors));
  const evidence_of ev{out, errors, o};
  choose(out, ev, means, o);
  if (!out.stepped && !out.two_term) work_beside_answer(out, errors, ev, means, o);
  if (!out.stepped && !out.two_term) work_under_answer(out, errors, ev, means, o);
  measure_bends(out, means);
  // Every other class: its evidence against the answer, whether excluded, and where not, the size
  // at which it would differ from the answer by max(4σ, 5%) (for the rivals of a set judged
  // plainly, replaced below by the size that settles them); a rival of a coarse answer is coarse.
  const auto& chosen = out.classes[out.chosen];
  // A class the data leave but that grows slower than the work, beside an answer that does not, is
  // excluded by the work: the cost cannot grow slower than the work it does for long (a comparison
  // sort's n log n comparisons exclude Θ(n) however flat 16 cores' scatter leaves the data).
  const double tell = std::max(4 * out.noise, std::log(1.05));  // in ln T
  const double floor = work_growth_of(o, means), lo = means.n.front(), hi = means.n.back();
  auto below_floor = [&](const theta_class& c) { return std::isfinite(floor) && class_growth(c, lo, hi) < floor - 0.02; };
  const bool answer_meets_work = !below_floor(chosen.cls);
  // A finer class that excludes a coarse answer from below: the data lie between the answer and a
  // slower coarse class (class_set::finer). Not a class slower than the work, where the answer is
  // not: the work excludes it (a comparison sort's Θ(n log^0.5 n) is a parallel start, not a class).
  if (chosen.coarse)
    for (std::size_t k = 0; k < out.classes.size() && out.classes[k].cv < chosen.cv; ++k) {
      const auto& c = out.classes[k];
      if (c.coarse || !(class_growth(c.cls, lo, hi) < class_growth(chosen.cls, lo, hi)) || (answer_meets_work && below_floor(c.cls))) continue;
      if (ev.excluded(out.chosen, k)) {
        out.finer = k;
        break;
      }
    }
  for (std::size_t k = 0; k < out.classes.size(); ++k) {
    auto& c = out.classes[k];
    if (k == out.chosen) continue;
    c.evidence = ev(k, out.chosen);
    c.excluded = ev.excluded(k, out.chosen);
    if (c.excluded) continue;
    c.settle = find_tie_breaker(c.eq, chosen.eq, means.n.back(), std::expm1(tell));
    if (chosen.coarse && !c.coarse) continue;
    c.below_work = answer_meets_work && below_floor(c.cls);
    (c.below_work ? out.below_work : out.rivals).push_back(k);
  }
  // A rival of a set judged plainly is named with the size that would exclude it (settling_size).
  // (Not beside the work's class with a lower term: settling_size refits the answer's class alone.)
  if (!out.stepped && !out.two_term && !out.classes[out.chosen].eq.form.lower)
    for (auto k : out.rivals) out.classes[k].settle = settling_size(means, out, k, o);
  return out;
}

}  // namespace ema::fit
