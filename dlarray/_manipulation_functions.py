"""Manipulation Functions (Array API "Manipulation Functions").

Functions that only rearrange the metadata (``broadcast_to``, ``expand_dims``, ``flip``,
``moveaxis``, ``permute_dims``, ``squeeze``, ``unstack`` and ``reshape`` where the layout allows)
return views that share the input's memory, as numpy does; the others return new arrays. Views
of a read-only array are read-only.

Arrays of the extra dtypes numpy cannot compute with (bfloat16, float8/6/4) are handled too: their
elements are moved as unsigned integers of the same width, which is exact.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ._args import normalize_axes, normalize_axis, same_device, source_of, xp_of
from ._array import Array, from_bits, wrap
from ._devices import devices_differ
from ._shapes import broadcast_shapes as _broadcast
from ._data_type_functions import promote_all
from ._storage import bits_view
from ._docs import Sections, section

__all__ = [
    "broadcast_arrays",
    "broadcast_shapes",
    "broadcast_to",
    "concat",
    "expand_dims",
    "flip",
    "moveaxis",
    "permute_dims",
    "repeat",
    "reshape",
    "roll",
    "squeeze",
    "stack",
    "tile",
    "unstack",
]


# ---------------------------------------------------------------------------------- helpers
def _backends_of(arrays: Sequence[Array], function: str) -> tuple[list[Any], Callable[[Any], Array], Any, Any]:
    """The backend arrays of several arrays of one device, wrap, module and common backend dtype."""
    if isinstance(arrays, Array) or not isinstance(arrays, (tuple, list)):
        raise TypeError(f"{function}() takes a tuple or list of Arrays")
    if not arrays:
        raise ValueError(f"{function}() needs at least one array")
    for array in arrays:
        if type(array) is not Array:
            raise TypeError(f"{function}() takes Arrays, got {type(array).__name__}")
    same_device(function, *arrays)
    dtype = promote_all([array._dtype for array in arrays])
    if dtype.numpy_dtype is None:  # all of one extra dtype (promote refuses a mix)
        return [bits_view(a) for a in arrays], lambda raw: from_bits(raw, dtype), np, None
    return [a._as_native() for a in arrays], wrap, xp_of(arrays[0]), dtype.numpy_dtype


# ---------------------------------------------------------------------------------- broadcasting


# What the docstrings share (dlarray._docs.Sections fills each ``{name}`` line in).
_doc = Sections(array_parameter=section("Parameters", [("x", "The array.")]))


@_doc
def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape that arrays of ``shapes`` broadcast to together.

    Parameters
    ----------
    *shapes
        Shapes (tuples of ints); none gives ``()``.

    Returns
    -------
    tuple of int

    Raises
    ------
    ValueError
        The shapes are not broadcast compatible.

    {examples}
    >>> xp.broadcast_shapes((2, 1), (1, 3), (3,))
    (2, 3)
    """
    return _broadcast(*shapes)


@_doc
def broadcast_to(x: Array, /, shape: tuple[int, ...]) -> Array:
    """A read-only view of ``x`` broadcast to ``shape``.

    {array_parameter}
    shape
        The target shape; ``x`` must broadcast to it.

    Returns
    -------
    Array
        A view (repeated elements share memory, hence read-only).

    Raises
    ------
    TypeError
        ``x`` is not an Array.
    ValueError
        ``x`` cannot be broadcast to ``shape``.

    {examples}
    >>> xp.broadcast_to(xp.asarray([1, 2]), (2, 2))
    Array([[1, 2],
           [1, 2]], dtype=int64, device=cpu, readonly=True)
    """
    native, rewrap, backend = source_of(x, "broadcast_to")
    target = tuple([operator.index(extent) for extent in shape])
    if len(target) < x.ndim or broadcast_shapes(x.shape, target) != target:
        raise ValueError(f"an array of shape {x.shape} cannot be broadcast to {target}")
    return rewrap(backend.broadcast_to(native, target))


