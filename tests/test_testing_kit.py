"""The DLPack conformance kit (dlarray.testing): it passes what conforms and flags what does not.

Each producer check is run against a producer that breaks exactly that rule (a numpy array behind a
wrapper that alters its capsules), each consumer requirement against a consumer that breaks it;
the correct versions pass. dlarray itself passes its own kit, as producer and as consumer.
"""

from __future__ import annotations

import ctypes
import gc
import json
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import dlarray
import needs
from dlarray._dlpack._structs import DLManagedTensor, DLManagedTensorVersioned, DLTensor
from dlarray.testing import (
    CheckResult,
    Report,
    SyntheticProducer,
    check_consumer,
    check_producer,
    make_capsule,
    read_capsule,
)
from dlarray.testing import _capsules as _kit_capsules
from dlarray.testing._capsules import DeleterWatch, capsule_name, rename_capsule
from dlarray.testing._consumer_checks import ACCEPT, CASES, REFUSE
from dlarray.testing._report import CRASHED, FAILED, NOT_APPLICABLE, PASSED

ROOT = Path(__file__).resolve().parent.parent

def strided() -> np.ndarray:
    return np.arange(24, dtype=np.float32).reshape(4, 6)[1:, ::2]


# --------------------------------------------------------------------------- dlarray itself
def test_dlarray_passes_its_own_producer_checks() -> None:
    def readonly() -> Any:
        base = strided()
        base.setflags(write=False)
        return dlarray.from_dlpack(base)

    report = check_producer(lambda: dlarray.asarray(strided()), make_readonly=readonly)
    assert report.failures == [], str(report)
    assert report["layout"].status == PASSED and report["read_only_flag"].status == PASSED


def test_dlarray_passes_its_own_consumer_checks() -> None:
    report = check_consumer(dlarray.from_dlpack)
    assert report.failures == [], str(report)
    # the one valid input dlarray does not take is an opaque handle, refused with BufferError
    assert [row.name for row in report.results if row.status != PASSED] == ["dtype=opaque_handle"], str(report)


# --------------------------------------------------------------------------- a producer that breaks one rule
_VERSIONED, _LEGACY = b"dltensor_versioned", b"dltensor"
_FOREIGN_DELETER = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)
# the kit's own bindings: PyCapsule_New with a ctypes destructor, PyCapsule_GetPointer by address
_capsule_new, _capsule_pointer = _kit_capsules._new_capsule, _kit_capsules._raw_pointer
_DESTRUCTOR = _kit_capsules._DESTRUCTOR
_capsule_name = ctypes.pythonapi["PyCapsule_GetName"]  # by address: the destructor gets one
_capsule_name.argtypes, _capsule_name.restype = [ctypes.c_void_p], ctypes.c_char_p
_NAMES = {name: ctypes.create_string_buffer(name) for name in (_VERSIONED, _LEGACY)}
_DELETER_AT = {_VERSIONED: DLManagedTensorVersioned.deleter.offset, _LEGACY: DLManagedTensor.deleter.offset}
_TENSOR_AT = {_VERSIONED: DLManagedTensorVersioned.dl_tensor.offset, _LEGACY: 0}
#: capsule address -> (deleter calls while unused, whether a used_* capsule still calls it)
_plans: dict[int, tuple[int, bool]] = {}


def _faulty_destructor(capsule: int) -> None:
    name = _capsule_name(capsule)
    calls, ignore_rename = _plans.pop(capsule, (1, False))
    unused = name in _NAMES
    if not unused and not ignore_rename:
        return
    plain = name if unused else name.removeprefix(b"used_")
    managed = _capsule_pointer(capsule, name)
    deleter = ctypes.c_void_p.from_address(managed + _DELETER_AT[plain]).value
    for _ in range(calls if unused else 1):
        _FOREIGN_DELETER(deleter)(managed)


_FAULTY_DESTRUCTOR = _DESTRUCTOR(_faulty_destructor)


def _rewrap(capsule: Any, calls: int, ignore_rename: bool) -> Any:
    """The same struct in a capsule whose destructor calls its deleter ``calls`` times, and with
    ``ignore_rename`` even after a consumer renamed the capsule (both wrong)."""
    name = capsule_name(capsule)
    managed = read_capsule(capsule).managed
    rename_capsule(capsule, b"used_" + name)  # numpy's own destructor now lets go of the struct
    fresh = _capsule_new(managed, _NAMES[name], _FAULTY_DESTRUCTOR)
    _plans[id(fresh)] = (calls, ignore_rename)
    return fresh


def _tensor_field(capsule: Any, field: str, kind: Any) -> Any:
    """A DLTensor field of an unconsumed capsule, as a writable ctypes object."""
    name = capsule_name(capsule)
    managed = read_capsule(capsule).managed
    return kind.from_address(managed + _TENSOR_AT[name] + getattr(DLTensor, field).offset)


