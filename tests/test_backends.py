"""The backends: one per device kind, and the CUDA one checked against a fake cupy module.

The fake records what the CUDA backend asks of cupy (the memory it wraps, the pointer offset, the
shape, dtype and byte strides of the view, the devices and streams it enters); it never reaches a
CUDA driver (the driver state is set to "none", so stream ordering has nothing to order).
"""

from __future__ import annotations

import sys
import types
from typing import Any

import numpy as np
import pytest
from producer import make_capsule

import dlarray
from dlarray import _backend, _cuda
from dlarray._backend import BackendUnavailable, backend_for
from dlarray._dlpack import FLAG_READ_ONLY, DLDeviceType
from dlarray.testing import read_capsule

CUDA = (int(DLDeviceType.CUDA), 0)


def test_each_device_kind_has_one_backend() -> None:
    cpu = dlarray.Device("cpu")
    assert backend_for(cpu) is _backend.HOST and backend_for(cpu).xp is np
    assert backend_for(dlarray.Device("cuda:0")) is _backend.CUDA
    assert backend_for(dlarray.Device("cuda_managed:0")) is _backend.CUDA
    assert backend_for(dlarray.Device("cuda_host:0")).xp is np
    assert backend_for(dlarray.Device("rocm:0")) is _backend.ROCM
    assert not backend_for(dlarray.Device("vulkan:0")).computes
    with pytest.raises(BackendUnavailable):
        backend_for(dlarray.Device("vulkan:0")).xp


def test_host_readable_kinds_are_the_host_and_managed_memory() -> None:
    readable = {str(d) for d in (dlarray.Device(k) for k in
                ("cpu", "cuda_host:0", "rocm_host:0", "cuda_managed:0", "cuda:0", "rocm:0")) if d.host_accessible}
    assert readable == {"cpu", "cuda_host:0", "rocm_host:0", "cuda_managed:0"}


class _FakeCupy(types.ModuleType):
    """Just what the CUDA backend calls, recording the calls."""

    def __init__(self) -> None:
        super().__init__("cupy")
        self.calls: list[tuple[Any, ...]] = []
        calls = self.calls

        class Device:
            def __init__(self, index: int) -> None:
                self.index = index

            def __enter__(self) -> None:
                calls.append(("device", self.index))

            def __exit__(self, *exc: Any) -> None:
                pass

        class UnownedMemory:
            def __init__(self, ptr: int, size: int, owner: Any, device_id: int) -> None:
                calls.append(("memory", ptr, size, owner, device_id))
                self.ptr = ptr

        class MemoryPointer:
            def __init__(self, mem: Any, offset: int) -> None:
                calls.append(("pointer", mem.ptr, offset))
                self.ptr = mem.ptr + offset

        class ndarray:  # noqa: N801 - cupy's name
            def __init__(self, shape: Any, dtype: Any, memptr: Any, strides: Any) -> None:
                calls.append(("ndarray", tuple(shape), np.dtype(dtype), memptr.ptr, tuple(strides)))
                self.shape, self.dtype = tuple(shape), np.dtype(dtype)
                self.data = types.SimpleNamespace(ptr=memptr.ptr, device_id=0)

            def get(self, stream: Any = None) -> np.ndarray:  # the copy to the host: a value the test can recognise
                calls.append(("get", stream.ptr))
                return np.full(self.shape, 2.5, dtype=self.dtype)

        class _Stream:
            ptr = 0

        cuda = types.SimpleNamespace(
            Device=Device, UnownedMemory=UnownedMemory, MemoryPointer=MemoryPointer,
            get_current_stream=lambda device_id=-1: _Stream(), stream=types.SimpleNamespace(),
            runtime=types.SimpleNamespace(getDeviceCount=lambda: 1),
        )
        self.cuda = cuda
        self.ndarray = ndarray


@pytest.fixture
def fake_cupy(monkeypatch: pytest.MonkeyPatch) -> _FakeCupy:
    fake = _FakeCupy()
    monkeypatch.setitem(sys.modules, "cupy", fake)
    monkeypatch.setattr(_cuda, "_driver_state", [None])  # no driver: nothing is ever ordered
    return fake


def test_cuda_view_is_made_from_the_pointer(fake_cupy: _FakeCupy) -> None:
    x = dlarray.from_dlpack(make_capsule((3, 4), device=CUDA).capsule)
    assert x.dtype == dlarray.float32
    x.device.backend.view(x)
    address = x.data_ptr
    assert ("device", 0) in fake_cupy.calls
    assert ("memory", address, 3 * 4 * 4, x._owner, 0) in fake_cupy.calls
    assert ("pointer", address, 0) in fake_cupy.calls
    assert ("ndarray", (3, 4), np.dtype(np.float32), address, (16, 4)) in fake_cupy.calls


