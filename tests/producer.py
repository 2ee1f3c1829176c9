"""A DLPack producer written with ctypes, for tests: any field value, and a count of deleter calls.

It builds DLManagedTensor / DLManagedTensorVersioned structs by hand, so tests can hand dlarray
well-formed and malformed tensors alike and check that every deleter runs exactly once.
"""

from __future__ import annotations

import ctypes
import struct
import threading
from collections import Counter
from typing import Any

from dlarray._dlpack._structs import (
    TENSOR_LAYOUT,
    TENSOR_SIZE,
    VERSIONED_PREFIX_LAYOUT,
    VERSIONED_SIZE,
    LEGACY_SIZE,
)

_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

_new_capsule = ctypes.pythonapi["PyCapsule_New"]
_new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _DESTRUCTOR]
_new_capsule.restype = ctypes.py_object
_is_valid = ctypes.pythonapi["PyCapsule_IsValid"]
_is_valid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_is_valid.restype = ctypes.c_int
_get_pointer = ctypes.pythonapi["PyCapsule_GetPointer"]
_get_pointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_get_pointer.restype = ctypes.c_void_p

#: Tensor serial number (kept in manager_ctx) -> how many times its deleter ran (never above 1).
deleter_calls: Counter[int] = Counter()
#: Deleter calls for a struct that was already deleted (a double free): must stay empty.
double_deletes: list[int] = []
#: struct address -> (struct buffer, data buffer, serial) kept alive until the deleter runs.
_alive: dict[int, Any] = {}
_serials = iter(range(1, 1 << 62))
_lock = threading.Lock()
_NAMES = {name: ctypes.create_string_buffer(name) for name in (b"dltensor", b"dltensor_versioned")}


def _on_delete(address: int) -> None:
    with _lock:
        entry = _alive.pop(address, None)
        if entry is None:
            double_deletes.append(address)
            return
        deleter_calls[entry[2]] += 1


def _on_capsule_freed(capsule: int) -> None:
    # A capsule nobody consumed still owns its tensor: free it, as a real producer does.
    for name, buffer in _NAMES.items():
        if _is_valid(capsule, buffer):
            _on_delete(_get_pointer(capsule, buffer))
            return


DELETER = _DELETER(_on_delete)
DESTRUCTOR = _DESTRUCTOR(_on_capsule_freed)
DELETER_ADDRESS = ctypes.cast(DELETER, ctypes.c_void_p).value


class Made:
    """What ``make_capsule`` made: the capsule, the struct address and the data buffer."""

    def __init__(self, capsule: Any, address: int, data: Any, data_address: int, serial: int) -> None:
        self.serial = serial
        self.capsule = capsule
        self.address = address
        self.data = data
        self.data_address = data_address

    @property
    def deleted(self) -> int:
        """How many times the deleter ran for this tensor."""
        return deleter_calls[self.serial]


def make_capsule(
    shape: tuple[int, ...] = (2, 3),
    *,
    strides: tuple[int, ...] | None = None,
    code: int = 2,
    bits: int = 32,
    lanes: int = 1,
    device: tuple[int, int] = (1, 0),
    versioned: bool = True,
    version: tuple[int, int] = (1, 3),
    flags: int = 0,
    byte_offset: int = 0,
    ndim: int | None = None,
    null_shape: bool = False,
    null_data: bool = False,
    data_bytes: int | None = None,
    name: bytes | None = None,
    with_deleter: bool = True,
) -> Made:
    """Build a DLPack capsule with the given field values (no validation at all)."""
    count = 1
    for n in shape:
        count *= max(n, 0)
    nbytes = data_bytes if data_bytes is not None else max(count * max(bits // 8, 1) + byte_offset, 1)
    data = ctypes.create_string_buffer(nbytes)
    data_address = 0 if null_data else ctypes.addressof(data)
    true_ndim = len(shape)
    header = VERSIONED_SIZE if versioned else LEGACY_SIZE
    buf = ctypes.create_string_buffer(header + 16 * true_ndim)
    address = ctypes.addressof(buf)
    shape_ptr = 0 if (null_shape or not true_ndim) else address + header
    strides_ptr = 0 if strides is None else address + header + 8 * true_ndim
    if true_ndim:
        struct.pack_into(f"@{true_ndim}q", buf, header, *shape)
        if strides is not None:
            struct.pack_into(f"@{true_ndim}q", buf, header + 8 * true_ndim, *strides)
    deleter = DELETER_ADDRESS if with_deleter else 0
    serial = next(_serials)
    tensor_at = VERSIONED_PREFIX_LAYOUT.size if versioned else 0
    TENSOR_LAYOUT.pack_into(
        buf, tensor_at, data_address, device[0], device[1],
        true_ndim if ndim is None else ndim, code, bits, lanes, shape_ptr, strides_ptr, byte_offset,
    )
    if versioned:
        VERSIONED_PREFIX_LAYOUT.pack_into(buf, 0, version[0], version[1], serial, deleter, flags)
    else:
        struct.pack_into("@PP", buf, TENSOR_SIZE, serial, deleter)
    with _lock:
        _alive[address] = (buf, data, serial)
    capsule_name = name if name is not None else (b"dltensor_versioned" if versioned else b"dltensor")
    name_buffer = _NAMES.get(capsule_name) or _NAMES.setdefault(
        capsule_name, ctypes.create_string_buffer(capsule_name)
    )
    capsule = _new_capsule(address, name_buffer, DESTRUCTOR)
    return Made(capsule, address, data, data_address, serial)


def alive_count() -> int:
    """How many tensors made here still wait for their deleter."""
    return len(_alive)


class Producer:
    """An object with ``__dlpack__``, producing a fresh capsule per call, with options recorded."""

    def __init__(self, legacy_only: bool = False, **fields: Any) -> None:
        self.fields = fields
        self.legacy_only = legacy_only
        self.calls: list[dict[str, Any]] = []
        self.made: list[Made] = []

    def __dlpack__(self, **options: Any) -> Any:
        if self.legacy_only and options:
            raise TypeError("__dlpack__() got an unexpected keyword argument")
        self.calls.append(options)
        versioned = options.get("max_version") is not None and options["max_version"][0] >= 1
        made = make_capsule(versioned=versioned, **self.fields)
        self.made.append(made)
        return made.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.fields.get("device", (1, 0))
