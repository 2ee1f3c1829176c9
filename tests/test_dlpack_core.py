"""The ctypes DLPack core: validation, ownership (deleters exactly once), negotiation, flags."""

from __future__ import annotations

import copy
import gc
import pickle
import subprocess
import sys
import textwrap
import threading
from typing import Any

import needs
import numpy as np
import pytest
from producer import Producer, alive_count, double_deletes, make_capsule, poison_address

import dlarray
from dlarray._dlpack import (
    FLAG_IS_COPIED,
    FLAG_READ_ONLY,
    DLDeviceType,
    capsule_name,
    consume_capsule,
)
from dlarray.testing import read_capsule

# ----------------------------------------------------------------------------- consuming


@pytest.mark.parametrize("versioned", [True, False])
def test_consume_keeps_pointer_shape_strides(versioned: bool) -> None:
    made = make_capsule((3, 4), strides=(1, 3), byte_offset=8, versioned=versioned)
    x = dlarray.from_dlpack(made.capsule)
    assert x.shape == (3, 4)
    assert x.strides == (1, 3)
    assert x.data_ptr == made.data_address + 8
    assert x.dtype is dlarray.float32
    assert x.device == dlarray.Device("cpu")
    assert capsule_name(made.capsule) == (b"used_dltensor_versioned" if versioned else b"used_dltensor")


@pytest.mark.parametrize("versioned", [True, False])
def test_deleter_runs_once_when_last_user_is_gone(versioned: bool) -> None:
    made = make_capsule((4, 4), versioned=versioned)
    x = dlarray.from_dlpack(made.capsule)
    view = x[1:, ::2]
    transposed = x.T
    exported = np.from_dlpack(view)
    del x
    gc.collect()
    assert made.deleted == 0
    del view, transposed
    gc.collect()
    assert made.deleted == 0  # numpy still points into the buffer
    del exported
    gc.collect()
    assert made.deleted == 1
    del made.capsule
    gc.collect()
    assert made.deleted == 1  # the consumed capsule's destructor must not delete again


def test_unconsumed_capsule_is_freed_by_its_producer() -> None:
    before = alive_count()
    made = make_capsule((2,))
    assert alive_count() == before + 1
    del made.capsule
    gc.collect()
    assert made.deleted == 1
    assert alive_count() == before


def test_consumed_capsule_is_refused() -> None:
    made = make_capsule((2,))
    x = dlarray.from_dlpack(made.capsule)
    with pytest.raises(BufferError, match="consumed already"):
        dlarray.from_dlpack(made.capsule)
    del x
    gc.collect()
    assert made.deleted == 1


def test_wrong_capsule_name_is_refused_and_left_alone() -> None:
    made = make_capsule((2,), name=b"not_a_tensor")
    with pytest.raises(BufferError, match="not a DLPack capsule"):
        dlarray.from_dlpack(made.capsule)
    assert capsule_name(made.capsule) == b"not_a_tensor"
    assert made.deleted == 0
    made.capsule = None
    made.free_unowned()  # its producer frees it


def test_non_capsule_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        consume_capsule(object())
    with pytest.raises(TypeError, match="does not support DLPack"):
        dlarray.from_dlpack(object())


def test_the_owner_of_a_tensor_cannot_be_copied_or_pickled() -> None:
    """An owner calls its deleter (or releases its buffer) once: a copy would do it twice."""
    made = make_capsule((2,))
    x = dlarray.from_dlpack(made.capsule)
    held = dlarray.asarray(bytearray(4))
    for owner in (x._owner, held._owner):
        for duplicate in (copy.copy, copy.deepcopy, pickle.dumps):
            with pytest.raises(TypeError, match="cannot be copied or pickled"):
                duplicate(owner)
    del x, owner
    gc.collect()
    assert made.deleted == 1


def test_unknown_major_version_calls_deleter_immediately() -> None:
    made = make_capsule((2,), version=(2, 0))
    with pytest.raises(BufferError, match="major version 2"):
        dlarray.from_dlpack(made.capsule)
    assert made.deleted == 1
    del made.capsule
    gc.collect()
    assert made.deleted == 1


