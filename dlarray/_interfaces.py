"""Other ways a buffer arrives: the buffer protocol, ``__array_interface__`` and
``__cuda_array_interface__``. Each gives the same validated :class:`TensorInfo` the DLPack core
gives, and an owner that keeps the memory alive. No numpy here either: this is ctypes and parsing.
"""

from __future__ import annotations

import ctypes
import struct
import sys
from collections.abc import Callable
from typing import Any, TypeVar

from . import _cuda
from ._dlpack import (
    FLAG_READ_ONLY,
    MAX_NDIM,
    DLDataTypeCode,
    DLDeviceType,
    TensorInfo,
    contiguous_strides,
)
from ._dlpack import _capi

T = TypeVar("T")

_LITTLE = sys.byteorder == "little"


_PyBuffer = _capi.PyBuffer
_PyBUF_RECORDS_RO = 0x0004 | 0x0008 | 0x0010  # FORMAT | ND | STRIDES, writability not demanded

_get_buffer = _capi.object_get_buffer
_release_buffer = _capi.buffer_release
_check_buffer = _capi.object_check_buffer


class BufferHold:
    """Owns one acquired ``Py_buffer``; releasing it (once) when freed lets the exporter resize or
    free its memory again. While held, e.g. a bytearray cannot be resized."""

    __slots__ = ("_view", "_release", "__weakref__")

    def __init__(self, view: _PyBuffer) -> None:
        self._view = view
        self._release = _release_buffer

    def __del__(self) -> None:
        release, self._release = self._release, None
        if release is not None:
            release(ctypes.byref(self._view))


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


def from_bytes(data: bytes, build: Callable[..., T]) -> T:
    """Describe a ``bytes`` object: read-only uint8, 1-D. Immutable, so the object is the owner.

    Returns ``build(owner, data, byte_offset, shape, strides, dtype_code, dtype_bits,
    device_type, device_id, flags)``, as the core's ``import_with`` does.
    """
    if _BYTES_DATA_OFFSET is None:
        address = _bytes_address(data)
    else:
        address = id(data) + _BYTES_DATA_OFFSET
    return build(data, address, 0, (len(data),), (1,), _UINT, 8, _CPU, 0, FLAG_READ_ONLY)


def supports_buffer(obj: object) -> bool:
    """True if ``obj`` exports the buffer protocol."""
    return bool(_check_buffer(obj))


# struct-module format character -> (DLPack code, bits) for native sizes
_FORMATS: dict[str, tuple[int, int]] = {"?": (DLDataTypeCode.BOOL, 8), "e": (DLDataTypeCode.FLOAT, 16),
                                        "f": (DLDataTypeCode.FLOAT, 32), "d": (DLDataTypeCode.FLOAT, 64),
                                        "Zf": (DLDataTypeCode.COMPLEX, 64), "Zd": (DLDataTypeCode.COMPLEX, 128)}
for _char in "bhilqn":
    _FORMATS[_char] = (DLDataTypeCode.INT, 8 * struct.calcsize(_char))
    _FORMATS[_char.upper()] = (DLDataTypeCode.UINT, 8 * struct.calcsize(_char))
_FORMATS["c"] = (DLDataTypeCode.UINT, 8)


def _parse_format(fmt: str) -> tuple[int, int]:
    body = fmt
    if body[:1] in "@=<>!":
        order, body = body[0], body[1:]
        if order == "!" or (order == ">" and _LITTLE) or (order == "<" and not _LITTLE):
            if body not in ("b", "B", "?", "c"):
                raise BufferError(f"buffer format {fmt!r} is not in native byte order; DLPack has no byte order")
    found = _FORMATS.get(body)
    if found is None:
        raise BufferError(f"buffer format {fmt!r} has no DLPack dtype")
    return found


def from_buffer(obj: object) -> tuple[TensorInfo, BufferHold]:
    """Describe ``obj``'s buffer (bytes, bytearray, array.array, memoryview, mmap, ...) zero-copy."""
    view = _PyBuffer()
    _get_buffer(obj, ctypes.byref(view), _PyBUF_RECORDS_RO)  # raises BufferError itself
    hold = BufferHold(view)  # from here on the buffer is released whatever happens
    if view.suboffsets:
        raise BufferError("buffers with suboffsets (PIL-style indirect arrays) are not supported")
    fmt = (view.format or b"B").decode("ascii")
    code, bits = _parse_format(fmt)
    itemsize = view.itemsize
    if itemsize * 8 != bits:
        raise BufferError(f"buffer format {fmt!r} has itemsize {itemsize}, expected {bits // 8}")
    ndim = view.ndim
    if ndim > MAX_NDIM:
        raise BufferError(f"buffer has {ndim} dimensions, more than {MAX_NDIM}")
    shape = tuple(view.shape[i] for i in range(ndim)) if ndim else ()
    if ndim and view.strides:
        byte_strides = tuple(view.strides[i] for i in range(ndim))
    else:
        byte_strides = _contiguous_byte_strides(shape, itemsize)
    strides = _element_strides(byte_strides, itemsize)
    info = TensorInfo(view.buf or 0, 0, shape, strides, code, bits, DLDeviceType.CPU, 0,
                      FLAG_READ_ONLY if view.readonly else 0, None)
    return info, hold


