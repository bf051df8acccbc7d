"""Every kernel against PyTorch on a GPU: odd shapes, views starting at element 1, every
variant, the other array protocols, and the caller's stream. Skipped without torch or a GPU."""

import pytest

import memhier
from memhier import _ext

torch = pytest.importorskip("torch")
if not torch.cuda.is_available() or memhier.device_count() == 0:
    pytest.skip("no CUDA device", allow_module_level=True)

DEV = "cuda"
ODD_2D = [(1, 1), (1, 7), (7, 1), (3, 33), (5, 1025), (2, 4099), (17, 129), (1, 65537)]


def rand(*shape, misaligned=False, dtype=torch.float32):
    """Random values; with ``misaligned`` a view that starts 4 bytes into its storage."""
    n = 1
    for s in shape:
        n *= s
    base = torch.randn(n + 1, device=DEV, dtype=torch.float64).to(dtype)
    flat = base[1:] if misaligned else base[:n]
    return flat.view(*shape)


def ran(call, may_decline):
    """call(); False when a variant allowed to decline this layout raised ValueError instead."""
    try:
        call()
        return True
    except ValueError:
        if not may_decline:
            raise
        return False


def rel_err(got, want):
    got, want = got.double(), want.double()
    return ((got - want).norm() / want.norm().clamp_min(1e-30)).item()


@pytest.mark.parametrize("shape", ODD_2D + [(64, 4096)])
@pytest.mark.parametrize("misaligned", [False, True])
def test_softmax_best(shape, misaligned):
    x = rand(*shape, misaligned=misaligned)
    y = memhier.softmax(x)
    assert y.shape == x.shape and y.dtype == torch.float32
    assert rel_err(y, torch.softmax(x.double(), -1)) < 1e-5


@pytest.mark.parametrize("variant", memhier.variants("softmax"))
def test_softmax_every_variant(variant):
    x = rand(37, 513, misaligned=True)
    out = torch.full_like(x, float("nan"))
    memhier.softmax(x, out, variant=variant)
    assert rel_err(out, torch.softmax(x.double(), -1)) < 1e-5


def test_softmax_rank3_and_non_contiguous():
    x = rand(4, 5, 33)
    assert rel_err(memhier.softmax(x), torch.softmax(x.double(), -1)) < 1e-5
    with pytest.raises(ValueError, match="C-contiguous"):
        memhier.softmax(rand(33, 8).t())


@pytest.mark.parametrize("shape", ODD_2D + [(1024, 768)])
@pytest.mark.parametrize("variant", memhier.variants("transpose"))
def test_transpose(shape, variant):
    misaligned = shape[0] % 2 == 1
    x = rand(*shape, misaligned=misaligned)
    out = torch.full((shape[1], shape[0]), float("nan"), device=DEV)
    # TMA needs 16-byte aligned bases and row pitches: the tma rung declines the others.
    tma_able = not misaligned and shape[0] % 4 == 0 and shape[1] % 4 == 0
    if ran(lambda: memhier.transpose(x, out, variant=variant), variant == "tma" and not tma_able):
        assert torch.equal(out, x.t().contiguous())


@pytest.mark.parametrize("mnk", [(1, 1, 1), (7, 5, 3), (65, 129, 33), (128, 256, 64),
                                 (257, 129, 1031)])
def test_gemm_best(mnk):
    m, n, k = mnk
    a, b = rand(m, k, misaligned=True), rand(k, n)
    want = a.double() @ b.double()
    assert rel_err(memhier.gemm(a, b), want) < 1e-5
    c = rand(m, n)
    got = memhier.gemm(a, b, c.clone(), alpha=0.5, beta=2.0)
    assert rel_err(got, 0.5 * want + 2.0 * c.double()) < 1e-5


