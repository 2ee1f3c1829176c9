"""Helpers for testing dlarray through third-party consumers of the array API (array-api-compat,
array-api-extra, scikit-learn, SciPy): comparisons with the numpy result, the test data (drawn once,
in one fixed order), scikit-learn's estimator list, and the fixture that turns scikit-learn's array
API dispatch on.

Test modules import them (pytest puts tests/ on ``sys.path``); a test module that uses the
fixtures imports them by name: ``from array_api_consumers import array_api_dispatch, fresh_outcomes``.

How SciPy's array API support is switched on, robustly
-------------------------------------------------------
SciPy reads ``SCIPY_ARRAY_API`` once, when it is first imported, and scikit-learn refuses
``array_api_dispatch=True`` unless the variable is ``"1"``. conftest.py sets it before any test
module is collected, and this module sets it as its very first statement, before it imports scipy
or sklearn. Should another module import scipy first (a plugin, say), SciPy would silently stay
numpy-only in that process; the probe ``SCIPY_DISPATCHES`` detects it from SciPy's behaviour, and
then the tests that need it report the outcome of the same test run in a fresh interpreter (one
subprocess per test module, where that module is the first importer) instead of testing a crippled
setup. scikit-learn's dispatch is turned on per test with ``config_context`` (the fixture
``array_api_dispatch``), so it never leaks into other test modules of the same worker.
"""

from __future__ import annotations

import os

os.environ["SCIPY_ARRAY_API"] = "1"  # before scipy and sklearn are imported: see the docstring


import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import numpy as np
import pytest
import scipy.special
import sklearn
from sklearn import (
    calibration,
    decomposition,
    discriminant_analysis,
    linear_model,
    mixture,
    model_selection,
    preprocessing,
)
from sklearn.experimental import enable_halving_search_cv  # noqa: F401 - HalvingGridSearchCV

import dlarray

ROOT = Path(__file__).resolve().parent.parent
Array = dlarray.Array

#: SciPy's array API support is on in this process (it returns dlarray for dlarray input).
SCIPY_DISPATCHES = type(scipy.special.erf(dlarray.asarray([0.5]))) is Array
_CHILD = "DLARRAY_FRESH_INTERPRETER"


# ------------------------------------------------------------------------------------- comparisons
def to_numpy(value: Any) -> Any:
    """A result as numpy (tuples element-wise); Python scalars unchanged."""
    if isinstance(value, (tuple, list)):
        return tuple(to_numpy(v) for v in value)
    if type(value) is Array:
        return np.asarray(value)
    if type(value).__module__.startswith("array_api_strict"):
        return np.from_dlpack(value)
    return value


def assert_agrees(result: Any, expected: Any, *, rtol: float = 1e-7, atol: float = 1e-10) -> None:
    """``result`` (from dlarray inputs) equals ``expected`` (from numpy inputs), element-wise close."""
    got, want = to_numpy(result), to_numpy(expected)
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_agrees(g, w, rtol=rtol, atol=atol)
        return
    got_array, want_array = np.asarray(got), np.asarray(want)
    assert got_array.shape == want_array.shape
    assert np.allclose(got_array, want_array, rtol=rtol, atol=atol, equal_nan=True), (got_array, want_array)


def assert_dlarray_outputs(value: Any) -> None:
    """Every array in a result is a dlarray Array (Python scalars are allowed: metrics return floats)."""
    if isinstance(value, (tuple, list)):
        for v in value:
            assert_dlarray_outputs(v)
        return
    assert type(value) is Array or isinstance(value, (bool, int, float)), type(value)


def read_only(values: np.ndarray) -> Array:
    """A read-only dlarray over a ``bytes`` object holding ``values`` (immutable memory)."""
    buffer = values.tobytes()
    return dlarray.asarray(np.frombuffer(buffer, dtype=values.dtype).reshape(values.shape))


def _fresh_interpreter_outcomes(test_module: Path, tmp: Path) -> dict[str, tuple[str, str]]:
    """Run a whole test module in a new interpreter: test name -> (outcome, message), the outcome
    being "passed", "failed", "skipped" or "xfailed"."""
    report = tmp / "outcomes.xml"
    env = dict(os.environ, SCIPY_ARRAY_API="1", **{_CHILD: "1"})
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(test_module),
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            f"--junitxml={report}",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,  # outcomes: the report
    )
    outcomes: dict[str, tuple[str, str]] = {}
    for case in ElementTree.parse(report).iter("testcase"):
        outcome, message = "passed", ""
        for tag in ("failure", "error", "skipped"):
            element = case.find(tag)
            if element is not None:
                message = element.get("message") or tag
                outcome = (
                    "xfailed"
                    if element.get("type") == "pytest.xfail"
                    else ("skipped" if tag == "skipped" else "failed")
                )
                break
        outcomes[case.get("name", "")] = (outcome, message)
    return outcomes


