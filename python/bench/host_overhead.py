#!/usr/bin/env python3
"""Host microseconds a kernel call spends before its launch, measured without a GPU.

A stand-in for PyTorch (a module named ``torch`` whose tensor type answers ``dtype``,
``is_cuda``, ``get_device()``, ``is_contiguous()``, ``data_ptr()``, ``shape`` and
``new_empty``, and whose ``_C._cuda_getCurrentRawStream`` returns a handle) is put in
``sys.modules``; the launches are replaced by no-ops (``_ext.softmax`` etc. for the
general path, the ``*_fast`` functions with ``launch=False`` for the fast path). Run it
on a machine without torch: it refuses to shadow a real one.

    python3 python/bench/host_overhead.py [--calls 200000]
"""

import argparse
import importlib.util
import statistics
import sys
import time
import types

if importlib.util.find_spec("torch") is not None:
    sys.exit("host_overhead: a real torch is installed; run python/bench/bench_vs_torch.py.")


class _DType:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


class Tensor:
    """The attributes memhier reads of a CUDA tensor (plain Python: about torch's cost)."""

    __slots__ = ("shape", "dtype", "_ptr")
    is_cuda = True

    def __init__(self, shape, dtype, ptr):
        self.shape, self.dtype, self._ptr = shape, dtype, ptr

    def get_device(self):
        return 0

    def is_contiguous(self):
        return True

    def data_ptr(self):
        return self._ptr

    def new_empty(self, shape, dtype=None):
        return Tensor(tuple(shape), dtype or self.dtype, self._ptr + (1 << 20))


def _fake_torch():
    torch = types.ModuleType("torch")
    for name in ("float32", "uint8", "int32", "uint32"):
        setattr(torch, name, _DType(name))
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: 0)
    Tensor.__module__ = "torch"
    torch.Tensor = Tensor
    return torch


def _per_call_us(f, calls, batches=7):
    f()
    times = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(calls):
            f()
        times.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=100_000)
    args = parser.parse_args()
    torch = sys.modules["torch"] = _fake_torch()
    import memhier
    from memhier import _ext, kernels

    x = Tensor((1, 32), torch.float32, 1 << 20)
    out = Tensor((1, 32), torch.float32, 2 << 20)
    noop = lambda *a: None  # noqa: E731
    fast = getattr(_ext, "softmax_fast", None)
    # The general path: kernels.py's checks with the launch replaced.
    real = types.SimpleNamespace(**{k: getattr(_ext, k) for k in dir(_ext)
                                    if not k.startswith("__")})
    patched = types.SimpleNamespace(**vars(real))
    patched.softmax = noop
    if fast is not None:  # the fast path asked for its launch arguments instead
        patched.softmax_fast = lambda x, o, v, s, launch: fast(x, o, v, s, False)
    kernels._ext = patched
    try:
        rows = {
            "softmax(x, out)": _per_call_us(lambda: memhier.softmax(x, out), args.calls),
            "softmax(x)": _per_call_us(lambda: memhier.softmax(x), args.calls),
        }
        # Absent or declining (a package without the fast path): no row for it.
        if fast is not None and fast(x, out, "best", None, False) is not NotImplemented:
            assert fast(x, out, "best", None, False) == (1 << 20, 2 << 20, 1, 32, 0, 0)
            rows["_ext.softmax_fast(x, out) alone"] = _per_call_us(
                lambda: fast(x, out, "best", None, False), args.calls)
    finally:
        kernels._ext = real
    print(f"python {sys.version.split()[0]}, {args.calls} calls x 7 batches, median "
          f"host us per call before the launch:")
    for name, us in rows.items():
        print(f"  {name:34s} {us:6.2f}")


if __name__ == "__main__":
    main()
