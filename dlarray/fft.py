"""The Array API ``fft`` extension (2025.12), computed by the device's backend.

Results keep the precision of the input: complex64 in gives complex64 out, float32 in gives
complex64 (``rfft``, ``ihfft``), complex64 in gives float32 (``irfft``, ``hfft``).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from ._args import backend_array as _backend_array
from ._args import backend_function as _backend_function
from ._args import AxisError as _AxisError
from ._args import scalar_device as _scalar_device
from ._args import scalar_value as _scalar_value
from ._array import Array, wrap
from ._devices import CPU, DEFAULT_DEVICE, Device, as_device
from ._dtypes import DType, as_dtype, float64

_HOST_XP = CPU.backend.xp  # frequencies are computed on the host, then moved

__all__ = [
    "fft",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "ifft",
    "ifftn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfftn",
    "rfft",
    "rfftfreq",
    "rfftn",
]

_NORMS = ("backward", "ortho", "forward")


# --------------------------------------------------------------------------------- helpers
def _transform_input(x: Any, name: str, *, real: bool = False) -> Any:
    """The backend array of ``x``: an Array with at least one dimension.

    ``real``: the transform takes real input only (``rfft``, ``rfftn``, ``ihfft``); numpy would
    silently drop the imaginary part of a complex one.
    """
    native = _backend_array(x, f"fft.{name}")
    if x.ndim == 0:
        raise ValueError(f"fft.{name} needs an array with at least one dimension")
    if real and x._dtype.kind == "complex floating":
        raise TypeError(f"fft.{name} needs a real-valued array, got {x._dtype}")
    return native


def _norm(norm: Any, name: str) -> str:
    if norm not in _NORMS:
        raise ValueError(f"fft.{name}: norm must be 'backward', 'ortho' or 'forward', got {norm!r}")
    return norm


def _length(n: Any, name: str) -> int | None:
    if n is None:
        return None
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"fft.{name}: n must be a positive number of points, got {n}")
    return n


def _axis(axis: Any, ndim: int, name: str) -> int:
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise _AxisError(axis, ndim, f"fft.{name}")  # a ValueError, worded as numpy's
    return axis


def _s_axes(s: Any, axes: Any, ndim: int, name: str) -> tuple[list[int] | None, list[int] | None]:
    """Validated ``s`` and ``axes`` of an n-dimensional transform."""
    if axes is not None:
        axes = [_axis(a, ndim, name) for a in axes]
    if s is not None:
        if axes is None:
            raise ValueError(f"fft.{name}: s needs axes too (the standard leaves s without axes undefined)")
        s = [operator.index(size) for size in s]
        if len(s) != len(axes):
            raise ValueError(f"fft.{name}: s and axes differ in length ({len(s)} and {len(axes)})")
        if any(size < 1 and size != -1 for size in s):
            raise ValueError(f"fft.{name}: the sizes in s must be positive (or -1), got {s}")
    return s, axes


def _one_dimensional(x: Any, n: Any, axis: Any, norm: Any, name: str, real: bool = False) -> Array:
    """Run the backend's 1-D transform ``name`` after checking its arguments."""
    native = _transform_input(x, name, real=real)
    function = _backend_function(x, f"fft.{name}")
    axis = _axis(axis, native.ndim, name)
    return wrap(function(native, n=_length(n, name), axis=axis, norm=_norm(norm, name)))


def _n_dimensional(x: Any, s: Any, axes: Any, norm: Any, name: str, real: bool = False) -> Array:
    """Run the backend's n-D transform ``name`` after checking its arguments."""
    native = _transform_input(x, name, real=real)
    function = _backend_function(x, f"fft.{name}")
    s, axes = _s_axes(s, axes, native.ndim, name)
    return wrap(function(native, s=s, axes=axes, norm=_norm(norm, name)))


# --------------------------------------------------------------------------------- transforms
def fft(
    x: Array,
    /,
    *,
    n: int | None = None,
    axis: int = -1,
    norm: Literal["backward", "ortho", "forward"] = "backward",
) -> Array:
    """One-dimensional discrete Fourier transform.

    Standard: [`fft.fft`](https://data-apis.org/array-api/2025.12/extensions/generated/array_api.fft.fft.html).

    Parameters
    ----------
    x
        Input array (complex; a real one is transformed as complex).
    n
        Points along ``axis``: the input is trimmed or zero-padded to it. ``None``: its size.
    axis
        The transformed axis.
    norm
        ``'backward'``, ``'ortho'`` or ``'forward'``: scale by ``1``, ``1/sqrt(n)`` or ``1/n``.

    Returns
    -------
    Array
        Complex of ``x``'s precision (float32 gives complex64); size ``n`` along ``axis``.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or of a stored-only dtype.
    ValueError
        ``x`` is 0-d; ``n`` below 1; an axis out of range; another ``norm``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.fft(xp.asarray([1.0, 2.0, 3.0, 4.0]))
    Array([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j], dtype=complex128, device=cpu)
    """
    return _one_dimensional(x, n, axis, norm, "fft")


