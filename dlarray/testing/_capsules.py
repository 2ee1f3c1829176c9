"""Capsules by hand: a synthetic producer with deleter accounting, and a reader of any capsule.

Everything here is ctypes over the DLPack 1.3 layout of :mod:`dlarray._dlpack._structs`; nothing
imports numpy, and nothing validates: the kit must be able to build malformed tensors and to see
exactly what another producer wrote.

Ownership, as DLPack defines it and as this module keeps it:

- a struct made here stays alive (struct, shape, strides and data buffer) until its deleter runs;
  the deleter records the call, and a second call for the same struct is recorded as a double
  delete instead of being acted on, so that a faulty consumer is reported rather than crashing;
- a capsule made here has a destructor that calls the deleter only while the capsule still has
  its unused name (``dltensor`` / ``dltensor_versioned``), as every real producer does.
"""

from __future__ import annotations

import ctypes
import mmap
import struct
import sys
import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass
from typing import Any

from .._dlpack._structs import (
    LEGACY_DELETER_OFFSET,
    LEGACY_SIZE,
    TENSOR_LAYOUT,
    VERSIONED_PREFIX_LAYOUT,
    VERSIONED_SIZE,
    VERSIONED_TENSOR_OFFSET,
    DLManagedTensorVersioned,
)

VERSIONED_NAME = b"dltensor_versioned"
LEGACY_NAME = b"dltensor"
USED_NAMES = {VERSIONED_NAME: b"used_dltensor_versioned", LEGACY_NAME: b"used_dltensor"}
_VERSIONED_DELETER_OFFSET = DLManagedTensorVersioned.deleter.offset

# Private ctypes function objects (indexing pythonapi makes new ones: nobody else's argtypes).
_api = ctypes.pythonapi
_new_capsule = _api["PyCapsule_New"]
_new_capsule.restype = ctypes.py_object
_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _DESTRUCTOR]
_is_valid = _api["PyCapsule_IsValid"]
_is_valid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_is_valid.restype = ctypes.c_int
_raw_pointer = _api["PyCapsule_GetPointer"]
_raw_pointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_raw_pointer.restype = ctypes.c_void_p
_get_pointer = _api["PyCapsule_GetPointer"]
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_get_pointer.restype = ctypes.c_void_p
_get_name = _api["PyCapsule_GetName"]
_get_name.argtypes = [ctypes.py_object]
_get_name.restype = ctypes.c_char_p
_set_name = _api["PyCapsule_SetName"]
_set_name.argtypes = [ctypes.py_object, ctypes.c_char_p]
_set_name.restype = ctypes.c_int
_incref = _api["Py_IncRef"]
_incref.argtypes = [ctypes.py_object]
_incref.restype = None


def _immortal_name(text: bytes) -> Any:
    # Capsule names must outlive every capsule carrying them (possibly past interpreter exit).
    buffer = ctypes.create_string_buffer(text)
    _incref(buffer)
    return buffer


_NAMES: dict[bytes, Any] = {}


def _name_buffer(text: bytes) -> Any:
    buffer = _NAMES.get(text)
    if buffer is None:
        buffer = _NAMES[text] = _immortal_name(text)
    return buffer


for _text in (VERSIONED_NAME, LEGACY_NAME, *USED_NAMES.values()):
    _name_buffer(_text)

#: How to call a foreign deleter: with the GIL held, as C consumers do.
_FOREIGN_DELETER = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)


def is_capsule(obj: object) -> bool:
    """True for a ``PyCapsule``."""
    return type(obj).__name__ == "PyCapsule" and type(obj).__module__ == "builtins"


def capsule_name(capsule: object) -> bytes | None:
    """The name a capsule carries now."""
    return _get_name(capsule)  # type: ignore[no-any-return]


def rename_capsule(capsule: object, name: bytes) -> None:
    """Give ``capsule`` another name (the name buffer lives forever)."""
    _set_name(capsule, _name_buffer(name))


