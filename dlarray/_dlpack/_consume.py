"""Consume: turn a DLPack capsule into validated metadata plus an owner that runs the deleter once.

Ownership moves here. A capsule named ``dltensor``/``dltensor_versioned`` belongs to its producer
until a consumer renames it ``used_*``; from then on the consumer must call the tensor's deleter
exactly once. This module renames the capsule only after every field has been validated, so a
refused capsule stays with its producer (its capsule destructor frees it), and an accepted one is
handed to an :class:`ImportedTensor`, whose finalizer is the single place the deleter is called.

A capsule no other code holds (the one a producer has just returned to ``from_dlpack``, which
counts its references) has no second consumer to guard against: it is neither claimed nor
renamed, and is itself the owner. Its producer's destructor, which DLPack requires to call the
deleter of a capsule that keeps its unused name, is then the single caller of the deleter.

A held capsule of a host tensor whose deleter is compiled code is validated here, then renamed and
taken in one C call by the host's consumer the layer above lends (numpy's: see
:func:`use_host_consumer`); its result is the owner, and calls the deleter from C.

Interrupts (Ctrl-C): Python raises a KeyboardInterrupt only between the bytecodes of a Python
frame, and checks for one only on entering a function, after a call returns and at the end of a
loop's body; never inside a C call (a ctypes call included), never during the plain bytecodes
between those points. So every change of who owns what is one C call, made when the object that
undoes or completes it exists already, and what an interrupt leaves is put right by dropping a
reference (a plain bytecode) whose finalizer runs in C: the claim is a weak reference to the
owner, and the owner calls the deleter from C. An import either completes or leaves nothing
behind, however many interrupts arrive (tests/test_interrupts.py tries every bytecode).
"""

from __future__ import annotations

import ctypes
import functools
import mmap
import operator
import struct
import sys
import weakref
from _weakref import _remove_dead_weakref  # see _claims
from collections.abc import Callable
from typing import Any, NamedTuple, NoReturn, TypeVar

from . import _capi
from ._structs import (
    DELETER,
    DLPACK_MAJOR_VERSION,
    DLDeviceType,
    FLAG_IS_COPIED,
    FLAG_IS_SUBBYTE_TYPE_PADDED,
    FLAG_READ_ONLY,
    LEGACY_LAYOUT,
    MAX_NDIM,
    VERSION_PREFIX_LAYOUT,
    VERSIONED_LAYOUT,
)
from ._validate import (
    DLPACK_TENSOR,
    KNOWN_DEVICE_TYPES,
    VALID_CODE_BITS,
    _refuse_dtype_or_device,
    check_ndim,
    contiguous_strides,
    validate_fields,
)

VERSIONED_NAME = b"dltensor_versioned"
LEGACY_NAME = b"dltensor"
_USED_VERSIONED_NAME = _capi.static_c_string(b"used_dltensor_versioned")
_USED_LEGACY_NAME = _capi.static_c_string(b"used_dltensor")

USER_SPACE_END = 1 << 62  # below any kernel half of a 64-bit address space
_FAST_BOUND = 1 << 40
# The ordinary 1-D tensor: extent, stride and byte_offset below 2**ORDINARY_1D_SHIFT (one shift
# tests all three, a negative int having all high bits set); see ordinary_geometry.
ORDINARY_1D_SHIFT = 28


def _address_space() -> memoryview:
    # All of memory as one read-only buffer: struct's unpack_from(MEMORY, address) reads a C
    # struct with no foreign-function call (~0.08 us; ctypes.string_at plus unpack, ~0.45 us).
    # Like string_at it trusts the address; one past sys.maxsize raises instead of crashing.
    return memoryview((ctypes.c_char * sys.maxsize).from_address(0)).toreadonly()


MEMORY = _address_space()
# Readers of C memory: each takes (MEMORY, address).
# _INT64S_AT[n] reads n int64 (a shape or strides of ndim n)
_INT64S_AT = [struct.Struct(f"@{count}q").unpack_from for count in range(MAX_NDIM + 1)]
read_int64 = _INT64S_AT[1]
read_versioned = VERSIONED_LAYOUT.unpack_from
_LEGACY_AT = LEGACY_LAYOUT.unpack_from
_VERSION_PREFIX_AT = VERSION_PREFIX_LAYOUT.unpack_from
_out_of_memory = _capi.out_of_memory
_get_name = _capi.capsule_get_name
_get_pointer = _capi.capsule_get_pointer
_set_name = _capi.capsule_set_name


