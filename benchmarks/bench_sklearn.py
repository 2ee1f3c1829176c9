"""scikit-learn fits on numpy, array-api-strict and dlarray inputs, in the same run (or on a GPU).

Run from the repository root::

    .venv/bin/python benchmarks/bench_sklearn.py            # 20,000 x 50 float64
    .venv/bin/python benchmarks/bench_sklearn.py --quick    # smoke run: 2,000 x 20, short repeats
    .venv/bin/python benchmarks/bench_sklearn.py --profile  # + cProfile of every dlarray fit
    .venv/bin/python benchmarks/bench_sklearn.py --device cuda:0   # on a GPU, against cupy

Each estimator is fitted (``Estimator(...).fit(X[, y])``, array API dispatch on) on the same
float64 data held by numpy, array-api-strict and dlarray arrays. The fits of all estimators and
libraries are timed interleaved (``_harness.measure_interleaved``: one repeat of each per round, in
a shuffled order), and each time is the median over the repeats. Targets, per estimator and for the
worst one:

* ``t(dlarray) / t(numpy) <= 1.1``: going through dlarray costs at most 10% over numpy;
* ``t(dlarray) / t(array-api-strict) <= 1.0``: dlarray is no slower than array-api-strict, the
  reference pure-Python Array API wrapper over numpy.

With ``--device cuda:0`` (issue 17, item 4) the same fits run on the GPU, on cupy arrays (scikit-learn
computes through ``array_api_compat.cupy``) and on dlarray arrays over the same cupy buffers
(``dlarray.from_dlpack``), each fit followed by a wait for the GPU; numpy on the CPU is timed too,
for reference. Target, per estimator, for the worst one and for the four fits together (the sum of
their medians):

* ``t(dlarray) / t(cupy) <= 1.1``.

Without cupy or a GPU (or scikit-learn, in either mode) it says why and writes nothing.

Where a target is not met (or with ``--profile``), the dlarray fit of that estimator is profiled
with cProfile, and the functions where its time goes are printed and stored in the JSON.
Writes ``results/sklearn.json`` and ``results/sklearn.png`` (``--device cuda:0``:
``results/sklearn_cuda.json`` and ``results/sklearn_cuda.png``; the CPU results stay as they are).
"""

from __future__ import annotations

import os

# SciPy reads this once, when first imported, and scikit-learn's dispatch requires it.
os.environ["SCIPY_ARRAY_API"] = "1"

import argparse
import cProfile
import importlib.util
import io
import pstats
import re
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
from plots import display_name, render

import dlarray

NUMPY_BOUND = 1.1  # t(dlarray) / t(numpy)
STRICT_BOUND = 1.0  # t(dlarray) / t(array-api-strict)
CUPY_BOUND = 1.1  # t(dlarray) / t(cupy), both on the GPU (issue 17)


@dataclass(frozen=True)
class Comparison:
    """What one run compares: its libraries (in the plot's order) and dlarray's targets."""

    stem: str  # results/<stem>.json and its plot
    libraries: tuple[str, ...]
    # key of the ratio in an estimator's row -> (the library dlarray is compared with, bound)
    ratios: dict[str, tuple[str, float]]
    synced: tuple[str, ...] = ()  # libraries whose fits are followed by a wait for the GPU


CPU_RUN = Comparison(
    "sklearn",
    ("numpy", "dlarray", "array_api_strict"),  # the order of the bars (plots.NAMESPACES)
    {"dlarray_over_numpy": ("numpy", NUMPY_BOUND), "dlarray_over_strict": ("array_api_strict", STRICT_BOUND)},
)
CUDA_RUN = Comparison(
    "sklearn_cuda",
    ("numpy", "cupy", "dlarray"),
    {"dlarray_over_cupy": ("cupy", CUPY_BOUND)},
    synced=("cupy", "dlarray"),
)


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


def _namespaces(
    fit: Fit, inputs: dict[str, Callable[[str], Any]], sync: Callable[[], None] | None
) -> dict[str, dict[str, Any]]:
    """Per library: the statement's namespace, with its arrays (``inputs[library](name)``: the
    library's array of ``data[name]``, made outside the timing) and the wait for the GPU."""
    spaces = {}
    for library, array in inputs.items():
        namespace = {"make": fit.make, "X": array("X"), "sync": sync}
        if fit.target is not None:
            namespace["y"] = array(fit.target)
        spaces[library] = namespace
    return spaces