# --------------------------------------------------------------------------- reading any capsule
@dataclass(frozen=True)
class CapsuleView:
    """What a DLPack capsule holds, read without consuming it and without validation.

    ``shape`` is None when ndim is out of range or the shape pointer is NULL; ``strides`` is None
    for a NULL strides pointer (C-contiguous in DLPack < 1.2).
    """

    name: bytes
    versioned: bool
    managed: int
    version: tuple[int, int] | None
    flags: int
    data: int
    device: tuple[int, int]
    ndim: int
    dtype: tuple[int, int, int]  # code, bits, lanes
    shape: tuple[int, ...] | None
    strides: tuple[int, ...] | None
    byte_offset: int
    deleter: int

    @property
    def pointer(self) -> int:
        """Address of element ``[0, ..., 0]`` (``data + byte_offset``)."""
        return self.data + self.byte_offset

    @property
    def element_strides(self) -> tuple[int, ...] | None:
        """Strides in elements, NULL strides read as C-contiguous."""
        if self.shape is None:
            return None
        if self.strides is not None:
            return self.strides
        return c_contiguous_strides(self.shape)


def c_contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Element strides of a C-contiguous tensor of ``shape``."""
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))


def read_struct(managed: int, versioned: bool, name: bytes = b"") -> CapsuleView:
    """Describe the DLManagedTensor(Versioned) at ``managed`` (shape read only for 0 <= ndim <= 64)."""
    if versioned:
        major, minor, _ctx, deleter, flags = VERSIONED_PREFIX_LAYOUT.unpack(
            ctypes.string_at(managed, VERSIONED_PREFIX_LAYOUT.size))
        version: tuple[int, int] | None = (major, minor)
        if major != 1:  # another major version: only the prefix may be read
            return CapsuleView(name, True, managed, version, 0, 0, (0, 0), -1, (0, 0, 0), None, None, 0, deleter)
        tensor = managed + VERSIONED_TENSOR_OFFSET
    else:
        version, flags, tensor = None, 0, managed
        deleter = ctypes.c_void_p.from_address(managed + LEGACY_DELETER_OFFSET).value or 0
    (data, device_type, device_id, ndim, code, bits, lanes, shape_ptr, strides_ptr,
     byte_offset) = TENSOR_LAYOUT.unpack(ctypes.string_at(tensor, TENSOR_LAYOUT.size))
    shape = strides = None
    if 0 <= ndim <= 64:
        if ndim == 0:
            shape = ()
            strides = () if strides_ptr else None
        else:
            if shape_ptr:
                shape = struct.unpack(f"@{ndim}q", ctypes.string_at(shape_ptr, 8 * ndim))
            if strides_ptr:
                strides = struct.unpack(f"@{ndim}q", ctypes.string_at(strides_ptr, 8 * ndim))
    return CapsuleView(name, versioned, managed, version, flags, data, (device_type, device_id), ndim,
                       (code, bits, lanes), shape, strides, byte_offset, deleter)


def read_capsule(capsule: object) -> CapsuleView:
    """Describe an unconsumed DLPack capsule without consuming it.

    Parameters
    ----------
    capsule
        A ``PyCapsule`` named ``dltensor`` or ``dltensor_versioned``.

    Returns
    -------
    CapsuleView
        Its name and the fields of the struct it holds (``shape``, ``strides``, ``dtype`` as
        ``(code, bits, lanes)``, ``device``, ``flags``, ``version``, ...).

    Raises
    ------
    TypeError
        ``capsule`` is not a capsule.
    ValueError
        Its name is neither ``dltensor`` nor ``dltensor_versioned``.

    Examples
    --------
    >>> import numpy as np
    >>> from dlarray.testing import read_capsule
    >>> view = read_capsule(np.arange(3.0).__dlpack__(max_version=(1, 0)))
    >>> view.name, view.shape, view.dtype
    (b'dltensor_versioned', (3,), (2, 64, 1))
    """
    if not is_capsule(capsule):
        raise TypeError(f"expected a PyCapsule, got {type(capsule).__name__}")
    name = capsule_name(capsule)
    if name not in (VERSIONED_NAME, LEGACY_NAME):
        raise ValueError(f"not an unconsumed DLPack capsule: its name is {name!r}")
    managed = _get_pointer(capsule, name)
    return read_struct(managed, name == VERSIONED_NAME, name)


def element_bytes(view: CapsuleView) -> list[bytes] | None:
    """The elements of a CPU tensor in C order, each as its bytes (None if not readable so)."""
    _code, bits, lanes = view.dtype
    strides = view.element_strides
    if view.shape is None or strides is None or bits % 8 or lanes != 1 or view.device[0] not in (1, 3, 13):
        return None
    itemsize = bits // 8
    out: list[bytes] = []

    def walk(axis: int, address: int) -> None:
        if axis == len(view.shape):  # type: ignore[arg-type]
            out.append(ctypes.string_at(address, itemsize))
            return
        for i in range(view.shape[axis]):  # type: ignore[index]
            walk(axis + 1, address + i * strides[axis] * itemsize)

    walk(0, view.pointer)
    return out


# --------------------------------------------------------------------------- watching a deleter
_watches: list[DeleterWatch] = []  # a watch lives as long as C code could still call it
_WATCH = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DeleterWatch:
    """Counts the calls of a capsule's deleter by putting a counting wrapper in the struct.

    The wrapper calls the producer's own deleter on the first call only; later calls are counted
    (a double delete) but not passed on, so the process survives to report them. A watch is kept
    for the life of the process: C code may call it at any time.

    Examples
    --------
    >>> import gc, numpy as np
    >>> from dlarray.testing._capsules import DeleterWatch
    >>> capsule = np.arange(3.0).__dlpack__()
    >>> watch = DeleterWatch(capsule)
    >>> del capsule; _ = gc.collect()
    >>> watch.calls
    1
    """

    def __init__(self, capsule: object) -> None:
        name = capsule_name(capsule)
        if name not in (VERSIONED_NAME, LEGACY_NAME):
            raise ValueError(f"not an unconsumed DLPack capsule: {name!r}")
        self.managed = managed = _get_pointer(capsule, name)
        offset = _VERSIONED_DELETER_OFFSET if name == VERSIONED_NAME else LEGACY_DELETER_OFFSET
        slot = ctypes.c_void_p.from_address(managed + offset)
        self.original = slot.value or 0
        self.calls = 0
        self._callback = _WATCH(self._called)
        _watches.append(self)
        if self.original:
            slot.value = ctypes.cast(self._callback, ctypes.c_void_p).value

    def _called(self, managed: int) -> None:
        self.calls += 1
        if self.calls == 1 and self.original:
            _FOREIGN_DELETER(self.original)(managed)

    def call_original(self) -> None:
        """Run the producer's deleter as a consumer would (counted like any other call)."""
        self._called(self.managed)


