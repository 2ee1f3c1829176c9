"""repr and str of an Array, as numpy prints: values of every dtype (decoded for the formats numpy
lacks, packed ones included), shapes of empty arrays, read-only said, long arrays summarized
without reading what is not shown."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import dlarray as xp
from dlarray._dtypes import ALL_DTYPES

# the extra floating-point formats numpy has no dtype for (dlarray stores and decodes them)
EXTRA_FLOAT_DTYPES = [d for d in ALL_DTYPES if d.numpy_dtype is None]


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
