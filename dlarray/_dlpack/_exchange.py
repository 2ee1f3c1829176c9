"""The DLPack C exchange API (DLPack 1.2+), consumer side.

A producer type may carry ``__dlpack_c_exchange_api__``: a capsule named ``dlpack_exchange_api``
holding a static ``DLPackExchangeAPI`` struct of C function pointers (torch has one). Its
``managed_tensor_from_py_object_no_sync`` hands over a ``DLManagedTensorVersioned*`` directly: no
Python ``__dlpack__`` call, no capsule. Ownership of the struct moves to the caller at once (see
:func:`import_with`). "NoSync" means no stream ordering: a CPU tensor is taken as it is, a CUDA
tensor with the stream its data is ordered on, which the table's ``current_work_stream`` tells
(the consumer orders its own work after that stream, as it does for a cupy result); other devices
are left to ``__dlpack__``.

The table is trusted only as far as its header vouches for it. The header (DLPack 1.3:
``{DLPackVersion version; DLPackExchangeAPIHeader *prev_api}``) has no size field: the version is
what says which fields follow. The exchange API appeared in DLPack 1.2, whose table already has
every field read here, so a table of major version 1 and minor >= 2 is read; one of a later major
version is followed down its ``prev_api`` chain to a major-1 table (as the header asks of
consumers); anything else, and a capsule not named ``dlpack_exchange_api``, is ignored:
``__dlpack__`` is asked instead.
"""

from __future__ import annotations

import ctypes
import operator
import struct
from collections.abc import Callable
from typing import Any, TypeVar

from . import _capi, _consume
from ._consume import (
    DEVICE_TYPE_INDEX,
    MEMORY,
    VALID_CODE_BITS,
    VERSIONED_NAME,
    CapsuleType,
    ImportedTensor,
    _call,  # the C-level call of a transfer's steps, shared with the capsule path
    _map,
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
#: The first DLPack minor version (of major 1) with the exchange API: the table's fields read here.
EXCHANGE_API_FIRST_MINOR = 2
_PREV_API_HOPS = 8  # a bound on the prev_api chain: a faulty table could make it a loop
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
# goes as its address; the out-parameter as the address of a one-pointer slot (a new one per call:
# a shared slot could be overwritten by another thread, or by a producer that imports again from
# inside the call, before it is read): the ``pointer`` field of the owner capsule (see
# import_with), or a ctypes slot.
_FROM_PY_OBJECT = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)

# What a slot points to until the exchange function hands a struct over: a struct with a NULL
# deleter, which the slot's owner (see _slot_owner) does not call.
_NOTHING_HANDED_OVER = DLManagedTensorVersioned()
_NOTHING_ADDRESS = ctypes.addressof(_NOTHING_HANDED_OVER)
_ManagedPointer = ctypes.POINTER(DLManagedTensorVersioned)
_deleter_field = operator.attrgetter("contents.deleter")


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


# The owner of what the exchange function hands over, where it can be a capsule (the fast form):
# a capsule made here, pointing to _NOTHING_HANDED_OVER and named "used_dltensor_versioned", so that
# its destructor does nothing. Its ``pointer`` field is the exchange function's out-parameter, and
# the rename to "dltensor_versioned" is made by C right after the call returns (both C calls run by
# ``map``, no bytecode between: see _consume._transfer): from then on the capsule's destructor, a C
# function, calls the deleter of the struct it points to when the capsule is freed, as it does
# for a capsule its producer made. The destructor is numpy's C producer's, taken from one of its
# capsules by the host backend (use_owner_destructor): it returns for a "used_" name, calls nothing
# for a NULL deleter (numpy/_core/src/multiarray/dlpack.c, dlpack_capsule_deleter), and keeps no
# context. numpy's own from_dlpack keeps its imports alive the same way, through a capsule of its
# own. Without a destructor, or where a capsule's layout is not CPython's, the ctypes slot of
# _slot_owner is the owner instead (about 1 us more per import).
_owner_destructor = 0
_new_capsule = _capi.capsule_new_at
_USED_NAME_ADDRESS = ctypes.addressof(_consume._USED_VERSIONED_NAME)
_VERSIONED_NAME_BUFFER = _capi.static_c_string(VERSIONED_NAME)
_VERSIONED_NAME_ADDRESS = ctypes.addressof(_VERSIONED_NAME_BUFFER)
_DELETER_TYPE = dict(DLManagedTensorVersioned._fields_)["deleter"]


