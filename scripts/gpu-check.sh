#!/usr/bin/env bash
# Everything on a GPU host, in one go: build, every test (GPU tests included), the
# probes timed in full and --quick, compute-sanitizer memcheck over the quick
# probes, and the report. Logs and JSON go to $OUT (default: gpu-check-out/); the report
# becomes the card's record, docs/results/<card>/ (RESULTS=DIR records it there instead,
# e.g. under $OUT on a machine whose working tree does not come back).
# Usage: scripts/gpu-check.sh [sanitizer-seconds]
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-check-out}
mkdir -p "$OUT"
log="$OUT/gpu-check.log"
san_seconds=${1:-240}
step() { echo "== $* ($(date -u +%H:%M:%S))" | tee -a "$log"; }

step "machine"
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv; nvcc --version | tail -n 2; } >>"$log" 2>&1

step "build"
cmake --preset release -DMEMHIER_WERROR=ON >>"$log" 2>&1 && cmake --build --preset release -j "$(nproc)" >>"$log" 2>&1 || { tail -n 60 "$log"; exit 1; }
bin=build/release/src/memhier

step "tests"
ctest --preset release -j 1 --output-on-failure >"$OUT/ctest.log" 2>&1
tail -n 25 "$OUT/ctest.log" | tee -a "$log"

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

step "memcheck (quick probes, ${san_seconds}s bound)"
timeout "$san_seconds" compute-sanitizer --tool memcheck --error-exitcode 9 "$bin" probe --quick >"$OUT/memcheck.log" 2>&1
echo "memcheck exit $?" | tee -a "$log"
grep -E "ERROR SUMMARY|Invalid" "$OUT/memcheck.log" | head -n 5 | tee -a "$log"

step "memcheck (ladder tests except gemm, ${san_seconds}s bound)"
timeout "$san_seconds" compute-sanitizer --tool memcheck --error-exitcode 9 build/release/tests/memhier_gpu_tests \
  --gtest_filter='Families/Ladder.*:-Families/Ladder.*gemm*' >"$OUT/memcheck-ladders.log" 2>&1
echo "memcheck ladders exit $?" | tee -a "$log"
grep -E "ERROR SUMMARY|PASSED|FAILED" "$OUT/memcheck-ladders.log" | head -n 5 | tee -a "$log"
