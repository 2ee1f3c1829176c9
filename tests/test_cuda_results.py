"""Results cupy computes: the device and the stream each one is placed on when it is wrapped.

Every result of a function on a CUDA array is wrapped as an Array on the GPU that holds it, ordered
on the stream cupy queued its work on (cupy's current stream on that device), so that a later
export makes its consumer wait for that stream. No GPU: cupy is tests/numpy_cupy.py, no driver.
"""

from __future__ import annotations

import copy as pycopy
import gc
import json
import pickle
import types
import weakref
from typing import Any

import numpy as np
import numpy_cupy
import pytest

import dlarray
from dlarray import _backend, _cuda
from dlarray._devices import device_of
from dlarray._dlpack import DLDeviceType

OTHER_STREAM = 0x7F00_5EA0_0000


@pytest.fixture(autouse=True)
def cupy(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(_cuda, "_driver_state", [None])  # no driver: nothing is ever ordered
    return numpy_cupy.install(monkeypatch)


def on_cuda(values: Any) -> dlarray.Array:
    return dlarray.asarray(np.asarray(values, dtype=np.float32), device="cuda:0")


def test_results_are_on_the_gpu_and_the_null_streams_dlpack_number() -> None:
    x = on_cuda([1.0, 2.0])
    for result in (x + x, dlarray.sin(x), dlarray.sum(x), x[1:] * 2):
        assert result.device is device_of(DLDeviceType.CUDA, 0)
        assert result._stream == _cuda.LEGACY_DEFAULT_STREAM
        assert result.__cuda_array_interface__["stream"] == _cuda.LEGACY_DEFAULT_STREAM


def test_results_computed_on_another_stream_are_ordered_on_it(monkeypatch: pytest.MonkeyPatch,
                                                             cupy: Any) -> None:
    x = on_cuda([1.0, 2.0])
    asked = []

    def current_stream(device_id: int = -1) -> Any:
        asked.append(device_id)
        return cupy.cuda.Stream(OTHER_STREAM)

    monkeypatch.setattr(cupy.cuda, "get_current_stream", current_stream)
    result = x * 3
    assert result._stream == OTHER_STREAM and asked == [0]  # the stream of the result's own GPU
    assert x._stream == _cuda.LEGACY_DEFAULT_STREAM  # the operand keeps its own


def test_a_stream_a_result_is_ordered_on_lives_as_long_as_the_result_and_its_views(cupy: Any) -> None:
    """cupy destroys a stream when its object dies (cupy/cuda/stream.pyx:517-524), and the result of
    ``with cupy.cuda.Stream():`` outlives that block: exported later, its consumer must wait for that
    stream, so the stream must still exist. The result's ``_stream`` (an int, the stream's pointer)
    holds the stream object; views and slices copy ``_stream``, and so keep it too."""
    x = on_cuda([1.0, 2.0, 3.0])
    stream = cupy.cuda.Stream(OTHER_STREAM)
    with stream:
        y = dlarray.sin(x)
    alive = weakref.ref(stream)
    del stream
    gc.collect()
    assert alive() is not None and y._stream == OTHER_STREAM and type(y._stream) is _cuda.KeptStream
    assert y.__cuda_array_interface__["stream"] == OTHER_STREAM and repr(y._stream) == str(OTHER_STREAM)
    views = [y[1:], y[::-1][1:]]
    assert [view._stream for view in views] == [OTHER_STREAM] * 2
    del y
    gc.collect()
    assert alive() is not None  # the slices hold it
    del views
    gc.collect()
    assert alive() is None  # and nothing else does: the stream goes with the last Array on it


def test_a_kept_stream_is_copied_and_pickled_as_its_number(cupy: Any) -> None:
    """A ``__cuda_array_interface__`` dict (its ``stream``) may be copied, deep-copied, pickled or
    written as JSON: each gives the plain number (int's own reduction would call
    ``KeptStream(pointer)`` without its stream object, a TypeError)."""
    x = on_cuda([1.0, 2.0])
    with cupy.cuda.Stream(OTHER_STREAM):
        y = x * 2
    interface = y.__cuda_array_interface__
    assert type(interface["stream"]) is _cuda.KeptStream
    for copied in (pycopy.copy(interface), pycopy.deepcopy(interface), pickle.loads(pickle.dumps(interface)),
                   json.loads(json.dumps(interface))):
        assert copied["stream"] == OTHER_STREAM
    for stream in (pycopy.copy(y._stream), pycopy.deepcopy(y._stream), pickle.loads(pickle.dumps(y._stream))):
        assert stream == OTHER_STREAM and type(stream) is int


def test_the_default_streams_are_plain_numbers(cupy: Any) -> None:
    """The null, legacy and per-thread default streams are never destroyed: nothing is kept."""
    x = on_cuda([1.0])
    for stream in (cupy.cuda.Stream.null, cupy.cuda.Stream(1), cupy.cuda.Stream.ptds):
        with stream:
            assert type((x + 1)._stream) is int


def test_copies_are_made_on_the_arrays_own_gpu(cupy: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """cupy copies onto its current device (cupy/_core/core.pyx:885-887), which need not be the
    array's: ``asarray(copy=True)``, ``astype(copy=True)`` and ``copy.copy``/``deepcopy`` copy inside
    ``cupy.cuda.Device(array's id)`` (one GPU here: the copy is seen to run inside that block), of
    results cupy made too (``copy.copy`` of one was a TypeError: its address was not read yet)."""
    inside: list[int] = []

    class RecordingDevice(cupy.cuda.Device):  # type: ignore[misc, name-defined]
        def __enter__(self) -> Any:
            inside.append(self.id)
            return super().__enter__()

        def __exit__(self, *exc: object) -> None:
            inside.pop()

    copied_inside: list[list[int]] = []
    def copy(self: Any, *args: Any, **kwargs: Any) -> Any:
        copied_inside.append(list(inside))
        return cupy.ndarray.__getattr__(self, "copy")(*args, **kwargs)  # numpy_cupy's method

    monkeypatch.setattr(cupy.ndarray, "copy", copy, raising=False)
    monkeypatch.setattr(cupy.cuda, "Device", RecordingDevice)
    imported = on_cuda([1.0, 2.0])
    for x in (imported, imported + 1):  # an imported array, and a result cupy made
        for copy in (lambda: dlarray.asarray(x, copy=True), lambda: dlarray.astype(x, dlarray.float32, copy=True),
                     lambda: pycopy.copy(x), lambda: pycopy.deepcopy(x)):
            copied_inside.clear()
            result = copy()
            assert copied_inside == [[0]] and str(result.device) == "cuda:0"
            assert result._native is not x._native
            np.testing.assert_array_equal(result.to_device("cpu"), x.to_device("cpu"))


def test_a_result_on_a_gpu_not_seen_before_gets_its_interned_device() -> None:
    native = types.SimpleNamespace(data=types.SimpleNamespace(device_id=97, mem=None))
    device, stream = _backend.CUDA.placement(native)
    assert (device.type, device.id, stream) == (DLDeviceType.CUDA, 97, _cuda.LEGACY_DEFAULT_STREAM)
    assert device is device_of(DLDeviceType.CUDA, 97)
    assert _backend.CUDA.placement(native)[0] is device  # from the interned devices from now on


@pytest.mark.parametrize("given", [OTHER_STREAM, "cupy stream", "cupy null stream", 2, 1])
def test_a_copy_to_the_gpu_on_a_given_stream_is_ordered_on_that_stream(cupy: Any, given: Any) -> None:
    """``to_device(..., stream=s)`` queues the copy on ``s`` (in cupy's ``with s:``): the result's data
    is ordered on ``s``, so an export makes its consumer wait for ``s``, not for the stream current
    outside that block (cupy's current stream is the block's only inside it)."""
    stream = {"cupy stream": cupy.cuda.Stream(OTHER_STREAM), "cupy null stream": cupy.cuda.Stream.null}.get(given, given)
    x = dlarray.asarray(np.arange(3.0)).to_device("cuda:0", stream=stream)
    expected = {"cupy stream": OTHER_STREAM, "cupy null stream": _cuda.LEGACY_DEFAULT_STREAM}.get(given, given)
    assert x._stream == expected and x.__cuda_array_interface__["stream"] == expected
    np.testing.assert_array_equal(x.to_device("cpu"), np.arange(3.0))
    unlabelled = dlarray.ones(3, dtype=dlarray.bfloat16).to_device("cuda:0", stream=stream)  # as its bits
    assert unlabelled._stream == expected


def test_values_are_read_after_the_stream_the_data_is_ordered_on(monkeypatch: pytest.MonkeyPatch,
                                                                   cupy: Any) -> None:
    """float()/repr() of a result cupy computed on another stream, read outside that stream's block:
    the copy runs on cupy's current stream (cupy/_core/core.pyx:2120) after the device is
    synchronized. Without it the copy may run before the kernel: a non-blocking stream (torch's)
    does not wait for the legacy default stream's work, nor it for theirs. No event on the
    result's stream: it may be destroyed by now (a temporary cupy Stream), and a driver call on a
    destroyed stream's handle is undefined behaviour."""
    from test_cuda_streams import RecordingDriver, install

    x = on_cuda([1.0, 2.0])
    with cupy.cuda.Stream(OTHER_STREAM):
        total = dlarray.sum(x * 2)
    assert total._stream == OTHER_STREAM
    driver = install(monkeypatch, RecordingDriver(current=0xC0DE))
    cupy.calls.clear()
    assert float(total) == 6.0
    assert cupy.calls == ["cuda.Device(0).synchronize"] and cupy.host_copies_on == [0]
    assert driver.calls == []  # nothing recorded on (or asked of) the result's stream
    cupy.calls.clear()
    with cupy.cuda.Stream(OTHER_STREAM):
        assert repr(total).startswith("Array(6.")  # read on the data's own stream: no synchronization
    assert cupy.calls == [] and cupy.host_copies_on == [0, OTHER_STREAM]
    assert float(x[1]) == 2.0 and cupy.calls == []  # imported data, on the current (null) stream
    item = x[1]
    with cupy.cuda.Stream.ptds:  # the legacy and per-thread default streams wait for each other
        assert float(item) == 2.0 and cupy.calls == [] and cupy.host_copies_on[-1] == 2
    with cupy.cuda.Stream(OTHER_STREAM):  # another stream may not wait (a non-blocking one does not)
        assert float(item) == 2.0 and cupy.calls == ["cuda.Device(0).synchronize"]
    cupy.calls.clear()
    monkeypatch.setattr(_cuda, "_driver_state", [None])  # no driver, no GPU: nothing can be in flight
    assert float(total) == 6.0 and cupy.calls == []


@pytest.mark.parametrize("source", ["cpu", "cuda:0"])
def test_a_copy_to_managed_memory_is_managed_memory(cupy: Any, source: str) -> None:
    """``to_device("cuda_managed:0")`` allocates CUDA managed memory (cupy.cuda.malloc_managed) and
    says so; cupy's own allocations (cupy.empty, asarray) are device memory, which this was
    before, labelled cuda:0."""
    x = dlarray.asarray(np.arange(3.0), device=source)
    cupy.calls.clear()
    y = x.to_device("cuda_managed:0")
    assert str(y.device) == "cuda_managed:0" and y.__dlpack_device__() == (DLDeviceType.CUDA_MANAGED, 0)
    assert "cuda.malloc_managed" in cupy.calls
    np.testing.assert_array_equal(np.asarray(y.to_device("cpu")), np.arange(3.0))
    assert str(y[1:].device) == "cuda_managed:0"  # a view of it is managed memory too
    assert str((y + 1).device) == "cuda:0"  # new memory cupy allocates is the GPU's
    capsule = x.__dlpack__(dl_device=(int(DLDeviceType.CUDA_MANAGED), 0), max_version=(1, 0))
    assert dlarray.from_dlpack(capsule).device == y.device


@pytest.mark.parametrize("made_by", ["to_device", "an import"])
def test_views_cupy_makes_of_managed_memory_are_managed_memory(cupy: Any, made_by: str) -> None:
    """reshape, flip, permute_dims... of a managed array are cupy views of its memory: managed
    memory, on the array's device, as dlarray's own slices are (they were placed on cuda:0, so
    that ``y + xp.flip(y)`` raised 'arrays are on different devices')."""
    x = dlarray.asarray(np.arange(6.0), device="cuda:0")
    if made_by == "to_device":
        y = x.to_device("cuda_managed:0")
    else:
        y = dlarray.from_dlpack(x.__dlpack__(dl_device=(int(DLDeviceType.CUDA_MANAGED), 0), max_version=(1, 0)))
    for view in (dlarray.reshape(y, (2, 3)), dlarray.flip(y), dlarray.reshape(y, (3, 2)).mT,
                 dlarray.permute_dims(dlarray.reshape(y, (2, 3)), (1, 0))[1:]):
        assert str(view.device) == "cuda_managed:0" and not view.readonly
    np.testing.assert_array_equal(np.asarray((y + dlarray.flip(y)).to_device("cpu")), np.full(6, 5.0))


def test_copies_of_managed_memory_are_managed_memory(cupy: Any) -> None:
    """asarray/astype(copy=True), from_dlpack(copy=True) and __dlpack__(copy=True) copy on the
    array's device: for a cuda_managed array, into managed memory (cupy's own copy allocates device
    memory, which was labelled cuda:0; the capsule then named CUDA while __dlpack_device__ said
    CUDA_MANAGED)."""
    y = dlarray.asarray(np.arange(4.0)[::-1]).to_device("cuda_managed:0")[::2]
    cupy.calls.clear()
    copies = [dlarray.asarray(y, copy=True), dlarray.astype(y, dlarray.float64, copy=True),
              dlarray.from_dlpack(y, copy=True), dlarray.from_dlpack(y.__dlpack__(copy=True, max_version=(1, 0)))]
    assert cupy.calls.count("cuda.malloc_managed") == 4
    for copied in copies:
        assert str(copied.device) == "cuda_managed:0" and copied.data_ptr != y.data_ptr
        assert copied.strides == (1,) and not copied.readonly
        np.testing.assert_array_equal(np.asarray(copied.to_device("cpu")), [3.0, 1.0])
