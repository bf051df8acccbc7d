#!/usr/bin/env bash
# Checks that a report's index.html renders in headless Chromium and keeps screenshots:
# the first screen (the header and the summary: hierarchy, ladders, claims tally) and,
# when a section id is given, that section on its own page.
# Usage: scripts/screenshot-report.sh REPORT_DIR OUT_PREFIX [section-id]
#   writes OUT_PREFIX-summary.png (and OUT_PREFIX-<section-id>.png)
set -euo pipefail
usage="usage: scripts/screenshot-report.sh REPORT_DIR OUT_PREFIX [section-id]"
dir=${1:?$usage}
prefix=${2:?$usage}
section=${3:-}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$browser" ] || { echo "screenshot-report: no Chromium found (apt-get install chromium)." >&2; exit 3; }
html=$(realpath "$dir/index.html")
shot() { "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size="$1" \
  --screenshot="$2" "file://$3" >/dev/null 2>&1; }
# 1100 px wide: the page's own column (1040 px) with its margins, nothing empty beside it.
shot 1100,1250 "$prefix-summary.png" "$html"
written="$prefix-summary.png"
if [ -n "$section" ]; then
  # One section on its own page: the report's own <head> (styles) and that <section>.
  tmp=$(mktemp --suffix=.html)
  python3 - "$html" "$section" "$tmp" <<'PY'
import sys
page, sid, out = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
at = page.find(f'id="{sid}"')
if at < 0:
    sys.exit(f"screenshot-report: no section '{sid}' in the report.")
start, end = page.rfind("<section", 0, at), page.find("</section>", at) + len("</section>")
body = page.find("<body")
open(out, "w").write(page[:page.find(">", body) + 1] + page[start:end] + "</body></html>")
PY
  shot 1400,2000 "$prefix-$section.png" "$tmp"
  rm -f "$tmp"
  written="$written and $prefix-$section.png"
fi
echo "wrote $written"
