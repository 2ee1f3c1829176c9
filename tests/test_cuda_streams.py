"""CUDA stream semantics at the DLPack boundary, without a GPU.

The arrays are synthetic CUDA tensors from the ctypes test producer (their device pointers are
never dereferenced). Stream values are checked as DLPack defines them; the ordering itself is
checked against a recording stand-in for ``libcuda``: which events are recorded on which stream
and which stream waits for them. tests/gpu/ runs the same paths on a real GPU.
"""

from __future__ import annotations

import ctypes
from typing import Any

import pytest
from producer import make_capsule

import dlarray
from dlarray import _cuda
from dlarray._dlpack import DLDeviceType

CUDA = (int(DLDeviceType.CUDA), 0)
CONSUMER_STREAM = 0x7F00_1234_5600
PRODUCER_STREAM = 0x7F00_ABCD_0000


class RecordingDriver:
    """Answers the driver calls dlarray makes, and records them in order."""

    def __init__(self, fail: str | None = None, current: int = 0) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.fail = fail
        self.current = current  # the context current on the calling thread (0: none)

    def _result(self, name: str) -> int:
        return 400 if name == self.fail else 0  # 400: CUDA_ERROR_INVALID_HANDLE

    def cuGetErrorName(self, code: int, name: Any) -> int:
        name._obj.value = b"CUDA_ERROR_INVALID_HANDLE"
        return 0

    def cuDeviceGet(self, device: Any, ordinal: int) -> int:
        device._obj.value = ordinal
        return self._result("cuDeviceGet")

    def cuDevicePrimaryCtxRetain(self, context: Any, device: Any) -> int:
        context._obj.value = 0xC0DE
        self.calls.append(("retain", device.value))
        return 0

    def cuCtxGetCurrent(self, context: Any) -> int:
        _out(context).value = self.current or None
        self.calls.append(("current",))
        return 0

    def cuCtxPushCurrent_v2(self, context: int) -> int:
        self.calls.append(("push", _value(context)))
        return 0

    def cuCtxPopCurrent_v2(self, context: Any) -> int:
        self.calls.append(("pop",))
        return 0

    def cuEventCreate(self, event: Any, flags: int) -> int:
        event._obj.value = 0xE7E7 + sum(1 for call in self.calls if call[0] == "create")  # distinct handles
        self.calls.append(("create", flags))
        return self._result("cuEventCreate")

    def cuEventRecord(self, event: Any, stream: Any) -> int:
        self.calls.append(("record", _value(event), _value(stream)))
        return self._result("cuEventRecord")

    def cuStreamWaitEvent(self, stream: Any, event: Any, flags: int) -> int:
        self.calls.append(("wait", _value(stream), _value(event)))
        return self._result("cuStreamWaitEvent")

    def cuEventDestroy_v2(self, event: Any) -> int:
        self.calls.append(("destroy", _value(event)))
        return 0

    def cuStreamSynchronize(self, stream: Any) -> int:
        self.calls.append(("synchronize", _value(stream)))
        return 0

    def cuPointerGetAttribute(self, value: Any, attribute: int, pointer: Any) -> int:
        value._obj.value = 0
        return 0

    def ordering(self) -> list[tuple[Any, ...]]:
        """The record and wait calls only."""
        return [call for call in self.calls if call[0] in ("record", "wait")]


def _out(argument: Any) -> Any:
    """The c_void_p an output argument writes to: passed as it is (ctypes then passes it by
    reference, as its argtypes, a pointer to one, say) or as ``byref(...)``."""
    return argument._obj if type(argument).__name__ == "CArgObject" else argument


def _value(argument: Any) -> Any:
    """A pointer-sized argument as an int (ctypes objects and plain ints alike)."""
    return argument if isinstance(argument, int) else argument.value


def install(monkeypatch: pytest.MonkeyPatch, fake: RecordingDriver) -> RecordingDriver:
    monkeypatch.setattr(_cuda, "_driver_state", [fake])
    monkeypatch.setattr(_cuda, "_contexts", {})
    monkeypatch.setattr(_cuda, "_idle_events", {})
    return fake


