"""The general import path: a producer dlarray has no rule for, and a raw capsule.

A capsule that no other code holds (a producer's fresh capsule, a temporary passed in) is taken
without a claim or a rename: the capsule itself is the owner and its producer's destructor calls
the deleter, once. A capsule someone else holds is claimed and renamed: on the host, with a
deleter of compiled code, by numpy's C consumer (its array is the owner), else by the core. Both ways give
the same Array and the same refusals; the capsule's fields are read in place where CPython's
layout allows it, and through the C API otherwise (checked in a child process).
"""

from __future__ import annotations

import ctypes
import gc
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from producer import AloneProducer, Producer, deleter_calls, make_capsule

import dlarray
from dlarray._dlpack import FLAG_READ_ONLY, CapsuleType, _consume, capsule_name, consume_capsule
from dlarray.testing._capsules import DeleterWatch

TESTS = Path(__file__).resolve().parent
UNUSED = (b"dltensor_versioned", b"dltensor")


def _description(x: dlarray.Array, data_address: int) -> tuple[Any, ...]:
    """What the Array says of its tensor (its pointer from the tensor's data field)."""
    return (x.data_ptr - data_address, x.shape, x.strides, x.dtype, x.device, x._flags)


def _deleted(serials: list[int]) -> list[int]:
    return [deleter_calls.get(serial, 0) for serial in serials]


@pytest.mark.parametrize("versioned", [True, False])
@pytest.mark.parametrize("fields", [
    {"shape": (5,)}, {"shape": (5,), "strides": (2,), "data_bytes": 40}, {"shape": ()}, {"shape": (2, 3)},
    {"shape": (0,)}, {"shape": (3,), "strides": (-1,), "data_offset": 8}, {"shape": (4,), "flags": FLAG_READ_ONLY},
    {"shape": (3,), "byte_offset": 4}, {"shape": (1 << 28,), "strides": (0,), "data_bytes": 4},
])
def test_a_capsule_nobody_else_holds_is_the_owner_and_gives_the_same_array(
    fields: dict[str, Any], versioned: bool
) -> None:
    alone = AloneProducer(versioned=versioned, **fields)
    held = Producer(legacy_only=not versioned, **fields)
    x, y = dlarray.from_dlpack(alone), dlarray.from_dlpack(held)
    assert type(x._owner) is CapsuleType and capsule_name(x._owner) in UNUSED  # neither claimed nor renamed
    assert type(y._owner) is not CapsuleType and capsule_name(held.made[0].capsule) not in UNUSED
    assert _description(x, alone.made[0].data_address) == _description(y, held.made[0].data_address)
    assert x.readonly == y.readonly == (not versioned or bool(fields.get("flags")))
    serial = alone.made[0].serial
    assert _deleted([serial]) == [0]
    view = x[...]
    del x
    gc.collect()
    assert _deleted([serial]) == [0]  # the view keeps the capsule
    del view
    gc.collect()
    assert _deleted([serial]) == [1]


@pytest.mark.parametrize(("fields", "message"), [
    ({"lanes": 2}, "lanes=2"), ({"code": 99}, "dtype code 99"), ({"shape": (2, -3)}, "negative dimension"),
    ({"shape": (-1,)}, "negative dimension"), ({"null_shape": True}, "NULL shape"),
    ({"null_data": True}, "NULL data"), ({"device": (99, 0)}, "device_type 99"), ({"ndim": 65}, "ndim=65"),
    ({"shape": (3,), "strides": (1 << 62,)}, "overflow"),
    ({"shape": (3,), "byte_offset": 1 << 63, "data_bytes": 16}, "address space"),
])
@pytest.mark.parametrize("versioned", [True, False])
def test_a_capsule_nobody_else_holds_is_refused_as_a_held_one_and_left_to_its_producer(
    fields: dict[str, Any], message: str, versioned: bool
) -> None:
    alone = AloneProducer(versioned=versioned, **fields)
    with pytest.raises(BufferError, match=message) as alone_refusal:
        dlarray.from_dlpack(alone)
    made = make_capsule(versioned=versioned, **fields)
    with pytest.raises(BufferError) as held_refusal:
        dlarray.from_dlpack(made.capsule)
    # the same words (the data address aside: each capsule has its own memory)
    assert re.sub("0x[0-9a-f]+", "ADDRESS", str(alone_refusal.value)) == re.sub("0x[0-9a-f]+", "ADDRESS", str(held_refusal.value))
    assert capsule_name(made.capsule) in UNUSED and made.deleted == 0
    alone_refusal = held_refusal = None
    made.capsule = None
    gc.collect()
    assert _deleted([alone.made[0].serial, made.serial]) == [1, 1]  # each by its producer's destructor


