"""dlarray on a real CUDA GPU: zero-copy hand-offs, stream ordering, copies, compute with cupy.

Skipped without cupy or without a GPU (see conftest.py). ``make test-gpu`` runs this folder;
``make conformance-cuda`` runs the Array API conformance suite with CUDA as the default device.
"""

from __future__ import annotations

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")
torch = pytest.importorskip("torch")

import dlarray as xp  # noqa: E402
from dlarray import _cuda  # noqa: E402
from dlarray._dlpack import FLAG_IS_COPIED, consume_capsule  # noqa: E402

# A kernel that keeps the GPU busy for a while on the current stream (torch's test helper), so
# that a reader on another stream that did not wait would see the old values.
SPIN_CYCLES = 200_000_000


def test_pointer_kept_through_torch_dlarray_cupy_torch() -> None:
    t = torch.arange(1 << 20, dtype=torch.float32, device="cuda")
    x = xp.from_dlpack(t)
    assert x.data_ptr == t.data_ptr() and str(x.device) == "cuda:0"
    c = cupy.from_dlpack(x)
    assert c.data.ptr == t.data_ptr()
    back = torch.from_dlpack(xp.from_dlpack(c))
    assert back.data_ptr() == t.data_ptr() and back.device == t.device
    view = x[1::2]
    assert torch.from_dlpack(view).data_ptr() == t.data_ptr() + 4


def test_cuda_array_interface_round_trip() -> None:
    c = cupy.arange(12, dtype=cupy.float64).reshape(3, 4)
    x = xp.asarray(c)
    assert x.data_ptr == c.data.ptr
    interface = x.mT.__cuda_array_interface__
    assert interface["data"][0] == c.data.ptr and interface["strides"] == (8, 32)
    assert interface["stream"] == 1


def test_import_waits_for_the_producers_stream() -> None:
    """torch writes on its own stream; a cupy reader on a non-blocking stream sees the writes."""
    n = 1 << 22
    t = torch.zeros(n, device="cuda")
    torch.cuda.synchronize()
    producer = torch.cuda.Stream()
    with torch.cuda.stream(producer):
        torch.cuda._sleep(SPIN_CYCLES)
        t.fill_(7.0)
        x = xp.from_dlpack(t)  # torch orders its current stream onto the legacy default one
    with cupy.cuda.Stream(non_blocking=True) as consumer:
        total = cupy.from_dlpack(x).sum()  # dlarray orders the legacy stream onto this one
        consumer.synchronize()
    assert float(total) == 7.0 * n


def test_export_orders_a_cupy_result_onto_the_consumers_stream() -> None:
    """dlarray computes on a cupy stream; torch reads on another stream and sees the result."""
    n = 1 << 22
    x = xp.from_dlpack(torch.ones(n, device="cuda"))
    torch.cuda.synchronize()
    with cupy.cuda.Stream(non_blocking=True) as compute:
        torch_stream_spin = torch.cuda.ExternalStream(compute.ptr)
        with torch.cuda.stream(torch_stream_spin):
            torch.cuda._sleep(SPIN_CYCLES)  # keeps the compute stream busy
        y = xp.multiply(x, 3.0)
        assert y.__cuda_array_interface__["stream"] == compute.ptr
    reader = torch.cuda.Stream()
    with torch.cuda.stream(reader):
        total = torch.from_dlpack(y).sum()  # torch passes reader's pointer as stream=
    reader.synchronize()
    assert float(total) == 3.0 * n


def test_values_are_read_after_the_stream_that_computed_them() -> None:
    """float() of a result computed on a busy non-blocking stream, read outside its block (on the
    null stream, which does not wait for a non-blocking stream by itself): the read waits."""
    n = 1 << 22
    x = xp.from_dlpack(torch.ones(n, device="cuda"))
    torch.cuda.synchronize()
    compute = cupy.cuda.Stream(non_blocking=True)
    with compute:
        with torch.cuda.stream(torch.cuda.ExternalStream(compute.ptr)):
            torch.cuda._sleep(SPIN_CYCLES)
        total = xp.sum(xp.multiply(x, 3.0))
    assert total._stream == compute.ptr
    assert float(total) == 3.0 * n


def test_a_result_outlives_the_stream_that_computed_it() -> None:
    """cupy destroys a Stream's handle with the object: reading the result afterwards must not
    hand that handle to the driver."""
    import gc

    x = xp.asarray(np.ones(1 << 20, dtype=np.float32), device="cuda:0")

    def on_a_temporary_stream() -> xp.Array:
        with cupy.cuda.Stream(non_blocking=True):
            return xp.sum(x * 2.0)

    total = on_a_temporary_stream()
    gc.collect()
    assert float(total) == 2.0 * (1 << 20)


def test_explicit_order_between_two_streams() -> None:
    first = cupy.cuda.Stream(non_blocking=True)
    second = cupy.cuda.Stream(non_blocking=True)
    a = cupy.zeros(1 << 22, dtype=cupy.float32)
    cupy.cuda.Device().synchronize()
    with torch.cuda.stream(torch.cuda.ExternalStream(first.ptr)):
        torch.cuda._sleep(SPIN_CYCLES)
    with first:
        a.fill(5.0)
    assert _cuda.order(first.ptr, second.ptr, 0) is True
    with second:
        total = a.sum()
    second.synchronize()
    assert float(total) == 5.0 * a.size


def test_stream_zero_is_refused_on_a_real_gpu() -> None:
    x = xp.from_dlpack(torch.ones(3, device="cuda"))
    with pytest.raises(ValueError, match="stream=0"):
        x.__dlpack__(stream=0)


