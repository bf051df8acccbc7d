// The shared-memory configuration probes' sections from their measurements: tables,
// charts and claims. No CUDA: numbers in, report sections out.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "claim_rows.hpp"
#include "memhier/probe/smem_config.hpp"

namespace memhier::probe {
namespace {

constexpr int kKiB = 1024;
using report::Value;

// ---------------------------------------------------------------------------------------
// smem-dynamic

report::Table dynamic_table(const SmemDynamicResult& m) {
  report::Table t;
  t.id = "smem-dynamic";
  t.title = "Tile size chosen at run time";
  t.caption =
      "max rel. error = largest |GPU - CPU float64| over the samples, divided by the "
      "reference's RMS; rel. L2 = ||GPU - CPU|| / ||CPU|| over the same samples. The "
      "tiles are shared out over blocks/SM x SMs resident blocks, so a large tile also "
      "pays for a partly idle last round.";
  t.columns = {{"variant", "", "variant"},
               {"tile (outputs)", "B", "tile_bytes"},
               {"dynamic shared memory", "B/block", "smem_bytes"},
               {"blocks/SM (CUDA)", "", "blocks_per_sm"},
               {"blocks/SM (model)", "", "model_blocks_per_sm"},
               {"tiles", "", "tiles"},
               {"time", "ms", "ms"},
               {"throughput", "GB/s", "gbps"},
               {"max rel. error", "", "max_rel_err"},
               {"rel. L2 error", "", "rel_l2_err"}};
  for (const DynamicTile& v : m.tiles)
    t.rows.push_back(
        {Value::str(v.name), Value::integer(static_cast<long long>(v.tile_outputs) * 4),
         Value::integer(v.smem_bytes), Value::integer(v.blocks_per_sm),
         v.model_blocks_per_sm >= 0 ? Value::integer(v.model_blocks_per_sm) : Value::num(NAN),
         Value::integer(v.tiles), Value::num(v.ms, 3), Value::num(v.gbps, 0),
         Value::num(v.max_rel_err, 9), Value::num(v.rel_l2_err, 9)});
  if (m.device.smem_per_block_optin <= 48 * kKiB)
    t.notes.push_back("This card allows no more than " +
                      std::to_string(m.device.smem_per_block_optin) +
                      " B per block, so there is no opt-in tile above 48 KiB to compare.");
  for (const DynamicTile& v : m.tiles)
    if (!(v.rel_l2_err < 1e-5))
      t.notes.push_back("VERIFICATION FAILED for " + v.name + ": its time is not a valid figure.");
  if (!m.has_model) t.notes.push_back("memhier's model has no table for this compute capability.");
  return t;
}

report::Chart dynamic_chart(const SmemDynamicResult& m) {
  report::Chart c;
  c.id = "smem-dynamic-gbps";
  c.title = "Stencil throughput per tile size";
  c.kind = report::Chart::Kind::bar;
  c.x_label = "tile";
  c.y_label = "throughput";
  c.y_unit = "GB/s";
  report::Series ser;
  ser.name = "GB/s";
  for (const DynamicTile& v : m.tiles) {
    c.categories.push_back(v.name + " (" + strf("%.1f KiB", v.smem_bytes / 1024.0) + ", " +
                           std::to_string(v.blocks_per_sm) + " blocks/SM)");
    ser.y.push_back(v.gbps);
  }
  c.series.push_back(ser);
  return c;
}

// The opt-in, the per-block maximum, and blocks per SM falling as the tile grows.
void optin_claims(const SmemDynamicResult& m, std::vector<ClaimRow>& claims) {
  const int max_smem = m.tiles.back().smem_bytes;
  const bool no_optin_failed = m.optin_tested && m.no_optin_limit_bytes < max_smem;
  const std::string no_optin_result =
      !m.optin_tested ? "n/a"
                      : "the kernel's limit is " + std::to_string(m.no_optin_limit_bytes) + " B" +
                            (no_optin_failed ? ", so the launch would be refused" : "");
  {
    ClaimRow r{ClaimId::smem_optin_above_48kb, "", {}};
    if (!m.optin_tested) {
      r.measured = "opt-in maximum " + std::to_string(m.device.smem_per_block_optin) + " B";
      r.set(not_measurable("this card allows no more than 48 KiB per block"));
    } else {
      r.measured = std::to_string(max_smem) + " B without the opt-in: " + no_optin_result +
                   "; with it: " + (m.optin_ran ? "ran and verified" : "did not run");
      r.set(judged_all({{"the limit without the opt-in", double(m.no_optin_limit_bytes),
                         Claimed::value(max_smem, "B"), Tolerance::at_most(max_smem - 1)},
                        {"opted-in launches that ran", m.optin_ran ? 1.0 : 0.0,
                         Claimed::value(1, "of 1"), Tolerance::inside_range()}}));
    }
    claims.push_back(r);
  }
  {
    // The source's table of the per-block maximum, KB, by compute capability.
    struct SourceRow {
      int major, minor, kb;
    };
    const SourceRow source_rows[] = {{7, 0, 96}, {7, 5, 64}, {8, 0, 163}, {8, 9, 99}, {9, 0, 227}};
    ClaimRow r{ClaimId::smem_per_block_by_arch,
               strf("%.1f KiB per block (opt-in)", m.device.smem_per_block_optin / 1024.0),
               {}};
    r.from_properties = true;  // the runtime's limit, not a measurement
    int source_kb = -1;
    for (const SourceRow& sr : source_rows)
      if (sr.major == m.device.cc_major && sr.minor == m.device.cc_minor) source_kb = sr.kb;
    r.set(judged(source_kb < 0 ? NAN : m.device.smem_per_block_optin / double(kKiB),
                 Claimed::value(source_kb, "KiB"), Tolerance::inside_range(),
                 "the source lists no figure for compute capability " +
                     std::to_string(m.device.cc_major) + "." + std::to_string(m.device.cc_minor)));
    claims.push_back(r);
  }
  {
    ClaimRow r{ClaimId::smem_more_per_block_fewer_blocks, "", {}};
    std::string text;
    std::vector<Figure> figures;  // each tile's change in blocks/SM, then largest against smallest
    for (std::size_t i = 0; i < m.tiles.size(); ++i) {
      text += (i ? "; " : "") + strf("%.1f KiB: ", m.tiles[i].smem_bytes / 1024.0) +
              std::to_string(m.tiles[i].blocks_per_sm) + " blocks/SM";
      if (i)
        figures.push_back({strf("%.1f KiB against the tile before", m.tiles[i].smem_bytes / 1024.0),
                           double(m.tiles[i].blocks_per_sm - m.tiles[i - 1].blocks_per_sm),
                           Claimed::value(0, "blocks/SM"), Tolerance::at_most(0)});
    }
    if (m.tiles.size() > 1)
      figures.push_back({"the largest tile against the smallest",
                         double(m.tiles.back().blocks_per_sm - m.tiles.front().blocks_per_sm),
                         Claimed::value(-1, "blocks/SM"), Tolerance::at_most(-1)});
    r.measured = text;
    r.set(judged_all(figures, "only one tile size fits"));
    claims.push_back(r);
  }
}

// The napkin blocks-per-SM formula, and the time of the largest tile against the smallest.
void occupancy_claims(const SmemDynamicResult& m, std::vector<ClaimRow>& claims) {
  const core::DeviceInfo& dev = m.device;
  {
    // 000: "228KB / 32KB = 7 blocks": per-SM shared memory divided by the per-block need.
    ClaimRow r{ClaimId::smem_blocks_per_sm_formula, "", {}};
    const int warp_limit = dev.max_threads_per_sm / m.block_threads;
    std::string text;
    bool off = false;
    std::vector<Figure> figures;
    for (const DynamicTile& v : m.tiles) {
      const int napkin =
          std::min(warp_limit, dev.smem_per_sm / (v.smem_bytes + m.static_smem_bytes));
      text += (text.empty() ? "" : "; ") + strf("%.1f KiB: ", v.smem_bytes / 1024.0) + "formula " +
              std::to_string(napkin) + ", CUDA " + std::to_string(v.blocks_per_sm);
      off = off || napkin != v.blocks_per_sm;
      figures.push_back({strf("%.1f KiB", v.smem_bytes / 1024.0), double(v.blocks_per_sm),
                         Claimed::value(napkin, "blocks/SM"), Tolerance::inside_range()});
    }
    r.measured =
        text + (off ? " (the driver reserves shared memory per block: 1 KiB from cc 8.0)" : "");
    r.set(judged_all(figures, "no tile ran"));
    claims.push_back(r);
  }
  {
    ClaimRow r{ClaimId::smem_larger_tiles_lower_occupancy, "", {}};
    const DynamicTile& small = m.tiles.front();
    const DynamicTile& large = m.tiles.back();
    if (m.tiles.size() < 2 || !(small.ms > 0) || !(large.ms > 0)) {
      r.measured = "one tile size only";
      r.set(not_measurable("no larger tile"));
    } else {
      const double ratio = large.ms / small.ms;
      r.measured = large.name + " (" + std::to_string(large.blocks_per_sm) + " blocks/SM) took " +
                   strf("%.2fx", ratio) + " the time of " + small.name + " (" +
                   std::to_string(small.blocks_per_sm) + " blocks/SM)";
      // Tolerance: within 5% counts as no difference, so the larger tile must be slower.
      r.set(judged(ratio, Claimed::value(1, "x the smaller tile's time"),
                   claims::band(ClaimId::smem_larger_tiles_lower_occupancy)));
    }
    claims.push_back(r);
  }
}

// ---------------------------------------------------------------------------------------
// smem-carveout

report::Table carveout_table(const SmemCarveoutResult& m) {
  const double base_ms = m.settings.front().ms;  // 0%: the most L1
  report::Table t;
  t.id = "smem-carveout";
  t.title = "Window re-reads per carveout preference";
  t.caption =
      "relative = time / time at 0% (all of the pool that shared memory does not need "
      "goes to L1). fits: the window against the model's L1 size (yes: at most 75% of it; "
      "no: larger than all of it).";
  t.columns = {{"carveout", "%", "carveout_pct"},
               {"shared (model)", "KiB/SM", "smem_kb"},
               {"L1 (model)", "KiB/SM", "l1_kb"},
               {"window fits L1", "", "fits"},
               {"blocks/SM (CUDA)", "", "blocks_per_sm"},
               {"time", "ms", "ms"},
               {"throughput", "GB/s", "gbps"},
               {"relative", "x", "relative"}};
  for (const CarveoutSetting& r : m.settings)
    t.rows.push_back({r.pct < 0 ? Value::str("default") : Value::integer(r.pct),
                      r.smem_kb >= 0 ? Value::integer(r.smem_kb) : Value::num(NAN),
                      r.l1_kb >= 0 ? Value::integer(r.l1_kb) : Value::num(NAN), Value::str(r.fits),
                      Value::integer(r.blocks_per_sm), Value::num(r.ms, 3), Value::num(r.gbps, 0),
                      Value::num(base_ms > 0 ? r.ms / base_ms : NAN, 2)});
  t.notes.push_back(
      "The carveout is a preference: the driver rounds it up to a supported "
      "split and may override it; the default row shows what the driver chose "
      "by itself, judged by its speed (its split is not reported by CUDA).");
  if (!m.has_model)
    t.notes.push_back(
        "memhier's model has no table for this compute capability: the split "
        "columns are n/a and the window size uses the shared-memory maximum.");
  return t;
}

report::Chart carveout_chart(const SmemCarveoutResult& m) {
  report::Chart c;
  c.id = "smem-carveout-gbps";
  c.title = "L1 re-read throughput per carveout";
  c.kind = report::Chart::Kind::bar;
  c.x_label = "carveout";
  c.x_unit = "%";
  c.y_label = "throughput";
  c.y_unit = "GB/s";
  report::Series ser;
  ser.name = "GB/s";
  for (const CarveoutSetting& r : m.settings) {
    c.categories.push_back(r.pct < 0 ? std::string("default") : std::to_string(r.pct) + "%");
    ser.y.push_back(r.gbps);
  }
  c.series.push_back(ser);
  return c;
}

std::vector<ClaimRow> carveout_claims(const SmemCarveoutResult& m) {
  std::vector<ClaimRow> claims;
  const CarveoutSetting& max_l1 = m.settings[0];    // 0%
  const CarveoutSetting& max_smem = m.settings[4];  // 100%
  const CarveoutSetting& def = m.settings[5];
  {
    ClaimRow r{ClaimId::carveout_trades_l1_for_shared, "", {}};
    // Judge the two ends (largest L1 against largest shared memory), and say where the
    // speed actually stepped: the model's split does not have to predict it.
    const double ratio = max_l1.gbps / max_smem.gbps;
    std::string step = "no step over 20% between neighbouring settings";
    for (int i = 0; i + 1 < 5; ++i)
      if (m.settings[i].gbps > 1.2 * m.settings[i + 1].gbps) {
        step = "the speed steps down between " + std::to_string(m.settings[i].pct) + "% and " +
               std::to_string(m.settings[i + 1].pct) + "% (model: window " +
               (m.settings[i + 1].fits == "yes" ? "still fits" : "no longer fits") +
               " the L1 left at " + std::to_string(m.settings[i + 1].pct) + "%)";
        break;
      }
    r.measured = "0%: " + strf("%.0f GB/s", max_l1.gbps) +
                 ", 100%: " + strf("%.0f GB/s", max_smem.gbps) + "; " + step;
    // Tolerance: the largest L1 must re-read the window more than 20% faster.
    r.set(judged(ratio, Claimed::value(1, "x the 100% carveout's speed"),
                 claims::band(ClaimId::carveout_trades_l1_for_shared)));
    claims.push_back(r);
  }
  {
    ClaimRow r{ClaimId::carveout_default_large_l1, "", {}};
    const double ratio = def.gbps / max_l1.gbps;
    r.measured = "default: " + strf("%.0f GB/s", def.gbps) + " (" + strf("%.2fx", ratio) +
                 " of the 0% carveout)";
    // Tolerance: within 10% of the largest-L1 setting counts as "a large L1".
    r.set(judged(ratio, Claimed::value(1, "x the 0% carveout's speed"),
                 claims::band(ClaimId::carveout_default_large_l1)));
    claims.push_back(r);
  }
  {
    ClaimRow r{ClaimId::smem_228kb_per_sm,
               std::to_string(m.device.smem_per_sm / kKiB) + " KiB per SM",
               {}};
    r.from_properties = true;  // the runtime's figure, not a measurement
    const bool h100 = m.device.cc_major == 9 && m.device.cc_minor == 0;
    r.set(judged(h100 ? m.device.smem_per_sm / double(kKiB) : NAN, Claimed::value(228, "KiB"),
                 Tolerance::inside_range(), "the figure is for H100 (cc 9.0)"));
    claims.push_back(r);
  }
  return claims;
}

}  // namespace

Result present_smem_dynamic(const SmemDynamicResult& m) {
  Result res;
  report::Section& s = res.section;
  s.id = "smem-dynamic";
  s.title = "Dynamic shared memory: run-time tiles above 48 KiB";
  s.paragraphs.push_back(
      "A 1D stencil (" + std::to_string(m.taps) + " taps, weights in constant memory) over " +
      std::to_string(m.outputs) + " random floats. Each " + std::to_string(m.block_threads) +
      "-thread block stages a tile and its " + std::to_string(m.halo) +
      "-value halo in dynamic shared memory; the tile is computed at run time from the "
      "device's limits: the default 48 KiB per block, and, after "
      "cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize), half and all of the "
      "opt-in maximum (" +
      std::to_string(m.device.smem_per_block_optin) +
      " B on this card). "
      "Outputs are checked against a float64 CPU reference on " +
      std::to_string(m.samples) +
      " sampled outputs (every tile edge included) and every output must be written. GB/s "
      "counts the compulsory traffic: the input once and the output once.");

  s.tables.push_back(dynamic_table(m));
  s.charts.push_back(dynamic_chart(m));
  std::vector<ClaimRow> claims;
  optin_claims(m, claims);
  occupancy_claims(m, claims);
  add_claims(s, "smem-dynamic", claims);

  TierFigure shared;
  shared.tier = "shared";
  shared.size = std::to_string(m.device.smem_per_sm / kKiB) + " KiB/SM";
  shared.size_bytes = static_cast<double>(m.device.smem_per_sm);
  res.tiers.push_back(shared);
  return res;
}

Result present_smem_carveout(const SmemCarveoutResult& m) {
  Result res;
  report::Section& s = res.section;
  s.id = "smem-carveout";
  s.title = "Shared-memory carveout: L1 traded for shared memory";
  s.paragraphs.push_back(
      "Each block (" + std::to_string(m.block_threads) + " threads, " +
      std::to_string(m.dyn_smem_bytes) + " B of dynamic shared memory) re-reads, " +
      std::to_string(m.passes) + " times, a " + std::to_string(m.window_kb) +
      " KiB window of global memory that belongs "
      "to its SM (chosen by %smid), with ld.global.ca 16-byte loads. The kernel's "
      "cudaFuncAttributePreferredSharedMemoryCarveout is set to each percentage in turn and "
      "restored to the default afterwards. Where the carveout leaves L1 room for the window, "
      "the reads hit L1; where it does not, they go to L2. GB/s counts every byte read. The "
      "shared/L1 split is memhier's model of the driver's rounding (cuda_occupancy.h rules) "
      "on a " +
      std::to_string(m.pool_kb) + " KiB pool.");

  s.tables.push_back(carveout_table(m));
  s.charts.push_back(carveout_chart(m));
  add_claims(s, "smem-carveout", carveout_claims(m));

  TierFigure l1;
  l1.tier = "L1";
  l1.size = std::to_string(m.pool_kb) + " KiB/SM (with shared)";
  l1.size_bytes = static_cast<double>(m.pool_kb) * kKiB;
  res.tiers.push_back(l1);
  return res;
}

}  // namespace memhier::probe
