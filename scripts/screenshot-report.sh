#!/usr/bin/env bash
# Checks that a report's index.html renders in headless Chromium and keeps two
# screenshots: the top of the page and one section (default: the GEMM ladder).
# Usage: scripts/screenshot-report.sh REPORT_DIR OUT_PREFIX [section-id]
set -euo pipefail
dir=${1:?usage: scripts/screenshot-report.sh REPORT_DIR OUT_PREFIX [section-id]}
prefix=${2:?usage: scripts/screenshot-report.sh REPORT_DIR OUT_PREFIX [section-id]}
section=${3:-bench-gemm}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$browser" ] || { echo "screenshot-report: no Chromium found." >&2; exit 3; }
html=$(realpath "$dir/index.html")
shot() { "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size="$1" \
  --screenshot="$2" "file://$3" >/dev/null 2>&1; }
shot 1400,1600 "$prefix-top.png" "$html"
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
echo "wrote $prefix-top.png and $prefix-$section.png"
