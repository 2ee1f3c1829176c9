"""``check_consumer``: feed a ``from_dlpack``-like function synthetic capsules and judge what it does.

What a consumer owes (DLPack 1.3 header, Array API data-interchange page), and how it is seen:

- it renames the capsule it consumes (``used_dltensor`` / ``used_dltensor_versioned``): the
  capsule's name is read after the call;
- it calls the deleter exactly once, and not while its result still points into the buffer: the
  synthetic producer counts deleter calls, before and after the result is freed;
- it refuses what it cannot describe with ``BufferError`` (malformed fields, unknown major
  version, a used capsule) and, for an unknown major version, calls the deleter without reading
  past the version prefix (the struct is placed right before an inaccessible page);
- it keeps read-only data read-only where it has read-only arrays (the Array API lets a consumer
  without them ignore the flag);
- it offers ``max_version`` and passes ``stream=None`` (or nothing) for CPU data, falls back to a
  plain ``__dlpack__()`` for a pre-2023 producer, and propagates the producer's BufferError.

The result is inspected through its own ``__dlpack__`` (read, never consumed): pointer, shape,
dtype, device, flags and, on the CPU, the element values. Every case runs in a child process
(one process for all cases, a new one after a crash): a case that kills it is ``crashed``, one
that takes longer than ``timeout`` seconds is ``crashed`` (timed out).
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import selectors
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .._dlpack._structs import FLAG_READ_ONLY, VALID_BITS, VERSION_PREFIX_LAYOUT, DLDataTypeCode, DLDeviceType
from ._capsules import (
    LEGACY_NAME,
    USED_NAMES,
    VERSIONED_NAME,
    CapsuleView,
    SyntheticProducer,
    capsule_name,
    element_bytes,
    is_capsule,
    poison_address,
    read_capsule,
)
from ._report import CRASHED, FAILED, NOT_APPLICABLE, PASSED, Report

#: kinds of case: a valid tensor every consumer must take; a valid tensor a consumer may refuse
#: with BufferError (an optional dtype or device); an input that must be refused.
ACCEPT, OPTIONAL, REFUSE = "accept", "optional", "refuse"


@dataclass(frozen=True)
class Case:
    """One synthetic input: the capsule fields, the producer's behaviour and what is expected."""

    name: str
    kind: str
    fields: dict[str, Any] = field(default_factory=dict)
    producer: dict[str, Any] = field(default_factory=dict)
    refusals: tuple[type[BaseException], ...] = (BufferError,)
    what: str = ""


_FILL = bytes(range(1, 97))  # distinct bytes: a misplaced element shows in the values


