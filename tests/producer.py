"""A DLPack producer written with ctypes, for tests: any field value, and a count of deleter calls.

It builds DLManagedTensor / DLManagedTensorVersioned structs by hand, so tests can hand dlarray
well-formed and malformed tensors alike and check that every deleter runs exactly once.
"""

from __future__ import annotations

import ctypes
import mmap
import struct
import sys
import threading
from collections import Counter
from typing import Any

from dlarray._producers import register_exchange_rules
from dlarray._dlpack._structs import (
    LEGACY_SIZE,
    TENSOR_LAYOUT,
    VERSIONED_PREFIX_LAYOUT,
    VERSIONED_SIZE,
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
# Re-entrant: the deleter holds it while it counts, and garbage collection can run a finalizer
# there that makes or frees another tensor on the same thread (tests/test_reentrancy.py).
_lock = threading.RLock()
_NAMES = {name: ctypes.create_string_buffer(name) for name in (b"dltensor", b"dltensor_versioned")}


# The callbacks must work until the very end of the interpreter: a capsule or an imported array
# can be freed after this module's globals were cleared. So they reach everything through default
# arguments, and the two C thunks are made immortal (a freed thunk is a dangling function pointer).
def _on_delete(
    address: int, _alive: dict = _alive, _lock: Any = _lock, _doubles: list = double_deletes,
    _calls: Counter = deleter_calls,
) -> None:
    with _lock:
        entry = _alive.pop(address, None)
        if entry is None:
            _doubles.append(address)
            return
        _calls[entry[2]] += 1


def _on_capsule_freed(
    capsule: int, _names: dict = _NAMES, _valid: Any = _is_valid, _pointer: Any = _get_pointer,
    _delete: Any = _on_delete,
) -> None:
    # A capsule nobody consumed still owns its tensor: free it, as a real producer does.
    for buffer in tuple(_names.values()):
        if _valid(capsule, buffer):
            _delete(_pointer(capsule, buffer))
            return


DELETER = _DELETER(_on_delete)
DESTRUCTOR = _DESTRUCTOR(_on_capsule_freed)
DELETER_ADDRESS = ctypes.cast(DELETER, ctypes.c_void_p).value
ctypes.pythonapi.Py_IncRef(ctypes.py_object(DELETER))
ctypes.pythonapi.Py_IncRef(ctypes.py_object(DESTRUCTOR))


# --------------------------------------------------------------------------- guard pages
# A guarded tensor puts its struct, its shape and its strides each right before an inaccessible
# page, so that a consumer reading one byte past what the fields allow faults at once (run such
# tests in a child process). Linux/POSIX only.
PAGE = mmap.PAGESIZE
_PROT_NONE, _PROT_RW = 0, 3
_MAP_PRIVATE_ANON = 0x02 | (0x20 if sys.platform.startswith("linux") else 0x1000)
_MAP_FAILED = ctypes.c_void_p(-1).value
_libc: Any = None


def _mm() -> Any:
    global _libc
    if _libc is None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                              ctypes.c_int, ctypes.c_long]
        libc.mmap.restype = ctypes.c_void_p
        libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        libc.mprotect.restype = ctypes.c_int
        libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        libc.munmap.restype = ctypes.c_int
        _libc = libc
    return _libc


class GuardedRegion:
    """``count`` readable pages, each followed by an inaccessible one; unmapped when freed."""

    def __init__(self, count: int) -> None:
        libc = _mm()
        self.size = 2 * count * PAGE
        address = libc.mmap(None, self.size, _PROT_RW, _MAP_PRIVATE_ANON, -1, 0)
        if address in (None, _MAP_FAILED):
            raise OSError(ctypes.get_errno(), "mmap failed")
        self.address = address
        for i in range(count):
            if libc.mprotect(address + (2 * i + 1) * PAGE, PAGE, _PROT_NONE):
                raise OSError(ctypes.get_errno(), "mprotect failed")

    def end_of(self, index: int) -> int:
        """Address one past the last readable byte of readable page ``index``."""
        return self.address + (2 * index + 1) * PAGE

    def __del__(self) -> None:
        address, self.address = self.address, None
        if address is not None and _libc is not None:
            _libc.munmap(address, self.size)


_poison: list[GuardedRegion] = []


