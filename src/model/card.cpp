// The card table (see card.hpp). SM counts and L2 sizes are the vendors' datasheets and
// whitepapers; bandwidths are measured where memhier has a record of the card
// (docs/results/<card>/), otherwise the datasheet's peak, and each entry says which.
#include "memhier/model/card.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace memhier::model {

namespace {

constexpr long long kMiB = 1024LL * 1024;
constexpr long long kMB = 1000LL * 1000;

std::vector<Card> build() {
  const char* kNoL2 = "no measured L2 bandwidth for this card: the bound is DRAM's alone";
  std::vector<Card> t;
  // V100 SXM2: 80 SMs, 6 MB L2, 900 GB/s HBM2 (Volta whitepaper).
  t.push_back({"V100 SXM2", "v100", 7, 0, 80, 6 * kMiB, 900, "datasheet: 900 GB/s HBM2", 0, kNoL2});
  // T4: 40 SMs, 4 MB L2, 320 GB/s GDDR6 (Turing whitepaper, T4 datasheet).
  t.push_back({"T4", "t4", 7, 5, 40, 4 * kMiB, 320, "datasheet: 320 GB/s GDDR6", 0, kNoL2});
  // A100 SXM4 40 GB: 108 SMs, 40 MB L2, 1555 GB/s HBM2 (Ampere whitepaper).
  t.push_back({"A100 SXM4 40GB", "a100", 8, 0, 108, 40 * kMiB, 1555, "datasheet: 1555 GB/s HBM2", 0,
               kNoL2});
  // RTX 3090: 82 SMs, 6 MB L2, 936 GB/s GDDR6X (GA102 whitepaper).
  t.push_back(
      {"RTX 3090", "rtx3090", 8, 6, 82, 6 * kMiB, 936, "datasheet: 936 GB/s GDDR6X", 0, kNoL2});
  // RTX 4090: 128 SMs, 72 MB L2, 1008 GB/s GDDR6X (Ada whitepaper).
  t.push_back(
      {"RTX 4090", "rtx4090", 8, 9, 128, 72 * kMiB, 1008, "datasheet: 1008 GB/s GDDR6X", 0, kNoL2});
  // H100 SXM: 132 SMs, 50 MB L2 (Hopper whitepaper; the record's device properties say
  // 50 MiB). Bandwidths measured by `memhier probe bandwidth` on an H100 80GB HBM3
  // (docs/results/h100: HBM best of read, copy, triad 3046 GB/s; L2 ld.cg re-reads 7532).
  t.push_back({"H100 SXM", "h100", 9, 0, 132, 50 * kMiB, 3046,
               "measured: memhier probe bandwidth on an H100 80GB HBM3 (docs/results/h100)", 7532,
               "measured: memhier probe bandwidth, L2 ld.cg re-reads (docs/results/h100)"});
  t.back().l2_slices = 80;  // ncu's device__attribute_l2s_count on the H100 80GB HBM3
  // B200: 148 SMs, 126 MB L2 over two dies, 8 TB/s HBM3e (Blackwell datasheet).
  t.push_back({"B200", "b200", 10, 0, 148, 126 * kMB, 8000, "datasheet: 8 TB/s HBM3e", 0, kNoL2});
  // RTX 5090: 170 SMs, 96 MB L2, 1792 GB/s GDDR7 (Blackwell GeForce whitepaper).
  t.push_back(
      {"RTX 5090", "rtx5090", 12, 0, 170, 96 * kMiB, 1792, "datasheet: 1792 GB/s GDDR7", 0, kNoL2});
  for (const Card& c : t)
    if (!find_arch(c.cc_major, c.cc_minor))
      throw std::logic_error("card " + c.name + " has no architecture table entry");
  return t;
}

std::string lower(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != ' ' && c != '-' && c != '_')
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

const ArchSpec& Card::arch() const {
  return *find_arch(cc_major, cc_minor);  // build() checked every entry
}

const std::vector<Card>& all_cards() {
  static const std::vector<Card> table = build();
  return table;
}

const Card* card_for(int cc_major, int cc_minor) {
  for (const Card& c : all_cards())
    if (c.cc_major == cc_major && c.cc_minor == cc_minor) return &c;
  return nullptr;
}

const Card* find_card(const std::string& text) {
  const std::string k = lower(text);
  for (const Card& c : all_cards())
    if (k == c.key || k == lower(c.name)) return &c;
  if (const ArchSpec* a = find_arch(text)) return card_for(a->cc_major, a->cc_minor);
  return nullptr;
}

}  // namespace memhier::model
