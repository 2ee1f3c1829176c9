"""dlarray as a real consumer sees it: array-api-compat, array-api-extra, scikit-learn, SciPy, hypothesis.

Every result is compared with what the same call gives on numpy arrays (``np.allclose``).

How SciPy's array API support is switched on, robustly
-------------------------------------------------------
SciPy reads ``SCIPY_ARRAY_API`` once, when it is first imported, and scikit-learn refuses
``array_api_dispatch=True`` unless the variable is ``"1"``. This module sets it as its very first
statement, before it imports scipy or sklearn, and needs no conftest: pytest imports every test
module at collection, in each xdist worker (``make test`` runs ``-n 2``) as in a plain run, before
any test runs, and no module collected before this one imports scipy. Should that change (another
module importing scipy first), SciPy would silently stay numpy-only in that process; the probe
``SCIPY_DISPATCHES`` detects it from SciPy's behaviour, and then the tests that need it report the
outcome of the same test run in a fresh interpreter (one subprocess for the whole module, where
this module is the first importer) instead of testing a crippled setup. scikit-learn's dispatch is
turned on per test with ``config_context`` (the fixture ``array_api_dispatch``), so it never leaks
into other test modules of the same worker.
"""

from __future__ import annotations

import os

os.environ["SCIPY_ARRAY_API"] = "1"  # before scipy and sklearn are imported: see the docstring

import builtins
import importlib.util
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import array_api_compat as compat
import array_api_compat.numpy as compat_numpy
import array_api_extra as xpx
import array_api_extra.testing as xpx_testing
import array_api_strict
import numpy as np
import pytest
import scipy.fft
import scipy.signal
import scipy.special
import scipy.stats
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.array_api import make_strategies_namespace
from sklearn import (
    calibration,
    decomposition,
    discriminant_analysis,
    linear_model,
    metrics,
    mixture,
    model_selection,
    preprocessing,
)
from sklearn.experimental import enable_halving_search_cv  # noqa: F401 - HalvingGridSearchCV
from sklearn.metrics import pairwise

import dlarray

ROOT = Path(__file__).resolve().parent.parent
Array = dlarray.Array

#: SciPy's array API support is on in this process (it returns dlarray for dlarray input).
SCIPY_DISPATCHES = type(scipy.special.erf(dlarray.asarray([0.5]))) is Array
_CHILD = "DLARRAY_ECOSYSTEM_FRESH_INTERPRETER"


# ------------------------------------------------------------------------------------- helpers
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


def _fresh_interpreter_outcomes(tmp: Path) -> dict[str, tuple[str, str]]:
    """Run this whole module in a new interpreter: test name -> (outcome, message), the outcome being
    "passed", "failed", "skipped" or "xfailed"."""
    report = tmp / "ecosystem.xml"
    env = dict(os.environ, SCIPY_ARRAY_API="1", **{_CHILD: "1"})
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(Path(__file__)),
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
def fresh_outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    return _fresh_interpreter_outcomes(tmp_path_factory.mktemp("ecosystem"))


@pytest.fixture
def array_api_dispatch(request: pytest.FixtureRequest):
    """scikit-learn's array API dispatch on for one test (see the module docstring for SciPy)."""
    if not SCIPY_DISPATCHES:
        if os.environ.get(_CHILD):
            pytest.fail(
                "SciPy's array API support is off even in a fresh interpreter: is SCIPY_ARRAY_API=1 "
                "overridden, or is scipy imported before tests/test_ecosystem.py by a plugin?"
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


def _on(namespace: Any, value: Any) -> Any:
    return namespace.asarray(value) if isinstance(value, np.ndarray) else value


# ------------------------------------------------------------------------------------- array-api-compat
def test_compat_array_namespace_is_dlarray() -> None:
    x = dlarray.asarray(X)
    assert compat.array_namespace(x) is dlarray
    assert compat.array_namespace(x, x[0], 1.0, None) is dlarray  # Python scalars and None are skipped
    assert compat.array_namespace(x, use_compat=False) is dlarray
    assert compat.array_namespace(x, api_version="2024.12") is dlarray


def test_compat_array_namespace_refusals() -> None:
    x = dlarray.asarray(X)
    # Documented: mixing namespaces is a TypeError naming them; numpy arrays count as one.
    with pytest.raises(TypeError, match="Multiple namespaces"):
        compat.array_namespace(x, X)
    with pytest.raises(TypeError, match="Multiple namespaces"):
        compat.array_namespace(x, np.float64(1.0))  # numpy scalars too (unlike Python scalars)
    with pytest.raises(TypeError, match="Multiple namespaces"):
        compat.array_namespace(x, array_api_strict.asarray(X))
    with pytest.raises(ValueError, match="array-api-compat wrapper"):  # documented for use_compat=True
        compat.array_namespace(x, use_compat=True)
    with pytest.raises(ValueError, match="unsupported Array API version"):
        compat.array_namespace(x, api_version="2021.12")


def test_compat_helpers_on_dlarray() -> None:
    x = dlarray.asarray(X)
    assert compat.is_array_api_obj(x)
    assert not compat.is_lazy_array(x)
    for name in ("numpy", "cupy", "torch", "dask", "jax", "pydata_sparse", "ndonnx", "dpnp", "mparray"):
        assert not getattr(compat, f"is_{name}_array")(x), name
        assert not getattr(compat, f"is_{name}_namespace")(dlarray), name
    assert not compat.is_array_api_strict_namespace(dlarray)
    assert compat.device(x) is x.device
    assert compat.to_device(x, x.device) is x
    assert compat.to_device(x, "cpu") is x
    assert compat.size(x) == X.size
    assert compat.size(dlarray.asarray(3.0)) == 1
    assert compat.size(dlarray.zeros((4, 0))) == 0
    assert compat.is_writeable_array(x)


def test_compat_is_writeable_array_of_read_only() -> None:
    ro = read_only(X)
    assert ro.readonly
    if compat.is_writeable_array(ro):
        # array-api-compat documents that it "blindly returns True for all unknown array types":
        # it reads numpy's flags.writeable and knows a fixed list of read-only types, dlarray's
        # `readonly` is not one of them. The writes it lets through are refused by dlarray.
        with pytest.raises(ValueError, match="read-only"):
            ro[0, 0] = 1.0
        assert np.array_equal(np.asarray(ro), X)
        pytest.xfail("array-api-compat cannot see dlarray's read-only flag (returns True for unknown types)")


# ------------------------------------------------------------------------------------- array-api-extra
V = RNG.standard_normal(12)
V_NAN = V.copy()
V_NAN[[1, 4]] = np.nan
INTS = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3])
Z = V + 1j * V[::-1]
MATRIX = RNG.standard_normal((4, 5))

