"""Device arrays from any framework, without importing one.

An input is read through the first protocol it offers: a PyTorch tensor through its own
attributes (``data_ptr()``, ``stride()``: the cheapest path), then
``__cuda_array_interface__`` (CuPy, Numba, PyTorch), then ``__dlpack__`` (JAX, PyTorch,
CuPy, NumPy). A framework module is used only when it is already in ``sys.modules``:
the caller's array proves it is loaded.

Streams. Without ``stream=``, a kernel runs on the caller's current stream: PyTorch's
current stream for a tensor, CuPy's current stream for a CuPy array, the stream a
``__cuda_array_interface__`` names, and otherwise the default (legacy) stream; a
``__dlpack__`` producer is asked to make its data ready on that stream.

Outputs. Without ``out=``, the output comes from the first input's framework:
``x.new_empty`` (PyTorch), ``cupy.empty`` (CuPy), ``x.__array_namespace__().empty``
(array-API arrays such as JAX's), ``numba.cuda.device_array`` (Numba); any other type
needs ``out=``.
"""

from __future__ import annotations

import sys
from typing import Any, NamedTuple, Optional, Sequence, Tuple

from . import _ext

_KDLCUDA = 2  # DLPack's device type for CUDA device memory
_DLPACK_DTYPES = {(2, 32): "float32", (1, 8): "uint8", (0, 32): "int32", (1, 32): "uint32",
                  (0, 64): "int64", (2, 64): "float64", (2, 16): "float16", (4, 16): "bfloat16",
                  (0, 8): "int8", (1, 16): "uint16", (0, 16): "int16", (6, 8): "bool"}
_TYPESTRS = {"f4": "float32", "u1": "uint8", "i4": "int32", "u4": "uint32", "i8": "int64",
             "f8": "float64", "f2": "float16", "i1": "int8", "b1": "bool"}
_ITEMSIZE = {"float32": 4, "uint8": 1, "int32": 4, "uint32": 4, "bfloat16": 2}


class Array(NamedTuple):
    """What a kernel needs of one array: address, extents, strides in elements, dtype."""

    obj: Any                       # the caller's object
    ptr: int                       # address of element 0 (bytes)
    shape: Tuple[int, ...]
    strides: Optional[Tuple[int, ...]]  # in elements; None = C-contiguous
    dtype: str                     # "float32", ... or the framework's name when unknown
    device: Optional[int]          # CUDA ordinal; None when not in CUDA device memory
    where: str                     # "cuda" or a description of where the memory is
    keep: Any                      # a DLPack capsule to hold while the kernel is queued
    writable: bool = True          # False when a DLPack producer flags the memory read-only

    @property
    def size(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def contiguous(self) -> bool:
        """True when the elements are dense in row-major order."""
        if self.strides is None:
            return True
        expect = 1
        for extent, stride in zip(reversed(self.shape), reversed(self.strides)):
            if extent != 1 and stride != expect:
                return False
            expect *= extent
        return True


def _root(x: Any) -> str:
    """The top-level package that defines ``x``'s type ("torch", "cupy", ...)."""
    return type(x).__module__.split(".", 1)[0]


_torch_types: set = set()  # the PyTorch tensor types met so far (a set lookup per call)


def _is_torch(x: Any) -> bool:
    t = type(x)
    if t in _torch_types:
        return True
    if _root(x) == "torch" and hasattr(x, "data_ptr") and "torch" in sys.modules:
        _torch_types.add(t)
        _register_fast(t)
        return True
    return False


def _register_fast(t: type) -> None:
    """Lets the compiled fast path (python/src/fast.cpp) take tensors of type ``t``."""
    torch = sys.modules["torch"]
    raw_stream = getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)
    _ext.register_torch(t, *(getattr(torch, n, None) for n in ("float32", "uint8", "int32",
                                                               "uint32")), raw_stream)


# Array(...) through tuple.__new__: a NamedTuple's own constructor is a Python function
# and costs as much as the rest of a kernel call's checks.
_new_array = tuple.__new__


