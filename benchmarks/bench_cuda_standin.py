"""CPU STAND-IN for bench_cuda.py: dlarray's own per-call cost on the CUDA path, without a GPU.

NOT GPU NUMBERS. Nothing here runs on a GPU or says what a GPU run will show: "cupy" is
tests/numpy_cupy.py (numpy over host memory that dlarray is told is on ``cuda:0``), the CUDA driver
is a C library whose functions do nothing, built here with ``cc`` (so the ``stream=other`` row times
the ctypes calls of an ordering, not the driver's work; without a C compiler there is no driver and
nothing is ordered), and array_api_compat.cupy runs over that numpy_cupy. What it measures is the
Python work dlarray adds on the CUDA path (argument checks, views, wrapping results, retargeting
capsules, calling the driver), which is the same code on a GPU machine, so that a change to it can
be timed A/B here; the GPU verdicts come from bench_cuda.py only.

    .venv/bin/python benchmarks/bench_cuda_standin.py           # number=5000, repeat=200
    .venv/bin/python benchmarks/bench_cuda_standin.py --quick   # smoke run

Rows (10 float32 elements):

- export: ``x.__dlpack__(stream=1, max_version=(1, 0))`` (what ``torch.from_dlpack(x)`` asks for
  with torch on the default stream), the same with ``stream=other``, and numpy's own ``__dlpack__``
  of a numpy array, the C producer dlarray's export is built on (its floor);
- compute: ``x + y``, ``sin(x)``, ``sum(x)`` through dlarray, through array_api_compat.cupy and with
  raw numpy_cupy; the overhead columns subtract raw numpy_cupy's time.

numpy_cupy stands for cupy with one change made here, in this process only: ``ndarray.data`` is a
light object that reads the address only when asked (real cupy keeps it as a C attribute;
numpy_cupy builds a MemoryPointer from numpy's ``__array_interface__`` on every read, which would
add ~2 us to every dlarray result, a cost real cupy does not have). Times: ``timeit`` with
``time.thread_time`` (CPU time of this thread, less sensitive to other processes than wall time),
rounds interleaving the statements in a shuffled order; minimum and median per call.

Writes ``results/standin/cuda_standin.json`` (a folder the docs' benchmark page does not read).
"""

from __future__ import annotations

import argparse
import collections
import ctypes
import random
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
import types
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))  # numpy_cupy
from _harness import RESULTS_DIR, Settings, environment, fmt, print_table, write_json
from bench_cuda import compat_passes_through

EXPORTS = [
    ("export: dlarray x.__dlpack__(stream=1, max_version=(1, 0))", "x.__dlpack__(stream=1, max_version=(1, 0))"),
    ("export: dlarray x.__dlpack__(stream=other, max_version=(1, 0))",
     "x.__dlpack__(stream=other, max_version=(1, 0))"),
    ("export: numpy n.__dlpack__(max_version=(1, 0)) (the C producer)", "n.__dlpack__(max_version=(1, 0))"),
]
# (operation, dlarray, array_api_compat.cupy, raw numpy_cupy)
COMPUTE = [
    ("x + y", "xp.add(x, y)", "cx.add(a, b)", "cupy.add(a, b)"),
    ("sin(x)", "xp.sin(x)", "cx.sin(a)", "cupy.sin(a)"),
    ("sum(x)", "xp.sum(x)", "cx.sum(a)", "cupy.sum(a)"),
]
WHO = ("dlarray", "array_api_compat.cupy", "numpy_cupy")


class _DataPointer:
    """``ndarray.data`` as cheap as real cupy's (a C attribute): the device id at once, the
    address (which only a metadata read asks for) when read."""

    __slots__ = ("_array",)
    device_id = 0
    mem = None  # cupy's memory object (what CudaBackend.describe reads): nothing read-only here

    def __init__(self, array: Any) -> None:
        self._array = array

    @property
    def ptr(self) -> int:
        return self._array._a.__array_interface__["data"][0]


