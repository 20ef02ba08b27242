// `ema merge OUT.db IN.db...`: joins the shards of one plan into one experiment of OUT.db
// (runner/merge.hpp; docs/cli/merge.md), then prints it as `ema show` would.
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "core/errors.hpp"
#include "report/table.hpp"
#include "runner/merge.hpp"
#include "store/database.hpp"

namespace ema::cli {
namespace {

struct merge_options {
  std::string output;
  std::vector<std::string> inputs;
  bool quiet = false;
};

int merge(const merge_options& o, const common_options& common) {
  const auto r = merge_shards(o.output, o.inputs, common.command_line);
  for (const auto& d : r.dropped) fmt::print(stderr, "ema: duplicate point left out: {}\n", d);
  fmt::print(stderr, "ema: experiment {} of {}: {} points from {} database{}{}\n", r.experiment, o.output, r.points, o.inputs.size(),
             o.inputs.size() == 1 ? "" : "s",
             r.machines > 1 ? fmt::format(", run on {} kinds of machine (each point's notes name its own)", r.machines) : "");
  if (r.missing || !r.missing_shards.empty()) {
    fmt::print(stderr, "ema: {} planned point{} missing", r.missing, r.missing == 1 ? " is" : "s are");
    if (!r.missing_shards.empty())
      fmt::print(stderr, "; resubmit the shards --array={} (each resumes its own database), then merge again", array_list(r.missing_shards));
    fmt::print(stderr, "; or `ema run --db {} --resume {}` runs them here\n", o.output, r.experiment);
  }
  if (!o.quiet) {
    auto db = database::open_read(o.output);
    print_text(render_tables(load_experiment(db, r.experiment), table_style::text));
  }
  return r.missing || !r.missing_shards.empty() ? exit_code::points_failed : exit_code::ok;
}

}  // namespace

action add_merge(CLI::App& app, common_options& common) {
  auto o = std::make_shared<merge_options>();
  app.add_option("output", o->output, "the database to add the merged experiment to (created if needed; never one of the inputs)")->required();
  app.add_option("inputs", o->inputs, "the shards' databases")->required();
  app.add_flag("--quiet,-q", o->quiet, "do not print the tables");
  return [o, &common] { return merge(*o, common); };
}

}  // namespace ema::cli