def poison_address() -> int:
    """An address inside an inaccessible page: any read or write there faults."""
    if not _poison:
        _poison.append(GuardedRegion(1))
    return _poison[0].end_of(0)


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
    data_address: int | None = None,
    fill: bytes | None = None,
    guard: bool = False,
    header_bytes: int | None = None,
    bare: bool = False,
) -> Made:
    """Build a DLPack capsule with the given field values (no validation at all).

    Besides the struct fields: ``data_address`` sets the data field to any address (e.g.
    :func:`poison_address` for device memory that must never be touched); ``fill`` is copied to
    the start of the data buffer; ``guard`` puts the struct, the shape and the strides each just
    before an inaccessible page; with ``guard``, ``header_bytes`` makes only that many bytes of the
    struct readable (e.g. the stable version/manager_ctx/deleter prefix of a versioned struct
    with an unknown major version): fields past them are not written. ``bare`` makes no capsule:
    the struct is handed over as a pointer (``Made.address``), as the C exchange API does.
    """
    count = 1
    for n in shape:
        count *= max(n, 0)
    nbytes = data_bytes if data_bytes is not None else max(count * max(bits // 8, 1) + byte_offset, 1)
    if fill is not None:
        nbytes = max(nbytes, len(fill))
    data = ctypes.create_string_buffer(nbytes)
    if fill is not None:
        ctypes.memmove(data, fill, len(fill))
    if data_address is None:
        data_address = 0 if null_data else ctypes.addressof(data)
    true_ndim = len(shape)
    header = VERSIONED_SIZE if versioned else LEGACY_SIZE
    if guard:
        if 8 * true_ndim > PAGE:
            raise ValueError("a guarded shape must fit in one page")
        buf: Any = GuardedRegion(3)
        readable = header if header_bytes is None else header_bytes
        address = buf.end_of(0) - readable
        shape_at = buf.end_of(1) - 8 * true_ndim
        strides_at = buf.end_of(2) - 8 * true_ndim
    else:
        readable = header
        buf = ctypes.create_string_buffer(header + 16 * true_ndim)
        address = ctypes.addressof(buf)
        shape_at = address + header
        strides_at = address + header + 8 * true_ndim
    shape_ptr = 0 if (null_shape or not true_ndim) else shape_at
    strides_ptr = 0 if strides is None else strides_at
    if true_ndim:
        _pack_at(shape_at, struct.pack(f"@{true_ndim}q", *shape))
        if strides is not None:
            _pack_at(strides_at, struct.pack(f"@{true_ndim}q", *strides))
    deleter = DELETER_ADDRESS if with_deleter else 0
    serial = next(_serials)
    tensor = TENSOR_LAYOUT.pack(
        data_address, device[0], device[1],
        true_ndim if ndim is None else ndim, code, bits, lanes, shape_ptr, strides_ptr, byte_offset,
    )
    if versioned:
        prefix = VERSIONED_PREFIX_LAYOUT.pack(version[0], version[1], serial, deleter, flags)
        whole = prefix + tensor
    else:
        whole = tensor + struct.pack("@PP", serial, deleter)
    _pack_at(address, whole[:readable])
    with _lock:
        _alive[address] = (buf, data, serial)
    capsule_name = name if name is not None else (b"dltensor_versioned" if versioned else b"dltensor")
    name_buffer = _NAMES.get(capsule_name) or _NAMES.setdefault(
        capsule_name, ctypes.create_string_buffer(capsule_name)
    )
    capsule = None if bare else _new_capsule(address, name_buffer, DESTRUCTOR)
    return Made(capsule, address, data, data_address, serial)


def _pack_at(address: int, raw: bytes) -> None:
    ctypes.memmove(address, raw, len(raw))


def alive_count() -> int:
    """How many tensors made here still wait for their deleter."""
    return len(_alive)


def settle(serials: Any) -> list[int]:
    """Forget the deleter counts of ``serials``; return those whose deleter did not run exactly once.

    Long runs call this to keep ``deleter_calls`` from growing with every tensor made.
    """
    wrong = []
    with _lock:
        for serial in serials:
            if deleter_calls.pop(serial, 0) != 1:
                wrong.append(serial)
    return wrong


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


# --------------------------------------------------------------------------- C exchange API
# DLPack 1.2's ``__dlpack_c_exchange_api__``: a capsule on the producer TYPE holding a static
# DLPackExchangeAPI struct; its managed_tensor_from_py_object_no_sync(obj, out) hands over a
# DLManagedTensorVersioned* directly, ownership included, no capsule involved.


class _ExchangeAPI(ctypes.Structure):
    _fields_ = [
        ("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("prev_api", ctypes.c_void_p),
        ("managed_tensor_allocator", ctypes.c_void_p),
        ("managed_tensor_from_py_object_no_sync", ctypes.c_void_p),
        ("managed_tensor_to_py_object_no_sync", ctypes.c_void_p),
        ("dltensor_from_py_object_no_sync", ctypes.c_void_p),
        ("current_work_stream", ctypes.c_void_p),
    ]


_FROM_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(ctypes.c_void_p))


def _exchange_from_py(obj: Any, out: Any, _make: Any = make_capsule) -> int:
    if obj.hand_over_nothing:  # a faulty producer: success, but no tensor
        return 0
    made = _make(bare=True, versioned=True, **obj.fields)
    obj.exchanged.append(made)
    out[0] = made.address
    return 0


_EXCHANGE_FUNCTION = _FROM_PY(_exchange_from_py)
_EXCHANGE_API = _ExchangeAPI(1, 3, None, None, ctypes.cast(_EXCHANGE_FUNCTION, ctypes.c_void_p).value)
_EXCHANGE_NAME = ctypes.create_string_buffer(b"dlpack_exchange_api")
_new_plain_capsule = ctypes.pythonapi["PyCapsule_New"]
_new_plain_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_new_plain_capsule.restype = ctypes.py_object
for _immortal in (_EXCHANGE_FUNCTION, _EXCHANGE_API, _EXCHANGE_NAME):
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(_immortal))


class ExchangeProducer(Producer):
    """A producer whose type carries the C exchange API; ``__dlpack__`` remains as the fallback.

    Tensors handed over through the exchange function are recorded in ``exchanged``, those made
    by ``__dlpack__`` in ``made``.
    """

    __dlpack_c_exchange_api__ = _new_plain_capsule(
        ctypes.addressof(_EXCHANGE_API), _EXCHANGE_NAME, None
    )

    def __init__(self, hand_over_nothing: bool = False, **fields: Any) -> None:
        super().__init__(**fields)
        self.exchanged: list[Made] = []
        self.hand_over_nothing = hand_over_nothing


# Its __dlpack__ hands out the very fields its exchange function does: nothing to refuse there
# that the exchange path would accept, so dlarray may take the fast path for every object of it.
register_exchange_rules(ExchangeProducer, lambda obj: True)
