// `ema list`: problems and variants, whether each can run here, and why not.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "core/registry.hpp"
#include "measure/gpu.hpp"

namespace ema::cli {

action add_list(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  app.add_flag("--json", *json, "print as JSON");
  return [json] {
    if (*json) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto* p : problems()) {
        nlohmann::json pj = {{"name", p->name},
                             {"title", p->title},
                             {"n", p->size_meaning},
                             {"source", p->source},
                             {"default_sizes", p->default_sizes},
                             {"default_sizes_gpu", p->default_sizes_gpu ? p->default_sizes_gpu : p->default_sizes},
                             {"reference_variant", p->reference_variant ? p->reference_variant : ""}};
        for (const auto& s : p->params)
          pj["params"].push_back(
              {{"name", s.name}, {"default", s.default_value}, {"help", s.help}, {"choices", s.choices ? s.choices : ""}, {"tuning", s.tuning}});
        for (const auto* v : variants_of(p->name)) {
          auto a = available(v->backend);
          nlohmann::json launch = nlohmann::json::array();
          for (const auto& f : v->launch)
            launch.push_back(
                {{"name", fmt::format("launch.{}", f.name)}, {"help", f.help}, {"min", f.min}, {"max", f.max}, {"multiple", f.multiple}});
          nlohmann::json tuning = nlohmann::json::array();
          for (const char* t : v->tuning) tuning.push_back(t);
          pj["variants"].push_back({{"launch", launch},
                                    {"tuning", tuning},
                                    {"name", v->name},
                                    {"algorithm", v->algorithm},
                                    {"role", std::string(to_string(v->role))},
                                    {"backend", std::string(to_string(v->backend))},
                                    {"description", v->description},
                                    {"provenance", v->provenance},
                                    {"available", a.ok},
                                    {"why_not", a.reason}});
        }
        out.push_back(pj);
      }
      fmt::print("{}\n", out.dump(2));
      return exit_code::ok;
    }
    for (const auto* p : problems()) {
      fmt::print("{} — {}\n  source: {}\n  n: {}\n  default sizes: {}{}\n", p->name, p->title, p->source, p->size_meaning, p->default_sizes,
                 p->default_sizes_gpu ? fmt::format(" (GPU variants: {})", p->default_sizes_gpu) : std::string());
      if (!p->params.empty()) fmt::print("  parameters:\n");
      for (const auto& s : p->params)
        fmt::print("    {}={}{}  {}{}\n", s.name, s.default_value, s.choices ? fmt::format(" ({})", s.choices) : std::string(), s.help,
                   s.tuning ? " (tuning: read only by the variants that name it)" : "");
      fmt::print("  variants:\n");
      std::size_t w = 0;
      for (const auto* v : variants_of(p->name)) w = std::max(w, std::string_view(v->name).size());
      for (const auto* v : variants_of(p->name)) {
        auto a = available(v->backend);
        fmt::print("    {:<{}}  {:<9}  {}\n    {:<{}}  algorithm {}, {}\n    {:<{}}  {}\n    {:<{}}  {}\n", v->name, w, to_string(v->backend),
                   a.ok ? "runs here" : "cannot run here: " + a.reason, "", w + 11, v->algorithm, to_string(v->role), "", w + 11, v->description, "",
                   w + 11, v->provenance);
        for (const char* t : v->tuning) fmt::print("    {:<{}}  reads the tuning parameter {}\n", "", w + 11, t);
        for (const auto& f : v->launch)
          fmt::print("    {:<{}}  launch.{} in [{}, {}]{}: {}\n", "", w + 11, f.name, f.min, f.max,
                     f.multiple > 1 ? fmt::format(", a multiple of {}", f.multiple) : std::string(), f.help);
      }
      fmt::print("\n");
    }
    return exit_code::ok;
  };
}

}  // namespace ema::cli
