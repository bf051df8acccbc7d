#!/usr/bin/env bash
# The memory-system model against the card: `memhier profile` (which now collects DRAM
# bytes and hit rates) at each streamed family's comparison shapes, one inside the L2 and one
# far beyond it, then the simulated-against-measured tables summed up and the fixture the CPU
# tests hold the model to. Needs a GPU and ncu.
# Usage: scripts/simulate-vs-ncu.sh OUTDIR [memhier binary]
set -euo pipefail
out=${1:?usage: scripts/simulate-vs-ncu.sh OUTDIR [memhier binary]}
bin=${2:-build/release/src/memhier}
mkdir -p "$out"
"$bin" simulate all --json >"$out/simulate.json"
# The (family, shape) pairs the simulator ran, as the families' comparison shapes.
python3 -c '
import json, sys
seen = []
for t in json.load(open(sys.argv[1]))["sections"][0]["tables"]:
    for r in t["rows"]:
        if (r["family"], r["shape"]) not in seen:
            seen.append((r["family"], r["shape"]))
for f, s in seen:
    print(f, s)' "$out/simulate.json" | while read -r family shape; do
  name="profile-$family-${shape//:/-}.json"
  echo "== memhier profile $family --size $shape"
  t0=$SECONDS
  "$bin" profile "$family" --size "$shape" --json >"$out/$name" || echo "   failed: $name"
  echo "   $((SECONDS - t0)) s"
done
# The claims the counters decide at a GEMM far beyond L2: the naive rung's DRAM throughput,
# the tiles' L1->L2 traffic and the padding's memory stalls (the transpose pair is above).
echo "== memhier profile gemm --size 4096x4096x4096 (naive, tiles, padded)"
"$bin" profile gemm --size 4096x4096x4096 --variant naive --variant smem_tile16 \
  --variant smem_tile32 --variant smem_tile64 --variant padded --json \
  >"$out/claims-gemm-4096.json" || echo "   failed: gemm 4096"
python3 "$(dirname "$0")/traffic-fixture.py" "$out"/profile-*.json >"$out/h100-traffic.json"
python3 -c '
import json, sys
for path in sys.argv[1:]:
    for sec in json.load(open(path))["sections"]:
        for t in sec["tables"]:
            if t["id"].startswith("profile-") and t["id"].endswith("-claims"):
                for r in t["rows"]:
                    print("claim " + r["claim_id"] + ": " + r["measured"] + " -> " + r["verdict"])
' "$out"/profile-*.json "$out/claims-gemm-4096.json" || true
echo "fixture: $out/h100-traffic.json (copy to tests/fixtures/ to hold the model to it)"