@_doc
def broadcast_arrays(*arrays: Array) -> tuple[Array, ...]:
    """Broadcast arrays against each other.

    Parameters
    ----------
    *arrays
        Arrays of broadcast-compatible shapes.

    Returns
    -------
    tuple of Array
        One per input, all of the common shape: the input itself if it has that shape already,
        else a read-only broadcast view of it.

    Raises
    ------
    TypeError
        An argument that is not an Array.
    ValueError
        Shapes that do not broadcast together.

    {examples}
    >>> a, b = xp.broadcast_arrays(xp.asarray([[1], [2]]), xp.asarray([10, 20, 30]))
    >>> a.shape, b.shape
    ((2, 3), (2, 3))
    """
    for array in arrays:
        if type(array) is not Array:
            raise TypeError(f"broadcast_arrays() takes Arrays, got {type(array).__name__}")
    shape = broadcast_shapes(*[array.shape for array in arrays])
    return tuple([array if array.shape == shape else broadcast_to(array, shape) for array in arrays])


# ---------------------------------------------------------------------------------- joining
@_doc
def concat(arrays: tuple[Array, ...] | list[Array], /, *, axis: int | None = 0) -> Array:
    """Join arrays along an existing axis.

    Parameters
    ----------
    arrays
        Arrays of one shape except along ``axis``.
    axis
        The axis to join along; ``None``: flatten the arrays first (C order).

    Returns
    -------
    Array
        A new array of the promoted dtype (see :func:`result_type`).

    Raises
    ------
    TypeError
        An element of ``arrays`` is not an Array.
    ValueError
        No arrays; shapes that differ off ``axis``; arrays on different devices; an axis out of
        range (``AxisError``, also an `IndexError`).

    {examples}
    >>> xp.concat([xp.asarray([[1, 2]]), xp.asarray([[3, 4]])])
    Array([[1, 2],
           [3, 4]], dtype=int64, device=cpu)
    >>> xp.concat([xp.asarray([1, 2]), xp.asarray([0.5])], axis=None)
    Array([1. , 2. , 0.5], dtype=float64, device=cpu)
    """
    natives, rewrap, backend, dtype = _backends_of(arrays, "concat")
    if axis is None:
        natives = [backend.reshape(native, (-1,)) for native in natives]
        position = 0
    else:
        ndim = natives[0].ndim
        if ndim == 0:
            raise ValueError("concat() cannot join 0-dimensional arrays along an axis; use axis=None or stack()")
        position = normalize_axis(axis, ndim)
        for native in natives:
            if native.ndim != ndim or _without(native.shape, position) != _without(natives[0].shape, position):
                raise ValueError(
                    f"concat() needs arrays of one shape except along axis {position}, got "
                    f"{', '.join([str(n.shape) for n in natives])}"
                )
    if dtype is None:
        return rewrap(backend.concatenate(natives, axis=position))
    return rewrap(backend.concatenate(natives, axis=position, dtype=dtype))


def _without(shape: tuple[int, ...], axis: int) -> tuple[int, ...]:
    return shape[:axis] + shape[axis + 1 :]


@_doc
def stack(arrays: tuple[Array, ...] | list[Array], /, *, axis: int = 0) -> Array:
    """Join arrays of one shape along a new axis.

    Parameters
    ----------
    arrays
        Arrays of the same shape.
    axis
        Position of the new axis in the result, in ``[-N-1, N]`` for N-dimensional inputs.

    Returns
    -------
    Array
        A new array of the promoted dtype, ``N + 1`` dimensions.

    Raises
    ------
    TypeError
        An element of ``arrays`` is not an Array.
    ValueError
        No arrays; arrays of different shapes or devices; an axis out of range (``AxisError``, also
        an `IndexError`).

    {examples}
    >>> xp.stack([xp.asarray([1, 2]), xp.asarray([3, 4])], axis=1)
    Array([[1, 3],
           [2, 4]], dtype=int64, device=cpu)
    """
    natives, rewrap, backend, dtype = _backends_of(arrays, "stack")
    shape = natives[0].shape
    if any([native.shape != shape for native in natives]):
        raise ValueError(f"stack() needs arrays of one shape, got {', '.join([str(n.shape) for n in natives])}")
    position = normalize_axis(axis, len(shape) + 1)
    if dtype is None:
        return rewrap(backend.stack(natives, axis=position))
    return rewrap(backend.stack(natives, axis=position, dtype=dtype))


