"""Data type functions, inspection and constants: against the standard's tables (as array-api-strict
implements them), numpy, and ml_dtypes for the extra floating-point formats."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import dlarray as xp
from dlarray._storage import bits_view

try:
    import array_api_strict as strict
except ImportError:  # the standard's reference tables come from it
    strict = None
try:
    import ml_dtypes
except ImportError:  # the reference for the extra floating-point formats
    ml_dtypes = None
needs_strict = pytest.mark.skipif(strict is None, reason="needs array-api-strict")
needs_ml_dtypes = pytest.mark.skipif(ml_dtypes is None, reason="needs ml_dtypes (installed with jax)")

NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float32", "float64", "complex64", "complex128"]
EXTRA = ["float16", "bfloat16", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
         "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e2m3fn",
         "float6_e3m2fn", "float4_e2m1fn"]
KINDS = ["bool", "signed integer", "unsigned integer", "integral", "real floating", "complex floating", "numeric"]


def strict_promotion(a: str, b: str) -> str | None:
    """The standard's promotion of two dtypes, None where it defines none."""
    try:
        return strict.result_type(getattr(strict, a), getattr(strict, b)).__str__().removeprefix("array_api_strict.")
    except TypeError:
        return None


# ================================================================================== promotion
@needs_strict
@pytest.mark.parametrize("a", NAMES)
@pytest.mark.parametrize("b", NAMES)
def test_result_type_follows_the_standard_then_numpy(a, b) -> None:
    got = xp.result_type(getattr(xp, a), getattr(xp, b))
    expected = strict_promotion(a, b)
    if expected is None:  # across kinds (and int64 with uint64): numpy's rule
        expected = np.promote_types(a, b).name
    assert got is getattr(xp, expected)
    assert xp.result_type(getattr(xp, b), getattr(xp, a)) is got
    assert xp.can_cast(getattr(xp, a), getattr(xp, b)) == (got is getattr(xp, b))
    if strict_promotion(a, b) is not None:  # within a kind: exactly the standard's can_cast
        assert xp.can_cast(getattr(xp, a), getattr(xp, b)) == strict.can_cast(getattr(strict, a), getattr(strict, b))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(NAMES), min_size=1, max_size=5), st.data())
def test_result_type_of_many_is_order_free(names, data) -> None:
    dtypes = [getattr(xp, n) for n in names]
    expected = xp.result_type(*dtypes)
    shuffled = data.draw(st.permutations(dtypes))
    mixed = [xp.empty(1, dtype=d) if data.draw(st.booleans()) else d for d in shuffled]
    assert xp.result_type(*mixed) is expected
    folded = dtypes[0]
    for dtype in dtypes[1:]:
        folded = xp.result_type(folded, dtype)
    families = {"bool" if n == "bool" else "float" if n.startswith(("float", "complex")) else "int" for n in names}
    if len(families) == 1:  # within a family the standard's promotion is a lattice: pairwise is enough
        assert folded is expected
    # across families it is not (int8 and float32: float32; int8, uint16 and float32: float64)
    assert xp.result_type(xp.int8, xp.float32, xp.uint16) is xp.float64


@pytest.mark.parametrize(
    "dtype, scalar, expected",
    [
        (xp.int8, 1, xp.int8),
        (xp.uint8, True, xp.uint8),
        (xp.float32, 1, xp.float32),
        (xp.float32, 1.0, xp.float32),
        (xp.complex64, 1.0, xp.complex64),
        (xp.complex64, 1j, xp.complex64),
        (xp.bool, True, xp.bool),
        # a scalar of a higher kind: that kind's default dtype, or the matching complex (numpy's rule)
        (xp.bool, 1, xp.int64),
        (xp.int16, 1.5, xp.float64),
        (xp.float32, 1j, xp.complex64),
        (xp.float64, 1j, xp.complex128),
        (xp.int8, 1j, xp.complex128),
    ],
)
def test_result_type_with_python_scalars(dtype, scalar, expected) -> None:
    assert xp.result_type(dtype, scalar) is expected
    assert xp.result_type(scalar, xp.empty(2, dtype=dtype)) is expected


