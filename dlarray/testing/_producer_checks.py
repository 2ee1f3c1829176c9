"""``check_producer``: what the DLPack header (1.3) and the Array API require of ``__dlpack__``.

Each check asks a fresh object from ``make()`` (a producer may be a one-shot wrapper), calls
``__dlpack_device__`` first and ``__dlpack__`` as a consumer would, reads the capsule with
:func:`~dlarray.testing.read_capsule` (never consuming it) and lets it go unconsumed, counting
its deleter calls with a :class:`~dlarray.testing._capsules.DeleterWatch`.

The producer's own view of itself, against which shape, strides, dtype, pointer and read-only are
checked, is read from the first of these it exposes: ``__array_interface__``,
``__cuda_array_interface__``, the buffer protocol; then the attributes ``shape``, ``dtype``
(its ``str``, last dotted part, e.g. ``torch.float32`` -> ``float32``), ``stride()`` (a method
giving element strides, torch's convention; a ``strides`` attribute is not used: numpy counts it
in bytes, others in elements), ``data_ptr`` (an int or a method), ``unsafe_buffer_pointer()``
and ``readonly`` (a bool). Checks that need a part of the view the producer does not expose are
``not applicable``.

Refusals, judged by the standard's words for ``__dlpack__`` (Raises): "Implementations should raise
``BufferError`` when the data cannot be exported as DLPack (e.g., incompatible dtype or strides).
Other errors are raised when export fails for other reasons (e.g., incorrect arguments passed or out
of memory)." Data that cannot be exported as asked must be refused with ``BufferError``; any other
exception type (RuntimeError, a framework's own error) fails such a check, as a consumer cannot tell
it from a real failure. An incorrect argument (a stream on a device without streams: "On CPU and
other device types without streams, only ``None`` is accepted"; ``stream=0`` on CUDA) may be
refused with any exception: the check fails only where it is accepted, and its row names the
exception type.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import glob
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from .._dlpack._structs import (
    DLPACK_VERSION,
    FLAG_IS_COPIED,
    FLAG_IS_SUBBYTE_TYPE_PADDED,
    FLAG_READ_ONLY,
    DLDataTypeCode,
)
from ._capsules import (
    LEGACY_NAME,
    USED_NAMES,
    VERSIONED_NAME,
    CapsuleView,
    DeleterWatch,
    c_contiguous_strides,
    capsule_name,
    element_bytes,
    is_capsule,
    read_capsule,
    read_struct,
    rename_capsule,
)
from ._report import FAILED, NOT_APPLICABLE, PASSED, Report

_KNOWN_FLAGS = FLAG_READ_ONLY | FLAG_IS_COPIED | FLAG_IS_SUBBYTE_TYPE_PADDED
_CPU, _CUDA, _CUDA_HOST, _ROCM, _CUDA_MANAGED = 1, 2, 3, 10, 13
_STREAM_DEVICES = (_CUDA, _ROCM, _CUDA_MANAGED)
# "Other errors are raised when export fails for other reasons (e.g., incorrect arguments passed ...)":
# an argument the standard rules out may be refused with any exception (numpy 2.4: RuntimeError,
# numpy 2.5: ValueError, torch: AssertionError for a CPU stream)
_ARGUMENT_REFUSALS = (Exception,)


def dtype_name(code: int, bits: int) -> str:
    """The usual name of a DLPack element type, e.g. ``(2, 32)`` -> ``"float32"``."""
    try:
        kind = DLDataTypeCode(code).name.lower()
    except ValueError:
        return f"code{code}/{bits}"
    if code == DLDataTypeCode.BOOL or code >= DLDataTypeCode.FLOAT8_E3M4:
        return kind  # the name carries the width
    return f"{kind}{bits}"


# --------------------------------------------------------------------------- the producer's view
@dataclass
class ProducerView:
    """What a producer says about itself (None: not exposed)."""

    source: str
    shape: tuple[int, ...] | None = None
    strides: tuple[int, ...] | None = None  # in elements
    dtype: str | None = None
    pointer: int | None = None
    readonly: bool | None = None


def _numpy_name(typestr: str) -> str | None:
    try:
        import numpy as np

        return str(np.dtype(typestr).name)
    except Exception:
        return None


def _from_interface(interface: dict[str, Any], source: str) -> ProducerView:
    shape = tuple(int(n) for n in interface["shape"])
    name = _numpy_name(interface["typestr"])
    itemsize = int(interface["typestr"][2:]) if interface["typestr"][2:].isdigit() else None
    raw = interface.get("strides")
    if raw is None:
        strides: tuple[int, ...] | None = c_contiguous_strides(shape)
    elif itemsize:
        strides = tuple(int(s) // itemsize for s in raw)
    else:
        strides = None
    data = interface.get("data")
    pointer = readonly = None
    if isinstance(data, tuple):
        pointer, readonly = int(data[0]), bool(data[1])
    return ProducerView(source, shape, strides, name, pointer, readonly)


def producer_view(obj: object) -> ProducerView:
    """Read what ``obj`` says about its own layout; see the module docstring for the order.

    Examples
    --------
    >>> import numpy as np
    >>> from dlarray.testing._producer_checks import producer_view
    >>> view = producer_view(np.zeros((2, 3), np.float32)[:, ::2])
    >>> view.source, view.shape, view.strides, view.dtype
    ('__array_interface__', (2, 2), (3, 2), 'float32')
    """
    for attribute in ("__array_interface__", "__cuda_array_interface__"):
        try:
            interface = getattr(obj, attribute)
        except Exception:
            continue
        if isinstance(interface, dict) and "shape" in interface and "typestr" in interface:
            return _from_interface(interface, attribute)
    try:
        memory = memoryview(obj)  # type: ignore[arg-type]
    except TypeError:
        pass
    else:
        with memory:
            itemsize = memory.itemsize
            shape = tuple(memory.shape or ())
            strides = tuple(s // itemsize for s in memory.strides or ())
            pointer = None
            if memory.c_contiguous:
                import numpy as np

                pointer = int(np.frombuffer(memory.cast("B"), np.uint8).__array_interface__["data"][0])
            return ProducerView("buffer protocol", shape, strides, _numpy_name(memory.format), pointer,
                                memory.readonly)
    view = ProducerView("attributes")
    try:
        view.shape = tuple(int(n) for n in obj.shape)  # type: ignore[attr-defined]
    except Exception:
        pass
    dtype = getattr(obj, "dtype", None)
    if dtype is not None:
        view.dtype = str(dtype).rsplit(".", 1)[-1].removeprefix("dtype('").removesuffix("')")
    stride = getattr(obj, "stride", None)
    if callable(stride):
        try:
            view.strides = tuple(int(s) for s in stride())
        except Exception:
            pass
    for name in ("data_ptr", "unsafe_buffer_pointer"):
        value = getattr(obj, name, None)
        try:
            value = value() if callable(value) else value
        except Exception:
            continue
        if isinstance(value, int) and not isinstance(value, bool):
            view.pointer = value
            break
    readonly = getattr(obj, "readonly", None)
    if isinstance(readonly, bool):
        view.readonly = readonly
    return view


# --------------------------------------------------------------------------- calling the producer
@dataclass
class Export:
    """One ``__dlpack__`` call: the capsule read (or the exception) and the object asked."""

    obj: Any
    kwargs: dict[str, Any]
    view: CapsuleView | None = None
    error: BaseException | None = None
    returned: Any = None  # what came back when it is not a readable DLPack capsule
    values: list[bytes] | None = None  # the elements, read while the capsule was alive (when asked)


def _describe(error: BaseException) -> str:
    text = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {text}"[:160]


def _kwargs_text(kwargs: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) or "no arguments"


@dataclass
class Tally:
    """What the checks saw of every capsule they received: counted once each check is over, so
    that checks run in several processes add up (``python -m dlarray check``)."""

    capsules: int = 0
    deleter_calls: list[tuple[str, int]] = field(default_factory=list)  # (how it was asked, calls)
    device_mismatches: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        """Count ``other``'s capsules too."""
        self.capsules += other.capsules
        self.deleter_calls += other.deleter_calls
        self.device_mismatches += other.device_mismatches

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (what a child process sends back)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Tally:
        """The inverse of `to_dict`."""
        return cls(data["capsules"], [tuple(pair) for pair in data["deleter_calls"]],  # type: ignore[misc]
                   list(data["device_mismatches"]))


