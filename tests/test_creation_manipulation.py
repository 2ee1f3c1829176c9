"""Creation and manipulation functions, checked against numpy (and torch for the extra dtypes)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from assertions import same
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import dlarray as xp

NUMPY_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                np.uint64, np.float32, np.float64, np.complex64, np.complex128]
API_DTYPES = [xp.bool, xp.int8, xp.int16, xp.int32, xp.int64, xp.uint8, xp.uint16, xp.uint32,
              xp.uint64, xp.float32, xp.float64, xp.complex64, xp.complex128]
SHAPES = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)


def numpy_arrays(shape=SHAPES, dtypes=NUMPY_DTYPES):
    return st.sampled_from(dtypes).flatmap(lambda dt: hnp.arrays(dt, shape))


def shares_memory(view: xp.Array, base: np.ndarray) -> bool:
    return np.shares_memory(np.asarray(view), base)


# ================================================================================== creation
@pytest.mark.parametrize("function, value", [(xp.zeros, 0), (xp.ones, 1), (xp.empty, None)])
@pytest.mark.parametrize("dtype", API_DTYPES + [None])
def test_filled_constructors(function, value, dtype) -> None:
    out = function((2, 0, 3) if value is None else (2, 3), dtype=dtype)
    assert out.dtype is (xp.float64 if dtype is None else dtype)
    assert out.device is xp.__array_namespace_info__().default_device()
    if value is not None:
        same(out, np.full((2, 3), value, dtype=out.dtype.numpy_dtype))
    assert function(4).shape == (4,) and function(()).shape == ()


def test_shape_and_device_arguments() -> None:
    assert xp.zeros([2, np.int64(3)]).shape == (2, 3)
    assert xp.ones(2, device="cpu").device is xp.zeros(1).device
    assert xp.ones(2, device=xp.zeros(1).device).shape == (2,)
    with pytest.raises(ValueError):
        xp.zeros((2, -1))
    with pytest.raises(TypeError):
        xp.zeros(2.0)
    with pytest.raises(TypeError, match="cupy"):
        xp.zeros(2, device="cuda:0")  # no backend for CUDA here: a clear error, not a CPU array


@pytest.mark.parametrize(
    "fill, dtype", [(True, xp.bool), (-7, xp.int64), (2.5, xp.float64), (1 - 2j, xp.complex128)]
)
def test_full_infers_the_default_dtype(fill, dtype) -> None:
    out = xp.full((2, 2), fill)
    assert out.dtype is dtype
    same(out, np.full((2, 2), fill))


def test_full_with_dtype_and_errors() -> None:
    same(xp.full(3, 5, dtype=xp.uint8), np.full(3, 5, dtype=np.uint8))
    same(xp.full(3, float("nan"), dtype=xp.float32), np.full(3, np.nan, dtype=np.float32))
    with pytest.raises(OverflowError):
        xp.full(3, 300, dtype=xp.int8)
    with pytest.raises(OverflowError):
        xp.full(3, 2**64)
    with pytest.raises(TypeError):
        xp.full(3, 1j, dtype=xp.float64)
    with pytest.raises(TypeError):
        xp.full(3, "a")


@settings(max_examples=40, deadline=None)
@given(numpy_arrays(), st.sampled_from(API_DTYPES + [None]))
def test_like_functions_follow_the_input(a, dtype) -> None:
    x = xp.asarray(a)
    expected_dtype = x.dtype if dtype is None else dtype
    for function, value in [(xp.zeros_like, 0), (xp.ones_like, 1), (xp.empty_like, None)]:
        out = function(x, dtype=dtype)
        assert out.shape == a.shape and out.dtype is expected_dtype and out.device is x.device
        if value is not None:
            same(out, np.full(a.shape, value, dtype=expected_dtype.numpy_dtype))
    fill = True if expected_dtype is xp.bool else 1
    same(xp.full_like(x, fill, dtype=dtype), np.full(a.shape, fill, dtype=expected_dtype.numpy_dtype))


def test_like_functions_need_an_array() -> None:
    with pytest.raises(TypeError):
        xp.zeros_like(np.zeros(3))


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(0, 6),
    cols=st.none() | st.integers(0, 6),
    k=st.integers(-8, 8) | st.integers(-(10**30), 10**30),
    dtype=st.sampled_from(API_DTYPES),
)
def test_eye_matches_numpy(rows, cols, k, dtype) -> None:
    out = xp.eye(rows, cols, k=k, dtype=dtype)
    width = rows if cols is None else cols
    expected = np.array([[1 if j - i == k else 0 for j in range(width)] for i in range(rows)],
                        dtype=dtype.numpy_dtype).reshape(rows, width)
    same(out, expected)
    assert xp.eye(2).dtype is xp.float64


# ---------------------------------------------------------------- arange
@settings(max_examples=100, deadline=None)
@given(
    start=st.integers(-(2**40), 2**40),
    stop=st.none() | st.integers(-(2**40), 2**40),
    step=st.integers(-(2**38), 2**38).filter(bool),
)
def test_integer_arange_is_range(start, stop, step) -> None:
    expected = range(start) if stop is None else range(start, stop, step)
    if len(expected) > 1000:
        return
    out = xp.arange(start) if stop is None else xp.arange(start, stop, step)
    assert out.dtype is xp.int64
    same(out, np.array(expected, dtype=np.int64))


@pytest.mark.parametrize(
    "args, dtype",
    [
        ((0, 108086391056891901, 1080863910568919), xp.int64),  # numpy's float length is 100
        ((2**64 - 7, 2**64, 3), xp.uint64),
        ((-(2**63), 2**63 - 1, 2**62), xp.int64),
        ((127, -129, -50), xp.int8),
        ((10, 0, -1), xp.uint8),
        ((5, 5), xp.int16),
        ((5, 0), xp.int32),
        ((0, 5, -1), None),
    ],
)
def test_integer_arange_is_exact(args, dtype) -> None:
    out = xp.arange(*args, dtype=dtype)
    assert out.dtype is (dtype or xp.int64)
    assert [int(v) for v in out] == list(range(*args))


@settings(max_examples=100, deadline=None)
@given(
    start=st.floats(-1e6, 1e6) | st.integers(-1000, 1000),
    stop=st.floats(-1e6, 1e6),
    step=st.floats(-1e4, 1e4).filter(lambda s: abs(s) > 1e-2) | st.integers(1, 100),
    dtype=st.sampled_from([None, xp.float32, xp.float64]),
)
def test_float_arange_matches_numpy(start, stop, step, dtype) -> None:
    length = math.ceil((stop - start) / step)
    if length > 10_000:
        return
    out = xp.arange(start, stop, step, dtype=dtype)
    assert out.dtype is (dtype or xp.float64)
    assert out.shape == (max(length, 0),)
    same(out, np.arange(start, stop, step, dtype=(dtype or xp.float64).numpy_dtype))


def test_arange_errors() -> None:
    with pytest.raises(ValueError):
        xp.arange(0, 5, 0)
    with pytest.raises(TypeError):
        xp.arange(3, dtype=xp.bool)
    with pytest.raises(TypeError):
        xp.arange(1j)
    with pytest.raises(OverflowError):
        xp.arange(300, dtype=xp.int8)


# ---------------------------------------------------------------- linspace
@settings(max_examples=100, deadline=None)
@given(
    start=st.floats(-1e10, 1e10) | st.integers(-100, 100),
    stop=st.floats(-1e10, 1e10),
    num=st.integers(0, 50),
    endpoint=st.booleans(),
    dtype=st.sampled_from([None, xp.float32, xp.float64]),
)
def test_linspace_matches_numpy(start, stop, num, endpoint, dtype) -> None:
    out = xp.linspace(start, stop, num, endpoint=endpoint, dtype=dtype)
    target = (dtype or xp.float64).numpy_dtype
    same(out, np.linspace(start, stop, num, endpoint=endpoint, dtype=target))
    if num > 1 and endpoint:
        assert np.asarray(out)[-1] == target.type(stop)
    if not endpoint:  # the first num values of a num + 1 linspace
        same(out, np.asarray(xp.linspace(start, stop, num + 1, dtype=dtype))[:-1])


def test_linspace_complex_and_errors() -> None:
    out = xp.linspace(0, 1 + 2j, 3)
    assert out.dtype is xp.complex128
    same(out, np.array([0, 0.5 + 1j, 1 + 2j]))
    with pytest.raises(ValueError):
        xp.linspace(0, 1, -1)
    with pytest.raises(TypeError):
        xp.linspace(0, 1j, 3, dtype=xp.float64)


# ---------------------------------------------------------------- meshgrid, tril, triu
@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 4), min_size=0, max_size=4),
    indexing=st.sampled_from(["xy", "ij"]),
)
def test_meshgrid_matches_numpy(sizes, indexing) -> None:
    vectors = [np.arange(n, dtype=np.float32) + 10 * i for i, n in enumerate(sizes)]
    out = xp.meshgrid(*(xp.asarray(v) for v in vectors), indexing=indexing)
    assert type(out) is tuple and len(out) == len(sizes)
    for got, expected in zip(out, np.meshgrid(*vectors, indexing=indexing)):
        same(got, expected)
        assert not got.readonly


def test_meshgrid_errors() -> None:
    with pytest.raises(ValueError):
        xp.meshgrid(xp.ones(2), indexing="yx")
    with pytest.raises(ValueError):
        xp.meshgrid(xp.ones((2, 2)))


@settings(max_examples=60, deadline=None)
@given(numpy_arrays(hnp.array_shapes(min_dims=2, max_dims=4, max_side=5)), st.integers(-6, 6))
def test_tril_triu_match_numpy(a, k) -> None:
    x = xp.asarray(a)
    same(xp.tril(x, k=k), np.tril(a, k))
    same(xp.triu(x, k=k), np.triu(a, k))


def test_tril_needs_a_matrix() -> None:
    with pytest.raises(ValueError):
        xp.tril(xp.ones(3))


# ================================================================================== manipulation
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_reshape_matches_numpy_and_views(data) -> None:
    a = data.draw(numpy_arrays(hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=4)))
    shape = data.draw(st.permutations(a.shape).map(tuple))  # same size, another order
    shape = (-1,) + shape[1:] if shape and data.draw(st.booleans()) else shape
    x = xp.asarray(a)
    out = xp.reshape(x, shape)
    same(out, a.reshape(shape))
    if a.size:
        assert shares_memory(out, a)  # a C-contiguous input always reshapes to a view
        copied = xp.reshape(x, shape, copy=True)
        same(copied, a.reshape(shape))
        assert not shares_memory(copied, a)


def test_reshape_copy_false_and_errors() -> None:
    x = xp.asarray(np.arange(6).reshape(2, 3))
    with pytest.raises(ValueError, match="copy"):
        xp.reshape(xp.permute_dims(x, (1, 0)), (6,), copy=False)
    same(xp.reshape(xp.permute_dims(x, (1, 0)), (6,)), np.arange(6).reshape(2, 3).T.reshape(6))
    for bad in [(4,), (-1, -1), (-2, 3), (0, -1)]:
        with pytest.raises(ValueError):
            xp.reshape(x, bad)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_axis_views_match_numpy(data) -> None:
    a = data.draw(numpy_arrays(hnp.array_shapes(min_dims=1, max_dims=4, max_side=4)))
    x = xp.asarray(a)
    n = a.ndim
    axes = tuple(data.draw(st.permutations(range(n))))
    signed = tuple(ax - n if data.draw(st.booleans()) else ax for ax in axes)
    for out, expected in [
        (xp.permute_dims(x, signed), np.transpose(a, axes)),
        (xp.flip(x), np.flip(a)),
        (xp.flip(x, axis=signed[:2]), np.flip(a, axes[:2])),
        (xp.moveaxis(x, signed[0], -1), np.moveaxis(a, axes[0], -1)),
        (xp.moveaxis(x, signed[:2], (0, -1)[: len(signed[:2])]), np.moveaxis(a, axes[:2], (0, -1)[: len(axes[:2])])),
        (xp.expand_dims(x, axis=-1), a[..., None]),
        (xp.expand_dims(x, axis=(0, -1)), a[None, ..., None]),
        (xp.broadcast_to(x, (2,) + a.shape), np.broadcast_to(a, (2,) + a.shape)),
    ]:
        same(out, expected)
        if a.size:
            assert shares_memory(out, a)
    squeezable = tuple(i for i, e in enumerate(a.shape) if e == 1)
    same(xp.squeeze(x, squeezable), np.squeeze(a, squeezable))
    for axis in range(-n, n):
        parts = xp.unstack(x, axis=axis)
        assert type(parts) is tuple and len(parts) == a.shape[axis]
        for i, part in enumerate(parts):
            same(part, np.take(a, i, axis=axis))


def test_views_write_through_and_stay_read_only() -> None:
    a = np.arange(6.0).reshape(2, 3)
    x = xp.asarray(a)
    flipped = xp.flip(x, axis=1)
    flipped[0, 0] = 100.0
    assert a[0, 2] == 100.0
    xp.permute_dims(x, (1, 0))[2, 1] = -1.0
    assert a[1, 2] == -1.0
    readonly = xp.broadcast_to(x, (4, 2, 3))
    assert readonly.readonly
    with pytest.raises(ValueError):
        readonly[0, 0, 0] = 1.0
    frozen = xp.asarray(b"\x01\x02\x03\x04")
    assert xp.reshape(frozen, (2, 2)).readonly and xp.flip(frozen).readonly


def test_axis_errors() -> None:
    x = xp.ones((2, 1, 3))
    with pytest.raises(IndexError):
        xp.expand_dims(x, axis=4)
    with pytest.raises(ValueError):  # also a ValueError, as numpy's AxisError is
        xp.expand_dims(x, axis=-5)
    with pytest.raises(ValueError):
        xp.expand_dims(x, axis=(0, -5))  # both are axis 0 of the 5-d result
    with pytest.raises(ValueError):
        xp.squeeze(x, 0)  # size 2
    with pytest.raises(IndexError):
        xp.squeeze(x, 3)
    with pytest.raises(ValueError):
        xp.permute_dims(x, (0, 1))
    with pytest.raises(ValueError):
        xp.permute_dims(x, (0, 1, 1))
    with pytest.raises(ValueError):
        xp.moveaxis(x, (0, 1), 2)
    with pytest.raises(ValueError):
        xp.flip(x, axis=(0, -3))
    with pytest.raises(ValueError):
        xp.unstack(xp.asarray(1.0))


@settings(max_examples=60, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=4, max_side=3))
def test_broadcasting_matches_numpy(shapes) -> None:
    input_shapes, result = shapes
    assert xp.broadcast_shapes(*input_shapes) == result
    arrays = [np.arange(math.prod(s), dtype=np.int16).reshape(s) for s in input_shapes]
    out = xp.broadcast_arrays(*(xp.asarray(a) for a in arrays))
    assert type(out) is tuple
    for got, expected in zip(out, np.broadcast_arrays(*arrays)):
        same(got, expected)


def test_broadcast_errors_and_edge_cases() -> None:
    assert xp.broadcast_shapes() == ()
    assert xp.broadcast_shapes((2, 1), (0,)) == (2, 0)
    with pytest.raises(ValueError):
        xp.broadcast_shapes((2, 3), (3, 2))
    with pytest.raises(ValueError):
        xp.broadcast_to(xp.ones((2, 3)), (3,))  # fewer dimensions
    with pytest.raises(ValueError):
        xp.broadcast_to(xp.ones((2, 3)), (2, 4))
    same_shape = xp.ones((2, 2))
    assert xp.broadcast_arrays(same_shape, xp.ones(2))[0] is same_shape


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_concat_and_stack_match_numpy(data) -> None:
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=3))
    dtypes = data.draw(st.lists(st.sampled_from([np.int8, np.uint8, np.int32, np.float32, np.float64]),
                                min_size=1, max_size=3))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    arrays = []
    for dtype in dtypes:
        extent = data.draw(st.integers(0, 3))
        this_shape = list(shape)
        this_shape[axis] = extent
        arrays.append(data.draw(hnp.arrays(dtype, tuple(this_shape), elements={"allow_nan": False}
                                           if np.dtype(dtype).kind == "f" else None)))
    xs = [xp.asarray(a) for a in arrays]
    expected_dtype = np.result_type(*arrays)
    out = xp.concat(xs, axis=axis)
    assert out.dtype is xp.result_type(*xs)
    same(out, np.concatenate(arrays, axis=axis).astype(expected_dtype))
    same(xp.concat(tuple(xs), axis=None), np.concatenate([a.ravel() for a in arrays]).astype(expected_dtype))
    equal = [(np.arange(math.prod(shape)).reshape(shape) % 100).astype(a.dtype) for a in arrays]
    for position in range(-len(shape) - 1, len(shape) + 1):
        same(xp.stack([xp.asarray(a) for a in equal], axis=position), np.stack(equal, axis=position))


def test_concat_and_stack_errors() -> None:
    with pytest.raises(ValueError):
        xp.concat([])
    with pytest.raises(ValueError):
        xp.concat([xp.ones((2, 3)), xp.ones((2, 4))], axis=0)
    with pytest.raises(ValueError):
        xp.concat([xp.asarray(1.0), xp.asarray(2.0)])
    same(xp.concat([xp.asarray(1.0), xp.asarray(2.0)], axis=None), np.array([1.0, 2.0]))
    with pytest.raises(ValueError):
        xp.stack([xp.ones(2), xp.ones(3)])
    with pytest.raises(IndexError):
        xp.stack([xp.ones(2)], axis=2)
    with pytest.raises(TypeError):
        xp.concat(xp.ones(2))


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_tile_repeat_roll_match_numpy(data) -> None:
    a = data.draw(numpy_arrays(hnp.array_shapes(min_dims=0, max_dims=3, max_side=3)))
    x = xp.asarray(a)
    reps = tuple(data.draw(st.lists(st.integers(0, 3), min_size=0, max_size=4)))
    same(xp.tile(x, reps), np.tile(a, reps))
    count = data.draw(st.integers(0, 3))
    same(xp.repeat(x, count), np.repeat(a.ravel(), count))
    shift = data.draw(st.integers(-10, 10))
    same(xp.roll(x, shift), np.roll(a, shift))
    if a.ndim:
        axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
        counts = data.draw(hnp.arrays(np.int64, (a.shape[axis],), elements=st.integers(0, 3)))
        same(xp.repeat(x, xp.asarray(counts), axis=axis), np.repeat(a, counts, axis=axis))
        same(xp.repeat(x, xp.asarray([2]), axis=axis), np.repeat(a, 2, axis=axis))
        axes = tuple(data.draw(st.lists(st.integers(0, a.ndim - 1), min_size=1, max_size=3)))
        shifts = tuple(data.draw(st.integers(-5, 5)) for _ in axes)
        same(xp.roll(x, shifts, axis=axes), np.roll(a, shifts, axis=axes))
        same(xp.roll(x, shift, axis=axes), np.roll(a, shift, axis=axes))


def test_tile_repeat_roll_errors() -> None:
    x = xp.ones((2, 3))
    with pytest.raises(ValueError):
        xp.tile(x, (-1,))
    with pytest.raises(TypeError):
        xp.repeat(x, xp.ones(2), axis=0)  # float repeats
    with pytest.raises(ValueError):
        xp.repeat(x, -1)
    with pytest.raises(ValueError):
        xp.roll(x, (1, 2), axis=0)
    with pytest.raises(ValueError):
        xp.roll(x, (1, 2))


# ================================================================================== extra dtypes
try:
    import torch
except ImportError:  # the reference for bfloat16/float8 data
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="needs torch")


@needs_torch
def test_extra_dtype_creation_round_trips_through_torch() -> None:
    same_torch = torch.testing.assert_close
    same_torch(torch.from_dlpack(xp.ones((2, 3), dtype=xp.bfloat16)), torch.ones((2, 3), dtype=torch.bfloat16))
    same_torch(torch.from_dlpack(xp.zeros(4, dtype=xp.float8_e4m3fn)).float(), torch.zeros(4))
    same_torch(torch.from_dlpack(xp.full(3, 0.1, dtype=xp.bfloat16)), torch.full((3,), 0.1, dtype=torch.bfloat16))
    assert xp.empty((2, 2), dtype=xp.float8_e5m2).shape == (2, 2)
    assert xp.zeros_like(xp.ones(3, dtype=xp.bfloat16)).dtype is xp.bfloat16
    with pytest.raises(TypeError):
        xp.zeros(2, dtype=xp.float8_e8m0fnu)  # no zero in that format
    with pytest.raises(TypeError):
        xp.eye(2, dtype=xp.bfloat16)
    with pytest.raises(TypeError):
        xp.arange(3, dtype=xp.bfloat16)


@needs_torch
def test_extra_dtype_manipulation_matches_torch() -> None:
    t = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4).to(torch.bfloat16)
    x = xp.from_dlpack(t)
    pairs = [
        (xp.reshape(x, (6, 4)), t.reshape(6, 4)),
        (xp.permute_dims(x, (2, 0, 1)), t.permute(2, 0, 1)),
        (xp.expand_dims(x, axis=1), t.unsqueeze(1)),
        (xp.squeeze(xp.expand_dims(x, axis=0), 0), t),
        (xp.moveaxis(x, 0, -1), t.movedim(0, -1)),
        (xp.broadcast_to(x[:, :1], (2, 3, 4)), t[:, :1].expand(2, 3, 4)),
        (xp.concat([x, x], axis=1), torch.cat([t, t], dim=1)),
        (xp.stack([x, x], axis=-1), torch.stack([t, t], dim=-1)),
        (xp.tile(x, (1, 2, 1)), t.tile((1, 2, 1))),
        (xp.repeat(x, 2, axis=0), t.repeat_interleave(2, dim=0)),
        (xp.roll(x, 1, axis=2), t.roll(1, dims=2)),
        (xp.tril(x), t.tril()),
        (xp.triu(x, k=1), t.triu(1)),
        (xp.unstack(x, axis=1)[2], t[:, 2]),
    ]
    for got, expected in pairs:
        assert got.dtype is xp.bfloat16
        # torch reads the result through DLPack: same bits, same shape
        assert torch.equal(torch.from_dlpack(got), expected)
    # flip gives a view with negative strides, which torch cannot import: compare values instead
    flipped = xp.flip(x, axis=2)
    assert torch.equal(torch.from_dlpack(xp.reshape(flipped, (2, 3, 4), copy=True)), t.flip(2))


# ================================================================================== hypothesis
def test_hypothesis_array_api_strategies_work() -> None:
    from hypothesis.extra.array_api import make_strategies_namespace

    xps = make_strategies_namespace(xp)

    @settings(max_examples=30, deadline=None)
    @given(x=xps.arrays(xps.scalar_dtypes(), xps.array_shapes(max_dims=3, max_side=3)), data=st.data())
    def check(x, data) -> None:
        assert type(x) is xp.Array and x.dtype in xp.__array_namespace_info__().dtypes().values()
        index = data.draw(xps.indices(x.shape))
        assert x[index].dtype is x.dtype

    check()


def test_integer_arange_of_float_arguments_is_numpys() -> None:
    """Length from the float interval, values from the truncated start and its successor."""
    for args, dtype in [((1.5, 10, 2), xp.int8), ((0.5, 3, 0.7), xp.int64), ((0.5, 3, 0.3), xp.int32),
                        ((2.9, -3, -1.5), xp.int16), ((-1.5, 3), xp.int64), ((1, 3.5), xp.uint8)]:
        expected = np.arange(*args, dtype=np.dtype(dtype.name))
        got = np.asarray(xp.arange(*args, dtype=dtype))
        assert got.dtype == expected.dtype and got.tolist() == expected.tolist(), args
    with pytest.raises(OverflowError, match="out of the range of int8"):
        xp.arange(1.5, 300.5, 100, dtype=xp.int8)  # numpy wraps around silently
    with pytest.raises(ValueError, match="finite"):
        xp.arange(0.5, float("inf"), dtype=xp.int64)


# ---------------------------------------------------------------- asarray: ranges, integers that do not fit


def test_asarray_takes_a_range() -> None:
    x = xp.asarray(range(5))
    assert x.dtype == xp.int64 and np.asarray(x).tolist() == [0, 1, 2, 3, 4]
    assert xp.asarray(range(3), dtype=xp.float32).dtype == xp.float32


@pytest.mark.parametrize("dtype", [xp.uint8, xp.int8, xp.uint64], ids=str)
def test_an_integer_outside_the_dtype_names_it(dtype: xp.DType) -> None:
    with pytest.raises(OverflowError, match=f"-1000 does not fit {dtype}"):
        xp.asarray(-1000, dtype=dtype)
    with pytest.raises(OverflowError, match=f"-1000 does not fit {dtype}"):
        xp.asarray([1, [-1000][0]], dtype=dtype)


def test_an_integer_beyond_64_bits_says_so() -> None:
    with pytest.raises(OverflowError, match=f"{2**64} does not fit int64 or uint64"):
        xp.asarray([2**64])
    with pytest.raises(OverflowError, match=f"{2**70} does not fit int64 or uint64"):
        xp.asarray([[1], [2**70]])
    assert xp.asarray([2**63]).dtype == xp.uint64  # numpy's choice: it fits uint64
