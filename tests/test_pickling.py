"""Pickling and copies: the values travel, never an address.

``pickle`` / ``copy.copy`` / ``copy.deepcopy`` of an Array give an independent array with equal
values, dtype and shape (fresh, writable, C-contiguous memory of its own), or a TypeError that says
why the values cannot be read. Checked for every dtype and geometry (hypothesis), every kind of
source, every pickle protocol (protocol 5 out of band too), across processes, and, in child
processes, with the original's memory unmapped before the copy is read and with fake device
pointers that must never be touched.

The oracle reads elements through the Array's own metadata (``data_ptr``, ``strides``) with
ctypes, independently of the code under test.
"""

from __future__ import annotations

import array as pyarray
import copy
import ctypes
import pickle
import pickletools
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Callable

import numpy as np
import needs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from producer import make_capsule

import dlarray as xp
from dlarray._array import _array_from_pickle
from dlarray._pickling import PICKLE_FORMAT
from dlarray._dlpack import FLAG_IS_SUBBYTE_TYPE_PADDED, DLDeviceType, contiguous_strides
from dlarray._dtypes import ALL_DTYPES, DType

torch = needs.optional("torch")  # the sources it makes are skipped without it (make test-latest)
TESTS = Path(__file__).resolve().parent
PROTOCOLS = range(pickle.HIGHEST_PROTOCOL + 1)


# ============================================================================ the oracle

def _packed(x: xp.Array) -> bool:
    return x.dtype.bits < 8 and not x._flags_now() & FLAG_IS_SUBBYTE_TYPE_PADDED


