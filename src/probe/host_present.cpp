// The host probe's section from its measurement: the size sweep, the largest size per
// series, overlap, managed memory and mapped-memory latency, and the summary's host tier.
// No CUDA.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "claim_rows.hpp"
#include "memhier/probe/host.hpp"

namespace memhier::probe {

const char* to_string(HostMemory m) {
  switch (m) {
    case HostMemory::pinned:
      return "pinned";
    case HostMemory::pageable:
      return "pageable";
    case HostMemory::registered:
      return "registered";
  }
  return "?";
}

const char* to_string(HostDirection d) {
  return d == HostDirection::host_to_device ? "host to device" : "device to host";
}

const char* to_string(Mover m) {
  return m == Mover::copy_engine ? "copy engine" : "SM";
}

const char* to_string(ManagedMethod m) {
  switch (m) {
    case ManagedMethod::fault:
      return "page faults (no hint)";
    case ManagedMethod::prefetch:
      return "cudaMemPrefetchAsync";
    case ManagedMethod::read_mostly:
      return "advise read-mostly";
    case ManagedMethod::accessed_by:
      return "advise host-preferred, accessed by GPU";
  }
  return "?";
}

std::vector<std::uint64_t> geometric_sizes(std::uint64_t lo, std::uint64_t hi, unsigned factor) {
  std::vector<std::uint64_t> out;
  if (lo == 0 || factor < 2 || hi < lo) return out;
  for (std::uint64_t s = lo; s <= hi; s *= factor) {
    out.push_back(s);
    if (s > hi / factor) break;  // the next step would overflow or pass hi
  }
  if (out.back() != hi) out.push_back(hi);
  return out;
}

const HostCopy* find_copy(const HostResult& m, HostMemory memory, HostDirection direction,
                          Mover mover, std::uint64_t bytes) {
  for (const HostCopy& c : m.copies)
    if (c.memory == memory && c.direction == direction && c.mover == mover && c.bytes == bytes)
      return &c;
  return nullptr;
}

namespace {

using report::Value;

std::string series_name(HostMemory mem, HostDirection dir, Mover mover) {
  return std::string(to_string(mem)) + ", " + to_string(dir) + ", " + to_string(mover);
}

report::Table sweep_table(const HostResult& m) {
  report::Table t;
  t.id = "host-sweep";
  t.title = "Host <-> device copies by size";
  t.columns = {{"memory", "", "memory"},
               {"direction", "", "direction"},
               {"by", "", "mover"},
               {"size", "B", "bytes"},
               {"copies per sample", "", "batch"},
               {"time per copy", "us", "us"},
               {"bandwidth", "GB/s", "gbps"}};
  for (const HostCopy& c : m.copies)
    t.rows.push_back({Value::str(to_string(c.memory)), Value::str(to_string(c.direction)),
                      Value::str(to_string(c.mover)),
                      Value::integer(static_cast<std::int64_t>(c.bytes)), Value::integer(c.batch),
                      Value::num(c.us, 2), Value::num(c.gbps, 2)});
  for (const HostSkip& s : m.skipped)
    t.notes.push_back(std::string(to_string(s.memory)) + " memory: not measured: " + s.why + ".");
  t.notes.push_back(
      "Pinned and registered samples start behind a spin kernel that holds the stream until "
      "every copy of the sample is enqueued; pageable copies block the host until staged, so "
      "theirs are enqueued as they go.");
  return t;
}

report::Table largest_table(const HostResult& m) {
  report::Table t;
  t.id = "host-copies";
  t.title = "At the largest size (" + fmt_bytes(static_cast<double>(m.max_bytes)) + ")";
  t.columns = {{"memory", "", "memory"},
               {"direction", "", "direction"},
               {"by", "", "mover"},
               {"bandwidth", "GB/s", "gbps"},
               {"of pinned copy engine", "x", "of_pinned_copy_engine"}};
  for (HostDirection dir : {HostDirection::host_to_device, HostDirection::device_to_host}) {
    const HostCopy* best = find_copy(m, HostMemory::pinned, dir, Mover::copy_engine, m.max_bytes);
    for (HostMemory mem : {HostMemory::pinned, HostMemory::pageable, HostMemory::registered})
      for (Mover mover : {Mover::copy_engine, Mover::sm})
        if (const HostCopy* c = find_copy(m, mem, dir, mover, m.max_bytes))
          t.rows.push_back({Value::str(to_string(mem)), Value::str(to_string(dir)),
                            Value::str(to_string(mover)), Value::num(c->gbps, 2),
                            Value::num(best ? c->gbps / best->gbps : NAN, 3)});
  }
  return t;
}

report::Table overlap_table(const HostOverlap& o) {
  report::Table t;
  t.id = "host-overlap";
  t.title = "A pinned host-to-device copy overlapped with an arithmetic kernel";
  t.columns = {{"copy", "B", "bytes"},
               {"copy alone", "ms", "copy_ms"},
               {"kernel alone", "ms", "compute_ms"},
               {"one stream", "ms", "serial_ms"},
               {"two streams", "ms", "overlapped_ms"},
               {"two / one", "x", "ratio"},
               {"ideal two / one", "x", "ideal_ratio"}};
  t.rows.push_back({Value::integer(static_cast<std::int64_t>(o.bytes)), Value::num(o.copy_ms, 3),
                    Value::num(o.compute_ms, 3), Value::num(o.serial_ms, 3),
                    Value::num(o.overlapped_ms, 3), Value::num(o.ratio(), 3),
                    Value::num(std::max(o.copy_ms, o.compute_ms) / o.serial_ms, 3)});
  t.notes.push_back(
      "The kernel does arithmetic only (no memory traffic), sized to last about as long as the "
      "copy; two / one near the ideal means the copy engine ran while the SMs computed.");
  return t;
}

report::Table managed_table(const HostResult& m) {
  report::Table t;
  t.id = "host-managed";
  t.title = "Managed memory reaching the GPU (the host wrote it last)";
  t.columns = {{"method", "", "method"},
               {"size", "B", "bytes"},
               {"host pages", "", "pages"},
               {"prefetch", "ms", "prefetch_ms"},
               {"kernel", "ms", "kernel_ms"},
               {"total", "ms", "total_ms"},
               {"bandwidth", "GB/s", "gbps"},
               {"per host page", "us", "us_per_page"},
               {"total / prefetch's", "x", "over_prefetch"}};
  double prefetch_total = NAN;
  for (const ManagedMigration& r : m.managed)
    if (r.method == ManagedMethod::prefetch) prefetch_total = r.total_ms();
  for (const ManagedMigration& r : m.managed)
    t.rows.push_back(
        {Value::str(to_string(r.method)), Value::integer(static_cast<std::int64_t>(r.bytes)),
         Value::integer(static_cast<std::int64_t>(r.pages)), Value::num_or_none(r.prefetch_ms, 3),
         Value::num(r.kernel_ms, 3), Value::num(r.total_ms(), 3), Value::num(r.gbps(), 2),
         Value::num(r.us_per_page(), 3), Value::num(r.total_ms() / prefetch_total, 2)});
  if (!m.managed_not_measured.empty())
    t.notes.push_back("Not measured: " + m.managed_not_measured + ".");
  t.notes.push_back("A page is the host's (" + fmt_bytes(static_cast<double>(m.host_page_bytes)) +
                    "); the driver may migrate several at once, so the cost per page is the "
                    "measured time over the pages, not one fault's latency.");
  return t;
}

report::Table latency_table(const HostResult& m) {
  report::Table t;
  t.id = "host-latency";
  t.title = "One SM load from mapped pinned host memory (dependent chain)";
  t.columns = {{"ring", "B", "ring_bytes"},
               {"timed loads", "", "steps"},
               {"latency", "cycles", "latency_cycles"},
               {"latency", "ns", "latency_ns"}};
  t.rows.push_back({Value::integer(static_cast<std::int64_t>(m.chase_ring_bytes)),
                    Value::integer(m.chase_steps), Value::num(m.mapped_latency_cycles, 0),
                    Value::num(cycles_to_ns(m.mapped_latency_cycles, m.sm_clock_mhz), 0)});
  t.notes.push_back(
      "Slots 512 B apart in random order; the first half of the ring warms the address "
      "translation and the timed second half loads lines not touched before.");
  return t;
}

report::Chart sweep_chart(const HostResult& m) {
  report::Chart ch;
  ch.id = "host-sweep-chart";
  ch.title = "Host <-> device bandwidth against copy size";
  ch.kind = report::Chart::Kind::line;
  ch.x_label = "copy size";
  ch.x_unit = "B";
  ch.y_label = "bandwidth";
  ch.y_unit = "GB/s";
  ch.log_x = true;
  for (const HostCopy& c : m.copies) {
    const std::string name = series_name(c.memory, c.direction, c.mover);
    auto it = std::find_if(ch.series.begin(), ch.series.end(),
                           [&](const report::Series& s) { return s.name == name; });
    if (it == ch.series.end()) {
      ch.series.push_back({name, {}, {}});
      it = ch.series.end() - 1;
    }
    it->x.push_back(static_cast<double>(c.bytes));
    it->y.push_back(c.gbps);
  }
  return ch;
}

// Pinned over pageable each way, overlap, prefetch over faults: memhier's goals for the tier.
std::vector<ClaimRow> host_claims(const HostResult& m) {
  std::vector<ClaimRow> rows;
  {
    std::vector<Figure> figures;
    std::string text;
    for (HostDirection dir : {HostDirection::host_to_device, HostDirection::device_to_host}) {
      const HostCopy* pinned =
          find_copy(m, HostMemory::pinned, dir, Mover::copy_engine, m.max_bytes);
      const HostCopy* pageable =
          find_copy(m, HostMemory::pageable, dir, Mover::copy_engine, m.max_bytes);
      const double ratio = pinned && pageable ? pinned->gbps / pageable->gbps : NAN;
      figures.push_back({to_string(dir), ratio, Claimed::value(1.1, "x pageable"),
                         claims::band(ClaimId::host_pinned_over_pageable)});
      text +=
          strf("%s%s: pinned %.1f, pageable %.1f GB/s (%.2fx)", text.empty() ? "" : "; ",
               to_string(dir), pinned ? pinned->gbps : NAN, pageable ? pageable->gbps : NAN, ratio);
    }
    rows.push_back({ClaimId::host_pinned_over_pageable,
                    text + " at " + fmt_bytes(static_cast<double>(m.max_bytes)),
                    judged_all(figures, "a pinned or pageable series was not measured")});
  }
  const HostOverlap& o = m.overlap;
  rows.push_back({ClaimId::host_copy_compute_overlap,
                  strf("two streams %.3f ms, one stream %.3f ms (%.2fx; copy %.3f, kernel %.3f ms)",
                       o.overlapped_ms, o.serial_ms, o.ratio(), o.copy_ms, o.compute_ms),
                  judged(o.ratio(), Claimed::value(0.5, "x one stream's time"),
                         claims::band(ClaimId::host_copy_compute_overlap),
                         "the pinned buffer for the overlap could not be allocated")});
  const ManagedMigration* fault = nullptr;
  const ManagedMigration* prefetch = nullptr;
  for (const ManagedMigration& r : m.managed) {
    if (r.method == ManagedMethod::fault) fault = &r;
    if (r.method == ManagedMethod::prefetch) prefetch = &r;
  }
  const double ratio = fault && prefetch ? fault->total_ms() / prefetch->total_ms() : NAN;
  rows.push_back(
      {ClaimId::managed_prefetch_over_faults,
       fault && prefetch
           ? strf("faults %.3f ms (%.3f us per host page), prefetch and kernel %.3f ms (%.2fx)",
                  fault->total_ms(), fault->us_per_page(), prefetch->total_ms(), ratio)
           : std::string("no managed-memory figures"),
       judged(ratio, Claimed::value(1, "x the prefetch's time"),
              claims::band(ClaimId::managed_prefetch_over_faults),
              m.managed_not_measured.empty() ? "managed memory was not measured"
                                             : m.managed_not_measured)});
  return rows;
}

}  // namespace

Result present_host(const HostResult& m) {
  Result r;
  r.section.id = "host";
  r.section.title = "Host memory: copies, overlap and managed memory";
  r.section.paragraphs.push_back(
      "Copies between host memory and this GPU, " + fmt_bytes(4 * KiB) + " to " +
      fmt_bytes(static_cast<double>(m.max_bytes)) +
      ": by the copy engine (cudaMemcpyAsync) and by every SM (a kernel loading or storing "
      "through the mapped pointer), from pinned (cudaHostAlloc), pageable (malloc) and "
      "registered (cudaHostRegister) memory. Each figure is the median of samples timed with "
      "CUDA events; small copies run many to a sample, so their time is latency and their "
      "bandwidth low, and large ones show the link's bandwidth.");
  r.section.tables.push_back(largest_table(m));
  r.section.tables.push_back(sweep_table(m));
  r.section.tables.push_back(overlap_table(m.overlap));
  r.section.tables.push_back(managed_table(m));
  r.section.tables.push_back(latency_table(m));
  r.section.charts.push_back(sweep_chart(m));
  add_claims(r.section, "host", host_claims(m));

  TierFigure tier;
  tier.tier = "host";
  tier.latency_cycles = m.mapped_latency_cycles;
  for (HostDirection dir : {HostDirection::host_to_device, HostDirection::device_to_host})
    if (const HostCopy* c = find_copy(m, HostMemory::pinned, dir, Mover::copy_engine, m.max_bytes))
      if (std::isfinite(c->gbps) && !(tier.bandwidth_gbps >= c->gbps)) {
        tier.bandwidth_gbps = c->gbps;
        tier.bandwidth_method = std::string("host: copy engine, pinned, ") + to_string(dir) + ", " +
                                fmt_bytes(static_cast<double>(m.max_bytes));
      }
  if (m.host_memory_bytes) {
    tier.size = fmt_bytes(static_cast<double>(m.host_memory_bytes)) + " (host)";
    tier.size_bytes = static_cast<double>(m.host_memory_bytes);
  }
  r.tiers.push_back(tier);
  return r;
}

}  // namespace memhier::probe
