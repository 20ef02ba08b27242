// Real measurements as test data (tests/analysis/real/, README.md there): ema's own sweeps on the
// H100 machine and the 2-core development VM, Google Benchmark programs and hyperfine sweeps of
// ordinary programs, each series with the class its algorithm has. Each is fitted as a user would,
// through `ema fit --csv FILE`, `ema fit --from TOOL FILE` or, for a database kept whole (xz),
// `ema fit --db FILE` (--json), and judged:
//   firm right / firm wrong: a firm verdict on the right class / on another one;
//   first right:             the class ema shows first is right, firm or not;
//   interval holds:          the 95% interval of the exponent of n holds the true exponent
//                            (polynomial classes only).
// A firm verdict must never name a wrong class (real series are where the synthetic set's 99% once
// turned into wrong answers printed as the answer, issue 14); the rates are printed by group, for
// docs/fitting.md and the closing notes of changes to the analysis (issue 29).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/ranges.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

#include "core/registry.hpp"
#include "support/ema.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace ema {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// A class as the data set writes it: "n^3", "n log n", "n^0.5", "log n", "1", "1.618^n".
struct true_class {
  double n = 0, log = 0;
  std::optional<double> base;
  std::string text;
};

true_class parse_class(const std::string& text) {
  true_class c;
  c.text = text;
  std::smatch m;
  if (std::regex_match(text, m, std::regex(R"(([0-9.]+)\^n)"))) {
    c.base = std::stod(m[1]);
    return c;
  }
  if (text == "1") return c;
  static const std::regex poly(R"((n(\^([0-9.]+))?)?\s*(log(\^([0-9.]+))? n)?)");
  if (!std::regex_match(text, m, poly) || text.empty()) throw std::invalid_argument("not a class: " + text);
  if (m[1].matched) c.n = m[3].matched ? std::stod(m[3]) : 1;
  if (m[4].matched) c.log = m[6].matched ? std::stod(m[6]) : 1;
  return c;
}

/// The class a CSV file's comment names: "... The algorithm's class: n^3." -> n^3.
std::optional<true_class> csv_class(const fs::path& file) {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    const auto at = line.find("class: ");
    if (at == std::string::npos) continue;
    auto rest = line.substr(at + 7);
    rest = rest.substr(0, rest.find(" ("));  // "n (why, on this machine)."
    while (!rest.empty() && (rest.back() == '.' || rest.back() == ' ' || rest.back() == '\r')) rest.pop_back();
    return parse_class(rest);
  }
  return std::nullopt;
}

struct tally {
  int series = 0, firm_right = 0, firm_wrong = 0, first_right = 0, polynomial = 0, interval_holds = 0;
  /// Series whose true class's equation misses no size's mean in the regime by more than 10%, and
  /// of them the firm and right ones (issue 29 asks for every one).
  int fits_10 = 0, fits_10_firm = 0;
  /// Of those, the series where no other coarse class (class_set.hpp) fits within 10% too: where
  /// the data tell the class from its neighbours at that tolerance, not only fit it.
  int alone_10 = 0, alone_10_firm = 0;
  void add(const tally& t) {
    series += t.series, firm_right += t.firm_right, firm_wrong += t.firm_wrong, first_right += t.first_right;
    polynomial += t.polynomial, interval_holds += t.interval_holds;
    fits_10 += t.fits_10, fits_10_firm += t.fits_10_firm;
    alone_10 += t.alone_10, alone_10_firm += t.alone_10_firm;
  }
};

/// A string member, "" when it is missing or null.
std::string text_of(const json& j, const char* key) { return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string(); }

