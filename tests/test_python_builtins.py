"""Python's built-ins on an Array, as numpy users expect: format() and round() of 0-d arrays, int(),
float() and complex() of 0-d arrays of every format, bool() of one-element arrays, iter()."""

from __future__ import annotations

import math
import operator

import numpy as np
import pytest

import dlarray as xp
from dlarray._dtypes import ALL_DTYPES

# the extra floating-point formats numpy has no dtype for (dlarray stores and decodes them)
EXTRA_FLOAT_DTYPES = [d for d in ALL_DTYPES if d.numpy_dtype is None]


def test_format_of_a_0d_array_is_its_values() -> None:
    assert format(xp.asarray(3.14159), ".2f") == "3.14"
    assert f"{xp.asarray(7, dtype=xp.int32):04d}" == "0007"
    assert f"{xp.asarray(1.5, dtype=xp.bfloat16):.1f}" == "1.5"
    assert format(xp.asarray(2.5), "") == "2.5"


def test_format_spec_on_an_nd_array_is_a_type_error_naming_the_shape() -> None:
    with pytest.raises(TypeError, match=r"only a 0-d array.*shape \(2,\)"):
        format(xp.asarray([1.0, 2.0]), ".2f")
    assert format(xp.asarray([1.0, 2.0])) == str(xp.asarray([1.0, 2.0]))  # no spec: as str()


def test_round_of_a_0d_array_is_pythons_round_of_its_value() -> None:
    assert round(xp.asarray(2.6)) == 3 and type(round(xp.asarray(2.6))) is int
    assert round(xp.asarray(1.256), 2) == 1.26
    assert round(xp.asarray(5, dtype=xp.int8)) == 5


@pytest.mark.parametrize("dtype", EXTRA_FLOAT_DTYPES, ids=str)
def test_python_scalars_of_a_0d_array_of_a_format_numpy_lacks(dtype: xp.DType) -> None:
    """float(), int(), bool() and complex() read the value as round() and format() do (as torch
    does for bfloat16 and float8)."""
    value = 2.0 if dtype == xp.float8_e8m0fnu else 1.5  # e8m0 holds powers of two only
    x = xp.asarray([0.0, value, -value], dtype=dtype)[1]
    assert float(x) == value and type(float(x)) is float
    assert int(x) == int(value) and type(int(x)) is int
    assert bool(x) is True
    assert complex(x) == complex(value)
    assert round(x) == round(value) and format(x, ".1f") == f"{value:.1f}"
    if dtype != xp.float8_e8m0fnu:  # it has no zero
        assert bool(xp.asarray(0.0, dtype=dtype)) is False
    with pytest.raises(TypeError, match="only integer arrays"):
        operator.index(x)
    with pytest.raises(TypeError, match=r"convert to Python float, this one has shape \(3,\)"):
        float(xp.asarray([0.0, 1.0, 2.0], dtype=dtype))


def test_python_scalars_of_bfloat16_nan_and_infinity_are_pythons() -> None:
    nan, inf = xp.asarray([float("nan"), float("inf")], dtype=xp.bfloat16)
    assert math.isnan(float(nan)) and bool(nan) is True
    with pytest.raises(ValueError, match="NaN"):
        int(nan)
    with pytest.raises(OverflowError, match="infinity"):
        int(inf)
    assert int(xp.asarray(-2.75, dtype=xp.bfloat16)) == -2  # truncated toward zero


def test_round_of_an_nd_or_complex_array_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"0-d array.*shape \(2,\).*dlarray.round"):
        round(xp.asarray([1.5, 2.5]))
    with pytest.raises(TypeError, match="complex"):
        round(xp.asarray(1 + 2j))


def test_iterating_a_0d_array_fails_at_iter_as_in_numpy() -> None:
    scalar = xp.asarray(1.0)
    with pytest.raises(TypeError, match="0-d"):
        iter(scalar)
    assert not np.iterable(scalar)  # what consumers ask before iterating
    assert np.iterable(xp.asarray([1.0]))
    assert [int(v) for v in xp.asarray([3, 1, 2])] == [3, 1, 2]
    assert list(xp.empty((0, 2))) == []


def test_bool_of_a_one_element_array_is_its_value_as_in_numpy() -> None:
    assert bool(xp.asarray([True])) is True and bool(xp.asarray([[0.0]])) is False
    for ambiguous in (xp.asarray([1, 2]), xp.empty((0,))):
        with pytest.raises(ValueError, match="ambiguous.*any\\(\\) or all\\(\\)"):
            bool(ambiguous)
    with pytest.raises(TypeError, match="only 0-d arrays"):  # int() and float() stay 0-d only, as numpy 2
        float(xp.asarray([1.0]))
