"""array-api-compat on dlarray: array_namespace finds dlarray (and refuses mixtures), its helpers
work on dlarray arrays, compared with numpy."""

from __future__ import annotations

import array_api_compat as compat
import array_api_strict
import numpy as np
import pytest
from array_api_consumers import (
    X,
    read_only,
)

import dlarray


def test_compat_array_namespace_is_dlarray() -> None:
    x = dlarray.asarray(X)
    assert compat.array_namespace(x) is dlarray
    assert compat.array_namespace(x, x[0], 1.0, None) is dlarray  # Python scalars and None are skipped
    assert compat.array_namespace(x, use_compat=False) is dlarray
    assert compat.array_namespace(x, api_version="2024.12") is dlarray


def test_compat_array_namespace_refusals() -> None:
    x = dlarray.asarray(X)
    # Documented: mixing namespaces is a TypeError naming them; numpy arrays count as one.
    with pytest.raises(TypeError, match="Multiple namespaces"):
        compat.array_namespace(x, X)
    with pytest.raises(TypeError, match="Multiple namespaces"):
        compat.array_namespace(x, np.float64(1.0))  # numpy scalars too (unlike Python scalars)
    with pytest.raises(TypeError, match="Multiple namespaces"):
        compat.array_namespace(x, array_api_strict.asarray(X))
    with pytest.raises(ValueError, match="array-api-compat wrapper"):  # documented for use_compat=True
        compat.array_namespace(x, use_compat=True)
    with pytest.raises(ValueError, match="unsupported Array API version"):
        compat.array_namespace(x, api_version="2021.12")


def test_compat_helpers_on_dlarray() -> None:
    x = dlarray.asarray(X)
    assert compat.is_array_api_obj(x)
    assert not compat.is_lazy_array(x)
    for name in ("numpy", "cupy", "torch", "dask", "jax", "pydata_sparse", "ndonnx", "dpnp", "mparray"):
        assert not getattr(compat, f"is_{name}_array")(x), name
        assert not getattr(compat, f"is_{name}_namespace")(dlarray), name
    assert not compat.is_array_api_strict_namespace(dlarray)
    assert compat.device(x) is x.device
    assert compat.to_device(x, x.device) is x
    assert compat.to_device(x, "cpu") is x
    assert compat.size(x) == X.size
    assert compat.size(dlarray.asarray(3.0)) == 1
    assert compat.size(dlarray.zeros((4, 0))) == 0
    assert compat.is_writeable_array(x)


def test_compat_is_writeable_array_of_read_only() -> None:
    ro = read_only(X)
    assert ro.readonly
    if compat.is_writeable_array(ro):
        # array-api-compat documents that it "blindly returns True for all unknown array types":
        # it reads numpy's flags.writeable and knows a fixed list of read-only types, dlarray's
        # `readonly` is not one of them. The writes it lets through are refused by dlarray.
        with pytest.raises(ValueError, match="read-only"):
            ro[0, 0] = 1.0
        assert np.array_equal(np.asarray(ro), X)
        pytest.xfail("array-api-compat cannot see dlarray's read-only flag (returns True for unknown types)")