def use_owner_destructor(capsule: object) -> bool:
    """Take the destructor of ``capsule`` (an unused ``dltensor_versioned`` capsule of numpy's C
    producer) for the owner capsules of exchange imports; whether it was taken.

    Examples
    --------
    >>> import numpy as np
    >>> use_owner_destructor(np.empty(0).__dlpack__(max_version=(1, 0)))
    True
    """
    global _owner_destructor
    if type(capsule) is not CapsuleType or not _consume._DIRECT:
        return False
    _pointer, name, _context, destructor = _consume._CAPSULE_AT(MEMORY, id(capsule) + _consume._CAPSULE_POINTER_OFFSET)
    if not destructor or ctypes.string_at(name) != VERSIONED_NAME or not _behaves_as_owners_need(destructor):
        return False
    _owner_destructor = destructor
    return True


def _behaves_as_owners_need(destructor: int) -> bool:
    """Whether ``destructor``, on capsules made here over a struct of our own, does what an owner
    capsule needs: nothing while the capsule is named "used_dltensor_versioned", the struct's
    deleter once when it is freed named "dltensor_versioned" (a check of the numpy at hand)."""
    calls: list[int] = []
    struct = DLManagedTensorVersioned()
    struct.deleter = _DELETER_TYPE(lambda managed: calls.append(1))
    for armed_by_rename in (False, True):
        capsule = _new_capsule(ctypes.addressof(struct), _USED_NAME_ADDRESS, destructor)
        if armed_by_rename:
            _consume._write_address(id(capsule) + _consume._CAPSULE_NAME_OFFSET, _VERSIONED_NAME_ADDRESS)
        del capsule  # freed: its destructor runs now
        if len(calls) != int(armed_by_rename):
            return False
    return True


def _handed_over(importer: Any, obj: object) -> tuple[Any, int] | None:
    """Call ``importer`` for ``obj``: (the owner, the struct's address) where it reports success,
    None where it fails (raises, or returns non-zero without an error): nothing was handed over.
    The owner owns the struct from the instant the call returns (see the notes above)."""
    if _owner_destructor and _consume._DIRECT:
        capsule = _new_capsule(_NOTHING_ADDRESS, _USED_NAME_ADDRESS, _owner_destructor)
        slot = id(capsule) + _consume._CAPSULE_POINTER_OFFSET
        # The capsule is freed by the owner's finalizer (the list's clear), where CPython has set
        # any pending exception aside: a capsule freed while an exception propagates would call
        # its destructor, and so the deleter, with the exception set (a deleter that is a ctypes
        # callback then fails with SystemError and never runs).
        owner = armed(ImportedTensor, [capsule].clear)
        del capsule
        try:
            try:
                # the call, then (if it returned 0) the rename that arms the owner: two C calls made by C
                if any(_map(_call, (importer, _consume._write_address), (id(obj), slot + _consume._POINTER_SIZE),
                            (slot, _VERSIONED_NAME_ADDRESS))):
                    return None
            except Exception:
                return None
            managed = _consume._CAPSULE_AT(MEMORY, slot)[0]
            if not managed:  # a NULL handed over: the sentinel again, which numpy's destructor reads quietly
                _consume._write_address(slot, _NOTHING_ADDRESS)
            return owner, managed
        except BaseException:
            owner = None  # first: what was handed over is freed now, not with a traceback
            raise
    ctypes_slot, owner = _slot_owner()
    try:
        try:
            if importer(id(obj), ctypes.addressof(ctypes_slot)):
                return None
        except Exception:
            return None
        return owner, ctypes_slot.value or 0
    except BaseException:
        owner = None
        raise


# A DLTensor the exchange API's dltensor_from_py_object_no_sync fills in: one per call (a shared
# slot could be overwritten by another thread between the call and the read).
TensorSlot = ctypes.c_char * TENSOR_SIZE
# int (*)(void *py_object, DLTensor *out): borrows the object's tensor, nothing to free.
_VIEW_FROM_PY_OBJECT = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, TensorSlot)
_read_tensor = TENSOR_LAYOUT.unpack_from


def exchange_api(kind: type) -> DLPackExchangeAPI | None:
    """The ``DLPackExchangeAPI`` a producer type carries, of a version whose fields are known, or None.

    Major version 1 from minor 2 on (the first with the exchange API: every field read here is
    there); a table of a later major version is followed down its ``prev_api`` chain (at most
    :data:`_PREV_API_HOPS` links) to a major-1 one. A table of major 1 and minor < 2, of major 0,
    or a chain with no major-1 table: None (``__dlpack__`` is asked).
    """
    capsule = getattr(kind, "__dlpack_c_exchange_api__", None)
    try:
        if type(capsule) is not CapsuleType or _capi.capsule_get_name(capsule) != EXCHANGE_API_NAME:
            return None
        address = _capi.capsule_get_pointer(capsule, EXCHANGE_API_NAME)
    except ctypes.ArgumentError as error:
        _capi.reraise(error)
    for _hop in range(_PREV_API_HOPS):
        if not address:
            return None
        header = DLPackExchangeAPIHeader.from_address(address)  # the header: stable across versions
        major = header.version.major
        if major == DLPACK_MAJOR_VERSION:
            if header.version.minor < EXCHANGE_API_FIRST_MINOR:
                return None  # older than the exchange API: its fields are not those read here
            return DLPackExchangeAPI.from_address(address)
        if major < DLPACK_MAJOR_VERSION:
            return None
        address = header.prev_api
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
        api = exchange_api(kind)
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