def _cases() -> list[Case]:
    cases = [
        Case("versioned", ACCEPT, {"fill": _FILL}, what="a 2x3 float32 DLManagedTensorVersioned"),
        Case("legacy", ACCEPT, {"fill": _FILL}, {"versioned": False},
             what="a legacy DLManagedTensor although max_version was offered"),
        Case("legacy_signature", ACCEPT, {"fill": _FILL}, {"legacy_signature": True},
             what="a pre-2023 producer whose __dlpack__ takes only stream"),
        Case("minor_version_newer", ACCEPT, {"fill": _FILL, "version": (1, 99)}, what="version 1.99"),
        Case("read_only", ACCEPT, {"fill": _FILL, "flags": FLAG_READ_ONLY}, what="READ_ONLY set"),
        Case("strided", ACCEPT, {"shape": (2, 2), "strides": (6, 2), "fill": _FILL}, what="strides (6, 2)"),
        Case("negative_strides", ACCEPT, {"shape": (3,), "strides": (-2,), "byte_offset": 16, "fill": _FILL},
             what="stride -2 from byte_offset 16"),
        Case("zero_strides", ACCEPT, {"shape": (2, 3), "strides": (0, 1), "fill": _FILL}, what="a broadcast row"),
        Case("byte_offset", ACCEPT, {"shape": (2, 3), "byte_offset": 8, "fill": _FILL}, what="byte_offset 8"),
        Case("null_strides", ACCEPT, {"fill": _FILL}, {"versioned": False},
             what="legacy, strides NULL (C-contiguous)"),
        Case("zero_dim", ACCEPT, {"shape": (), "fill": _FILL}, what="a 0-d tensor"),
        Case("empty", ACCEPT, {"shape": (0, 3), "strides": (3, 1)}, what="shape (0, 3)"),
        Case("null_deleter", ACCEPT, {"fill": _FILL, "with_deleter": False}, what="a NULL deleter"),
        Case("call_arguments", ACCEPT, {"fill": _FILL}, what="what the consumer passes to __dlpack__"),
        Case("propagates_buffer_error", REFUSE, {}, {"refuse": "the kit's producer refuses"},
             what="__dlpack__ raises BufferError"),
        Case("not_a_capsule", REFUSE, {}, {"returns": 42}, (BufferError, TypeError),
             what="__dlpack__ returns an int"),
        Case("wrong_name", REFUSE, {"name": b"not_dltensor"}, {}, (BufferError, TypeError, ValueError),
             what="a capsule named 'not_dltensor'"),
        Case("used", REFUSE, {"name": b"used_dltensor_versioned"}, what="a capsule consumed already"),
        Case("major_version_2", REFUSE, {"version": (2, 0), "guard": True, "header_bytes": VERSION_PREFIX_LAYOUT.size},
             what="version 2.0, only the version prefix readable"),
        Case("major_version_0", REFUSE, {"version": (0, 9), "guard": True, "header_bytes": VERSION_PREFIX_LAYOUT.size},
             what="a versioned struct claiming version 0.9"),
        Case("ndim_negative", REFUSE, {"ndim": -1}, what="ndim -1"),
        Case("ndim_huge", REFUSE, {"ndim": 1000, "guard": True}, what="ndim 1000, shape of 2 entries before a guard page"),
        Case("shape_null", REFUSE, {"null_shape": True}, what="ndim 2, shape NULL"),
        Case("shape_negative", REFUSE, {"shape": (2, -3)}, what="shape (2, -3)"),
        Case("shape_overflow", REFUSE, {"shape": (1 << 62, 1 << 62), "strides": (1, 1), "data_bytes": 64},
             what="shape (2**62, 2**62): bytes overflow int64"),
        Case("data_null", REFUSE, {"null_data": True}, what="a NULL data pointer, 6 elements"),
        Case("byte_offset_huge", REFUSE, {"byte_offset": 1 << 63, "data_bytes": 64}, what="byte_offset 2**63"),
        Case("dtype_code_unknown", REFUSE, {"code": 99, "bits": 32}, what="type code 99"),
        Case("dtype_bits_wrong", REFUSE, {"code": 2, "bits": 12}, what="float of 12 bits"),
        Case("dtype_lanes", REFUSE, {"lanes": 4}, what="lanes 4 (a vector type)"),
        Case("dtype_lanes_zero", REFUSE, {"lanes": 0}, what="lanes 0"),
        Case("device_type_unknown", REFUSE, {"device": (99, 0), "data_address": "poison"}, what="device type 99"),
        Case("device_id_negative", REFUSE, {"device": (1, -1), "fill": _FILL}, what="CPU device id -1"),
    ]
    for code, widths in VALID_BITS.items():
        for bits in sorted(widths):
            name = DLDataTypeCode(code).name.lower()
            label = name if code == DLDataTypeCode.BOOL or code >= DLDataTypeCode.FLOAT8_E3M4 else f"{name}{bits}"
            if (code, bits) == (2, 32):
                continue  # the "versioned" case
            cases.append(Case(f"dtype={label}", OPTIONAL, {"code": int(code), "bits": bits, "fill": _FILL,
                                                           "version": (1, 3)}, what=f"code {int(code)}, bits {bits}"))
    cases.append(Case("dtype=opaque_handle", OPTIONAL, {"code": 3, "bits": 64, "fill": _FILL},
                      what="an opaque handle (code 3, bits 64)"))
    for device in DLDeviceType:
        if device == DLDeviceType.CPU:
            continue
        cases.append(Case(f"device={device.name.lower()}", OPTIONAL, {"device": (int(device), 0), "data_address": "poison"},
                          what=f"device type {int(device)}, data never to be touched"))
    return cases


CASES: dict[str, Case] = {case.name: case for case in _cases()}


# --------------------------------------------------------------------------- one case
class _Producer(SyntheticProducer):
    """The synthetic producer, plus 'returns': a __dlpack__ that hands back something else."""

    def __init__(self, returns: Any = None, **options: Any) -> None:
        super().__init__(**options)
        self.returns = returns

    def __dlpack__(self, stream: Any = None, **options: Any) -> Any:
        capsule = super().__dlpack__(stream, **options)
        return capsule if self.returns is None else self.returns


