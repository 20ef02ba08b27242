#include "runner/slurm_scripts.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/text.hpp"

namespace ema {
namespace {

bool in(std::string_view set, char c) { return set.find(c) != std::string_view::npos; }
bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
bool digits(std::string_view s) {
  return !s.empty() && s.size() <= 9 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Characters that every Slurm name field takes (partitions, accounts, QOS, GPU types).
bool name_char(char c) { return alnum(c) || in("_.-", c); }
bool slurm_name(std::string_view s) { return !s.empty() && s.size() <= 200 && std::all_of(s.begin(), s.end(), name_char); }

[[noreturn]] void refuse(std::string_view option, std::string_view value, std::string_view allowed) {
  throw usage_error(fmt::format("{} '{}': {}", option, one_line(value), allowed));
}

// Slurm's time formats: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S, or UNLIMITED / INFINITE.
bool slurm_time(std::string_view s) {
  std::string upper(s);
  std::transform(upper.begin(), upper.end(), upper.begin(), [](char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c; });
  if (upper == "UNLIMITED" || upper == "INFINITE") return true;
  std::string_view rest = s;
  if (const auto dash = rest.find('-'); dash != std::string_view::npos) {
    if (!digits(rest.substr(0, dash))) return false;
    rest = rest.substr(dash + 1);
  }
  int parts = 0;
  while (true) {
    const auto colon = rest.find(':');
    if (!digits(rest.substr(0, colon))) return false;
    ++parts;
    if (colon == std::string_view::npos) break;
    rest = rest.substr(colon + 1);
  }
  return parts <= 3;  // with days: D-H, D-H:M, D-H:M:S; without: M, M:S, H:M:S
}

}  // namespace

void refuse_control_characters(std::string_view what, std::string_view value) {
  for (const unsigned char c : value)
    if (c < 0x20 || c == 0x7f)
      throw usage_error(
          fmt::format("{} '{}' holds a control character (a newline, a tab, an escape): ema slurm writes it into a "
                      "job script, where it could end a line; rename what it names",
                      what, one_line(value)));
  // C1 controls (U+0080..U+009F) as UTF-8: C2 80..C2 9F.
  for (std::size_t i = 0; i + 1 < value.size(); ++i)
    if (static_cast<unsigned char>(value[i]) == 0xc2 && static_cast<unsigned char>(value[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(value[i + 1]) <= 0x9f)
      throw usage_error(
          fmt::format("{} '{}' holds a control character: ema slurm writes it into a job script; rename what it names", what, one_line(value)));
}

void check_slurm_request(const slurm_request& r) {
  for (const auto& [option, value] : {std::pair{"--partition", &r.partition},
                                      {"--time", &r.time},
                                      {"--account", &r.account},
                                      {"--qos", &r.qos},
                                      {"--constraint", &r.constraint},
                                      {"--gpus-per-task", &r.gpus_per_task}})
    if (*value) refuse_control_characters(option, **value);
  for (const auto& m : r.modules) refuse_control_characters("--module", m);
  for (const auto& s : r.sbatch) refuse_control_characters("--sbatch", s);
  if (r.partition) {
    std::string_view rest = *r.partition;
    bool ok = !rest.empty();
    while (ok) {
      const auto comma = rest.find(',');
      ok = slurm_name(rest.substr(0, comma));
      if (comma == std::string_view::npos) break;
      rest = rest.substr(comma + 1);
    }
    if (!ok) refuse("--partition", *r.partition, "give partition names (letters, digits, _ . -), several separated by commas");
  }
  if (r.time && !slurm_time(*r.time)) refuse("--time", *r.time, "give a Slurm time: minutes, M:S, H:M:S, D-H, D-H:M, D-H:M:S or UNLIMITED");
  if (r.account && !slurm_name(*r.account)) refuse("--account", *r.account, "give an account name (letters, digits, _ . -)");
  if (r.qos && !slurm_name(*r.qos)) refuse("--qos", *r.qos, "give a QOS name (letters, digits, _ . -)");
  if (r.constraint) {
    const auto& c = *r.constraint;
    if (c.empty() || c.size() > 1000 || !std::all_of(c.begin(), c.end(), [](char x) { return name_char(x) || in("&|,:*=+[]()!", x); }))
      refuse("--constraint", c, "give node features joined by & | , with [ ] ( ) ! and *count (letters, digits, _ . - in the names)");
  }
  if (r.gpus_per_task) {
    const std::string_view g = *r.gpus_per_task;
    const auto colon = g.rfind(':');
    const auto count = colon == std::string_view::npos ? g : g.substr(colon + 1);
    const bool ok = digits(count) && count.find_first_not_of('0') != std::string_view::npos &&
                    (colon == std::string_view::npos || slurm_name(g.substr(0, colon)));
    if (!ok) refuse("--gpus-per-task", g, "give a count of at least 1, or TYPE:COUNT (e.g. 1 or h100:1)");
  }
  for (const auto& m : r.modules)
    if (m.empty() || m.size() > 200 || m.front() == '-' || !std::all_of(m.begin(), m.end(), [](char x) { return name_char(x) || in("+/@:~", x); }))
      refuse("--module", m, "give a module name (letters, digits, _ . - + / @ : ~, not starting with -), e.g. cuda/13.0");
  for (const auto& s : r.sbatch) {
    const auto eq = s.find('=');
    const std::string_view name = std::string_view(s).substr(0, eq);
    const bool long_form =
        name.size() > 2 && name.substr(0, 2) == "--" && name[2] >= 'a' && name[2] <= 'z' &&
        std::all_of(name.begin() + 2, name.end(), [](char x) { return (x >= 'a' && x <= 'z') || (x >= '0' && x <= '9') || x == '-'; });
    if (!long_form) refuse("--sbatch", s, "give one sbatch option in its long form, its value after '=' (e.g. --sbatch=--mem=8G)");
    for (const char* own : {"--array", "--output", "--wrap", "--job-name"})
      if (name == own) refuse("--sbatch", s, fmt::format("{} is set by ema slurm", own));
  }
}

void check_results_folder(const std::string& folder) {
  refuse_control_characters("--results", folder);
  if (folder.find('\\') != std::string::npos)
    throw usage_error(
        fmt::format("--results {}: Slurm reads a backslash in a log file's path as 'replace nothing' (every task would write "
                    "one log); choose a folder without one",
                    one_line(folder)));
}

std::string directive_word(std::string_view value) {
  std::string out;
  for (const char c : value) {
    if (!alnum(c) && !in("_./:=,@+%-", c)) out += '\\';
    out += c;
  }
  return out;
}

std::string plan_args_text(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) {
    refuse_control_characters("the plan's argument", a);
    out += a + "\n";
  }
  return out;
}

namespace {

// A log file's path as a Slurm file name pattern that names it literally, `pattern` appended
// (its own %-specifiers kept): a % of the folder doubled.
std::string log_pattern(const std::string& folder, std::string_view pattern) {
  std::string out;
  for (const char c : folder) out += c == '%' ? std::string("%%") : std::string(1, c);
  return directive_word(out + std::string(pattern));
}

std::string directives(const slurm_request& r, bool array_job) {
  std::string d;
  auto line = [&](std::string_view option, const std::string& value) { d += fmt::format("#SBATCH {}={}\n", option, directive_word(value)); };
  if (r.partition) line("--partition", *r.partition);
  if (r.time) line("--time", *r.time);
  if (r.account) line("--account", *r.account);
  if (r.qos) line("--qos", *r.qos);
  if (array_job) {
    if (r.constraint) line("--constraint", *r.constraint);
    if (r.gpus_per_task) line("--gpus-per-task", *r.gpus_per_task);
    if (!r.shared) d += "#SBATCH --exclusive\n";  // timing wants the node to itself
    for (const auto& x : r.sbatch) d += "#SBATCH " + directive_word(x) + "\n";
  }
  return d;
}

std::string modules(const slurm_request& r) {
  std::string m;
  for (const auto& x : r.modules) m += "module load " + shell_word(x) + "\n";
  return m;
}

}  // namespace

std::string array_script(const slurm_request& r, const slurm_job& job) {
  return fmt::format(R"SH(#!/bin/bash
# ema slurm: task I of a {n}-task array runs shard I of one plan (docs/cluster.md). The plan's
# arguments are in plan.args beside this script, one a line, read as data.
#SBATCH --job-name=ema-{tag}
#SBATCH --array=0-{last}
#SBATCH --output={log}
{directives}set -u
{modules}results={dir}
ema={ema}
task=${{SLURM_ARRAY_TASK_ID:?is not set: this script runs as a task of a Slurm array}}
shard="$results/shard-$task.db"
mapfile -t plan < "$results/plan.args" || exit 2
# The shard's database lives on this node's disk (SQLite is not safe over a network file system),
# in a folder of this attempt's own (mktemp -d: mode 0700, a fresh name no one can plant).
work=$(mktemp -d "${{TMPDIR:-/tmp}}/ema-shard-$task.XXXXXXXX") || exit 1
db="$work/shard.db"
# copy FROM TO: into a new file beside TO (mktemp: a fresh name, never a link), renamed over TO.
copy() {{ local t; t=$(mktemp "$2.XXXXXXXX") || return 1; cp "$1" "$t" && mv -f "$t" "$2" && return 0; rm -f "$t"; return 1; }}
# Only the user's own regular file is taken from the results folder.
own() {{ [ -f "$1" ] && [ ! -L "$1" ] && [ -O "$1" ]; }}
# A resubmitted task continues from its copy in the results folder; the journal travels with it.
for f in "$shard" "$shard-journal"; do
  if {{ [ -e "$f" ] || [ -L "$f" ]; }} && ! own "$f"; then
    echo "ema slurm: $f is not a regular file of $(id -un): not used; remove it and resubmit" >&2
    rm -rf "$work"; exit 2
  fi
done
if own "$shard"; then
  copy "$shard" "$db" || {{ rm -rf "$work"; exit 1; }}
  if own "$shard-journal"; then copy "$shard-journal" "$db-journal" || {{ rm -rf "$work"; exit 1; }}; fi
fi
"$ema" run "${{plan[@]}}" --shard auto/{n} --db "$db" --quiet &
pid=$!
trap 'kill -TERM $pid 2>/dev/null' TERM INT   # scancel, a time limit: ema stores what it finished
wait $pid; rc=$?
while kill -0 $pid 2>/dev/null; do wait $pid; rc=$?; done
# Back to the results folder; a task that made no database (ema refused to start) leaves the copy
# alone. A stale journal goes first: it must never meet another database.
if [ -f "$db" ]; then
  rm -f "$shard-journal"
  if copy "$db" "$shard" && {{ [ ! -f "$db-journal" ] || copy "$db-journal" "$shard-journal"; }}; then
    rm -rf "$work"
  else
    echo "ema slurm: the shard could not be copied to $results; it stays in $work on $(hostname)" >&2
    [ $rc -eq 0 ] && rc=1
  fi
else
  rm -rf "$work"
fi
exit $rc
)SH",
                     fmt::arg("n", r.tasks), fmt::arg("last", r.tasks - 1), fmt::arg("tag", job.tag),
                     fmt::arg("log", log_pattern(job.folder, "/logs/shard-%a.out")), fmt::arg("directives", directives(r, true)),
                     fmt::arg("modules", modules(r)), fmt::arg("dir", shell_word(job.folder)), fmt::arg("ema", shell_word(job.ema)));
}

std::string merge_script(const slurm_request& r, const slurm_job& job) {
  return fmt::format(R"SH(#!/bin/bash
# ema slurm: after the array (--dependency=afterany), joins its shards into merged.db and lists any
# missing as an --array= list. It never deletes stored points: an earlier merge of this plan there,
# with any points a resume added to it, is carried into the new one (docs/cli/merge.md).
#SBATCH --job-name=ema-merge-{tag}
#SBATCH --output={log}
{directives}set -u
{modules}results={dir}
ema={ema}
"$ema" merge "$results/merged.db" "$results"/shard-*.db --quiet
)SH",
                     fmt::arg("tag", job.tag), fmt::arg("log", log_pattern(job.folder, "/logs/merge.out")),
                     fmt::arg("directives", directives(r, false)), fmt::arg("modules", modules(r)), fmt::arg("dir", shell_word(job.folder)),
                     fmt::arg("ema", shell_word(job.ema)));
}

}  // namespace ema
