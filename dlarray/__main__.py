"""``python -m dlarray``: the interop probe (and ``python -m dlarray check LIBRARY``, the DLPack kit).

For every producer installed, a buffer is imported into dlarray and handed on to every consumer
installed; each cell says whether that hop kept the same pointer (zero-copy), copied, or was
refused, and every COPY and refusal has a footnote saying why.

The probe's buffers start on a 64-byte boundary, so the table is the same from run to run: jax
copies any CPU buffer that does not (XLA's alignment), and numpy or ``malloc`` place buffers on
16-byte boundaries only, so an unaligned buffer would make jax's cells flip between runs.

``python -m dlarray --help`` lists the options (``--json``, ``--producers``, ``--consumers``,
``--list``). The first word may name a subcommand instead: subcommands are dispatched on it before
the probe's options are parsed (see ``main``).
"""

from __future__ import annotations

import argparse
import array
import importlib.util
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import dlarray
from dlarray.testing._cli import main as check_command

Pointer = Callable[[Any], int]

# Buffers the probe makes start at a multiple of this many bytes: jax (XLA) copies a CPU buffer
# that does not, numpy and malloc only promise 16.
ALIGNMENT = 64
# the first hop's column: the producer's buffer into dlarray
IMPORT = "dlarray.asarray"


@dataclass(frozen=True)
class Producer:
    """A framework that makes a 1024-element buffer, and how to read that buffer's address."""

    name: str
    make: Callable[[], Any]
    pointer: Pointer


@dataclass(frozen=True)
class Consumer:
    """A framework that imports an Array through DLPack, and how to read the result's address."""

    name: str
    consume: Callable[[Any], Any]
    pointer: Pointer


@dataclass
class ProbeResult:
    """The table (header first, one row per producer) and the footnotes its cells point to."""

    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)
    # one dict per cell: producer, consumer (IMPORT for the import), verdict, note (or None)
    cells: list[dict[str, Any]] = field(default_factory=list)


# ------------------------------------------------------------------------------ the buffers
def _numpy_pointer(a: Any) -> int:
    return int(np.asarray(a).__array_interface__["data"][0])


def _buffer_pointer(b: Any) -> int:
    return int(np.frombuffer(b, dtype=np.uint8).__array_interface__["data"][0])


def aligned_float32(count: int) -> np.ndarray:
    """``arange(count)`` as float32 in a numpy buffer whose first element is ALIGNMENT-aligned."""
    raw = np.empty(count * 4 + ALIGNMENT, dtype=np.uint8)
    start = -raw.ctypes.data % ALIGNMENT
    values = raw[start : start + count * 4].view(np.float32)
    values[:] = np.arange(count, dtype=np.float32)
    return values


def aligned_bytearray(size: int) -> bytearray:
    """A zeroed bytearray of ``size`` bytes whose data is ALIGNMENT-aligned.

    Deleting a bytearray's first bytes moves its start within the same allocation (CPython keeps
    the offset), and trimming less than half of it does not reallocate: over-allocate, then cut.
    """
    buffer = bytearray(size + ALIGNMENT)
    del buffer[: -_buffer_pointer(buffer) % ALIGNMENT]
    del buffer[size:]
    return buffer


def _aligned_python_buffer(make: Callable[[], Any], pointer: Pointer) -> Any:
    """A bytes/array.array whose data is ALIGNMENT-aligned.

    Python places their data where its allocator chooses (16-byte steps): allocate until one
    lands on the boundary, keeping the misses alive meanwhile so that each try gets a new address
    (a heap where many free blocks of that size share one offset needs many tries).
    """
    misses = []
    for _ in range(4096):
        candidate = make()
        if pointer(candidate) % ALIGNMENT == 0:
            return candidate
        misses.append(candidate)
    return make()  # the allocator never obliged: the footnotes say what alignment did


# array.array's initial values as bytes: one allocation of the final size (growing it from a
# range reallocates, and the final block lands on a boundary far less often)
_FLOAT32_BYTES = np.arange(1024, dtype=np.float32).tobytes()