def test_newer_minor_version_is_accepted() -> None:
    made = make_capsule((2,), version=(1, 9))
    assert dlarray.from_dlpack(made.capsule).shape == (2,)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"lanes": 4}, "lanes=4"),
        ({"code": 3, "bits": 64}, "dtype code 3"),
        ({"code": 99}, "dtype code 99"),
        ({"code": 2, "bits": 8}, "bits=8"),
        ({"code": 0, "bits": 7}, "bits=7"),
        ({"ndim": -1}, "ndim=-1"),
        ({"ndim": 65}, "ndim=65"),
        ({"shape": (2, -3)}, "negative dimension"),
        ({"shape": (2**40, 2**40), "data_bytes": 16}, "overflows"),
        ({"null_shape": True}, "NULL shape"),
        ({"null_data": True}, "NULL data"),
        ({"device": (5, 0)}, "device_type 5"),
        ({"device": (99, 0)}, "device_type 99"),
        ({"device": (2, -1)}, "device_id=-1"),
        ({"device": (1, -2**31)}, "device_id=-2147483648"),
        ({"strides": (2**62, 4), "shape": (3, 2)}, "overflow"),
    ],
)
@pytest.mark.parametrize("versioned", [True, False])
def test_malformed_tensors_are_refused_and_left_to_the_producer(
    fields: dict, message: str, versioned: bool
) -> None:
    made = make_capsule(versioned=versioned, **fields)
    with pytest.raises(BufferError, match=message):
        dlarray.from_dlpack(made.capsule)
    assert made.deleted == 0
    assert capsule_name(made.capsule) in (b"dltensor", b"dltensor_versioned")
    del made.capsule
    gc.collect()
    assert made.deleted == 1


def test_zero_size_with_null_data_is_accepted() -> None:
    made = make_capsule((0, 3), null_data=True)
    x = dlarray.from_dlpack(made.capsule)
    assert x.shape == (0, 3)
    assert x.size == 0
    assert np.from_dlpack(x).shape == (0, 3)


def test_null_deleter_is_accepted() -> None:
    made = make_capsule((2,), with_deleter=False)
    x = dlarray.from_dlpack(made.capsule)
    del x
    gc.collect()
    assert made.deleted == 0


def test_extended_dtypes_are_held_as_metadata() -> None:
    for code, bits, dtype in [
        (4, 16, dlarray.bfloat16),
        (10, 8, dlarray.float8_e4m3fn),
        (12, 8, dlarray.float8_e5m2),
        (17, 4, dlarray.float4_e2m1fn),
        (15, 6, dlarray.float6_e2m3fn),
    ]:
        made = make_capsule((4,), code=code, bits=bits, flags=4 if bits < 8 else 0)
        x = dlarray.from_dlpack(made.capsule)
        assert x.dtype is dtype
        assert x.shape == (4,)


def test_read_only_flag_is_kept() -> None:
    made = make_capsule((3,), flags=FLAG_READ_ONLY)
    x = dlarray.from_dlpack(made.capsule)
    assert x.readonly
    assert x[1:].readonly
    with pytest.raises(ValueError, match="read-only"):
        x[0] = 1.0
    view = np.asarray(x)
    assert not view.flags.writeable
    assert not np.from_dlpack(x).flags.writeable


def test_unknown_flag_bits_are_ignored() -> None:
    made = make_capsule((3,), flags=1 << 40)
    assert not dlarray.from_dlpack(made.capsule).readonly


def test_cuda_tensor_is_held_without_touching_memory() -> None:
    # A device pointer that would crash if dereferenced on the host.
    made = make_capsule((4, 4), device=(2, 1), data_bytes=1)
    x = dlarray.from_dlpack(made.capsule)
    assert str(x.device) == "cuda:1"
    assert x.__dlpack_device__() == (DLDeviceType.CUDA, 1)
    assert isinstance(x.__dlpack_device__()[0], DLDeviceType)
    view = x[1:, 2]
    assert view.shape == (3,) and view.strides == (4,)
    assert view.data_ptr == made.data_address + (4 + 2) * 4
    with pytest.raises(TypeError, match="cuda:1"):
        np.asarray(x)
    # hand it on: the struct describes the same device memory
    info, owner = consume_capsule(view.__dlpack__(max_version=(1, 0)))
    assert (info.device_type, info.device_id, info.data_ptr) == (2, 1, view.data_ptr)
    assert info.shape == (3,) and info.strides == (4,)
    del x, view, owner
    gc.collect()
    assert made.deleted == 1


# ----------------------------------------------------------------------------- producing


def _exported_info(x: dlarray.Array, **options: object):
    info, owner = consume_capsule(x.__dlpack__(**options))
    return info, owner


def test_versioned_and_legacy_exports() -> None:
    x = dlarray.asarray(np.arange(6.0).reshape(2, 3))
    info, _ = _exported_info(x, max_version=(1, 3))
    assert info.version is not None and info.version[0] == 1
    assert info.data_ptr == x.data_ptr and info.shape == (2, 3)
    info, _ = _exported_info(x)
    assert info.version is None
    info, _ = _exported_info(x, max_version=(0, 8))
    assert info.version is None


def test_read_only_export_sets_flag_and_refuses_legacy() -> None:
    x = dlarray.asarray(b"abcdef")
    info, _ = _exported_info(x, max_version=(1, 0))
    assert info.flags & FLAG_READ_ONLY
    with pytest.raises(BufferError, match="read-only"):
        x.__dlpack__()
    info, _ = _exported_info(x, copy=True)  # a copy is writable, so a legacy export is fine
    assert info.data_ptr != x.data_ptr