class FakeProducer:
    """numpy's producer behind a wrapper that breaks exactly one rule (``fault``), or none."""

    def __init__(self, fault: str | None = None, readonly: bool = False) -> None:
        self.fault = fault
        self.readonly = readonly
        self.base = strided()
        self.array = self.base
        if readonly:
            self.array = self.base.view()
            self.array.setflags(write=False)

    @property
    def __array_interface__(self) -> dict[str, Any]:
        return self.array.__array_interface__

    def __dlpack_device__(self) -> Any:
        if self.fault == "device_not_tuple":
            return [1, 0]
        if self.fault == "device_disagrees":
            return (1, 1)
        return (1, 0)

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: bool | None = None) -> Any:
        fault = self.fault
        if fault == "refuses_all":  # an object this library cannot export at all
            raise BufferError("this object cannot be exported")
        if fault == "refuses_with_type_error":  # as pyarrow refuses bit-packed booleans
            raise TypeError("bit-packed booleans are not supported")
        if fault == "keywords_runtime_error" and (copy is not None or dl_device is not None):  # as tensorflow
            raise RuntimeError("does not support DLPack export with copy or dl_device")
        if stream is not None and fault != "stream_accepted":
            raise (RuntimeError if fault == "stream_runtime_error" else BufferError)("no streams on the CPU")
        if fault == "stream_none_refused" and stream is None and max_version is None:
            raise BufferError("refuses stream=None")
        if dl_device is not None:
            if fault == "dl_device_own_refused" or (tuple(dl_device) != (1, 0) and fault != "dl_device_ignored"):
                raise BufferError(f"cannot export to {dl_device}")
        versioned = max_version is not None and max_version[0] >= 1
        if fault == "refuses_2_0" and versioned and max_version[0] >= 2:
            raise BufferError("a newer major version")
        versioned = {"always_versioned": True, "always_legacy": False}.get(fault or "", versioned)
        source, copied = self.array, False
        if (copy and fault != "copy_ignored") or (copy is False and fault == "copy_false_copies"):
            source, copied = self.array.copy(), True
        if not versioned and self.readonly and not copied:
            if fault != "readonly_legacy_allowed":
                raise BufferError("read-only data cannot be exported as a legacy capsule")
            source = self.base  # the same memory, writable
        capsule = source.__dlpack__(max_version=(1, 0) if versioned else None)
        if versioned:
            managed = read_capsule(capsule).managed
            flags = ctypes.c_uint64.from_address(managed + DLManagedTensorVersioned.flags.offset)
            if copied and fault != "copy_unflagged" or fault == "copied_flag_on_original":
                flags.value |= 2
            if fault == "readonly_unflagged":
                flags.value &= ~1
            if fault == "unknown_flag":
                flags.value |= 1 << 10
            if fault == "version_2":
                ctypes.c_uint32.from_address(managed).value = 2
            if fault == "null_strides_1_3":
                ctypes.c_uint32.from_address(managed + 4).value = 3  # version.minor
                _tensor_field(capsule, "strides", ctypes.c_void_p).value = None
        if fault == "bad_shape":
            shape_at = _tensor_field(capsule, "shape", ctypes.c_void_p).value
            ctypes.c_int64.from_address(shape_at).value += 1
        if fault == "bad_dtype":
            _tensor_field(capsule, "dtype", ctypes.c_uint8 * 2)[1] = 64  # bits
        if fault == "bad_pointer":
            _tensor_field(capsule, "byte_offset", ctypes.c_uint64).value += 4
        if fault in ("destructor_twice", "destructor_ignores_rename"):
            capsule = _rewrap(capsule, 2 if fault == "destructor_twice" else 1,
                              ignore_rename=fault == "destructor_ignores_rename")
        return capsule


def test_a_conforming_producer_passes_every_check() -> None:
    report = check_producer(FakeProducer, make_readonly=lambda: FakeProducer(readonly=True),
                            refused=[lambda: FakeProducer("refuses_all")])
    assert report.failures == [], str(report)
    applicable = {row.name for row in report.results if row.status != NOT_APPLICABLE}
    assert {"layout", "copy=True", "read_only_flag", "read_only_legacy", "deleter_after_rename", "refusals",
            "deleter_once (every capsule)"} <= applicable


PRODUCER_FAULTS = {
    "device_not_tuple": {"dlpack_device"},
    "device_disagrees": {"device_agrees"},
    "always_versioned": {"max_version=absent", "max_version=(0, 8)"},
    "always_legacy": {"max_version=(1, 0)", "max_version=(1, 99)", "max_version=(2, 0)", "copy=True"},
    "refuses_2_0": {"max_version=(2, 0)"},
    "version_2": {"version_field", "max_version=(1, 0)"},
    "unknown_flag": {"version_field"},
    "bad_shape": {"layout"},
    "bad_dtype": {"layout"},
    "bad_pointer": {"layout"},
    "null_strides_1_3": {"strides_not_null"},
    "copy_ignored": {"copy=True"},
    "copy_unflagged": {"copy=True"},
    "copy_false_copies": {"copy=False"},
    "copied_flag_on_original": {"copy=None", "copy=False"},
    "dl_device_ignored": {"dl_device=other,copy=False"},
    "dl_device_own_refused": {"dl_device=own"},
    "stream_accepted": {"stream=cpu"},
    "stream_none_refused": {"stream=None"},
    "keywords_runtime_error": {"copy=True", "copy=False", "dl_device=own", "dl_device=other,copy=False",
                               "dl_device=unknown"},
    "destructor_twice": {"deleter_once (versioned)", "deleter_once (legacy)", "deleter_once (every capsule)"},
    "destructor_ignores_rename": {"deleter_after_rename"},
}


