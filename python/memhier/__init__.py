"""memhier: the GPU memory hierarchy measured, explained and mastered.

- kernels on framework GPU arrays (PyTorch, CuPy, JAX, Numba; none imported here):
  softmax, transpose, gemm, reduce, histogram256, stencil2d, axpy, attention (families()
  lists them);
- the CPU models, no GPU needed: analyze_shared, analyze_global, occupancy;
- records as the JSON output: claims() (no GPU), probe(), bench(), tune(), report();
- explain([...argv]): your program's kernels under Nsight Compute, diagnosed against this card.
"""

from importlib.metadata import PackageNotFoundError, version as _version

from . import _ext
from .kernels import (attention, axpy, families, gemm, histogram256, reduce, softmax, stencil2d,
                      transpose, variants)
from .models import (GlobalAnalysis, InputError, Occupancy, SharedAnalysis, SharedFix,
                     analyze_global, analyze_shared, occupancy)
from .records import NoDeviceError, bench, claims, cli_path, explain, probe, report, tune

try:
    __version__ = _version("memhier")
except PackageNotFoundError:  # imported from a build tree
    __version__ = "unknown"


def device_count() -> int:
    """How many CUDA devices this process sees (0 without a GPU or a driver)."""
    return _ext.device_count()


__all__ = [
    "attention", "axpy", "families", "gemm", "histogram256", "reduce", "softmax", "stencil2d", "transpose",
    "variants",
    "GlobalAnalysis", "InputError", "Occupancy", "SharedAnalysis", "SharedFix", "analyze_global",
    "analyze_shared", "occupancy", "NoDeviceError", "bench", "claims", "cli_path", "explain",
    "probe", "report", "tune", "device_count",
]