def _make_capsule_type() -> type:
    # A capsule with no destructor, only to learn the type object.
    return type(_capi.capsule_new(1, None, None))


CapsuleType: type = _make_capsule_type()

# A capsule's fields, read and renamed in place: CPython's ``PyCapsule`` is ``{PyObject_HEAD;
# void *pointer; const char *name; void *context; destructor}``, and one ``struct`` read of its
# fields (~0.08 us) costs a fraction of the C-API calls it replaces (PyCapsule_GetName ~0.2 us,
# PyCapsule_GetPointer ~0.35 us; PyCapsule_SetName ~0.2 us for a rename). The layout is checked
# once, on a capsule made here (:func:`_capsule_layout`); where it differs, the C API is used
# (:func:`_use_layout`). A rename in place stores the name's address, which is all
# PyCapsule_SetName does, through a writable view of memory used for nothing else.
_WRITABLE_MEMORY = memoryview((ctypes.c_char * sys.maxsize).from_address(0))
_POINTER = struct.Struct("@P")
_POINTER_SIZE = _POINTER.size
_write_address = functools.partial(_POINTER.pack_into, _WRITABLE_MEMORY)  # (address, value)
_CAPSULE_AT = struct.Struct("@PPPP").unpack_from  # pointer, name, context, destructor


def _capsule_layout() -> int | None:
    """Where a capsule's ``pointer`` field lies from the capsule's address (its ``name`` follows),
    checked by reading and renaming a capsule made here; None where the layout is not CPython's."""
    offset = object.__basicsize__  # right after PyObject_HEAD (3.13 added fields after the destructor)
    pointer = ctypes.addressof(_USED_LEGACY_NAME)  # any non-NULL address: it is never followed
    probe = _capi.capsule_new(pointer, _USED_VERSIONED_NAME, None)
    if _CAPSULE_AT(MEMORY, id(probe) + offset) != (pointer, ctypes.addressof(_USED_VERSIONED_NAME), 0, 0):
        return None
    _write_address(id(probe) + offset + _POINTER_SIZE, ctypes.addressof(_USED_LEGACY_NAME))
    return offset if _get_name(probe) == b"used_dltensor" else None


# A name is read as the first 19 bytes at its address, when they lie in the page of its first
# byte: memory is mapped page by page, so that read cannot fault, even past a shorter name's end
# (the C library's string functions read whole words past a string's end on the same grounds).
_VERSIONED_TEXT = VERSIONED_NAME + b"\0"
_LEGACY_TEXT = LEGACY_NAME + b"\0"
_NAME_AT = struct.Struct(f"{len(_VERSIONED_TEXT)}s").unpack_from
_PAGE_MASK = mmap.PAGESIZE - 1
_NAME_READ_LIMIT = mmap.PAGESIZE - len(_VERSIONED_TEXT)  # the last offset in a page a read may start at
# The whole DLManagedTensorVersioned is read at once where it lies in one page; else its version
# prefix first (a struct of another major version may be smaller: nothing past the prefix is read).
_VERSIONED_READ_LIMIT = mmap.PAGESIZE - VERSIONED_LAYOUT.size


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


#: Where the device type sits in a TensorInfo (and in the plain tuple ``read_managed`` returns).
DEVICE_TYPE_INDEX = TensorInfo._fields.index("device_type")


#: What an owner that holds no tensor calls when freed: a C builtin that takes no argument or one
#: and has no effect (no Python frame: see ImportedTensor).
_NO_CALL = int
#: The keywords of every owner (none): one shared empty dict, never filled.
_NO_KEYWORDS: dict[str, Any] = {}


T = TypeVar("T")


class _Unarmed(functools.partial):  # type: ignore[type-arg]
    """What every finalizing partial (an owner) is built as: a partial with no finalizer.

    ``partial``'s constructor frees the half-built object when an allocation fails inside it
    (its arguments' tuple, its keywords' dict). Were the finalizer, ``partial.__call__``, on the
    class already, it would then call a partial whose fields are NULL: a segfault instead of a
    MemoryError. :func:`armed` gives the object its finalizing class only once it is whole.
    """

    __slots__ = ()


def armed(kind: type[T], function: Any, *args: Any) -> T:
    """``kind(function, *args)`` for a finalizing subclass of ``partial`` (``__del__`` is
    ``partial.__call__``), built so that an allocation failure inside the constructor is a
    MemoryError, never a call of a half-built partial: built as :class:`_Unarmed`, then given
    ``kind`` (setting ``__class__`` allocates nothing; should it fail, the object was never armed
    and holds nothing that needs its finalizer yet)."""
    built = _Unarmed(function, *args)
    built.__class__ = kind
    return built  # type: ignore[return-value]


