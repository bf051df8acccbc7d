#!/usr/bin/env python3
"""Renders memhier's HTML report of a recorded run in headless Chromium and checks it as a
reader meets it at 1440x900: no script error, no SVG text wider than its SVG, no table
column beyond the visible width without a scroll hint, both summary charts within the first
900 px. Prints the page height in screens. Python's standard library only.

  report-browser-check.py --memhier build/release/memhier \
      --record docs/results/h200/results.json.gz [--max-screens 25] [--screenshots docs]

Exit 0 when every check passes, 1 when one fails, 2 on bad use (no memhier; no Chromium with
MEMHIER_REQUIRE_BROWSER=1), 77 without Chromium otherwise (CTest's skip).
"""
import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

WIDTH, HEIGHT = 1440, 900

# Runs first in <head>: every script error and unhandled rejection is kept for the checker.
CATCH = """<script>
window.__memhierErrors = [];
window.addEventListener('error', function (e) { window.__memhierErrors.push(String(e.message)); });
window.addEventListener('unhandledrejection', function (e) {
  window.__memhierErrors.push('unhandled rejection: ' + String(e.reason)); });
</script>"""

# Runs last: measures the page as loaded (folded), opens every disclosure, then measures what
# a reader can scroll to, and writes its findings into the DOM for --dump-dom.
CHECK = """<script>
(function () {
  var out = {errors: window.__memhierErrors, problems: []};
  var doc = document.documentElement;
  out.height = doc.scrollHeight;
  out.tables = document.querySelectorAll('table').length;
  out.folded = document.querySelectorAll('details.table').length;
  var figs = document.querySelectorAll('section.summary figure.chart');
  out.summary_charts = figs.length;
  for (var i = 0; i < Math.min(figs.length, 2); ++i) {
    var r = figs[i].getBoundingClientRect();
    if (r.top < 0 || r.bottom > %(height)d)
      out.problems.push('summary chart ' + (i + 1) + ' spans ' + Math.round(r.top) + '-' +
                        Math.round(r.bottom) + ' px, not within the first %(height)d');
  }
  if (figs.length < 2) out.problems.push('the summary has ' + figs.length + ' charts, not 2');
  document.querySelectorAll('details').forEach(function (d) { d.open = true; });
  setTimeout(function () {
    if (doc.scrollWidth > window.innerWidth + 1)
      out.problems.push('the page scrolls sideways: ' + doc.scrollWidth + ' px wide');
    document.querySelectorAll('svg').forEach(function (svg) {
      var box = svg.getBoundingClientRect();
      if (box.width === 0) return;
      svg.querySelectorAll('text').forEach(function (t) {
        var r = t.getBoundingClientRect();
        if (r.width === 0) return;
        if (r.left < box.left - 1 || r.right > box.right + 1)
          out.problems.push('text "' + t.textContent.slice(0, 60) + '" (' + Math.round(r.width) +
                            ' px) runs outside its SVG (' + Math.round(box.width) + ' px)' +
                            (svg.id ? '' : ' in ' + (svg.closest('[id]') || {}).id));
      });
    });
    document.querySelectorAll('.table-wrap').forEach(function (w) {
      var box = w.getBoundingClientRect();
      var block = w.closest('.block');
      var hint = block && block.querySelector('.scroll-hint');
      var hinted = hint && getComputedStyle(hint).display !== 'none' && hint.offsetHeight > 0;
      var hidden = [];
      w.querySelectorAll('thead th').forEach(function (th) {
        if (th.getBoundingClientRect().left >= box.right - 1) hidden.push(th.textContent);
      });
      if (hidden.length && !hinted)
        out.problems.push('table ' + (block ? block.id : '?') + ': columns ' +
                          hidden.join(', ') + ' start beyond its visible width, with no hint');
    });
    var pre = document.createElement('pre');
    pre.id = 'memhier-check';
    pre.textContent = JSON.stringify(out);
    document.body.appendChild(pre);
  }, 100);
})();
</script>"""


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def browser(exe, args):
    """Headless Chromium with a throw-away profile; returns stdout."""
    with tempfile.TemporaryDirectory() as profile:
        cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--no-first-run", "--user-data-dir=" + profile,
               "--window-size=%d,%d" % (WIDTH, HEIGHT)] + args
        run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             timeout=180)
        if run.returncode != 0:
            raise RuntimeError("chromium exited %d: %s" % (run.returncode, run.stderr[-400:]))
        return run.stdout


def render(memhier, record, out, full):
    cmd = [memhier, "report", "--from", record, "--out", out, "--quiet"]
    if full:
        cmd.append("--full")
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if run.returncode != 0:
        raise RuntimeError("%s exited %d: %s" % (" ".join(cmd), run.returncode, run.stderr))
    return os.path.join(out, "index.html")


