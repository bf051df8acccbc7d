#!/usr/bin/env python3
"""Extracts, from a recorded report's results.json.gz (or a results.json), the Nsight Compute counters of every
item the model matched ("equal" rows of the profile-*-compare tables): the fixture the
CPU test tests/cpu/test_predict.cpp checks every prediction against, without a GPU.

Usage: scripts/counters-fixture.py RESULTS_JSON[.gz] > tests/fixtures/h100-sxm-profile-counters.json
"""
import gzip
import json
import sys

# The counters the test compares, in the order the fixture stores them.
COUNTERS = ["shared_ld_wavefronts", "shared_st_wavefronts", "global_ld_requests",
            "global_ld_sectors", "global_st_requests", "global_st_sectors"]


def equal_items(report):
    """Yields one fixture item per row the record judged equal to the model."""
    for section in report["sections"]:
        for table in section["tables"]:
            tid = table["id"]
            if not (tid.startswith("profile-") and tid.endswith("-compare")):
                continue
            for row in table["rows"]:
                if row["verdict"] != "equal":
                    continue
                yield {"target": row["target"], "item": row["item"], "runs": row.get("runs"),
                       "shape": row["shape"], "ncu": [row[c + "_ncu"] for c in COUNTERS]}


def main():
    """Prints the fixture of the results.json (or .json.gz) named on the command line."""
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    path = sys.argv[1]
    with (gzip.open if path.endswith(".gz") else open)(path, "rt", encoding="utf-8") as f:
        report = json.load(f)
    meta = report["meta"]
    items = list(equal_items(report))
    if not items:
        sys.exit(f"{sys.argv[1]}: no profile row judged equal: nothing to record")
    head = {"made_by": "scripts/counters-fixture.py",
            "record": {k: meta.get(k) for k in ("device", "driver", "toolkit", "git_commit",
                                                 "date_utc")},
            "counters": COUNTERS}
    # One item a line, so a new recording's diff shows which items changed.
    out = json.dumps(head, indent=1)[:-2] + ',\n "items": [\n'
    out += ",\n".join("  " + json.dumps(i) for i in items) + "\n ]\n}\n"
    sys.stdout.write(out)


if __name__ == "__main__":
    main()
