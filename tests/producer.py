"""The tests' DLPack producer: dlarray.testing's synthetic capsules, plus a ``__dlpack__`` object
and one whose type carries the C exchange API.

The structs are built by hand (any field value, well-formed or malformed) and every deleter call is
counted, so tests can check that each runs exactly once: :mod:`dlarray.testing._capsules` does
that for the conformance kit and for these tests alike.
"""

from __future__ import annotations

import ctypes
from typing import Any

from dlarray._dlpack import DLDeviceType
from dlarray._producers import register_exchange_rules
from dlarray.testing import _capsules
from dlarray.testing._capsules import (  # noqa: F401  (re-exported for the tests)
    PAGE,
    Made,
    _GuardedRegion as GuardedRegion,
    _on_delete,
    deleter_calls,
    double_deletes,
    make_capsule,
    poison_address,
)


def alive_count() -> int:
    """How many tensors made here still wait for their deleter."""
    return len(_capsules._alive)


def settle(serials: Any) -> list[int]:
    """Forget the deleter counts of ``serials``; return those whose deleter did not run exactly once.

    Long runs call this to keep ``deleter_calls`` from growing with every tensor made.
    """
    wrong = []
    with _capsules._lock:
        for serial in serials:
            if deleter_calls.pop(serial, 0) != 1:
                wrong.append(serial)
    return wrong


# Host-readable memory for tensors whose data nothing should read: pytest may print an Array
# (reading it) when a test fails. Non-host devices get an inaccessible page instead (and the
# guard-page child process of tests/test_fuzzing.py gives every device one).
_ARENA = ctypes.create_string_buffer(1 << 16)
_HOST_READABLE = {DLDeviceType.CPU, DLDeviceType.CUDA_HOST, DLDeviceType.ROCM_HOST,
                  DLDeviceType.CUDA_MANAGED}


def untouched_data(device_type: int) -> int:
    """A data pointer that no import, view or export may dereference."""
    if device_type in _HOST_READABLE:
        return ctypes.addressof(_ARENA) + (1 << 15)
    return poison_address()


def release(made: Made) -> None:
    """Drop the capsule. Reference counting alone must free it: no cyclic GC (slow with torch)."""
    made.capsule = None


def device_as_read(device: tuple[int, int]) -> tuple[int, int]:
    """The device dlarray reads from a DLPack device: CPU memory has device_id 0, so any other
    (non-negative) CPU id is read as 0; other devices as given."""
    return (device[0], 0) if device[0] == DLDeviceType.CPU else device


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


class AloneProducer(Producer):
    """A producer that keeps no reference to the capsules it hands out, as numpy and most C
    producers do: ``from_dlpack`` holds the only one, and takes its general path's shortcut (the
    capsule, unrenamed, is the owner; its destructor calls the deleter).

    ``made`` keeps what each capsule points to, never the capsule itself; ``versioned=False``
    makes legacy capsules whatever the caller offers.
    """

    def __init__(self, versioned: bool | None = None, **fields: Any) -> None:
        super().__init__(**fields)
        self.versioned = versioned

    def __dlpack__(self, **options: Any) -> Any:
        self.calls.append(options)
        versioned = self.versioned
        if versioned is None:
            versioned = options.get("max_version") is not None and options["max_version"][0] >= 1
        made = make_capsule(versioned=versioned, **self.fields)
        self.made.append(made)
        capsule, made.capsule = made.capsule, None
        return capsule


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


# --------------------------------------------------------------------------- an exchange table of one's own
# A table with any header and a current_work_stream, for producers whose __dlpack__ rules dlarray
# does not know (it learns them per situation) and for CUDA streams.
_CURRENT_WORK_STREAM = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p))
#: What current_work_stream answers: the stream handle per (device_type, device_id); absent: it
#: fails (-1; a Python callback cannot leave an error set for its caller, so none is).
current_streams: dict[tuple[int, int], int | None] = {}
stream_queries: list[tuple[int, int]] = []


def _current_work_stream(device_type: int, device_id: int, out: Any) -> int:
    stream_queries.append((device_type, device_id))
    if (device_type, device_id) not in current_streams:
        return -1
    out[0] = current_streams[device_type, device_id]
    return 0


_STREAM_FUNCTION = _CURRENT_WORK_STREAM(_current_work_stream)
_keep: list[Any] = [_STREAM_FUNCTION]


def exchange_capsule(major: int = 1, minor: int = 3, prev_api: int | None = None, streams: bool = True,
                     name: bytes = b"dlpack_exchange_api") -> tuple[Any, int]:
    """A ``__dlpack_c_exchange_api__`` capsule over a new table (kept alive for the process), and
    the table's address (for another table's ``prev_api``)."""
    api = _ExchangeAPI(major, minor, prev_api, None, ctypes.cast(_EXCHANGE_FUNCTION, ctypes.c_void_p).value,
                       None, None, ctypes.cast(_STREAM_FUNCTION, ctypes.c_void_p).value if streams else None)
    label = ctypes.create_string_buffer(name)
    _keep.extend((api, label))
    return _new_plain_capsule(ctypes.addressof(api), label, None), ctypes.addressof(api)


class LearntExchangeProducer(ExchangeProducer):
    """A type of its own with the C exchange API (with current_work_stream) whose __dlpack__
    rules dlarray was not told: its __dlpack__ is asked once per situation.

    Both ways describe the same memory, the object's own (unless ``data_address`` is given);
    ``refuse(fields)`` true makes ``__dlpack__`` raise BufferError, as a producer's own rule would,
    while the exchange function hands the tensor over all the same.
    """

    __dlpack_c_exchange_api__ = exchange_capsule()[0]

    def __init__(self, refuse: Any = None, **fields: Any) -> None:
        self.memory = ctypes.create_string_buffer(512)
        fields.setdefault("data_address", ctypes.addressof(self.memory))
        super().__init__(**fields)
        self.refuse = refuse

    def __dlpack__(self, **options: Any) -> Any:
        if self.refuse is not None and self.refuse(self.fields):
            self.calls.append(options)
            raise BufferError("refused by the producer's own __dlpack__")
        return super().__dlpack__(**options)


def new_publisher(**fields: Any) -> LearntExchangeProducer:
    """An object of a new publisher type (nothing learnt of it yet): its first import asks its
    ``__dlpack__``."""
    kind = type("Publisher", (LearntExchangeProducer,), {"__dlpack_c_exchange_api__": exchange_capsule()[0]})
    return kind(**fields)
