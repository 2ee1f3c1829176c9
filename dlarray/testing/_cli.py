"""``python -m dlarray check LIBRARY``: the producer and consumer reports of one library.

LIBRARY is one of the names in :data:`LIBRARIES` or ``MODULE:CALLABLE``, a ``from_dlpack``-like
function: it is checked as a consumer, and the objects it returns for a numpy array are checked
as producers. A function that takes a capsule rather than an array (tensorflow's
``tensorflow.experimental.dlpack:from_dlpack``) is recognised and checked as such.

Both halves run their checks in child processes (the producer's in groups, ``PRODUCER_CHECKS``;
the consumer's case by case), so that a check that aborts or kills the process is reported as
``crashed``, with what it printed, and the run ends in a report. Exit status 1 when a check failed
or crashed, 2 for a library that cannot be imported.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import json
import os
import platform
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dlarray

from ._buffers import aligned_float32
from ._consumer_checks import check_consumer
from ._isolation import Crash, resolve, run_jobs, serve
from ._producer_checks import PRODUCER_CHECKS, Tally, _Run, add_totals, run_check
from ._report import CRASHED, FAILED, CheckResult, Report


def _strided_numpy(readonly: bool = False) -> Any:
    array = aligned_float32(24).reshape(4, 6)[1:, ::2]  # offset, non-contiguous
    if readonly:
        array.setflags(write=False)
    return array


def _contiguous_numpy() -> Any:
    return aligned_float32(24).reshape(4, 6)


@dataclass
class Library:
    """How to make a library's producers and which function is its consumer."""

    distribution: str  # the name importlib.metadata knows it by (or a key of _DISTRIBUTIONS)
    make: Callable[[], Any]
    make_readonly: Callable[[], Any] | None = None
    refused: list[Callable[[], Any]] = field(default_factory=list)
    consumer: str | None = None  # "module:qualname"
    device: str = "cpu"
    unavailable: str = ""  # why it cannot be checked here ("" if it can)
    edge_cases: list[Callable[[], Any]] = field(default_factory=list)
    capsules: bool = False  # the consumer takes a capsule, not an object with __dlpack__


def _numpy() -> Library:
    return Library("numpy", _strided_numpy, lambda: _strided_numpy(readonly=True), consumer="numpy:from_dlpack")


def _torch() -> Library:
    import torch

    def make() -> Any:
        return torch.arange(24, dtype=torch.float32).reshape(4, 6)[1:, ::2]

    return Library("torch", make, refused=[
        lambda: torch.ones(3, requires_grad=True),  # a tensor that needs grad: __dlpack__ refuses it
        lambda: torch.ones(3, device="meta"),  # a tensor without memory
        # not strided; check_invariants said, or torch warns of segfaults on every run of the kit
        lambda: _sparse_tensor(torch),
    ], consumer="torch:from_dlpack")


def _sparse_tensor(torch: Any) -> Any:
    """A sparse COO tensor, made without torch's warning that its invariant checks are off: torch
    2.11 and 2.12 warn even when ``check_invariants=True`` is passed (the global setting is read
    first; pytorch#184610, fixed in 2.13), so the setting is switched on around the call too."""
    with torch.sparse.check_sparse_tensor_invariants(enable=True):
        return torch.sparse_coo_tensor([[0]], [1.0], (2,), check_invariants=True)


def _jax() -> Library:
    import jax.numpy as jnp

    return Library("jax", lambda: jnp.arange(24, dtype=jnp.float32).reshape(4, 6), consumer="jax.numpy:from_dlpack")


def _strict() -> Library:
    import array_api_strict as xp

    return Library("array-api-strict", lambda: xp.reshape(xp.arange(24, dtype=xp.float32), (4, 6))[1:, ::2],
                   consumer="array_api_strict:from_dlpack")


def _pydlpack() -> Library:
    import dlpack

    # no make_readonly: asdlpack itself refuses a read-only numpy array (it asks numpy for a legacy capsule)
    return Library("pydlpack", lambda: dlpack.asdlpack(_strided_numpy()))


def _dlarray() -> Library:
    return Library("dlarray", lambda: dlarray.asarray(_strided_numpy()),
                   lambda: dlarray.from_dlpack(_strided_numpy(readonly=True)), consumer="dlarray:from_dlpack")


