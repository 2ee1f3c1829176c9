"""Tensors at the edges of what DLPack describes, imported and exported right.

Geometries the fast acceptance test takes and ones only the general checks decide on, extents
that pass 64 bits only when counted in bytes, an empty tensor numpy cannot describe, views that
start below the data pointer, complex128 off the host, and devices kept through views and exports.
"""

from __future__ import annotations

import gc
import os
import tracemalloc
from typing import Any

import numpy as np
import producer
import pytest
from producer import device_as_read, make_capsule, poison_address, untouched_data

import dlarray
from dlarray._dlpack import (
    consume_capsule,
)

INT64_MAX = (1 << 63) - 1


# Geometries the bound test accepts (ordinary) and ones only the general checks decide on: each is
# imported twice, so the second import of an n-dimensional one is answered by the geometry cache.
GEOMETRIES = [
    ((5,), (1,)), ((0,), (1,)), ((), ()), ((3, 4), (4, 1)), ((3, 4), (1, 3)), ((2, 3, 4), (12, 4, 1)),
    ((2, 3, 4), (0, 0, 0)), ((4, 0, 2), (0, 2, 1)), ((3, 4), (-4, 1)), ((2, 2), (1 << 45, 1)),
    ((1 << 41, 1), (1, 1)), ((2, 3, 224, 224), (150528, 50176, 224, 1)),
]


@pytest.mark.parametrize("through", ["capsule", "exchange"])
@pytest.mark.parametrize(("shape", "strides"), GEOMETRIES)
def test_every_geometry_imports_the_same_twice(shape: tuple[int, ...], strides: tuple[int, ...], through: str) -> None:
    """Fast acceptance and the general checks agree, the first time and the cached second time."""
    data = poison_address()  # never touched: only metadata is checked
    for _ in range(2):
        if through == "capsule":
            made = make_capsule(shape, strides=strides, data_address=data, data_bytes=1)
            x = dlarray.from_dlpack(made.capsule)
        else:
            source = producer.ExchangeProducer(shape=shape, strides=strides, data_address=data, data_bytes=1)
            x = dlarray.from_dlpack(source)
            [made] = source.exchanged
        assert (x.shape, x.strides, x.data_ptr) == (shape, strides, data)
        assert made.deleted == 0
        del x
        assert made.deleted == 1


def _dlarray_allocations() -> int:
    """Bytes allocated from dlarray's own files that are still alive (tracemalloc must be on)."""
    package = os.path.dirname(dlarray.__file__)
    only_dlarray = [tracemalloc.Filter(True, os.path.join(package, "*")),
                    tracemalloc.Filter(False, os.path.join(package, "testing", "*"))]
    snapshot = tracemalloc.take_snapshot().filter_traces(only_dlarray)
    return sum(stat.size for stat in snapshot.statistics("filename"))


def test_importing_ever_new_geometries_keeps_memory_bounded() -> None:
    """What dlarray remembers of the geometries it accepted stays bounded: importing 10,000 shapes
    it never saw holds under 2 MiB of dlarray's memory at every step, and no more at the end than
    after the first 2,500 (give or take 1 MiB). Remembering every shape would hold ~260 bytes a
    shape: 2.6 MB at 10,000, growing with each step."""
    data = poison_address()
    shape_count = 0

    def import_new_shapes(count: int) -> None:
        nonlocal shape_count
        for _ in range(count):
            shape_count += 1
            made = make_capsule((2, shape_count), strides=(shape_count, 1), data_address=data, data_bytes=1)
            x = dlarray.from_dlpack(made.capsule)
            assert x.shape == (2, shape_count)
            del x
            assert made.deleted == 1

    import_new_shapes(500)  # imports, caches of dlarray's own modules, warmed up
    tracemalloc.start(1)
    try:
        baseline = _dlarray_allocations()
        held = []
        for _ in range(4):
            import_new_shapes(2500)
            gc.collect()
            held.append(_dlarray_allocations() - baseline)
    finally:
        tracemalloc.stop()
    assert max(held) < 2 * 1024 * 1024, held
    assert held[-1] < held[0] + 1024 * 1024, held


