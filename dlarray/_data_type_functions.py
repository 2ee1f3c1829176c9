"""Data Type Functions (Array API "Data Type Functions"): casting, promotion, limits, kinds.

Type promotion follows the standard's table for the Array API dtypes of one kind (booleans,
integers signed and unsigned, floating point real and complex). Promotion across kinds (an integer
with a float, a bool with a number), which the standard leaves to the implementation, follows
numpy's rules: that is what the CPU computations do. ``int64`` with ``uint64`` gives ``float64``,
as in numpy. With several dtypes, each family (booleans, integers, floats) is promoted first and
the families are then joined, so the result does not depend on the order of the arguments.
float16 is real floating and promotes as numpy promotes it; the types numpy lacks (bfloat16,
float8/6/4) do not promote (except with themselves).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import Array, from_bits, wrap
from ._storage import bits_view
from ._devices import Device, as_device, devices_differ
from ._dtypes import (
    BY_NAME,
    BY_NUMPY,
    INTEGER_KINDS,
    DType,
    as_dtype,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int64,
)
from ._float_formats import FORMATS, decode, encode, limits
from ._info import kinds_of
from ._docs import Sections

__all__ = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type"]

_FLOAT_KINDS = ("real floating", "complex floating")
_COMPLEX_OF = {float16: complex64, float32: complex64, float64: complex128}
_REAL_OF = {complex64: float32, complex128: float64}


# ---------------------------------------------------------------------------------- promotion
def _promote_same_kind(a: DType, b: DType) -> DType | None:
    """The standard's promotion of two Array API dtypes of one kind; None for any other pair."""
    ka, kb = a.category, b.category
    if ka in INTEGER_KINDS and kb in INTEGER_KINDS:
        if ka == kb:
            return a if a.bits >= b.bits else b
        signed, unsigned = (a, b) if ka == "signed integer" else (b, a)
        if signed.bits > unsigned.bits:
            return signed
        if unsigned.bits < 64:
            return as_dtype(f"int{2 * unsigned.bits}")
        return None  # uint64 with a signed integer: not in the standard's table
    if ka in _FLOAT_KINDS and kb in _FLOAT_KINDS:
        bits = max(_real_bits(a), _real_bits(b))
        real = float64 if bits == 64 else float32
        if ka == "complex floating" or kb == "complex floating":
            return _COMPLEX_OF[real]
        return real
    return None


def _real_bits(dtype: DType) -> int:
    return dtype.bits // 2 if dtype.category == "complex floating" else dtype.bits


def promote(a: DType, b: DType) -> DType:
    """The dtype two dtypes promote to; TypeError where there is none."""
    if a is b:
        return a
    found = _promote_same_kind(a, b)
    if found is not None:
        return found
    if a.numpy_dtype is None or b.numpy_dtype is None:
        raise TypeError(f"{a} and {b} have no common dtype (dlarray does not compute with {a if a.numpy_dtype is None else b})")
    return BY_NUMPY[np.promote_types(a.numpy_dtype, b.numpy_dtype)]


_FAMILY = {
    "bool": 0,
    "signed integer": 1,
    "unsigned integer": 1,
    "real floating": 2,
    "complex floating": 2,
    "extended floating": 2,
}


def promote_all(dtypes: list[DType]) -> DType:
    """The common dtype of several dtypes, whatever their order.

    Promotion across kinds is not associative (int8 with float32 gives float32, but int8 with
    uint16 gives int32, which with float32 gives float64), so each family (booleans, integers,
    floats) is promoted first, by the standard's table, and the families are then joined in
    that order.
    """
    families: dict[int, DType] = {}
    for dtype in dtypes:
        family = _FAMILY[dtype.category]
        found = families.get(family)
        families[family] = dtype if found is None else promote(found, dtype)
    ordered = [families[family] for family in sorted(families)]
    result = ordered[0]
    for dtype in ordered[1:]:
        result = promote(result, dtype)
    return result


def _promote_scalar(dtype: DType, scalar: bool | int | float | complex) -> DType:
    """The dtype of an operation between an array of ``dtype`` and a Python scalar.

    A scalar of the array's kind, or of a lower one (an ``int`` with a float array), takes the
    array's dtype, as the standard says. A scalar of a higher kind (a ``float`` with an integer
    array, the standard leaves it open) gives that kind's default dtype, as numpy does; a
    ``complex`` with a real float array gives the complex dtype of the same precision.
    """
    kind = dtype.category
    if isinstance(scalar, bool):
        return dtype
    if isinstance(scalar, int):
        return int64 if kind == "bool" else dtype
    if isinstance(scalar, float):
        return dtype if kind in _FLOAT_KINDS or kind == "extended floating" else float64
    if kind == "complex floating":
        return dtype
    if kind == "real floating":
        return _COMPLEX_OF[dtype]
    return complex128


