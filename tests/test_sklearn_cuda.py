"""scikit-learn fits CUDA arrays through dlarray, checked on the CPU.

cupy here is tests/numpy_cupy.py: numpy over host memory that dlarray is told lives on ``cuda:0``,
refusing numpy as real cupy does (``np.asarray``, numpy functions and ufuncs on its arrays raise
TypeError). With ``array_api_dispatch=True``, ``StandardScaler``, ``PCA``, ``Ridge`` and
``LinearDiscriminantAnalysis`` fit on ``cuda:0`` dlarray arrays (the estimators and settings of
benchmarks/bench_sklearn.py), and:

* every fitted array attribute, transform and prediction is a dlarray Array on ``cuda:0`` (nothing
  fell back to the host, nothing is a numpy array);
* each equals, to rounding, what the same fit gives on numpy arrays;
* the data never leaves the device: what scikit-learn reads on the host are single values for its
  control flow (``bool``/``int``/``float`` of a 0-d array: finiteness checks, ``if xp.any(...)``,
  the rank that slices LDA's SVD), as with cupy inputs; nothing is copied to the CPU with
  ``to_device``, and numpy is never handed CUDA data (the fits would raise);
* cupy's SVD did the decompositions (the estimators that need one call ``cupy.linalg.svd``).

Every other estimator of the list in tests/array_api_consumers.py (the array API estimators of
scikit-learn 1.9 and the meta-estimators over them) fits on ``cuda:0`` too, equal to its numpy fit, its outputs
and fitted arrays on the device. Some copy arrays to the CPU on purpose, with ``to_device``, as they
do for cupy inputs (``HOST_BY_DESIGN``); one hands CUDA data to numpy and is refused
(``NUMPY_ONLY``).

tests/gpu/test_sklearn_gpu.py runs the same fits on a real GPU and compares them with the fits on
cupy inputs.
"""

from __future__ import annotations

import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # conftest.py sets it too; scikit-learn's dispatch needs it

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy_cupy
import pytest
import sklearn
from array_api_consumers import ESTIMATORS, fit_and_apply, fitted_numpy_arrays
from sklearn.decomposition import PCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.linear_model import Ridge
from sklearn.metrics import accuracy_score, r2_score
from sklearn.preprocessing import StandardScaler

import dlarray as xp
from dlarray import _backend, _cuda

CUDA = "cuda:0"


@dataclass(frozen=True)
class Case:
    """One estimator: how it is made, what it is fitted on, what is called after the fit."""

    label: str
    make: Callable[[], Any]
    target: str | None  # None (X only), "regression" or "classes"
    methods: tuple[str, ...]  # called on X after the fit
    decomposes: bool  # the fit needs an SVD (cupy.linalg.svd on CUDA)


CASES = [
    Case("StandardScaler()", StandardScaler, None, ("transform",), False),
    Case("PCA(svd_solver='full')", lambda: PCA(n_components=3, svd_solver="full"), None, ("transform",),
         True),
    Case("Ridge(solver='svd')", lambda: Ridge(solver="svd"), "regression", ("predict",), True),
    Case("LinearDiscriminantAnalysis()", LinearDiscriminantAnalysis, "classes", ("predict", "predict_proba",
                                                                                 "transform"), True),
]
IDS = [case.label.split("(")[0] for case in CASES]


def data(dtype: Any = np.float64, samples: int = 120, features: int = 6) -> dict[str, np.ndarray]:
    """X, a regression target and three classes (int64), the same on every call."""
    rng = np.random.default_rng(17)
    x = rng.standard_normal((samples, features)).astype(dtype)
    regression = (x @ rng.standard_normal(features) + 0.1 * rng.standard_normal(samples)).astype(dtype)
    classes = (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0.5)
    return {"X": x, "regression": regression, "classes": classes}