def test_result_type_errors() -> None:
    with pytest.raises(ValueError):
        xp.result_type()
    with pytest.raises(ValueError):
        xp.result_type(1, 2.0)
    assert xp.result_type(xp.float32, "float64") is xp.float64  # a dtype's name, as numpy takes it
    with pytest.raises(TypeError):
        xp.result_type(xp.float32, "double")  # no dlarray dtype's name
    with pytest.raises(TypeError):
        xp.result_type(xp.bfloat16, xp.float32)  # no computation with bfloat16: no common dtype
    assert xp.result_type(xp.bfloat16, xp.bfloat16) is xp.bfloat16
    assert xp.result_type(xp.float16, xp.float32) is xp.float32
    assert xp.can_cast(xp.empty(1, dtype=xp.int8), xp.int16)
    assert not xp.can_cast(xp.bfloat16, xp.float32)


# ================================================================================== kinds, limits
@needs_strict
@pytest.mark.parametrize("name", NAMES)
def test_isdtype_matches_the_standard(name) -> None:
    dtype, reference = getattr(xp, name), getattr(strict, name)
    for kind in KINDS:
        assert xp.isdtype(dtype, kind) is strict.isdtype(reference, kind)
    for other in NAMES:
        assert xp.isdtype(dtype, getattr(xp, other)) is (name == other)
    assert xp.isdtype(dtype, ("bool", xp.complex64, "integral")) is strict.isdtype(
        reference, ("bool", strict.complex64, "integral"))


def test_isdtype_extra_dtypes_and_errors() -> None:
    for name in EXTRA:
        expected = name == "float16"  # real floating, as in numpy and torch; the others: no kind
        assert xp.isdtype(getattr(xp, name), tuple(KINDS)) is expected
        assert xp.isdtype(getattr(xp, name), getattr(xp, name))
    assert xp.isdtype(xp.float16, "real floating") and xp.isdtype(xp.float16, "numeric")
    assert not xp.isdtype(xp.bfloat16, "real floating")


def test_float16_promotes_as_in_numpy() -> None:
    half = xp.asarray([1.0, 2.0], dtype=xp.float16)
    for other, expected in [(xp.float32, xp.float32), (xp.float64, xp.float64), (xp.int8, xp.float16),
                            (xp.complex64, xp.complex64), (xp.complex128, xp.complex128)]:
        assert xp.result_type(xp.float16, other) == expected
        assert (half + xp.ones(2, dtype=other)).dtype == expected
    assert (half * 2.5).dtype == xp.float16 and (half + 1j).dtype == xp.complex64
    assert xp.finfo(xp.float16).bits == 16
    assert "float16" not in xp.__array_namespace_info__().dtypes()  # the standard does not name it
    with pytest.raises(ValueError):
        xp.isdtype(xp.int8, "integer")
    assert xp.isdtype("int8", "integral")  # a dtype's name, as every dtype argument takes it
    with pytest.raises(TypeError):
        xp.isdtype("i1", "integral")
    with pytest.raises(TypeError):
        xp.isdtype(xp.int8, 3)


@pytest.mark.parametrize("name", ["float32", "float64", "complex64", "complex128", "float16"])
def test_finfo_matches_numpy(name) -> None:
    for argument in (getattr(xp, name), xp.empty(1, dtype=getattr(xp, name))):
        info = xp.finfo(argument)
        reference = np.finfo(name)
        assert (info.bits, info.eps, info.max, info.min, info.smallest_normal) == (
            reference.bits, float(reference.eps), float(reference.max), float(reference.min),
            float(reference.smallest_normal))
        assert all(type(v) is float for v in (info.eps, info.max, info.min, info.smallest_normal))
        assert info.dtype is getattr(xp, {"complex64": "float32", "complex128": "float64"}.get(name, name))


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"])
def test_iinfo_matches_numpy(name) -> None:
    info = xp.iinfo(xp.empty(1, dtype=getattr(xp, name)))
    reference = np.iinfo(name)
    assert (info.bits, info.max, info.min) == (reference.bits, reference.max, reference.min)
    assert type(info.max) is int and info.dtype is getattr(xp, name)