@pytest.mark.parametrize("fault", sorted(PRODUCER_FAULTS))
def test_each_producer_check_flags_a_producer_that_breaks_it(fault: str) -> None:
    report = check_producer(lambda: FakeProducer(fault))
    assert PRODUCER_FAULTS[fault] <= set(report.failures), str(report)


def test_a_cpu_stream_refused_with_any_exception_passes() -> None:
    """The standard: "On CPU ... only None is accepted"; "Other errors are raised when export fails
    for other reasons (e.g., incorrect arguments passed ...)". numpy 2.4 raises RuntimeError there,
    numpy 2.5 ValueError: both conform; only accepting the stream fails."""
    report = check_producer(lambda: FakeProducer("stream_runtime_error"))
    assert report["stream=cpu"].status == PASSED, str(report)
    assert "refused (RuntimeError)" in report["stream=cpu"].detail
    assert report.failures == []


@pytest.mark.parametrize(("fault", "check"), [("readonly_unflagged", "read_only_flag"),
                                              ("readonly_legacy_allowed", "read_only_legacy")])
def test_read_only_checks_flag_a_producer_that_loses_read_only(fault: str, check: str) -> None:
    report = check_producer(FakeProducer, make_readonly=lambda: FakeProducer(fault, readonly=True))
    assert report.failures == [check], str(report)


def test_refusals_must_be_buffer_errors() -> None:
    report = check_producer(FakeProducer, refused=[FakeProducer, lambda: FakeProducer("stream_runtime_error")])
    assert report.failures == ["refusals"]
    assert "was accepted" in report["refusals"].detail


def test_edge_cases_may_be_exported_or_refused_with_buffer_error_only() -> None:
    report = check_producer(FakeProducer, edge_cases=[FakeProducer, lambda: FakeProducer("refuses_all")])
    assert report["edge_cases"].status == PASSED, report["edge_cases"].detail
    assert "exported as float32" in report["edge_cases"].detail and "refused: BufferError" in report["edge_cases"].detail
    report = check_producer(FakeProducer, edge_cases=[lambda: FakeProducer("refuses_with_type_error")])
    assert report.failures == ["edge_cases"]
    assert "raised TypeError: bit-packed booleans are not supported" in report["edge_cases"].detail


def test_a_producer_that_cannot_be_made_gives_a_report() -> None:
    report = check_producer(lambda: 1 / 0, subject="broken")
    assert [(row.name, row.status) for row in report.results] == [("make", FAILED)]
    assert "ZeroDivisionError" in report["make"].detail


def test_a_deleter_the_kit_cannot_see_is_not_applicable_not_passed() -> None:
    # jaxlib's destructor frees its tensor without calling the struct's deleter field
    import jax.numpy as jnp

    report = check_producer(lambda: jnp.arange(6.0))
    assert report["deleter_once (legacy)"].status == NOT_APPLICABLE


# --------------------------------------------------------------------------- CUDA streams (never a real driver)
class FakeCudaProducer:
    """Claims CUDA; its data pointer is an inaccessible page, its streams are never used."""

    def __init__(self, fault: str | None = None) -> None:
        self.fault = fault

    def __dlpack_device__(self) -> tuple[int, int]:
        return (2, 0)

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: bool | None = None) -> Any:
        if stream == 0 and self.fault != "stream0_accepted":
            raise ValueError("stream=0 is ambiguous on CUDA")
        if stream == -1 and self.fault == "stream_minus1_refused":
            raise BufferError("no stream -1")
        from dlarray.testing._capsules import poison_address

        versioned = max_version is not None and max_version[0] >= 1
        return make_capsule((2, 3), device=(2, 0), data_address=poison_address(), versioned=versioned,
                            strides=(3, 1)).capsule


def test_cuda_stream_checks_run_only_for_a_cuda_producer() -> None:
    report = check_producer(FakeCudaProducer)
    assert report["stream=0 (cuda)"].status == PASSED
    assert report["stream=-1,1,2 (cuda)"].status == PASSED
    assert report["stream=cpu"].status == NOT_APPLICABLE
    cpu = check_producer(FakeProducer)
    assert cpu["stream=0 (cuda)"].status == NOT_APPLICABLE


@pytest.mark.parametrize(("fault", "check"), [("stream0_accepted", "stream=0 (cuda)"),
                                              ("stream_minus1_refused", "stream=-1,1,2 (cuda)")])
def test_cuda_stream_checks_flag_a_producer_that_breaks_them(fault: str, check: str) -> None:
    assert check in check_producer(lambda: FakeCudaProducer(fault)).failures


# --------------------------------------------------------------------------- the C exchange API
_FROM_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(ctypes.c_void_p))


def _exchange_from_py(obj: Any, out: Any) -> int:
    # hands over the struct of a numpy capsule: renamed used_*, it is the caller's to delete
    source = obj.array.copy() if obj.fault == "other_memory" else obj.array
    capsule = source.__dlpack__(max_version=(1, 0))
    managed = read_capsule(capsule).managed
    if obj.fault == "flags_differ":
        ctypes.c_uint64.from_address(managed + DLManagedTensorVersioned.flags.offset).value |= 1
    rename_capsule(capsule, b"used_dltensor_versioned")
    out[0] = managed
    return 0