@pytest.mark.parametrize("variant", memhier.variants("gemm"))
@pytest.mark.parametrize("k", [45, 1031])
def test_gemm_every_variant_on_row_strided_views(variant, k):
    # The split-K rungs split K = 1031 over this small C's idle SMs and decline K = 45 (too
    # short to split), which a rung without splits runs; the tail splits decline a C under one
    # wave of tiles, the edges' candidates one without a whole 128x256 tile.
    wide = rand(67, k + 35)
    a = wide[:, 3:3 + k]  # rows k + 35 apart, starting 12 bytes in
    b = rand(k, 33)
    c = torch.full((67, 40), float("nan"), device=DEV)[:, :33]
    if ran(lambda: memhier.gemm(a, b, c, variant=variant),
           (variant.startswith("cfg_sk_") and k < 128) or "tailsplit" in variant
           or "edges" in variant):
        assert rel_err(c, a.double() @ b.double()) < 1e-5


def bf16_bound(a, b):
    """The bf16 ladder's per-element bound: ceil(K/16) 2^-22 + 2^-23 of sum |a b|."""
    k = a.shape[1]
    return ((k + 15) // 16 * 2.0 ** -22 + 2.0 ** -23) * (a.double().abs() @ b.double().abs())


@pytest.mark.parametrize("mnk", [(1, 1, 1), (7, 5, 3), (65, 129, 33), (128, 256, 64),
                                 (257, 129, 1031), (1024, 1024, 1024)])
def test_gemm_bf16_best(mnk):
    m, n, k = mnk
    a = rand(m, k, dtype=torch.bfloat16)
    b = rand(k, n, dtype=torch.bfloat16)
    got = memhier.gemm(a, b)
    assert got.dtype == torch.float32 and got.shape == (m, n)
    want = a.double() @ b.double()
    assert bool(((got.double() - want).abs() <= bf16_bound(a, b)).all())
    c = rand(m, n)
    got = memhier.gemm(a, b, c.clone(), alpha=0.5, beta=2.0)
    want = 0.5 * want + 2.0 * c.double()
    assert bool(((got.double() - want).abs() <= bf16_bound(a, b) + 1e-6 * want.abs()).all())


TMA_BF16 = {"wgmma_tma", "warp_specialized"} | {
    v for v in memhier.variants("gemm_bf16") if v.startswith(("ws_", "swapab_"))}


@pytest.mark.parametrize("misaligned", [False, True])
@pytest.mark.parametrize("variant", memhier.variants("gemm_bf16"))
def test_gemm_bf16_every_variant(variant, misaligned):
    # Misaligned: A starts 2 bytes in with an odd row pitch, which the TMA rungs decline;
    # wgmma_staged declines only operands already in 128-byte rows; the tail splits decline a C
    # under one wave of tiles. Every other pair must run.
    a = rand(201, 137, dtype=torch.bfloat16)[:200, 1:] if misaligned else rand(
        200, 136, dtype=torch.bfloat16)
    b = rand(136, 72, dtype=torch.bfloat16)
    c = torch.full((200, 80), float("nan"), device=DEV)[:, :72]
    may_decline = (misaligned and variant in TMA_BF16) or "tailsplit" in variant
    if ran(lambda: memhier.gemm(a, b, c, variant=variant), may_decline):
        assert bool(((c.double() - a.double() @ b.double()).abs() <= bf16_bound(a, b)).all())


@pytest.mark.parametrize("variant", memhier.variants("gemm_bf16"))
def test_gemm_bf16_epilogue(variant):
    # A bias added to every row and a bf16 C (NaN-poisoned: beta is 0), in one call: the fp32
    # bound plus the rounding of the stored value; then beta reading the bf16 C back.
    a = rand(200, 136, dtype=torch.bfloat16)
    b = rand(136, 72, dtype=torch.bfloat16)
    bias = rand(72)
    c = torch.full((200, 72), float("nan"), device=DEV, dtype=torch.bfloat16)
    if not ran(lambda: memhier.gemm(a, b, c, bias=bias, variant=variant), "tailsplit" in variant):
        return  # a tail split declines a C under one wave of tiles
    want = a.double() @ b.double() + bias.double()
    bound = bf16_bound(a, b) + 2.0 ** -23 * bias.double().abs()
    assert bool(((c.double() - want).abs() <= bound + 2.0 ** -8 * (want.abs() + bound)).all())
    old = c.clone()
    memhier.gemm(a, b, c, alpha=0.5, beta=-1.0, bias=bias, variant=variant)
    want2 = 0.5 * (a.double() @ b.double()) - old.double() + bias.double()
    bound2 = 0.5 * bf16_bound(a, b) + 2.0 ** -22 * (old.double().abs() + bias.double().abs())
    assert bool(((c.double() - want2).abs() <= bound2 + 2.0 ** -8 * (want2.abs() + bound2)).all())


def test_gemm_bf16_epilogue_new_output_and_checks():
    a = rand(65, 33, dtype=torch.bfloat16)
    b = rand(33, 129, dtype=torch.bfloat16)
    got = memhier.gemm(a, b, dtype="bfloat16")
    assert got.dtype == torch.bfloat16 and got.shape == (65, 129)
    want = a.double() @ b.double()
    assert bool(((got.double() - want).abs() <= bf16_bound(a, b) + 2.0 ** -8 * want.abs()).all())
    with pytest.raises(ValueError, match="bias must hold n = 129 values"):
        memhier.gemm(a, b, bias=rand(128))
    with pytest.raises(ValueError, match="c is float32 but dtype is 'bfloat16'"):
        memhier.gemm(a, b, rand(65, 129), dtype="bfloat16")
    # k == 0: an empty sum, so C = bias.
    bias = rand(129)
    empty = memhier.gemm(rand(65, 0, dtype=torch.bfloat16), rand(0, 129, dtype=torch.bfloat16),
                         bias=bias)
    assert torch.equal(empty, bias.expand(65, 129))


def test_gemm_mixed_dtypes_are_refused():
    with pytest.raises(TypeError):
        memhier.gemm(rand(4, 4, dtype=torch.bfloat16), rand(4, 4))


@pytest.mark.parametrize("n", [1, 7, 1025, 4099, 1 << 20, (1 << 22) + 3])
@pytest.mark.parametrize("op", ["sum", "max"])
def test_reduce_best(n, op):
    x = rand(n, misaligned=True)
    got = memhier.reduce(x, op=op)
    assert got.shape == () and got.dtype == torch.float32
    want = x.double().sum() if op == "sum" else x.double().max()
    assert close_sum(got, want, x)


def close_sum(got, want, x):
    """Within float32 rounding of a sum of |x| (exact for max)."""
    return abs(got.item() - want.item()) <= 1e-6 * max(1.0, x.double().abs().sum().item())


@pytest.mark.parametrize("variant", memhier.variants("reduce"))
def test_reduce_every_variant(variant):
    x = rand(3, 1000003)
    assert close_sum(memhier.reduce(x, variant=variant), x.double().sum(), x)


@pytest.mark.parametrize("n", [1, 7, 1025, 65537, (1 << 22) + 5])
@pytest.mark.parametrize("misaligned", [False, True])
def test_histogram_uint8(n, misaligned):
    base = torch.randint(0, 256, (n + 1,), device=DEV, dtype=torch.uint8)
    x = base[1:] if misaligned else base[:n]
    bins = memhier.histogram256(x)
    assert bins.shape == (256,)
    assert torch.equal(bins.to(torch.int64), torch.bincount(x.long(), minlength=256))


@pytest.mark.parametrize("variant", memhier.variants("histogram256"))
def test_histogram_int32_every_variant_skips_out_of_range(variant):
    x = torch.randint(-40, 300, (100003,), device=DEV, dtype=torch.int32)
    out = torch.full((256,), -1, device=DEV, dtype=torch.int32)
    memhier.histogram256(x, out, variant=variant)
    keep = x[(x >= 0) & (x < 256)].long()
    assert torch.equal(out.long(), torch.bincount(keep, minlength=256))


def stencil_reference(x, w):
    """The clamped-border stencil in float64 on x's device (w may be a host tensor)."""
    k = w.shape[0]
    padded = torch.nn.functional.pad(x.double()[None, None], (k // 2,) * 4, mode="replicate")
    return torch.nn.functional.conv2d(padded, w.to(x.device, torch.float64)[None, None])[0, 0]


@pytest.mark.parametrize("shape", [(1, 1), (7, 1), (3, 33), (37, 129), (513, 1027)])
@pytest.mark.parametrize("k", [3, 5, 7])
def test_stencil_best(shape, k):
    x, w = rand(*shape, misaligned=True), torch.randn(k, k)
    assert rel_err(memhier.stencil2d(x, w), stencil_reference(x, w)) < 1e-5


@pytest.mark.parametrize("variant", memhier.variants("stencil2d"))
def test_stencil_every_variant(variant):
    x, w = rand(67, 131), torch.randn(5, 5)
    try:
        got = memhier.stencil2d(x, w.tolist(), variant=variant)
    except ValueError as e:  # a configuration for another filter size says so
        assert "5" in str(e) or "k" in str(e)
        return
    assert rel_err(got, stencil_reference(x, w)) < 1e-5


@pytest.mark.parametrize("n", [1, 3, 1025, (1 << 20) + 1])
@pytest.mark.parametrize("variant", memhier.variants("axpy"))
def test_axpy(n, variant):
    x, y = rand(n, misaligned=True), rand(n)
    want = 1.5 * x.double() + y.double()
    assert memhier.axpy(1.5, x, y, variant=variant) is y
    assert rel_err(y, want) < 1e-6


class CAIOnly:
    """A torch tensor seen only through __cuda_array_interface__ (as CuPy or Numba offer it)."""

    def __init__(self, t):
        self.t = t
        self.__cuda_array_interface__ = t.__cuda_array_interface__


class DLPackOnly:
    """A torch tensor seen only through __dlpack__ (as JAX offers it)."""

    def __init__(self, t):
        self.t = t

    def __dlpack__(self, **kw):
        return self.t.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


@pytest.mark.parametrize("wrap", [CAIOnly, DLPackOnly])
def test_other_protocols(wrap):
    x = rand(9, 1031, misaligned=True)
    out = torch.empty_like(x)
    memhier.softmax(wrap(x), wrap(out))
    torch.cuda.synchronize()
    assert rel_err(out, torch.softmax(x.double(), -1)) < 1e-5
    with pytest.raises(TypeError, match="pass out="):
        memhier.softmax(wrap(x))


def test_runs_on_the_callers_stream_and_on_stream_override():
    """A side stream is busy (sleep) before it writes x; memhier must queue behind it."""
    src = rand(512, 4096)
    want = torch.softmax(src.double(), -1)
    side = torch.cuda.Stream()
    for explicit in (False, True):
        x = torch.zeros_like(src)
        out = torch.zeros_like(src)
        torch.cuda.synchronize()
        with torch.cuda.stream(side):
            torch.cuda._sleep(200_000_000)  # ~0.1 s of GPU time on the side stream
            x.copy_(src)
        if explicit:
            memhier.softmax(x, out, stream=side)
        else:
            with torch.cuda.stream(side):
                memhier.softmax(x, out)
        done = torch.cuda.Event()
        done.record(side)
        torch.cuda.current_stream().wait_event(done)
        assert rel_err(out, want) < 1e-5, "the kernel ran before the side stream wrote x"


def test_plain_tensors_take_the_fast_path_on_the_current_stream():
    x = rand(3, 40)
    out = torch.empty_like(x)
    memhier.softmax(x, out)  # the first call registers torch's tensor type
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        args = _ext.softmax_fast(x, out, "best", None, False)
    assert args == (x.data_ptr(), out.data_ptr(), 3, 40, x.device.index, side.cuda_stream)
    assert _ext.softmax_fast(rand(40, 3).t(), None, "best", None, False) is NotImplemented


def test_reduce_workspaces_per_stream():
    streams = [torch.cuda.Stream() for _ in range(3)]
    xs = [rand(1 << 22) for _ in streams]
    # The side streams are non-blocking: they see xs only once the default stream wrote them.
    torch.cuda.synchronize()
    outs = []
    for s, x in zip(streams, xs):
        with torch.cuda.stream(s):
            outs.append(memhier.reduce(x))
    torch.cuda.synchronize()
    for x, o in zip(xs, outs):
        assert close_sum(o, x.double().sum(), x)