# int (*)(DLDeviceType device_type, int32_t device_id, void **out_current_stream): -1 with a
# Python error set on failure (a Python-API function, as the import function is).
_CURRENT_WORK_STREAM = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p))

#: ``stream_reader_for(kind)``: the producer type's ``current_work_stream``, or None.
stream_reader_for = _ExchangeFunctions("current_work_stream", _CURRENT_WORK_STREAM).__getitem__

_CPU = DLDeviceType.CPU.value
_CUDA = DLDeviceType.CUDA.value
_DEVICE_ID_INDEX = DEVICE_TYPE_INDEX + 1
#: The DLPack stream of CUDA's legacy default stream, which a NULL stream handle names.
_LEGACY_DEFAULT_STREAM = 1


def work_stream(reader: Any, device_type: int, device_id: int) -> int | None:
    """The producer's current work stream on a device, as a DLPack stream integer, or None where
    ``reader`` (from :func:`stream_reader_for`) fails (raises, or returns non-zero).

    CUDA's NULL stream handle is the legacy default stream: 1 in DLPack's numbering (the driver's
    ``CU_STREAM_LEGACY`` and ``CU_STREAM_PER_THREAD`` are 1 and 2 there too, so a handle is its
    DLPack stream as it is).

    Examples
    --------
    >>> import ctypes
    >>> @_CURRENT_WORK_STREAM
    ... def per_thread(device_type, device_id, out):  # a producer on the per-thread default stream
    ...     out[0] = 2
    ...     return 0
    >>> work_stream(per_thread, 2, 0)
    2
    """
    out = ctypes.c_void_p()
    try:
        if reader(device_type, device_id, ctypes.byref(out)) != 0:
            return None
    except Exception:
        return None
    return out.value or _LEGACY_DEFAULT_STREAM


def import_with(importer: Any, obj: object, build: Callable[..., T], streams: Any = None) -> T | None:
    """Ask ``importer`` (from :func:`importer_for`) for ``obj``'s tensor and take ownership of it.

    Returns ``build(owner, data, byte_offset, shape, strides, dtype_code, dtype_bits, device_type,
    device_id, flags)``: the consumer's constructor, called with the validated fields (no tuple in
    between: this is the import hot path) and the :class:`ImportedTensor` that now owns the
    struct. A CUDA tensor, where ``streams`` (the type's ``current_work_stream``, from
    :func:`stream_reader_for`) is given, is built with two more arguments, ``None`` (no capsule
    version) and the stream its data is ordered on (:func:`work_stream`): "NoSync" hands the data
    over as the producer's current stream leaves it. None where the caller must ask ``__dlpack__``
    instead: a valid tensor on another device, or on CUDA without ``streams`` or where it fails,
    let go at once (only ``__dlpack__`` orders the streams there), or an exchange function that
    raised (its exceptions need not be those of ``__dlpack__``). The struct is ours as soon as the
    call returns, so a refusal of its fields runs its deleter before raising, and so does an
    interrupt, wherever it lands.

    The exchange function does not make the checks the producer's ``__dlpack__`` makes (torch's
    refuses a tensor that requires grad or has the conjugate bit set): which producer types and
    which objects may come here at all is decided above this core (``dlarray._producers``).
    """
    owner = handed = None
    try:
        # The object goes by its address (its id in CPython): the C function takes a void*, and
        # this frame holds a reference to obj for the whole call. The exchange function's refusals
        # are not __dlpack__'s (torch raises RuntimeError here for a sparse, meta or quantized
        # tensor where __dlpack__ raises BufferError): where it fails, the caller asks __dlpack__,
        # which refuses (or converts) exactly as the producer does. A function that reports failure
        # hands over no tensor.
        handed = _handed_over(importer, obj)
        if handed is None:
            return None
        owner, managed = handed
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
        device_type = fields[DEVICE_TYPE_INDEX]
        if device_type == _CPU:
            return build(owner, *fields[:-1])  # all but the version
        if device_type == _CUDA and streams is not None:
            stream = work_stream(streams, device_type, fields[_DEVICE_ID_INDEX])
            if stream is not None:
                return build(owner, *fields[:-1], None, stream)
        owner = handed = None  # let go: the deleter runs now
        return None
    except BaseException:
        # first, with no call before them: a struct handed over is freed now, not when the
        # traceback that holds this frame is
        owner = handed = None
        raise