class _Run:
    """State of one check_producer run: every capsule received is watched until it is freed."""

    def __init__(self, make: Callable[[], Any], make_readonly: Callable[[], Any] | None = None,
                 refused: Sequence[Callable[[], Any]] = (), edge_cases: Sequence[Callable[[], Any]] = ()) -> None:
        self.make, self.make_readonly = make, make_readonly
        self.refused, self.edge_cases = list(refused), list(edge_cases)
        self.watches: list[tuple[str, DeleterWatch]] = []
        self.device_mismatches: list[str] = []
        self.versioned_seen: list[CapsuleView] = []
        self.tally = Tally()

    def settle(self) -> Tally:
        """Once a check is over: what its capsules did (their deleters have run by now), counted
        into ``tally`` and returned; the watches are let go."""
        gc.collect()
        done = Tally(len(self.watches), [(label, watch.calls) for label, watch in self.watches if watch.original],
                     list(self.device_mismatches))
        self.watches.clear()
        self.device_mismatches.clear()
        self.tally.add(done)
        return done

    def export(self, obj: Any = None, *, read_values: bool = False, **kwargs: Any) -> Export:
        """Ask (a fresh object, unless given) for a capsule; read it and let it go unconsumed.

        ``read_values``: also read its elements before it goes (a copy is freed with it).
        """
        if obj is None:
            obj = self.make()
        try:
            device = tuple(obj.__dlpack_device__())
        except Exception:
            device = None
        result = Export(obj, kwargs)
        try:
            capsule = obj.__dlpack__(**kwargs)
        except Exception as error:
            result.error = error
            return result
        if not is_capsule(capsule) or capsule_name(capsule) not in (VERSIONED_NAME, LEGACY_NAME):
            result.returned = capsule if not is_capsule(capsule) else f"a capsule named {capsule_name(capsule)!r}"
            return result
        result.view = read_capsule(capsule)
        if read_values:
            result.values = element_bytes(result.view)
        self.watches.append((_kwargs_text(kwargs), DeleterWatch(capsule)))
        if result.view.versioned:
            self.versioned_seen.append(result.view)
        wanted = kwargs.get("dl_device")
        expected = tuple(wanted) if wanted is not None else device
        if expected is not None and result.view.device != expected:
            self.device_mismatches.append(f"{_kwargs_text(kwargs)}: capsule on {result.view.device}, "
                                          f"expected {expected}")
        del capsule
        return result


