"""Device objects: a DLPack device type and index, printed the way frameworks print them."""

from __future__ import annotations

import operator
import os
from typing import Any

from ._dlpack import DLDeviceType

_NAMES = {
    DLDeviceType.CPU: "cpu",
    DLDeviceType.CUDA: "cuda",
    DLDeviceType.CUDA_HOST: "cuda_host",
    DLDeviceType.OPENCL: "opencl",
    DLDeviceType.VULKAN: "vulkan",
    DLDeviceType.METAL: "metal",
    DLDeviceType.VPI: "vpi",
    DLDeviceType.ROCM: "rocm",
    DLDeviceType.ROCM_HOST: "rocm_host",
    DLDeviceType.EXT_DEV: "ext_dev",
    DLDeviceType.CUDA_MANAGED: "cuda_managed",
    DLDeviceType.ONE_API: "oneapi",
    DLDeviceType.WEBGPU: "webgpu",
    DLDeviceType.HEXAGON: "hexagon",
    DLDeviceType.MAIA: "maia",
    DLDeviceType.TRN: "trn",
}
_BY_NAME = {name: kind for kind, name in _NAMES.items()}
_HOST_READABLE = frozenset({DLDeviceType.CPU, DLDeviceType.CUDA_HOST, DLDeviceType.ROCM_HOST,
                            DLDeviceType.CUDA_MANAGED})
#: Device types whose DLPack ``data`` is a memory address (CUDA, ROCm and oneAPI's USM pointers
#: included), so that ``data + byte_offset`` is one too. On the others (OpenCL's ``cl_mem``,
#: Vulkan, Metal and WebGPU buffers, ...) it may be an opaque handle that takes no arithmetic.
ADDRESS_DEVICE_TYPES = _HOST_READABLE | {DLDeviceType.CUDA, DLDeviceType.ROCM, DLDeviceType.ONE_API}


class Device:
    """Where an array's memory lives: a DLPack device type and a device index.

    ``str(device)`` is ``"cpu"`` for the host and ``"<type>:<index>"`` otherwise (``"cuda:1"``).
    Devices are interned: equal type and index give the same object, so ``x.device is y.device``
    exactly when both arrays live on the same device. Device names are those of `DLDeviceType`,
    lower case (``"cpu"``, ``"cuda"``, ``"cuda_host"``, ``"rocm"``, ``"oneapi"``, ...).

    Attributes
    ----------
    type : DLDeviceType
        The DLPack device type (CPU, CUDA, CUDA_HOST, ROCM, ...).
    id : int
        The device index within that type (always 0 for the CPU).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.Device("cuda:1")
    Device('cuda:1')
    >>> xp.Device(xp.DLDeviceType.CPU) is xp.Device("cpu") is xp.asarray([1]).device
    True
    >>> xp.Device("cuda", 1).type, xp.Device("cuda", 1).id
    (<DLDeviceType.CUDA: 2>, 1)
    """

    __slots__ = ("type", "id", "backend", "_dlpack_device")
    type: DLDeviceType
    id: int
    backend: Any  # the dlarray._backend.Backend that serves this kind of device (set by it)
    _dlpack_device: tuple[DLDeviceType, int]  # (type, id): what __dlpack_device__ returns, made once

    def __new__(
        cls, type: str | DLDeviceType | int, id: int | None = None  # noqa: A002 - DLPack's names
    ) -> Device:
        """The device of a name or of a DLPack ``(device_type, device_id)`` pair.

        ``Device("cuda:1")``, ``Device("cpu")``, ``Device(DLDeviceType.CUDA, 1)``. Making a device does
        not check that it exists on this machine (``__array_namespace_info__().devices()`` lists those).

        Parameters
        ----------
        type
            A device name (``"cpu"``, ``"cuda"``, ``"cuda:1"``) or a DLPack device type.
        id
            The device index; default the name's index, else 0.

        Returns
        -------
        Device
            The interned device.

        Raises
        ------
        TypeError
            ``type`` is neither a name nor an int, or ``id`` is not an int.
        ValueError
            An unknown device name, a ``type`` that is no DLPack device type, or a negative ``id``.

        Examples
        --------
        >>> import dlarray as xp
        >>> xp.Device("cuda", 1) == xp.Device("cuda:1") == xp.Device(2, 1)
        True
        """
        # a name gives the kind; the (kind, id) pair is checked as every DLPack device pair is
        if isinstance(type, str):
            device = as_device(type)
            return device if id is None else as_device((device.type, id))
        return as_device((type, 0 if id is None else id))

    @property
    def host_accessible(self) -> bool:
        """True where the CPU may read the memory directly (CPU, pinned and managed memory).

        Examples
        --------
        >>> import dlarray as xp
        >>> xp.Device("cpu").host_accessible, xp.Device("cuda:0").host_accessible
        (True, False)
        """
        return self.type in _HOST_READABLE

    def __str__(self) -> str:
        name = _NAMES[self.type]
        return name if self.type == DLDeviceType.CPU else f"{name}:{self.id}"

    def __repr__(self) -> str:
        return f"Device('{self}')"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Device, (int(self.type), self.id))