def _statement(fit: Fit, synced: bool = False) -> str:
    """The timed statement; ``synced``: and wait for the GPU to finish the fit's work."""
    call = "make().fit(X)" if fit.target is None else "make().fit(X, y)"
    return call + "; sync()" if synced else call


def _cpu_inputs(data: dict[str, np.ndarray]) -> dict[str, Callable[[str], Any]]:
    """numpy, array-api-strict (if installed) and dlarray arrays of the data, on the CPU."""
    modules: dict[str, Any] = {"numpy": np, "dlarray": dlarray}
    try:
        import array_api_strict

        modules["array_api_strict"] = array_api_strict
    except ImportError:
        print("note: array_api_strict is not installed; its rows are n/a")
    return {name: (lambda key, module=module: module.asarray(data[key])) for name, module in modules.items()}


def _cuda_inputs(
    data: dict[str, np.ndarray], device: str
) -> tuple[dict[str, Callable[[str], Any]], Any] | str:
    """(numpy on the CPU, cupy on ``device`` and dlarray over the same cupy buffers; cupy), or why
    there is no GPU to measure on."""
    try:
        import cupy
    except ImportError:
        return "cupy is not installed"
    device_id = int(device.partition(":")[2] or 0)
    try:
        if cupy.cuda.runtime.getDeviceCount() <= device_id:
            return f"cupy sees no {device}"
    except Exception as error:  # noqa: BLE001 - cupy's own CUDA errors without a driver
        return f"cupy sees no CUDA GPU ({error})"
    cupy.cuda.Device(device_id).use()
    on_gpu = {key: cupy.asarray(value) for key, value in data.items()}  # one buffer per input, shared
    return {
        "numpy": lambda key: data[key],
        "cupy": lambda key: on_gpu[key],
        "dlarray": lambda key: dlarray.from_dlpack(on_gpu[key]),
    }, cupy


