"""asarray from the buffer protocol, __array_interface__, __cuda_array_interface__ and Python values."""

from __future__ import annotations

import array
import ctypes
import gc
import mmap

import numpy as np
import pytest

import dlarray


def _address_of(buffer_object) -> int:
    return np.frombuffer(buffer_object, dtype=np.uint8).__array_interface__["data"][0]


def test_bytes_is_read_only_uint8_zero_copy() -> None:
    data = b"hello world"
    x = dlarray.asarray(data)
    assert x.dtype is dlarray.uint8 and x.shape == (11,) and x.readonly
    assert x.data_ptr == _address_of(data)
    with pytest.raises(ValueError, match="read-only"):
        x[0] = 1


def test_bytearray_is_writable_and_pinned() -> None:
    data = bytearray(b"abc")
    x = dlarray.asarray(data)
    assert not x.readonly and x.data_ptr == _address_of(data)
    x[0] = ord("z")
    assert data == bytearray(b"zbc")
    with pytest.raises(BufferError):
        data.extend(b"more")  # exported buffers cannot move
    del x
    gc.collect()
    data.extend(b"more")  # released exactly when the Array is gone


@pytest.mark.parametrize(
    ("code", "dtype"),
    [("b", dlarray.int8), ("B", dlarray.uint8), ("h", dlarray.int16), ("i", dlarray.int32),
     ("l", dlarray.int64), ("q", dlarray.int64), ("Q", dlarray.uint64), ("f", dlarray.float32),
     ("d", dlarray.float64)],
)
def test_array_array_dtypes(code: str, dtype) -> None:
    values = array.array(code, [1, 2, 3])
    x = dlarray.asarray(values)
    assert x.dtype is dtype
    assert np.array_equal(np.asarray(x), np.array([1, 2, 3]))
    assert x.data_ptr == values.buffer_info()[0]


def test_strided_memoryview() -> None:
    base = np.arange(24, dtype=np.int16).reshape(4, 6)
    x = dlarray.asarray(memoryview(base[::2, 1::2]))
    assert x.shape == (2, 3) and x.strides == (12, 2)
    assert np.array_equal(np.asarray(x), base[::2, 1::2])
    backwards = dlarray.asarray(memoryview(bytearray(range(10)))[::-3])
    assert backwards.strides == (-3,)
    assert list(np.asarray(backwards)) == [9, 6, 3, 0]


def test_memoryview_cast_and_mmap() -> None:
    raw = bytearray(range(16))
    x = dlarray.asarray(memoryview(raw).cast("I"))
    assert x.dtype is dlarray.uint32 and x.shape == (4,)
    m = mmap.mmap(-1, 64)
    y = dlarray.asarray(m)
    assert y.shape == (64,) and not y.readonly
    del y
    gc.collect()
    m.close()


def test_misaligned_strides_are_refused() -> None:
    raw = np.zeros(10, dtype=np.uint8)
    odd = np.lib.stride_tricks.as_strided(raw.view(np.int16)[:2], shape=(3,), strides=(3,))
    with pytest.raises(BufferError, match="multiples"):
        dlarray.asarray(memoryview(odd))


def test_non_native_byte_order_is_refused() -> None:
    big = np.arange(3, dtype=">i4")
    with pytest.raises((BufferError, TypeError)):
        dlarray.asarray(memoryview(big))


class _Interface:
    def __init__(self, **spec):
        self.__array_interface__ = {"version": 3, **spec}


def test_array_interface_v3() -> None:
    backing = np.arange(12, dtype=np.float32).reshape(3, 4)
    obj = _Interface(shape=(3, 2), typestr="<f4", data=(backing.ctypes.data + 4, False),
                     strides=(16, 8))
    x = dlarray.asarray(obj)
    assert x.data_ptr == backing.ctypes.data + 4
    assert x.strides == (4, 2)
    assert np.array_equal(np.asarray(x), backing[:, 1::2])
    ro = dlarray.asarray(_Interface(shape=(2,), typestr="<f4", data=(backing.ctypes.data, True)))
    assert ro.readonly


def test_array_interface_refusals() -> None:
    with pytest.raises(BufferError, match="mask"):
        dlarray.asarray(_Interface(shape=(1,), typestr="<f4", data=(8, False), mask=object()))
    with pytest.raises(BufferError, match="typestr"):
        dlarray.asarray(_Interface(shape=(1,), typestr="<M8", data=(8, False)))
    with pytest.raises(BufferError, match="NULL"):
        dlarray.asarray(_Interface(shape=(2,), typestr="<f4", data=(0, False)))


