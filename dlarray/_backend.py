"""One backend per device kind: everything the package does differently for a device lives here.

A backend owns, for the device kinds it serves:

* ``xp``, the compute namespace, named explicitly: numpy for memory the host reads (CPU, pinned
  and ROCm host memory), cupy for CUDA device and managed memory. Spec functions call
  ``backend.xp.<function>``; nothing relies on numpy handing a call over to cupy.
* :meth:`Backend.view`: a zero-copy native array (numpy/cupy) over an Array's memory, made from its
  pointer, shape, strides and dtype (CUDA: straight from the pointer, no capsule round trip, with
  cupy's stream made to wait for the stream the data is ordered on).
* :meth:`Backend.placement` and :meth:`Backend.describe`: where a native result lives, and its
  pointer and read-only flag, for wrapping it as an Array (``dlarray._array.wrap``).
* :meth:`Backend.to_host`: the values of a native array readable by the host (CUDA: a copy, after
  the array's stream is done).
* :meth:`Backend.move`: a copy on another device; :meth:`Backend.consumer_stream`: the stream rules
  of ``__dlpack__`` on these devices.

Device kinds with no backend that computes (OpenCL, Vulkan, ROCm, ...) get one that holds, views by
metadata and exports, and says what is missing for anything else. To add a device kind, write a
backend here and list its kinds in ``_BY_KIND`` (docs/architecture.md).

Part of the core: imports no Array (it reads an Array's fields) and no spec module.
"""

from __future__ import annotations

import contextlib
import ctypes
import struct
import sys
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _cuda
from . import _cupy_namespace
from . import _devices
from ._devices import CPU, Device, device_of
from ._dtypes import ALL_DTYPES
from ._dlpack import DLPACK_VERSION, CapsuleLender, DLDeviceType, capsule_name, use_host_consumer
from ._dlpack._consume import MEMORY
from ._dlpack._exchange import use_owner_destructor

if TYPE_CHECKING:
    from ._array import Array

# numpy needs a non-NULL address even for an empty array: empty views point at this live buffer
_EMPTY_PLACEHOLDER = ctypes.create_string_buffer(16)
_EMPTY_ADDRESS = ctypes.addressof(_EMPTY_PLACEHOLDER)
_LEGACY_DEFAULT_STREAM = _cuda.LEGACY_DEFAULT_STREAM
_ON_CPU = (CPU, _LEGACY_DEFAULT_STREAM)  # the placement of new host memory


def _data_field_offset() -> int | None:
    """Where an ndarray object keeps its data pointer (``PyArrayObject_fields.data``, the first
    field after the object header in numpy's public ABI): found at import by comparing with what
    ``__array_interface__`` says for two arrays, not assumed. None if no offset agrees."""
    probes = [np.arange(3.0), np.zeros(5, dtype=np.int8)]
    for offset in range(8, 65, 8):
        if all([_POINTER_AT(MEMORY, id(a) + offset)[0] == a.__array_interface__["data"][0] for a in probes]):
            return offset
    return None


_POINTER_AT = struct.Struct("@P").unpack_from
_DATA_FIELD = _data_field_offset()


def numpy_data_pointer(native: np.ndarray) -> int:
    """The address of a numpy array's first element, read from the array object itself.

    ``native`` must be an ``np.ndarray`` (of any subclass): the read trusts the object's layout.
    Not ``__array_interface__`` or ``.ctypes``: numpy builds those with allocations whose failure
    it does not always handle (a result returned with an exception set, then a crash); this read
    allocates only the int it returns and its one-item tuple. (A numpy whose struct did not show
    the pointer at import is asked through ``__array_interface__``.)
    """
    if _DATA_FIELD is None:
        return native.__array_interface__["data"][0]
    return _POINTER_AT(MEMORY, id(native) + _DATA_FIELD)[0]


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


def _byte_geometry(array: Array, itemsize: int) -> tuple[int, tuple[int, ...]]:
    """The address of ``array``'s first element and its strides in bytes."""
    return array._data + array._offset, tuple([s * itemsize for s in array._strides])  # type: ignore[operator]