def _profile(namespace: dict[str, Any], statement: str, calls: int, top: int) -> list[dict[str, Any]]:
    """cProfile of ``calls`` dlarray fits (``statement``): the ``top`` functions by own time."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        exec(statement, namespace)  # noqa: S102 - the statement timed above
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


def _targets(per_fit: dict[str, dict[str, Any]], comparison: Comparison) -> list[Target]:
    """dlarray against each library of ``comparison.ratios``: per estimator, the worst estimator,
    and the fits together (the sum of the median times: the whole workload of the run)."""
    targets = []
    for key, (peer, bound) in comparison.ratios.items():
        against = f"dlarray / {display_name(peer)}"
        targets += [Target(f"{label}: {against}", row[key], "<=", bound) for label, row in per_fit.items()]
        targets.append(
            Target(f"all estimators: {against}", worst((r[key] for r in per_fit.values()), "<="), "<=", bound,
                   {label: r[key] for label, r in per_fit.items()})
        )
        times = [(row["dlarray_ms"], row[f"{peer}_ms"]) for row in per_fit.values()]
        known = all(ours is not None and theirs is not None for ours, theirs in times)
        targets.append(
            Target(f"all estimators together (sum of fit times): {against}",
                   ratio(sum(t[0] for t in times), sum(t[1] for t in times)) if known else None, "<=", bound)
        )
    return targets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: small data, short repeats")
    parser.add_argument("--profile", action="store_true", help="profile every dlarray fit, met or not")
    parser.add_argument("--device", default="cpu", help="cpu (default), or cuda:N: on a GPU, against cupy")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR, help="folder for the results JSON file")
    args = parser.parse_args(argv)
    if not re.fullmatch(r"cpu|cuda(:\d+)?", args.device):
        parser.error(f"--device must be cpu or cuda:N, not {args.device!r}")

    samples, features = (2_000, 20) if args.quick else (20_000, 50)
    data = _data(samples, features)
    gpu = None
    found = "scikit-learn is not installed" if importlib.util.find_spec("sklearn") is None else None
    if args.device == "cpu" and found is None:
        comparison, inputs, sync = CPU_RUN, _cpu_inputs(data), None
    else:
        found = found or _cuda_inputs(data, args.device)
        if isinstance(found, str):
            option = "" if args.device == "cpu" else f" --device {args.device}"
            print(f"bench_sklearn{option}: skipped, {found}")
            return 0
        inputs, cupy = found
        comparison, sync = CUDA_RUN, cupy.cuda.get_current_stream().synchronize
        gpu = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["name"]
        gpu = gpu.decode() if isinstance(gpu, bytes) else str(gpu)

    import sklearn

    sklearn.set_config(array_api_dispatch=True)
    # StandardScaler divides 0 by 0 on purpose (its first partial_fit); numpy's warning for that is
    # silenced by scikit-learn only for numpy inputs. Printing it once per fit is noise here.
    warnings.filterwarnings("ignore", message="invalid value encountered", category=RuntimeWarning)

    # Fits take tens of milliseconds: a repeat of at least 0.2 s (several fits), 9 repeats.
    settings = Settings.for_mode(True) if args.quick else Settings(min_time=0.2, repeats=9)
    fits = _fits()
    where = "" if gpu is None else f" on {gpu} ({args.device}; numpy on the CPU)"
    print(
        f"scikit-learn {sklearn.__version__}: fit on {samples:,} x {features} float64{where}, "
        f"median of {settings.repeats} repeats (each >= {settings.min_time * 1e3:g} ms), interleaved"
    )

    namespaces = {fit.label: _namespaces(fit, inputs, sync) for fit in fits}
    statements = {
        (fit.label, lib): _statement(fit, synced=lib in comparison.synced) for fit in fits for lib in inputs
    }
    results = Results()
    results.run(
        [
            (fit.label, lib, statements[fit.label, lib], namespaces[fit.label][lib])
            for fit in fits
            for lib in comparison.libraries
            if lib in inputs
        ],
        settings,
    )

    rows, per_fit = [], {}
    for fit in fits:
        times = {lib: results.median(fit.label, lib) for lib in comparison.libraries}
        row: dict[str, Any] = {f"{lib}_ms": None if t is None else t / 1e3 for lib, t in times.items()}
        for key, (peer, _) in comparison.ratios.items():
            row[key] = ratio(times["dlarray"], times[peer])
        per_fit[fit.label] = row
        rows.append([fit.label, *(fmt(value) for value in row.values())])
    print_table(
        "Fit time (ms) and ratios",
        ["estimator", *(display_name(lib) for lib in comparison.libraries),
         *(f"dlarray/{display_name(peer)}" for peer, _ in comparison.ratios.values())],
        rows,
    )

    targets = _targets(per_fit, comparison)
    print_targets(targets)

    # Where dlarray misses a target, show where its time goes (always with --profile).
    profiles: dict[str, list[dict[str, Any]]] = {}
    for fit in fits:
        missed = any(t.met is False for t in targets if t.name.startswith(fit.label + ":"))
        if args.profile or (missed and not args.quick):
            profiles[fit.label] = _profile(
                namespaces[fit.label]["dlarray"], statements[fit.label, "dlarray"],
                calls=3 if args.quick else 10, top=12,
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

    modules = ["numpy", "scipy", "sklearn", *(lib for lib in comparison.libraries if lib != "numpy")]
    payload: dict[str, Any] = {
        "benchmark": comparison.stem,
        "environment": environment(settings, args.quick, modules),
        "data": {"samples": samples, "features": features, "dtype": "float64"},
        "libraries": list(comparison.libraries),
        "ratios": {key: peer for key, (peer, _) in comparison.ratios.items()},
    }
    if gpu is not None:
        payload["device"], payload["device_argument"] = gpu, args.device
    write_json(
        args.out / f"{comparison.stem}.json",
        {
            **payload,
            "estimators": per_fit,
            "timings": results.as_dict(),
            "errors": results.errors,
            "targets": {t.name: t.as_dict() for t in targets},
            "profiles": profiles,
        },
    )
    render(comparison.stem, args.out)  # the plot, drawn from the JSON just written
    return 0


if __name__ == "__main__":
    sys.exit(main())