def stored_bytes(x: xp.Array) -> list[bytes]:
    """The bytes of each element in C order, read at ``data_ptr`` + strides (packed sub-byte data:
    the bytes it fills, as one entry)."""
    if _packed(x):
        return [ctypes.string_at(x.data_ptr, (x.size * x.dtype.bits + 7) // 8)] if x.size else []
    found = []
    for index in np.ndindex(*x.shape):
        offset = sum(i * s for i, s in zip(index, x.strides)) * x.itemsize
        found.append(ctypes.string_at(x.data_ptr + offset, x.itemsize))
    return found


def copies() -> list[tuple[str, Callable[[xp.Array], xp.Array]]]:
    """Every way of making an independent copy: each pickle protocol, out-of-band buffers, copy."""
    ways: list[tuple[str, Callable[[xp.Array], xp.Array]]] = [
        (f"pickle protocol {p}", lambda x, p=p: pickle.loads(pickle.dumps(x, protocol=p))) for p in PROTOCOLS
    ]

    def out_of_band(x: xp.Array) -> xp.Array:
        buffers: list[pickle.PickleBuffer] = []
        data = pickle.dumps(x, protocol=5, buffer_callback=buffers.append)
        # what a transport does: the bytes travel, the sender's memory does not
        return pickle.loads(data, buffers=[bytearray(b.raw()) for b in buffers])

    ways += [("pickle protocol 5 out of band", out_of_band), ("copy.copy", copy.copy),
             ("copy.deepcopy", copy.deepcopy), ("deepcopy in a list", lambda x: copy.deepcopy([x, x])[1])]
    return ways


COPIES = copies()


def assert_independent(original: xp.Array, duplicate: Any, expected: list[bytes], how: str,
                       device: Any = None) -> None:
    """``duplicate`` is a fresh, writable, C-contiguous copy of ``original``'s values."""
    assert type(duplicate) is xp.Array, how
    assert duplicate.dtype is original.dtype, how
    assert duplicate.shape == original.shape, how
    assert duplicate.device is (device or original.device), how
    assert not duplicate.readonly, how
    assert duplicate._flags_now() & FLAG_IS_SUBBYTE_TYPE_PADDED == original._flags_now() & FLAG_IS_SUBBYTE_TYPE_PADDED
    if not _packed(duplicate) and duplicate.size:
        assert duplicate.strides == contiguous_strides(duplicate.shape), how
    assert stored_bytes(duplicate) == expected, how
    if original.size:
        assert duplicate.data_ptr != original.data_ptr, how
        # writing to the copy leaves the original unchanged
        first = ctypes.string_at(duplicate.data_ptr, 1)[0]
        ctypes.memset(duplicate.data_ptr, first ^ 0xFF, 1)
        assert stored_bytes(original) == expected, how
        assert stored_bytes(duplicate) != expected, how


def check_every_copy(x: xp.Array, device: Any = None) -> None:
    expected = stored_bytes(x)
    for how, make in COPIES:
        assert_independent(x, make(x), expected, how, device)


# ============================================================================ dtypes and devices

@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_dtypes_and_devices_unpickle_to_the_same_object(protocol: int) -> None:
    for dtype in ALL_DTYPES:
        assert pickle.loads(pickle.dumps(dtype, protocol=protocol)) is dtype
        assert copy.copy(dtype) is dtype and copy.deepcopy(dtype) is dtype
    for device in (xp.Device("cpu"), xp.Device("cuda:1"), xp.Device("cuda_host:0"), xp.Device("opencl:2")):
        assert pickle.loads(pickle.dumps(device, protocol=protocol)) is device


@pytest.mark.parametrize("source", ["numpy capsule", pytest.param("torch", marks=needs.skip_without("torch"))])
def test_a_pickle_names_only_the_reconstructor(source: str) -> None:
    """No object of the source travels (no owner, no ctypes struct): one global, the values."""
    if source == "torch":
        x = xp.from_dlpack(torch.arange(6, dtype=torch.float32).reshape(2, 3))
    else:
        x = xp.from_dlpack(np.arange(6, dtype=np.float32).reshape(2, 3).__dlpack__(max_version=(1, 0)))
    for protocol in PROTOCOLS:
        opcodes = list(pickletools.genops(pickle.dumps(x[:, ::2], protocol=protocol)))
        names = [str(arg) for op, arg, _ in opcodes if op.name in ("GLOBAL", "SHORT_BINUNICODE", "BINUNICODE",
                                                                   "UNICODE")]
        globals_ = [n for n in names if "dlarray" in n or "torch" in n or "ctypes" in n]
        assert set(globals_) <= {"dlarray._array _array_from_pickle", "dlarray._array", "_array_from_pickle"}, names
    assert _array_from_pickle.__module__ == "dlarray._array"


# ============================================================================ every dtype, every geometry

def _dtype_arrays(dtype: DType, shape: tuple[int, ...], fill: bytes, padded: bool) -> xp.Array:
    """An array of ``dtype`` and ``shape`` over ``fill``, imported from a capsule."""
    return xp.from_dlpack(make_capsule(shape, code=dtype.code, bits=dtype.bits, fill=fill,
                                       flags=FLAG_IS_SUBBYTE_TYPE_PADDED if padded else 0).capsule)


@st.composite
def arrays_and_views(draw: Any) -> tuple[xp.Array, xp.Array]:
    """(base, x): an array of any dtype from a capsule and a view of it (slices with any step,
    negative included, transposes), or the array itself."""
    dtype = draw(st.sampled_from(ALL_DTYPES))
    padded = dtype.bits < 8 and draw(st.booleans())
    packed = dtype.bits < 8 and not padded
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=3)))
    size = int(np.prod(shape)) if shape else 1
    nbytes = (size * dtype.bits + 7) // 8 if packed else size * dtype.itemsize
    fill = draw(st.binary(min_size=nbytes, max_size=nbytes))
    if dtype.category == "bool":
        fill = bytes(b & 1 for b in fill)  # a bool array holds 0 and 1
    base = _dtype_arrays(dtype, shape, fill, padded)
    if packed or not shape:
        return base, base
    key = tuple(
        slice(draw(st.sampled_from([None, 1])), None, draw(st.sampled_from([1, 2, -1, -2])))
        for _ in shape
    )
    view = base[key]
    if view.ndim >= 2 and draw(st.booleans()):
        view = view.mT
    return base, view