_EXCHANGE_FUNCTION = _FROM_PY(_exchange_from_py)


def _exchange_capsule() -> Any:
    from dlarray.testing._producer_checks import _ExchangeAPI

    api = _ExchangeAPI(1, 3, None, None, ctypes.cast(_EXCHANGE_FUNCTION, ctypes.c_void_p).value)
    name = ctypes.create_string_buffer(b"dlpack_exchange_api")
    new = ctypes.pythonapi["PyCapsule_New"]
    new.argtypes, new.restype = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p], ctypes.py_object
    capsule = new(ctypes.addressof(api), name, None)
    _exchange_capsule.keep = (api, name)  # type: ignore[attr-defined]
    return capsule


class ExchangeProducer:
    """numpy's producer plus a C exchange API that hands over numpy's struct (or breaks a rule)."""

    __dlpack_c_exchange_api__ = _exchange_capsule()

    def __init__(self, fault: str | None = None, refuse: bool = False) -> None:
        self.fault, self.refuse = fault, refuse
        self.array = strided()

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: bool | None = None) -> Any:
        if self.refuse:
            raise BufferError("this object cannot be exported")
        if stream is not None:
            raise BufferError("no streams on the CPU")
        return self.array.__dlpack__(max_version=max_version, dl_device=dl_device, copy=copy)


def test_an_exchange_api_that_agrees_with_dlpack_passes() -> None:
    report = check_producer(ExchangeProducer)
    assert report["exchange_api"].status == PASSED
    assert report["exchange_api=__dlpack__"].status == PASSED, report["exchange_api=__dlpack__"].detail


@pytest.mark.parametrize("fault", ["other_memory", "flags_differ"])
def test_an_exchange_api_that_disagrees_with_dlpack_is_flagged(fault: str) -> None:
    report = check_producer(lambda: ExchangeProducer(fault))
    assert "exchange_api=__dlpack__" in report.failures
    assert ("pointer" if fault == "other_memory" else "flags") in report["exchange_api=__dlpack__"].detail


def test_an_exchange_api_must_refuse_what_dlpack_refuses() -> None:
    report = check_producer(ExchangeProducer, refused=[lambda: ExchangeProducer(refuse=True)])
    assert "exchange_api refusals" in report.failures
    assert "the C API accepted" in report["exchange_api refusals"].detail


def test_torch_exchange_api_agrees_with_its_dlpack() -> None:
    torch = needs.library("torch")
    if not hasattr(torch.Tensor, "__dlpack_c_exchange_api__"):
        pytest.skip("this torch has no DLPack C exchange API")
    report = check_producer(lambda: torch.arange(24.0).reshape(4, 6)[1:, ::2])
    assert report["exchange_api=__dlpack__"].status == PASSED, report["exchange_api=__dlpack__"].detail


# --------------------------------------------------------------------------- consumers that break one rule
# Module-level functions: the kit runs them in a fresh process that imports this module by name.
def _zero_copy_numpy(view: Any) -> np.ndarray:
    """A writable numpy array over a CPU float32 tensor's memory (no owner: the caller keeps it)."""
    count = 1
    for n in view.shape:
        count *= n
    memory = (ctypes.c_float * count).from_address(view.pointer)
    return np.frombuffer(memory, np.float32).reshape(view.shape)


def _take(x: Any) -> tuple[Any, Any]:
    """What a minimal consumer does: ask, rename; returns (capsule, its description)."""
    capsule = x.__dlpack__(max_version=(1, 3))
    view = read_capsule(capsule)
    rename_capsule(capsule, b"used_" + view.name)
    return capsule, view


def _delete(view: Any) -> None:
    _FOREIGN_DELETER(view.deleter)(view.managed)


def consumer_without_rename(x: Any) -> Any:
    view = read_capsule(x.__dlpack__(max_version=(1, 3)))
    return _zero_copy_numpy(view).copy()


def consumer_deleting_early(x: Any) -> Any:
    _capsule, view = _take(x)
    result = _zero_copy_numpy(view)
    _delete(view)  # while result still points into the buffer
    return result


def consumer_deleting_twice(x: Any) -> Any:
    _capsule, view = _take(x)
    result = _zero_copy_numpy(view).copy()
    _delete(view)
    _delete(view)
    return result


def consumer_never_deleting(x: Any) -> Any:
    _capsule, view = _take(x)
    return _zero_copy_numpy(view).copy()


