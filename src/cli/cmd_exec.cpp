// `ema exec`: EMA's own mode (Zudio et al., 003_7e2665a3d38c50fb.txt, section 2): a user's program and the
// generator of its inputs, swept over sizes given or calibrated to a budget, stored and fitted
// like built-in variants (runner/external.hpp says how each point runs).
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <cctype>
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/outputs.hpp"
#include "cli/sweep_command.hpp"
#include "core/errors.hpp"
#include "core/sizes.hpp"
#include "core/text.hpp"
#include "runner/external.hpp"
#include "inputs/input_cache.hpp"

namespace ema::cli {
namespace {

struct exec_options {
  std::string name, generator;
  std::vector<std::string> runs, variant_names;
  std::optional<std::string> sizes;
  cache_options cache;
  measurement_options measure;
  output_options out;
};

bool valid_name(const std::string& s) {
  if (s.empty()) return false;
  for (unsigned char c : s)
    if (!std::isalnum(c) && c != '_' && c != '-' && c != '.') return false;
  return s[0] != '.';
}

// The variant name of a command: its program's file name (`./sort {input}` -> sort).
std::string name_from_command(const std::string& command) {
  auto first = command.substr(0, command.find_first_of(" \t"));
  first = std::filesystem::path(first).filename().string();
  std::string out;
  for (unsigned char c : first) out += std::isalnum(c) || c == '_' || c == '-' || c == '.' ? static_cast<char>(c) : '_';
  return out.empty() || out[0] == '.' ? "program" : out;
}

// Text stored in the plan must come back exactly as given, so it must be UTF-8 (JSON's encoding).
void check_utf8(const char* option, const std::string& text) {
  if (!is_utf8(text))
    throw usage_error(fmt::format("{} '{}' is not UTF-8 text; ema stores it in JSON, which cannot hold those bytes", option, valid_utf8(text)));
}

int exec(const exec_options& o, const common_options& common) {
  if (!valid_name(o.name)) throw usage_error(fmt::format("--name '{}' must be letters, digits, '_', '-' or '.'", valid_utf8(o.name)));
  check_utf8("--gen", o.generator);
  for (const auto& run : o.runs) check_utf8("--run", run);
  check_command("--gen", o.generator, {"input"});
  if (o.runs.empty()) throw usage_error("give the program to measure with --run 'CMD {input}'");
  if (!o.variant_names.empty() && o.variant_names.size() != o.runs.size())
    throw usage_error(fmt::format("{} --variant names for {} --run commands", o.variant_names.size(), o.runs.size()));
  plan_request r;
  o.measure.fill(r);
  if (!r.budget && !o.sizes) throw usage_error("give the sizes with --sizes or a time budget with --budget");
  r.sizes = o.sizes;
  check_sweep_shape(r);
  check_outputs(common.db, o.out.paths());

  plan p;
  p.seed = r.seed;
  p.instances = r.instances;
  external_program x;
  x.generator = o.generator;
  x.cache_dir = o.cache.open(common.db);
  // {input} is put into the commands quoted for the shell that runs them, but a command may hand it
  // to another shell (`sh -c "cat {input}"`) that parses it again: the path may hold nothing a
  // shell reads as syntax.
  for (const unsigned char c : x.cache_dir)
    if (!(std::isalnum(c) || std::string_view("_./:,+@%=-~").find(static_cast<char>(c)) != std::string_view::npos || c >= 0x80))
      throw usage_error(
          fmt::format("--cache {}: its path holds '{}', which a shell reads as syntax; {{input}} lies in it and a command "
                      "may pass it to another shell, so choose a folder whose path has only letters, digits and _ . / : , + @ % = - ~",
                      one_line(x.cache_dir), one_line(std::string(1, static_cast<char>(c)))));
  x.cache_cap = o.cache.cap_bytes();
  std::error_code ec;
  x.cwd = std::filesystem::current_path(ec).string();
  if (ec) throw usage_error(fmt::format("cannot tell the current folder, where the commands run: {}", ec.message()));
  check_utf8("the current folder", x.cwd);
  check_program("--gen", o.generator, x.cwd);  // before anything is stored: a missing program fails every point
  for (const auto& run : o.runs) check_program("--run", run, x.cwd);
  for (std::size_t i = 0; i < o.runs.size(); ++i) {
    check_command("--run", o.runs[i], {});
    const auto name = o.variant_names.empty() ? name_from_command(o.runs[i]) : o.variant_names[i];
    if (!valid_name(name)) throw usage_error(fmt::format("--variant '{}' must be letters, digits, '_', '-' or '.'", valid_utf8(name)));
    for (const auto& [other, cmd] : x.runs)
      if (other == name) throw usage_error(fmt::format("two --run commands are both named '{}'; name them with --variant", name));
    x.runs.emplace_back(name, o.runs[i]);
  }
  p.external = x;
  o.measure.apply(p);
  if (r.budget) {
    p.calibrated = calibration{*r.budget, 12, 2, {}};
    for (const auto& [name, cmd] : x.runs) p.calibrated->tracks.push_back({o.name, name, {}, r.start.value_or(16), r.max_size.value_or(0), ""});
  } else {
    const auto sizes = parse_sizes(*o.sizes);
    if (sizes.size() * x.runs.size() * static_cast<std::size_t>(r.instances) > max_plan_points)
      throw usage_error(fmt::format("the plan would have more than {} points; run fewer at a time", max_plan_points));
    for (auto n : run_order(sizes, r.order))
      for (const auto& [name, cmd] : x.runs) p.add(o.name, name, n, {});
    add_rounds(p, r.rounds);
  }
  auto db = database::open_write(common.db);
  return carry_out(db, 0, p, common, o.out);
}

}  // namespace

action add_exec(CLI::App& app, common_options& common) {
  auto o = std::make_shared<exec_options>();
  app.add_option("--name", o->name, "name of the problem the experiment stores")->required();
  app.add_option("--gen", o->generator, "generator command; writes the input of size {n} (seed {seed}) to {input}")->required();
  app.add_option("--run", o->runs, "program to measure, reading {input} (repeatable: several programs side by side)")->required();
  app.add_option("--variant", o->variant_names, "names of the --run commands, in order (default: their program's name)");
  app.add_option("--sizes", o->sizes, "sizes: 2^10..2^20, 1000,2000, 1000..64000*2");
  o->cache.add_to(app, false);
  o->measure.add_to(app);
  app.add_option("--db", common.db, "results database")->capture_default_str();
  o->out.add_to(app);
  return [o, &common] { return exec(*o, common); };
}

}  // namespace ema::cli