def _describe_error(error: BaseException) -> str:
    text = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {text}"[:160]


def _result_view(result: Any) -> tuple[CapsuleView | None, str]:
    """Read what the result exports (never consumed): its own account of pointer, shape, flags."""
    for kwargs in ({"max_version": (1, 3)}, {}):
        try:
            capsule = result.__dlpack__(**kwargs)
        except Exception as error:
            last = _describe_error(error)
            continue
        if is_capsule(capsule) and capsule_name(capsule) in (VERSIONED_NAME, LEGACY_NAME):
            return read_capsule(capsule), ""
        last = f"its __dlpack__ returned {type(capsule).__name__}"
    return None, last


def _has_read_only_arrays(result: Any) -> bool | None:
    """Whether the result's type can say read-only at all (None: cannot tell)."""
    flags = getattr(result, "flags", None)
    if flags is not None and hasattr(flags, "writeable"):
        return True
    if isinstance(getattr(result, "readonly", None), bool):
        return True
    return None


def _writable(result: Any, view: CapsuleView | None) -> bool | None:
    flags = getattr(result, "flags", None)
    if flags is not None and hasattr(flags, "writeable"):
        return bool(flags.writeable)
    if isinstance(getattr(result, "readonly", None), bool):
        return not result.readonly
    if view is not None and view.versioned:
        return not view.flags & FLAG_READ_ONLY
    return None


def run_case(consumer: Callable[[Any], Any], case: Case) -> tuple[str, str]:
    """Run one case in this process; return (status, detail)."""
    fields = dict(case.fields)
    if fields.get("data_address") == "poison":
        fields["data_address"] = poison_address()
    producer = _Producer(**case.producer, **fields)
    error: BaseException | None = None
    result: Any = None
    try:
        result = consumer(producer)
    except Exception as caught:
        error = caught
    made = producer.made[-1] if producer.made else None
    refused = error is not None
    problems: list[str] = []
    notes: list[str] = []
    status = PASSED

    if error is None and case.kind == REFUSE:
        problems.append(f"accepted {case.what}; it must be refused with "
                        + " or ".join(t.__name__ for t in case.refusals))
    elif error is not None and case.kind == REFUSE:
        if not isinstance(error, case.refusals):
            problems.append(f"refused with {_describe_error(error)}; expected "
                            + " or ".join(t.__name__ for t in case.refusals))
        else:
            notes.append(f"refused: {_describe_error(error)}")
    elif error is not None:  # a valid input
        if case.kind == OPTIONAL and isinstance(error, BufferError):
            status = NOT_APPLICABLE
            notes.append(f"not supported, refused cleanly: {_describe_error(error)}")
        else:
            problems.append(f"{case.what} refused with {_describe_error(error)}"
                            + ("" if case.kind == ACCEPT else " (a refusal must be a BufferError)"))

    if made is not None and error is None:
        name = capsule_name(made.capsule)
        if name not in USED_NAMES.values():
            problems.append(f"the capsule was not renamed (still {name!r}): its destructor will free the "
                            "tensor under the result")
    if made is not None and result is not None and case.kind != REFUSE:
        _judge_result(case, made, result, problems, notes)
    # Nothing of the call may survive the count below: the traceback's frames hold the capsule.
    result = error = None
    gc.collect()
    calls_after_call = made.deleted if made is not None else 0
    if made is not None:
        name = capsule_name(made.capsule)
        made.capsule = None
        producer.made.clear()
        gc.collect()
        deleted = made.deleted
        if "name" in case.fields:  # not a capsule to consume: its tensor is not this consumer's
            if deleted:
                problems.append(f"the deleter of a capsule named {case.fields['name']!r} ran {deleted} times "
                                "(it is not this consumer's to free)")
            made.free_unowned()
        elif case.fields.get("with_deleter") is False:
            pass
        elif deleted != 1:
            problems.append(f"the deleter ran {deleted} times in all (expected exactly once)"
                            + (f"; the capsule was renamed {name!r} but its tensor never freed"
                               if deleted == 0 and name in USED_NAMES.values() else ""))
        if case.name == "major_version_2" and refused and calls_after_call == 0 and name in USED_NAMES.values():
            problems.append("renamed the capsule of an unknown major version without calling its deleter")
    if case.name == "call_arguments":
        _judge_arguments(producer.calls, problems, notes)
    if problems:
        return FAILED, "; ".join(problems)
    return status, "; ".join(notes)


