"""The C exchange API (``type(x).__dlpack_c_exchange_api__``) of any producer type that has one.

- The table is read only where its header vouches for the fields read: major version 1 from minor
  2 on, or a later major's ``prev_api`` chain down to such a table; anything else is ignored and
  ``__dlpack__`` is asked.
- A producer whose ``__dlpack__`` rules dlarray was not told gives, through the fast path, what
  its ``__dlpack__`` gives, refusals included: its ``__dlpack__`` is asked once per situation.
- A CUDA tensor comes with the stream the table's ``current_work_stream`` names (simulated here:
  the device pointers are never dereferenced; tests/gpu/test_exchange_api_gpu.py runs it on a GPU).
- Two publishers from PyPI, on the CPU: cuda-core's ``StridedMemoryView`` and tvm-ffi's
  ``DLTensorTestWrapper`` (the ``exchange`` extra), each through the fast path and the general
  path alike.
"""

from __future__ import annotations

import ctypes
import gc
import weakref
from typing import Any

import needs
import numpy as np
import pytest
import producer
from producer import LearntExchangeProducer, exchange_capsule

import dlarray as xp
from dlarray._array import _adopt
from dlarray._dlpack import DLPACK_VERSION, CapsuleType, DLDeviceType, consume_capsule
from dlarray._dlpack import _exchange
from dlarray._dlpack._exchange import exchange_api, importer_for
from dlarray._producers import fast_import_for

CUDA = (int(DLDeviceType.CUDA), 0)
PRODUCER_STREAM = 0x7F00_ABCD_0000
FLAG_READ_ONLY = 1


def publisher(capsule: Any, base: type = LearntExchangeProducer) -> type:
    """A new producer type of its own with ``capsule`` as its exchange API (a fresh type: no
    verdict learnt for it yet)."""
    return type("Publisher", (base,), {"__dlpack_c_exchange_api__": capsule})


def general_path(obj: Any) -> xp.Array:
    """What ``__dlpack__`` gives, imported as from_dlpack's general path imports it."""
    return consume_capsule(obj.__dlpack__(max_version=DLPACK_VERSION), _adopt)


def described(x: xp.Array) -> tuple[Any, ...]:
    return (x.data_ptr, x.shape, x._strides, x.dtype, x.device, x.readonly)


# --------------------------------------------------------------------------- the table's header
_TABLE_1_3 = exchange_capsule(1, 3)
_TABLE_1_1 = exchange_capsule(1, 1)


@pytest.mark.parametrize(("header", "read"), [
    ({"major": 1, "minor": 3}, True),
    ({"major": 1, "minor": 2}, True),  # the first version with the exchange API
    ({"major": 1, "minor": 1}, False),  # older than the exchange API: its fields are not these
    ({"major": 0, "minor": 9}, False),
    ({"major": 2, "minor": 0}, False),  # a later major with no earlier table to fall back to
    ({"major": 2, "minor": 0, "prev_api": _TABLE_1_3[1]}, True),  # walked down to a 1.3 table
    ({"major": 3, "minor": 0, "prev_api": _TABLE_1_1[1]}, False),  # down to a table too old
    ({"name": b"dlpack_exchange_api_v2"}, False),  # not the capsule DLPack names
])
def test_the_table_is_read_only_where_its_version_vouches_for_its_fields(header: dict[str, Any], read: bool) -> None:
    kind = publisher(exchange_capsule(**header)[0])
    assert (exchange_api(kind) is not None) is read
    source = kind(shape=(3,))
    x = xp.from_dlpack(source)
    assert bool(source.exchanged) is read
    assert x.data_ptr == ctypes.addressof(source.memory)  # the same import either way
    del x
    gc.collect()
    assert all([made.deleted == 1 for made in source.exchanged + source.made])


def test_a_table_given_as_an_int_is_not_read() -> None:
    """DLPack 1.2's first form (``__c_dlpack_exchange_api__``, an int) is not 1.3's capsule."""
    kind = publisher(_TABLE_1_3[1])
    assert exchange_api(kind) is None and fast_import_for(kind) is None
    source = kind(shape=(2,))
    xp.from_dlpack(source)
    assert not source.exchanged and len(source.made) == 1


# --------------------------------------------------------------------------- rules learnt per situation
def test_dunder_is_asked_once_per_situation_then_the_fast_path_is_taken() -> None:
    kind = publisher(exchange_capsule()[0])
    first = kind(shape=(2, 3))
    x = xp.from_dlpack(first)
    assert len(first.exchanged) == 1 and len(first.made) == 1  # the one question to __dlpack__
    assert first.made[0].deleted == 1  # its answer, compared, was let go
    assert described(x) == (ctypes.addressof(first.memory), (2, 3), (3, 1), xp.float32, xp.Device("cpu"), False)
    second = kind(shape=(2, 3))
    y = xp.from_dlpack(second)
    assert len(second.exchanged) == 1 and not second.made
    other_dtype = kind(shape=(2, 3), code=0, bits=64)  # another situation: asked again
    xp.from_dlpack(other_dtype)
    assert len(other_dtype.made) == 1
    del x, y
    gc.collect()
    assert [made.deleted for made in first.exchanged + second.exchanged] == [1, 1]


