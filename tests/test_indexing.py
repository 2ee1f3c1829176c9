"""Array.__getitem__ / __setitem__: basic indexing gives views, integer arrays gather, masks select."""

from __future__ import annotations

import numpy as np
import needs
import pytest
from assertions import same
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy_strategies import NUMERIC, arrays

import dlarray as xp
from dlarray._dtypes import ALL_DTYPES

# the extra floating-point formats numpy has no dtype for (dlarray stores and decodes them)
EXTRA_FLOAT_DTYPES = [d for d in ALL_DTYPES if d.numpy_dtype is None]

DTYPES = st.sampled_from([np.bool_, np.int8, np.uint16, np.int64, np.float32, np.complex128])


def _values(dtype, shape):
    return hnp.arrays(dtype, shape, elements={"allow_nan": False} if np.dtype(dtype).kind in "fc" else None)


@st.composite
def array_and_basic_index(draw):
    dtype = draw(DTYPES)
    a = draw(_values(dtype, hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5)))
    index = draw(hnp.basic_indices(a.shape, allow_newaxis=True, allow_ellipsis=True))
    return a, index


@settings(max_examples=80, deadline=None)
@given(array_and_basic_index())
def test_basic_indexing_matches_numpy_and_shares_memory(case) -> None:
    a, index = case
    x = xp.from_dlpack(a)
    result = x[index]
    expected = a[index]
    assert result.shape == np.shape(expected)  # 0-d arrays where numpy gives scalars
    assert result.dtype == x.dtype
    np.testing.assert_array_equal(np.asarray(result), expected)
    if result.size:
        # a view: its first element lies inside the source buffer
        start = a.__array_interface__["data"][0]
        assert start <= result.data_ptr < start + max(a.nbytes, 1)


def test_slice_of_imported_buffer_points_into_it() -> None:
    a = np.arange(10, dtype=np.int32)
    x = xp.from_dlpack(a)
    view = x[1:3]
    assert view.data_ptr == a.__array_interface__["data"][0] + 4
    a[1] = 99  # writes to the source are seen through the view
    assert int(view[0]) == 99
    scalar = x[4]
    assert scalar.shape == () and scalar.data_ptr == a.__array_interface__["data"][0] + 16


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_integer_array_indexing_matches_numpy(data) -> None:
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    a = data.draw(_values(np.int32, shape))
    arrays = [data.draw(st.booleans()) for _ in shape]
    index_shapes = iter(data.draw(hnp.mutually_broadcastable_shapes(num_shapes=len(shape), max_dims=2)).input_shapes)
    key = []
    for axis, is_array in enumerate(arrays):
        extent = shape[axis]
        bounds = st.integers(-extent, extent - 1)
        if is_array:
            key.append(data.draw(hnp.arrays(np.int64, next(index_shapes), elements=bounds)))
        else:
            key.append(data.draw(bounds))
    ours = xp.from_dlpack(a)[tuple(xp.asarray(k) if isinstance(k, np.ndarray) else k for k in key)]
    expected = a[tuple(key)]
    np.testing.assert_array_equal(np.asarray(ours), expected)
    assert ours.shape == np.shape(expected)


def test_zero_d_integer_arrays_are_integers() -> None:
    a = np.arange(12).reshape(3, 4)
    x = xp.from_dlpack(a)
    i, j = xp.asarray(np.array(1)), xp.asarray(np.array(-1))
    result = x[i, j]
    assert result.shape == () and int(result) == 7
    assert result.data_ptr == a.__array_interface__["data"][0] + 7 * a.itemsize  # still a view
    assert int(x[np.int64(2), 0]) == 8


def test_out_of_bounds_indices_raise_index_error() -> None:
    x = xp.asarray(np.arange(6).reshape(2, 3))
    with pytest.raises(IndexError):
        x[2]
    with pytest.raises(IndexError):
        x[0, -4]
    with pytest.raises(IndexError):
        x[xp.asarray(np.array([0, 3])), 0]
    with pytest.raises(IndexError):
        x[0, 0, 0]
    with pytest.raises(IndexError):
        x[..., 0, ...]
    with pytest.raises(IndexError):
        x[xp.asarray(np.array([0.0]))]


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_boolean_mask_indexing_matches_numpy(data) -> None:
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    a = data.draw(_values(data.draw(DTYPES), shape))
    m = data.draw(st.integers(0, len(shape)))
    mask = data.draw(hnp.arrays(np.bool_, shape[:m]))
    result = xp.asarray(a)[xp.asarray(mask)]
    expected = a[mask]
    assert result.shape == expected.shape
    np.testing.assert_array_equal(np.asarray(result), expected)


