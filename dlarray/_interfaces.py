"""Other ways a buffer arrives: the buffer protocol, ``__array_interface__`` and
``__cuda_array_interface__``. Each gives the same validated :class:`TensorInfo` the DLPack core
gives, and an owner that keeps the memory alive. No numpy here either: this is ctypes and parsing.
"""

from __future__ import annotations

import ctypes
import functools
import operator
import struct
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

from . import _cuda
from ._dlpack import (
    FLAG_READ_ONLY,
    DLDataTypeCode,
    DLDeviceType,
    TensorInfo,
    _capi,
    armed,
    contiguous_strides,
)
from ._dlpack._validate import VALID_CODE_BITS, check_ndim, validate_fields

T = TypeVar("T")

_LITTLE = sys.byteorder == "little"


_PyBuffer = _capi.PyBuffer
_PyBUF_RECORDS_RO = 0x0004 | 0x0008 | 0x0010  # FORMAT | ND | STRIDES, writability not demanded
_PyBUF_SIMPLE = 0  # contiguous bytes, writability not demanded

_get_buffer = _capi.object_get_buffer
_release_buffer = _capi.buffer_release
_check_buffer = _capi.object_check_buffer


class BufferHold(functools.partial):  # type: ignore[type-arg]
    """Owns one ``Py_buffer``; releasing it (once) when freed lets the exporter resize or free its
    memory again. While held, e.g. a bytearray cannot be resized.

    Made (by :func:`_hold_buffer`) around an empty ``Py_buffer`` before the buffer is acquired,
    so that whichever bytecode a KeyboardInterrupt lands on, an acquired buffer has its releaser
    (releasing an empty one does nothing). It is a ``functools.partial`` of ``PyBuffer_Release``
    whose finalizer is ``partial.__call__``: the release is made from C, with no Python frame in
    which an interrupt could stop it (see :class:`~dlarray._dlpack.ImportedTensor`); made with
    :func:`~dlarray._dlpack.armed`, so that an allocation failure while it is built is a
    MemoryError.
    """

    __slots__ = ()
    __del__ = functools.partial.__call__

    def __reduce_ex__(self, protocol: object) -> NoReturn:
        # a partial would be rebuilt by copy and pickle: a second releaser of the same buffer
        raise TypeError("a BufferHold releases one acquired buffer: it cannot be copied or pickled")


def _hold_buffer(obj: object, flags: int) -> tuple[_PyBuffer, BufferHold]:
    """Acquire ``obj``'s buffer (BufferError, from the exporter, if it has none) and its releaser."""
    view = _PyBuffer()
    hold = armed(BufferHold, _release_buffer, view)  # first: it releases what the next call acquires
    try:
        _get_buffer(obj, view, flags)  # one C call; raises BufferError itself
    except ctypes.ArgumentError as error:
        _capi.reraise(error)
    return view, hold


class CopyNeeded(BufferError):
    """A buffer or interface whose elements cannot be held where they lie, but can be copied.

    Its byte strides are not multiples of the itemsize (DLPack counts strides in elements: the
    field of a structured array), or its elements are not in native byte order (DLPack has none).
    The message says which. The rest describes the copy, every other check passed:

    ``elements``
        the bytes the elements occupy, validated as a tensor of its own: uint8, with one more
        dimension of the itemsize (stride 1), so that its checks bound every byte a copy reads.
    ``owner``
        what keeps them alive.
    ``shape``, ``dtype_code``, ``dtype_bits``
        what the copy holds, in C order.
    ``swapped``
        whether the bytes of each element are in the foreign order.
    """

    def __init__(self, reason: str, elements: TensorInfo, owner: object, shape: tuple[int, ...],
                 dtype_code: int, dtype_bits: int, swapped: bool) -> None:
        super().__init__(reason)
        self.elements = elements
        self.owner = owner
        self.shape = shape
        self.dtype_code = dtype_code
        self.dtype_bits = dtype_bits
        self.swapped = swapped


