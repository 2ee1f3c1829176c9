"""Per-call overhead of dlarray's namespace against raw numpy and array-api-strict.

Run from the repository root::

    .venv/bin/python benchmarks/bench_dispatch.py          # small (10 elements) and large (1e7) cases
    .venv/bin/python benchmarks/bench_dispatch.py --quick  # smoke run: a smaller "large" case, short repeats

The same operations (float64) run on numpy arrays, dlarray Arrays and array-api-strict Arrays in
one process; ``overhead = t(library) - t(numpy)``. Targets: on small inputs dlarray's overhead is
at most a quarter of array-api-strict's; on large inputs dlarray takes at most 5% longer than
numpy.

Beside them, the floor (issue 33): ``x + y``, ``sin(x)``, ``sum(x)`` and ``x[2:8]`` on 10 float32
elements, each as numpy's own call, as dlarray's, and through a ``FloorArray``: about the least a
pure-Python array can do, one slot holding the numpy array, each operation unwrapping, calling numpy
and wrapping the result into a new one-slot object, with the standard's signature (``sum`` takes
``axis``, ``dtype`` and ``keepdims`` and hands them on). numpy's call for ``sum`` is
``np.add.reduce(a)``, what ``np.sum`` calls after its own Python-level dispatch and what dlarray
calls. The twelve statements run in the same short rounds (one repeat of 2 ms each per round, in a
new order each round, 401 rounds); each is taken at its fastest repeat, the time a call costs when
no other process gets in the way, and each overhead is that minus numpy's. Target: dlarray's
overhead at most twice the floor's.

Writes ``results/dispatch.json`` and ``results/dispatch.png``.
"""

from __future__ import annotations

import argparse
import gc
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import (  # noqa: E402
    RESULTS_DIR,
    Results,
    Settings,
    Target,
    environment,
    fmt,
    print_table,
    print_targets,
    ratio,
    sample_rounds,
    worst,
    write_json,
)
from plots import render

import dlarray  # noqa: E402

LIBRARIES = ["numpy", "dlarray", "array_api_strict"]
SMALL_OVERHEAD_BOUND = 0.25  # dlarray overhead / array-api-strict overhead, small inputs
LARGE_RATIO_BOUND = 1.05  # t(dlarray) / t(numpy), large inputs


@dataclass(frozen=True)
class Case:
    """Input sizes of one case."""

    name: str
    elements: int  # length of x and y
    list_length: int  # length of the Python list given to asarray
    matrix: int  # side of the square matmul operands
    slice_stmt: str

    def operations(self) -> list[tuple[str, str]]:
        """(label, statement); ``xp`` is the library's namespace, the operands are its arrays."""
        return [
            ("x + y", "x + y"),
            ("sin(x)", "xp.sin(x)"),
            ("sum(x)", "xp.sum(x)"),
            (self.slice_stmt, self.slice_stmt),
            (f"asarray(list[{self.list_length:,}])", "xp.asarray(values)"),
            (f"matmul {self.matrix}x{self.matrix}", "A @ B"),
        ]


SMALL = Case("small", 10, 10, 8, "x[2:8]")
LARGE = Case("large", 10_000_000, 100_000, 1000, "x[1:-1]")
QUICK_LARGE = Case("large", 100_000, 1_000, 64, "x[1:-1]")


