// The documentation kept true: every command's --help options appear on its page in docs/cli, every
// registered problem, parameter and variant on its page in docs/problems, every relative link and
// anchor in README.md and docs/ resolves, and the README stays a front page (at most 12 KiB).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "support/process.hpp"

namespace ema {
namespace {

namespace fs = std::filesystem;
const fs::path source = EMA_SOURCE_DIR;

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string help(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {EMA_EXE};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = test::run_process(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

// Whether `text` holds `word` not as the prefix of a longer option (--run, not --run-tie-breaker).
bool mentions(const std::string& text, const std::string& word) {
  for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const auto end = at + word.size();
    if (end == text.size() || !(std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '-' || text[end] == '_')) return true;
  }
  return false;
}

std::vector<std::string> subcommands() {
  std::vector<std::string> out;
  std::istringstream in(help({"--help"}));
  bool listing = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Subcommands:", 0) == 0) {
      listing = true;
      continue;
    }
    std::smatch m;
    if (listing && std::regex_match(line, m, std::regex(R"(\s+([a-z]+)\s+.*)"))) out.push_back(m[1]);
  }
  return out;
}

TEST(Docs, EveryCommandsOptionsAreOnItsPage) {
  const auto commands = subcommands();
  ASSERT_GE(commands.size(), 7u);
  const auto index = slurp(source / "docs/cli/README.md");
  for (const auto& c : commands) {
    const auto page = source / "docs/cli" / (c + ".md");
    ASSERT_TRUE(fs::exists(page)) << "no page for `ema " << c << "`: " << page;
    const auto text = slurp(page);
    EXPECT_NE(index.find("(" + c + ".md)"), std::string::npos) << "docs/cli/README.md does not link " << c;
    const auto h = help({c, "--help"});
    std::set<std::string> options;
    static const std::regex option(R"(--[a-z][a-z0-9-]*)");
    for (std::sregex_iterator it(h.begin(), h.end(), option), end; it != end; ++it) options.insert(it->str());
    EXPECT_FALSE(options.empty()) << c;
    for (const auto& o : options) EXPECT_TRUE(mentions(text, o)) << "docs/cli/" << c << ".md does not describe " << o;
  }
}

// docs/adding-a-problem.md's rule: a variant is one file of its problem's folder, named as the
// variant with '-' as '_' (.cpp, or .cu for code nvcc must see); every other file there holds
// what variants share.
TEST(Docs, EveryVariantIsTheFileItsNameSays) {
  const auto problems = nlohmann::json::parse(help({"list", "--json"}));
  int variants = 0;
  for (const auto& p : problems)
    for (const auto& v : p["variants"]) {
      std::string file = v["name"];
      std::replace(file.begin(), file.end(), '-', '_');
      const auto folder = source / "src/problems" / p["name"].get<std::string>();
      EXPECT_TRUE(fs::exists(folder / (file + ".cpp")) || fs::exists(folder / (file + ".cu")))
          << p["name"] << " " << v["name"] << ": no " << (folder / file).string() << ".cpp or .cu";
      ++variants;
    }
  EXPECT_GE(variants, 9);  // every build has the nine seq variants (a CPU-only build 25, with CUDA 53)
}

TEST(Docs, EveryProblemParameterAndVariantIsOnItsPage) {
  const auto problems = nlohmann::json::parse(help({"list", "--json"}));
  ASSERT_FALSE(problems.empty());
  const auto readme = slurp(source / "README.md");
  for (const auto& p : problems) {
    const std::string name = p["name"];
    const auto page = source / "docs/problems" / (name + ".md");
    ASSERT_TRUE(fs::exists(page)) << "no page for problem " << name;
    const auto text = slurp(page);
    EXPECT_NE(readme.find("(docs/problems/" + name + ".md)"), std::string::npos) << "the README does not link problem " << name;
    for (const auto& v : p["variants"]) {
      const std::string variant = v["name"];
      EXPECT_NE(text.find("`" + variant + "`"), std::string::npos) << name << ".md does not name variant " << variant;
      // Its row of the variants table gives its algorithm and role.
      const std::string row = fmt::format("| `{}` | {} | {} | {} |", variant, v["backend"].get<std::string>(), v["algorithm"].get<std::string>(),
                                          v["role"].get<std::string>());
      EXPECT_NE(text.find(row), std::string::npos) << name << ".md has no row " << row;
      for (const auto& f : v["launch"])
        EXPECT_NE(text.find(fmt::format("| `{}` | `{}` |", variant, f["name"].get<std::string>())), std::string::npos)
            << name << ".md does not describe " << variant << "'s " << f["name"];
    }
    for (const auto& q : p["params"])
      EXPECT_NE(text.find("`" + q["name"].get<std::string>() + "`"), std::string::npos) << name << ".md does not describe parameter " << q["name"];
  }
}

// GitHub's anchor of a heading: lower case, punctuation dropped (letters, digits, spaces, '-' and
// '_' kept, and every byte of a non-ASCII character), spaces as '-'.
std::string anchor_of(const std::string& heading) {
  std::string out;
  for (unsigned char c : heading) {
    if (std::isalnum(c) || c == '-' || c == '_' || c >= 0x80)
      out += static_cast<char>(std::tolower(c));
    else if (c == ' ')
      out += '-';
  }
  return out;
}

std::set<std::string> anchors(const fs::path& page) {
  std::set<std::string> out;
  std::istringstream in(slurp(page));
  bool code = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) code = !code;
    if (code || line.empty() || line[0] != '#') continue;
    const auto text = line.substr(line.find_first_not_of('#'));
    out.insert(anchor_of(text.substr(std::min(text.size(), text.find_first_not_of(' ')))));
  }
  return out;
}

TEST(Docs, EveryLinkResolves) {
  std::vector<fs::path> pages = {source / "README.md"};
  for (const auto& e : fs::recursive_directory_iterator(source / "docs"))
    if (e.path().extension() == ".md") pages.push_back(e.path());
  std::size_t links = 0;
  for (const auto& page : pages) {
    const auto text = slurp(page);
    static const std::regex link(R"(\]\(([^)\s]+)\))");
    for (std::sregex_iterator it(text.begin(), text.end(), link), end; it != end; ++it) {
      const std::string target = (*it)[1];
      if (target.rfind("http://", 0) == 0 || target.rfind("https://", 0) == 0 || target.rfind("mailto:", 0) == 0) continue;
      ++links;
      const auto hash = target.find('#');
      const auto file = target.substr(0, hash);
      const auto resolved = file.empty() ? page : (page.parent_path() / file).lexically_normal();
      ASSERT_TRUE(fs::exists(resolved)) << page.lexically_relative(source) << " links " << target << ", which does not exist";
      if (hash != std::string::npos && resolved.extension() == ".md")
        EXPECT_TRUE(anchors(resolved).count(target.substr(hash + 1)))
            << page.lexically_relative(source) << " links " << target << ": no such heading";
    }
  }
  EXPECT_GT(links, 30u);
}

TEST(Docs, TheReadmeIsAFrontPage) {
  const auto readme = slurp(source / "README.md");
  EXPECT_LE(readme.size(), 12u * 1024) << "the README grew past a front page: move the detail to docs/";
  // The report's first screen, and the GPU tour's picture of its charts.
  EXPECT_TRUE(fs::exists(source / "docs/images/report-overview.png"));
  EXPECT_NE(readme.find("](docs/images/report-overview.png)"), std::string::npos);
  EXPECT_NE(slurp(source / "docs/tour-gpu.md").find("](images/report.png)"), std::string::npos);
}

}  // namespace
}  // namespace ema