def host_view(array: Array) -> np.ndarray:
    """A numpy array over ``array``'s host memory, zero-copy, read-only if the Array is.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray._backend import host_view
    >>> host_view(dlarray.ones(2)).tolist()
    [1.0, 1.0]
    """
    dtype = array._dtype
    numpy_dtype = dtype.numpy_dtype
    if numpy_dtype is None:
        raise BackendUnavailable(
            f"{dtype.name} arrays can be held, indexed and exported, but numpy cannot compute "
            f"with them"
        )
    if not array._device.host_accessible:
        raise BackendUnavailable(
            f"an array on {array._device} cannot be viewed from the host; use "
            f"to_device('cpu') (or x.__dlpack__(dl_device=(1, 0))) to copy it"
        )
    address, strides = _byte_geometry(array, numpy_dtype.itemsize)
    interface = {
        "version": 3,
        "shape": array._shape,
        "typestr": numpy_dtype.str,
        "data": (address or _EMPTY_ADDRESS, array.readonly),  # only an empty array has no address
        "strides": strides,
    }
    return np.asarray(HostBuffer(interface, array._owner, array._device))


def opaque_host_view(array: Array) -> np.ndarray:
    """A numpy array with ``array``'s geometry, an unsigned type of the same width, and its address.

    It exists only so that numpy's C DLPack producer can describe the memory (see
    ``Array._export``); nothing reads through it, so the address may be device memory.
    """
    itemsize = array._dtype.itemsize
    address, strides = _byte_geometry(array, itemsize)
    interface = {
        "version": 3,
        "shape": array._shape,
        "typestr": _SAME_WIDTH[itemsize].str,
        "data": (address or _EMPTY_ADDRESS, array.readonly),
        "strides": strides,
    }
    return np.asarray(HostBuffer(interface, array._owner, array._device))


# A numpy type numpy's DLPack producer accepts, per element width (16 bytes: complex128).
_SAME_WIDTH = {1: np.dtype("u1"), 2: np.dtype("u2"), 4: np.dtype("u4"), 8: np.dtype("u8"), 16: np.dtype("c16")}


def _stream_type(stream: Any) -> None:
    """The rule of every device: ``stream`` is None or an int (TypeError)."""
    if stream is not None and (type(stream) is bool or not isinstance(stream, int)):
        raise TypeError(f"stream must be None or an int, got {type(stream).__name__}")


def _stream_must_be_none(device: Device, stream: Any) -> None:
    """The stream rule of devices with no streams: ``stream`` must be None (BufferError)."""
    _stream_type(stream)
    if stream is not None:
        raise BufferError(f"stream must be None for an array on {device}, got {stream!r}")


