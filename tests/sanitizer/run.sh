#!/usr/bin/env bash
# One compute-sanitizer test: runs TARGET WHAT under TOOL, the full log in DIR/TOOL-WHAT.log
# and one summary line in DIR/TOOL-WHAT.summary (scripts/record-results.sh gathers those).
# Exit: the sanitizer's (nonzero on any finding or a failed run), or 77 = skipped, with the
# reason, when there is no compute-sanitizer or no GPU.
# Usage: run.sh TOOL WHAT DIR TARGET [SANITIZER]
set -uo pipefail
tool=$1 what=$2 dir=$3 target=$4 sanitizer=${5:-}
[ -x "$sanitizer" ] || sanitizer=$(command -v compute-sanitizer || true)
if [ -z "$sanitizer" ]; then
  echo "skipped: compute-sanitizer is not installed (CUDA toolkit, or put it on PATH)"
  exit 77
fi
# Asked without the sanitizer first: a machine with no GPU skips instead of failing.
if ! reason=$("$target" gpu-check); then
  echo "$reason"
  exit 77
fi
mkdir -p "$dir"
log=$dir/$tool-$what.log
# --error-exitcode makes any finding fail the test; --print-limit keeps a broken kernel's
# log short. racecheck checks shared memory only (hazards between threads of a block) and
# synccheck barriers and warp-synchronous masks: global-memory races are nobody's report.
# NCCL, in the outer probes, asks the runtime for kernel images it does not carry and enables
# peer access already enabled, by design; memcheck would count each failed call as an error.
# memhier checks every call of its own (a failure throws and fails the run).
# initcheck would flag NCCL's own kernels: its LL protocol polls receive lines whose flags the
# peer has not written yet. Those kernels are NCCL's; memhier's kernels there stay checked.
vendor=()
[ "$tool" = memcheck ] && [ "$what" = outer ] && vendor=(--report-api-errors no)
# (The help is read whole first: under pipefail, grep -q closing the pipe early fails it.)
help=$("$sanitizer" --help 2>&1 || true)
if [ "$tool" = initcheck ] && [ "$what" = outer ] && [[ $help == *--kernel-name-exclude* ]]; then
  vendor=(--kernel-name-exclude kns=ncclDevKernel)
fi
start=$(date +%s)
MEMHIER_SANITIZER_TOOL=$tool "$sanitizer" --tool "$tool" --error-exitcode 99 --print-limit 20 \
  "${vendor[@]}" --log-file "$log" "$target" "$what"
rc=$?
seconds=$(($(date +%s) - start))
summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -n 1 | sed 's/^=* *//')
[ -n "$summary" ] || summary="no summary in the log"
result=$([ "$rc" = 0 ] && echo clean || echo "FAILED (exit $rc)")
printf '%-10s %-10s %-9s %4ss  %s\n' "$tool" "$what" "$result" "$seconds" "$summary" \
  >"$dir/$tool-$what.summary"
cat "$dir/$tool-$what.summary"
[ "$rc" = 0 ] || tail -n 40 "$log"
exit "$rc"
