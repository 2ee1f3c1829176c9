"""asarray from the buffer protocol, __array_interface__, __cuda_array_interface__ and Python values."""

from __future__ import annotations

import array
import ctypes
import gc
import mmap
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from producer import make_capsule

import dlarray
from dlarray import _cuda, _interfaces
from dlarray._dlpack import FLAG_READ_ONLY, DLDeviceType, consume_capsule, contiguous_strides


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


def test_misaligned_strides_are_copied_or_refused_for_copy_false() -> None:
    raw = np.arange(10, dtype=np.uint8)
    odd = np.lib.stride_tricks.as_strided(raw.view(np.int16)[:2], shape=(3,), strides=(3,))
    with pytest.raises(ValueError, match="multiples.*copy=False"):
        dlarray.asarray(memoryview(odd), copy=False)
    assert np.array_equal(np.asarray(dlarray.asarray(memoryview(odd))), odd)


def test_non_native_byte_order_is_copied_or_refused_for_copy_false() -> None:
    big = np.arange(3, dtype=">i4")
    with pytest.raises(ValueError, match="native byte order.*copy=False"):
        dlarray.asarray(memoryview(big), copy=False)
    x = dlarray.asarray(memoryview(big))
    assert x.dtype == dlarray.int32 and np.asarray(x).tolist() == [0, 1, 2]


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


# ============================================================================ one validation path
# Every way a buffer arrives (capsule, buffer protocol, __array_interface__,
# __cuda_array_interface__) passes dlarray._dlpack._validate.validate_fields: the same fields give
# the same verdict, and a refusal names the field whichever way it came. These tests compare
# descriptions (TensorInfo) only: nothing here builds an Array over a made-up pointer, so nothing
# can read it. Hostile buffer-protocol objects, which build Arrays, run in a child process.

INT64_MAX = (1 << 63) - 1
_NATIVE = "<" if sys.byteorder == "little" else ">"
#: (DLPack code, bits) -> the typestr that describes it
TYPESTR_OF = {(0, 8): "|i1", (1, 8): "|u1", (6, 8): "|b1"}
for _bits in (16, 32, 64):
    TYPESTR_OF[0, _bits] = f"{_NATIVE}i{_bits // 8}"
    TYPESTR_OF[1, _bits] = f"{_NATIVE}u{_bits // 8}"
    TYPESTR_OF[2, _bits] = f"{_NATIVE}f{_bits // 8}"
TYPESTR_OF[5, 64] = f"{_NATIVE}c8"
TYPESTR_OF[5, 128] = f"{_NATIVE}c16"