class Backend:
    """What one family of device kinds does: compute namespace, views, results, copies, streams.

    Attributes
    ----------
    name : str
        Names the backend in messages (``"numpy"``, ``"cupy"``, ``"none"``).
    computes : bool
        Whether ``xp`` exists (may still need an optional package: cupy).
    host_native : bool
        Whether the native arrays are numpy arrays over memory the host reads.
    orders_streams : bool
        Whether the data is ordered on CUDA streams that consumers must wait for.
    cuda_streams : bool
        Whether stream arguments take CUDA's values (CUDA, managed and pinned memory).
    native_export_device : Device | None
        The device the native array's own ``__dlpack__`` names (numpy's: the CPU): an array on it
        is described exactly by its native's producer (pinned or ROCm host memory is not: numpy
        would call it CPU memory).
    """

    name = "none"
    computes = False
    host_native = False
    native_export_device: Device | None = None
    orders_streams = False
    cuda_streams = False

    @property
    def xp(self) -> Any:
        """The compute namespace (numpy, cupy); BackendUnavailable where there is none."""
        raise BackendUnavailable(f"there is no compute backend for {self.kinds_text}")

    kinds_text = "this device"

    def view(self, array: Array) -> Any:
        """A zero-copy native array over ``array``'s memory."""
        raise BackendUnavailable(
            f"an array on {array._device} can be held, indexed and exported, but nothing here computes "
            f"on it; copy it to the CPU with its producer first"
        )

    def placement(self, native: Any) -> tuple[Device, int]:
        """``(device, stream)`` of a native result: where its memory is, what it is ordered on."""
        raise BackendUnavailable(f"{self.name} makes no arrays")

    def describe(self, native: Any) -> tuple[int, int]:
        """``(data pointer, DLPack flags)`` of a native array (its read-only flag)."""
        raise BackendUnavailable(f"{self.name} makes no arrays")

    def to_host(self, native: Any, stream: int) -> np.ndarray:
        """The values of ``native`` as a numpy array the host reads, after the work queued on
        ``stream`` (DLPack's integer for the stream the values are ordered on)."""
        raise BackendUnavailable(f"{self.name} makes no arrays")

    def copy(self, array: Array) -> Any:
        """A new C-contiguous native array with ``array``'s values, on the same device."""
        return self.view(array).copy()

    def reduce(self, name: str, native: Any, axis: Any, keepdims: bool, dtype: Any = None) -> Any:
        """``xp.<name>(native, axis=, keepdims=)`` for sum, prod, max, min, all, any (and ``dtype=``
        for sum and prod when given)."""
        function = getattr(self.xp, name)
        if dtype is None:
            return function(native, axis=axis, keepdims=keepdims)
        return function(native, axis=axis, dtype=dtype, keepdims=keepdims)

    def mean(self, native: Any, *, axis: Any, dtype: Any, keepdims: bool, count: int) -> Any:
        """The mean of ``native`` over ``axis`` (``count`` elements each), in ``dtype`` if given."""
        return self.xp.mean(native, axis=axis, dtype=dtype, keepdims=keepdims)

    def consumer_stream(self, device: Device, stream: Any) -> int | None:
        """Validate ``__dlpack__``'s ``stream`` for an array on ``device``.

        Returns DLPack's stream integer where the data is ordered on CUDA streams, else None.
        """
        _stream_must_be_none(device, stream)
        return None

    def move(self, array: Array, target: Device, stream: Any = None) -> Any:
        """A copy of ``array`` on device ``target``, as a native array of the target's backend."""
        if not array._device.host_accessible:
            raise BackendUnavailable(f"copying from {array._device} to {target} is not supported")
        return _BY_KIND.get(target.type, _NO_COMPUTE).receive(array, target, stream)

    def receive(self, array: Array, target: Device, stream: Any) -> Any:
        """A copy of host-readable ``array`` made on ``target`` (this backend's device)."""
        raise BackendUnavailable(f"copying from {array._device} to {target} is not supported")


class HostBackend(Backend):
    """numpy over memory the host reads: CPU, CUDA pinned host memory, ROCm host memory."""

    name = "numpy"
    computes = True
    host_native = True
    xp = np  # type: ignore[assignment]

    def __init__(self, cuda_stream_rules: bool = False) -> None:
        # pinned CUDA memory takes CUDA's stream values (checked; nothing to order: numpy's work
        # on it is synchronous)
        self._cuda_stream_rules = self.cuda_streams = cuda_stream_rules
        self.native_export_device = CPU  # numpy's producer says "CPU" for any host memory

    def view(self, array: Array) -> np.ndarray:
        return host_view(array)

    def placement(self, native: np.ndarray) -> tuple[Device, int]:
        base = native.base
        if base is None:
            return _ON_CPU  # new memory: the CPU's
        if type(base) is np.ndarray:  # numpy stops collapsing a view's base at the host view
            base = base.base
        # a view of pinned/managed host memory stays on that device
        return (base.device, _LEGACY_DEFAULT_STREAM) if type(base) is HostBuffer else _ON_CPU

    def describe(self, native: np.ndarray) -> tuple[int, int]:
        return numpy_data_pointer(native), 0 if native.flags.writeable else _READ_ONLY

    def to_host(self, native: np.ndarray, stream: int) -> np.ndarray:
        return native

    def reduce(self, name: str, native: Any, axis: Any, keepdims: bool, dtype: Any = None) -> Any:
        # numpy's sum/prod/max/min/all/any are Python wrappers around these ufunc reductions;
        # calling them directly saves their dispatch, which is most of the time on small arrays
        if dtype is None and (name == "all" or name == "any"):
            dtype = np.bool_  # logical_and/or.reduce give bool only when asked
        return _NUMPY_REDUCTIONS[name](native, axis=axis, dtype=dtype, keepdims=keepdims)

    def mean(self, native: Any, *, axis: Any, dtype: Any, keepdims: bool, count: int) -> Any:
        # what np.mean computes, without its Python-level wrapper: a sum divided by the count
        # (numpy accumulates float16 in float32), divided in double precision and rounded back
        # once, as numpy does
        half = dtype is None and native.dtype == _FLOAT16
        total = np.add.reduce(native, axis=axis, dtype=_FLOAT32 if half else dtype, keepdims=keepdims)
        divisor = np.intp(count)
        if isinstance(total, np.generic):  # a reduction over every axis gives a numpy scalar
            result = total.dtype.type(total / divisor)
        else:
            result = np.true_divide(total, divisor, out=total, casting="unsafe")
        return result.astype(_FLOAT16) if half else result

    def consumer_stream(self, device: Device, stream: Any) -> int | None:
        if self._cuda_stream_rules:
            _stream_type(stream)
            _cuda.consumer_stream(stream)  # values checked, nothing to order
            return None
        _stream_must_be_none(device, stream)
        return None

    def receive(self, array: Array, target: Device, stream: Any) -> np.ndarray:
        if target is not CPU:
            raise BackendUnavailable(f"copying from {array._device} to {target} is not supported")
        if stream is not None:
            raise ValueError(f"stream must be None for a copy from {array._device} to the CPU, got {stream!r}")
        return host_view(array).copy()


