// `ema report`: the report of a stored experiment as one self-contained HTML file (charts,
// equations, tables, machine) or as Markdown; see report/document.hpp for what it shows.
#include <filesystem>
#include <fmt/format.h>
#include <optional>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/outputs.hpp"
#include "core/errors.hpp"
#include "core/text.hpp"
#include "report/document.hpp"
#include "report/exports.hpp"
#include "store/database.hpp"

namespace ema::cli {
namespace {

namespace fs = std::filesystem;

struct report_options {
  std::optional<std::int64_t> experiment;
  std::optional<std::string> html, md, svg;
  int bootstrap = 200;
};

}  // namespace

action add_report(CLI::App& app, common_options& common) {
  auto o = std::make_shared<report_options>();
  app.add_option("experiment", o->experiment, "experiment number (default: the newest)");
  app.add_option("--db", common.db, "results database")->capture_default_str();
  app.add_option("--html", o->html, "write the report as one self-contained HTML file");
  app.add_option("--md", o->md, "write the report as Markdown (- for stdout)");
  app.add_option("--svg", o->svg, "write every chart as an SVG file of its own into the folder DIR (made if missing)")->type_name("DIR");
  app.add_option("--bootstrap", o->bootstrap, "bootstrap resamples for the bands (default 200; 0: none)");
  return [o, &common] {
    if (!o->html && !o->md && !o->svg) throw usage_error("say where to write the report: --html FILE, --md FILE and/or --svg DIR");
    if (o->svg) {
      std::error_code ec;
      if (fs::exists(*o->svg, ec) && !fs::is_directory(*o->svg, ec))
        throw usage_error(fmt::format("--svg {}: it is a file; give a folder for the charts", shell_word(*o->svg)));
    }
    if (o->bootstrap < 0) throw usage_error("--bootstrap cannot be negative");
    check_outputs(common.db, given_outputs({{"--html", &o->html}, {"--md", &o->md}}));
    auto db = database::open_read(common.db);
    const auto view = chosen_experiment(db, o->experiment);
    fits_by_metric fits;
    for (const auto& m : report_metrics(view)) {
      fit_request r;
      r.metric = m;
      r.db = common.db_to_print();
      r.options.bootstrap = o->bootstrap;
      fits[m] = fit_experiment(view, r);
    }
    const auto html = o->html || o->svg ? render_html(view, fits) : std::string();
    if (o->html) {
      write_text(*o->html, html);
      fmt::print(stderr, "ema: report of experiment {} written to {}\n", view.experiment.id, *o->html);
    }
    if (o->md) write_text(*o->md, render_markdown(view, fits));
    if (o->svg) {
      const auto charts = charts_as_svg(html);
      std::error_code ec;
      fs::create_directories(*o->svg, ec);
      if (ec) throw output_error(fmt::format("--svg {}: the folder cannot be made: {}", shell_word(*o->svg), ec.message()));
      for (const auto& c : charts) write_text((fs::path(*o->svg) / c.name).string(), c.text);
      fmt::print(stderr, "ema: {} chart{} of experiment {} written to {} as SVG\n", charts.size(), charts.size() == 1 ? "" : "s", view.experiment.id,
                 terminal_safe(*o->svg));
    }
    return exit_code::ok;
  };
}

}  // namespace ema::cli
