"""Reliability (issue 5): no crash on any capsule, no leak, no double free, threads, exit, read-only.

tests/test_dlpack_core.py checks the refusals and ownership rules one case at a time; this file

* fuzzes every DLTensor field through the ctypes test producer (tests/producer.py), in capsules
  and through the C exchange API, with an independent oracle of what must be accepted (metadata
  exactly as given, and usable) or refused (an error naming the field, the capsule left to its
  producer);
* reads tensors of valid but unusual geometry back, bit for bit, through every consumer;
* checks in a child process that nothing is read past the struct, past ``ndim`` entries of shape
  and strides, or at the data pointer, by putting each just before an inaccessible page;
* runs quick versions of the long checks of tests/stress/stress.py (exactly-once deleters, no
  growth of dlarray's allocations, 8 threads), and races two threads for one capsule;
* exits child interpreters holding live capsules, arrays, cycles, threads and foreign arrays;
* tries every path by which read-only memory could become writable;
* feeds from_dlpack producers that misbehave.

Every defect these tests found has been fixed; the tests stay as regressions.
"""

from __future__ import annotations

import ctypes
import gc
import importlib.util
import math
import random
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import exit_scenarios
import numpy as np
import producer
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from producer import Producer, make_capsule, poison_address

import dlarray
from dlarray._dlpack import (
    FLAG_IS_COPIED,
    FLAG_IS_SUBBYTE_TYPE_PADDED,
    FLAG_READ_ONLY,
    MAX_NDIM,
    DLDeviceType,
    capsule_name,
    consume_capsule,
)
from dlarray._dlpack._structs import VALID_BITS, VERSION_PREFIX_LAYOUT

TESTS = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("dlarray_stress", TESTS / "stress" / "stress.py")
stress = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = stress  # dataclasses look their module up there
_spec.loader.exec_module(stress)  # type: ignore[union-attr]

INT64_MAX = (1 << 63) - 1
KNOWN_DEVICES = sorted(int(d) for d in DLDeviceType)
VALID_DTYPES = sorted((code, bits) for code, allowed in VALID_BITS.items() for bits in allowed)
FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=300)


def _contiguous(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))


# Host-readable memory for tensors whose data nothing should read: pytest may print an Array
# (reading it) when a test fails. Non-host devices get an inaccessible page instead, and the
# guard-page child process below gives every device one.
_ARENA = ctypes.create_string_buffer(1 << 16)
_HOST_READABLE = {DLDeviceType.CPU, DLDeviceType.CUDA_HOST, DLDeviceType.ROCM_HOST,
                  DLDeviceType.CUDA_MANAGED}


def _untouched_data(device_type: int) -> int:
    """A data pointer that no import, view or export may dereference."""
    if device_type in _HOST_READABLE:
        return ctypes.addressof(_ARENA) + (1 << 15)
    return poison_address()


def _used_name(versioned: bool) -> bytes:
    return b"used_dltensor_versioned" if versioned else b"used_dltensor"


def _free(made: producer.Made) -> None:
    """Drop the capsule. Reference counting alone must free it: no cyclic GC (slow with torch)."""
    made.capsule = None


# ============================================================================ fuzzing every field

int32s = st.integers(-(2**31), 2**31 - 1)
int64s = st.integers(-(2**63), INT64_MAX)
edges64 = st.sampled_from([-1, 2**31, 2**32, 2**62, INT64_MAX, -(2**63)])
rarely = st.sampled_from([False] * 9 + [True])


@st.composite
def tensor_fields(draw: Any) -> dict[str, Any]:
    """Every field of a DLManagedTensor(Versioned), mostly plausible, often not."""
    shape = draw(st.one_of(
        st.lists(st.integers(0, 5), max_size=6),
        st.lists(st.one_of(st.integers(0, 5), int64s, edges64), max_size=8),
        st.lists(st.integers(1, 2), min_size=MAX_NDIM - 2, max_size=MAX_NDIM),
    ))
    ndim = len(shape)
    strides = draw(st.one_of(
        st.none(),
        st.lists(st.integers(-8, 8), min_size=ndim, max_size=ndim),
        st.lists(st.one_of(st.integers(-8, 8), int64s, edges64), min_size=ndim, max_size=ndim),
    ))
    ndim_field = draw(st.one_of(
        st.none(),  # the truth
        st.integers(0, ndim),  # a prefix of what is there: only that much may be read
        st.integers(-(2**31), -1),
        st.integers(MAX_NDIM + 1, 2**31 - 1),
    ))
    code, bits = draw(st.one_of(
        st.sampled_from(VALID_DTYPES), st.sampled_from(VALID_DTYPES),
        st.tuples(st.integers(0, 255), st.integers(0, 255)),
    ))
    return {
        "shape": tuple(shape),
        "strides": None if strides is None else tuple(strides),
        "ndim": ndim_field,
        "code": code,
        "bits": bits,
        "lanes": draw(st.one_of(st.just(1), st.just(1), st.integers(0, 65535))),
        "device": (draw(st.one_of(st.sampled_from(KNOWN_DEVICES), int32s)),
                   draw(st.one_of(st.just(0), int32s))),
        "versioned": draw(st.booleans()),
        "version": (draw(st.one_of(st.just(1), st.just(1), st.integers(0, 2**32 - 1))),
                    draw(st.integers(0, 2**32 - 1))),
        "flags": draw(st.one_of(st.just(0), st.sampled_from([1, 2, 4, 5]), st.integers(0, 2**64 - 1))),
        "byte_offset": draw(st.one_of(st.integers(0, 64), st.integers(0, 2**64 - 1))),
        "null_shape": draw(rarely),
        "null_data": draw(rarely),
    }