def _refusal_problem(export: Export, allowed: tuple[type[BaseException], ...], what: str) -> str | None:
    """None if the call was refused with one of ``allowed``; else what went wrong."""
    names = "an exception" if allowed == _ARGUMENT_REFUSALS else " or ".join(t.__name__ for t in allowed)
    if export.error is None:
        return f"{what} was accepted; it must be refused with {names}"
    if not isinstance(export.error, allowed):
        return f"{what} raised {_describe(export.error)} (expected {names})"
    return None


def _unexpected(export: Export) -> str | None:
    """Why an export that should have given a capsule did not (None if it did)."""
    if export.error is not None:
        return f"{_kwargs_text(export.kwargs)} raised {_describe(export.error)}"
    if export.view is None:
        return f"{_kwargs_text(export.kwargs)} returned {export.returned!r}, not a DLPack capsule"
    return None


# --------------------------------------------------------------------------- CUDA streams
def _cuda_runtime() -> Any:
    """libcudart loaded with ctypes (None if absent): to make a real stream, never a made-up one."""
    names = [ctypes.util.find_library("cudart")]
    for folder in sys.path:
        names += sorted(glob.glob(os.path.join(folder, "nvidia", "cuda_runtime", "lib", "libcudart.so*")))
    names += ["libcudart.so", "libcudart.so.12", "libcudart.so.13", "libcudart.so.11.0"]
    for name in filter(None, names):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


class _RealStream:
    """A CUDA stream created with the runtime for the duration of one check (``pointer`` 0 if
    the runtime could not make one; ``error`` says why)."""

    def __init__(self, runtime: Any, device_id: int) -> None:
        self.runtime = runtime
        runtime.cudaSetDevice(ctypes.c_int(device_id))
        handle = ctypes.c_void_p()
        code = runtime.cudaStreamCreate(ctypes.byref(handle))
        self.pointer = int(handle.value or 0) if code == 0 else 0
        self.error = f"cudaStreamCreate failed with error {code}" if not self.pointer else ""

    def close(self) -> None:
        self.runtime.cudaStreamSynchronize(ctypes.c_void_p(self.pointer))
        self.runtime.cudaStreamDestroy(ctypes.c_void_p(self.pointer))


# --------------------------------------------------------------------------- the checks
def check_producer(
    make: Callable[[], object],
    *,
    make_readonly: Callable[[], object] | None = None,
    refused: Sequence[Callable[[], object]] = (),
    edge_cases: Sequence[Callable[[], object]] = (),
    subject: str | None = None,
) -> Report:
    """Check a DLPack producer against the DLPack 1.3 header and the Array API standard.

    Parameters
    ----------
    make
        Returns a fresh producer object (anything with ``__dlpack__`` and ``__dlpack_device__``)
        each time it is called. Non-contiguous data with an offset tests the layout best.
    make_readonly
        Returns a producer of read-only data, if the library has such a thing.
    refused
        Each returns an object whose export the producer must refuse (e.g. a torch tensor that
        requires grad); ``__dlpack__`` must raise BufferError, and the C exchange API must refuse
        it too.
    edge_cases
        Each returns an object the producer may export (possibly as a copy) or refuse, e.g. a
        bit-packed boolean array: a capsule or a BufferError is right, any other exception fails.
    subject
        The report's title (default: the type name of ``make()``'s result).

    Returns
    -------
    Report
        One row per check; ``report.failures`` names the failed ones.

    Examples
    --------
    >>> import numpy as np
    >>> from dlarray.testing import check_producer
    >>> report = check_producer(lambda: np.arange(12.0).reshape(3, 4)[:, ::2])
    >>> report["layout"].status
    'passed'
    >>> report["stream=cpu"].status  # refused, as the standard asks (with whatever exception)
    'passed'
    >>> report["refusals"].status  # nothing in `refused` to check
    'not applicable'

    """
    try:
        first = make()
    except Exception as error:  # nothing to check: the report says why
        report = Report(subject or f"{getattr(make, '__qualname__', 'make')}() producer")
        report.add("make", FAILED, f"make() raised {_describe(error)}")
        return report
    report = Report(subject or f"{type(first).__module__}.{type(first).__qualname__} producer")
    run = _Run(make, make_readonly, refused, edge_cases)
    for check in PRODUCER_CHECKS:
        run_check(run, report, check)
        run.settle()
    add_totals(report, run.tally)
    return report


def run_check(run: _Run, report: Report, name: str) -> None:
    """Add the rows of check ``name`` (one of :data:`PRODUCER_CHECKS`) to ``report``.

    A check that cannot finish is a failure of the producer: a row named after the check says
    where it stopped. ``python -m dlarray check`` runs each in a child process (``_cli``), so that
    one that kills the process is reported too.
    """
    try:
        PRODUCER_CHECKS[name](run, report)
    except Exception as error:
        report.add(name, FAILED, f"the check stopped: {_describe(error)}")