_doc = Sections()  # each docstring's link to the standard and example import (dlarray._docs)


@_doc
def result_type(*arrays_and_dtypes: Array | DType | bool | int | float | complex) -> DType:
    """The dtype that results from applying the type promotion rules to the arguments.

    Parameters
    ----------
    *arrays_and_dtypes
        Arrays, dtypes and Python scalars (``bool``, ``int``, ``float``, ``complex``); at least
        one array or dtype.

    Returns
    -------
    DType

    Raises
    ------
    TypeError
        An argument is of another type, or two dtypes have no common dtype.
    ValueError
        No array or dtype was given.

    {examples}
    >>> xp.result_type(xp.int8, xp.uint8)
    dlarray.int16
    >>> xp.result_type(xp.asarray([1], dtype=xp.float32), 1.5)
    dlarray.float32
    """
    dtypes = []
    scalars = []
    device = None
    for item in arrays_and_dtypes:
        if type(item) is Array:
            if device is not None and item._device is not device:
                raise ValueError(devices_differ(device, item._device))
            device = item._device
            dtype = item._dtype
        elif type(item) is DType:
            dtype = item
        elif isinstance(item, (bool, int, float, complex)):
            scalars.append(item)
            continue
        elif _dtype_like(item):
            dtype = as_dtype(item)  # numpy's dtypes and scalar types, dtype names (not Python's types)
        else:
            raise TypeError(f"result_type() takes arrays, dtypes and Python scalars, not {type(item).__name__}")
        dtypes.append(dtype)
    if not dtypes:
        raise ValueError("result_type() needs at least one array or dtype")
    result = promote_all(dtypes)
    # Scalars are weakly typed: they join after the arrays and dtypes, whatever their position.
    for scalar in scalars:
        result = _promote_scalar(result, scalar)
    return result


@_doc
def can_cast(from_: DType | Array, to: DType, /) -> bool:
    """Whether ``from_`` (a dtype, or an array's dtype) casts to ``to`` by type promotion.

    True exactly when promoting ``from_`` with ``to`` gives ``to``: within a kind as the
    standard's table says, across kinds as numpy's (so ``int8`` -> ``float32`` is True,
    ``float64`` -> ``int64`` and ``complex64`` -> ``float32`` are False).

    Parameters
    ----------
    from_
        A dtype or an Array.
    to
        The target dtype.

    Returns
    -------
    bool
        Whether ``from_`` casts to ``to`` under the rule above.

    Raises
    ------
    TypeError
        ``from_`` is not a dtype or an Array; ``to`` is not a dtype.

    {examples}
    >>> xp.can_cast(xp.int8, xp.int16), xp.can_cast(xp.int16, xp.int8)
    (True, False)
    >>> xp.can_cast(xp.asarray([1.0]), xp.float32)
    False
    """
    source = from_._dtype if type(from_) is Array else _dtype_argument(from_, "from_")
    target = _dtype_argument(to, "to")
    try:
        return promote(source, target) is target
    except TypeError:
        return False


def _dtype_argument(value: Any, name: str) -> DType:
    if type(value) is DType:
        return value
    try:
        return as_dtype(value)
    except TypeError:
        raise TypeError(f"{name} must be a dlarray dtype, got {value!r}") from None