# Found by the fuzzers: a NULL data pointer (required refusal) beside a stride past int64 in bytes
# (allowed refusal); the consumer names the stride.
NULL_DATA_AND_HUGE_STRIDE = {
    "shape": (1, 1), "strides": (0, 2**62 - 101), "ndim": None, "code": 2, "bits": 32, "lanes": 1,
    "device": (1, 0), "versioned": True, "version": (1, 3), "flags": 0, "byte_offset": 0,
    "null_shape": False, "null_data": True,
}


def _oracle(f: dict[str, Any], data: int) -> tuple[list[set[str]], set[str], tuple | None]:
    """What the consumer must do with these fields, decided independently of dlarray.

    Returns the problems (each a set of words, one of which the error must contain), the words
    of a refusal that is allowed but not required (extents in bytes past 64 bits, addresses
    outside the address space: refusing is right, and so is accepting a tensor that then works),
    and the (shape, strides) an accepted tensor must have. The optional words hold beside the
    problems too: a tensor with a NULL data pointer and a stride past int64 in bytes may be
    refused for either.
    """
    problems: list[set[str]] = []
    if f["device"][0] not in KNOWN_DEVICES:
        problems.append({"device_type"})
    if f["lanes"] != 1:
        problems.append({"lanes"})
    if f["code"] not in VALID_BITS:
        problems.append({"code"})
    elif f["bits"] not in VALID_BITS[f["code"]]:
        problems.append({"bits"})
    if f["device"][1] < 0:
        problems.append({"device_id"})  # an ordinal: never negative, on any device
    ndim = len(f["shape"]) if f["ndim"] is None else f["ndim"]
    geometry = None
    size = None
    if not 0 <= ndim <= MAX_NDIM:
        problems.append({"ndim"})
    elif ndim and f["null_shape"]:
        problems.append({"shape"})
    else:
        shape = f["shape"][:ndim]
        if any(n < 0 for n in shape):
            problems.append({"shape", "dimension"})
        else:
            size = math.prod(shape)
            strides = _contiguous(shape) if f["strides"] is None else f["strides"][:ndim]
            span = sum(abs(s) * (n - 1) for s, n in zip(strides, shape)) if size else 0
            if size > INT64_MAX:
                problems.append({"shape"})
            elif span > INT64_MAX:
                problems.append({"strides"})
            geometry = (shape, strides, size, span)
    if f["null_data"] and size:
        problems.append({"data"})
    optional: set[str] = set()
    if geometry is not None:
        shape, strides, size, span = geometry
        itemsize = max(f["bits"] // 8, 1)
        start = data + f["byte_offset"]
        low = start + sum(s * (n - 1) * itemsize for s, n in zip(strides, shape) if s < 0 and n > 1)
        high = start + sum(s * (n - 1) * itemsize for s, n in zip(strides, shape) if s > 0 and n > 1)
        if (any(abs(s) * itemsize > INT64_MAX for s in strides) or size * itemsize > INT64_MAX
                or _nonzero_nbytes(shape, itemsize) > INT64_MAX
                or high - low > INT64_MAX or f["byte_offset"] > INT64_MAX
                or (size and (low < 0 or high + itemsize > 2**64))):
            optional = {"shape", "strides", "byte_offset", "overflow", "data", "address"}
    return problems, optional, None if geometry is None else geometry[:2]


def _nonzero_nbytes(shape: tuple[int, ...], itemsize: int) -> int:
    """Bytes numpy would need if the zero extents were 1: numpy refuses a shape where this passes
    int64, even an empty one."""
    return math.prod(n for n in shape if n) * itemsize


def _expected_device(device: tuple[int, int]) -> tuple[int, int]:
    """DLPack CPU memory has device_id 0: dlarray reads any other (non-negative) CPU id as 0."""
    return (device[0], 0) if device[0] == DLDeviceType.CPU else device


def _assert_usable(x: Any) -> None:
    """An accepted tensor can be exported again, and viewed by numpy where the host reads it."""
    if _nonzero_nbytes(x.shape, x.itemsize) > INT64_MAX:
        return  # empty, but numpy cannot describe it: test_empty_tensor_numpy_cannot_describe
    info, owner = consume_capsule(x.__dlpack__(max_version=(1, 3)))
    assert (info.data_ptr, info.shape) == (x.data_ptr, x.shape)
    del owner
    # (managed memory is computed on with cupy, not numpy: no host view without it)
    if (x.device.host_accessible and x.dtype.numpy_dtype is not None
            and x.device.type != DLDeviceType.CUDA_MANAGED):
        assert np.asarray(x).shape == x.shape  # a view: nothing is read


@FUZZ
@given(tensor_fields())
@example(NULL_DATA_AND_HUGE_STRIDE)
def test_fuzz_every_field(fields: dict[str, Any]) -> None:
    """Any field values: accepted with metadata exactly as given, or refused naming the field."""
    data = 0 if fields["null_data"] else _untouched_data(fields["device"][0])
    made = make_capsule(data_address=data, data_bytes=1, **fields)
    versioned = fields["versioned"]
    sent_name = b"dltensor_versioned" if versioned else b"dltensor"

    if versioned and fields["version"][0] != 1:
        with pytest.raises(BufferError, match="major version"):
            dlarray.from_dlpack(made.capsule)
        assert made.deleted == 1  # DLPack: call the deleter at once, read nothing else
        assert capsule_name(made.capsule) == _used_name(True)
        _free(made)
        assert made.deleted == 1
        return

    problems, optional, geometry = _oracle(fields, data)
    refusal = None
    try:
        x = dlarray.from_dlpack(made.capsule)
    except (BufferError, ValueError, TypeError) as exc:
        refusal = repr(exc)  # not the exception: its traceback would keep the capsule alive
    if refusal is not None:
        allowed = set().union(*problems, optional)
        assert allowed, f"a well-formed tensor was refused: {refusal}"
        assert any(word in refusal for word in allowed), f"{refusal} names none of {allowed}"
        assert made.deleted == 0, "a refused capsule belongs to its producer"
        assert capsule_name(made.capsule) == sent_name
        _free(made)
        assert made.deleted == 1
        return

    assert not problems, f"accepted a tensor with {problems}"
    assert geometry is not None
    assert capsule_name(made.capsule) == _used_name(versioned)
    assert x.shape == geometry[0]
    assert x.strides == geometry[1]
    assert (x.dtype.code, x.dtype.bits) == (fields["code"], fields["bits"])
    assert tuple(x.__dlpack_device__()) == _expected_device(fields["device"])
    assert x.data_ptr == data + fields["byte_offset"]
    # a legacy capsule cannot say read-only: imported read-only (as numpy does)
    assert x.readonly == (not versioned or bool(fields["flags"] & FLAG_READ_ONLY))
    _assert_usable(x)
    assert made.deleted == 0
    del x
    assert made.deleted == 1
    _free(made)
    assert made.deleted == 1


@settings(deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(tensor_fields())
@example(NULL_DATA_AND_HUGE_STRIDE)
def test_fuzz_every_field_through_the_exchange_api(fields: dict[str, Any]) -> None:
    """The C exchange API hands the struct over with its ownership: a refusal calls its deleter at
    once; a non-CPU tensor is let go and asked for again through __dlpack__."""
    fields = dict(fields, versioned=True)
    data = 0 if fields["null_data"] else _untouched_data(fields["device"][0])
    del fields["versioned"]
    source = producer.ExchangeProducer(data_address=data, data_bytes=1, **fields)
    problems, optional, geometry = _oracle(fields, data)
    if fields["version"][0] != 1:
        problems, optional = [{"major version"}], set()  # refused before anything else is read
    refusal = None
    try:
        x = dlarray.from_dlpack(source)
    except (BufferError, ValueError, TypeError) as exc:
        refusal = repr(exc)
    [handed] = source.exchanged
    assert handed.deleted == (0 if refusal is None and fields["device"][0] == DLDeviceType.CPU else 1)
    if refusal is not None:
        allowed = set().union(*problems, optional)
        assert allowed and any(word in refusal for word in allowed), (refusal, allowed)
        assert not source.made  # no second attempt after a refusal
        return
    assert not problems, f"accepted a tensor with {problems}"
    assert x.shape == geometry[0] and x.strides == geometry[1]
    assert (x.dtype.code, x.dtype.bits) == (fields["code"], fields["bits"])
    assert tuple(x.__dlpack_device__()) == _expected_device(fields["device"])
    assert x.data_ptr == data + fields["byte_offset"]
    assert x.readonly == bool(fields["flags"] & FLAG_READ_ONLY)
    _assert_usable(x)
    owner = source.made[0] if source.made else handed
    assert len(source.made) == (0 if fields["device"][0] == DLDeviceType.CPU else 1)
    del x
    assert owner.deleted == 1


def test_exchange_api_handing_over_no_tensor_is_a_buffer_error() -> None:
    """A producer whose exchange function reports success but writes no pointer: refused, no crash."""
    source = producer.ExchangeProducer(hand_over_nothing=True, shape=(3,))
    with pytest.raises(BufferError, match="gave no tensor"):
        dlarray.from_dlpack(source)
    assert not source.exchanged and not source.made


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


def test_geometry_cache_stays_bounded() -> None:
    """Importing ever new shapes does not grow the cache of accepted geometries without bound."""
    from dlarray._dlpack import _consume

    data = poison_address()
    for n in range(5000):
        made = make_capsule((2, n + 1), strides=(n + 1, 1), data_address=data, data_bytes=1)
        dlarray.from_dlpack(made.capsule)
        assert made.deleted == 1
    assert 0 < len(_consume._ordinary_cache) <= 4096


# numpy-computable dtypes: (code, bits, numpy dtype)
NUMPY_DTYPES = [(c, b, np.dtype(n)) for c, b, n in [
    (6, 8, "bool"), (0, 8, "int8"), (0, 16, "int16"), (0, 32, "int32"), (0, 64, "int64"),
    (1, 8, "uint8"), (1, 16, "uint16"), (1, 32, "uint32"), (1, 64, "uint64"),
    (2, 16, "float16"), (2, 32, "float32"), (2, 64, "float64"),
    (5, 64, "complex64"), (5, 128, "complex128"),
]]


@st.composite
def buffers(draw: Any) -> dict[str, Any]:
    """A tensor whose geometry lies inside its buffer: any strides (negative, zero, odd offsets)."""
    code, bits, dtype = draw(st.sampled_from(NUMPY_DTYPES))
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=4)))
    strides = draw(st.one_of(st.none(), st.lists(st.integers(-6, 6), min_size=len(shape),
                                                  max_size=len(shape)).map(tuple)))
    itemsize = dtype.itemsize
    elements = strides if strides is not None else _contiguous(shape)
    size = math.prod(shape)
    low = sum(min(0, s * (n - 1)) for s, n in zip(elements, shape)) if size else 0
    high = sum(max(0, s * (n - 1)) for s, n in zip(elements, shape)) if size else 0
    misalign = draw(st.integers(0, itemsize - 1))  # odd byte offsets
    byte_offset = -low * itemsize + misalign
    nbytes = byte_offset + (high + 1) * itemsize
    versioned = draw(st.booleans())
    return {
        "dtype": dtype, "code": code, "bits": bits, "shape": shape, "strides": strides,
        "byte_offset": byte_offset, "versioned": versioned,
        "flags": FLAG_READ_ONLY if versioned and draw(st.booleans()) else 0,
        "fill": random.Random(draw(st.integers(0, 2**32))).randbytes(nbytes),
    }