def _elements_to_copy(data: int, offset: int, shape: tuple[int, ...], byte_strides: tuple[int, ...], bits: int,
                      device_type: int, readonly: bool, where: str) -> tuple[TensorInfo, int, int]:
    """The bytes of elements that only a copy can hold (see :class:`CopyNeeded`), validated, and
    the lowest and one-past-highest address they reach."""
    byte_shape = (*shape, bits // 8)
    byte_strides = (*byte_strides, 1)
    low, high = validate_fields(data, offset, byte_shape, byte_strides, _UINT, 8, 1, device_type, 0, where)
    elements = TensorInfo(data, offset, byte_shape, byte_strides, _UINT, 8, device_type, 0,
                          FLAG_READ_ONLY if readonly else 0, None)
    return elements, low, high


def _stride_reason(byte_strides: tuple[int, ...], itemsize: int, where: str) -> str | None:
    """Why ``byte_strides`` cannot be DLPack's (None if each is a multiple of ``itemsize``)."""
    for stride in byte_strides:
        if stride % itemsize:
            return (f"{where} strides {byte_strides} (in bytes) are not multiples of the itemsize {itemsize}; "
                    f"DLPack counts strides in elements")
    return None


_bytes_address = _capi.bytes_as_string


def _bytes_data_offset() -> int | None:
    # A bytes object's characters are the last member of its C struct, right after the fixed
    # header (whose size includes their terminating NUL): id(data) + offset is their address
    # without a foreign call. Checked against PyBytes_AsString once; None if they differ.
    offset = bytes.__basicsize__ - 1
    probe = b"dlarray"
    return offset if _bytes_address(probe) == id(probe) + offset else None


_BYTES_DATA_OFFSET = _bytes_data_offset()
_UINT = int(DLDataTypeCode.UINT)
_CPU = int(DLDeviceType.CPU)
_CUDA = int(DLDeviceType.CUDA)


def from_bytes(data: bytes, build: Callable[..., T]) -> T:
    """Describe a ``bytes`` object: read-only uint8, 1-D. Immutable, so the object is the owner.

    Returns ``build(owner, data, byte_offset, shape, strides, dtype_code, dtype_bits,
    device_type, device_id, flags)``, as the core's ``import_with`` does.

    The fast path of :func:`from_buffer` for the one type whose fields cannot be wrong: a bytes
    object is a real, non-NULL allocation of ``len(data) < 2**63`` one-byte elements, so
    ``validate_fields`` would accept these fields as they are (tests/test_interfaces.py checks
    that both paths give the same description).
    """
    if _BYTES_DATA_OFFSET is None:
        address = _bytes_address(data)
    else:
        address = id(data) + _BYTES_DATA_OFFSET
    return build(data, address, 0, (len(data),), (1,), _UINT, 8, _CPU, 0, FLAG_READ_ONLY)


def supports_buffer(obj: object) -> bool:
    """True if ``obj`` exports the buffer protocol.

    A property of its type (the ``bf_getbuffer`` slot), asked of CPython once per type: the general
    import path asks it of every producer (:func:`read_only_elsewhere`).
    """
    kind = type(obj)
    known = _buffer_types.get(kind)
    if known is None:
        try:
            known = bool(_check_buffer(obj))
        except ctypes.ArgumentError as error:
            _capi.reraise(error)
        if len(_buffer_types) < 1024:  # bounded: one entry per type seen
            _buffer_types[kind] = known
    return known


_buffer_types: dict[type, bool] = {}


def buffer_is_read_only(obj: object) -> bool:
    """Whether ``obj``'s buffer (if it exports one) says its memory must not be written.

    The buffer is acquired and released at once; an object whose buffer cannot be had says
    nothing (False).
    """
    if not supports_buffer(obj):
        return False
    try:
        with memoryview(obj) as view:  # type: ignore[arg-type]
            return view.readonly
    except Exception:  # an exporter that cannot give its buffer now (array-api-strict off its CPU device)
        return False


def described_otherwise(obj: object) -> bool:
    """Whether ``obj`` also describes its memory through the buffer protocol or an
    ``__array_interface__``: what :func:`read_only_elsewhere` reads. False for nearly every DLPack
    producer, whose import then needs no cross-check; a property that raises counts as one (the
    cross-check decides)."""
    known = _buffer_types.get(type(obj))  # supports_buffer's answer, looked up here: the hot path
    if known is None:
        known = supports_buffer(obj)
    if known:
        return True
    try:
        return getattr(obj, "__array_interface__", None) is not None  # no exception made where it is absent
    except Exception:
        return True


def read_only_elsewhere(obj: object) -> bool:
    """Whether ``obj``'s buffer protocol or ``__array_interface__`` says its memory is read-only.

    For an object read through another description (``__dlpack__``): the strictest answer of all
    the ways it describes itself is kept, as numpy keeps a read-only buffer's answer over
    ``__array_interface__``'s. A malformed ``__array_interface__`` says nothing here (it is not
    the description read).
    """
    if buffer_is_read_only(obj):
        return True
    try:
        spec = getattr(obj, "__array_interface__", None)  # no exception made where it is absent
        return spec is not None and _parse_data(spec["data"], "__array_interface__")[1]
    except Exception:  # malformed, or a property that fails: no answer
        return False


# struct-module format character -> (DLPack code, bits) for native sizes
_FORMATS: dict[str, tuple[int, int]] = {"?": (DLDataTypeCode.BOOL, 8), "e": (DLDataTypeCode.FLOAT, 16),
                                        "f": (DLDataTypeCode.FLOAT, 32), "d": (DLDataTypeCode.FLOAT, 64),
                                        "Zf": (DLDataTypeCode.COMPLEX, 64), "Zd": (DLDataTypeCode.COMPLEX, 128)}
for _char in "bhilqn":
    _FORMATS[_char] = (DLDataTypeCode.INT, 8 * struct.calcsize(_char))
    _FORMATS[_char.upper()] = (DLDataTypeCode.UINT, 8 * struct.calcsize(_char))
_FORMATS["c"] = (DLDataTypeCode.UINT, 8)
_BUFFER = "buffer"  # ``where`` in validate_fields' messages


def _parse_format(fmt: str) -> tuple[int, int, bool]:
    """``(code, bits, swapped)`` of a buffer format: ``swapped`` for elements in the foreign byte
    order (what a copy can hold). BufferError for a format with no DLPack dtype."""
    body = fmt
    swapped = False
    if body[:1] in "@=<>!":
        order, body = body[0], body[1:]
        swapped = (order in "!>" and _LITTLE) or (order == "<" and not _LITTLE)  # "!": big-endian
    found = _FORMATS.get(body)
    if found is None:
        raise BufferError(f"buffer format {fmt!r} has no DLPack dtype")
    return (*found, swapped and found[1] > 8)


def from_buffer(obj: object) -> tuple[TensorInfo, BufferHold]:
    """Describe ``obj``'s buffer (bytes, bytearray, array.array, memoryview, mmap, ...) zero-copy.

    The buffer's own fields (format, itemsize, ndim, shape, strides) are parsed here; the
    description they give passes :func:`validate_fields`, as a capsule's does. Elements that only
    a copy can hold (byte strides that are not multiples of the itemsize, a foreign byte order)
    raise :class:`CopyNeeded`, which describes the copy.

    Examples
    --------
    >>> info, hold = from_buffer(bytearray(b"abc"))
    >>> info.shape, info.strides, info.readonly
    ((3,), (1,), False)
    """
    view, hold = _hold_buffer(obj, _PyBUF_RECORDS_RO)  # from here on the buffer is released whatever happens
    if view.suboffsets:
        raise BufferError("buffers with suboffsets (PIL-style indirect arrays) are not supported")
    fmt = (view.format or b"B").decode("ascii", "backslashreplace")
    code, bits, swapped = _parse_format(fmt)
    itemsize = view.itemsize
    if itemsize * 8 != bits:
        raise BufferError(f"buffer format {fmt!r} has itemsize {itemsize}, expected {bits // 8}")
    ndim = view.ndim
    # shape and strides are C arrays of ndim entries: read only once ndim is known good
    check_ndim(ndim, bool(view.shape), _BUFFER)
    shape = tuple(view.shape[:ndim])
    data = view.buf or 0
    if view.strides:
        byte_strides = tuple(view.strides[:ndim])
        reason = _stride_reason(byte_strides, itemsize, _BUFFER)
        strides = tuple([stride // itemsize for stride in byte_strides])
    else:
        strides = contiguous_strides(shape)
        byte_strides, reason = tuple([stride * itemsize for stride in strides]), None
    if swapped:
        reason = f"buffer format {fmt!r} is not in native byte order; DLPack has no byte order"
    if reason is not None:
        elements = _elements_to_copy(data, 0, shape, byte_strides, bits, _CPU, bool(view.readonly), _BUFFER)[0]
        raise CopyNeeded(reason, elements, hold, shape, code, bits, swapped)
    validate_fields(data, 0, shape, strides, code, bits, 1, _CPU, 0, _BUFFER)
    info = TensorInfo(data, 0, shape, strides, code, bits, _CPU, 0, FLAG_READ_ONLY if view.readonly else 0, None)
    return info, hold


_TYPESTR_KINDS = {"b": DLDataTypeCode.BOOL, "i": DLDataTypeCode.INT, "u": DLDataTypeCode.UINT,
                  "f": DLDataTypeCode.FLOAT, "c": DLDataTypeCode.COMPLEX}
_FOREIGN_ORDER = ">" if _LITTLE else "<"


def _parse_typestr(typestr: object, where: str) -> tuple[int, int, bool]:
    """``(code, bits, swapped)`` of an interface ``typestr`` such as ``'<f4'`` (``swapped``: in the
    foreign byte order, what a copy can hold); BufferError naming the typestr for one with no
    DLPack dtype."""
    if not isinstance(typestr, str):
        raise TypeError(f"{where} 'typestr' must be a str such as '<f4', got {type(typestr).__name__}")
    order, kind, size = typestr[:1], typestr[1:2], typestr[2:]
    if order not in ("<", ">", "|", "="):
        raise BufferError(f"{where} typestr {typestr!r} does not start with a byte order ('<', '>', '|' or '=')")
    code = _TYPESTR_KINDS.get(kind)
    if code is None or not (size.isascii() and size.isdigit()):
        raise BufferError(f"{where} typestr {typestr!r} has no DLPack dtype")
    bits = int(size) * 8
    if (code, bits) not in VALID_CODE_BITS:
        raise BufferError(f"{where} typestr {typestr!r} has no DLPack dtype")
    return code, bits, order == _FOREIGN_ORDER and bits > 8


def _parse_int(value: object, where: str, field: str) -> int:
    # operator.index takes ints and integer-like objects (numpy integers), not floats; a bool is
    # an int to Python but never a count, pointer or offset
    if isinstance(value, bool):
        raise TypeError(f"{where} {field} must be an int, got bool")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{where} {field} must be an int, got {type(value).__name__}") from None


def _parse_ints(value: object, where: str, field: str) -> tuple[int, ...]:
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{where} '{field}' must be a tuple of ints, got {type(value).__name__}")
    return tuple([_parse_int(item, where, f"'{field}' entry") for item in value])


def _parse_geometry(spec: dict[str, Any], where: str) -> tuple[tuple[int, ...], tuple[int, ...] | None, int, int, bool]:
    """The typestr, shape and byte strides of an interface dict: (shape, byte strides or None for
    C-contiguous, code, bits, swapped). Malformed fields: TypeError/ValueError/BufferError naming
    them."""
    if spec.get("mask") is not None:
        raise BufferError(f"{where} with a mask is not supported")
    code, bits, swapped = _parse_typestr(spec.get("typestr"), where)
    if "shape" not in spec:
        raise TypeError(f"{where} has no 'shape'")
    shape = _parse_ints(spec["shape"], where, "shape")
    byte_strides = spec.get("strides")
    if byte_strides is None:
        return shape, None, code, bits, swapped
    parsed = _parse_ints(byte_strides, where, "strides")
    if len(parsed) != len(shape):
        raise ValueError(f"{where} 'strides' {parsed} has {len(parsed)} entries but 'shape' {shape} has {len(shape)}")
    return shape, parsed, code, bits, swapped


def _parse_data(data: object, where: str) -> tuple[int, bool]:
    """An interface's ``data``: ``(pointer, read_only)``."""
    if not isinstance(data, tuple):
        if supports_buffer(data):
            raise BufferError(f"{where} 'data' given as a buffer object is not supported; give (pointer, read_only)")
        raise TypeError(f"{where} 'data' must be a (pointer, read_only) tuple, got {type(data).__name__}")
    if len(data) != 2:
        raise ValueError(f"{where} 'data' must be a (pointer, read_only) pair, got {len(data)} entries")
    pointer = _parse_int(data[0], where, "data pointer")
    if not isinstance(data[1], (bool, int)):
        raise TypeError(f"{where} 'data' read_only flag must be a bool, got {type(data[1]).__name__}")
    return pointer, bool(data[1])


def _interface_info(
    spec: object, device_type: int, where: str, owner: object, buffer: tuple[int, int, bool] | None = None
) -> TensorInfo:
    """Parse an interface dict, validate what it describes, and return it as a TensorInfo.

    ``buffer`` is ``(address, length, read_only)`` of the object's own buffer when ``data`` is
    None: the elements, from ``offset`` on, must lie inside it. :class:`CopyNeeded` (its
    ``owner``: ``owner``) for elements that can only be copied.
    """
    if not isinstance(spec, dict):
        raise TypeError(f"{where} must be a dict, got {type(spec).__name__}")
    shape, byte_strides, code, bits, swapped = _parse_geometry(spec, where)
    if buffer is None:
        pointer, readonly = _parse_data(spec.get("data"), where)
        offset = 0
    else:
        pointer, length, readonly = buffer
        offset = _parse_int(spec.get("offset", 0), where, "'offset'")
        if not 0 <= offset <= length:
            raise BufferError(f"{where} 'offset' {offset} lies outside the object's buffer of {length} bytes")
    itemsize = bits // 8
    if byte_strides is None:
        strides = contiguous_strides(shape)
        reason = None
    else:
        reason = _stride_reason(byte_strides, itemsize, where)
        strides = tuple([stride // itemsize for stride in byte_strides])
    if swapped:
        reason = f"{where} typestr {spec['typestr']!r} is not in native byte order; DLPack has no byte order"
    if reason is None:
        low, high = validate_fields(pointer, offset, shape, strides, code, bits, 1, device_type, 0, where)
    else:
        described = byte_strides if byte_strides is not None else tuple([s * itemsize for s in strides])
        elements, low, high = _elements_to_copy(pointer, offset, shape, described, bits, device_type, readonly,
                                                where)
    if buffer is not None and low != high and (low < pointer or high > pointer + length):
        raise BufferError(
            f"{where} 'shape' {shape} and 'strides' from 'offset' {offset} reach past the object's buffer "
            f"of {length} bytes"
        )
    if reason is not None:
        raise CopyNeeded(reason, elements, owner, shape, code, bits, swapped)
    return TensorInfo(pointer, offset, shape, strides, code, bits, device_type, 0,
                      FLAG_READ_ONLY if readonly else 0, None)


def from_array_interface(obj: Any) -> tuple[TensorInfo, Any]:
    """Describe an object exposing ``__array_interface__`` (version 3).

    ``data`` is ``(pointer, read_only)`` (the object is the owner; ``offset`` is ignored, as numpy
    ignores it), or None: then the object's own buffer holds the data from ``offset`` on, and
    every element must lie inside that buffer (the held buffer is the owner). What the interface
    describes passes :func:`validate_fields`, as a capsule's fields do; :class:`CopyNeeded` for
    elements that only a copy can hold.

    Examples
    --------
    >>> class Described(bytearray):  # its own buffer holds the data
    ...     __array_interface__ = {"version": 3, "shape": (2,), "typestr": "|u1", "data": None,
    ...                            "offset": 1}
    >>> info, owner = from_array_interface(Described(b"abc"))
    >>> info.shape, info.byte_offset
    ((2,), 1)
    """
    where = "__array_interface__"
    spec = obj.__array_interface__
    if isinstance(spec, dict) and spec.get("data") is None:
        if not supports_buffer(obj):
            raise TypeError(f"{where} 'data' is None, but {type(obj).__name__} has no buffer to hold the data")
        view, hold = _hold_buffer(obj, _PyBUF_SIMPLE)
        buffer = (view.buf or 0, view.len, bool(view.readonly))
        return _interface_info(spec, _CPU, where, hold, buffer), hold
    info = _interface_info(spec, _CPU, where, obj)
    if not info.flags & FLAG_READ_ONLY and buffer_is_read_only(obj):
        # the object's buffer says read-only where its interface says writable (a subclass of a
        # read-only mmap, say): the strictest answer is kept, as numpy reads the buffer first
        info = info._replace(flags=info.flags | FLAG_READ_ONLY)
    return info, obj


def from_cuda_array_interface(obj: Any) -> tuple[TensorInfo, Any]:
    """Describe an object exposing ``__cuda_array_interface__`` (v2/v3) without touching the memory.

    What it describes passes :func:`validate_fields` before any of it reaches the CUDA driver.
    The device index comes from the driver when one is loaded (0 otherwise). A v3 ``stream`` is
    synchronized with the driver before the array is used, as the protocol requires.
    """
    where = "__cuda_array_interface__"
    spec = obj.__cuda_array_interface__
    if not isinstance(spec, dict):
        raise TypeError(f"{where} must be a dict, got {type(spec).__name__}")
    version = spec.get("version", 2)
    if version not in (2, 3) or isinstance(version, bool):
        raise BufferError(f"{where} version {version!r} is not supported (2 or 3)")
    copy = None
    try:
        info = _interface_info(spec, _CUDA, where, obj)
    except CopyNeeded as needed:  # the elements' bytes go through the same steps, then a copy
        info = needed.elements
        copy = (str(needed), needed.owner, needed.shape, needed.dtype_code, needed.dtype_bits, needed.swapped)
    stream = spec.get("stream")
    if stream is not None and _cuda.consumer_stream(stream) == _cuda.NO_SYNC:
        raise ValueError(f"{where} stream -1 is not allowed (the protocol has no 'no sync')")
    # Only now, with every field valid, does anything reach the driver.
    driver = _cuda.driver()
    if driver is not None and info.data:
        ordinal = ctypes.c_int(0)
        # CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9; an ordinal is never negative
        if driver.cuPointerGetAttribute(ctypes.byref(ordinal), 9, ctypes.c_void_p(info.data)) == 0:
            info = info._replace(device_id=ordinal.value)
    if stream is not None and driver is not None:
        # v3: the consumer synchronizes on the producer's stream before using the data
        _cuda.check(driver.cuStreamSynchronize(ctypes.c_void_p(stream)), "cuStreamSynchronize")
    if copy is not None:  # a new exception, not the one caught: no frame of it refers to it
        reason, owner, shape, code, bits, swapped = copy
        raise CopyNeeded(reason, info, owner, shape, code, bits, swapped)
    return info, obj
