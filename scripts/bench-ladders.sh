#!/usr/bin/env bash
# On a GPU host: every ladder's benchmark (verified, timed against memcpy and the vendor
# library), one JSON and one text table per family, each bounded in time.
# Usage: scripts/bench-ladders.sh OUTDIR [seconds-per-family] [extra memhier bench flags...]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/bench-ladders.sh OUTDIR [seconds] [flags]}
secs=${2:-120}
shift 2 2>/dev/null || shift $#
bin=build/release/src/memhier
mkdir -p "$out"
# The families the binary registers, in report order (src/kernels/families.inc).
for fam in $("$bin" list | awk '$1 == "kernel" && !seen[$2]++ { print $2 }'); do
  start=$(date +%s)
  timeout "$secs" "$bin" bench "$fam" --json "$@" >"$out/bench-$fam.json" 2>"$out/bench-$fam.err"
  rc=$?
  echo "$fam: exit $rc in $(( $(date +%s) - start )) s" | tee -a "$out/summary.txt"
done
