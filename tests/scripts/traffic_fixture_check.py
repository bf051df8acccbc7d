#!/usr/bin/env python3
"""scripts/traffic-fixture.py on made-up profile documents: an item profiled three times
records the median of each ncu and floor figure and was within when most runs were; an item
profiled once records its run as it is."""
import json
import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts",
                      "traffic-fixture.py")


def document(rows):
    """A `memhier profile --json` document holding one traffic table of these rows."""
    return {"meta": {"device": "a card", "git_commit": "abc1234"},
            "sections": [{"tables": [{"id": "profile-gemm-traffic", "rows": rows}]}]}


def row(item, l2_ncu, verdict, floor_hits):
    return {"target": "gemm", "item": item, "shape": "257x255x129", "verdict": verdict,
            "dram_read_bytes_ncu": 300000, "dram_read_bytes_sim": 300100,
            "dram_write_bytes_ncu": 0, "dram_write_bytes_sim": 0,
            "l1_hit_rate_ncu": 75.0, "l1_hit_rate_sim": 74.0,
            "l2_hit_rate_ncu": l2_ncu, "l2_hit_rate_sim": 85.5,
            "floor_l2_hits": floor_hits, "floor_l2_lookups": floor_hits + 176,
            "floor_dram_read_bytes": 2560, "floor_dram_write_bytes": 0}


def main():
    runs = [[row("cp_async_4stage", 91.6, "outside: l2_hit_rate", 3700),
             row("naive", 95.0, "within", 3720)],
            [row("cp_async_4stage", 84.0, "within", 3760)],
            [row("cp_async_4stage", 86.4, "within", 3740)]]
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for i, rows in enumerate(runs):
            paths.append(os.path.join(d, f"run{i}.json"))
            with open(paths[-1], "w") as f:
                json.dump(document(rows), f)
        out = subprocess.run([sys.executable, SCRIPT] + paths, capture_output=True, text=True,
                             check=True).stdout
    items = {i["item"]: i for i in json.loads(out)["items"]}
    repeated, single = items["cp_async_4stage"], items["naive"]
    failures = []
    if repeated["ncu"][3] != 86.4 or repeated["floor"][0] != 3740 or repeated.get("repeats") != 3:
        failures.append(f"repeated item: {repeated}")
    if not repeated["within"]:
        failures.append("two of three runs within: the item was within")
    if single["ncu"][3] != 95.0 or "repeats" in single or not single["within"]:
        failures.append(f"single item: {single}")
    if list(items) != ["cp_async_4stage", "naive"]:
        failures.append(f"order of first appearance: {list(items)}")
    for f in failures:
        print("traffic_fixture_check:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
