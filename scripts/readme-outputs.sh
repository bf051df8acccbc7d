#!/usr/bin/env bash
# Prints the README's CPU-only examples as the built binary answers them today, each
# block headed by its command line as the README shows it, so the pasted outputs can be
# checked and refreshed from real runs. Run it on a machine without a GPU (the probe and
# info examples show that case). --check prints nothing but the examples README.md no
# longer shows verbatim, and exits 1 if there are any (a CTest test, label cpu, runs it).
# --update rewrites each stale example in README.md in place: the lines from its command
# line up to the closing fence or the next example's command line.
# Usage: scripts/readme-outputs.sh [--check | --update] [memhier binary] [README.md]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --check ] || [ "${1:-}" = --update ]; then
  mode=$1
  shift
  bin=${1:-$root/build/release/src/memhier}
  readme=${2:-$root/README.md}
  # The examples show a machine without a GPU: where the command sees one, they cannot
  # match (77: CTest's skip).
  if "$bin" info --json 2>/dev/null | grep -q '"device": {'; then
    echo "readme-outputs.sh: this machine has a GPU; the README's examples are of one without"
    exit 77
  fi
  "$0" "$bin" | python3 -c 'import sys
mode, path = sys.argv[1], sys.argv[2]
readme = open(path).read()
text = sys.stdin.read()
if "\n---- " not in text:
    sys.exit("readme-outputs.sh: the examples did not run: " + text.strip())
blocks = [b.split("\n", 1) for b in text.split("\n---- ")[1:]]
bodies = [body.strip("\n") for _, body in blocks]
stale = [(title, body) for (title, _), body in zip(blocks, bodies) if body not in readme]
if mode == "--check":
    for title, body in stale:
        print("stale in README.md: ---- " + title + "\n" + body + "\n")
    sys.exit(1 if stale else 0)
firsts = {body.split("\n", 1)[0] for body in bodies}
lines = readme.split("\n")
for title, body in stale:
    first = body.split("\n", 1)[0]
    if first not in lines:
        sys.exit("readme-outputs.sh: README.md has no example starting " + repr(first))
    start = lines.index(first)
    end = start + 1
    while end < len(lines) and lines[end] != "```" and lines[end] not in firsts:
        end += 1
    while end > start + 1 and lines[end - 1] == "":
        end -= 1  # the blank line before the next example stays
    lines[start:end] = body.split("\n")
    print("updated in " + path + ": " + title)
open(path, "w").write("\n".join(lines))' "$mode" "$readme"
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
