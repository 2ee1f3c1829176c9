"""numpy's dtypes and dlarray's, both ways: libraries built on numpy (cubed, zarr, xarray) hand numpy's
dtypes to the namespace and turn the namespace's into numpy's with ``np.dtype``.

Every function of the namespace that takes a dtype takes numpy's too, as the dlarray dtype of the
same name (a walk over the namespace's signatures keeps any new dtype parameter from being left
out); numpy reads each dlarray dtype as its own, and the attributes the two share a name for mean
what numpy's mean.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dlarray as xp
from dlarray._dtypes import ALL_DTYPES, as_dtype

import needs

ml_dtypes = needs.optional("ml_dtypes")
WITH_NUMPY = [d for d in ALL_DTYPES if d.numpy_dtype is not None]
NUMPY_LACKS = [d for d in ALL_DTYPES if d.numpy_dtype is None]
# numpy reads __numpy_dtype__ from 2.4 on; before, np.dtype(xp.float64) is numpy's TypeError
READS_NUMPY_DTYPE = needs.version(np) >= (2, 4)
needs_numpy_dtype = pytest.mark.skipif(not READS_NUMPY_DTYPE, reason="numpy before 2.4 has no __numpy_dtype__")

DTYPE_PARAMETERS = ("dtype", "type", "from_", "to", "kind", "arrays_and_dtypes")


def _functions_taking_dtypes() -> set[str]:
    found = set()
    for prefix, module in (("", xp), ("linalg.", xp.linalg), ("fft.", xp.fft)):
        for name in dir(module):
            function = getattr(module, name)
            if name.startswith("_") or isinstance(function, type) or not callable(function):
                continue
            try:
                parameters = inspect.signature(function).parameters
            except (TypeError, ValueError):
                continue
            if any(parameter in DTYPE_PARAMETERS for parameter in parameters):
                found.add(prefix + name)
    return found


X = xp.asarray([1.0, 2.0, 4.0])
M = xp.eye(2)

# each function that takes a dtype, called with the dtypes ``t(name)`` gives (numpy's or dlarray's)
CALLS: dict[str, Callable[[Callable[[str], Any]], Any]] = {
    "arange": lambda t: xp.arange(3, dtype=t("int16")),
    "asarray": lambda t: xp.asarray([1, 2], dtype=t("float32")),
    "astype": lambda t: xp.astype(X, t("float32")),
    "can_cast": lambda t: (xp.can_cast(t("int8"), xp.float64), xp.can_cast(xp.int8, t("float32"))),
    "cumulative_prod": lambda t: xp.cumulative_prod(X, dtype=t("float32")),
    "cumulative_sum": lambda t: xp.cumulative_sum(X, dtype=t("float32")),
    "empty": lambda t: xp.empty(2, dtype=t("float32")).dtype,
    "empty_like": lambda t: xp.empty_like(X, dtype=t("float32")).dtype,
    "eye": lambda t: xp.eye(2, dtype=t("float32")),
    "finfo": lambda t: xp.finfo(t("float32")),
    "full": lambda t: xp.full(2, 3, dtype=t("int8")),
    "full_like": lambda t: xp.full_like(X, 3, dtype=t("float32")),
    "iinfo": lambda t: xp.iinfo(t("int16")),
    "isdtype": lambda t: (xp.isdtype(t("float32"), "real floating"), xp.isdtype(xp.float32, t("float32")),
                          xp.isdtype(t("int8"), ("integral", t("float64")))),
    "linspace": lambda t: xp.linspace(0, 1, 3, dtype=t("float32")),
    "ones": lambda t: xp.ones(2, dtype=t("uint8")),
    "ones_like": lambda t: xp.ones_like(X, dtype=t("float32")),
    "mean": lambda t: xp.mean(X, dtype=t("float32")),
    "prod": lambda t: xp.prod(X, dtype=t("float32")),
    "result_type": lambda t: (xp.result_type(t("float16"), xp.int8), xp.result_type(X, t("float32")),
                              xp.result_type(t("int32"), 1.5)),
    "sum": lambda t: xp.sum(X, dtype=t("float32")),
    "zeros": lambda t: xp.zeros(2, dtype=t("complex64")),
    "zeros_like": lambda t: xp.zeros_like(X, dtype=t("float32")),
    "linalg.trace": lambda t: xp.linalg.trace(M, dtype=t("float32")),
    "fft.fftfreq": lambda t: xp.fft.fftfreq(4, dtype=t("float32")),
    "fft.rfftfreq": lambda t: xp.fft.rfftfreq(4, dtype=t("float32")),
}
FORMS: dict[str, Callable[[str], Any]] = {
    "name": str,
    "np.dtype": np.dtype,
    "numpy scalar type": lambda name: getattr(np, name),
    "dlarray": lambda name: getattr(xp, name),
}


def _comparable(value: Any) -> Any:
    if isinstance(value, xp.Array):
        return value.dtype, np.asarray(value).tolist()
    if isinstance(value, tuple):
        return tuple(_comparable(item) for item in value)
    if hasattr(value, "bits"):  # finfo / iinfo objects
        return repr(value)
    return value


def test_every_function_that_takes_a_dtype_is_checked() -> None:
    assert _functions_taking_dtypes() == set(CALLS)


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("given", ["np.dtype", "numpy scalar type"])
def test_numpys_dtypes_are_taken_as_dlarrays(name: str, given: str) -> None:
    assert _comparable(CALLS[name](FORMS[given])) == _comparable(CALLS[name](FORMS["dlarray"]))


@pytest.mark.parametrize("name", sorted(set(CALLS) - {"isdtype"}))
def test_dtype_names_are_taken_where_a_dtype_is_meant(name: str) -> None:
    assert _comparable(CALLS[name](FORMS["name"])) == _comparable(CALLS[name](FORMS["dlarray"]))


def test_isdtype_takes_a_name_for_the_dtype_and_kind_names_for_the_kind() -> None:
    assert xp.isdtype("float32", "real floating") and xp.isdtype("int8", ("integral", xp.float64))
    assert xp.isdtype("bool", "bool")


def test_what_is_not_a_dtype_is_still_refused() -> None:
    with pytest.raises(TypeError):
        xp.result_type(float, X)  # a Python type: not a dtype (the standard's scalars are values)
    with pytest.raises(TypeError):
        xp.isdtype("float", "real floating")  # no dtype's name
    with pytest.raises(TypeError):
        xp.result_type("str", X)
    with pytest.raises(ValueError):
        xp.isdtype(xp.float32, "float32")  # a string there is a kind name
    with pytest.raises(TypeError):
        xp.isdtype(xp.float32, object)


# ================================================================ numpy reading dlarray's dtypes
@needs_numpy_dtype
@pytest.mark.parametrize("dtype", WITH_NUMPY, ids=str)
def test_numpy_reads_each_dtype_as_its_own(dtype: xp.DType) -> None:
    assert np.dtype(dtype) is dtype.numpy_dtype
    assert np.zeros(2, dtype=dtype).dtype == dtype.numpy_dtype
    assert np.asarray([1, 0], dtype=dtype).dtype == dtype.numpy_dtype
    assert as_dtype(np.dtype(dtype)) is dtype


@needs_numpy_dtype
@pytest.mark.parametrize("dtype", WITH_NUMPY, ids=str)
def test_equal_dtypes_hash_alike(dtype: xp.DType) -> None:
    numpy_dtype = dtype.numpy_dtype
    assert dtype == numpy_dtype and numpy_dtype == dtype
    assert hash(dtype) == hash(numpy_dtype)
    assert {numpy_dtype: "found"}[dtype] == "found" and {dtype: "found"}[numpy_dtype] == "found"
    assert len({dtype, numpy_dtype}) == 1
    assert all([dtype != other.numpy_dtype for other in WITH_NUMPY if other is not dtype])


@pytest.mark.parametrize("dtype", WITH_NUMPY, ids=str)
def test_attributes_numpy_also_has_mean_what_numpys_mean(dtype: xp.DType) -> None:
    numpy_dtype = dtype.numpy_dtype
    for attribute in ("kind", "char", "str", "byteorder", "itemsize", "name", "type"):
        assert getattr(dtype, attribute) == getattr(numpy_dtype, attribute), attribute


@pytest.mark.parametrize("dtype", NUMPY_LACKS, ids=str)
def test_types_numpy_lacks_describe_themselves_as_raw_bytes(dtype: xp.DType) -> None:
    raw = np.dtype(f"V{dtype.itemsize}")
    assert (dtype.kind, dtype.char, dtype.str, dtype.byteorder, dtype.type) == (raw.kind, raw.char, raw.str, raw.byteorder, raw.type)
    assert dtype.kind not in "biufc"  # numpy code takes it for something it does not compute with


def test_dlarrays_own_kind_is_the_category() -> None:
    assert [d.category for d in (xp.bool, xp.int8, xp.uint8, xp.float16, xp.complex64, xp.bfloat16)] == [
        "bool", "signed integer", "unsigned integer", "real floating", "complex floating", "extended floating"
    ]
    assert all([xp.isdtype(d, d.category) for d in xp._dtypes.ARRAY_API_DTYPES])


@needs_numpy_dtype
@needs.skip_without("ml_dtypes")
@pytest.mark.parametrize("dtype", NUMPY_LACKS, ids=str)
def test_types_numpy_lacks_are_ml_dtypes_where_installed(dtype: xp.DType) -> None:
    scalar_type = getattr(ml_dtypes, dtype.name, None)
    if scalar_type is None:
        with pytest.raises(TypeError, match=f"nor has ml_dtypes {ml_dtypes.__version__}"):
            np.dtype(dtype)
        return
    assert np.dtype(dtype) == np.dtype(scalar_type)
    assert (np.dtype(dtype).name, np.dtype(dtype).itemsize) == (dtype.name, dtype.itemsize)
    assert as_dtype(np.dtype(dtype)) is dtype and as_dtype(scalar_type) is dtype


@needs_numpy_dtype
def test_without_ml_dtypes_the_types_numpy_lacks_are_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)  # as in an install without it
    with pytest.raises(TypeError, match="numpy has no bfloat16 dtype; installing ml_dtypes"):
        np.dtype(xp.bfloat16)
    assert np.dtype(xp.float32) == np.float32


def test_an_array_is_not_a_dtype() -> None:
    with pytest.raises((TypeError, ValueError)):
        np.dtype(X)  # numpy looks at X.dtype; an array still is not a dtype
    with pytest.raises(TypeError):
        as_dtype(X)
