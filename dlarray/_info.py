"""Inspection utilities (Array API "Inspection"): ``__array_namespace_info__()`` and its object."""

from __future__ import annotations

import functools
from typing import Any

from ._backend import cuda_device_count
from ._devices import CPU, DEFAULT_DEVICE, Device, as_device, device_of
from ._dlpack import DLDeviceType
from ._dtypes import ARRAY_API_DTYPES, DType, complex128, float64, int64

__all__ = ["__array_namespace_info__"]

#: The standard's kind names, each with the elementary kinds it stands for (DType.kind values).
KIND_GROUPS: dict[str, tuple[str, ...]] = {
    "bool": ("bool",),
    "signed integer": ("signed integer",),
    "unsigned integer": ("unsigned integer",),
    "integral": ("signed integer", "unsigned integer"),
    "real floating": ("real floating",),
    "complex floating": ("complex floating",),
    "numeric": ("signed integer", "unsigned integer", "real floating", "complex floating"),
}


def kinds_of(kind: str) -> tuple[str, ...]:
    """The elementary kinds a kind name stands for; ValueError for an unknown name."""
    try:
        return KIND_GROUPS[kind]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown dtype kind {kind!r}; expected one of {', '.join(map(repr, KIND_GROUPS))}"
        ) from None


@functools.cache
def _devices() -> tuple[Device, ...]:
    """The devices arrays can be created on: the CPU, plus each CUDA device when cupy finds one.

    Computed once: Python does not cache a failed import, so without cupy every ``import cupy``
    searches sys.path again (tens of microseconds), and ``default_dtypes(device=...)`` and
    ``dtypes(device=...)``, which check their device here, are called on hot paths (scikit-learn
    calls them several times per ``fit``). The CUDA device count of a process does not change.
    """
    found = [CPU]
    try:
        import cupy  # optional: CUDA support
    except ImportError:
        return tuple(found)
    count, _ = cuda_device_count(cupy)  # 0 without a driver or a GPU: CPU only
    found.extend(device_of(DLDeviceType.CUDA, index) for index in range(count))
    return tuple(found)


def _check_device(device: Any) -> None:
    if device is not None:
        resolved = as_device(device)
        if resolved not in _devices():
            raise ValueError(f"device {resolved} is not available; available: {_devices()}")


class Info:
    """The namespace's inspection object, as returned by ``dlarray.__array_namespace_info__()``.

    Examples
    --------
    >>> import dlarray as xp
    >>> info = xp.__array_namespace_info__()
    >>> info.default_device(), info.default_dtypes()["indexing"]
    (Device('cpu'), dlarray.int64)
    """

    __module__ = "dlarray"

    def capabilities(self) -> dict[str, bool | int]:
        """What the namespace supports: boolean indexing, data-dependent shapes, max dimensions.

        Standard: [`capabilities`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.info.capabilities.html).

        Returns
        -------
        dict[str, bool | int]
            ``{"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}``.

        Examples
        --------
        >>> import dlarray as xp
        >>> xp.__array_namespace_info__().capabilities()
        {'boolean indexing': True, 'data-dependent shapes': True, 'max dimensions': 64}
        """
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self) -> Device:
        """The device arrays are created on when no ``device`` is given.

        The CPU, unless the ``DLARRAY_DEFAULT_DEVICE`` environment variable named another device
        (e.g. ``cuda:0``) when dlarray was imported.

        Standard: [`default_device`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.info.default_device.html).

        Returns
        -------
        Device

        Examples
        --------
        >>> import dlarray as xp
        >>> xp.__array_namespace_info__().default_device()
        Device('cpu')
        """
        return DEFAULT_DEVICE

    def devices(self) -> tuple[Device, ...]:
        """The devices arrays can be created on: the CPU first, then each CUDA device cupy finds.

        Standard: [`devices`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.info.devices.html).

        Returns
        -------
        tuple[Device, ...]

        Examples
        --------
        >>> import dlarray as xp
        >>> xp.__array_namespace_info__().devices()[0]
        Device('cpu')
        """
        return _devices()

    def default_dtypes(self, *, device: Device | None = None) -> dict[str, DType]:
        """The default dtype of each kind (the same on every device).

        Standard: [`default_dtypes`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.info.default_dtypes.html).

        Parameters
        ----------
        device
            A device; ``None``: the default device.

        Returns
        -------
        dict[str, DType]
            Keys ``"real floating"`` (float64), ``"complex floating"`` (complex128), ``"integral"``
            and ``"indexing"`` (int64).

        Raises
        ------
        TypeError
            ``device`` is not a device.
        ValueError
            An unknown device name, or a device not available here.

        Examples
        --------
        >>> import dlarray as xp
        >>> xp.__array_namespace_info__().default_dtypes()["real floating"]
        dlarray.float64
        """
        _check_device(device)
        return {
            "real floating": float64,
            "complex floating": complex128,
            "integral": int64,
            "indexing": int64,
        }

    def dtypes(
        self,
        *,
        device: Device | None = None,
        kind: str | tuple[str, ...] | None = None,
    ) -> dict[str, DType]:
        """The Array API dtypes supported on ``device``, optionally only those of ``kind``.

        Standard: [`dtypes`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.info.dtypes.html).

        Parameters
        ----------
        device
            A device (every device supports every Array API dtype); ``None``: the default device.
        kind
            ``None`` (all), a kind name (``"bool"``, ``"signed integer"``, ``"unsigned integer"``,
            ``"integral"``, ``"real floating"``, ``"complex floating"``, ``"numeric"``) or a tuple
            of them (their union).

        Returns
        -------
        dict[str, DType]
            Canonical name -> dtype. The extra dtypes dlarray holds (float16, bfloat16, float8,
            ...) are not Array API dtypes and never listed.

        Raises
        ------
        TypeError
            ``device`` is not a device.
        ValueError
            An unknown kind name; an unknown device name, or a device not available here.

        Examples
        --------
        >>> import dlarray as xp
        >>> list(xp.__array_namespace_info__().dtypes(kind="real floating"))
        ['float32', 'float64']
        """
        _check_device(device)
        if kind is None:
            wanted = None
        else:
            names = kind if isinstance(kind, tuple) else (kind,)
            wanted = {elementary for name in names for elementary in kinds_of(name)}
        return {d.name: d for d in ARRAY_API_DTYPES if wanted is None or d.category in wanted}

    def __repr__(self) -> str:
        return "dlarray.__array_namespace_info__()"


_INFO = Info()


def __array_namespace_info__() -> Info:
    """The inspection object of the namespace: ``capabilities()``, ``devices()``, ``dtypes()``...

    Standard: [`__array_namespace_info__`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.info.__array_namespace_info__.html).

    Returns
    -------
    Info
        The namespace's one inspection object.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.__array_namespace_info__().dtypes(kind="bool")
    {'bool': dlarray.bool}
    """
    return _INFO

