#!/usr/bin/env bash
# Nsight Compute's full metric set for the kernels behind the bars not yet reached, beside
# the vendor kernel (or the copy) they are compared with: where the time goes, measured.
# Usage: scripts/profile-gaps.sh OUTDIR [memhier-profile-target binary]. Needs a GPU and
# ncu; clocks are left alone. One raw CSV per gap (every metric of `--set full`, one row per kernel).
set -euo pipefail
out=${1:?usage: scripts/profile-gaps.sh OUTDIR [memhier-profile-target binary]}
bin=${2:-build/release/src/memhier-profile-target}
ncu=${MEMHIER_NCU:-$(command -v ncu || ls -d /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | sort | tail -1)}
[ -x "$ncu" ] || { echo "profile-gaps: ncu not found; set MEMHIER_NCU." >&2; exit 3; }
mkdir -p "$out"

gap() {
  local name=$1
  shift
  echo "== $name: memhier-profile-target $*"
  local t0=$SECONDS
  "$ncu" --set full --clock-control none --profile-from-start off --csv --page raw \
    --print-units base --log-file "$out/$name.csv" "$bin" "$@" \
    >"$out/$name.log" 2>&1 || echo "   ncu failed for $name (see $name.log)"
  echo "   $((SECONDS - t0)) s"
}

gap transpose-8192 transpose --variant best --variant baseline --size 8192x8192
gap copy-8192sq elementwise --variant float4 --size copy:67108864
gap softmax-8x65536 softmax --variant best --size 8x65536
gap histogram-u8-uniform histogram --variant best --variant baseline --size u8-uniform:268435456
gap gemm-4096 gemm --variant best --variant double_buffered --variant baseline \
  --size 4096x4096x4096
python3 "$(dirname "$0")/summarize-gaps.py" "$out" >"$out/gaps.md" && echo "summary: $out/gaps.md"
