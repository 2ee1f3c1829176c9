"""Exporting CUDA arrays: the fast path of ``__dlpack__`` gives what the general path gives.

The common CUDA export (versioned, no copy, no ``dl_device``, a stream DLPack defines) skips the
general path's argument checks; it must still give the same capsule (name, version, flags, pointer,
device, dtype, shape, strides), make the same driver calls (the consumer's stream waits for the
data's), keep the memory alive as long as the capsule, and refuse what the general path refuses.
The general path is reached here by naming the array's own device as ``dl_device`` (no copy, the
same export otherwise). No GPU: the arrays are synthetic CUDA tensors, or results of
tests/numpy_cupy.py; the driver is the recording stand-in of test_cuda_streams.
"""

from __future__ import annotations

import gc
import weakref
from typing import Any

import numpy as np
import numpy_cupy
import pytest
from producer import make_capsule
from test_cuda_streams import CONSUMER_STREAM, PRODUCER_STREAM, RecordingDriver, install

import dlarray
from dlarray import _cuda
from dlarray._dlpack import DLDeviceType
from dlarray.testing import read_capsule

CUDA = (int(DLDeviceType.CUDA), 0)
MANAGED = (int(DLDeviceType.CUDA_MANAGED), 0)
READ_ONLY = 1
STREAMS = [None, 1, 2, -1, CONSUMER_STREAM]


def imported(shape: tuple[int, ...] = (3, 4), **fields: Any) -> dlarray.Array:
    fields.setdefault("device", CUDA)
    return dlarray.from_dlpack(make_capsule(shape, **fields).capsule)


ARRAYS = {
    "imported": lambda: imported(),
    "read-only": lambda: imported(flags=READ_ONLY),
    "byte offset": lambda: imported(byte_offset=64, data_bytes=64 + 48),
    "strided": lambda: imported((3, 2), strides=(1, 3)),
    "0-d": lambda: imported(()),
    "empty": lambda: imported((0, 5)),
    "float16": lambda: imported(bits=16),
    "bool": lambda: imported(code=6, bits=8),
    "complex128": lambda: imported(code=5, bits=128),
    "bfloat16 (no numpy dtype)": lambda: imported(code=4, bits=16),
    "managed memory": lambda: imported(device=MANAGED),
    "slice view": lambda: imported((6, 6))[1:, ::2].mT,
    "on a producer stream": lambda: _on_stream(imported(), PRODUCER_STREAM),
}


def _on_stream(x: dlarray.Array, stream: int) -> dlarray.Array:
    x._stream = stream  # as cupy leaves a result computed on a non-default stream
    return x


def fields(capsule: Any) -> tuple[Any, ...]:
    """What a consumer reads from a capsule (the address it describes, not how it splits it)."""
    view = read_capsule(capsule)
    return (view.name, view.version, view.flags, view.data + view.byte_offset, view.device, view.ndim,
            view.dtype, view.shape, view.strides)


def general(x: dlarray.Array, **arguments: Any) -> Any:
    """The general path's export with the same arguments: dl_device names the array's own device."""
    return x.__dlpack__(dl_device=x.__dlpack_device__(), **arguments)


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize("kind", list(ARRAYS))
def test_fast_export_gives_the_general_paths_capsule_and_driver_calls(
    monkeypatch: pytest.MonkeyPatch, kind: str, stream: Any,
) -> None:
    x = ARRAYS[kind]()
    recorded = []
    for export in (x.__dlpack__, lambda **arguments: general(x, **arguments)):
        driver = install(monkeypatch, RecordingDriver())
        for max_version in ((1, 0), (1, 3), (2, 0)):
            recorded.append((fields(export(stream=stream, max_version=max_version)), driver.calls))
    fast, slow = recorded[:3], recorded[3:]
    assert fast == slow
    # and both describe the Array: its address, device, ndim, dtype (lanes 1), shape and strides
    # (a 0-d array's strides may be NULL)
    described = fast[0][0]
    assert described[3:8] == (x.data_ptr, x.__dlpack_device__(), x.ndim, (x.dtype.code, x.dtype.bits, 1),
                              x.shape)
    assert described[8] == x.strides or (x.ndim == 0 and described[8] is None)


