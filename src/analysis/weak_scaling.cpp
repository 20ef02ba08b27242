#include "analysis/weak_scaling.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>
#include <map>
#include <stdexcept>

#include "analysis/scaling.hpp"
#include "core/format.hpp"

namespace ema::fit {
namespace {

/// The classes of T in p at a fixed share, simplest first.
constexpr std::pair<double, double> growth_classes[] = {{0, 0}, {0, 1}, {0.5, 0}, {1, 0}};

double g_of(const theta_class& c, double p) { return std::pow(p, c.n) * (c.log != 0 ? std::pow(std::log2(p), c.log) : 1.0); }

/// T = a + b·g(p) by least squares on relative error over `cells` but the one at `skip`; b ≥ 0 (a
/// time that falls with more processors at the same share is noise, not a class); false where it
/// cannot be fitted.
bool solve(weak_growth& m, const std::vector<std::pair<double, double>>& cells, double skip) {
  const bool flat = m.growth.n == 0 && m.growth.log == 0;
  double s11 = 0, s12 = 0, s22 = 0, r1 = 0, r2 = 0;
  for (const auto& [p, y] : cells) {
    if (p == skip) continue;
    const double x1 = 1 / y, x2 = g_of(m.growth, p) / y;
    s11 += x1 * x1, s12 += x1 * x2, s22 += x2 * x2, r1 += x1, r2 += x2;
  }
  if (flat) {
    if (!(s11 > 0)) return false;
    m.a = r1 / s11, m.b = 0;
    return m.a > 0;
  }
  const double det = s11 * s22 - s12 * s12;
  if (!(det > 1e-12 * s11 * s22)) return false;
  m.a = (r1 * s22 - r2 * s12) / det;
  m.b = (s11 * r2 - s12 * r1) / det;
  if (!(m.b > 0)) return false;
  for (const auto& [p, y] : cells)
    if (!(m.a + m.b * g_of(m.growth, p) > 0)) return false;
  return std::isfinite(m.a) && std::isfinite(m.b);
}

}  // namespace

weak_analysis analyze_weak(const std::vector<weak_point>& points, const std::function<double(double)>& work, double noise) {
  std::map<double, std::vector<double>> by_p;
  std::map<double, double> size_of;
  for (const auto& pt : points) {
    if (!(pt.value > 0) || !std::isfinite(pt.value) || !(pt.p >= 1) || !(pt.n >= 1))
      throw std::invalid_argument(fmt::format("a point at p = {}, n = {} has value {}: values must be positive", pt.p, pt.n, pt.value));
    if (size_of.count(pt.p) && size_of[pt.p] != pt.n)
      throw std::invalid_argument(
          fmt::format("p = {} was measured at two sizes ({} and {}): a weak-scaling series has one size a count", pt.p, size_of[pt.p], pt.n));
    size_of[pt.p] = pt.n;
    by_p[pt.p].push_back(pt.value);
  }
  if (by_p.size() < 2) throw std::invalid_argument("one processor count: weak scaling needs at least 2");
  weak_analysis a;
  a.base_p = by_p.begin()->first;
  a.n0 = size_of.at(a.base_p);
  auto w = [&](double n) { return work ? work(n) : n; };
  std::vector<std::pair<double, double>> cells;
  std::vector<double> spreads;
  for (auto& [p, ys] : by_p) {
    std::sort(ys.begin(), ys.end());
    const double m = ys.size() % 2 ? ys[ys.size() / 2] : 0.5 * (ys[ys.size() / 2 - 1] + ys[ys.size() / 2]);
    cells.emplace_back(p, m);
    if (ys.size() >= 2) {
      double mean = 0, ss = 0;
      for (double y : ys) mean += y;
      mean /= static_cast<double>(ys.size());
      for (double y : ys) ss += (y - mean) * (y - mean);
      spreads.push_back(std::sqrt(ss / static_cast<double>(ys.size() - 1)) / mean / std::sqrt(static_cast<double>(ys.size())));
    }
  }
  const double t0 = cells.front().second, w0 = w(a.n0);
  for (const auto& [p, t] : cells) {
    weak_row r{.p = p, .n = size_of.at(p), .measured = t};
    r.work_ratio = w0 > 0 ? w(r.n) / w0 : 1.0;
    r.efficiency = r.work_ratio / (p / a.base_p) * t0 / t;
    r.scaled_speedup = p / a.base_p * r.efficiency;
    a.rows.push_back(r);
  }
  for (const auto& r : a.rows)
    if (std::abs(r.work_ratio / (r.p / a.base_p) - 1) > 0.05)
      a.notes.push_back(
          fmt::format("at p = {:g} the work is {:.3g} times the smallest count's, not {:g} (the sizes are integers, or the "
                      "plan's sizes were not grown by the work): the efficiency corrects for it",
                      r.p, r.work_ratio, r.p / a.base_p));
  std::sort(spreads.begin(), spreads.end());
  const double rep = spreads.empty() ? 0.0 : spreads[spreads.size() / 2];
  a.noise = std::max({rep, std::isfinite(noise) ? noise : 0.0, 0.002});

  // Every class of T in p, by held-out error with each count left out in turn.
  std::vector<std::vector<double>> errors;
  for (const auto& [n, l] : growth_classes) {
    weak_growth m{.growth = {.n = n, .log = l}};
    const int coefs = (n == 0 && l == 0) ? 1 : 2;
    if (static_cast<int>(cells.size()) <= coefs) continue;  // a held-out fold needs as many points as coefficients
    if (!solve(m, cells, -1)) continue;
    std::vector<double> e;
    bool ok = true;
    for (const auto& [p, y] : cells) {
      auto f = m;
      if (!solve(f, cells, p)) {
        ok = false;
        break;
      }
      e.push_back(std::pow(std::log(y / (f.a + f.b * g_of(f.growth, p))), 2));
    }
    if (!ok) continue;
    double s = 0;
    for (double x : e) s += x;
    m.cv = s / static_cast<double>(e.size());
    a.growths.push_back(m);
    errors.push_back(std::move(e));
  }
  if (a.growths.empty()) throw std::invalid_argument("no class of the time in p fits the points");
  // The simplest class unless a faster one cuts the held-out error beyond the noise (evidence above
  // 10, as the work-span fit weighs it); the rest are rivals until excluded the same way.
  auto evidence = [&](std::size_t k, std::size_t against) {
    double s = 0;
    for (std::size_t i = 0; i < errors[k].size(); ++i) s += errors[k][i] - errors[against][i];
    return s / std::max(a.noise * a.noise, a.growths[against].cv);
  };
  std::size_t best = 0;
  for (std::size_t k = 1; k < a.growths.size(); ++k)
    if (a.growths[k].cv < a.growths[best].cv && evidence(best, k) > 10) best = k;
  for (std::size_t k = 0; k < a.growths.size(); ++k) a.growths[k].excluded = k != best && evidence(k, best) > 10;
  for (std::size_t k = 0; k < a.growths.size(); ++k)
    if (k != best && !a.growths[k].excluded) a.rivals.push_back(p_text(a.growths[k].growth));
  std::swap(a.growths[0], a.growths[best]);
  if (cells.size() < 4) a.notes.push_back(fmt::format("{} counts: too few to tell how the time grows with p", cells.size()));
  return a;
}

std::string weak_text(const weak_analysis& a, const std::string& unit) {
  auto value = [&](double v) { return unit == "s" ? format_time(v) : fmt::format("{:.4g} {}", v, unit); };
  const auto& m = a.answer();
  std::string out = fmt::format("  weak scaling from n0 = {} at p = {:g}: the time grows as {}{}\n", format_size(a.n0), a.base_p, p_text(m.growth),
                                a.growths.size() == 1 ? fmt::format(" (the only class {} counts can fit: measure more to tell)", a.rows.size())
                                : a.rivals.empty()    ? std::string(" (the other classes of p are excluded by the held-out errors)")
                                                      : fmt::format(" ({} not excluded)", fmt::join(a.rivals, ", ")));
  out += fmt::format("  {:>6}  {:>10}  {:>12}  {:>10}  {:>14}  {:>12}\n", "p", "n", "time", "work ×", "efficiency E_w", "scaled S_w");
  for (const auto& r : a.rows)
    out += fmt::format("  {:>6g}  {:>10}  {:>12}  {:>10.3g}  {:>14.2f}  {:>12.2f}\n", r.p, format_size(r.n), value(r.measured), r.work_ratio,
                       r.efficiency, r.scaled_speedup);
  for (const auto& n : a.notes) out += fmt::format("  note: {}\n", n);
  return out;
}

nlohmann::json to_json(const weak_analysis& a) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : a.rows)
    rows.push_back({{"p", r.p},
                    {"n", r.n},
                    {"measured", r.measured},
                    {"work_ratio", r.work_ratio},
                    {"efficiency", r.efficiency},
                    {"scaled_speedup", r.scaled_speedup}});
  nlohmann::json growths = nlohmann::json::array();
  for (const auto& g : a.growths) growths.push_back({{"class", p_text(g.growth)}, {"a", g.a}, {"b", g.b}, {"cv", g.cv}, {"excluded", g.excluded}});
  return {{"n0", a.n0},         {"base_p", a.base_p}, {"rows", rows},     {"growth", p_text(a.answer().growth)},
          {"rivals", a.rivals}, {"classes", growths}, {"noise", a.noise}, {"notes", a.notes}};
}

}  // namespace ema::fit