_FLOAT16 = np.dtype(np.float16)
_FLOAT32 = np.dtype(np.float32)
_NUMPY_REDUCTIONS = {
    "sum": np.add.reduce,
    "prod": np.multiply.reduce,
    "max": np.maximum.reduce,
    "min": np.minimum.reduce,
    "all": np.logical_and.reduce,
    "any": np.logical_or.reduce,
}


class CudaBackend(Backend):
    """cupy over CUDA device memory (and managed memory, which the host may also read)."""

    name = "cupy"
    computes = True
    orders_streams = True
    cuda_streams = True
    kinds_text = "CUDA"

    def __init__(self) -> None:
        self._cupy: Any = None  # the cupy module the namespace below was built from
        self._namespace: Any = None
        self._unowned_memory: type | None = None  # cupy.cuda.UnownedMemory, once dlarray made one

    @property
    def xp(self) -> Any:
        """cupy, completed where the spec modules need more (dlarray._cupy_namespace); built
        once per cupy module."""
        cupy = sys.modules.get("cupy")
        if cupy is None or cupy is not self._cupy:
            cupy = import_cupy("computing on a CUDA device")
            if cupy is not self._cupy:
                self._namespace = _cupy_namespace.namespace(cupy)
                self._cupy = cupy
        return self._namespace

    def view(self, array: Array) -> Any:
        """A cupy array over ``array``'s device memory, zero-copy, made from the pointer.

        The memory is wrapped as ``cupy.cuda.UnownedMemory`` owned by the Array's owner (so the
        buffer lives as long as the view); cupy's current stream is made to wait for the stream
        the data is ordered on, so that cupy's work on the view comes after the producer's.
        """
        cupy = import_cupy(f"computing on {array._device}", array._device.id)
        numpy_dtype = array._dtype.numpy_dtype
        if numpy_dtype is None:
            raise BackendUnavailable(f"cupy cannot compute with {array._dtype.name} arrays")
        device_id = array._device.id
        address, strides = _byte_geometry(array, numpy_dtype.itemsize)
        low, high = address, address + numpy_dtype.itemsize
        if 0 in array._shape:
            high = address
        else:
            for extent, step in zip(array._shape, strides):
                reach = (extent - 1) * step
                if reach < 0:
                    low += reach
                else:
                    high += reach
        # owned by what keeps the Array's memory alive (not the Array: it caches this view); for
        # read-only or managed memory, through a marker that describe() and placement() find in
        # every view cupy makes of it
        read_only = array._flags_now() & _READ_ONLY
        device = array._device
        owner = (array._owner if not read_only and device.type == _CUDA_KIND
                 else MarkedMemoryOwner(array._owner, device, read_only))
        with cupy.cuda.Device(device_id):
            _cuda.order(array._stream, _cuda.cupy_current_stream(cupy, device_id), device_id)
            memory = cupy.cuda.UnownedMemory(low, high - low, owner, device_id)
            self._unowned_memory = type(memory)
            pointer = cupy.cuda.MemoryPointer(memory, address - low)
            return cupy.ndarray(array._shape, numpy_dtype, pointer, strides)

    def copy(self, array: Array) -> Any:
        device = array._device
        cupy = import_cupy(f"a copy on {device}", device.id)
        with cupy.cuda.Device(device.id):  # cupy copies onto its current device
            # the array's cupy array (a result's own, or its view, made once), as every function takes it
            native = array._as_native()
            if device.type == _CUDA_KIND:
                return native.copy()
            # managed memory: so is the copy (cupy's copy allocates device memory)
            result = self._managed_array(cupy, device, native.shape, native.dtype)
            result[...] = native
            return result

    def placement(self, native: Any) -> tuple[Device, int]:
        data = native.data
        device_id = data.device_id
        # cupy queued the work that makes this result on its current stream
        stream = _cuda.cupy_current_stream(sys.modules["cupy"], device_id)
        memory = data.mem
        if type(memory) is self._unowned_memory and type(memory._owner) is MarkedMemoryOwner:
            return memory._owner.device, stream  # a view of managed memory stays managed (see describe)
        try:  # the interned device read directly: this runs for every result computed on a GPU
            return _interned_devices[_CUDA_KIND, device_id], stream
        except KeyError:
            return device_of(DLDeviceType.CUDA, device_id), stream

    def describe(self, native: Any) -> tuple[int, int]:
        # cupy has no read-only arrays (cupy/_core/core.pyx:462) and does not say which memory
        # kind an array is in: a view of read-only or managed memory is recognised by the memory
        # object it shares with the view made of it (MemoryPointer.mem; cupy's views keep their
        # base's), whose owner view() or _managed_array() marked
        data = native.data
        memory = data.mem
        if type(memory) is self._unowned_memory and type(memory._owner) is MarkedMemoryOwner:
            return data.ptr, memory._owner.flags
        return data.ptr, 0

    def to_host(self, native: Any, stream: int) -> np.ndarray:
        # The copy runs on cupy's current stream of the array's device, and get() waits for it.
        # ``native`` is often not a view made just now (whose making ordered it) but one made
        # earlier, or cupy's own result, queued on the stream current back then: when that is
        # another stream, the device is synchronized first. Not an event on that stream: the
        # Array keeps its number only, and cupy destroys a Stream's handle with the object
        # (cupy/cuda/stream.pyx:517-524), so a result of a `with cupy.cuda.Stream():` block
        # read after it may name a stream that is gone. (get() without a stream would take the
        # current stream of the current device, maybe another GPU's: cupy/_core/core.pyx:2120.)
        # The legacy and the per-thread default streams wait for each other's work by themselves.
        cupy = sys.modules["cupy"]
        device_id = native.data.device_id
        current = cupy.cuda.get_current_stream(device_id)
        copy_stream = _cuda.cupy_stream_number(cupy, current)
        if (stream != copy_stream and (stream > _DEFAULT_STREAMS or copy_stream > _DEFAULT_STREAMS)
                and _cuda.driver() is not None):
            cupy.cuda.Device(device_id).synchronize()
        return native.get(stream=current)

    def consumer_stream(self, device: Device, stream: Any) -> int | None:
        _stream_type(stream)
        return _cuda.consumer_stream(stream)

    def copy_stream_number(self, stream: Any) -> int:
        """The DLPack integer of the stream a copy given ``stream`` (a checked ``to_device``
        argument, not None) runs on: what its result is ordered on."""
        if _cuda.is_cupy_stream(stream):
            return _cuda.cupy_stream_number(import_cupy("a copy on a cupy stream"), stream)
        return _cuda.consumer_stream(stream)

    def move(self, array: Array, target: Device, stream: Any = None) -> Any:
        """A copy from CUDA to the CPU or another GPU; ``stream`` is the stream it runs on."""
        source = array._device
        cupy = import_cupy(f"copying from {source} to {target}", source.id)
        target_backend = _BY_KIND.get(target.type, _NO_COMPUTE)
        if target is not CPU and target_backend is not self:
            raise BackendUnavailable(f"copying from {source} to {target} is not supported")
        if target is not CPU:
            import_cupy(f"copying from {source} to {target}", target.id)
        # a stream belongs to one device: between two GPUs, the copy's stream is the target's
        source_stream = _copy_stream(cupy, stream) if target is CPU else contextlib.nullcontext()
        with cupy.cuda.Device(source.id), source_stream:
            device_view = self.view(array)
            if target is CPU:
                return cupy.asnumpy(device_view)
            contiguous = cupy.ascontiguousarray(device_view)
            cupy.cuda.get_current_stream().synchronize()  # the copy runs on the target's stream
        with cupy.cuda.Device(target.id), _copy_stream(cupy, stream):
            if target.type == DLDeviceType.CUDA_MANAGED:
                result = self._managed_array(cupy, target, contiguous.shape, contiguous.dtype)
            else:
                result = cupy.empty(contiguous.shape, contiguous.dtype)
            if result.nbytes:
                result.data.copy_from_device_async(contiguous.data, result.nbytes)
            return result

    def receive(self, array: Array, target: Device, stream: Any) -> Any:
        cupy = import_cupy(f"copying from {array._device} to {target}", target.id)
        with cupy.cuda.Device(target.id), _copy_stream(cupy, stream):
            values = host_view(array)
            if target.type == DLDeviceType.CUDA_MANAGED:
                result = self._managed_array(cupy, target, values.shape, values.dtype)
                if result.nbytes:
                    result.set(values)  # on the current stream, bytes as they are
                return result
            # the namespace's asarray: cupy's own would write a 0-d -0.0 as +0.0 (its fill)
            return self.xp.asarray(values)

    def _managed_array(self, cupy: Any, device: Device, shape: tuple[int, ...], dtype: Any) -> Any:
        """A new C-contiguous cupy array in CUDA managed memory on ``device`` (the current one;
        cupy's allocations, cupy.empty included, are device memory), marked as managed memory
        so that it and the views cupy makes of it are placed on ``device``."""
        size = dtype.itemsize
        for extent in shape:
            size *= extent
        allocation = cupy.cuda.malloc_managed(size)  # a MemoryPointer; its memory frees the allocation
        memory = cupy.cuda.UnownedMemory(allocation.ptr, size, MarkedMemoryOwner(allocation, device, 0), device.id)
        self._unowned_memory = type(memory)
        return cupy.ndarray(shape, dtype, cupy.cuda.MemoryPointer(memory, 0))