class ImportedTensor(functools.partial):  # type: ignore[type-arg]
    """Owner of one consumed DLManagedTensor(Versioned): calls its deleter once, when freed.

    Every Array, view or export that points into the buffer holds a reference to this object
    (directly or through a chain of owners), so the deleter cannot run while anything still
    points into the memory, and CPython runs an object's finalizer exactly once.

    It is a ``functools.partial`` of the deleter and the struct's address, and its finalizer
    (``__del__``) is ``partial.__call__`` itself: when the last reference goes, C code calls the
    deleter, with no Python frame in between in which a KeyboardInterrupt could be raised (Python
    raises one only between the bytecodes of a Python frame). A ``__del__`` written in Python
    could be interrupted at its first bytecode, and the deleter would never run.

    Made with :func:`armed`, never by calling the class (an allocation failure in ``partial``'s
    constructor would call the half-built object). A capsule's owner is made holding nothing
    (``armed(ImportedTensor, _NO_CALL)``: freed, it calls nothing) before ownership can move,
    and given the tensor in the same step as the capsule's
    rename (:func:`_transfer`). The C exchange API's owner is armed before the struct is handed
    over (``_exchange._handed_over``).
    """

    __slots__ = ()
    __del__ = functools.partial.__call__

    def __reduce_ex__(self, protocol: object) -> NoReturn:
        # a partial would be rebuilt by copy and pickle: a second owner, a second deleter call
        raise TypeError("an ImportedTensor owns one foreign tensor: it cannot be copied or pickled "
                        "(copy the Array instead)")


_set_partial_state = functools.partial.__setstate__


# Deleter function pointers, wrapped once per address. A bounded cache: producers built from
# ctypes callbacks create a new function per tensor, and those must not accumulate.
_deleter_cache: dict[int, Any] = {}
_PER_ADDRESS_LIMIT = 256  # entries of a per-address cache (deleters seen); cleared when full


def deleter_function(address: int) -> Any:
    """The callable for a deleter's address (one that calls nothing for a NULL deleter), wrapped
    once per address."""
    if not address:
        return _NO_CALL
    fn = _deleter_cache.get(address)
    if fn is None:
        if len(_deleter_cache) >= _PER_ADDRESS_LIMIT:
            _deleter_cache.clear()
        fn = _deleter_cache[address] = DELETER(address)
    return fn


#: ``cached_deleter(address)``: the wrapped deleter if seen before, else None (one C-level lookup;
#: ``cached_deleter(a) or deleter_function(a)`` is the hot path's form of ``deleter_function(a)``).
cached_deleter = _deleter_cache.get


def capsule_name(capsule: object) -> bytes | None:
    """The name a capsule carries (``None`` for an unnamed capsule)."""
    return _get_name(capsule)


def _described(owner: ImportedTensor, *fields: Any) -> tuple[TensorInfo, ImportedTensor]:
    """What :func:`consume_capsule` gives by default: the TensorInfo, and the owner."""
    return _new_info(fields), owner


