"""cubed computing on dlarray chunks against cubed on numpy chunks: the same value, at the same speed.

Run from the repository root with a Python that has cubed (3.12 or newer; ``make scale-out`` uses
``.venv-latest``)::

    .venv-latest/bin/python benchmarks/scale_out.py            # (4000, 4000) in (1000, 1000) chunks, 3 rounds
    .venv-latest/bin/python benchmarks/scale_out.py --quick    # smoke run: (400, 400) in (100, 100), 1 round

The computation is ``xp.sum(a @ a.T)`` with ``xp = cubed.array_api`` and ``a`` a random cubed array
(``cubed.random.random``, the same seed for both backends, so both compute on the same numbers). cubed
chooses the namespace that computes its chunks once, when it is imported, from the environment
variable ``CUBED_BACKEND_ARRAY_API_MODULE`` (``dlarray``; unset: numpy), so each measurement runs in a
child process of its own with the variable set or not. Nothing in cubed or dlarray is patched.

Two of cubed's executors: ``threads`` (one process, a thread pool) and ``processes`` (a pool of
worker processes started with ``spawn``, as a distributed executor ships every task to a worker: each
worker imports cubed and dlarray itself and reads the same variable). Each child first computes a
small array (imports, zarr and the pool warm up), then times one ``compute()`` of the whole
computation, intermediate zarr stores included. The rounds alternate the backends, in a new random
order each round, so a change of load hits both alike; the reported time is the best of the rounds,
and the ratio is ``t(dlarray) / t(numpy)`` of the best times (the median ratio of the rounds too).

Prints the values (and whether they are bit-identical), the times and the ratios, and writes
``results/scale_out.json`` (``--out DIR``: elsewhere).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import RESULTS_DIR, cpu_model, fmt, print_table, ratio, run_context, versions, write_json

BACKENDS = ("numpy", "dlarray")
EXECUTORS = ("threads", "processes")
SEED = 20260611


def compute_once(executor_name: str, shape: tuple[int, int], chunks: tuple[int, int], allowed_mem: str) -> dict[str, Any]:
    """In a child whose cubed backend is already chosen: warm up, then time ``xp.sum(a @ a.T)`` once.

    Parameters
    ----------
    executor_name : str
        One of cubed's executor names (``threads``, ``processes``).
    shape, chunks : tuple of int
        The random array's shape and chunk shape.
    allowed_mem : str
        cubed's memory bound per task (``Spec(allowed_mem=...)``).

    Returns
    -------
    dict
        The value (as a float and as its hexadecimal form, for a bit-for-bit comparison), the
        seconds the compute took, the type of the array cubed handed back and the backend's name.
    """
    import cubed
    import cubed.array_api as xp
    import cubed.random
    from cubed.backend_array_api import namespace
    from cubed.runtime.create import create_executor

    with tempfile.TemporaryDirectory(prefix="scale-out-") as work_dir:
        spec = cubed.Spec(work_dir=work_dir, allowed_mem=allowed_mem)
        executor = create_executor(executor_name)

        random.seed(SEED + 1)  # the warm-up: 2 x 2 chunks of a tenth of the size, other numbers
        side = max(chunks[0] // 10, 1)
        small = cubed.random.random((2 * side, 2 * side), chunks=(side, side), spec=spec)
        xp.sum(small @ small.T).compute(executor=executor)

        random.seed(SEED)  # cubed.random draws its root seed from Python's random module
        a = cubed.random.random(shape, chunks=chunks, spec=spec)
        total = xp.sum(a @ a.T)
        start = time.perf_counter()
        result = total.compute(executor=executor)
        seconds = time.perf_counter() - start
    value = float(result)
    return {
        "backend": namespace.__name__,
        "value": value,
        "value_hex": value.hex(),
        "seconds": seconds,
        "result_type": f"{type(result).__module__}.{type(result).__qualname__}",
        "cubed_dtype": str(total.dtype),
    }


def run_child(backend: str, executor_name: str, shape: tuple[int, int], chunks: tuple[int, int],
              allowed_mem: str) -> dict[str, Any]:
    """One measurement in a fresh process, cubed's backend set by its environment variable.

    Parameters
    ----------
    backend : str
        ``numpy`` (the variable unset: cubed's default) or the module to name in it (``dlarray``).
    executor_name, shape, chunks, allowed_mem
        As for :func:`compute_once`.

    Returns
    -------
    dict
        What :func:`compute_once` measured in the child.
    """
    env = dict(os.environ)
    env.pop("CUBED_BACKEND_ARRAY_API_MODULE", None)
    if backend != "numpy":
        env["CUBED_BACKEND_ARRAY_API_MODULE"] = backend
    command = [sys.executable, __file__, "--child", executor_name, "--shape", *map(str, shape),
               "--chunks", *map(str, chunks), "--allowed-mem", allowed_mem]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800, check=False)
    if done.returncode != 0:
        raise SystemExit(f"cubed on {backend}, {executor_name} executor, failed:\n{done.stdout}\n{done.stderr[-4000:]}")
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    if measured["backend"] != backend:
        raise SystemExit(f"the child computed with {measured['backend']}, not {backend}")
    return measured


def main(argv: list[str] | None = None) -> int:
    """Measure, print the table, write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="(400, 400) in (100, 100) chunks, one round")
    parser.add_argument("--rounds", type=int, default=None, help="rounds per executor (default 3; --quick: 1)")
    parser.add_argument("--executors", default=",".join(EXECUTORS), help="comma-separated: threads,processes")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR, help="folder of scale_out.json")
    parser.add_argument("--child", metavar="EXECUTOR", help=argparse.SUPPRESS)
    parser.add_argument("--shape", type=int, nargs=2, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--chunks", type=int, nargs=2, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--allowed-mem", default="1GB", help="cubed's memory bound per task (default 1GB)")
    args = parser.parse_args(argv)

    shape = tuple(args.shape) if args.shape else ((400, 400) if args.quick else (4000, 4000))
    chunks = tuple(args.chunks) if args.chunks else ((100, 100) if args.quick else (1000, 1000))
    if args.child:
        print(json.dumps(compute_once(args.child, shape, chunks, args.allowed_mem)))  # type: ignore[arg-type]
        return 0

    try:
        import cubed  # noqa: F401  (only to say so here, before any child starts)
    except ImportError:
        print("cubed is not installed (it needs Python 3.12 or newer): pip install cubed")
        return 1
    rounds = args.rounds or (1 if args.quick else 3)
    executors = [name.strip() for name in args.executors.split(",") if name.strip()]
    print(f"xp.sum(a @ a.T), a = cubed.random.random({shape}, chunks={chunks}), {rounds} round(s) per executor")

    results: dict[str, Any] = {}
    rows = []
    for executor_name in executors:
        runs: dict[str, list[dict[str, Any]]] = {backend: [] for backend in BACKENDS}
        for _ in range(rounds):
            order = list(BACKENDS)
            random.shuffle(order)
            for backend in order:
                runs[backend].append(run_child(backend, executor_name, shape, chunks, args.allowed_mem))
        best = {backend: min(run["seconds"] for run in runs[backend]) for backend in BACKENDS}
        median_ratio = statistics.median(d["seconds"] / n["seconds"] for d, n in zip(runs["dlarray"], runs["numpy"]))
        values = {backend: runs[backend][0]["value_hex"] for backend in BACKENDS}
        identical = all(run["value_hex"] == values["numpy"] for backend in BACKENDS for run in runs[backend])
        results[executor_name] = {
            "runs": runs,
            "best_seconds": best,
            "ratio_best": ratio(best["dlarray"], best["numpy"]),
            "ratio_median_of_rounds": median_ratio,
            "values_bit_identical": identical,
        }
        for backend in BACKENDS:
            first = runs[backend][0]
            rows.append([executor_name, backend, repr(first["value"]), fmt(best[backend]),
                         ", ".join(fmt(run["seconds"]) for run in runs[backend]), first["result_type"]])
        rows.append([executor_name, "dlarray / numpy", "bit-identical" if identical else "DIFFERENT",
                     fmt(results[executor_name]["ratio_best"]), f"median of rounds {fmt(median_ratio)}", ""])
    print_table("cubed: dlarray chunks against numpy chunks",
                ["executor", "backend", "value", "best s", "rounds s", "cubed returns"], rows)

    payload = {
        "benchmark": "scale_out",
        "computation": "xp.sum(a @ a.T)",
        "shape": list(shape),
        "chunks": list(chunks),
        "rounds": rounds,
        "allowed_mem": args.allowed_mem,
        "environment": {"quick": args.quick, **run_context(), "cpu_model": cpu_model(),
                        "versions": versions(["numpy", "dlarray", "cubed", "zarr"])},
        "executors": results,
    }
    write_json(args.out / "scale_out.json", payload)
    return 0 if all(result["values_bit_identical"] for result in results.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
