"""Per-call overhead of dlarray's namespace against raw numpy and array-api-strict.

Run from the repository root::

    .venv/bin/python benchmarks/bench_dispatch.py          # small (10 elements) and large (1e7) cases
    .venv/bin/python benchmarks/bench_dispatch.py --quick  # smoke run: a smaller "large" case, short repeats

The same operations (float64) run on numpy arrays, dlarray Arrays and array-api-strict Arrays in
one process; ``overhead = t(library) - t(numpy)``. Targets: on small inputs dlarray's overhead is
at most a quarter of array-api-strict's; on large inputs dlarray takes at most 5% longer than
numpy. Writes ``results/dispatch.json`` and ``results/dispatch.png``.
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
    print_targets([t for t in found if "all operations" in t.name])

    write_json(
        args.out / "dispatch.json",
        {
            "benchmark": "dispatch",
            "unit": "microseconds (median per call)",
            "dtype": "float64",
            "environment": environment(settings, args.quick, LIBRARIES),
            "cases": rows_by_case,
            "timings": results.as_dict(),
            "errors": results.errors,
            "targets": {t.name: t.as_dict() for t in found},
        },
    )
    render("dispatch", args.out)  # dispatch.png, drawn from the JSON just written
    return 0


if __name__ == "__main__":
    sys.exit(main())