def _same(actual: Any, expected: np.ndarray) -> None:
    actual = np.asarray(actual)
    assert actual.shape == expected.shape
    assert actual.dtype == expected.dtype
    assert actual.tobytes() == expected.tobytes()  # bitwise: NaNs and odd bools included


@settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(buffers())
def test_fuzz_values_through_every_consumer(b: dict[str, Any]) -> None:
    """Valid geometry: numpy views, numpy/dlarray re-imports, views and copies read the right bytes."""
    dtype, itemsize = b["dtype"], b["dtype"].itemsize
    made = make_capsule(b["shape"], strides=b["strides"], code=b["code"], bits=b["bits"],
                        versioned=b["versioned"], flags=b["flags"], byte_offset=b["byte_offset"],
                        fill=b["fill"], data_bytes=len(b["fill"]))
    byte_strides = tuple(s * itemsize for s in (b["strides"] or _contiguous(b["shape"])))
    expected = np.ndarray(b["shape"], dtype, buffer=b["fill"], offset=b["byte_offset"],
                          strides=byte_strides)
    readonly = bool(b["flags"] & FLAG_READ_ONLY) or not b["versioned"]  # legacy: read-only

    x = dlarray.from_dlpack(made.capsule)
    native = np.asarray(x)
    _same(native, expected)
    assert native.flags.writeable is not readonly
    _same(np.from_dlpack(x), expected)
    again = dlarray.from_dlpack(x.__dlpack__(max_version=(1, 3)))
    _same(again, expected)
    assert again.readonly is readonly
    if not readonly:
        _same(dlarray.from_dlpack(x.__dlpack__()), expected)
    if x.ndim:
        _same(x[::-1], expected[::-1])
        _same(dlarray.permute_dims(x, tuple(reversed(range(x.ndim)))), expected.T)
    copied = dlarray.asarray(x, copy=True)
    _same(copied, expected)
    assert not copied.readonly
    if all(s >= 0 for s in byte_strides) and x.size:
        import torch  # torch 2.13 aborts the process on negative strides (see docs/safety.md)

        _same(torch.from_dlpack(x).numpy(), expected)
    del x, native, again, copied
    assert made.deleted == 1


@settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(
    dtype=st.sampled_from(VALID_DTYPES),
    shape=st.lists(st.integers(0, 4), max_size=4).map(tuple),
    stride_seed=st.integers(0, 2**32),
    byte_offset=st.integers(0, 4096),
    device=st.tuples(st.sampled_from(KNOWN_DEVICES), st.integers(0, 7)),
    flags=st.sampled_from([0, FLAG_READ_ONLY]),
)
def test_fuzz_export_keeps_metadata(dtype, shape, stride_seed, byte_offset, device, flags) -> None:
    """Any accepted tensor on any device re-exports with the same pointer, geometry, dtype, device
    and flags (off the host, its data pointer is an inaccessible page: nothing may touch it)."""
    code, bits = dtype
    device = _expected_device(device)
    rng = random.Random(stride_seed)
    strides = None if rng.random() < 0.3 else tuple(rng.randint(-5, 5) for _ in shape)
    subbyte = bits < 8
    all_flags = flags | (FLAG_IS_SUBBYTE_TYPE_PADDED if subbyte else 0)
    made = make_capsule(shape, strides=strides, code=code, bits=bits, device=device,
                        flags=all_flags, byte_offset=byte_offset, data_address=_untouched_data(device[0]),
                        data_bytes=1)
    x = dlarray.from_dlpack(made.capsule)
    views = [x]
    if x.ndim and device[0] not in (DLDeviceType.CUDA_HOST, DLDeviceType.ROCM_HOST):  # pinned below
        views.append(x[::-1])
    for array in views:
        info, owner = consume_capsule(array.__dlpack__(max_version=(1, 3)))
        assert info.data_ptr == array.data_ptr
        assert 0 <= info.byte_offset <= INT64_MAX
        assert info.shape == array.shape
        _assert_same_strides(info.strides, array.strides, array.shape)
        assert (info.dtype_code, info.dtype_bits) == (code, bits)
        assert (info.device_type, info.device_id) == device
        assert info.readonly is bool(flags)
        assert bool(info.flags & FLAG_IS_SUBBYTE_TYPE_PADDED) is subbyte
        assert not info.is_copied
        del owner
        if flags:
            with pytest.raises(BufferError, match="read-only"):
                array.__dlpack__()
        else:
            info, owner = consume_capsule(array.__dlpack__())
            assert (info.data_ptr, info.shape, info.dtype_code, info.device_type) == (
                array.data_ptr, array.shape, code, device[0])
            del owner
    del x, array, views
    assert made.deleted == 1


def _assert_same_strides(got: tuple, want: tuple, shape: tuple) -> None:
    """Strides agree wherever they matter (not in extent-1 dimensions, not at all if empty)."""
    if math.prod(shape) == 0:
        return
    assert all(g == w for g, w, n in zip(got, want, shape) if n > 1), (got, want, shape)


# ============================================================================ regressions of defects found here


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
    assert (info.device_type, info.device_id) == tuple(x.__dlpack_device__()) == _expected_device(device)


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
                        data_address=_untouched_data(device[0]), data_bytes=1)
    x = dlarray.from_dlpack(made.capsule)
    info, _ = consume_capsule(x.__dlpack__(max_version=(1, 3)))
    assert (info.dtype_code, info.dtype_bits, info.device_type) == (5, 128, device[0])


