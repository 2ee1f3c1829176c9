"""Smoke tests of the benchmark scripts: they run (``--quick``) and write their results.

No timing is asserted here: machines are noisy; the numbers belong to the benchmark output.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
VERDICTS = {"MET", "NOT MET", "n/a"}
HAS_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None


def _run(script: str, out: Path, *flags: str) -> dict:
    """Run a benchmark with --quick into ``out``; return its JSON after checking the exit status."""
    completed = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), "--quick", "--out", str(out), *flags],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stdout[-2000:] + completed.stderr[-4000:]
    assert "Targets" in completed.stdout
    return json.loads((out / script.replace("bench_", "").replace(".py", ".json")).read_text())


def _check_targets(result: dict) -> None:
    assert result["targets"], "no target was evaluated"
    for name, target in result["targets"].items():
        assert target["verdict"] in VERDICTS, name
        assert target["met"] in (True, False, None), name


def test_dlpack_quick(tmp_path: Path) -> None:
    result = _run("bench_dlpack.py", tmp_path)
    assert result["benchmark"] == "dlpack"
    assert result["environment"]["quick"] is True
    assert "dlarray.from_dlpack(numpy)" in result["timings"]
    assert set(result["timings"]["dlarray.from_dlpack(numpy)"]) == {str(n) for n in result["sizes"]}
    assert result["memory"] is None
    _check_targets(result)
    # the general path beside its floor and numpy's C consumer, each target from the same rounds
    general = result["general"]
    assert set(general["median_us"]) == set(general["statements"]) >= {"floor(producer)", "numpy.from_dlpack(producer)"}
    assert set(general["ratios"]) <= set(result["targets"])
    assert any(name.startswith("general path:") for name in result["targets"])
    if HAS_MATPLOTLIB:
        assert (tmp_path / "dlpack_latency.png").stat().st_size > 0


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="--compare times jax too")
def test_dlpack_quick_compare_memory(tmp_path: Path) -> None:
    result = _run("bench_dlpack.py", tmp_path, "--compare", "--memory")
    assert "jax.from_dlpack(dlarray)" in result["timings"]
    assert "numpy copy (a.copy())" in result["memory"]["mib_per_import"]
    assert any(name.startswith("MiB per") for name in result["targets"])
    _check_targets(result)


def test_dispatch_quick(tmp_path: Path) -> None:
    result = _run("bench_dispatch.py", tmp_path)
    assert result["benchmark"] == "dispatch"
    assert set(result["cases"]) == {"small", "large"}
    assert "x + y" in result["cases"]["small"]["operations"]
    _check_targets(result)
    if HAS_MATPLOTLIB:
        assert (tmp_path / "dispatch.png").stat().st_size > 0


@pytest.mark.real_cuda  # real GPU memory only: torch and cupy allocate it, nothing is made up
def test_cuda_benchmark_runs_or_says_why_not(tmp_path: Path) -> None:
    """On a GPU machine it measures and writes cuda.json; elsewhere it says what is missing."""
    completed = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_cuda.py"), "--quick", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert completed.returncode == 0, completed.stdout[-2000:] + completed.stderr[-4000:]
    if "skipped" in completed.stdout:
        assert not (tmp_path / "cuda.json").exists()
        assert "bench_cuda: skipped, " in completed.stdout
    else:  # pragma: no cover - GPU machines
        _check_targets(json.loads((tmp_path / "cuda.json").read_text()))


def test_sklearn_gpu_benchmark_says_why_it_cannot_run(tmp_path: Path) -> None:
    """Without a GPU (here the GPU is hidden from the test and its children, tests/gpu_view.py) it
    says what is missing and writes nothing; tests/gpu/test_sklearn_gpu.py runs it on a GPU."""
    completed = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_sklearn.py"), "--quick", "--device", "cuda:0",
         "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert completed.returncode == 0, completed.stdout[-2000:] + completed.stderr[-4000:]
    assert "bench_sklearn --device cuda:0: skipped, " in completed.stdout
    assert not any(tmp_path.iterdir())


def test_sklearn_benchmark_refuses_an_unknown_device(tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_sklearn.py"), "--device", "gpu", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert completed.returncode == 2 and "--device must be cpu or cuda:N" in completed.stderr
    assert not any(tmp_path.iterdir())


def test_cuda_stand_in_says_it_is_not_a_gpu_and_writes_apart(tmp_path: Path) -> None:
    """The CPU stand-in of bench_cuda (numpy_cupy as cupy, a do-nothing driver) never passes for GPU numbers."""
    completed = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_cuda_standin.py"), "--quick", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert completed.returncode == 0, completed.stdout[-2000:] + completed.stderr[-4000:]
    assert completed.stdout.startswith("CPU STAND-IN, NOT GPU NUMBERS")
    result = json.loads((tmp_path / "cuda_standin.json").read_text())
    assert "not GPU numbers" in result["stand_in"] and "device" not in result
    assert {"x + y", "sin(x)", "sum(x)"} <= set(result["compute_overhead_over_numpy_cupy_us"])
    # compat re-exports cupy's add, sin and sum (over the stand-in as over cupy): said in the result
    assert result["compat_passes_through"] == {"x + y": True, "sin(x)": True, "sum(x)": True}
    assert any(name.startswith("export: dlarray") for name in result["timings_us"])
    assert not (tmp_path / "cuda.json").exists()


def test_cuda_benchmark_says_which_compat_functions_are_cupys_own() -> None:
    """The 10-element compute target compares with what array_api_compat.cupy adds over cupy: where
    compat's function is cupy's own object it adds no code, and the benchmark says so per operation."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from bench_cuda import compat_passes_through
    finally:
        sys.path.remove(str(BENCHMARKS))

    def add(a: object, b: object) -> None: ...
    def sin(a: object) -> None: ...
    def total(a: object) -> None: ...

    cupy = types.SimpleNamespace(add=add, sin=sin, sum=total)
    compat = types.SimpleNamespace(add=add, sin=lambda a: sin(a), sum=total)  # sin wrapped
    assert compat_passes_through(compat, cupy) == {"x + y": True, "sin(x)": False, "sum(x)": True}
    assert compat_passes_through(types.SimpleNamespace(), cupy) == dict.fromkeys(("x + y", "sin(x)", "sum(x)"), False)
    assert compat_passes_through(None, cupy) == {}


