"""scikit-learn fits CUDA dlarray arrays as it fits cupy arrays, on a real GPU.

The fits of tests/test_sklearn_cuda.py (which runs them on the CPU against a cupy made of numpy),
here with real cupy: ``StandardScaler``, ``PCA(svd_solver='full')``, ``Ridge(solver='svd')`` and
``LinearDiscriminantAnalysis`` with ``array_api_dispatch=True``, on dlarray arrays imported from
cupy arrays (``dlarray.from_dlpack``, zero-copy) and on those cupy arrays themselves (scikit-learn
then computes through ``array_api_compat.cupy``). Every fitted attribute, transform and prediction
of the dlarray fit is a dlarray Array on ``cuda:0`` equal, to rounding, to the cupy fit's; what
is read on the host during the dlarray fit are single values, nothing is copied off the GPU. The
other estimators of the list in tests/array_api_consumers.py are checked against their numpy fits.
Skipped without a GPU (conftest.py). benchmarks/bench_sklearn.py --device cuda:0 times the same fits.
"""

from __future__ import annotations

import json
import os
import subprocess

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # before scipy is imported: scikit-learn's dispatch needs it

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")
pytest.importorskip("sklearn")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import test_sklearn_cuda as cases

import dlarray as xp

# Both fits run cupy's kernels (cuBLAS, cuSOLVER); the two namespaces may order a reduction or
# pick a kernel differently, so the results agree to rounding, not bit for bit.
TOLERANCE = {np.float64: 1e-8, np.float32: 1e-4}


def on_gpu(value: np.ndarray) -> xp.Array:
    """A dlarray array over a cupy array's memory (zero-copy), as a cupy user wraps one."""
    native = cupy.asarray(value)
    array = xp.from_dlpack(native)
    assert str(array.device) == cases.CUDA
    assert isinstance(array._as_native(), cupy.ndarray)
    return array


@pytest.mark.parametrize("dtype", list(TOLERANCE))
@pytest.mark.parametrize("case", cases.CASES, ids=cases.IDS)
def test_fit_on_cuda_dlarray_equals_the_fit_on_cupy(case: cases.Case, dtype: Any) -> None:
    inputs = cases.data(dtype, samples=2_000, features=20)
    cupy_inputs = {name: cupy.asarray(value) for name, value in inputs.items()}
    tolerance = TOLERANCE[dtype]
    traffic = cases.assert_same_fit(case, inputs, on_gpu, cupy_inputs, cupy.asnumpy, rtol=tolerance,
                                    atol=tolerance)
    assert all(shape == () for shape in traffic.reads), f"data read on the host: shapes {traffic.reads}"
    assert traffic.moves == [], f"CUDA arrays copied to {traffic.moves}"


def test_metrics_of_a_pipeline_on_cuda_dlarray_equal_cupys(monkeypatch: pytest.MonkeyPatch) -> None:
    inputs = cases.data(samples=2_000, features=20)
    with cases.watch_host_traffic(monkeypatch) as traffic:
        ours = cases.scores({name: on_gpu(value) for name, value in inputs.items()})
    theirs = cases.scores({name: cupy.asarray(value) for name, value in inputs.items()})
    assert all(type(score) is float for score in ours)
    np.testing.assert_allclose(ours, theirs, rtol=1e-8)
    assert all(shape == () for shape in traffic.reads) and traffic.moves == []


@pytest.mark.filterwarnings("ignore:invalid value encountered in divide:RuntimeWarning")  # StandardScaler
@pytest.mark.parametrize("estimator_case", cases.ESTIMATORS,
                         ids=[case[0] for case in cases.ESTIMATORS])
def test_every_estimator_of_the_ecosystem_list_fits_on_the_gpu(estimator_case: tuple[Any, ...],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The broader sweep of tests/test_sklearn_cuda.py, against the fits on numpy (on the CPU: the
    iterative solvers' stopping tests may end a few rounding steps apart, hence the tolerance)."""
    cases.check_ecosystem_estimator(estimator_case, on_gpu, monkeypatch, rtol=1e-5, atol=1e-7)


def test_the_fit_leaves_its_inputs_as_they_were() -> None:
    """scikit-learn's defaults copy what they modify: the cupy memory dlarray shares is untouched."""
    values = cases.data()["X"]
    native = cupy.asarray(values)
    with_dlarray = xp.from_dlpack(native)
    for case in cases.CASES:
        if case.target is None:
            cases.fit(case, {"X": with_dlarray})
    np.testing.assert_array_equal(cupy.asnumpy(native), values)


def test_the_benchmark_times_the_fits_on_the_gpu(tmp_path: Path) -> None:
    """benchmarks/bench_sklearn.py --device cuda:0 --quick fits on cupy and on dlarray over the same
    buffers and writes sklearn_cuda.json with dlarray / cupy per estimator (no timing asserted)."""
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_sklearn.py"
    completed = subprocess.run(
        [sys.executable, str(script), "--quick", "--device", "cuda:0", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert completed.returncode == 0, completed.stdout[-2000:] + completed.stderr[-4000:]
    result = json.loads((tmp_path / "sklearn_cuda.json").read_text())
    assert result["libraries"] == ["numpy", "cupy", "dlarray"] and result["device"]
    assert not result["errors"] and all(row["dlarray_over_cupy"] for row in result["estimators"].values())
    assert {"MET", "NOT MET"} >= {target["verdict"] for target in result["targets"].values()}
    assert "all estimators together (sum of fit times): dlarray / cupy" in result["targets"]