def stream_handle(stream: Any) -> int:
    """The cudaStream_t of ``stream``: an int, or an object with ``__cuda_stream__``,
    ``cuda_stream`` (PyTorch), ``ptr`` (CuPy) or ``handle`` (Numba)."""
    if stream is None:
        return 0
    if isinstance(stream, int):
        return stream
    if hasattr(stream, "__cuda_stream__"):
        return int(stream.__cuda_stream__()[1])
    for attr in ("cuda_stream", "ptr"):
        value = getattr(stream, attr, None)
        if isinstance(value, int):
            return value
    handle = getattr(stream, "handle", None)
    if handle is not None:
        value = getattr(handle, "value", handle)
        return int(value or 0)
    raise TypeError(f"stream must be an int or a stream object, not {type(stream).__name__}.")


_torch_raw_stream = None  # torch._C._cuda_getCurrentRawStream, found on first use


def _torch_stream(device_index: int) -> int:
    """PyTorch's current stream on a device, through its cheapest accessor."""
    global _torch_raw_stream
    if _torch_raw_stream is None:
        torch = sys.modules["torch"]
        _torch_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None) or (
            lambda i: torch.cuda.current_stream(i).cuda_stream)
    return int(_torch_raw_stream(device_index))


def caller_stream(x: Any) -> int:
    """The stream the caller of a kernel on ``x`` works on (0: the default stream)."""
    if _is_torch(x):
        index = x.get_device()  # -1 outside CUDA memory
        return _torch_stream(index) if index >= 0 else 0
    root = _root(x)
    if root == "cupy" and "cupy" in sys.modules:
        return int(sys.modules["cupy"].cuda.get_current_stream().ptr)
    cai = getattr(x, "__cuda_array_interface__", None) if root != "jax" else None
    if isinstance(cai, dict) and cai.get("stream") is not None:
        return int(cai["stream"])
    return 0


_torch_dtype_names: dict = {}  # torch.dtype -> "float32", filled as dtypes are met


def _from_torch(x: Any, name: str) -> Array:
    """A PyTorch tensor through its own accessors (C calls, no protocol objects)."""
    dtype = _torch_dtype_names.get(x.dtype)
    if dtype is None:
        dtype = _torch_dtype_names.setdefault(x.dtype, str(x.dtype).replace("torch.", ""))
    index = x.get_device()
    cuda = index >= 0 and x.is_cuda
    # Strides only where they matter: None says C-contiguous without a loop in Python.
    strides = None if x.is_contiguous() else x.stride()
    return _new_array(Array, (x, x.data_ptr(), x.shape, strides, dtype, index if cuda else None,
                              "cuda" if cuda else f"{x.device} memory", None, True))