#: (public name, label, call(namespace, input), input). ``namespace`` is dlarray or array-api-compat's
#: numpy; functions infer the namespace from their input where they can.
XPX_CASES: list[tuple[str, str, Callable[[Any, Any], Any], np.ndarray]] = [
    ("angle", "", lambda m, a: xpx.angle(a), Z),
    ("angle", "deg", lambda m, a: xpx.angle(a, deg=True), Z),
    ("apply_where", "fill_value", lambda m, a: xpx.apply_where(a > 0, a, m.sqrt, fill_value=-1.0), V),
    (
        "apply_where",
        "f2",
        lambda m, a: xpx.apply_where(a > 0, (a, a), lambda s, t: s * t, lambda s, t: s - t),
        V,
    ),
    ("argpartition", "", lambda m, a: m.sort(a[xpx.argpartition(a, 3)][:4]), V),
    ("partition", "", lambda m, a: m.sort(xpx.partition(a, 3)[:4]), V),
    ("atleast_nd", "", lambda m, a: xpx.atleast_nd(a, ndim=3), V),
    ("broadcast_shapes", "", lambda m, a: m.asarray(xpx.broadcast_shapes(a.shape, (1, 1, 5))), MATRIX),
    ("cov", "", lambda m, a: xpx.cov(a), MATRIX),
    (
        "cov",
        "axis=0, weights",
        lambda m, a: xpx.cov(
            a, axis=0, correction=0, aweights=m.asarray([1.0, 2, 3, 4]), fweights=m.asarray([1, 2, 1, 3])
        ),
        MATRIX,
    ),
    ("create_diagonal", "", lambda m, a: xpx.create_diagonal(a, offset=-2), V),
    ("create_diagonal", "batched", lambda m, a: xpx.create_diagonal(a), MATRIX),
    (
        "default_dtype",
        "",
        lambda m, a: m.zeros(1, dtype=xpx.default_dtype(m, "integral", device=a.device)),
        V,
    ),
    ("deg2rad", "", lambda m, a: xpx.deg2rad(a), V),
    ("rad2deg", "", lambda m, a: xpx.rad2deg(a), V),
    ("diag_indices", "", lambda m, a: m.stack(xpx.diag_indices(3, xp=m)), V),
    ("expand_dims", "", lambda m, a: xpx.expand_dims(a, axis=(0, 2)), MATRIX),
    ("isclose", "", lambda m, a: xpx.isclose(a, a + 1e-9), V_NAN),
    ("isclose", "equal_nan", lambda m, a: xpx.isclose(a, a, equal_nan=True), V_NAN),
    ("isin", "", lambda m, a: xpx.isin(a, m.asarray([1, 5, 7])), INTS),
    ("isin", "invert", lambda m, a: xpx.isin(a, m.asarray([1, 5, 7]), invert=True), INTS),
    ("kron", "", lambda m, a: xpx.kron(a, a[:2, :3]), MATRIX),
    ("lazy_apply", "", lambda m, a: xpx.lazy_apply(lambda t: t * 2, a), MATRIX),
    (
        "lazy_apply",
        "as_numpy",
        lambda m, a: xpx.lazy_apply(np.cumsum, a, as_numpy=True, shape=(20,), dtype=m.float64),
        MATRIX,
    ),
    ("nan_to_num", "", lambda m, a: xpx.nan_to_num(a, fill_value=7.0), V_NAN),
    ("nanmax", "", lambda m, a: xpx.nanmax(a), V_NAN),
    ("nanmin", "", lambda m, a: xpx.nanmin(a), V_NAN),
    ("nanmean", "", lambda m, a: xpx.nanmean(a), V_NAN),
    ("nansum", "", lambda m, a: xpx.nansum(a), V_NAN),
    ("nunique", "", lambda m, a: xpx.nunique(a), INTS),
    ("one_hot", "", lambda m, a: xpx.one_hot(a, 10), INTS),
    ("pad", "", lambda m, a: xpx.pad(a, 2, constant_values=3.0), MATRIX),
    ("pad", "per axis", lambda m, a: xpx.pad(a, [(1, 0), (0, 2)]), MATRIX),
    ("searchsorted", "", lambda m, a: xpx.searchsorted(m.sort(a), m.asarray([0.0, 0.5]), side="right"), V),
    ("setdiff1d", "", lambda m, a: xpx.setdiff1d(a, m.asarray([1, 5])), INTS),
    ("sinc", "", lambda m, a: xpx.sinc(a), V),
    ("tril_indices", "", lambda m, a: m.stack(xpx.tril_indices(4, offset=1, m=5, xp=m)), V),
    ("triu_indices", "", lambda m, a: m.stack(xpx.triu_indices(4, xp=m)), V),
    ("union1d", "", lambda m, a: xpx.union1d(a, m.asarray([0, 11])), INTS),
    ("unravel_index", "", lambda m, a: m.stack(xpx.unravel_index(a, (2, 5))), INTS),
    ("at", "set", lambda m, a: xpx.at(a)[1:3].set(0.0, copy=True), V),
    ("at", "add", lambda m, a: xpx.at(a, 1).add(2.0, copy=True), V),
    ("at", "subtract", lambda m, a: xpx.at(a, 1).subtract(2.0, copy=True), V),
    ("at", "multiply, mask", lambda m, a: xpx.at(a)[a > 0].multiply(3.0, copy=True), V),
    ("at", "divide", lambda m, a: xpx.at(a)[2].divide(2.0, copy=True), V),
    ("at", "power", lambda m, a: xpx.at(a)[2].power(2.0, copy=True), V),
    ("at", "min", lambda m, a: xpx.at(a)[::2].min(0.0, copy=True), V),
    ("at", "max", lambda m, a: xpx.at(a)[::2].max(0.0, copy=True), V),
]