def test_a_temporary_raw_capsule_is_taken_as_a_producers() -> None:
    producer = AloneProducer(shape=(4,))
    x = dlarray.from_dlpack(producer.__dlpack__(max_version=(1, 3)))
    assert type(x._owner) is CapsuleType
    del x
    gc.collect()
    assert _deleted([producer.made[0].serial]) == [1]


def test_a_held_raw_capsule_is_claimed_renamed_and_refused_the_second_time() -> None:
    producer = AloneProducer(shape=(4,))
    capsule = producer.__dlpack__(max_version=(1, 3))
    x = dlarray.from_dlpack(capsule)
    assert capsule_name(capsule) == b"used_dltensor_versioned"
    with pytest.raises(BufferError, match="consumed already"):
        dlarray.from_dlpack(capsule)
    del capsule
    gc.collect()
    assert _deleted([producer.made[0].serial]) == [0]  # the Array's owner calls it
    del x
    gc.collect()
    assert _deleted([producer.made[0].serial]) == [1]


def test_reference_counts_tell_a_held_capsule_from_a_temporary_here() -> None:
    # the shortcut for a capsule passed in stands on this (CPython up to 3.13 counts every reference
    # a caller passes; 3.14 may lend one uncounted, and then the shortcut must be off)
    from dlarray import _creation_functions

    tells = _creation_functions._counts_tell_a_held_parameter()
    assert _creation_functions._PARAMETER_COUNTS is tells
    if sys.implementation.name == "cpython" and sys.version_info < (3, 14):
        assert tells  # every reference a caller passes is counted there


def test_where_counts_cannot_tell_a_temporary_capsule_passed_in_is_claimed(monkeypatch: pytest.MonkeyPatch) -> None:
    from dlarray import _creation_functions

    monkeypatch.setattr(_creation_functions, "_PARAMETER_COUNTS", False)
    producer = AloneProducer(shape=(4,))
    x = dlarray.from_dlpack(producer.__dlpack__(max_version=(1, 3)))
    assert type(x._owner) is not CapsuleType  # claimed and renamed, as a held one
    del x
    gc.collect()
    assert _deleted([producer.made[0].serial]) == [1]


def test_a_producer_that_keeps_its_capsule_is_claimed_and_renamed() -> None:
    producer = Producer(shape=(4,))  # keeps every capsule it made
    x = dlarray.from_dlpack(producer)
    assert capsule_name(producer.made[0].capsule) == b"used_dltensor_versioned"
    del x
    gc.collect()
    assert producer.made[0].deleted == 1


def test_an_unknown_major_version_nobody_else_holds_is_deleted_at_once() -> None:
    producer = AloneProducer(shape=(4,), version=(2, 0))
    with pytest.raises(BufferError, match="major version 2"):
        dlarray.from_dlpack(producer)
    assert _deleted([producer.made[0].serial]) == [1]


def test_numpys_deleter_runs_once_through_its_own_destructor() -> None:
    class Forwarding:  # a producer dlarray has no rule for
        def __init__(self, array: np.ndarray) -> None:
            self.array = array
            self.watches: list[DeleterWatch] = []

        def __dlpack__(self, **options: Any) -> Any:
            capsule = self.array.__dlpack__(**options)
            self.watches.append(DeleterWatch(capsule))  # holds the struct's address, not the capsule
            return capsule

    source = Forwarding(np.arange(4.0))
    x = dlarray.from_dlpack(source)
    assert type(x._owner) is CapsuleType and np.shares_memory(np.asarray(x), source.array)
    assert source.watches[0].calls == 0
    del x
    gc.collect()
    assert source.watches[0].calls == 1


def test_a_consumer_that_keeps_the_capsule_a_producer_made_is_not_alone() -> None:
    """A capsule held anywhere else (a list here, a C library's reference alike) is claimed."""
    kept: list[Any] = []

    class Keeping:
        def __dlpack__(self, **options: Any) -> Any:
            kept.append(np.arange(3.0).__dlpack__(**options))
            return kept[-1]

    x = dlarray.from_dlpack(Keeping())
    assert capsule_name(kept[0]) == b"used_dltensor_versioned" and type(x._owner) is not CapsuleType