# ---------------------------------------------------------------------------------- astype
@_doc
def astype(x: Array, dtype: DType, /, *, copy: bool = True, device: Device | None = None) -> Array:
    """Copy an array to another dtype, irrespective of the type promotion rules.

    Parameters
    ----------
    x
        The array to cast.
    dtype
        The target dtype.
    copy
        ``True``: always a new array. ``False``: ``x`` itself when it has ``dtype`` already (and
        is on ``device``), a new array otherwise.
    device
        Device of the result; ``None``: ``x``'s device.

    Returns
    -------
    Array
        Same shape as ``x``. Booleans cast to 0/1; numbers cast to ``bool`` as ``x != 0``.
        bfloat16 and the float8/6/4 types convert too (on the host): exactly from them; to them
        by rounding to nearest even (through float32, bit-compatible with ml_dtypes and JAX).

    Raises
    ------
    TypeError
        ``x`` is not an Array; ``dtype`` is not a dtype; a complex array cast to a real
        dtype: the standard does not permit dropping the imaginary part implicitly; take
        ``real(x)`` or ``imag(x)`` first. (Complex to ``bool`` is defined: ``0 + 0j`` is False,
        any other value True.)

    {examples}
    >>> xp.astype(xp.asarray([1.7, -0.5, 0.0]), xp.int32)
    Array([1, 0, 0], dtype=int32, device=cpu)
    >>> xp.astype(xp.asarray([1.7, -0.5, 0.0]), xp.bool)
    Array([ True,  True, False], dtype=bool, device=cpu)
    >>> xp.astype(xp.asarray([1.0, 3.14159]), xp.bfloat16)
    Array([1.      , 3.140625], dtype=bfloat16, device=cpu)
    """
    if type(x) is not Array:
        raise TypeError(f"astype() expects an Array, got {type(x).__name__}")
    target = _dtype_argument(dtype, "dtype")
    source = x._dtype
    # complex -> real is refused by the standard; complex -> bool is defined: 0 + 0j is False
    if source.category == "complex floating" and target.category not in ("complex floating", "bool"):
        raise TypeError(
            f"casting a complex array to {target} would drop the imaginary part; "
            f"use real(x) or imag(x) first"
        )
    if device is not None:
        target_device = as_device(device)
        if target_device is not x._device:
            x = x.to_device(target_device)  # a new array already: no second copy below
            copy = False
    if target is source:
        return x._copy() if copy else x
    if target.numpy_dtype is None or source.numpy_dtype is None:
        return _convert_format(x, target)
    return wrap(x._as_native().astype(target.numpy_dtype))


def _convert_format(x: Array, target: DType) -> Array:
    """Cast from or to bfloat16 or a float8/6/4 type (exact decoding; encoding rounds to nearest even)."""
    source = x._dtype
    values = decode(bits_view(x), source) if source.numpy_dtype is None else x._as_native()
    if target.numpy_dtype is None:
        if not x._device.backend.host_native:
            raise TypeError(f"casting to {target} is done on the host: copy the array to the CPU first")
        return from_bits(encode(values, target), target)
    return wrap(values.astype(target.numpy_dtype, copy=False))


# ---------------------------------------------------------------------------------- limits
class finfo_object:
    """Machine limits of a floating-point dtype (:func:`finfo` returns one).

    Attributes
    ----------
    bits : int
        Bits of the (real) type.
    eps : float
        Difference between 1.0 and the next representable number.
    max : float
        Largest finite value.
    min : float
        Smallest (most negative) finite value.
    smallest_normal : float
        Smallest positive normal value.
    dtype : DType
        The real floating-point dtype described (the component type for a complex dtype).
    """

    __slots__ = ("bits", "eps", "max", "min", "smallest_normal", "dtype")
    __module__ = "dlarray"

    def __init__(self, bits: int, eps: float, max: float, min: float, smallest_normal: float, dtype: DType) -> None:  # noqa: A002
        self.bits = bits
        self.eps = eps
        self.max = max
        self.min = min
        self.smallest_normal = smallest_normal
        self.dtype = dtype

    def __repr__(self) -> str:
        return (
            f"finfo(bits={self.bits}, eps={self.eps!r}, max={self.max!r}, min={self.min!r}, "
            f"smallest_normal={self.smallest_normal!r}, dtype={self.dtype})"
        )


class iinfo_object:
    """Machine limits of an integer dtype (:func:`iinfo` returns one).

    Attributes
    ----------
    bits : int
    max : int
    min : int
    dtype : DType
    """

    __slots__ = ("bits", "max", "min", "dtype")
    __module__ = "dlarray"

    def __init__(self, bits: int, max: int, min: int, dtype: DType) -> None:  # noqa: A002
        self.bits = bits
        self.max = max
        self.min = min
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"iinfo(bits={self.bits}, max={self.max}, min={self.min}, dtype={self.dtype})"


def _type_argument(type_: Any, function: str) -> DType:
    if type(type_) is Array:
        return type_._dtype
    try:
        return as_dtype(type_)
    except TypeError:
        raise TypeError(f"{function}() takes a dtype or an array, not {type_!r}") from None


