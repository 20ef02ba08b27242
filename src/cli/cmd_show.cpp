// `ema show`: prints a stored experiment again, or lists the experiments of a database.
#include <fmt/format.h>
#include <optional>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/outputs.hpp"
#include "core/errors.hpp"
#include "core/text.hpp"
#include "report/analysis_tables.hpp"
#include "report/axis_best.hpp"
#include "report/exports.hpp"
#include "report/fits.hpp"
#include "report/table.hpp"
#include "store/database.hpp"

namespace ema::cli {
namespace {

struct show_options {
  std::optional<std::int64_t> experiment;
  std::optional<std::string> json, csv, samples, extrap, md, tables_json, tables_csv, best;
  bool list = false, stats = false, no_fit = false;
};

// The fitted class of each variant's total time with its verdict (report/fits.hpp); `ema fit`
// gives the equations and the reasons.
std::string fit_summary(const experiment_view& view, table_style style, const std::string& db) {
  if (!experiment_metrics(view).count("total")) return {};
  fit_request r;
  r.db = db;
  const auto fits = fit_experiment(view, r);
  if (fits.empty()) return {};
  const bool md = style == table_style::markdown;
  return fmt::format(
             "{}Fitted classes of the total time (median of each point; `ema fit {}{}` gives the equations and the "
             "reasons){}",
             md ? "\n### " : "\n", view.experiment.id,
             db.empty()                          ? std::string()
             : db.find('`') == std::string::npos ? " --db " + shell_word(db)
                                                 : " --db DB",
             md ? "\n\n" : "\n") +
         render_fit_summary(fits, style);
}

}  // namespace

action add_show(CLI::App& app, common_options& common) {
  auto o = std::make_shared<show_options>();
  app.add_option("experiment", o->experiment, "experiment number (default: the newest)");
  app.add_option("--db", common.db, "results database")->capture_default_str();
  app.add_option("--json", o->json, "write JSON (ema.run/1) to FILE, - for stdout");
  app.add_option("--csv", o->csv, "write CSV to FILE, - for stdout");
  app.add_option("--samples", o->samples,
                 "write every sample as CSV, one row each with the parameters as columns (for pandas: docs/cli/show.md), to FILE, - for "
                 "stdout");
  app.add_option("--extrap", o->extrap,
                 "write every sample as Extra-P's JSON Lines input (to check ema's fits with Extra-P: docs/cli/show.md) to FILE, - for stdout");
  app.add_option("--md", o->md, "write Markdown to FILE, - for stdout");
  app.add_option("--tables-json", o->tables_json,
                 "write the result tables as JSON (ema.tables/1: each value a number with its hint) to FILE, - for stdout");
  app.add_option("--tables-csv", o->tables_csv, "write the result tables as CSV (a line per value) to FILE, - for stdout");
  app.add_flag("--list", o->list, "list the experiments in the database");
  app.add_flag("--stats", o->stats, "also print the repeated-runs tables (mean, std dev, max, min, speedup, efficiency, cost)");
  app.add_option("--best", o->best,
                 "for a parameter swept as an axis (--param k=1,2,4): per size and variant, the value with the least median "
                 "time, and the runner-up with whether it is within noise");
  app.add_flag("--no-fit", o->no_fit, "leave out the fitted class and verdict of each variant");
  return [o, &common] {
    check_outputs(common.db, given_outputs({{"--json", &o->json},
                                            {"--csv", &o->csv},
                                            {"--samples", &o->samples},
                                            {"--extrap", &o->extrap},
                                            {"--md", &o->md},
                                            {"--tables-json", &o->tables_json},
                                            {"--tables-csv", &o->tables_csv}}));
    auto db = database::open_read(common.db);
    if (o->list) {  // the points stored apart from those planned: a plan's points are not measurements
      for (const auto& e : db.experiments()) {
        const auto p = plan::from_json(e.plan);
        const auto planned = p.shard && !p.calibrated ? p.shard->ordinals.size() : p.points.size();
        print_text(fmt::format("{:>4}  {}  {:<11}  {} of {} planned point{} stored{}  {}\n", e.id, e.created_at, e.state,
                               db.recorded_ordinals(e.id).size(), planned, planned == 1 ? "" : "s",
                               p.calibrated ? " (a calibrated sweep plans as it runs)" : "", e.command_line));
      }
      return exit_code::ok;
    }
    auto view = chosen_experiment(db, o->experiment);
    // --best is checked before anything is printed: an unknown key is a usage error, not tables then one.
    const auto best = o->best ? std::optional(render_best(view, *o->best, o->md ? table_style::markdown : table_style::text)) : std::nullopt;
    if (best && !o->md) print_text(*best);  // the answer asked for first, the tables it comes from after
    if (!o->json && !o->csv && !o->samples && !o->extrap && !o->md && !o->tables_json && !o->tables_csv) {
      print_text(render_tables(view, table_style::text));
      if (!o->no_fit) print_text(fit_summary(view, table_style::text, common.db_to_print()));
    }
    if (o->stats) print_text(render_analysis_tables(view, table_style::text));
    if (o->json) write_text(*o->json, json_text(to_run_json(view), 2) + "\n");
    if (o->csv) write_text(*o->csv, to_csv(view));
    if (o->samples) write_text(*o->samples, to_samples_csv(view));
    if (o->extrap) write_text(*o->extrap, to_extrap_jsonl(view));
    if (o->tables_json) write_text(*o->tables_json, json_text(tables_json(view), 2) + "\n");
    if (o->tables_csv) write_text(*o->tables_csv, tables_csv(view));
    if (o->md)
      write_text(*o->md, best.value_or(std::string()) + render_tables(view, table_style::markdown) +
                             (o->no_fit ? std::string() : fit_summary(view, table_style::markdown, common.db_to_print())) +
                             (o->stats ? render_analysis_tables(view, table_style::markdown) : std::string()));
    return exit_code::ok;
  };
}

}  // namespace ema::cli