@pytest.fixture(scope="module")
def fresh_outcomes(request: pytest.FixtureRequest,
                   tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    """The outcomes of the requesting test module's tests, run in a fresh interpreter."""
    return _fresh_interpreter_outcomes(Path(request.module.__file__), tmp_path_factory.mktemp("fresh"))


@pytest.fixture
def array_api_dispatch(request: pytest.FixtureRequest):
    """scikit-learn's array API dispatch on for one test (see the module docstring for SciPy)."""
    if not SCIPY_DISPATCHES:
        if os.environ.get(_CHILD):
            pytest.fail(
                "SciPy's array API support is off even in a fresh interpreter: is SCIPY_ARRAY_API=1 "
                "overridden, or is scipy imported before tests/array_api_consumers.py by a plugin?"
            )
        outcome, message = request.getfixturevalue("fresh_outcomes").get(
            request.node.name, ("failed", "not run in the fresh interpreter")
        )
        where = "scipy was imported before SCIPY_ARRAY_API=1 could be set; in a fresh interpreter"
        if outcome == "failed":
            pytest.fail(f"{where}: {message}")
        if outcome == "xfailed":
            pytest.xfail(f"{where}: {message}")
        pytest.skip(f"{where}: {outcome} {message}".rstrip())
    with sklearn.config_context(array_api_dispatch=True):
        yield


# ------------------------------------------------------------------------------------- data
# One generator, drawn in this order: every test sees the same values on every run.
RNG = np.random.default_rng(20251209)
X = RNG.standard_normal((60, 5))
X_POSITIVE = np.abs(X) + 0.1
Y_CLASS = (X[:, 0] + X[:, 1] > 0).astype(np.int64) + (X[:, 2] > 0.5)  # three classes
Y_PRED_CLASS = np.where(np.arange(60) < 10, 0, Y_CLASS)
Y_BINARY = (Y_CLASS > 0).astype(np.int64)
Y_REG = X @ RNG.standard_normal(5) + 0.1 * RNG.standard_normal(60)
Y_REG_PRED = Y_REG + 0.3 * RNG.standard_normal(60)
Y_POSITIVE, Y_POSITIVE_PRED = np.abs(Y_REG) + 0.5, np.abs(Y_REG_PRED) + 0.5
PROBA = RNG.uniform(0.05, 0.95, 60)
PROBA_3 = RNG.dirichlet(np.ones(3), 60)
Y_OTHER = RNG.standard_normal((7, 5))


# array-api-extra's inputs
V = RNG.standard_normal(12)
V_NAN = V.copy()
V_NAN[[1, 4]] = np.nan
INTS = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3])
Z = V + 1j * V[::-1]
MATRIX = RNG.standard_normal((4, 5))

# SciPy's inputs
SIGNAL, OTHER = RNG.standard_normal(64), RNG.standard_normal(64)
UNIT = RNG.uniform(0.05, 0.95, 64)
POSITIVE = np.abs(SIGNAL) + 0.1
GRID = RNG.standard_normal((8, 16))
KERNEL = np.array([0.25, 0.5, 0.25])
ONE = np.array([1.0])