@_doc
def unstack(x: Array, /, *, axis: int = 0) -> tuple[Array, ...]:
    """Split an array into views along an axis.

    Parameters
    ----------
    x
        An array of at least one dimension.
    axis
        The axis to split along.

    Returns
    -------
    tuple of Array
        ``x.shape[axis]`` views, each of ``x``'s shape without ``axis``.

    Raises
    ------
    TypeError
        ``x`` is not an Array.
    ValueError
        ``x`` is 0-d; an axis out of range (``AxisError``, also an `IndexError`).

    {examples}
    >>> xp.unstack(xp.asarray([[1, 2], [3, 4]]))
    (Array([1, 2], dtype=int64, device=cpu), Array([3, 4], dtype=int64, device=cpu))
    """
    native, rewrap, backend = source_of(x, "unstack")
    if native.ndim == 0:
        raise ValueError("unstack() needs an array of at least one dimension")
    position = normalize_axis(axis, native.ndim)
    return tuple([rewrap(part) for part in backend.moveaxis(native, position, 0)])


# ---------------------------------------------------------------------------------- axes
@_doc
def expand_dims(x: Array, /, axis: int | tuple[int, ...]) -> Array:
    """A view of ``x`` with a new axis of size one at each position of ``axis``.

    Parameters
    ----------
    x
        The array (N dimensions).
    axis
        Position(s) in the result, each in ``[-M, M)`` with ``M = N + number of positions``.

    Returns
    -------
    Array
        A view with ``M`` dimensions.

    Raises
    ------
    TypeError
        ``x`` is not an Array.
    ValueError
        A position out of range (``AxisError``, also an `IndexError`); two positions that are the
        same axis.

    {examples}
    >>> xp.expand_dims(xp.asarray([1, 2]), axis=(0, -1)).shape
    (1, 2, 1)
    """
    native, rewrap, _ = source_of(x, "expand_dims")
    items = axis if isinstance(axis, tuple) else (axis,)
    ndim = native.ndim + len(items)
    positions = normalize_axes(items, ndim)
    shape = iter(native.shape)
    new_shape = tuple([1 if i in positions else next(shape) for i in range(ndim)])
    return rewrap(native.reshape(new_shape))


@_doc
def squeeze(x: Array, /, axis: int | tuple[int, ...]) -> Array:
    """A view of ``x`` without the given axes, which must have size one.

    {array_parameter}
    axis
        Axis or axes to remove.

    Returns
    -------
    Array
        A view with ``x.ndim - len(axis)`` dimensions.

    Raises
    ------
    TypeError
        ``x`` is not an Array.
    ValueError
        An axis whose size is not one; an axis out of range (``AxisError``, also an `IndexError`).

    {examples}
    >>> xp.squeeze(xp.asarray([[1], [2]]), axis=1)
    Array([1, 2], dtype=int64, device=cpu)
    """
    native, rewrap, _ = source_of(x, "squeeze")
    axes = normalize_axes(axis, native.ndim)
    for position in axes:
        if native.shape[position] != 1:
            raise ValueError(f"cannot squeeze axis {position}: its size is {native.shape[position]}, not 1")
    return rewrap(native.reshape(tuple([e for i, e in enumerate(native.shape) if i not in axes])))


@_doc
def permute_dims(x: Array, /, axes: tuple[int, ...]) -> Array:
    """A view of ``x`` with its axes permuted.

    {array_parameter}
    axes
        A permutation of ``(0, ..., N-1)``; negative entries count from the end.

    Returns
    -------
    Array
        A view of ``x``, its axes in the order of ``axes``.

    Raises
    ------
    TypeError
        ``x`` is not an Array.
    ValueError
        ``axes`` is not a permutation of ``x``'s axes.

    {examples}
    >>> xp.permute_dims(xp.zeros((2, 3, 4)), (2, 0, 1)).shape
    (4, 2, 3)
    """
    native, rewrap, _ = source_of(x, "permute_dims")
    order = normalize_axes(tuple(axes), native.ndim)
    if len(order) != native.ndim:
        raise ValueError(f"axes {tuple(axes)} is not a permutation of the {native.ndim} axes")
    return rewrap(native.transpose(order))


