"""Property tests of the namespace with hypothesis.extra.array_api, dlarray as the namespace.

Broadcasting, type promotion, result dtypes and shapes, and round trips, so that CI catches
regressions without the external conformance suite; and the names the namespace holds: the
standard's, plus the documented extras, nothing else.
"""

from __future__ import annotations

import array_api_strict as strict
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.array_api import make_strategies_namespace

import dlarray as xp
from dlarray._dtypes import ALL_DTYPES, ARRAY_API_DTYPES

xps = make_strategies_namespace(xp, api_version="2024.12")

BINARY = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "equal": np.equal,
    "less": np.less,
}


def _strict_dtype(dtype: xp.DType):
    return getattr(strict, dtype.name)


@st.composite
def broadcastable_pairs(draw, dtypes=xps.real_dtypes()):
    shapes = draw(xps.mutually_broadcastable_shapes(2, max_dims=4, max_side=4))
    dtype = draw(dtypes)
    x1 = draw(xps.arrays(dtype, shapes.input_shapes[0]))
    x2 = draw(xps.arrays(dtype, shapes.input_shapes[1]))
    return x1, x2, shapes.result_shape


@given(broadcastable_pairs(), st.sampled_from(sorted(BINARY)))
def test_binary_functions_broadcast_like_numpy(pair, name: str) -> None:
    x1, x2, shape = pair
    result = getattr(xp, name)(x1, x2)
    assert result.shape == shape == xp.broadcast_shapes(x1.shape, x2.shape)
    with np.errstate(all="ignore"):
        expected = BINARY[name](np.asarray(x1), np.asarray(x2))
    assert result.dtype == xp.result_type(x1, x2) or expected.dtype == np.bool_
    np.testing.assert_array_equal(np.asarray(result), expected)


@given(xps.scalar_dtypes(), xps.scalar_dtypes())
def test_result_type_matches_the_reference_within_kinds(d1, d2) -> None:
    try:
        expected = strict.result_type(_strict_dtype(d1), _strict_dtype(d2))
    except TypeError:
        return  # the standard leaves promotion across kinds to the library
    name = str(expected).rsplit(".", 1)[-1]
    assert xp.result_type(d1, d2).name == name
    if d1 is not xp.bool:
        x1, x2 = xp.ones(2, dtype=d1), xp.ones(2, dtype=d2)
        assert (x1 + x2).dtype.name == name


@given(xps.arrays(xps.scalar_dtypes(), xps.array_shapes(min_dims=0, max_dims=4)))
def test_python_scalars_keep_the_array_dtype(x) -> None:
    kind = x.dtype.category
    scalar = {"bool": True, "signed integer": 1, "unsigned integer": 1,
              "real floating": 1.5, "complex floating": 1j}[kind]
    op = xp.logical_and if kind == "bool" else xp.multiply
    assert op(x, scalar).dtype is x.dtype
    assert op(scalar, x).dtype is x.dtype


@given(xps.arrays(xps.numeric_dtypes(), xps.array_shapes(min_dims=1, max_dims=3)), st.data())
def test_reductions_shape_and_dtype(x, data) -> None:
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    keepdims = data.draw(st.booleans())
    total = xp.sum(x, axis=axis, keepdims=keepdims)
    expected_shape = list(x.shape)
    if keepdims:
        expected_shape[axis] = 1
    else:
        del expected_shape[axis]
    assert total.shape == tuple(expected_shape)
    default = {"signed integer": xp.int64, "unsigned integer": xp.uint64}.get(x.dtype.category, x.dtype)
    assert total.dtype is default


@given(xps.arrays(xps.scalar_dtypes(), xps.array_shapes(min_dims=0, max_dims=4)))
def test_dlpack_round_trip_through_numpy_and_strict(x) -> None:
    through_numpy = xp.from_dlpack(np.from_dlpack(x))
    assert through_numpy.data_ptr == x.data_ptr or x.size == 0
    through_strict = xp.from_dlpack(strict.from_dlpack(x))
    assert xp.all(xp.equal(through_strict, x) | (xp.isnan(x) if x.dtype.category.endswith("floating") else False))
    assert (through_numpy.shape, through_numpy.dtype) == (x.shape, x.dtype)


@given(xps.arrays(xps.scalar_dtypes(), xps.array_shapes(min_dims=1, max_dims=4)), st.data())
def test_reshape_and_permute_round_trips(x, data) -> None:
    flat = xp.reshape(x, (-1,))
    assert flat.size == x.size
    back = xp.reshape(flat, x.shape)
    assert back.shape == x.shape
    axes = tuple(data.draw(st.permutations(range(x.ndim))))
    inverse = tuple(int(i) for i in np.argsort(axes))
    again = xp.permute_dims(xp.permute_dims(x, axes), inverse)
    assert np.array_equal(np.asarray(again), np.asarray(x), equal_nan=x.dtype.category.endswith("floating"))


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
@given(xps.arrays(xps.floating_dtypes(), xps.array_shapes(max_dims=3)), xps.floating_dtypes())
def test_astype_round_trip_within_floats(x, dtype) -> None:
    widened = xp.astype(xp.astype(x, xp.float64), x.dtype)
    assert widened.dtype is x.dtype
    assert np.array_equal(np.asarray(widened), np.asarray(x), equal_nan=True)
    assert xp.astype(x, dtype).dtype is dtype


# ---------------------------------------------------------------- the public namespace
# dlarray's documented additions to the standard's names: the Array and DType classes, DLPack's
# enums, and the dtypes beyond the standard (float16, bfloat16, float8/6/4); the ``testing``
# subpackage (the DLPack conformance kit) is an attribute once something imported it.
DLARRAY_EXTRAS = {"Array", "DType", "DLDeviceType", "DLDataTypeCode", "float16"} | {
    d.name for d in ALL_DTYPES if d not in ARRAY_API_DTYPES
}
SUBPACKAGES = {"testing"}
STRICT_ONLY = {"ArrayAPIStrictFlags", "get_array_api_strict_flags", "reset_array_api_strict_flags",
               "set_array_api_strict_flags"}


def test_the_public_namespace_is_the_standard_plus_documented_extras() -> None:
    public = {name for name in dir(xp) if not name.startswith("_")}
    standard = {name for name in strict.__all__ if not name.startswith("_")} - STRICT_ONLY
    assert public - standard - SUBPACKAGES == DLARRAY_EXTRAS  # nothing leaked (e.g. ``annotations``)
    assert standard <= public
    assert not hasattr(xp, "annotations")
