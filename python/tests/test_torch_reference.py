"""memhier.torch_reference: its shape mapping and command line without torch, and (with
torch and a GPU) one small run per family."""

import importlib.util
import json
import pathlib
import subprocess
import sys

import pytest

# Loaded from its file: the mapping needs neither the compiled extension nor torch.
_PATH = pathlib.Path(__file__).resolve().parents[1] / "memhier" / "torch_reference.py"
_spec = importlib.util.spec_from_file_location("torch_reference", _PATH)
tr = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tr)


def test_each_family_maps_its_shape_grammar():
    assert tr.plan("softmax", "1024x4096") == [("torch.softmax", "softmax", {"dims": [1024, 4096]})]
    assert tr.plan("reduction", "268435456")[0][2] == {"n": 268435456}
    assert tr.plan("histogram", "i32-degenerate:7")[0][2] == {"n": 7, "dtype": "i32",
                                                               "dist": "degenerate"}
    fp32, bf16 = tr.plan("gemm", "4096x2048x1024")
    assert fp32[0] == "torch.matmul fp32" and fp32[2]["dtype"] == "float32"
    assert bf16[2] == {"m": 4096, "n": 2048, "k": 1024, "dtype": "bfloat16"}
    assert tr.plan("elementwise", "axpy:1025")[0][1] == "axpy"
    assert tr.plan("stencil", "8192x8192:5")[0][2] == {"dims": [8192, 8192], "k": 5}


def test_what_torch_cannot_run_the_same_way_is_declined_with_a_reason():
    variant, kind, why = tr.plan("elementwise", "particles:1000")[0]
    assert kind is None and "particle" in why
    assert tr.plan("gemm", "4x4x4:2:1")[0][1] is None
    assert tr.plan("gemm", "4x4x4:1:0")[0][1] == "matmul"
    assert "no torch call" in tr.plan("newfamily", "7")[0][2]
    # torch's is_causal is top-left aligned: the same problem only when seq_q == seq_k.
    assert all(kind is None and "top-left" in why
               for _, kind, why in tr.plan("attention", "1x2x2x127x509x64:causal"))


def test_attention_maps_to_sdpa_on_two_backends():
    flash, cudnn = tr.plan("attention", "1x16x4x4096x4096x128:causal")
    assert flash[0] == "torch sdpa flash" and cudnn[2]["backend"] == "cudnn"
    assert flash[2]["causal"] and flash[2]["kvh"] == 4 and flash[2]["scale"] == 128 ** -0.5
    assert tr.plan("attention", "1x2x2x129x257x64:16")[0][2]["scale"] == 16.0


@pytest.mark.parametrize("family,shape", [("softmax", "1024"), ("softmax", "0x4"),
                                          ("histogram", "u16-uniform:7"),
                                          ("elementwise", "saxpy:7"), ("stencil", "9x9:4"),
                                          ("gemm", "4x4"), ("attention", "1x2x2x8x8")])
def test_malformed_shapes_raise(family, shape):
    with pytest.raises(ValueError):
        tr.plan(family, shape)


def test_command_line():
    a = tr.parse_args(["--case", "softmax", "8x8", "--case", "gemm", "4x4x4", "--json"])
    assert a.case == [["softmax", "8x8"], ["gemm", "4x4x4"]] and a.budget_ms == 25.0
    assert a.max_reps == 200 and a.min_reps == 7
    with pytest.raises(SystemExit):
        tr.parse_args(["--min-reps", "9", "--max-reps", "3"])


def run_module(*args):
    p = subprocess.run([sys.executable, str(_PATH), *args], capture_output=True, text=True)
    return p.returncode, json.loads(p.stdout)


def test_bad_case_and_missing_torch_are_one_json_sentence():
    rc, out = run_module("--case", "softmax", "3x", "--json")
    assert rc == 2 and out["error"].startswith("bad case:")
    if importlib.util.find_spec("torch") is None:
        rc, out = run_module("--case", "softmax", "8x8", "--json")
        assert rc == 3 and out["error"].startswith("PyTorch not importable by")


def test_small_shapes_on_the_gpu():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    cases = [("softmax", "33x1025"), ("reduction", "1000003"), ("transpose", "31x97"),
             ("histogram", "u8-uniform:1025"), ("histogram", "i32-degenerate:4099"),
             ("gemm", "127x129x65"), ("elementwise", "axpy:1025"), ("elementwise", "copy:7"),
             ("elementwise", "particles:7"), ("stencil", "33x33:5")]
    args = [a for c in cases for a in ("--case", *c)]
    rc, out = run_module(*args, "--budget-ms", "1", "--min-reps", "3", "--json")
    assert rc == 0, out
    recs = out["records"]
    assert len(recs) == len(cases) + 1  # gemm has an fp32 and a bf16 line
    for r in recs:
        if r["family"] == "elementwise" and r["shape"].startswith("particles"):
            assert "declined" in r
            continue
        assert "declined" not in r, r
        assert 0 < r["p10"] <= r["ms"] <= r["p90"] and r["reps"] >= 3


class _FakeClockTorch:
    """Just enough of torch for Timer: events read a clock that each timed call advances by
    its own duration, so the timer's arithmetic is checked without a GPU."""

    def __init__(self):
        self.now = 0.0
        fake = self

        class Event:
            def __init__(self, enable_timing):
                self.t = None

            def record(self):
                self.t = fake.now

            def synchronize(self):
                pass

            def elapsed_time(self, end):
                return end.t - self.t

        class Flush:
            def sum(self):
                return 0.0

        class Props:
            L2_cache_size = 1 << 20

        self.cuda = type("cuda", (), {"Event": Event,
                                      "get_device_properties": staticmethod(lambda i: Props())})
        self.float32 = "float32"
        self.zeros = lambda *a, **k: Flush()


def test_paired_timer_reports_medians_and_per_pair_ratios():
    t = _FakeClockTorch()
    durations = {"a": iter([4.0] * 2 + [4.0, 4.0, 8.0, 4.0, 4.0]),
                 "b": iter([2.0] * 2 + [2.0, 1.0, 2.0, 2.0, 2.0])}

    def call(name):
        def f():
            t.now += next(durations[name])
        return f

    timer = tr.Timer(t, budget_ms=0, min_reps=5, max_reps=5)
    medians, ratios = timer.paired([call("a"), call("b")], reps=5)
    assert medians == [4.0, 2.0]
    # per-pair ratios a/b: 2, 4, 4, 2, 2 -> median 2, p10 2, p90 4
    assert ratios == [(2.0, 2.0, 4.0)]
