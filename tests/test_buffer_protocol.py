"""An Array as a bytes-like object: ``bytes(x)`` on every Python, the buffer protocol from 3.12.

``bytes(x)`` is the elements' raw bytes in C order (numpy's ``bytes(a)``, ``a.tobytes()``), never the
element values. From Python 3.12 (PEP 688) ``memoryview(x)`` and everything that takes a buffer
(``hashlib``, ``collections.abc.Buffer``, pyarrow's ``py_buffer``) read a CPU array zero-copy, through
numpy's buffer of the same memory: format, strides and read-only as numpy gives them. Memory not on
the host, and dtypes the buffer format cannot name, are refused.
"""

from __future__ import annotations

import collections.abc
import ctypes
import gc
import hashlib
import sys

import needs
import numpy as np
import pytest
from producer import make_capsule, poison_address

import dlarray as xp
from dlarray._dtypes import ALL_DTYPES

BUFFER_PROTOCOL = sys.version_info >= (3, 12)
needs_buffer_protocol = pytest.mark.skipif(not BUFFER_PROTOCOL, reason="PEP 688 (__buffer__) is Python 3.12+")

NUMPY_DTYPES = [d for d in ALL_DTYPES if d.numpy_dtype is not None]
BYTE_ALIGNED_EXTRA_DTYPES = [d for d in ALL_DTYPES if d.numpy_dtype is None and d.bits >= 8]


def _geometries() -> dict[str, xp.Array]:
    base = xp.asarray(np.arange(24, dtype=np.int32).reshape(4, 6))
    return {"contiguous": base, "strided": base[::2, 1::3], "reversed": base[::-1, ::-2], "transposed": base.T,
            "0-d": base[1, 2], "empty": base[:0]}


# --------------------------------------------------------------------------- bytes(), every Python
@pytest.mark.parametrize("dtype", NUMPY_DTYPES, ids=str)
def test_bytes_is_the_raw_bytes_in_c_order_as_numpy_gives_them(dtype: xp.DType) -> None:
    values = xp.astype(xp.asarray(np.arange(12).reshape(3, 4) % 5), dtype)
    for x in (values, values[::-1, 1::2], values.T):
        native = np.asarray(x)
        assert bytes(x) == bytes(native) == native.tobytes()
    # 0-d: numpy's bytes() of a 0-d integer array takes it as a length (b"" for 0); tobytes() does not
    assert bytes(values[1, 1]) == np.asarray(values[1, 1]).tobytes()


def test_bytes_of_an_integer_array_is_never_its_values() -> None:
    """What Python does for an iterable of integers (b'\\x01\\x02\\x03') would be a silent wrong result."""
    x = xp.asarray([1, 2, 3], dtype=xp.int16)
    assert bytes(x) == np.asarray([1, 2, 3], dtype=np.int16).tobytes() and len(bytes(x)) == 6
    assert bytes(xp.asarray([256, 1000])) == np.asarray([256, 1000]).tobytes()  # values >= 256 too
    assert bytes(xp.asarray(3)) == np.asarray(3).tobytes()  # a 0-d integer array is not a length


@pytest.mark.parametrize("dtype", BYTE_ALIGNED_EXTRA_DTYPES, ids=str)
def test_bytes_of_a_dtype_numpy_lacks_is_its_stored_bits(dtype: xp.DType) -> None:
    x = xp.astype(xp.asarray([[1.0, -2.0, 0.5], [4.0, 0.25, -1.0]]), dtype)
    bits = np.asarray(xp.astype(x, xp.float32))  # decoded values, to compare the round trip
    restored = xp.from_dlpack(make_capsule((2, 3), code=dtype.code, bits=dtype.bits, fill=bytes(x)).capsule)
    assert len(bytes(x)) == x.nbytes
    np.testing.assert_array_equal(np.asarray(xp.astype(restored, xp.float32)), bits)
    assert bytes(x.T) == b"".join(bytes(x[i, j]) for j in range(3) for i in range(2))  # C order of the view


def test_bytes_of_device_memory_is_refused_without_touching_it() -> None:
    made = make_capsule((4,), device=(2, 0), data_address=poison_address(), data_bytes=1)
    x = xp.from_dlpack(made.capsule)
    with pytest.raises(TypeError, match=r"cuda:0.*to_device\('cpu'\)"):
        bytes(x)


# --------------------------------------------------------------------------- the buffer protocol, 3.12+
@needs_buffer_protocol
@pytest.mark.parametrize("geometry", list(_geometries()))
def test_memoryview_is_numpys_buffer_of_the_same_memory(geometry: str) -> None:
    x = _geometries()[geometry]
    view = memoryview(x)
    # the reference: numpy's own buffer of the same memory, through DLPack (np.asarray would read
    # the Array's own buffer on 3.12+: numpy takes the buffer protocol first)
    native = np.from_dlpack(x)
    expected = memoryview(native)
    assert (view.format, view.itemsize, view.shape, view.strides, view.readonly) == (
        expected.format, expected.itemsize, expected.shape, expected.strides, expected.readonly)
    assert view.tolist() == native.tolist() and view.tobytes() == bytes(x)
    if x.size:
        assert np.asarray(view).ctypes.data == x.data_ptr  # zero-copy