def test_cuda_view_of_a_reversed_view_spans_the_memory_below_its_first_element(fake_cupy: _FakeCupy) -> None:
    x = dlarray.from_dlpack(make_capsule((5,), device=CUDA).capsule)
    base = x.data_ptr
    reversed_view = x._view(x._offset + 4 * 4, (5,), (-1,))  # what x[::-1] describes
    assert reversed_view.data_ptr == base + 4 * 4
    x.device.backend.view(reversed_view)
    assert ("memory", base, 5 * 4, x._owner, 0) in fake_cupy.calls
    assert ("pointer", base, 16) in fake_cupy.calls
    assert ("ndarray", (5,), np.dtype(np.float32), base + 16, (-4,)) in fake_cupy.calls


def test_cuda_view_refuses_dtypes_cupy_lacks(fake_cupy: _FakeCupy) -> None:
    bf16 = dlarray.from_dlpack(make_capsule((2,), code=4, bits=16, device=CUDA).capsule)
    assert bf16.dtype == dlarray.bfloat16
    with pytest.raises(BackendUnavailable, match="bfloat16"):
        bf16.device.backend.view(bf16)
    assert not any(call[0] == "memory" for call in fake_cupy.calls)


def test_cuda_stream_rules_belong_to_the_cuda_backends() -> None:
    cuda = dlarray.Device("cuda:0").backend
    assert cuda.consumer_stream(dlarray.Device("cuda:0"), None) == _cuda.LEGACY_DEFAULT_STREAM
    with pytest.raises(ValueError, match="ambiguous"):
        cuda.consumer_stream(dlarray.Device("cuda:0"), 0)
    with pytest.raises(BufferError, match="must be None"):
        dlarray.Device("cpu").backend.consumer_stream(dlarray.Device("cpu"), 1)
    assert dlarray.Device("cuda_host:0").backend.consumer_stream(dlarray.Device("cuda_host:0"), 2) is None


def test_results_are_wrapped_by_their_backend() -> None:
    native = np.arange(3.0)
    x = dlarray._array.wrap(native)
    assert x.device == dlarray.Device("cpu") and x._stream == _cuda.LEGACY_DEFAULT_STREAM
    assert _backend.backend_of_native(native) is _backend.HOST
    assert _backend.backend_of_native([1, 2]) is None
    assert int(DLDeviceType.CPU) == x.__dlpack_device__()[0]


def test_cuda_values_are_read_through_a_host_copy(fake_cupy: _FakeCupy) -> None:
    """bool/int/float/complex and repr read a CUDA array's value (as cupy and torch do)."""
    x = dlarray.from_dlpack(make_capsule((), device=CUDA).capsule)
    assert float(x) == 2.5 and bool(x) and complex(x) == 2.5
    assert "2.5" in repr(x)
    assert ("get", 0) in fake_cupy.calls  # on cupy's current stream of the array's device


def test_every_way_of_making_an_array_describes_its_buffer() -> None:
    """Arrays made every way (results, imports, slices, views by metadata, stored-only dtypes,
    reversed and read-only views) tell their pointer, shape, strides and read-only flag as the
    memory's own description says, and export a capsule with the same fields, however their
    description was first read (at import, or from the backend result when asked for)."""
    base = np.arange(12.0).reshape(3, 4)
    frozen = base.copy()
    frozen.flags.writeable = False
    made = [
        (dlarray._array.wrap(base), base),  # a backend result
        (dlarray.from_dlpack(base), base),  # an import
        (dlarray.from_dlpack(frozen), frozen),  # a read-only import
        (dlarray.asarray(base)[1:], base[1:]),  # a slice of a result
        (dlarray.asarray(base)[::-1, 1], base[::-1, 1]),  # a reversed view
        (dlarray.asarray(base).mT, base.T),  # a view
        (dlarray.broadcast_to(dlarray.asarray(base[0]), (3, 4)), np.broadcast_to(base[0], (3, 4))),  # read-only result
    ]
    for array, expected in made:
        assert array.data_ptr == expected.ctypes.data
        assert array.shape == expected.shape
        assert array.strides == tuple(s // expected.itemsize for s in expected.strides)
        assert array.readonly is (not expected.flags.writeable)
        fields = read_capsule(array.__dlpack__(max_version=(1, 0)))
        assert (fields.data + fields.byte_offset, fields.shape, fields.strides) == (
            array.data_ptr, array.shape, array.strides)
        assert bool(fields.flags & FLAG_READ_ONLY) is array.readonly
    bits = dlarray.ones((2, 3), dtype=dlarray.bfloat16)[:, ::2]  # stored-only: a view by metadata
    assert bits.shape == (2, 2) and bits.strides == (3, 2) and not bits.readonly
    assert dlarray.asarray(bits, copy=True).strides == (2, 1)
