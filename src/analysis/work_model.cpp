#include "analysis/work_model.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "core/backend.hpp"
#include "core/errors.hpp"
#include "core/registry.hpp"

namespace ema::fit {

std::vector<memory_level> memory_levels(const nlohmann::json& machine, std::string_view backend) {
  std::vector<memory_level> out;
  const auto& gpus = machine.value("gpus", nlohmann::json::array());
  if (const int used = devices_used(backend, static_cast<int>(gpus.size())); used > 0) {
    double l2 = 0;
    for (int i = 0; i < used; ++i) l2 += gpus[static_cast<std::size_t>(i)].value("l2_bytes", 0.0);
    if (l2 > 0) out.push_back({used > 1 ? fmt::format("L2 of {} GPUs", used) : std::string("GPU L2"), l2});
    return out;
  }
  const auto host = machine.value("host", nlohmann::json::object());
  for (const auto& c : host.value("caches", nlohmann::json::array())) {
    if (!c.is_object() || c.value("type", std::string()) == "Instruction") continue;
    const double bytes = c.value("size_bytes", 0.0);
    if (bytes > 0) out.push_back({fmt::format("L{}{}", c.value("level", 0), c.value("type", std::string()) == "Data" ? "d" : ""), bytes});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
  return out;
}

void add_work_model(analysis_options& options, const problem_desc& problem, const std::shared_ptr<const param_set>& params,
                    std::string_view algorithm, const nlohmann::json& machine, std::string_view backend, double largest) {
  if (!problem.work || !params) return;
  try {
    const auto* desc = &problem;
    options.working_set = [desc, params](double n) { return working_set_bytes(*desc, static_cast<std::uint64_t>(n), *params); };
    options.work = work_floors(problem, params, algorithm);
    options.caches = memory_levels(machine, backend);
    // Bound by memory where it must do fewer operations than it moves bytes, counting what its
    // algorithm must do beyond the problem's operations (a comparison sort's n log n comparisons:
    // not memory-bound, so a working set inside the last cache does not hold its verdict back).
    const auto w = problem.work(static_cast<std::uint64_t>(largest), *params);
    double ops = w.ops;
    for (const auto& a : problem.algorithm_floors)
      if (algorithm == a.algorithm) ops = std::max(ops, a.ops(largest));
    options.memory_bound = w.bytes > 0 && ops / w.bytes < 1;
  } catch (const usage_error&) {
    // a work model that refuses the parameters: no regimes
  }
}

}  // namespace ema::fit
