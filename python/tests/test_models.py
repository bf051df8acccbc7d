"""The CPU models from Python give the numbers the command line gives (no GPU needed)."""

import numpy  # noqa: F401  (first: on the H100 host the model crashed once numpy was loaded)
import pytest

import memhier


def _strip(record):
    return {k: v for k, v in record.items() if k not in ("schema", "schema_version", "meta")}


def test_shared_conflicts_and_fix(cli):
    a = memhier.analyze_shared("float tile[32][32]", "tile[lane][0]")
    assert (a.wavefronts, a.ideal, a.conflicts, a.degree) == (32, 1, 31, 32)
    assert a.fixes and any(f.kind == "padding" and f.conflicts == 0 for f in a.fixes)
    assert a.as_dict() == _strip(cli("analyze", "shared", "float tile[32][32]", "tile[lane][0]"))


def test_shared_conflict_free_has_no_fixes():
    a = memhier.analyze_shared("float tile[32][33]", "tile[lane][0]")
    assert (a.wavefronts, a.conflicts, a.fixes) == (1, 0, ())


def test_shared_block_warp_store_and_vars(cli):
    a = memhier.analyze_shared("float t[64][64]", "t[ty][tx*s]", block=(16, 16), warp=3,
                               store=True, vars={"s": 2})
    want = _strip(cli("analyze", "shared", "float t[64][64]", "t[ty][tx*s]", "--block", "16x16",
                      "--warp", "3", "--store", "--set", "s=2"))
    assert a.as_dict() == want


def test_global_strided_and_offset(cli):
    g = memhier.analyze_global("float a[]", "a[lane*32]")
    assert (g.requests, g.sectors, g.ideal_sectors) == (1, 32, 4)
    h = memhier.analyze_global("float a[]", "a[lane]", offset_bytes=4)
    want = _strip(cli("analyze", "global", "float a[]", "a[lane]", "--offset-bytes", "4"))
    want.pop("verdict")
    assert h.as_dict() == want and h.sectors == 5


def test_occupancy_matches_cli(cli):
    o = memhier.occupancy(cc="9.0", block=256, regs=64, smem=0)
    assert o.blocks_per_sm == 4 and o.limiter == "registers" and o.occupancy == 0.5
    assert o.advice
    assert o.as_dict() == _strip(cli("occupancy", "--cc", "9.0", "--block", "256", "--regs", "64"))
    full = memhier.occupancy(cc="8.0", block=(32, 8), regs=32)
    assert full.occupancy == 1.0 and full.advice == ""


@pytest.mark.parametrize("call, words", [
    (lambda: memhier.analyze_shared("float t[32", "t[lane]"), "^"),
    (lambda: memhier.analyze_shared("float t[32][32]", "t[lane][k]"), "k"),
    (lambda: memhier.analyze_shared("float t[32]", "t[lane]", warp=1), "warp"),
    (lambda: memhier.analyze_shared("float t[32]", "t[lane]", block=(0,)), "block"),
    (lambda: memhier.analyze_global("float t[32]", "t[lane+1]"), "bound"),
    (lambda: memhier.occupancy(cc="6.1"), "known"),
    (lambda: memhier.occupancy(regs=300), "regs"),
    (lambda: memhier.occupancy(block=2048), "1024"),
])
def test_model_errors_are_value_errors(call, words):
    with pytest.raises(ValueError, match=None) as e:
        call()
    assert words in str(e.value)
