"""Utility functions (all, any, diff), checked against numpy."""

from __future__ import annotations

import numpy as np
from assertions import same
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy_strategies import NUMERIC, arrays, axis_for

import dlarray as xp


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
