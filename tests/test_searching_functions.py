"""Searching functions (argmax, argmin, count_nonzero, nonzero, where, searchsorted), checked
against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from assertions import same
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy_strategies import NUMERIC, REALS, arrays, axis_for

import dlarray as xp


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