@_doc
def finfo(type: DType | Array, /) -> finfo_object:  # noqa: A002 - the standard's name
    """Machine limits of a floating-point dtype (a complex dtype: of its components).

    Parameters
    ----------
    type
        A floating-point dtype or array; also float16, bfloat16 and the float8/6/4 types.

    Returns
    -------
    finfo_object
        ``bits``, ``eps``, ``max``, ``min``, ``smallest_normal`` (Python ``float``/``int``) and
        ``dtype`` (the real dtype).

    Raises
    ------
    TypeError
        ``type`` is not a floating-point dtype or array.

    {examples}
    >>> xp.finfo(xp.float32).eps
    1.1920928955078125e-07
    >>> xp.finfo(xp.complex128).dtype
    dlarray.float64
    >>> xp.finfo(xp.bfloat16).max
    3.3895313892515355e+38
    """
    dtype = _type_argument(type, "finfo")
    dtype = _REAL_OF.get(dtype, dtype)
    if dtype.category not in ("real floating", "extended floating"):
        raise TypeError(f"finfo() needs a floating-point dtype, got {dtype}")
    if dtype.name in FORMATS:
        return finfo_object(dtype.bits, *limits(dtype), dtype)
    info = np.finfo(dtype.numpy_dtype)
    return finfo_object(
        int(info.bits), float(info.eps), float(info.max), float(info.min), float(info.smallest_normal), dtype
    )


@_doc
def iinfo(type: DType | Array, /) -> iinfo_object:  # noqa: A002 - the standard's name
    """Machine limits of an integer dtype.

    Parameters
    ----------
    type
        An integer dtype or array.

    Returns
    -------
    iinfo_object
        ``bits``, ``max``, ``min`` (Python ``int``) and ``dtype``.

    Raises
    ------
    TypeError
        ``type`` is not an integer dtype or array.

    {examples}
    >>> xp.iinfo(xp.int8)
    iinfo(bits=8, max=127, min=-128, dtype=int8)
    """
    dtype = _type_argument(type, "iinfo")
    if dtype.category not in INTEGER_KINDS:
        raise TypeError(f"iinfo() needs an integer dtype, got {dtype}")
    info = np.iinfo(dtype.numpy_dtype)
    return iinfo_object(int(info.bits), int(info.max), int(info.min), dtype)


# ---------------------------------------------------------------------------------- kinds
@_doc
def isdtype(dtype: DType, kind: DType | str | tuple[DType | str, ...]) -> bool:
    """Whether ``dtype`` is ``kind`` (a dtype) or belongs to it (a kind name), or to any of a tuple.

    Parameters
    ----------
    dtype
        The dtype to test.
    kind
        A dtype; a kind name: ``"bool"``, ``"signed integer"``, ``"unsigned integer"``,
        ``"integral"``, ``"real floating"``, ``"complex floating"``, ``"numeric"``; or a tuple of
        dtypes and kind names (their union). float16 is real floating, as in numpy and torch;
        the types numpy lacks (bfloat16, float8/6/4) are of none of these kinds.

    Returns
    -------
    bool
        Whether ``dtype`` is of ``kind``.

    Raises
    ------
    TypeError
        ``dtype`` is not a dtype; ``kind`` is neither a dtype, a string nor a tuple of them.
    ValueError
        An unknown kind name.

    {examples}
    >>> xp.isdtype(xp.int8, "integral"), xp.isdtype(xp.float32, ("integral", "complex floating"))
    (True, False)
    >>> xp.isdtype(xp.float16, "real floating"), xp.isdtype(xp.bfloat16, "real floating")
    (True, False)
    """
    if type(dtype) is not DType:
        if not _dtype_like(dtype):
            raise TypeError(f"isdtype() expects a dlarray dtype, got {dtype!r}")
        dtype = as_dtype(dtype)  # numpy's dtypes and scalar types, dtype names
    if isinstance(kind, tuple):
        return any([_is_kind(dtype, item) for item in kind])
    return _is_kind(dtype, kind)


def _numpy_dtype_like(value: Any) -> bool:
    """A numpy dtype or numpy scalar type (``np.dtype("float32")``, ``np.float32``): what numpy-based
    libraries (cubed, zarr, xarray) hand over, taken as the dlarray dtype of the same name."""
    return isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic))


def _dtype_like(value: Any) -> bool:
    """What stands for a dtype where the argument can only be one: numpy's dtypes and scalar types,
    and a dtype's name (``"float32"``, as the creation functions and numpy take it; xarray hands
    names to ``result_type``). A kind name in ``isdtype``'s ``kind`` stays a kind name."""
    return _numpy_dtype_like(value) or (type(value) is str and value in BY_NAME)


def _is_kind(dtype: DType, kind: Any) -> bool:
    if _numpy_dtype_like(kind):
        kind = as_dtype(kind)
    if type(kind) is DType:
        return dtype is kind
    if isinstance(kind, str):
        return dtype.category in kinds_of(kind)
    raise TypeError(f"a dtype kind must be a dtype or a kind name, got {kind!r}")

