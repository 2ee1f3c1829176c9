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
  plain ``__dlpack__()`` for a pre-2023 producer, and propagates the producer's BufferError;
- what it returns can be used: for the layout cases (and data 16 bytes past a 64-byte boundary,
  where numpy and Python put buffers), ``result + result`` runs and ``numpy.asarray(result)``
  gives the tensor's values; and an assignment through the result of read-only data leaves the
  producer's memory alone.

The result is inspected through its own ``__dlpack__`` (read, never consumed): pointer, shape,
dtype, device, flags and, on the CPU, the element values. Every case runs in a child process
(one process for all cases, a new one after a crash; ``_isolation``): a case that kills it is
``crashed``, with the signal and what it printed last, one that takes longer than ``timeout``
seconds is ``crashed`` (timed out). A consumer that takes capsules, not objects, is checked with
``capsules=True``.
"""

from __future__ import annotations

import ctypes
import gc
import importlib
import importlib.util
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .._dlpack._structs import (
    DLPACK_VERSION,
    FLAG_READ_ONLY,
    VALID_BITS,
    VERSION_PREFIX_LAYOUT,
    DLDataTypeCode,
    DLDeviceType,
)
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
from ._isolation import Crash, resolve, run_jobs, serve, spec_of
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
    # the result is used after it is judged: added to itself (the consumer's own kernel) and read
    # by numpy.asarray; a zero-copy import a library cannot compute with is no import
    use: bool = False
    # about the versioned struct: a consumer of capsules is handed a versioned one
    versioned_struct: bool = False
    # about how __dlpack__ is called: not applicable to a consumer of capsules
    calls_dlpack: bool = False


_FILL = bytes(range(1, 97))  # distinct bytes: a misplaced element shows in the values


def _cases() -> list[Case]:
    cases = [
        Case("versioned", ACCEPT, {"fill": _FILL}, what="a 2x3 float32 DLManagedTensorVersioned", use=True,
             versioned_struct=True),
        Case("legacy", ACCEPT, {"fill": _FILL}, {"versioned": False},
             what="a legacy DLManagedTensor although max_version was offered", use=True),
        Case("legacy_signature", ACCEPT, {"fill": _FILL}, {"legacy_signature": True},
             what="a pre-2023 producer whose __dlpack__ takes only stream", calls_dlpack=True),
        Case("minor_version_newer", ACCEPT, {"fill": _FILL, "version": (1, 99)}, what="version 1.99",
             versioned_struct=True),
        Case("read_only", ACCEPT, {"fill": _FILL, "flags": FLAG_READ_ONLY}, what="READ_ONLY set",
             versioned_struct=True),
        Case("strided", ACCEPT, {"shape": (2, 2), "strides": (6, 2), "fill": _FILL}, what="strides (6, 2)",
             use=True),
        Case("negative_strides", ACCEPT, {"shape": (3,), "strides": (-2,), "data_offset": 16, "fill": _FILL},
             what="stride -2, data 16 bytes into the buffer (as numpy exports x[::-2])", use=True),
        Case("zero_strides", ACCEPT, {"shape": (2, 3), "strides": (0, 1), "fill": _FILL}, what="a broadcast row",
             use=True),
        Case("byte_offset", ACCEPT, {"shape": (2, 3), "byte_offset": 8, "fill": _FILL}, what="byte_offset 8",
             use=True),
        Case("unaligned", ACCEPT, {"fill": _FILL, "misalign": 16},
             what="data 16 bytes past a 64-byte boundary (where numpy and Python place buffers)", use=True),
        Case("null_strides", ACCEPT, {"fill": _FILL}, {"versioned": False},
             what="legacy, strides NULL (C-contiguous)", use=True),
        Case("zero_dim", ACCEPT, {"shape": (), "fill": _FILL}, what="a 0-d tensor", use=True),
        Case("empty", ACCEPT, {"shape": (0, 3), "strides": (3, 1)}, what="shape (0, 3)", use=True),
        Case("null_deleter", ACCEPT, {"fill": _FILL, "with_deleter": False}, what="a NULL deleter"),
        Case("call_arguments", ACCEPT, {"fill": _FILL}, what="what the consumer passes to __dlpack__",
             calls_dlpack=True),
        Case("propagates_buffer_error", REFUSE, {}, {"refuse": "the kit's producer refuses"},
             what="__dlpack__ raises BufferError", calls_dlpack=True),
        Case("not_a_capsule", REFUSE, {}, {"returns": 42}, (BufferError, TypeError),
             what="__dlpack__ returns an int"),
        Case("wrong_name", REFUSE, {"name": b"not_dltensor"}, {}, (BufferError, TypeError, ValueError),
             what="a capsule named 'not_dltensor'"),
        Case("used", REFUSE, {"name": b"used_dltensor_versioned"}, what="a capsule consumed already"),
        Case("major_version_2", REFUSE, {"version": (2, 0), "guard": True, "header_bytes": VERSION_PREFIX_LAYOUT.size},
             what="version 2.0, only the version prefix readable", versioned_struct=True),
        Case("major_version_0", REFUSE, {"version": (0, 9), "guard": True, "header_bytes": VERSION_PREFIX_LAYOUT.size},
             what="a versioned struct claiming version 0.9", versioned_struct=True),
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


_TAKES_CAPSULES = "the consumer takes a capsule: it never calls __dlpack__ itself"


def run_case(consumer: Callable[[Any], Any], case: Case, capsules: bool = False) -> tuple[str, str]:
    """Run one case in this process; return (status, detail).

    ``capsules``: the consumer takes a capsule (``tensorflow.experimental.dlpack.from_dlpack``),
    not an object with ``__dlpack__``. It is handed what ``__dlpack__()`` returns, as its users
    call it (a legacy capsule), or for a case about the versioned struct what
    ``__dlpack__(max_version=...)`` returns.
    """
    if capsules and case.calls_dlpack:
        return NOT_APPLICABLE, _TAKES_CAPSULES
    fields = dict(case.fields)
    if fields.get("data_address") == "poison":
        fields["data_address"] = poison_address()
    producer = _Producer(**case.producer, **fields)
    error: BaseException | None = None
    result: Any = None
    try:
        if capsules:
            asked = {"max_version": DLPACK_VERSION} if case.versioned_struct else {}
            result = consumer(producer.__dlpack__(**asked))
        else:
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
        if case.use:
            _judge_use(made, result, problems, notes)
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
    if case.name == "call_arguments" and not capsules:
        _judge_arguments(producer.calls, problems, notes)
    if problems:
        return FAILED, "; ".join(problems)
    return status, "; ".join(notes)


def _judge_result(case: Case, made: Any, result: Any, problems: list[str], notes: list[str]) -> None:
    expected = made.describe()
    view, why = _result_view(result)
    in_buffer = False
    if view is not None and made.data_address:
        in_buffer = made.buffer_address <= view.pointer < made.buffer_address + max(made.data_size, 1)
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
                problems.append("the values differ from the tensor's" + (
                    f" (the result starts at data, not at data + byte_offset: byte_offset {expected.byte_offset} "
                    "was ignored)" if expected.byte_offset and view.pointer == expected.data else ""))
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
        if in_buffer or view is None:
            _judge_write(made, result, view, problems, notes)


def _judge_write(made: Any, result: Any, view: CapsuleView | None, problems: list[str], notes: list[str]) -> None:
    """Assign through a result of read-only data: the producer's memory must not change.

    Dropping the flag is allowed to a consumer without read-only arrays; letting its users write
    into memory the producer said is read-only (a ``bytes`` object, a memory-mapped file) is not.
    """
    shape = view.shape if view is not None else made.describe().shape
    if not shape or 0 in shape or made.buffer_address == 0:
        return
    index = (0,) * len(shape)
    before = ctypes.string_at(made.buffer_address, made.data_size)
    try:
        result[index] = 0
    except Exception as error:
        notes.append(f"an assignment through the result is refused ({type(error).__name__})")
        return
    if ctypes.string_at(made.buffer_address, made.data_size) != before:
        problems.append(f"result[{', '.join(map(str, index))}] = 0 wrote into the read-only buffer "
                        "(the consumer dropped READ_ONLY and lets its arrays write into memory the producer "
                        "marked read-only, e.g. a bytes object)")
    else:
        notes.append("an assignment through the result left the read-only buffer alone")


def _judge_use(made: Any, result: Any, problems: list[str], notes: list[str]) -> None:
    expected = made.describe()
    wanted = element_bytes(expected)
    problems += use_problems(result, None if wanted is None else b"".join(wanted), expected.shape,
                             on_cpu=expected.device[0] == 1)


def use_problems(result: Any, values: bytes | None, shape: tuple[int, ...] | None, on_cpu: bool = True) -> list[str]:
    """Use ``result`` as its users would; what went wrong (an empty list: nothing).

    ``result + result`` must run (a kernel of the consumer's own: one that needs its data
    aligned may abort here, so call this in a child process), and for data on the CPU
    ``numpy.asarray(result)`` must give ``values`` (C-ordered bytes) in ``shape`` (either None:
    not compared). A result type without addition or ``__array__`` skips that use.

    Examples
    --------
    >>> import numpy as np
    >>> from dlarray.testing._consumer_checks import use_problems
    >>> use_problems(np.arange(3.0), np.arange(3.0).tobytes(), (3,))
    []
    >>> use_problems(np.arange(3.0), np.zeros(3).tobytes(), (3,))
    ["numpy.asarray(result) gives values other than the tensor's (shape (3,))"]
    """
    problems = []
    if hasattr(type(result), "__add__"):
        try:
            total = result + result
            del total
        except Exception as error:
            problems.append(f"accepted, but the result cannot be used: result + result raised {_describe_error(error)}")
    if not on_cpu or not hasattr(type(result), "__array__"):
        return problems
    import numpy as np

    try:
        array = np.asarray(result)
    except Exception as error:
        problems.append(f"accepted, but numpy.asarray(result) raised {_describe_error(error)}")
        return problems
    if (shape is not None and tuple(array.shape) != tuple(shape)) or (
            values is not None and np.ascontiguousarray(array).tobytes() != values):
        problems.append(f"numpy.asarray(result) gives values other than the tensor's (shape {tuple(array.shape)})")
    return problems


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
def _run_cases(consumer: Callable[[Any], Any], capsules: bool) -> Callable[[str], list[str]]:
    """One case by name, as a child runs it: (status, detail), the kit's own failure reported too."""

    def run(name: str) -> list[str]:
        try:
            return list(run_case(consumer, CASES[name], capsules))
        except Exception as error:  # the kit's own failure to judge is reported, not hidden
            return [FAILED, f"the case stopped: {_describe_error(error)}"]

    return run