@_doc
def moveaxis(x: Array, source: int | tuple[int, ...], destination: int | tuple[int, ...], /) -> Array:
    """A view of ``x`` with axes moved to new positions, the others keeping their order.

    {array_parameter}
    source
        Axis or axes to move (distinct).
    destination
        Their new positions (distinct, as many as ``source``).

    Returns
    -------
    Array

    Raises
    ------
    TypeError
        ``x`` is not an Array.
    ValueError
        Repeated axes; ``source`` and ``destination`` of different lengths; an axis out of range
        (``AxisError``, also an `IndexError`).

    {examples}
    >>> xp.moveaxis(xp.zeros((2, 3, 4)), 0, -1).shape
    (3, 4, 2)
    """
    native, rewrap, _ = source_of(x, "moveaxis")
    ndim = native.ndim
    sources = normalize_axes(source, ndim, "source")  # numpy names the argument, users' tests match it
    destinations = normalize_axes(destination, ndim, "destination")
    if len(sources) != len(destinations):
        raise ValueError(f"moveaxis() needs as many destinations as sources, got {source!r} and {destination!r}")
    order = [n for n in range(ndim) if n not in sources]
    for target, axis in sorted(zip(destinations, sources)):
        order.insert(target, axis)
    return rewrap(native.transpose(order))


@_doc
def flip(x: Array, /, *, axis: int | tuple[int, ...] | None = None) -> Array:
    """A view of ``x`` with the order of elements reversed along ``axis``.

    {array_parameter}
    axis
        Axis or axes to reverse; ``None``: all of them.

    Returns
    -------
    Array
        A view (negative strides), same shape as ``x``.

    {axis_errors}

    {examples}
    >>> xp.flip(xp.asarray([[1, 2], [3, 4]]), axis=1)
    Array([[2, 1],
           [4, 3]], dtype=int64, device=cpu)
    """
    native, rewrap, _ = source_of(x, "flip")
    axes = range(native.ndim) if axis is None else normalize_axes(axis, native.ndim)
    key = [slice(None)] * native.ndim
    for position in axes:
        key[position] = slice(None, None, -1)
    return rewrap(native[tuple(key)])


# ---------------------------------------------------------------------------------- reshaping
@_doc
def reshape(x: Array, /, shape: tuple[int, ...], *, copy: bool | None = None) -> Array:
    """``x``'s elements (in C order) with another shape.

    {array_parameter}
    shape
        The new shape; one entry may be -1 (inferred).
    copy
        ``True``: always a new array. ``False``: a view or ValueError. ``None``: a view where
        the layout allows one, a copy otherwise.

    Returns
    -------
    Array

    Raises
    ------
    ValueError
        The sizes do not match, or ``copy=False`` and the layout needs a copy.

    {examples}
    >>> xp.reshape(xp.arange(6), (2, -1))
    Array([[0, 1, 2],
           [3, 4, 5]], dtype=int64, device=cpu)
    """
    native, rewrap, backend = source_of(x, "reshape")
    target = _reshape_target(native.shape, shape)
    if copy:
        return rewrap(backend.reshape(native, target, copy=True))
    if copy is False:
        try:
            return rewrap(backend.reshape(native, target, copy=False))
        except ValueError:
            raise ValueError(
                f"reshaping this {native.shape} array to {target} needs a copy, and copy=False forbids it"
            ) from None
    return rewrap(backend.reshape(native, target))


def _reshape_target(current: tuple[int, ...], shape: Any) -> tuple[int, ...]:
    """The new shape with its -1 resolved; ValueError when the sizes cannot match."""
    if type(shape) is tuple:  # the common case: plain sizes of the right product
        known = 1
        for extent in shape:
            if type(extent) is not int or extent < 0:
                break
            known *= extent
        else:
            if known == math.prod(current):
                return shape
    items = shape if isinstance(shape, (tuple, list)) else (shape,)
    target = [operator.index(extent) for extent in items]
    size = 1
    for extent in current:
        size *= extent
    unknown = [i for i, extent in enumerate(target) if extent == -1]
    if len(unknown) > 1 or any([extent < -1 for extent in target]):
        raise ValueError(f"invalid shape {tuple(target)}: at most one -1 and no other negative size")
    known = 1
    for extent in target:
        if extent != -1:
            known *= extent
    if unknown:
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape an array of size {size} into shape {tuple(target)}")
        target[unknown[0]] = size // known
    elif known != size:
        raise ValueError(f"cannot reshape an array of size {size} into shape {tuple(target)}")
    return tuple(target)


