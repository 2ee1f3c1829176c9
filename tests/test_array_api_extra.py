"""array-api-extra on dlarray: every public function agrees with its numpy result, its testing
assertions work on dlarray arrays, and ``at(x)[idx].op(v, copy=...)`` keeps its copy semantics
(read-only arrays never written)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import array_api_compat.numpy as compat_numpy
import array_api_extra as xpx
import array_api_extra.testing as xpx_testing
import numpy as np
import pytest
from array_api_consumers import (
    INTS,
    MATRIX,
    V_NAN,
    Array,
    V,
    Z,
    assert_agrees,
    read_only,
)

import dlarray

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