@given(arrays_and_views(), st.booleans())
def test_every_dtype_and_geometry_copies_its_values(case: tuple[xp.Array, xp.Array], read_metadata: bool) -> None:
    base, x = case
    if read_metadata:  # metadata read (and kept) on the view before the copy
        x.data_ptr, x.strides
    check_every_copy(x)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_every_dtype_zero_d_and_empty(dtype: DType) -> None:
    for shape in ((), (0,), (3, 0, 2)):
        size = int(np.prod(shape)) if shape else 1
        x = _dtype_arrays(dtype, shape, bytes([1]) * size * dtype.itemsize, padded=False)
        check_every_copy(x)


def test_packed_sub_byte_data_keeps_its_packing() -> None:
    packed = _dtype_arrays(xp.float4_e2m1fn, (2, 3), bytes([0x21, 0x43, 0x65]), padded=False)
    padded = _dtype_arrays(xp.float4_e2m1fn, (2, 3), bytes(range(6)), padded=True)
    for x in (packed, padded):
        for how, make in COPIES:
            y = make(x)
            assert y._flags_now() & FLAG_IS_SUBBYTE_TYPE_PADDED == x._flags_now() & FLAG_IS_SUBBYTE_TYPE_PADDED
    assert ctypes.string_at(pickle.loads(pickle.dumps(packed)).data_ptr, 3) == bytes([0x21, 0x43, 0x65])


def test_strided_packed_data_is_refused() -> None:
    """A packed view whose elements do not start on byte boundaries: TypeError, saying why."""
    made = make_capsule((2, 3), strides=(1, 2), code=xp.float4_e2m1fn.code, bits=4)
    x = xp.from_dlpack(made.capsule)
    for how, make in COPIES:
        with pytest.raises(TypeError, match="strided view of packed float4_e2m1fn.*byte boundaries"):
            make(x)
    # a transpose whose strides differ only where the extent is 1 is still contiguous
    row = xp.from_dlpack(make_capsule((1, 4), code=xp.float4_e2m1fn.code, bits=4, fill=b"\x21\x43").capsule)
    column = row.mT
    assert column.shape == (4, 1)
    for how, make in COPIES:
        assert ctypes.string_at(make(column).data_ptr, 2) == b"\x21\x43", how


# ============================================================================ every source kind

def _sources() -> list[tuple[str, Callable[[], Any]]]:
    base = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    return [
        ("numpy", lambda: xp.asarray(np.arange(12, dtype=np.int32).reshape(3, 4))),
        ("numpy strided view", lambda: xp.asarray(base)[:, ::-1, 1::2]),
        ("numpy transpose", lambda: xp.asarray(base).mT),
        ("numpy result", lambda: xp.asarray(base) * 2),
        ("read-only numpy", lambda: xp.asarray(np.frombuffer(b"abcdefgh", dtype=np.uint16))),
        ("torch", lambda: xp.from_dlpack(torch.arange(10, dtype=torch.int64)[::3])),
        ("torch complex", lambda: xp.from_dlpack(torch.tensor([1 + 2j, 3 - 4j], dtype=torch.complex64))),
        ("torch bfloat16", lambda: xp.from_dlpack(torch.linspace(-2, 2, 6, dtype=torch.bfloat16).reshape(2, 3).T)),
        *[(f"torch {name}", lambda name=name: xp.from_dlpack(torch.linspace(-1, 1, 5).to(getattr(torch, name))))
          for name in ("float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu")],
        ("bfloat16", lambda: xp.reshape(xp.astype(xp.linspace(-2, 2, 6), xp.bfloat16), (2, 3)).T),
        *[(name, lambda name=name: xp.astype(xp.linspace(-1, 1, 5), getattr(xp, name)))
          for name in ("float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu")],
        ("bytes", lambda: xp.asarray(bytes(range(16)))),
        ("bytearray", lambda: xp.asarray(bytearray(range(8)))),
        ("array.array", lambda: xp.asarray(pyarray.array("d", [1.5, -2.5, 3.0]))),
        ("memoryview of bytes", lambda: xp.asarray(memoryview(b"\x01\x02\x03\x04"))),
        ("memoryview cast", lambda: xp.asarray(memoryview(bytearray(16)).cast("i"))),
        ("legacy capsule", lambda: xp.from_dlpack(make_capsule((3,), versioned=False, fill=b"\x00\x00\x80?" * 3).capsule)),
        ("scalar", lambda: xp.asarray(2.5)),
    ]


