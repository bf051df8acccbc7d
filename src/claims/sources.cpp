// The source texts the claims cite, and how a citation reads: "001 §L2 Cache" in the
// catalogue's data becomes the text's title and section.
#include <algorithm>
#include <string>
#include <vector>

#include "memhier/claims/catalogue.hpp"

namespace memhier::claims {
namespace {

// The source text whose number starts s at `at` ("001 §..."), or nullptr.
const Seed* cited_at(const std::string& s, std::size_t at) {
  for (const Seed& t : seeds())
    if (s.compare(at, t.number.size() + 3, t.number + " §") == 0) return &t;  // "§": 2 bytes
  return nullptr;
}

// Each "001 §" inside a part ("000 §A / 002 §B") becomes "GPU Memory Hierarchy, §".
std::string spell_numbers(std::string part) {
  for (std::size_t i = 0; i < part.size(); ++i) {
    if (i > 0 && part[i - 1] != ' ') continue;
    if (const Seed* t = cited_at(part, i)) part.replace(i, t->number.size(), t->title + ",");
  }
  return part;
}

}  // namespace

std::string cite(const std::string& source) {
  std::vector<std::string> parts;
  std::size_t last_cited = std::string::npos;  // the part a bare "§..." continues
  std::size_t start = 0;
  while (start < source.size()) {
    const std::size_t end = std::min(source.find("; ", start), source.size());
    const std::string part = source.substr(start, end - start);
    start = end + 2;
    const Seed* text = cited_at(part, 0);
    if (!text) {
      if (part.compare(0, 2, "§") == 0 && last_cited != std::string::npos)
        parts[last_cited] += ", " + part;
      else
        parts.push_back(spell_numbers(part));
      continue;
    }
    const std::string section = spell_numbers(part.substr(text->number.size() + 1));  // "§..."
    auto same = std::find_if(parts.begin(), parts.end(), [text](const std::string& p) {
      return p.compare(0, text->title.size() + 2, text->title + ", ") == 0;
    });
    if (same == parts.end()) {
      parts.push_back(text->title + ", " + section);
      same = parts.end() - 1;
    } else {
      *same += ", " + section;
    }
    last_cited = static_cast<std::size_t>(same - parts.begin());
  }
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

const std::vector<Seed>& seeds() {
  static const std::vector<Seed> texts{
      {"000", "Global, Shared, and Register Memory",
       "the tiers and their costs, tiled matmul and tile sizes, padding, constant memory, "
       "spills, launch bounds",
       "000-global-shared-register-memory.txt"},
      {"001", "GPU Memory Hierarchy",
       "the whole hierarchy with measured tables: latency, bandwidth, banks, coalescing, "
       "layouts, L2 working sets and persistence, transpose, softmax, anti-patterns",
       "001-gpu-memory-hierarchy.txt"},
      {"002", "Shared Memory and Bank Conflicts",
       "bank rules, padding and swizzling, cp.async pipelines, the GEMM ladder",
       "002-shared-memory-bank-conflicts.txt"},
      {"003", "Shared Memory Patterns",
       "scopes, static and dynamic shared memory, tiling, occupancy against resources",
       "003-shared-memory-patterns.txt"},
      {"004", "CS 380 Lecture 15: CUDA Memories, Pt. 2",
       "banks and broadcast, structs in shared memory, global transactions, caching and "
       "non-caching loads, the read-only cache, PTX cache operators",
       "004-lecture-cuda-memories.txt"},
  };
  return texts;
}

std::vector<SourceRef> parse_sources(const std::string& source) {
  static const std::string kGoal = "memhier goal: ";
  static const std::string kPublished = "published figures: ";
  std::vector<SourceRef> refs;
  std::size_t start = 0;
  while (start <= source.size()) {
    const std::size_t end = std::min(source.find("; ", start), source.size());
    const std::string part = source.substr(start, end - start);
    start = end + 2;
    if (part.compare(0, kGoal.size(), kGoal) == 0) {
      refs.push_back({"memhier goal", part.substr(kGoal.size())});
    } else if (part.compare(0, kPublished.size(), kPublished) == 0) {
      refs.push_back({"published figures", part.substr(kPublished.size())});
    } else {
      // "Title, §A, §B": the title, then each section after ", §" ("§" is two bytes in UTF-8).
      static const std::string kMark = ", §";
      std::size_t at = part.find(kMark);
      if (at == std::string::npos || at == 0) return {};
      const std::string title = part.substr(0, at);
      while (at != std::string::npos) {
        const std::size_t next = part.find(kMark, at + kMark.size());
        refs.push_back({title, part.substr(at + kMark.size(), next - at - kMark.size())});
        if (refs.back().section.empty()) return {};
        at = next;
      }
    }
    if (refs.back().section.empty()) return {};
  }
  return refs;
}

nlohmann::json claim_record(const Claim& c) {
  nlohmann::json sources = nlohmann::json::array();
  for (const SourceRef& r : parse_sources(c.source))
    sources.push_back({{"origin", r.origin}, {"section", r.section}});
  nlohmann::json checkers = nlohmann::json::array();
  for (const Checker& ch : c.checked_by) checkers.push_back(ch.owner());
  return {{"id", std::string(name(c.id))},
          {"source", c.source},
          {"sources", sources},
          {"text", c.text},
          {"about", c.subject.describe()},
          {"absolute", c.subject.absolute()},
          {"figure", c.subject.figure == Subject::Figure::absolute        ? "absolute"
                     : c.subject.figure == Subject::Figure::share_of_peak ? "share of peak"
                                                                          : "ratio"},
          {"checked_by", checkers},
          {"unmeasured", c.unmeasured}};
}

}  // namespace memhier::claims
