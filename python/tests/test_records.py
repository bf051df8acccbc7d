"""claims() and the record APIs on a machine with or without a GPU."""

import pytest

import memhier


def test_claims_match_cli(cli):
    claims = memhier.claims()
    assert claims == cli("claims")["claims"]
    assert len({c["id"] for c in claims}) == len(claims) > 10
    one = claims[0]["id"]
    assert memhier.claims([one]) == [claims[0]]
    with pytest.raises(ValueError, match="no claim"):
        memhier.claims(["no-such-claim"])


def test_report_without_gpu_gives_predictions_and_claims():
    r = memhier.report(no_gpu=True)
    assert r["schema"] == "memhier.report"
    ids = [s["id"] for s in r["sections"]]
    assert "no-gpu" in ids and len(ids) >= 5


@pytest.mark.skipif(memhier.device_count() > 0, reason="a GPU is present")
def test_measurements_without_gpu_raise_no_device():
    with pytest.raises(memhier.NoDeviceError, match="GPU"):
        memhier.probe(quick=True)
    with pytest.raises(memhier.NoDeviceError, match="GPU"):
        memhier.bench("softmax", quick=True)


def test_bad_names_are_value_errors_before_any_gpu():
    with pytest.raises(ValueError, match="no-such"):
        memhier.probe(only=["no-such-probe"])
    with pytest.raises(ValueError, match="unknown family"):
        memhier.bench("no-such-family")


@pytest.mark.skipif(memhier.device_count() == 0, reason="no GPU")
def test_bench_and_probe_records_on_a_gpu():
    r = memhier.bench("softmax", variants=["best"], sizes=["1024x4096"], quick=True)
    assert r["schema"] == "memhier.report"
    section = next(s for s in r["sections"] if s["id"] == "bench-softmax")
    rows = section["tables"][0]["rows"]
    assert any("best" in str(row.values()) for row in rows)
    p = memhier.probe(only=["latency"], quick=True)
    assert any(t["id"] == "latency-tiers" for s in p["sections"] for t in s.get("tables", []))
    assert p["sm_clock_mhz"] > 0
