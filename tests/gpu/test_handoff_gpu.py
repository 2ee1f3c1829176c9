"""Hand-off costs on a real GPU, counted, not timed.

An export to a consumer on another stream makes that stream wait for the data's stream: with the
device's primary context already current (as cupy and torch leave it), three driver calls per
hand-off once the first has made the event (cuCtxGetCurrent, cuEventRecord, cuStreamWaitEvent),
and the reused event still orders every hand-off. Skipped without a GPU (conftest.py).
"""

from __future__ import annotations

from typing import Any

import pytest

cupy = pytest.importorskip("cupy")
torch = pytest.importorskip("torch")

import dlarray as xp
from dlarray import _cuda

SPIN_CYCLES = 200_000_000  # keeps the GPU busy on the producer's stream (see test_cuda.py)


class CountingDriver:
    """The real libcuda, with the name of every call dlarray makes recorded."""

    def __init__(self, lib: Any) -> None:
        self._lib = lib
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        function = getattr(self._lib, name)

        def call(*args: Any) -> Any:
            self.calls.append(name)
            return function(*args)

        return call


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> CountingDriver:
    lib = _cuda.driver()
    assert lib is not None, "a GPU machine without a usable libcuda"
    counter = CountingDriver(lib)
    monkeypatch.setattr(_cuda, "_driver_state", [counter])
    return counter


def test_three_driver_calls_per_ordered_hand_off(counting: CountingDriver) -> None:
    x = xp.from_dlpack(torch.ones(1000, device="cuda"))
    other = torch.cuda.Stream()
    x.__dlpack__(stream=other.cuda_stream, max_version=(1, 0))  # the first may make the event
    counting.calls.clear()
    for _ in range(5):
        x.__dlpack__(stream=other.cuda_stream, max_version=(1, 0))
    assert counting.calls == ["cuCtxGetCurrent", "cuEventRecord", "cuStreamWaitEvent"] * 5
    counting.calls.clear()
    x.__dlpack__(stream=1, max_version=(1, 0))  # the data's own stream: nothing to order
    torch.from_dlpack(x)
    assert counting.calls == []


def test_a_reused_event_orders_every_hand_off() -> None:
    """Two consumers on two streams, each after a long kernel on the producer's stream: both see
    the producer's values (the event is re-recorded for the second; the first wait is unaffected)."""
    n = 1 << 22
    with cupy.cuda.Stream(non_blocking=True) as producer:
        values = []
        for fill in (3.0, 5.0):
            with torch.cuda.stream(torch.cuda.ExternalStream(producer.ptr)):
                torch.cuda._sleep(SPIN_CYCLES)
            y = xp.multiply(xp.ones(n, device="cuda:0"), fill)
            consumer = torch.cuda.Stream()
            with torch.cuda.stream(consumer):
                values.append((consumer, torch.from_dlpack(y).sum()))
    for consumer, total in values:
        consumer.synchronize()
    assert [float(total) for _, total in values] == [3.0 * n, 5.0 * n]


def test_small_compute_makes_no_driver_call(counting: CountingDriver) -> None:
    """x + y on CUDA arrays: cupy launches the kernel; dlarray adds no driver call of its own."""
    x = xp.ones(10, device="cuda:0")
    y = xp.ones(10, device="cuda:0")
    x + y
    counting.calls.clear()
    for _ in range(5):
        z = x + y
        xp.sin(z)
    assert counting.calls == []


def _described(capsule: Any) -> tuple[Any, ...]:
    from dlarray.testing import read_capsule

    view = read_capsule(capsule)
    return (view.name, view.version, view.flags, view.data + view.byte_offset, view.device, view.ndim,
            view.dtype, view.shape, view.strides)


@pytest.mark.parametrize("stream", [None, 1, "other", -1])
def test_the_fast_export_describes_what_the_general_path_does(stream: Any) -> None:
    """torch.from_dlpack's export (stream, max_version (1, 0)) takes __dlpack__'s fast path; the
    general one (reached through dl_device naming the array's own device) gives the same capsule,
    and torch reads the values through it, for an import, a cupy result and a strided view."""
    other = torch.cuda.Stream()
    consumer = other.cuda_stream if stream == "other" else stream
    base = torch.arange(24, dtype=torch.float32, device="cuda").reshape(4, 6)
    for x in (xp.from_dlpack(base), xp.multiply(xp.from_dlpack(base), 2), xp.from_dlpack(base)[1:, ::2]):
        fast = _described(x.__dlpack__(stream=consumer, max_version=(1, 0)))
        general = _described(x.__dlpack__(stream=consumer, max_version=(1, 0), dl_device=x.__dlpack_device__()))
        assert fast == general and fast[3] == x.data_ptr and fast[4] == (2, 0)
        torch.cuda.synchronize()
        assert torch.equal(torch.from_dlpack(x).cpu(), torch.from_dlpack(x.to_device("cpu")))
