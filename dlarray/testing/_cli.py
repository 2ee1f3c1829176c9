"""``python -m dlarray check LIBRARY``: the producer and consumer reports of one library.

LIBRARY is one of the names in :data:`LIBRARIES` or ``MODULE:CALLABLE``, a ``from_dlpack``-like
function: it is checked as a consumer, and the objects it returns for a numpy array are checked
as producers. Exit status 1 when a check failed or crashed, 2 for a library that is not installed.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import json
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dlarray

from ._consumer_checks import _resolve, check_consumer
from ._producer_checks import check_producer
from ._report import Report


def _strided_numpy(readonly: bool = False) -> Any:
    import numpy as np

    array = np.arange(24, dtype=np.float32).reshape(4, 6)[1:, ::2]  # offset, non-contiguous
    if readonly:
        array.setflags(write=False)
    return array


@dataclass
class Library:
    """How to make a library's producers and which function is its consumer."""

    distribution: str  # the name importlib.metadata knows it by
    make: Callable[[], Any]
    make_readonly: Callable[[], Any] | None = None
    refused: list[Callable[[], Any]] = field(default_factory=list)
    consumer: str | None = None  # "module:qualname"
    device: str = "cpu"
    unavailable: str = ""  # why it cannot be checked here ("" if it can)


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
        lambda: torch.sparse_coo_tensor([[0]], [1.0], (2,), check_invariants=True),
    ], consumer="torch:from_dlpack")


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


#: The libraries ``check`` knows by name.
LIBRARIES: dict[str, Callable[[], Library]] = {
    "numpy": _numpy, "torch": _torch, "jax": _jax, "array-api-strict": _strict, "pydlpack": _pydlpack,
    "dlarray": _dlarray, "cupy": _cupy,
}


def _from_callable(spec: str) -> Library:
    consumer = _resolve(spec)
    return Library(spec.partition(":")[0].split(".")[0], lambda: consumer(_strided_numpy()), consumer=spec)


def _version(distribution: str) -> str | None:
    names = {"cupy": ("cupy", "cupy-cuda12x", "cupy-cuda13x", "cupy-cuda11x")}.get(distribution, (distribution,))
    for name in names:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def run(name: str, *, producer: bool = True, consumer: bool = True) -> dict[str, Any]:
    """Check one library; return the JSON-ready record (reports, versions, when)."""
    library = LIBRARIES[name]() if name in LIBRARIES else _from_callable(name)
    record: dict[str, Any] = {
        "unavailable": library.unavailable,
        "library": name,
        "version": _version(library.distribution),
        "device": library.device,
        "environment": {"python": platform.python_version(), "numpy": _version("numpy"),
                        "dlarray": _version("dlarray"), "platform": platform.platform(terse=True)},
        "time": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "producer": None,
        "consumer": None,
    }
    if library.unavailable:
        return record
    if producer:
        record["producer"] = check_producer(library.make, make_readonly=library.make_readonly,
                                            refused=library.refused, subject=f"{name} producer").to_dict()
    if consumer and library.consumer is not None:
        record["consumer"] = check_consumer(library.consumer, subject=f"{name} consumer ({library.consumer})").to_dict()
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
    if args.library not in LIBRARIES and ":" not in args.library:
        parser.error(f"unknown library {args.library!r}: expected one of {', '.join(LIBRARIES)} or MODULE:CALLABLE")
    try:
        record = run(args.library, producer=not args.consumer_only, consumer=not args.producer_only)
    except ImportError as error:
        print(f"cannot check {args.library}: {error}", file=sys.stderr)
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