def add_totals(report: Report, tally: Tally) -> None:
    """The rows about every capsule the checks received: ``device_agrees`` and
    ``deleter_once (every capsule)``."""
    report.add("device_agrees", FAILED if tally.device_mismatches else PASSED,
               "; ".join(tally.device_mismatches[:3]) or
               f"every capsule ({tally.capsules}) is on the device __dlpack_device__ reports")
    calls = [count for _, count in tally.deleter_calls]
    if tally.deleter_calls and not any(calls):
        report.add("deleter_once (every capsule)", NOT_APPLICABLE, _UNOBSERVABLE)
        return
    # once some capsules are seen freed through their deleter, one that is not was leaked
    wrong = [f"{label}: {count} calls" for label, count in tally.deleter_calls if count > 1]
    wrong += [f"{label}: never called" for label, count in tally.deleter_calls if count == 0]
    report.add("deleter_once (every capsule)", FAILED if wrong else PASSED,
               "; ".join(wrong[:4]) or f"each of the {len(calls)} capsules received and let go unconsumed "
                                       "had its deleter run exactly once")


def _check_device_tuple(run: _Run, report: Report) -> None:
    device = run.make().__dlpack_device__()
    ok = (isinstance(device, tuple) and len(device) == 2
          and all(isinstance(v, int) and not isinstance(v, bool) for v in device))
    report.add("dlpack_device", PASSED if ok else FAILED,
               f"__dlpack_device__() = {device!r}" + ("" if ok else ": expected a tuple of two ints"))


_NEGOTIATION: list[tuple[str, dict[str, Any], str]] = [
    ("max_version=absent", {}, "legacy"),
    ("max_version=(1, 0)", {"max_version": (1, 0)}, "versioned"),
    ("max_version=(1, 99)", {"max_version": (1, 99)}, "versioned"),
    ("max_version=(2, 0)", {"max_version": (2, 0)}, "versioned"),
    ("max_version=(0, 8)", {"max_version": (0, 8)}, "legacy"),
]


def _check_negotiation(run: _Run, report: Report) -> None:
    for name, kwargs, wanted in _NEGOTIATION:
        export = run.export(**kwargs)
        if wanted == "legacy":
            # A consumer that offers no max_version (or 0.x) reads only DLManagedTensor; the
            # Array API lets a producer refuse it with BufferError since March 2025.
            if export.error is not None:
                problem = _refusal_problem(export, (BufferError,), "a legacy export")
                report.add(name, FAILED if problem else PASSED, problem or f"refused: {_describe(export.error)}")
            elif export.view is None:
                report.add(name, FAILED, _unexpected(export) or "")
            elif export.view.name != LEGACY_NAME:
                report.add(name, FAILED, f"gave a {export.view.name.decode()} capsule, which this consumer "
                                         "cannot read (expected dltensor)")
            else:
                report.add(name, PASSED, "dltensor")
            continue
        problem = _unexpected(export)
        if problem:
            report.add(name, FAILED, problem)
        elif export.view.name != VERSIONED_NAME:  # type: ignore[union-attr]
            report.add(name, FAILED, "gave a legacy dltensor capsule although the consumer reads "
                                     "dltensor_versioned (the read-only and is-copied flags are lost)")
        elif export.view.version is None or export.view.version[0] != 1:  # type: ignore[union-attr]
            report.add(name, FAILED, f"version {export.view.version} (expected major 1)")  # type: ignore[union-attr]
        else:
            report.add(name, PASSED, f"dltensor_versioned {export.view.version}")  # type: ignore[union-attr]


def _check_version_field(run: _Run, report: Report) -> None:
    if not run.versioned_seen:  # the negotiation ran in another process (or asked nothing)
        run.export(max_version=DLPACK_VERSION)
    seen = run.versioned_seen
    if not seen:
        report.add("version_field", NOT_APPLICABLE, "no versioned capsule was produced")
        return
    problems = []
    for view in seen:
        major, minor = view.version  # type: ignore[misc]
        if major != 1:
            problems.append(f"version {major}.{minor}: the only defined major version is 1")
        if view.flags & ~_KNOWN_FLAGS:
            problems.append(f"flags {view.flags:#x} set undefined bits")
        if view.dtype[0] >= DLDataTypeCode.FLOAT8_E3M4 and minor < 1:
            problems.append(f"dtype code {view.dtype[0]} needs version 1.1 or later, capsule says {major}.{minor}")
    versions = sorted({v.version for v in seen})  # type: ignore[type-var]
    report.add("version_field", FAILED if problems else PASSED,
               "; ".join(dict.fromkeys(problems)) or f"versions {', '.join(f'{a}.{b}' for a, b in versions)}")