def _judge_result(case: Case, made: Any, result: Any, problems: list[str], notes: list[str]) -> None:
    expected = made.describe()
    view, why = _result_view(result)
    in_buffer = False
    if view is not None and made.data_address:
        size = len(made.data) if made.data is not None else 0
        in_buffer = made.data_address <= view.pointer < made.data_address + max(size, 1)
    deleted_early = made.deleted
    if in_buffer and deleted_early:
        problems.append("the deleter ran while the result still points into the buffer")
    if view is None:
        notes.append(f"accepted; the result cannot be re-exported to inspect it ({why})")
    else:
        if view.shape != expected.shape:
            problems.append(f"shape {view.shape}, expected {expected.shape}")
        if view.dtype != expected.dtype:
            problems.append(f"dtype (code, bits, lanes) {view.dtype}, expected {expected.dtype}")
        if view.device[0] != expected.device[0]:
            problems.append(f"device {view.device}, expected {expected.device}")
        if expected.device[0] == 1 and view.shape == expected.shape:
            got, wanted = element_bytes(view), element_bytes(expected)
            if got is not None and wanted is not None and got != wanted:
                problems.append("the values differ from the tensor's")
        notes.append("accepted, zero-copy" if in_buffer else "accepted, copied")
    if case.fields.get("flags", 0) & FLAG_READ_ONLY:
        writable = _writable(result, view)
        if writable and (in_buffer or view is None):
            if _has_read_only_arrays(result):
                problems.append("read-only data became writable")
            elif view is not None and view.versioned and not view.flags & FLAG_READ_ONLY:
                notes.append("READ_ONLY dropped: the consumer has no read-only arrays (the spec lets it "
                             "ignore the flag)")
        elif writable is False:
            notes.append("kept read-only")


def _judge_arguments(calls: list[dict[str, Any]], problems: list[str], notes: list[str]) -> None:
    if not calls:
        problems.append("__dlpack__ was never called")
        return
    first = calls[0]
    offered = first.get("max_version")
    if offered is None:
        problems.append("no max_version offered: the consumer reads only legacy capsules (Array API 2023.12 "
                        "consumers offer (1, x))")
    elif not (isinstance(offered, tuple) and len(offered) == 2 and offered[0] >= 1):
        problems.append(f"max_version={offered!r} is not a (major >= 1, minor) tuple")
    if first.get("stream") is not None:
        problems.append(f"stream={first['stream']!r} passed for CPU data (only None is allowed)")
    notes.append(", ".join(f"{k}={v!r}" for k, v in first.items()))


# --------------------------------------------------------------------------- child processes
def _resolve(spec: str) -> Any:
    module, _, qualname = spec.partition(":")
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _spec_of(consumer: Callable[[Any], Any]) -> str | None:
    """'module:qualname' naming ``consumer`` in a fresh process, or None (a lambda, a closure)."""
    module, qualname = getattr(consumer, "__module__", None), getattr(consumer, "__qualname__", None)
    if not module or not qualname or "<" in qualname or module == "__main__":
        return None
    spec = f"{module}:{qualname}"
    try:
        return spec if _resolve(spec) is consumer else None
    except Exception:
        return None


def _work(consumer: Callable[[Any], Any], names: Iterable[str], fd: int) -> None:
    """The child's loop: announce each case, run it, write its result, one JSON line each."""
    with os.fdopen(fd, "w", buffering=1) as out:
        out.write(json.dumps({"ready": True}) + "\n")
        for name in names:
            out.write(json.dumps({"start": name}) + "\n")
            try:
                status, detail = run_case(consumer, CASES[name])
            except Exception as error:  # the kit's own failure to judge is reported, not hidden
                status, detail = FAILED, f"the case stopped: {_describe_error(error)}"
            out.write(json.dumps({"case": name, "status": status, "detail": detail}) + "\n")


def _spawn(spec: str | None, consumer: Callable[[Any], Any], names: list[str]) -> tuple[Any, int]:
    read_fd, write_fd = os.pipe()
    if spec is not None:
        # the child imports what this process imports: its PYTHONPATH first (a sitecustomize
        # there still applies), then this process's sys.path (e.g. a test folder pytest added)
        inherited = os.environ.get("PYTHONPATH", "").split(os.pathsep)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(dict.fromkeys(p for p in inherited + sys.path if p)))
        process = subprocess.Popen(
            [sys.executable, "-m", "dlarray.testing._consumer_checks", spec, str(write_fd), *names],
            pass_fds=(write_fd,), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write_fd)
        return process, read_fd
    pid = os.fork()
    if pid == 0:  # the child: run, then leave without running the parent's cleanup
        os.close(read_fd)
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            _work(consumer, names, write_fd)
        finally:
            os._exit(0)
    os.close(write_fd)
    return pid, read_fd