class MarkedMemoryOwner:
    """The owner cupy keeps for memory dlarray wraps that is more than plain device memory:
    read-only (``flags``: DLPack's READ_ONLY), or CUDA managed memory (``device``), which a cupy
    array cannot say. It keeps ``owner`` (what keeps the memory alive) alive; views cupy makes
    share its memory object, and so this owner (``CudaBackend.describe`` and ``placement``)."""

    __slots__ = ("owner", "device", "flags")

    def __init__(self, owner: Any, device: Device, flags: int) -> None:
        self.owner = owner
        self.device = device
        self.flags = flags


class RocmBackend(Backend):
    """ROCm device memory: held and exported; HIP streams are checked, dlarray launches no work."""

    kinds_text = "ROCm"

    def consumer_stream(self, device: Device, stream: Any) -> int | None:
        _stream_type(stream)
        if stream is not None and (stream in (1, 2) or stream < -1):
            raise ValueError(f"stream must be None, 0, -1 or a HIP stream pointer on ROCm, got {stream!r}")
        return None  # nothing of dlarray's own to order


def import_cupy(purpose: str, device_id: int = 0) -> Any:
    """The cupy module, for work on CUDA device ``device_id``; BackendUnavailable naming
    ``purpose`` where cupy is not installed or reaches no such device.

    cupy imports without a driver or a GPU (a laptop with the ``cuda`` extra installed): there its
    first call into CUDA raises cupy's CUDARuntimeError, so the devices are counted here first,
    once per cupy module, and a missing one is refused like a missing cupy.
    """
    try:
        import cupy  # optional: CUDA support
    except ImportError:
        raise BackendUnavailable(
            f"{purpose} needs cupy: install dlarray with its cuda12 or cuda13 extra "
            f"(pip install '.[cuda12]' in a checkout)"
        ) from None
    count, why = cuda_device_count(cupy)
    if device_id >= count:
        raise BackendUnavailable(f"{purpose} needs CUDA device {device_id}: {why}")
    return cupy