@pytest.mark.parametrize("make_source", [
    pytest.param(make, id=name, marks=needs.skip_without("torch") if name.startswith("torch") else ())
    for name, make in _sources()
])
@pytest.mark.parametrize("read_metadata", [False, True], ids=["fresh", "metadata read"])
def test_every_source_kind_copies_its_values(make_source: Callable[[], xp.Array], read_metadata: bool) -> None:
    x = make_source()
    if read_metadata:
        x.data_ptr, x.strides
    check_every_copy(x)


def test_deepcopy_of_a_view_after_data_ptr_was_read() -> None:
    """A deepcopy of a strided view whose pointer and strides were read first has its own pointer
    and C-contiguous strides."""
    x = xp.asarray(np.arange(10))[::2]
    pointer, strides = x.data_ptr, x.strides
    assert strides == (2,)
    y = copy.deepcopy(x)
    assert y.data_ptr != pointer and y.strides == (1,)
    assert np.asarray(y).tolist() == [0, 2, 4, 6, 8]
    y[0] = 7
    assert int(x[0]) == 0


def test_read_only_is_not_kept() -> None:
    """As numpy: unpickled and copied arrays are writable, their source stays read-only."""
    x = xp.asarray(b"\x01\x02")
    assert x.readonly
    for how, make in COPIES:
        y = make(x)
        y[0] = 9
        assert not y.readonly and int(x[0]) == 1, how
    assert np.asarray(pickle.loads(pickle.dumps(x))).flags.writeable


def test_pinned_host_memory_copies_to_the_cpu() -> None:
    """cuda_host memory is read on the host; its copy is plain host memory, on the CPU."""
    made = make_capsule((4,), device=(int(DLDeviceType.CUDA_HOST), 0), fill=np.arange(4, dtype=np.float32).tobytes())
    x = xp.from_dlpack(made.capsule)
    assert x.device == xp.Device("cuda_host:0")
    check_every_copy(x, device=xp.Device("cpu"))


# ============================================================================ out-of-band buffers, loading

def test_out_of_band_buffers_carry_the_values() -> None:
    x = xp.asarray(np.arange(6, dtype=np.int16).reshape(2, 3))[:, ::-1]
    buffers: list[pickle.PickleBuffer] = []
    data = pickle.dumps(x, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1 and len(data) < 200  # the values went out of band
    # a writable buffer handed to loads is used in place, as numpy does
    writable = bytearray(buffers[0].raw())
    y = pickle.loads(data, buffers=[writable])
    assert np.asarray(y).tolist() == [[2, 1, 0], [5, 4, 3]] and not y.readonly
    # a read-only one is copied: the array is still writable, the buffer untouched
    frozen = bytes(buffers[0].raw())
    z = pickle.loads(data, buffers=[frozen])
    z[0, 0] = 99
    assert frozen == bytes(writable) and np.asarray(z).tolist() == [[99, 1, 0], [5, 4, 3]]


def test_byte_order_of_the_pickling_machine_is_honoured() -> None:
    x = xp.asarray(np.array([1.0, -2.0], dtype=np.float64))
    bf = xp.astype(xp.asarray([1.0, -2.0]), xp.bfloat16)
    bfloat16_bits = (np.array([1.0, -2.0], dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)  # exact
    other = "big" if sys.byteorder == "little" else "little"
    for source, swapped in ((x, np.array([1.0, -2.0]).byteswap().tobytes()), (bf, bfloat16_bits.byteswap().tobytes())):
        function, args = source.__reduce_ex__(4)
        assert args[-1] == sys.byteorder
        y = function(*args[:1], swapped, *args[2:-1], other)
        assert b"".join(stored_bytes(y)) == b"".join(stored_bytes(source))


def test_a_damaged_pickle_is_refused() -> None:
    good = (PICKLE_FORMAT, bytes(8), "float32", (2,), int(DLDeviceType.CPU), 0, False, sys.byteorder)
    assert np.asarray(_array_from_pickle(*good)).tolist() == [0.0, 0.0]
    for position, value, message in ((0, 99, "format"), (2, "float99", "dtype"), (3, (2, -1), "shape"),
                                     (3, [2], "shape"), (1, bytes(7), "bytes")):
        damaged = list(good)
        damaged[position] = value
        with pytest.raises(ValueError, match=message):
            _array_from_pickle(*damaged)


# ============================================================================ child processes

def run_child(code: str, *args: str) -> subprocess.CompletedProcess:
    prelude = f"import sys\nsys.path.insert(0, {str(TESTS)!r})\nimport faulthandler\nfaulthandler.enable()\n"
    result = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code), *args],
                            capture_output=True, text=True, timeout=240, check=False)
    assert result.returncode == 0, result.stderr[-4000:]
    assert result.stdout.strip().endswith("ok"), result.stdout[-2000:]
    return result


