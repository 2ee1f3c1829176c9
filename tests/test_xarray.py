"""xarray over dlarray: a DataArray wraps an Array as its duck array, and what xarray computes
through the namespace stays a dlarray Array; what xarray computes with numpy itself (its NaN-skipping
reductions, interpolation) comes back as numpy, and a few of its paths stop at numpy-only calls.
docs/guide/scaling-out.md tells users which is which.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dlarray as xp
import needs

xr = needs.library("xarray")

VALUES = np.arange(12.0).reshape(3, 4)


def _data_array() -> Any:
    return xr.DataArray(xp.asarray(VALUES), dims=("x", "y"), coords={"x": [10, 20, 30]})


# what keeps a dlarray Array, with numpy's result for the same operation on the same values
KEEPS_ARRAYS: dict[str, Callable[[Any], Any]] = {
    "sum": lambda d: d.sum("y"),
    "mean(skipna=False)": lambda d: d.mean("x", skipna=False),
    "max(skipna=False)": lambda d: d.max(skipna=False),
    "arithmetic": lambda d: d * 2 + 1,
    "comparison": lambda d: d > 3,
    "where with other": lambda d: d.where(d > 3, -1.0),
    "xr.where": lambda d: xr.where(d > 3, d, 0),
    "fillna": lambda d: d.fillna(0),
    "isel": lambda d: d.isel(x=1),
    "sel": lambda d: d.sel(x=20),
    "concat": lambda d: xr.concat([d, d], dim="x"),
    "transpose": lambda d: d.transpose(),
    "dot": lambda d: d.dot(d),
}
# what xarray computes with numpy itself: correct values, as numpy arrays
COMES_BACK_AS_NUMPY: dict[str, Callable[[Any], Any]] = {
    "mean (skipna)": lambda d: d.mean("x"),
    "max (skipna)": lambda d: d.max(),
    "cumsum": lambda d: d.cumsum("x"),
    "interp": lambda d: d.interp(x=15),
    "coarsen": lambda d: d.coarsen(y=2).mean(),
}


def _on_numpy(operation: Callable[[Any], Any]) -> Any:
    return operation(xr.DataArray(VALUES, dims=("x", "y"), coords={"x": [10, 20, 30]}))


@pytest.mark.parametrize("name", sorted(KEEPS_ARRAYS))
def test_what_xarray_computes_through_the_namespace_stays_a_dlarray_array(name: str) -> None:
    result = KEEPS_ARRAYS[name](_data_array())
    assert type(result.data) is xp.Array, type(result.data)
    expected = _on_numpy(KEEPS_ARRAYS[name])
    np.testing.assert_array_equal(np.asarray(result.data), expected.data)
    assert result.dims == expected.dims


@pytest.mark.parametrize("name", sorted(COMES_BACK_AS_NUMPY))
def test_what_xarray_computes_with_numpy_comes_back_as_numpy(name: str) -> None:
    result = COMES_BACK_AS_NUMPY[name](_data_array())
    assert isinstance(result.data, np.ndarray)
    np.testing.assert_allclose(result.data, _on_numpy(COMES_BACK_AS_NUMPY[name]).data)


def test_to_numpy_is_zero_copy() -> None:
    data = _data_array()
    assert np.shares_memory(data.to_numpy(), np.asarray(data.data))


# what the guide's table says stops, with the error it names (xarray's numpy-only paths)
NUMPY_ONLY: dict[str, tuple[Callable[[Any], Any], type[Exception], str]] = {
    "where without other": (lambda d: d.where(d > 3), TypeError, "numpy dtype"),
    "reindex with missing labels": (lambda d: d.reindex(x=[10, 20, 50]), TypeError, "numpy dtype"),
    "std(skipna=False)": (lambda d: d.std(skipna=False), TypeError, "ddof"),
    "rolling": (lambda d: d.rolling(y=2).sum(), AttributeError, "pad"),
    "cumsum(skipna=False)": (lambda d: d.cumsum("x", skipna=False), AttributeError, "cumsum"),
}


@pytest.mark.parametrize("name", sorted(NUMPY_ONLY))
def test_xarrays_numpy_only_paths_stop_as_the_guide_says(name: str) -> None:
    operation, error, message = NUMPY_ONLY[name]
    with pytest.raises(error, match=message):
        operation(_data_array())
    assert _on_numpy(operation) is not None  # numpy's backend takes it