_cache: dict[tuple[int, int], Device] = {}


def _attach_backend(device: Device) -> None:
    """Give ``device`` its backend. dlarray._backend replaces this when it loads (and attaches
    backends to the devices made before): the backends stand above the devices."""


def device_of(device_type: int, device_id: int) -> Device:
    """The (interned) Device for a DLPack ``(device_type, device_id)`` pair.

    The host has one memory: a CPU ``device_id`` other than 0 (which DLPack does not use) is read
    as 0, so that all host arrays share one device and mix freely.
    """
    if device_type == DLDeviceType.CPU:
        device_id = 0
    key = (device_type, device_id)
    found = _cache.get(key)
    if found is None:
        found = object.__new__(Device)
        object.__setattr__(found, "type", DLDeviceType(device_type))
        object.__setattr__(found, "id", device_id)
        object.__setattr__(found, "_dlpack_device", (found.type, device_id))
        _attach_backend(found)
        _cache[key] = found
    return found


CPU = device_of(DLDeviceType.CPU, 0)


def int_pair(value: Any, name: str) -> tuple[int, int]:
    """``value`` as a tuple of two ints; TypeError naming ``name`` for any other kind.

    Lists, tuples of another length, floats, strings and bools are refused; numpy's integers
    are ints. (DLPack's ``max_version`` and ``dl_device``, and device pairs, are such tuples.)

    Examples
    --------
    >>> int_pair((1, 0), "max_version")
    (1, 0)
    """
    if type(value) is not tuple or len(value) != 2:
        raise TypeError(f"{name} must be a tuple of two ints, got {value!r}")
    first, second = value
    if type(first) is bool or type(second) is bool:
        raise TypeError(f"{name} must be a tuple of two ints, got {value!r}")
    try:
        return operator.index(first), operator.index(second)
    except TypeError:
        raise TypeError(f"{name} must be a tuple of two ints, got {value!r}") from None


def as_device(value: Any) -> Device:
    """Resolve a device argument.

    Accepts a :class:`Device`, a string (``"cpu"``, ``"cuda"``, ``"cuda:1"``), a DLPack
    ``(device_type, device_id)`` pair, or an object with a ``__dlpack_device__`` method.
    """
    if type(value) is Device:
        return value
    if isinstance(value, str):
        name, _, index = value.partition(":")
        kind = _BY_NAME.get(name.lower())
        if kind is None or (index and not index.isdigit()):
            raise ValueError(f"unknown device {value!r}; expected e.g. 'cpu' or 'cuda:0'")
        return device_of(kind, int(index) if index else 0)
    if isinstance(value, tuple) and len(value) == 2:
        kind, index = int_pair(value, "a DLPack device")
        if index < 0:
            raise ValueError(f"a device id cannot be negative, got {value!r}")
        try:
            return device_of(DLDeviceType(kind), index)
        except ValueError:
            raise ValueError(f"unknown DLPack device {value!r}") from None
    method = getattr(value, "__dlpack_device__", None)
    if method is not None:
        return as_device(tuple(method()))
    raise TypeError(f"{value!r} is not a device")


def _default_device_from_environment() -> Device:
    """``DLARRAY_DEFAULT_DEVICE`` (e.g. ``cuda:0``, to run a test suite on the GPU), else the CPU."""
    name = os.environ.get("DLARRAY_DEFAULT_DEVICE", "").strip()
    if not name:
        return CPU
    try:
        return as_device(name)
    except ValueError:
        raise ValueError(f"DLARRAY_DEFAULT_DEVICE={name!r} is not a device; expected e.g. 'cpu' or 'cuda:0'") from None


#: Where creation functions put new arrays when no ``device`` is given (the CPU unless the
#: ``DLARRAY_DEFAULT_DEVICE`` environment variable names another device at import time).
DEFAULT_DEVICE = _default_device_from_environment()


def devices_differ(first: Device, second: Device, what: str = "arrays") -> str:
    """The message of the ValueError for arguments on different devices, one wording everywhere.

    Examples
    --------
    >>> from dlarray._devices import CPU, Device, devices_differ
    >>> devices_differ(CPU, Device("cuda:0"))
    'arrays are on different devices: cpu and cuda:0'
    """
    return f"{what} are on different devices: {first} and {second}"