@pytest.fixture
def driver(monkeypatch: pytest.MonkeyPatch) -> RecordingDriver:
    return install(monkeypatch, RecordingDriver())


def cuda_array(shape: tuple[int, ...] = (4, 4)) -> dlarray.Array:
    return dlarray.from_dlpack(make_capsule(shape, device=CUDA).capsule)


# ----------------------------------------------------------------------------- stream values


@pytest.mark.parametrize("stream", [None, 1, 2, -1, CONSUMER_STREAM])
def test_cuda_export_accepts_dlpack_stream_values(stream: Any) -> None:
    x = cuda_array()
    y = dlarray.from_dlpack(x.__dlpack__(stream=stream, max_version=(1, 3)))
    assert (y.data_ptr, y.device, y.shape) == (x.data_ptr, x.device, x.shape)


def test_stream_zero_is_refused_as_ambiguous() -> None:
    with pytest.raises(ValueError, match="stream=0 is ambiguous"):
        cuda_array().__dlpack__(stream=0)


@pytest.mark.parametrize("stream", [-2, -(2**40)])
def test_negative_streams_other_than_minus_one_are_refused(stream: int) -> None:
    with pytest.raises(ValueError, match="stream must be -1, 1, 2 or a CUDA stream pointer"):
        cuda_array().__dlpack__(stream=stream)


@pytest.mark.parametrize("stream", ["1", 1.0, True, object()])
def test_non_integer_streams_are_refused(stream: Any) -> None:
    with pytest.raises(TypeError, match="stream must be None or an int"):
        cuda_array().__dlpack__(stream=stream)


def test_stream_on_cpu_and_other_devices_is_refused() -> None:
    with pytest.raises(BufferError, match="stream must be None for an array on cpu"):
        dlarray.asarray([1.0]).__dlpack__(stream=1)
    metal = dlarray.from_dlpack(make_capsule((2,), device=(int(DLDeviceType.METAL), 0)).capsule)
    with pytest.raises(BufferError, match="metal:0"):
        metal.__dlpack__(stream=5)


def test_rocm_streams_follow_the_rocm_rules() -> None:
    x = dlarray.from_dlpack(make_capsule((2,), device=(int(DLDeviceType.ROCM), 0)).capsule)
    for stream in (None, 0, -1, CONSUMER_STREAM):
        x.__dlpack__(stream=stream, max_version=(1, 3))
    for stream in (1, 2):  # CUDA's legacy and per-thread streams do not exist on ROCm
        with pytest.raises(ValueError, match="ROCm"):
            x.__dlpack__(stream=stream)


def test_without_a_driver_nothing_is_ordered(monkeypatch: pytest.MonkeyPatch) -> None:
    """No libcuda means no GPU, so no work can be in flight: the export goes ahead."""
    monkeypatch.setattr(_cuda, "_driver_state", [None])
    assert _cuda.order(1, CONSUMER_STREAM, 0) is False
    cuda_array().__dlpack__(stream=CONSUMER_STREAM)


# ----------------------------------------------------------------------------- ordering


def test_consumer_on_another_stream_waits_for_the_data(driver: RecordingDriver) -> None:
    x = cuda_array()
    x.__dlpack__(stream=CONSUMER_STREAM, max_version=(1, 3))
    # imported data is ordered on the legacy default stream (DLPack's None on import)
    assert driver.ordering() == [("record", 0xE7E7, 1), ("wait", CONSUMER_STREAM, 0xE7E7)]
    assert driver.calls.count(("push", 0xC0DE)) == driver.calls.count(("pop",)) == 1
    assert ("destroy", 0xE7E7) not in driver.calls  # kept for the next ordering


@pytest.mark.parametrize("stream", [None, 1, -1])
def test_same_stream_or_no_sync_orders_nothing(driver: RecordingDriver, stream: Any) -> None:
    cuda_array().__dlpack__(stream=stream, max_version=(1, 3))
    assert driver.calls == []


def test_per_thread_default_stream_is_another_stream(driver: RecordingDriver) -> None:
    cuda_array().__dlpack__(stream=2, max_version=(1, 3))
    assert driver.ordering() == [("record", 0xE7E7, 1), ("wait", 2, 0xE7E7)]


