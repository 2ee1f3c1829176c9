"""The DLPack C exchange API (DLPack 1.2+), consumer side.

A producer type may carry ``__dlpack_c_exchange_api__``: a capsule named ``dlpack_exchange_api``
holding a static ``DLPackExchangeAPI`` struct of C function pointers (torch has one). Its
``managed_tensor_from_py_object_no_sync`` hands over a ``DLManagedTensorVersioned*`` directly: no
Python ``__dlpack__`` call, no capsule. Ownership of the struct moves to the caller at once (see
:func:`import_with`). "NoSync" means no stream ordering, so only CPU tensors are taken this way.
"""

from __future__ import annotations

import ctypes
import operator
import struct
from collections.abc import Callable
from typing import Any, TypeVar

from . import _capi
from ._consume import (
    DEVICE_TYPE_INDEX,
    MEMORY,
    VALID_CODE_BITS,
    CapsuleType,
    ImportedTensor,
    armed,
    ordinary_geometry,
    read_managed,
    read_versioned,
)
from ._structs import (
    DLPACK_MAJOR_VERSION,
    TENSOR_LAYOUT,
    TENSOR_SIZE,
    DLDeviceType,
    DLManagedTensorVersioned,
    DLPackVersion,
)

EXCHANGE_API_NAME = b"dlpack_exchange_api"
T = TypeVar("T")


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


# int (*)(void *py_object, DLManagedTensorVersioned **out): sets a Python error and returns -1 on
# failure, so it is called as a Python-API function (GIL held, error raised by ctypes). The object
# goes as its address; the out-parameter is a one-pointer slot (a new one per call: a shared slot
# could be overwritten by another thread, or by a producer that imports again from inside the
# call, before it is read), passed by reference.
_FROM_PY_OBJECT = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))

# What a slot points to until the exchange function hands a struct over: a struct with a NULL
# deleter, which the slot's owner (see _slot_owner) does not call.
_NOTHING_HANDED_OVER = DLManagedTensorVersioned()
_NOTHING_ADDRESS = ctypes.addressof(_NOTHING_HANDED_OVER)
_ManagedPointer = ctypes.POINTER(DLManagedTensorVersioned)
_deleter_field = operator.attrgetter("contents.deleter")
_call = operator.call


def _slot_owner() -> tuple[ctypes.c_void_p, ImportedTensor]:
    """A slot for the exchange function's out-parameter, and the owner of what it will point to.

    The owner exists, armed, before the struct is handed over: freed, it calls the deleter of the
    struct the slot points to then (through a pointer that shares the slot's memory), and nothing
    while the slot still points to :data:`_NOTHING_HANDED_OVER` or the deleter is NULL. So from
    the instant the exchange function returns the struct is owned, with no bytecode between the
    hand-over and the taking in which an interrupt could leave it unowned. The finalizer is built
    of C callables only (``tuple`` consuming ``map``/``filter``): no Python frame runs when it
    is freed (see :class:`~._consume.ImportedTensor`).
    """
    slot = ctypes.c_void_p(_NOTHING_ADDRESS)
    through = (_ManagedPointer.from_buffer(slot),)
    owner = armed(ImportedTensor, tuple, map(_call, filter(None, map(_deleter_field, through)), through))
    return slot, owner


# A DLTensor the exchange API's dltensor_from_py_object_no_sync fills in: one per call (a shared
# slot could be overwritten by another thread between the call and the read).
TensorSlot = ctypes.c_char * TENSOR_SIZE
# int (*)(void *py_object, DLTensor *out): borrows the object's tensor, nothing to free.
_VIEW_FROM_PY_OBJECT = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, TensorSlot)
_read_tensor = TENSOR_LAYOUT.unpack_from


def _exchange_api(kind: type) -> DLPackExchangeAPI | None:
    """The ``DLPackExchangeAPI`` a producer type carries (major version 1), or None."""
    capsule = getattr(kind, "__dlpack_c_exchange_api__", None)
    try:
        if type(capsule) is CapsuleType and _capi.capsule_get_name(capsule) == EXCHANGE_API_NAME:
            api = DLPackExchangeAPI.from_address(_capi.capsule_get_pointer(capsule, EXCHANGE_API_NAME))
            if api.header.version.major == 1:
                return api
    except ctypes.ArgumentError as error:
        _capi.reraise(error)
    return None


class _ExchangeFunctions(dict):  # type: ignore[type-arg]
    """Producer type -> one function of its exchange API (None where it has none); filled on first use.

    A lookup that hits is one C-level subscript (no Python call), which the import hot path wants.
    """

    def __init__(self, field: str, prototype: Any) -> None:
        super().__init__()
        self._field = field
        self._prototype = prototype

    def __missing__(self, kind: type) -> Any:
        api = _exchange_api(kind)
        address = getattr(api, self._field) if api is not None else None
        function = self._prototype(address) if address else None
        if len(self) < 1024:  # bounded: one entry per producer type
            self[kind] = function
        return function


#: ``viewer_for(kind)``: the producer type's ``dltensor_from_py_object_no_sync``, or None.
viewer_for = _ExchangeFunctions("dltensor_from_py_object_no_sync", _VIEW_FROM_PY_OBJECT).__getitem__


