"""``python -m dlarray``: the interop probe (and ``python -m dlarray check LIBRARY``, the DLPack kit).

The probe itself is ``dlarray._probe`` (its hops run in child processes that import it by name);
this module is its command line. ``python -m dlarray --help`` lists the options (``--json``,
``--producers``, ``--consumers``, ``--list``). The first word may name a subcommand instead:
subcommands are dispatched on it before the probe's options are parsed (see ``main``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence

from dlarray._probe import (
    ALIGNMENT,
    IMPORT,
    Consumer,
    ProbeResult,
    Producer,
    _consumers,
    _producers,
    _versions,
    aligned_bytearray,
    aligned_float32,
    probe,
)
from dlarray.testing._cli import main as check_command

__all__ = [
    "ALIGNMENT",
    "IMPORT",
    "Consumer",
    "ProbeResult",
    "Producer",
    "aligned_bytearray",
    "aligned_float32",
    "main",
    "probe",
    "run_probe",
]


def _print_table(result: ProbeResult) -> None:
    versions = _versions()
    rows = result.rows
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    print(f"dlarray {versions['dlarray']} interop probe (Python {versions['python']}, numpy {versions['numpy']})")
    print(f"Each row: a buffer made by the producer, imported by {IMPORT}, then that Array handed to")
    print("each consumer and the result used (result + result, numpy.asarray). zero-copy: the same pointer")
    print("came out; COPY: another buffer; refused: an exception; unusable: the result could not be used;")
    print("CRASH: the process died (each hop runs in a child process). Every buffer starts on a")
    print(f"{ALIGNMENT}-byte boundary (jax copies others) but the 'numpy (unaligned)' row's, 16 bytes past one.\n")
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
                    "which copy, which are refused, give a result that cannot be used or crash, with the "
                    "reason for each.",
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
                   "cells": result.cells, "notes": result.notes, "versions": result.versions}, sys.stdout, indent=2)
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
