#!/usr/bin/env bash
# Regenerates docs/claims.md from the claims catalogue (memhier claims --markdown).
# A CPU test and a CLI test fail while the file differs, so run this after editing
# src/claims/catalogue.cpp and commit the result.
# Usage: scripts/gen-claims.sh [path/to/memhier]   (default: build/$PRESET/src/memhier)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$root/build/${PRESET:-release}/src/memhier}"
if [[ ! -x "$bin" ]]; then
  echo "gen-claims: no memhier at $bin; build it first (make build) or pass its path." >&2
  exit 2
fi
"$bin" claims --markdown >"$root/docs/claims.md.tmp"
mv "$root/docs/claims.md.tmp" "$root/docs/claims.md"
echo "wrote docs/claims.md ($(grep -c '^| `' "$root/docs/claims.md") claims)"