def _cupy() -> Library:
    import cupy

    try:
        devices = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # cupy without a driver raises its own CUDARuntimeError
        devices, why = 0, f": {error}"
    else:
        why = ""
    return Library(
        "cupy", lambda: None, device="cuda",
        unavailable=f"cupy is installed but no CUDA device is visible{why}") if devices < 1 else Library("cupy", lambda: cupy.arange(24, dtype=cupy.float32).reshape(4, 6)[1:, ::2],
                   consumer="cupy:from_dlpack", device="cuda")


def _tensorflow() -> Library:
    import tensorflow as tf

    return Library(
        "tensorflow", lambda: tf.reshape(tf.range(24, dtype=tf.float32), (4, 6)),  # its tensors are compact
        refused=[lambda: tf.constant(["a", "b"])],  # strings: no DLPack type
        consumer="tensorflow.experimental.dlpack:from_dlpack", capsules=True)


def _paddle() -> Library:
    with warnings.catch_warnings():  # about compiling C++ extensions, not about DLPack
        warnings.filterwarnings("ignore", message="No ccache found")
        import paddle

    return Library("paddle", lambda: paddle.arange(24, dtype="float32").reshape([4, 6])[1:, ::2],
                   consumer="paddle:from_dlpack")


def _pyarrow() -> Library:
    import pyarrow as pa

    def make() -> Any:  # an offset into an aligned buffer; arrow arrays are one-dimensional and immutable
        return pa.array(_contiguous_numpy().reshape(-1)).slice(3, 12)

    return Library(
        "pyarrow", make, make_readonly=make,
        refused=[lambda: pa.array(["a", "b"]), lambda: pa.array([1.0, None])],  # no DLPack type; nulls
        edge_cases=[lambda: pa.array([True, False, True])])  # bit-packed: exported as a copy, or refused


#: The libraries ``check`` knows by name.
LIBRARIES: dict[str, Callable[[], Library]] = {
    "numpy": _numpy, "torch": _torch, "jax": _jax, "array-api-strict": _strict, "pydlpack": _pydlpack,
    "dlarray": _dlarray, "cupy": _cupy, "tensorflow": _tensorflow, "paddle": _paddle, "pyarrow": _pyarrow,
}


def _from_callable(spec: str) -> Library:
    """A ``from_dlpack``-like function as a library: what it takes is found by trying, in turn, a
    strided array, a contiguous one and a capsule; what it returns is checked as a producer."""
    consumer = resolve(spec)
    name = spec.partition(":")[0].split(".")[0]
    tried = []
    sources: list[tuple[bool, str, Callable[[], Any]]] = [
        (False, "a strided numpy array", _strided_numpy),
        (False, "a contiguous numpy array", _contiguous_numpy),
        (True, "a capsule", lambda: _contiguous_numpy().__dlpack__()),
    ]
    for capsules, what, source in sources:
        try:
            consumer(source())
        except Exception as error:
            tried.append(f"{what}: {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"[:200])
            continue
        return Library(name, lambda source=source: consumer(source()), consumer=spec,  # type: ignore[misc]
                       capsules=capsules)

    def refused_all() -> Any:
        raise TypeError(f"{spec} took none of what it was given ({'; '.join(tried)})")

    return Library(name, refused_all, consumer=spec)


def library(name: str) -> Library:
    """The library ``check`` checks for ``name`` (a name in :data:`LIBRARIES` or ``MODULE:CALLABLE``)."""
    return LIBRARIES[name]() if name in LIBRARIES else _from_callable(name)


#: what importlib.metadata may know a library by
_DISTRIBUTIONS = {
    "cupy": ("cupy", "cupy-cuda12x", "cupy-cuda13x", "cupy-cuda11x"),
    "tensorflow": ("tensorflow", "tensorflow-cpu"),
    "paddle": ("paddlepaddle", "paddlepaddle-gpu"),
}


def _version(distribution: str) -> str | None:
    names = _DISTRIBUTIONS.get(distribution, (distribution,))
    for name in names:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


# what a producer child runs: the library rebuilt by name, its checks served one group at a time
_PRODUCER_CHILD = "import sys; from dlarray.testing._cli import serve_producer; serve_producer(sys.argv[1:])"


def serve_producer(argv: list[str]) -> None:
    """A producer child: ``NAME FD CHECK...``; each check's rows are its result."""
    name, fd, *checks = argv
    checked = library(name)
    run = _Run(checked.make, checked.make_readonly, checked.refused, checked.edge_cases)

    def rows(check: str) -> dict[str, Any]:
        report = Report(name)
        run_check(run, report, check)
        return {"rows": [[row.name, row.status, row.detail] for row in report.results],
                "tally": run.settle().to_dict()}

    serve(checks, int(fd), rows)