def _layout_problems(view: ProducerView, capsule: CapsuleView) -> tuple[list[str], list[str]]:
    problems, compared = [], []
    if view.shape is not None:
        compared.append("shape")
        if capsule.shape != view.shape:
            problems.append(f"shape {capsule.shape} != the producer's {view.shape}")
    if view.strides is not None and view.shape is not None and capsule.shape == view.shape:
        compared.append("strides")
        # strides of extent-1 dimensions are arbitrary; compare only the others
        got = capsule.element_strides or ()
        if any(a != b for a, b, n in zip(got, view.strides, view.shape) if n > 1):
            problems.append(f"strides {got} (elements) != the producer's {view.strides}")
    if view.dtype is not None:
        compared.append("dtype")
        name = dtype_name(capsule.dtype[0], capsule.dtype[1])
        if capsule.dtype[2] != 1 or name != view.dtype:
            problems.append(f"dtype {name} (code {capsule.dtype[0]}, bits {capsule.dtype[1]}, lanes "
                            f"{capsule.dtype[2]}) != the producer's {view.dtype}")
    if view.pointer is not None:
        compared.append("data + byte_offset")
        if capsule.pointer != view.pointer:
            problems.append(f"data + byte_offset = {capsule.pointer:#x} != the producer's pointer {view.pointer:#x}")
    return problems, compared


def _check_layout(run: _Run, report: Report) -> None:
    obj = run.make()
    view = producer_view(obj)
    export = run.export(obj, max_version=DLPACK_VERSION)
    if export.view is None or export.view.name != VERSIONED_NAME:
        export = run.export(None)
        view = producer_view(export.obj)
    problem = _unexpected(export)
    if problem:
        report.add("layout", FAILED, problem)
        return
    problems, compared = _layout_problems(view, export.view)  # type: ignore[arg-type]
    if not compared:
        report.add("layout", NOT_APPLICABLE, "the producer exposes no shape, strides, dtype or pointer of its own")
    else:
        report.add("layout", FAILED if problems else PASSED,
                   "; ".join(problems) or f"{', '.join(compared)} agree with {view.source}")


def _check_strides_present(run: _Run, report: Report) -> None:
    export = run.export(max_version=DLPACK_VERSION)
    view = export.view
    if view is None or not view.versioned:
        report.add("strides_not_null", NOT_APPLICABLE, "no versioned capsule")
        return
    if view.ndim == 0:
        report.add("strides_not_null", NOT_APPLICABLE, "0-d tensor")
    elif view.version >= (1, 2) and view.strides is None:  # type: ignore[operator]
        report.add("strides_not_null", FAILED, f"version {view.version} with ndim {view.ndim} and NULL strides "
                                               "(DLPack 1.2 requires strides)")
    else:
        report.add("strides_not_null", PASSED, "strides set" if view.strides is not None else
                   f"NULL strides, allowed before 1.2 (version {view.version})")


def _check_copy(run: _Run, report: Report) -> None:
    versions: dict[str, Any] = {"max_version": DLPACK_VERSION}
    for copy in (True, False, None):
        name = f"copy={copy}"
        obj = run.make()
        original = producer_view(obj).pointer
        reference = None
        if original is None:  # learn the pointer from a plain export of the same object
            plain = run.export(obj, **versions)
            original = plain.view.pointer if plain.view is not None else None
            reference = plain.view
        export = run.export(obj, copy=copy, read_values=reference is not None, **versions)
        problem = _unexpected(export)
        if problem:
            if copy is False and isinstance(export.error, BufferError):
                report.add(name, NOT_APPLICABLE, f"refused: {_describe(export.error)}")
            else:
                report.add(name, FAILED, problem)
            continue
        view = export.view
        assert view is not None
        copied = None if original is None else view.pointer != original
        flagged = bool(view.flags & FLAG_IS_COPIED) if view.versioned else None
        problems = []
        if flagged is None:
            problems.append("legacy capsule: IS_COPIED cannot be expressed")
        if copy is True:
            if copied is False:
                problems.append("copy=True returned the original memory")
            if flagged is False:
                problems.append("the copy is not flagged IS_COPIED")
            original_values = element_bytes(reference) if reference is not None else None
            if copied and export.values is not None and original_values is not None \
                    and export.values != original_values:
                problems.append("the copy's values differ from the original's")
        else:
            if copy is False and copied:
                problems.append("copy=False returned other memory than the producer's")
            if copied is not None and flagged is not None and flagged != copied:
                problems.append(f"IS_COPIED is {'set' if flagged else 'unset'} but the memory is "
                                f"{'a copy' if copied else 'the original'}")
        detail = "; ".join(problems) or (
            "copied, IS_COPIED set" if flagged and copied else "the producer's own memory, IS_COPIED unset"
            if copied is False else f"IS_COPIED {'set' if flagged else 'unset'} (the original pointer is unknown)")
        report.add(name, FAILED if problems else PASSED, detail)