def _contiguous_byte_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    return tuple(step * itemsize for step in contiguous_strides(shape))


def _element_strides(byte_strides: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    if any(s % itemsize for s in byte_strides):
        raise BufferError(
            f"byte strides {byte_strides} are not multiples of the itemsize {itemsize}; DLPack "
            f"counts strides in elements"
        )
    return tuple(s // itemsize for s in byte_strides)


_TYPESTR_KINDS = {"b": DLDataTypeCode.BOOL, "i": DLDataTypeCode.INT, "u": DLDataTypeCode.UINT,
                  "f": DLDataTypeCode.FLOAT, "c": DLDataTypeCode.COMPLEX}


def _parse_typestr(typestr: str) -> tuple[int, int]:
    if not isinstance(typestr, str) or len(typestr) < 3:
        raise BufferError(f"bad typestr {typestr!r}")
    order, kind, size = typestr[0], typestr[1], typestr[2:]
    code = _TYPESTR_KINDS.get(kind)
    if code is None or not size.isdigit():
        raise BufferError(f"typestr {typestr!r} has no DLPack dtype")
    itemsize = int(size)
    if itemsize > 1 and ((order == ">" and _LITTLE) or (order == "<" and not _LITTLE)):
        raise BufferError(f"typestr {typestr!r} is not in native byte order; DLPack has no byte order")
    return code, itemsize * 8


def _from_interface(spec: Any, device_type: int, device_id: int, where: str) -> TensorInfo:
    if not isinstance(spec, dict):
        raise TypeError(f"{where} must be a dict, got {type(spec).__name__}")
    if spec.get("mask") is not None:
        raise BufferError(f"{where} with a mask is not supported")
    code, bits = _parse_typestr(spec.get("typestr"))
    itemsize = bits // 8
    try:
        shape = tuple(int(n) for n in spec["shape"])
    except (KeyError, TypeError, ValueError):
        raise BufferError(f"{where} has no valid 'shape'") from None
    if len(shape) > MAX_NDIM or any(n < 0 for n in shape):
        raise BufferError(f"{where} shape {shape} is invalid")
    data = spec.get("data")
    if not (isinstance(data, tuple) and len(data) == 2):
        raise BufferError(f"{where} 'data' must be a (pointer, read_only) tuple, got {data!r}")
    pointer, readonly = int(data[0]), bool(data[1])
    byte_strides = spec.get("strides")
    if byte_strides is None:
        byte_strides = _contiguous_byte_strides(shape, itemsize)
    elif len(byte_strides) != len(shape):
        raise BufferError(f"{where} strides {byte_strides} do not match shape {shape}")
    strides = _element_strides(tuple(int(s) for s in byte_strides), itemsize)
    size = 1
    for n in shape:
        size *= n
    if size and not pointer:
        raise BufferError(f"{where} has a NULL data pointer but {size} elements")
    return TensorInfo(pointer, 0, shape, strides, code, bits, device_type, device_id,
                      FLAG_READ_ONLY if readonly else 0, None)


def from_array_interface(obj: Any) -> tuple[TensorInfo, Any]:
    """Describe an object exposing ``__array_interface__`` (version 3); the object is the owner."""
    spec = obj.__array_interface__
    if isinstance(spec, dict) and spec.get("data") is None:
        # the object's own buffer holds the data, from 'offset' on
        info, hold = from_buffer(obj)
        return info._replace(byte_offset=int(spec.get("offset", 0))), hold
    return _from_interface(spec, DLDeviceType.CPU, 0, "__array_interface__"), obj


def from_cuda_array_interface(obj: Any) -> tuple[TensorInfo, Any]:
    """Describe an object exposing ``__cuda_array_interface__`` (v2/v3) without touching the memory.

    The device index comes from the CUDA driver when one is loaded (0 otherwise). A v3 ``stream``
    is synchronized with the driver before the array is used, as the protocol requires.
    """
    spec = obj.__cuda_array_interface__
    version = spec.get("version", 2) if isinstance(spec, dict) else None
    if version not in (2, 3):
        raise BufferError(f"__cuda_array_interface__ version {version!r} is not supported (2 or 3)")
    info = _from_interface(spec, DLDeviceType.CUDA, 0, "__cuda_array_interface__")
    driver = _cuda.driver()
    if driver is not None and info.data:
        ordinal = ctypes.c_int(0)
        # CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9
        if driver.cuPointerGetAttribute(ctypes.byref(ordinal), 9, ctypes.c_void_p(info.data)) == 0:
            info = info._replace(device_id=ordinal.value)
    stream = spec.get("stream")
    if stream is not None:
        if _cuda.consumer_stream(stream) == _cuda.NO_SYNC:
            raise ValueError("__cuda_array_interface__ stream -1 is not allowed (the protocol has no 'no sync')")
        if driver is not None:
            # v3: the consumer synchronizes on the producer's stream before using the data
            _cuda.check(driver.cuStreamSynchronize(ctypes.c_void_p(int(stream))), "cuStreamSynchronize")
    return info, obj