# --------------------------------------------------------------------------- the synthetic producer
_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
#: serial -> deleter calls (at most 1: a second call lands in ``double_deletes``)
deleter_calls: Counter[int] = Counter()
#: serials whose deleter was called again after it had run
double_deletes: list[int] = []
_alive: dict[int, Any] = {}  # struct address -> (struct memory, data memory, serial)
_serials = iter(range(1, 1 << 62))
# Re-entrant: garbage collection can run while the deleter holds it (a Counter increment is Python
# code), and a finalizer then may make or free another tensor on the same thread: a plain Lock
# would hang there (tests/test_reentrancy.py).
_lock = threading.RLock()
# The last structs whose deleter ran, kept allocated a while (address -> (memory, data, serial)):
# a second deleter call names its serial, and no new struct can take the address meanwhile. A
# fixed window, so that long runs keep nothing more (a map of every address ever freed grew).
_recently_freed: OrderedDict[int, Any] = OrderedDict()
_FREED_WINDOW = 256


# The callbacks reach everything through default arguments: a capsule can be freed after this
# module's globals were cleared at interpreter exit. The thunks are made immortal.
def _on_delete(address: int, _alive: dict = _alive, _lock: Any = _lock, _calls: Counter = deleter_calls,
               _doubles: list = double_deletes, _freed: OrderedDict = _recently_freed,
               _window: int = _FREED_WINDOW) -> None:
    with _lock:
        entry = _alive.pop(address, None)
        if entry is None:
            earlier = _freed.get(address)
            _doubles.append(earlier[2] if earlier is not None else 0)
            return
        _calls[entry[2]] += 1
        _freed[address] = entry
        if len(_freed) > _window:
            _freed.popitem(last=False)