def ifft(
    x: Array,
    /,
    *,
    n: int | None = None,
    axis: int = -1,
    norm: Literal["backward", "ortho", "forward"] = "backward",
) -> Array:
    """One-dimensional inverse discrete Fourier transform.

    Standard: [`fft.ifft`](https://data-apis.org/array-api/2025.12/extensions/generated/array_api.fft.ifft.html).

    Parameters
    ----------
    x
        Input array (complex; a real one is transformed as complex).
    n
        Points along ``axis``: the input is trimmed or zero-padded to it. ``None``: its size.
    axis
        The transformed axis.
    norm
        ``'backward'``, ``'ortho'`` or ``'forward'``: scale by ``1/n``, ``1/sqrt(n)`` or ``1``.

    Returns
    -------
    Array
        Complex of ``x``'s precision; size ``n`` along ``axis``.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or of a stored-only dtype.
    ValueError
        ``x`` is 0-d; ``n`` below 1; an axis out of range; another ``norm``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.ifft(xp.asarray([10.0, -2.0 + 2.0j, -2.0, -2.0 - 2.0j]))
    Array([1.+0.j, 2.+0.j, 3.+0.j, 4.+0.j], dtype=complex128, device=cpu)
    """
    return _one_dimensional(x, n, axis, norm, "ifft")


def fftn(
    x: Array,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: Literal["backward", "ortho", "forward"] = "backward",
) -> Array:
    """n-dimensional discrete Fourier transform.

    Standard: [`fft.fftn`](https://data-apis.org/array-api/2025.12/extensions/generated/array_api.fft.fftn.html).

    Parameters
    ----------
    x
        Input array (complex; a real one is transformed as complex).
    s
        Points along each of ``axes`` (trimmed or zero-padded; ``-1``: the whole axis). Needs
        ``axes``. ``None``: the sizes of ``x``.
    axes
        The transformed axes. ``None``: all of them.
    norm
        ``'backward'``, ``'ortho'`` or ``'forward'``: scale by ``1``, ``1/sqrt(n)`` or ``1/n``, with
        ``n = prod(s)``.

    Returns
    -------
    Array
        Complex of ``x``'s precision.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or of a stored-only dtype.
    ValueError
        ``x`` is 0-d; ``s`` below 1; an axis out of range; another ``norm``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.fftn(xp.ones((2, 2)))
    Array([[4.+0.j, 0.+0.j],
           [0.+0.j, 0.+0.j]], dtype=complex128, device=cpu)
    """
    return _n_dimensional(x, s, axes, norm, "fftn")


def ifftn(
    x: Array,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: Literal["backward", "ortho", "forward"] = "backward",
) -> Array:
    """n-dimensional inverse discrete Fourier transform.

    Standard: [`fft.ifftn`](https://data-apis.org/array-api/2025.12/extensions/generated/array_api.fft.ifftn.html).

    Parameters
    ----------
    x
        Input array (complex; a real one is transformed as complex).
    s
        Points along each of ``axes`` (trimmed or zero-padded; ``-1``: the whole axis). Needs
        ``axes``. ``None``: the sizes of ``x``.
    axes
        The transformed axes. ``None``: all of them.
    norm
        ``'backward'``, ``'ortho'`` or ``'forward'``: scale by ``1/n``, ``1/sqrt(n)`` or ``1``, with
        ``n = prod(s)``.

    Returns
    -------
    Array
        Complex of ``x``'s precision.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or of a stored-only dtype.
    ValueError
        ``x`` is 0-d; ``s`` below 1; an axis out of range; another ``norm``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.ifftn(xp.asarray([[4.0, 0.0], [0.0, 0.0]]))
    Array([[1.+0.j, 1.+0.j],
           [1.+0.j, 1.+0.j]], dtype=complex128, device=cpu)
    """
    return _n_dimensional(x, s, axes, norm, "ifftn")


