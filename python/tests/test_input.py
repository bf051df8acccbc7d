"""Every string a user types reads the same in Python and on the command line.

Generated inputs, valid and not (fixed seed), go through the package's functions and
through the bundled ``memhier`` command; the answers must agree: the same record, or the
same sentence (the option spelled ``--static-smem`` there, ``static_smem`` here) with exit
status 2 there and memhier.InputError (a ValueError) here. Both faces pass the text to the
one reader in the model (memhier/model/input.hpp); this test checks that nothing in between
reads it differently (Python's int() included).
"""

import random
import subprocess

import pytest

import memhier

PIECES = ["1", "2", "8", "32", "33", "64", "256", "1024", "1025", "0", "010", "-1", "", "+5",
          " 5", "1e3", "0x10", "3.5", "K", "k", "KB", "KiB", "M", "G", "B", "x", ",", "\n",
          "9223372036854775808", "\u0663"]
OPTIONS = ["cc", "block", "regs", "smem", "static_smem", "carveout", "warp", "offset_bytes",
           "active"]


def generated(rng, valid):
    """One input: mostly a value from `valid` (so that whole calls often succeed), else
    pieces joined (maybe by 'x')."""
    if rng.random() < 0.85:
        return rng.choice(valid)
    parts = [rng.choice(PIECES) for _ in range(rng.randint(1, 3))]
    return "".join(p + (rng.choice(["x", ""]) if i + 1 < len(parts) else "")
                   for i, p in enumerate(parts))


def python_spelling(sentence):
    """The command's sentence with its options spelled as Python's arguments."""
    for name in sorted(OPTIONS, key=len, reverse=True):
        sentence = sentence.replace("--" + name.replace("_", "-"), name)
    return sentence


def command(*args):
    p = subprocess.run([memhier.cli_path(), *args, "--json"], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr.strip().removeprefix("memhier: ")


def strip(record):
    return {k: v for k, v in record.items() if k not in ("schema", "schema_version", "meta")}


def agree(call, args):
    """The Python call's answer against the command's for the same inputs."""
    import json
    status, out, err = command(*args)
    try:
        got = call()
    except ValueError as e:
        assert status == 2, f"{args}: Python refused ({e}) but the command exited {status}"
        assert str(e) == python_spelling(err), args
        return False
    assert status == 0, f"{args}: Python accepted but the command said: {err}"
    assert got.as_dict() == strip(json.loads(out)), args
    return True


def test_occupancy_inputs_agree():
    rng = random.Random(20261129)
    accepted = 0
    for _ in range(150):
        text = {
            "cc": generated(rng, ["9.0", "8.6", "sm_90a", "12.0", "7.0"]),
            "block": generated(rng, ["256", "32x8", "32x32x1", "1024", "96", "8x8x8"]),
            "regs": generated(rng, ["32", "64", "255", "128"]),
            "smem": generated(rng, ["0", "48K", "100KiB", "1M", "4096", "227K"]),
            "static_smem": generated(rng, ["0", "16K", "48K"]),
            "carveout": rng.choice([None, None, "0", "50", "100", "101", ""]),
        }
        args = ["occupancy"]
        for k, v in text.items():
            if v is not None:
                args += ["--" + k.replace("_", "-"), v]
        accepted += agree(lambda: memhier.occupancy(**text), args)
    assert 10 < accepted < 150


def test_analyze_inputs_agree():
    rng = random.Random(7)
    decl, expr = "float t[64][64]", "t[ty][tx]"
    accepted = 0
    for _ in range(100):
        text = {
            "block": generated(rng, ["32", "32x8", "16x16", "64x4x2", "1024"]),
            "warp": generated(rng, ["0", "1", "7", "31"]),
            "offset_bytes": generated(rng, ["0", "4", "128"]),
            "active": generated(rng, ["0xffffffff", "0xffff", "4294967295", "0x1"]),
        }
        args = ["analyze", "shared", decl, expr]
        for k, v in text.items():
            args += ["--" + k.replace("_", "-"), v]
        accepted += agree(lambda: memhier.analyze_shared(decl, expr, **text), args)
    assert 10 < accepted < 100


def test_ints_and_tuples_read_as_their_text():
    """An int or a tuple is formatted, never read, in Python: the command's reader reads it."""
    assert memhier.occupancy(block="256", regs=64).blocks_per_sm == \
        memhier.occupancy(block=256, regs=64).blocks_per_sm == 4
    assert memhier.occupancy(block="32x32").as_dict() == memhier.occupancy(block=(32, 32)).as_dict()
    assert memhier.occupancy(smem="48K").as_dict() == memhier.occupancy(smem=49152).as_dict()
    assert memhier.analyze_shared("float t[32][32]", "t[lane][0]", block="32").as_dict() == \
        memhier.analyze_shared("float t[32][32]", "t[lane][0]", block=32).as_dict()
    with pytest.raises(memhier.InputError, match=r"^block '32x32x2' has 2048 threads"):
        memhier.occupancy(block="32x32x2")
    with pytest.raises(TypeError, match="block"):
        memhier.occupancy(block=32.0)
    assert issubclass(memhier.InputError, ValueError)


@pytest.mark.skipif(memhier.device_count() > 0, reason="valid shapes would run the benchmark")
def test_shapes_and_variants_agree():
    """bench(sizes=, variants=) against `memhier bench --size/--variant`: bad text is the same
    sentence; good text reaches the device check (NoDeviceError, exit 3) in both."""
    rng = random.Random(11)
    for _ in range(40):
        family = rng.choice(["transpose", "softmax", "reduction", "gemm"])
        shape = generated(rng, ["8000x6000", "4096x4096x4096", "1024", "4099x1031", "1x1"])
        status, _, err = command("bench", family, "--size", shape)
        try:
            memhier.bench(family, sizes=[shape])
            raise AssertionError("bench ran without a GPU")
        except memhier.NoDeviceError:
            assert status == 3, (family, shape, err)
        except ValueError as e:
            assert status == 2 and str(e) == err, (family, shape, err)
    for variant in ["naive", "best", "Naive", "", "padded_tile", "nope"]:
        status, _, err = command("bench", "transpose", "--variant", variant)
        with pytest.raises((ValueError, memhier.NoDeviceError)) as e:
            memhier.bench("transpose", variants=[variant])
        assert (status, str(e.value) if status == 2 else status) == \
            ((2, err) if isinstance(e.value, ValueError) else (3, 3))