@pytest.mark.parametrize(("code", "bits", "device"), [(4, 16, (1, 0)), (2, 32, (2, 0))],
                         ids=["bfloat16-cpu", "float32-cuda"])
def test_reversed_view_exports_a_valid_byte_offset(code: int, bits: int, device: tuple) -> None:
    """A view starting below the data pointer folds the offset into data (byte_offset unsigned)."""
    # element 0 at `data`, the others below it (as numpy and cupy export a reversed array)
    made = make_capsule((3,), strides=(-1,), code=code, bits=bits, device=device,
                        data_address=_untouched_data(device[0]), data_bytes=1)
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


def test_one_capsule_consumed_from_two_threads() -> None:
    """Two threads race to consume each capsule: exactly one wins, the other gets BufferError."""
    doubles_before = len(producer.double_deletes)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    pairs: list[tuple[str, ...]] = []
    try:
        for i in range(2000):
            # 64 dimensions with strides: the most validation work between check and rename
            capsule = make_capsule((1,) * 64, strides=(1,) * 64, versioned=bool(i % 2)).capsule
            outcome: list[str] = []
            barrier = threading.Barrier(2)

            def racer(barrier: Any = barrier, capsule: Any = capsule, outcome: list = outcome) -> None:
                barrier.wait()
                try:
                    owner = consume_capsule(capsule)[1]
                    outcome.append("consumed")
                    del owner
                except BufferError:
                    outcome.append("refused")
                except Exception as exc:  # noqa: BLE001 - any other error is a finding
                    outcome.append(type(exc).__name__)

            threads = [threading.Thread(target=racer) for _ in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            pairs.append(tuple(sorted(outcome)))
    finally:
        sys.setswitchinterval(interval)
        doubles = producer.double_deletes[doubles_before:]
        del producer.double_deletes[doubles_before:]  # other tests check that list is empty
    assert all(pair == ("consumed", "refused") for pair in pairs), {p: pairs.count(p) for p in set(pairs)}
    assert not doubles


# ============================================================================ nothing read past the fields

GUARD_SCRIPT = textwrap.dedent(
    """
    import faulthandler, gc, math, random, sys
    faulthandler.enable()
    sys.path.insert(0, {tests!r})
    import dlarray
    import producer
    from producer import make_capsule, poison_address
    from dlarray._dlpack import consume_capsule

    PREFIX = {prefix}
    checked = 0

    def attempt(**fields):
        global checked
        made = make_capsule(guard=True, **fields)
        try:
            x = dlarray.from_dlpack(made.capsule)
        except BufferError:
            checked += 1
            return None
        checked += 1
        views = [x]
        try:
            views += ([x[::-1]] if x.ndim else []) + ([x.mT] if x.ndim >= 2 else [])
        except TypeError as exc:  # packed sub-byte types cannot be viewed element-wise
            assert "packed" in str(exc), exc
        for view in views:
            try:
                info = consume_capsule(view.__dlpack__(max_version=(1, 3)))[0]
            except (ValueError, OverflowError) as exc:
                # an empty tensor whose non-zero extents pass int64 in bytes: pinned by
                # test_empty_tensor_numpy_cannot_describe
                nonzero = math.prod(n for n in x.shape if n) * x.itemsize
                assert x.size == 0 and nonzero > 2**63 - 1, exc
                continue
            assert (info.data_ptr, info.shape) == (view.data_ptr, view.shape)
        return x

    # every ndim, shape and strides right before an inaccessible page
    for versioned in (True, False):
        for ndim in range(0, 65):
            shape = tuple(2 if i % 7 == 0 else 1 for i in range(ndim))
            for strides in (None, tuple(range(ndim, 0, -1))):
                x = attempt(shape=shape, strides=strides, versioned=versioned,
                            data_address=poison_address(), data_bytes=1)
                assert x is not None and x.shape == shape, (ndim, strides)
            if ndim:
                # the problem is in the last entry: every entry is read, none past it
                attempt(shape=shape[:-1] + (-1,), versioned=versioned)
                attempt(shape=shape, strides=(1,) * (ndim - 1) + (2**62,), versioned=versioned)
                # ndim says fewer entries than the producer wrote: only those are read
                x = attempt(shape=shape + (3,), ndim=ndim, versioned=versioned)
                assert x.shape == shape
        # a struct with an unknown major version: only its stable prefix may be read
        for major in (0, 2, 99):
            made = make_capsule((2,), version=(major, 0), guard=True, header_bytes=PREFIX)
            try:
                dlarray.from_dlpack(made.capsule)
            except BufferError:
                pass
            assert made.deleted == 1

    # random fields, data on an inaccessible page: import, view, export never touch it
    rng = random.Random(5)
    devices = [1, 2, 3, 4, 7, 8, 10, 13, 14, 99, -1]
    for i in range(1500):
        ndim = rng.choice([0, 1, 2, 3, 5, 64, 65, -1])
        real = max(0, min(ndim, 64))
        shape = tuple(rng.choice([0, 1, 2, 3, -1, 2**40]) for _ in range(real))
        strides = None if rng.random() < 0.4 else tuple(
            rng.choice([0, 1, -1, 3, -7, 2**40, -(2**63)]) for _ in range(real))
        attempt(shape=shape, strides=strides, ndim=ndim if ndim > 64 or ndim < 0 else None,
                code=rng.choice([0, 1, 2, 4, 5, 6, 10, 17, 3, 200]),
                bits=rng.choice([8, 16, 32, 64, 4, 6, 128, 7]), lanes=rng.choice([1, 1, 1, 2]),
                device=(rng.choice(devices), rng.choice([0, 0, 3])),
                versioned=rng.random() < 0.5, flags=rng.choice([0, 1, 4, 1 << 63]),
                byte_offset=rng.choice([0, 1, 3, 4096]),
                data_address=poison_address(), data_bytes=1)
    del x, made
    gc.collect()
    assert producer.alive_count() == 0, producer.alive_count()
    assert not producer.double_deletes
    assert max(producer.deleter_calls.values()) == 1
    print("ok", checked)
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="guard pages use Linux mmap")
def test_nothing_is_read_past_the_fields(tmp_path: Path) -> None:
    script = tmp_path / "guard.py"
    script.write_text(GUARD_SCRIPT.format(tests=str(TESTS), prefix=VERSION_PREFIX_LAYOUT.size))
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            timeout=300, check=False)
    assert result.returncode == 0, result.stderr[-4000:]
    assert result.stdout.startswith("ok"), result.stdout
    assert "Fatal Python error" not in result.stderr


# ============================================================================ quick stress checks


def test_exactly_once_quick() -> None:
    outcome = stress.exactly_once(4000, seed=1)
    assert outcome.ok, outcome.detail


def test_dlarray_allocations_do_not_grow_quick() -> None:
    outcome = stress.tracemalloc_growth(1500, warmup=300)
    assert outcome.ok, outcome.detail


def test_no_dlarray_objects_left_behind() -> None:
    for i in range(200):
        stress.cycle_once(i)
    gc.collect()
    before = stress.live_dlarray_objects()
    for i in range(2000):
        stress.cycle_once(i)
    gc.collect()
    assert stress.live_dlarray_objects() == before


def test_threads_quick() -> None:
    outcome = stress.threads(2.0, count=8, seed=2)
    assert outcome.ok, outcome.detail


# ============================================================================ interpreter exit

@pytest.mark.parametrize("scenario", sorted(exit_scenarios.SCENARIOS))
def test_interpreter_exit(scenario: str, tmp_path: Path) -> None:
    """Exit code 0, no 'Exception ignored', no fatal error, every time."""
    script = exit_scenarios.write_script(scenario, tmp_path)
    for result in exit_scenarios.run_children([script] * (2 if scenario == "foreign-producers" else 3)):
        problem = exit_scenarios.exit_problem(result)
        assert problem is None, f"{problem}\n{result.stderr[-4000:]}"


def test_deleters_are_called_with_the_gil_held() -> None:
    """The deleter prototype keeps the GIL (as numpy and torch call deleters from C).

    A prototype that released it let a daemon thread sit inside a deleter while the main thread
    finished shutting the interpreter down; the deleter's request for the GIL then crashed the
    process (rarely, on a loaded machine: the daemon-threads exit scenario above). The crash
    cannot be provoked on demand, so this pins the calling convention that prevents it.
    """
    from dlarray._dlpack._structs import DELETER, DLManagedTensor, DLManagedTensorVersioned

    keeps_gil = ctypes._FUNCFLAG_PYTHONAPI  # type: ignore[attr-defined]
    assert DELETER._flags_ & keeps_gil
    for struct_type in (DLManagedTensor, DLManagedTensorVersioned):
        field_type = dict(struct_type._fields_)["deleter"]
        assert field_type._flags_ & keeps_gil


# ============================================================================ read-only, every path


def _sources() -> dict[str, Any]:
    """Read-only arrays, each from another origin (built on demand: some hold producer state)."""

    def producer_flagged() -> Any:
        made = make_capsule((4, 4), flags=FLAG_READ_ONLY, fill=np.arange(16, dtype=np.float32).tobytes())
        x = dlarray.from_dlpack(made.capsule)
        return x

    def numpy_flagged() -> Any:
        a = np.arange(16.0).reshape(4, 4)
        a.flags.writeable = False
        return dlarray.asarray(a)

    def numpy_capsule() -> Any:
        a = np.arange(16.0).reshape(4, 4)
        a.flags.writeable = False
        return dlarray.from_dlpack(a.__dlpack__(max_version=(1, 3)))

    def from_bytes() -> Any:
        return dlarray.reshape(dlarray.asarray(bytes(range(16))), (4, 4))

    def from_memoryview() -> Any:
        return dlarray.reshape(dlarray.asarray(memoryview(np.arange(16.0).tobytes()).cast("d")), (4, 4))

    def reexport() -> Any:
        return dlarray.from_dlpack(producer_flagged().__dlpack__(max_version=(1, 3)))

    def view() -> Any:
        return numpy_flagged().T[::-1]

    # Legacy capsules cannot say read-only: every one is imported read-only, whatever memory it
    # points at (issue 13, item 5).
    def producer_legacy() -> Any:
        made = make_capsule((4, 4), versioned=False, fill=np.arange(16, dtype=np.float32).tobytes())
        return dlarray.from_dlpack(made.capsule)

    def numpy_legacy() -> Any:
        return dlarray.from_dlpack(np.arange(16.0).reshape(4, 4).__dlpack__())

    def pre_dlpack_1_producer() -> Any:  # __dlpack__ takes no keywords: a legacy capsule
        return dlarray.asarray(Producer(legacy_only=True, shape=(4, 4)))

    def jax_array() -> Any:
        import jax.numpy as jnp

        return dlarray.from_dlpack(jnp.arange(16.0, dtype=jnp.float32).reshape(4, 4))

    return {"producer-flag": producer_flagged, "numpy-readonly": numpy_flagged,
            "numpy-capsule": numpy_capsule, "bytes": from_bytes, "memoryview": from_memoryview,
            "re-export": reexport, "view": view, "legacy-producer": producer_legacy,
            "legacy-numpy": numpy_legacy, "legacy-only-producer": pre_dlpack_1_producer,
            "jax": jax_array}


SOURCES = _sources()
IN_PLACE = ["__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__",
            "__ipow__", "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__", "__imatmul__"]


@pytest.fixture(params=sorted(SOURCES))
def readonly_array(request: pytest.FixtureRequest) -> Any:
    x = SOURCES[request.param]()
    assert x.readonly
    before = np.asarray(x).tobytes()
    yield x
    assert np.asarray(x).tobytes() == before, "read-only data changed"


def test_readonly_setitem(readonly_array: Any) -> None:
    x = readonly_array
    mask = dlarray.asarray(np.eye(4, dtype=bool))
    for key in (0, (1, 2), slice(None), ..., mask, dlarray.asarray(np.array([0, 2]))):
        with pytest.raises(ValueError, match="read-only"):
            x[key] = 1
    with pytest.raises(ValueError, match="read-only"):
        x[1:][0] = 1  # through a view


@pytest.mark.parametrize("method", IN_PLACE)
def test_readonly_in_place_operators(readonly_array: Any, method: str) -> None:
    x = readonly_array
    other = x if method == "__imatmul__" else 1
    with pytest.raises(ValueError, match="read-only"):
        getattr(x, method)(other)
    with pytest.raises(ValueError, match="read-only"):
        getattr(x[1:], method)(x[1:] if method == "__imatmul__" else 1)


def test_readonly_through_numpy(readonly_array: Any) -> None:
    x = readonly_array
    for view in (np.asarray(x), np.array(x, copy=False), x.__array__(), np.from_dlpack(x),
                 np.asarray(x[1:]), np.from_dlpack(x.mT), x._as_native()):
        assert not view.flags.writeable
        with pytest.raises(ValueError):
            view[...] = 0
        with pytest.raises(ValueError):
            np.add(view, 1, out=view)
        with pytest.raises(ValueError):
            np.copyto(view, 0)
        if view.base is not None and not isinstance(view.base, np.ndarray):
            # a view dlarray made: numpy must refuse to turn it writable. (An Array adopted from a
            # read-only numpy array hands back that array or views of it; numpy lets the owner of
            # the memory flip its own flag, see docs/safety.md.)
            with pytest.raises(ValueError, match="WRITEABLE"):
                view.flags.writeable = True


def test_readonly_through_views_and_functions(readonly_array: Any) -> None:
    x = readonly_array
    for name, view in {
        "slice": x[1:, ::2], "T": x.T, "mT": x.mT, "reshape": dlarray.reshape(x, (16,)),
        "permute_dims": dlarray.permute_dims(x, (1, 0)), "flip": dlarray.flip(x),
        "broadcast_to": dlarray.broadcast_to(x, (2, 4, 4)), "expand_dims": dlarray.expand_dims(x, axis=0),
        "squeeze": dlarray.squeeze(dlarray.expand_dims(x, axis=0), axis=0),
        "astype(copy=False)": dlarray.astype(x, x.dtype, copy=False),
        "asarray(copy=False)": dlarray.asarray(x, copy=False), "from_dlpack": dlarray.from_dlpack(x),
        "from_dlpack(copy=False)": dlarray.from_dlpack(x, copy=False),
        "re-import": dlarray.from_dlpack(x.__dlpack__(max_version=(1, 3))),
    }.items():
        # whatever shares the memory is read-only; a result that had to copy may be writable
        assert view.readonly or not np.shares_memory(np.asarray(view), np.asarray(x)), name
    assert dlarray.asarray(x, copy=False).readonly and dlarray.from_dlpack(x).readonly
    assert x[1:, ::2].readonly and x.mT.readonly and dlarray.flip(x).readonly


def test_readonly_exports(readonly_array: Any) -> None:
    x = readonly_array
    info, _owner = consume_capsule(x.__dlpack__(max_version=(1, 3)))
    assert info.readonly
    with pytest.raises(BufferError, match="read-only"):
        x.__dlpack__()  # a legacy capsule has no flag to carry it
    with pytest.raises(BufferError, match="read-only"):
        x.__dlpack__(max_version=(0, 8))
    import array_api_strict

    assert not array_api_strict.from_dlpack(x)._array.flags.writeable


def test_readonly_copies_are_writable_and_separate(readonly_array: Any) -> None:
    x = readonly_array
    for copy in (dlarray.asarray(x, copy=True), dlarray.from_dlpack(x, copy=True)):
        assert not copy.readonly and copy.data_ptr != x.data_ptr
        copy[...] = 0
    info, _owner = consume_capsule(x.__dlpack__(copy=True))  # a legacy copy is allowed
    assert info.data_ptr != x.data_ptr
    info, _owner = consume_capsule(x.__dlpack__(max_version=(1, 3), copy=True))
    assert info.is_copied and not info.readonly


def test_legacy_imports_are_read_only_versioned_ones_writable() -> None:
    """A legacy capsule cannot say read-only: read-only, as numpy imports it; copies are writable."""
    import jax.numpy as jnp

    a = np.arange(6.0)
    assert dlarray.from_dlpack(a.__dlpack__()).readonly
    assert np.from_dlpack(jnp.arange(3.0)).flags.writeable is False  # numpy's rule (jax: legacy)
    assert not dlarray.from_dlpack(a.__dlpack__(max_version=(1, 0))).readonly
    assert not dlarray.from_dlpack(a).readonly
    legacy_producers = {"legacy-only": lambda: Producer(legacy_only=True, shape=(2, 3)),
                        "jax": lambda: jnp.arange(6.0, dtype=jnp.float32)}
    for name, make in legacy_producers.items():
        shared = dlarray.from_dlpack(make())
        assert shared.readonly, name
        with pytest.raises(ValueError):
            shared[...] = 1
        for copy in (dlarray.from_dlpack(make(), copy=True), dlarray.asarray(make(), copy=True)):
            assert not copy.readonly, name
            copy[...] = 1
    # the same memory through a versioned capsule without READ_ONLY is writable
    made = make_capsule((2, 3), versioned=True)
    writable = dlarray.from_dlpack(made.capsule)
    assert not writable.readonly
    writable[...] = 1


def test_torch_ignores_the_read_only_flag() -> None:
    """What torch does with a read-only export (documented in docs/safety.md).

    torch 2.13 reads the versioned capsule, ignores FLAG_READ_ONLY and returns a writable tensor
    over the memory. dlarray cannot prevent it: the flag is set, honouring it is the consumer's
    duty. ``torch.from_dlpack(x, copy=True)`` is the safe way to hand read-only data to torch.
    """
    torch = pytest.importorskip("torch")
    made = make_capsule((4,), flags=FLAG_READ_ONLY, fill=np.arange(4, dtype=np.float32).tobytes())
    x = dlarray.from_dlpack(made.capsule)
    info, _ = consume_capsule(x.__dlpack__(max_version=(1, 3)))
    assert info.readonly  # dlarray's part: the flag is there
    shared = torch.from_dlpack(x)
    assert shared.data_ptr() == x.data_ptr, (
        "torch no longer shares read-only exports: update docs/safety.md")
    safe = torch.from_dlpack(x, copy=True)
    assert safe.data_ptr() != x.data_ptr
    safe[0] = 99.0
    assert float(x[0]) == 0.0


# ============================================================================ misbehaving producers


class _Scripted:
    """A producer whose __dlpack__ runs a given function."""

    def __init__(self, behaviour: Any) -> None:
        self.behaviour = behaviour
        self.calls: list[dict[str, Any]] = []

    def __dlpack__(self, **options: Any) -> Any:
        self.calls.append(options)
        return self.behaviour(options)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


def test_producer_raising_type_error_always() -> None:
    def broken(options: dict) -> Any:
        raise TypeError("producer cannot do it")

    producer_object = _Scripted(broken)
    with pytest.raises(TypeError, match="producer cannot do it"):
        dlarray.from_dlpack(producer_object)
    assert producer_object.calls == [{"max_version": (1, 3)}, {}]  # one fallback, no more


def test_producer_buffer_error_is_not_swallowed() -> None:
    def refuse(options: dict) -> Any:
        raise BufferError("cannot export without a copy")

    producer_object = _Scripted(refuse)
    with pytest.raises(BufferError, match="without a copy"):
        dlarray.from_dlpack(producer_object, copy=False)
    assert len(producer_object.calls) == 1  # not mistaken for an old signature


@pytest.mark.parametrize("returned", [None, 3, b"dltensor", object()],
                         ids=["None", "int", "bytes", "object"])
def test_producer_returning_a_non_capsule(returned: Any) -> None:
    with pytest.raises(TypeError, match="capsule"):
        dlarray.from_dlpack(_Scripted(lambda options: returned))


def test_producer_returning_a_consumed_or_foreign_capsule() -> None:
    made = make_capsule((2,))
    kept = dlarray.from_dlpack(made.capsule)
    with pytest.raises(BufferError, match="consumed already"):
        dlarray.from_dlpack(_Scripted(lambda options: made.capsule))
    foreign = make_capsule((2,), name=b"arrow_array")
    with pytest.raises(BufferError, match="not a DLPack capsule"):
        dlarray.from_dlpack(_Scripted(lambda options: foreign.capsule))
    del kept
    _free(made)
    assert made.deleted == 1
    _free(foreign)
    assert foreign.deleted == 0  # refused and left alone: not the consumer's to free
    foreign.free_unowned()  # its producer frees it (the synthetic producer frees only dltensor names)
    assert foreign.deleted == 1


def test_producer_ignoring_max_version_with_a_newer_major() -> None:
    made = make_capsule((2,), version=(3, 0))
    with pytest.raises(BufferError, match="major version 3"):
        dlarray.from_dlpack(_Scripted(lambda options: made.capsule))
    assert made.deleted == 1
    _free(made)
    assert made.deleted == 1


def test_producer_copying_against_copy_false() -> None:
    made = make_capsule((2,), flags=FLAG_IS_COPIED)
    with pytest.raises(BufferError, match="copy=False"):
        dlarray.from_dlpack(_Scripted(lambda options: made.capsule), copy=False)
    gc.collect()
    assert made.deleted == 1  # the import was dropped: its deleter ran, once


def test_producer_ignoring_copy_true() -> None:
    producer_object = Producer(shape=(3,))  # accepts copy=True, shares anyway (no IS_COPIED)
    x = dlarray.from_dlpack(producer_object, copy=True)
    assert producer_object.calls[-1]["copy"] is True
    assert x.data_ptr != producer_object.made[-1].data_address  # dlarray made the copy
    gc.collect()
    assert producer_object.made[-1].deleted == 1  # and let the shared buffer go at once


def test_producer_with_a_non_callable_dlpack() -> None:
    class Odd:
        __dlpack__ = 5

    with pytest.raises(TypeError):
        dlarray.from_dlpack(Odd())


def test_legacy_producer_with_copy_false_falls_back_zero_copy() -> None:
    producer_object = Producer(legacy_only=True, shape=(3,))
    x = dlarray.from_dlpack(producer_object, copy=False)
    assert x.data_ptr == producer_object.made[-1].data_address
    assert producer_object.calls == [{}]