def test_copy_flags() -> None:
    x = dlarray.asarray(np.arange(4.0))
    info, _ = _exported_info(x, max_version=(1, 0), copy=True)
    assert info.flags & FLAG_IS_COPIED and info.data_ptr != x.data_ptr
    info, _ = _exported_info(x, max_version=(1, 0), copy=False)
    assert not info.flags & FLAG_IS_COPIED and info.data_ptr == x.data_ptr


def test_copy_false_across_devices_is_refused() -> None:
    x = dlarray.asarray(np.arange(4.0))
    with pytest.raises(BufferError, match="copy=False"):
        x.__dlpack__(max_version=(1, 0), dl_device=(2, 0), copy=False)
    info, _ = _exported_info(x, max_version=(1, 0), dl_device=(1, 0), copy=False)
    assert info.data_ptr == x.data_ptr


def test_stream_on_cpu_is_refused() -> None:
    x = dlarray.asarray(np.arange(4.0))
    with pytest.raises(BufferError, match="stream"):
        x.__dlpack__(stream=1)


def test_bad_max_version_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="max_version"):
        dlarray.asarray(np.arange(2)).__dlpack__(max_version=3)


def test_extended_dtype_round_trip_keeps_code_and_pointer() -> None:
    made = make_capsule((2, 4), code=4, bits=16)
    x = dlarray.from_dlpack(made.capsule)
    view = x[:, 1::2]
    info, owner = _exported_info(view, max_version=(1, 0))
    assert (info.dtype_code, info.dtype_bits) == (4, 16)
    assert info.data_ptr == made.data_address + 2
    assert info.strides == (4, 2)
    del x, view
    gc.collect()
    assert made.deleted == 0  # the export still uses the buffer
    del owner
    gc.collect()
    assert made.deleted == 1


@pytest.mark.parametrize("versioned", [True, False])
@pytest.mark.parametrize(("code", "bits"), [(4, 16), (2, 32), (10, 8)], ids=["bfloat16", "float32", "float8"])
@pytest.mark.parametrize("device", [(1, 0), (2, 0), (13, 0)], ids=["cpu", "cuda", "cuda_managed"])
def test_exports_carry_the_first_elements_address_and_byte_offset_0(
    versioned: bool, code: int, bits: int, device: tuple[int, int]
) -> None:
    """One rule for every view where data is an address, numpy's: the pointer moved to element
    [0, ..., 0] and byte_offset 0 (torch refuses a 0-d tensor with another byte_offset), whether
    the view came from a byte_offset or from indexing."""
    made = make_capsule((4, 6), code=code, bits=bits, device=device, byte_offset=2 * bits // 8,
                        data_address=None if device == (1, 0) else poison_address(), data_bytes=64 * 8)
    x = dlarray.from_dlpack(made.capsule)
    for view in (x, x[1, 2], x[2], x[1:3, 2:5], x[:, ::2], x.T, x[::-1, ::-1]):
        capsule = view.__dlpack__(max_version=(1, 0) if versioned else None)
        described = read_capsule(capsule)
        assert (described.data, described.byte_offset) == (view.data_ptr, 0)
        assert (described.shape, described.element_strides) == (view.shape, view.strides)


def test_exports_of_a_handle_keep_the_byte_offset() -> None:
    """On a device whose data is a handle (OpenCL's cl_mem), a view keeps the handle and counts
    its offset in byte_offset: a handle takes no arithmetic."""
    handle = poison_address()
    made = make_capsule((4, 6), code=2, bits=32, device=(4, 0), data_address=handle, byte_offset=8)
    view = dlarray.from_dlpack(made.capsule)[1, 2]
    described = read_capsule(view.__dlpack__(max_version=(1, 0)))
    assert (described.data, described.byte_offset) == (handle, 8 + (6 + 2) * 4)


def test_unconsumed_exports_are_cleaned_up() -> None:
    made = make_capsule((8,))
    x = dlarray.from_dlpack(made.capsule)
    for _ in range(10):
        x.__dlpack__(max_version=(1, 0))
        x.__dlpack__()
    del x
    gc.collect()
    assert made.deleted == 1


def test_consumer_failure_after_export_keeps_its_error() -> None:
    # numpy refuses bfloat16 after taking the capsule: its error must reach the caller intact.
    made = make_capsule((2,), code=4, bits=16)
    x = dlarray.from_dlpack(made.capsule)
    with pytest.raises(Exception) as info:
        np.from_dlpack(x)
    assert not isinstance(info.value, SystemError)
    del x
    gc.collect()
    assert made.deleted == 1


# ----------------------------------------------------------------------------- negotiation


