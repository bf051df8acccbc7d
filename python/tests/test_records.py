"""claims() and the record APIs on a machine with or without a GPU: the CLI's records, made
in this process."""

import subprocess

import pytest

import memhier


def _without_when(record):
    """A record less what differs between two runs of the same thing: date and command."""
    meta = dict(record["meta"])
    del meta["date_utc"], meta["command"]
    return {**record, "meta": meta}


def test_claims_match_cli(cli):
    claims = memhier.claims()
    assert claims == cli("claims")["claims"]
    assert len({c["id"] for c in claims}) == len(claims) > 10
    one = claims[0]["id"]
    assert memhier.claims([one]) == [claims[0]]
    with pytest.raises(ValueError, match="no claim"):
        memhier.claims(["no-such-claim"])


def test_report_without_gpu_is_the_cli_record(cli):
    r = memhier.report(no_gpu=True)
    assert r["schema"] == "memhier.report"
    ids = [s["id"] for s in r["sections"]]
    assert "no-gpu" in ids and len(ids) >= 5
    assert r["meta"]["command"] == "memhier.report(no_gpu=True)"
    assert _without_when(r) == _without_when(cli("report", "--no-gpu", "--out", ""))


def test_report_writes_its_files(tmp_path):
    r = memhier.report(out=str(tmp_path / "r"), no_gpu=True)
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == [
        "index.html", "report.md", "results.json"]
    assert r["sections"][0]["id"] == "summary"


def test_records_do_not_run_the_command(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the package ran a child process")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    assert memhier.report(no_gpu=True)["schema"] == "memhier.report"
    with pytest.raises(ValueError):
        memhier.bench("no-such-family")


def test_no_device_error_is_the_package_s():
    assert issubclass(memhier.NoDeviceError, RuntimeError)
    assert memhier.NoDeviceError.__module__ == "memhier"
    assert memhier.records.NoDeviceError is memhier.NoDeviceError


@pytest.mark.skipif(memhier.device_count() > 0, reason="a GPU is present")
def test_measurements_without_gpu_raise_no_device(cli_fails):
    rc, sentence = cli_fails("probe", "--quick")
    assert rc == 3
    with pytest.raises(memhier.NoDeviceError, match="GPU") as e:
        memhier.probe(quick=True)
    assert str(e.value) == sentence
    with pytest.raises(memhier.NoDeviceError, match="GPU") as e:
        memhier.bench("softmax", quick=True)
    assert str(e.value) == cli_fails("bench", "softmax", "--quick")[1]
    # Without a GPU the report says so and goes on, as the command does.
    assert "no-gpu" in [s["id"] for s in memhier.report(no_profile=True)["sections"]]


def test_bad_names_are_value_errors_before_any_gpu(cli_fails):
    cases = [(lambda: memhier.probe(only=["no-such-probe"]), ["probe", "--only", "no-such-probe"]),
             (lambda: memhier.bench("no-such-family"), ["bench", "no-such-family"]),
             (lambda: memhier.bench("softmax", variants=["no-such-variant"]),
              ["bench", "softmax", "--variant", "no-such-variant"]),
             (lambda: memhier.bench("softmax", sizes=["0x7"]), ["bench", "softmax", "--size", "0x7"]),
             (lambda: memhier.bench("all", variants=["best"]), ["bench", "all", "--variant", "best"]),
             (lambda: memhier.bench("softmax", sweep=True), ["bench", "softmax", "--sweep"]),
             (lambda: memhier.tune("softmax", ["8x65536"]), ["tune", "softmax", "--shapes", "8x65536"]),
             (lambda: memhier.tune("gemm_bf16", ["4096x0x4096"]),
              ["tune", "gemm_bf16", "--shapes", "4096x0x4096"])]
    for call, args in cases:
        rc, sentence = cli_fails(*args)
        assert rc == 2, args
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value) == sentence
    with pytest.raises(ValueError, match="unknown family 'fft'; known: .*softmax"):
        memhier.bench("fft")


@pytest.mark.skipif(memhier.device_count() == 0, reason="no GPU")
def test_bench_and_probe_records_on_a_gpu(cli):
    r = memhier.bench("softmax", variants=["best"], sizes=["1024x4096"], quick=True)
    assert r["schema"] == "memhier.report"
    assert r["meta"]["command"] == ("memhier.bench(family='softmax', variants=['best'], "
                                    "sizes=['1024x4096'], quick=True)")
    section = next(s for s in r["sections"] if s["id"] == "bench-softmax")
    rows = section["tables"][0]["rows"]
    assert any("best" in str(row.values()) for row in rows)
    # The command's record of the same run: the same sections, tables, columns and rows.
    c = cli("bench", "softmax", "--variant", "best", "--size", "1024x4096", "--quick")
    shape = [(s["id"], [(t["id"], t["columns"], len(t["rows"])) for t in s.get("tables", [])])
             for s in r["sections"]]
    assert shape == [(s["id"], [(t["id"], t["columns"], len(t["rows"]))
                                for t in s.get("tables", [])]) for s in c["sections"]]
    p = memhier.probe(only=["latency"], quick=True)
    assert any(t["id"] == "latency-tiers" for s in p["sections"] for t in s.get("tables", []))
    assert p["sm_clock_mhz"] > 0 and p["quick"] is True


@pytest.mark.skipif(memhier.device_count() == 0, reason="no GPU")
def test_tune_fills_the_cache_and_then_costs_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMHIER_CACHE_DIR", str(tmp_path))
    first = memhier.tune("gemm_bf16", ["1024x1024x1024"], retune=True)
    assert [r["shape"] for r in first] == ["1024x1024x1024"]
    assert first[0]["source"] == "tuned now" and first[0]["config"] and first[0]["timed"] >= 1
    # The launches' GPU time is part of the decision's wall time.
    assert 0 < first[0]["gpu_ms"] <= first[0]["tuning_ms"]
    again = memhier.tune("gemm_bf16", "1024x1024x1024")
    assert again[0]["source"] == "cache" and again[0]["config"] == first[0]["config"]
    assert again[0]["tuning_ms"] == 0 and again[0]["gpu_ms"] == 0


def test_explain_bad_input_and_no_ncu(monkeypatch):
    """explain's options are checked before anything runs; without ncu it raises
    NoDeviceError with the CLI's sentence, on any machine."""
    with pytest.raises(ValueError, match="name the program"):
        memhier.explain([])
    with pytest.raises(ValueError, match="regular expression"):
        memhier.explain(["/bin/true"], kernel="(")
    monkeypatch.setenv("MEMHIER_NCU", "/nonexistent/ncu")
    with pytest.raises(memhier.NoDeviceError, match="Nsight Compute"):
        memhier.explain(["/bin/true"])
