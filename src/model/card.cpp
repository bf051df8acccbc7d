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
constexpr const char* kNoL2 = "no measured L2 bandwidth for this card: the bound is DRAM's alone";

Card datasheet(std::string name, std::string key, int major, int minor, int sms, long long l2,
               double dram_gbps, std::string dram_note, std::vector<std::string> words) {
  Card c;
  c.name = std::move(name);
  c.key = std::move(key);
  c.cc_major = major;
  c.cc_minor = minor;
  c.sms = sms;
  c.l2_bytes = l2;
  c.dram_gbps = dram_gbps;
  c.dram_source = "datasheet: " + dram_note;
  c.l2_source = kNoL2;
  c.name_words = std::move(words);
  return c;
}

std::vector<Card> build() {
  std::vector<Card> t;
  // V100 SXM2: 80 SMs, 6 MB L2, 900 GB/s HBM2 (Volta whitepaper).
  t.push_back(datasheet("V100 SXM2", "v100", 7, 0, 80, 6 * kMiB, 900, "900 GB/s HBM2", {"v100"}));
  // T4: 40 SMs, 4 MB L2, 320 GB/s GDDR6 (Turing whitepaper, T4 datasheet).
  t.push_back(datasheet("T4", "t4", 7, 5, 40, 4 * kMiB, 320, "320 GB/s GDDR6", {"t4"}));
  // A100 SXM4 40 GB: 108 SMs, 40 MB L2, 1555 GB/s HBM2 (Ampere whitepaper).
  t.push_back(datasheet("A100 SXM4 40GB", "a100-40gb", 8, 0, 108, 40 * kMiB, 1555,
                        "1555 GB/s HBM2", {"a100", "40gb"}));
  // A100 80 GB (SXM4): 108 SMs, 40 MB L2, 2039 GB/s HBM2e (A100 datasheet; PCIe: 1935).
  t.push_back(datasheet("A100 80GB", "a100-80gb", 8, 0, 108, 40 * kMiB, 2039,
                        "2039 GB/s HBM2e (SXM4)", {"a100", "80gb"}));
  // RTX 3090: 82 SMs, 6 MB L2, 936 GB/s GDDR6X (GA102 whitepaper).
  t.push_back(datasheet("RTX 3090", "rtx3090", 8, 6, 82, 6 * kMiB, 936, "936 GB/s GDDR6X",
                        {"rtx", "3090"}));
  // RTX 4090: 128 SMs, 72 MB L2, 1008 GB/s GDDR6X (Ada whitepaper).
  t.push_back(datasheet("RTX 4090", "rtx4090", 8, 9, 128, 72 * kMiB, 1008, "1008 GB/s GDDR6X",
                        {"rtx", "4090"}));
  // L4: 58 SMs, 48 MB L2, 300 GB/s GDDR6 (L4 datasheet, Ada whitepaper).
  t.push_back(datasheet("L4", "l4", 8, 9, 58, 48 * kMiB, 300, "300 GB/s GDDR6", {"l4"}));
  // H100 SXM: 132 SMs, 50 MB L2 (Hopper whitepaper; the record's device properties say
  // 50 MiB). Bandwidths measured by `memhier probe bandwidth` on an H100 80GB HBM3
  // (docs/results/h100-sxm: HBM best of read, copy, triad 3046 GB/s; L2 ld.cg re-reads 7532).
  Card h100 = datasheet("H100 SXM", "h100-sxm", 9, 0, 132, 50 * kMiB, 3046, "", {"h100", "hbm3"});
  h100.dram_from = Provenance::measured;
  h100.dram_source =
      "measured: memhier probe bandwidth on an H100 80GB HBM3 (docs/results/h100-sxm)";
  h100.l2_gbps = 7532;
  h100.l2_from = Provenance::measured;
  h100.l2_source = "measured: memhier probe bandwidth, L2 ld.cg re-reads (docs/results/h100-sxm)";
  h100.l2_slices = 80;  // ncu's device__attribute_l2s_count on the H100 80GB HBM3
  // One-byte-a-lane reads of a line's four sectors one after another (histogram
  // warp_privatized at 2^24 u8): 69,876 srcunit tex read hits for the 262,144 requests after
  // their 64-byte partner's (MemorySystem::access); two bytes a lane or more: none.
  h100.l2_pair_replay_share = 0.267;
  t.push_back(h100);
  // H100 PCIe: 114 SMs, 50 MB L2, 2.0 TB/s HBM2e (H100 datasheet).
  t.push_back(datasheet("H100 PCIe", "h100-pcie", 9, 0, 114, 50 * kMiB, 2000, "2.0 TB/s HBM2e",
                        {"h100", "pcie"}));
  // H100 NVL: 132 SMs, 50 MB L2, 3.9 TB/s HBM3 (H100 datasheet).
  t.push_back(datasheet("H100 NVL", "h100-nvl", 9, 0, 132, 50 * kMiB, 3900, "3.9 TB/s HBM3",
                        {"h100", "nvl"}));
  // H200 SXM: the H100's 132 SMs, 60 MiB L2 (its device properties), 4.8 TB/s HBM3e
  // (H200 datasheet). Bandwidths measured by `memhier probe bandwidth` on the lent NVIDIA
  // H200 (docs/results/h200 at 07be8b1: HBM the best of read, write, copy and triad, 4641 GB/s
  // by one float4 store per thread; L2 10495 GB/s, every block streaming a 512 KiB chunk of a
  // 4 MiB set with ld.cg).
  Card h200 = datasheet("H200", "h200", 9, 0, 132, 60 * kMiB, 4641, "", {"h200"});
  h200.dram_from = Provenance::measured;
  h200.dram_source = "measured: memhier probe bandwidth on an NVIDIA H200 (docs/results/h200)";
  h200.l2_gbps = 10495;
  h200.l2_from = Provenance::measured;
  h200.l2_source = "measured: memhier probe bandwidth, L2 ld.cg chunked reads (docs/results/h200)";
  h200.l2_slices = 96;  // ncu's device__attribute_l2s_count on the lent H200 (the H100: 80)
  // This card's membar lookups at one fence a block, one wave: 124-173 broadcasts of 192 for
  // 512 to 1,056 fences over its SMs (reduction's single passes at 2^22 and 2^26 floats,
  // b3edb45), far fewer than the fences (what the H100 SXM counted is in memsys.cpp's head).
  h200.fences_merge_per_sm = true;
  // One-byte-a-lane reads of a line's four sectors one after another (histogram
  // warp_privatized at 2^24 u8, ee4d482): 76,394 srcunit tex read hits for the 262,144
  // requests after their 64-byte partner's.
  h200.l2_pair_replay_share = 0.291;
  t.push_back(h200);
  // B200: 148 SMs, 126 MB L2 over two dies, 8 TB/s HBM3e (Blackwell datasheet).
  t.push_back(datasheet("B200", "b200", 10, 0, 148, 126 * kMB, 8000, "8 TB/s HBM3e", {"b200"}));
  // RTX 5090: 170 SMs, 96 MB L2, 1792 GB/s GDDR7 (Blackwell GeForce whitepaper).
  t.push_back(datasheet("RTX 5090", "rtx5090", 12, 0, 170, 96 * kMiB, 1792, "1792 GB/s GDDR7",
                        {"rtx", "5090"}));
  for (const Card& c : t)
    if (!find_arch(c.cc_major, c.cc_minor))
      throw std::logic_error("card " + c.name + " has no architecture table entry");
  return t;
}

