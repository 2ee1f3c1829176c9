"""Sorting Functions (Array API "Sorting Functions"), computed by the device's backend.

numpy only sorts ascending. A descending sort that keeps equal elements in their original order
(what ``stable=True`` asks for) is an ascending stable sort of the reversed array, reversed back:
equal elements are reversed twice, so they end up in their original order.
"""

from __future__ import annotations

from typing import Any

from ._array import Array, wrap
from ._args import backend_array, index_result, normalize_axis, xp_of
from ._docs import Sections

__all__ = ["argsort", "sort"]

# Kinds whose equal elements are indistinguishable: a plain reversal is as good as a stable sort.
_EXACT_KINDS = frozenset({"bool", "signed integer", "unsigned integer"})

# What the docstrings share (dlarray._docs.Sections fills each ``{name}`` line in).
_doc = Sections(
    sort_parameters="""
        Parameters
        ----------
        x
            Real-valued input array.
        axis
            Axis to sort along.
        descending
            Sort largest first.
    """,
)


@_doc
def argsort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    """Indices that sort ``x`` along ``axis``.

    {sort_parameters}
    stable
        Keep equal elements in their original order (always done when True; may be done when
        False).

    Returns
    -------
    Array
        int64 indices, shaped like ``x``.

    {axis_errors}

    {examples}
    >>> xp.argsort(xp.asarray([3, 1, 2, 1]))
    Array([1, 3, 2, 0], dtype=int64, device=cpu)
    >>> xp.argsort(xp.asarray([3, 1, 2, 1]), descending=True)
    Array([0, 2, 1, 3], dtype=int64, device=cpu)
    """
    native = backend_array(x, "argsort")
    xp = xp_of(x)
    if native.ndim == 0:
        return index_result(xp.zeros((), dtype=xp.int64))
    axis = normalize_axis(axis, native.ndim)
    return index_result(_argsort(xp, native, axis, descending, stable))


@_doc
def sort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    """A sorted copy of ``x`` along ``axis``.

    {sort_parameters}
    stable
        Keep equal elements in their original order (matters for ``-0.0`` and ``+0.0``).

    Returns
    -------
    Array
        Same dtype and shape as ``x``.

    {axis_errors}

    {examples}
    >>> xp.sort(xp.asarray([[3, 1, 2], [0, 5, 4]]), axis=1, descending=True)
    Array([[3, 2, 1],
           [5, 4, 0]], dtype=int64, device=cpu)
    """
    native = backend_array(x, "sort")
    xp = xp_of(x)
    if native.ndim == 0:
        return wrap(native.copy())
    axis = normalize_axis(axis, native.ndim)
    kind = "stable" if stable else None
    if not descending:
        return wrap(xp.sort(native, axis=axis, kind=kind))
    if x._dtype.category in _EXACT_KINDS or not stable:
        return wrap(xp.flip(xp.sort(native, axis=axis, kind=kind), axis=axis))
    # floating point: -0.0 and +0.0 compare equal but differ, so their order must be kept
    order = _argsort(xp, native, axis, True, True)
    return wrap(xp.take_along_axis(native, order, axis=axis))


def _argsort(xp: Any, native: Any, axis: int, descending: bool, stable: bool) -> Any:
    kind = "stable" if stable else None
    if not descending:
        return xp.argsort(native, axis=axis, kind=kind)
    last = native.shape[axis] - 1
    reversed_order = xp.argsort(xp.flip(native, axis=axis), axis=axis, kind=kind)
    return last - xp.flip(reversed_order, axis=axis)