def check(exe, html):
    """The checker's findings for one HTML file."""
    with open(html, encoding="utf-8") as f:
        text = f.read()
    text = text.replace("<head>", "<head>\n" + CATCH, 1)
    text = text.replace("</body>", CHECK % {"height": HEIGHT} + "\n</body>", 1)
    with tempfile.TemporaryDirectory() as tmp:  # the page with the checker, beside nothing
        probe = os.path.join(tmp, "check.html")
        with open(probe, "w", encoding="utf-8") as f:
            f.write(text)
        dom = browser(exe, ["--virtual-time-budget=10000", "--dump-dom", "file://" + probe])
    start = dom.find('<pre id="memhier-check">')
    if start < 0:
        raise RuntimeError("the checker left no findings: the page did not run it")
    start = dom.index(">", start) + 1
    found = dom[start:dom.index("</pre>", start)]
    for entity, ch in (("&quot;", '"'), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&")):
        found = found.replace(entity, ch)
    return json.loads(found)


def shown(html, section):
    """The page, or a copy of it showing one section alone at the top (a headless
    screenshot does not scroll to an anchor)."""
    if section is None:
        return os.path.abspath(html)
    with open(html, encoding="utf-8") as f:
        text = f.read()
    hide = ("<style>header, nav.toc, p.edition, main > section:not(#%s) { display: none; }"
            "</style>" % section)
    copy = os.path.abspath(html) + "." + section + ".html"
    with open(copy, "w", encoding="utf-8") as f:
        f.write(text.replace("</head>", hide + "</head>", 1))
    return copy


def recorded_tables(record):
    with (gzip.open if record.endswith(".gz") else open)(record, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    return sum(len(s.get("tables", [])) for s in doc["sections"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--memhier", help="the memhier executable")
    ap.add_argument("--record", help="a results.json or results.json.gz")
    ap.add_argument("--html", help="check this HTML file only (no rendering, no --full check)")
    ap.add_argument("--max-screens", type=float, default=0,
                    help="fail when the default page is taller than this many 900 px screens")
    ap.add_argument("--screenshots", help="folder for report-summary.png (the first screen) "
                    "and report-ladder.png (the first ladder section)")
    a = ap.parse_args()
    exe = os.environ.get("MEMHIER_CHROMIUM") or chromium()
    if not exe:
        print("report-browser-check: no Chromium found (Debian's package 'chromium'; "
              "scripts/bootstrap.sh --browser installs it, or set MEMHIER_CHROMIUM).",
              file=sys.stderr)
        # A machine without a package mirror skips (77, CTest's skip); CI requires the browser.
        return 2 if os.environ.get("MEMHIER_REQUIRE_BROWSER") == "1" else 77
    if a.html:
        r = check(exe, a.html)
        print("%s: %.1f screens at %dx%d (%d px), %d tables, %d folded"
              % (a.html, r["height"] / HEIGHT, WIDTH, HEIGHT, r["height"], r["tables"], r["folded"]))
        found = ["script error: %s" % e for e in r["errors"]] + r["problems"]
        for p in found:
            print("FAIL " + p)
        return 1 if found else 0
    if not a.memhier or not a.record:
        ap.error("--memhier and --record are needed (or --html)")
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            default = render(a.memhier, a.record, os.path.join(tmp, "default"), False)
            full = render(a.memhier, a.record, os.path.join(tmp, "full"), True)
            d = check(exe, default)
            f = check(exe, full)
        except (OSError, RuntimeError, subprocess.TimeoutExpired) as e:
            print("report-browser-check: %s" % e, file=sys.stderr)
            return 2
        screens = d["height"] / HEIGHT
        print("default: %.1f screens at %dx%d (%d px), %d tables, %d folded"
              % (screens, WIDTH, HEIGHT, d["height"], d["tables"], d["folded"]))
        print("full:    %.1f screens (%d px), %d tables, %d folded"
              % (f["height"] / HEIGHT, f["height"], f["tables"], f["folded"]))
        for name, r in (("default", d), ("full", f)):
            problems += ["%s: script error: %s" % (name, e) for e in r["errors"]]
            problems += ["%s: %s" % (name, p) for p in r["problems"]]
        expected = recorded_tables(a.record)
        if f["tables"] != expected or f["folded"] != 0:
            problems.append("full: %d tables (%d folded), the record has %d"
                            % (f["tables"], f["folded"], expected))
        if a.max_screens and screens > a.max_screens:
            problems.append("default: %.1f screens, more than %g" % (screens, a.max_screens))
        if a.screenshots:
            os.makedirs(a.screenshots, exist_ok=True)
            for png, section in (("report-summary.png", None),
                                 ("report-ladder.png", "bench-transpose")):
                path = os.path.abspath(os.path.join(a.screenshots, png))
                # At 0.75 scale: the 1440x900 layout in a 1080x675 image, small enough to keep.
                browser(exe, ["--force-device-scale-factor=0.75", "--screenshot=" + path,
                              "file://" + shown(default, section)])
                print("wrote %s" % path)
    for p in problems:
        print("FAIL " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