def _check_dl_device(run: _Run, report: Report) -> None:
    obj = run.make()
    device = tuple(obj.__dlpack_device__())
    original = producer_view(obj).pointer
    export = run.export(obj, max_version=DLPACK_VERSION, dl_device=device, copy=False)
    problem = _unexpected(export)
    if problem is None and original is not None and export.view.pointer != original:  # type: ignore[union-attr]
        problem = "dl_device = its own device with copy=False returned other memory"
    report.add("dl_device=own", FAILED if problem else PASSED, problem or f"dl_device={device} accepted, no copy")

    other = (_CUDA, 0) if device[0] != _CUDA else (_CPU, 0)
    export = run.export(max_version=DLPACK_VERSION, dl_device=other, copy=False)
    problem = _refusal_problem(export, (BufferError,), f"dl_device={other} with copy=False (a copy is needed)")
    if export.error is None and export.view is not None and export.view.device == other:
        problem = f"dl_device={other} with copy=False handed over memory on {other}, which needs a copy"
    report.add("dl_device=other,copy=False", FAILED if problem else PASSED,
               problem or f"refused: {_describe(export.error)}")  # type: ignore[arg-type]

    export = run.export(max_version=DLPACK_VERSION, dl_device=(99, 0))
    problem = _refusal_problem(export, (BufferError,), "dl_device=(99, 0) (an unknown device type)")
    report.add("dl_device=unknown", FAILED if problem else PASSED,
               problem or f"refused: {_describe(export.error)}")  # type: ignore[arg-type]


def _check_streams(run: _Run, report: Report) -> None:
    device = tuple(run.make().__dlpack_device__())
    # stream is the one keyword every producer takes (since 2021): asked alone, so that a producer
    # without max_version is still checked on it
    export = run.export(stream=None)
    problem = _unexpected(export)
    report.add("stream=None", FAILED if problem else PASSED, problem or "accepted")
    if device[0] not in _STREAM_DEVICES:
        outcomes: dict[str, list[str]] = {}  # what happened -> the stream values it happened for
        failed = False
        for stream in (1, 2, -1, 0, 0x7F00):
            export = run.export(stream=stream)
            problem = _refusal_problem(export, _ARGUMENT_REFUSALS, "a stream on a device without streams")
            failed = failed or problem is not None
            outcome = problem or f"refused ({type(export.error).__name__})"
            outcomes.setdefault(outcome, []).append(str(stream))
        report.add("stream=cpu", FAILED if failed else PASSED,
                   "; ".join(f"stream={', '.join(values)}: {outcome}" for outcome, values in outcomes.items()))
        for name in ("stream=0 (cuda)", "stream=-1,1,2 (cuda)", "stream=pointer (cuda)"):
            report.add(name, NOT_APPLICABLE, f"the producer is on device {device}, which has no streams")
        return
    report.add("stream=cpu", NOT_APPLICABLE, f"the producer is on device {device}")
    if device[0] == _ROCM:
        for name in ("stream=0 (cuda)", "stream=-1,1,2 (cuda)", "stream=pointer (cuda)"):
            report.add(name, NOT_APPLICABLE, "ROCm streams follow other rules (0 is the default stream)")
        return
    export = run.export(stream=0, max_version=DLPACK_VERSION)
    problem = _refusal_problem(export, _ARGUMENT_REFUSALS, "stream=0 (ambiguous, disallowed on CUDA)")
    report.add("stream=0 (cuda)", FAILED if problem else PASSED, problem or f"refused: {_describe(export.error)}")  # type: ignore[arg-type]
    problems = [p for p in (_unexpected(run.export(stream=s, max_version=DLPACK_VERSION)) for s in (-1, 1, 2)) if p]
    report.add("stream=-1,1,2 (cuda)", FAILED if problems else PASSED, "; ".join(problems) or "accepted")
    runtime = _cuda_runtime()
    if runtime is None:
        report.add("stream=pointer (cuda)", NOT_APPLICABLE, "no CUDA runtime found to create a real stream")
        return
    stream = _RealStream(runtime, device[1])
    if not stream.pointer:
        report.add("stream=pointer (cuda)", NOT_APPLICABLE, stream.error)
        return
    try:
        problem = _unexpected(run.export(stream=stream.pointer, max_version=DLPACK_VERSION))
    finally:
        gc.collect()
        stream.close()
    report.add("stream=pointer (cuda)", FAILED if problem else PASSED, problem or "a real stream was accepted")


def _check_deleters(run: _Run, report: Report) -> None:
    for label, kwargs in (("deleter_once (versioned)", {"max_version": DLPACK_VERSION}), ("deleter_once (legacy)", {})):
        obj = run.make()
        try:
            capsule = obj.__dlpack__(**kwargs)
        except Exception as error:
            report.add(label, NOT_APPLICABLE, f"no capsule: {_describe(error)}")
            continue
        if capsule_name(capsule) != (VERSIONED_NAME if kwargs else LEGACY_NAME) and kwargs:
            report.add(label, NOT_APPLICABLE, f"the producer gave a {capsule_name(capsule)!r} capsule")
            continue
        watch = DeleterWatch(capsule)
        if not watch.original:
            report.add(label, PASSED, "NULL deleter: nothing to free")
            continue
        del capsule
        gc.collect()
        if watch.calls == 0:
            report.add(label, NOT_APPLICABLE, _UNOBSERVABLE)
        else:
            report.add(label, PASSED if watch.calls == 1 else FAILED,
                       f"the deleter ran {watch.calls} times when the unconsumed capsule was freed"
                       + ("" if watch.calls == 1 else " (expected exactly once)"))
    # a capsule renamed used_* belongs to its consumer: the destructor must leave the deleter alone
    obj = run.make()
    try:
        capsule = obj.__dlpack__(max_version=DLPACK_VERSION)
    except Exception as error:
        report.add("deleter_after_rename", NOT_APPLICABLE, f"no capsule: {_describe(error)}")
        return
    name = capsule_name(capsule)
    watch = DeleterWatch(capsule)
    view = read_capsule(capsule)
    rename_capsule(capsule, USED_NAMES[name])
    del capsule
    gc.collect()
    calls = watch.calls
    if view.deleter:
        watch.call_original()  # the kit is the consumer now: it frees the tensor, once
    report.add("deleter_after_rename", PASSED if calls == 0 else FAILED,
               "the capsule destructor left a consumed tensor alone" if calls == 0 else
               f"the capsule destructor called the deleter {calls} times after the capsule was consumed")


