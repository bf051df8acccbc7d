#!/usr/bin/env bash
# Everything on a GPU host, in one go: build, every test (GPU tests and the compute-sanitizer
# label included: memcheck, racecheck, synccheck and initcheck over every variant and probe),
# the probes timed in full and --quick, and the report (with the sanitizer summaries). Logs and JSON go to $OUT (default: gpu-check-out/); the report
# becomes the card's record, docs/results/<card>/ (RESULTS=DIR records it there instead,
# e.g. under $OUT on a machine whose working tree does not come back).
# Usage: scripts/gpu-check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-check-out}
mkdir -p "$OUT"
log="$OUT/gpu-check.log"
step() { echo "== $* ($(date -u +%H:%M:%S))" | tee -a "$log"; }

step "machine"
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv; nvcc --version | tail -n 2; } >>"$log" 2>&1

step "build"
cmake --preset release -DMEMHIER_WERROR=ON >>"$log" 2>&1 && cmake --build --preset release -j "$(nproc)" >>"$log" 2>&1 || { tail -n 60 "$log"; exit 1; }
bin=build/release/src/memhier

step "tests"
ctest --preset release -j 1 --output-on-failure >"$OUT/ctest.log" 2>&1
tail -n 25 "$OUT/ctest.log" | tee -a "$log"
cat build/release/sanitizer/*.summary 2>/dev/null | tee -a "$log"
cp build/release/sanitizer/*.log "$OUT"/ 2>/dev/null || true

step "probe --quick"
/usr/bin/time -f "probe --quick: %e s wall" "$bin" probe --quick --json >"$OUT/probe-quick.json" 2>>"$log"
step "probe (full)"
/usr/bin/time -f "probe: %e s wall" "$bin" probe --json >"$OUT/probe.json" 2>>"$log"
grep -E "wall" "$log" | tail -n 2

step "info and a ladder, as a user sees them"
"$bin" info >"$OUT/info.txt" 2>&1
"$bin" bench reduction --quick >"$OUT/bench-reduction.txt" 2>>"$log"

step "report (full, recorded)"
scripts/record-results.sh ${RESULTS:+--into "$RESULTS"} "$bin" 2>&1 | tee -a "$log"

