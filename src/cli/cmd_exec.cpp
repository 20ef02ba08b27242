// `ema exec`: EMA's own mode (003_7e2665a3d38c50fb.txt, section 2): a user's program and the
// generator of its inputs, swept over sizes given or calibrated to a budget, stored and fitted
// like built-in variants (runner/external.hpp says how each point runs).
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/outputs.hpp"
#include "cli/sweep_command.hpp"
#include "core/errors.hpp"
#include "core/sizes.hpp"
#include "core/text.hpp"
#include "runner/external.hpp"
#include "runner/input_cache.hpp"

namespace ema::cli {
namespace {

struct exec_options {
  std::string name, generator;
  std::vector<std::string> runs, variant_names;
  std::optional<std::string> sizes, cache_dir;
  std::string cache_cap = "2G";
  measurement_options measure;
  output_options out;
};

std::string default_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/ema/inputs";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/ema/inputs";
  return ".ema-cache";
}

double parse_bytes(const std::string& text) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (...) {
    used = 0;
  }
  const std::string unit = text.substr(used);
  double scale = 1;
  if (unit == "" || unit == "B") scale = 1;
  else if (unit == "K" || unit == "KiB") scale = 1024.0;
  else if (unit == "M" || unit == "MiB") scale = 1024.0 * 1024;
  else if (unit == "G" || unit == "GiB") scale = 1024.0 * 1024 * 1024;
  else used = 0;
  if (!used || !(v > 0) || !std::isfinite(v)) throw usage_error(fmt::format("--cache-cap '{}' is not a size such as 500M or 2G", text));
  return v * scale;
}

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
    throw usage_error(fmt::format("{} '{}' is not UTF-8 text; ema stores it in JSON, which cannot hold those bytes", option,
                                  valid_utf8(text)));
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
  const auto cache_dir = o.cache_dir.value_or(default_cache_dir());
  check_utf8("--cache", cache_dir);
  if (names_the_database(common.db, cache_dir))
    throw usage_error(fmt::format("--cache {} is the database; give the input cache a folder of its own", cache_dir));
  x.cache_dir = input_cache::open(cache_dir).root().string();  // refused here if it holds others' files
  x.cache_cap = parse_bytes(o.cache_cap);
  std::error_code ec;
  x.cwd = std::filesystem::current_path(ec).string();
  if (ec) throw usage_error(fmt::format("cannot tell the current folder, where the commands run: {}", ec.message()));
  check_utf8("the current folder", x.cwd);
  for (std::size_t i = 0; i < o.runs.size(); ++i) {
    check_command("--run", o.runs[i], {});
    const auto name = o.variant_names.empty() ? name_from_command(o.runs[i]) : o.variant_names[i];
    if (!valid_name(name))
      throw usage_error(fmt::format("--variant '{}' must be letters, digits, '_', '-' or '.'", valid_utf8(name)));
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
    for (auto n : sizes)
      for (const auto& [name, cmd] : x.runs) p.add(o.name, name, n, {});
  }
  auto db = database::open_write(common.db);
  return carry_out(db, 0, p, common, o.out);
}

}  // namespace

action add_exec(CLI::App& app, common_options& common) {
  auto o = std::make_shared<exec_options>();
  app.add_option("--name", o->name, "name of the problem the experiment stores")->required();
  app.add_option("--gen", o->generator, "generator command; writes the input of size {n} (seed {seed}) to {input}")
      ->required();
  app.add_option("--run", o->runs, "program to measure, reading {input} (repeatable: several programs side by side)")
      ->required();
  app.add_option("--variant", o->variant_names, "names of the --run commands, in order (default: their program's name)");
  app.add_option("--sizes", o->sizes, "sizes: 2^10..2^20, 1000,2000, 1000..64000*2");
  app.add_option("--cache", o->cache_dir,
                 "folder of generated inputs, kept between runs; ema's own: new, empty or made by ema (default ~/.cache/ema/inputs)");
  app.add_option("--cache-cap", o->cache_cap, "most the input cache may hold; the least recently used go first")
      ->capture_default_str();
  o->measure.add_to(app);
  app.add_option("--db", common.db, "results database")->capture_default_str();
  o->out.add_to(app);
  return [o, &common] { return exec(*o, common); };
}

}  // namespace ema::cli
