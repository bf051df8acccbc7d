// The all-reduce ladder's section: each rung's time, bus bandwidth and speed over NCCL by
// size, where one rung takes over from another, the chart and the two claims. No CUDA.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "claim_rows.hpp"
#include "common.hpp"
#include "memhier/probe/allreduce.hpp"

namespace memhier::probe {

const char* to_string(AllReduceRung r) {
  switch (r) {
    case AllReduceRung::nccl:
      return "nccl";
    case AllReduceRung::one_shot:
      return "one_shot";
    case AllReduceRung::two_shot:
      return "two_shot";
  }
  return "?";
}

const char* technique(AllReduceRung r) {
  switch (r) {
    case AllReduceRung::nccl:
      return "ncclAllReduce (the vendor line): rings or trees of pipelined chunks through NCCL's "
             "own buffers";
    case AllReduceRung::one_shot:
      return "every GPU loads the whole vector from every peer over P2P and sums it: one step, "
             "(n-1) x the bytes over the links";
    case AllReduceRung::two_shot:
      return "each GPU sums its 1/n slice from every peer, then stores the sum into every "
             "peer's output: two steps, 2(n-1)/n x the bytes";
  }
  return "?";
}

const char* to_string(ReduceType t) {
  return t == ReduceType::fp32 ? "fp32" : "bf16";
}

std::string allreduce_unavailable(int visible_gpus, bool nccl_built, bool every_pair_p2p) {
  if (!nccl_built)
    return "memhier was built without NCCL (nccl.h and libnccl were not found when it was "
           "configured), so the all-reduce ladder has no vendor line to pair with";
  if (visible_gpus < 2)
    return std::string("the all-reduce ladder needs two GPUs; this machine has ") +
           (visible_gpus == 1 ? "one" : "none");
  if (!every_pair_p2p)
    return "the all-reduce ladder's kernels read their peers' memory, and some pair of this "
           "machine's GPUs has no peer access";
  return "";
}

int allreduce_blocks(std::uint64_t vectors, int sms) {
  const std::uint64_t need = (vectors + 511) / 512;
  return static_cast<int>(
      std::clamp<std::uint64_t>(need, 1, static_cast<std::uint64_t>(std::max(sms, 1))));
}

namespace {

const AllReduceRun* find_run(const AllReduceResult& m, ReduceType type, AllReduceRung rung,
                             std::uint64_t bytes) {
  for (const AllReduceRun& r : m.runs)
    if (r.type == type && r.rung == rung && r.bytes == bytes) return &r;
  return nullptr;
}

std::vector<std::uint64_t> sizes_of(const AllReduceResult& m, ReduceType type) {
  std::vector<std::uint64_t> s;
  for (const AllReduceRun& r : m.runs)
    if (r.type == type && r.rung == AllReduceRung::nccl) s.push_back(r.bytes);
  std::sort(s.begin(), s.end());
  return s;
}

// The faster of the two P2P rungs at one size, or nullptr.
const AllReduceRun* best_p2p(const AllReduceResult& m, ReduceType type, std::uint64_t bytes) {
  const AllReduceRun* a = find_run(m, type, AllReduceRung::one_shot, bytes);
  const AllReduceRun* b = find_run(m, type, AllReduceRung::two_shot, bytes);
  if (!a || !std::isfinite(a->speedup)) return b;
  if (!b || !std::isfinite(b->speedup)) return a;
  return b->speedup > a->speedup ? b : a;
}

using report::Value;

report::Table runs_table(const AllReduceResult& m) {
  report::Table t;
  t.id = "allreduce";
  t.title = "All-reduce over " + std::to_string(m.ranks) + " GPUs, by rung and size";
  t.columns = {{"type", "", "type"},      {"rung", "", "rung"},
               {"size", "B", "bytes"},    {"per sample", "", "iterations"},
               {"time", "us", "us"},      {"bus bandwidth", "GB/s", "busbw_gbps"},
               {"x NCCL", "", "speedup"}, {"wrong elements", "", "wrong"}};
  for (const AllReduceRun& r : m.runs)
    t.rows.push_back({Value::str(to_string(r.type)), Value::str(to_string(r.rung)),
                      Value::integer(static_cast<std::int64_t>(r.bytes)),
                      Value::integer(r.iterations), Value::num_or_none(r.us, 2),
                      Value::num_or_none(r.busbw_gbps, 1), Value::num_or_none(r.speedup, 2),
                      Value::integer(static_cast<std::int64_t>(r.wrong))});
  t.notes.push_back(
      "x NCCL: NCCL's time over the rung's, the median over rounds that time every rung once "
      "each, a different rung first each round (> 1: faster than NCCL). Bus bandwidth as "
      "nccl-tests defines it: size / time x 2(n-1)/n.");
  t.notes.push_back(
      "Inputs are random +-m x 2^e with every partial sum exact in bf16 and fp32, so every "
      "output element must equal the float64 sum exactly. Each rung is checked on two input "
      "patterns run back to back (a rank that read a peer too early or left too soon would "
      "sum the wrong one) and again after the timed runs; a nonzero count is a wrong result.");
  return t;
}

report::Table crossover_table(const AllReduceResult& m) {
  report::Table t;
  t.id = "allreduce-crossovers";
  t.title = "Where one rung takes over from another";
  t.columns = {{"type", "", "type"},
               {"two-shot faster than one-shot from", "B", "two_over_one"},
               {"NCCL faster than one-shot from", "B", "nccl_over_one"},
               {"NCCL faster than two-shot from", "B", "nccl_over_two"}};
  auto size = [](std::uint64_t b) {
    return b ? Value::integer(static_cast<std::int64_t>(b)) : Value::none();
  };
  for (ReduceType type : kReduceTypes) {
    if (sizes_of(m, type).empty()) continue;
    t.rows.push_back({Value::str(to_string(type)),
                      size(takes_over(m, type, AllReduceRung::one_shot, AllReduceRung::two_shot)),
                      size(takes_over(m, type, AllReduceRung::one_shot, AllReduceRung::nccl)),
                      size(takes_over(m, type, AllReduceRung::two_shot, AllReduceRung::nccl))});
  }
  t.notes.push_back(
      "The smallest size from which the second rung is faster at that size and every larger "
      "one measured; empty when it is not faster at the largest size.");
  return t;
}

report::Chart speedup_chart(const AllReduceResult& m) {
  report::Chart ch;
  ch.id = "allreduce-chart";
  ch.title = "Speed over NCCL against size";
  ch.kind = report::Chart::Kind::line;
  ch.x_label = "size";
  ch.x_unit = "B";
  ch.y_label = "x NCCL";
  ch.log_x = true;
  for (ReduceType type : kReduceTypes)
    for (AllReduceRung rung : {AllReduceRung::one_shot, AllReduceRung::two_shot}) {
      report::Series s;
      s.name = std::string(to_string(rung)) + " " + to_string(type);
      for (const AllReduceRun& r : m.runs)
        if (r.type == type && r.rung == rung) {
          s.x.push_back(static_cast<double>(r.bytes));
          s.y.push_back(r.speedup);
        }
      if (!s.x.empty()) ch.series.push_back(std::move(s));
    }
  return ch;
}

std::vector<ClaimRow> allreduce_claims(const AllReduceResult& m) {
  const std::string one_gpu = "one GPU: nothing crosses a link";
  std::vector<Figure> small, large;
  std::string small_text, large_text;
  for (ReduceType type : kReduceTypes)
    for (std::uint64_t bytes : sizes_of(m, type)) {
      const std::string label =
          std::string(to_string(type)) + " " + fmt_bytes(static_cast<double>(bytes));
      if (bytes <= 256 * KiB) {
        const AllReduceRun* r = find_run(m, type, AllReduceRung::one_shot, bytes);
        const double x = r && r->wrong == 0 ? r->speedup : NAN;
        small.push_back({label, x, Claimed::value(1, "x NCCL"),
                         claims::band(ClaimId::allreduce_one_shot_beats_nccl_small)});
        small_text += strf("%s%s %.2fx", small_text.empty() ? "" : ", ", label.c_str(), x);
      }
      if (bytes >= 64 * MiB) {
        const AllReduceRun* r = best_p2p(m, type, bytes);
        const double x = r && r->wrong == 0 ? r->speedup : NAN;
        large.push_back({label + (r ? std::string(" (") + to_string(r->rung) + ")" : ""), x,
                         Claimed::value(1, "x NCCL"),
                         claims::band(ClaimId::allreduce_best_near_nccl_large)});
        large_text +=
            strf("%s%s %.2fx", large_text.empty() ? "" : ", ", large.back().label.c_str(), x);
      }
    }
  if (m.ranks < 2) small.clear(), large.clear();
  return {{ClaimId::allreduce_one_shot_beats_nccl_small,
           small_text.empty() ? std::string("no size up to 256 KiB was measured") : small_text,
           judged_all(small, m.ranks < 2 ? one_gpu : "no size up to 256 KiB was measured")},
          {ClaimId::allreduce_best_near_nccl_large,
           large_text.empty() ? std::string("no size of 64 MiB or more was measured") : large_text,
           judged_all(large, m.ranks < 2 ? one_gpu : "no size of 64 MiB or more was measured")}};
}

}  // namespace

std::uint64_t takes_over(const AllReduceResult& m, ReduceType type, AllReduceRung from,
                         AllReduceRung to) {
  std::uint64_t since = 0;
  for (std::uint64_t bytes : sizes_of(m, type)) {
    const AllReduceRun* a = find_run(m, type, from, bytes);
    const AllReduceRun* b = find_run(m, type, to, bytes);
    const bool faster = a && b && std::isfinite(a->us) && std::isfinite(b->us) && b->us < a->us;
    if (!faster)
      since = 0;
    else if (!since)
      since = bytes;
  }
  return since;
}

Result present_allreduce(const AllReduceResult& m) {
  Result r;
  r.section.id = "allreduce";
  r.section.title = "The all-reduce ladder: NCCL against P2P kernels";
  const int v = m.nccl_version;
  std::string gpus;
  for (std::size_t d = 0; d < m.names.size(); ++d)
    gpus += (d ? "; " : "") + std::to_string(d) + ": " + m.names[d];
  r.section.paragraphs.push_back(
      "The sum of one vector per GPU, left on every GPU, over the " + std::to_string(m.ranks) +
      " GPUs of this process (" + gpus + "), fp32 and bf16 (summed in fp32). NCCL " +
      std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
      std::to_string(v % 100) +
      " is the vendor line; the other rungs are memhier's kernels, which read and write the "
      "peers' memory through CUDA peer access, up to " +
      std::to_string(m.blocks) +
      " blocks of 512 threads per GPU, block b of each GPU meeting block b of the others at "
      "flags in each GPU's memory before and after its work. The time is the host's clock "
      "around a batch of back-to-back all-reduces ended when every stream is done, the same "
      "for every rung. NVLink multicast stays off.");
  for (AllReduceRung rung : kAllReduceRungs)
    r.section.paragraphs.push_back(std::string(to_string(rung)) + ": " + technique(rung) + ".");
  r.section.tables.push_back(runs_table(m));
  r.section.tables.push_back(crossover_table(m));
  r.section.charts.push_back(speedup_chart(m));
  add_claims(r.section, "allreduce", allreduce_claims(m));
  return r;
}

}  // namespace memhier::probe
