"""Searching, sorting, set, statistical, utility and indexing functions, checked against numpy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import dlarray as xp

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
REALS = INTS + [np.float32, np.float64]
NUMERIC = REALS + [np.complex64, np.complex128]


def arrays(dtypes=REALS, min_dims=1, max_dims=3, min_side=0, max_side=4, elements=None):
    """numpy arrays of the given dtypes (finite, no NaN unless elements says otherwise)."""
    dtype = st.sampled_from(dtypes)
    shapes = hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)
    kwargs = elements if elements is not None else {"allow_nan": False, "allow_infinity": False}

    def build(dt):
        if np.dtype(dt).kind in "fc":
            return hnp.arrays(dt, shapes, elements=kwargs)
        return hnp.arrays(dt, shapes)

    return dtype.flatmap(build)


def axis_for(ndim: int):
    """None, one axis (possibly negative) or a tuple of distinct axes."""
    single = st.integers(-ndim, ndim - 1) if ndim else st.nothing()
    many = st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).map(tuple) if ndim else st.just(())
    return st.none() | single | many


def same(result: xp.Array, expected: np.ndarray, *, close: bool = False) -> None:
    """Same dtype, shape and values (NaNs equal)."""
    got = np.asarray(result)
    expected = np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    if close:
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


# ------------------------------------------------------------------------- statistical


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


# ------------------------------------------------------------------------- searching


@settings(max_examples=40, deadline=None)
@given(data=st.data(), a=arrays(REALS, min_dims=1, min_side=0))
def test_argmax_argmin_count_nonzero_match_numpy(data, a) -> None:
    """Including empty arrays: only an empty searched axis (or an empty array with axis=None) has no
    answer; argmax of shape (0, 4) along the last axis is an empty result, as in numpy."""
    axis = data.draw(st.none() | st.integers(-a.ndim, a.ndim - 1))
    keepdims = data.draw(st.booleans())
    x = xp.asarray(a)
    for ours, theirs in ((xp.argmax, np.argmax), (xp.argmin, np.argmin)):
        try:
            expected = theirs(a, axis=axis, keepdims=keepdims).astype(np.int64)
        except ValueError:
            with pytest.raises(ValueError, match="empty"):
                ours(x, axis=axis, keepdims=keepdims)
        else:
            same(ours(x, axis=axis, keepdims=keepdims), expected)
    axes = data.draw(axis_for(a.ndim))
    counted = xp.count_nonzero(x, axis=axes, keepdims=keepdims)
    same(counted, np.asarray(np.count_nonzero(a, axis=axes, keepdims=keepdims), dtype=np.int64))


@settings(max_examples=40, deadline=None)
@given(arrays(NUMERIC + [np.bool_], min_dims=1))
def test_nonzero_matches_numpy(a) -> None:
    result = xp.nonzero(xp.asarray(a))
    assert len(result) == a.ndim
    for ours, theirs in zip(result, np.nonzero(a)):
        same(ours, theirs.astype(np.int64))


def test_argmax_of_an_empty_array_along_a_non_empty_axis_is_empty() -> None:
    empty_rows = xp.empty((0, 4))
    same(xp.argmax(empty_rows, axis=-1), np.zeros(0, dtype=np.int64))
    same(xp.argmin(empty_rows, axis=1, keepdims=True), np.zeros((0, 1), dtype=np.int64))
    for axis in (0, None):
        with pytest.raises(ValueError, match="empty"):
            xp.argmax(empty_rows, axis=axis)


def test_nonzero_refuses_0d() -> None:
    with pytest.raises(ValueError):
        xp.nonzero(xp.asarray(np.array(1.0)))


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_where_matches_numpy_with_arrays_and_scalars(data) -> None:
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=3, max_side=3))
    dtype = data.draw(st.sampled_from([np.int8, np.int64, np.float32, np.complex64]))
    cond = data.draw(hnp.arrays(np.bool_, shapes.input_shapes[0]))
    a1 = data.draw(hnp.arrays(dtype, shapes.input_shapes[1], elements={"allow_nan": False}
                              if np.dtype(dtype).kind in "fc" else None))
    a2 = data.draw(hnp.arrays(dtype, shapes.input_shapes[2], elements={"allow_nan": False}
                              if np.dtype(dtype).kind in "fc" else None))
    same(xp.where(xp.asarray(cond), xp.asarray(a1), xp.asarray(a2)), np.where(cond, a1, a2))
    scalar = 1 if np.dtype(dtype).kind in "iu" else 0.5
    same(xp.where(xp.asarray(cond), xp.asarray(a1), scalar), np.where(cond, a1, scalar))
    same(xp.where(xp.asarray(cond), scalar, xp.asarray(a2)), np.where(cond, scalar, a2))


def test_where_needs_an_array_operand() -> None:
    with pytest.raises(TypeError):
        xp.where(xp.asarray(np.array([True])), 1, 2)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), a=arrays(REALS, min_dims=1, max_dims=1, min_side=1, max_side=8))
def test_searchsorted_matches_numpy(data, a) -> None:
    side = data.draw(st.sampled_from(["left", "right"]))
    values = data.draw(hnp.arrays(a.dtype, data.draw(hnp.array_shapes(min_dims=0, max_dims=2)),
                                  elements=st.sampled_from(a.tolist())))
    use_sorter = data.draw(st.booleans())
    if use_sorter:
        order = np.argsort(a, kind="stable")
        result = xp.searchsorted(xp.asarray(a), xp.asarray(values), side=side, sorter=xp.asarray(order))
        expected = np.searchsorted(a, values, side=side, sorter=order)
    else:
        haystack = np.sort(a)
        result = xp.searchsorted(xp.asarray(haystack), xp.asarray(values), side=side)
        expected = np.searchsorted(haystack, values, side=side)
    same(result, np.asarray(expected, dtype=np.int64))


def test_searchsorted_scalar_gives_0d_index() -> None:
    x1 = xp.asarray(np.array([1, 3, 5], np.int8))
    assert xp.searchsorted(x1, 3).shape == ()
    assert int(xp.searchsorted(x1, 3, side="right")) == 2
    assert int(xp.searchsorted(x1, 1000)) == 3  # beyond int8: still the end
    assert xp.searchsorted(x1, 3).dtype == xp.int64
    with pytest.raises(ValueError):
        xp.searchsorted(x1, 3, side="middle")


# ------------------------------------------------------------------------- sorting


@settings(max_examples=60, deadline=None)
@given(data=st.data(), a=arrays(REALS, min_dims=1, max_side=6,
                                 elements={"allow_nan": False, "min_value": -3, "max_value": 3}))
def test_sort_argsort_are_stable_both_ways(data, a) -> None:
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    descending = data.draw(st.booleans())
    x = xp.asarray(a)
    order = np.asarray(xp.argsort(x, axis=axis, descending=descending))
    assert order.dtype == np.int64
    # the reference: a stable sort on the key (negated for descending: equal keys keep their order)
    key = a.astype(np.float64)
    expected_order = np.argsort(-key if descending else key, axis=axis, kind="stable")
    np.testing.assert_array_equal(order, expected_order)
    sorted_values = np.asarray(xp.sort(x, axis=axis, descending=descending))
    expected_values = np.take_along_axis(a, expected_order, axis=axis)
    np.testing.assert_array_equal(sorted_values, expected_values)
    assert np.array_equal(np.signbit(sorted_values), np.signbit(expected_values))


def test_sort_descending_keeps_signed_zero_order() -> None:
    x = xp.asarray(np.array([0.0, 1.0, -0.0, 0.0]))
    result = np.asarray(xp.sort(x, descending=True))
    assert result.tolist() == [1.0, 0.0, -0.0, 0.0]
    assert np.signbit(result).tolist() == [False, False, True, False]


# ------------------------------------------------------------------------- sets


@settings(max_examples=50, deadline=None)
@given(arrays(NUMERIC + [np.bool_], min_dims=0, elements={"allow_nan": True}))
def test_unique_functions_treat_every_nan_as_distinct(a) -> None:
    x = xp.asarray(a)
    values, indices, inverse, counts = xp.unique_all(x)
    assert values.dtype == x.dtype and values.ndim == 1
    assert indices.dtype == inverse.dtype == counts.dtype == xp.int64
    assert inverse.shape == a.shape
    flat = a.reshape(-1)
    v = np.asarray(values)
    nan = np.isnan(v) if a.dtype.kind in "fc" else np.zeros(v.shape, bool)
    # every NaN of the input is its own value, with a count of one
    assert nan.sum() == (np.isnan(flat).sum() if a.dtype.kind in "fc" else 0)
    assert (np.asarray(counts)[nan] == 1).all()
    assert np.asarray(counts).sum() == flat.size
    np.testing.assert_array_equal(v[np.asarray(inverse)], a)  # rebuilds x (NaNs equal)
    first = np.asarray(indices)
    np.testing.assert_array_equal(flat[first], v)
    for i, value in zip(first, v):
        if not (a.dtype.kind in "fc" and np.isnan(value)):
            assert i == np.flatnonzero(flat == value)[0]
    same(xp.unique_values(x), v)
    same(xp.unique_counts(x).counts, np.asarray(counts))
    result = xp.unique_inverse(x)
    same(result.values, v)
    same(result.inverse_indices, np.asarray(inverse))


def test_unique_merges_signed_zeros() -> None:
    result = xp.unique_counts(xp.asarray(np.array([-0.0, 0.0, 1.0])))
    assert np.asarray(result.counts).tolist() == [2, 1]


@settings(max_examples=30, deadline=None)
@given(a=arrays(INTS, min_dims=0), b=arrays(INTS, min_dims=0), invert=st.booleans())
def test_isin_matches_numpy(a, b, invert) -> None:
    same(xp.isin(xp.asarray(a), xp.asarray(b), invert=invert), np.isin(a, b, invert=invert))
    same(xp.isin(xp.asarray(a), 3, invert=invert), np.isin(a, 3, invert=invert))
    assert xp.isin(3, xp.asarray(b)).shape == ()


# ------------------------------------------------------------------------- utility


@settings(max_examples=40, deadline=None)
@given(data=st.data(), a=arrays(NUMERIC + [np.bool_], min_dims=0, elements={"allow_nan": True}))
def test_all_any_match_numpy(data, a) -> None:
    axis = data.draw(axis_for(a.ndim))
    keepdims = data.draw(st.booleans())
    x = xp.asarray(a)
    same(xp.all(x, axis=axis, keepdims=keepdims), np.all(a, axis=axis, keepdims=keepdims))
    same(xp.any(x, axis=axis, keepdims=keepdims), np.any(a, axis=axis, keepdims=keepdims))


@settings(max_examples=40, deadline=None)
@given(data=st.data(), a=arrays([np.int16, np.int64, np.float64], min_dims=1, min_side=1))
def test_diff_matches_numpy(data, a) -> None:
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    n = data.draw(st.integers(0, a.shape[axis]))
    shape = list(a.shape)
    shape[axis] = data.draw(st.integers(1, 3))
    prepend = data.draw(st.none() | hnp.arrays(a.dtype, tuple(shape), elements=st.integers(-9, 9)))
    append = data.draw(st.none() | hnp.arrays(a.dtype, tuple(shape), elements=st.integers(-9, 9)))
    kwargs = {k: xp.asarray(v) for k, v in (("prepend", prepend), ("append", append)) if v is not None}
    joined = np.concatenate([p for p in (prepend, a, append) if p is not None], axis=axis)
    with np.errstate(all="ignore"):
        same(xp.diff(xp.asarray(a), axis=axis, n=n, **kwargs), np.diff(joined, n=n, axis=axis))


# ------------------------------------------------------------------------- indexing functions


@settings(max_examples=40, deadline=None)
@given(data=st.data(), a=arrays(NUMERIC, min_dims=1, min_side=1))
def test_take_and_take_along_axis_match_numpy(data, a) -> None:
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    extent = a.shape[axis]
    indices = data.draw(hnp.arrays(np.int64, st.integers(0, 5), elements=st.integers(-extent, extent - 1)))
    same(xp.take(xp.asarray(a), xp.asarray(indices), axis=axis), np.take(a, indices, axis=axis))
    shape = list(a.shape)
    shape[axis] = data.draw(st.integers(0, 4))
    along = data.draw(hnp.arrays(np.int64, tuple(shape), elements=st.integers(-extent, extent - 1)))
    same(xp.take_along_axis(xp.asarray(a), xp.asarray(along), axis=axis), np.take_along_axis(a, along, axis=axis))


def test_take_rules() -> None:
    x = xp.asarray(np.arange(6).reshape(2, 3))
    with pytest.raises(ValueError):
        xp.take(x, xp.asarray(np.array([0])))  # axis required beyond 1-D
    with pytest.raises(TypeError):
        xp.take(x, xp.asarray(np.array([0.0])), axis=0)
    with pytest.raises(IndexError):
        xp.take(x, xp.asarray(np.array([3])), axis=1)
    same(xp.take(xp.asarray(np.arange(4)), xp.asarray(np.array([-1, 0]))), np.array([3, 0]))


def test_functions_refuse_non_arrays() -> None:
    for function in (xp.sum, xp.max, xp.mean, xp.argmax, xp.sort, xp.unique_values, xp.all, xp.nonzero):
        with pytest.raises(TypeError):
            function([1, 2, 3])
