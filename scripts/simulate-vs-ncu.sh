#!/usr/bin/env bash
# The memory-system model against the card: `memhier profile` (which collects DRAM bytes and
# hit rates) of each streamed variant at its family's comparison shapes, one inside the L2 and
# one far beyond it, then the simulated-against-measured tables summed up and the fixture the
# CPU tests hold the model to. Needs a GPU and ncu.
# Usage: scripts/simulate-vs-ncu.sh OUTDIR [memhier binary] [FAMILY...]
#   FAMILY...: only these families (e.g. reduction stencil); the fixture is then merged into
#   tests/fixtures/<card>-traffic.json's items (an item profiled again replaces its old record).
#   MEMHIER_NO_CLAIMS=1 skips the GEMM claims run; MEMHIER_NO_BREAKDOWN=1 the L2 breakdown;
#   MEMHIER_BREAKDOWN_ITEMS="family variant shape;..." breaks down those items instead.
#   MEMHIER_PROFILE_RUNS=N profiles each shape N times: the fixture keeps each ncu figure's
#   median (a small kernel's L2 hit rate moves by up to 15 points between runs on the H200).
set -euo pipefail
out=${1:?usage: scripts/simulate-vs-ncu.sh OUTDIR [memhier binary] [FAMILY...]}
bin=${2:-build/release/src/memhier}
shift $(($# >= 2 ? 2 : 1))
families=("$@")
here=$(dirname "$0")
mkdir -p "$out"
if [ ${#families[@]} -eq 0 ]; then
  "$bin" simulate all --json >"$out/simulate.json"
else
  python3 -c 'import json,sys; print(json.dumps({"sections": [{"tables": [{"rows": [r
      for p in sys.argv[1:] for t in json.load(open(p))["sections"][0]["tables"]
      for r in t["rows"]]}]}]}))' $(for f in "${families[@]}"; do
    "$bin" simulate "$f" --json >"$out/simulate-$f.json"
    echo "$out/simulate-$f.json"
  done) >"$out/simulate.json"
fi
# The (family, shape) pairs the simulator ran and their streamed variants: only those are
# profiled (a family's other rungs have nothing to compare with and cost ncu passes).
python3 -c '
import json, sys
seen = {}
for t in json.load(open(sys.argv[1]))["sections"][0]["tables"]:
    for r in t["rows"]:
        seen.setdefault((r["family"], r["shape"]), []).append(r["variant"])
for (f, s), vs in seen.items():
    print(f, s, " ".join("--variant " + v for v in vs))' "$out/simulate.json" |
  while read -r family shape variants; do
    for run in $(seq 1 "${MEMHIER_PROFILE_RUNS:-1}"); do
      name="profile-$family-${shape//:/-}.json"
      [ "${MEMHIER_PROFILE_RUNS:-1}" -gt 1 ] && name="profile-$family-${shape//:/-}-run$run.json"
      echo "== memhier profile $family --size $shape $variants (run $run)"
      t0=$SECONDS
      # shellcheck disable=SC2086  # the variants are one word each
      "$bin" profile "$family" --size "$shape" $variants --json >"$out/$name" ||
        echo "   failed: $name"
      echo "   $((SECONDS - t0)) s"
    done
  done
# The claims the counters decide at a GEMM beyond L2: the naive rung's DRAM throughput, the
# tiles' L1->L2 traffic and the padding's memory stalls. 2048^3 (A, B and C 16 MiB each):
# the naive rung at 4096^3 runs for minutes under ncu's passes.
if [ -z "${MEMHIER_NO_CLAIMS:-}" ]; then
  echo "== memhier profile gemm --size 2048x2048x2048 (naive, tiles, padded)"
  t0=$SECONDS
  "$bin" profile gemm --size 2048x2048x2048 --variant naive --variant smem_tile16 \
    --variant smem_tile32 --variant smem_tile64 --variant padded --json \
    >"$out/claims-gemm-2048.json" || echo "   failed: gemm 2048"
  echo "   $((SECONDS - t0)) s"