def install_stand_in() -> tuple[Any, Any]:
    """numpy_cupy as ``cupy`` (module dict filled as real cupy's is), no CUDA driver yet; the
    compat namespace over it, or None."""
    import numpy_cupy

    numpy_cupy.calls = collections.deque(maxlen=1)  # the tests' call log, bounded here
    numpy_cupy.ndarray.data = property(_DataPointer)  # see the module docstring
    cupy = types.ModuleType("cupy", "tests/numpy_cupy.py, every function in the module dict")
    cupy.__dict__.update(vars(numpy_cupy))
    for name in numpy_cupy._API["top"]:  # real cupy's names, module attributes (not made per lookup)
        if not name.startswith("_") and name not in cupy.__dict__:
            try:
                cupy.__dict__[name] = getattr(numpy_cupy, name)
            except AttributeError:
                pass
    cupy.__path__ = []  # a package, for array_api_compat's `from cupy.cuda.device import Device`
    sys.modules["cupy"] = cupy
    sys.modules["cupyx"] = numpy_cupy.cupyx
    for sub in ("cuda", "fft", "linalg"):
        module = types.ModuleType(f"cupy.{sub}")
        module.__dict__.update(vars(getattr(numpy_cupy, sub)))
        sys.modules[f"cupy.{sub}"] = module
    device = types.ModuleType("cupy.cuda.device")
    device.Device = numpy_cupy.Device
    sys.modules["cupy.cuda.device"] = device
    from dlarray import _cuda

    _cuda._driver_state[:] = [None]  # no driver: nothing in flight, nothing ordered
    try:
        import array_api_compat.cupy as compat
    except Exception:  # noqa: BLE001 - any failure of compat over the stand-in: no compat column
        compat = None
    return cupy, compat


def time_rounds(statements: dict[str, str], namespace: dict[str, Any], number: int, repeats: int
                ) -> dict[str, dict[str, float]]:
    """min and median us per call of each statement, measured in shuffled interleaved rounds."""
    timers = {}
    for name, statement in statements.items():
        eval(statement, namespace)  # errors surface here, untimed
        timers[name] = timeit.Timer(statement, globals=namespace, timer=time.thread_time)
    samples: dict[str, list[float]] = {name: [] for name in statements}
    order = list(statements)
    for _ in range(repeats):
        random.shuffle(order)
        for name in order:
            samples[name].append(timers[name].timeit(number) / number * 1e6)
    return {name: {"min_us": min(values), "median_us": statistics.median(values)}
            for name, values in samples.items()}


# A libcuda whose functions do nothing and succeed: with it, an export to another stream makes
# the ctypes calls of an ordering (context check, event record, stream wait), none of which
# reaches a GPU. Never the real driver: it is loaded from a temporary folder by its path.
_DO_NOTHING_DRIVER = """
typedef int R;
R cuInit(unsigned f) { return 0; }
R cuGetErrorName(int c, const char **n) { *n = "CUDA_SUCCESS"; return 0; }
R cuDeviceGet(int *d, int o) { *d = o; return 0; }
R cuDevicePrimaryCtxRetain(void **c, int d) { *c = (void *)0xC0DE; return 0; }
R cuCtxGetCurrent(void **c) { *c = (void *)0xC0DE; return 0; }
R cuCtxPushCurrent_v2(void *c) { return 0; }
R cuCtxPopCurrent_v2(void **c) { *c = (void *)0xC0DE; return 0; }
R cuEventCreate(void **e, unsigned f) { *e = (void *)0xE7E7; return 0; }
R cuEventRecord(void *e, void *s) { return 0; }
R cuStreamWaitEvent(void *s, void *e, unsigned f) { return 0; }
R cuEventDestroy_v2(void *e) { return 0; }
R cuStreamSynchronize(void *s) { return 0; }
R cuPointerGetAttribute(void *d, int a, void *p) { return 1; }
"""