def test_mask_with_empty_dimensions_selects_nothing() -> None:
    x = xp.asarray(np.arange(6).reshape(2, 3))
    assert x[xp.asarray(np.zeros((0,), bool))].shape == (0, 3)
    assert x[xp.asarray(np.zeros((2, 0), bool))].shape == (0,)
    with pytest.raises(IndexError):
        x[xp.asarray(np.zeros((3,), bool))]  # neither the extent nor 0
    with pytest.raises(IndexError):
        x[xp.asarray(np.zeros((2, 3, 1), bool))]  # more dimensions than x
    x[xp.asarray(np.zeros((0,), bool))] = 5  # assigns nothing
    assert int(xp.sum(x)) == 15


def test_zero_d_mask_adds_a_dimension() -> None:
    x = xp.asarray(np.arange(3))
    assert x[xp.asarray(np.array(True))].shape == (1, 3)
    assert x[xp.asarray(np.array(False))].shape == (0, 3)


@settings(max_examples=80, deadline=None)
@given(case=array_and_basic_index(), data=st.data())
def test_setitem_matches_numpy(case, data) -> None:
    a, index = case
    target_shape = np.shape(a[index])
    value = data.draw(_values(a.dtype, target_shape) | _values(a.dtype, ()))
    ours = xp.asarray(a.copy())
    ours[index] = xp.asarray(value)
    expected = a.copy()
    expected[index] = value
    np.testing.assert_array_equal(np.asarray(ours), expected)


def test_setitem_with_scalars_masks_and_integer_arrays() -> None:
    x = xp.asarray(np.zeros((3, 4), np.float32))
    x[1, 2] = 5.0
    x[x > 1] = 7
    x[xp.asarray(np.array([0, 2])), xp.asarray(np.array([3, 3]))] = xp.asarray(np.array([1.0, 2.0], np.float32))
    expected = np.zeros((3, 4), np.float32)
    expected[1, 2] = 7
    expected[0, 3], expected[2, 3] = 1, 2
    np.testing.assert_array_equal(np.asarray(x), expected)
    assert x.dtype == xp.float32
    x[0] = [1, 2, 3, 4]  # anything asarray accepts, as in numpy
    assert np.asarray(x)[0].tolist() == [1, 2, 3, 4]
    with pytest.raises(TypeError, match="must be numbers"):
        x[0] = "abcd"


def test_setitem_on_read_only_array_raises() -> None:
    a = np.arange(4)
    a.flags.writeable = False
    x = xp.from_dlpack(a)
    assert x.readonly
    with pytest.raises(ValueError):
        x[0] = 1
    with pytest.raises(ValueError):
        x[1:3][0] = 1  # views of a read-only array stay read-only
    assert a.tolist() == [0, 1, 2, 3]
    gathered = x[xp.asarray(np.array([0, 1]))]  # a gather is a fresh copy: writable
    gathered[0] = 9
    assert a[0] == 0


def test_setitem_refuses_values_that_are_not_arrays_or_scalars() -> None:
    x = xp.asarray(np.arange(3))
    with pytest.raises(TypeError):
        x[0] = object()


# ------------------------------------------------------------------------- dtypes numpy lacks


def test_bfloat16_arrays_are_indexed_and_assigned_through_their_bits() -> None:
    torch = needs.library("torch")
    source = torch.arange(12, dtype=torch.float32).reshape(3, 4).to(torch.bfloat16)
    x = xp.from_dlpack(source.clone())
    view = x[1, 1:3]  # basic: a view by metadata
    assert view.dtype == xp.bfloat16 and view.shape == (2,)
    assert torch.equal(torch.from_dlpack(view), source[1, 1:3])
    rows = xp.asarray(np.array([2, 0]))
    gathered = x[rows, -1]
    assert gathered.dtype == xp.bfloat16
    assert torch.equal(torch.from_dlpack(gathered), source[[2, 0], -1])
    mask = xp.asarray(np.array([True, False, True]))
    assert torch.equal(torch.from_dlpack(x[mask]), source[torch.tensor([True, False, True])])
    x[0] = x[2]
    x[rows, xp.asarray(np.array([0, 0]))] = xp.from_dlpack(torch.tensor([-1.0, -2.0], dtype=torch.bfloat16))
    expected = source.clone()
    expected[0] = source[2]
    expected[2, 0], expected[0, 0] = -1.0, -2.0
    assert torch.equal(torch.from_dlpack(x), expected)
    x[0, 0] = 1.5  # converted into bfloat16, rounded as astype rounds
    x[1] = xp.asarray(np.full(4, 3.0, np.float32))
    expected[0, 0] = 1.5
    expected[1] = 3.0
    assert torch.equal(torch.from_dlpack(x), expected)
    with pytest.raises(TypeError, match="complex"):
        x[0] = 1j