# ------------------------------------------------------------------------------------- scikit-learn's estimators
#: (label, make estimator, fit inputs, methods called on X after fit)
ESTIMATORS: list[tuple[str, Callable[[], Any], tuple[np.ndarray, ...], tuple[str, ...]]] = [
    (
        "PCA full",
        lambda: decomposition.PCA(3, svd_solver="full"),
        (X,),
        ("transform", "round_trip", "score_samples"),
    ),
    ("PCA covariance_eigh", lambda: decomposition.PCA(3, svd_solver="covariance_eigh"), (X,), ("transform",)),
    (
        "PCA randomized QR",
        lambda: decomposition.PCA(
            3, svd_solver="randomized", power_iteration_normalizer="QR", random_state=0
        ),
        (X,),
        ("transform",),
    ),
    ("Ridge svd", lambda: linear_model.Ridge(solver="svd"), (X, Y_REG), ("predict",)),
    (
        "Ridge svd multi-output",
        lambda: linear_model.Ridge(solver="svd", alpha=0.3),
        (X, np.stack([Y_REG, -Y_REG], 1)),
        ("predict",),
    ),
    ("RidgeCV", lambda: linear_model.RidgeCV(), (X, Y_REG), ("predict",)),
    (
        "RidgeClassifier svd",
        lambda: linear_model.RidgeClassifier(solver="svd"),
        (X, Y_CLASS),
        ("predict", "decision_function"),
    ),
    ("RidgeClassifierCV", lambda: linear_model.RidgeClassifierCV(), (X, Y_CLASS), ("predict",)),
    (
        "LinearDiscriminantAnalysis",
        lambda: discriminant_analysis.LinearDiscriminantAnalysis(store_covariance=True),
        (X, Y_CLASS),
        ("transform", "predict", "predict_proba", "decision_function"),
    ),
    ("Binarizer", lambda: preprocessing.Binarizer(threshold=0.2), (X,), ("transform",)),
    ("KernelCenterer", lambda: preprocessing.KernelCenterer(), (X @ X.T,), ("transform",)),
    ("MaxAbsScaler", lambda: preprocessing.MaxAbsScaler(), (X,), ("transform", "inverse_transform")),
    ("MinMaxScaler", lambda: preprocessing.MinMaxScaler((-1, 2)), (X,), ("transform", "inverse_transform")),
    ("Normalizer", lambda: preprocessing.Normalizer(), (X,), ("transform",)),
    ("Normalizer max", lambda: preprocessing.Normalizer("max"), (X,), ("transform",)),
    ("PolynomialFeatures", lambda: preprocessing.PolynomialFeatures(2), (X,), ("transform",)),
    ("StandardScaler", lambda: preprocessing.StandardScaler(), (X,), ("transform", "inverse_transform")),
    (
        "GaussianMixture",
        lambda: mixture.GaussianMixture(2, init_params="random", random_state=0),
        (X,),
        ("predict_proba", "score_samples"),
    ),
    # Tagged array_api_support=True by scikit-learn 1.9 without being on the documented list:
    (
        "GaussianNB",
        lambda: __import__("sklearn.naive_bayes").naive_bayes.GaussianNB(),
        (X, Y_CLASS),
        ("predict", "predict_proba"),
    ),
    (
        "LogisticRegression",
        lambda: linear_model.LogisticRegression(),
        (X, Y_CLASS),
        ("predict", "predict_proba"),
    ),
    ("PoissonRegressor", lambda: linear_model.PoissonRegressor(), (X, Y_POSITIVE), ("predict",)),
    (
        "Nystroem",
        lambda: __import__("sklearn.kernel_approximation").kernel_approximation.Nystroem(
            n_components=10, random_state=0
        ),
        (X,),
        ("transform",),
    ),
    # Meta-estimators over an array API estimator:
    (
        "CalibratedClassifierCV temperature",
        lambda: calibration.CalibratedClassifierCV(
            discriminant_analysis.LinearDiscriminantAnalysis(), method="temperature", cv=3
        ),
        (X, Y_CLASS),
        ("predict_proba",),
    ),
    (
        "GridSearchCV",
        lambda: model_selection.GridSearchCV(linear_model.Ridge(solver="svd"), {"alpha": [0.1, 1.0]}, cv=3),
        (X, Y_REG),
        ("predict",),
    ),
    (
        "RandomizedSearchCV",
        lambda: model_selection.RandomizedSearchCV(
            linear_model.Ridge(solver="svd"), {"alpha": [0.1, 1.0, 3.0]}, n_iter=2, cv=3, random_state=0
        ),
        (X, Y_REG),
        ("predict",),
    ),
    (
        "HalvingGridSearchCV",
        lambda: model_selection.HalvingGridSearchCV(
            linear_model.Ridge(solver="svd"),
            {"alpha": [0.1, 1.0, 3.0]},
            cv=3,
            min_resources=20,
            random_state=0,
        ),
        (X, Y_REG),
        ("predict",),
    ),
]


def fit_and_apply(
    make: Callable[[], Any], inputs: tuple[Any, ...], methods: tuple[str, ...]
) -> tuple[Any, dict]:
    """Fit, then call each method on the training X ("round_trip": inverse_transform of transform)."""
    estimator = make().fit(*inputs)
    x = inputs[0]
    return estimator, {
        method: estimator.inverse_transform(estimator.transform(x))
        if method == "round_trip"
        else getattr(estimator, method)(x)
        for method in methods
    }


def fitted_numpy_arrays(estimator: Any) -> dict[str, np.ndarray]:
    """The fitted attributes (``name_``) that are numpy arrays."""
    return {
        name: value
        for name, value in vars(estimator).items()
        if name.endswith("_") and not name.startswith("_") and isinstance(value, np.ndarray)
    }
