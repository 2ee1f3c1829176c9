"""Argument helpers shared by the spec modules: Array arguments, devices, axes, index results.

Part of the core: stands on the Array and the backends, imports no spec module. Each rule lives
here once, so that every function of the namespace refuses the same thing the same way.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.exceptions import AxisError

from ._array import Array, from_bits, scalar_operand, wrap
from ._devices import devices_differ
from ._backend import BackendUnavailable
from ._dtypes import INTEGER_KINDS
from ._storage import bits_view

__all__ = [
    "AxisError", "INTEGER_KINDS", "Axis", "axis_argument", "backend_array", "backend_arrays", "index_result", "normalize_axes",
    "normalize_axis", "reduction_axes", "same_device", "source_of", "xp_of", "backend_function",
    "scalar_value", "scalar_device", "operand",
]

Axis = int | tuple[int, ...] | None

_INT64 = np.dtype(np.int64)


def backend_array(x: Any, name: str) -> Any:
    """The backend array of ``x``; TypeError if ``x`` is not an Array.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray._args import backend_array
    >>> backend_array(dlarray.ones(2), "f").tolist()
    [1.0, 1.0]
    """
    if type(x) is not Array:
        raise TypeError(f"{name}() expects an Array, got {type(x).__name__}")
    native = x._native  # the cached view read directly: every reduction and linalg call comes here
    return x._as_native() if native is None else native


def xp_of(x: Array) -> Any:
    """The compute namespace of ``x``'s device: numpy, or cupy for arrays on a CUDA device."""
    return x._device.backend.xp


def source_of(x: Any, name: str) -> tuple[Any, Callable[[Any], Array], Any]:
    """``(backend array, wrap, backend module)`` of ``x`` for functions that only move elements.

    Moving and selecting need no arithmetic, so dtypes numpy lacks (bfloat16, float8...) work
    too: their elements are handled as unsigned integers of the same width (on the host) and the
    wrap function labels a result with the dtype again.
    """
    if type(x) is not Array:
        raise TypeError(f"{name}() expects an Array, got {type(x).__name__}")
    dtype = x._dtype
    if dtype.numpy_dtype is None:
        return bits_view(x), lambda raw: from_bits(raw, dtype), np
    return x._as_native(), wrap, x._device.backend.xp


def same_device(name: str, first: Array, *others: Any) -> None:
    """Refuse Arrays on different devices (ValueError), as every function of the namespace does.

    Arguments other than Arrays (Python scalars) are let through.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray._args import same_device
    >>> same_device("add", dlarray.ones(1), dlarray.zeros(1), 1.0)
    """
    for other in others:
        if type(other) is Array and other._device is not first._device:
            raise ValueError(devices_differ(first._device, other._device, f"{name}(): arrays"))


def operand(value: Any, device: Any, what: str) -> Any:
    """The backend operand of an Array or a number (`scalar_operand`'s rule: a numpy scalar is made
    a 0-d array on ``device``); TypeError naming ``what`` for anything else. The caller checks that
    Arrays share a device (`same_device`).

    Examples
    --------
    >>> import numpy as np
    >>> from dlarray._args import operand
    >>> from dlarray._devices import CPU
    >>> operand(2, CPU, "where()"), operand(np.int8(2), CPU, "where()").dtype
    (2, dtype('int8'))
    """
    if type(value) is Array:
        return value._as_native()
    number = scalar_operand(value, device)
    if number is None:
        raise TypeError(f"{what}: expected an Array or a Python scalar, got {type(value).__name__}")
    return number._as_native() if type(number) is Array else number


def scalar_value(value: Any, what: str) -> Any:
    """A 0-d Array where the standard writes a Python scalar, read as the scalar of its kind.

    numpy, cupy and torch take a 0-d array wherever they take a number; here it becomes the
    Python ``bool``, ``int``, ``float`` or ``complex`` of its value (a CUDA array is read after
    the work on its stream), and from then on the scalar's rules apply. Anything that is not an
    Array is returned as it is, for the caller's own checks.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray._args import scalar_value
    >>> scalar_value(dlarray.asarray(2), "full() fill_value"), scalar_value(0.5, "d")
    (2, 0.5)
    """
    if type(value) is not Array:
        return value
    if value.ndim != 0:
        raise TypeError(f"{what} must be a number or a 0-d array, got an array of shape {value.shape}")
    kind = value._dtype.category
    if kind == "bool":
        return bool(value)
    if kind in INTEGER_KINDS:
        return int(value)
    return complex(value) if kind == "complex floating" else float(value)