@pytest.mark.parametrize("dtype", ["float32", "int64", "complex64", "bool"])
def test_copies_between_host_and_gpu(dtype: str) -> None:
    host = np.arange(24).reshape(4, 6).astype(dtype)
    on_gpu = xp.asarray(host, device="cuda:0")
    assert str(on_gpu.device) == "cuda:0"
    back = on_gpu[:, ::2].to_device("cpu")
    np.testing.assert_array_equal(np.asarray(back), host[:, ::2])
    capsule = on_gpu.__dlpack__(dl_device=(1, 0), max_version=(1, 3))
    info, _owner = consume_capsule(capsule)
    assert info.flags & FLAG_IS_COPIED and info.device_type == 1
    with pytest.raises(BufferError, match="copy=False"):
        on_gpu.__dlpack__(dl_device=(1, 0), copy=False, max_version=(1, 3))


def test_bfloat16_travels_bit_for_bit() -> None:
    t = torch.linspace(-3, 3, 64, device="cuda", dtype=torch.bfloat16)
    x = xp.from_dlpack(t)
    host = x.to_device("cpu")
    assert host.dtype == xp.bfloat16 and str(host.device) == "cpu"
    expected = t.cpu().view(torch.int16).numpy()
    assert torch.from_dlpack(host).view(torch.int16).numpy().tobytes() == expected.tobytes()
    again = host.to_device("cuda:0")
    assert torch.equal(torch.from_dlpack(again), t)


def test_copy_to_device_on_an_explicit_stream() -> None:
    stream = cupy.cuda.Stream(non_blocking=True)
    x = xp.asarray(np.arange(10.0)).to_device("cuda:0", stream=stream.ptr)
    assert x._stream == stream.ptr  # the copy's stream, which exports make their consumers wait for
    stream.synchronize()
    np.testing.assert_array_equal(np.asarray(x.to_device("cpu", stream=stream)), np.arange(10.0))


@pytest.mark.parametrize("source", ["cpu", "cuda:0"])
def test_a_copy_to_managed_memory_is_managed_memory(source: str) -> None:
    x = xp.asarray(np.arange(8.0), device=source)
    y = x.to_device("cuda_managed:0")
    assert str(y.device) == "cuda_managed:0"
    # the driver's word on the memory kind (dlarray wraps the allocation, marked as managed)
    managed = cupy.cuda.runtime.memoryTypeManaged
    assert cupy.cuda.runtime.pointerGetAttributes(y.data_ptr).type == managed
    np.testing.assert_array_equal(np.asarray(y.to_device("cpu")), np.arange(8.0))
    for view_or_copy in (xp.flip(y), xp.reshape(y, (2, 4)), xp.asarray(y, copy=True)):
        assert str(view_or_copy.device) == "cuda_managed:0"
        assert cupy.cuda.runtime.pointerGetAttributes(view_or_copy.data_ptr).type == managed
    np.testing.assert_array_equal(np.asarray((y + xp.flip(y)).to_device("cpu")), np.full(8, 7.0))


def _gpu_count() -> int:
    """The GPUs cupy reaches; 0 where it reaches none (cupy raises its CUDA error without a driver,
    at collection, where conftest.py skips this folder)."""
    try:
        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # noqa: BLE001 - cupy's CUDARuntimeError
        return 0


@pytest.mark.skipif(_gpu_count() < 2, reason="needs two GPUs")
def test_copy_between_two_gpus() -> None:
    x = xp.asarray(np.arange(16.0), device="cuda:0")
    y = x.to_device("cuda:1")
    assert str(y.device) == "cuda:1"
    np.testing.assert_array_equal(np.asarray(y.to_device("cpu")), np.arange(16.0))


def test_namespace_computes_on_the_gpu() -> None:
    t = torch.randn(64, 64, device="cuda", dtype=torch.float64)
    x = xp.from_dlpack(t)
    results = {
        "sin": (xp.sin(x), torch.sin(t)),
        "matmul": (x @ x.mT, t @ t.mT),
        "sum": (xp.sum(x, axis=0), t.sum(0)),
        "where": (xp.where(x > 0, x, 0.0), torch.where(t > 0, t, 0.0)),
        "sort": (xp.sort(x, axis=1), torch.sort(t, dim=1).values),
    }
    for name, (ours, theirs) in results.items():
        assert str(ours.device) == "cuda:0", name
        torch.testing.assert_close(torch.from_dlpack(ours), theirs, msg=name)
    assert str(xp.ones(3, device="cuda:0").device) == "cuda:0"
    assert xp.__array_namespace_info__().devices()[1] == xp.Device("cuda:0")


def test_read_only_is_kept_on_the_gpu() -> None:
    t = torch.arange(4.0, device="cuda")

    class ReadOnlyDeviceBuffer:
        __cuda_array_interface__ = {"version": 3, "shape": (4,), "typestr": "<f4",
                                    "data": (t.data_ptr(), True), "strides": None, "stream": 1}

    x = xp.asarray(ReadOnlyDeviceBuffer())
    assert x.readonly and x.data_ptr == t.data_ptr()
    with pytest.raises(ValueError, match="read-only"):
        x[0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        x += 1.0
    for view in (x[1:], xp.reshape(x, (2, 2)).mT, x[None][:, ::-1]):  # cupy's views: no flag of their own
        assert view.readonly
        with pytest.raises(ValueError, match="read-only"):
            view[...] = 1.0
    assert torch.equal(t, torch.arange(4.0, device="cuda"))
    y = xp.asarray(x, copy=True)
    assert not y.readonly and str(y.device) == "cuda:0" and y.data_ptr != x.data_ptr
