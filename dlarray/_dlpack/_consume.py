"""Consume: turn a DLPack capsule into validated metadata plus an owner that runs the deleter once.

Ownership moves here. A capsule named ``dltensor``/``dltensor_versioned`` belongs to its producer
until a consumer renames it ``used_*``; from then on the consumer must call the tensor's deleter
exactly once. This module renames the capsule only after every field has been validated, so a
refused capsule stays with its producer (its capsule destructor frees it), and an accepted one is
handed to an :class:`ImportedTensor`, whose ``__del__`` is the single place the deleter is called.
"""

from __future__ import annotations

import ctypes
import struct
import threading
from typing import Any, NamedTuple

from . import _capi
from ._structs import (
    DELETER,
    FLAG_IS_COPIED,
    FLAG_IS_SUBBYTE_TYPE_PADDED,
    FLAG_READ_ONLY,
    LEGACY_DELETER_OFFSET,
    LEGACY_SIZE,
    MAX_NDIM,
    TENSOR_LAYOUT,
    VALID_BITS,
    VERSION_PREFIX_LAYOUT,
    VERSIONED_PREFIX_LAYOUT,
    VERSIONED_SIZE,
    VERSIONED_TENSOR_OFFSET,
    DLDataTypeCode,
    DLDeviceType,
    DLPACK_MAJOR_VERSION,
)

VERSIONED_NAME = b"dltensor_versioned"
LEGACY_NAME = b"dltensor"
_USED_VERSIONED_NAME = _capi.static_c_string(b"used_dltensor_versioned")
_USED_LEGACY_NAME = _capi.static_c_string(b"used_dltensor")

_INT64_MAX = (1 << 63) - 1
_consume_lock = threading.Lock()
_ADDRESS_END = 1 << 64
_VALID_CODE_BITS = frozenset((int(code), bits) for code, allowed in VALID_BITS.items() for bits in allowed)
_INT64_1 = struct.Struct("@q").unpack
_INT64_2 = struct.Struct("@2q").unpack
_FLAGS_AT = struct.Struct(f"@{VERSIONED_PREFIX_LAYOUT.size - 8}xQ").unpack_from
_LEGACY_DELETER_AT = struct.Struct(f"@{LEGACY_DELETER_OFFSET}xP").unpack_from
_KNOWN_DEVICE_TYPES = frozenset(int(d) for d in DLDeviceType)
# ctypes.string_at is a Python wrapper around this foreign function; the hot path calls it directly
_string_at = getattr(ctypes, "_string_at", ctypes.string_at)
_get_name = _capi.capsule_get_name
_get_pointer = _capi.capsule_get_pointer
_set_name = _capi.capsule_set_name


def _make_capsule_type() -> type:
    # A capsule with no destructor, only to learn the type object.
    new = ctypes.pythonapi["PyCapsule_New"]
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    new.restype = ctypes.py_object
    return type(new(1, None, None))


CapsuleType: type = _make_capsule_type()


class TensorInfo(NamedTuple):
    """Validated metadata of one DLTensor. Strides are in elements, never None."""

    data: int  # the DLTensor's data field (opaque on some devices)
    byte_offset: int  # added to data to reach element [0, ..., 0]
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype_code: int
    dtype_bits: int
    device_type: int
    device_id: int
    flags: int
    version: tuple[int, int] | None  # None for a legacy (unversioned) tensor

    @property
    def data_ptr(self) -> int:
        """Address of element ``[0, ..., 0]``."""
        return self.data + self.byte_offset

    @property
    def readonly(self) -> bool:
        return bool(self.flags & FLAG_READ_ONLY)

    @property
    def is_copied(self) -> bool:
        return bool(self.flags & FLAG_IS_COPIED)


def _new_info(fields: tuple[Any, ...], _new: Any = tuple.__new__) -> TensorInfo:
    return _new(TensorInfo, fields)  # skips NamedTuple's argument parsing on the hot path


class ImportedTensor:
    """Owner of one consumed DLManagedTensor(Versioned): calls its deleter once, when freed.

    Every Array, view or export that points into the buffer holds a reference to this object
    (directly or through a chain of owners), so the deleter cannot run while anything still
    points into the memory, and CPython's reference counting runs ``__del__`` exactly once.
    """

    __slots__ = ("address", "_deleter", "__weakref__")

    def __init__(self, address: int, deleter: Any) -> None:
        self.address = address
        self._deleter = deleter

    def __del__(self) -> None:
        deleter, self._deleter = self._deleter, None
        if deleter is not None:
            # Ownership ends here: the producer frees the struct (and its buffer) now.
            deleter(self.address)


# Deleter function pointers, wrapped once per address. A bounded cache: producers built from
# ctypes callbacks create a new function per tensor, and those must not accumulate.
_deleter_cache: dict[int, Any] = {}


def _deleter_for(address: int) -> Any:
    fn = _deleter_cache.get(address)
    if fn is None:
        if len(_deleter_cache) >= 256:
            _deleter_cache.clear()
        fn = _deleter_cache[address] = DELETER(address)
    return fn


