#!/usr/bin/env bash
# Records a real run on this GPU host as the card's current record, docs/results/<card>/
# (card: h100-sxm, h200, h100-pcie, ... as `memhier info --json` names it; h200-x2 for a
# machine with two of them visible), replacing the previous one (git keeps it): the report
# (Markdown and JSON; not the HTML page, the same records a third time) as memhier wrote it,
# the Markdown headed by the card's state (name, driver, clocks) read from nvidia-smi just
# before the run, the JSON compact and gzip'd
# (results.json.gz: zcat reads it; the scripts read it or a plain results.json), and
# NOTES.md (scripts/record-notes.py: command, commit, card, driver, clocks, what differs
# from the previous record). Where tests/fixtures/<card>-profile-counters.json exists, it
# is refreshed from the new record (scripts/counters-fixture.py), and the report's screenshots
# in docs/ (the first screen, a ladder section) from its HTML in headless Chromium
# (scripts/report-browser-check.py, which checks the page too). Where `ctest -L sanitizer`
# has run in the binary's build tree, sanitizer.txt gathers its one-line summaries (tool,
# target, result, seconds, the sanitizer's error summary); the full logs stay in the build.
# The new record is built in a temporary folder beside the old one and moved in only when
# complete: a failed or killed run leaves the previous record as it was.
# Usage: scripts/record-results.sh [--card SLUG] [--into DIR] [memhier binary]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
card="" dest="" bin="$root/build/release/src/memhier"
while [ $# -gt 0 ]; do
  case "$1" in
    --card) card=${2:?--card needs a name}; shift 2 ;;
    --into) dest=${2:?--into needs a folder}; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "record-results.sh: unknown option $1" >&2; exit 2 ;;
    *) bin=$1; shift ;;
  esac
done
[ -x "$bin" ] || { echo "record-results.sh: no memhier binary at $bin (build it first)" >&2; exit 2; }