_cuda_devices_of: dict[Any, tuple[int, str]] = {}  # cupy module -> (device count, what it found)


def cuda_device_count(cupy: Any) -> tuple[int, str]:
    """``(count, description)`` of the CUDA devices ``cupy`` reaches (0 without a driver or a
    GPU, where cupy raises its CUDARuntimeError), asked once per cupy module.

    Examples
    --------
    On a machine with cupy (here: none, a description of what cupy found):

    >>> import cupy  # doctest: +SKIP
    >>> cuda_device_count(cupy)  # doctest: +SKIP
    (1, 'cupy 14.2.0 finds 1 CUDA device')
    """
    known = _cuda_devices_of.get(cupy)
    if known is not None:
        return known
    version = getattr(cupy, "__version__", "")
    try:
        count = int(cupy.cuda.runtime.getDeviceCount())
        found = f"cupy {version} finds {count} CUDA device{'' if count == 1 else 's'}"
    except Exception as error:  # noqa: BLE001 - cupy's CUDARuntimeError where there is no driver or GPU
        count, found = 0, f"cupy {version} finds no CUDA device ({type(error).__name__}: {error})"
    return _cuda_devices_of.setdefault(cupy, (count, found))


def _copy_stream(cupy: Any, stream: Any) -> Any:
    """A context that makes ``stream`` cupy's current stream (``None``: leave it as it is)."""
    if stream is None:
        return contextlib.nullcontext()
    if _cuda.is_cupy_stream(stream):
        return stream
    number = _cuda.consumer_stream(stream)
    if number == _cuda.NO_SYNC:
        raise ValueError("stream=-1 (no synchronization) cannot run a copy; pass a stream or None")
    if number == _cuda.LEGACY_DEFAULT_STREAM:
        return cupy.cuda.Stream.null
    if number == _cuda.PER_THREAD_DEFAULT_STREAM:
        return cupy.cuda.Stream.ptds
    # cupy 14 deprecates ExternalStream for Stream.from_external, which takes an object with the
    # CUDA stream protocol (__cuda_stream__), not a pointer; cupy 13 has only ExternalStream
    from_external = getattr(cupy.cuda.Stream, "from_external", None)
    if from_external is not None:
        return from_external(StreamPointer(number))
    return cupy.cuda.ExternalStream(number)