def _stop(process: Any) -> None:
    if isinstance(process, int):
        try:
            os.kill(process, 9)
        except ProcessLookupError:
            pass
        os.waitpid(process, 0)
    else:
        process.kill()
        process.wait()


def _run_children(consumer: Callable[[Any], Any], names: list[str], timeout: float,
                  startup: float) -> dict[str, tuple[str, str]]:
    spec = _spec_of(consumer)
    results: dict[str, tuple[str, str]] = {}
    remaining = list(names)
    while remaining:
        process, fd = _spawn(spec, consumer, remaining)
        selector = selectors.DefaultSelector()
        selector.register(fd, selectors.EVENT_READ)
        buffer, current, ready = b"", None, False
        deadline = time.monotonic() + startup
        ended = None
        while ended is None:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                ended = "timed out" if ready else "the child process did not start in time"
                break
            chunk = os.read(fd, 65536)
            if not chunk:
                ended = "died"
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                message = json.loads(line)
                if "ready" in message:
                    ready = True
                elif "start" in message:
                    current = message["start"]
                    deadline = time.monotonic() + timeout
                else:
                    results[message["case"]] = (message["status"], message["detail"])
                    remaining.remove(message["case"])
                    current = None
            if not remaining:
                break
        selector.close()
        os.close(fd)
        if ended == "died":
            code = process.wait() if not isinstance(process, int) else os.waitpid(process, 0)[1]
        else:
            _stop(process)
            code = None
        if not remaining:
            break
        if current is None:  # died between cases, or never started: report the rest as such
            if not ready:
                for name in remaining:
                    results[name] = (CRASHED, f"the child process {ended}")
                break
            current = remaining[0]
        how = f"timed out after {timeout:g} s" if ended == "timed out" else f"the process died (status {code})"
        results[current] = (CRASHED, how)
        remaining.remove(current)
    return results


def check_consumer(
    from_dlpack: Callable[[object], object] | str,
    *,
    cases: Iterable[str] | None = None,
    subject: str | None = None,
    timeout: float = 30.0,
) -> Report:
    """Check a DLPack consumer with synthetic capsules, each case in a child process.

    Parameters
    ----------
    from_dlpack
        The consumer: called with one object that has ``__dlpack__`` and ``__dlpack_device__``,
        as ``numpy.from_dlpack`` is. A ``"module:qualname"`` string names one. A function a new
        process can import by name runs there (``python -m``); any other callable (a lambda)
        runs in a forked child.
    cases
        Names of the cases to run (default: all of :data:`CASES`).
    subject
        The report's title.
    timeout
        Seconds one case may take before it is reported ``crashed`` (timed out).

    Returns
    -------
    Report
        One row per case: ``passed``, ``failed`` (why), ``not applicable`` (a valid input the
        consumer does not support and refuses with BufferError), or ``crashed``.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray.testing import check_consumer
    >>> report = check_consumer(dlarray.from_dlpack, cases=["versioned", "used", "dtype=opaque_handle"])
    >>> [(row.name, row.status) for row in report.results]
    [('versioned', 'passed'), ('used', 'passed'), ('dtype=opaque_handle', 'not applicable')]
    """
    consumer = _resolve(from_dlpack) if isinstance(from_dlpack, str) else from_dlpack
    names = list(CASES) if cases is None else list(cases)
    unknown = [name for name in names if name not in CASES]
    if unknown:
        raise ValueError(f"unknown consumer cases {unknown}; the cases are {list(CASES)}")
    title = subject or f"{getattr(consumer, '__module__', '?')}.{getattr(consumer, '__qualname__', repr(consumer))} consumer"
    results = _run_children(consumer, names, timeout, startup=max(timeout, 120.0))
    report = Report(title)
    for name in names:
        report.add(name, *results[name])
    return report


def _main(argv: list[str]) -> None:
    spec, fd, *names = argv
    _work(_resolve(spec), names, int(fd))


if __name__ == "__main__":
    _main(sys.argv[1:])

__all__ = ["CASES", "Case", "check_consumer", "run_case"]
