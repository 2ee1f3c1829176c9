"""Indexing: views by metadata arithmetic where no backend exists, and backend indexing otherwise."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from . import _backend

# _array imports this module at its end, once Array and wrap exist: the names are there either way.
from ._array import Array, wrap

_ndarray = np.ndarray


def _key_tuple(key: Any) -> tuple[Any, ...]:
    return key if type(key) is tuple else (key,)


def basic_view(array: Array, key: Any) -> Array:
    """Basic indexing (integers, slices, ``...``, ``None``) by metadata alone: a view, no backend.

    Used for arrays no backend can compute with (e.g. CUDA without cupy, bfloat16 on CPU): the
    view shares the owner and points into the same buffer.
    """
    array._ensure_metadata()
    if array._dtype.bits < 8 and not array._flags & 4:
        raise TypeError(f"packed {array._dtype} arrays (several elements per byte) cannot be indexed")
    items = _key_tuple(key)
    shape, strides = array._shape, array._strides
    ndim = len(shape)
    ellipses = sum(1 for item in items if item is Ellipsis)
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(1 for item in items if item is not None and item is not Ellipsis)
    if consumed > ndim:
        raise IndexError(f"too many indices: the array has {ndim} dimensions, the index {consumed}")
    new_shape: list[int] = []
    new_strides: list[int] = []
    offset = 0
    dim = 0
    for item in items:
        if item is None:
            new_shape.append(1)
            new_strides.append(0)
        elif item is Ellipsis:
            for _ in range(ndim - consumed):
                new_shape.append(shape[dim])
                new_strides.append(strides[dim])
                dim += 1
        elif isinstance(item, slice):
            start, stop, step = item.indices(shape[dim])
            length = len(range(start, stop, step))
            if length:
                offset += start * strides[dim]
            new_shape.append(length)
            new_strides.append(strides[dim] * step)
            dim += 1
        else:
            if isinstance(item, bool) or not hasattr(type(item), "__index__"):
                raise IndexError(
                    f"only integers, slices, '...' and None are valid indices for an array without "
                    f"a compute backend, got {type(item).__name__}"
                )
            index = operator.index(item)
            extent = shape[dim]
            if not -extent <= index < extent:
                raise IndexError(f"index {index} is out of bounds for axis {dim} with size {extent}")
            offset += (index % extent) * strides[dim]
            dim += 1
    new_shape.extend(shape[dim:])
    new_strides.extend(strides[dim:])
    return array._view(
        array._offset + offset * array._dtype.itemsize, tuple(new_shape), tuple(new_strides)
    )


_INTEGER_KINDS = frozenset({"signed integer", "unsigned integer"})


def _array_item(array: Array, item: Array) -> Any:
    """One Array in a key: an int for a 0-d integer array, the backend array otherwise."""
    if item._device is not array._device:
        raise ValueError(f"index array is on {item._device}, the indexed array on {array._device}")
    kind = item._dtype.kind
    if kind in _INTEGER_KINDS:
        # a 0-d integer array is the same as the integer it holds (basic indexing, a view)
        return operator.index(item) if item.ndim == 0 else item._as_native()
    if kind == "bool":
        return item._as_native()
    raise IndexError(f"arrays used as indices must have an integer or bool dtype, not {item._dtype}")


def _native_key(array: Array, key: Any) -> tuple[Any, ...]:
    """The key for the backend: Arrays replaced by backend arrays, integer-likes by ints.

    A key of only integers, slices and ``None`` gets a trailing ``...``: numpy then returns a 0-d
    view, not a scalar copy, for ``x[1, 2]``, as the standard wants.
    """
    converted: list[Any] = []
    basic = True
    has_ellipsis = False
    for item in _key_tuple(key):
        kind = type(item)
        if kind is int or kind is slice or item is None:
            pass
        elif kind is Array:
            item = _array_item(array, item)
            basic = basic and type(item) is int
        elif item is Ellipsis:
            has_ellipsis = True
        elif kind is bool or isinstance(item, (_ndarray, list, np.bool_)):
            basic = False  # numpy's own meaning: a 0-d mask, an index array
        elif hasattr(kind, "__index__"):
            item = operator.index(item)  # numpy/torch integer scalars and the like
        else:
            basic = False  # floats, strings...: numpy raises the IndexError
        converted.append(item)
    if len(converted) == 1 and not basic:
        return _sole_mask(array, converted[0])
    if basic and not has_ellipsis:
        converted.append(Ellipsis)
    return tuple(converted)


def _sole_mask(array: Array, item: Any) -> tuple[Any, ...]:
    """A boolean mask as the whole key, with the standard's rule for empty mask dimensions.

    Each mask dimension must match the array's or be 0; numpy refuses the 0 case, which selects
    nothing: the same as that many empty integer index arrays (the mask's ``nonzero()``).
    """
    dtype = getattr(item, "dtype", None)
    if dtype is None or dtype.kind != "b" or item.ndim == 0 or item.size != 0:
        return (item,)
    shape = array.shape
    if item.ndim > len(shape) or item.shape == shape[: item.ndim]:
        return (item,)  # too many dimensions (numpy's IndexError) or an exact match
    if not all(m in (n, 0) for m, n in zip(item.shape, shape)):
        return (item,)  # a genuine mismatch: numpy raises the IndexError
    empty = _backend.namespace_for(array).zeros(0, dtype=np.intp)
    return (empty,) * item.ndim


def _is_basic(key: Any) -> bool:
    """Whether ``key`` holds only integers, slices, ``...`` and ``None`` (a view by metadata)."""
    for item in _key_tuple(key):
        kind = type(item)
        if kind is Array:
            if item.ndim or item._dtype.kind not in _INTEGER_KINDS:
                return False
        elif kind is bool or isinstance(item, (_ndarray, list, tuple, np.bool_)) or not (item is None or item is Ellipsis or kind is slice or hasattr(kind, "__index__")):
            return False
    return True


def raw_getitem(array: Array, key: Any) -> Array:
    """Indexing for arrays no backend computes with (bfloat16, float8..., or CUDA without cupy).

    Basic keys give views by metadata, on any device. Integer arrays and masks select elements
    through an unsigned-integer view of the bytes (host memory only): selecting needs no
    arithmetic on the values.
    """
    if _is_basic(key):
        return basic_view(array, key)
    from ._creation_functions import bits_view, from_bits

    return from_bits(bits_view(array)[_native_key(array, key)], array._dtype)


def raw_setitem(array: Array, key: Any, value: Any) -> None:
    """Assignment for arrays no backend computes with: copies the elements of an Array of the
    same dtype (there is no conversion into these dtypes), on host memory."""
    from ._creation_functions import bits_view

    if type(value) is not Array or value._dtype is not array._dtype:
        got = value._dtype if type(value) is Array else type(value).__name__
        raise TypeError(
            f"assigning into a {array._dtype} array needs an Array of that dtype (dlarray does not "
            f"convert values to {array._dtype}), got {got}"
        )
    if value._device is not array._device:
        raise ValueError(f"value is on {value._device}, the array on {array._device}")
    bits_view(array)[_native_key(array, key)] = bits_view(value)


def getitem(array: Array, key: Any) -> Array:
    """Index through the backend; basic indices give views that share the buffer.

    Integer arrays (broadcast together with any integers) gather, boolean masks select; both give
    new arrays. Out-of-range integers raise IndexError.
    """
    native = array._as_native()
    kind = type(key)
    # the common keys skip the general conversion: a slice is always a view in numpy, and an
    # integer becomes one with a trailing ``...``
    if kind is slice:
        return wrap(native[key])
    if kind is int:
        return wrap(native[key, ...])
    return wrap(native[_native_key(array, key)])


def setitem(array: Array, key: Any, value: Any) -> None:
    """Assign ``value`` (an Array or a Python scalar) into ``array[key]`` through the backend.

    ``value`` broadcasts to the selection and is cast to the array's dtype; the array's dtype
    and shape never change.
    """
    if type(value) is Array:
        if value._device is not array._device:
            raise ValueError(f"value is on {value._device}, the array on {array._device}")
        value = value._as_native()
    elif type(value) not in (bool, int, float, complex):
        raise TypeError(f"can only assign an Array or a Python scalar, not {type(value).__name__}")
    array._as_native()[_native_key(array, key)] = value