def _producers() -> list[Producer]:
    found = [Producer("numpy", lambda: aligned_float32(1024), _numpy_pointer)]
    if importlib.util.find_spec("torch"):
        import torch

        # torch's CPU allocator aligns to 64 bytes itself
        found.append(Producer("torch", lambda: torch.arange(1024, dtype=torch.float32), lambda t: t.data_ptr()))
        if torch.cuda.is_available():
            found.append(Producer("torch (cuda)", lambda: torch.arange(1024, dtype=torch.float32, device="cuda"),
                                  lambda t: t.data_ptr()))
    if importlib.util.find_spec("jax"):
        import jax.numpy as jnp

        found.append(Producer("jax", lambda: jnp.arange(1024, dtype=jnp.float32), lambda a: a.unsafe_buffer_pointer()))
    if importlib.util.find_spec("array_api_strict"):
        import array_api_strict as strict

        found.append(Producer("array-api-strict", lambda: strict.asarray(aligned_float32(1024)),
                              lambda a: _numpy_pointer(np.from_dlpack(a))))
    cupy = _cuda_cupy()
    if cupy is not None:
        found.append(Producer("cupy", lambda: cupy.arange(1024, dtype=cupy.float32), lambda a: a.data.ptr))

    def memoryview_at_offset() -> memoryview:
        # a view that does not start at its buffer's start (64 bytes in, so still aligned)
        return memoryview(aligned_bytearray(4096 + ALIGNMENT))[ALIGNMENT:]

    found += [
        Producer("bytes", lambda: _aligned_python_buffer(lambda: bytes(4096), _buffer_pointer), _buffer_pointer),
        Producer("bytearray", lambda: aligned_bytearray(4096), _buffer_pointer),
        Producer("array.array", lambda: _aligned_python_buffer(lambda: array.array("f", _FLOAT32_BYTES),
                                                               lambda a: a.buffer_info()[0]),
                 lambda a: a.buffer_info()[0]),
        Producer("memoryview", memoryview_at_offset, _buffer_pointer),
    ]
    return found


def _cuda_cupy() -> Any:
    if not importlib.util.find_spec("cupy"):
        return None
    try:
        import cupy

        return cupy if cupy.cuda.runtime.getDeviceCount() > 0 else None
    except Exception:  # noqa: BLE001 - no usable CUDA runtime: no cupy row or column
        return None


def _consumers() -> list[Consumer]:
    found = [
        Consumer("numpy", np.from_dlpack, _numpy_pointer),
        Consumer("dlarray", dlarray.from_dlpack, lambda x: x.data_ptr),
    ]
    if importlib.util.find_spec("torch"):
        import torch

        found.append(Consumer("torch", torch.from_dlpack, lambda t: t.data_ptr()))
    if importlib.util.find_spec("jax"):
        import jax.numpy as jnp

        found.append(Consumer("jax", jnp.from_dlpack, lambda a: a.unsafe_buffer_pointer()))
    if importlib.util.find_spec("array_api_strict"):
        import array_api_strict as strict

        found.append(Consumer("array-api-strict", strict.from_dlpack, lambda a: _numpy_pointer(np.from_dlpack(a))))
    cupy = _cuda_cupy()
    if cupy is not None:
        found.append(Consumer("cupy", cupy.from_dlpack, lambda a: a.data.ptr))
    return found


# ------------------------------------------------------------------------------ the reasons
def _copy_reason(consumer: str, address: int) -> str:
    """Why ``consumer`` copied the buffer at ``address``, as far as the probe knows."""
    if consumer == "jax" and address % ALIGNMENT:
        return (f"jax copies a CPU buffer whose address is not a multiple of {ALIGNMENT} bytes (XLA's "
                f"alignment); this one's is {address % ALIGNMENT} past a boundary, where its allocator put it")
    return f"{consumer} returned a buffer at another address: it copied (no known rule of {consumer} explains it)"


def _refusal_reason(exc: BaseException) -> str:
    lines = str(exc).splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def _select(available: Sequence[Any], wanted: Sequence[Any] | None, what: str) -> list[Any]:
    """The ``wanted`` entries of ``available`` by name (a Producer/Consumer given as such is kept)."""
    if wanted is None:
        return list(available)
    by_name = {item.name: item for item in available}
    unknown = [name for name in wanted if isinstance(name, str) and name not in by_name]
    if unknown:
        raise ValueError(f"unknown {what} {', '.join(map(repr, unknown))}; installed here: {', '.join(by_name)}")
    return [by_name[name] if isinstance(name, str) else name for name in wanted]


