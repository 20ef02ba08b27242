// Text for where it goes (core/text.hpp): here, a word of a shell command line that reads back as
// itself, so an echoed command can be pasted and run.
#include <cstdio>
#include <gtest/gtest.h>
#include <string>

#include "core/text.hpp"

namespace ema {
namespace {

/// What /bin/sh makes of `word` as one argument.
std::string through_shell(const std::string& word) {
  const std::string command = "printf '%s|' " + word;
  FILE* p = popen(command.c_str(), "r");
  if (!p) return "<popen failed>";
  std::string out;
  char buf[256];
  while (std::size_t k = std::fread(buf, 1, sizeof buf, p)) out.append(buf, k);
  pclose(p);
  return out;
}

TEST(Text, ShellWordsReadBackAsThemselves) {
  EXPECT_EQ(shell_word("--sizes"), "--sizes");
  EXPECT_EQ(shell_word("2^16..2^28"), "'2^16..2^28'");  // zsh's extended globs read ^
  EXPECT_EQ(shell_word("demo.db"), "demo.db");
  EXPECT_EQ(shell_word("launch.threads=64"), "launch.threads=64");
  for (const std::string word : {"", "a b", "it's", "2^16..2^28*2", "$(touch x)", "`id`", "a\nb", "\\", "'", "''", "~", "x;y", "--param=hit=middle",
                                 "=x", "\xc3\xa9t\xc3\xa9"})
    EXPECT_EQ(through_shell(shell_word(word)), word + "|") << "shell_word(" << word << ") = " << shell_word(word);
}

TEST(Text, CsvFieldsQuoteOnlyWhatNeedsIt) {
  EXPECT_EQ(csv_field("sort"), "sort");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field(""), "");
}

}  // namespace
}  // namespace ema