class _CudaInterface:
    def __init__(self, version: int = 3, **spec):
        self.__cuda_array_interface__ = {"version": version, **spec}


@pytest.mark.parametrize("version", [2, 3])
def test_cuda_array_interface_is_metadata_only(version: int) -> None:
    # A pointer the host must never dereference.
    obj = _CudaInterface(version, shape=(4, 4), typestr="<f2", data=(0xDEAD0000, False), strides=None,
                         stream=None)
    x = dlarray.asarray(obj)
    assert x.device.type == dlarray.DLDeviceType.CUDA
    assert x.dtype is dlarray.float16 and x.data_ptr == 0xDEAD0000 and x.strides == (4, 1)
    assert x[1:, 2].data_ptr == 0xDEAD0000 + (4 + 2) * 2
    with pytest.raises(TypeError):
        np.asarray(x)


def test_cuda_array_interface_unknown_version() -> None:
    with pytest.raises(BufferError, match="version"):
        dlarray.asarray(_CudaInterface(9, shape=(1,), typestr="<f4", data=(8, False)))


def test_python_values_are_copied_with_default_dtypes() -> None:
    assert dlarray.asarray(True).dtype is dlarray.bool
    assert dlarray.asarray(3).dtype is dlarray.int64
    assert dlarray.asarray(3.5).dtype is dlarray.float64
    assert dlarray.asarray(1j).dtype is dlarray.complex128
    nested = dlarray.asarray([[1, 2], [3, 4]])
    assert nested.shape == (2, 2) and nested.dtype is dlarray.int64
    assert dlarray.asarray([1.0, 2], dtype=dlarray.float32).dtype is dlarray.float32
    with pytest.raises(ValueError, match="copy=False"):
        dlarray.asarray([1, 2], copy=False)
    with pytest.raises(OverflowError):
        dlarray.asarray(2**70)
    with pytest.raises(TypeError):
        dlarray.asarray(["a", "b"])


def test_asarray_copy_semantics() -> None:
    a = np.arange(4.0)
    assert dlarray.asarray(a).data_ptr == a.ctypes.data
    assert dlarray.asarray(a, copy=False).data_ptr == a.ctypes.data
    copied = dlarray.asarray(a, copy=True)
    assert copied.data_ptr != a.ctypes.data and not copied.readonly
    with pytest.raises(ValueError, match="copy=False"):
        dlarray.asarray(a, dtype=dlarray.float32, copy=False)
    cast = dlarray.asarray(a, dtype=dlarray.float32)
    assert cast.dtype is dlarray.float32
    ro = dlarray.asarray(b"ab", copy=True)
    assert not ro.readonly


def test_unsupported_objects() -> None:
    with pytest.raises(TypeError, match="cannot make an array"):
        dlarray.asarray(object())
    with pytest.raises(TypeError):
        dlarray.asarray(np.array(["x"]))


def test_cuda_array_interface_export_round_trip() -> None:
    obj = _CudaInterface(3, shape=(4, 6), typestr="<f4", data=(0xBEEF000, False), strides=None, stream=None)
    x = dlarray.asarray(obj)
    view = x[1:, ::2]
    spec = view.__cuda_array_interface__
    assert spec["version"] == 3 and spec["typestr"] == "<f4"
    assert spec["shape"] == (3, 3) and spec["strides"] == (24, 8)
    assert spec["data"] == (0xBEEF000 + 24, False)
    assert x.__cuda_array_interface__["strides"] is None
    again = dlarray.asarray(view)  # dlarray consumes its own interface the same way
    assert again.data_ptr == view.data_ptr


def test_cuda_array_interface_absent_on_cpu() -> None:
    x = dlarray.asarray([1.0, 2.0])
    assert not hasattr(x, "__cuda_array_interface__")


def test_python_values_into_extended_dtypes() -> None:
    x = dlarray.asarray([1.0, 2.5, -3.0], dtype=dlarray.bfloat16)
    assert x.dtype is dlarray.bfloat16 and x.shape == (3,)
    assert list(np.asarray(dlarray.astype(x, dlarray.float32))) == [1.0, 2.5, -3.0]