# ------------------------------------------------------------------------------ the probe
def probe(
    producers: Sequence[str | Producer] | None = None, consumers: Sequence[str | Consumer] | None = None
) -> ProbeResult:
    """Run every producer -> dlarray -> consumer hop.

    Parameters
    ----------
    producers, consumers
        Names to run (as ``--list`` shows them) or Producer/Consumer objects of your own; None:
        every one installed. ValueError names an unknown name.

    Returns
    -------
    ProbeResult
        ``rows``: header first, then one row per producer; ``notes``: the footnotes the cells
        point to (``COPY [n]``, ``refused [n]``); ``cells``: the same verdicts as records.

    Examples
    --------
    >>> result = probe(producers=["numpy"], consumers=["numpy"])
    >>> result.rows[1]
    ['numpy', 'zero-copy', 'zero-copy']
    >>> result.rows[0]
    ['producer', 'dlarray.asarray', '-> numpy']
    """
    chosen_producers = _select(_producers(), producers, "producer")
    chosen_consumers = _select(_consumers(), consumers, "consumer")
    result = ProbeResult(rows=[["producer", IMPORT, *(f"-> {c.name}" for c in chosen_consumers)]])

    def record(producer: str, consumer: str, verdict: str, note: str | None) -> str:
        result.cells.append({"producer": producer, "consumer": consumer, "verdict": verdict, "note": note})
        if note is None:
            return verdict
        if note not in result.notes:
            result.notes.append(note)
        return f"{verdict} [{result.notes.index(note) + 1}]"

    for producer in chosen_producers:
        try:
            source = producer.make()
            address = producer.pointer(source)
            imported = dlarray.asarray(source)
        except Exception as exc:  # noqa: BLE001 - the probe reports any refusal, it does not stop
            row = [producer.name, record(producer.name, IMPORT, "refused", _refusal_reason(exc))]
            result.rows.append(row + ["-"] * len(chosen_consumers))
            continue
        if imported.data_ptr == address:
            row = [producer.name, record(producer.name, IMPORT, "zero-copy", None)]
        else:
            row = [producer.name, record(producer.name, IMPORT, "COPY", _copy_reason(IMPORT, address))]
        for consumer in chosen_consumers:
            try:
                received = consumer.consume(imported)
                same = consumer.pointer(received) == address
            except Exception as exc:  # noqa: BLE001 - reported in the cell and its footnote
                row.append(record(producer.name, consumer.name, "refused", _refusal_reason(exc)))
                continue
            if same:
                row.append(record(producer.name, consumer.name, "zero-copy", None))
            else:
                row.append(record(producer.name, consumer.name, "COPY", _copy_reason(consumer.name, address)))
        result.rows.append(row)
    return result


def _versions() -> dict[str, str]:
    return {"dlarray": dlarray.__version__, "python": sys.version.split()[0], "numpy": np.__version__}


def _print_table(result: ProbeResult) -> None:
    versions = _versions()
    rows = result.rows
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    print(f"dlarray {versions['dlarray']} interop probe (Python {versions['python']}, numpy {versions['numpy']})")
    print(f"Each row: a buffer made by the producer, imported by {IMPORT}, then that Array")
    print("handed to each consumer. zero-copy: the same pointer came out; COPY: another buffer; refused:")
    print(f"an exception. Every buffer starts on a {ALIGNMENT}-byte boundary (jax copies others).\n")
    for i, row in enumerate(rows):
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
        if i == 0:
            print("  ".join("-" * width for width in widths))
    for number, note in enumerate(result.notes, 1):
        print(f"[{number}] {note}")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m dlarray",
        description="The interop probe: which producer -> dlarray -> consumer hops are zero-copy, "
                    "which copy and which are refused, with the reason for every copy and refusal.",
        # the subcommands are dispatched before this parser runs (main): say here that they exist
        epilog="python -m dlarray check LIBRARY: the DLPack conformance kit's producer and consumer "
               "reports for a library (python -m dlarray check --help).",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON instead of a table")
    parser.add_argument("--producers", metavar="NAMES", type=_names,
                        help="comma-separated producers to run (default: every one installed)")
    parser.add_argument("--consumers", metavar="NAMES", type=_names,
                        help="comma-separated consumers to run (default: every one installed)")
    parser.add_argument("--list", action="store_true", help="list the producers and consumers installed here")
    return parser


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def run_probe(argv: Sequence[str]) -> int:
    """The probe's command line: parse ``argv`` (options only), run, print."""
    parser = _parser()
    options = parser.parse_args(list(argv))
    if options.list:
        print("producers:", ", ".join(p.name for p in _producers()))
        print("consumers:", ", ".join(c.name for c in _consumers()))
        return 0
    try:
        result = probe(options.producers, options.consumers)
    except ValueError as exc:
        parser.error(str(exc))
    if options.json:
        json.dump({**_versions(), "alignment": ALIGNMENT, "header": result.rows[0], "rows": result.rows[1:],
                   "cells": result.cells, "notes": result.notes}, sys.stdout, indent=2)
        print()
    else:
        _print_table(result)
    return 0


# Subcommands: first word -> the module whose ``main(argv)`` runs it (imported only when used).
SUBCOMMANDS: dict[str, Callable[[list[str]], int]] = {
    "check": check_command,  # `python -m dlarray check LIBRARY`: the DLPack conformance kit
}


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m dlarray [SUBCOMMAND] ...``: the probe unless the first word names a subcommand.

    A subcommand is recognised by its first word before any option is parsed, so each one owns
    its whole argument list; with no subcommand, the arguments are the probe's options.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        return int(SUBCOMMANDS[args[0]](args[1:]))
    return run_probe(args)


if __name__ == "__main__":
    raise SystemExit(main())