def _on_capsule_freed(capsule: int, _valid: Any = _is_valid, _pointer: Any = _raw_pointer,
                      _delete: Any = _on_delete, _names: tuple = (_NAMES[VERSIONED_NAME], _NAMES[LEGACY_NAME])) -> None:
    # An unconsumed capsule still owns its tensor: free it, as a real producer does. One with
    # another name is not freed here (Made.free_unowned does it), so that a check can tell whether
    # a consumer ran the deleter of a capsule that was not its to free.
    for name in _names:
        if _valid(capsule, name):
            _delete(_pointer(capsule, name))
            return


_DELETER_THUNK = _DELETER(_on_delete)
_DESTRUCTOR_THUNK = _DESTRUCTOR(_on_capsule_freed)
DELETER_ADDRESS: int = ctypes.cast(_DELETER_THUNK, ctypes.c_void_p).value  # type: ignore[assignment]
_incref(_DELETER_THUNK)
_incref(_DESTRUCTOR_THUNK)

#: A synthetic tensor's data starts on a multiple of this many bytes unless ``misalign`` says
#: otherwise, so that a consumer that needs alignment (XLA, Eigen: 64) sees the same on every run.
DATA_ALIGNMENT = 64

# Guard pages: a struct, shape or strides placed right before an inaccessible page makes a
# consumer that reads past what the fields allow fault at once (run such cases in a child).
PAGE = mmap.PAGESIZE
_GUARDS_WORK = sys.platform.startswith("linux") or sys.platform == "darwin"


class _GuardedRegion:
    """``count`` readable pages, each followed by an inaccessible one where the OS allows it
    (``guarded`` says whether it did: the guards are a best effort, the memory is usable anyway)."""

    def __init__(self, count: int) -> None:
        self.map = mmap.mmap(-1, 2 * count * PAGE)
        self.address = ctypes.addressof(ctypes.c_char.from_buffer(self.map))
        libc = ctypes.CDLL(None)
        libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        self.guarded = not any(libc.mprotect(self.address + (2 * i + 1) * PAGE, PAGE, 0) for i in range(count))

    def end_of(self, index: int) -> int:
        """One past the last readable byte of readable page ``index``."""
        return self.address + (2 * index + 1) * PAGE


_poison: list[_GuardedRegion] = []


def poison_address() -> int:
    """An address in an inaccessible page: what a consumer must never touch (device memory)."""
    if not _poison:
        _poison.append(_GuardedRegion(1))
    return _poison[0].end_of(0)


