#include "memhier/bench/model_tables.hpp"

#include <numeric>
#include <string>

#include "memhier/claims/catalogue.hpp"
#include "memhier/model/analyze.hpp"

namespace memhier::bench {
namespace {

using report::Chart;
using report::Column;
using report::Section;
using report::Series;
using report::Table;
using report::Value;

model::SharedAnalysis shared(const std::string& decl_text, const std::string& expr,
                             const model::WarpContext& ctx) {
  const model::Decl d = model::parse_decl(decl_text);
  return model::analyze_shared(model::Access::parse(expr, d), ctx);
}

model::GlobalAnalysis global(const std::string& decl_text, const std::string& expr,
                             const model::WarpContext& ctx) {
  const model::Decl d = model::parse_decl(decl_text);
  return model::analyze_global(model::Access::parse(expr, d), ctx);
}

}  // namespace

Section predicted_bank_strides() {
  Section s;
  s.id = "model-bank-strides";
  s.title = "Shared memory: bank conflicts against stride (predicted)";
  s.paragraphs.push_back(
      "Each lane reads element lane*stride of a shared array. The model counts the "
      "wavefronts one warp instruction needs (32 banks of 4 bytes; 8-byte accesses in "
      "half-warp phases, 16-byte in quarter-warp phases). The claimed conflict degree of "
      "4-byte accesses is gcd(stride, 32) (" +
      claims::cite("002 §Bank Conflict Degree by Stride") + ").");
  Table t;
  t.id = "model-bank-strides";
  t.title = "Wavefronts per warp instruction against stride";
  t.columns = {{"stride", "elements", "stride"},
               {"claimed degree gcd(s,32)", "", "claimed_degree"},
               {"4 B degree", "", "degree_4b"},
               {"4 B wavefronts", "", "wavefronts_4b"},
               {"8 B wavefronts", "", "wavefronts_8b"},
               {"16 B wavefronts", "", "wavefronts_16b"},
               {"4 B bandwidth", "% of peak", "bandwidth_4b_pct"}};
  Chart c;
  c.id = "model-bank-strides-chart";
  c.title = "Predicted wavefronts per warp instruction";
  c.x_label = "stride";
  c.x_unit = "elements";
  c.y_label = "wavefronts";
  c.log_y = true;
  Series s4{"4-byte (float)", {}, {}}, s8{"8-byte (double)", {}, {}},
      s16{"16-byte (float4)", {}, {}};
  model::WarpContext ctx;
  std::vector<int> strides(33);
  std::iota(strides.begin(), strides.end(), 1);
  strides.push_back(64);
  for (int stride : strides) {
    const std::string e = "lane * " + std::to_string(stride);
    const auto a4 = shared("float s[]", e, ctx);
    const auto a8 = shared("double s[]", e, ctx);
    const auto a16 = shared("float4 s[]", e, ctx);
    t.rows.push_back({Value::integer(stride), Value::integer(std::gcd(stride, 32)),
                      Value::integer(a4.degree), Value::integer(a4.wavefronts),
                      Value::integer(a8.wavefronts), Value::integer(a16.wavefronts),
                      Value::num(100.0 * a4.ideal_wavefronts / a4.wavefronts, 1)});
    for (auto* p : {&s4, &s8, &s16}) p->x.push_back(stride);
    s4.y.push_back(a4.wavefronts);
    s8.y.push_back(a8.wavefronts);
    s16.y.push_back(a16.wavefronts);
  }
  t.notes.push_back("Ideal is 1 wavefront for 4-byte, 2 for 8-byte and 4 for 16-byte accesses.");
  c.series = {s4, s8, s16};
  s.tables.push_back(std::move(t));
  s.charts.push_back(std::move(c));
  return s;
}

Section predicted_transpose_tiles() {
  Section s;
  s.id = "model-transpose";
  s.title = "Transpose tiles (predicted)";
  s.paragraphs.push_back(
      "A 32x32 block (warp w holds threads with ty = w) writes a tile row by row and reads "
      "it back by column. Measured on a V100 (" +
      claims::cite("001 §Matrix Transpose Performance (4096x4096, V100)") +
      "): naive 120 GB/s, unpadded tile 580 GB/s (32-way conflicts), padded [32][33] 750 GB/s.");
  model::WarpContext ctx;
  ctx.block_x = 32;
  ctx.block_y = 32;
  ctx.warp = 5;  // any warp: ty = 5 for all lanes
  Table t;
  t.id = "model-transpose-shared";
  t.title = "Shared-memory tile accesses (one warp, ty = 5)";
  t.columns = {{"variant", "", "variant"},        {"declaration", "", "declaration"},
               {"access", "", "access"},          {"wavefronts", "", "wavefronts"},
               {"ideal", "", "ideal_wavefronts"}, {"conflicts", "", "conflicts"},
               {"degree", "", "degree"}};
  struct Row {
    const char *variant, *decl, *expr;
  };
  const Row rows[] = {
      {"tile: row write", "float tile[32][32]", "tile[ty][tx]"},
      {"tile: column read", "float tile[32][32]", "tile[tx][ty]"},
      {"padded: column read", "float tile[32][33]", "tile[tx][ty]"},
      {"swizzled: row write", "float tile[32][32]", "tile[ty][tx ^ ty]"},
      {"swizzled: column read", "float tile[32][32]", "tile[tx][ty ^ tx]"},
      {"double tile: column read", "double tile[32][32]", "tile[tx][ty]"},
      {"double padded: column read", "double tile[32][33]", "tile[tx][ty]"},
  };
  for (const Row& r : rows) {
    const auto a = shared(r.decl, r.expr, ctx);
    t.rows.push_back({Value::str(r.variant), Value::str(r.decl), Value::str(r.expr),
                      Value::integer(a.wavefronts), Value::integer(a.ideal_wavefronts),
                      Value::integer(a.conflicts), Value::integer(a.degree)});
  }
  s.tables.push_back(std::move(t));

  Table g;
  g.id = "model-transpose-global";
  g.title = "Global accesses of a 4096x4096 fp32 transpose (one warp)";
  g.columns = {{"variant", "", "variant"},
               {"access", "", "access"},
               {"sectors/request", "", "sectors_per_request"},
               {"lines", "", "lines"},
               {"non-caching utilization", "%", "noncaching_pct"}};
  const Row grows[] = {
      {"naive: read", "float in[4096][4096]", "in[ty][tx]"},
      {"naive: write", "float out[4096][4096]", "out[tx][ty]"},
      {"tiled: write", "float out[4096][4096]", "out[ty][tx]"},
  };
  for (const Row& r : grows) {
    const auto a = global(r.decl, r.expr, ctx);
    g.rows.push_back({Value::str(r.variant), Value::str(r.expr),
                      Value::num(a.sectors_per_request, 1), Value::integer(a.lines),
                      Value::num(100.0 * a.noncaching_utilization, 1)});
  }
  s.tables.push_back(std::move(g));
  return s;
}

Section predicted_coalescing() {
  Section s;
  s.id = "model-coalescing";
  s.title = "Global memory: coalescing scenarios (predicted)";
  s.paragraphs.push_back(
      "One warp reads 4-byte words. Caching loads move 128-byte lines, non-caching loads "
      "32-byte sectors; utilization is the bytes the warp needs over the bytes moved. "
      "The claimed utilizations are from " +
      claims::cite("004 §Access Patterns vs. Memory Throughput") + ".");
  Table t;
  t.id = "model-coalescing";
  t.title = "Sectors, lines and bus utilization per warp request";
  t.columns = {{"scenario", "", "scenario"},
               {"access", "", "access"},
               {"requests", "", "requests"},
               {"sectors", "", "sectors"},
               {"lines", "", "lines"},
               {"bytes needed", "B", "bytes_needed"},
               {"caching", "%", "caching_pct"},
               {"non-caching", "%", "noncaching_pct"},
               {"claimed (caching / non-caching)", "", "claim"}};
  struct Row {
    const char *scenario, *expr, *claim;
    long long offset;
  };
  const Row rows[] = {
      {"aligned, consecutive", "a[lane]", "100% / 100%", 0},
      {"aligned, permuted", "a[(lane * 7) % 32]", "100% / 100%", 0},
      {"misaligned, consecutive", "a[lane]", "50% / >= 80%", 4},
      {"all lanes one word", "a[0]", "3.125% / 12.5%", 0},
      {"scattered (stride 32 words)", "a[lane * 32]", "128/(N*128) / 128/(N*32)", 0},
  };
  for (const Row& r : rows) {
    model::WarpContext ctx;
    ctx.offset_bytes = r.offset;
    const auto a = global("float a[]", r.expr, ctx);
    t.rows.push_back(
        {Value::str(r.scenario), Value::str(std::string(r.expr) + (r.offset ? " (+4 B)" : "")),
         Value::integer(a.requests), Value::integer(a.sectors), Value::integer(a.lines),
         Value::integer(a.bytes_needed), Value::num(100.0 * a.caching_utilization, 3),
         Value::num(100.0 * a.noncaching_utilization, 1), Value::str(r.claim)});
  }
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace memhier::bench