/// Judges one fitted series of `ema fit --json` against its class; a line for the listing.
std::string judge(const json& fit, const true_class& want, tally& t, std::vector<std::string>& wrong, const std::string& label = "") {
  const std::string name = label.empty() ? text_of(fit, "variant") : label;
  if (!text_of(fit, "skipped").empty()) return fmt::format("  {:<44} not fitted: {}\n", name, text_of(fit, "skipped"));
  const auto& theta = fit.at("best").at("theta");
  const std::string level = text_of(fit.at("verdict"), "level");
  bool right = false;
  if (want.base) {
    // B^n with B within 5% (1.62 and 1.68 are one class): the base and a plain n in the exponent.
    const auto text = text_of(theta, "text");
    right = theta.contains("exp") && theta["exp"].is_number() && std::abs(theta["exp"].get<double>() / *want.base - 1) < 0.05 && text.size() >= 3 &&
            text.compare(text.size() - 3, 3, "^n)") == 0;
  } else {
    right = (!theta.contains("exp") || theta["exp"].is_null()) && theta.value("n", -1.0) == want.n && theta.value("log", -1.0) == want.log;
  }
  ++t.series;
  t.first_right += right;
  if (level == "firm") {
    t.firm_right += right;
    t.firm_wrong += !right;
    if (!right) wrong.push_back(fmt::format("{}: firm {}, true {}", name, text_of(theta, "text"), want.text));
  }
  if (!want.base && fit.contains("classes") && fit["classes"].is_object()) {
    const auto within_10 = [](const json& c) { return c.value("max_rel_err", json()).is_number() && c["max_rel_err"].get<double>() <= 0.10; };
    const auto is_true = [&](const json& th) {
      return (!th.contains("exp") || th["exp"].is_null()) && th.value("n", -1.0) == want.n && th.value("log", -1.0) == want.log;
    };
    const auto& candidates = fit["classes"].value("candidates", json::array());
    for (const auto& c : candidates)
      if (is_true(c.at("theta")) && within_10(c)) {
        ++t.fits_10;
        t.fits_10_firm += level == "firm" && right;
        const bool alone = std::none_of(candidates.begin(), candidates.end(),
                                        [&](const json& o) { return o.value("coarse", false) && !is_true(o.at("theta")) && within_10(o); });
        t.alone_10 += alone;
        t.alone_10_firm += alone && level == "firm" && right;
        break;
      }
  }
  std::string interval = "-";
  if (!want.base && fit.contains("leading_exponent") && fit["leading_exponent"].is_object() &&
      text_of(fit["leading_exponent"], "what") == "exponent of n") {
    const auto& e = fit["leading_exponent"];
    const bool holds = e.value("lo", 1e9) <= want.n + 1e-9 && want.n - 1e-9 <= e.value("hi", -1e9);
    ++t.polynomial;
    t.interval_holds += holds;
    interval = fmt::format("[{:.2f}, {:.2f}]{}", e.value("lo", 0.0), e.value("hi", 0.0), holds ? "" : " misses");
  }
  if (const char* dump = std::getenv("EMA_REAL_DUMP")) {  // one JSON line a series, for studying the reasons
    std::ofstream out(dump, std::ios::app);
    out << json{{"series", name},
                {"theta", text_of(theta, "text")},
                {"want", want.text},
                {"right", right},
                {"level", level},
                {"reasons", fit.at("verdict").value("reasons", json::array())},
                {"classes", fit.value("classes", json())},
                {"exponent", fit.value("leading_exponent", json())},
                {"regime", fit.value("regime", json())},
                {"sizes", fit.value("sizes", json())}}
               .dump()
        << "\n";
  }
  return fmt::format("  {:<44} {:<20} {:<10} {:<22} true {}{}\n", name.substr(0, 44), text_of(theta, "text"), level, interval, want.text,
                     right ? "" : "  (class wrong)");
}

/// `ema fit ARGS --json`. With `metric_may_be_missing`, null where ema refuses the metric because
/// the experiment has none of it (a CPU-only experiment's kernel time).
json fit_json(std::vector<std::string> args, bool metric_may_be_missing = false) {
  args.insert(args.begin(), "fit");
  args.push_back("--json");
  const auto r = test::run_ema(args);
  if (metric_may_be_missing && r.exit_code == 2 && r.err.find("has no samples of metric") != std::string::npos) return json(nullptr);
  EXPECT_EQ(r.exit_code == 0 || r.exit_code == 1, true) << fmt::format("{}", fmt::join(args, " ")) << ": " << r.err;
  return json::parse(r.out, nullptr, false);
}

/// The work each problem's model declares (src/problems/<p>/problem.cpp, `work`), the faster of its
/// bytes and operations: what `ema fit` on the experiment itself would weigh the answer against
/// (analysis_options::work), given to `ema fit --csv` with --work for the exported series.
const std::map<std::string, std::string> problem_work = {
    {"search", "n"},     // a scan of every element (hit = none)
    {"sort", "n"},       // 2 n keys' bytes, n operations
    {"gauss", "n^3"},    // 2/3 n^3 flops
    {"stencil", "n^2"},  // n^2 cells a step
    {"rqa", "n^2"},      // vectors^2 comparisons
    {"bfs", "n"},        // the edges, n times the degree
    {"sssp", "n"},
};