// Lower case without spaces, dashes and underscores: "H100 SXM" and "h100-sxm" compare equal.
std::string squash(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != ' ' && c != '-' && c != '_')
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::vector<std::string> name_words(const std::string& name) {
  std::vector<std::string> out(1);
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      out.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!out.back().empty())
      out.emplace_back();
  }
  if (out.back().empty()) out.pop_back();
  return out;
}


const char* to_string(Provenance p) {
  return p == Provenance::measured ? "measured" : "datasheet";
}

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
  const std::string k = squash(text);
  if (k.empty()) return nullptr;
  for (const Card& c : all_cards())
    if (k == squash(c.key) || k == squash(c.name)) return &c;
  // A model number alone names the first card of it: "h100" is the H100 SXM.
  for (const Card& c : all_cards())
    if (!c.name_words.empty() && k == c.name_words.front() &&
        std::any_of(k.begin(), k.end(), [](char ch) { return std::isdigit(ch) != 0; }))
      return &c;
  if (const ArchSpec* a = find_arch(text)) return card_for(a->cc_major, a->cc_minor);
  return nullptr;
}

const Card* card_for_device(const std::string& device_name, int cc_major, int cc_minor) {
  const std::vector<std::string> have = name_words(device_name);
  const Card* best = nullptr;
  for (const Card& c : all_cards()) {
    if (c.cc_major != cc_major || c.cc_minor != cc_minor || c.name_words.empty()) continue;
    const bool all = std::all_of(c.name_words.begin(), c.name_words.end(), [&](const auto& w) {
      return std::find(have.begin(), have.end(), w) != have.end();
    });
    if (all && (!best || c.name_words.size() > best->name_words.size())) best = &c;
  }
  return best;
}

std::string card_slug(const std::string& device_name, int cc_major, int cc_minor) {
  if (const Card* c = card_for_device(device_name, cc_major, cc_minor)) return c->key;
  std::string out;
  for (const std::string& w : name_words(device_name)) out += (out.empty() ? "" : "-") + w;
  return out.empty() ? "unknown-card" : out;
}

}  // namespace memhier::model

namespace memhier::model {

Card card_of_device(const std::string& device_name, int cc_major, int cc_minor, int sms,
                    long long l2_bytes, double peak_dram_gbps, const CardRecord* record) {
  Card c;
  if (const Card* known = card_for_device(device_name, cc_major, cc_minor)) {
    c = *known;
  } else {
    c.key = card_slug(device_name, cc_major, cc_minor);
    c.cc_major = cc_major;
    c.cc_minor = cc_minor;
    c.dram_gbps = peak_dram_gbps;
    c.dram_source = "datasheet: the device's memory clock x bus width";
    c.l2_source = kNoL2;
    if (!find_arch(cc_major, cc_minor))
      throw std::invalid_argument("compute capability " + std::to_string(cc_major) + "." +
                                  std::to_string(cc_minor) +
                                  " has no architecture table entry: the models cannot run on it.");
  }
  c.name = device_name;
  if (sms > 0) c.sms = sms;
  if (l2_bytes > 0) c.l2_bytes = l2_bytes;
  if (record && record->dram_gbps > 0) {
    c.dram_gbps = record->dram_gbps;
    c.dram_from = Provenance::measured;
    c.dram_source = "measured: memhier probe on this card (" + record->when + ")";
  }
  if (record && record->l2_gbps > 0) {
    c.l2_gbps = record->l2_gbps;
    c.l2_from = Provenance::measured;
    c.l2_source = "measured: memhier probe's L2 re-reads on this card (" + record->when + ")";
  }
  return c;
}

}  // namespace memhier::model