class _WritableView:
    """A result that says it is writable over memory the producer marked read-only."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.flags = SimpleNamespace(writeable=True)

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.inner.__dlpack__(**kwargs)


def consumer_dropping_read_only(x: Any) -> Any:
    return _WritableView(dlarray.from_dlpack(x))


def consumer_changing_values(x: Any) -> Any:
    return np.from_dlpack(x) + 1


def consumer_offering_no_max_version(x: Any) -> Any:
    return dlarray.from_dlpack(x.__dlpack__())


def consumer_passing_a_cpu_stream(x: Any) -> Any:
    return dlarray.from_dlpack(x.__dlpack__(stream=1, max_version=(1, 3)))


def consumer_raising_runtime_errors(x: Any) -> Any:
    try:
        return dlarray.from_dlpack(x)
    except BufferError as error:
        raise RuntimeError(str(error)) from None


def consumer_accepting_anything(x: Any) -> Any:
    return SimpleNamespace(source=x.__dlpack__(max_version=(1, 3)))


def consumer_renaming_then_refusing(x: Any) -> Any:
    capsule = x.__dlpack__(max_version=(1, 3))
    name = capsule_name(capsule)
    if name in (_VERSIONED, _LEGACY):
        rename_capsule(capsule, b"used_" + name)  # takes ownership, then never frees it
    raise BufferError("refused after taking ownership")


def consumer_crashing(x: Any) -> Any:
    ctypes.string_at(0)  # a segmentation fault


def consumer_hanging(x: Any) -> Any:
    import time

    time.sleep(600)


def consumer_refusing_bfloat16_badly(x: Any) -> Any:
    if x.fields.get("code") == 4:
        raise RuntimeError("no bfloat16 here")
    return dlarray.from_dlpack(x)


def consumer_refusing_bfloat16_cleanly(x: Any) -> Any:
    if x.fields.get("code") == 4:
        raise BufferError("no bfloat16 here")
    return dlarray.from_dlpack(x)


def consumer_widening_dtypes(x: Any) -> Any:
    return np.from_dlpack(x).astype(np.float64)


CONSUMER_FAULTS = [
    (consumer_without_rename, "versioned", "not renamed"),
    (consumer_deleting_early, "versioned", "while the result still points into the buffer"),
    (consumer_deleting_twice, "versioned", "ran 2 times"),
    (consumer_never_deleting, "versioned", "never freed"),
    (consumer_dropping_read_only, "read_only", "read-only data became writable"),
    (consumer_changing_values, "versioned", "values differ"),
    (consumer_offering_no_max_version, "call_arguments", "no max_version offered"),
    (consumer_passing_a_cpu_stream, "call_arguments", "stream=1 passed for CPU data"),
    (consumer_renaming_then_refusing, "major_version_2", "without calling its deleter"),
    (consumer_renaming_then_refusing, "shape_negative", "never freed"),
    (consumer_refusing_bfloat16_badly, "dtype=bfloat16", "a refusal must be a BufferError"),
    (consumer_widening_dtypes, "versioned", "dtype (code, bits, lanes) (2, 64, 1)"),
]


@pytest.mark.parametrize(("consumer", "case", "why"), CONSUMER_FAULTS,
                         ids=[f"{c.__name__}-{case}" for c, case, _ in CONSUMER_FAULTS])
def test_each_consumer_requirement_flags_a_consumer_that_breaks_it(consumer: Any, case: str, why: str) -> None:
    report = check_consumer(consumer, cases=[case])
    assert report[case].status == FAILED, str(report)
    assert why in report[case].detail, str(report)


def test_every_must_refuse_case_flags_a_consumer_that_accepts_it() -> None:
    refused = [name for name, case in CASES.items() if case.kind == REFUSE and name != "propagates_buffer_error"]
    report = check_consumer(consumer_accepting_anything, cases=refused)
    for name in refused:
        assert report[name].status == FAILED and "accepted" in report[name].detail, str(report)


def test_every_must_refuse_case_flags_a_refusal_that_is_not_a_buffer_error() -> None:
    refused = [name for name, case in CASES.items() if case.kind == REFUSE and TypeError not in case.refusals]
    report = check_consumer(consumer_raising_runtime_errors, cases=refused)
    for name in refused:
        assert report[name].status == FAILED and "RuntimeError" in report[name].detail, str(report)


def test_a_clean_refusal_of_an_optional_dtype_is_not_applicable() -> None:
    report = check_consumer(consumer_refusing_bfloat16_cleanly, cases=["dtype=bfloat16", "versioned"])
    assert [row.status for row in report.results] == [NOT_APPLICABLE, PASSED]


def test_valid_cases_pass_for_a_correct_consumer() -> None:
    valid = [name for name, case in CASES.items() if case.kind == ACCEPT]
    report = check_consumer(dlarray.from_dlpack, cases=valid)
    assert report.failures == [], str(report)


def test_a_crash_is_reported_and_the_next_cases_still_run() -> None:
    report = check_consumer(consumer_crashing, cases=["versioned", "legacy"])
    assert [row.status for row in report.results] == [CRASHED, CRASHED]
    assert "died" in report["versioned"].detail


def test_a_hang_is_reported_as_crashed_after_the_timeout() -> None:
    report = check_consumer(consumer_hanging, cases=["versioned"], timeout=2)
    assert report["versioned"].status == CRASHED and "timed out" in report["versioned"].detail


def test_a_lambda_runs_in_a_forked_child() -> None:
    report = check_consumer(lambda x: np.from_dlpack(x), cases=["versioned", "strided"])
    assert [row.status for row in report.results] == [PASSED, PASSED]


def test_a_consumer_can_be_named_by_a_string() -> None:
    report = check_consumer("numpy:from_dlpack", cases=["versioned"])
    assert report["versioned"].status == PASSED


def test_unknown_case_names_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown consumer cases"):
        check_consumer(np.from_dlpack, cases=["no-such-case"])


def consumer_printing_then_aborting(x: Any) -> Any:
    import os

    os.write(2, b"F0000 00:00:1.5 42 check.cc:1] Check failed: ptr = 0x7f0012345678\n")
    os.abort()


def test_a_crash_says_how_the_process_ended_and_what_it_printed() -> None:
    report = check_consumer(consumer_printing_then_aborting, cases=["versioned"])
    # the log prefix (time, thread) and the address are dropped: the same crash reads the same every run
    assert report["versioned"] == CheckResult(
        "versioned", CRASHED, "the process died of SIGABRT (status -6): check.cc:1] Check failed: ptr = 0x…")


# What tensorflow, paddle and torch do, played by numpy: a consumer's faults the kit must name.
class _Tensor:
    """A consumer's result over a numpy array: no read-only flag, addition and numpy conversion
    by hooks that fail as some frameworks do."""

    def __init__(self, array: np.ndarray, add: Any = None, to_numpy: Any = None) -> None:
        self.array, self._add, self._to_numpy = array, add, to_numpy

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> Any:
        return self.array.__dlpack_device__()

    def __add__(self, other: Any) -> Any:
        if self._add is not None:
            self._add(self.array)
        return _Tensor(self.array + self.array)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if self._to_numpy is not None:
            self._to_numpy(self.array)
        return self.array

    def __setitem__(self, index: Any, value: Any) -> None:
        self.array[index] = value


class _WritableAlias:
    """Describes a numpy array's memory as writable (and keeps the array, so its deleter waits)."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array
        self.__array_interface__ = dict(array.__array_interface__, data=(array.ctypes.data, False))


