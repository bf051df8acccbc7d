// The collectives probe's section: time, algorithm and bus bandwidth by size per collective,
// and the bus-bandwidth chart; nccl-tests' definitions of size and bus bandwidth. No CUDA.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common.hpp"
#include "memhier/probe/collectives.hpp"
#include "memhier/probe/host.hpp"  // geometric_sizes

namespace memhier::probe {

const char* to_string(Collective c) {
  switch (c) {
    case Collective::all_reduce:
      return "all-reduce";
    case Collective::all_gather:
      return "all-gather";
    case Collective::reduce_scatter:
      return "reduce-scatter";
    case Collective::broadcast:
      return "broadcast";
  }
  return "?";
}

double bus_factor(Collective c, int ranks) {
  if (ranks < 1) return NAN;
  const double n = ranks;
  switch (c) {
    case Collective::all_reduce:
      return 2.0 * (n - 1) / n;
    case Collective::all_gather:
    case Collective::reduce_scatter:
      return (n - 1) / n;
    case Collective::broadcast:
      return 1.0;
  }
  return NAN;
}

std::uint64_t send_count(Collective c, std::uint64_t bytes, int ranks, std::uint64_t elem_bytes) {
  if (ranks < 1 || elem_bytes == 0) return 0;
  const std::uint64_t n = static_cast<std::uint64_t>(ranks);
  const std::uint64_t per_rank = bytes / elem_bytes / n;  // a whole share for every rank
  switch (c) {
    case Collective::all_reduce:
    case Collective::broadcast:
      return bytes / elem_bytes;
    case Collective::all_gather:
      return per_rank;
    case Collective::reduce_scatter:
      return per_rank * n;
  }
  return 0;
}

std::vector<std::uint64_t> collective_sizes(std::uint64_t max_bytes, bool quick) {
  return geometric_sizes(8, max_bytes, quick ? 16 : 4);
}

std::string collectives_unavailable(int visible_gpus, bool built) {
  if (!built)
    return "memhier was built without NCCL (nccl.h and libnccl were not found when it was "
           "configured), so it runs no collectives";
  if (visible_gpus < 2)
    return std::string("collectives need two GPUs; this machine has ") +
           (visible_gpus == 1 ? "one" : "none");
  return "";
}

namespace {

using report::Value;

report::Table runs_table(const CollectivesResult& m) {
  report::Table t;
  t.id = "collectives";
  t.title = "NCCL collectives over " + std::to_string(m.ranks) + " GPUs, float sum";
  t.columns = {{"collective", "", "collective"},
               {"size", "B", "bytes"},
               {"per sample", "", "iterations"},
               {"time", "us", "us"},
               {"algorithm bandwidth", "GB/s", "algbw_gbps"},
               {"bus bandwidth", "GB/s", "busbw_gbps"},
               {"wrong elements", "", "wrong"}};
  for (const CollectiveRun& r : m.runs)
    t.rows.push_back(
        {Value::str(to_string(r.op)), Value::integer(static_cast<std::int64_t>(r.bytes)),
         Value::integer(r.iterations), Value::num(r.us, 2), Value::num(r.algbw_gbps, 2),
         Value::num(r.busbw_gbps, 2), Value::integer(static_cast<std::int64_t>(r.wrong))});
  t.notes.push_back(
      "Size as nccl-tests counts it: the whole vector (all-gather's output, reduce-scatter's "
      "input). Bus bandwidth = algorithm bandwidth x 2(n-1)/n for all-reduce, (n-1)/n for "
      "all-gather and reduce-scatter, 1 for broadcast: comparable with the links' bandwidth.");
  t.notes.push_back(
      "Every output is compared with the exact sum (integer-valued floats) after the first "
      "run and after the timed ones; a nonzero count is a wrong result.");
  return t;
}

report::Chart busbw_chart(const CollectivesResult& m) {
  report::Chart ch;
  ch.id = "collectives-chart";
  ch.title = "Bus bandwidth against size";
  ch.kind = report::Chart::Kind::line;
  ch.x_label = "size";
  ch.x_unit = "B";
  ch.y_label = "bus bandwidth";
  ch.y_unit = "GB/s";
  ch.log_x = true;
  for (Collective c : kAllCollectives) {
    report::Series s;
    s.name = to_string(c);
    for (const CollectiveRun& r : m.runs)
      if (r.op == c) {
        s.x.push_back(static_cast<double>(r.bytes));
        s.y.push_back(r.busbw_gbps);
      }
    if (!s.x.empty()) ch.series.push_back(std::move(s));
  }
  return ch;
}

}  // namespace

Result present_collectives(const CollectivesResult& m) {
  Result r;
  r.section.id = "collectives";
  r.section.title = "Collectives through NCCL";
  const int v = m.nccl_version;
  std::string gpus;
  for (std::size_t d = 0; d < m.names.size(); ++d)
    gpus += (d ? "; " : "") + std::to_string(d) + ": " + m.names[d];
  r.section.paragraphs.push_back(
      "NCCL " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
      std::to_string(v % 100) + ", one communicator per GPU in one process (ncclCommInitAll), " +
      "each collective issued as one group over every rank; the time is the host's clock around " +
      "a batch of back-to-back collectives, ended when every stream is done (nccl-tests' way). "
      "GPUs: " +
      gpus + ".");
  r.section.paragraphs.push_back(
      "NVLink multicast (NVLS) is off: memhier sets NCCL_NVLS_ENABLE=0 before making the "
      "communicators" +
      (m.nvls_was.empty() ? std::string(".")
                          : ", though the environment had it " + m.nvls_was + "."));
  r.section.tables.push_back(runs_table(m));
  r.section.charts.push_back(busbw_chart(m));
  return r;
}

}  // namespace memhier::probe
