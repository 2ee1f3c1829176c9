"""Statistical Functions (Array API "Statistical Functions"), computed by the device's backend.

The backend (numpy, or cupy on CUDA) does the arithmetic; this module fixes what it does not do as
the standard says: the result dtypes of ``sum``/``prod``/``cumulative_*`` (integers accumulate in
the default 64-bit integer of their signedness), ``NaN`` for empty means and for variances with
``M - correction <= 0`` (numpy gives ``inf`` or warns), and ``include_initial``.

The reduction machinery (``_reduction``) also computes ``all`` and ``any`` for the utility
functions; the argument helpers come from the core (``dlarray._args``).
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import numpy as np

from ._args import INTEGER_KINDS, Axis, axis_argument, backend_array, normalize_axis, reduction_axes, scalar_value, xp_of
from ._array import Array, _new, wrap
from ._cuda import LEGACY_DEFAULT_STREAM as _NEW_STREAM
from ._devices import CPU
from ._docs import Doc, Sections, declare, entries, section
from ._dtypes import ALL_DTYPES, BY_NUMPY, DType, as_dtype

__all__ = [
    "cumulative_prod",
    "cumulative_sum",
    "max",
    "mean",
    "min",
    "prod",
    "std",
    "sum",
    "var",
]

_INT64 = np.dtype(np.int64)
_UINT64 = np.dtype(np.uint64)
_FLOAT64 = np.dtype(np.float64)
_FLOAT32 = np.dtype(np.float32)
_FLOAT16 = np.dtype(np.float16)


# ---------------------------------------------------------------- shared helpers


def _reduced_shape(shape: tuple[int, ...], axes: tuple[int, ...], keepdims: bool) -> tuple[int, ...]:
    if keepdims:
        return tuple([1 if i in axes else n for i, n in enumerate(shape)])
    return tuple([n for i, n in enumerate(shape) if i not in axes])


def _numpy_dtype(dtype: Any, name: str) -> np.dtype:
    """The backend dtype of a ``dtype=`` argument; TypeError for one no backend computes in."""
    resolved = as_dtype(dtype)
    if resolved.numpy_dtype is None:
        raise TypeError(f"{name}() cannot compute in {resolved.name}")
    return resolved.numpy_dtype


def _accumulation_dtype(x: Array, dtype: Any, name: str) -> np.dtype:
    """The dtype ``sum``/``prod``/``cumulative_*`` compute and return in.

    Without ``dtype``, integers narrower than the default integer (int64) accumulate in int64
    (uint64 for unsigned ones), as the standard requires; bool counts in int64; floating-point
    types are kept.
    """
    if dtype is not None:
        return _numpy_dtype(dtype, name)
    accumulated = _default_accumulation(x._dtype)
    if accumulated is None:
        raise TypeError(f"{name}() cannot compute with {x._dtype.name} arrays")
    return accumulated


def _default_accumulation(dtype: DType) -> np.dtype | None:
    """The dtype ``sum``/``prod`` accumulate ``dtype`` in without a ``dtype=`` argument (None for a
    dtype no backend computes with)."""
    kind = dtype.category
    if kind == "signed integer" or kind == "bool":
        return _INT64
    if kind == "unsigned integer":
        return _UINT64
    return dtype.numpy_dtype


def _host_accumulation() -> list[tuple[np.dtype, DType] | None]:
    """Each dtype (by its ``_index``) -> the dtype ``sum`` and ``prod`` accumulate and return it in,
    as numpy's and as dlarray's, for their first path; None for those numpy lacks. A list: no
    hashing on the hot path (a numpy dtype's hash is worked out at every lookup)."""
    found: list[tuple[np.dtype, DType] | None] = [None] * len(ALL_DTYPES)
    for dtype in ALL_DTYPES:
        accumulated = _default_accumulation(dtype) if dtype.numpy_dtype is not None else None
        if accumulated is not None:
            found[dtype._index] = (accumulated, BY_NUMPY[accumulated])
    return found


def _returns_arrays() -> bool:
    """Whether numpy's reductions take ``out=...`` (numpy 2.3 and newer): a 0-d array back, where
    they give a numpy scalar otherwise (that ``wrap`` would copy into a 0-d array)."""
    try:
        np.add.reduce(np.zeros(1), out=...)
    except TypeError:
        return False
    return True


_HOST_ACCUMULATION = _host_accumulation()
# numpy's reductions for the first path of sum and prod; none before numpy 2.3 (the general path)
_HOST_REDUCTIONS = {"sum": np.add.reduce, "prod": np.multiply.reduce} if _returns_arrays() else {}


def _full(xp: Any, shape: tuple[int, ...], value: Any, dtype: Any) -> Array:
    return wrap(xp.full(shape, value, dtype=dtype))


def _reduction(x: Array, axis: Axis, keepdims: bool, name: str, dtype: DType | None = None) -> Array:
    """``name`` (sum, prod, max, min, all, any) of ``x`` over ``axis``, as an Array.

    ``dtype`` is the ``dtype=`` argument of sum and prod (resolved by :func:`_accumulation_dtype`);
    max and min refuse an empty reduction, which has no identity.
    """
    native = backend_array(x, name)
    # axis=None (the common call) is the backend's flat reduction over every axis, with nothing
    # to normalise
    axes = None if axis is None else reduction_axes(axis, native.ndim)
    accumulating = name == "sum" or name == "prod"
    if accumulating:
        dtype = _accumulation_dtype(x, dtype, name)
    elif name == "max" or name == "min":
        shape = native.shape
        if any([shape[a] == 0 for a in axes]) if axes is not None else 0 in shape:
            raise ValueError(f"{name}() of an empty selection: the reduction has no elements and no identity")
    # all, any: the logical reductions take any input and give bool
    backend_axis = None if axes is None else axis_argument(axes, native.ndim)
    reduce = x._device.backend.reduce
    if accumulating:
        return wrap(reduce(name, native, backend_axis, keepdims, dtype))
    return wrap(reduce(name, native, backend_axis, keepdims))


# ---------------------------------------------------------------- the functions that are one reduction
# What their docstrings share; each function's own words are its record below.
AXIS = "Axis or axes to reduce; ``None`` reduces all of them."
KEEPDIMS = "Keep the reduced axes as size-1 dimensions."
AXIS_ERROR = "An axis out of range (``AxisError``, also an `IndexError`)."
_ERRORS = {
    "TypeError": "``x`` is not an Array, or of a stored-only dtype (bfloat16, float8/6/4).",
    "ValueError": AXIS_ERROR,
}
_WORDS = {
    "axis": AXIS,
    "keepdims": KEEPDIMS,
    "correction": "Degrees of freedom subtracted from the element count ``M`` (1 for the sample estimate).",
}

_DOCS = {
    "sum": Doc(
        """
        Sum of the elements along ``axis`` (all of them by default).
        """,
        params={
            "x": "Numeric input array.",
            "dtype": "Dtype to accumulate and return in. ``None``: integers accumulate in int64 (uint64 if "
                     "unsigned), floating-point types keep their own.",
        },
        returns="The sums; 0-d when every axis is reduced. An empty sum is 0.",
        examples="""
        >>> x = xp.asarray([[1, 2], [3, 4]], dtype=xp.int8)
        >>> xp.sum(x), xp.sum(x, axis=0, keepdims=True)
        (Array(10, dtype=int64, device=cpu), Array([[4, 6]], dtype=int64, device=cpu))
        """,
    ),
    "prod": Doc(
        """
        Product of the elements along ``axis`` (all of them by default).
        """,
        params={
            "x": "Numeric input array.",
            "dtype": "Dtype to accumulate and return in; ``None`` follows the same rule as :func:`sum`.",
        },
        returns="The products; 0-d when every axis is reduced. An empty product is 1.",
        examples="""
        >>> xp.prod(xp.asarray([[1.0, 2.0], [3.0, 4.0]]), axis=1)
        Array([ 2., 12.], dtype=float64, device=cpu)
        """,
    ),
    "max": Doc(
        """
        Largest element along ``axis`` (NaNs propagate).
        """,
        examples="""
        >>> xp.max(xp.asarray([[1, 5], [7, 2]]), axis=1)
        Array([5, 7], dtype=int64, device=cpu)
        >>> xp.max(xp.asarray([1.0, float("nan")]))
        Array(nan, dtype=float64, device=cpu)
        """,
    ),
    "min": Doc(
        """
        Smallest element along ``axis`` (NaNs propagate).
        """,
        examples="""
        >>> xp.min(xp.asarray([[1, 5], [7, 2]]), axis=0, keepdims=True)
        Array([[1, 2]], dtype=int64, device=cpu)
        """,
    ),
    "var": Doc(
        """
        Variance along ``axis``, dividing by ``M - correction``.
        """,
        params={"x": "Real floating-point input array (integer arrays give float64 variances)."},
        returns="Same dtype as ``x`` for floating-point input; NaN where ``M - correction <= 0``.",
        examples="""
        >>> x = xp.asarray([1.0, 2.0, 3.0, 4.0])
        >>> xp.var(x), xp.var(x, correction=1)
        (Array(1.25, dtype=float64, device=cpu), Array(1.66666667, dtype=float64, device=cpu))
        """,
    ),
    "std": Doc(
        """
        Standard deviation along ``axis``, the square root of :func:`var`.
        """,
        params={"x": "Real floating-point input array (integer arrays give float64 results)."},
        returns="Same dtype as ``x`` for floating-point input; NaN where ``M - correction <= 0``.",
        examples="""
        >>> xp.std(xp.asarray([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]))
        Array(2., dtype=float64, device=cpu)
        """,
    ),
}


class Reduction(Protocol):
    """The signature of a reduction over axes (``max``, ``all``, ...), as a type checker reads it."""

    def __call__(
        self, x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False
    ) -> Array: ...


class _Accumulation(Protocol):
    """The signature of ``sum`` and ``prod``, as a type checker reads it."""

    def __call__(
        self, x: Array, /, *, axis: int | tuple[int, ...] | None = None, dtype: DType | None = None,
        keepdims: bool = False,
    ) -> Array: ...


class _Spread(Protocol):
    """The signature of ``var`` and ``std``, as a type checker reads it."""

    def __call__(
        self, x: Array, /, *, axis: int | tuple[int, ...] | None = None, correction: float = 0.0,
        keepdims: bool = False,
    ) -> Array: ...


def _accumulation(name: str) -> _Accumulation:
    """``sum`` or ``prod``: the backend's reduction in the standard's accumulation dtype."""
    host = _HOST_REDUCTIONS.get(name)

    def function(
        x: Array, /, *, axis: int | tuple[int, ...] | None = None, dtype: DType | None = None,
        keepdims: bool = False,
    ) -> Array:
        # The commonest call, over every element of a CPU array numpy views already, in the
        # default dtype: numpy's reduction called as the host backend's reduce calls it, its 0-d
        # result made an Array as wrap makes new host memory one. Any other call, the general
        # path: the same Arrays, and every refusal.
        if axis is None and dtype is None and keepdims is False and type(x) is Array and x._device is CPU:
            native = x._native
            if native is not None and host is not None:
                accumulated, result_dtype = _HOST_ACCUMULATION[x._dtype._index]  # type: ignore[misc]
                result = host(native, None, accumulated, out=...)
                return _new(result, result, result_dtype, CPU, _NEW_STREAM)
        return _reduction(x, axis, keepdims, name, dtype)

    return declare(function, name, _DOCS[name], words=_WORDS, errors=_ERRORS)


def _extremum(name: str) -> Reduction:
    """``max`` or ``min``: the backend's reduction, refused over no elements."""

    def function(x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Array:
        return _reduction(x, axis, keepdims, name)

    return declare(
        function, name, _DOCS[name],
        words={"x": "Real-valued input array.", **_WORDS},
        returned="Same dtype as ``x``. Raises ValueError when a reduction has no elements.",
        errors={**_ERRORS, "ValueError": f"{_ERRORS['ValueError']} A reduction over no elements."},
    )


def _spread_of(name: str) -> _Spread:
    """``var`` or ``std``, NaN where ``M - correction <= 0``."""

    def function(
        x: Array, /, *, axis: int | tuple[int, ...] | None = None, correction: float = 0.0,
        keepdims: bool = False,
    ) -> Array:
        return _spread(x, axis, correction, keepdims, name)

    return declare(function, name, _DOCS[name], words=_WORDS, errors=_ERRORS)


def _spread(x: Array, axis: Axis, correction: Any, keepdims: bool, name: str) -> Array:
    native = backend_array(x, name)
    correction = scalar_value(correction, f"{name}() correction")
    if isinstance(correction, bool) or not isinstance(correction, (int, float)):
        raise TypeError(f"{name}(): correction must be an int or a float, got {type(correction).__name__}")
    axes = reduction_axes(axis, x.ndim)
    xp = xp_of(x)
    kind = x._dtype.category
    dtype = _FLOAT64 if kind in INTEGER_KINDS or kind == "bool" else None
    count = math.prod([x.shape[a] for a in axes])
    if count - correction <= 0:
        # numpy divides by max(M - ddof, 0) and gives inf or NaN with a warning; the standard: NaN
        result_dtype = dtype if dtype is not None else np.empty(0, native.dtype).real.dtype
        return _full(xp, _reduced_shape(x.shape, axes, keepdims), math.nan, result_dtype)
    reduce = getattr(xp, name)
    return wrap(reduce(native, axis=axis_argument(axes, x.ndim), dtype=dtype, ddof=correction, keepdims=keepdims))


sum = _accumulation("sum")
prod = _accumulation("prod")
max = _extremum("max")
min = _extremum("min")


# ---------------------------------------------------------------- mean
_doc = Sections(
    axis_keepdims=entries([("axis", AXIS), ("keepdims", KEEPDIMS)]),
    errors=section("Raises", _ERRORS.items()),
)


@_doc
def mean(
    x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False, dtype: DType | None = None,
) -> Array:
    """Arithmetic mean along ``axis`` (all elements by default).

    Parameters
    ----------
    x
        Floating-point input array (integer arrays give float64 means).
    {axis_keepdims}
    dtype
        Outside the standard, as numpy's ``mean(x, dtype=)``: the dtype to add up and divide in,
        and to return (cubed's ``var`` and ``std`` ask for it). ``None``: the standard's rule.

    Returns
    -------
    Array
        Same dtype as ``x`` for floating-point input (``dtype`` where given). The mean of no
        elements is NaN.

    {errors}

    {examples}
    >>> xp.mean(xp.asarray([[1.0, 2.0], [3.0, 5.0]]), axis=0)
    Array([2. , 3.5], dtype=float64, device=cpu)
    >>> xp.mean(xp.asarray([1.0, 2.0], dtype=xp.float32), dtype=xp.float64)
    Array(1.5, dtype=float64, device=cpu)
    """
    native = backend_array(x, "mean")
    axes = reduction_axes(axis, x.ndim)
    xp = xp_of(x)
    if dtype is not None:
        dtype = _numpy_dtype(dtype, "mean")
    else:
        kind = x._dtype.category
        # integers average in float64; floating types keep theirs (numpy accumulates float16 in float32)
        dtype = _FLOAT64 if kind in INTEGER_KINDS or kind == "bool" else None
    shape = x.shape
    count = math.prod([shape[a] for a in axes])
    if count == 0:
        # numpy warns and divides 0 by 0; the standard asks for NaN (NaN + NaN j for complex)
        result_dtype = dtype if dtype is not None else native.dtype
        nan = complex(math.nan, math.nan) if result_dtype.kind == "c" else math.nan
        return _full(xp, _reduced_shape(shape, axes, keepdims), nan, result_dtype)
    backend = x._device.backend
    return wrap(backend.mean(native, axis=axis_argument(axes, x.ndim), dtype=dtype, keepdims=keepdims, count=count))


var = _spread_of("var")
std = _spread_of("std")


# ---------------------------------------------------------------- cumulative
_CUMULATIVE_DOCS = {
    "cumulative_sum": Doc(
        """
        Running sum along ``axis``.
        """,
        params={
            "dtype": "Dtype to accumulate and return in; ``None`` follows the same rule as :func:`sum`.",
            "include_initial": "Start the result with the additive identity (0): the axis grows by one.",
        },
        examples="""
        >>> xp.cumulative_sum(xp.asarray([1, 2, 3]), include_initial=True)
        Array([0, 1, 3, 6], dtype=int64, device=cpu)
        """,
    ),
    "cumulative_prod": Doc(
        """
        Running product along ``axis``.
        """,
        params={
            "dtype": "Dtype to accumulate and return in; ``None`` follows the same rule as :func:`prod`.",
            "include_initial": "Start the result with the multiplicative identity (1): the axis grows by "
                               "one.",
        },
        examples="""
        >>> xp.cumulative_prod(xp.asarray([[1, 2], [3, 4]]), axis=0)
        Array([[1, 2],
               [3, 8]], dtype=int64, device=cpu)
        """,
    ),
}


class _Cumulative(Protocol):
    """The signature of ``cumulative_sum`` and ``cumulative_prod``, as a type checker reads it."""

    def __call__(
        self, x: Array, /, *, axis: int | None = None, dtype: DType | None = None,
        include_initial: bool = False,
    ) -> Array: ...


def _cumulative_of(name: str, identity: int) -> _Cumulative:
    """The running sum (``identity`` 0) or product (1) along an axis."""

    def function(
        x: Array, /, *, axis: int | None = None, dtype: DType | None = None, include_initial: bool = False
    ) -> Array:
        return _cumulative(x, axis, dtype, include_initial, name, identity)

    return declare(
        function, name, _CUMULATIVE_DOCS[name],
        words={
            "x": "Numeric input array.",
            "axis": "Axis to accumulate along; optional only for 1-D arrays.",
        },
        returned="Same shape as ``x`` (one more along ``axis`` with ``include_initial``).",
        errors={
            "TypeError": _ERRORS["TypeError"],
            "ValueError": "No ``axis`` for an array of more than one dimension; an axis out of range "
                          "(``AxisError``, also an `IndexError`).",
        },
    )


def _cumulative(
    x: Array,
    axis: int | None,
    dtype: Any,
    include_initial: bool,
    name: str,
    identity: int,
) -> Array:
    native = backend_array(x, name)
    if native.ndim == 0:
        # unspecified by the standard; like numpy, a 0-d array accumulates as a 1-element vector
        native = native.reshape(1)
    if axis is None:
        if native.ndim > 1:
            raise ValueError(f"{name}() needs an axis for an array with {native.ndim} dimensions")
        axis = 0
    axis = normalize_axis(axis, native.ndim)
    result_dtype = _accumulation_dtype(x, dtype, name)
    xp = xp_of(x)
    accumulate = xp.cumsum if identity == 0 else xp.cumprod
    if not include_initial:
        return wrap(accumulate(native, axis=axis, dtype=result_dtype))
    shape = list(native.shape)
    shape[axis] += 1
    out = xp.empty(tuple(shape), dtype=result_dtype)
    head = (slice(None),) * axis
    out[head + (slice(0, 1),)] = identity
    # accumulate straight into the result, after the initial value: no second copy
    accumulate(native, axis=axis, dtype=result_dtype, out=out[head + (slice(1, None),)])
    return wrap(out)


cumulative_sum = _cumulative_of("cumulative_sum", 0)
cumulative_prod = _cumulative_of("cumulative_prod", 1)