def _writable_numpy(x: Any) -> np.ndarray:
    """A writable numpy array over what ``x`` exports, READ_ONLY or not."""
    return np.asarray(_WritableAlias(np.from_dlpack(x)))


def _abort_if_unaligned(array: np.ndarray) -> None:
    import os

    if array.ctypes.data % 64:
        os.write(2, b"Check failed: IsAligned()\n")
        os.abort()


def consumer_aborting_on_unaligned_data(x: Any) -> Any:
    """tensorflow: takes any buffer zero-copy, then aborts in its first kernel if it is unaligned."""
    return _Tensor(_writable_numpy(x), add=_abort_if_unaligned)


def _refuse_negative_strides(array: np.ndarray) -> None:
    if any(stride < 0 for stride in array.strides):
        raise MemoryError("Fail to alloc memory of 18446744073709551604 size")


def consumer_failing_to_convert_negative_strides(x: Any) -> Any:
    """paddle: .numpy() (numpy.asarray) of a negative-stride tensor fails."""
    return _Tensor(_writable_numpy(x), to_numpy=_refuse_negative_strides)


def consumer_writing_into_read_only_data(x: Any) -> Any:
    """paddle and torch: READ_ONLY dropped, and their tensors write into the producer's memory."""
    return _Tensor(_writable_numpy(x))


def consumer_ignoring_byte_offset(x: Any) -> Any:
    """paddle: the result starts at data, byte_offset ignored."""
    import weakref

    _capsule, view = _take(x)
    count = 1
    for n in view.shape:
        count *= n
    result = _Tensor(np.frombuffer((ctypes.c_float * count).from_address(view.data), np.float32).reshape(view.shape))
    weakref.finalize(result, _delete, view)  # the tensor is the result's: freed with it
    return result


USE_FAULTS = [
    (consumer_aborting_on_unaligned_data, "unaligned", CRASHED, "SIGABRT (status -6): Check failed: IsAligned()"),
    (consumer_failing_to_convert_negative_strides, "negative_strides", FAILED,
     "numpy.asarray(result) raised MemoryError: Fail to alloc memory"),
    (consumer_writing_into_read_only_data, "read_only", FAILED, "result[0, 0] = 0 wrote into the read-only buffer"),
    (consumer_ignoring_byte_offset, "byte_offset", FAILED, "byte_offset 8 was ignored"),
]


@pytest.mark.parametrize(("consumer", "case", "status", "why"), USE_FAULTS, ids=[c.__name__ for c, *_ in USE_FAULTS])
def test_a_result_is_used_as_users_use_it(consumer: Any, case: str, status: str, why: str) -> None:
    report = check_consumer(consumer, cases=[case, "versioned"])
    assert report[case].status == status and why in report[case].detail, str(report)
    assert report["versioned"].status == PASSED, str(report)  # the same consumer on a plain tensor


def test_a_consumer_that_keeps_read_only_data_read_only_passes() -> None:
    report = check_consumer(np.from_dlpack, cases=["read_only"])
    assert report["read_only"].status == PASSED
    assert "an assignment through the result is refused (ValueError)" in report["read_only"].detail


# A consumer of capsules, as tensorflow.experimental.dlpack.from_dlpack: reads legacy capsules only.
class _Capsule:
    def __init__(self, capsule: Any) -> None:
        self.capsule = capsule

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


def capsule_consumer_reading_legacy_only(capsule: Any) -> Any:
    if not _kit_capsules.is_capsule(capsule):
        raise TypeError(f"expected a capsule, got {type(capsule).__name__}")
    if capsule_name(capsule) != _LEGACY:
        raise ValueError(f'capsule name must be "dltensor", got "%s". {capsule_name(capsule)!r}')
    return np.from_dlpack(_Capsule(capsule))


