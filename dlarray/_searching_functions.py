"""Searching Functions (Array API "Searching Functions"), computed by the device's backend.

Index results are always int64 (the default index dtype), whatever the backend's ``intp`` is.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from ._array import Array, from_bits, wrap
from ._backend import HOST
from ._docs import Doc, Sections, declare
from ._storage import bits_view
from ._dtypes import DType
from ._args import axis_argument, backend_array, index_result, operand, reduction_axes, same_device, xp_of

__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where"]


_DOCS = {
    "argmax": Doc(
        """
        Index of the largest element along ``axis`` (of the flattened array for ``None``).
        """,
        returns="int64 indices of the first occurrence of the maximum.",
        examples="""
        >>> x = xp.asarray([[1, 9, 3], [7, 2, 7]])
        >>> xp.argmax(x), xp.argmax(x, axis=1)
        (Array(1, dtype=int64, device=cpu), Array([1, 0], dtype=int64, device=cpu))
        """,
    ),
    "argmin": Doc(
        """
        Index of the smallest element along ``axis`` (of the flattened array for ``None``).
        """,
        returns="int64 indices of the first occurrence of the minimum.",
        examples="""
        >>> xp.argmin(xp.asarray([[1, 9, 3], [7, 2, 7]]), axis=0, keepdims=True)
        Array([[0, 1, 0]], dtype=int64, device=cpu)
        """,
    ),
}


class _ArgExtremum(Protocol):
    """The signature of ``argmax`` and ``argmin``, as a type checker reads it."""

    def __call__(self, x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array: ...


def _arg_extremum_of(name: str) -> _ArgExtremum:
    """``argmax`` or ``argmin``: the backend's array method, along one axis or the flattened array."""

    def function(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
        return _arg_extremum(x, axis, keepdims, name)

    return declare(
        function, name, _DOCS[name],
        words={
            "x": "Real-valued input array.",
            "axis": "Axis to search along; ``None`` searches the flattened array.",
            "keepdims": "Keep the searched axes as size-1 dimensions.",
        },
        errors={
            "TypeError": "``x`` is not an Array.",
            "ValueError": "The searched axis (or, for ``axis=None``, ``x``) is empty; an axis out of range.",
        },
    )


def _arg_extremum(x: Array, axis: int | None, keepdims: bool, name: str) -> Array:
    native = backend_array(x, name)
    if axis is not None:
        if isinstance(axis, tuple):
            raise TypeError(f"{name}() takes a single axis, not a tuple")
        (axis,) = reduction_axes(axis, x.ndim)
    # only an empty searched axis has no answer: argmax of shape (0, 4) along axis -1 is empty, as numpy
    if (native.shape[axis] if axis is not None and x.ndim else native.size) == 0:
        raise ValueError(f"{name}() of an empty array: there is no element to point to")
    # the array method: numpy's function form is a Python wrapper around it
    return index_result(getattr(native, name)(axis=axis, keepdims=keepdims))


argmax = _arg_extremum_of("argmax")
argmin = _arg_extremum_of("argmin")


_doc = Sections()


@_doc
def count_nonzero(x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Array:
    """Number of non-zero elements along ``axis`` (all of them by default).

    Parameters
    ----------
    x
        Input array. Complex elements count when either component is non-zero; bools when True.
    axis
        Axis or axes to count along; ``None`` counts over the whole array.
    keepdims
        Keep the counted axes as size-1 dimensions.

    Returns
    -------
    Array
        int64 counts.

    {axis_errors}

    {examples}
    >>> xp.count_nonzero(xp.asarray([[0, 1, 2], [3, 0, 0]]), axis=1)
    Array([2, 1], dtype=int64, device=cpu)
    """
    native = backend_array(x, "count_nonzero")
    axes = reduction_axes(axis, x.ndim)
    xp = xp_of(x)
    return index_result(xp.count_nonzero(native, axis=axis_argument(axes, x.ndim), keepdims=keepdims))


@_doc
def nonzero(x: Array, /) -> tuple[Array, ...]:
    """Indices of the non-zero elements, one int64 array per dimension, in row-major order.

    Parameters
    ----------
    x
        Input array with at least one dimension.

    Returns
    -------
    tuple of Array
        ``x.ndim`` 1-D int64 arrays of equal length.

    Raises
    ------
    TypeError
        ``x`` is not an Array.
    ValueError
        ``x`` is 0-d.

    {examples}
    >>> rows, cols = xp.nonzero(xp.asarray([[0, 7], [8, 0]]))
    >>> rows, cols
    (Array([0, 1], dtype=int64, device=cpu), Array([1, 0], dtype=int64, device=cpu))
    """
    native = backend_array(x, "nonzero")
    if native.ndim == 0:
        raise ValueError("nonzero() needs an array with at least one dimension; use reshape(x, (1,)) for a 0-d one")
    xp = xp_of(x)
    return tuple([index_result(indices) for indices in xp.nonzero(native)])


@_doc
def searchsorted(
    x1: Array,
    x2: Array | float,
    /,
    *,
    side: Literal["left", "right"] = "left",
    sorter: Array | None = None,
) -> Array:
    """Indices at which to insert ``x2`` into the sorted ``x1`` so that it stays sorted.

    Parameters
    ----------
    x1
        1-D array, sorted ascending unless ``sorter`` is given.
    x2
        Values to look up: an Array or a Python scalar (taken with ``x1``'s dtype, as the
        standard's rules for mixing scalars and arrays say).
    side
        ``"left"``: the first suitable index (``x1[i-1] < v <= x1[i]``); ``"right"``: the last
        (``x1[i-1] <= v < x1[i]``).
    sorter
        Integer indices that sort ``x1`` ascending.

    Returns
    -------
    Array
        int64 indices, shaped like ``x2`` (0-d for a scalar).

    Raises
    ------
    TypeError
        ``x1`` is not an Array; ``x2`` is neither an Array nor a Python scalar.
    ValueError
        ``x1`` is not one-dimensional; another ``side``; arrays on different devices.

    {examples}
    >>> edges = xp.asarray([1.0, 2.0, 3.0])
    >>> xp.searchsorted(edges, xp.asarray([0.5, 2.0, 9.0]))
    Array([0, 1, 3], dtype=int64, device=cpu)
    >>> xp.searchsorted(edges, 2.0, side="right")
    Array(2, dtype=int64, device=cpu)
    """
    haystack = backend_array(x1, "searchsorted")
    if haystack.ndim != 1:
        raise ValueError(f"searchsorted() needs a 1-D x1, got {haystack.ndim} dimensions")
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right', got {side!r}")
    same_device("searchsorted", x1, x2, sorter)
    # a Python scalar is passed on as it is: numpy treats it as weakly typed, i.e. with x1's dtype
    needles = operand(x2, x1._device, "searchsorted() x2")
    order = None
    if sorter is not None:
        if type(sorter) is not Array:
            raise TypeError(f"searchsorted(): sorter must be an Array, got {type(sorter).__name__}")
        if sorter._dtype.category not in ("signed integer", "unsigned integer"):
            raise TypeError(f"searchsorted(): sorter must have an integer dtype, not {sorter._dtype}")
        order = sorter._as_native()
    xp = xp_of(x1)
    return index_result(xp.searchsorted(haystack, needles, side=side, sorter=order))


@_doc
def where(condition: Array, x1: Array | bool | complex, x2: Array | bool | complex, /) -> Array:
    """Elements of ``x1`` where ``condition`` is True, of ``x2`` elsewhere (all broadcast).

    Parameters
    ----------
    condition
        Boolean array.
    x1, x2
        Arrays or Python scalars (at least one an Array); the result dtype follows the type
        promotion rules, scalars taking the array's dtype.

    Returns
    -------
    Array
        The broadcast shape of the three inputs.

    Raises
    ------
    TypeError
        ``condition`` is not an Array; neither ``x1`` nor ``x2`` is an Array.
    ValueError
        Shapes that do not broadcast; arrays on different devices.

    {examples}
    >>> x = xp.asarray([-2.0, 0.5, 3.0])
    >>> xp.where(x > 0, x, 0.0)
    Array([0. , 0.5, 3. ], dtype=float64, device=cpu)
    """
    mask = backend_array(condition, "where")
    same_device("where", condition, x1, x2)
    raw = _raw_dtype(x1, x2)
    if raw is not None:
        # choosing needs no arithmetic: dtypes numpy lacks are chosen as their bits
        return from_bits(HOST.xp.where(mask, bits_view(x1), bits_view(x2)), raw)  # bits: on the host
    if type(x1) is not Array and type(x2) is not Array:
        raise TypeError("where(): at least one of x1 and x2 must be an Array")
    first = operand(x1, condition._device, "where()")
    second = operand(x2, condition._device, "where()")
    xp = xp_of(condition)
    return wrap(xp.where(mask, first, second))


def _raw_dtype(x1: Any, x2: Any) -> DType | None:
    """The dtype numpy lacks that ``where`` chooses between, if any; both must be Arrays of it."""
    dtypes = [v._dtype for v in (x1, x2) if type(v) is Array and v._dtype.numpy_dtype is None]
    if not dtypes:
        return None
    if type(x1) is not Array or type(x2) is not Array or x1._dtype is not x2._dtype:
        raise TypeError(f"where() chooses between {dtypes[0]} values only from two {dtypes[0]} Arrays")
    return dtypes[0]