def consume_capsule(capsule: object, build: Callable[..., T] = _described,  # type: ignore[assignment]
                    alone: bool = False) -> T:
    """Validate a DLPack capsule, take ownership of it, and describe the tensor it holds.

    Parameters
    ----------
    capsule
        A ``PyCapsule`` named ``dltensor_versioned`` or ``dltensor``.
    build
        Called with the :class:`ImportedTensor` that now owns the tensor, then the fields of its
        :class:`TensorInfo` (data, byte_offset, shape, strides, dtype_code, dtype_bits,
        device_type, device_id, flags, version); what it returns is returned. The default gives
        ``(TensorInfo, ImportedTensor)``; a consumer passes its constructor (no tuple in between:
        this is the import hot path). Should it raise, the owner goes: the deleter runs.
    alone
        The caller vouches that no other code holds a reference to the capsule (its reference
        count says so: ``from_dlpack`` asks of a capsule its producer has just returned). No other
        consumer can reach it then, so it is not claimed, and where its producer gave it a
        destructor it is not renamed either: it is the owner passed to ``build``, and that
        destructor, which DLPack requires to call the deleter of a capsule that keeps its name, is
        the deleter's single caller, from C, when the capsule is freed. One struct read instead of
        an owner, a claim, a rename and a deleter call through ctypes. A held capsule of a host
        tensor with a deleter of compiled code is claimed, then taken by the host's consumer (see
        :func:`use_host_consumer`), whose result is the owner passed to ``build``.

    Returns
    -------
    (TensorInfo, ImportedTensor)
        The metadata, and the object whose lifetime now governs the deleter call (or what
        ``build`` returns).

    Raises
    ------
    TypeError
        ``capsule`` is not a capsule.
    BufferError
        The capsule was consumed already, is being consumed by another call (another thread, or
        a finalizer or deleter running inside that call), carries another name, or holds a
        tensor this library cannot describe (unknown major version, dtype, device; lanes != 1;
        bad ndim, shape, strides or data pointer). Except for an unknown major version, whose deleter DLPack
        requires the consumer to call at once, a refused capsule is left with its producer.

    Examples
    --------
    >>> import dlarray as xp
    >>> source = xp.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    >>> info, owner = consume_capsule(source.__dlpack__(max_version=(1, 3)))
    >>> info.shape, info.strides, info.data_ptr == source.data_ptr
    ((2, 3), (3, 1), True)
    """
    if type(capsule) is not CapsuleType:
        raise TypeError(f"expected a DLPack capsule, got {type(capsule).__name__}")
    key = id(capsule)
    owner: ImportedTensor | None = None
    claimant: CapsuleLender | None = None
    try:
        if not (alone and _DIRECT):
            alone = False
            # The claim (see _claims) is a weak reference to this call's claimant, which also
            # lends the capsule to the host's consumer (see use_host_consumer).
            claimant = _new_lender(CapsuleLender)
            claimant.capsule = capsule
            claim = _weak(claimant)
            held = _claim(key, claim)
            if held is not claim and (held() is not None or _reclaim(key, claim) is not claim):
                raise BufferError(
                    "this DLPack capsule is being consumed by another call (another thread, or a "
                    "finalizer or deleter that ran inside that call); a capsule can be used once"
                )
        name = None
        if _DIRECT:  # the capsule's fields read from its struct (see _capsule_layout)
            managed, address, _context, destructor = _CAPSULE_AT(MEMORY, key + _CAPSULE_POINTER_OFFSET)
            if address and address & _PAGE_MASK <= _NAME_READ_LIMIT:
                text = _NAME_AT(MEMORY, address)[0]
                if text == _VERSIONED_TEXT:
                    name = VERSIONED_NAME
                elif text.startswith(_LEGACY_TEXT):
                    name = LEGACY_NAME
        if name is None:  # another name, none, a name near a page's end, or not CPython's layout
            name = _get_name(capsule)
            managed = _get_pointer(capsule, name) if name == VERSIONED_NAME or name == LEGACY_NAME else 0
        if name == VERSIONED_NAME:
            if not managed:
                raise BufferError("DLPack capsule holds a NULL DLManagedTensorVersioned")
            if managed & _PAGE_MASK <= _VERSIONED_READ_LIMIT:  # the whole struct lies in one page: read at once
                (major, minor, _ctx, deleter, flags, data, device_type, device_id, ndim, code, bits, lanes,
                 shape_ptr, strides_ptr, byte_offset) = read_versioned(MEMORY, managed)
            else:  # the version prefix first: a struct of another major version may end before ours
                major, minor, _ctx, deleter = _VERSION_PREFIX_AT(MEMORY, managed)
                if major == DLPACK_MAJOR_VERSION:
                    (major, minor, _ctx, deleter, flags, data, device_type, device_id, ndim, code, bits, lanes,
                     shape_ptr, strides_ptr, byte_offset) = read_versioned(MEMORY, managed)
            if major != DLPACK_MAJOR_VERSION:
                # The layout past the version prefix is unknown: DLPack says call the deleter,
                # touch nothing else. Ownership moves to us, then the owner goes: the deleter
                # runs now.
                if owner is None:  # alone: nobody else can reach the capsule, so it needs no claim
                    owner = armed(ImportedTensor, _NO_CALL)
                _transfer(capsule, _USED_VERSIONED, owner, deleter_function(deleter), managed)
                owner = None
                raise BufferError(
                    f"DLPack major version {major}.{minor} is not supported (this consumer reads "
                    f"{DLPACK_MAJOR_VERSION}.x)"
                )
            # Validation comes first; only then does ownership move to us. The ordinary 1-D tensor
            # passes one inline test (read_managed's first test, then ordinary_geometry's first
            # case); anything else, and every refusal, goes through read_managed.
            ordinary = False
            if (ndim == 1 and shape_ptr and (code, bits) in VALID_CODE_BITS and lanes == 1
                    and device_type in KNOWN_DEVICE_TYPES and device_id >= 0 and 0 < data < USER_SPACE_END):
                try:
                    shape = read_int64(MEMORY, shape_ptr)
                    strides = read_int64(MEMORY, strides_ptr) if strides_ptr else _UNIT_STRIDES
                except (OverflowError, struct.error):  # a pointer past the address space: read_managed says so
                    pass
                else:  # a negative int has all high bits set: one shift tests all three
                    ordinary = not (shape[0] | strides[0] | byte_offset) >> ORDINARY_1D_SHIFT
            if ordinary:
                version = (major, minor)
            else:
                (data, byte_offset, shape, strides, code, bits, device_type, device_id, flags,
                 version), deleter = read_managed(managed, True)
            used = _USED_VERSIONED
        elif name == LEGACY_NAME:
            if not managed:
                raise BufferError("DLPack capsule holds a NULL DLManagedTensor")
            (data, byte_offset, shape, strides, code, bits, device_type, device_id, _flags,
             _version), deleter = read_managed(managed, False)
            # A legacy tensor cannot say whether its memory may be written (jax hands out
            # immutable buffers this way), so, as numpy does, it is imported read-only. Writable
            # memory comes only through a versioned tensor without FLAG_READ_ONLY.
            flags, version = _LEGACY_FLAGS_AND_VERSION
            used = _USED_LEGACY
        elif name in (b"used_dltensor", b"used_dltensor_versioned"):
            raise BufferError("this DLPack capsule was consumed already; a capsule can be used once")
        else:
            raise BufferError(
                f"not a DLPack capsule: its name is {name!r}, expected b'dltensor_versioned' or "
                f"b'dltensor'"
            )
        if alone:
            if destructor:
                # Nobody else can reach the capsule: it keeps its name and becomes the owner, and
                # its producer's destructor, which calls the deleter of a capsule still so named,
                # is the deleter's single caller, from C, when the last Array lets go of it.
                return build(capsule, data, byte_offset, shape, strides, code, bits, device_type, device_id,
                             flags, version)
        elif (device_type == _HOST_DEVICE_TYPE and (code, bits) in _host_code_bits
              and _compiled_deleters[deleter]):
            # A host tensor the host's consumer reads (numpy's, lent by the layer above: see
            # use_host_consumer): it renames the capsule and takes the tensor in one C call, and
            # its result calls the deleter from C when freed (no ctypes callback). The claim
            # stands until then: inside that call, a finalizer that imports this capsule too is
            # refused. Every field was validated here first: it reads no pointer this did not.
            # Only for a deleter of compiled code (or none): numpy calls it from its capsule's
            # destructor as it is, an exception in flight included (an Array freed while one
            # unwinds), which a callback into Python cannot survive; ours calls those from a
            # finalizer, which sets the exception aside first.
            try:
                taken = _host_take(claimant)
            except MemoryError:
                raise
            except Exception:  # noqa: BLE001 - refused there (the capsule is untouched): ours below
                taken = None
            if taken is not None:
                _release_claim(key)
                return build(taken, data, byte_offset, shape, strides, code, bits, device_type, device_id, flags,
                             version)
        # Ours to call the deleter (a capsule with no destructor, or no host consumer for it),
        # made before ownership moves.
        owner = armed(ImportedTensor, _NO_CALL)
        # The transfer (see _transfer), written out here: the import hot path.
        any(_map(_call, _TRANSFER_STEPS, (key + _CAPSULE_NAME_OFFSET if _DIRECT else capsule, owner),
                 (used, (cached_deleter(deleter) or deleter_function(deleter), (managed,), _NO_KEYWORDS, None))))
        if not alone:
            _release_claim(key)
        return build(owner, data, byte_offset, shape, strides, code, bits, device_type, device_id, flags, version)
    except BaseException as error:
        # First, with no call before it (so no interrupt can come in between): the claimant and
        # the owner go. The claim dies with the claimant, and an owner that took the tensor calls
        # its deleter now, not when the traceback that holds this frame is freed.
        claimant = owner = None
        _remove_dead_weakref(_claims, key)  # tidied; a dead claim is free anyway
        if _out_of_memory(error):
            # a MemoryError ctypes reported as an ArgumentError (no local holds an exception: it
            # and this frame, in its traceback, would keep each other, and the capsule, alive)
            raise MemoryError(_capi.OUT_OF_MEMORY) from None
        raise