def test_take_and_where_select_bfloat16_elements() -> None:
    torch = needs.library("torch")
    source = torch.arange(6, dtype=torch.float32).reshape(2, 3).to(torch.bfloat16)
    x = xp.from_dlpack(source)
    taken = xp.take(x, xp.asarray(np.array([2, 0])), axis=1)
    assert taken.dtype == xp.bfloat16 and torch.equal(torch.from_dlpack(taken), source[:, [2, 0]])
    along = xp.take_along_axis(x, xp.asarray(np.array([[1], [0]])), axis=1)
    assert torch.equal(torch.from_dlpack(along), torch.take_along_dim(source, torch.tensor([[1], [0]]), dim=1))
    cond = xp.asarray(np.array([[True, False, True], [False, True, False]]))
    other = xp.from_dlpack(-source)
    chosen = xp.where(cond, x, other)
    expected = torch.where(torch.from_dlpack(cond), source, -source)
    assert chosen.dtype == xp.bfloat16 and torch.equal(torch.from_dlpack(chosen), expected)
    with pytest.raises(TypeError):
        xp.where(cond, x, 0.0)


# ------------------------------------------------------------------------- take and take_along_axis


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


@pytest.mark.parametrize("index", [0, 2, -1, -3])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_take_with_one_int_drops_the_axis_as_numpy(index: int, axis: int) -> None:
    # outside the standard (its indices are an Array), as numpy's take: cubed's var and std use it
    values = np.arange(24).reshape(3, 4, 2)
    if not -values.shape[axis] <= index < values.shape[axis]:
        with pytest.raises(IndexError):
            xp.take(xp.asarray(values), index, axis=axis)
        return
    same(xp.take(xp.asarray(values), index, axis=axis), np.take(values, index, axis=axis))


def test_take_refuses_a_bool_or_a_float_as_its_index() -> None:
    x = xp.asarray(np.arange(6).reshape(2, 3))
    for index in (True, 1.0, "1"):
        with pytest.raises(TypeError, match="indices must be an Array"):
            xp.take(x, index, axis=1)


# ------------------------------------------------------------------------- assignment of what asarray takes
def test_assigning_a_numpy_array_a_list_or_a_range() -> None:
    x = xp.zeros((2, 3))
    x[0] = np.ones(3)
    x[1, :] = [4, 5, 6]
    assert np.asarray(x).tolist() == [[1, 1, 1], [4, 5, 6]]
    y = xp.zeros(4, dtype=xp.int32)
    y[:] = range(4)
    y[:2] = (9, 8)
    assert np.asarray(y).tolist() == [9, 8, 2, 3] and y.dtype == xp.int32


def test_assigning_a_dlpack_producer() -> None:
    torch = needs.library("torch")
    x = xp.zeros(3, dtype=xp.float32)
    x[:] = torch.arange(3, dtype=torch.float32)
    assert np.asarray(x).tolist() == [0, 1, 2]


@pytest.mark.parametrize("dtype", EXTRA_FLOAT_DTYPES, ids=str)
def test_assigning_into_formats_numpy_lacks_converts(dtype: xp.DType) -> None:
    x = xp.asarray([2.0, 2.0], dtype=dtype)
    x[1] = 1.0
    x[:1] = [0.5]
    assert str(x) == "[0.5 1. ]"


@pytest.mark.parametrize("value", [1j, np.asarray([1 + 1j, 2]), xp.asarray([1j, 2])], ids=["scalar", "numpy", "Array"])
@pytest.mark.parametrize("dtype", [xp.float64, xp.int32, xp.bfloat16], ids=str)
def test_a_complex_value_into_a_real_array_says_so(value, dtype: xp.DType) -> None:
    x = xp.asarray([0, 0], dtype=dtype)
    with pytest.raises(TypeError, match=f"complex value into a {dtype} array"):
        x[:] = value


def test_a_complex_value_into_a_complex_array_is_fine() -> None:
    x = xp.zeros(2, dtype=xp.complex64)
    x[0] = 1j
    assert complex(x[0]) == 1j


@pytest.mark.parametrize("index", [2**64, 2**63, -(2**64)])
def test_an_index_beyond_64_bits_is_out_of_range(index: int) -> None:
    x = xp.zeros((3, 2))
    with pytest.raises(IndexError, match=f"index {index} is out of bounds for axis 0 with size 3"):
        x[index]
    with pytest.raises(IndexError, match=f"index {index} is out of bounds for axis 1 with size 2"):
        x[0, index]
    with pytest.raises(IndexError, match=f"index {index} is out of bounds for axis 1 with size 2"):
        x[..., index] = 1.0
    raw = xp.zeros(3, dtype=xp.bfloat16)  # indexed by metadata, no backend
    with pytest.raises(IndexError, match=f"index {index} is out of bounds for axis 0 with size 3"):
        raw[index]