def test_limits_errors() -> None:
    with pytest.raises(TypeError):
        xp.finfo(xp.int8)
    with pytest.raises(TypeError):
        xp.iinfo(xp.float32)
    with pytest.raises(TypeError):
        xp.iinfo(xp.bool)


# ================================================================================== astype
@settings(max_examples=80, deadline=None)
@given(
    a=st.sampled_from(NAMES).flatmap(lambda n: hnp.arrays(n, hnp.array_shapes(min_dims=0, max_side=4))),
    target=st.sampled_from(NAMES),
)
def test_astype_matches_numpy(a, target) -> None:
    x = xp.asarray(a)
    if a.dtype.kind == "c" and not target.startswith("complex") and target != "bool":
        with pytest.raises(TypeError, match="real"):
            xp.astype(x, getattr(xp, target))
        return
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy warns about NaN/inf cast to integers
        expected = a.astype(target)
        out = xp.astype(x, getattr(xp, target))
    assert out.dtype is getattr(xp, target) and out.shape == a.shape
    finite = np.isfinite(a) if a.dtype.kind in "fc" else np.ones(a.shape, bool)
    if target.startswith(("int", "uint")):  # NaN/inf to integers: not specified
        np.testing.assert_array_equal(np.asarray(out)[finite], expected[finite])
    else:
        np.testing.assert_array_equal(np.asarray(out), expected)


def test_complex_to_bool_is_nonzero_and_complex_to_real_is_refused() -> None:
    z = xp.asarray([0j, -0.0 - 0j, 1j, 2 + 0j, complex("nan")])
    assert np.asarray(xp.astype(z, xp.bool)).tolist() == [False, False, True, True, True]
    for target in (xp.float64, xp.int32, xp.bfloat16):
        with pytest.raises(TypeError, match="imaginary"):
            xp.astype(z, target)


def test_astype_copy_and_device() -> None:
    a = np.arange(4, dtype=np.int32)
    x = xp.asarray(a)
    assert xp.astype(x, xp.int32, copy=False) is x
    copied = xp.astype(x, xp.int32)
    assert copied is not x and not np.shares_memory(np.asarray(copied), a)
    assert xp.astype(x, xp.int32, copy=False, device="cpu") is x
    with pytest.raises(TypeError, match="cupy"):
        xp.astype(x, xp.float32, device="cuda:0")
    with pytest.raises(TypeError):
        xp.astype(a, xp.int8)


# ---------------------------------------------------------------- extra floating-point formats
FORMATS = [n for n in EXTRA if n != "float16"]


@needs_ml_dtypes
@pytest.mark.parametrize("name", FORMATS)
def test_extra_format_limits_match_ml_dtypes(name) -> None:
    info, reference = xp.finfo(getattr(xp, name)), ml_dtypes.finfo(getattr(ml_dtypes, name))
    assert info.bits == reference.bits and info.dtype is getattr(xp, name)
    assert (info.eps, info.max, info.min, info.smallest_normal) == (
        float(reference.eps), float(reference.max), float(reference.min), float(reference.smallest_normal))


def _bits(values: np.ndarray, name: str) -> np.ndarray:
    return values.astype(getattr(ml_dtypes, name)).view(f"u{values.astype(getattr(ml_dtypes, name)).itemsize}")


