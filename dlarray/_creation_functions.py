"""Array creation functions (Array API "Creation Functions"): from_dlpack, asarray, and friends."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import Array, wrap
from ._devices import CPU, Device, as_device
from ._dlpack import (
    DLPACK_VERSION,
    FLAG_IS_SUBBYTE_TYPE_PADDED,
    FLAG_READ_ONLY,
    CapsuleType,
    DLDeviceType,
    TensorInfo,
    consume_capsule,
)
from ._dtypes import DType, as_dtype, from_numpy_dtype
from . import _interfaces

__all__ = ["asarray", "from_dlpack"]

_ndarray = np.ndarray
_DLPACK_VERSION = DLPACK_VERSION


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> Array:
    """Import any DLPack producer (or a bare DLPack capsule) as an Array, zero-copy.

    Parameters
    ----------
    x
        An object with ``__dlpack__`` (numpy, torch, jax, cupy, array-api-strict, another
        dlarray Array, ...) or a ``PyCapsule`` named ``dltensor``/``dltensor_versioned``.
    device
        Device for the result. ``None``: where ``x`` is. Another device asks the producer for a
        copy there (``dl_device``).
    copy
        ``True``: always copy. ``False``: never copy (BufferError if the producer would have to).
        ``None``: copy only if needed.

    Returns
    -------
    Array
        Sharing ``x``'s memory unless a copy was asked for or needed. The producer's deleter runs
        exactly once, when the last Array or view of the buffer is gone.

    Raises
    ------
    TypeError
        ``x`` supports no DLPack.
    BufferError
        The capsule was consumed already, is malformed, or holds a tensor dlarray cannot describe;
        or ``copy=False`` and a copy is needed.
    """
    target = None if device is None else as_device(device)
    kind = type(x)
    if kind is Array:
        array = x
    elif kind is _ndarray:
        array = _from_numpy(x)
    elif kind is CapsuleType:
        array = Array._from_tensor(*consume_capsule(x))
    else:
        method = getattr(x, "__dlpack__", None)
        if method is None:
            raise TypeError(f"{kind.__name__} does not support DLPack (no __dlpack__ method)")
        if target is None and copy is None:
            try:
                capsule = method(max_version=_DLPACK_VERSION)
            except TypeError:  # a producer from before DLPack 1.0: no keywords at all
                capsule = method()
        else:
            options: dict[str, Any] = {"copy": copy}
            if target is not None:
                options["dl_device"] = (target.type, target.id)
            try:
                capsule = method(max_version=_DLPACK_VERSION, **options)
            except TypeError:
                capsule = method()  # it cannot honour dl_device/copy: done here below
        info, owner = consume_capsule(capsule)
        array = Array._from_tensor(info, owner)
        if info.is_copied:
            if copy is False:
                raise BufferError("the producer copied the data although copy=False was asked for")
            copy = None  # done already
    if target is not None and target is not array._device:
        if copy is False:
            raise BufferError(f"moving the data from {array._device} to {target} needs a copy, and copy=False forbids it")
        return array.to_device(target)
    if copy:
        return array._copy()
    return array


def _from_numpy(native: np.ndarray) -> Array:
    """Adopt a numpy array (our own backend type) without a capsule: same memory, same owner."""
    dtype = from_numpy_dtype(native.dtype)
    itemsize = native.itemsize
    if any(s % itemsize for s in native.strides):
        raise BufferError(
            f"numpy array strides {native.strides} are not multiples of its itemsize {itemsize}; "
            f"DLPack counts strides in elements"
        )
    array = wrap(native)
    array._dtype = dtype
    return array


def asarray(
    obj: Any,
    /,
    *,
    dtype: Any = None,
    device: Any = None,
    copy: bool | None = None,
) -> Array:
    """Convert ``obj`` to an Array, zero-copy wherever the source allows it.

    Parameters
    ----------
    obj
        An Array; any DLPack producer; an object with ``__cuda_array_interface__`` (v2/v3, the
        device memory is never read) or ``__array_interface__`` (v3); a buffer-protocol object
        (``bytes`` gives a read-only uint8 array; ``bytearray``, ``array.array``, ``memoryview``
        including strided ones); a Python scalar or a nested sequence (copied into a new buffer).
    dtype
        Data type of the result. A different dtype than the source's means a copy.
    device
        Device of the result. A different device than the source's means a copy.
    copy
        ``True``: always copy. ``False``: never copy; ValueError if a copy is needed.
        ``None``: copy only if needed.

    Returns
    -------
    Array
    """
    target_dtype = None if dtype is None else as_dtype(dtype)
    target_device = None if device is None else as_device(device)
    kind = type(obj)
    if kind is Array:
        array = obj
    elif kind is _ndarray:
        array = _from_numpy(obj)
    elif kind in (bool, int, float, complex) or isinstance(obj, (list, tuple)) or isinstance(obj, np.generic):
        if copy is False:
            raise ValueError(f"a {kind.__name__} must be copied into a new buffer, and copy=False forbids it")
        return _from_python(obj, target_dtype, target_device)
    elif hasattr(obj, "__dlpack__") and not isinstance(obj, (bytes, bytearray, memoryview)):
        array = from_dlpack(obj, copy=False if copy is False else None)
    elif hasattr(obj, "__cuda_array_interface__"):
        array = Array._from_tensor(*_interfaces.from_cuda_array_interface(obj))
    elif hasattr(obj, "__array_interface__"):
        array = Array._from_tensor(*_interfaces.from_array_interface(obj))
    elif _interfaces.supports_buffer(obj):
        array = Array._from_tensor(*_interfaces.from_buffer(obj))
    else:
        raise TypeError(f"cannot make an array from {kind.__name__}")
    copied = False
    if target_device is not None and target_device is not array._device:
        if copy is False:
            raise ValueError(f"moving the data from {array._device} to {target_device} needs a copy, and copy=False forbids it")
        array = array.to_device(target_device)
        copied = True
    if target_dtype is not None and target_dtype is not array._dtype:
        if copy is False:
            raise ValueError(f"converting {array._dtype} to {target_dtype} needs a copy, and copy=False forbids it")
        return wrap(array._as_native().astype(target_dtype.numpy_dtype))
    if copy and not copied:
        return array._copy()
    return array


_DEFAULT_FOR_PYTHON = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}


def _from_python(obj: Any, dtype: DType | None, device: Device | None) -> Array:
    """Copy a Python scalar or nested sequence into a new buffer (numpy builds it)."""
    if dtype is not None:
        numpy_dtype = dtype.numpy_dtype
        if numpy_dtype is None:
            raise TypeError(f"cannot build a {dtype} array from Python values")
    else:
        numpy_dtype = _DEFAULT_FOR_PYTHON.get(type(obj))
    try:
        native = np.array(obj, dtype=numpy_dtype)
    except OverflowError:
        raise OverflowError(f"a Python integer in {obj!r} does not fit the array's dtype") from None
    if native.dtype.kind not in "biufc":
        raise TypeError(f"cannot make an array of {native.dtype} from {type(obj).__name__}")
    array = wrap(native)
    if device is not None and device is not CPU:
        return array.to_device(device)
    return array


def copy_bytes(array: Array) -> Array:
    """A C-contiguous copy of a host array of a dtype numpy lacks (bfloat16, float8/6/4)."""
    array._ensure_metadata()
    dtype = array._dtype
    packed = dtype.bits < 8 and not array._flags & FLAG_IS_SUBBYTE_TYPE_PADDED
    if packed:
        raw = np.frombuffer(_packed_bytes(array), dtype=np.uint8).copy()
    else:
        unsigned = np.dtype(f"u{dtype.itemsize}")
        interface = {
            "version": 3,
            "shape": array._shape,
            "typestr": unsigned.str,
            "data": (array._data + array._offset if array.size else 1, True),
            "strides": tuple(s * dtype.itemsize for s in array._strides),
        }
        raw = np.array(_Holder(interface, array._owner), copy=True, order="C")
    info = TensorInfo(
        raw.__array_interface__["data"][0], 0, array._shape, _c_strides(array._shape),
        dtype.code, dtype.bits, int(array._device.type), array._device.id,
        array._flags & FLAG_IS_SUBBYTE_TYPE_PADDED, None,
    )
    return Array._from_tensor(info, raw)


class _Holder:
    __slots__ = ("__array_interface__", "owner")

    def __init__(self, interface: dict[str, Any], owner: Any) -> None:
        self.__array_interface__ = interface
        self.owner = owner


def _packed_bytes(array: Array) -> bytes:
    import ctypes

    if array._strides != _c_strides(array._shape):
        raise TypeError(f"a strided view of packed {array._dtype} data cannot be copied")
    count = (array.size * array._dtype.bits + 7) // 8
    return ctypes.string_at(array._data + array._offset, count) if count else b""


def _c_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides = []
    step = 1
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))
