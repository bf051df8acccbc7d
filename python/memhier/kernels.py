"""memhier's best kernels on framework arrays (PyTorch, CuPy, JAX, Numba).

Every function takes GPU arrays through ``__dlpack__`` or ``__cuda_array_interface__``,
checks dtype, shape, layout and device (TypeError or ValueError, one sentence), runs on
the caller's current stream (or ``stream=``) and returns without synchronizing. Inputs
must be C-contiguous (gemm also takes row-strided views): a non-contiguous input is an
error, never a silent copy. Views that start at any element work (a slice from element 1
included): the kernels need only element alignment and fall back from 16-byte accesses
themselves. ``variant`` picks a rung of the ladder by name (``memhier.variants(family)``):
another name is memhier.InputError before any GPU work; without a usable GPU a call raises
memhier.NoDeviceError.

The common call (PyTorch CUDA tensors, C-contiguous, right dtypes and shapes, ``stream``
None or an int) is decided and launched in C++ (``_ext.*_fast``, no Python layer in between);
anything else, errors included, takes the general path below, which owns every check.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from . import _arrays, _ext
from ._arrays import Array


_F32 = ("float32",)
_GEMM_INPUTS = ("float32", "bfloat16")


def _stream(stream: Any, x: Any) -> int:
    """``stream=`` as a handle, or the stream the caller of a kernel on ``x`` works on."""
    return _arrays.caller_stream(x) if stream is None else _arrays.stream_handle(stream)


def _input(x: Any, name: str, stream: int, dtypes: Sequence[str] = _F32,
           ndim: Optional[int] = None, contiguous: bool = True) -> Array:
    """``x`` read and checked (dtype, rank, layout, CUDA memory)."""
    a = _arrays.read(x, name, stream)
    _arrays.check(a, name, dtypes, ndim, contiguous)
    return a


def _writable(a: Array, name: str) -> None:
    """ValueError when ``a`` is memory its producer exported as read-only."""
    if not a.writable:
        raise ValueError(f"{name} is read-only (its framework exported it through DLPack as "
                         f"immutable); pass a writable out=.")


def _output(x: Array, out: Any, name: str, shape: tuple, dtypes: Sequence[str],
            stream: int) -> Array:
    """``out`` read and checked, or a new array like ``x`` (dtype ``dtypes[0]``)."""
    if out is None:
        # A __cuda_array_interface__ input names no device (-1): ask the driver first.
        out = _arrays.empty_like(x.obj, shape, dtypes[0], _arrays.device_of((x, "x")))
    o = _input(out, name, stream, dtypes)
    _writable(o, name)
    if tuple(o.shape) != tuple(shape):
        raise ValueError(f"{name} must have shape {tuple(shape)}, not {tuple(o.shape)}.")
    return o


def softmax(x: Any, out: Any = None, *, variant: str = "best", stream: Any = None) -> Any:
    """Softmax over the last axis of a float32 array: out[..., j] = exp(x[..., j] - max) / sum.

    Any rank >= 1 (leading axes are rows). Returns ``out`` (a new array like ``x`` when None).
    """
    done = _ext.softmax_fast(x, out, variant, stream, True)
    if done is not NotImplemented:
        return done
    _ext.check_variant("softmax", variant)
    s = _stream(stream, x)
    a = _input(x, "x", s)
    if not a.shape:
        raise ValueError("x must have at least one dimension.")
    o = _output(a, out, "out", a.shape, _F32, s)
    device = _arrays.device_of((a, "x"), (o, "out"))
    cols = a.shape[-1]
    rows = a.size // cols if cols else 0
    if rows:
        _ext.softmax(variant, a.ptr, o.ptr, rows, cols, device, s)
    return o.obj


def transpose(x: Any, out: Any = None, *, variant: str = "best", stream: Any = None) -> Any:
    """The transpose of a 2-D float32 array (rows x cols in, cols x rows out, row-major).

    From 2**21 elements with 16-byte aligned rows, the first ``best`` call at a shape on this
    card tunes it (it synchronizes the stream once; ``memhier.tune("transpose", [...])`` does
    it ahead of time), and the choice is kept in the tuning cache.
    """
    done = _ext.transpose_fast(x, out, variant, stream, True)
    if done is not NotImplemented:
        return done
    _ext.check_variant("transpose", variant)
    s = _stream(stream, x)
    a = _input(x, "x", s, ndim=2)
    rows, cols = a.shape
    o = _output(a, out, "out", (cols, rows), _F32, s)
    device = _arrays.device_of((a, "x"), (o, "out"))
    if a.size:
        _ext.transpose(variant, a.ptr, o.ptr, rows, cols, device, s)
    return o.obj


def _leading_dim(a: Array, name: str) -> int:
    """The row stride (elements) of a 2-D array whose rows are dense; ValueError otherwise."""
    rows, cols = a.shape
    if a.strides is None:
        return max(cols, 1)
    row_stride, col_stride = a.strides
    if (col_stride != 1 and cols > 1) or (rows > 1 and row_stride < cols):
        raise ValueError(f"{name} must have unit stride along its last axis and rows at least "
                         f"{cols} apart (strides {a.strides}); pass a contiguous copy.")
    return max(row_stride if rows > 1 else cols, cols, 1)


def gemm(a: Any, b: Any, c: Any = None, alpha: float = 1.0, beta: float = 0.0, *,
         bias: Any = None, dtype: Optional[str] = None, variant: str = "best",
         stream: Any = None) -> Any:
    """C = alpha * A @ B + beta * C (+ bias); C is float32, or bfloat16 for bfloat16 inputs.

    float32 ``a`` and ``b`` run on CUDA cores (no tensor cores, no TF32); bfloat16 ``a`` and
    ``b`` run the tensor-core ladder (bf16 products, float32 accumulation; variants:
    ``memhier.variants("gemm_bf16")``). ``a`` is m x k, ``b`` k x n, ``c`` m x n; each may be
    a row-strided view (unit stride along rows). With ``c=None`` a new m x n array is
    returned (float32, or ``dtype="bfloat16"``) and ``beta`` must be 0. For bfloat16 inputs
    the epilogue is fused into the store of C: ``bias`` (n float32 values) is added to every
    row, and a bfloat16 ``c`` receives the float32 result rounded to nearest even. The first
    call at a shape (extents, strides, alignment, epilogue) on this card tunes ``best`` (it
    synchronizes the stream once; ``memhier.tune`` does it ahead of time), and the choice is
    kept in the tuning cache on disk.
    """
    s = _stream(stream, a)
    A = _input(a, "a", s, _GEMM_INPUTS, ndim=2, contiguous=False)
    B = _input(b, "b", s, _GEMM_INPUTS, ndim=2, contiguous=False)
    if A.dtype != B.dtype:
        raise TypeError(f"a is {A.dtype} but b is {B.dtype}; both float32 or both bfloat16.")
    bf16 = A.dtype == "bfloat16"
    _ext.check_variant("gemm_bf16" if bf16 else "gemm", variant)
    m, k = A.shape
    if B.shape[0] != k:
        raise ValueError(f"a is {m}x{k} but b has {B.shape[0]} rows; they must agree.")
    n = B.shape[1]
    c_types = _GEMM_INPUTS if bf16 else _F32
    if dtype is not None and dtype not in c_types:
        raise ValueError(f"dtype must be one of {', '.join(c_types)} for {A.dtype} inputs, "
                         f"not {dtype!r}.")
    bias_ptr = 0
    if bias is not None:
        if not bf16:
            raise TypeError("bias is an epilogue of the bfloat16 GEMM; float32 inputs take none.")
        Bias = _input(bias, "bias", s, _F32, ndim=1)
        if Bias.shape[0] != n:
            raise ValueError(f"bias must hold n = {n} values, not {Bias.shape[0]}.")
        bias_ptr = Bias.ptr
    if c is None and beta != 0.0:
        raise ValueError("beta must be 0 when c is not given (there is no C to scale).")
    if c is None:
        C = _output(A, c, "c", (m, n), (dtype or "float32",), s)
    else:
        C = _input(c, "c", s, c_types, ndim=2, contiguous=False)
        _writable(C, "c")
        if dtype is not None and C.dtype != dtype:
            raise ValueError(f"c is {C.dtype} but dtype is {dtype!r}; give one or make them agree.")
    if tuple(C.shape) != (m, n):
        raise ValueError(f"c must have shape {(m, n)}, not {tuple(C.shape)}.")
    lda, ldb, ldc = _leading_dim(A, "a"), _leading_dim(B, "b"), _leading_dim(C, "c")
    arrays = [(A, "a"), (B, "b"), (C, "c")] + ([(Bias, "bias")] if bias_ptr else [])
    device = _arrays.device_of(*arrays)
    if m and n:
        c_bf16 = C.dtype == "bfloat16"
        if k == 0:  # an empty sum: C = beta * C (+ bias), which the rungs take with alpha = 0
            if bf16:
                _ext.gemm_bf16("best", m, n, 1, 0.0, C.ptr, 1, C.ptr, n, float(beta), C.ptr, ldc,
                               c_bf16, bias_ptr, device, s)
            else:
                _ext.gemm(variant, m, n, 1, 0.0, C.ptr, 1, C.ptr, n, float(beta), C.ptr, ldc,
                          device, s)
        elif bf16:
            _ext.gemm_bf16(variant, m, n, k, float(alpha), A.ptr, lda, B.ptr, ldb, float(beta),
                           C.ptr, ldc, c_bf16, bias_ptr, device, s)
        else:
            _ext.gemm(variant, m, n, k, float(alpha), A.ptr, lda, B.ptr, ldb, float(beta), C.ptr,
                      ldc, device, s)
    return C.obj


def reduce(x: Any, op: str = "sum", out: Any = None, *, variant: str = "best",
           stream: Any = None) -> Any:
    """The sum or max (``op``) of every element of a float32 array, as a 0-d float32 array.

    max skips NaN (fmaxf); sum propagates it. An empty array is a ValueError.
    """
    done = _ext.reduce_fast(x, op, out, variant, stream, True)
    if done is not NotImplemented:
        return done
    _ext.check_variant("reduce", variant)
    s = _stream(stream, x)
    a = _input(x, "x", s)
    if op not in ("sum", "max"):
        raise ValueError(f"op must be 'sum' or 'max', not {op!r}.")
    if a.size == 0:
        raise ValueError(f"the {op} of an empty array is not defined here.")
    o = _output(a, out, "out", (), _F32, s)
    device = _arrays.device_of((a, "x"), (o, "out"))
    _ext.reduce(variant, op, a.ptr, a.size, o.ptr, device, s)
    return o.obj


def histogram256(x: Any, out: Any = None, *, variant: str = "best", stream: Any = None) -> Any:
    """256 bins: out[v] = how many elements of ``x`` equal v, as uint32.

    ``x`` is uint8, or int32 (values outside 0..255 are skipped). ``out`` may be uint32 or
    int32 of shape (256,); it is zeroed by the call.
    """
    done = _ext.histogram256_fast(x, out, variant, stream, True)
    if done is not NotImplemented:
        return done
    _ext.check_variant("histogram256", variant)
    s = _stream(stream, x)
    a = _input(x, "x", s, ("uint8", "int32"))
    o = _output(a, out, "out", (256,), ("uint32", "int32"), s)
    device = _arrays.device_of((a, "x"), (o, "out"))
    _ext.histogram256(variant, a.ptr, a.size, 8 if a.dtype == "uint8" else 32, o.ptr, device, s)
    return o.obj


def _filter_values(filter: Any) -> tuple:
    """(k, k*k floats) from a k x k nested sequence, a flat one, or an array (``tolist``)."""
    values = filter.tolist() if hasattr(filter, "tolist") else filter
    try:
        rows = [list(r) for r in values] if values and hasattr(values[0], "__len__") else None
        flat = [float(v) for r in rows for v in r] if rows else [float(v) for v in values]
    except TypeError:
        raise TypeError("filter must be a k x k sequence of numbers (k = 3, 5 or 7).") from None
    k = {9: 3, 25: 5, 49: 7}.get(len(flat))
    if k is None or (rows is not None and any(len(r) != k for r in rows)):
        raise ValueError(f"filter must be 3x3, 5x5 or 7x7, not {len(flat)} values.")
    return k, flat


def stencil2d(x: Any, filter: Any, out: Any = None, *, variant: str = "best",
              stream: Any = None) -> Any:
    """2-D convolution of a float32 image with a k x k filter (k = 3, 5, 7), borders clamped.

    out[r][c] = sum_ij filter[i][j] * x[clamp(r+i-k//2)][clamp(c+j-k//2)]. The filter is
    host values (a nested list, or any array with ``tolist``); it is copied before return.
    """
    k, flat = _filter_values(filter)
    _ext.check_variant("stencil2d", variant)
    s = _stream(stream, x)
    a = _input(x, "x", s, ndim=2)
    o = _output(a, out, "out", a.shape, _F32, s)
    device = _arrays.device_of((a, "x"), (o, "out"))
    if a.size:
        _ext.stencil2d(variant, a.ptr, o.ptr, a.shape[0], a.shape[1], flat, k, device, s)
    return o.obj


def axpy(a: float, x: Any, y: Any, *, variant: str = "best", stream: Any = None) -> Any:
    """y = a * x + y in place (float32, same shape; one fma per element). Returns ``y``."""
    done = _ext.axpy_fast(a, x, y, variant, stream, True)
    if done is not NotImplemented:
        return done
    _ext.check_variant("axpy", variant)
    s = _stream(stream, x)
    X = _input(x, "x", s)
    Y = _input(y, "y", s)
    _writable(Y, "y")
    if tuple(X.shape) != tuple(Y.shape):
        raise ValueError(f"x and y must have the same shape, not {X.shape} and {Y.shape}.")
    device = _arrays.device_of((X, "x"), (Y, "y"))
    if X.size:
        _ext.axpy(variant, float(a), X.ptr, Y.ptr, X.size, device, s)
    return y


_BF16 = ("bfloat16",)


def attention(q: Any, k: Any, v: Any, causal: bool = False, scale: Optional[float] = None,
              out: Any = None, *, variant: str = "best", stream: Any = None) -> Any:
    """Attention forward: out = softmax(q k^T scale, causal mask) v per head, bfloat16.

    ``q`` is (batch, seq_q, heads, head_dim), ``k`` and ``v`` (batch, seq_k, kv_heads,
    head_dim), C-contiguous bfloat16 on one device, 16-byte aligned; kv_heads divides heads
    (query head h reads key/value head h // (heads // kv_heads)); head_dim is 64 or 128.
    ``scale`` defaults to 1/sqrt(head_dim). The causal mask is aligned to the bottom-right
    (query i sees keys j <= i + seq_k - seq_q); a query that sees no key gets zeros. Softmax
    statistics and accumulation are float32. Returns ``out`` (a new array like ``q`` when None).
    """
    _ext.check_variant("attention", variant)
    s = _stream(stream, q)
    Q = _input(q, "q", s, _BF16, ndim=4)
    K = _input(k, "k", s, _BF16, ndim=4)
    V = _input(v, "v", s, _BF16, ndim=4)
    batch, seq_q, heads, head_dim = Q.shape
    if tuple(K.shape) != tuple(V.shape):
        raise ValueError(f"k and v must have the same shape, not {tuple(K.shape)} and "
                         f"{tuple(V.shape)}.")
    if K.shape[0] != batch or K.shape[3] != head_dim:
        raise ValueError(f"k and v must be (batch={batch}, seq_k, kv_heads, "
                         f"head_dim={head_dim}), not {tuple(K.shape)}.")
    seq_k, kv_heads = K.shape[1], K.shape[2]
    if scale is None:
        scale = head_dim ** -0.5 if head_dim > 0 else 1.0
    o = _output(Q, out, "out", Q.shape, _BF16, s)
    device = _arrays.device_of((Q, "q"), (K, "k"), (V, "v"), (o, "out"))
    _ext.attention(variant, Q.ptr, K.ptr, V.ptr, o.ptr, batch, heads, kv_heads, seq_q, seq_k,
                   head_dim, bool(causal), float(scale), device, s)
    return o.obj


def variants(family: str) -> list:
    """The names ``variant=`` accepts for a kernel function ("softmax", "gemm", ...;
    "gemm_bf16" for gemm on bfloat16 inputs; ``families()`` lists them)."""
    return list(_ext.variants(family))


def families() -> list:
    """The kernel families, from memhier's registry: one dict each, with ``name`` (what
    ``variants()`` takes), ``family`` (the ladder's name in reports), ``title``,
    ``number_type`` ("fp32" or "bf16"), ``bound`` ("memory" or "compute"),
    ``comparison_shapes`` and ``variants``."""
    return [dict(f) for f in _ext.families()]