def producer_report(name: str, checked: Library, timeout: float = 120.0) -> Report:
    """The producer checks of library ``name``, each group in a child process."""
    report = Report(f"{name} producer")
    try:
        checked.make()
    except Exception as error:  # nothing to check: the report says why
        report.add("make", FAILED, f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}")
        return report
    outcomes = run_jobs(list(PRODUCER_CHECKS), timeout=timeout, startup=max(timeout, 120.0),
                        command=lambda fd, todo: [sys.executable, "-c", _PRODUCER_CHILD, name, str(fd), *todo])
    tally = Tally()
    for check in PRODUCER_CHECKS:
        outcome = outcomes[check]
        if isinstance(outcome, Crash):
            report.add(check, CRASHED, str(outcome))
            continue
        for row in outcome["rows"]:
            report.add(*row)
        tally.add(Tally.from_dict(outcome["tally"]))
    add_totals(report, tally)
    return report


def _stopped(subject: str, error: BaseException) -> Report:
    """The report of a half whose checks could not run at all (the kit's failure, or the library's)."""
    text = str(error).splitlines()[0] if str(error) else ""
    return Report(subject, [CheckResult("checks", FAILED, f"could not run: {type(error).__name__}: {text}")])


def run(name: str, *, producer: bool = True, consumer: bool = True) -> dict[str, Any]:
    """Check one library; return the JSON-ready record (reports, versions, when)."""
    checked = library(name)
    record: dict[str, Any] = {
        "unavailable": checked.unavailable,
        "library": name,
        "version": _version(checked.distribution),
        "device": checked.device,
        "environment": {"python": platform.python_version(), "numpy": _version("numpy"),
                        "dlarray": _version("dlarray"), "platform": platform.platform(terse=True)},
        "time": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "producer": None,
        "consumer": None,
    }
    if checked.unavailable:
        return record
    if producer:
        try:
            record["producer"] = producer_report(name, checked).to_dict()
        except Exception as error:
            record["producer"] = _stopped(f"{name} producer", error).to_dict()
    if consumer and checked.consumer is not None:
        subject = f"{name} consumer ({checked.consumer}{', takes capsules' if checked.capsules else ''})"
        try:
            record["consumer"] = check_consumer(checked.consumer, subject=subject, capsules=checked.capsules).to_dict()
        except Exception as error:
            record["consumer"] = _stopped(subject, error).to_dict()
    return record


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m dlarray check``; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m dlarray check",
        description="Check a library's DLPack producer and consumer against the DLPack 1.3 header and the "
                    "Array API standard.")
    parser.add_argument("library", help=f"one of {', '.join(LIBRARIES)}, or MODULE:CALLABLE (a from_dlpack-like "
                                        "function; what it returns for a numpy array is checked as a producer)")
    parser.add_argument("--json", metavar="PATH", help="also write the reports to PATH as JSON")
    part = parser.add_mutually_exclusive_group()
    part.add_argument("--producer-only", action="store_true", help="run only the producer checks")
    part.add_argument("--consumer-only", action="store_true", help="run only the consumer checks")
    args = parser.parse_args(argv)
    # tensorflow's INFO and WARNING logs (oneDNN, CPU features) stay out of the report; its errors
    # and failed checks still print (and a crashed check quotes them)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    if args.library not in LIBRARIES and ":" not in args.library:
        parser.error(f"unknown library {args.library!r}: expected one of {', '.join(LIBRARIES)} or MODULE:CALLABLE")
    try:
        record = run(args.library, producer=not args.consumer_only, consumer=not args.producer_only)
    except Exception as error:  # the library (or the callable) cannot be imported or made
        print(f"cannot check {args.library}: {type(error).__name__}: {error}", file=sys.stderr)
        return 2
    if record["unavailable"]:
        print(f"cannot check {args.library}: {record['unavailable']}", file=sys.stderr)
        return 2
    print(f"DLPack conformance of {args.library} {record['version'] or ''} (Python {record['environment']['python']}, "
          f"numpy {record['environment']['numpy']})\n")
    failed = False
    for role in ("producer", "consumer"):
        if record[role] is None:
            if not (args.producer_only and role == "consumer") and not (args.consumer_only and role == "producer"):
                print(f"{args.library}: no {role} to check\n")
            continue
        report = Report.from_dict(record[role])
        failed = failed or not report.ok
        print(report, end="\n\n")
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record, indent=1) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