fi
# What lts__t_sector_hit_rate counts on this card: its lookups and hits by source unit (the
# SMs' L1s, tex, and the other L2 partition over the fabric, ltcfabric) and by operation, for
# a copy-like kernel in L2 and beyond it, and L1's global-store lookups (write-allocate).
if [ -z "${MEMHIER_NO_BREAKDOWN:-}" ]; then
  ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  target="$(dirname "$bin")/memhier-profile-target"
  metrics=lts__t_sector_hit_rate.pct,lts__t_sectors_lookup_hit.sum,lts__t_sectors_lookup_miss.sum
  metrics+=,dram__bytes_read.sum,dram__bytes_write.sum
  for u in tex ltcfabric; do
    metrics+=,lts__t_sectors_srcunit_${u}_lookup_hit.sum,lts__t_sectors_srcunit_${u}_lookup_miss.sum
    for op in read write; do
      metrics+=,lts__t_sectors_srcunit_${u}_op_${op}_lookup_hit.sum
      metrics+=,lts__t_sectors_srcunit_${u}_op_${op}_lookup_miss.sum
    done
  done
  for op in ld st; do
    metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_${op}_lookup_hit.sum
    metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_${op}_lookup_miss.sum
  done
  items=("elementwise scalar axpy:100003" "elementwise scalar axpy:67108864"
    "transpose tile 1000x772" "transpose tile 8192x8192" "transpose naive 1000x772")
  # The items the model misses (tests/fixtures/h100-sxm-traffic.json), their lookups by source
  # unit and operation: L1 store lookups under float4 loads, partial-sector stores, the
  # single pass's extra hits, the L2::256B neighbour lines, a column-major transpose.
  items+=("elementwise float4 axpy:67108864" "elementwise particles_aos particles:65537"
    "reduction single_pass 4194304" "reduction best_b256_v4x8_l2pf 4194304"
    "transpose naive 8192x8192" "histogram global_atomics u8-uniform:16777216")
  [ -n "${MEMHIER_BREAKDOWN_ITEMS:-}" ] && IFS=';' read -r -a items <<<"$MEMHIER_BREAKDOWN_ITEMS"
  for item in "${items[@]}"; do
    set -- $item
    echo "== ncu L2/L1 breakdown: $1 $2 $3"
    "$ncu" --csv --page raw --print-units base --clock-control none --profile-from-start off \
      --metrics "$metrics" "$target" "$1" --variant "$2" --size "$3" \
      >"$out/breakdown-$1-$2-${3//:/-}.csv" 2>&1 || echo "   failed (see the csv)"
  done
fi
# The card's own fixture (tests/fixtures/<card>-traffic.json), named as memhier info names it.
card=$("$bin" info --json | python3 -c 'import json, sys; print(json.load(sys.stdin).get("card") or "unknown-card")')
fixture="$out/$card-traffic.json"
merge=()
[ ${#families[@]} -gt 0 ] && [ -f "$here/../tests/fixtures/$card-traffic.json" ] &&
  merge=(--merge "$here/../tests/fixtures/$card-traffic.json")
python3 "$here/traffic-fixture.py" "${merge[@]}" "$out"/profile-*.json >"$fixture"
python3 -c '
import json, sys
for path in sys.argv[1:]:
    for sec in json.load(open(path))["sections"]:
        for t in sec["tables"]:
            if t["id"].startswith("profile-") and t["id"].endswith("-claims"):
                for r in t["rows"]:
                    print("claim " + r["claim_id"] + ": " + r["measured"] + " -> " + r["verdict"])
' "$out"/profile-*.json "$out"/claims-gemm-*.json 2>/dev/null || true
echo "fixture: $fixture (copy to tests/fixtures/ to hold the model to it)"