@needs_buffer_protocol
@pytest.mark.parametrize("dtype", NUMPY_DTYPES, ids=str)
def test_every_numpy_dtype_has_numpys_format(dtype: xp.DType) -> None:
    x = xp.astype(xp.asarray([0, 1, 1]), dtype)
    assert memoryview(x).format == memoryview(np.from_dlpack(x)).format
    assert memoryview(x).nbytes == x.nbytes


@needs_buffer_protocol
def test_what_takes_a_buffer_takes_an_array() -> None:
    x = xp.asarray(np.arange(6, dtype=np.float64))
    assert isinstance(x, collections.abc.Buffer)
    assert hashlib.sha1(x).hexdigest() == hashlib.sha1(np.arange(6, dtype=np.float64)).hexdigest()
    assert bytearray(x) == bytearray(np.arange(6, dtype=np.float64))
    view = memoryview(x)
    view[0] = 42.0  # one memory: the write is the array's
    assert float(x[0]) == 42.0
    assert float(x[1]) == 1.0 and np.frombuffer(x, dtype=np.float64)[2] == 2.0


@needs_buffer_protocol
def test_read_only_arrays_give_read_only_buffers() -> None:
    x = xp.asarray(b"abcdefgh")
    view = memoryview(x)
    assert view.readonly and view.tobytes() == b"abcdefgh"
    with pytest.raises(TypeError):
        view[0] = 1
    with pytest.raises((TypeError, BufferError)):  # ctypes asks for a writable buffer
        (ctypes.c_char * 8).from_buffer(x)
    assert not memoryview(xp.asarray(bytearray(4))).readonly


@needs_buffer_protocol
def test_numpy_reads_the_buffer_first_and_keeps_the_array_alive() -> None:
    """numpy's np.asarray takes the buffer protocol before __array__ (3.12+): zero-copy, read-only
    kept, the same values and dtype, and the Array alive while numpy's array is."""
    x = xp.asarray(np.arange(6.0).reshape(2, 3))[:, ::2]
    native = np.asarray(x)
    assert native.ctypes.data == x.data_ptr and native.dtype == np.float64
    assert native.tolist() == [[0.0, 2.0], [3.0, 5.0]]
    assert np.asarray(xp.asarray(b"abc")).flags.writeable is False
    half = xp.astype(xp.asarray([1.0]), xp.bfloat16)
    if needs.absent("ml_dtypes"):
        with pytest.raises(TypeError, match="bfloat16"):  # no buffer format: numpy asks __array__, which refuses
            np.asarray(half)
    else:  # no buffer format: numpy asks __array__, which gives ml_dtypes' bfloat16 over the same memory
        assert np.asarray(half).dtype.name == "bfloat16" and np.asarray(half).ctypes.data == half.data_ptr


@needs_buffer_protocol
def test_a_released_view_lets_the_source_go() -> None:
    """The buffer a view took is given back at release: the bytearray can grow again once the
    arrays over it are gone (it refuses to while any export of its buffer lives)."""
    source = bytearray(16)
    x = xp.asarray(source)
    with memoryview(x) as view:
        view[0] = 7
    assert source[0] == 7
    del x
    gc.collect()
    source.extend(b"more")  # BufferError if a buffer were still exported
    assert len(source) == 20


@needs_buffer_protocol
def test_device_memory_and_formatless_dtypes_are_refused() -> None:
    made = make_capsule((4,), device=(2, 0), data_address=poison_address(), data_bytes=1)
    with pytest.raises(BufferError, match=r"cuda:0.*memory on the CPU"):
        memoryview(xp.from_dlpack(made.capsule))
    for dtype in BYTE_ALIGNED_EXTRA_DTYPES:
        with pytest.raises(BufferError, match=f"{dtype} has no buffer-protocol format"):
            memoryview(xp.astype(xp.asarray([1.0]), dtype))


@pytest.mark.skipif(BUFFER_PROTOCOL, reason="Python 3.11 only")
def test_before_3_12_an_array_is_no_buffer_and_says_so_through_python() -> None:
    """Python 3.11 gives classes written in Python no buffer protocol: memoryview() refuses, as
    the docs say; bytes() works all the same (through __bytes__)."""
    x = xp.asarray([1, 2], dtype=xp.uint8)
    with pytest.raises(TypeError):
        memoryview(x)
    assert bytes(x) == b"\x01\x02"


@needs_buffer_protocol
@needs.skip_without("pyarrow")
def test_pyarrow_reads_the_buffer_zero_copy() -> None:
    import pyarrow as pa

    x = xp.asarray(np.arange(4, dtype=np.int64))
    buffer = pa.py_buffer(x)
    assert buffer.address == x.data_ptr and buffer.size == x.nbytes
