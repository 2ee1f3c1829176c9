"""The Array behaves as numpy/cupy users expect where the standard leaves room: printing, format()
and round() of 0-d arrays, operators with lists, assignment of anything asarray accepts, and error
messages that name what is wrong."""

from __future__ import annotations

import math
import operator
import tracemalloc
from typing import Any

import array_api_strict
import numpy as np
import pytest

import dlarray as xp
from dlarray._dtypes import ALL_DTYPES, ARRAY_API_DTYPES

EXTRA_FLOAT_DTYPES = [d for d in ALL_DTYPES if d.numpy_dtype is None]


# ---------------------------------------------------------------- repr and str
@pytest.mark.parametrize("shape", [(0, 3), (2, 0), (0, 0, 1)])
def test_repr_of_an_empty_array_shows_its_shape(shape: tuple[int, ...]) -> None:
    assert repr(xp.zeros(shape)) == f"Array([], shape={shape}, dtype=float64, device=cpu)"


def test_repr_of_an_empty_vector_is_numpys() -> None:
    assert repr(xp.zeros(0)) == "Array([], dtype=float64, device=cpu)"  # np: array([], dtype=float64)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_repr_shows_the_values_of_every_dtype(dtype: xp.DType) -> None:
    values = [0, 1] if dtype == xp.bool else [1, 2]
    x = xp.asarray(values, dtype=dtype)
    text = repr(x)
    assert text.startswith("Array([") and text.endswith(f"], dtype={dtype}, device=cpu)"), text
    assert "elements" not in text
    numbers = text[len("Array([") : text.index("]")].replace(" ", "").split(",")
    if dtype == xp.bool:
        assert numbers == ["False", "True"]
    else:
        assert [complex(n.replace("j", "j")) if "j" in n else float(n) for n in numbers] == [1, 2]


@pytest.mark.parametrize("dtype", EXTRA_FLOAT_DTYPES, ids=str)
def test_str_of_formats_numpy_lacks_shows_decoded_values(dtype: xp.DType) -> None:
    x = xp.asarray([0.5, 1.0], dtype=dtype)
    assert str(x) == str(np.asarray([0.5, 1.0], dtype=np.float32))
    assert str(x[1]) == "1.0"


def test_str_is_numpys_str_and_differs_from_repr() -> None:
    x = xp.asarray([1.0, 2.5, 3.0])
    assert str(x) == str(np.asarray([1.0, 2.5, 3.0])) == "[1.  2.5 3. ]"
    assert repr(x) == "Array([1. , 2.5, 3. ], dtype=float64, device=cpu)"
    assert str(xp.asarray(2.5)) == "2.5"
    assert str(xp.asarray([[1, 2], [3, 4]])) == str(np.asarray([[1, 2], [3, 4]]))


def test_repr_says_read_only() -> None:
    assert repr(xp.asarray(b"\x01\x02")) == "Array([1, 2], dtype=uint8, device=cpu, readonly=True)"


def _decoded(x: xp.Array) -> np.ndarray:
    """Every value of ``x`` (a dtype numpy lacks) as float32: what printing it all would show."""
    return np.asarray(xp.astype(x, xp.float32))


@pytest.mark.parametrize("dtype", EXTRA_FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(1001,), (40, 30), (3, 200, 4), (2, 2, 2, 2, 2, 2, 2, 2, 2, 2)])
def test_a_long_array_of_a_format_numpy_lacks_prints_as_numpy_prints_its_values(
    dtype: xp.DType, shape: tuple[int, ...]
) -> None:
    """Summarised (first and last three along each long axis) exactly as numpy summarises the
    decoded values, with the same widths and precision, in repr and str alike."""
    values = np.random.default_rng(7).standard_normal(shape).astype(np.float32) * 4
    x = xp.astype(xp.asarray(values), dtype)
    decoded = _decoded(x)
    assert repr(x) == f"Array({np.array2string(decoded, separator=', ', prefix='Array(')}, dtype={dtype}, device=cpu)"
    assert str(x) == str(decoded)
    assert ("..." in str(x)) is (max(shape) > 6)  # numpy shortens only axes longer than 6