class CapsuleLender:
    """A DLPack producer of one capsule: its ``__dlpack__`` hands over ``capsule``, whatever is
    asked (what a consumer that reads producers, not capsules, is given: see use_host_consumer).

    Also the claimant of a capsule being consumed (see _claims): the claim is a weak reference to
    it.
    """

    __slots__ = ("capsule", "__weakref__")

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: Any = None) -> Any:
        return self.capsule


_new_lender = object.__new__


def _refuse_all(lender: object) -> NoReturn:
    raise BufferError("no host consumer")


class _CompiledDeleters(dict):  # type: ignore[type-arg]
    """deleter address -> whether it is compiled code (see _capi.compiled_code); NULL counts as
    compiled (nothing is called). Asked once per address (a miss), bounded as the deleter cache."""

    def __missing__(self, address: int) -> bool:
        if len(self) >= _PER_ADDRESS_LIMIT:
            self.clear()
        compiled = self[address] = not address or _capi.compiled_code(address)
        return compiled


_compiled_deleters = _CompiledDeleters()


#: The host's consumer (see use_host_consumer): none until the layer above lends one.
_HOST_DEVICE_TYPE = int(DLDeviceType.CPU)
_host_take: Callable[[CapsuleLender], Any] = _refuse_all
_host_code_bits: frozenset[tuple[int, int]] = frozenset()


