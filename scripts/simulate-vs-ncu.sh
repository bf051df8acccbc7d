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
  name="profile-$family-${shape//[:x]/-}.json"
  echo "== memhier profile $family --size $shape"
  t0=$SECONDS
  "$bin" profile "$family" --size "$shape" --json >"$out/$name" || echo "   failed: $name"
  echo "   $((SECONDS - t0)) s"
done
python3 "$(dirname "$0")/traffic-fixture.py" "$out"/profile-*.json >"$out/h100-traffic.json"
echo "fixture: $out/h100-traffic.json (copy to tests/fixtures/ to hold the model to it)"