@pytest.mark.skipif(importlib.util.find_spec("sklearn") is None, reason="needs scikit-learn")
def test_bench_sklearn_quick(tmp_path: Path) -> None:
    """benchmarks/bench_sklearn.py --quick runs and writes its JSON (no timing is asserted)."""
    completed = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_sklearn.py"), "--quick", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=BENCHMARKS.parent,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout[-2000:] + completed.stderr[-4000:]
    assert "Targets" in completed.stdout
    result = json.loads((tmp_path / "sklearn.json").read_text())
    assert result["benchmark"] == "sklearn" and result["environment"]["quick"] is True
    assert set(result["estimators"]) == {
        "PCA(svd_solver='full')",
        "Ridge(solver='svd')",
        "LinearDiscriminantAnalysis()",
        "StandardScaler()",
    }
    for row in result["estimators"].values():
        assert row["numpy_ms"] > 0 and row["dlarray_ms"] > 0
    for target in result["targets"].values():
        assert target["verdict"] in {"MET", "NOT MET", "n/a"}


def test_the_floor_reads_what_dlarray_reads() -> None:
    """The general path's floor is a real consumer: the same pointer, shape and strides as
    dlarray's import of the same producer; its owner runs the deleter once."""
    import gc

    import numpy as np

    sys.path.insert(0, str(BENCHMARKS))
    try:
        from bench_dlpack import Forwarding, floor_import
    finally:
        sys.path.remove(str(BENCHMARKS))
    import dlarray

    source = np.arange(5, dtype=np.float32)
    floor, x = floor_import(Forwarding(source)), dlarray.from_dlpack(Forwarding(source))
    assert (floor.data, floor.shape, floor.strides) == (x.data_ptr, x.shape, x.strides)
    capsule = source[::2].__dlpack__(max_version=(1, 3))
    view = floor_import(None, capsule)
    assert (view.data, view.shape, view.strides) == (source.ctypes.data, (3,), (2,))
    before = sys.getrefcount(source)
    del floor, view, capsule
    gc.collect()
    assert sys.getrefcount(source) == before - 2  # numpy's deleters ran: each released its array