def install_do_nothing_driver(folder: Path) -> str:
    """Build the do-nothing libcuda with the C compiler and make dlarray use it; what was done."""
    source, library = folder / "stub_cuda.c", folder / "libstubcuda.so"
    source.write_text(_DO_NOTHING_DRIVER)
    try:
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(library), str(source)], check=True,
                       capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as error:
        return f"no driver (no C compiler to build the do-nothing one: {error}): stream=other orders nothing"
    from dlarray import _cuda

    try:
        lib = _cuda.prepared_driver(ctypes.CDLL(str(library)))
    except OSError:
        lib = None
    if lib is None:
        return "no driver (the do-nothing one did not load): stream=other orders nothing"
    _cuda._driver_state[:] = [lib]
    return "a do-nothing libcuda (C functions that return at once): stream=other makes its 3 ctypes calls"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: few short repeats")
    parser.add_argument("--number", type=int, default=5000, help="calls per repeat")
    parser.add_argument("--repeat", type=int, default=200, help="repeats (rounds)")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "standin",
                        help="folder for cuda_standin.json")
    options = parser.parse_args(argv)
    number, repeats = (200, 3) if options.quick else (options.number, options.repeat)
    cupy, compat = install_stand_in()
    with tempfile.TemporaryDirectory() as folder:
        driver = install_do_nothing_driver(Path(folder))  # loaded: the file may go
    import numpy as np

    import dlarray

    host = np.ones(10, dtype=np.float32)
    namespace = {"xp": dlarray, "cupy": cupy, "cx": compat, "n": host, "other": 0x7F00_1234_5600,
                 "x": dlarray.asarray(host, device="cuda:0"), "y": dlarray.asarray(host, device="cuda:0"),
                 "a": cupy.asarray(host), "b": cupy.asarray(host)}
    statements = dict(EXPORTS)
    for operation, *forms in COMPUTE:
        for who, statement in zip(WHO, forms):
            if who != "array_api_compat.cupy" or compat is not None:
                statements[f"compute {operation}: {who}"] = statement
    timings = time_rounds(statements, namespace, number, repeats)

    print("CPU STAND-IN, NOT GPU NUMBERS: cupy is tests/numpy_cupy.py; driver: " + driver)
    print_table("Exports, 10 float32 (us per call, thread time)", ["statement", "min", "median"],
                [[name, fmt(t["min_us"]), fmt(t["median_us"])] for name, t in timings.items()
                 if name.startswith("export")])
    overheads: dict[str, dict[str, float | None]] = {}
    rows = []
    for operation, *_ in COMPUTE:
        raw = timings[f"compute {operation}: numpy_cupy"]["min_us"]
        ours = timings[f"compute {operation}: dlarray"]["min_us"]
        theirs = timings.get(f"compute {operation}: array_api_compat.cupy", {}).get("min_us")
        overheads[operation] = {"dlarray_us": ours - raw,
                                "array_api_compat_us": None if theirs is None else theirs - raw}
        rows.append([operation, fmt(raw), fmt(ours), fmt(theirs), fmt(ours - raw),
                     fmt(None if theirs is None else theirs - raw)])
    passes_through = compat_passes_through(compat, cupy)
    for row, (operation, *_) in zip(rows, COMPUTE):
        row.append("yes" if passes_through.get(operation) else "no")
    print_table("Compute, 10 float32 (min us per call, thread time; overhead over raw numpy_cupy)",
                ["operation", "numpy_cupy", "dlarray", "compat", "dlarray overhead", "compat overhead",
                 "compat calls cupy's own function"], rows)
    settings = Settings(min_time=0.0, repeats=repeats)
    payload = {
        "stand_in": "CPU stand-in for bench_cuda.py: cupy is tests/numpy_cupy.py, no GPU; "
                    "not GPU numbers",
        "driver": driver,
        "environment": {**environment(settings, options.quick, ["dlarray", "numpy", "array_api_compat"]),
                        "number": number, "timer": "time.thread_time"},
        "timings_us": timings,
        "compute_overhead_over_numpy_cupy_us": overheads,
        "compat_passes_through": passes_through,
    }
    write_json(options.out / "cuda_standin.json", payload)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
