"""Indexing an Array: what ``x[key]`` selects and ``x[key] = value`` writes.

Basic keys (integers, slices, ``...``, ``None``) give views: through the backend where one computes
with the array, by metadata alone (:func:`basic_geometry`) where none does. Integer arrays gather
and masks select, through the backend or, for dtypes it lacks, through the elements' bits
(:func:`selected_bits`). Assignment casts the value to the array's dtype; a complex value into a
real array is refused. The Array's ``__getitem__`` and ``__setitem__`` make the results.

Part of the core, below the Array: it reads an Array's fields and calls its backend, and makes
no Array (an Array in a key or a value is recognised as an instance of the indexed array's class).
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

import numpy as np

from ._backend import numeric_native
from ._devices import devices_differ
from ._dtypes import INTEGER_KINDS, PYTHON_SCALARS
from ._float_formats import encode
from ._storage import bits_view

if TYPE_CHECKING:
    from ._array import Array

_ndarray = np.ndarray


def _key_tuple(key: Any) -> tuple[Any, ...]:
    return key if type(key) is tuple else (key,)


def basic_geometry(array: Array, key: Any) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """Basic indexing (integers, slices, ``...``, ``None``) by metadata alone: the byte offset,
    shape and strides of the view ``array[key]``, no backend.

    For arrays no backend can compute with (e.g. CUDA without cupy, bfloat16 on CPU): the view
    shares the owner and points into the same buffer.
    """
    array._ensure_metadata()
    if array._dtype.bits < 8 and not array._flags & 4:
        raise TypeError(f"packed {array._dtype} arrays (several elements per byte) cannot be indexed")
    items = _key_tuple(key)
    shape, strides = array._shape, array._strides
    ndim = len(shape)
    ellipses = sum([1 for item in items if item is Ellipsis])
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum([1 for item in items if item is not None and item is not Ellipsis])
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
    return array._offset + offset * array._dtype.itemsize, tuple(new_shape), tuple(new_strides)




def _array_item(array: Array, item: Array) -> Any:
    """One Array in a key: an int for a 0-d integer array, the backend array otherwise."""
    if item._device is not array._device:
        raise ValueError(devices_differ(array._device, item._device, "the array and its index array"))
    kind = item._dtype.category
    if kind in INTEGER_KINDS:
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
    array_type = type(array)  # the Array class (every Array is exactly of it)
    converted: list[Any] = []
    basic = True
    has_ellipsis = False
    for item in _key_tuple(key):
        kind = type(item)
        if kind is int or kind is slice or item is None:
            pass
        elif kind is array_type:
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
    if not all([m in (n, 0) for m, n in zip(item.shape, shape)]):
        return (item,)  # a genuine mismatch: numpy raises the IndexError
    empty = array._device.backend.xp.zeros(0, dtype=np.intp)
    return (empty,) * item.ndim


def is_basic(array: Array, key: Any) -> bool:
    """Whether ``key`` holds only integers, slices, ``...`` and ``None`` (a view by metadata)."""
    array_type = type(array)
    for item in _key_tuple(key):
        kind = type(item)
        if kind is array_type:
            if item.ndim or item._dtype.category not in INTEGER_KINDS:
                return False
        elif kind is bool or isinstance(item, (_ndarray, list, tuple, np.bool_)) or not (item is None or item is Ellipsis or kind is slice or hasattr(kind, "__index__")):
            return False
    return True


def selected_bits(array: Array, key: Any) -> np.ndarray:
    """Integer-array and mask selection for arrays no backend computes with (bfloat16, float8...):
    the selected elements as unsigned integers of their width, selected through a view of the
    bytes (host memory only): selecting needs no arithmetic on the values."""
    return bits_view(array)[_native_key(array, key)]


def raw_setitem(array: Array, key: Any, value: Any) -> None:
    """Assignment for arrays no backend computes with (bfloat16, float8...), on host memory: an
    Array of the same dtype is copied bit for bit; any other value (an Array, a Python scalar,
    what asarray accepts) is converted to the array's format, rounded to nearest even as
    ``astype`` rounds."""
    is_array = type(value) is type(array)
    if is_array and value._device is not array._device:
        raise ValueError(devices_differ(array._device, value._device, "the array and the value"))
    _refuse_complex_into_real(array, value)
    if is_array and value._dtype is array._dtype:
        bits = bits_view(value)
    else:
        if is_array:
            values = value._printable() if value._dtype.numpy_dtype is None else value._host_native()
        else:
            values = numeric_native(array._device, value) if type(value) not in PYTHON_SCALARS else np.asarray(value)
        bits = encode(np.asarray(values, dtype=np.float64), array._dtype)
    try:
        bits_view(array)[_native_key(array, key)] = bits
    except (IndexError, OverflowError):
        _refuse_index_beyond_64_bits(array, key)
        raise


def native_getitem(array: Array, key: Any) -> Any:
    """Index through the backend: the backend's result (a view that shares the buffer for basic
    indices). Integer arrays (broadcast together with any integers) gather, boolean masks select;
    both give new arrays. Out-of-range integers raise IndexError.
    """
    native = array._as_native()
    kind = type(key)
    # the common keys skip the general conversion: a slice is always a view in numpy, and an
    # integer becomes one with a trailing ``...``
    try:
        if kind is slice:
            return native[key]
        if kind is int:
            return native[key, ...]
        return native[_native_key(array, key)]
    except (IndexError, OverflowError):
        _refuse_index_beyond_64_bits(array, key)
        raise


def setitem(array: Array, key: Any, value: Any) -> None:
    """Assign ``value`` into ``array[key]`` through the backend.

    ``value`` is an Array, a Python scalar, or anything else numpy (cupy on CUDA) converts to
    numbers as ``asarray`` does: a numpy array, a nested list, tuple or range, a buffer... It
    broadcasts to the selection and is cast to the array's dtype; the array's dtype and shape
    never change. A complex value into a real array is a TypeError (the imaginary part would be
    lost).
    """
    if type(value) is type(array):
        if value._device is not array._device:
            raise ValueError(devices_differ(array._device, value._device, "the array and the value"))
        _refuse_complex_into_real(array, value)
        value = value._as_native()
    elif type(value) not in (bool, int, float):
        _refuse_complex_into_real(array, value)
        if type(value) is not complex:
            value = numeric_native(array._device, value)
    native = array._as_native()
    if type(value) in (float, complex) and value == 0 and not array._device.backend.host_native:
        # cupy fills with zero bytes for any zero scalar, which would turn -0.0 into +0.0: a
        # zero goes as a 0-d array of the array's dtype (copied bit for bit)
        value = array._device.backend.xp.asarray(value, dtype=native.dtype)
    try:
        native[_native_key(array, key)] = value
    except (IndexError, OverflowError):
        _refuse_index_beyond_64_bits(array, key)
        raise


def _refuse_complex_into_real(array: Array, value: Any) -> None:
    """TypeError for a complex value (scalar or array) assigned into a real or integer array."""
    if array._dtype.category == "complex floating":
        return
    dtype = getattr(value, "dtype", None)
    complex_array = dtype is not None and getattr(dtype, "kind", None) in ("c", "complex floating")
    if isinstance(value, complex) or complex_array:
        raise TypeError(
            f"cannot assign a complex value into a {array._dtype} array: the imaginary part would be "
            f"lost (assign its real part, or make the array complex)"
        )


_INDEX_LIMIT = 2**63  # numpy indices are C ssize_t


def _refuse_index_beyond_64_bits(array: Array, key: Any) -> None:
    """IndexError (out of bounds) for an integer of ``key`` beyond 64 bits, which numpy reports as
    an invalid index type or an OverflowError; nothing if there is none (numpy's error stands)."""
    items = _key_tuple(key)
    consumed = sum([1 for item in items if item is not None and item is not Ellipsis])
    axis = 0
    for item in items:
        if item is Ellipsis:
            axis += array.ndim - consumed
        elif item is not None:
            if axis >= array.ndim:
                return  # too many indices: numpy's own error says so
            if type(item) is int and not -_INDEX_LIMIT <= item < _INDEX_LIMIT:
                raise IndexError(f"index {item} is out of bounds for axis {axis} with size {array.shape[axis]}") from None
            axis += 1