def _from_cai(x: Any, cai: dict, name: str) -> Array:
    """An object with ``__cuda_array_interface__`` (its device is asked of the driver later)."""
    typestr = cai["typestr"]
    dtype = _TYPESTRS.get(typestr[1:], typestr)
    shape = tuple(int(s) for s in cai["shape"])
    strides = cai.get("strides")
    item = _ITEMSIZE.get(dtype, 1)
    if strides is not None:
        # Byte strides that are not whole elements cannot describe a dense array.
        strides = tuple(int(s) // item if int(s) % item == 0 else -1 for s in strides)
    ptr = int(cai["data"][0]) if cai.get("data") else 0
    return Array(x, ptr, shape, strides, dtype, -1, "cuda", None)  # device found later


def _from_dlpack(x: Any, name: str, stream: int) -> Array:
    """An object with ``__dlpack__``, asked to make its data ready on ``stream``."""
    dev_type, dev_id = x.__dlpack_device__()
    if dev_type == _KDLCUDA:
        s = stream if stream != 0 else 1  # DLPack spells the legacy default stream 1
        try:
            capsule = x.__dlpack__(stream=s, max_version=(1, 0))
        except TypeError:
            capsule = x.__dlpack__(stream=s)
    else:
        capsule = x.__dlpack__()  # host memory: no stream; read only to report errors
    ptr, shape, strides, code, bits, lanes, dev_type, dev_id, readonly = _ext.dlpack_info(capsule)
    dtype = _DLPACK_DTYPES.get((code, bits), f"DLPack type ({code}, {bits})")
    if lanes != 1:
        dtype = f"{dtype}x{lanes}"
    where = "cuda" if dev_type == _KDLCUDA else _device_words(dev_type)
    return Array(x, ptr, tuple(shape), strides, dtype,
                 dev_id if dev_type == _KDLCUDA else None, where, capsule, not readonly)


def _device_words(dev_type: int) -> str:
    """Where a DLPack device type's memory is, in words for an error message."""
    names = {1: "host memory", 3: "pinned host memory", 13: "CUDA managed memory",
             10: "ROCm memory", 4: "OpenCL memory"}
    return names.get(dev_type, f"DLPack device type {dev_type}")


def read(x: Any, name: str, stream: int) -> Array:
    """``x`` as an Array; TypeError when it offers no array protocol."""
    if _is_torch(x):
        return _from_torch(x, name)
    cai = getattr(x, "__cuda_array_interface__", None) if _root(x) != "jax" else None
    if isinstance(cai, dict):
        return _from_cai(x, cai, name)
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        return _from_dlpack(x, name, stream)
    raise TypeError(f"{name} must be a GPU array with __dlpack__ or __cuda_array_interface__, "
                    f"not {type(x).__name__}.")


def check(a: Array, name: str, dtypes: Sequence[str], ndim: Optional[int] = None,
          contiguous: bool = True) -> None:
    """Raises TypeError for a dtype not in ``dtypes``, ValueError for a wrong rank, a
    non-contiguous layout or memory outside a CUDA device (checked in that order)."""
    if a.dtype not in dtypes:
        raise TypeError(f"{name} must have dtype {' or '.join(dtypes)}, not {a.dtype}.")
    if ndim is not None and len(a.shape) != ndim:
        raise ValueError(f"{name} must have {ndim} dimension{'s' if ndim > 1 else ''}, "
                         f"not {len(a.shape)} (shape {a.shape}).")
    if contiguous and not a.contiguous():
        raise ValueError(f"{name} must be C-contiguous (strides {a.strides} for shape "
                         f"{a.shape}); pass a contiguous copy, e.g. x.contiguous().")
    if a.where != "cuda":
        raise ValueError(f"{name} is in {a.where}; memhier's kernels need CUDA device memory.")


def device_of(*named: Tuple[Array, str]) -> int:
    """The one CUDA device the (array, name) pairs live on; ValueError when they differ."""
    # -1: a __cuda_array_interface__ names no device; the driver knows the pointer's.
    devices = [a.device if a.device != -1 else _ext.pointer_device(a.ptr) if a.ptr else 0
               for a, _ in named]
    first = devices[0]
    for d in devices:
        if d != first:
            names = ", ".join(f"{n} on cuda:{d}" for (_, n), d in zip(named, devices))
            raise ValueError(f"the arrays are on different devices ({names}).")
    return first


def empty_like(x: Any, shape: Tuple[int, ...], dtype: str, device: int) -> Any:
    """A new uninitialized array of ``shape`` and ``dtype`` from ``x``'s framework."""
    root = _root(x)
    if root == "torch" and hasattr(x, "new_empty") and "torch" in sys.modules:
        return x.new_empty(shape, dtype=getattr(sys.modules["torch"], dtype))
    if root == "cupy" and "cupy" in sys.modules:
        cp = sys.modules["cupy"]
        with cp.cuda.Device(device):
            return cp.empty(shape, dtype=dtype)
    if hasattr(x, "__array_namespace__"):
        xp = x.__array_namespace__()
        return xp.empty(shape, dtype=getattr(xp, dtype), device=x.device)
    if root in ("numba", "numba_cuda") and "numba" in sys.modules:
        return sys.modules["numba"].cuda.device_array(shape, dtype=dtype)
    raise TypeError(f"cannot allocate an output like a {type(x).__name__} (it has no known "
                    f"framework constructor); pass out=.")