class StreamPointer:
    """A CUDA stream pointer presented through the CUDA stream protocol (``__cuda_stream__``),
    which cupy 14's ``Stream.from_external`` takes."""

    __slots__ = ("ptr",)

    def __init__(self, ptr: int) -> None:
        self.ptr = ptr

    def __cuda_stream__(self) -> tuple[int, int]:
        return 0, self.ptr  # protocol version 0


_READ_ONLY = 1  # DLPack's FLAG_READ_ONLY
_DEFAULT_STREAMS = _cuda.PER_THREAD_DEFAULT_STREAM  # DLPack's 1 and 2: the legacy and per-thread ones
_CUDA_KIND = int(DLDeviceType.CUDA)
_interned_devices = _devices._cache  # (device type, id) -> Device, filled by device_of

HOST = HostBackend()
PINNED = HostBackend(cuda_stream_rules=True)
CUDA = CudaBackend()
ROCM = RocmBackend()
_NO_COMPUTE = Backend()

# The one table of which backend serves which device kind (anything unlisted: _NO_COMPUTE).
_BY_KIND: dict[int, Backend] = {
    DLDeviceType.CPU: HOST,
    DLDeviceType.ROCM_HOST: HOST,
    DLDeviceType.CUDA_HOST: PINNED,
    DLDeviceType.CUDA: CUDA,
    DLDeviceType.CUDA_MANAGED: CUDA,
    DLDeviceType.ROCM: ROCM,
}


def _numpy_takes_as_the_core_needs() -> bool:
    """Whether numpy's consumer, given a capsule, renames it and returns an array that owns its
    tensor (freed, it calls the deleter once), for a versioned and a legacy capsule: checked once
    at import on capsules of numpy's own (numpy 2.0 makes no versioned ones: then not used, and
    the core's own transfer takes every capsule)."""
    source = np.zeros(2, dtype=np.float32)
    unexported = sys.getrefcount(source)  # numpy's deleter gives back the reference its export took
    for max_version, used in (((1, 0), b"used_dltensor_versioned"), (None, b"used_dltensor")):
        lender = object.__new__(CapsuleLender)
        try:
            capsule = lender.capsule = source.__dlpack__(max_version=max_version)
            taken = np.from_dlpack(lender)
        except Exception:  # noqa: BLE001 - any refusal: not used
            return False
        if capsule_name(capsule) != used or taken.__array_interface__["data"][0] != numpy_data_pointer(source):
            return False
        del taken
        if sys.getrefcount(source) != unexported:
            return False
    return True


