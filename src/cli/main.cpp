// ema: empirical analysis of parallel algorithms on CPU and GPU. See README.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <map>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "core/errors.hpp"
#include "core/text.hpp"
#include "runner/worker.hpp"

int main(int argc, char** argv) {
  // Internal entry points of the child processes (not shown in --help).
  if (argc == 2 && std::string_view(argv[1]) == "__worker") return ema::worker_main();
  if (argc == 3 && std::string_view(argv[1]) == "__worker" && std::string_view(argv[2]) == "--serve") return ema::worker_serve();
  if (argc == 2 && std::string_view(argv[1]) == "__probe") return ema::probe_main();

  CLI::App app{"ema: empirical analysis of parallel algorithms on CPU and GPU", "ema"};
  app.require_subcommand(1);
  app.set_version_flag("--version", EMA_VERSION);
  ema::cli::common_options common;
  for (int i = 0; i < argc; ++i) common.command_line += (i ? " " : "") + ema::shell_word(argv[i]);
  common.command_line = ema::valid_utf8(common.command_line);  // stored as JSON-safe text

  std::map<CLI::App*, ema::cli::action> actions;
  auto add = [&](const char* name, const char* help, auto&& adder) {
    auto* sub = app.add_subcommand(name, help);
    actions[sub] = adder(*sub);
  };
  add("list", "list problems and variants, and whether each can run here", [&](CLI::App& s) { return ema::cli::add_list(s); });
  add("probe", "measure this machine's ceilings (bandwidths, launch latency) and store them",
      [&](CLI::App& s) { return ema::cli::add_probe(s, common); });
  add("run", "sweep variants of problems over sizes, store every sample, print the tables",
      [&](CLI::App& s) { return ema::cli::add_run(s, common); });
  add("exec", "sweep your own program over sizes, with your generator of its inputs (EMA's own mode)",
      [&](CLI::App& s) { return ema::cli::add_exec(s, common); });
  add("merge", "join the shards of one plan (`ema run --shard`) into one experiment; say what is missing",
      [&](CLI::App& s) { return ema::cli::add_merge(s, common); });
  add("slurm", "write (and --submit) a Slurm job array of shards and its merge job; --status of a submitted sweep",
      [&](CLI::App& s) { return ema::cli::add_slurm(s, common); });
  add("show", "print a stored experiment again (table, JSON, CSV or Markdown)", [&](CLI::App& s) { return ema::cli::add_show(s, common); });
  add("fit", "fit EMA's complexity equations to each variant of an experiment (or a CSV) and group them",
      [&](CLI::App& s) { return ema::cli::add_fit(s, common); });
  add("report", "write the report of an experiment: charts, equations and tables, as HTML or Markdown",
      [&](CLI::App& s) { return ema::cli::add_report(s, common); });
  add("compare", "compare the same points of two experiments: ratios of medians with intervals, a verdict each",
      [&](CLI::App& s) { return ema::cli::add_compare(s, common); });

  // An option given an empty value (`--settle-share ""`) is refused by every command: CLI11 reads
  // an empty number as not given, so the default would run in its place unsaid.
  const CLI::Validator given(
      [](std::string& value) { return value.empty() ? std::string("an empty value: give one, or leave the option out") : std::string(); }, "");
  for (auto* sub : app.get_subcommands([](CLI::App*) { return true; }))
    for (auto* opt : sub->get_options())
      if (opt->get_expected_min() > 0) opt->check(given);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return ema::exit_code::usage;
  }
  try {
    if (common.db.empty()) throw ema::usage_error("--db is empty: give the database's file");
    for (auto& [sub, act] : actions)
      if (sub->parsed()) return act();
  } catch (const ema::usage_error& e) {
    fmt::print(stderr, "ema: {}\n", ema::terminal_safe(e.what()));
    return ema::exit_code::usage;
  } catch (const ema::database_error& e) {
    fmt::print(stderr, "ema: {}\n", ema::terminal_safe(e.what()));
    return ema::exit_code::database;
  } catch (const ema::output_error& e) {
    fmt::print(stderr, "ema: {}\n", ema::terminal_safe(e.what()));
    return ema::exit_code::output;
  } catch (const std::exception& e) {
    fmt::print(stderr, "ema: internal error: {}\n", ema::terminal_safe(e.what()));
    return ema::exit_code::internal;
  }
  return ema::exit_code::usage;
}
