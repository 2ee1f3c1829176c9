"""Utility Functions (Array API "Utility Functions"), computed by the device's backend."""

from __future__ import annotations

import operator
from typing import Any

from ._array import Array, wrap
from ._args import backend_array, normalize_axis, same_device, xp_of
from ._docs import Doc, Sections, declare
from ._statistical_functions import AXIS, AXIS_ERROR, KEEPDIMS, Reduction, _reduction

__all__ = ["all", "any", "diff"]


_DOCS = {
    "all": Doc(
        """
        Whether every element along ``axis`` is truthy (non-zero; NaN counts as True).
        """,
        returns="bool; True for an empty reduction.",
        examples="""
        >>> x = xp.asarray([[True, False], [True, True]])
        >>> xp.all(x), xp.all(x, axis=1)
        (Array(False, dtype=bool, device=cpu), Array([False,  True], dtype=bool, device=cpu))
        """,
    ),
    "any": Doc(
        """
        Whether some element along ``axis`` is truthy (non-zero; NaN counts as True).
        """,
        returns="bool; False for an empty reduction.",
        examples="""
        >>> xp.any(xp.asarray([0.0, float("nan")]))
        Array(True, dtype=bool, device=cpu)
        """,
    ),
}


def _logical(name: str) -> Reduction:
    """``all`` or ``any``: the backend's logical reduction, of any input, to bool."""

    def function(x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Array:
        return _reduction(x, axis, keepdims, name)

    return declare(
        function, name, _DOCS[name],
        words={"x": "Input array.", "axis": AXIS, "keepdims": KEEPDIMS},
        errors={"TypeError": "``x`` is not an Array.", "ValueError": AXIS_ERROR},
    )


all = _logical("all")
any = _logical("any")


_doc = Sections()


@_doc
def diff(
    x: Array,
    /,
    *,
    axis: int = -1,
    n: int = 1,
    prepend: Array | None = None,
    append: Array | None = None,
) -> Array:
    """The ``n``-th forward difference along ``axis`` (``out[i] = x[i+1] - x[i]``, repeated).

    Parameters
    ----------
    x
        Numeric input array with at least one dimension.
    axis
        Axis to difference along.
    n
        How many times to difference (0 returns the input, with ``prepend``/``append`` joined).
    prepend, append
        Arrays joined before/after ``x`` along ``axis`` first; same shape as ``x`` except along
        ``axis``.

    Returns
    -------
    Array
        ``M + N1 + N2 - n`` long along ``axis``.

    Raises
    ------
    TypeError
        ``x``, ``prepend`` or ``append`` is not an Array.
    ValueError
        ``x`` is 0-d; a negative ``n``; ``prepend``/``append`` of another shape; an axis out of
        range.

    {examples}
    >>> x = xp.asarray([1, 4, 9, 16])
    >>> xp.diff(x)
    Array([3, 5, 7], dtype=int64, device=cpu)
    >>> xp.diff(x, n=2, prepend=xp.asarray([0]))
    Array([2, 2, 2], dtype=int64, device=cpu)
    """
    native = backend_array(x, "diff")
    if native.ndim == 0:
        raise ValueError("diff() needs an array with at least one dimension")
    if isinstance(n, bool):
        raise TypeError("diff(): n must be an int, not a bool")
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"diff(): n must be non-negative, got {n}")
    axis = normalize_axis(axis, native.ndim)
    same_device("diff", x, prepend, append)
    xp = xp_of(x)
    parts = [_edge(prepend, "prepend"), native, _edge(append, "append")]
    parts = [part for part in parts if part is not None]
    if len(parts) > 1:
        native = xp.concatenate(parts, axis=axis)
    if n == 0:
        return x if len(parts) == 1 else wrap(native)
    return wrap(xp.diff(native, n=n, axis=axis))


def _edge(value: Any, name: str) -> Any:
    if value is None:
        return None
    if type(value) is not Array:
        raise TypeError(f"diff(): {name} must be an Array, got {type(value).__name__}")
    return value._as_native()
