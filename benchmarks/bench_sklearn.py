"""scikit-learn fits on numpy, array-api-strict and dlarray inputs, in the same run.

Run from the repository root::

    .venv/bin/python benchmarks/bench_sklearn.py            # 20,000 x 50 float64
    .venv/bin/python benchmarks/bench_sklearn.py --quick    # smoke run: 2,000 x 20, short repeats
    .venv/bin/python benchmarks/bench_sklearn.py --profile  # + cProfile of every dlarray fit

Each estimator is fitted (``Estimator(...).fit(X[, y])``, array API dispatch on) on the same
float64 data held by numpy, array-api-strict and dlarray arrays. The fits of all estimators and
libraries are timed interleaved (``_harness.measure_interleaved``: one repeat of each per round, in
a shuffled order), and each time is the median over the repeats. Targets, per estimator and for the
worst one:

* ``t(dlarray) / t(numpy) <= 1.1``: going through dlarray costs at most 10% over numpy;
* ``t(dlarray) / t(array-api-strict) <= 1.0``: dlarray is no slower than array-api-strict, the
  reference pure-Python Array API wrapper over numpy.

Where a target is not met (or with ``--profile``), the dlarray fit of that estimator is profiled
with cProfile, and the functions where its time goes are printed and stored in the JSON.
Writes ``results/sklearn.json`` and ``results/sklearn.png``.
"""

from __future__ import annotations

import os

# SciPy reads this once, when first imported, and scikit-learn's dispatch requires it.
os.environ["SCIPY_ARRAY_API"] = "1"