/// The sort variants that sort by comparing keys (algorithm merge, quick or std in their
/// registrations): their algorithm's work (problem_desc::algorithm_floors) is n log n comparisons.
/// Named here so that a build without CUDA judges the GPU sorts' series alike; the test below checks
/// it against this build's registry.
const std::set<std::string> comparison_sorts = {"std-sort",  "gnu-parallel", "merge-omp",  "quick-omp", "merge-cuda",  "merge-path",
                                                "cub-merge", "merge-cdp",    "quick-cuda", "quick-cdp", "quick-sample"};

/// The problem and variant an exported series names first ("# sort std-sort {...}, metric ...").
std::pair<std::string, std::string> csv_variant(const fs::path& file) {
  std::ifstream in(file);
  std::string hash, problem, variant;
  in >> hash >> problem >> variant;
  return hash == "#" ? std::pair{problem, variant} : std::pair<std::string, std::string>{};
}

/// The work `ema fit` on the experiment would weigh the series against, as a class for --work.
std::string work_of(const fs::path& file) {
  const auto [problem, variant] = csv_variant(file);
  if ((problem == "sort" && comparison_sorts.count(variant)) || (problem == "sssp" && variant == "seq")) return "n log n";
  const auto w = problem_work.find(problem);
  return w == problem_work.end() ? "" : w->second;
}

TEST(FitRealData, DijkstraIsTheOneSsspVariantWithAHeapFloor) {
  const auto& sssp = find_problem("sssp");
  for (const auto* v : variants_of("sssp")) {
    const bool heap = std::any_of(sssp.algorithm_floors.begin(), sssp.algorithm_floors.end(),
                                  [&](const algorithm_work& a) { return std::string_view(a.algorithm) == v->algorithm; });
    EXPECT_EQ(heap, std::string_view(v->name) == "seq") << v->name << " (algorithm " << v->algorithm << ")";
  }
}

TEST(FitRealData, TheComparisonSortsAreThoseTheRegistryDeclares) {
  const auto& sort = find_problem("sort");
  for (const auto* v : variants_of("sort")) {
    const bool compares = std::any_of(sort.algorithm_floors.begin(), sort.algorithm_floors.end(),
                                      [&](const algorithm_work& a) { return std::string_view(a.algorithm) == v->algorithm; });
    EXPECT_EQ(compares, comparison_sorts.count(v->name) == 1) << v->name << " (algorithm " << v->algorithm << ")";
  }
}

/// The size a verdict names settles it when the answer is right (issue 29, item 2): a series of
/// ema's own held back by classes the data leave beside the answer and nothing else gets the named
/// size added to its file as the answer predicts it (with the spread of the largest size's
/// replicates), and is fitted again. Nullopt for other series; else whether it is then firm on the
/// same class, and `changed` whether its class changed.
/// Under AddressSanitizer (CI's second run) the settle check's refits, the analysis's logic and
/// not its memory, are left to the release build: they cost the sanitised run a minute or more.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool sanitized = true;
#else
constexpr bool sanitized = false;
#endif

/// Under AddressSanitizer every sixteenth file and database is fitted: the same code paths as the
/// whole set's at a sixteenth of the sanitised run's time (the whole set took it 9 minutes of CI's
/// hour, every fourth 7 minutes by 2026-12); the release build fits them all and checks the rates.
constexpr std::size_t stride = sanitized ? 16 : 1;

struct settle_tally {
  int held = 0, settled = 0, changed = 0;
  std::vector<std::string> unsettled, changed_class;
};

void settle_at_named_size(const fs::path& path, std::vector<std::string> args, const json& f, const test::temp_dir& dir, settle_tally& t) {
  const auto& v = f["verdict"];
  if (text_of(v, "level") == "firm" || !v["next_size"].is_number() || !v["predicted"].is_number() || v["reasons"].empty()) return;
  const bool rivals_only = std::all_of(v["reasons"].begin(), v["reasons"].end(), [](const json& r) {
    return r.get<std::string>().find("not excluded by held-out prediction") != std::string::npos;
  });
  if (!rivals_only) return;
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::map<double, std::vector<double>> values;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && std::isdigit(static_cast<unsigned char>(line[0]))) {
      const auto comma = line.find(',');
      values[std::stod(line.substr(0, comma))].push_back(std::stod(line.substr(comma + 1)));
    }
  const auto& top = values.rbegin()->second;
  double mean = 0;
  for (double x : top) mean += x / static_cast<double>(top.size());
  const double n = v["next_size"].get<double>(), predicted = v["predicted"].get<double>();
  const auto more = dir.file(path.filename().string());
  std::ofstream out(more);
  out << text;
  for (double x : top) out << fmt::format("{:.0f},{:.9g}\n", n, predicted * x / mean);
  out.close();
  args[1] = more;
  const auto again = fit_json(args);
  ASSERT_TRUE(again.is_object() && again.contains("fits")) << more;
  const auto& g = again["fits"][0];
  ++t.held;
  const bool same = g["best"]["theta"] == f["best"]["theta"];
  t.changed += !same;
  if (!same)
    t.changed_class.push_back(fmt::format("{}: {} became {} at n = {:.0f}", path.filename().string(), text_of(f["best"]["theta"], "text"),
                                          text_of(g["best"]["theta"], "text"), n));
  if (same && text_of(g["verdict"], "level") == "firm")
    ++t.settled;
  else
    t.unsettled.push_back(fmt::format("{}: {} at n = {:.0f}", path.filename().string(), text_of(g["verdict"], "level"), n));
}

