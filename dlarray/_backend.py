"""Compute backends: the namespace that does the arithmetic for a device, and zero-copy views.

CPU arrays compute with numpy; CUDA arrays with cupy when it is installed. A backend array
("native") is created over an Array's buffer without copying, cached on the Array, and results
come back as Arrays that own the backend array directly: no capsule round trip.
"""

from __future__ import annotations

import contextlib
import ctypes
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _cuda
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


class HostBuffer:
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
    return np.asarray(HostBuffer(interface, array._owner, array._device))


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
    return np.asarray(HostBuffer(interface, array._owner, array._device))


# A numpy type numpy's DLPack producer accepts, per element width (16 bytes: complex128).
_SAME_WIDTH = {1: np.dtype("u1"), 2: np.dtype("u2"), 4: np.dtype("u4"), 8: np.dtype("u8"), 16: np.dtype("c16")}


class _DLPackHandle:
    """Hands one array to cupy's ``from_dlpack``, in the capsule format cupy asks for.

    Internal views only: a legacy capsule of a read-only array is fine here, because dlarray
    checks the flag itself before any write it makes through the view.
    """

    __slots__ = ("_array",)

    def __init__(self, array: Array) -> None:
        self._array = array

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, **_options: Any) -> Any:
        array = self._array
        if stream is not None:
            # cupy passes its current stream: it waits for the stream the data is ordered on
            _cuda.order(stream_of(array), _cuda.consumer_stream(stream), array._device.id)
        versioned = max_version is not None and int(max_version[0]) >= 1
        return array._export(versioned=versioned)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._array.__dlpack_device__()


def import_cupy(purpose: str) -> Any:
    """The cupy module; BackendUnavailable naming ``purpose`` where it is not installed."""
    try:
        import cupy
    except ImportError:
        raise BackendUnavailable(f"{purpose} needs cupy: pip install 'dlarray[cuda]'") from None
    return cupy


def stream_of(array: Array) -> int:
    """The DLPack stream integer ``array``'s data is ordered on (1, the legacy default, if unset)."""
    return array._stream


def cuda_view(array: Array) -> Any:
    """A cupy array over ``array``'s device memory, zero-copy (requires cupy).

    cupy's ``from_dlpack`` passes its current stream, which is made to wait for the stream the
    data is ordered on, so that cupy's work on the view comes after the producer's.
    """
    cupy = import_cupy(f"computing on {array._device}")
    with cupy.cuda.Device(array._device.id):
        return cupy.from_dlpack(_DLPackHandle(array))


def move(array: Array, target: Any, stream: Any = None) -> Any:
    """A copy of ``array`` on device ``target``, as a backend array (numpy or cupy).

    CPU memory and host-readable memory go to the CPU with numpy; anything to or from CUDA goes
    through cupy. ``stream`` (a DLPack stream integer or a cupy stream) is the CUDA stream the copy
    runs on; ``None``, cupy's current stream.
    """
    source = array._device
    if source.type not in _CUDA_TYPES and target.type not in _CUDA_TYPES:
        if target.type == DLDeviceType.CPU and source.host_accessible:
            if stream is not None:
                raise ValueError(f"stream must be None for a copy from {source} to the CPU, got {stream!r}")
            return host_view(array).copy()
        raise BackendUnavailable(f"copying from {source} to {target} is not supported")
    cupy = import_cupy(f"copying from {source} to {target}")
    if source.type in _CUDA_TYPES:
        # a stream belongs to one device: between two GPUs, the copy's stream is the target's
        source_stream = _copy_stream(cupy, stream) if target.type == DLDeviceType.CPU else contextlib.nullcontext()
        with cupy.cuda.Device(source.id), source_stream:
            device_view = cuda_view(array)
            if target.type == DLDeviceType.CPU:
                return cupy.asnumpy(device_view)
            if target.type not in _CUDA_TYPES:
                raise BackendUnavailable(f"copying from {source} to {target} is not supported")
            contiguous = cupy.ascontiguousarray(device_view)
            cupy.cuda.get_current_stream().synchronize()  # the copy runs on the target's stream
        with cupy.cuda.Device(target.id), _copy_stream(cupy, stream):
            result = cupy.empty(contiguous.shape, contiguous.dtype)
            if result.nbytes:
                result.data.copy_from_device_async(contiguous.data, result.nbytes)
            return result
    if not source.host_accessible:
        raise BackendUnavailable(f"copying from {source} to {target} is not supported")
    with cupy.cuda.Device(target.id), _copy_stream(cupy, stream):
        return cupy.asarray(host_view(array))


def _copy_stream(cupy: Any, stream: Any) -> Any:
    """A context that makes ``stream`` cupy's current stream (``None``: leave it as it is)."""
    if stream is None:
        return contextlib.nullcontext()
    if hasattr(stream, "ptr") and hasattr(stream, "__enter__"):
        return stream  # a cupy stream object
    number = _cuda.consumer_stream(stream)
    if number == _cuda.NO_SYNC:
        raise ValueError("stream=-1 (no synchronization) cannot run a copy; pass a stream or None")
    if number == _cuda.LEGACY_DEFAULT_STREAM:
        return cupy.cuda.Stream.null
    if number == _cuda.PER_THREAD_DEFAULT_STREAM:
        return cupy.cuda.Stream.ptds
    return cupy.cuda.ExternalStream(number)


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
        return import_cupy(f"computing on {array._device}")
    return np