def _call_deleter_now(managed: int, deleter_address: int) -> None:
    if deleter_address:
        _deleter_for(deleter_address)(managed)


def capsule_name(capsule: object) -> bytes | None:
    """The name a capsule carries (``None`` for an unnamed capsule)."""
    return _get_name(capsule)


def consume_capsule(capsule: object) -> tuple[TensorInfo, ImportedTensor]:
    """Validate a DLPack capsule, take ownership of it, and describe the tensor it holds.

    Parameters
    ----------
    capsule
        A ``PyCapsule`` named ``dltensor_versioned`` or ``dltensor``.

    Returns
    -------
    (TensorInfo, ImportedTensor)
        The metadata, and the object whose lifetime now governs the deleter call.

    Raises
    ------
    TypeError
        ``capsule`` is not a capsule.
    BufferError
        The capsule was consumed already, carries another name, or holds a tensor this library
        cannot describe (unknown major version, dtype, device; lanes != 1; bad ndim, shape,
        strides or data pointer). Except for an unknown major version, whose deleter DLPack
        requires the consumer to call at once, a refused capsule is left with its producer.
    """
    if type(capsule) is not CapsuleType:
        raise TypeError(f"expected a DLPack capsule, got {type(capsule).__name__}")
    # The name check and the rename must be one step: two threads consuming one capsule would
    # otherwise both take it, and its deleter would run twice.
    with _consume_lock:
        return _consume_locked(capsule)


def _consume_locked(capsule: object) -> tuple[TensorInfo, ImportedTensor]:
    name = _get_name(capsule)
    if name == VERSIONED_NAME:
        managed = _get_pointer(capsule, VERSIONED_NAME)
        if not managed:
            raise BufferError("DLPack capsule holds a NULL DLManagedTensorVersioned")
        # Validation comes first; only then does ownership move (the rename) to us.
        info, deleter = _read_versioned(managed, capsule)
        _set_name(capsule, _USED_VERSIONED_NAME)
    elif name == LEGACY_NAME:
        managed = _get_pointer(capsule, LEGACY_NAME)
        if not managed:
            raise BufferError("DLPack capsule holds a NULL DLManagedTensor")
        header = _string_at(managed, LEGACY_SIZE)
        deleter = _LEGACY_DELETER_AT(header)[0]
        info = _read_tensor(header, 0, 0, None)
        _set_name(capsule, _USED_LEGACY_NAME)
    elif name in (b"used_dltensor", b"used_dltensor_versioned"):
        raise BufferError("this DLPack capsule was consumed already; a capsule can be used once")
    else:
        raise BufferError(
            f"not a DLPack capsule: its name is {name!r}, expected b'dltensor_versioned' or b'dltensor'"
        )
    return info, ImportedTensor(managed, _deleter_for(deleter) if deleter else None)


def take_versioned(managed: int) -> tuple[TensorInfo, ImportedTensor]:
    """Take ownership of a DLManagedTensorVersioned handed over without a capsule (C exchange API).

    The caller owns ``managed`` already, so on refusal its deleter is called here before raising.
    """
    try:
        # The exchange API's own version (checked when it was found) vouches for the struct's
        # major version, so the whole struct is read at once.
        header = _string_at(managed, VERSIONED_SIZE)
        major, minor, _ctx, deleter, flags = VERSIONED_PREFIX_LAYOUT.unpack_from(header)
        if major != DLPACK_MAJOR_VERSION:
            raise BufferError(f"DLPack major version {major}.{minor} is not supported")
        info = _read_tensor(header, VERSIONED_TENSOR_OFFSET, flags, (major, minor))
    except BaseException:
        _call_deleter_now(managed, VERSION_PREFIX_LAYOUT.unpack(_string_at(managed, VERSION_PREFIX_LAYOUT.size))[3])
        raise
    return info, ImportedTensor(managed, _deleter_for(deleter) if deleter else None)


def _read_versioned(managed: int, capsule: object) -> tuple[TensorInfo, int]:
    """Validate a DLManagedTensorVersioned; return its description and its deleter address."""
    major, minor, _ctx, deleter = VERSION_PREFIX_LAYOUT.unpack(_string_at(managed, VERSION_PREFIX_LAYOUT.size))
    if major != DLPACK_MAJOR_VERSION:
        # The layout past the version prefix is unknown: DLPack says call the deleter, touch
        # nothing else. Through a capsule, ownership moves to us first (the rename).
        if capsule is not None:
            _set_name(capsule, _USED_VERSIONED_NAME)
            _call_deleter_now(managed, deleter)
        raise BufferError(
            f"DLPack major version {major}.{minor} is not supported (this consumer reads {DLPACK_MAJOR_VERSION}.x)"
        )
    header = _string_at(managed, VERSIONED_SIZE)
    flags = _FLAGS_AT(header)[0]
    return _read_tensor(header, VERSIONED_TENSOR_OFFSET, flags, (major, minor)), deleter