def use_host_consumer(take: Callable[[CapsuleLender], Any], code_bits: frozenset[tuple[int, int]]) -> None:
    """Let ``take`` take ownership of held capsules of validated host tensors (device CPU) whose
    ``(dtype_code, dtype_bits)`` are in ``code_bits``, instead of this module's own transfer.

    ``take(lender)`` reads the capsule from a :class:`CapsuleLender`'s ``__dlpack__``; it must
    rename the capsule ``used_*`` and return an object whose freeing calls the deleter exactly
    once, all in one C call, or raise leaving the capsule untouched: then this module's transfer
    takes it. numpy's ``from_dlpack`` does (the layer above checks it at import and lends it).
    """
    global _host_take, _host_code_bits
    _host_take, _host_code_bits = take, frozenset([(int(code), int(bits)) for code, bits in code_bits])


def _transfer(capsule: object, used_name: Any, owner: ImportedTensor, deleter: Any, managed: int) -> None:
    """Move the tensor to ``owner`` in one step: the rename makes it ours (the producer's capsule
    destructor no longer frees it), and ``owner`` becomes the partial ``deleter(managed)``.

    Two C calls made by C (``map``, consumed by ``any``: each returns something false), with no
    Python bytecode between them where an interrupt could leave the tensor renamed but unowned
    (never freed), or owned but not renamed (freed twice). The rename stores ``used_name``
    (:data:`_USED_VERSIONED` or :data:`_USED_LEGACY`) in place, or through the C API where the
    capsule's layout is not known (see :func:`_capsule_layout`).
    """
    target = id(capsule) + _CAPSULE_NAME_OFFSET if _DIRECT else capsule
    any(_map(_call, _TRANSFER_STEPS, (target, owner), (used_name, (deleter, (managed,), _NO_KEYWORDS, None))))


_map = map
_call = operator.call


def _use_layout(offset: int | None) -> None:
    """Read and rename capsules in place, their ``pointer`` field ``offset`` bytes from their
    address (:func:`_capsule_layout`), or, for None, through the C API (slower, the same results).

    Sets what the hot path reads: ``_DIRECT``, the fields' offsets, the rename step of a transfer
    and what it stores (the used name's address, or the name itself).
    """
    global _DIRECT, _CAPSULE_POINTER_OFFSET, _CAPSULE_NAME_OFFSET, _USED_VERSIONED, _USED_LEGACY, _TRANSFER_STEPS
    _DIRECT = offset is not None
    _CAPSULE_POINTER_OFFSET = offset or 0
    _CAPSULE_NAME_OFFSET = _CAPSULE_POINTER_OFFSET + _POINTER_SIZE
    if _DIRECT:
        _USED_VERSIONED = ctypes.addressof(_USED_VERSIONED_NAME)
        _USED_LEGACY = ctypes.addressof(_USED_LEGACY_NAME)
    else:
        _USED_VERSIONED, _USED_LEGACY = _USED_VERSIONED_NAME, _USED_LEGACY_NAME
    _TRANSFER_STEPS = (_write_address if _DIRECT else _set_name, _set_partial_state)