@pytest.mark.parametrize("fields", [
    {"shape": (3,), "strides": (2**61,), "code": 2, "bits": 64},  # byte stride 2**64
    {"shape": (3,), "byte_offset": 2**64 - 8},  # data + byte_offset wraps around
    {"shape": (2**31, 2**31), "code": 2, "bits": 32},  # 2**62 elements, 2**64 bytes
    {"shape": (0, 3), "strides": (2**62, 2**62)},  # empty: strides are irrelevant
    {"shape": (1, 2), "strides": (INT64_MAX, 1)},  # extent 1: that stride is irrelevant
], ids=["byte-stride", "offset-wraps", "nbytes", "empty-huge-strides", "extent1-huge-stride"])
def test_byte_overflow_is_refused_or_usable(fields: dict[str, Any]) -> None:
    """Extents are checked in bytes: refused naming the field, or accepted and then usable."""
    made = make_capsule(data_bytes=64, **fields)
    try:
        x = dlarray.from_dlpack(made.capsule)
    except BufferError as exc:
        assert any(w in str(exc) for w in ("strides", "shape", "byte_offset", "overflow"))
        return
    np.asarray(x)
    consume_capsule(x.__dlpack__(max_version=(1, 3)))


@pytest.mark.parametrize("device", [(3, 0), (11, 2), (1, 7)], ids=["cuda_host", "rocm_host:2", "cpu:7"])
def test_export_keeps_device_after_a_host_view(device: tuple[int, int]) -> None:
    """Once numpy has viewed the memory, exports still name the array's own device."""
    made = make_capsule((4,), device=device)
    x = dlarray.from_dlpack(made.capsule)
    np.asarray(x)  # caches the host view
    info, _ = consume_capsule(x.__dlpack__(max_version=(1, 3)))
    assert (info.device_type, info.device_id) == tuple(x.__dlpack_device__()) == device_as_read(device)


@pytest.mark.parametrize("device", [(3, 0), (11, 1)], ids=["cuda_host", "rocm_host:1"])
def test_views_keep_the_device(device: tuple[int, int]) -> None:
    made = make_capsule((4, 4), device=device)
    x = dlarray.from_dlpack(made.capsule)
    assert x[1:].device == x.device
    assert dlarray.permute_dims(x, (1, 0)).device == x.device


def test_cpu_device_id_is_coherent() -> None:
    """A CPU device_id other than 0 is read as 0: one host device, arrays mix freely."""
    made = make_capsule((2,), device=(1, 7))
    x = dlarray.from_dlpack(made.capsule)
    assert x.device == dlarray.Device("cpu")
    assert (x + dlarray.ones(2)).shape == (2,)


@pytest.mark.parametrize("device", [(2, 0), (10, 0), (3, 0)], ids=["cuda", "rocm", "cuda_host"])
def test_complex128_exports_from_any_device(device: tuple[int, int]) -> None:
    """complex128 has no same-width unsigned numpy type: the stand-in view still exports."""
    made = make_capsule((3,), code=5, bits=128, device=device,
                        data_address=untouched_data(device[0]), data_bytes=1)
    x = dlarray.from_dlpack(made.capsule)
    info, _ = consume_capsule(x.__dlpack__(max_version=(1, 3)))
    assert (info.dtype_code, info.dtype_bits, info.device_type) == (5, 128, device[0])


@pytest.mark.parametrize(("code", "bits", "device"), [(4, 16, (1, 0)), (2, 32, (2, 0))],
                         ids=["bfloat16-cpu", "float32-cuda"])
def test_reversed_view_exports_a_valid_byte_offset(code: int, bits: int, device: tuple) -> None:
    """A view starting below the data pointer folds the offset into data (byte_offset unsigned)."""
    # element 0 at `data`, the others below it (as numpy and cupy export a reversed array)
    made = make_capsule((3,), strides=(-1,), code=code, bits=bits, device=device,
                        data_address=untouched_data(device[0]), data_bytes=1)
    view = dlarray.from_dlpack(made.capsule)[::-1]
    info, _ = consume_capsule(view.__dlpack__(max_version=(1, 3)))
    assert info.byte_offset < 2**63
    assert info.data_ptr == view.data_ptr


@pytest.mark.parametrize("device", [(1, 0), (8, 0)], ids=["cpu", "metal"])
def test_empty_tensor_numpy_cannot_describe(device: tuple[int, int]) -> None:
    made = make_capsule((2**40, 3, 2**40, 0, 3), code=0, bits=32, device=device, data_bytes=1)
    try:
        x = dlarray.from_dlpack(made.capsule)
    except BufferError as exc:
        assert "shape" in str(exc)
        return
    info, _ = consume_capsule(x.__dlpack__(max_version=(1, 3)))
    assert info.shape == x.shape