def _numpy_capsules() -> list[tuple[str, np.ndarray, tuple[int, int] | None]]:
    """(label, source, max_version): numpy arrays of every layout the core reads, and dtypes."""
    grid = np.arange(24.0).reshape(4, 6)
    frozen = np.arange(3, dtype=np.int16)
    frozen.flags.writeable = False
    return [
        ("1-D float32", np.arange(5, dtype=np.float32), (1, 0)),
        ("2-D strided", grid[::2, 1::2], (1, 0)),
        ("reversed", np.arange(4.0)[::-1], (1, 0)),
        ("0-D", np.array(2.5), (1, 0)),
        ("empty", np.zeros((0, 3)), (1, 0)),
        ("bool", np.array([True, False]), (1, 0)),
        ("complex", np.array([1 + 2j]), (1, 0)),
        ("read-only", frozen, (1, 0)),
        ("legacy", np.arange(3.0), None),
    ]


@pytest.mark.parametrize(("label", "source", "max_version"), _numpy_capsules(), ids=lambda v: v if isinstance(v, str) else "")
def test_a_held_capsule_with_a_compiled_deleter_is_taken_by_numpys_consumer_as_by_the_core(
    label: str, source: np.ndarray, max_version: tuple[int, int] | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """numpy's C consumer renames and owns a held host capsule in one call; the Array is the one the
    core's own transfer gives, the capsule is refused the second time, and numpy's deleter (which
    gives back the reference its export took of the source) runs once, when the Array goes."""
    unexported = sys.getrefcount(source)
    capsule = source.__dlpack__(max_version=max_version)
    x = dlarray.from_dlpack(capsule)
    assert type(x._owner) is np.ndarray  # numpy's consumer took it
    assert capsule_name(capsule) == (b"used_dltensor_versioned" if max_version else b"used_dltensor")
    with pytest.raises(BufferError, match="consumed already"):
        dlarray.from_dlpack(capsule)
    monkeypatch.setattr(_consume, "_host_code_bits", frozenset())  # the core's own transfer
    own = source.__dlpack__(max_version=max_version)
    y = dlarray.from_dlpack(own)
    assert type(y._owner) is _consume.ImportedTensor
    assert _description(x, 0) == _description(y, 0)
    assert x.readonly == y.readonly == (max_version is None or not source.flags.writeable)
    np.testing.assert_array_equal(np.asarray(x), source)
    del x, y, capsule, own
    gc.collect()
    assert sys.getrefcount(source) == unexported


def test_a_callback_deleter_is_never_handed_to_numpys_consumer() -> None:
    """numpy calls the deleter from its capsule's destructor even while an exception unwinds, which a
    callback into Python (ctypes) cannot survive: such deleters stay with the core's owner."""
    made = make_capsule((3,))  # the kit's deleter: a ctypes callback
    deleter = _consume.deleter_of(_consume._get_pointer(made.capsule, b"dltensor_versioned"))
    assert not _consume._capi.compiled_code(deleter)
    x = dlarray.from_dlpack(made.capsule)
    assert type(x._owner) is _consume.ImportedTensor
    numpys = np.zeros(1).__dlpack__(max_version=(1, 0))
    numpys_deleter = _consume.deleter_of(_consume._get_pointer(numpys, b"dltensor_versioned"))
    assert _consume._capi.compiled_code(numpys_deleter) is _consume._capi._TELLS_COMPILED_CODE
    del x
    gc.collect()
    assert made.deleted == 1


def test_an_array_over_a_callback_deleter_freed_while_an_exception_unwinds_calls_it_once() -> None:
    done = _run("""
        import gc
        from producer import make_capsule
        import dlarray

        made = make_capsule((3,))  # held, with a ctypes deleter

        def fails():
            x = dlarray.from_dlpack(made.capsule)
            raise KeyError(x.shape)  # x is freed while the KeyError unwinds

        try:
            fails()
        except KeyError:
            pass
        gc.collect()
        print(made.deleted)
    """)
    assert done.returncode == 0 and done.stdout.split() == ["1"], done.stderr[-3000:]


def test_a_refusal_by_numpys_consumer_leaves_the_capsule_to_the_cores_transfer(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuses(lender: Any) -> Any:
        raise BufferError("refused by the host consumer")

    monkeypatch.setattr(_consume, "_host_take", refuses)
    source = np.arange(4.0)
    unexported = sys.getrefcount(source)
    capsule = source.__dlpack__(max_version=(1, 0))
    x = dlarray.from_dlpack(capsule)
    assert type(x._owner) is _consume.ImportedTensor and capsule_name(capsule) == b"used_dltensor_versioned"
    del x, capsule
    gc.collect()
    assert sys.getrefcount(source) == unexported


def test_memory_running_out_in_numpys_consumer_is_a_memory_error_and_leaves_the_capsule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def out_of_memory(lender: Any) -> Any:
        raise MemoryError

    monkeypatch.setattr(_consume, "_host_take", out_of_memory)
    capsule = np.arange(4.0).__dlpack__(max_version=(1, 0))
    with pytest.raises(MemoryError):
        dlarray.from_dlpack(capsule)
    assert capsule_name(capsule) == b"dltensor_versioned"
    monkeypatch.undo()
    assert dlarray.from_dlpack(capsule).shape == (4,)  # no claim left behind


def _run(code: str) -> subprocess.CompletedProcess[str]:
    prelude = f"import sys, faulthandler\nfaulthandler.enable()\nsys.path.insert(0, {str(TESTS)!r})\n"
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120, check=False)


def test_the_capsule_layout_is_read_in_place_on_cpython() -> None:
    assert _consume._DIRECT
    capsule = np.arange(2.0).__dlpack__(max_version=(1, 3))
    fields = _consume._CAPSULE_AT(_consume.MEMORY, id(capsule) + _consume._CAPSULE_POINTER_OFFSET)
    pointer, name, _context, destructor = fields
    assert pointer == _consume._get_pointer(capsule, b"dltensor_versioned")
    assert ctypes.string_at(name) == capsule_name(capsule) == b"dltensor_versioned" and destructor
    consume_capsule(capsule)  # renamed in place
    assert capsule_name(capsule) == b"used_dltensor_versioned"


def test_without_the_layout_the_c_api_gives_the_same_results() -> None:
    """Where a capsule's layout is not CPython's, its name and pointer come from the C API, a
    rename goes through PyCapsule_SetName, and every capsule is claimed and renamed."""
    done = _run("""
        import gc
        from producer import AloneProducer, Producer, deleter_calls, make_capsule
        import dlarray
        from dlarray._dlpack import CapsuleType, capsule_name, _consume
        _consume._use_layout(None)
        for versioned in (True, False):
            alone = AloneProducer(versioned=versioned, shape=(3,))
            x = dlarray.from_dlpack(alone)
            assert type(x._owner) is not CapsuleType and x.shape == (3,)
            made = make_capsule((2, 2), versioned=versioned)
            y = dlarray.from_dlpack(made.capsule)
            assert capsule_name(made.capsule).startswith(b"used_") and y.strides == (2, 1)
            try:
                dlarray.from_dlpack(made.capsule)
            except BufferError as error:
                assert "consumed already" in str(error)
            else:
                raise AssertionError("imported twice")
            del x, y, made.capsule
            gc.collect()
            assert deleter_calls[alone.made[0].serial] == 1 and made.deleted == 1
        print("ok")
    """)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]


