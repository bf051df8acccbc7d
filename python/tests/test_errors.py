"""Array checks answer in one sentence before any GPU work (host arrays, fake interfaces)."""

import numpy as np
import pytest

import memhier
from memhier import _arrays


class FakeCAI:
    """A __cuda_array_interface__ with a made-up address: only its metadata is read."""

    def __init__(self, shape, typestr="<f4", strides=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (256, False),
                                         "strides": strides, "version": 3}


def test_not_an_array_is_a_type_error():
    with pytest.raises(TypeError, match="__dlpack__ or __cuda_array_interface__"):
        memhier.softmax([1.0, 2.0])


def test_wrong_dtype_is_a_type_error():
    with pytest.raises(TypeError, match="float32, not float64"):
        memhier.softmax(np.zeros((2, 3)))
    with pytest.raises(TypeError, match="uint8 or int32, not float32"):
        memhier.histogram256(FakeCAI((7,)))


def test_host_memory_is_a_value_error():
    with pytest.raises(ValueError, match="host memory"):
        memhier.softmax(np.ones((2, 3), dtype=np.float32))


def test_wrong_rank_and_non_contiguous_are_value_errors():
    with pytest.raises(ValueError, match="2 dimensions, not 1"):
        memhier.transpose(FakeCAI((5,)))
    with pytest.raises(ValueError, match="C-contiguous"):
        memhier.softmax(FakeCAI((4, 3), strides=(4, 16)))  # a transposed view
    with pytest.raises(ValueError, match="C-contiguous"):
        memhier.softmax(np.ones((4, 6), dtype=np.float32)[:, ::2])


def test_gemm_shape_and_beta_checks():
    with pytest.raises(ValueError, match="must agree"):
        memhier.gemm(FakeCAI((3, 4)), FakeCAI((5, 2)))
    with pytest.raises(ValueError, match="beta must be 0"):
        memhier.gemm(FakeCAI((3, 4)), FakeCAI((4, 2)), beta=1.0)
    with pytest.raises(ValueError, match="unit stride"):
        memhier.gemm(FakeCAI((3, 4), strides=(4, 12)), FakeCAI((4, 2)), c=FakeCAI((3, 2)))


def test_gemm_epilogue_is_the_bf16_ladders():
    # float32 inputs: no bias, no bfloat16 C.
    with pytest.raises(TypeError, match="bias is an epilogue of the bfloat16 GEMM"):
        memhier.gemm(FakeCAI((3, 4)), FakeCAI((4, 2)), bias=FakeCAI((2,)))
    with pytest.raises(ValueError, match="dtype must be one of float32"):
        memhier.gemm(FakeCAI((3, 4)), FakeCAI((4, 2)), dtype="bfloat16")


def test_filter_and_op_checks():
    with pytest.raises(ValueError, match="3x3, 5x5 or 7x7"):
        memhier.stencil2d(FakeCAI((8, 8)), [[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="'sum' or 'max'"):
        memhier.reduce(FakeCAI((8,)), op="mean")
    with pytest.raises(ValueError, match="same shape"):
        memhier.axpy(2.0, FakeCAI((8,)), FakeCAI((9,)))


def test_contiguity_rule():
    a = _arrays.Array(None, 0, (4, 1, 3), (3, 7, 1), "float32", 0, "cuda", None)
    assert a.contiguous()  # a unit extent's stride does not matter
    assert not a._replace(strides=(1, 3, 4)).contiguous()


def test_stream_handles():
    class TorchLike:
        cuda_stream = 1234

    class Protocol:
        def __cuda_stream__(self):
            return (0, 99)

    assert _arrays.stream_handle(None) == 0
    assert _arrays.stream_handle(7) == 7
    assert _arrays.stream_handle(TorchLike()) == 1234
    assert _arrays.stream_handle(Protocol()) == 99
    with pytest.raises(TypeError, match="stream"):
        _arrays.stream_handle("fast")


def test_variants_lists_the_ladders():
    fams = memhier.families()
    # Every kernel function of the package is a family the registry names.
    names = {f["name"] for f in fams}
    assert {"softmax", "transpose", "gemm", "gemm_bf16", "reduce", "histogram256", "stencil2d",
            "axpy"} <= names
    for f in fams:
        assert callable(getattr(memhier, f["name"], None)) or f["name"] == "gemm_bf16"
        variants = memhier.variants(f["name"])
        assert variants == f["variants"] and variants[-1] == "best" and len(variants) >= 3
        assert f["number_type"] in ("fp32", "bf16") and f["bound"] in ("memory", "compute")
    assert "cublas_tf32_reference" not in memhier.variants("gemm")  # a bench line, not a kernel
    with pytest.raises(memhier.InputError, match="^unknown kernel family 'fft'; known: .*softmax"):
        memhier.variants("fft")


def test_wrong_variant_is_named_before_any_device_work():
    with pytest.raises(memhier.InputError, match=r"^unknown softmax variant 'nope'; known: naive"):
        memhier.softmax(FakeCAI((4, 3)), variant="nope")
    with pytest.raises(memhier.InputError, match=r"^unknown gemm variant 'x'"):
        memhier.gemm(FakeCAI((3, 4)), FakeCAI((4, 2)), variant="x")
    with pytest.raises(memhier.InputError, match=r"^unknown stencil2d variant"):
        memhier.stencil2d(FakeCAI((8, 8)), [[0.0] * 3] * 3, variant="")


@pytest.mark.skipif(memhier.device_count() > 0, reason="needs a machine without a GPU")
def test_a_kernel_call_without_a_gpu_is_no_device_error():
    with pytest.raises(memhier.NoDeviceError, match="needs a GPU"):
        memhier.softmax(FakeCAI((4, 3)))
    with pytest.raises(memhier.NoDeviceError, match="needs a GPU"):
        memhier.transpose(FakeCAI((4, 3)), out=FakeCAI((3, 4)))