def test_the_copy_outlives_the_original_memory() -> None:
    """The original's memory is unmapped before the copies are read: a copy that still pointed
    into it would crash the child (here before this fix, for every source kind)."""
    run_child("""
        import copy, ctypes, gc, pickle
        import numpy as np
        import dlarray as xp
        import producer
        from producer import GuardedRegion, make_capsule

        kept = []
        expected = []
        for dtype in [d for d in xp._dtypes.ALL_DTYPES]:
            region = GuardedRegion(1)
            start = region.address  # a page: room for 8 elements of any dtype
            values = bytes((i * 37 + 11) & (1 if dtype is xp.bool else 0xFF) for i in range(128))
            ctypes.memmove(start, values, 128)
            made = make_capsule((4, 2), code=dtype.code, bits=dtype.bits, data_address=start, data_bytes=1)
            x = xp.from_dlpack(made.capsule)
            view = x[::-1] if dtype.bits >= 8 else x
            view.data_ptr, view.strides
            want = xp.from_dlpack(view.__dlpack__(max_version=(1, 3), copy=True))
            expected.append((dtype, ctypes.string_at(want.data_ptr, max(1, view.size * dtype.bits // 8))))
            kept.append([pickle.dumps(view, protocol=p) for p in range(pickle.HIGHEST_PROTOCOL + 1)]
                        + [copy.deepcopy(view), copy.copy(view)])
            del x, view, made, want
            gc.collect()
            address = region.address
            del region  # munmap: any read of the old memory faults now
            assert producer.alive_count() == 0
        # other sources: their memory freed and overwritten
        sources = [bytes(range(100, 116)), bytearray(range(16)), np.arange(8, dtype=np.int16).__dlpack__(max_version=(1, 0))]
        for source in sources:
            x = xp.asarray(source) if isinstance(source, (bytes, bytearray)) else xp.from_dlpack(source)
            expected.append((x.dtype, bytes(np.asarray(x).tobytes())))
            kept.append([pickle.dumps(x, protocol=p) for p in range(pickle.HIGHEST_PROTOCOL + 1)]
                        + [copy.deepcopy(x), copy.copy(x)])
            if isinstance(source, bytearray):
                del x
                source[:] = bytes(16)
        del sources, x, source
        gc.collect()
        garbage = [bytearray(b"\\xee" * 64) for _ in range(1000)]  # reuse the freed memory
        for (dtype, want), copies in zip(expected, kept):
            loaded = [pickle.loads(c) if isinstance(c, bytes) else c for c in copies]
            for y in loaded:
                assert y.dtype is dtype and not y.readonly
                got = ctypes.string_at(y.data_ptr, len(want))
                assert got == want, (dtype, got, want)
        print("ok")
    """)