def test_views_keep_the_stream_their_data_is_ordered_on(driver: RecordingDriver) -> None:
    x = cuda_array((6, 6))
    x._stream = PRODUCER_STREAM  # as cupy leaves a result computed on a non-default stream
    view = x[1:, ::2].mT
    assert view.__cuda_array_interface__["stream"] == PRODUCER_STREAM
    view.__dlpack__(max_version=(1, 3))  # None: the legacy default stream
    assert driver.ordering() == [("record", 0xE7E7, PRODUCER_STREAM), ("wait", 1, 0xE7E7)]
    driver.calls.clear()
    view.__dlpack__(stream=PRODUCER_STREAM, max_version=(1, 3))
    assert driver.calls == []


def test_driver_calls_per_ordered_hand_off_are_pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    """An export to another stream costs three driver calls once the event exists: is the device's
    context current (cupy and torch leave it so), record, wait. No event is created or destroyed
    per hand-off, no context pushed; an export on the data's own stream costs none."""
    fake = install(monkeypatch, RecordingDriver(current=0xC0DE))
    x = cuda_array()
    x.__dlpack__(stream=CONSUMER_STREAM, max_version=(1, 3))  # the first retains the context, makes the event
    assert [call[0] for call in fake.calls] == ["retain", "current", "create", "record", "wait"]
    fake.calls.clear()
    for _ in range(3):
        x.__dlpack__(stream=CONSUMER_STREAM, max_version=(1, 3))
    assert [call[0] for call in fake.calls] == ["current", "record", "wait"] * 3
    assert {call[1] for call in fake.calls if call[0] == "record"} == {0xE7E7}  # one event, reused
    fake.calls.clear()
    x.__dlpack__(stream=1, max_version=(1, 3))
    assert fake.calls == []
    fake.current = 0  # another context current (or none): the primary one pushed and popped
    x.__dlpack__(stream=CONSUMER_STREAM, max_version=(1, 3))
    assert [call[0] for call in fake.calls] == ["current", "push", "record", "wait", "pop"]


def test_an_ordering_reentered_during_another_uses_its_own_event(monkeypatch: pytest.MonkeyPatch) -> None:
    """A finalizer (or another thread) ordering while an event is between record and wait takes
    another event: a shared one would be re-recorded on the wrong stream before the wait."""
    fake = install(monkeypatch, RecordingDriver(current=0xC0DE))
    record = fake.cuEventRecord
    nested: list[int] = []

    def record_then_reenter(event: Any, stream: Any) -> int:
        result = record(event, stream)
        if not nested:
            nested.append(1)
            _cuda.order(PRODUCER_STREAM, CONSUMER_STREAM, 0)
        return result

    fake.cuEventRecord = record_then_reenter  # type: ignore[method-assign]
    _cuda.order(1, CONSUMER_STREAM, 0)
    records = [call for call in fake.calls if call[0] == "record"]
    assert records == [("record", 0xE7E7, 1), ("record", 0xE7E8, PRODUCER_STREAM)]
    assert ("wait", CONSUMER_STREAM, 0xE7E7) in fake.calls and ("wait", CONSUMER_STREAM, 0xE7E8) in fake.calls
    # both events are kept for later orderings: the same nested ordering again creates no event
    made = len(fake.calls)
    nested.clear()
    _cuda.order(1, CONSUMER_STREAM, 0)
    later = fake.calls[made:]
    assert [call for call in later if call[0] in ("create", "destroy")] == []
    assert sorted(call[1] for call in later if call[0] == "record") == [0xE7E7, 0xE7E8]


def test_primary_context_is_retained_once_per_device(driver: RecordingDriver) -> None:
    x = cuda_array()
    for _ in range(3):
        x.__dlpack__(stream=CONSUMER_STREAM, max_version=(1, 3))
    assert [call for call in driver.calls if call[0] == "retain"] == [("retain", 0)]