def test_a_consumer_of_capsules_is_handed_capsules() -> None:
    report = check_consumer(capsule_consumer_reading_legacy_only, capsules=True,
                            cases=["versioned", "legacy", "strided", "read_only", "call_arguments", "not_a_capsule"])
    assert report["versioned"].status == FAILED and "refused with ValueError" in report["versioned"].detail
    assert report["read_only"].status == FAILED  # a versioned capsule too
    assert report["legacy"].status == report["strided"].status == PASSED  # what __dlpack__() gives
    assert report["call_arguments"].status == NOT_APPLICABLE
    assert report["not_a_capsule"].status == PASSED  # 42 itself, refused with TypeError


def test_the_check_command_recognises_a_consumer_of_capsules(capsys: pytest.CaptureFixture[str]) -> None:
    from dlarray.testing._cli import main

    assert main(["test_testing_kit:capsule_consumer_reading_legacy_only", "--consumer-only"]) == 1
    out = capsys.readouterr().out
    assert "consumer (test_testing_kit:capsule_consumer_reading_legacy_only, takes capsules)" in out
    assert "call_arguments" in out and "the consumer takes a capsule" in out


def consumer_taking_nothing(x: Any) -> Any:
    raise TypeError("takes nothing at all")


def test_the_check_command_ends_in_a_report_whatever_the_consumer_takes(capsys: pytest.CaptureFixture[str]) -> None:
    from dlarray.testing._cli import main

    assert main(["test_testing_kit:consumer_taking_nothing", "--producer-only"]) == 1
    out = capsys.readouterr().out
    assert "make  FAILED" in out and "took none of what it was given" in out and "a capsule: TypeError" in out