@pytest.fixture(scope="module", autouse=True)
def _no_cuda_driver():
    """The made-up CUDA pointers and streams here must never reach a real driver (the suite also
    runs on GPU machines): dlarray sees no driver, unless a test installs a recording fake."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_cuda, "_driver_state", [None])
        yield


class _ArrayInterface:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.__array_interface__ = spec


class _CudaArrayInterface:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.__cuda_array_interface__ = spec


small = st.integers(0, 5)
extents = st.one_of(small, small, small, small, st.integers(-3, -1),
                    st.sampled_from([2**31, 2**40, 2**62, INT64_MAX, -(2**63)]))
element_strides = st.one_of(st.integers(-8, 8), st.integers(-8, 8), st.integers(-8, 8),
                            st.sampled_from([2**40, 2**60, 2**62, INT64_MAX, -INT64_MAX, -(2**63)]))
pointers = st.one_of(st.sampled_from([0, 8, 4096, 2**47, 2**62, 2**63, 2**64 - 4096, 2**64 - 16, 2**64 - 1]),
                     st.integers(0, 2**64 - 1), st.integers(4096, 2**48), st.integers(2**64 - 256, 2**64 - 1),
                     st.integers(1, 256))


@st.composite
def descriptions(draw: Any) -> dict[str, Any]:
    """A tensor description, often hostile, that a capsule and both interfaces can all express."""
    shape = draw(st.one_of(st.lists(extents, max_size=5), st.lists(small, max_size=4),
                           st.lists(st.just(1), min_size=63, max_size=66)))
    strides = draw(st.one_of(st.none(), st.lists(element_strides, min_size=len(shape), max_size=len(shape))))
    code, bits = draw(st.sampled_from(sorted(TYPESTR_OF)))
    return {"shape": tuple(shape), "strides": None if strides is None else tuple(strides), "code": code,
            "bits": bits, "data": draw(pointers), "readonly": draw(st.booleans())}


def _verdict(describe: Any, where: str) -> tuple[Any, ...]:
    """("accepted", the TensorInfo's fields but the version) or (exception type, message with the
    source's name replaced): equal verdicts mean equal metadata, or the same refusal of the same field."""
    try:
        info, _owner = describe()
    except (BufferError, TypeError, ValueError) as exc:
        return type(exc), str(exc).replace(where, "<source>")
    return "accepted", tuple(info[:-1])


def _interface_spec(d: dict[str, Any], cuda: bool) -> dict[str, Any]:
    itemsize = d["bits"] // 8
    spec: dict[str, Any] = {
        "version": 3, "shape": d["shape"], "typestr": TYPESTR_OF[d["code"], d["bits"]],
        "data": (d["data"], d["readonly"]),
        "strides": None if d["strides"] is None else tuple(s * itemsize for s in d["strides"]),
    }
    if cuda:
        spec["stream"] = None
    return spec


def _capsule_verdict(d: dict[str, Any], device_type: int) -> tuple[Any, ...]:
    made = make_capsule(d["shape"], strides=d["strides"], code=d["code"], bits=d["bits"],
                        device=(device_type, 0), data_address=d["data"], data_bytes=1,
                        flags=FLAG_READ_ONLY if d["readonly"] else 0)
    return _verdict(lambda: consume_capsule(made.capsule), "DLPack tensor")


SAME_VERDICT_EXAMPLES = [
    {"shape": (2,), "strides": None, "code": 2, "bits": 32, "data": 2**64 - 4, "readonly": False},
    {"shape": (2**62, 4), "strides": None, "code": 2, "bits": 64, "data": 4096, "readonly": False},
    {"shape": (3,), "strides": (2**62,), "code": 2, "bits": 32, "data": 4096, "readonly": True},
    {"shape": (3, 2), "strides": (-(2**60), 1), "code": 1, "bits": 8, "data": 4096, "readonly": False},
    {"shape": (1,) * 65, "strides": None, "code": 1, "bits": 8, "data": 4096, "readonly": False},
    {"shape": (2, -1), "strides": None, "code": 0, "bits": 16, "data": 4096, "readonly": False},
    {"shape": (2,), "strides": None, "code": 0, "bits": 16, "data": 0, "readonly": False},
    {"shape": (0, 3), "strides": None, "code": 0, "bits": 16, "data": 0, "readonly": False},
    {"shape": (3,), "strides": (-4,), "code": 2, "bits": 32, "data": 8, "readonly": False},
    {"shape": (), "strides": None, "code": 2, "bits": 32, "data": 2**64 - 1, "readonly": False},
]


@settings(max_examples=300, deadline=None)
@given(descriptions())
@example(SAME_VERDICT_EXAMPLES[0])
@example(SAME_VERDICT_EXAMPLES[1])
@example(SAME_VERDICT_EXAMPLES[2])
@example(SAME_VERDICT_EXAMPLES[3])
@example(SAME_VERDICT_EXAMPLES[4])
@example(SAME_VERDICT_EXAMPLES[5])
@example(SAME_VERDICT_EXAMPLES[6])
@example(SAME_VERDICT_EXAMPLES[7])
@example(SAME_VERDICT_EXAMPLES[8])
@example(SAME_VERDICT_EXAMPLES[9])
def test_capsule_and_interfaces_give_the_same_verdict(d: dict[str, Any]) -> None:
    """The same description through a capsule and through each interface: accepted with equal
    metadata, or refused with the same exception naming the same field."""
    cpu, cuda = int(DLDeviceType.CPU), int(DLDeviceType.CUDA)
    through_capsule = _capsule_verdict(d, cpu)
    through_interface = _verdict(
        lambda: _interfaces.from_array_interface(_ArrayInterface(_interface_spec(d, cuda=False))),
        "__array_interface__")
    assert through_interface == through_capsule
    through_cuda_capsule = _capsule_verdict(d, cuda)
    through_cuda_interface = _verdict(
        lambda: _interfaces.from_cuda_array_interface(_CudaArrayInterface(_interface_spec(d, cuda=True))),
        "__cuda_array_interface__")
    assert through_cuda_interface == through_cuda_capsule
    if through_capsule[0] == "accepted":
        assert through_capsule[1][:4] == (d["data"], 0, d["shape"],
                                         d["strides"] if d["strides"] is not None else contiguous_strides(d["shape"]))


@pytest.mark.parametrize("pointer", [-8, -1, 2**64, 2**70])
@pytest.mark.parametrize("make", [_ArrayInterface, _CudaArrayInterface], ids=["array", "cuda"])
def test_a_pointer_that_is_not_an_address_is_refused(pointer: int, make: Any) -> None:
    with pytest.raises(BufferError, match=f"data pointer {pointer} that is not an address"):
        dlarray.asarray(make({"version": 3, "shape": (2,), "typestr": "<f4", "data": (pointer, False)}))
    with pytest.raises(BufferError, match="data pointer"):  # even for an empty array
        dlarray.asarray(make({"version": 3, "shape": (0,), "typestr": "<f4", "data": (pointer, False)}))


_GOOD = {"version": 3, "shape": (2, 3), "typestr": "<f4", "data": (4096, False), "strides": None}


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        ({"shape": (2.0, 3)}, TypeError, "'shape' entry must be an int, got float"),
        ({"shape": (True, 3)}, TypeError, "'shape' entry must be an int, got bool"),
        ({"shape": 6}, TypeError, "'shape' must be a tuple of ints"),
        ({"shape": None}, TypeError, "'shape' must be a tuple"),
        ({"strides": (12.0, 4)}, TypeError, "'strides' entry must be an int"),
        ({"strides": (12, 4, 1)}, ValueError, "'strides' .* 3 entries but 'shape'"),
        ({"data": (4096.0, False)}, TypeError, "data pointer must be an int, got float"),
        ({"data": (4096, False, 0)}, ValueError, "'data' must be a .* pair"),
        ({"data": [4096, False]}, TypeError, "'data' must be a"),
        ({"data": (4096, "no")}, TypeError, "read_only"),
        ({"data": (0, False)}, BufferError, "NULL data pointer"),
        ({"shape": (2, -3)}, BufferError, "negative dimension"),
        ({"shape": (2**61, 3)}, BufferError, "overflows int64 in bytes"),
        ({"strides": (2**63, 4)}, BufferError, "overflows int64 in bytes"),
        ({"data": (2**64 - 16, False)}, BufferError, "outside the address space"),
        ({"shape": (1,) * 65, "strides": None}, BufferError, "ndim=65"),
        ({"typestr": "<f16"}, BufferError, "typestr '<f16' has no DLPack dtype"),
        ({"typestr": "|V8"}, BufferError, "typestr '|V8'"),
        ({"typestr": "O"}, BufferError, "typestr 'O'"),
        ({"typestr": "|O8"}, BufferError, "typestr '|O8'"),
        ({"typestr": "<U4"}, BufferError, "typestr '<U4'"),
        ({"typestr": "<M8"}, BufferError, "typestr '<M8'"),
        ({"typestr": "<b2"}, BufferError, "typestr '<b2'"),
        ({"typestr": "<f٤"}, BufferError, "typestr"),
        ({"typestr": "xf4"}, BufferError, "typestr 'xf4' does not start with a byte order"),
        ({"typestr": "!f4"}, BufferError, "byte order"),
        ({"typestr": b"<f4"}, TypeError, "'typestr' must be a str"),
        ({"typestr": None}, TypeError, "'typestr' must be a str"),
    ],
)
@pytest.mark.parametrize("make", [_ArrayInterface, _CudaArrayInterface], ids=["array", "cuda"])
def test_interface_fields_are_checked_and_named(change: dict, error: type, message: str, make: Any) -> None:
    spec = {**_GOOD, **change}
    with pytest.raises(error, match=message):
        dlarray.asarray(make(spec))


