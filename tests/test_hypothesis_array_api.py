"""hypothesis' array API strategies with dlarray as the namespace: arrays drawn as dlarray arrays feed
a user's library-agnostic code (array-api-compat, array-api-extra), checked against numpy."""

from __future__ import annotations

from typing import Any

import array_api_compat as compat
import array_api_extra as xpx
import numpy as np
import scipy.fft
import scipy.signal
import scipy.special
import scipy.stats
from array_api_consumers import (
    Array,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.array_api import make_strategies_namespace

import dlarray

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
