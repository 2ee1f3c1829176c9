"""Linear algebra functions of the main namespace (matmul, matrix_transpose, tensordot, vecdot)."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._args import AxisError, backend_arrays, scalar_value
from ._array import Array, wrap
from ._docs import Sections

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot"]


def vector_axis(axis: Any, ndim1: int, ndim2: int, name: str) -> int:
    """The negative axis of the vectors of ``x1`` and ``x2`` for vecdot and cross.

    The standard counts this axis from the end (it is applied before broadcasting); a
    non-negative one is accepted only where it is unambiguous, that is both arrays have the same
    number of dimensions.
    """
    axis = operator.index(axis)
    smallest = min(ndim1, ndim2)
    if smallest == 0:
        raise ValueError(f"{name} needs arrays with at least one dimension")
    if axis >= 0:
        if ndim1 != ndim2:
            raise ValueError(
                f"{name}: axis must be negative (counted from the last dimension) when the arrays "
                f"have different numbers of dimensions, got {axis}"
            )
        axis -= ndim1
    if not -smallest <= axis <= -1:
        raise ValueError(
            f"{name}: axis {axis} is out of bounds for arrays with {ndim1} and {ndim2} dimensions"
        )
    return axis


_doc = Sections()  # each docstring's link to the standard and example import (dlarray._docs)


@_doc
def matmul(x1: Array, x2: Array, /) -> Array:
    """Matrix product (``x1 @ x2``), broadcasting over leading dimensions.

    Parameters
    ----------
    x1
        Array with at least one dimension; a 1-D operand is a vector (promoted to a matrix and
        the added dimension removed from the result).
    x2
        Array with at least one dimension, the same way.

    Returns
    -------
    Array
        The product, with the dtype given by type promotion.

    Raises
    ------
    TypeError
        An operand that is not an Array, or of a stored-only dtype.
    ValueError
        A 0-d operand; inner dimensions that differ; stacks that do not broadcast; arrays on
        different devices.

    {examples}
    >>> A = xp.asarray([[1, 2], [3, 4]])
    >>> xp.matmul(A, xp.asarray([1, 1]))
    Array([3, 7], dtype=int64, device=cpu)
    >>> A @ A
    Array([[ 7, 10],
           [15, 22]], dtype=int64, device=cpu)
    """
    a, b = backend_arrays(x1, x2, "matmul")
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul does not take 0-d arrays; use multiply")
    return wrap(x1._device.backend.xp.matmul(a, b))


@_doc
def matrix_transpose(x: Array, /) -> Array:
    """Transpose of a matrix or of each matrix in a stack (the last two dimensions swapped).

    Parameters
    ----------
    x
        Array of shape ``(..., M, N)``.

    Returns
    -------
    Array
        A view of shape ``(..., N, M)`` with the dtype of ``x``.

    {matrix_stack_errors}

    {examples}
    >>> xp.matrix_transpose(xp.asarray([[1, 2, 3]]))
    Array([[1],
           [2],
           [3]], dtype=int64, device=cpu)
    """
    if type(x) is not Array:
        raise TypeError(f"matrix_transpose takes an Array, got {type(x).__name__}")
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose needs at least 2 dimensions, the array has {x.ndim}")
    return x.mT


def _tensordot_axes(axes: Any, ndim1: int, ndim2: int) -> tuple[list[int], list[int]]:
    """Validated, non-negative contraction axes of ``x1`` and ``x2``."""
    axes = scalar_value(axes, "tensordot() axes")
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        count = operator.index(axes)
        if count < 0:
            raise ValueError(f"tensordot: an integer axes must be non-negative, got {count}")
        if count > ndim1 or count > ndim2:
            raise ValueError(
                f"tensordot: cannot contract {count} axes of arrays with {ndim1} and {ndim2} dimensions"
            )
        return list(range(ndim1 - count, ndim1)), list(range(count))
    try:
        first, second = axes
    except (TypeError, ValueError):
        raise TypeError(
            f"tensordot: axes must be an int or a pair of sequences of ints, got {axes!r}"
        ) from None
    first = [first] if isinstance(first, int) else list(first)
    second = [second] if isinstance(second, int) else list(second)
    if len(first) != len(second):
        raise ValueError(
            f"tensordot: the two axes sequences differ in length ({len(first)} and {len(second)})"
        )
    return _normalized(first, ndim1, "tensordot"), _normalized(second, ndim2, "tensordot")


def _normalized(axes: Sequence[Any], ndim: int, name: str) -> list[int]:
    """``axes`` as non-negative ints; ValueError (naming ``name``) for one out of range or a repeat."""
    result = []
    for axis in axes:
        axis = operator.index(axis)
        if not -ndim <= axis < ndim:
            raise AxisError(axis, ndim, name)  # a ValueError, worded as numpy's
        result.append(axis % ndim)
    if len(set(result)) != len(result):
        raise ValueError(f"{name}: repeated axes {list(axes)}")
    return result


@_doc
def tensordot(
    x1: Array,
    x2: Array,
    /,
    *,
    axes: int | tuple[Sequence[int], Sequence[int]] = 2,
) -> Array:
    """Tensor contraction of ``x1`` and ``x2`` over the given axes.

    Parameters
    ----------
    x1
        First array.
    x2
        Second array.
    axes
        ``N``: the last ``N`` axes of ``x1`` with the first ``N`` of ``x2``. A pair of sequences:
        the axes of ``x1`` and of ``x2`` contracted pairwise (negative axes allowed). Contracted
        axes must have equal sizes: they are not broadcast.

    Returns
    -------
    Array
        The non-contracted axes of ``x1`` followed by those of ``x2``; dtype by type promotion.

    Raises
    ------
    TypeError
        An operand that is not an Array, or of a stored-only dtype.
    ValueError
        More axes than an operand has; contracted axes of different sizes; arrays on different
        devices.

    {examples}
    >>> a = xp.reshape(xp.arange(6), (2, 3))
    >>> xp.tensordot(a, a, axes=([1], [1]))
    Array([[ 5, 14],
           [14, 50]], dtype=int64, device=cpu)
    """
    a, b = backend_arrays(x1, x2, "tensordot")
    first, second = _tensordot_axes(axes, a.ndim, b.ndim)
    for i, j in zip(first, second):
        if a.shape[i] != b.shape[j]:
            raise ValueError(
                f"tensordot: axis {i} of x1 (size {a.shape[i]}) and axis {j} of x2 "
                f"(size {b.shape[j]}) differ in size"
            )
    return wrap(x1._device.backend.xp.tensordot(a, b, axes=(first, second)))


@_doc
def vecdot(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """Dot product of the vectors along ``axis``, conjugating ``x1``: ``sum(conj(x1) * x2)``.

    Parameters
    ----------
    x1
        First array; broadcast against ``x2`` along all but the contracted axis, which must have
        the same size in both (it is not broadcast).
    x2
        Second array.
    axis
        The contracted axis, counted from the end (``-1``: the last one).

    Returns
    -------
    Array
        The dot products, with the contracted axis removed; dtype by type promotion.

    Raises
    ------
    TypeError
        An operand that is not an Array, or of a stored-only dtype.
    ValueError
        Contracted axes of different sizes; shapes that do not broadcast; arrays on different
        devices.

    {examples}
    >>> xp.vecdot(xp.asarray([[1.0, 2.0], [3.0, 4.0]]), xp.asarray([1.0, 1.0]))
    Array([3., 7.], dtype=float64, device=cpu)
    >>> xp.vecdot(xp.asarray([1j]), xp.asarray([1j]))  # x1 is conjugated
    Array(1.+0.j, dtype=complex128, device=cpu)
    """
    a, b = backend_arrays(x1, x2, "vecdot")
    axis = vector_axis(axis, a.ndim, b.ndim, "vecdot")
    if a.shape[axis] != b.shape[axis]:
        raise ValueError(
            f"vecdot: the vectors have sizes {a.shape[axis]} and {b.shape[axis]} along axis {axis}"
        )
    # numpy's vecdot gufunc (cupy's namespace has the same function) applies the axis to each
    # operand before broadcasting and conjugates the first one, as the standard asks
    return wrap(x1._device.backend.xp.vecdot(a, b, axis=axis))