_FOREIGN = ">" if sys.byteorder == "little" else "<"
#: descriptions that are valid but whose elements cannot be held where they lie, and the reason
NOT_AS_THEY_LIE = [
    ({"strides": (12, 3)}, "strides .* not multiples of the itemsize 4; DLPack counts strides in elements"),
    ({"typestr": _FOREIGN + "f4"}, "not in native byte order; DLPack has no byte order"),
]


@pytest.mark.parametrize(("change", "reason"), NOT_AS_THEY_LIE)
@pytest.mark.parametrize("make", [_ArrayInterface, _CudaArrayInterface], ids=["array", "cuda"])
def test_elements_that_cannot_be_held_as_they_lie_are_refused_only_for_copy_false(
    change: dict, reason: str, make: Any
) -> None:
    """Byte strides that are not multiples of the itemsize, or a foreign byte order: a copy can
    hold the elements; ``copy=False`` forbids it and hears why (nothing is read: the pointer is
    made up)."""
    spec = {**_GOOD, **change}
    with pytest.raises(ValueError, match=f"{reason}: it can only be copied, and copy=False forbids it"):
        dlarray.asarray(make(spec), copy=False)
    reader = _interfaces.from_array_interface if make is _ArrayInterface else _interfaces.from_cuda_array_interface
    with pytest.raises(BufferError, match=reason):  # what the reader says (CopyNeeded is a BufferError)
        reader(make(spec))


