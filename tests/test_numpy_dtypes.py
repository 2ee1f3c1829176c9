"""Every function of the namespace that takes a dtype takes numpy's too, as the dlarray dtype of the
same name: libraries built on numpy (cubed, zarr, xarray) hand them over. A walk over the
namespace's signatures keeps any new dtype parameter from being left out.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dlarray as xp

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


def test_what_is_not_a_dtype_is_still_refused() -> None:
    with pytest.raises(TypeError):
        xp.result_type(float, X)  # a Python type: not a dtype (the standard's scalars are values)
    with pytest.raises(TypeError):
        xp.isdtype("float32", "real floating")
    with pytest.raises(TypeError):
        xp.isdtype(xp.float32, object)
