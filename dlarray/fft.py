"""The Array API ``fft`` extension (2025.12), computed by the device's backend.

Results keep the precision of the input: complex64 in gives complex64 out, float32 in gives
complex64 (``rfft``, ``ihfft``), complex64 in gives float32 (``irfft``, ``hfft``).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, Literal, Protocol, TypeVar

import numpy as np

from ._args import backend_array as _backend_array
from ._args import backend_function as _backend_function
from ._args import AxisError as _AxisError
from ._args import scalar_device as _scalar_device
from ._args import scalar_value as _scalar_value
from ._array import Array, wrap
from ._devices import CPU, DEFAULT_DEVICE, Device, as_device
from ._docs import Doc, Sections, declare
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
    if real and x._dtype.category == "complex floating":
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
        if any([size < 1 and size != -1 for size in s]):
            raise ValueError(f"fft.{name}: the sizes in s must be positive (or -1), got {s}")
    return s, axes


# --------------------------------------------------------------------------------- transforms
# What the transforms' docstrings share; each transform's own words are its record below.
_NORM = "``'backward'``, ``'ortho'`` or ``'forward'``: scale by {scales}"
_SCALES = {"forward": "``1``, ``1/sqrt(n)`` or ``1/n``", "inverse": "``1/n``, ``1/sqrt(n)`` or ``1``"}
_INPUT = {  # by whether the transform takes real input only
    False: "Input array (complex; a real one is transformed as complex).",
    True: "Input array (real-valued).",
}
_POINTS = "Points along ``axis``: the input is trimmed or zero-padded to it. ``None``: its size."
_REAL_OUTPUT_POINTS = (
    "Points along ``axis`` of the real output. ``None``: ``2*(m - 1)`` for ``m`` input points."
)
_SIZES = "Points along each of ``axes`` (trimmed or zero-padded; ``-1``: the whole axis). Needs ``axes``."
_ERRORS = {
    "TypeError": "``x`` is not an Array, or of a stored-only dtype",
    "ValueError": "``x`` is 0-d; ``{length}`` below 1; an axis out of range; another ``norm``.",
}

_DOCS = {
    "fft": Doc(
        """
        One-dimensional discrete Fourier transform.
        """,
        returns="Complex of ``x``'s precision (float32 gives complex64); size ``n`` along ``axis``.",
        examples="""
        >>> xp.fft.fft(xp.asarray([1.0, 2.0, 3.0, 4.0]))
        Array([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j], dtype=complex128, device=cpu)
        """,
    ),
    "ifft": Doc(
        """
        One-dimensional inverse discrete Fourier transform.
        """,
        returns="Complex of ``x``'s precision; size ``n`` along ``axis``.",
        examples="""
        >>> xp.fft.ifft(xp.asarray([10.0, -2.0 + 2.0j, -2.0, -2.0 - 2.0j]))
        Array([1.+0.j, 2.+0.j, 3.+0.j, 4.+0.j], dtype=complex128, device=cpu)
        """,
    ),
    "fftn": Doc(
        """
        n-dimensional discrete Fourier transform.
        """,
        returns="Complex of ``x``'s precision.",
        examples="""
        >>> xp.fft.fftn(xp.ones((2, 2)))
        Array([[4.+0.j, 0.+0.j],
               [0.+0.j, 0.+0.j]], dtype=complex128, device=cpu)
        """,
    ),
    "ifftn": Doc(
        """
        n-dimensional inverse discrete Fourier transform.
        """,
        returns="Complex of ``x``'s precision.",
        examples="""
        >>> xp.fft.ifftn(xp.asarray([[4.0, 0.0], [0.0, 0.0]]))
        Array([[1.+0.j, 1.+0.j],
               [1.+0.j, 1.+0.j]], dtype=complex128, device=cpu)
        """,
    ),
    "rfft": Doc(
        """
        One-dimensional discrete Fourier transform of real input.
        """,
        returns="The ``n//2 + 1`` non-negative frequency terms along ``axis``, complex of ``x``'s precision "
                "(float32 gives complex64).",
        examples="""
        >>> xp.fft.rfft(xp.asarray([1.0, 2.0, 3.0, 4.0]))
        Array([10.+0.j, -2.+2.j, -2.+0.j], dtype=complex128, device=cpu)
        """,
    ),
    "irfft": Doc(
        """
        Inverse of `rfft`: a real signal from its non-negative frequency terms.
        """,
        params={"x": "Input array (the non-negative frequency terms).", "n": _REAL_OUTPUT_POINTS},
        returns="``n`` real points along ``axis``, of ``x``'s precision (complex64 gives float32).",
        examples="""
        >>> xp.fft.irfft(xp.asarray([10.0, -2.0 + 2.0j, -2.0]))
        Array([1., 2., 3., 4.], dtype=float64, device=cpu)
        """,
    ),
    "rfftn": Doc(
        """
        n-dimensional discrete Fourier transform of real input.
        """,
        returns="Complex of ``x``'s precision; the last transformed axis keeps ``s[-1]//2 + 1`` terms.",
        examples="""
        >>> xp.fft.rfftn(xp.ones((2, 4))).shape
        (2, 3)
        """,
    ),
    "irfftn": Doc(
        """
        Inverse of `rfftn`: a real signal from its n-dimensional half spectrum.
        """,
        params={
            "x": "Input array (the output of `rfftn`).",
            "s": f"{_SIZES} ``None``: the input sizes, except ``2*(m - 1)`` along the last transformed axis.",
        },
        returns="Real of ``x``'s precision, ``s`` points along the transformed axes.",
        examples="""
        >>> xp.fft.irfftn(xp.fft.rfftn(xp.ones((2, 4))))
        Array([[1., 1., 1., 1.],
               [1., 1., 1., 1.]], dtype=float64, device=cpu)
        """,
    ),
    "hfft": Doc(
        """
        Discrete Fourier transform of a Hermitian-symmetric signal given by its first half.
        """,
        params={
            "x": "Input array (the first half of a Hermitian-symmetric signal).",
            "n": _REAL_OUTPUT_POINTS,
        },
        returns="``n`` real points along ``axis``, of ``x``'s precision.",
        examples="""
        >>> xp.fft.hfft(xp.asarray([1.0, 2.0, 3.0]))
        Array([ 8., -2.,  0., -2.], dtype=float64, device=cpu)
        """,
    ),
    "ihfft": Doc(
        """
        Inverse of `hfft` for real input.
        """,
        returns="``n//2 + 1`` complex points along ``axis``, of ``x``'s precision.",
        examples="""
        >>> xp.fft.ihfft(xp.asarray([8.0, -2.0, 0.0, -2.0]))
        Array([1.-0.j, 2.-0.j, 3.-0.j], dtype=complex128, device=cpu)
        """,
    ),
}


_Transform = TypeVar("_Transform", bound=Callable[..., Array])


class _OneDimensional(Protocol):
    """The signature of a transform along one axis, as a type checker reads it."""

    def __call__(
        self, x: Array, /, *, n: int | None = None, axis: int = -1,
        norm: Literal["backward", "ortho", "forward"] = "backward",
    ) -> Array: ...


class _NDimensional(Protocol):
    """The signature of a transform along several axes, as a type checker reads it."""

    def __call__(
        self, x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
        norm: Literal["backward", "ortho", "forward"] = "backward",
    ) -> Array: ...


def _declared(transform: _Transform, name: str, real: bool, words: dict[str, str], length: str) -> _Transform:
    """``transform`` named ``name`` and documented: its record, with what the transforms share
    (``real``: it takes real input only; ``words``: its parameters' shared words; ``length``: the
    parameter that sets its length)."""
    errors = {
        "TypeError": _ERRORS["TypeError"] + ("; ``x`` is complex." if real else "."),
        "ValueError": _ERRORS["ValueError"].format(length=length),
    }
    words = {"x": _INPUT[real], **words}
    return declare(transform, name, _DOCS[name], words=words, errors=errors, standard=f"fft.{name}")


def _one_dimensional(name: str, direction: str, *, real: bool = False) -> _OneDimensional:
    """Transform ``name`` of the backend along one axis, scaled as its ``direction`` ("forward"
    or "inverse") says; ``real``: of real input only (numpy would drop a complex one's
    imaginary part)."""

    def transform(
        x: Array, /, *, n: int | None = None, axis: int = -1,
        norm: Literal["backward", "ortho", "forward"] = "backward",
    ) -> Array:
        native = _transform_input(x, name, real=real)
        function = _backend_function(x, f"fft.{name}")
        length, along = _length(n, name), _axis(axis, native.ndim, name)
        return wrap(function(native, n=length, axis=along, norm=_norm(norm, name)))

    words = {
        "n": _POINTS,
        "axis": "The transformed axis.",
        "norm": _NORM.format(scales=_SCALES[direction]) + ".",
    }
    return _declared(transform, name, real, words, "n")


def _n_dimensional(name: str, direction: str, *, real: bool = False) -> _NDimensional:
    """Transform ``name`` of the backend along several axes, as :func:`_one_dimensional`."""

    def transform(
        x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
        norm: Literal["backward", "ortho", "forward"] = "backward",
    ) -> Array:
        native = _transform_input(x, name, real=real)
        function = _backend_function(x, f"fft.{name}")
        sizes, axes_ = _s_axes(s, axes, native.ndim, name)
        return wrap(function(native, s=sizes, axes=axes_, norm=_norm(norm, name)))

    words = {
        "s": f"{_SIZES} ``None``: the sizes of ``x``.",
        "axes": "The transformed axes. ``None``: all of them.",
        "norm": _NORM.format(scales=_SCALES[direction]) + ", with ``n = prod(s)``.",
    }
    return _declared(transform, name, real, words, "s")


# A line each: name, the axes it transforms along (_one_dimensional, _n_dimensional), the
# direction of its scaling, and whether it takes real input only. A type checker reads each
# signature from its factory's Protocol; the API reference shows the run-time one.
fft = _one_dimensional("fft", "forward")
ifft = _one_dimensional("ifft", "inverse")
fftn = _n_dimensional("fftn", "forward")
ifftn = _n_dimensional("ifftn", "inverse")
rfft = _one_dimensional("rfft", "forward", real=True)
irfft = _one_dimensional("irfft", "inverse")
rfftn = _n_dimensional("rfftn", "forward", real=True)
irfftn = _n_dimensional("irfftn", "inverse")
hfft = _one_dimensional("hfft", "forward")
ihfft = _one_dimensional("ihfft", "inverse", real=True)


# --------------------------------------------------------------------------------- frequencies
# What their docstrings share (dlarray._docs.Sections fills each ``{name}`` line in).
_doc = Sections(
    "fft",
    frequency_parameters="""
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
    """,
    frequency_errors="""
        Raises
        ------
        TypeError
            ``n`` is not an integer; ``dtype`` is not a real floating-point dtype.
        ValueError
            ``n`` below 1, or ``d`` is 0.
    """,
)


def _frequencies(values: np.ndarray, dtype: Any, device: Any, name: str) -> Array:
    """Sample frequencies (computed in float64) in ``dtype`` on ``device``."""
    target = float64 if dtype is None else as_dtype(dtype)
    if target.category != "real floating":
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


@_doc
def fftfreq(n: int, /, *, d: float = 1.0, dtype: DType | None = None, device: Device | None = None) -> Array:
    """Sample frequencies of a length-``n`` transform with sample spacing ``d``.

    {frequency_parameters}

    Returns
    -------
    Array
        ``[0, 1, ..., -2, -1] / (d*n)``, shape ``(n,)``.

    {frequency_errors}

    {examples}
    >>> xp.fft.fftfreq(4)
    Array([ 0.  ,  0.25, -0.5 , -0.25], dtype=float64, device=cpu)
    """
    place = _scalar_device(None if device is None else as_device(device), d)
    n, d = _window(n, d, "fftfreq")
    return _frequencies(_HOST_XP.fft.fftfreq(n, d), dtype, place, "fftfreq")


@_doc
def rfftfreq(n: int, /, *, d: float = 1.0, dtype: DType | None = None, device: Device | None = None) -> Array:
    """Non-negative sample frequencies of a length-``n`` real transform (`rfft`).

    {frequency_parameters}

    Returns
    -------
    Array
        ``[0, 1, ..., n//2] / (d*n)``, shape ``(n//2 + 1,)``.

    {frequency_errors}

    {examples}
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


# --------------------------------------------------------------------------------- shifts
_SHIFT_DOCS = {
    "fftshift": Doc(
        """
        Move the zero-frequency term to the centre of ``axes``.
        """,
        examples="""
        >>> xp.fft.fftshift(xp.fft.fftfreq(5))
        Array([-0.4, -0.2,  0. ,  0.2,  0.4], dtype=float64, device=cpu)
        """,
    ),
    "ifftshift": Doc(
        """
        Inverse of `fftshift` (they differ for odd lengths).
        """,
        examples="""
        >>> xp.fft.ifftshift(xp.asarray([-0.4, -0.2, 0.0, 0.2, 0.4]))
        Array([ 0. ,  0.2,  0.4, -0.4, -0.2], dtype=float64, device=cpu)
        """,
    ),
}


class _Shift(Protocol):
    """The signature of a shift, as a type checker reads it."""

    def __call__(self, x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array: ...


def _shift(name: str) -> _Shift:
    """Shift ``name`` of the backend (a roll by half of each of ``axes``)."""

    def shift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
        if type(x) is not Array:
            raise TypeError(f"fft.{name} takes an Array, got {type(x).__name__}")
        native = x._as_native()
        return wrap(_backend_function(x, f"fft.{name}")(native, axes=_shift_axes(axes, native.ndim, name)))

    return declare(
        shift, name, _SHIFT_DOCS[name],
        words={"x": "Input array.", "axes": "Axis or axes to shift; ``None``: all of them."},
        returned="A new array, same shape and dtype as ``x``.",
        errors={"TypeError": "``x`` is not an Array.", "ValueError": "An axis out of range."},
        standard=f"fft.{name}",
    )


fftshift = _shift("fftshift")
ifftshift = _shift("ifftshift")
