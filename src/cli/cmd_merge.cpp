// `ema merge OUT.db IN.db...`: joins the shards of one plan into one experiment of OUT.db
// (runner/merge.hpp; docs/cli/merge.md), then prints it as `ema show` would.
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "core/errors.hpp"
#include "core/text.hpp"
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
  for (const auto& d : r.dropped) fmt::print(stderr, "ema: duplicate point left out: {}\n", one_line(d));
  for (const auto& m : r.earlier)
    fmt::print(stderr, "ema: experiment {} of {} ({} points), an earlier merge of this plan, was read first: {}\n", m.experiment, one_line(o.output),
               m.points,
               m.replaced ? "the new experiment holds every point it held and replaces it"
                          : "kept as it was, as it holds a point this merge leaves out (the same point measured twice)");
  fmt::print(stderr, "ema: experiment {} of {}: {} points from {} database{}{}\n", r.experiment, one_line(o.output), r.points, o.inputs.size(),
             o.inputs.size() == 1 ? "" : "s",
             r.machines > 1 ? fmt::format(", run on {} kinds of machine (each point's notes name its own)", r.machines) : "");
  if (r.missing || !r.missing_shards.empty()) {
    if (r.missing)
      fmt::print(stderr, "ema: {} planned point{} missing", r.missing, r.missing == 1 ? " is" : "s are");
    else
      fmt::print(stderr, "ema: the calibrated sweep is missing the part of an absent shard");
    if (!r.missing_shards.empty())
      fmt::print(stderr, "; resubmit the shards --array={} (each resumes its own database), then merge again", array_list(r.missing_shards));
    // A resume of the merge runs the points it holds; an absent shard's part is not among them.
    if (const int held = r.missing - r.unheld; held > 0)
      fmt::print(stderr, "; or `ema run --db {} --resume {}` runs {} here", one_line(shell_word(o.output)), r.experiment,
                 held == r.missing ? "them" : fmt::format("the {} of them it holds", held));
    fmt::print(stderr, "\n");
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
  app.add_option("inputs", o->inputs, "the shards' databases (DB:N: experiment N of DB)")->required();
  app.add_flag("--quiet,-q", o->quiet, "do not print the tables");
  return [o, &common] { return merge(*o, common); };
}

}  // namespace ema::cli