def rfft(
    x: Array,
    /,
    *,
    n: int | None = None,
    axis: int = -1,
    norm: Literal["backward", "ortho", "forward"] = "backward",
) -> Array:
    """One-dimensional discrete Fourier transform of real input.

    Standard: [`fft.rfft`](https://data-apis.org/array-api/2025.12/extensions/generated/array_api.fft.rfft.html).

    Parameters
    ----------
    x
        Input array (real-valued).
    n
        Points along ``axis``: the input is trimmed or zero-padded to it. ``None``: its size.
    axis
        The transformed axis.
    norm
        ``'backward'``, ``'ortho'`` or ``'forward'``: scale by ``1``, ``1/sqrt(n)`` or ``1/n``.

    Returns
    -------
    Array
        The ``n//2 + 1`` non-negative frequency terms along ``axis``, complex of ``x``'s precision
        (float32 gives complex64).

    Raises
    ------
    TypeError
        ``x`` is not an Array, or of a stored-only dtype; ``x`` is complex.
    ValueError
        ``x`` is 0-d; ``n`` below 1; an axis out of range; another ``norm``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.rfft(xp.asarray([1.0, 2.0, 3.0, 4.0]))
    Array([10.+0.j, -2.+2.j, -2.+0.j], dtype=complex128, device=cpu)
    """
    return _one_dimensional(x, n, axis, norm, "rfft", real=True)


def irfft(
    x: Array,
    /,
    *,
    n: int | None = None,
    axis: int = -1,
    norm: Literal["backward", "ortho", "forward"] = "backward",
) -> Array:
    """Inverse of `rfft`: a real signal from its non-negative frequency terms.

    Standard: [`fft.irfft`](https://data-apis.org/array-api/2025.12/extensions/generated/array_api.fft.irfft.html).

    Parameters
    ----------
    x
        Input array (the non-negative frequency terms).
    n
        Points along ``axis`` of the real output. ``None``: ``2*(m - 1)`` for ``m`` input points.
    axis
        The transformed axis.
    norm
        ``'backward'``, ``'ortho'`` or ``'forward'``: scale by ``1/n``, ``1/sqrt(n)`` or ``1``.

    Returns
    -------
    Array
        ``n`` real points along ``axis``, of ``x``'s precision (complex64 gives float32).

    Raises
    ------
    TypeError
        ``x`` is not an Array, or of a stored-only dtype.
    ValueError
        ``x`` is 0-d; ``n`` below 1; an axis out of range; another ``norm``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.irfft(xp.asarray([10.0, -2.0 + 2.0j, -2.0]))
    Array([1., 2., 3., 4.], dtype=float64, device=cpu)
    """
    return _one_dimensional(x, n, axis, norm, "irfft")


def rfftn(
    x: Array,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: Literal["backward", "ortho", "forward"] = "backward",
) -> Array:
    """n-dimensional discrete Fourier transform of real input.

    Standard: [`fft.rfftn`](https://data-apis.org/array-api/2025.12/extensions/generated/array_api.fft.rfftn.html).

    Parameters
    ----------
    x
        Input array (real-valued).
    s
        Points along each of ``axes`` (trimmed or zero-padded; ``-1``: the whole axis). Needs
        ``axes``. ``None``: the sizes of ``x``.
    axes
        The transformed axes. ``None``: all of them.
    norm
        ``'backward'``, ``'ortho'`` or ``'forward'``: scale by ``1``, ``1/sqrt(n)`` or ``1/n``, with
        ``n = prod(s)``.

    Returns
    -------
    Array
        Complex of ``x``'s precision; the last transformed axis keeps ``s[-1]//2 + 1`` terms.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or of a stored-only dtype; ``x`` is complex.
    ValueError
        ``x`` is 0-d; ``s`` below 1; an axis out of range; another ``norm``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.rfftn(xp.ones((2, 4))).shape
    (2, 3)
    """
    return _n_dimensional(x, s, axes, norm, "rfftn", real=True)


def irfftn(
    x: Array,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: Literal["backward", "ortho", "forward"] = "backward",
) -> Array:
    """Inverse of `rfftn`: a real signal from its n-dimensional half spectrum.

    Standard: [`fft.irfftn`](https://data-apis.org/array-api/2025.12/extensions/generated/array_api.fft.irfftn.html).

    Parameters
    ----------
    x
        Input array (the output of `rfftn`).
    s
        Points along each of ``axes`` (trimmed or zero-padded; ``-1``: the whole axis). Needs
        ``axes``. ``None``: the input sizes, except ``2*(m - 1)`` along the last transformed axis.
    axes
        The transformed axes. ``None``: all of them.
    norm
        ``'backward'``, ``'ortho'`` or ``'forward'``: scale by ``1/n``, ``1/sqrt(n)`` or ``1``, with
        ``n = prod(s)``.

    Returns
    -------
    Array
        Real of ``x``'s precision, ``s`` points along the transformed axes.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or of a stored-only dtype.
    ValueError
        ``x`` is 0-d; ``s`` below 1; an axis out of range; another ``norm``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.irfftn(xp.fft.rfftn(xp.ones((2, 4))))
    Array([[1., 1., 1., 1.],
           [1., 1., 1., 1.]], dtype=float64, device=cpu)
    """
    return _n_dimensional(x, s, axes, norm, "irfftn")


