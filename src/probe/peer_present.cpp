// The peer probe's section from its measurement: the pairs, every method per pair, the
// all-pairs copy-engine matrix, the remote-load latency, and the summary's peer tier. No CUDA.
#include <cmath>
#include <string>
#include <vector>

#include "claim_rows.hpp"
#include "memhier/probe/peer.hpp"

namespace memhier::probe {

const char* to_string(PeerMethod m) {
  switch (m) {
    case PeerMethod::copy_engine:
      return "copy engine";
    case PeerMethod::copy_engine_both:
      return "copy engine, both ways";
    case PeerMethod::sm_load:
      return "SM load (destination pulls)";
    case PeerMethod::sm_store:
      return "SM store (source pushes)";
    case PeerMethod::sm_load_both:
      return "SM load, both ways";
    case PeerMethod::staged_host:
      return "staged through pinned host memory";
  }
  return "?";
}

std::string peer_unavailable(int visible_gpus) {
  if (visible_gpus >= 2) return "";
  if (visible_gpus == 1) return "the peer tier needs two GPUs; this machine has one";
  return "the peer tier needs two GPUs; this machine has none";
}

const PeerCopy* find_peer_copy(const PeerResult& m, int src, int dst, PeerMethod method) {
  for (const PeerCopy& c : m.copies)
    if (c.src == src && c.dst == dst && c.method == method) return &c;
  return nullptr;
}

namespace {

using report::Value;

report::Table pairs_table(const PeerResult& m) {
  report::Table t;
  t.id = "peer-pairs";
  t.title = "Pairs of GPUs";
  t.columns = {{"from", "", "src"},
               {"to", "", "dst"},
               {"peer access", "", "can_access"},
               {"performance rank", "", "performance_rank"},
               {"native atomics", "", "native_atomics"}};
  for (const PeerPair& p : m.pairs)
    t.rows.push_back({Value::integer(p.src), Value::integer(p.dst),
                      Value::str(p.can_access ? "yes" : "no"),
                      p.performance_rank < 0 ? Value::none() : Value::integer(p.performance_rank),
                      Value::str(p.native_atomics ? "yes" : "no")});
  std::string names;
  for (std::size_t d = 0; d < m.names.size(); ++d)
    names += (d ? "; " : "") + std::to_string(d) + ": " + m.names[d];
  t.notes.push_back("GPUs: " + names + ".");
  return t;
}

report::Table copies_table(const PeerResult& m) {
  report::Table t;
  t.id = "peer-copies";
  t.title = "Copies between GPUs (" + fmt_bytes(static_cast<double>(m.buffer_bytes)) + " each way)";
  t.columns = {{"from", "", "src"},
               {"to", "", "dst"},
               {"method", "", "method"},
               {"bytes", "B", "bytes"},
               {"time", "ms", "ms"},
               {"bandwidth", "GB/s", "gbps"},
               {"of copy engine", "x", "of_copy_engine"},
               {"not measured", "", "not_measured"}};
  for (const PeerCopy& c : m.copies) {
    const PeerCopy* ce = find_peer_copy(
        m, c.src, c.dst,
        c.method == PeerMethod::copy_engine_both || c.method == PeerMethod::sm_load_both
            ? PeerMethod::copy_engine_both
            : PeerMethod::copy_engine);
    t.rows.push_back({Value::integer(c.src), Value::integer(c.dst), Value::str(to_string(c.method)),
                      Value::integer(static_cast<std::int64_t>(c.bytes)),
                      Value::num_or_none(c.ms, 3), Value::num_or_none(c.gbps, 1),
                      Value::num_or_none(ce && c.not_measured.empty() ? c.gbps / ce->gbps : NAN, 3),
                      c.not_measured.empty() ? Value::none() : Value::str(c.not_measured)});
  }
  t.notes.push_back(
      "Both-ways rows count the bytes of both directions; from/to name the pair. The staged "
      "path is one device-to-host copy and then one host-to-device copy, not pipelined.");
  return t;
}

report::Table latency_table(const PeerResult& m) {
  report::Table t;
  t.id = "peer-latency";
  t.title = "One dependent load from a peer's memory";
  t.columns = {{"reader", "", "reader"},
               {"owner", "", "owner"},
               {"latency", "cycles", "latency_cycles"},
               {"latency", "ns", "latency_ns"},
               {"not measured", "", "not_measured"}};
  for (const PeerLatency& l : m.latencies)
    t.rows.push_back({Value::integer(l.reader), Value::integer(l.owner),
                      Value::num_or_none(l.cycles, 0), Value::num_or_none(l.ns, 0),
                      l.not_measured.empty() ? Value::none() : Value::str(l.not_measured)});
  t.notes.push_back(std::to_string(m.chase_steps) +
                    " timed loads by one thread, slots 512 B apart in random order; cycles of "
                    "the reader's SM clock, ns at the clock measured on the first GPU.");
  return t;
}

report::Chart matrix_chart(const PeerResult& m) {
  report::Chart ch;
  ch.id = "peer-matrix";
  ch.title = "Copy-engine bandwidth, every ordered pair (row: from, column: to)";
  ch.kind = report::Chart::Kind::heatmap;
  ch.x_label = "to GPU";
  ch.y_label = "from GPU";
  ch.y_unit = "GB/s";
  for (int i = 0; i < m.gpus; ++i) {
    report::Series s;
    s.name = "GPU " + std::to_string(i);
    for (int j = 0; j < m.gpus; ++j) {
      const PeerCopy* c = i == j ? nullptr : find_peer_copy(m, i, j, PeerMethod::copy_engine);
      s.x.push_back(j);
      s.y.push_back(c ? c->gbps : NAN);
    }
    ch.series.push_back(std::move(s));
  }
  return ch;
}

// SM loads against the copy engine, one way, on every pair that has peer access.
std::vector<ClaimRow> peer_claims(const PeerResult& m) {
  std::vector<Figure> figures;
  std::string text;
  for (const PeerCopy& c : m.copies) {
    if (c.method != PeerMethod::sm_load || !c.not_measured.empty()) continue;
    const PeerCopy* ce = find_peer_copy(m, c.src, c.dst, PeerMethod::copy_engine);
    const double ratio = ce ? c.gbps / ce->gbps : NAN;
    const std::string label = strf("GPU %d -> %d", c.src, c.dst);
    figures.push_back({label, ratio, Claimed::value(1, "x the copy engine"),
                       claims::band(ClaimId::peer_sm_load_matches_copy_engine)});
    text += strf("%s%s: %.1f against %.1f GB/s (%.2fx)", text.empty() ? "" : "; ", label.c_str(),
                 c.gbps, ce ? ce->gbps : NAN, ratio);
  }
  return {{ClaimId::peer_sm_load_matches_copy_engine,
           text.empty() ? std::string("no pair has peer access") : text,
           judged_all(figures, "no pair of GPUs has peer access")}};
}

}  // namespace

Result present_peer(const PeerResult& m) {
  Result r;
  r.section.id = "peer";
  r.section.title = "Peer GPUs: copies and loads over P2P";
  r.section.paragraphs.push_back(
      "Every ordered pair of the " + std::to_string(m.gpus) +
      " visible GPUs, in one process: the copy engine (cudaMemcpyPeerAsync) against every SM "
      "of one GPU loading from or storing to the other's memory after "
      "cudaDeviceEnablePeerAccess, one way and both ways at once, and the same bytes staged "
      "through pinned host memory, the path a machine without P2P takes. Each figure is the "
      "median of samples timed with CUDA events, every stream of a sample released together.");
  r.section.tables.push_back(pairs_table(m));
  r.section.tables.push_back(copies_table(m));
  r.section.tables.push_back(latency_table(m));
  r.section.charts.push_back(matrix_chart(m));
  add_claims(r.section, "peer", peer_claims(m));

  TierFigure tier;
  tier.tier = "peer";
  for (const PeerLatency& l : m.latencies)
    if (std::isfinite(l.cycles) && !(tier.latency_cycles <= l.cycles))
      tier.latency_cycles = l.cycles;
  for (const PeerCopy& c : m.copies)
    if ((c.method == PeerMethod::copy_engine || c.method == PeerMethod::sm_load ||
         c.method == PeerMethod::sm_store) &&
        std::isfinite(c.gbps) && !(tier.bandwidth_gbps >= c.gbps)) {
      tier.bandwidth_gbps = c.gbps;
      tier.bandwidth_method = std::string("peer: ") + to_string(c.method) + ", GPU " +
                              std::to_string(c.src) + " -> " + std::to_string(c.dst) + ", one way";
    }
  if (m.device_memory_bytes && m.gpus > 1) {
    tier.size = std::to_string(m.gpus - 1) + " x " +
                fmt_bytes(static_cast<double>(m.device_memory_bytes)) + " (peers)";
    tier.size_bytes = static_cast<double>(m.gpus - 1) * static_cast<double>(m.device_memory_bytes);
  }
  r.tiers.push_back(tier);
  return r;
}

}  // namespace memhier::probe