# expand_dims and broadcast_shapes are deprecated in array-api-extra 0.11 (the standard has them since
# 2025.12); they still work, and are tested while they exist.
@pytest.mark.filterwarnings("ignore:`xpx.(expand_dims|broadcast_shapes)` is deprecated:DeprecationWarning")
@pytest.mark.parametrize(
    ("name", "label", "call", "value"),
    XPX_CASES,
    ids=[f"{n}[{label}]" if label else n for n, label, _, _ in XPX_CASES],
)
def test_xpx_function_agrees_with_numpy(name: str, label: str, call: Callable, value: np.ndarray) -> None:
    if not hasattr(xpx, name):
        pytest.skip(f"array_api_extra {xpx.__version__} has no {name}")
    expected = call(compat_numpy, value)
    result = call(dlarray, dlarray.asarray(value))
    assert type(result) is Array
    assert np.asarray(result).dtype == np.asarray(expected).dtype
    assert_agrees(result, expected, rtol=1e-12, atol=0)


def test_xpx_public_api_is_covered() -> None:
    """Every public function of the installed array-api-extra has a case above (new ones are noticed)."""
    public = {name for name in xpx.__all__ if callable(getattr(xpx, name)) and name != "testing"}
    assert public <= {name for name, *_ in XPX_CASES}, public - {name for name, *_ in XPX_CASES}


def test_xpx_testing_assertions_on_dlarray() -> None:
    a = dlarray.asarray(V)
    xpx_testing.assert_close(a, a + 1e-12)
    xpx_testing.assert_equal(a, dlarray.asarray(V.copy()))
    xpx_testing.assert_less(a, a + 1)
    xpx_testing.assert_close_nulp(a, dlarray.asarray(V.copy()))
    with pytest.raises(AssertionError):
        xpx_testing.assert_equal(a, a + 1)
    with pytest.raises(AssertionError, match="dtypes do not match"):
        xpx_testing.assert_equal(a, dlarray.astype(a, dlarray.float32))
    with pytest.raises(AssertionError, match="Namespaces"):
        xpx_testing.assert_equal(a, V)


class TestAtCopySemantics:
    """``at(x)[idx].op(v, copy=...)``: None may update in place, True never does, False must."""

    def test_writable_copy_none_updates_in_place(self) -> None:
        x = dlarray.asarray(V.copy())
        result = xpx.at(x)[1:3].set(0.0)
        assert result is x
        assert np.array_equal(np.asarray(x)[1:3], [0.0, 0.0])

    def test_writable_copy_true_leaves_input(self) -> None:
        x = dlarray.asarray(V.copy())
        result = xpx.at(x)[1:3].add(1.0, copy=True)
        assert result is not x
        assert np.array_equal(np.asarray(x), V)
        assert np.allclose(np.asarray(result)[1:3], V[1:3] + 1)

    def test_writable_copy_false_writes_back(self) -> None:
        x = dlarray.asarray(V.copy())
        result = xpx.at(x, x > 0).multiply(2.0, copy=False)
        assert result is x
        assert np.allclose(np.asarray(x), np.where(V > 0, 2 * V, V))

    def test_read_only_copy_true_copies(self) -> None:
        ro = read_only(V)
        result = xpx.at(ro)[0].set(99.0, copy=True)
        assert not result.readonly and float(result[0]) == 99.0
        assert np.array_equal(np.asarray(ro), V)

    @pytest.mark.parametrize("copy", [None, False])
    @pytest.mark.parametrize("op", ["set", "add", "min"])
    def test_read_only_never_written(self, copy: bool | None, op: str) -> None:
        # copy=False must write back, which a read-only array refuses. copy=None "may" update in
        # place; array-api-extra documents read-only arrays of libraries array-api-compat does not
        # know as unsupported there (it cannot see they are read-only, so it tries __setitem__):
        # dlarray refuses the write with ValueError, and the immutable bytes stay as they were.
        values = V.copy()
        buffer = values.tobytes()
        ro = dlarray.asarray(np.frombuffer(buffer, dtype=values.dtype))
        with pytest.raises(ValueError, match="read-only"):
            getattr(xpx.at(ro)[1:4], op)(-5.0, copy=copy)
        assert buffer == values.tobytes()
        assert np.array_equal(np.asarray(ro), V)


# ------------------------------------------------------------------------------------- scikit-learn
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


