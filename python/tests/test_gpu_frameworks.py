"""The kernels on CuPy, Numba and JAX arrays (each skipped when absent or without a GPU):
their protocols, their allocators for outputs and, for CuPy, its current stream."""

import numpy as np
import pytest

import memhier

if memhier.device_count() == 0:
    pytest.skip("no CUDA device", allow_module_level=True)


def softmax_ref(x):
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def rel_err(got, want):
    got = np.asarray(got, dtype=np.float64)
    return np.linalg.norm(got - want) / np.linalg.norm(want)


def host_input(shape, seed=1):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_cupy_arrays_outputs_and_current_stream():
    cp = pytest.importorskip("cupy")
    h = host_input((33, 1027))
    x = cp.asarray(h)
    y = memhier.softmax(x)
    assert isinstance(y, cp.ndarray) and y.dtype == cp.float32
    assert rel_err(y.get(), softmax_ref(h)) < 1e-5
    bins = memhier.histogram256(cp.asarray((np.arange(1000) % 256).astype(np.uint8)))
    assert bins.dtype == cp.uint32 and int(bins.sum()) == 1000
    # A non-blocking stream is current: the kernel must queue behind the copy made on it.
    s = cp.cuda.Stream(non_blocking=True)
    big = host_input((512, 4096), seed=2)
    with s:
        xs = cp.empty_like(cp.asarray(big))
        xs.set(big, stream=s)
        ys = memhier.softmax(xs)
        s.synchronize()
    assert rel_err(ys.get(), softmax_ref(big)) < 1e-5


def test_numba_device_arrays():
    cuda = pytest.importorskip("numba.cuda")
    if not cuda.is_available():
        pytest.skip("numba sees no CUDA device")
    h = host_input((9, 130))
    y = memhier.transpose(cuda.to_device(h))
    cuda.synchronize()
    assert np.array_equal(y.copy_to_host(), h.T)


def test_jax_arrays_through_dlpack():
    jax = pytest.importorskip("jax")
    if jax.devices()[0].platform != "gpu":
        pytest.skip("JAX runs on the CPU here")
    import jax.numpy as jnp
    h = host_input((17, 515))
    x = jnp.asarray(h)
    try:
        y = memhier.softmax(x)
    except ValueError as e:  # JAX may export its (immutable) buffers read-only
        assert "read-only" in str(e)
        pytest.skip(f"JAX outputs are read-only here: {e}")
    assert rel_err(np.asarray(y), softmax_ref(h)) < 1e-5
