// What a problem's work model tells the analysis of one of its variants (issue 29): the working
// set (the bytes it must read), the floors of its growth (the bytes that must move, the operations,
// and what its algorithm must do beyond them, a comparison sort's n log n), the caches its data
// pass through and whether the cost is bound by memory. One place for `ema fit` (report/fits.cpp)
// and a calibrated sweep's settle phase (runner/sweep.cpp), so that the verdict the sweep settles
// on is the one `ema fit` prints.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/analyze.hpp"
#include "core/problem.hpp"

namespace ema::fit {

/// The levels of the memory hierarchy a back end's data pass through, smallest first, from the
/// machine record: the host's data caches for a CPU variant, the L2 of the GPUs it uses for a GPU one.
std::vector<memory_level> memory_levels(const nlohmann::json& machine, std::string_view backend);

/// Sets `options`' working set, work floors, caches and whether the cost is bound by memory (at
/// `largest`, the largest size fitted) for a variant of `problem` with `params` and `algorithm`,
/// measured on `machine` with `backend`. Nothing where the work model refuses the parameters.
void add_work_model(analysis_options& options, const problem_desc& problem, const std::shared_ptr<const param_set>& params,
                    std::string_view algorithm, const nlohmann::json& machine, std::string_view backend, double largest);

}  // namespace ema::fit