# numpy's C pieces lent to the numpy-free core, each where numpy behaves as the core needs:
# its consumer takes held host capsules of the dtypes numpy has (one C call for the claim's rename
# and the ownership, and a deleter called from C), and its capsule destructor frees the owner
# capsules of exchange imports (see _exchange.import_with; numpy 2.0 exports no versioned capsule,
# no max_version: the ctypes-slot owner then).
if _numpy_takes_as_the_core_needs():
    use_host_consumer(np.from_dlpack, frozenset([(d.code, d.bits) for d in ALL_DTYPES if d.numpy_dtype is not None]))
try:
    use_owner_destructor(np.empty(0, np.uint8).__dlpack__(max_version=DLPACK_VERSION))
except (TypeError, BufferError):
    pass


def _attach(device: Device) -> None:
    object.__setattr__(device, "backend", _BY_KIND.get(device.type, _NO_COMPUTE))


# Every Device carries its backend (``device.backend``: one attribute load on the hot paths);
# devices interned before this module loaded get theirs now, later ones when they are made.
for _device in list(_devices._cache.values()):
    _attach(_device)
_devices._attach_backend = _attach


def backend_for(device: Device) -> Backend:
    """The backend that serves ``device``.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray._backend import backend_for
    >>> backend_for(dlarray.ones(1).device).xp.__name__
    'numpy'
    """
    return device.backend


#: The backend of a native array type (a result to wrap); cupy's joins when cupy is imported.
BY_NATIVE_TYPE: dict[type, Backend] = {np.ndarray: HOST}
#: ``backend.placement`` by native array type, bound once (wrap runs for every result).
PLACEMENT_BY_NATIVE_TYPE: dict[type, Any] = {np.ndarray: HOST.placement}
#: ``(device, stream)`` of a native array that owns new memory (``base`` None), for the native types
#: whose new memory always has one place: what ``placement`` returns for them, without the call
#: (cupy's is absent: new cupy memory is ordered on the current stream, which changes).
NEW_MEMORY_PLACEMENT: dict[type, tuple[Device, int]] = {np.ndarray: _ON_CPU}


def backend_of_native(native: Any) -> Backend | None:
    """The backend whose native array ``native`` is (numpy, cupy), or None.

    Examples
    --------
    >>> import numpy as np
    >>> from dlarray._backend import backend_of_native
    >>> backend_of_native(np.ones(1)).name
    'numpy'
    """
    found = BY_NATIVE_TYPE.get(type(native))
    if found is None:
        cupy = sys.modules.get("cupy")
        if cupy is not None and isinstance(native, cupy.ndarray):
            BY_NATIVE_TYPE[type(native)] = found = CUDA
            PLACEMENT_BY_NATIVE_TYPE[type(native)] = CUDA.placement
    return found


def placed_result(native: Any) -> tuple[Any, tuple[Device, int]]:
    """``(array, (device, stream))`` of a backend result: the native array and where it lives.

    A numpy scalar or Python number (numpy's ufuncs give scalars for 0-d inputs) becomes a new 0-d
    host array. The general path of ``wrap``, which places new host memory itself.

    Examples
    --------
    >>> import numpy as np
    >>> from dlarray._backend import placed_result
    >>> array, (device, stream) = placed_result(np.float64(1.5))
    >>> array.shape, str(device)
    ((), 'cpu')
    """
    place = PLACEMENT_BY_NATIVE_TYPE.get(type(native))
    if place is None:
        backend = None if isinstance(native, np.generic) else backend_of_native(native)
        if backend is None:  # a numpy scalar or a Python number: new host memory
            return np.asarray(native), _ON_CPU
        place = backend.placement
    return native, place(native)


def numeric_native(device: Device, value: Any) -> Any:
    """``value`` (a sequence, a numpy array, a buffer, a DLPack producer...) as a native array of
    ``device``'s backend, as numpy/cupy convert it; TypeError unless its values are numbers or bools.

    How operators and assignments take values that are neither Arrays nor Python scalars.

    Examples
    --------
    >>> from dlarray._backend import numeric_native
    >>> from dlarray._devices import CPU
    >>> numeric_native(CPU, [1, 2])
    array([1, 2])
    """
    try:
        native = device.backend.xp.asarray(value)
    except OverflowError:
        raise OverflowError(f"an integer in {value!r} does not fit int64 or uint64") from None
    if native.dtype.kind not in "biufc":
        raise TypeError(
            f"a value for an Array must be numbers: an Array, a Python scalar or what asarray accepts, not "
            f"{type(value).__name__}"
        )
    return native