@pytest.mark.parametrize("versioned", [True, False])
def test_a_name_at_the_end_of_a_page_is_read_without_crossing_it(versioned: bool) -> None:
    """The name is read ahead only within its page: one that ends right before an inaccessible
    page is read through the C API (a child process: a read past it would crash)."""
    done = _run(f"""
        import ctypes, gc
        from producer import GuardedRegion, make_capsule
        import dlarray
        from dlarray._dlpack import _capi, capsule_name
        region = GuardedRegion(1)
        assert region.guarded
        made = make_capsule((3,), versioned={versioned})
        text = capsule_name(made.capsule) + b"\\0"
        name = (ctypes.c_char * len(text)).from_address(region.end_of(0) - len(text))
        name.raw = text
        pointer = _capi.capsule_get_pointer(made.capsule, capsule_name(made.capsule))
        capsule = _capi.capsule_new(pointer, name, None)  # no destructor: claimed, renamed, deleted by us
        x = dlarray.from_dlpack(capsule)
        assert x.shape == (3,) and capsule_name(capsule).startswith(b"used_")
        del x
        gc.collect()
        assert made.deleted == 1
        used = ctypes.create_string_buffer(b"used_dltensor")
        _capi.capsule_set_name(made.capsule, used)  # its tensor was taken through the other capsule
        made.capsule = None
        print("ok")
    """)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]