_DIRECT: bool
_CAPSULE_POINTER_OFFSET: int
_CAPSULE_NAME_OFFSET: int
_USED_VERSIONED: Any
_USED_LEGACY: Any
_TRANSFER_STEPS: tuple[Any, Any]
_use_layout(_capsule_layout())
_UNIT_STRIDES = (1,)


# Capsules being consumed right now: id(capsule) -> a weak reference to the owner-to-be of the call
# that claimed it.
#
# Ownership rule: between the name check and the rename a capsule belongs to no one, so two
# consumers could both see ``dltensor`` and both take the tensor (two deleter calls). A consumer
# therefore claims the capsule first, with one ``dict.setdefault``: with an int key it runs no
# Python code and releases no GIL, so it is atomic, and only the claimant goes on to check, validate
# and rename. The caller's reference keeps the capsule alive, so its id cannot be reused while it is
# claimed. Any other consumer of the same capsule (another thread, or a finalizer, deleter or
# ``__dlpack__`` that runs on this thread while the claimant allocates or calls out) is refused at
# once with BufferError: a capsule is used once. No lock is held at any point, so Python code that
# runs during a consumption (garbage collection runs finalizers at any allocation; an unknown major
# version calls the producer's deleter) can itself import any other capsule: a lock would deadlock
# it on the same thread.
#
# The claim is weak so that no interrupt can leave it behind: it ends with the call's owner-to-be,
# dropped by a plain bytecode on every way out but success (where the call removes it). A dead
# claim is free: the next claimant removes it and claims again. The removal is CPython's own
# ``_weakref._remove_dead_weakref`` (what weakref.WeakValueDictionary uses): C code that deletes
# the key only if its value is still a dead reference, so that no live claim another thread made
# meanwhile is ever removed.
_claims: dict[int, weakref.ref[ImportedTensor]] = {}
_weak = weakref.ref
_claim = _claims.setdefault
_release_claim = _claims.__delitem__
#: The flags and version of every legacy tensor's TensorInfo: read-only, unversioned.
_LEGACY_FLAGS_AND_VERSION = (FLAG_READ_ONLY, None)


def _reclaim(key: int, claim: weakref.ref[ImportedTensor]) -> weakref.ref[ImportedTensor]:
    """Claim ``key`` whose claim was found dead (its call interrupted before it could remove it):
    the dead claim goes (only if still dead) and the claim is made again; the claim now held."""
    _remove_dead_weakref(_claims, key)
    return _claim(key, claim)


def deleter_of(managed: int) -> int:
    """The deleter address of a DLManagedTensorVersioned, from the prefix every version keeps."""
    return _VERSION_PREFIX_AT(MEMORY, managed)[3]


# (shape, strides) -> whether that geometry is ordinary (see ordinary_geometry), for ndim > 1:
# the answer for the few geometries a program imports again and again costs one dict lookup
# instead of a Python loop. Bounded: cleared when full.
_ordinary_cache: dict[tuple[tuple[int, ...], tuple[int, ...]], bool] = {}


def _ordinary_nd(geometry: tuple[tuple[int, ...], tuple[int, ...]]) -> bool:
    size = 1
    reach = 0  # sum of stride * extent: at least the span in elements, for strides >= 0
    seen = 0  # the bits of every extent and stride: negative if one is
    for extent, stride in zip(*geometry):
        size *= extent
        reach += stride * extent
        seen |= extent | stride
    ordinary = 0 <= seen < _FAST_BOUND and 0 < size < _FAST_BOUND and reach < _FAST_BOUND
    if len(_ordinary_cache) >= 4096:
        _ordinary_cache.clear()
    _ordinary_cache[geometry] = ordinary
    return ordinary


_ordinary_cached = _ordinary_cache.get


