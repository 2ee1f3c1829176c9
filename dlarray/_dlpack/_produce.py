"""Produce: build a DLManagedTensor(Versioned) in memory Python owns and wrap it in a capsule.

Ownership moves here. The struct, its shape and strides live in one ctypes buffer that is kept in
``_live_exports`` together with the object that keeps the data alive. The entry is removed, exactly
once, by whichever comes first and is legitimate:

* the consumer calls the tensor's ``deleter`` (it renamed the capsule to ``used_*``), or
* the capsule is freed while still named ``dltensor[_versioned]`` (nobody consumed it).

Both callbacks are ctypes thunks made immortal, because a consumer may call a deleter while the
interpreter is shutting down, after this module's globals are gone; they reach their state through
default arguments, never through module globals. A ctypes thunk cannot run Python code while a
Python error is pending without clobbering it, so each thunk first takes the pending error out of
the way; see ``docs/safety.md``. The Array layer prefers a backend's native producer (numpy, cupy),
which has no such callbacks, and uses this one for what no backend can export.
"""

from __future__ import annotations

import ctypes
import struct
from typing import Any

from . import _capi
from ._structs import (
    DELETER,
    DLPACK_VERSION,
    LEGACY_SIZE,
    TENSOR_LAYOUT,
    TENSOR_SIZE,
    VERSIONED_PREFIX_LAYOUT,
    VERSIONED_SIZE,
)

_VERSIONED_NAME = _capi.static_c_string(b"dltensor_versioned")
_LEGACY_NAME = _capi.static_c_string(b"dltensor")

#: struct address -> (the buffer holding the struct, the object keeping the data alive)
_live_exports: dict[int, tuple[Any, Any]] = {}

_err_fetch = ctypes.pythonapi["PyErr_Fetch"]
_err_fetch.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
_err_fetch.restype = None
_decref = ctypes.pythonapi["Py_DecRef"]
_decref.argtypes = [ctypes.c_void_p]
_decref.restype = None


def _take_pending_error(
    _fetch: Any = _err_fetch, _decref: Any = _decref, _slots: Any = (ctypes.c_void_p * 3)()
) -> None:
    """Clear an error the caller left pending, so the thunk's own C calls do not fail on it.

    Must be the first thing a thunk does; the error belonged to the C code that freed our object
    and cannot be handed back from a ctypes callback.
    """
    base = ctypes.addressof(_slots)
    _fetch(base, base + 8, base + 16)
    for i in range(3):
        if _slots[i]:
            _decref(_slots[i])
            _slots[i] = None


def _release_on_deleter(
    managed: int, _pop: Any = _live_exports.pop, _clear: Any = _take_pending_error
) -> None:
    # The consumer is done with the tensor: drop the struct and the data's keep-alive.
    try:
        _clear()
        _pop(managed, None)
    except BaseException:  # pragma: no cover - nothing may escape into C
        pass


def _release_on_capsule_freed(
    capsule: int,
    _pop: Any = _live_exports.pop,
    _clear: Any = _take_pending_error,
    _is_valid: Any = _capi.capsule_is_valid_raw,
    _get_pointer: Any = _capi.capsule_get_pointer_raw,
    _names: Any = (_VERSIONED_NAME, _LEGACY_NAME),
) -> None:
    # Only an unconsumed capsule still owns its tensor; a consumed one is the consumer's business.
    try:
        _clear()
        for name in _names:
            if _is_valid(capsule, name):
                _pop(_get_pointer(capsule, name), None)
                return
    except BaseException:  # pragma: no cover - nothing may escape into C
        pass


_DELETER_THUNK = DELETER(_release_on_deleter)
_DESTRUCTOR_THUNK = _capi.PyCapsule_Destructor(_release_on_capsule_freed)
_capi.immortal(_DELETER_THUNK)
_capi.immortal(_DESTRUCTOR_THUNK)
DELETER_ADDRESS: int = ctypes.cast(_DELETER_THUNK, ctypes.c_void_p).value or 0

_new_capsule = _capi.capsule_new
_buffer = ctypes.create_string_buffer
_addressof = ctypes.addressof
_int64s: dict[int, struct.Struct] = {}


def export_capsule(
    data: int,
    byte_offset: int,
    shape: tuple[int, ...],
    strides: tuple[int, ...],
    dtype_code: int,
    dtype_bits: int,
    device_type: int,
    device_id: int,
    flags: int,
    keepalive: Any,
    versioned: bool,
) -> object:
    """Return a new ``dltensor_versioned`` (or legacy ``dltensor``) capsule for a buffer.

    ``keepalive`` is held until the consumer calls the deleter or the capsule is freed unused.
    Strides are in elements. ``flags`` is ignored for a legacy capsule (the caller refuses a
    read-only legacy export before getting here).
    """
    ndim = len(shape)
    header = VERSIONED_SIZE if versioned else LEGACY_SIZE
    buf = _buffer(header + 16 * ndim)
    address = _addressof(buf)
    shape_ptr = address + header if ndim else 0
    strides_ptr = shape_ptr + 8 * ndim if ndim else 0
    tensor_offset = VERSIONED_PREFIX_LAYOUT.size if versioned else 0
    TENSOR_LAYOUT.pack_into(
        buf, tensor_offset, data, device_type, device_id, ndim, dtype_code, dtype_bits, 1,
        shape_ptr, strides_ptr, byte_offset,
    )
    if versioned:
        VERSIONED_PREFIX_LAYOUT.pack_into(
            buf, 0, DLPACK_VERSION[0], DLPACK_VERSION[1], 0, DELETER_ADDRESS, flags
        )
        name = _VERSIONED_NAME
    else:
        struct.pack_into("@PP", buf, TENSOR_SIZE, 0, DELETER_ADDRESS)
        name = _LEGACY_NAME
    if ndim:
        layout = _int64s.get(ndim)
        if layout is None:
            layout = _int64s[ndim] = struct.Struct(f"@{2 * ndim}q")
        layout.pack_into(buf, header, *shape, *strides)
    _live_exports[address] = (buf, keepalive)
    return _new_capsule(address, name, _DESTRUCTOR_THUNK)


def live_export_count() -> int:
    """How many exported tensors are still waiting for a deleter call or their capsule's end."""
    return len(_live_exports)