class Made:
    """One synthetic tensor: its capsule (None if ``bare``), struct address, data and serial.

    ``data`` is the memory holding the data buffer, ``data_size`` bytes from ``buffer_address``;
    ``data_address`` is what the tensor's ``data`` field says (in that buffer, unless another
    address was asked for).
    """

    def __init__(self, capsule: Any, address: int, data: Any, data_address: int, serial: int,
                 memory: Any, versioned: bool, buffer_address: int = 0, data_size: int = 0) -> None:
        self.capsule, self.address, self.data, self.data_address, self.serial = (
            capsule, address, data, data_address, serial)
        self.buffer_address, self.data_size = buffer_address, data_size
        # the struct's memory, kept here too so that the tensor can be described after its deleter ran
        self.memory, self.versioned = memory, versioned

    def describe(self) -> CapsuleView:
        """The struct as written (only for a well-formed, unguarded tensor)."""
        return read_struct(self.address, self.versioned)

    @property
    def deleted(self) -> int:
        """How many times the deleter ran (a second call counts in ``double_deletes``)."""
        return deleter_calls[self.serial] + double_deletes.count(self.serial)

    def free_unowned(self) -> None:
        """Free a struct nobody owns any more (e.g. a capsule handed out already renamed)."""
        if self.address in _alive:
            _on_delete(self.address)


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
    data_address: int | None = None,
    fill: bytes | None = None,
    data_bytes: int | None = None,
    misalign: int = 0,
    data_offset: int = 0,
    name: bytes | None = None,
    with_deleter: bool = True,
    guard: bool = False,
    header_bytes: int | None = None,
    bare: bool = False,
) -> Made:
    """Build a DLPack capsule with exactly the given field values (no validation at all).

    Parameters
    ----------
    shape : tuple[int, ...]
        The shape field.
    strides : tuple[int, ...] | None
        The strides field (``None`` writes a NULL pointer).
    code : int
        The dtype code field.
    bits : int
        The dtype bits field.
    lanes : int
        The dtype lanes field.
    device : tuple[int, int]
        The device field: ``(device_type, device_id)``.
    versioned : bool
        ``DLManagedTensorVersioned`` in a ``dltensor_versioned`` capsule, else the legacy pair.
    version : tuple[int, int]
        The version field of a versioned struct.
    flags : int
        The flags field of a versioned struct.
    byte_offset : int
        The byte_offset field.
    ndim : int | None
        The ndim field, when it must disagree with ``len(shape)``.
    null_shape : bool
        Write NULL for the shape pointer.
    null_data : bool
        Write NULL for the data pointer.
    data_address
        Any address for the data field (e.g. :func:`poison_address` for memory never to touch).
    fill
        Bytes copied to the start of the data buffer.
    data_bytes
        Size of the data buffer (default: what shape, bits and byte_offset need).
    misalign
        The data buffer starts this many bytes past a multiple of :data:`DATA_ALIGNMENT` (64):
        0, the default, is what frameworks that need alignment (XLA, Eigen) ask for; 16 is where
        Python's and numpy's allocators may place a buffer.
    data_offset
        The ``data`` field points this many bytes into the buffer (``byte_offset`` is written as
        given): how numpy describes a view with negative strides.
    name
        The capsule's name, when it must not be the standard one.
    with_deleter
        False writes a NULL deleter.
    guard
        Put the struct, the shape and the strides each right before an inaccessible page.
    header_bytes
        With ``guard``, only this many bytes of the struct are readable and written.
    bare
        Make no capsule: the struct is handed over as a pointer (``Made.address``), as the C
        exchange API does; whoever takes it calls its deleter.

    Returns
    -------
    Made
        The capsule and what it points to; ``Made.deleted`` counts deleter calls.

    Examples
    --------
    >>> import gc
    >>> from dlarray.testing import make_capsule, read_capsule
    >>> made = make_capsule((2, 3), code=2, bits=32)
    >>> read_capsule(made.capsule).name
    b'dltensor_versioned'
    >>> made.capsule = None; _ = gc.collect()
    >>> made.deleted
    1
    """
    count = 1
    for n in shape:
        count *= max(n, 0)
    nbytes = data_bytes if data_bytes is not None else max((count * bits + 7) // 8 + byte_offset, 1)
    if fill is not None:
        nbytes = max(nbytes, len(fill))
    data = ctypes.create_string_buffer(nbytes + DATA_ALIGNMENT + misalign)
    start = ctypes.addressof(data) + (-ctypes.addressof(data) % DATA_ALIGNMENT) + misalign
    if fill is not None:
        ctypes.memmove(start, fill, len(fill))
    if data_address is None:
        data_address = 0 if null_data else start + data_offset
    true_ndim = len(shape)
    header = VERSIONED_SIZE if versioned else LEGACY_SIZE
    if guard and _GUARDS_WORK and 8 * true_ndim <= PAGE:
        memory: Any = _GuardedRegion(3)
        readable = header if header_bytes is None else header_bytes
        address = memory.end_of(0) - readable
        shape_at = memory.end_of(1) - 8 * true_ndim
        strides_at = memory.end_of(2) - 8 * true_ndim
    else:
        readable = header
        memory = ctypes.create_string_buffer(header + 16 * true_ndim)
        address = ctypes.addressof(memory)
        shape_at = address + header
        strides_at = shape_at + 8 * true_ndim
    if true_ndim:
        ctypes.memmove(shape_at, struct.pack(f"@{true_ndim}q", *shape), 8 * true_ndim)
        if strides is not None:
            ctypes.memmove(strides_at, struct.pack(f"@{true_ndim}q", *strides), 8 * true_ndim)
    shape_ptr = 0 if (null_shape or not true_ndim) else shape_at
    strides_ptr = 0 if strides is None else strides_at
    serial = next(_serials)
    tensor = TENSOR_LAYOUT.pack(data_address, device[0], device[1], true_ndim if ndim is None else ndim,
                                code, bits, lanes, shape_ptr, strides_ptr, byte_offset)
    deleter = DELETER_ADDRESS if with_deleter else 0
    if versioned:
        whole = VERSIONED_PREFIX_LAYOUT.pack(version[0], version[1], serial, deleter, flags) + tensor
    else:
        whole = tensor + struct.pack("@PP", serial, deleter)
    ctypes.memmove(address, whole[:readable], min(readable, len(whole)))
    with _lock:
        _alive[address] = (memory, data, serial)
    capsule_text = name if name is not None else (VERSIONED_NAME if versioned else LEGACY_NAME)
    capsule = None if bare else _new_capsule(address, _name_buffer(capsule_text), _DESTRUCTOR_THUNK)
    return Made(capsule, address, data, data_address, serial, memory, versioned, start, nbytes)


class SyntheticProducer:
    """An object with ``__dlpack__`` and ``__dlpack_device__`` that hands out synthetic capsules.

    Each ``__dlpack__`` call makes a fresh capsule with ``fields`` (see `make_capsule`):
    versioned when the caller offers ``max_version`` with major >= 1, legacy otherwise, unless
    ``versioned`` forces one kind. The keyword arguments of every call are kept in ``calls`` and
    what was made in ``made``.

    Examples
    --------
    >>> import numpy as np
    >>> from dlarray.testing import SyntheticProducer
    >>> producer = SyntheticProducer(shape=(3,), code=0, bits=8, fill=bytes([1, 2, 3]))
    >>> np.from_dlpack(producer)
    array([1, 2, 3], dtype=int8)
    >>> producer.calls[0]["max_version"][0]
    1
    """

    def __init__(self, *, versioned: bool | None = None, legacy_signature: bool = False,
                 refuse: str | None = None, **fields: object) -> None:
        """A producer of capsules with the given fields.

        Parameters
        ----------
        versioned
            ``True``/``False``: always a versioned/legacy capsule; ``None``: as the caller's
            ``max_version`` asks.
        legacy_signature
            ``__dlpack__`` accepts ``stream`` only (a pre-2023 producer).
        refuse
            A message: ``__dlpack__`` raises `BufferError` with it.
        **fields
            The keyword arguments of `make_capsule` (``shape``, ``code``, ``bits``, ``fill``, ...).

        Examples
        --------
        >>> from dlarray.testing import SyntheticProducer
        >>> SyntheticProducer(refuse="no export").__dlpack__()
        Traceback (most recent call last):
            ...
        BufferError: no export
        """
        self.fields = fields
        self.versioned = versioned
        self.legacy_signature = legacy_signature
        self.refuse = refuse
        self.calls: list[dict[str, Any]] = []
        self.made: list[Made] = []

    def __dlpack__(self, stream: Any = None, **options: Any) -> Any:
        if self.legacy_signature and options:
            raise TypeError(f"__dlpack__() got an unexpected keyword argument {next(iter(options))!r}")
        self.calls.append({"stream": stream, **options})
        if self.refuse is not None:
            raise BufferError(self.refuse)
        versioned = self.versioned
        if versioned is None:
            offered = options.get("max_version")
            versioned = offered is not None and offered[0] >= 1
        made = make_capsule(versioned=versioned, **self.fields)
        self.made.append(made)
        return made.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return tuple(self.fields.get("device", (1, 0)))  # type: ignore[return-value]