def ordinary_geometry(
    ndim: int, shape_ptr: int, strides_ptr: int, byte_offset: int, data: int
) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """``(shape, strides)`` of an ordinary tensor, or None: then the general checks decide.

    Ordinary: a scalar, or ndim >= 1 with its shape (and past one dimension strides) pointer set;
    extents, strides and byte_offset non-negative and small (one dimension: all below 2**28; more:
    size and reach, the sum of stride * extent, below 2**40); data in user space. Every byte
    count and address is then far inside int64, so none of :func:`read_managed`'s general
    checks could fail: one bound test replaces them for nearly every tensor. ``byte_offset`` and
    ``data`` are unsigned as read.
    """
    if ndim == 1 and shape_ptr:  # the common case (import_with has its own copy of this test)
        shape = read_int64(MEMORY, shape_ptr)
        strides = read_int64(MEMORY, strides_ptr) if strides_ptr else (1,)
        # a negative int has all high bits set: one shift tests all three
        if not (shape[0] | strides[0] | byte_offset) >> ORDINARY_1D_SHIFT and 0 < data < USER_SPACE_END:
            return shape, strides
    elif not ndim:
        if byte_offset < _FAST_BOUND and 0 < data < USER_SPACE_END:
            return (), ()
    elif 1 < ndim <= MAX_NDIM and shape_ptr and strides_ptr:
        read = _INT64S_AT[ndim]
        geometry = read(MEMORY, shape_ptr), read(MEMORY, strides_ptr)
        ordinary = _ordinary_cached(geometry)
        if ordinary is None:  # not seen lately
            ordinary = _ordinary_nd(geometry)
        if ordinary and byte_offset < _FAST_BOUND and 0 < data < USER_SPACE_END:
            return geometry
    return None


def read_managed(managed: int, versioned: bool) -> tuple[tuple[Any, ...], int]:
    """Validate the DLManagedTensorVersioned (or, not ``versioned``, DLManagedTensor) at ``managed``.

    Returns the fields of its TensorInfo as a plain tuple (what ``Array._from_tensor`` unpacks; a
    TensorInfo costs ~0.15 us more) and its deleter's address. The whole struct is read at once,
    so a versioned one must be known to be of major version 1 (its size and layout) or come from
    a source that vouches for that (the exchange API); another major version raises here.

    Shape and strides are read only once ndim is known good. An ordinary tensor passes one bound
    test (:func:`ordinary_geometry`); anything else, and every refusal, goes through
    :func:`~._validate.validate_fields`, the checks every other way a buffer arrives passes too,
    whose refusals name the faulty field.
    """
    try:
        if versioned:
            (major, minor, _ctx, deleter, flags, data, device_type, device_id, ndim, code, bits, lanes,
             shape_ptr, strides_ptr, byte_offset) = read_versioned(MEMORY, managed)
            if major != DLPACK_MAJOR_VERSION:
                raise BufferError(f"DLPack major version {major}.{minor} is not supported")
            version: tuple[int, int] | None = (major, minor)
        else:
            (data, device_type, device_id, ndim, code, bits, lanes, shape_ptr, strides_ptr, byte_offset,
             _ctx, deleter) = _LEGACY_AT(MEMORY, managed)
            flags = 0
            version = None
        # validate_fields' first test, in front: a refusal here is the one it would give
        if ((code, bits) not in VALID_CODE_BITS or lanes != 1 or device_type not in KNOWN_DEVICE_TYPES
                or device_id < 0):
            _refuse_dtype_or_device(code, bits, lanes, device_type, device_id, DLPACK_TENSOR)
        geometry = ordinary_geometry(ndim, shape_ptr, strides_ptr, byte_offset, data)
        if geometry is not None:
            fields = (data, byte_offset, geometry[0], geometry[1], code, bits, device_type, device_id, flags,
                      version)
            return fields, deleter
        # the general path: shape and strides are read only once ndim and the pointer are good
        if ndim:
            if not (0 < ndim <= MAX_NDIM and shape_ptr):
                check_ndim(ndim, shape_ptr, DLPACK_TENSOR)  # raises, naming ndim or shape
            read = _INT64S_AT[ndim]
            shape = read(MEMORY, shape_ptr)
            strides = read(MEMORY, strides_ptr) if strides_ptr else contiguous_strides(shape)
        else:
            shape = strides = ()
        validate_fields(data, byte_offset, shape, strides, code, bits, lanes, device_type, device_id)
        fields = (data, byte_offset, shape, strides, code, bits, device_type, device_id, flags, version)
        return fields, deleter
    except (OverflowError, struct.error):  # MEMORY ends at sys.maxsize
        raise BufferError(
            "DLPack tensor struct, shape or strides pointer lies outside the address space"
        ) from None


__all__ = [
    "CapsuleType",
    "ImportedTensor",
    "TensorInfo",
    "capsule_name",
    "CapsuleLender",
    "consume_capsule",
    "use_host_consumer",
    "FLAG_IS_SUBBYTE_TYPE_PADDED",
]
