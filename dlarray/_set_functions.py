"""Set Functions (Array API "Set Functions"), computed by the device's backend.

Uniqueness is value equality, as the standard says: ``-0.0`` and ``+0.0`` are one value, and every
NaN (every complex value with a NaN component) is distinct, with a count of one. Results are sorted
ascending (NaNs last); index arrays are int64.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ._array import Array, wrap
from ._args import backend_array, index_result, operand, same_device, xp_of
from ._docs import Sections

__all__ = ["isin", "unique_all", "unique_counts", "unique_inverse", "unique_values"]


class UniqueAllResult(NamedTuple):
    """Result of :func:`unique_all`."""

    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class UniqueCountsResult(NamedTuple):
    """Result of :func:`unique_counts`."""

    values: Array
    counts: Array


class UniqueInverseResult(NamedTuple):
    """Result of :func:`unique_inverse`."""

    values: Array
    inverse_indices: Array


def _flat(x: Array, name: str) -> tuple[Any, Any]:
    """The backend module and ``x`` flattened (a view when the layout allows it)."""
    native = backend_array(x, name)
    return xp_of(x), native.reshape(-1)


# What the docstrings share (dlarray._docs.Sections fills each ``{name}`` line in).
_doc = Sections(
    unique_parameter="""
        Parameters
        ----------
        x
            Input array of any shape.
    """,
    unique_errors="""
        Raises
        ------
        TypeError
            ``x`` is not an Array.
    """,
)


@_doc
def unique_values(x: Array, /) -> Array:
    """The distinct elements of ``x`` (flattened), sorted.

    {unique_parameter}

    Returns
    -------
    Array
        1-D, same dtype as ``x``.

    {unique_errors}

    {examples}
    >>> xp.unique_values(xp.asarray([[3, 1], [3, 2]]))
    Array([1, 2, 3], dtype=int64, device=cpu)
    """
    xp, flat = _flat(x, "unique_values")
    return wrap(xp.unique(flat, equal_nan=False))


@_doc
def unique_counts(x: Array, /) -> UniqueCountsResult:
    """The distinct elements of ``x`` (flattened) and how often each occurs.

    {unique_parameter}

    Returns
    -------
    UniqueCountsResult
        ``(values, counts)``: 1-D arrays of equal length; counts are int64.

    {unique_errors}

    {examples}
    >>> values, counts = xp.unique_counts(xp.asarray([5, 7, 5, 5]))
    >>> values, counts
    (Array([5, 7], dtype=int64, device=cpu), Array([3, 1], dtype=int64, device=cpu))
    """
    xp, flat = _flat(x, "unique_counts")
    values, counts = xp.unique(flat, return_counts=True, equal_nan=False)
    return UniqueCountsResult(wrap(values), index_result(counts))


@_doc
def unique_inverse(x: Array, /) -> UniqueInverseResult:
    """The distinct elements of ``x`` and the indices into them that rebuild ``x``.

    {unique_parameter}

    Returns
    -------
    UniqueInverseResult
        ``(values, inverse_indices)``: ``values`` 1-D; ``inverse_indices`` int64, shaped like
        ``x``, with ``values[inverse_indices]`` equal to ``x``.

    {unique_errors}

    {examples}
    >>> values, inverse = xp.unique_inverse(xp.asarray([5, 7, 5]))
    >>> inverse
    Array([0, 1, 0], dtype=int64, device=cpu)
    """
    xp, flat = _flat(x, "unique_inverse")
    values, inverse = xp.unique(flat, return_inverse=True, equal_nan=False)
    return UniqueInverseResult(wrap(values), index_result(inverse.reshape(x.shape)))


@_doc
def unique_all(x: Array, /) -> UniqueAllResult:
    """The distinct elements of ``x``, their first indices, the inverse indices and the counts.

    {unique_parameter}

    Returns
    -------
    UniqueAllResult
        ``(values, indices, inverse_indices, counts)``: ``indices`` are the first occurrences in
        the flattened ``x``; ``inverse_indices`` is shaped like ``x``; all index arrays int64.

    {unique_errors}

    {examples}
    >>> result = xp.unique_all(xp.asarray([5, 7, 5]))
    >>> result.indices, result.counts
    (Array([0, 1], dtype=int64, device=cpu), Array([2, 1], dtype=int64, device=cpu))
    """
    xp, flat = _flat(x, "unique_all")
    values, first, inverse, counts = xp.unique(
        flat, return_index=True, return_inverse=True, return_counts=True, equal_nan=False
    )
    return UniqueAllResult(
        wrap(values), index_result(first), index_result(inverse.reshape(x.shape)), index_result(counts)
    )


@_doc
def isin(x1: Array | int, x2: Array | int, /, *, invert: bool = False) -> Array:
    """Whether each element of ``x1`` occurs in ``x2`` (by value equality).

    Parameters
    ----------
    x1
        Elements to look up: an Array or a Python int.
    x2
        Elements to look in: an Array or a Python int.
    invert
        Test for absence instead.

    Returns
    -------
    Array
        bool, shaped like ``x1`` (0-d for a scalar ``x1``).

    Raises
    ------
    TypeError
        Neither ``x1`` nor ``x2`` is an Array.
    ValueError
        Arrays on different devices.

    {examples}
    >>> xp.isin(xp.asarray([1, 2, 3]), xp.asarray([3, 1]))
    Array([ True, False,  True], dtype=bool, device=cpu)
    """
    if type(x1) is not Array and type(x2) is not Array:
        raise TypeError("isin(): at least one of x1 and x2 must be an Array")
    anchor = x1 if type(x1) is Array else x2
    same_device("isin", anchor, x1, x2)
    xp = xp_of(anchor)
    elements = operand(x1, anchor._device, "isin()")
    test_elements = operand(x2, anchor._device, "isin()")
    return wrap(xp.isin(elements, test_elements, invert=bool(invert)))
