// `ema report`: the report of a stored experiment as one self-contained HTML file (charts,
// equations, tables, machine) or as Markdown; see report/document.hpp for what it shows.
#include <fmt/format.h>
#include <optional>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/outputs.hpp"
#include "core/errors.hpp"
#include "report/document.hpp"
#include "report/exports.hpp"
#include "store/database.hpp"

namespace ema::cli {
namespace {

struct report_options {
  std::optional<std::int64_t> experiment;
  std::optional<std::string> html, md;
  int bootstrap = 200;
};

}  // namespace

action add_report(CLI::App& app, common_options& common) {
  auto o = std::make_shared<report_options>();
  app.add_option("experiment", o->experiment, "experiment number (default: the newest)");
  app.add_option("--db", common.db, "results database")->capture_default_str();
  app.add_option("--html", o->html, "write the report as one self-contained HTML file");
  app.add_option("--md", o->md, "write the report as Markdown (- for stdout)");
  app.add_option("--bootstrap", o->bootstrap, "bootstrap resamples for the bands (default 200; 0: none)");
  return [o, &common] {
    if (!o->html && !o->md) throw usage_error("say where to write the report: --html FILE and/or --md FILE");
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
    if (o->html) {
      write_text(*o->html, render_html(view, fits));
      fmt::print(stderr, "ema: report of experiment {} written to {}\n", view.experiment.id, *o->html);
    }
    if (o->md) write_text(*o->md, render_markdown(view, fits));
    return exit_code::ok;
  };
}

}  // namespace ema::cli