def _fit_and_apply(
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


def _fitted_numpy_arrays(estimator: Any) -> dict[str, np.ndarray]:
    """The fitted attributes (``name_``) that are numpy arrays."""
    return {
        name: value
        for name, value in vars(estimator).items()
        if name.endswith("_") and not name.startswith("_") and isinstance(value, np.ndarray)
    }


@pytest.mark.usefixtures("array_api_dispatch")
@pytest.mark.filterwarnings("ignore:invalid value encountered in divide:RuntimeWarning")  # see StandardScaler
@pytest.mark.parametrize(("label", "make", "inputs", "methods"), ESTIMATORS, ids=[e[0] for e in ESTIMATORS])
def test_sklearn_estimator(label: str, make: Callable, inputs: tuple, methods: tuple[str, ...]) -> None:
    expected_estimator, expected = _fit_and_apply(make, inputs, methods)
    estimator, results = _fit_and_apply(make, tuple(dlarray.asarray(a) for a in inputs), methods)
    for method, result in results.items():
        assert type(result) is Array, f"{method} returned {type(result)}"
        assert_agrees(result, expected[method])
    # Fitted attributes that are numpy arrays in a numpy fit are dlarray arrays here (scalars such as
    # Ridge's intercept_ of one target may be 0-d dlarray arrays here and floats there).
    for name, expected_value in _fitted_numpy_arrays(expected_estimator).items():
        value = getattr(estimator, name)
        assert type(value) is Array, f"fitted attribute {name} is a {type(value)}"
        assert_agrees(value, expected_value)
    assert not _fitted_numpy_arrays(estimator)


@pytest.mark.usefixtures("array_api_dispatch")
def test_sklearn_label_encoder() -> None:
    labels = Y_CLASS * 3 + 1
    encoder = preprocessing.LabelEncoder()
    codes = encoder.fit_transform(dlarray.asarray(labels))
    assert type(codes) is Array and type(encoder.classes_) is Array
    assert_agrees(codes, preprocessing.LabelEncoder().fit_transform(labels))
    assert_agrees(encoder.classes_, np.unique(labels))
    assert_agrees(encoder.inverse_transform(codes), labels)


METRICS: list[tuple[str, Callable[..., Any], tuple[np.ndarray, ...], dict[str, Any]]] = [
    *[
        (name, getattr(metrics, name), (Y_CLASS, Y_PRED_CLASS), {})
        for name in (
            "accuracy_score",
            "confusion_matrix",
            "hamming_loss",
            "zero_one_loss",
            "multilabel_confusion_matrix",
        )
    ],
    *[
        (name, getattr(metrics, name), (Y_CLASS, Y_PRED_CLASS), {"average": "macro"})
        for name in ("f1_score", "precision_score", "recall_score", "jaccard_score")
    ],
    ("f1_score per class", metrics.f1_score, (Y_CLASS, Y_PRED_CLASS), {"average": None}),
    ("fbeta_score", metrics.fbeta_score, (Y_CLASS, Y_PRED_CLASS), {"beta": 0.5, "average": "weighted"}),
    ("precision_recall_fscore_support", metrics.precision_recall_fscore_support, (Y_CLASS, Y_PRED_CLASS), {}),
    (
        "accuracy_score weighted",
        metrics.accuracy_score,
        (Y_CLASS, Y_PRED_CLASS),
        {"sample_weight": np.abs(Y_REG)},
    ),
    ("brier_score_loss", metrics.brier_score_loss, (Y_BINARY, PROBA), {}),
    ("d2_brier_score", metrics.d2_brier_score, (Y_BINARY, PROBA), {}),
    ("log_loss", metrics.log_loss, (Y_CLASS, PROBA_3), {}),
    ("d2_log_loss_score", metrics.d2_log_loss_score, (Y_CLASS, PROBA_3), {}),
    ("precision_recall_curve", metrics.precision_recall_curve, (Y_BINARY, PROBA), {}),
    ("roc_curve drop_intermediate=False", metrics.roc_curve, (Y_BINARY, PROBA), {"drop_intermediate": False}),
    ("average_precision_score", metrics.average_precision_score, (Y_BINARY, PROBA), {}),
    *[
        (name, getattr(metrics, name), (Y_REG, Y_REG_PRED), {})
        for name in (
            "r2_score",
            "mean_squared_error",
            "root_mean_squared_error",
            "mean_absolute_error",
            "explained_variance_score",
            "max_error",
            "median_absolute_error",
            "mean_absolute_percentage_error",
            "mean_pinball_loss",
        )
    ],
    (
        "r2_score raw_values",
        metrics.r2_score,
        (np.stack([Y_REG, -Y_REG], 1), np.stack([Y_REG_PRED, 0.1 - Y_REG], 1)),
        {"multioutput": "raw_values"},
    ),
    *[
        (name, getattr(metrics, name), (Y_POSITIVE, Y_POSITIVE_PRED), {})
        for name in (
            "mean_squared_log_error",
            "root_mean_squared_log_error",
            "mean_gamma_deviance",
            "mean_poisson_deviance",
        )
    ],
    ("mean_tweedie_deviance", metrics.mean_tweedie_deviance, (Y_POSITIVE, Y_POSITIVE_PRED), {"power": 1.5}),
    ("d2_tweedie_score", metrics.d2_tweedie_score, (Y_POSITIVE, Y_POSITIVE_PRED), {"power": 1.5}),
    *[
        (name, getattr(pairwise, name), (X, Y_OTHER), {})
        for name in (
            "cosine_similarity",
            "cosine_distances",
            "euclidean_distances",
            "linear_kernel",
            "polynomial_kernel",
            "rbf_kernel",
            "sigmoid_kernel",
            "laplacian_kernel",  # not on scikit-learn's list, works
        )
    ],
    *[
        (name, getattr(pairwise, name), (X_POSITIVE, np.abs(Y_OTHER)), {})
        for name in ("additive_chi2_kernel", "chi2_kernel")
    ],
    ("paired_cosine_distances", pairwise.paired_cosine_distances, (X[:7], Y_OTHER), {}),
    ("paired_euclidean_distances", pairwise.paired_euclidean_distances, (X[:7], Y_OTHER), {}),
    *[
        (f"pairwise_distances {m}", pairwise.pairwise_distances, (X, Y_OTHER), {"metric": m})
        for m in ("cosine", "euclidean", "l2")
    ],
    *[
        (f"pairwise_kernels {k}", pairwise.pairwise_kernels, (X_POSITIVE, np.abs(Y_OTHER)), {"metric": k})
        for k in (
            "linear",
            "poly",
            "polynomial",
            "rbf",
            "sigmoid",
            "cosine",
            "additive_chi2",
            "chi2",
            "laplacian",
        )
    ],
]


@pytest.mark.usefixtures("array_api_dispatch")
@pytest.mark.parametrize(("label", "function", "inputs", "options"), METRICS, ids=[m[0] for m in METRICS])
def test_sklearn_metric(label: str, function: Callable, inputs: tuple, options: dict) -> None:
    expected = function(*inputs, **options)
    result = function(
        *(dlarray.asarray(a) for a in inputs), **{k: _on(dlarray, v) for k, v in options.items()}
    )
    # Documented: a single value comes back as a Python float, several as arrays of y_pred's library.
    assert_dlarray_outputs(result)
    assert_agrees(result, expected)


@pytest.mark.usefixtures("array_api_dispatch")
def test_sklearn_contingency_matrix_is_numpy() -> None:
    # Listed as supported, but it builds a scipy.sparse matrix and returns numpy (its result feeds
    # sklearn's numpy-only clustering metrics) for every input library, array-api-strict too.
    result = metrics.cluster.contingency_matrix(dlarray.asarray(Y_CLASS), dlarray.asarray(Y_PRED_CLASS))
    assert isinstance(result, np.ndarray)
    assert_agrees(result, metrics.cluster.contingency_matrix(Y_CLASS, Y_PRED_CLASS))


@pytest.mark.usefixtures("array_api_dispatch")
@pytest.mark.xfail(
    raises=TypeError,
    strict=False,
    reason="scikit-learn 1.9 calls xp.diff(fps, 2): n is keyword-only in the standard "
    "(array-api-strict fails the same way)",
)
def test_sklearn_roc_curve_drop_intermediate() -> None:
    result = metrics.roc_curve(dlarray.asarray(Y_BINARY), dlarray.asarray(PROBA))
    assert_agrees(result, metrics.roc_curve(Y_BINARY, PROBA))


@pytest.mark.usefixtures("array_api_dispatch")
def test_sklearn_tools() -> None:
    x, y = dlarray.asarray(X), dlarray.asarray(Y_REG)
    split = model_selection.train_test_split(x, y, random_state=0)
    assert_dlarray_outputs(split)
    assert_agrees(split, model_selection.train_test_split(X, Y_REG, random_state=0))
    predicted = model_selection.cross_val_predict(linear_model.Ridge(solver="svd"), x, y, cv=3)
    assert type(predicted) is Array
    assert_agrees(
        predicted, model_selection.cross_val_predict(linear_model.Ridge(solver="svd"), X, Y_REG, cv=3)
    )
    sklearn.utils.check_consistent_length(x, y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        sklearn.utils.check_consistent_length(x, y[:-1])


@pytest.mark.usefixtures("array_api_dispatch")
def test_sklearn_mixed_inputs_follow_x_and_y_pred() -> None:
    # Documented: estimators convert the other inputs to X's library, metrics to y_pred's.
    ridge = linear_model.Ridge(solver="svd").fit(dlarray.asarray(X), Y_REG)
    assert type(ridge.coef_) is Array
    assert_agrees(
        ridge.predict(dlarray.asarray(X)), linear_model.Ridge(solver="svd").fit(X, Y_REG).predict(X)
    )
    assert metrics.r2_score(Y_REG, dlarray.asarray(Y_REG_PRED)) == pytest.approx(
        metrics.r2_score(Y_REG, Y_REG_PRED)
    )


@pytest.mark.usefixtures("array_api_dispatch")
@pytest.mark.xfail(
    raises=(TypeError, AttributeError),
    strict=False,
    reason="scikit-learn 1.9's LinearDiscriminantAnalysis.fit calls xp.unique_counts on y before "
    "moving y to X's library (array-api-strict fails the same way)",
)
def test_sklearn_lda_numpy_y() -> None:
    lda = discriminant_analysis.LinearDiscriminantAnalysis().fit(dlarray.asarray(X), Y_CLASS)
    assert_agrees(
        lda.predict(dlarray.asarray(X)),
        discriminant_analysis.LinearDiscriminantAnalysis().fit(X, Y_CLASS).predict(X),
    )


@pytest.mark.usefixtures("array_api_dispatch")
@pytest.mark.filterwarnings("ignore:invalid value encountered in divide:RuntimeWarning")  # see StandardScaler
def test_sklearn_read_only_inputs() -> None:
    ro = read_only(X)
    # The default (copy=True) works on read-only data, and never touches it.
    scaled = preprocessing.StandardScaler().fit_transform(ro)
    assert_agrees(scaled, preprocessing.StandardScaler().fit_transform(X))
    assert_agrees(
        decomposition.PCA(2, svd_solver="full").fit_transform(ro),
        decomposition.PCA(2, svd_solver="full").fit_transform(X),
    )
    # copy=False asks to scale in place. scikit-learn copies a read-only numpy array first, but it
    # recognizes read-only data only by numpy's flags.writeable, so it tries to write into the
    # dlarray: dlarray refuses (ValueError) and the data stays intact.
    for make in (
        lambda: preprocessing.StandardScaler(copy=False),
        lambda: preprocessing.MinMaxScaler(copy=False),
        lambda: preprocessing.Normalizer(copy=False),
    ):
        with pytest.raises(ValueError, match="read-only"):
            make().fit_transform(ro)
    assert np.array_equal(np.asarray(ro), X)


@pytest.mark.usefixtures("array_api_dispatch")
def test_sklearn_float32() -> None:
    x32 = X.astype(np.float32)
    ridge = linear_model.Ridge(solver="svd").fit(
        dlarray.asarray(x32), dlarray.asarray(Y_REG.astype(np.float32))
    )
    predicted = ridge.predict(dlarray.asarray(x32))
    assert predicted.dtype == dlarray.float32
    assert_agrees(
        predicted,
        linear_model.Ridge(solver="svd").fit(x32, Y_REG.astype(np.float32)).predict(x32),
        rtol=1e-4,
        atol=1e-5,
    )
    pca = decomposition.PCA(2, svd_solver="full").fit(dlarray.asarray(x32))
    assert pca.components_.dtype == dlarray.float32


def test_sklearn_hot_path_does_not_retry_imports(monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: __array_namespace_info__().default_dtypes(device=...), which scikit-learn calls
    several times per fit, retried ``import cupy`` on every call when cupy is absent (a sys.path
    scan each time: ~40 us, 12% of StandardScaler.fit on 20,000 x 50)."""
    info = dlarray.__array_namespace_info__()
    device = dlarray.asarray(1.0).device
    info.default_dtypes(device=device)
    imported: list[str] = []
    real_import = builtins.__import__

    def counting_import(name: str, *args: Any, **kwargs: Any) -> Any:
        imported.append(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", counting_import)
    for _ in range(3):
        info.default_dtypes(device=device)
        info.dtypes(device=device, kind="real floating")
        info.devices()
    assert imported == []


# ------------------------------------------------------------------------------------- SciPy
SIGNAL, OTHER = RNG.standard_normal(64), RNG.standard_normal(64)
UNIT = RNG.uniform(0.05, 0.95, 64)
POSITIVE = np.abs(SIGNAL) + 0.1
GRID = RNG.standard_normal((8, 16))
KERNEL = np.array([0.25, 0.5, 0.25])
ONE = np.array([1.0])


def _as_tuple(test: Callable[..., Any]) -> Callable[..., tuple[Any, Any]]:
    """A hypothesis test's (statistic, pvalue) as a plain tuple."""
    return lambda *args: tuple(test(*args))[:2]


#: (label, call, inputs): SciPy functions computed through the array API (the result is a dlarray).
SCIPY_DISPATCHED: list[tuple[str, Callable[..., Any], tuple[np.ndarray, ...]]] = [
    *[
        (f"special.{name}", getattr(scipy.special, name), (SIGNAL,))
        for name in ("erf", "erfc", "erfcx", "expit", "ndtr", "log_ndtr", "i0", "i0e", "i1")
    ],
    *[
        (f"special.{name}", getattr(scipy.special, name), (UNIT,))
        for name in ("erfinv", "logit", "ndtri", "entr")
    ],
    *[
        (f"special.{name}", getattr(scipy.special, name), (POSITIVE,))
        for name in ("gammaln", "gamma", "digamma", "spence")
    ],
    *[
        (f"special.{name}", getattr(scipy.special, name), (POSITIVE, POSITIVE[::-1]))
        for name in ("xlogy", "xlog1py", "gammainc", "gammaincc", "poch", "chdtr")
    ],
    ("special.rel_entr", scipy.special.rel_entr, (UNIT, UNIT[::-1])),
    ("special.betainc", scipy.special.betainc, (POSITIVE, POSITIVE[::-1], UNIT)),
    ("special.stdtr", scipy.special.stdtr, (POSITIVE, SIGNAL)),
    ("special.binom", scipy.special.binom, (POSITIVE + 3, POSITIVE)),
    ("special.zeta", scipy.special.zeta, (POSITIVE + 1.5,)),
    ("special.boxcox", lambda a: scipy.special.boxcox(a, 0.5), (POSITIVE,)),
    ("special.softmax", lambda a: scipy.special.softmax(a, axis=1), (GRID,)),
    ("special.log_softmax", lambda a: scipy.special.log_softmax(a, axis=1), (GRID,)),
    ("special.logsumexp", lambda a: scipy.special.logsumexp(a, axis=1), (GRID,)),
    ("special.logsumexp b", lambda a, b: scipy.special.logsumexp(a, b=b), (SIGNAL, POSITIVE)),
    *[
        (f"fft.{name}", getattr(scipy.fft, name), (SIGNAL,))
        for name in (
            "fft",
            "ifft",
            "rfft",
            "irfft",
            "hfft",
            "fftshift",
            "ifftshift",
            "dct",
            "idct",
            "dst",
            "idst",
        )
    ],
    *[
        (f"fft.{name}", getattr(scipy.fft, name), (GRID,))
        for name in ("fft2", "fftn", "rfftn", "ifftn", "dctn")
    ],
    ("fft.fft n, norm", lambda a: scipy.fft.fft(a, n=80, norm="ortho"), (SIGNAL,)),
    *[
        (f"stats.{name}", getattr(scipy.stats, name), (SIGNAL,))
        for name in (
            "zscore",
            "skew",
            "kurtosis",
            "sem",
            "rankdata",
            "tmean",
            "tvar",
            "tstd",
            "tmin",
            "tmax",
            "circmean",
            "circstd",
            "circvar",
            "differential_entropy",
        )
    ],
    *[(f"stats.{name}", getattr(scipy.stats, name), (POSITIVE,)) for name in ("variation", "gmean", "hmean")],
    ("stats.zscore axis", lambda a: scipy.stats.zscore(a, axis=1, ddof=1), (GRID,)),
    ("stats.describe", lambda a: tuple(scipy.stats.describe(a))[2:], (SIGNAL,)),
    ("stats.moment", lambda a: scipy.stats.moment(a, order=3), (SIGNAL,)),
    ("stats.pmean", lambda a: scipy.stats.pmean(a, 2.0), (POSITIVE,)),
    ("stats.entropy", scipy.stats.entropy, (UNIT,)),
    ("stats.entropy qk", scipy.stats.entropy, (UNIT, UNIT[::-1])),
    ("stats.trim_mean", lambda a: scipy.stats.trim_mean(a, 0.1), (SIGNAL,)),
    ("stats.quantile", lambda a: scipy.stats.quantile(a, 0.3), (SIGNAL,)),
    ("stats.boxcox_llf", lambda a: scipy.stats.boxcox_llf(0.5, a), (POSITIVE,)),
    ("stats.directional_stats", lambda a: scipy.stats.directional_stats(a).mean_direction, (GRID,)),
    *[
        (f"stats.{name}", _as_tuple(getattr(scipy.stats, name)), (SIGNAL,))
        for name in ("skewtest", "kurtosistest", "normaltest", "jarque_bera")
    ],
    ("stats.ttest_1samp", lambda a: tuple(scipy.stats.ttest_1samp(a, 0.1))[:2], (SIGNAL,)),
    *[
        (f"stats.{name}", _as_tuple(getattr(scipy.stats, name)), (SIGNAL, OTHER))
        for name in (
            "ttest_ind",
            "ttest_rel",
            "pearsonr",
            "f_oneway",
            "bartlett",
            "chatterjeexi",
            "mannwhitneyu",
        )
    ],
    *[
        (f"signal.{name}", getattr(scipy.signal, name), (SIGNAL, KERNEL))
        for name in ("convolve", "correlate", "fftconvolve", "oaconvolve")
    ],
    ("signal.convolve2d", scipy.signal.convolve2d, (GRID, GRID[:3, :3])),
    ("signal.lfilter", lambda a, b, c: scipy.signal.lfilter(b, c, a), (SIGNAL, KERNEL, ONE)),
    ("signal.filtfilt", lambda a, b, c: scipy.signal.filtfilt(b, c, a), (SIGNAL, KERNEL, ONE)),
    (
        "signal.sosfilt",
        lambda a, s: scipy.signal.sosfilt(s, a),
        (SIGNAL, np.asarray(scipy.signal.butter(2, 0.3, output="sos"))),
    ),
    ("signal.detrend", scipy.signal.detrend, (SIGNAL,)),
    ("signal.hilbert", scipy.signal.hilbert, (SIGNAL,)),
    ("signal.resample", lambda a: scipy.signal.resample(a, 32), (SIGNAL,)),
    ("signal.resample_poly", lambda a: scipy.signal.resample_poly(a, 2, 3), (SIGNAL,)),
    ("signal.medfilt", scipy.signal.medfilt, (SIGNAL,)),
    ("signal.wiener", scipy.signal.wiener, (SIGNAL,)),
    ("signal.savgol_filter", lambda a: scipy.signal.savgol_filter(a, 7, 2), (SIGNAL,)),
    ("signal.upfirdn", lambda a, h: scipy.signal.upfirdn(h, a, 2), (SIGNAL, KERNEL)),
    ("signal.freqz", lambda b: scipy.signal.freqz(b, worN=16), (KERNEL,)),
    ("signal.tf2zpk", lambda b, a: scipy.signal.tf2zpk(b, a)[0], (KERNEL, ONE)),
]

#: SciPy functions that accept a dlarray but compute with NumPy (np.asarray of the input) and return
#: NumPy: they are not (or not yet) converted to the array API in the installed SciPy.
SCIPY_THROUGH_NUMPY: list[tuple[str, Callable[..., Any], tuple[np.ndarray, ...]]] = [
    ("stats.spearmanr", lambda a, b: tuple(scipy.stats.spearmanr(a, b))[:2], (SIGNAL, OTHER)),
    ("stats.linregress", lambda a, b: tuple(scipy.stats.linregress(a, b))[:2], (SIGNAL, OTHER)),
    ("stats.norm.cdf", scipy.stats.norm.cdf, (SIGNAL,)),
    ("stats.Normal.cdf", lambda a: scipy.stats.Normal(mu=0.0, sigma=1.0).cdf(a), (SIGNAL,)),
    ("stats.expectile", lambda a: scipy.stats.expectile(a, 0.3), (SIGNAL,)),
    ("signal.welch", lambda a: scipy.signal.welch(a, nperseg=16), (SIGNAL,)),
    ("signal.periodogram", scipy.signal.periodogram, (SIGNAL,)),
    ("signal.stft", lambda a: scipy.signal.stft(a, nperseg=16)[2], (SIGNAL,)),
    ("signal.spectrogram", lambda a: scipy.signal.spectrogram(a, nperseg=16)[2], (SIGNAL,)),
    ("signal.csd", lambda a, b: scipy.signal.csd(a, b, nperseg=16), (SIGNAL, OTHER)),
    ("signal.coherence", lambda a, b: scipy.signal.coherence(a, b, nperseg=16), (SIGNAL, OTHER)),
    ("signal.decimate", lambda a: scipy.signal.decimate(a, 2), (SIGNAL,)),
    ("signal.find_peaks", lambda a: scipy.signal.find_peaks(a)[0], (SIGNAL,)),
]


@pytest.mark.usefixtures("array_api_dispatch")
@pytest.mark.parametrize(
    ("label", "function", "inputs"), SCIPY_DISPATCHED, ids=[c[0] for c in SCIPY_DISPATCHED]
)
def test_scipy_dispatches_to_dlarray(label: str, function: Callable, inputs: tuple) -> None:
    result = function(*(dlarray.asarray(a) for a in inputs))
    assert_dlarray_outputs(result if isinstance(result, tuple) else (result,))
    assert any(type(r) is Array for r in (result if isinstance(result, tuple) else (result,)))
    assert_agrees(result, function(*inputs), rtol=1e-9, atol=1e-12)


@pytest.mark.usefixtures("array_api_dispatch")
@pytest.mark.parametrize(
    ("label", "function", "inputs"), SCIPY_THROUGH_NUMPY, ids=[c[0] for c in SCIPY_THROUGH_NUMPY]
)
def test_scipy_through_numpy(label: str, function: Callable, inputs: tuple) -> None:
    result = function(*(dlarray.asarray(a) for a in inputs))
    # Converted with np.asarray (zero-copy through dlarray's __array__); a later SciPy may
    # dispatch these too, so a dlarray result is accepted as well.
    for r in result if isinstance(result, tuple) else (result,):
        assert isinstance(r, (np.ndarray, np.generic, float, Array)), type(r)
    assert_agrees(result, function(*inputs), rtol=1e-9, atol=1e-12)


@pytest.mark.usefixtures("array_api_dispatch")
def test_scipy_creation_with_xp_argument() -> None:
    window = scipy.signal.get_window("hann", 16, xp=dlarray)
    assert type(window) is Array
    assert_agrees(window, scipy.signal.get_window("hann", 16))
    assert_agrees(scipy.signal.windows.kaiser(15, 3.0, xp=dlarray), scipy.signal.windows.kaiser(15, 3.0))
    assert_agrees(scipy.fft.fftfreq(16, d=0.5, xp=dlarray), scipy.fft.fftfreq(16, d=0.5))


@pytest.mark.usefixtures("array_api_dispatch")
def test_scipy_read_only_and_float32_inputs() -> None:
    ro = read_only(GRID)
    assert_agrees(scipy.special.logsumexp(ro, axis=0), scipy.special.logsumexp(GRID, axis=0))
    assert_agrees(scipy.stats.zscore(ro), scipy.stats.zscore(GRID))
    assert_agrees(scipy.fft.rfft(ro), scipy.fft.rfft(GRID))
    assert np.array_equal(np.asarray(ro), GRID)
    single = scipy.special.expit(dlarray.asarray(SIGNAL.astype(np.float32)))
    assert single.dtype == dlarray.float32
    assert_agrees(single, scipy.special.expit(SIGNAL.astype(np.float32)), rtol=1e-6)


@pytest.mark.usefixtures("array_api_dispatch")
def test_scipy_mixing_with_numpy_is_refused() -> None:
    # SciPy documents that non-scalar array-likes cannot be mixed with another library's arrays:
    # ks_1samp(x, norm.cdf) evaluates the numpy-only norm.cdf on x and fails the same way for
    # array-api-strict.
    with pytest.raises(TypeError, match="Multiple namespaces"):
        scipy.special.xlogy(dlarray.asarray(POSITIVE), POSITIVE)
    with pytest.raises(TypeError, match="Multiple namespaces"):
        scipy.stats.ks_1samp(dlarray.asarray(SIGNAL), scipy.stats.norm.cdf)


# ------------------------------------------------------------------------------------- hypothesis
xps = make_strategies_namespace(dlarray)


def user_softmax(x: Any, axis: int = -1) -> Any:
    """A user's own library-agnostic code: softmax along an axis, written against the standard."""
    xp = compat.array_namespace(x)
    shifted = x - xp.max(x, axis=axis, keepdims=True)
    exp = xp.exp(shifted)
    return exp / xp.sum(exp, axis=axis, keepdims=True)


def user_min_max_scale(x: Any) -> Any:
    """Another one: scale each column to [0, 1] (a constant column becomes 0), with array-api-extra."""
    xp = compat.array_namespace(x)
    low, high = xp.min(x, axis=0), xp.max(x, axis=0)
    span = high - low
    return xpx.apply_where(span > 0, (x - low, span), lambda d, s: d / s, fill_value=0.0)


def test_hypothesis_namespace() -> None:
    assert xps.api_version == dlarray.__array_api_version__
    assert xps.name == "dlarray"


@settings(max_examples=40, deadline=None)
@given(
    xps.arrays(
        dtype=xps.floating_dtypes(sizes=64),
        shape=xps.array_shapes(min_dims=1, max_dims=3),
        elements={"min_value": -50.0, "max_value": 50.0},
    ),
    st.data(),
)
def test_hypothesis_user_softmax(x: Array, data: st.DataObject) -> None:
    assert type(x) is Array
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    result = user_softmax(x, axis=axis)
    assert type(result) is Array and result.shape == x.shape
    expected = scipy.special.softmax(np.asarray(x), axis=axis)  # the numpy reference
    assert np.allclose(np.asarray(result), expected, rtol=1e-12, atol=1e-300)
    assert np.allclose(np.sum(np.asarray(result), axis=axis), 1.0)


@settings(max_examples=40, deadline=None)
@given(
    xps.arrays(
        dtype=xps.floating_dtypes(),
        shape=xps.array_shapes(min_dims=2, max_dims=2, min_side=1),
        elements={"min_value": -1e3, "max_value": 1e3, "allow_subnormal": False},
    )
)
def test_hypothesis_user_min_max_scale(x: Array) -> None:
    result = user_min_max_scale(x)
    assert type(result) is Array and result.dtype == x.dtype
    values = np.asarray(result)
    assert np.all((values >= 0) & (values <= 1 + 1e-6))
    reference = np.asarray(x).astype(np.float64)
    span = np.ptp(reference, axis=0)
    constant = np.ptp(np.asarray(x), axis=0) == 0
    expected = np.where(constant, 0.0, (reference - reference.min(axis=0)) / np.where(span > 0, span, 1.0))
    assert np.allclose(values, expected, rtol=1e-3 if x.dtype == dlarray.float32 else 1e-9, atol=1e-5)


# ------------------------------------------------------------------------------------- benchmark smoke
@pytest.mark.skipif(importlib.util.find_spec("sklearn") is None, reason="needs scikit-learn")
def test_bench_sklearn_quick(tmp_path: Path) -> None:
    """benchmarks/bench_sklearn.py --quick runs and writes its JSON (no timing is asserted)."""
    completed = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_sklearn.py"), "--quick", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
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


# ------------------------------------------------------------------------------------- fixes found here
@pytest.mark.filterwarnings("ignore:(overflow|invalid value) encountered:RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_power_two_shortcut_matches_power(dtype: type) -> None:
    """``x ** 2`` and ``x **= 2`` (StandardScaler's variance) use square / multiply, which must be
    bit-identical to np.power, special cases (signed zeros, infinities, NaN, subnormals) included."""
    values = np.array(
        [-0.0, 0.0, np.inf, -np.inf, np.nan, 3.0, -2.5, 1e200, -1e-200, 5e-324, 1.0000001, 65504.0]
    )
    values = np.concatenate([values, RNG.standard_normal(1000) * 10.0 ** RNG.integers(-40, 40, 1000)]).astype(
        dtype
    )
    expected = np.power(values, 2)
    for exponent in (2, 2.0):
        result = np.asarray(dlarray.asarray(values.copy()) ** exponent)
        assert result.dtype == expected.dtype
        assert np.array_equal(result, expected, equal_nan=True) and not np.signbit(result).any()
        in_place = dlarray.asarray(values.copy())
        in_place **= exponent
        assert np.array_equal(np.asarray(in_place), expected, equal_nan=True)
    assert np.array_equal(np.asarray(dlarray.asarray(values) ** 0.5), np.power(values, 0.5), equal_nan=True)
