"""The DLPack C exchange API (DLPack 1.2+), consumer side.

A producer type may carry ``__dlpack_c_exchange_api__``: a capsule named ``dlpack_exchange_api``
holding a static ``DLPackExchangeAPI`` struct of C function pointers (torch has one). Its
``managed_tensor_from_py_object_no_sync`` hands over a ``DLManagedTensorVersioned*`` directly: no
Python ``__dlpack__`` call, no capsule. Ownership of the struct moves to the caller at once (see
:func:`import_with`). "NoSync" means no stream ordering, so only CPU tensors are taken this way.
"""

from __future__ import annotations

import ctypes
from typing import Any

from . import _capi
from ._consume import (
    DEVICE_TYPE_INDEX,
    CapsuleType,
    ImportedTensor,
    call_deleter_now,
    deleter_of,
    own,
    read_managed,
)
from ._structs import DLDeviceType, DLPackVersion

EXCHANGE_API_NAME = b"dlpack_exchange_api"


class DLPackExchangeAPIHeader(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("prev_api", ctypes.c_void_p)]


class DLPackExchangeAPI(ctypes.Structure):
    _fields_ = [
        ("header", DLPackExchangeAPIHeader),
        ("managed_tensor_allocator", ctypes.c_void_p),
        ("managed_tensor_from_py_object_no_sync", ctypes.c_void_p),
        ("managed_tensor_to_py_object_no_sync", ctypes.c_void_p),
        ("dltensor_from_py_object_no_sync", ctypes.c_void_p),
        ("current_work_stream", ctypes.c_void_p),
    ]


# int (*)(PyObject *, DLManagedTensorVersioned **): sets a Python error and returns -1 on failure,
# so it is called as a Python-API function (GIL held, error raised by ctypes). The out-parameter
# is declared void*: ctypes checks a c_void_p array against it faster than against POINTER(...).
_FROM_PY_OBJECT = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_void_p)


class _ImporterCache(dict):  # type: ignore[type-arg]
    """Producer type -> its ``managed_tensor_from_py_object_no_sync``, or None; filled on first use.

    A lookup that hits is one C-level subscript (no Python call), which the import hot path wants.
    """

    def __missing__(self, kind: type) -> Any:
        function = None
        capsule = getattr(kind, "__dlpack_c_exchange_api__", None)
        if type(capsule) is CapsuleType and _capi.capsule_get_name(capsule) == EXCHANGE_API_NAME:
            api = DLPackExchangeAPI.from_address(_capi.capsule_get_pointer(capsule, EXCHANGE_API_NAME))
            if api.header.version.major == 1 and api.managed_tensor_from_py_object_no_sync:
                function = _FROM_PY_OBJECT(api.managed_tensor_from_py_object_no_sync)
        if len(self) < 1024:  # bounded: one entry per producer type
            self[kind] = function
        return function


_importers = _ImporterCache()
#: ``importer_for(kind)``: the producer type's ``managed_tensor_from_py_object_no_sync``, or None.
importer_for = _importers.__getitem__


# The out-parameter: a one-element array passes as the pointer itself (no byref). A new one per
# call: a shared slot could be overwritten by another thread, or by a producer that imports again
# from inside the call, before it is read.
_OUT = ctypes.c_void_p * 1
_CPU = DLDeviceType.CPU.value


def import_with(importer: Any, obj: object) -> tuple[tuple[Any, ...], ImportedTensor] | None:
    """Ask ``importer`` (from :func:`importer_for`) for ``obj``'s tensor and take ownership of it.

    Returns the fields of its TensorInfo as a plain tuple (see ``read_managed``) and its owner;
    None for a valid tensor that is not on the CPU, let go at once ("NoSync": only ``__dlpack__``
    orders the streams). The struct is ours as soon as the call returns, so a refusal runs its
    deleter before raising.
    """
    out = _OUT()
    importer(obj, out)  # raises the producer's Python error on failure
    managed: int = out[0]  # type: ignore[assignment]
    try:
        # The exchange API's own major version (checked when it was found) vouches for the
        # struct's size, so it is read whole; read_managed still refuses another major version.
        fields, deleter = read_managed(managed, True)
    except BaseException:
        call_deleter_now(managed, deleter_of(managed))
        raise
    if fields[DEVICE_TYPE_INDEX] != _CPU:
        call_deleter_now(managed, deleter)
        return None
    return fields, own(managed, deleter)
