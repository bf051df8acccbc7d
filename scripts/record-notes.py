#!/usr/bin/env python3
"""Writes the NOTES.md of a card's record from the record itself: card, driver, clocks,
command and commit (from results.json.gz and the card state scripts/record-results.sh put at
the head of report.md), then what differs from the previous record: claim verdicts, the
model against Nsight Compute, the tiers, every ladder's best and the sweep of shapes.

Usage: scripts/record-notes.py RECORD_DIR [PREVIOUS_RESULTS_JSON[.gz]] > RECORD_DIR/NOTES.md
"""
import collections
import gzip
import json
import math
import os
import re
import sys

# Families a copy is no ceiling for (compute-bound): their x memcpy is not shown.
NO_COPY_CEILING = {"gemm"}
# The report's summary (memhier/report/summary.hpp, kLaunchBoundBytes): at most this many
# bytes moved, a shape is launch-bound.
LAUNCH_BOUND_BYTES = 8 * 2**20
STATE_FIELDS = ["name", "driver", "sm", "sm_max", "mem", "mem_max", "temp", "power", "ecc"]


def load(path):
    """A report's records from results.json.gz (a record) or results.json (memhier's output)."""
    with (gzip.open if path.endswith(".gz") else open)(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def tables(report):
    """Every table of the report by its id (the first, should an id repeat)."""
    out = {}
    for s in report["sections"]:
        for t in s["tables"]:
            out.setdefault(t["id"], t)
    return out


def card_state(record_dir):
    """The nvidia-smi line and the wall time that record-results.sh wrote above report.md."""
    state, wall = {}, None
    try:
        with open(os.path.join(record_dir, "report.md")) as f:
            head = f.read(2000)
    except OSError:
        return state, wall
    m = re.search(r"ECC\): `([^`]*)`", head)
    if m and m.group(1).count(",") == len(STATE_FIELDS) - 1:
        state = dict(zip(STATE_FIELDS, (v.strip() for v in m.group(1).split(","))))
    m = re.search(r"Wall time of `memhier report`: ([0-9.]+) s", head)
    if m:
        wall = m.group(1)
    return state, wall


def measured_sm_clock(report):
    """The SM clock the probes measured during the run, as the report states it."""
    for s in report["sections"]:
        for p in s.get("paragraphs", []):
            m = re.search(r"measured SM clock of (\d+) MHz", p)
            if m:
                return m.group(1)
    return None


def claim_verdicts(report):
    """(claim id, checked by) -> verdict, from the report's Claims table."""
    t = tables(report).get("claims")
    if not t:
        return {}
    return {(r["claim_id"], r.get("checked_by", "")): r["verdict"] for r in t["rows"]}


def model_agreement(report):
    """target -> (items equal, items compared) of the model against Nsight Compute."""
    out = {}
    for tid, t in tables(report).items():
        if tid.startswith("profile-") and tid.endswith("-compare"):
            # Items the model speaks for: not those it has no model of or that do not apply.
            rows = [r for r in t["rows"]
                    if not r["verdict"].startswith("no model") and "apply" not in r["verdict"]]
            if rows:
                equal = sum(r["verdict"] == "equal" for r in rows)
                out[tid[len("profile-"):-len("-compare")]] = (equal, len(rows))
    return out


def tiers(report):
    """tier -> row of the memory-spaces table."""
    t = tables(report).get("memory-spaces")
    return {r["tier"]: r for r in t["rows"]} if t else {}


def ladder_bests(report):
    """(family, shape) -> the 'best' row of every ladder's table."""
    out = {}
    for tid, t in tables(report).items():
        if tid.startswith("bench-") and any(c["key"] == "x_memcpy" for c in t["columns"]):
            for r in t["rows"]:
                if r.get("variant") == "best":
                    out[(tid[len("bench-"):], r["shape"])] = r
    return out


def sweeps(report):
    """family -> (geometric mean of best's x vendor over its verified shapes, how many, the
    lowest ratio and its shape), from the sweep's tables (sweep-<family>)."""
    out = {}
    for tid, t in tables(report).items():
        if not tid.startswith("sweep-") or not any(c["key"] == "x_vendor" for c in t["columns"]):
            continue
        rows = [r for r in t["rows"] if r.get("verified") == "yes" and (r.get("x_vendor") or 0) > 0]
        if rows:
            mean = math.exp(sum(math.log(r["x_vendor"]) for r in rows) / len(rows))
            low = min(rows, key=lambda r: r["x_vendor"])
            out[tid[len("sweep-"):]] = (mean, len(rows), low["x_vendor"], low["shape"])
    return out


def num(v, digits):
    """A figure with the given decimals, or a dash where the record has none."""
    return "–" if v is None else f"{v:.{digits}f}"


def now_before(now, before, digits):
    """'now (before)', or 'now' alone where the previous record has no such figure."""
    if before is None:
        return num(now, digits)
    return f"{num(now, digits)} ({num(before, digits)})"


def paired(row, key):
    """A paired ratio with its p10-p90 in brackets where the record has them."""
    lo, hi = row.get(key + "_p10"), row.get(key + "_p90")
    if row.get(key) is None or lo is None or hi is None:
        return num(row.get(key), 3)
    return f"{num(row.get(key), 3)} [{num(lo, 3)}–{num(hi, 3)}]"


def paired_now_before(now, before, key):
    """The paired ratio now with its spread, then the previous record's median."""
    if before.get(key) is None:
        return paired(now, key)
    return f"{paired(now, key)} ({num(before.get(key), 3)})"


def header(report, record_dir):
    """The title and the table of card, driver, clocks, command, commit and date."""
    meta = report["meta"]
    state, wall = card_state(record_dir)
    clock = measured_sm_clock(report)
    sm = f"SM {state['sm']} before the run (max {state['sm_max']})" if state else "SM not recorded"
    if clock:
        sm += f", {clock} MHz measured by the probes"
    mem = f"; memory {state['mem']} (max {state['mem_max']})" if state else ""
    lines = [
        f"# {meta.get('device', 'unknown card')}: the current record",
        "",
        "<!-- generated by scripts/record-notes.py from this folder's records; do not edit -->",
        "",
        "| | |",
        "| --- | --- |",
        f"| card | {meta.get('device')}"
        + (f", ECC {state['ecc']}, {state['temp']} °C, {state['power']}" if state else "") + " |",
        f"| driver | {state.get('driver', meta.get('driver_release') or 'not recorded')} "
        f"(CUDA {meta.get('driver')}), "
        f"toolkit {meta.get('toolkit')} |",
        f"| clocks | {sm}{mem} |",
        f"| command | `scripts/record-results.sh` → `{meta.get('command')}`"
        + (f" ({wall} s)" if wall else "") + " |",
        f"| commit | `{(meta.get('git_commit') or 'unknown')[:12]}` |",
        f"| date (UTC) | {meta.get('date_utc')} |",
        "",
        "`report.md` is the report with the card's state at its head, `results.json.gz` its "
        "records, compact and gzip'd (the one-page HTML is not kept: `memhier report` writes it "
        "from the same records).",
    ]
    return lines


def tally(verdicts):
    """'71 reproduced, 35 refuted, ...': how many rows have each verdict."""
    counts = collections.Counter(verdicts.values()).most_common()
    return ", ".join(f"{n} {verdict}" for verdict, n in counts)


def claims_diff(now, before):
    """The verdict tally now and before, and every claim whose verdict changed."""
    vn, vb = claim_verdicts(now), claim_verdicts(before)
    lines = ["### Claims", "", f"Now: {tally(vn)}." + (f" Before: {tally(vb)}." if vb else "")]
    changed = [(k, vb[k], vn[k]) for k in sorted(vn) if k in vb and vb[k] != vn[k]]
    added = sorted(k for k in vn if k not in vb)
    if vb and changed:
        lines += ["", "| claim | checked by | before | now |", "| --- | --- | --- | --- |"]
        lines += [f"| {c} | {by} | {b} | {n} |" for (c, by), b, n in changed]
    elif vb:
        lines += ["", "No verdict changed."]
    if vb and added:
        lines += ["", "New rows: " + ", ".join(f"{c} ({vn[(c, by)]})" for c, by in added) + "."]
    return lines


def model_diff(now, before):
    """Items equal to the model per profiled target, now and before."""
    mn, mb = model_agreement(now), model_agreement(before)
    if not mn:
        return ["### The model against Nsight Compute", "", "Not in this record (no ncu)."]
    lines = ["### The model against Nsight Compute (items equal / compared)", "",
             "| target | now | before |", "| --- | ---: | ---: |"]
    for target, (e, n) in mn.items():
        b = f"{mb[target][0]}/{mb[target][1]}" if target in mb else "–"
        lines.append(f"| {target} | {e}/{n} | {b} |")
    return lines


def tiers_diff(now, before):
    """Each tier's latency and bandwidth, now (before)."""
    tn, tb = tiers(now), tiers(before)
    if not tn:
        return []
    lines = ["### Tiers: now (before)", "",
             "| tier | latency (cycles) | latency (ns) | bandwidth (GB/s) |",
             "| --- | ---: | ---: | ---: |"]
    for tier, r in tn.items():
        b = tb.get(tier, {})
        lines.append(f"| {tier} | {now_before(r['latency_cycles'], b.get('latency_cycles'), 0)} | "
                     f"{now_before(r['latency_ns'], b.get('latency_ns'), 1)} | "
                     f"{now_before(r['bandwidth_gbps'], b.get('bandwidth_gbps'), 0)} |")
    return lines


def ladders_diff(now, before):
    """Every ladder's best per shape against memcpy and the vendor, now (before)."""
    bn, bb = ladder_bests(now), ladder_bests(before)
    if not bn:
        return []
    lines = ["### Every ladder's best: now [p10–p90 of the paired ratios] (before)", "",
             "| family | shape | × memcpy | × read-only | × vendor |",
             "| --- | --- | ---: | ---: | ---: |"]
    for (family, shape), r in bn.items():
        b = bb.get((family, shape), {})
        copy = paired_now_before(r, b, "x_memcpy")
        if family in NO_COPY_CEILING:
            copy = "–"
        elif r.get("gbps") and r.get("ms") and r["gbps"] * r["ms"] * 1e6 <= LAUNCH_BOUND_BYTES:
            # As the report's summary says: fixed costs, not bytes, set this shape's times.
            copy += f" launch-bound ({r['gbps'] * r['ms'] * 1e6 / 2**20:.0f} MiB)"
        lines.append(f"| {family} | {shape} | {copy} | {paired_now_before(r, b, 'x_read_only')} | "
                     f"{paired_now_before(r, b, 'x_vendor')} |")
    return lines


def sweeps_diff(now, before):
    """Each swept family's geometric mean and lowest shape against the vendor, now (before)."""
    sn, sb = sweeps(now), sweeps(before)
    if not sn:
        return []
    lines = ["### The sweep of shapes: best against the vendor, now (before)", "",
             "| family | shapes | geometric mean | lowest | at |", "| --- | ---: | ---: | ---: | --- |"]
    for family, (mean, n, low, shape) in sn.items():
        b = sb.get(family)
        lines.append(f"| {family} | {n} | {now_before(mean, b[0] if b else None, 3)} | "
                     f"{now_before(low, b[2] if b else None, 3)} | {shape} |")
    return lines


def main():
    """Reads the record (and the previous one) and prints NOTES.md."""
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.strip().splitlines()[-1])
    record_dir = sys.argv[1]
    record = os.path.join(record_dir, "results.json.gz")
    now = load(record if os.path.exists(record) else os.path.join(record_dir, "results.json"))
    before = {"meta": {}, "sections": []}
    if len(sys.argv) == 3:
        before = load(sys.argv[2])
    lines = header(now, record_dir) + [""]
    bm = before["meta"]
    if bm:
        commit = (bm.get("git_commit") or "?")[:12]
        lines.append(f"## Against the previous record (commit `{commit}`, {bm.get('date_utc')})")
        for key in ("device", "driver", "toolkit"):
            if bm.get(key) != now["meta"].get(key):
                lines.append(f"\n{key}: {bm.get(key)} before, {now['meta'].get(key)} now.")
    else:
        lines.append("## No previous record: the figures as recorded")
    for part in (claims_diff, model_diff, tiers_diff, ladders_diff, sweeps_diff):
        body = part(now, before)
        if body:
            lines += [""] + body
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