@_doc
def roll(
    x: Array,
    /,
    shift: int | tuple[int, ...],
    *,
    axis: int | tuple[int, ...] | None = None,
) -> Array:
    """Shift elements along axes, those leaving at one end re-entering at the other.

    {array_parameter}
    shift
        Places to shift by (per axis when a tuple; then ``axis`` must be a tuple of the same
        length).
    axis
        Axis or axes; ``None``: shift the flattened array and restore the shape.

    Returns
    -------
    Array
        A new array.

    Raises
    ------
    TypeError
        ``x`` is not an Array.
    ValueError
        A tuple ``shift`` without a tuple ``axis`` of its length; an axis out of range
        (``AxisError``, also an `IndexError`).

    {examples}
    >>> xp.roll(xp.asarray([1, 2, 3, 4]), 1)
    Array([4, 1, 2, 3], dtype=int64, device=cpu)
    """
    native, rewrap, backend = source_of(x, "roll")
    if axis is None:
        if isinstance(shift, tuple):
            raise ValueError("roll() with a tuple of shifts needs a tuple of axes")
        return rewrap(backend.roll(native, operator.index(shift)))
    items = axis if isinstance(axis, tuple) else (axis,)
    axes = tuple([normalize_axis(item, native.ndim) for item in items])
    if isinstance(shift, tuple):
        if len(shift) != len(axes):
            raise ValueError(f"roll() needs as many shifts as axes, got {shift!r} and {axis!r}")
        shifts = tuple([operator.index(s) for s in shift])
    else:
        shifts = (operator.index(shift),) * len(axes)
    return rewrap(backend.roll(native, shifts, axis=axes))


@_doc
def repeat(x: Array, repeats: int | Array, /, *, axis: int | None = None) -> Array:
    """Repeat each element of an array.

    {array_parameter}
    repeats
        Repetitions of every element (an int), or of each one (a 1-D integer array of length
        1 or of the axis' size).
    axis
        The axis to repeat along; ``None``: the flattened array (C order).

    Returns
    -------
    Array
        A new array; 1-D when ``axis`` is None.

    Raises
    ------
    TypeError
        ``x`` is not an Array; ``repeats`` is neither an int nor an integer Array.
    ValueError
        A negative count; ``repeats`` of the wrong length; an axis out of range (``AxisError``, also
        an `IndexError`).

    {examples}
    >>> xp.repeat(xp.asarray([1, 2, 3]), xp.asarray([2, 0, 1]))
    Array([1, 1, 3], dtype=int64, device=cpu)
    """
    native, rewrap, backend = source_of(x, "repeat")
    if type(repeats) is Array:
        if repeats._dtype.category not in ("signed integer", "unsigned integer"):
            raise TypeError(f"repeats must have an integer dtype, not {repeats._dtype}")
        if repeats._device is not x._device:
            raise ValueError(devices_differ(x._device, repeats._device, "x and repeats"))
        if repeats.ndim > 1:
            raise ValueError(f"repeats must be one-dimensional, got shape {repeats.shape}")
        counts = repeats._as_native()
    elif isinstance(repeats, bool):
        raise TypeError("repeats must be an int or an integer Array, not a bool")
    else:
        counts = operator.index(repeats)
    if axis is None:
        return rewrap(backend.repeat(backend.reshape(native, (-1,)), counts))
    return rewrap(backend.repeat(native, counts, axis=normalize_axis(axis, native.ndim)))


@_doc
def tile(x: Array, repetitions: tuple[int, ...], /) -> Array:
    """An array made of copies of ``x``, ``repetitions[i]`` along axis ``i``.

    {array_parameter}
    repetitions
        Non-negative counts; the shorter of ``x.shape`` and ``repetitions`` is padded with
        leading ones.

    Returns
    -------
    Array
        A new array of ``max(x.ndim, len(repetitions))`` dimensions.

    Raises
    ------
    TypeError
        ``x`` is not an Array; ``repetitions`` is not a tuple of ints.
    ValueError
        A negative count.

    {examples}
    >>> xp.tile(xp.asarray([1, 2]), (2, 2))
    Array([[1, 2, 1, 2],
           [1, 2, 1, 2]], dtype=int64, device=cpu)
    """
    native, rewrap, backend = source_of(x, "tile")
    counts = tuple([operator.index(r) for r in repetitions])
    if any([r < 0 for r in counts]):
        raise ValueError(f"tile() repetitions must be non-negative, got {counts}")
    return rewrap(backend.tile(native, counts))