def hfft(
    x: Array,
    /,
    *,
    n: int | None = None,
    axis: int = -1,
    norm: Literal["backward", "ortho", "forward"] = "backward",
) -> Array:
    """Discrete Fourier transform of a Hermitian-symmetric signal given by its first half.

    Standard: [`fft.hfft`](https://data-apis.org/array-api/2025.12/extensions/generated/array_api.fft.hfft.html).

    Parameters
    ----------
    x
        Input array (the first half of a Hermitian-symmetric signal).
    n
        Points along ``axis`` of the real output. ``None``: ``2*(m - 1)`` for ``m`` input points.
    axis
        The transformed axis.
    norm
        ``'backward'``, ``'ortho'`` or ``'forward'``: scale by ``1``, ``1/sqrt(n)`` or ``1/n``.

    Returns
    -------
    Array
        ``n`` real points along ``axis``, of ``x``'s precision.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or of a stored-only dtype.
    ValueError
        ``x`` is 0-d; ``n`` below 1; an axis out of range; another ``norm``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.hfft(xp.asarray([1.0, 2.0, 3.0]))
    Array([ 8., -2.,  0., -2.], dtype=float64, device=cpu)
    """
    return _one_dimensional(x, n, axis, norm, "hfft")


def ihfft(
    x: Array,
    /,
    *,
    n: int | None = None,
    axis: int = -1,
    norm: Literal["backward", "ortho", "forward"] = "backward",
) -> Array:
    """Inverse of `hfft` for real input.

    Standard: [`fft.ihfft`](https://data-apis.org/array-api/2025.12/extensions/generated/array_api.fft.ihfft.html).

    Parameters
    ----------
    x
        Input array (real-valued).
    n
        Points along ``axis``: the input is trimmed or zero-padded to it. ``None``: its size.
    axis
        The transformed axis.
    norm
        ``'backward'``, ``'ortho'`` or ``'forward'``: scale by ``1/n``, ``1/sqrt(n)`` or ``1``.

    Returns
    -------
    Array
        ``n//2 + 1`` complex points along ``axis``, of ``x``'s precision.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or of a stored-only dtype; ``x`` is complex.
    ValueError
        ``x`` is 0-d; ``n`` below 1; an axis out of range; another ``norm``.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.ihfft(xp.asarray([8.0, -2.0, 0.0, -2.0]))
    Array([1.-0.j, 2.-0.j, 3.-0.j], dtype=complex128, device=cpu)
    """
    return _one_dimensional(x, n, axis, norm, "ihfft", real=True)


# --------------------------------------------------------------------------------- helpers
def _frequencies(values: np.ndarray, dtype: Any, device: Any, name: str) -> Array:
    """Sample frequencies (computed in float64) in ``dtype`` on ``device``."""
    target = float64 if dtype is None else as_dtype(dtype)
    if target.kind != "real floating":
        raise TypeError(f"fft.{name}: dtype must be a real floating-point dtype, got {target}")
    result = wrap(values.astype(target.numpy_dtype, copy=False))
    place = DEFAULT_DEVICE if device is None else as_device(device)
    if place is not CPU:
        result = result.to_device(place)
    return result


def _window(n: Any, d: Any, name: str) -> tuple[int, float]:
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"fft.{name}: n must be positive, got {n}")
    d = _scalar_value(d, f"fft.{name}() d")
    if isinstance(d, bool) or not isinstance(d, (int, float)):
        raise TypeError(f"fft.{name}: d must be a float, got {type(d).__name__}")
    if d == 0:  # the frequencies are k / (d * n)
        raise ValueError(f"fft.{name}: the sample spacing d must not be 0")
    return n, float(d)


