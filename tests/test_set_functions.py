"""Set functions (unique_all, unique_counts, unique_inverse, unique_values, isin), checked against
numpy and the standard's NaN and signed-zero rules."""

from __future__ import annotations

import numpy as np
from assertions import same
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy_strategies import INTS, NUMERIC, arrays

import dlarray as xp


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