@pytest.mark.parametrize("failing", ["cuEventRecord", "cuStreamWaitEvent", "cuEventCreate"])
def test_driver_errors_raise_and_clean_up(monkeypatch: pytest.MonkeyPatch, failing: str) -> None:
    fake = install(monkeypatch, RecordingDriver(fail=failing))
    x = cuda_array()
    with pytest.raises(BufferError, match=f"{failing}.*CUDA_ERROR_INVALID_HANDLE"):
        x.__dlpack__(stream=CONSUMER_STREAM)
    assert fake.calls.count(("push", 0xC0DE)) == fake.calls.count(("pop",))
    if failing != "cuEventCreate":
        assert ("destroy", 0xE7E7) in fake.calls


# ----------------------------------------------------------------------------- CUDA Array Interface


class _CudaInterface:
    def __init__(self, stream: Any) -> None:
        self.__cuda_array_interface__ = {
            "version": 3, "shape": (3,), "typestr": "<f4", "data": (0xBEEF000, False),
            "strides": None, "stream": stream,
        }


def test_interface_stream_is_synchronized_on_import(driver: RecordingDriver) -> None:
    x = dlarray.asarray(_CudaInterface(CONSUMER_STREAM))
    assert x.device == dlarray.Device("cuda:0")
    assert ("synchronize", CONSUMER_STREAM) in driver.calls


@pytest.mark.parametrize("stream, error", [(0, ValueError), (-1, ValueError), ("s", TypeError)])
def test_interface_stream_values_are_checked(stream: Any, error: type) -> None:
    with pytest.raises(error, match="stream"):
        dlarray.asarray(_CudaInterface(stream))


def test_cuda_copies_without_cupy_name_what_is_missing() -> None:
    # cupy is hidden from this test even where it is installed (tests/gpu_view.py)
    x = cuda_array()
    for attempt in (lambda: x.to_device("cpu"), lambda: dlarray.asarray([1.0]).to_device("cuda:0"),
                    lambda: dlarray.ones(3, device="cuda:0")):
        with pytest.raises(TypeError, match=r"needs cupy: install dlarray with its cuda12 or cuda13 extra"):
            attempt()
    for value in (1.0, x[0]):  # the backend's reason, not that of the extra float formats' path
        with pytest.raises(TypeError, match=r"cannot assign into an array on cuda:0: .* needs cupy: install"):
            x[0] = value
    with pytest.raises(BufferError, match="cannot export to cpu"):
        x.__dlpack__(dl_device=(1, 0), max_version=(1, 3))
    with pytest.raises(BufferError, match="copy=False"):
        x.__dlpack__(dl_device=(1, 0), copy=False, max_version=(1, 3))


def test_ctypes_passes_a_c_void_p_by_reference_where_argtypes_names_a_pointer_to_one() -> None:
    """order() reads the current context into a c_void_p handed to cuCtxGetCurrent as it is;
    ctypes must pass its address (checked here with libc's posix_memalign, which writes a void**)."""
    libc = ctypes.CDLL(None)
    libc.posix_memalign.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t, ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    written = ctypes.c_void_p()
    assert libc.posix_memalign(written, 64, 64) == 0
    assert written.value and written.value % 64 == 0
    libc.free(written)


def test_ctypes_byref_exposes_the_target() -> None:
    """The recording driver relies on ``byref(...)._obj``; keep that assumption checked."""
    value = ctypes.c_void_p()
    ctypes.byref(value)._obj.value = 5
    assert value.value == 5


def test_pinned_memory_copies_to_the_cpu_bit_for_bit() -> None:
    """Host-readable device memory needs no cupy: a strided bfloat16 view copies with numpy."""
    import numpy as np

    bits = np.arange(6, dtype=np.uint16)
    made = make_capsule((6,), code=4, bits=16, device=(int(DLDeviceType.CUDA_HOST), 0), fill=bits.tobytes())
    x = dlarray.from_dlpack(made.capsule)
    y = x[::2].to_device("cpu")
    assert (str(y.device), y.dtype, y.shape, y.strides) == ("cpu", dlarray.bfloat16, (3,), (1,))
    assert y.data_ptr != x.data_ptr and not y.readonly
    info, _owner = dlarray._dlpack.consume_capsule(y.__dlpack__(max_version=(1, 3)))
    copied = np.frombuffer(bytes((ctypes.c_char * 6).from_address(info.data)), dtype=np.uint16)
    assert copied.tolist() == bits[::2].tolist()