@pytest.mark.parametrize(("change", "reason"), NOT_AS_THEY_LIE)
def test_a_copy_of_cuda_elements_needs_cupy_and_says_why(
    change: dict, reason: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without cupy (the GPU is hidden here) the copy cannot be made: a TypeError with the reason.
    The description is valid, so the driver is asked where it lives and its stream is waited for,
    as for any CUDA interface; the made-up pointer is never read."""
    fake = _FakeDriver()
    monkeypatch.setattr(_cuda, "_driver_state", [fake])
    with pytest.raises(TypeError, match=f"{reason}; copying it: .*cupy"):
        dlarray.asarray(_CudaArrayInterface({**_GOOD, "stream": 0xC0FFEE, **change}))
    assert fake.calls == [("ordinal", 4096), ("synchronize", 0xC0FFEE)]


class _Described:
    """An object that describes another's memory through ``__array_interface__``, keeping it alive."""

    def __init__(self, source: np.ndarray) -> None:
        self.source = source
        self.__array_interface__ = source.__array_interface__


_RECORDS = np.array([(1.5, 7), (-2.0, 8), (3.25, 9)], dtype=[("a", "f8"), ("b", "i4")])
_SWAPPED = np.arange(6, dtype=_FOREIGN + "i4").reshape(2, 3)[:, ::2]


COPIED_SOURCES = {
    "memoryview of a field": (lambda: memoryview(_RECORDS["a"]), _RECORDS),
    "interface of a field": (lambda: _Described(_RECORDS["a"]), _RECORDS),
    "interface of a reversed field": (lambda: _Described(_RECORDS["a"][::-1]), _RECORDS),
    "memoryview in foreign order": (lambda: memoryview(_SWAPPED), _SWAPPED),
    "interface in foreign order": (lambda: _Described(_SWAPPED), _SWAPPED),
}


@pytest.mark.parametrize("copy", [None, True])
@pytest.mark.parametrize("source", list(COPIED_SOURCES))
def test_elements_that_cannot_be_held_as_they_lie_are_copied_when_copying_is_allowed(source: str, copy: Any) -> None:
    """A fresh, writable, C-order copy in native byte order with the values numpy reads; nothing
    of the source stays exported."""
    make, memory = COPIED_SOURCES[source]
    obj = make()
    expected = np.asarray(obj)
    x = dlarray.asarray(obj, copy=copy)
    assert np.array_equal(np.asarray(x), expected)
    assert x.dtype == dlarray.asarray(expected.astype(expected.dtype.newbyteorder("="))).dtype
    assert x.strides == contiguous_strides(x.shape) and not x.readonly
    assert not memory.ctypes.data <= x.data_ptr < memory.ctypes.data + memory.nbytes
    if isinstance(obj, memoryview):
        obj.release()  # refused while an export of it is held


def test_a_copy_reads_only_inside_the_objects_own_buffer() -> None:
    """An interface over its own buffer at odd byte steps: every byte the copy would read is
    checked to lie inside the buffer first, as for any description."""
    inside = _own_buffer({"shape": (2,), "typestr": "<f4", "strides": (6,)}, bytes(range(12)))
    assert np.asarray(dlarray.asarray(inside)).tobytes() == bytes(range(4)) + bytes(range(6, 10))
    past = _own_buffer({"shape": (3,), "typestr": "<f4", "strides": (5,)})  # reads bytes 10..13
    with pytest.raises(BufferError, match="reach past the object's buffer of 12"):
        dlarray.asarray(past)


@pytest.mark.parametrize("make", [_ArrayInterface, _CudaArrayInterface], ids=["array", "cuda"])
def test_interface_missing_fields_and_non_dicts(make: Any) -> None:
    spec = dict(_GOOD)
    del spec["shape"]
    with pytest.raises(TypeError, match="no 'shape'"):
        dlarray.asarray(make(spec))
    with pytest.raises(TypeError, match="must be a dict"):
        dlarray.asarray(make([("shape", (2,))]))


@pytest.mark.parametrize("typestr", ["|b1", "|i1", "|u1", "=f4", "|f8", "<f2", "<c8", "<c16"])
def test_native_typestrs_are_accepted(typestr: str) -> None:
    if sys.byteorder != "little":  # pragma: no cover
        typestr = typestr.replace("<", ">")
    info, _ = _interfaces.from_array_interface(_ArrayInterface({**_GOOD, "typestr": typestr}))
    assert info.dtype_bits == 8 * int(typestr[2:])


class _OwnBuffer(bytearray):
    """A bytearray that also publishes __array_interface__ with data=None: its own buffer holds
    the data, from 'offset' on."""

    spec: dict[str, Any] = {}

    @property
    def __array_interface__(self) -> dict[str, Any]:
        return {"version": 3, "data": None, **self.spec}


def _own_buffer(spec: dict[str, Any], content: bytes = bytes(range(12))) -> _OwnBuffer:
    obj = _OwnBuffer(content)
    obj.spec = spec
    return obj


def test_interface_over_its_own_buffer_with_an_offset() -> None:
    obj = _own_buffer({"shape": (2, 2), "typestr": "|u1", "offset": 4, "strides": (4, 1)})
    x = dlarray.asarray(obj)
    assert x.data_ptr == _address_of(obj) + 4 and x.shape == (2, 2) and not x.readonly
    assert np.asarray(x).tolist() == [[4, 5], [8, 9]]
    reversed_rows = _own_buffer({"shape": (3,), "typestr": "|u1", "offset": 11, "strides": (-4,)})
    assert np.asarray(dlarray.asarray(reversed_rows)).tolist() == [11, 7, 3]
    empty_at_end = _own_buffer({"shape": (0,), "typestr": "<f4", "offset": 12})
    assert dlarray.asarray(empty_at_end).shape == (0,)


@pytest.mark.parametrize(
    ("spec", "error", "message"),
    [
        ({"shape": (2,), "typestr": "|u1", "offset": -1}, BufferError, "'offset' -1 lies outside"),
        ({"shape": (0,), "typestr": "|u1", "offset": 13}, BufferError, "'offset' 13 lies outside"),
        ({"shape": (2,), "typestr": "|u1", "offset": 1.5}, TypeError, "'offset' must be an int"),
        ({"shape": (2,), "typestr": "|u1", "offset": True}, TypeError, "'offset' must be an int, got bool"),
        ({"shape": (4,), "typestr": "<f4", "offset": 1}, BufferError, "reach past the object's buffer of 12"),
        ({"shape": (3,), "typestr": "|u1", "offset": 1, "strides": (-1,)}, BufferError, "reach past"),
        ({"shape": (2, 2), "typestr": "|u1", "strides": (11, 1)}, BufferError, "reach past"),
        ({"shape": (2**40,), "typestr": "|u1"}, BufferError, "reach past"),
        ({"shape": (2,), "typestr": "<f16"}, BufferError, "typestr '<f16'"),
    ],
)
def test_interface_over_its_own_buffer_stays_inside_it(spec: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        dlarray.asarray(_own_buffer(spec))


def test_interface_data_given_as_a_buffer_object_is_refused() -> None:
    with pytest.raises(BufferError, match="buffer object is not supported"):
        dlarray.asarray(_ArrayInterface({**_GOOD, "data": bytearray(24)}))


@given(st.binary(max_size=64))
def test_bytes_fast_path_gives_what_the_buffer_path_gives(data: bytes) -> None:
    """asarray(bytes) skips the general checks: it must describe exactly what they accept."""
    fast = _interfaces.from_bytes(data, lambda owner, *fields: fields)
    info, _hold = _interfaces.from_buffer(data)
    assert fast == tuple(info[:-1])


def test_buffer_protocol_refusals_name_the_field() -> None:
    """Hostile buffers (ctypes arrays placed anywhere, all of memory as one buffer) are refused as
    capsules with the same fields are; accepted ones are never read. In a child process."""
    script = textwrap.dedent(
        """
        import ctypes
        import dlarray
        from dlarray._dlpack._consume import MEMORY

        def verdict(obj):
            try:
                x = dlarray.asarray(obj)
            except BufferError as exc:
                return str(exc)
            return ("accepted", x.shape, x.data_ptr)

        huge = ctypes.c_double * (2**59)  # 2**62 bytes: within int64, not within what is left
        print(verdict(memoryview(huge.from_address(2**64 - 2**61))))
        print(verdict(memoryview((ctypes.c_char * 16).from_address(2**64 - 8))))
        print(verdict(MEMORY))
        print(verdict(memoryview(huge.from_address(2**63 + 2**62))))
        print(verdict(memoryview(((ctypes.c_int32 * 3) * 2).from_address(4096))))
        """
    )
    lines = _run_child(script)
    assert lines[0].startswith("buffer's data (0xe000000000000000)") and "outside the address space" in lines[0]
    assert lines[1].startswith("buffer's data (0xfffffffffffffff8)") and "outside the address space" in lines[1]
    assert lines[2] == "buffer has a NULL data pointer but a non-zero size"
    assert lines[3] == str(("accepted", (2**59,), 2**63 + 2**62))  # ends exactly at 2**64
    assert lines[4] == str(("accepted", (2, 3), 4096))


def _run_child(script: str) -> list[str]:
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    return completed.stdout.splitlines()


# ----------------------------------------------------------------------------- device ids


def test_negative_device_ids_are_refused_on_every_device() -> None:
    for device in [(2, -1), (1, -1), (10, -5), (3, -(2**31))]:
        made = make_capsule((2,), device=device, data_address=4096, data_bytes=1)
        with pytest.raises(BufferError, match=f"device_id={device[1]}; a device id cannot be negative"):
            dlarray.from_dlpack(made.capsule)
        assert made.deleted == 0  # refused: still the producer's


def test_a_cpu_device_id_other_than_zero_is_read_as_zero() -> None:
    made = make_capsule((2,), device=(1, 3))
    assert dlarray.from_dlpack(made.capsule).device == dlarray.Device("cpu")


class _FakeDriver:
    """Records the driver calls the CUDA interface path makes; answers ordinal 2."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def cuPointerGetAttribute(self, value: Any, attribute: int, pointer: Any) -> int:
        self.calls.append(("ordinal", pointer.value))
        value._obj.value = 2
        return 0

    def cuStreamSynchronize(self, stream: Any) -> int:
        self.calls.append(("synchronize", stream.value))
        return 0


@pytest.mark.parametrize("change", [
    {"data": (-8, False)}, {"shape": (2**62, 2)}, {"typestr": "<f16"}, {"strides": (1, 1, 1)},
    {"strides": (2**63, 1)}, {"stream": 0}, {"stream": -1}, {"data": (2**64 - 8, False)},
])
def test_nothing_invalid_reaches_the_cuda_driver(change: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = _FakeDriver()
    monkeypatch.setattr(_cuda, "_driver_state", [fake])
    with pytest.raises((BufferError, ValueError)):
        dlarray.asarray(_CudaArrayInterface({**_GOOD, "stream": 0xC0FFEE, **change}))
    assert fake.calls == []


def test_the_cuda_driver_names_the_device_of_a_valid_pointer(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = _FakeDriver()
    monkeypatch.setattr(_cuda, "_driver_state", [fake])
    x = dlarray.asarray(_CudaArrayInterface({**_GOOD, "stream": 0xC0FFEE}))
    assert x.device == dlarray.Device("cuda:2")
    assert fake.calls == [("ordinal", 4096), ("synchronize", 0xC0FFEE)]


def test_interface_without_data_needs_a_buffer() -> None:
    with pytest.raises(TypeError, match="'data' is None, but _ArrayInterface has no buffer"):
        dlarray.asarray(_ArrayInterface({**_GOOD, "data": None}))
