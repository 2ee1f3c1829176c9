"""Indexing Functions (Array API "Indexing Functions"), computed by the device's backend.

Out-of-range indices raise IndexError (the standard leaves them unspecified); negative indices
count from the end.
"""

from __future__ import annotations

from typing import Any


from ._array import Array
from ._args import INTEGER_KINDS, normalize_axis, same_device, source_of
from ._docs import Sections

__all__ = ["take", "take_along_axis"]

def _indices(indices: Any, x: Array, name: str) -> Any:
    """The backend array of an integer index Array on ``x``'s device."""
    if type(indices) is not Array:
        raise TypeError(f"{name}(): indices must be an Array, got {type(indices).__name__}")
    if indices._dtype.category not in INTEGER_KINDS:
        raise TypeError(f"{name}(): indices must have an integer dtype, not {indices._dtype}")
    same_device(name, x, indices)
    return indices._as_native()


_doc = Sections()  # each docstring's link to the standard and example import (dlarray._docs)


@_doc
def take(x: Array, indices: Array | int, /, *, axis: int | None = None) -> Array:
    """Elements of ``x`` at ``indices`` along ``axis``.

    Parameters
    ----------
    x
        Input array.
    indices
        Integer indices (1-D in the standard; any shape is accepted, and replaces the axis). Also,
        outside the standard and as in numpy, one Python int: the axis is dropped (cubed's
        ``var`` and ``std`` ask for it).
    axis
        Axis to select along; optional only for arrays of at most one dimension.

    Returns
    -------
    Array
        Same dtype as ``x``; ``x.shape`` with the ``axis`` extent replaced by ``indices.shape``.

    Raises
    ------
    TypeError
        ``x`` is not an Array; ``indices`` is neither an Array nor an int, or not of an integer
        dtype.
    ValueError
        No ``axis`` for an array of more than one dimension; arrays on different devices.
        An axis out of range (``AxisError``, also an `IndexError`).
    IndexError
        An index out of range (negative indices count from the end).

    {examples}
    >>> x = xp.asarray([[1, 2, 3], [4, 5, 6]])
    >>> xp.take(x, xp.asarray([2, 0]), axis=1)
    Array([[3, 1],
           [6, 4]], dtype=int64, device=cpu)
    >>> xp.take(x, 1, axis=0)
    Array([4, 5, 6], dtype=int64, device=cpu)
    """
    native, label, xp = source_of(x, "take")
    # one Python int (not a bool): as a 0-d index array, which every backend's take reads the same way
    positions = indices if type(indices) is int else _indices(indices, x, "take")
    if axis is None:
        if native.ndim > 1:
            raise ValueError(f"take() needs an axis for an array with {native.ndim} dimensions")
        axis = 0 if native.ndim == 1 else None
    else:
        axis = normalize_axis(axis, native.ndim)
    return label(xp.take(native, positions, axis=axis))


@_doc
def take_along_axis(x: Array, indices: Array, /, *, axis: int = -1) -> Array:
    """Elements of ``x`` at the per-position ``indices`` along ``axis`` (e.g. from argsort).

    Parameters
    ----------
    x
        Input array.
    indices
        Integer indices with as many dimensions as ``x``; the other axes broadcast with ``x``.
    axis
        Axis to select along.

    Returns
    -------
    Array
        Same dtype as ``x``; the broadcast shape, with ``indices``' extent along ``axis``.

    Raises
    ------
    TypeError
        ``x`` or ``indices`` is not an Array; ``indices`` is not of an integer dtype.
    ValueError
        ``indices`` has another number of dimensions than ``x``; shapes that do not broadcast;
        an axis out of range.
    IndexError
        An index out of range.

    {examples}
    >>> x = xp.asarray([[30, 10, 20], [5, 6, 4]])
    >>> xp.take_along_axis(x, xp.argsort(x, axis=1), axis=1)
    Array([[10, 20, 30],
           [ 4,  5,  6]], dtype=int64, device=cpu)
    """
    native, label, xp = source_of(x, "take_along_axis")
    positions = _indices(indices, x, "take_along_axis")
    if positions.ndim != native.ndim:
        raise ValueError(
            f"take_along_axis(): indices need as many dimensions as x ({native.ndim}), got {positions.ndim}"
        )
    axis = normalize_axis(axis, native.ndim)
    return label(xp.take_along_axis(native, positions, axis=axis))