import argparse
import cProfile
import io
import pstats
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import (
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

import dlarray

NUMPY_BOUND = 1.1  # t(dlarray) / t(numpy)
STRICT_BOUND = 1.0  # t(dlarray) / t(array-api-strict)
LIBRARIES = ("numpy", "array_api_strict", "dlarray")


@dataclass(frozen=True)
class Fit:
    """One estimator of the benchmark: how to build it and what it is fitted on."""

    label: str
    make: Callable[[], Any]
    target: str | None  # None (X only), "regression" or "classes"


def _fits() -> list[Fit]:
    from sklearn.decomposition import PCA
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.linear_model import Ridge
    from sklearn.preprocessing import StandardScaler

    return [
        Fit("PCA(svd_solver='full')", lambda: PCA(n_components=10, svd_solver="full"), None),
        Fit("Ridge(solver='svd')", lambda: Ridge(solver="svd"), "regression"),
        Fit("LinearDiscriminantAnalysis()", LinearDiscriminantAnalysis, "classes"),
        Fit("StandardScaler()", StandardScaler, None),
    ]


def _data(samples: int, features: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((samples, features))
    regression = x @ rng.standard_normal(features) + 0.1 * rng.standard_normal(samples)
    classes = (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0.5)  # three classes
    return {"X": x, "regression": regression, "classes": classes}


def _namespaces(fit: Fit, data: dict[str, np.ndarray], modules: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per library: the statement's namespace (its own arrays, made once, outside the timing)."""
    spaces = {}
    for name, module in modules.items():
        namespace = {"make": fit.make, "X": module.asarray(data["X"])}
        if fit.target is not None:
            namespace["y"] = module.asarray(data[fit.target])
        spaces[name] = namespace
    return spaces


def _statement(fit: Fit) -> str:
    return "make().fit(X)" if fit.target is None else "make().fit(X, y)"


def _profile(fit: Fit, namespace: dict[str, Any], calls: int, top: int) -> list[dict[str, Any]]:
    """cProfile of ``calls`` dlarray fits: the ``top`` functions by own time."""
    statement = _statement(fit)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        eval(statement, namespace)
    profiler.disable()
    stats = pstats.Stats(profiler, stream=io.StringIO())
    rows = []
    for (filename, line, function), (_, ncalls, tottime, cumtime, _) in sorted(
        stats.stats.items(),
        key=lambda item: item[1][2],
        reverse=True,  # type: ignore[attr-defined]
    )[:top]:
        where = f"{Path(filename).name}:{line}({function})" if line else function
        rows.append(
            {
                "function": where,
                "file": filename,
                "calls": ncalls,
                "own_ms_per_fit": tottime * 1e3 / calls,
                "cumulative_ms_per_fit": cumtime * 1e3 / calls,
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: small data, short repeats")
    parser.add_argument("--profile", action="store_true", help="profile every dlarray fit, met or not")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR, help="folder for sklearn.json")
    args = parser.parse_args(argv)

    import sklearn

    sklearn.set_config(array_api_dispatch=True)
    # StandardScaler divides 0 by 0 on purpose (its first partial_fit); numpy's warning for that is
    # silenced by scikit-learn only for numpy inputs. Printing it once per fit is noise here.
    warnings.filterwarnings("ignore", message="invalid value encountered", category=RuntimeWarning)

    modules: dict[str, Any] = {"numpy": np, "dlarray": dlarray}
    try:
        import array_api_strict

        modules["array_api_strict"] = array_api_strict
    except ImportError:
        print("note: array_api_strict is not installed; its rows are n/a")
    samples, features = (2_000, 20) if args.quick else (20_000, 50)
    # Fits take tens of milliseconds: a repeat of at least 0.2 s (several fits), 9 repeats.
    settings = Settings.for_mode(True) if args.quick else Settings(min_time=0.2, repeats=9)
    data = _data(samples, features)
    fits = _fits()
    print(
        f"scikit-learn {sklearn.__version__}: fit on {samples:,} x {features} float64, "
        f"median of {settings.repeats} repeats (each >= {settings.min_time * 1e3:g} ms), interleaved"
    )

    namespaces = {fit.label: _namespaces(fit, data, modules) for fit in fits}
    results = Results()
    results.run(
        [
            (fit.label, lib, _statement(fit), namespaces[fit.label][lib])
            for fit in fits
            for lib in LIBRARIES
            if lib in modules
        ],
        settings,
    )

    rows, per_fit = [], {}
    for fit in fits:
        times = {lib: results.median(fit.label, lib) for lib in LIBRARIES}
        ms = {lib: None if t is None else t / 1e3 for lib, t in times.items()}
        vs_numpy, vs_strict = (
            ratio(times["dlarray"], times["numpy"]),
            ratio(times["dlarray"], times["array_api_strict"]),
        )
        per_fit[fit.label] = {
            "numpy_ms": ms["numpy"],
            "array_api_strict_ms": ms["array_api_strict"],
            "dlarray_ms": ms["dlarray"],
            "dlarray_over_numpy": vs_numpy,
            "dlarray_over_strict": vs_strict,
        }
        rows.append(
            [
                fit.label,
                fmt(ms["numpy"]),
                fmt(ms["array_api_strict"]),
                fmt(ms["dlarray"]),
                fmt(vs_numpy),
                fmt(vs_strict),
            ]
        )
    print_table(
        "Fit time (ms) and ratios",
        ["estimator", "numpy", "array-api-strict", "dlarray", "dlarray/numpy", "dlarray/strict"],
        rows,
    )

    targets = []
    for fit in fits:
        row = per_fit[fit.label]
        targets.append(Target(f"{fit.label}: dlarray / numpy", row["dlarray_over_numpy"], "<=", NUMPY_BOUND))
        targets.append(
            Target(f"{fit.label}: dlarray / array-api-strict", row["dlarray_over_strict"], "<=", STRICT_BOUND)
        )
    targets.append(
        Target(
            "all estimators: dlarray / numpy",
            worst((r["dlarray_over_numpy"] for r in per_fit.values()), "<="),
            "<=",
            NUMPY_BOUND,
            {label: r["dlarray_over_numpy"] for label, r in per_fit.items()},
        )
    )
    targets.append(
        Target(
            "all estimators: dlarray / array-api-strict",
            worst((r["dlarray_over_strict"] for r in per_fit.values()), "<="),
            "<=",
            STRICT_BOUND,
            {label: r["dlarray_over_strict"] for label, r in per_fit.items()},
        )
    )
    print_targets(targets)

    # Where dlarray misses a target, show where its time goes (always with --profile).
    profiles: dict[str, list[dict[str, Any]]] = {}
    for fit in fits:
        missed = any(t.met is False for t in targets if t.name.startswith(fit.label + ":"))
        if args.profile or (missed and not args.quick):
            profiles[fit.label] = _profile(
                fit, namespaces[fit.label]["dlarray"], calls=3 if args.quick else 10, top=12
            )
            print_table(
                f"cProfile, dlarray {fit.label}: own time per fit (ms)",
                ["function", "calls", "own ms", "cumulative ms"],
                [
                    [
                        p["function"],
                        str(p["calls"]),
                        fmt(p["own_ms_per_fit"]),
                        fmt(p["cumulative_ms_per_fit"]),
                    ]
                    for p in profiles[fit.label]
                ],
            )
    if results.errors:
        print("\nerrors:", results.errors)

    write_json(
        args.out / "sklearn.json",
        {
            "benchmark": "sklearn",
            "environment": environment(
                settings, args.quick, ["numpy", "scipy", "sklearn", "array_api_strict", "dlarray"]
            ),
            "data": {"samples": samples, "features": features, "dtype": "float64"},
            "estimators": per_fit,
            "timings": results.as_dict(),
            "errors": results.errors,
            "targets": {t.name: t.as_dict() for t in targets},
            "profiles": profiles,
        },
    )
    render("sklearn", args.out)  # sklearn.png, drawn from the JSON just written
    return 0


if __name__ == "__main__":
    sys.exit(main())
