// No formatter cuts text: a 10,000-character paragraph, caption, cell and message goes
// through every printf-style formatter and every writer whole.
#include <gtest/gtest.h>

#include <string>

#include "../../src/probe/common.hpp"
#include "memhier/claims/judge.hpp"
#include "memhier/model/input.hpp"
#include "memhier/model/text.hpp"
#include "memhier/report/document.hpp"
#include "memhier/report/writers.hpp"

namespace {

using namespace memhier;

// "w00000 w00001 ... END": words a writer may wrap between but never drop, ending in a
// marker that only the whole text reaches.
std::string long_text(std::size_t at_least = 10000) {
  std::string s;
  for (int i = 0; s.size() < at_least; ++i) s += "w" + std::to_string(100000 + i).substr(1) + " ";
  return s + "END";
}

// How many of `text`'s words appear in `out`, in order (wrapping may put a newline and an
// indent between two words).
std::size_t words_in_order(const std::string& out, const std::string& text) {
  std::size_t found = 0, at = 0, start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    const std::size_t where = out.find(word, at);
    if (where == std::string::npos) break;
    ++found;
    at = where + word.size();
    start = end + 1;
  }
  return found;
}

std::size_t word_count(const std::string& text) {
  std::size_t n = 1;
  for (char c : text) n += c == ' ';
  return n;
}

TEST(Text, PrintfFormattersKeepEveryCharacter) {
  const std::string t = long_text();
  ASSERT_GE(t.size(), 10000u);
  EXPECT_EQ(model::strf("%s", t.c_str()), t);
  EXPECT_EQ(model::strf("[%s|%d|%s]", t.c_str(), 7, t.c_str()), "[" + t + "|7|" + t + "]");
  EXPECT_EQ(report::strf("%s", t.c_str()), t);
  EXPECT_EQ(report::strf("%s: %.2f", t.c_str(), 1.5), t + ": 1.50");
  EXPECT_EQ(model::strf("%s", ""), "");
  // Figures: a double's fixed notation runs past 300 digits.
  EXPECT_EQ(probe::fixed(1e300, 2).size(), 301u + 3u);
  EXPECT_EQ(claims::judge_number(1e300).size(), 301u);
}

TEST(Text, WritersKeepEveryWord) {
  const std::string t = long_text();
  report::Document d;
  d.title = "long";
  report::Section s;
  s.id = "long";
  s.title = "A long section";
  s.paragraphs.push_back(t);
  report::Table tab;
  tab.id = "long-table";
  tab.title = "A table";
  tab.caption = t;
  tab.columns = {{"text", "", "text"}};
  tab.rows = {{report::Value::str(t)}};
  tab.notes = {t};
  s.tables.push_back(tab);
  d.sections.push_back(s);
  const std::size_t words = word_count(t);
  // Each writer shows the paragraph, the caption, the cell and the note: 4 copies, at least
  // one whole in order.
  for (const auto& [name, out] :
       {std::pair<std::string, std::string>{"terminal", report::to_terminal(d)},
        {"markdown", report::to_markdown(d)},
        {"html", report::to_html(d)},
        {"json", report::to_json(d).dump()},
        {"csv", report::to_csv(tab)}}) {
    EXPECT_EQ(words_in_order(out, t), words) << name << " lost words of a long text";
    EXPECT_NE(out.find("END"), std::string::npos) << name;
  }
}

TEST(Text, InputMessagesQuoteLongInputShortly) {
  // A message about a 10,000-character input stays one readable line: the input is quoted
  // cut at 64 characters, the rest of the sentence whole.
  const std::string t(10000, '7');
  try {
    model::parse_block(t, "--block");
    FAIL() << "a 10,000-digit block extent was accepted";
  } catch (const model::InputError& e) {
    const std::string m = e.what();
    EXPECT_LT(m.size(), 300u) << m;
    EXPECT_NE(m.find("...'"), std::string::npos) << m;
    EXPECT_EQ(m.back(), '.') << m;
  }
}

}  // namespace