@pytest.mark.parametrize("copy", [None, False, np.False_])
def test_copy_none_or_false_exports_the_same_memory(copy: Any) -> None:
    x = imported()
    assert fields(x.__dlpack__(max_version=(1, 0), copy=copy)) == fields(general(x, max_version=(1, 0)))


def test_read_only_flag_is_exported_and_legacy_export_refused() -> None:
    x = imported(flags=READ_ONLY)
    assert read_capsule(x.__dlpack__(max_version=(1, 0), stream=CONSUMER_STREAM)).flags & READ_ONLY
    with pytest.raises(BufferError, match="read-only"):
        x.__dlpack__(stream=CONSUMER_STREAM)  # legacy: the flag cannot be expressed


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({"stream": 0}, ValueError),
        ({"stream": -2}, ValueError),
        ({"stream": True}, TypeError),
        ({"stream": 1.0}, TypeError),
        ({"max_version": [1, 0]}, TypeError),
        ({"max_version": (1, -1)}, ValueError),
        ({"max_version": (True, 0)}, TypeError),
        ({"copy": "no"}, TypeError),
        ({"copy": False, "dl_device": (1, 0)}, BufferError),
    ],
)
def test_arguments_the_general_path_refuses_are_refused(arguments: dict[str, Any], error: type) -> None:
    arguments = {"max_version": (1, 0), **arguments}
    with pytest.raises(error):
        imported().__dlpack__(**arguments)


def test_repeated_exports_describe_the_same_memory_and_hold_only_the_memory() -> None:
    """Every export of an array describes the same memory alike, whatever the stream; the capsules
    keep the memory alive, not the Array (which goes when its last reference does)."""
    made = make_capsule((4,), device=CUDA)
    x = dlarray.from_dlpack(made.capsule)
    first = x.__dlpack__(max_version=(1, 0))
    second = x.__dlpack__(max_version=(1, 0), stream=CONSUMER_STREAM)
    third = x.__dlpack__(max_version=(1, 0))
    assert fields(first) == fields(second) == fields(third)
    assert fields(first)[3] == x.data_ptr
    array_alive = weakref.ref(x)
    del x, third
    gc.collect()
    assert array_alive() is None  # the exports did not keep the Array
    assert made.deleted == 0  # the capsules hold the memory
    del first
    gc.collect()
    assert made.deleted == 0
    del second
    gc.collect()
    assert made.deleted == 1  # exactly once, when the last capsule went


def test_an_exported_capsule_outlives_its_array_and_is_imported_over_the_same_memory() -> None:
    made = make_capsule((2, 3), device=CUDA)
    x = dlarray.from_dlpack(made.capsule)
    pointer = x.data_ptr
    capsule = x.__dlpack__(max_version=(1, 0), stream=CONSUMER_STREAM)
    del x
    gc.collect()
    y = dlarray.from_dlpack(capsule)
    del capsule
    gc.collect()
    assert (y.data_ptr, y.shape, str(y.device)) == (pointer, (2, 3), "cuda:0") and made.deleted == 0
    del y
    gc.collect()
    assert made.deleted == 1


def test_results_of_cupy_export_their_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """A result cupy computed (tests/numpy_cupy.py here): the fast path fills its metadata first."""
    monkeypatch.setattr(_cuda, "_driver_state", [None])
    numpy_cupy.install(monkeypatch)
    x = dlarray.asarray(np.arange(6.0).reshape(2, 3), device="cuda:0")
    y = x * 2
    assert y._data is None  # metadata not read yet
    exported = fields(y.__dlpack__(max_version=(1, 0)))
    assert exported == fields(general(y, max_version=(1, 0)))
    assert exported[3] == y._native.data.ptr and exported[7:] == ((2, 3), (3, 1))
