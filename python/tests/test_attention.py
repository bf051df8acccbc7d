"""memhier.attention on PyTorch CUDA tensors against a float64 reference (skipped without a
GPU or torch): every variant, causal with seq_q < seq_k and seq_q > seq_k, grouped-query
heads, head_dim 64 and 128, and the checks' one-sentence errors."""

import math

import pytest

import memhier

torch = pytest.importorskip("torch")
if memhier.device_count() == 0 or not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)


def rand(*shape, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return (torch.rand(*shape, generator=g, device="cuda") * 2 - 1).to(torch.bfloat16)


def reference(q, k, v, causal, scale):
    """float64 attention with the bottom-right causal mask; rows that see no key are 0."""
    q, k, v = (t.double() for t in (q, k, v))
    heads, kv_heads = q.shape[2], k.shape[2]
    k = k.repeat_interleave(heads // kv_heads, dim=2)
    v = v.repeat_interleave(heads // kv_heads, dim=2)
    s = torch.einsum("bihd,bjhd->bhij", q, k) * scale
    seq_q, seq_k = q.shape[1], k.shape[1]
    if causal:
        i = torch.arange(seq_q, device=q.device)[:, None]
        j = torch.arange(seq_k, device=q.device)[None, :]
        s = s.masked_fill(j > i + (seq_k - seq_q), float("-inf"))
    p = torch.softmax(s, dim=-1).nan_to_num(0.0)
    return torch.einsum("bhij,bjhd->bihd", p, v)


# (batch, heads, kv_heads, seq_q, seq_k, head_dim, causal)
SHAPES = [(1, 2, 2, 1, 1, 64, False), (1, 2, 2, 127, 509, 64, True), (1, 8, 2, 65, 129, 128, False),
          (2, 4, 4, 509, 127, 128, True), (1, 4, 1, 200, 200, 64, True)]


# The wgmma rungs (wgmma_tma, wgmma_tma_wide, wgmma_tma_3wg) are sm_90a code: on any other
# card each declines with one sentence.
HOPPER = torch.cuda.get_device_capability() == (9, 0)


@pytest.mark.parametrize("variant", memhier.variants("attention"))
@pytest.mark.parametrize("shape", SHAPES)
def test_every_variant_matches_float64(variant, shape):
    b, h, kvh, sq, sk, d, causal = shape
    q, k, v = rand(b, sq, h, d, seed=1), rand(b, sk, kvh, d, seed=2), rand(b, sk, kvh, d, seed=3)
    scale = 1 / math.sqrt(d)
    if variant.startswith("wgmma_tma") and not HOPPER:
        with pytest.raises(ValueError, match="compute capability 9.0"):
            memhier.attention(q, k, v, causal=causal, scale=scale, variant=variant)
        return
    out = memhier.attention(q, k, v, causal=causal, scale=scale, variant=variant)
    torch.cuda.synchronize()
    assert out.dtype == torch.bfloat16 and out.shape == q.shape
    want = reference(q, k, v, causal, scale)
    err = (out.double() - want).norm() / max(want.norm().item(), 1e-30)
    assert err < 2 ** -8, f"{variant} at {shape}: relative error {err:.3g}"


def test_large_scores_need_the_max_shift():
    # Scores near 100: exp overflows fp16 and fp32 without subtracting the row max.
    q, k, v = rand(1, 64, 2, 64, seed=4), rand(1, 96, 2, 64, seed=5), rand(1, 96, 2, 64, seed=6)
    out = memhier.attention(q, k, v, scale=16.0)
    torch.cuda.synchronize()
    assert torch.isfinite(out.float()).all()
    want = reference(q, k, v, False, 16.0)
    assert (out.double() - want).norm() / want.norm() < 2 ** -7


def test_out_and_default_scale():
    q, k, v = rand(1, 33, 2, 128, seed=7), rand(1, 40, 2, 128, seed=8), rand(1, 40, 2, 128, seed=9)
    out = torch.full_like(q, float("nan"))
    assert memhier.attention(q, k, v, out=out) is out
    torch.cuda.synchronize()
    want = reference(q, k, v, False, 128 ** -0.5)
    assert (out.double() - want).norm() / want.norm() < 2 ** -8


def test_bad_inputs_get_one_sentence():
    q, k = rand(1, 8, 4, 64), rand(1, 8, 3, 64)
    with pytest.raises(ValueError, match="kv_heads"):
        memhier.attention(q, k, k)
    with pytest.raises(ValueError, match="head_dim"):
        memhier.attention(rand(1, 8, 2, 32), rand(1, 8, 2, 32), rand(1, 8, 2, 32))
    with pytest.raises(TypeError):
        memhier.attention(q.float(), q, q)
    with pytest.raises(ValueError, match="same shape"):
        memhier.attention(q, rand(1, 8, 4, 64), rand(1, 9, 4, 64))
    with pytest.raises(ValueError):
        memhier.attention(q.transpose(1, 2), q, q)  # not contiguous