def scalar_device(device: Any, *values: Any) -> Any:
    """The device of a new array made from Python scalars and 0-d Arrays (``full``, ``arange``...).

    ``device`` when given (each 0-d Array must be on it: ValueError otherwise), else the device of
    the 0-d Arrays (as numpy and cupy keep a value where it is), else None (the default device).

    Examples
    --------
    >>> import dlarray
    >>> from dlarray._args import scalar_device
    >>> scalar_device(None, dlarray.asarray(1.0), 2.0)
    Device('cpu')
    """
    for value in values:
        if type(value) is Array:
            if device is None:
                device = value._device
            elif value._device is not device:
                raise ValueError(devices_differ(device, value._device, "the result and a 0-d array argument"))
    return device


def normalize_axis(axis: Any, ndim: int, what: str | None = None) -> int:
    """One axis as an int in ``[0, ndim)``; TypeError for a non-int, AxisError when out of range.

    ``AxisError`` is numpy's: both an IndexError (as the standard says) and a ValueError. Its
    message is numpy's, prefixed with ``what`` where given (``moveaxis``'s "source: ...").

    Examples
    --------
    >>> from dlarray._args import normalize_axis
    >>> normalize_axis(-1, 3)
    2
    """
    if isinstance(axis, bool) or not hasattr(type(axis), "__index__"):
        raise TypeError(f"an axis must be an int, got {type(axis).__name__}")
    index = operator.index(axis)
    if not -ndim <= index < ndim:
        raise AxisError(index, ndim, what)  # numpy's words, which users' tests match
    return index % ndim


def normalize_axes(axis: Any, ndim: int, what: str | None = None) -> tuple[int, ...]:
    """An int or a tuple (or list) of ints as distinct axes in ``[0, ndim)``; repeats: ValueError.

    Examples
    --------
    >>> from dlarray._args import normalize_axes
    >>> normalize_axes((0, -1), 3)
    (0, 2)
    """
    items = axis if isinstance(axis, (tuple, list)) else (axis,)
    axes = tuple([normalize_axis(item, ndim, what) for item in items])
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis in {axis!r}")
    return axes


def reduction_axes(axis: Axis, ndim: int) -> tuple[int, ...]:
    """Reduction axes as non-negative ints: all of them for ``None``, else :func:`normalize_axes`.

    Examples
    --------
    >>> from dlarray._args import reduction_axes
    >>> reduction_axes(None, 2)
    (0, 1)
    """
    if axis is None:
        return tuple(range(ndim))
    return normalize_axes(axis, ndim)


def axis_argument(axes: tuple[int, ...], ndim: int) -> tuple[int, ...] | None:
    """The ``axis=`` to pass to the backend: None for all axes (its fastest, flat reduction)."""
    return None if len(axes) == ndim else axes


def index_result(result: Any) -> Array:
    """An index result in the default index dtype (int64), whatever the backend's intp is."""
    if not hasattr(result, "dtype"):  # a Python int (numpy's count_nonzero over all axes)
        result = np.asarray(result, dtype=_INT64)
    elif result.dtype != _INT64:
        result = result.astype(_INT64)
    return wrap(result)


def backend_function(x: Array, path: str) -> Any:
    """The function ``xp.<path>`` (e.g. ``"linalg.inv"``) of ``x``'s backend.

    BackendUnavailable (a TypeError) naming the backend where it has no such function, rather
    than an AttributeError from deep inside.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray._args import backend_function
    >>> backend_function(dlarray.ones(1), "linalg.inv").__name__
    'inv'
    """
    if type(x) is not Array:
        raise TypeError(f"{str(path).rpartition('.')[2]}() expects an Array, got {type(x).__name__}")
    backend = x._device.backend
    found: Any = backend.xp
    for part in path.split("."):
        found = getattr(found, part, None)
        if found is None:
            version = getattr(backend.xp, "__version__", None)  # which cupy lacks it (cupy 13: linalg.eig)
            provider = f"{backend.name} {version}" if isinstance(version, str) else backend.name
            raise BackendUnavailable(f"{path} is not available for arrays on {x._device}: {provider} has no {path}")
    return found


def backend_arrays(x1: Any, x2: Any, name: str) -> tuple[Any, Any]:
    """The backend arrays of two Array arguments on one device (TypeError, ValueError).

    Examples
    --------
    >>> import dlarray
    >>> from dlarray._args import backend_arrays
    >>> [a.shape for a in backend_arrays(dlarray.ones(2), dlarray.ones(3), "f")]
    [(2,), (3,)]
    """
    if type(x1) is not Array or type(x2) is not Array:
        raise TypeError(f"{name}() takes two Arrays, got {type(x1).__name__} and {type(x2).__name__}")
    if x1._device is not x2._device:
        raise ValueError(devices_differ(x1._device, x2._device, f"{name}(): arrays"))
    a = x1._native  # the cached views read directly (matmul, vecdot, ... on small arrays)
    b = x2._native
    return (x1._as_native() if a is None else a), (x2._as_native() if b is None else b)