def _check_read_only(run: _Run, report: Report) -> None:
    make_readonly = run.make_readonly
    if make_readonly is None:
        report.add("read_only_flag", NOT_APPLICABLE, "no read-only producer given (make_readonly)")
        report.add("read_only_legacy", NOT_APPLICABLE, "no read-only producer given (make_readonly)")
        return
    try:
        obj = make_readonly()
    except Exception as error:
        for name in ("read_only_flag", "read_only_legacy"):
            report.add(name, NOT_APPLICABLE, f"make_readonly() raised {_describe(error)}")
        return
    said = producer_view(obj).readonly
    export = run.export(obj, max_version=DLPACK_VERSION)
    problem = _unexpected(export)
    if problem is None and said is False:
        problem = "make_readonly's object says it is writable"
    if problem is None:
        view = export.view
        assert view is not None
        if not view.versioned:
            problem = "a legacy capsule for read-only data: the READ_ONLY flag is lost"
        elif not view.flags & FLAG_READ_ONLY and not view.flags & FLAG_IS_COPIED:
            problem = "READ_ONLY is not set for read-only data"
    report.add("read_only_flag", FAILED if problem else PASSED, problem or "READ_ONLY set")
    obj = make_readonly()
    original = producer_view(obj).pointer
    export = run.export(obj)
    if export.error is not None:
        problem = _refusal_problem(export, (BufferError,), "a legacy export of read-only data")
        report.add("read_only_legacy", FAILED if problem else PASSED, problem or f"refused: {_describe(export.error)}")
    elif export.view is None:
        report.add("read_only_legacy", FAILED, _unexpected(export) or "")
    elif export.view.versioned:
        report.add("read_only_legacy", FAILED, "a versioned capsule to a consumer that offered no max_version")
    elif original is not None and export.view.pointer != original:
        report.add("read_only_legacy", PASSED, "a writable copy was handed over")
    else:
        report.add("read_only_legacy", FAILED, "read-only data exported as a legacy capsule, which cannot say "
                                               "read-only (expected BufferError)")


def _check_refusals(run: _Run, report: Report) -> None:
    refused = run.refused
    if not refused:
        report.add("refusals", NOT_APPLICABLE, "no must-refuse objects given (refused)")
        return
    problems, seen = [], []
    for i, maker in enumerate(refused):
        export = run.export(maker(), max_version=DLPACK_VERSION)
        problem = _refusal_problem(export, (BufferError,), f"refused[{i}] ({type(export.obj).__name__})")
        if problem:
            problems.append(problem)
        else:
            seen.append(_describe(export.error))  # type: ignore[arg-type]
    report.add("refusals", FAILED if problems else PASSED, "; ".join(problems) or "; ".join(seen))


def _check_edge_cases(run: _Run, report: Report) -> None:
    edge_cases = run.edge_cases
    if not edge_cases:
        report.add("edge_cases", NOT_APPLICABLE, "no edge cases given (edge_cases)")
        return
    problems, seen = [], []
    for i, maker in enumerate(edge_cases):
        export = run.export(maker(), max_version=DLPACK_VERSION)
        label = f"edge_cases[{i}] ({type(export.obj).__name__})"
        if export.error is not None and not isinstance(export.error, BufferError):
            problems.append(f"{label} raised {_describe(export.error)} (expected a capsule or BufferError)")
        elif export.error is not None:
            seen.append(f"{label} refused: {_describe(export.error)}")
        elif export.view is None:
            problems.append(f"{label}: {_unexpected(export)}")
        else:
            seen.append(f"{label} exported as {dtype_name(*export.view.dtype[:2])}")
    report.add("edge_cases", FAILED if problems else PASSED, "; ".join(problems) or "; ".join(seen))


# --------------------------------------------------------------------------- the C exchange API
class _ExchangeAPI(ctypes.Structure):
    _fields_ = [
        ("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("prev_api", ctypes.c_void_p),
        ("managed_tensor_allocator", ctypes.c_void_p),
        ("managed_tensor_from_py_object_no_sync", ctypes.c_void_p),
        ("managed_tensor_to_py_object_no_sync", ctypes.c_void_p),
        ("dltensor_from_py_object_no_sync", ctypes.c_void_p),
        ("current_work_stream", ctypes.c_void_p),
    ]


# int (*)(void *py_object, DLManagedTensorVersioned **out): sets a Python error and returns -1 on
# failure, so it is called as a Python-API function (GIL held, the error raised by ctypes).
_FROM_PY_OBJECT = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(ctypes.c_void_p))
_get_plain_pointer = ctypes.pythonapi["PyCapsule_GetPointer"]
_get_plain_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_get_plain_pointer.restype = ctypes.c_void_p
_FOREIGN_DELETER = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)