def _read_tensor(
    header: bytes, offset: int, flags: int, version: tuple[int, int] | None
) -> TensorInfo:
    """Validate the DLTensor at ``header[offset:]``; read shape/strides only once ndim is known good."""
    (data, device_type, device_id, ndim, code, bits, lanes, shape_ptr, strides_ptr, byte_offset) = (
        TENSOR_LAYOUT.unpack_from(header, offset)
    )
    if (code, bits) not in _VALID_CODE_BITS or lanes != 1 or device_type not in _KNOWN_DEVICE_TYPES:
        _refuse_dtype_or_device(code, bits, lanes, device_type)
    itemsize = (bits + 7) >> 3
    if ndim == 1 and shape_ptr:  # the common case, without loops
        if strides_ptr == shape_ptr + 8:  # shape and strides side by side (numpy, torch): one read
            extent, stride = _INT64_2(_string_at(shape_ptr, 16))
            strides = (stride,)
        else:
            extent = _INT64_1(_string_at(shape_ptr, 8))[0]
            strides = _INT64_1(_string_at(strides_ptr, 8)) if strides_ptr else (1,)
        if extent < 0:
            raise BufferError(f"DLPack tensor has a negative dimension in shape ({extent},)")
        shape = (extent,)
        size = extent
        step = strides[0] * itemsize
        if not -_INT64_MAX <= step <= _INT64_MAX or extent * itemsize > _INT64_MAX:
            _refuse_extent(shape, strides, itemsize)
        low = high = data + byte_offset
        if extent > 1:
            if step < 0:
                low += step * (extent - 1)
            else:
                high += step * (extent - 1)
    elif ndim:
        if not 0 < ndim <= MAX_NDIM:
            raise BufferError(f"DLPack tensor has ndim={ndim}; expected 0 <= ndim <= {MAX_NDIM}")
        if not shape_ptr:
            raise BufferError(f"DLPack tensor has ndim={ndim} but a NULL shape pointer")
        shape = _read_int64s(shape_ptr, ndim)
        size = 1
        for extent in shape:
            if extent < 0:
                raise BufferError(f"DLPack tensor has a negative dimension in shape {shape}")
            size *= extent
        strides = _read_int64s(strides_ptr, ndim) if strides_ptr else contiguous_strides(shape)
        low = high = data + byte_offset
        for stride, extent in zip(strides, shape):
            step = stride * itemsize
            if not -_INT64_MAX <= step <= _INT64_MAX:
                _refuse_extent(shape, strides, itemsize)
            if extent > 1:
                if step < 0:
                    low += step * (extent - 1)
                else:
                    high += step * (extent - 1)
        if size:
            if size * itemsize > _INT64_MAX or high - low > _INT64_MAX:
                _refuse_extent(shape, strides, itemsize)
        elif _product_of_nonzero(shape) * itemsize > _INT64_MAX:
            # empty, but numpy (and most consumers) cannot describe such a shape at all
            _refuse_extent(shape, strides, itemsize)
    else:
        shape = strides = ()
        size = 1
        low = high = data + byte_offset
    if size:
        if not data:
            raise BufferError("DLPack tensor has a NULL data pointer but a non-zero size")
        if byte_offset > _INT64_MAX or low < 0 or high + itemsize > _ADDRESS_END:
            raise BufferError(
                f"DLPack tensor's data ({data:#x}) + byte_offset ({byte_offset}) and strides reach "
                f"outside the address space"
            )
    return _new_info((data, byte_offset, shape, strides, code, bits, device_type, device_id, flags, version))


def _product_of_nonzero(shape: tuple[int, ...]) -> int:
    product = 1
    for extent in shape:
        if extent:
            product *= extent
    return product


def _refuse_extent(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int) -> None:
    raise BufferError(
        f"DLPack tensor shape {shape} with strides {strides} (elements of {itemsize} bytes) "
        f"overflows int64 in bytes"
    )


def _refuse_dtype_or_device(code: int, bits: int, lanes: int, device_type: int) -> None:
    if device_type not in _KNOWN_DEVICE_TYPES:
        raise BufferError(f"DLPack tensor has an unknown device_type {device_type}")
    if lanes != 1:
        raise BufferError(f"DLPack dtype lanes={lanes} is not supported (only lanes=1)")
    if code not in VALID_BITS:
        raise BufferError(f"DLPack dtype code {code} is not supported")
    raise BufferError(f"DLPack dtype {DLDataTypeCode(code).name.lower()} cannot have bits={bits}")


_INT64_ARRAYS: dict[int, Any] = {}


def _read_int64s(address: int, count: int) -> tuple[int, ...]:
    reader = _INT64_ARRAYS.get(count)
    if reader is None:
        reader = _INT64_ARRAYS[count] = struct.Struct(f"@{count}q").unpack
    return reader(_string_at(address, 8 * count))


def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Element strides of a C-contiguous array of ``shape``."""
    strides = []
    step = 1
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))


__all__ = [
    "CapsuleType",
    "ImportedTensor",
    "TensorInfo",
    "capsule_name",
    "consume_capsule",
    "FLAG_IS_SUBBYTE_TYPE_PADDED",
]
