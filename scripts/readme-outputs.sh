#!/usr/bin/env bash
# Prints the README's CPU-only examples as the built binary answers them today, each
# block headed by its command line as the README shows it, so the pasted outputs can be
# checked and refreshed from real runs. Run it on a machine without a GPU (the probe and
# info examples show that case). --check prints nothing but the examples README.md no
# longer shows verbatim, and exits 1 if there are any.
# Usage: scripts/readme-outputs.sh [--check] [memhier binary]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --check ]; then
  shift
  "$0" "$@" | python3 -c 'import sys
readme = open(sys.argv[1]).read()
blocks = sys.stdin.read().split("\n---- ")[1:]
stale = [b for b in blocks if b.split("\n", 1)[1].strip("\n") not in readme]
for b in stale:
    print("stale in README.md: ---- " + b.rstrip("\n") + "\n")
sys.exit(1 if stale else 0)' "$root/README.md"
  exit
fi
bin=${1:-$root/build/release/src/memhier}
[ -x "$bin" ] || { echo "readme-outputs.sh: no memhier binary at $bin (build it first)" >&2; exit 2; }

# One example: its command line as shown (starting with "memhier"), then what it prints,
# stderr included, in the order a terminal shows it.
show() {
  echo "\$ $1"
  eval "\"\$bin\" ${1#memhier }" 2>&1
}

block() { echo; echo "---- $1"; }

block "help"
show 'memhier --help'
block "analyze shared"
show 'memhier analyze shared "float tile[32][32]" "tile[tx][ty]" --block 32x32 --warp 3'
block "analyze shared --sweep"
show 'memhier analyze shared "double d[]" "d[lane * s]" --sweep s=1..8'
block "analyze shared, a malformed expression"
show 'memhier analyze shared "float tile[32][32]" "tile[lane+][0]"'
echo "exit $?"
block "analyze global"
show 'memhier analyze global "float a[]" "a[lane]" --offset-bytes 4'
echo
show 'memhier analyze global "struct {float x, y, z;} p[]" "p[lane].y"'
block "occupancy"
show 'memhier occupancy --cc 9.0 --block 256 --regs 64 --smem 48K'
block "occupancy --json, without its meta (command, date, host, commit)"
show 'memhier occupancy --cc 8.6 --block 256 --regs 64 --smem 48K --json' |
  python3 -c 'import json, sys
print(sys.stdin.readline(), end="")
d = json.load(sys.stdin)
d.pop("meta", None)
print(json.dumps(d, indent=2))'
block "probe without a GPU"
show 'memhier probe'
echo "(exit status $?)"
block "list, abridged: the first probes, the reduction ladder, the count"
echo "\$ memhier list"
listing=$("$bin" list)
echo "$listing" | head -n 4
echo "..."
echo "$listing" | grep '^kernel reduction'
echo "... ($(echo "$listing" | grep -c '^probe') probes and $(echo "$listing" | grep -c '^kernel') kernel variants in all)"
block "info without a GPU"
echo "\$ memhier info          # on a machine without a GPU"
"$bin" info 2>&1
block "claims"
show 'memhier claims padding-3x-matmul gemm-cp-async-1-15x padding-stalls-67pct'