def _exchange(function: Any, obj: object) -> tuple[CapsuleView | None, BaseException | None]:
    """Take ``obj``'s tensor through the exchange API, describe it, and free it (we own it)."""
    out = ctypes.c_void_p()
    try:
        code = function(obj, ctypes.byref(out))
    except Exception as error:
        return None, error
    if code != 0:
        return None, RuntimeError(f"returned {code} without setting an exception")
    if not out.value:
        return None, RuntimeError("reported success but gave no tensor")
    view = read_struct(out.value, True, b"(exchange api)")
    if view.deleter:
        _FOREIGN_DELETER(view.deleter)(out.value)
    return view, None


def _check_exchange_api(run: _Run, report: Report) -> None:
    make_readonly, refused = run.make_readonly, run.refused
    kind = type(run.make())
    capsule = getattr(kind, "__dlpack_c_exchange_api__", None)
    names = ("exchange_api", "exchange_api=__dlpack__", "exchange_api refusals")
    if capsule is None:
        for name in names:
            report.add(name, NOT_APPLICABLE, f"{kind.__name__} has no __dlpack_c_exchange_api__")
        return
    if not is_capsule(capsule) or capsule_name(capsule) != b"dlpack_exchange_api":
        report.add(names[0], FAILED, f"__dlpack_c_exchange_api__ is {capsule!r}, not a capsule named "
                                     "'dlpack_exchange_api' (DLPack 1.3)")
        for name in names[1:]:
            report.add(name, NOT_APPLICABLE, "no usable exchange API")
        return
    api = _ExchangeAPI.from_address(_get_plain_pointer(capsule, b"dlpack_exchange_api"))
    if api.major != 1 or not api.managed_tensor_from_py_object_no_sync:
        report.add(names[0], FAILED, f"version {api.major}.{api.minor}, managed_tensor_from_py_object_no_sync "
                                     f"{'set' if api.managed_tensor_from_py_object_no_sync else 'NULL'}")
        for name in names[1:]:
            report.add(name, NOT_APPLICABLE, "no usable exchange API")
        return
    report.add(names[0], PASSED, f"version {api.major}.{api.minor}")
    function = _FROM_PY_OBJECT(api.managed_tensor_from_py_object_no_sync)
    problems = []
    makers = [("make", run.make)] + ([("make_readonly", make_readonly)] if make_readonly else [])
    for label, maker in makers:
        obj = maker()
        via_c, error = _exchange(function, obj)
        export = run.export(obj, max_version=DLPACK_VERSION)
        if error is not None or export.view is None:
            if error is None or export.error is None:
                problems.append(f"{label}: exchange API {'refused: ' + _describe(error) if error else 'accepted'}, "
                                f"__dlpack__ {'refused: ' + _describe(export.error) if export.error else 'accepted'}")
            continue
        via_py = export.view
        for part in ("pointer", "device", "ndim", "dtype", "shape", "element_strides", "flags"):
            a, b = getattr(via_c, part), getattr(via_py, part)
            if a != b:
                problems.append(f"{label}: {part} {a!r} via the C API, {b!r} via __dlpack__")
    report.add(names[1], FAILED if problems else PASSED,
               "; ".join(problems) or f"pointer, device, shape, strides, dtype and flags agree ({len(makers)} objects)")
    if not refused:
        report.add(names[2], NOT_APPLICABLE, "no must-refuse objects given (refused)")
        return
    problems = []
    for i, maker in enumerate(refused):
        obj = maker()
        via_c, error = _exchange(function, obj)
        export = run.export(obj, max_version=DLPACK_VERSION)
        if (error is None) != (export.error is None):
            problems.append(f"refused[{i}]: the C API {'accepted' if error is None else 'refused'}, __dlpack__ "
                            f"{'accepted' if export.error is None else 'refused'}")
        elif error is not None and type(error) is not type(export.error):
            problems.append(f"refused[{i}]: the C API raised {type(error).__name__}, __dlpack__ "
                            f"{type(export.error).__name__}")
    report.add(names[2], FAILED if problems else PASSED,
               "; ".join(problems) or f"the C API refuses what __dlpack__ refuses ({len(refused)} objects)")


_UNOBSERVABLE = ("the capsule destructor did not call the deleter stored in the struct; it may free the tensor "
                 "by calling its own function directly (jaxlib does), which the kit cannot observe")


#: The checks, in the order they run: name -> function adding its rows (then `add_totals`).
PRODUCER_CHECKS: dict[str, Callable[[_Run, Report], None]] = {
    check.__name__.removeprefix("_check_"): check for check in (
        _check_device_tuple, _check_negotiation, _check_version_field, _check_layout, _check_strides_present,
        _check_copy, _check_dl_device, _check_streams, _check_deleters, _check_read_only, _check_refusals,
        _check_edge_cases, _check_exchange_api,
    )
}


__all__ = ["PRODUCER_CHECKS", "ProducerView", "Tally", "add_totals", "check_producer", "dtype_name",
           "producer_view", "run_check"]
