"""Indexing: views by metadata arithmetic where no backend exists, and backend indexing otherwise."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ._array import Array

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


def _native_key(array: Array, key: Any) -> Any:
    """The key with Arrays replaced by backend arrays; integer-only keys keep a 0-d view."""
    from ._array import Array

    items = _key_tuple(key)
    converted = []
    all_basic = True
    has_ellipsis = False
    for item in items:
        if type(item) is Array:
            if item._device is not array._device:
                raise ValueError(f"index array is on {item._device}, the array on {array._device}")
            if item.ndim == 0 and item._dtype.kind in ("signed integer", "unsigned integer"):
                converted.append(int(item))
                continue
            converted.append(item._as_native())
            all_basic = False
        else:
            if item is Ellipsis:
                has_ellipsis = True
            elif not (item is None or isinstance(item, (int, slice))) or isinstance(item, bool):
                all_basic = False
            converted.append(item)
    if all_basic and not has_ellipsis:
        # numpy returns a scalar copy for x[1, 2]; x[1, 2, ...] is a 0-d view, as the standard wants
        converted.append(Ellipsis)
    return tuple(converted)


def getitem(array: Array, key: Any) -> Array:
    """Index through the backend; basic indices give views that share the buffer."""
    from ._array import wrap

    return wrap(array._as_native()[_native_key(array, key)])


def setitem(array: Array, key: Any, value: Any) -> None:
    """Assign ``value`` (an Array or a Python scalar) into ``array[key]`` through the backend."""
    from ._array import Array

    if type(value) is Array:
        if value._device is not array._device:
            raise ValueError(f"value is on {value._device}, the array on {array._device}")
        value = value._as_native()
    elif not isinstance(value, (bool, int, float, complex)):
        raise TypeError(f"can only assign an Array or a Python scalar, not {type(value).__name__}")
    array._as_native()[_native_key(array, key)] = value