def fftfreq(n: int, /, *, d: float = 1.0, dtype: DType | None = None, device: Device | None = None) -> Array:
    """Sample frequencies of a length-``n`` transform with sample spacing ``d``.

    Standard: [`fft.fftfreq`](https://data-apis.org/array-api/2025.12/extensions/generated/array_api.fft.fftfreq.html).

    Parameters
    ----------
    n
        Length of the transform (positive).
    d
        Sample spacing (the inverse of the sampling rate).
    dtype
        A real floating-point dtype; default float64.
    device
        Device of the result; default the default device.

    Returns
    -------
    Array
        ``[0, 1, ..., -2, -1] / (d*n)``, shape ``(n,)``.

    Raises
    ------
    TypeError
        ``n`` is not an integer; ``dtype`` is not a real floating-point dtype.
    ValueError
        ``n`` below 1, or ``d`` is 0.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.fftfreq(4)
    Array([ 0.  ,  0.25, -0.5 , -0.25], dtype=float64, device=cpu)
    """
    place = _scalar_device(None if device is None else as_device(device), d)
    n, d = _window(n, d, "fftfreq")
    return _frequencies(_HOST_XP.fft.fftfreq(n, d), dtype, place, "fftfreq")


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: DType | None = None, device: Device | None = None) -> Array:
    """Non-negative sample frequencies of a length-``n`` real transform (`rfft`).

    Standard: [`fft.rfftfreq`](https://data-apis.org/array-api/2025.12/extensions/generated/array_api.fft.rfftfreq.html).

    Parameters
    ----------
    n
        Length of the transform (positive).
    d
        Sample spacing (the inverse of the sampling rate).
    dtype
        A real floating-point dtype; default float64.
    device
        Device of the result; default the default device.

    Returns
    -------
    Array
        ``[0, 1, ..., n//2] / (d*n)``, shape ``(n//2 + 1,)``.

    Raises
    ------
    TypeError
        ``n`` is not an integer; ``dtype`` is not a real floating-point dtype.
    ValueError
        ``n`` below 1, or ``d`` is 0.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.rfftfreq(4, d=0.5)
    Array([0. , 0.5, 1. ], dtype=float64, device=cpu)
    """
    place = _scalar_device(None if device is None else as_device(device), d)
    n, d = _window(n, d, "rfftfreq")
    return _frequencies(_HOST_XP.fft.rfftfreq(n, d), dtype, place, "rfftfreq")


def _shift_axes(axes: Any, ndim: int, name: str) -> int | list[int] | None:
    if axes is None:
        return None
    if hasattr(type(axes), "__index__") and not isinstance(axes, bool):  # an int, or a 0-d Array
        return _axis(axes, ndim, name)
    return [_axis(a, ndim, name) for a in axes]


def fftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """Move the zero-frequency term to the centre of ``axes``.

    Standard: [`fft.fftshift`](https://data-apis.org/array-api/2025.12/extensions/generated/array_api.fft.fftshift.html).

    Parameters
    ----------
    x
        Input array.
    axes
        Axis or axes to shift; ``None``: all of them.

    Returns
    -------
    Array
        A new array, same shape and dtype as ``x``.

    Raises
    ------
    TypeError
        ``x`` is not an Array.
    ValueError
        An axis out of range.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.fftshift(xp.fft.fftfreq(5))
    Array([-0.4, -0.2,  0. ,  0.2,  0.4], dtype=float64, device=cpu)
    """
    if type(x) is not Array:
        raise TypeError(f"fft.fftshift takes an Array, got {type(x).__name__}")
    native = x._as_native()
    return wrap(_backend_function(x, "fft.fftshift")(native, axes=_shift_axes(axes, native.ndim, "fftshift")))


def ifftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """Inverse of `fftshift` (they differ for odd lengths).

    Standard: [`fft.ifftshift`](https://data-apis.org/array-api/2025.12/extensions/generated/array_api.fft.ifftshift.html).

    Parameters
    ----------
    x
        Input array.
    axes
        Axis or axes to shift; ``None``: all of them.

    Returns
    -------
    Array
        A new array, same shape and dtype as ``x``.

    Raises
    ------
    TypeError
        ``x`` is not an Array.
    ValueError
        An axis out of range.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.fft.ifftshift(xp.asarray([-0.4, -0.2, 0.0, 0.2, 0.4]))
    Array([ 0. ,  0.2,  0.4, -0.4, -0.2], dtype=float64, device=cpu)
    """
    if type(x) is not Array:
        raise TypeError(f"fft.ifftshift takes an Array, got {type(x).__name__}")
    native = x._as_native()
    return wrap(_backend_function(x, "fft.ifftshift")(native, axes=_shift_axes(axes, native.ndim, "ifftshift")))
