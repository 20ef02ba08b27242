// The best value of a parameter axis (`ema show --best k`): the source of the stencil problem asks
// how many time steps per load are best, and a user sweeping a tuning parameter asks the same. Per
// problem, setting of the other parameters, variant and size: the value of the axis with the least
// median total time, that time, and the runner-up with whether it is within the noise (the 95%
// bootstrap interval of T(runner-up) / T(best) holds 1).
#pragma once

#include <string>

#include "report/table.hpp"
#include "report/view.hpp"

namespace ema {

/// The table as text or Markdown. Throws usage_error when no problem of the experiment has points
/// at two or more values of `key`.
std::string render_best(const experiment_view& v, const std::string& key, table_style style);

}  // namespace ema