def view_with(viewer: Any, obj: object, build: Callable[..., T]) -> T | None:
    """Borrow ``obj``'s tensor through ``viewer`` (from :func:`viewer_for`); ``obj`` is the owner.

    ``dltensor_from_py_object_no_sync`` fills a DLTensor that stays valid while ``obj`` lives (its
    shape and strides point into the object's own metadata) and hands over nothing to free: no
    managed struct, no deleter. Ownership rule: the Array holds ``obj`` itself, which keeps the
    memory alive exactly as the managed export's context would (both hold the producer's tensor),
    and the shape and strides are copied at once. Only the ordinary CPU tensor is taken this way
    (the same bound test as :func:`import_with`, flags 0: a DLTensor carries none); for anything
    else, or if the function raises, None: the caller imports through :func:`import_with`, whose
    general checks refuse or let go exactly as before.
    """
    slot = TensorSlot()
    try:
        viewer(id(obj), slot)
    except Exception:
        return None
    try:
        (data, device_type, device_id, ndim, code, bits, lanes, shape_ptr, strides_ptr,
         byte_offset) = _read_tensor(slot)
        if not (device_type == _CPU and device_id >= 0 and lanes == 1 and (code, bits) in VALID_CODE_BITS):
            return None
        geometry = ordinary_geometry(ndim, shape_ptr, strides_ptr, byte_offset, data)
    except (OverflowError, struct.error):
        return None
    if geometry is None:
        return None
    return build(obj, data, byte_offset, geometry[0], geometry[1], code, bits, device_type, device_id, 0)


#: ``importer_for(kind)``: the producer type's ``managed_tensor_from_py_object_no_sync``, or None.
importer_for = _ExchangeFunctions("managed_tensor_from_py_object_no_sync", _FROM_PY_OBJECT).__getitem__


_CPU = DLDeviceType.CPU.value


def import_with(importer: Any, obj: object, build: Callable[..., T]) -> T | None:
    """Ask ``importer`` (from :func:`importer_for`) for ``obj``'s tensor and take ownership of it.

    Returns ``build(owner, data, byte_offset, shape, strides, dtype_code, dtype_bits, device_type,
    device_id, flags)``: the consumer's constructor, called with the validated fields (no tuple in
    between: this is the import hot path) and the :class:`ImportedTensor` that now owns the
    struct. None where the caller must ask ``__dlpack__`` instead: a valid tensor that is not on
    the CPU, let go at once ("NoSync": only ``__dlpack__`` orders the streams), or an exchange
    function that raised (its exceptions need not be those of ``__dlpack__``). The struct is ours
    as soon as the call returns, so a refusal of its fields runs its deleter before raising, and
    so does an interrupt, wherever it lands.

    The exchange function does not make the checks the producer's ``__dlpack__`` makes (torch's
    refuses a tensor that requires grad or has the conjugate bit set): which producer types and
    which objects may come here at all is decided above this core (``dlarray._producers``).
    """
    slot, owner = _slot_owner()  # owns whatever the exchange function hands over, from the instant it does
    try:
        # The object goes by its address (its id in CPython): the C function takes a void*, and
        # this frame holds a reference to obj for the whole call.
        try:
            importer(id(obj), slot)
        except Exception:
            # The exchange function's refusals are not __dlpack__'s (torch raises RuntimeError here
            # for a sparse, meta or quantized tensor where __dlpack__ raises BufferError): the caller
            # asks __dlpack__, which refuses (or converts) exactly as the producer does. A function
            # that reports failure hands over no tensor.
            return None
        managed = slot.value
        if managed == _NOTHING_ADDRESS or not managed:
            raise BufferError(f"{type(obj).__name__}'s DLPack exchange API reported success but gave no tensor")
        try:
            # The exchange API's own major version (checked when it was found) vouches for the
            # struct's size, so it is read whole; its major version is checked before any use.
            (major, _minor, _ctx, _deleter, flags, data, device_type, device_id, ndim, code, bits, lanes,
             shape_ptr, strides_ptr, byte_offset) = read_versioned(MEMORY, managed)
            geometry = None
            if (device_type == _CPU and device_id >= 0 and major == DLPACK_MAJOR_VERSION and lanes == 1
                    and (code, bits) in VALID_CODE_BITS):
                geometry = ordinary_geometry(ndim, shape_ptr, strides_ptr, byte_offset, data)
        except (OverflowError, struct.error):  # a pointer past the address space: read_managed says so
            geometry = None
        if geometry is not None:
            # the ordinary CPU tensor: straight to the consumer, no result tuples
            return build(owner, data, byte_offset, geometry[0], geometry[1], code, bits, device_type,
                         device_id, flags)
        # everything else, and every refusal, through the general checks
        fields, _deleter = read_managed(managed, True)
        if fields[DEVICE_TYPE_INDEX] != _CPU:
            owner = None  # let go: the deleter runs now
            return None
        return build(owner, *fields[:-1])  # all but the version
    except BaseException:
        owner = None  # first, with no call before it: a struct handed over is freed now
        raise