@needs_ml_dtypes
@pytest.mark.parametrize("name", FORMATS)
def test_extra_format_conversions_are_bit_exact(name) -> None:
    dtype = getattr(xp, name)
    rng = np.random.default_rng(7)
    raw = rng.integers(0, 2**32, 20_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    largest = xp.finfo(dtype).max
    with np.errstate(all="ignore"):  # NaN/inf inputs and float32 overflow are part of the test
        values = np.concatenate([
            raw, raw * np.float32(1e-30),
            (rng.uniform(-1.2, 1.2, 5000) * largest).astype(np.float32),  # inside the range and past it
            np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0], dtype=np.float32),
        ])
    if name == "float8_e8m0fnu":  # ml_dtypes rounds every float32 subnormal above 2**-127 up
        values = values[~((np.abs(values) > 2.0**-127) & (np.abs(values) < 2.0**-126))]
    with np.errstate(all="ignore"):
        expected = _bits(values, name)
        out = xp.astype(xp.asarray(values), dtype)
        back = xp.astype(out, xp.float32)
        reference_back = values.astype(getattr(ml_dtypes, name)).astype(np.float32)
    assert out.dtype is dtype and out.shape == values.shape
    np.testing.assert_array_equal(bits_view(out), expected)
    np.testing.assert_array_equal(bits_view(xp.astype(out, dtype)), expected)  # a copy keeps the bits
    np.testing.assert_array_equal(np.asarray(back), reference_back)  # decoding is exact
    assert np.array_equal(np.signbit(np.asarray(back)), np.signbit(reference_back))


def test_extra_format_to_other_dtypes() -> None:
    x = xp.astype(xp.asarray([0.0, 1.5, -2.0]), xp.bfloat16)
    np.testing.assert_array_equal(np.asarray(xp.astype(x, xp.bool)), [False, True, True])
    np.testing.assert_array_equal(np.asarray(xp.astype(x, xp.int8)), [0, 1, -2])
    np.testing.assert_array_equal(np.asarray(xp.astype(x, xp.complex64)), [0, 1.5, -2])
    y = xp.astype(x, xp.float8_e4m3fn)  # from one format to another
    np.testing.assert_array_equal(np.asarray(xp.astype(y, xp.float64)), [0.0, 1.5, -2.0])
    with pytest.raises(TypeError):
        xp.astype(xp.asarray([1j]), xp.bfloat16)


# ================================================================================== inspection
def test_namespace_info() -> None:
    info = xp.__array_namespace_info__()
    assert info.capabilities() == {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}
    devices = info.devices()
    assert type(devices) is tuple and info.default_device() in devices
    assert info.default_dtypes() == {
        "real floating": xp.float64, "complex floating": xp.complex128, "integral": xp.int64, "indexing": xp.int64,
    }
    assert info.default_dtypes(device="cpu") == info.default_dtypes()
    assert list(info.dtypes()) == NAMES
    assert all(info.dtypes()[n] is getattr(xp, n) for n in NAMES)
    assert list(info.dtypes(kind="integral")) == NAMES[1:9]
    assert list(info.dtypes(kind=("bool", "complex floating"), device=devices[0])) == ["bool", "complex64", "complex128"]
    for kind in KINDS:
        assert set(info.dtypes(kind=kind)) == {n for n in NAMES if xp.isdtype(getattr(xp, n), kind)}
    with pytest.raises(ValueError):
        info.dtypes(kind="floating")
    with pytest.raises(ValueError):
        info.dtypes(device="cuda:7")


def test_constants() -> None:
    assert xp.e == math.e and xp.pi == math.pi and xp.inf == math.inf
    assert math.isnan(xp.nan) and xp.newaxis is None
    assert xp.ones((2, 2))[:, xp.newaxis].shape == (2, 1, 2)
    assert all(type(c) is float for c in (xp.e, xp.pi, xp.inf, xp.nan))


def test_asarray_with_an_extra_dtype_converts() -> None:
    # asarray(dtype=...) used to ask numpy for astype(None): a float64 array labelled nothing
    x = xp.asarray(np.array([0.5, -2.0], dtype=np.float32), dtype=xp.bfloat16)
    assert x.dtype is xp.bfloat16
    back = xp.asarray(x, dtype=xp.float32)
    assert back.dtype is xp.float32
    np.testing.assert_array_equal(np.asarray(back), [0.5, -2.0])
