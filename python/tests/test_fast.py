"""The compiled fast path (python/src/fast.cpp) on a stand-in tensor type, no GPU needed:
the launch arguments it computes (``launch=False``) and every case it must leave to the
general path (NotImplemented), which owns the checks and their messages."""

import sys

import pytest

from memhier import _ext


class DType:
    def __init__(self, name):
        self.name = name


F32, U8, I32, U32, F64 = (DType(n) for n in ("float32", "uint8", "int32", "uint32", "float64"))
STREAMS = {0: 111, 1: 222}  # the "current stream" of each device


class T:
    """What the fast path reads of a PyTorch tensor."""

    made = []  # tensors new_empty made, to check what the fast path allocated

    def __init__(self, shape, dtype=F32, ptr=4096, device=0, cuda=True, contiguous=True):
        self.shape, self.dtype, self._ptr = tuple(shape), dtype, ptr
        self._device, self.is_cuda, self._contiguous = device, cuda, contiguous

    def get_device(self):
        return self._device

    def is_contiguous(self):
        return self._contiguous

    def data_ptr(self):
        return self._ptr

    def new_empty(self, shape, dtype=None):
        t = T(shape, dtype or self.dtype, ptr=self._ptr + (1 << 20), device=self._device)
        T.made.append(t)
        return t


class Other(T):
    """A type never registered: always the general path."""


_ext.register_torch(T, F32, U8, I32, U32, lambda device: STREAMS[device])


def plan(name, *args, stream=None):
    return getattr(_ext, f"{name}_fast")(*args, "best", stream, False)


def test_softmax_arguments_and_streams():
    x, out = T((3, 5, 7)), T((3, 5, 7), ptr=8192)
    assert plan("softmax", x, out) == (4096, 8192, 15, 7, 0, 111)
    assert plan("softmax", x, out, stream=5) == (4096, 8192, 15, 7, 0, 5)
    y = T((2, 3), device=1)
    assert plan("softmax", y, T((2, 3), device=1)) == (4096, 4096, 2, 3, 1, 222)
    assert plan("softmax", T((4, 0)), T((4, 0))) == (4096, 4096, 0, 0, 0, 111)


def test_outputs_are_allocated_like_the_input():
    T.made.clear()
    args = plan("softmax", T((2, 9)), None)
    assert len(T.made) == 1 and T.made[0].shape == (2, 9) and T.made[0].dtype is F32
    assert args[1] == 4096 + (1 << 20)
    assert plan("transpose", T((2, 9)), None)[:4] == (4096, 4096 + (1 << 20), 2, 9)
    assert T.made[-1].shape == (9, 2)
    assert plan("histogram256", T((10,), U8), None) == (4096, 10, 8, 4096 + (1 << 20), 0, 111)
    assert T.made[-1].shape == (256,) and T.made[-1].dtype is U32


def test_reduce_arguments_and_declines():
    T.made.clear()
    assert plan("reduce", T((3, 5)), "max", None) == ("max", 4096, 15, 4096 + (1 << 20), 0, 111)
    assert T.made[-1].shape == () and T.made[-1].dtype is F32
    assert plan("reduce", T((3, 5)), "sum", T((), ptr=64)) == ("sum", 4096, 15, 64, 0, 111)
    assert plan("reduce", T((3, 5)), "mean", None) is NotImplemented  # the op's message
    assert plan("reduce", T((3, 0)), "sum", None) is NotImplemented  # an empty array's
    assert plan("reduce", T((3, 5)), "sum", T((1,))) is NotImplemented  # out must be 0-d


def test_transpose_histogram_axpy_arguments():
    assert plan("transpose", T((2, 9)), T((9, 2), ptr=64)) == (4096, 64, 2, 9, 0, 111)
    assert plan("histogram256", T((5, 4), I32), T((256,), I32, ptr=64)) == (
        4096, 20, 32, 64, 0, 111)
    assert _ext.axpy_fast(2, T((6,)), T((6,), ptr=64), "best", None, False) == (
        2.0, 4096, 64, 6, 0, 111)
    assert _ext.axpy_fast(0.5, T((6,)), T((6,), ptr=64), "best", 9, False)[-1] == 9


NO = NotImplemented


@pytest.mark.parametrize("x, out, why", [
    (T((4, 4), F64), T((4, 4)), "input dtype"),
    (T((4, 4)), T((4, 4), F64), "output dtype"),
    (T((4, 4), contiguous=False), T((4, 4)), "a strided view"),
    (T((4, 4)), T((4, 4), contiguous=False), "a strided output"),
    (T((4, 4), cuda=False, device=-1), T((4, 4)), "host memory"),
    (T((4, 4), cuda=False, device=0), T((4, 4)), "another device kind with an index"),
    (T((4, 4)), T((4, 5)), "output shape"),
    (T((4, 4)), T((4, 4), device=1), "two devices"),
    (T(()), T(()), "a 0-d input"),
    (Other((4, 4)), T((4, 4)), "an unregistered input type"),
    (T((4, 4)), Other((4, 4)), "an unregistered output type"),
    (T((4, 4)), [1.0], "an output that is no tensor"),
])
def test_softmax_declines(x, out, why):
    assert plan("softmax", x, out) is NO, why


def test_declines_what_the_general_path_must_explain():
    x, out = T((4, 4)), T((4, 4))
    assert plan("softmax", x, out, stream=object()) is NO  # stream objects convert in Python
    assert plan("softmax", x, out, stream=-1) is NO
    assert _ext.softmax_fast(x, out, None, None, False) is NO  # variant= must be a name
    assert plan("softmax", T((1 << 31, 1)), T((1 << 31, 1))) is NO  # rows past int
    assert plan("transpose", T((4,)), T((4,))) is NO
    assert plan("transpose", x, T((4, 4), ptr=64)) is not NO
    assert plan("transpose", T((4, 3)), T((4, 3))) is NO  # out must be 3 x 4
    assert plan("histogram256", T((8,)), None) is NO  # float32 has no histogram
    assert plan("histogram256", T((8,), U8), T((255,), U32)) is NO
    assert _ext.axpy_fast("2", T((6,)), T((6,)), "best", None, False) is NO
    assert _ext.axpy_fast(2.0, T((6,)), T((7,)), "best", None, False) is NO
    assert _ext.axpy_fast(2.0, T((6,)), T((6,), device=1), "best", None, False) is NO


def test_a_type_without_a_stream_accessor_needs_stream():
    class NoStream(T):
        pass

    _ext.register_torch(NoStream, F32, None, None, None, None)
    x, out = NoStream((2, 2)), NoStream((2, 2))
    assert plan("softmax", x, out) is NO
    assert plan("softmax", x, out, stream=3)[-1] == 3
    assert plan("histogram256", NoStream((2,), U8), None, stream=3) is NO  # no uint8 known


def test_holds_no_references():
    x, out = T((8, 8)), T((8, 8))
    before = sys.getrefcount(x), sys.getrefcount(out), sys.getrefcount(x.shape)
    for _ in range(1000):
        plan("softmax", x, out)
        plan("softmax", T((8, 8), F64), out)
    assert (sys.getrefcount(x), sys.getrefcount(out), sys.getrefcount(x.shape)) == before