def fit(case: Case, inputs: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The fitted estimator and what its methods return on X, array API dispatch on."""
    with sklearn.config_context(array_api_dispatch=True):
        estimator = case.make()
        if case.target is None:
            estimator.fit(inputs["X"])
        else:
            estimator.fit(inputs["X"], inputs[case.target])
        outputs = {name: getattr(estimator, name)(inputs["X"]) for name in case.methods}
    return estimator, outputs


def fitted(estimator: Any) -> dict[str, Any]:
    """The public fitted attributes (scikit-learn's trailing underscore)."""
    return {name: value for name, value in vars(estimator).items()
            if name.endswith("_") and not name.startswith("_")}


@dataclass
class HostTraffic:
    """What left the (simulated) device while it was watched."""

    reads: list[tuple[int, ...]] = field(default_factory=list)  # shapes read on the host
    moves: list[str] = field(default_factory=list)  # to_device targets of CUDA arrays


@contextmanager
def watch_host_traffic(monkeypatch: pytest.MonkeyPatch) -> Iterator[HostTraffic]:
    """Record every read of CUDA values on the host and every copy of a CUDA array elsewhere:
    the two ways data leaves a CUDA device through dlarray (CudaBackend.to_host and .move)."""
    traffic = HostTraffic()
    to_host, move = _backend.CudaBackend.to_host, _backend.CudaBackend.move

    def recording_to_host(self: Any, native: Any, stream: int) -> np.ndarray:
        traffic.reads.append(tuple(native.shape))
        return to_host(self, native, stream)

    def recording_move(self: Any, array: Any, target: Any, stream: Any = None) -> Any:
        traffic.moves.append(str(target))
        return move(self, array, target, stream)

    with monkeypatch.context() as patch:
        patch.setattr(_backend.CudaBackend, "to_host", recording_to_host)
        patch.setattr(_backend.CudaBackend, "move", recording_move)
        yield traffic


def assert_on_cuda_and_equal(ours: Any, reference: Any, on_host: Callable[[Any], np.ndarray], rtol: float,
                             atol: float, what: str) -> None:
    """``ours`` (from a fit on CUDA dlarray arrays) is an Array on cuda:0 wherever ``reference`` (the
    same fit on other inputs, read on the host with ``on_host``) is an array, with the same dtype
    and shape and values equal to tolerance; anything else (ints, strings, None) is equal."""
    if reference is None or type(reference) in (bool, int, float, str):  # numpy's scalars are arrays here
        assert type(ours) is type(reference) and ours == reference, what
        return
    assert isinstance(ours, xp.Array), f"{what} is a {type(ours).__name__}, not a dlarray Array"
    assert str(ours.device) == CUDA, f"{what} left the GPU: it is on {ours.device}"
    got, want = np.asarray(ours.to_device("cpu")), on_host(reference)
    assert (got.dtype, got.shape) == (want.dtype, want.shape), what
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)


def assert_same_fit(case: Case, inputs: dict[str, np.ndarray], on_cuda: Callable[[np.ndarray], Any],
                    reference_inputs: dict[str, Any], on_host: Callable[[Any], np.ndarray], rtol: float,
                    atol: float) -> HostTraffic:
    """Fit ``case`` on CUDA dlarray arrays (``on_cuda`` of each input) and on ``reference_inputs``;
    compare every fitted attribute and output. Returns what left the device during the dlarray fit."""
    reference, reference_outputs = fit(case, reference_inputs)
    cuda_inputs = {name: on_cuda(value) for name, value in inputs.items()}
    with pytest.MonkeyPatch.context() as monkeypatch, watch_host_traffic(monkeypatch) as traffic:
        ours, outputs = fit(case, cuda_inputs)
    attributes = fitted(ours)
    assert attributes.keys() == fitted(reference).keys()
    for name, value in fitted(reference).items():
        assert_on_cuda_and_equal(attributes[name], value, on_host, rtol, atol, f"{case.label}.{name}")
    for name, value in reference_outputs.items():
        assert_on_cuda_and_equal(outputs[name], value, on_host, rtol, atol, f"{case.label}.{name}(X)")
    return traffic


def scores(inputs: dict[str, Any]) -> tuple[float, float]:
    """The guide's worked example (docs/guide/ecosystem.md): accuracy of LDA's predictions and R²
    of a Ridge on PCA's projection of the scaled data, each a Python float."""
    with sklearn.config_context(array_api_dispatch=True):
        scaled = StandardScaler().fit_transform(inputs["X"])
        predicted = LinearDiscriminantAnalysis().fit(scaled, inputs["classes"]).predict(scaled)
        projected = PCA(n_components=3, svd_solver="full").fit_transform(scaled)
        fitted_values = Ridge(solver="svd", alpha=0.5).fit(projected, inputs["regression"]).predict(projected)
        return accuracy_score(inputs["classes"], predicted), r2_score(inputs["regression"], fitted_values)


# ------------------------------------------------------------------------------ the tests
@pytest.fixture(autouse=True)
def cupy(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(_cuda, "_driver_state", [None])  # no driver: nothing is ever ordered
    return numpy_cupy.install(monkeypatch)


def on_simulated_cuda(value: np.ndarray) -> xp.Array:
    array = xp.asarray(value, device=CUDA)
    assert isinstance(array._native, numpy_cupy.ndarray)
    return array


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fit_on_cuda_arrays_equals_the_fit_on_numpy(case: Case, dtype: Any) -> None:
    inputs = data(dtype)
    # same operations on the same host kernels (numpy under both): equal but for summation order
    rtol = 1e-9 if dtype == np.float64 else 2e-4
    traffic = assert_same_fit(case, inputs, on_simulated_cuda, inputs, np.asarray, rtol=rtol, atol=rtol)
    assert all(shape == () for shape in traffic.reads), f"data read on the host: shapes {traffic.reads}"
    assert traffic.moves == [], f"CUDA arrays copied to {traffic.moves}"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_fit_computes_with_cupy(case: Case) -> None:
    numpy_cupy.calls.clear()
    estimator, _ = fit(case, {name: on_simulated_cuda(value) for name, value in data().items()})
    assert numpy_cupy.calls, "nothing was computed by cupy"
    assert ("linalg.svd" in numpy_cupy.calls) == case.decomposes
    assert all(isinstance(value, (xp.Array, int, str, type(None))) for value in fitted(estimator).values())


def test_metrics_of_a_pipeline_on_cuda_arrays_equal_numpys(monkeypatch: pytest.MonkeyPatch) -> None:
    inputs = data()
    with watch_host_traffic(monkeypatch) as traffic:
        on_gpu = scores({name: on_simulated_cuda(value) for name, value in inputs.items()})
    assert all(type(score) is float for score in on_gpu)
    np.testing.assert_allclose(on_gpu, scores(inputs), rtol=1e-12)
    assert all(shape == () for shape in traffic.reads) and traffic.moves == []


#: estimators of ESTIMATORS (tests/array_api_consumers.py) that scikit-learn 1.9 moves to the CPU
#: on purpose (``move_to(..., xp=numpy, device="cpu")``, whatever the input library), and why
HOST_BY_DESIGN = {
    "RidgeClassifier svd": "LabelBinarizer builds its one-hot labels with scipy.sparse, on the host",
    "RidgeClassifierCV": "LabelBinarizer builds its one-hot labels with scipy.sparse, on the host",
    "LogisticRegression": "scipy.optimize's L-BFGS runs on the host: each gradient is moved there",
    "PoissonRegressor": "scipy.optimize's L-BFGS runs on the host: each gradient is moved there",
    "CalibratedClassifierCV temperature": "cross-validation splitters run on numpy: y is moved there",
}
#: estimators whose fit hands the CUDA arrays to numpy itself (a TypeError, as numpy cannot read them)
NUMPY_ONLY = {
    "LinearDiscriminantAnalysis": "store_covariance=True: _class_cov is numpy code (np.unique(y), np.zeros)",
}


def check_ecosystem_estimator(estimator_case: tuple[Any, ...], on_cuda: Callable[[np.ndarray], Any],
                              monkeypatch: pytest.MonkeyPatch, rtol: float, atol: float) -> None:
    """One estimator of ESTIMATORS (tests/array_api_consumers.py) fitted on CUDA arrays (``on_cuda``
    of its inputs) against its fit on numpy: outputs and fitted arrays on the device and equal to
    tolerance, only 0-d values read on the host, moves only where scikit-learn makes them."""
    label, make, inputs, methods = estimator_case
    on_gpu = tuple(on_cuda(value) for value in inputs)
    with sklearn.config_context(array_api_dispatch=True):
        if label in NUMPY_ONLY:
            with pytest.raises(TypeError, match="not converted to numpy implicitly"):
                fit_and_apply(make, on_gpu, methods)
            return
        reference, expected = fit_and_apply(make, inputs, methods)
        with watch_host_traffic(monkeypatch) as traffic:
            estimator, results = fit_and_apply(make, on_gpu, methods)
    for name, result in results.items():
        assert_on_cuda_and_equal(result, expected[name], np.asarray, rtol, atol, f"{label}.{name}(X)")
    for name, value in fitted_numpy_arrays(reference).items():
        assert_on_cuda_and_equal(getattr(estimator, name), value, np.asarray, rtol, atol, f"{label}.{name}")
    assert all(shape == () for shape in traffic.reads), f"data read on the host: shapes {traffic.reads}"
    if label in HOST_BY_DESIGN:
        assert set(traffic.moves) <= {"cpu"}
    else:
        assert traffic.moves == [], f"CUDA arrays copied to {traffic.moves}"


@pytest.mark.filterwarnings("ignore:invalid value encountered in divide:RuntimeWarning")  # StandardScaler
@pytest.mark.parametrize("estimator_case", ESTIMATORS, ids=[case[0] for case in ESTIMATORS])
def test_every_estimator_of_the_ecosystem_list_fits_on_cuda(
    estimator_case: tuple[Any, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    check_ecosystem_estimator(estimator_case, on_simulated_cuda, monkeypatch, rtol=1e-7, atol=1e-10)


def test_numpy_is_refused_the_cuda_data() -> None:
    """The stand-in refuses what real cupy refuses, so a fit that handed numpy CUDA data would fail
    here; and dlarray's CUDA arrays themselves refuse an implicit numpy conversion."""
    x = on_simulated_cuda(data()["X"])
    with pytest.raises(TypeError, match="to_device"):
        np.asarray(x)
    with pytest.raises(TypeError):
        np.asarray(x._native)
    with pytest.raises(TypeError):
        np.sum(x._native)