def _run_children(consumer: Callable[[Any], Any] | None, spec: str | None, names: list[str], timeout: float,
                  startup: float, capsules: bool = False) -> dict[str, tuple[str, str]]:
    """Run the cases ``names`` in children: fresh processes importing ``spec`` if given, else forks
    running ``consumer``."""
    mode = "capsules" if capsules else "objects"

    def command(fd: int, todo: list[str]) -> list[str]:
        return [sys.executable, "-m", "dlarray.testing._consumer_checks", spec, mode, str(fd), *todo]  # type: ignore[list-item]

    def work(todo: list[str], fd: int) -> None:
        serve(todo, fd, _run_cases(consumer, capsules))  # type: ignore[arg-type]

    outcomes = run_jobs(names, command=command if spec is not None else None, work=work, timeout=timeout,
                        startup=startup)
    return {name: (CRASHED, str(outcome)) if isinstance(outcome, Crash) else tuple(outcome)
            for name, outcome in outcomes.items()}


def check_consumer(
    from_dlpack: Callable[[object], object] | str,
    *,
    cases: Iterable[str] | None = None,
    subject: str | None = None,
    timeout: float = 30.0,
    capsules: bool = False,
) -> Report:
    """Check a DLPack consumer with synthetic capsules, each case in a child process.

    Parameters
    ----------
    from_dlpack
        The consumer: called with one object that has ``__dlpack__`` and ``__dlpack_device__``,
        as ``numpy.from_dlpack`` is. A ``"module:qualname"`` string names one. A function a new
        process can import by name runs there (``python -m``); any other callable (a lambda)
        runs in a forked child (where a framework that keeps threads, such as jax, may hang).
    cases
        Names of the cases to run (default: all of :data:`CASES`).
    subject
        The report's title.
    timeout
        Seconds one case may take before it is reported ``crashed`` (timed out).
    capsules
        The consumer takes a capsule instead (``tensorflow.experimental.dlpack.from_dlpack``):
        it is handed what ``__dlpack__()`` returns, as its users call it, and for the cases about
        the versioned struct (``versioned``, ``read_only``, ...) a versioned capsule. The cases
        about how ``__dlpack__`` is called are not applicable.

    Returns
    -------
    Report
        One row per case: ``passed``, ``failed`` (why), ``not applicable`` (a valid input the
        consumer does not support and refuses with BufferError), or ``crashed`` (how the process
        ended, and what it last wrote to stderr).

    Examples
    --------
    >>> import dlarray
    >>> from dlarray.testing import check_consumer
    >>> report = check_consumer(dlarray.from_dlpack, cases=["versioned", "used", "dtype=opaque_handle"])
    >>> [(row.name, row.status) for row in report.results]
    [('versioned', 'passed'), ('used', 'passed'), ('dtype=opaque_handle', 'not applicable')]
    """
    names = list(CASES) if cases is None else list(cases)
    unknown = [name for name in names if name not in CASES]
    if unknown:
        raise ValueError(f"unknown consumer cases {unknown}; the cases are {list(CASES)}")
    if isinstance(from_dlpack, str):
        # imported in the children only: some frameworks cannot share a process (paddle 3.3
        # crashes when imported after tensorflow 2.21), and the caller may hold another already
        top = from_dlpack.partition(":")[0].split(".")[0]
        if importlib.util.find_spec(top) is None:
            raise ModuleNotFoundError(f"No module named {top!r}", name=top)
        consumer: Callable[[Any], Any] | None = None
        spec: str | None = from_dlpack
        title = subject or f"{from_dlpack} consumer"
    else:
        consumer, spec = from_dlpack, spec_of(from_dlpack)
        title = subject or f"{getattr(consumer, '__module__', '?')}.{getattr(consumer, '__qualname__', repr(consumer))} consumer"
    results = _run_children(consumer, spec, names, timeout, startup=max(timeout, 120.0), capsules=capsules)
    report = Report(title)
    for name in names:
        report.add(name, *results[name])
    return report


def _main(argv: list[str]) -> None:
    spec, mode, fd, *names = argv
    serve(names, int(fd), _run_cases(resolve(spec), mode == "capsules"))


if __name__ == "__main__":
    _main(sys.argv[1:])

__all__ = ["CASES", "Case", "check_consumer", "run_case", "use_problems"]
