"""Compute backends: the namespace that does the arithmetic for a device, and zero-copy views.

CPU arrays compute with numpy; CUDA arrays with cupy when it is installed. A backend array
("native") is created over an Array's buffer without copying, cached on the Array, and results
come back as Arrays that own the backend array directly: no capsule round trip.
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any

import numpy as np

from ._dlpack import DLDeviceType

if TYPE_CHECKING:
    from ._array import Array

# numpy needs a non-NULL address even for an empty array; this one is never read or written.
_EMPTY_PLACEHOLDER = ctypes.create_string_buffer(16)
_EMPTY_ADDRESS = ctypes.addressof(_EMPTY_PLACEHOLDER)

_HOST_TYPES = frozenset({DLDeviceType.CPU, DLDeviceType.CUDA_HOST, DLDeviceType.ROCM_HOST})
_CUDA_TYPES = frozenset({DLDeviceType.CUDA, DLDeviceType.CUDA_MANAGED})


class BackendUnavailable(TypeError):
    """The operation needs a compute backend this array's device or dtype does not have."""


class _HostBuffer:
    """Presents an Array's host memory to numpy through ``__array_interface__``.

    numpy keeps this object as the view's ``base``; it holds the Array's owner, so the memory
    stays valid for as long as the numpy view (or anything viewing it) lives.
    """

    __slots__ = ("__array_interface__", "owner", "device")

    def __init__(self, interface: dict[str, Any], owner: Any, device: Any) -> None:
        self.__array_interface__ = interface
        self.owner = owner
        self.device = device  # views of this memory keep the Array's device


def host_view(array: Array) -> np.ndarray:
    """A numpy array over ``array``'s host memory, zero-copy, read-only if the Array is."""
    dtype = array._dtype
    numpy_dtype = dtype.numpy_dtype
    if numpy_dtype is None:
        raise BackendUnavailable(
            f"{dtype.name} arrays can be held, indexed and exported, but numpy cannot compute "
            f"with them"
        )
    if array._device.type not in _HOST_TYPES and array._device.type != DLDeviceType.CUDA_MANAGED:
        raise BackendUnavailable(
            f"an array on {array._device} cannot be viewed from the host; use "
            f"to_device('cpu') (or x.__dlpack__(dl_device=(1, 0))) to copy it"
        )
    itemsize = numpy_dtype.itemsize
    shape = array._shape
    address = array._data + array._offset
    if not address:  # only an empty array may have no address
        address = _EMPTY_ADDRESS
    interface = {
        "version": 3,
        "shape": shape,
        "typestr": numpy_dtype.str,
        "data": (address, array.readonly),
        "strides": tuple(s * itemsize for s in array._strides),
    }
    return np.asarray(_HostBuffer(interface, array._owner, array._device))


def opaque_host_view(array: Array) -> np.ndarray:
    """A numpy array with ``array``'s geometry, an unsigned type of the same width, and its address.

    It exists only so that numpy's C DLPack producer can describe the memory (see
    ``_dlpack._produce``); nothing reads through it, so the address may be device memory.
    """
    itemsize = array._dtype.itemsize
    unsigned = _SAME_WIDTH[itemsize]
    address = array._data + array._offset
    interface = {
        "version": 3,
        "shape": array._shape,
        "typestr": unsigned.str,
        "data": (address or _EMPTY_ADDRESS, array.readonly),
        "strides": tuple(s * itemsize for s in array._strides),
    }
    return np.asarray(_HostBuffer(interface, array._owner, array._device))


# A numpy type numpy's DLPack producer accepts, per element width (16 bytes: complex128).
_SAME_WIDTH = {1: np.dtype("u1"), 2: np.dtype("u2"), 4: np.dtype("u4"), 8: np.dtype("u8"), 16: np.dtype("c16")}


class _DLPackHandle:
    """Hands one capsule to a consumer that wants an object with ``__dlpack__``."""

    __slots__ = ("_capsule", "_device")

    def __init__(self, capsule: Any, device: tuple[int, int]) -> None:
        self._capsule = capsule
        self._device = device

    def __dlpack__(self, **_options: Any) -> Any:
        return self._capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._device


def cuda_view(array: Array) -> Any:
    """A cupy array over ``array``'s device memory, zero-copy (requires cupy)."""
    try:
        import cupy
    except ImportError:
        raise BackendUnavailable(
            f"computing on {array._device} needs cupy: pip install 'dlarray[cuda]'"
        ) from None
    handle = _DLPackHandle(array._export(versioned=True), array.__dlpack_device__())
    return cupy.from_dlpack(handle)


def native_of(array: Array) -> Any:
    """The backend array for ``array`` (created on first use, then cached)."""
    native = array._native
    if native is None:
        kind = array._device.type
        native = cuda_view(array) if kind in _CUDA_TYPES else host_view(array)
        array._native = native
    return native


def namespace_for(array: Array) -> Any:
    """The module that computes for ``array``'s device: numpy, or cupy on CUDA."""
    if array._device.type in _CUDA_TYPES:
        import cupy

        return cupy
    return np