def test_round_trip_across_processes(tmp_path: Path) -> None:
    """Pickled in one interpreter, loaded in another (and back): equal values, dtype, shape."""
    arrays = [
        xp.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))[::-1, 1::2],
        xp.asarray(b"\x00\x01\x02\x03"),
        xp.astype(xp.linspace(-3, 3, 7), xp.bfloat16),
        xp.astype(xp.linspace(-1, 1, 4), xp.float8_e5m2),
        _dtype_arrays(xp.float4_e2m1fn, (3,), bytes([0x21, 0x03]), padded=False),
        xp.asarray(np.array(1 + 2j, dtype=np.complex128)),
        xp.asarray(np.zeros((0, 2), dtype=np.int8)),
    ]
    expected = [(x.dtype.name, x.shape, stored_bytes(x)) for x in arrays]
    there = tmp_path / "there.pickle"
    back = tmp_path / "back.pickle"
    there.write_bytes(pickle.dumps(arrays, protocol=5))
    run_child("""
        import pickle, ctypes
        import numpy as np
        import dlarray as xp
        there, back = sys.argv[1:]
        arrays = pickle.load(open(there, "rb"))
        for x in arrays:
            assert type(x) is xp.Array and not x.readonly and x.device == xp.Device("cpu")
        assert np.asarray(arrays[0]).tolist() == [[9.0, 11.0], [5.0, 7.0], [1.0, 3.0]]
        assert bytes(np.asarray(arrays[1])) == b"\\x00\\x01\\x02\\x03"
        assert complex(arrays[5]) == 1 + 2j
        pickle.dump(arrays, open(back, "wb"), protocol=2)
        print("ok")
    """, str(there), str(back))
    returned = pickle.loads(back.read_bytes())
    assert [(x.dtype.name, x.shape, stored_bytes(x)) for x in returned] == expected


def test_memory_nothing_here_can_read_is_never_touched() -> None:
    """Device memory behind a pointer into an inaccessible page: pickle and copy refuse with a
    TypeError that says why, before reading anything; no CUDA driver is loaded (cupy blocked, so
    that a GPU machine's cupy never sees the made-up pointer)."""
    run_child("""
        sys.modules["cupy"] = None  # as on a machine without cupy
        import copy, pickle
        import dlarray as xp
        from dlarray import _cuda
        from producer import make_capsule, poison_address

        # why each is refused: CUDA needs cupy (packed sub-byte data cannot travel at all)
        cases = [((2, 0), ("cupy", "packed")), ((2, 3), ("cupy", "packed")), ((4, 0), ("OPENCL",)),
                 ((7, 1), ("VULKAN",)), ((8, 0), ("METAL",)), ((10, 0), ("ROCM",)), ((14, 0), ("ONE_API",))]
        for device, reasons in cases:
            for code, bits in ((2, 32), (4, 16), (17, 4)):
                made = make_capsule((3, 2), code=code, bits=bits, device=device,
                                    data_address=poison_address(), data_bytes=1)
                x = xp.from_dlpack(made.capsule)
                for view in (x, x.mT):
                    for attempt in [lambda v, p=p: pickle.dumps(v, protocol=p) for p in range(6)] + [copy.copy, copy.deepcopy]:
                        try:
                            attempt(view)
                        except TypeError as exc:
                            assert any(r in str(exc) for r in reasons) and str(view.device) in str(exc), exc
                        else:
                            raise AssertionError(f"{view.device}: no TypeError")
        # a pickle that names a CUDA device cannot be restored without cupy: TypeError, why
        from dlarray._array import _array_from_pickle
        from dlarray._pickling import PICKLE_FORMAT
        try:
            _array_from_pickle(PICKLE_FORMAT, bytes(8), "float32", (2,), 2, 0, False, sys.byteorder)
        except TypeError as exc:
            assert "cuda:0" in str(exc) and "cupy" in str(exc), exc
        else:
            raise AssertionError("restored on cuda:0 without cupy")
        assert not _cuda._driver_state, "the CUDA driver was loaded"
        assert "libcuda" not in open("/proc/self/maps").read()
        print("ok")
    """)


def test_arrays_cross_a_process_pool() -> None:
    """What multiprocessing does with arguments and results: a spawned worker receives the
    array, copies it, and sends the copy back."""
    import multiprocessing

    x = xp.from_dlpack(np.arange(12, dtype=np.int32).reshape(3, 4).__dlpack__(max_version=(1, 0)))[:, ::-2]
    expected = stored_bytes(x)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        back = pool.apply(copy.deepcopy, (x,))
    assert_independent(x, back, expected, "through a spawned worker")
