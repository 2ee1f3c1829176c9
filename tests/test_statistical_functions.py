"""Statistical functions (sum, prod, max, min, mean, var, std, cumulative_sum, cumulative_prod),
checked against numpy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from assertions import same
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy_strategies import NUMERIC, REALS, arrays, axis_for

import dlarray as xp


def _accumulation_dtype(dtype: np.dtype) -> np.dtype:
    if dtype.kind == "i" or dtype.kind == "b":
        return np.dtype(np.int64)
    if dtype.kind == "u":
        return np.dtype(np.uint64)
    return dtype


@settings(max_examples=60, deadline=None)
@given(data=st.data(), a=arrays(NUMERIC, min_dims=0))
def test_sum_and_prod_match_numpy_with_spec_dtypes(data, a) -> None:
    axis = data.draw(axis_for(a.ndim))
    keepdims = data.draw(st.booleans())
    x = xp.asarray(a)
    expected_dtype = _accumulation_dtype(a.dtype)
    with np.errstate(all="ignore"):
        for ours, theirs in ((xp.sum, np.sum), (xp.prod, np.prod)):
            result = ours(x, axis=axis, keepdims=keepdims)
            expected = theirs(a, axis=axis, keepdims=keepdims, dtype=expected_dtype)
            same(result, expected, close=a.dtype.kind in "fc")


def test_sum_dtype_keyword_casts_before_summing() -> None:
    x = xp.asarray(np.array([100, 100, 100], dtype=np.int8))
    assert xp.sum(x).dtype == xp.int64
    assert int(xp.sum(x)) == 300
    assert xp.sum(x, dtype=xp.int16).dtype == xp.int16
    assert int(xp.sum(x, dtype=xp.int16)) == 300
    assert xp.sum(xp.asarray(np.array([1, 2], dtype=np.uint8))).dtype == xp.uint64
    assert xp.sum(xp.asarray(np.array([1.5], dtype=np.float32))).dtype == xp.float32
    assert float(xp.prod(xp.asarray(np.zeros((0,), np.float32)))) == 1.0
    assert float(xp.sum(xp.asarray(np.zeros((0, 3), np.float64)))) == 0.0


@settings(max_examples=40, deadline=None)
@given(data=st.data(), a=arrays(REALS, min_dims=0, min_side=1))
def test_max_min_match_numpy(data, a) -> None:
    axis = data.draw(axis_for(a.ndim))
    keepdims = data.draw(st.booleans())
    x = xp.asarray(a)
    same(xp.max(x, axis=axis, keepdims=keepdims), np.max(a, axis=axis, keepdims=keepdims))
    same(xp.min(x, axis=axis, keepdims=keepdims), np.min(a, axis=axis, keepdims=keepdims))


def test_max_of_nothing_raises_and_nan_propagates() -> None:
    with pytest.raises(ValueError):
        xp.max(xp.asarray(np.zeros((2, 0))), axis=1)
    assert math.isnan(float(xp.min(xp.asarray(np.array([1.0, np.nan, -3.0])))))


@settings(max_examples=40, deadline=None)
@given(data=st.data(), a=arrays([np.float32, np.float64, np.int32], min_dims=0, min_side=1))
def test_mean_var_std_match_numpy(data, a) -> None:
    axis = data.draw(axis_for(a.ndim))
    keepdims = data.draw(st.booleans())
    x = xp.asarray(a)
    float_dtype = a.dtype if a.dtype.kind == "f" else np.dtype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # huge float32 values overflow when squared
        _check_mean_var_std(data, a, x, axis, keepdims, float_dtype)


def _check_mean_var_std(data, a, x, axis, keepdims, float_dtype) -> None:
    same(xp.mean(x, axis=axis, keepdims=keepdims), np.mean(a, axis=axis, keepdims=keepdims).astype(float_dtype),
         close=True)
    axes = range(a.ndim) if axis is None else np.atleast_1d(np.array(axis, dtype=np.intp)) % max(a.ndim, 1)
    count = math.prod(a.shape[i] for i in {int(i) for i in axes})
    correction = data.draw(st.integers(0, count + 1) | st.floats(0, count + 1))
    var = xp.var(x, axis=axis, correction=correction, keepdims=keepdims)
    std = xp.std(x, axis=axis, correction=correction, keepdims=keepdims)
    if count - correction > 0:
        expected = np.var(a, axis=axis, ddof=correction, keepdims=keepdims).astype(float_dtype)
        same(var, expected, close=True)
        same(std, np.sqrt(expected), close=True)
    else:  # the standard: NaN (numpy gives inf or NaN, with a warning)
        assert np.isnan(np.asarray(var)).all() and var.dtype == xp.asarray(np.zeros(0, float_dtype)).dtype
        assert np.isnan(np.asarray(std)).all() and std.shape == var.shape


def test_mean_of_nothing_is_nan_without_warning() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = xp.mean(xp.asarray(np.zeros((0, 3), np.float32)), axis=0)
        assert result.dtype == xp.float32 and result.shape == (3,)
        assert np.isnan(np.asarray(result)).all()
        z = xp.mean(xp.asarray(np.zeros(0, np.complex64)))
        assert math.isnan(complex(z).real) and math.isnan(complex(z).imag)


@settings(max_examples=50, deadline=None)
@given(data=st.data(), a=arrays(NUMERIC, min_dims=1, max_side=5))
def test_cumulative_sum_and_prod_match_numpy(data, a) -> None:
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1) | (st.none() if a.ndim == 1 else st.nothing()))
    include_initial = data.draw(st.booleans())
    x = xp.asarray(a)
    dtype = _accumulation_dtype(a.dtype)
    along = 0 if axis is None else axis
    with np.errstate(all="ignore"):
        for ours, theirs in ((xp.cumulative_sum, np.cumulative_sum), (xp.cumulative_prod, np.cumulative_prod)):
            result = ours(x, axis=axis, include_initial=include_initial)
            expected = theirs(a, axis=along, dtype=dtype, include_initial=include_initial)
            same(result, expected, close=a.dtype.kind in "fc")


def test_cumulative_needs_axis_for_nd_and_honours_dtype() -> None:
    x = xp.asarray(np.ones((2, 3), np.int8))
    with pytest.raises(ValueError):
        xp.cumulative_sum(x)
    result = xp.cumulative_sum(x, axis=1, dtype=xp.float32, include_initial=True)
    same(result, np.array([[0, 1, 2, 3], [0, 1, 2, 3]], np.float32))
    same(xp.cumulative_prod(xp.asarray(np.array([2, 3], np.uint8))), np.array([2, 6], np.uint64))


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128", "int64"])
@pytest.mark.parametrize("source", ["float16", "float32", "int32", "bool"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_mean_in_a_given_dtype_is_numpys(source: str, dtype: str, axis: int | None) -> None:
    """``mean(x, dtype=)``, outside the standard, as numpy's (what cubed's var and std ask for)."""
    values = (np.arange(12).reshape(3, 4) % 5).astype(source)
    result = xp.mean(xp.asarray(values), axis=axis, dtype=getattr(xp, dtype))
    expected = np.mean(values, axis=axis, dtype=dtype)
    assert result.dtype == getattr(xp, dtype)
    np.testing.assert_array_equal(np.asarray(result), expected)
    if dtype != "int64":  # the mean of nothing is NaN, which an integer cannot hold (numpy: a warning)
        empty = xp.mean(xp.asarray(np.zeros((0, 2), source)), axis=0, dtype=getattr(xp, dtype))
        assert empty.dtype == getattr(xp, dtype) and np.isnan(np.asarray(empty)).all()