# What memhier says of itself, read once: its device 0's card name in the table and PCI
# address (nvidia-smi's form), and the commit it was built from ("-" where it has none).
read -r info_card info_bus info_commit < <("$bin" info --json | python3 -c 'import json, sys
j = json.load(sys.stdin)
print(j.get("card") or "-", (j.get("device") or {}).get("pci_bus_id") or "-",
      ((j.get("meta") or {}).get("git_commit") or "unknown")[:7])')
# The state of the card memhier measures (its device 0), found by its PCI address among the
# GPUs nvidia-smi lists, else the first of them. nvidia-smi's output is read whole: cut by
# `head`, a later line can meet a closed pipe, which pipefail takes for a failure (likely why
# a record on two GPUs had no state).
state=""
if all=$(nvidia-smi --query-gpu=pci.bus_id,name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,temperature.gpu,power.draw,ecc.mode.current \
  --format=csv,noheader 2>/dev/null); then
  state=$(printf '%s\n' "$all" | python3 -c 'import sys
bus = sys.argv[1].upper()
rows = [r.split(", ", 1) for r in sys.stdin.read().splitlines() if ", " in r]
pick = next((r for r in rows if bus and r[0].strip().upper() == bus), rows[0] if rows else None)
print(pick[1] if pick else "")' "${info_bus#-}")
fi
[ -n "$state" ] || state="nvidia-smi unavailable"
if [ -z "$card" ]; then
  # The card as memhier's table names it: "NVIDIA H100 80GB HBM3" -> h100-sxm, "NVIDIA H200"
  # -> h200, "NVIDIA H100 PCIe" -> h100-pcie; a card the table lacks by its own name.
  card=${info_card#-}
  # A machine of several GPUs records its outer tiers (peer, collectives, all-reduce) too: it
  # is named by its count, h200-x2, so the one-GPU record of the card keeps its place.
  if [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then
    gpus=$(printf '%s' "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
  else
    gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
  fi
  if [ -n "$card" ] && [ "${gpus:-1}" -gt 1 ]; then card="$card-x$gpus"; fi
fi
case "$card" in
  *[!a-z0-9-]*) echo "record-results.sh: '$card' is not a folder name: pass --card SLUG" >&2; exit 2 ;;
esac
if [ -z "$dest" ]; then
  [ -n "$card" ] || { echo "record-results.sh: cannot name the card ('$state'): pass --card SLUG" >&2; exit 2; }
  dest=$root/docs/results/$card
fi

# The new record takes shape in a folder beside the old one (the same file system, so the
# final move is a rename); the old one stays untouched until the new one is complete.
mkdir -p "$(dirname "$dest")"
dest=$(cd "$(dirname "$dest")" && pwd)/$(basename "$dest")
work=$(mktemp -d "$dest.new.XXXXXX")
trap 'rm -rf "$work"' EXIT

start=$(date -u +%s.%N)
"$bin" report --out "$work" --quiet >/dev/null
end=$(date -u +%s.%N)
rm -f "$work/index.html"  # the same records as report.md and results.json: not kept
# The records compact (no indentation) and gzip'd, without a time stamp in the gzip header.
python3 - "$work/results.json" <<'PY'
import gzip, json, os, sys
with open(sys.argv[1], encoding="utf-8") as f:
    report = json.load(f)
text = json.dumps(report, separators=(",", ":"), ensure_ascii=False) + "\n"
with open(sys.argv[1] + ".gz", "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
    gz.write(text.encode("utf-8"))
os.remove(sys.argv[1])
PY
{
  echo "<!-- generated by scripts/record-results.sh from memhier's own records; do not edit -->"
  echo "Card state before the run (nvidia-smi: name, driver, SM clock, max SM clock, memory clock,"
  echo "max memory clock, temperature, power, ECC): \`$state\`"
  echo
  awk -v a="$start" -v b="$end" 'BEGIN { printf "Wall time of `memhier report`: %.1f s.\n\n", b - a }'
  cat "$work/report.md"
} >"$work/report.md.tmp" && mv "$work/report.md.tmp" "$work/report.md"

# What differs from the previous record, read where it still is (results.json in a record
# made before the records were gzip'd).
previous=""
for f in "$dest/results.json.gz" "$dest/results.json"; do
  [ -f "$f" ] && { previous=$f; break; }
done
if [ -n "$previous" ]; then
  python3 "$root/scripts/record-notes.py" "$work" "$previous" >"$work/NOTES.md"
else
  python3 "$root/scripts/record-notes.py" "$work" >"$work/NOTES.md"
fi

# The sanitizer tests' summaries (tests/sanitizer/run.sh writes one per tool and target).
sanitizer_dir=$(cd "$(dirname "$bin")/.." && pwd)/sanitizer
if ls "$sanitizer_dir"/*.summary >/dev/null 2>&1; then
  {
    echo "# compute-sanitizer over every registered variant and probe (ctest -L sanitizer)"
    # MEMHIER_SANITIZER_COMMIT: the commit the summaries were made at, when an earlier run made
    # them; else the commit the binary was built from, as the report names it (the checkout's
    # HEAD need not be: a copied tree can carry an older .git).
    echo "# commit ${MEMHIER_SANITIZER_COMMIT:-$info_commit}, card: $state"
    echo "# tool     target     result   time   summary"
    for tool in memcheck racecheck synccheck initcheck; do
      cat "$sanitizer_dir/$tool"-*.summary 2>/dev/null || true
    done
  } >"$work/sanitizer.txt"
else
  echo "note: no sanitizer summaries in $sanitizer_dir (run 'ctest -L sanitizer' first)"
fi

# Files no record writes stay with the card's folder (and are named below).
record_files='results.json.gz|results.json|report.md|index.html|NOTES.md|sanitizer.txt'
if [ -d "$dest" ]; then
  for f in $(ls -A "$dest" | grep -vxE "$record_files" || true); do cp -a "$dest/$f" "$work/"; done
fi
# The swap: the old record moves aside, the complete new one in, the old one goes.
chmod 755 "$work"
if [ -d "$dest" ]; then
  old=$(mktemp -d "$dest.old.XXXXXX") && rmdir "$old"
  mv "$dest" "$old"
  mv "$work" "$dest"
  rm -rf "$old"
else
  mv "$work" "$dest"
fi
trap - EXIT

fixture="$root/tests/fixtures/$card-profile-counters.json"
if [ -n "$card" ] && [ -f "$fixture" ]; then
  if python3 "$root/scripts/counters-fixture.py" "$dest/results.json.gz" >"$fixture.tmp"; then
    mv "$fixture.tmp" "$fixture" && echo "refreshed $fixture (review its diff: the CPU tests check it)"
  else
    rm -f "$fixture.tmp"; echo "kept $fixture: this record has no counters to refresh it"
  fi
fi
# The report as a reader meets it: checked in headless Chromium, its screenshots refreshed.
if python3 "$root/scripts/report-browser-check.py" --memhier "$bin" --record "$dest/results.json.gz" \
  --screenshots "$root/docs"; then
  echo "refreshed docs/report-summary.png and docs/report-ladder.png (review them)"
else
  echo "note: the report's browser check failed or could not run (see above); screenshots not refreshed"
fi
extra=$(ls -A "$dest" | grep -vxE "$record_files" || true)
[ -z "$extra" ] || echo "note: $dest also holds files no record writes: $extra"
echo "recorded in $dest"
