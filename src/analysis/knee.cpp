#include "analysis/knee.hpp"

#include <Eigen/Dense>
#include <cmath>
#include <map>

namespace ema::fit {
namespace {

struct line_fit {
  double sse = INFINITY;
  Eigen::Vector3d coef = Eigen::Vector3d::Zero();
};

// Least squares of z on [1, x, max(0, x - b)] (on [1, x] when b is NaN).
line_fit fit_hinge(const std::vector<double>& x, const std::vector<double>& z, double b) {
  const bool hinge = !std::isnan(b);
  const int p = hinge ? 3 : 2;
  Eigen::MatrixXd a(static_cast<Eigen::Index>(x.size()), p);
  Eigen::VectorXd rhs(static_cast<Eigen::Index>(x.size()));
  for (std::size_t i = 0; i < x.size(); ++i) {
    const auto r = static_cast<Eigen::Index>(i);
    a(r, 0) = 1;
    a(r, 1) = x[i];
    if (hinge) a(r, 2) = std::max(0.0, x[i] - b);
    rhs[r] = z[i];
  }
  Eigen::VectorXd c = a.colPivHouseholderQr().solve(rhs);
  line_fit f;
  f.sse = (a * c - rhs).squaredNorm();
  f.coef.head(p) = c;
  return f;
}

}  // namespace

std::optional<knee> find_knee(const series& data, const knee_options& o) {
  const auto [x, z] = data.log_log();
  const int m = static_cast<int>(x.size());
  if (m < o.min_below + o.min_above || m < 6) return std::nullopt;

  const auto straight = fit_hinge(x, z, NAN);
  const double step = std::log(2.0) / 16;
  const double lo = x[static_cast<std::size_t>(o.min_below - 1)], hi = x[static_cast<std::size_t>(m - o.min_above)];
  line_fit bent;
  double best_b = NAN;
  for (double b = lo; b <= hi + 1e-12; b += step) {
    auto f = fit_hinge(x, z, b);
    if (f.sse < bent.sse) {
      bent = f;
      best_b = b;
    }
  }
  if (std::isnan(best_b)) return std::nullopt;
  const double below = bent.coef[1], above = bent.coef[1] + bent.coef[2];
  if (std::abs(below) > o.max_slope_below || bent.coef[2] < o.min_bend) return std::nullopt;
  if (std::abs(below) > o.slow_below && (bent.coef[2] < o.min_bend_after_slow || above > o.max_slope_after_slow)) return std::nullopt;
  const double residual = bent.sse / (m - 4);
  const double f_stat = residual > 0 ? (straight.sse - bent.sse) / 2 / residual : INFINITY;
  if (!(f_stat >= o.min_f)) return std::nullopt;
  return knee{std::exp(best_b), below, above};
}

}  // namespace ema::fit