@pytest.mark.parametrize("owner", ["capsule", "ctypes slot"])
def test_what_the_exchange_function_hands_over_is_owned_and_freed_once(owner: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The struct is owned from the instant the call returns: by a capsule with numpy's C
    destructor (the fast form, where numpy's capsule layout is known), or by a ctypes slot's
    finalizer (without one). Either way its deleter runs once, when the last Array lets go, also
    for an import refused after the hand-over (lanes 2: the deleter runs at once)."""
    assert _exchange._owner_destructor  # numpy's, taken when dlarray was imported
    if owner == "ctypes slot":
        monkeypatch.setattr(_exchange, "_owner_destructor", 0)
    kind = producer.ExchangeProducer  # its rules registered: the fast path for every object
    obj = kind(shape=(2, 3))
    x = xp.from_dlpack(obj)
    assert len(obj.exchanged) == 1 and not obj.made and described(x)[1] == (2, 3)
    held = getattr(x._owner.func, "__self__", None)  # the capsule form: the owner clears a list holding it
    assert (type(held) is list and type(held[0]) is CapsuleType) == (owner == "capsule")
    gc.collect()
    assert obj.exchanged[0].deleted == 0
    del x
    gc.collect()
    assert obj.exchanged[0].deleted == 1
    refused = kind(shape=(2,), lanes=2)
    with pytest.raises(BufferError) as raised:
        xp.from_dlpack(refused)
    # freed before the error reaches its handler, not when its traceback (which holds the
    # import's frames) is dropped
    assert raised.value.__traceback__ is not None and [made.deleted for made in refused.exchanged] == [1]


def test_what_dunder_refuses_is_refused_however_the_exchange_function_answers() -> None:
    kind = publisher(exchange_capsule()[0])

    def read_only(fields: dict[str, Any]) -> bool:
        return bool(fields.get("flags", 0) & FLAG_READ_ONLY)

    for _ in range(3):  # learnt once, the same refusal every time after
        refused = kind(refuse=read_only, shape=(4,), flags=FLAG_READ_ONLY)
        with pytest.raises(BufferError, match="refused by the producer's own __dlpack__"):
            xp.from_dlpack(refused)
        gc.collect()
        assert all([made.deleted == 1 for made in refused.exchanged])
        writable = kind(refuse=read_only, shape=(4,))  # another situation: taken
        assert xp.from_dlpack(writable).data_ptr == ctypes.addressof(writable.memory)
    assert not writable.made  # the writable situation's verdict was learnt in the first round


def test_a_producer_whose_dunder_gives_something_else_is_imported_as_dunder_gives_it() -> None:
    kind = publisher(exchange_capsule()[0])
    for _ in range(2):
        source = kind(shape=(3,))
        source.fields.pop("data_address")  # __dlpack__ (and the exchange function) give new memory each call
        x = xp.from_dlpack(source)
        assert x.data_ptr == source.made[-1].data_address  # __dlpack__'s tensor, not the exchanged one
        gc.collect()
        assert [made.deleted for made in source.exchanged] == [1]


def test_a_read_only_flag_is_kept_through_the_fast_path() -> None:
    kind = publisher(exchange_capsule()[0])
    for _ in range(2):
        source = kind(shape=(3,), flags=FLAG_READ_ONLY)
        x = xp.from_dlpack(source)
        assert x.readonly and source.exchanged
        with pytest.raises(ValueError, match="read-only"):
            x[0] = 1.0


class _Described(LearntExchangeProducer):
    """A publisher that also has an __array_interface__ (from_dlpack cross-checks its read-only answer)."""

    __dlpack_c_exchange_api__ = exchange_capsule()[0]

    @property
    def __array_interface__(self) -> dict[str, Any]:
        return {"shape": (2,), "typestr": "<f4", "data": (ctypes.addressof(self.memory), True), "version": 3}


def test_an_object_described_otherwise_goes_through_dunder() -> None:
    for _ in range(2):
        source = _Described(shape=(2,))
        x = xp.from_dlpack(source)
        assert not source.exchanged and len(source.made) == 1
        assert x.readonly  # its __array_interface__ says read-only: the strictest answer kept


# --------------------------------------------------------------------------- CUDA: the producer's stream
@pytest.fixture
def streams() -> Any:
    producer.current_streams.clear()
    producer.stream_queries.clear()
    yield producer.current_streams
    producer.current_streams.clear()


@pytest.mark.parametrize(("handle", "stream"), [(PRODUCER_STREAM, PRODUCER_STREAM), (None, 1), (2, 2)])
def test_a_cuda_tensor_comes_with_the_producers_current_stream(streams: dict[Any, Any], handle: Any,
                                                             stream: int) -> None:
    streams[CUDA] = handle  # NULL: the legacy default stream, DLPack's 1
    kind = publisher(exchange_capsule()[0])
    for _ in range(2):
        source = kind(shape=(2, 2), device=CUDA)
        x = xp.from_dlpack(source)
        assert source.exchanged and x.device == xp.Device("cuda", 0)
        assert x._stream == stream and x.__cuda_array_interface__["stream"] == stream
        assert x.data_ptr == ctypes.addressof(source.memory)
    assert producer.stream_queries[-1] == CUDA


def test_a_failing_current_work_stream_sends_the_tensor_through_dunder(streams: dict[Any, Any]) -> None:
    kind = publisher(exchange_capsule()[0])  # no stream for CUDA: current_work_stream fails
    source = kind(shape=(2,), device=CUDA)
    x = xp.from_dlpack(source)
    assert x._stream == 1 and len(source.made) == 1  # __dlpack__'s import, ordered on the legacy stream
    gc.collect()
    assert [made.deleted for made in source.exchanged] == [1]  # the exchanged tensor let go


@pytest.mark.parametrize("device", [(int(DLDeviceType.ROCM), 0), (int(DLDeviceType.CUDA_HOST), 0)])
def test_other_devices_go_through_dunder(streams: dict[Any, Any], device: tuple[int, int]) -> None:
    streams[device] = PRODUCER_STREAM
    source = publisher(exchange_capsule()[0])(shape=(2,), device=device)
    x = xp.from_dlpack(source)
    assert x.data_ptr == source.made[-1].data_address and x._stream == 1
    assert producer.stream_queries == []


def test_a_table_without_current_work_stream_sends_cuda_tensors_through_dunder(streams: dict[Any, Any]) -> None:
    source = publisher(exchange_capsule(streams=False)[0])(shape=(2,), device=CUDA)
    x = xp.from_dlpack(source)
    assert len(source.made) == 1 and x._stream == 1
    assert producer.stream_queries == []


# --------------------------------------------------------------------------- publishers from PyPI
def _read_only() -> np.ndarray:
    source = np.arange(6.0).reshape(2, 3)
    source.flags.writeable = False
    return source


# each makes a new source (the test follows its life)
_SOURCES = [
    lambda: np.arange(6, dtype=np.float32).reshape(2, 3),
    lambda: np.arange(24, dtype=np.int16).reshape(4, 6)[::2, 1::2],  # strided
    lambda: np.arange(12, dtype=np.int64).reshape(3, 4).T,  # transposed
    lambda: np.array([1 + 2j, 3 - 4j], dtype=np.complex128),
    lambda: np.array([True, False, True]),
    lambda: np.array(7, dtype=np.uint8),  # 0-d
    lambda: np.zeros((0, 3), dtype=np.float64),
    _read_only,
]


def _check_publisher(kind: type, wrap: Any, sources: list[Any] = _SOURCES) -> None:
    """Each source, wrapped as the publisher's object: the fast path used, giving what the general
    path gives (memory, shape, strides, dtype, read-only), and the source kept alive by the Array."""
    assert fast_import_for(kind) is not None and importer_for(kind) is not None
    for make in sources:
        source = make()
        expected = source.copy()
        obj = wrap(source)
        fast = fast_import_for(kind)(obj)
        assert fast is not None, source
        general = general_path(obj)
        x = xp.from_dlpack(obj)
        assert described(fast) == described(general) == described(x)
        if source.size:  # (an empty array's pointer is whatever its producer says, alike on every path)
            assert x.data_ptr == source.__array_interface__["data"][0]
        assert x.readonly == (not source.flags.writeable)
        alive = weakref.ref(source)
        del source, obj, fast, general
        gc.collect()
        assert alive() is not None  # the Array keeps the memory alive
        np.testing.assert_array_equal(np.asarray(x), expected)
        del x
        gc.collect()
        assert alive() is None  # nothing held past the last Array: the deleters ran


@needs.skip_without("cuda.core")
def test_cuda_core_strided_memory_view_on_the_cpu() -> None:
    from cuda.core.utils import StridedMemoryView

    _check_publisher(StridedMemoryView, lambda source: StridedMemoryView.from_dlpack(source, stream_ptr=-1))


@needs.skip_without("tvm_ffi")
def test_tvm_ffi_exchange_api_on_the_cpu() -> None:
    import tvm_ffi
    from tvm_ffi.core import DLTensorTestWrapper

    # (tvm_ffi.from_dlpack refuses a read-only numpy array: no read-only source here)
    _check_publisher(DLTensorTestWrapper, lambda source: DLTensorTestWrapper(tvm_ffi.from_dlpack(source)),
                     [make for make in _SOURCES if make is not _read_only])


@needs.skip_without("cuda.core")
def test_cuda_core_refusals_are_dunders() -> None:
    """What StridedMemoryView's __dlpack__ refuses (a copy to another device) is refused alike,
    and an object whose dlarray dtype is missing is refused by from_dlpack with the same error
    either way."""
    from cuda.core.utils import StridedMemoryView

    view = StridedMemoryView.from_dlpack(np.arange(3.0), stream_ptr=-1)
    with pytest.raises(BufferError):
        view.__dlpack__(max_version=DLPACK_VERSION, dl_device=CUDA)
    with pytest.raises(BufferError):
        xp.from_dlpack(view, device=xp.Device("cuda", 0), copy=False)