def test_a_long_packed_array_prints_as_numpy_prints_its_values() -> None:
    """Packed float4 (two elements per byte, low nibble first): decoded here by ml_dtypes."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    from tests.producer import make_capsule

    stream = np.random.default_rng(3).integers(0, 256, 1500, dtype=np.uint8)
    codes = np.stack([stream & 0xF, stream >> 4], axis=1).reshape(30, 100)
    expected = codes.view(ml_dtypes.float4_e2m1fn).astype(np.float32)
    float4 = xp.from_dlpack(make_capsule((30, 100), code=17, bits=4, fill=stream.tobytes()).capsule)
    assert str(float4) == str(expected)
    assert repr(float4).startswith(f"Array({np.array2string(expected, separator=', ', prefix='Array(')}")


@pytest.mark.parametrize("dtype", [xp.bfloat16, xp.float8_e4m3fn, xp.float4_e2m1fn], ids=str)
def test_printing_a_huge_array_of_a_format_numpy_lacks_reads_only_what_it_shows(dtype: xp.DType) -> None:
    """Only the elements shown are decoded: repr and str of 4 million elements allocate a few
    KiB, where decoding them all would take 16 MiB of float32 (numpy allocations are traced)."""
    x = xp.zeros(4_000_000, dtype=dtype)
    tracemalloc.start()
    try:
        text, plain = repr(x), str(x)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert text == f"Array([0., 0., 0., ..., 0., 0., 0.], dtype={dtype}, device=cpu)"
    assert plain == "[0. 0. 0. ... 0. 0. 0.]"
    assert peak < 1 << 20, peak


# ---------------------------------------------------------------- format() and round()
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


# ---------------------------------------------------------------- operators with foreign operands
COMPARISONS = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]
ARITHMETIC = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.pow]


@pytest.mark.parametrize("op", COMPARISONS + ARITHMETIC, ids=lambda op: op.__name__)
@pytest.mark.parametrize("other", [[3.0, 2.0, 1.0], (3.0, 2.0, 1.0), range(3, 0, -1)], ids=type)
def test_sequences_combine_elementwise_as_in_numpy(op, other) -> None:
    x = xp.asarray([1.0, 2.0, 3.0])
    result = op(x, other)
    assert type(result) is xp.Array
    np.testing.assert_array_equal(np.asarray(result), op(np.asarray([1.0, 2.0, 3.0]), np.asarray(other)))
    reflected = op(other, x)  # the list on the left: Array's reflected method
    assert type(reflected) is xp.Array
    np.testing.assert_array_equal(np.asarray(reflected), op(np.asarray(other), np.asarray([1.0, 2.0, 3.0])))


def test_equality_with_a_list_is_never_a_python_bool() -> None:
    x = xp.asarray([1, 2, 3])
    assert (x == [1, 2, 3]).dtype == xp.bool
    assert bool(xp.all(x == [1, 2, 3])) and not bool(xp.any(x != [1, 2, 3]))


@pytest.mark.parametrize("op", COMPARISONS + ARITHMETIC, ids=lambda op: op.__name__)
@pytest.mark.parametrize("other", [None, "abc", {"a": 1}, object()], ids=lambda v: type(v).__name__)
def test_operands_that_are_not_arrays_are_type_errors(op, other) -> None:
    x = xp.asarray([1, 2, 3])
    with pytest.raises(TypeError):
        op(x, other)
    with pytest.raises(TypeError):
        op(other, x)


def test_in_place_operators_take_lists() -> None:
    x = xp.asarray([1.0, 2.0])
    x += [10, 20]
    x *= (2, 2)
    assert np.asarray(x).tolist() == [22.0, 44.0]


def test_another_array_librarys_operand_is_left_to_its_reflected_method() -> None:
    x = xp.asarray([1.0, 2.0])
    strict = array_api_strict.asarray([1.0, 2.0])
    assert x.__eq__(strict) is NotImplemented


def test_scalar_subclasses_act_as_their_python_scalar() -> None:
    import enum

    class Level(enum.IntEnum):
        HIGH = 2

    assert np.asarray(xp.asarray([1, 2]) == Level.HIGH).tolist() == [False, True]


# ---------------------------------------------------------------- assignment
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
    torch = pytest.importorskip("torch")
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


# ---------------------------------------------------------------- messages that name what is wrong
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


def test_asarray_takes_a_range() -> None:
    x = xp.asarray(range(5))
    assert x.dtype == xp.int64 and np.asarray(x).tolist() == [0, 1, 2, 3, 4]
    assert xp.asarray(range(3), dtype=xp.float32).dtype == xp.float32


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
    standard = {name for name in array_api_strict.__all__ if not name.startswith("_")} - STRICT_ONLY
    assert public - standard - SUBPACKAGES == DLARRAY_EXTRAS  # nothing leaked (e.g. ``annotations``)
    assert standard <= public
    assert not hasattr(xp, "annotations")


def test_packed_float4_and_float6_print_their_values() -> None:
    """Packed sub-byte data (no IS_SUBBYTE_TYPE_PADDED) is one bit stream, read least significant
    bit first: 0x21 0x43 holds the float4_e2m1fn codes 1, 2, 3, 4 (0.5, 1, 1.5, 2)."""
    from tests.producer import make_capsule

    float4 = xp.from_dlpack(make_capsule((4,), code=17, bits=4, fill=b"\x21\x43").capsule)
    assert "[0.5, 1. , 1.5, 2. ]" in repr(float4)
    assert str(float4) == "[0.5 1.  1.5 2. ]"
    # float6_e2m3fn: four 6-bit codes in three bytes; code 8 is 1.0, code 0 is 0.0
    codes = [8, 0, 8, 0]
    stream = sum(code << (6 * i) for i, code in enumerate(codes)).to_bytes(3, "little")
    float6 = xp.from_dlpack(make_capsule((2, 2), code=15, bits=6, fill=stream).capsule)
    assert str(float6) == "[[1. 0.]\n [1. 0.]]"
    assert float4.readonly is False and float4.shape == (4,)  # printing read it, nothing else


def test_iterating_a_0d_array_fails_at_iter_as_in_numpy() -> None:
    scalar = xp.asarray(1.0)
    with pytest.raises(TypeError, match="0-d"):
        iter(scalar)
    assert not np.iterable(scalar)  # what consumers ask before iterating
    assert np.iterable(xp.asarray([1.0]))
    assert [int(v) for v in xp.asarray([3, 1, 2])] == [3, 1, 2]
    assert list(xp.empty((0, 2))) == []


@pytest.mark.parametrize("number", [np.float64(0.5), np.float32(0.5), np.int64(1), np.int8(1), np.bool_(True),
                                    type("MyFloat", (float,), {})(0.5), type("MyInt", (int,), {})(1)],
                         ids=["float64", "float32", "int64", "int8", "bool_", "float-subclass", "int-subclass"])
def test_functions_take_numpy_scalars_as_the_operators_do(number: Any) -> None:
    """A numpy scalar is a 0-d array of its dtype, a subclass of a Python scalar that scalar:
    ``xp.add(x, v)`` gives exactly ``x + v``, and so do where, clip, isin and searchsorted."""
    floats = xp.asarray([0.25, 1.0, 2.0], dtype=xp.float32)
    ints = xp.asarray([1, 2, 3], dtype=xp.int16)
    x = ints if isinstance(number, (int, np.integer, np.bool_)) else floats
    # what the operators make of it: a 0-d array of the numpy scalar's dtype, or the Python scalar
    meant = xp.asarray(number) if isinstance(number, np.generic) else (int if isinstance(number, int) else float)(number)
    assert (x + number).dtype == (x + meant).dtype
    for function in (xp.add, xp.multiply, xp.equal, xp.maximum, xp.atan2 if x is floats else xp.bitwise_or):
        for ours, expected in ((function(x, number), function(x, meant)), (function(number, x), function(meant, x))):
            assert ours.dtype == expected.dtype
            assert np.asarray(ours).tolist() == np.asarray(expected).tolist()
    mask = xp.asarray([True, False, True])
    chosen = xp.where(mask, x, number)
    assert chosen.dtype == (x + number).dtype and np.asarray(chosen)[1] == np.asarray(number).astype(np.asarray(chosen).dtype)
    assert np.asarray(xp.clip(x, number, None)).min() >= number
    assert xp.isin(x, number).dtype == xp.bool
    assert int(xp.searchsorted(x, number)) == int(np.searchsorted(np.asarray(x), number))


def test_functions_refuse_what_is_not_a_number() -> None:
    x = xp.asarray([1.0, 2.0])
    for call in (lambda: xp.add(x, "1"), lambda: xp.where(xp.asarray([True, False]), x, None),
                 lambda: xp.clip(x, "0"), lambda: xp.isin(x, object()), lambda: xp.add(np.float64(1.0), 2.0)):
        with pytest.raises(TypeError):
            call()


def test_bool_of_a_one_element_array_is_its_value_as_in_numpy() -> None:
    assert bool(xp.asarray([True])) is True and bool(xp.asarray([[0.0]])) is False
    for ambiguous in (xp.asarray([1, 2]), xp.empty((0,))):
        with pytest.raises(ValueError, match="ambiguous.*any\\(\\) or all\\(\\)"):
            bool(ambiguous)
    with pytest.raises(TypeError, match="only 0-d arrays"):  # int() and float() stay 0-d only, as numpy 2
        float(xp.asarray([1.0]))
