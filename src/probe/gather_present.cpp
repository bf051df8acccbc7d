// The gather probe's section from its measurement: both index orders, the speedup sorting
// gives, the claim judged against it and a chart. No CUDA.
#include <string>
#include <vector>

#include "claim_rows.hpp"
#include "memhier/probe/gather.hpp"

namespace memhier::probe {
namespace {

using report::Value;

report::Table orders_table(const GatherResult& m) {
  report::Table t;
  t.id = "gather-orders";
  t.title = "The same gather, sorted against shuffled indices";
  t.columns = {{"indices", "", "order"},
               {"elements", "", "elements"},
               {"median", "ms", "median_ms"},
               {"useful", "GB/s", "useful_gbps"},
               {"requested", "GB/s", "requested_gbps"}};
  for (const GatherOrder& g : m.orders)
    t.rows.push_back({Value::str(g.order), Value::integer(static_cast<std::int64_t>(m.elements)),
                      Value::num(g.median_ms, 3), Value::num(g.useful_gbps, 0),
                      Value::num(g.requested_gbps, 0)});
  t.notes.push_back(
      "Useful counts the 4 gathered bytes per element; requested adds the 4-byte index read "
      "and the 4-byte output write (12 bytes per element). A shuffled index fetches a whole "
      "32-byte sector for its 4 bytes.");
  t.notes.push_back("Sorting takes the time from " + fmt(m.orders.back().median_ms, 3) + " to " +
                    fmt(m.orders.front().median_ms, 3) + " ms: " + fmt(m.speedup, 2) +
                    "x (paired median; p10 " + fmt(m.speedup_p10, 2) + ", p90 " +
                    fmt(m.speedup_p90, 2) + ").");
  for (const std::string& n : m.notes) t.notes.push_back(n);
  return t;
}

report::Chart orders_chart(const GatherResult& m) {
  report::Chart c;
  c.id = "gather-orders-chart";
  c.title = "Useful gather bandwidth by index order";
  c.kind = report::Chart::Kind::bar;
  c.x_label = "indices";
  c.y_label = "useful bandwidth";
  c.y_unit = "GB/s";
  report::Series s;
  s.name = "measured";
  for (const GatherOrder& g : m.orders) {
    c.categories.push_back(g.order);
    s.y.push_back(g.useful_gbps);
  }
  c.series.push_back(std::move(s));
  return c;
}

ClaimRow sort_claim(const GatherResult& m) {
  const GatherOrder& sorted = m.orders.front();
  const GatherOrder& shuffled = m.orders.back();
  return {ClaimId::gather_sort_8x,
          "shuffled " + fmt(shuffled.useful_gbps) + " GB/s, sorted " + fmt(sorted.useful_gbps) +
              " GB/s of useful bytes: " + fmt(m.speedup, 2) + "x (paired median) over " +
              fmt_mib(m.buffer_bytes()),
          judged(m.speedup, Claimed::value(8, "x"), claims::band(ClaimId::gather_sort_8x))};
}

}  // namespace

Result present_gather(const GatherResult& m) {
  Result res;
  report::Section& s = res.section;
  s.id = "gather";
  s.title = "Gathers: sorted against shuffled indices";
  s.paragraphs.push_back(
      "Every SM runs out[i] = data[idx[i]] over " + fmt_mib(m.buffer_bytes()) + " of floats (" +
      fmt(m.buffer_bytes() / static_cast<double>(m.l2_bytes), 0) +
      "x the L2), each block gathering a tile of 1024 positions with four gathers in flight per "
      "thread. The index array is a permutation of the buffer's positions, once sorted (0, 1, "
      "2, ...: the coalesced runs that sorting gives) and once shuffled (the same indices in a "
      "bijective hashed order), so both gather exactly the same bytes. L2 is flushed before "
      "every launch, and the two orders are timed alternately (paired); the speedup is the "
      "median of the per-pair time ratios.");
  if (m.orders.size() < 2) return res;
  s.tables.push_back(orders_table(m));
  s.charts.push_back(orders_chart(m));
  add_claims(s, "gather", {sort_claim(m)});
  return res;
}

}  // namespace memhier::probe