class _AbortingOnCopy:
    """numpy's producer, except that ``copy=True`` kills the process (as tensorflow's __dlpack__
    does for a string tensor)."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def __dlpack__(self, **kwargs: Any) -> Any:
        if kwargs.get("copy"):
            import os

            os.abort()
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> Any:
        return self.array.__dlpack_device__()


def consumer_making_producers_that_abort_on_copy(x: Any) -> Any:
    return _AbortingOnCopy(np.from_dlpack(x))


def test_the_check_command_runs_producer_checks_where_a_crash_is_seen(tmp_path: Path) -> None:
    from dlarray.testing._cli import main

    path = tmp_path / "record.json"
    assert main(["test_testing_kit:consumer_making_producers_that_abort_on_copy", "--producer-only",
                 "--json", str(path)]) == 1
    report = Report.from_dict(json.loads(path.read_text())["producer"])
    assert report["copy"].status == CRASHED and "SIGABRT" in report["copy"].detail
    assert report["dl_device=own"].status == PASSED  # the checks after it ran in a new child
    # the capsules of every child are counted, the crashed one's excepted
    assert report["device_agrees"].status == PASSED and "every capsule (0)" not in report["device_agrees"].detail


# --------------------------------------------------------------------------- the synthetic producer
def test_synthetic_capsules_count_their_deleter_once() -> None:
    made = make_capsule((2, 3))
    assert read_capsule(made.capsule).shape == (2, 3)
    made.capsule = None
    gc.collect()
    assert made.deleted == 1


def test_synthetic_producer_records_what_the_consumer_asked() -> None:
    producer = SyntheticProducer(shape=(3,), code=1, bits=8, fill=b"\x01\x02\x03")
    assert np.from_dlpack(producer).tolist() == [1, 2, 3]
    assert producer.calls[0]["max_version"][0] >= 1


def test_deleter_watch_counts_and_never_calls_twice() -> None:
    capsule = np.arange(3.0).__dlpack__()
    watch = DeleterWatch(capsule)
    del capsule
    gc.collect()
    watch.call_original()  # a second call is counted, not passed on
    assert watch.calls == 2


# --------------------------------------------------------------------------- report and command line
def test_report_rows_failures_and_round_trip() -> None:
    report = Report("demo", [CheckResult("a", PASSED), CheckResult("b", FAILED, "why"), CheckResult("c", CRASHED)])
    assert report.failures == ["b", "c"] and not report.ok
    assert "b  FAILED   " in str(report).replace("FAILED  ", "FAILED   ")
    assert Report.from_dict(json.loads(report.to_json())) == report
    with pytest.raises(ValueError):
        CheckResult("x", "fine")


def test_check_command_writes_json_and_exits_0_when_all_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """numpy's producer passes every check, under numpy 2.4 (RuntimeError for a CPU stream) and 2.5
    (ValueError): the standard lets an incorrect argument be refused with any exception."""
    from dlarray.testing._cli import main

    path = tmp_path / "numpy.json"
    assert main(["numpy", "--producer-only", "--json", str(path)]) == 0
    record = json.loads(path.read_text())
    assert record["library"] == "numpy" and record["version"] == np.__version__
    producer = Report.from_dict(record["producer"])
    assert record["consumer"] is None and producer.failures == []
    assert producer["stream=cpu"].status == PASSED and "refused (" in producer["stream=cpu"].detail
    assert "numpy producer:" in capsys.readouterr().out


@needs.skip_without("dlpack")
def test_check_command_exits_1_on_failures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from dlarray.testing._cli import main

    path = tmp_path / "pydlpack.json"
    assert main(["pydlpack", "--producer-only", "--json", str(path)]) == 1  # no max_version: a legacy-only producer
    record = json.loads(path.read_text())
    assert record["library"] == "pydlpack"
    assert "max_version=(1, 0)" in Report.from_dict(record["producer"]).failures
    assert "pydlpack producer:" in capsys.readouterr().out


def test_making_the_torch_objects_to_refuse_warns_nothing() -> None:
    """`python -m dlarray check torch` prints its report, not torch's warnings about how the kit made
    its objects (a sparse tensor made without saying check_invariants warns of segfaults)."""
    import warnings

    needs.library("torch")
    from dlarray.testing._cli import _torch

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for make in _torch().refused:
            make()
    # a ResourceWarning would be another object's, collected meanwhile
    assert [str(w.message) for w in caught if not issubclass(w.category, ResourceWarning)] == []


def test_python_m_dlarray_check_dispatches_and_the_probe_stays_the_default() -> None:
    done = subprocess.run([sys.executable, "-m", "dlarray", "check", "dlarray", "--producer-only"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "dlarray producer:" in done.stdout
    bad = subprocess.run([sys.executable, "-m", "dlarray", "check", "no-such-library"],
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "unknown library" in bad.stderr


def test_importing_the_kit_imports_no_framework() -> None:
    code = ("import sys, dlarray.testing; "
            "print(sorted(m for m in ('torch', 'jax', 'cupy', 'array_api_strict', 'dlpack') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


# --------------------------------------------------------------------------- the docs page's matrix
RESULTS = ROOT / "docs" / "results" / "dlpack-kit"


def _hooks() -> Any:
    needs.library("mkdocs")
    import importlib.util

    spec = importlib.util.spec_from_file_location("_kit_docs_hooks", ROOT / "docs_hooks" / "mkdocs_hooks.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _tables(markdown: str) -> list[list[list[str]]]:
    """Every Markdown table of ``markdown``, as rows of stripped cells (separator rows left out)."""
    tables: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in markdown.splitlines() + [""]:
        if line.startswith("|"):
            cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip()[1:-1])]
            if not all(set(cell) <= set("- ") for cell in cells):
                current.append(cells)
        elif current:
            tables.append(current)
            current = []
    return tables


def test_the_docs_page_shows_the_matrix_of_the_result_files() -> None:
    hooks = _hooks()
    page = (ROOT / "docs" / "guide" / "dlpack-conformance.md").read_text()
    assert "<!-- generated: dlpack-kit-matrix -->" in page
    assert "guide/dlpack-conformance.md" in (ROOT / "mkdocs.yml").read_text()
    records = {name: json.loads((RESULTS / f"{name}.json").read_text()) if (RESULTS / f"{name}.json").is_file()
               else None for name in hooks.KIT_LIBRARIES}
    for name in ("numpy", "torch", "jax", "array-api-strict", "pydlpack", "dlarray"):
        assert records[name] is not None, f"docs/results/dlpack-kit/{name}.json is missing"
    versions, producer, consumer = _tables(hooks.dlpack_kit_matrix(None))
    for row in versions[1:]:
        record = records[row[0]]
        assert row[1] == ("" if record is None else record["version"])
    for table, role in ((producer, "producer"), (consumer, "consumer")):
        libraries = table[0][1:]  # a column per library with a result file (the others are named once)
        assert libraries == [name for name in hooks.KIT_LIBRARIES if records[name] is not None]
        shown = {row[0].strip("`"): dict(zip(libraries, row[1:])) for row in table[1:]}
        for library, record in records.items():
            report = (record or {}).get(role)
            if report is None:
                continue
            for result in report["results"]:
                assert shown[result["name"]][library] == hooks.KIT_CELLS[result["status"]], (library, result)


def test_the_result_files_cover_every_check_of_the_kit() -> None:
    """A check or case added to the kit needs the result files regenerated (see the docs page)."""
    fresh = check_producer(lambda: dlarray.asarray(strided()))
    for path in sorted(RESULTS.glob("*.json")):
        record = json.loads(path.read_text())
        if record["producer"] is not None:
            assert [r["name"] for r in record["producer"]["results"]] == [r.name for r in fresh.results], path.name
        if record["consumer"] is not None:
            assert [r["name"] for r in record["consumer"]["results"]] == list(CASES), path.name


@pytest.mark.parametrize("module", ["_report", "_capsules", "_producer_checks", "_consumer_checks", "_isolation",
                                    "_buffers"])
def test_the_docstring_examples_hold(module: str) -> None:
    import doctest
    import importlib

    found = doctest.testmod(importlib.import_module(f"dlarray.testing.{module}"),
                            optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert found.attempted and not found.failed


def test_check_command_takes_a_from_dlpack_function_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    from dlarray.testing._cli import main

    # what dlarray.from_dlpack returns for a numpy array is checked as a producer: it conforms
    assert main(["dlarray:from_dlpack", "--producer-only"]) == 0
    assert "dlarray:from_dlpack producer:" in capsys.readouterr().out