def _namespaces(case: Case, modules: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each library's namespace and its arrays over the same float64 values."""
    rng = np.random.default_rng(0)
    x, y = rng.random(case.elements), rng.random(case.elements)
    a, b = rng.random((case.matrix, case.matrix)), rng.random((case.matrix, case.matrix))
    values = rng.random(case.list_length).tolist()
    spaces = {}
    for name, xp in modules.items():
        convert = np.asarray if name == "numpy" else xp.asarray
        try:
            arrays = {"x": convert(x), "y": convert(y), "A": convert(a), "B": convert(b)}
        except Exception as error:  # the rows of this library become n/a
            print(f"note: {name}.asarray failed: {error}")
            arrays = {}
        spaces[name] = {"xp": xp, "values": values, **arrays}
    return spaces


def run_case(case: Case, modules: dict[str, Any], settings: Settings, results: Results) -> None:
    """Time every operation of ``case`` on every library."""
    spaces = _namespaces(case, modules)
    print(f"{case.name}: timing {len(case.operations())} operations x {len(modules)} libraries", flush=True)
    jobs = [
        (f"{library}|{label}", case.name, stmt, spaces[library])
        for label, stmt in case.operations()
        for library in modules
    ]
    results.run(jobs, settings)  # interleaved: the libraries see the same load
    del spaces, jobs
    gc.collect()


def _row(results: Results, case: Case, label: str) -> dict[str, float | None]:
    """Times, overheads and ratios of one operation."""
    t = {lib: results.median(f"{lib}|{label}", case.name) for lib in LIBRARIES}
    base = t["numpy"]
    dl_over = None if t["dlarray"] is None or base is None else t["dlarray"] - base
    xs_over = None if t["array_api_strict"] is None or base is None else t["array_api_strict"] - base
    return {
        "numpy_us": base,
        "dlarray_us": t["dlarray"],
        "array_api_strict_us": t["array_api_strict"],
        "dlarray_overhead_us": dl_over,
        "strict_overhead_us": xs_over,
        # A ratio of overheads means nothing when strict adds nothing measurable.
        "overhead_ratio": ratio(dl_over, xs_over) if xs_over is not None and xs_over > 0 else None,
        "dlarray_over_numpy": ratio(t["dlarray"], base),
    }


def summarize(results: Results, cases: list[Case]) -> tuple[dict[str, Any], list[Target]]:
    """Tables (printed), the per-operation rows and the targets."""
    rows_by_case: dict[str, Any] = {}
    found: list[Target] = []
    for case in cases:
        labels = [label for label, _ in case.operations()]
        rows = {label: _row(results, case, label) for label in labels}
        rows_by_case[case.name] = {"sizes": asdict(case), "operations": rows}
        small = case.name == "small"
        per_op = {label: row["overhead_ratio" if small else "dlarray_over_numpy"] for label, row in rows.items()}
        bound = SMALL_OVERHEAD_BOUND if small else LARGE_RATIO_BOUND
        verdicts = {label: Target(label, value, "<=", bound).verdict for label, value in per_op.items()}
        table = [
            [
                label,
                fmt(row["numpy_us"]),
                fmt(row["dlarray_us"]),
                fmt(row["array_api_strict_us"]),
                fmt(row["dlarray_overhead_us"]),
                fmt(row["strict_overhead_us"]),
                fmt(row["overhead_ratio"]),
                fmt(row["dlarray_over_numpy"]),
                verdicts[label],
            ]
            for label, row in rows.items()
        ]
        target_column = "dl/strict overhead" if small else "dl/numpy"
        print_table(
            f"{case.name}: {case.elements:,} float64 elements (times in us; verdict on {target_column} <= {bound:g})",
            ["operation", "numpy", "dlarray", "strict", "dl over", "strict over", "dl/strict over", "dl/numpy", "verdict"],
            table,
        )
        what = "dlarray overhead / strict overhead" if small else "t(dlarray) / t(numpy)"
        for label, value in per_op.items():
            found.append(Target(f"{case.name} {label}: {what}", value, "<=", bound))
        # All operations together: the worst one decides.
        found.append(Target(f"{case.name} all operations (worst): {what}", worst(per_op.values(), "<="), "<=", bound, per_op))
    for name, message in results.errors.items():
        print(f"  n/a {name.replace('|', ' ')}: {message}")
    return rows_by_case, found


# ------------------------------------------------------------------------------ the floor
FLOOR_BOUND = 2.0  # dlarray overhead / floor overhead, 10 float32 elements
FLOOR_ELEMENTS = 10


class FloorArray:
    """The floor of a Python array over numpy: one slot, the numpy array; each operation unwraps,
    calls numpy and wraps the result into a new FloorArray (``object.__new__`` and one store, as
    ``bench_dlpack.PythonFloor`` wraps a slice). No check, no dtype, no device."""

    __slots__ = ("a",)

    def __add__(self, other: FloorArray, /) -> FloorArray:
        result = _new_floor(FloorArray)
        result.a = self.a + other.a
        return result

    def __getitem__(self, key: Any, /) -> FloorArray:
        result = _new_floor(FloorArray)
        result.a = self.a[key]
        return result


_new_floor = object.__new__
_np_sin = np.sin
_np_add_reduce = np.add.reduce


def floor_sin(x: FloorArray, /) -> FloorArray:
    """``sin`` of the floor."""
    result = _new_floor(FloorArray)
    result.a = _np_sin(x.a)
    return result


def floor_sum(x: FloorArray, /, *, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> FloorArray:
    """``sum`` of the floor, with the standard's signature: its arguments handed on to numpy's
    reduction (positionally: ``out`` is None)."""
    result = _new_floor(FloorArray)
    result.a = _np_add_reduce(x.a, axis, dtype, None, keepdims)
    return result


def _floored(array: np.ndarray) -> FloorArray:
    floored = _new_floor(FloorArray)
    floored.a = array
    return floored


# (label, numpy's statement, dlarray's, the floor's); every function bound to a name, so no
# attribute lookup is timed for anyone
FLOOR_OPERATIONS = [
    ("x + y", "a + b", "x + y", "f + g"),
    ("sin(x)", "np_sin(a)", "dl_sin(x)", "fl_sin(f)"),
    ("sum(x)", "np_sum(a)", "dl_sum(x)", "fl_sum(f)"),
    ("x[2:8]", "a[2:8]", "x[2:8]", "f[2:8]"),
]


def run_floor(quick: bool) -> tuple[dict[str, Any], list[Target]]:
    """Time each operation with numpy, dlarray and the floor in the same rounds (all twelve
    statements, one short repeat of each per round, shuffled); print the table; return the rows
    and the targets."""
    rng = np.random.default_rng(0)
    a = rng.random(FLOOR_ELEMENTS).astype(np.float32)
    b = rng.random(FLOOR_ELEMENTS).astype(np.float32)
    ns: dict[str, Any] = {
        "a": a, "b": b, "x": dlarray.asarray(a), "y": dlarray.asarray(b), "f": _floored(a), "g": _floored(b),
        "np_sin": np.sin, "np_sum": np.add.reduce, "dl_sin": dlarray.sin, "dl_sum": dlarray.sum,
        "fl_sin": floor_sin, "fl_sum": floor_sum,
    }
    rounds, min_time = (11, 0.002) if quick else (401, 0.002)
    print(f"floor: timing {len(FLOOR_OPERATIONS)} operations x 3 in {rounds} rounds", flush=True)
    jobs = [(stmt, ns) for _, *stmts in FLOOR_OPERATIONS for stmt in stmts]
    samples, _ = sample_rounds(jobs, rounds, min_time)
    rows: dict[str, Any] = {}
    found: list[Target] = []
    table = []
    for k, (label, *_) in enumerate(FLOOR_OPERATIONS):
        # the fastest repeat of each: what a call costs when no other process gets in the way (load
        # only adds time, and on a shared machine it adds more than the differences measured here)
        numpy_, dlarray_, floor = [min(times) for times in samples[3 * k : 3 * k + 3]]
        row = {
            "numpy_us": numpy_,
            "dlarray_us": dlarray_,
            "floor_us": floor,
            "dlarray_overhead_us": dlarray_ - numpy_,
            "floor_overhead_us": floor - numpy_,
        }
        # a ratio of overheads means nothing where the floor adds nothing measurable
        row["overhead_ratio"] = ratio(row["dlarray_overhead_us"], row["floor_overhead_us"]) if floor > numpy_ else None
        rows[label] = row
        target = Target(f"floor {label}: dlarray overhead / floor overhead", row["overhead_ratio"], "<=", FLOOR_BOUND)
        found.append(target)
        table.append([
            label, fmt(numpy_), fmt(dlarray_), fmt(floor), fmt(row["dlarray_overhead_us"]),
            fmt(row["floor_overhead_us"]), fmt(row["overhead_ratio"]), target.verdict,
        ])
    print_table(
        f"floor: {FLOOR_ELEMENTS} float32 elements (times in us, the fastest of {rounds} rounds; verdict on "
        f"dl over / floor over <= {FLOOR_BOUND:g})",
        ["operation", "numpy", "dlarray", "floor", "dl over", "floor over", "dl/floor over", "verdict"],
        table,
    )
    per_op = {label: row["overhead_ratio"] for label, row in rows.items()}
    found.append(Target("floor all operations (worst): dlarray overhead / floor overhead",
                        worst(per_op.values(), "<="), "<=", FLOOR_BOUND, per_op))
    numpy_calls = {label: stmt.replace("np_sin", "np.sin").replace("np_sum", "np.add.reduce")
                   for label, stmt, _, _ in FLOOR_OPERATIONS}
    return {"dtype": "float32", "elements": FLOOR_ELEMENTS, "rounds": rounds, "numpy_calls": numpy_calls,
            "operations": rows}, found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller large case, short repeats (a smoke run)")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR, help="folder for dispatch.json and the plot")
    args = parser.parse_args(argv)

    settings = Settings.for_mode(args.quick)
    cases = [SMALL, QUICK_LARGE if args.quick else LARGE]
    modules: dict[str, Any] = {"numpy": np, "dlarray": dlarray}
    try:
        import array_api_strict

        modules["array_api_strict"] = array_api_strict
    except ImportError:
        print("note: array_api_strict is not installed; its rows are n/a")
    results = Results()
    case_settings = {case.name: Settings.for_mode(args.quick, long=case.name == "large") for case in cases}
    for case in cases:
        run_case(case, modules, case_settings[case.name], results)
    rows_by_case, found = summarize(results, cases)
    for name, used in case_settings.items():
        rows_by_case[name]["timing"] = {"min_time_s": used.min_time, "repeats": used.repeats}
    floor_rows, floor_targets = run_floor(args.quick)
    found += floor_targets
    print_targets([t for t in found if "all operations" in t.name])

    write_json(
        args.out / "dispatch.json",
        {
            "benchmark": "dispatch",
            "unit": "microseconds (median per call)",
            "dtype": "float64",
            "environment": environment(settings, args.quick, LIBRARIES),
            "cases": rows_by_case,
            "floor": floor_rows,
            "timings": results.as_dict(),
            "errors": results.errors,
            "targets": {t.name: t.as_dict() for t in found},
        },
    )
    render("dispatch", args.out)  # dispatch.png, drawn from the JSON just written
    return 0


if __name__ == "__main__":
    sys.exit(main())
