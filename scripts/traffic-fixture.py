#!/usr/bin/env python3
"""Collects the simulated-against-measured traffic tables (profile-*-traffic) of
`memhier profile --json` outputs: prints a summary on stderr (items within every bar, per
figure, and the misses) and the fixture on stdout that tests/cpu/test_stream.cpp holds the
memory-system model to (each item's ncu figures and whether the model was within its bars).

What is judged (the issue's bars, as src/bench/traffic.cpp applies them): DRAM bytes as the
item's total, read + written, within 5 % (read and written are recorded apart, not judged),
and the L1 and L2 hit rates within 5 points of ncu's. The predicted L2 hit rate compared is
(model hits + floor hits) / (model lookups + floor lookups): the model's lookups count a
far-homed sector twice, at the near partition and at its home over the fabric, as ncu does,
and the floor is the empty marker kernel's lts__t_sectors_lookup_hit / _miss measured in the
same profile run (every launch carries it). Each item records that floor ("floor": L2 lookup
hits, L2 lookups, DRAM read, DRAM written bytes of the marker) and its count of kernels, so
the CPU tests recompute the comparison.

An item profiled in several inputs (repeated runs: ncu's L2 hit rate of one small kernel can
move by 15 points between runs of one binary on the H200) records the median of each ncu
figure and floor figure, and was within when most of its runs were.

Usage: scripts/traffic-fixture.py [--merge OLD_FIXTURE] PROFILE_JSON... > tests/fixtures/h100-sxm-traffic.json
  --merge: keep OLD_FIXTURE's items that the inputs do not profile again (the summary counts
  the inputs' items only).
"""
import json
import statistics
import sys

FIELDS = ["dram_read_bytes", "dram_write_bytes", "l1_hit_rate", "l2_hit_rate"]
JUDGED = ["dram_bytes", "l1_hit_rate", "l2_hit_rate"]
FLOOR = ["floor_l2_hits", "floor_l2_lookups", "floor_dram_read_bytes", "floor_dram_write_bytes"]


def rows(paths):
    """Yields (meta, row) for every row of every traffic table in the given documents."""
    for path in paths:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError):  # a profile that failed leaves no JSON
            print(f"traffic-fixture: skipped {path} (no JSON document)", file=sys.stderr)
            continue
        for section in doc["sections"]:
            for table in section["tables"]:
                if table["id"].startswith("profile-") and table["id"].endswith("-traffic"):
                    for row in table["rows"]:
                        yield doc["meta"], row


def median(values):
    """The median of the figures that are numbers; None when none is."""
    numbers = [v for v in values if isinstance(v, (int, float))]
    return statistics.median(numbers) if numbers else None


def runs_of(rows_in):
    """Groups the rows by item, in the order each item first appears."""
    groups = {}
    for meta, row in rows_in:
        groups.setdefault((row["target"], row["item"], row["shape"]), []).append((meta, row))
    return groups.values()


def main():
    """Prints the fixture and the summary of the documents named on the command line."""
    args = sys.argv[1:]
    old = []
    if args[:1] == ["--merge"] and len(args) >= 2:
        with open(args[1]) as f:
            old = json.load(f)["items"]
        args = args[2:]
    if not args:
        sys.exit("usage: scripts/traffic-fixture.py [--merge OLD_FIXTURE] PROFILE_JSON...")
    items, meta = [], None
    per_field = {f: 0 for f in JUDGED}
    for runs in runs_of(rows(args)):
        meta, row = runs[-1]
        verdicts = [r["verdict"] for _, r in runs]
        within = 2 * sum(v == "within" for v in verdicts) > len(verdicts)
        item = {"target": row["target"], "item": row["item"], "shape": row["shape"],
                "within": within,
                "ncu": [median(r.get(f + "_ncu") for _, r in runs) for f in FIELDS],
                "simulated": [row.get(f + "_sim") for f in FIELDS]}
        if any(row.get(f) is not None for f in FLOOR):
            item["floor"] = [median(r.get(f) for _, r in runs) for f in FLOOR]
        if len(runs) > 1:
            item["repeats"] = len(runs)
        if row.get("kernels", 1) != 1:
            item["kernels"] = row["kernels"]
        items.append(item)
        for f in JUDGED:
            if 2 * sum(f not in v for v in verdicts) > len(verdicts):
                per_field[f] += 1
    if not items:
        sys.exit("traffic-fixture: no simulated-against-measured table in the inputs")
    ok = sum(i["within"] for i in items)
    print(f"{ok} of {len(items)} items within every bar ({100.0 * ok / len(items):.0f}%; the bar "
          "is 90%; DRAM judged as read + written; L2 predicted with the marker's floor); "
          "per figure: " + ", ".join(f"{f} {n}" for f, n in per_field.items()),
          file=sys.stderr)
    for i in items:
        if not i["within"]:
            print(f"  miss: {i['target']} {i['item']} {i['shape']}: simulated {i['simulated']} "
                  f"ncu {i['ncu']}", file=sys.stderr)
    fresh = {(i["target"], i["item"], i["shape"]) for i in items}
    items = [i for i in old if (i["target"], i["item"], i["shape"]) not in fresh] + items
    head = {"made_by": "scripts/traffic-fixture.py",
            "record": {k: meta.get(k) for k in ("device", "driver", "toolkit", "git_commit",
                                                "date_utc")},
            "fields": FIELDS}
    print(json.dumps(head, indent=1)[:-2] + ',\n "items": [')
    print(",\n".join("  " + json.dumps(i) for i in items))
    print(" ]\n}")


if __name__ == "__main__":
    main()