TEST(FitRealData, FirmVerdictsNameTheTrueClassAndTheRatesArePrinted) {
  std::map<std::string, tally> groups;  // by where the data came from: the file name's first word
  std::vector<std::string> wrong;
  std::string listing;
  auto group_of = [](const std::string& file) { return file.substr(0, file.find('-')); };
  test::temp_dir dir;
  settle_tally settles;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(EMA_REAL_DIR)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  // ema's own sweeps: one series a CSV file, its class in its comment.
  std::size_t csv_index = 0;
  for (const auto& path : files) {
    if (path.extension() != ".csv") continue;
    if (csv_index++ % stride) continue;
    const auto want = csv_class(path);
    ASSERT_TRUE(want) << path << " names no class";
    std::vector<std::string> args = {"--csv", path.string()};
    if (const auto w = work_of(path); !w.empty()) args.insert(args.end(), {"--work", w});
    const auto doc = fit_json(args);
    ASSERT_TRUE(doc.is_object() && doc.contains("fits")) << path;
    auto& t = groups[group_of(path.filename().string())];
    listing += path.filename().string() + "\n";
    for (const auto& f : doc["fits"]) listing += judge(f, *want, t, wrong);
    if (!sanitized) settle_at_named_size(path, args, doc["fits"][0], dir, settles);
  }
  // ema's own databases, kept whole (xz): fitted as `ema fit --db` fits an experiment, with the
  // machine record's caches and each problem's work model; programs/ema_classes.json names the
  // classes (by "problem variant", else by problem; "" or none: no certain class, not judged).
  std::ifstream ema_classes_file(fs::path(EMA_REAL_DIR) / "programs" / "ema_classes.json");
  const auto ema_classes = json::parse(ema_classes_file);
  std::vector<fs::path> databases;
  for (const auto& entry : fs::directory_iterator(fs::path(EMA_REAL_DIR) / "databases")) databases.push_back(entry.path());
  std::sort(databases.begin(), databases.end());
  for (std::size_t d = 0; d < databases.size(); d += stride) {
    const auto& path = databases[d];
    ASSERT_EQ(path.extension(), ".xz") << path << ": the databases are kept compressed with xz";
    const auto unpacked = test::run_process({"/bin/sh", "-c", "exec xz -dc \"$0\"", path.string()});
    ASSERT_EQ(unpacked.exit_code, 0) << "xz -dc " << path << ": " << unpacked.err;
    const auto db = dir.file(path.stem().string());
    std::ofstream(db, std::ios::binary) << unpacked.out;
    const auto name = path.filename().string();
    for (const char* metric : {"total", "kernel"}) {
      // A CPU-only experiment has no kernel time: ema refuses the metric, naming those it has.
      const auto doc = fit_json({"--db", db, "--metric", metric}, std::string_view(metric) == "kernel");
      if (doc.is_null()) continue;
      ASSERT_TRUE(doc.is_object() && doc.contains("fits")) << name << " " << metric;
      auto& t = groups[group_of(name)];
      listing += fmt::format("{} ({})\n", name, metric);
      for (const auto& f : doc["fits"]) {
        const auto problem = text_of(f, "problem"), variant = text_of(f, "variant");
        const auto key = ema_classes.contains(problem + " " + variant) ? problem + " " + variant : problem;
        const auto want = ema_classes.value(key, std::string());
        if (want.empty()) continue;  // no certain class
        listing += judge(f, parse_class(want), t, wrong, fmt::format("{} {} {}", name, problem, variant));
      }
    }
  }
  // Other tools' files: classes.json names each benchmark's class.
  std::ifstream manifest_file(fs::path(EMA_REAL_DIR) / "classes.json");
  const auto manifest = json::parse(manifest_file);
  for (const auto& m : manifest.at("files")) {
    const auto file = m.at("file").get<std::string>();
    std::vector<std::string> args = {"--from", m.at("tool").get<std::string>(), (fs::path(EMA_REAL_DIR) / file).string()};
    if (m.contains("metric")) args.insert(args.end(), {"--metric", m["metric"].get<std::string>()});
    const auto doc = fit_json(args);
    ASSERT_TRUE(doc.is_object() && doc.contains("fits")) << file;
    auto& t = groups[group_of(file)];
    listing += fmt::format("{}{}\n", file, m.contains("metric") ? " (" + m["metric"].get<std::string>() + ")" : "");
    int judged = 0;
    for (const auto& f : doc["fits"]) {
      const auto name = text_of(f, "variant");
      const auto& classes = m.at("classes");
      // A benchmark's class by its name, or by the longest name it begins with (gbench's family).
      std::string key;
      for (const auto& [k, v] : classes.items())
        if (name.rfind(k, 0) == 0 && k.size() > key.size()) key = k;
      ASSERT_FALSE(key.empty()) << file << ": " << name << " has no class in classes.json";
      listing += judge(f, parse_class(classes[key].get<std::string>()), t, wrong);
      ++judged;
    }
    EXPECT_EQ(judged, static_cast<int>(m.at("classes").size())) << file << ": a benchmark of classes.json was not fitted";
  }
  tally all;
  std::string table = fmt::format("{:<10} {:>6} {:>10} {:>10} {:>12} {:>15} {:>22} {:>19}\n", "data", "series", "firm right", "firm wrong",
                                  "first right", "interval holds", "fits in 10%: firm right", "alone in 10%: firm");
  auto row = [](const std::string& name, const tally& t) {
    return fmt::format("{:<10} {:>6} {:>10} {:>10} {:>12} {:>15} {:>22} {:>19}\n", name, t.series, t.firm_right, t.firm_wrong, t.first_right,
                       fmt::format("{} of {}", t.interval_holds, t.polynomial), fmt::format("{} of {}", t.fits_10_firm, t.fits_10),
                       fmt::format("{} of {}", t.alone_10_firm, t.alone_10));
  };
  for (const auto& [name, t] : groups) {
    table += row(name, t);
    all.add(t);
  }
  table += row("all", all);
  std::printf("%s\n%s", listing.c_str(), table.c_str());
  EXPECT_EQ(all.firm_wrong, 0) << fmt::format("{}", fmt::join(wrong, "\n"));
  EXPECT_GE(all.series, 150 / stride);
  if (sanitized) return;  // a sample of the set: the rates are the release build's to check
  // Where the analysis stands on this set (docs/fitting.md keeps the history): a change that
  // answers fewer series right, firm, or inside the interval is a regression to explain there.
  // Series added or lost change the floors: fit the set, record its rates there and set them here.
  EXPECT_EQ(all.series, 4295) << "the real set changed: record its rates in docs/fitting.md and set the floors below";
  EXPECT_GE(all.firm_right, 1590);
  EXPECT_GE(all.first_right, 3462);
  EXPECT_GE(all.interval_holds, 3731);
  EXPECT_GE(all.fits_10_firm, 814);   // of the 1401 whose true class fits within 10% (issue 29 asks for all)
  EXPECT_GE(all.alone_10_firm, 301);  // of the 430 of them where no other coarse class does
  // Issue 29's targets that the set meets: the class shown first right for 70% of ema's own sweeps
  // and 55% of other tools' files, the interval holding the true exponent for 80% of ema's own.
  tally own, others;
  for (const auto& [name, t] : groups) (name == "gbench" || name == "hyperfine" ? others : own).add(t);
  EXPECT_GE(own.first_right, 0.70 * own.series);
  EXPECT_GE(own.interval_holds, 0.80 * own.polynomial);
  EXPECT_GE(others.first_right, 0.55 * others.series);
  // The size named to settle a verdict held back only by classes left beside the answer settles
  // most of them when the answer is right, and changes no class (before the size was found by
  // fitting again with it: 62 of 144).
  std::printf("settled by the size named: %d of %d\n", settles.settled, settles.held);
  EXPECT_GE(settles.held, 100);
  EXPECT_EQ(settles.changed, 0) << fmt::format("{}", fmt::join(settles.changed_class, "\n"));
  EXPECT_GE(settles.settled, 0.6 * settles.held) << fmt::format("{}", fmt::join(settles.unsettled, "\n"));
}

}  // namespace
}  // namespace ema