def test_from_dlpack_offers_max_version_and_options() -> None:
    producer = Producer(shape=(2,))
    dlarray.from_dlpack(producer)
    assert producer.calls[-1] == {"max_version": (1, 3)}
    dlarray.from_dlpack(producer, copy=False)
    assert producer.calls[-1]["copy"] is False
    dlarray.from_dlpack(producer, device="cpu")
    assert producer.calls[-1]["dl_device"] == (DLDeviceType.CPU, 0)


def test_legacy_producer_fallback() -> None:
    producer = Producer(legacy_only=True, shape=(3,))
    x = dlarray.from_dlpack(producer)
    assert x.shape == (3,)
    assert producer.calls == [{}]
    copied = dlarray.from_dlpack(producer, copy=True)
    assert copied.data_ptr != producer.made[-1].data_address


def test_producer_errors_propagate() -> None:
    class Broken:
        def __dlpack__(self, **_: object) -> object:
            raise RuntimeError("producer failed")

    class NotACapsule:
        def __dlpack__(self, **_: object) -> object:
            return 42

    with pytest.raises(RuntimeError, match="producer failed"):
        dlarray.from_dlpack(Broken())
    with pytest.raises(TypeError, match="capsule"):
        dlarray.from_dlpack(NotACapsule())


def test_producer_that_ignores_max_version_gives_legacy() -> None:
    class Legacy:
        def __init__(self) -> None:
            self.made = make_capsule((2,), versioned=False)

        def __dlpack__(self, **_: object) -> object:
            return self.made.capsule

    producer = Legacy()
    x = dlarray.from_dlpack(producer)
    assert x.shape == (2,)
    del x
    gc.collect()
    assert producer.made.deleted == 1


# ----------------------------------------------------------------------------- threads and exit


def test_one_capsule_consumed_from_two_threads() -> None:
    """Two threads race to consume each capsule: exactly one wins, the other gets BufferError."""
    doubles_before = len(double_deletes)
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
        doubles = double_deletes[doubles_before:]
        del double_deletes[doubles_before:]  # other tests check that list is empty
    assert all(pair == ("consumed", "refused") for pair in pairs), {p: pairs.count(p) for p in set(pairs)}
    assert not doubles


def test_deleter_from_another_thread() -> None:
    made = make_capsule((16,))
    x = dlarray.from_dlpack(made.capsule)
    holder = [x[2:]]
    del x
    errors: list[BaseException] = []

    def drop() -> None:
        try:
            holder.clear()
            gc.collect()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    thread = threading.Thread(target=drop)
    thread.start()
    thread.join()
    assert not errors
    assert made.deleted == 1


def test_many_threads_import_view_export_free() -> None:
    import producer as p

    before = alive_count()
    failures: list[BaseException] = []

    def work() -> None:
        try:
            for i in range(200):
                made = p.make_capsule((4, 5), versioned=bool(i % 2))
                x = dlarray.from_dlpack(made.capsule)
                y = x[1:, ::2]
                z = np.from_dlpack(y)
                assert z.shape == (3, 3)
                del x, y, z, made
        except BaseException as exc:  # pragma: no cover - reported below
            failures.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    gc.collect()
    assert not failures
    assert alive_count() == before
    assert max(p.deleter_calls.values()) == 1
    assert not p.double_deletes


EXIT_SCRIPT = textwrap.dedent(
    """
    import faulthandler, gc, sys
    faulthandler.enable()
    sys.path.insert(0, {tests!r})
    import numpy as np, torch
    import dlarray
    from producer import make_capsule

    keep = []
    made = make_capsule((8, 8))
    x = dlarray.from_dlpack(made.capsule)
    keep += [x, x[1:], np.from_dlpack(x[::2]), x.__dlpack__(max_version=(1, 0)), x.__dlpack__()]
    t = torch.arange(10.0)
    y = dlarray.from_dlpack(t)
    keep += [y, torch.from_dlpack(y), y.__dlpack__(max_version=(1, 0))]
    bf = dlarray.from_dlpack(torch.ones(4, dtype=torch.bfloat16))
    keep += [bf, bf.__dlpack__(max_version=(1, 0)), torch.from_dlpack(bf)]
    cycle = [dlarray.asarray(np.ones(3))]
    cycle.append(cycle)
    keep.append(dlarray.asarray(bytearray(b"xyz")))
    print("ok")
    """
)


@needs.skip_without("torch")
def test_interpreter_exit_with_live_arrays_and_capsules(tmp_path) -> None:
    script = tmp_path / "exit_script.py"
    script.write_text(EXIT_SCRIPT.format(tests=str(__import__("pathlib").Path(__file__).parent)))
    for _ in range(3):
        result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == "ok"
        assert "Exception ignored" not in result.stderr
        assert "Fatal" not in result.stderr
