"""Element-wise functions (Array API "Element-wise Functions"), computed by the device's backend.

Each function hands the backend arrays (numpy on CPU; the numpy ufuncs dispatch to cupy for CUDA
arrays) to the matching ufunc and wraps the result. Where numpy's result differs from the
standard's special cases, a vectorised fix-up runs, and only for the dtypes (and inputs) that need
it, so the common path stays one ufunc call.

Type promotion is numpy's (NEP 50), which matches the standard's table for every pair the table
defines; Python scalars are weakly typed, as the standard asks. For pairs the standard leaves
unspecified (mixed kinds, integer inputs to floating-point functions) numpy's result is kept.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._array import Array, wrap
from ._devices import devices_differ

__all__ = [
    "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_and",
    "bitwise_left_shift", "bitwise_invert", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
    "ceil", "clip", "conj", "copysign", "cos", "cosh", "divide", "equal", "exp", "expm1", "floor",
    "floor_divide", "greater", "greater_equal", "hypot", "imag", "isfinite", "isinf", "isnan",
    "less", "less_equal", "log", "log1p", "log2", "log10", "logaddexp", "logical_and",
    "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "multiply", "negative",
    "nextafter", "not_equal", "positive", "pow", "real", "reciprocal", "remainder", "round",
    "sign", "signbit", "sin", "sinh", "square", "sqrt", "subtract", "tan", "tanh", "trunc",
]

_SCALARS = (bool, int, float, complex)

def _operands(x1: Any, x2: Any) -> tuple[Any, Any, Any]:
    """``(xp, a, b)``: the compute namespace of the Arrays' device and the backend operands of a
    binary function, Arrays unwrapped, Python scalars kept as they are (numpy and cupy treat them
    as weakly typed, which is the standard's rule for scalars)."""
    # The cached backend array is read directly (``_as_native`` only when it is not made yet):
    # this runs for every operator, so each saved call counts on small arrays.
    if type(x1) is Array:
        device = x1._device
        a = x1._native
        if a is None:
            a = x1._as_native()
        if type(x2) is Array:
            if device is not x2._device:
                raise ValueError(devices_differ(device, x2._device))
            b = x2._native
            return device.backend.xp, a, (x2._as_native() if b is None else b)
        if type(x2) in _SCALARS:
            return device.backend.xp, a, x2
        raise TypeError(f"expected an Array or a Python scalar, got {type(x2).__name__}")
    if type(x2) is Array and type(x1) in _SCALARS:
        return x2._device.backend.xp, x1, x2._as_native()
    raise TypeError(
        f"at least one argument must be an Array, got {type(x1).__name__} and {type(x2).__name__}"
    )


def _unary(x: Any) -> tuple[Any, Any]:
    """``(xp, native)``: the compute namespace and backend array of a unary function's argument
    (which must be an Array)."""
    if type(x) is not Array:
        raise TypeError(f"expected an Array, got {type(x).__name__}")
    native = x._native
    return x._device.backend.xp, (x._as_native() if native is None else native)


def _owned(xp: Any, result: Any) -> Any:
    """A ufunc result as an array that can be written (numpy gives scalars for 0-d inputs)."""
    return xp.asarray(result) if isinstance(result, np.generic) else result


def _with_parts(xp: Any, like: Any, real: Any, imag: Any) -> Any:
    """A complex array of ``like``'s dtype and shape from its two components (signed zeros and
    NaNs kept exactly, which ``real + 1j * imag`` would not do)."""
    out = xp.empty_like(like)
    out.real = real
    out.imag = imag
    return out


# ---------------------------------------------------------------- arithmetic


def add(x1: Any, x2: Any, /) -> Array:
    """Sum of each element pair (``x1 + x2``).

    Parameters
    ----------
    x1, x2
        Arrays (or one Array and one Python scalar), broadcast together.

    Returns
    -------
    Array
        The sums, in the promoted dtype.
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.add(a, b))


def subtract(x1: Any, x2: Any, /) -> Array:
    """Difference of each element pair (``x1 - x2``)."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.subtract(a, b))


def multiply(x1: Any, x2: Any, /) -> Array:
    """Product of each element pair (``x1 * x2``)."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.multiply(a, b))


def divide(x1: Any, x2: Any, /) -> Array:
    """True division of each element pair (``x1 / x2``); integer inputs give a floating result."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.divide(a, b))


def floor_divide(x1: Any, x2: Any, /) -> Array:
    """Floor division of each element pair (``x1 // x2``).

    For floating-point operands with an infinity the result is ``floor(x1 / x2)``, as the
    standard prefers (numpy follows Python there: ``inf // 2`` is NaN, ``1 // -inf`` is -1).
    """
    xp, a, b = _operands(x1, x2)
    out = xp.floor_divide(a, b)
    if out.dtype.kind == "f":
        infinite = xp.isinf(a) | xp.isinf(b)
        if xp.count_nonzero(infinite):
            out = xp.where(infinite, xp.floor(xp.divide(a, b)), out)
    return wrap(out)


def remainder(x1: Any, x2: Any, /) -> Array:
    """Remainder of each element pair, with the sign of the divisor (``x1 % x2``)."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.remainder(a, b))


def pow(x1: Any, x2: Any, /) -> Array:  # noqa: A001 - the standard's name
    """``x1`` raised to the power ``x2``, element-wise (``x1 ** x2``)."""
    if (
        (type(x2) is int or type(x2) is float) and x2 == 2
        and type(x1) is Array and x1._dtype.kind == "real floating"
    ):
        # x ** 2 (variances, norms) is the commonest power: np.square gives the same correctly
        # rounded x * x, special cases included, over twice as fast as np.power (numpy's own
        # ndarray ** 2 takes this shortcut). Not ** 0.5: numpy's sqrt shortcut breaks the
        # standard's pow(-0, 0.5) = +0 and pow(-inf, 0.5) = +inf.
        xp, native = _unary(x1)
        return wrap(xp.square(native))
    xp, a, b = _operands(x1, x2)
    return wrap(xp.power(a, b))


def negative(x: Array, /) -> Array:
    """Numerical negative of each element (``-x``)."""
    xp, native = _unary(x)
    return wrap(xp.negative(native))


def positive(x: Array, /) -> Array:
    """Numerical positive of each element (``+x``): a copy of ``x``."""
    xp, native = _unary(x)
    return wrap(xp.positive(native))


def abs(x: Array, /) -> Array:  # noqa: A001 - the standard's name
    """Absolute value of each element (``abs(x)``); complex input gives its real-valued modulus."""
    xp, native = _unary(x)
    return wrap(xp.absolute(native))


def square(x: Array, /) -> Array:
    """Square of each element (``x * x``)."""
    xp, native = _unary(x)
    return wrap(xp.square(native))


def sqrt(x: Array, /) -> Array:
    """Principal square root of each element."""
    xp, native = _unary(x)
    return wrap(xp.sqrt(native))


def reciprocal(x: Array, /) -> Array:
    """``1 / x`` for each element; integer input gives a floating result (numpy's integer
    ``reciprocal`` would truncate it)."""
    xp, native = _unary(x)
    if native.dtype.kind in "biu":
        return wrap(xp.divide(1.0, native))
    return wrap(xp.divide(1, native))


def sign(x: Array, /) -> Array:
    """Sign of each element: -1, 0 or 1 for real input, ``x / |x|`` (0 at 0) for complex."""
    xp, native = _unary(x)
    return wrap(xp.sign(native))


def conj(x: Array, /) -> Array:
    """Complex conjugate of each element (real input is returned unchanged, as a copy)."""
    xp, native = _unary(x)
    return wrap(xp.conjugate(native))


def real(x: Array, /) -> Array:
    """Real component of each element, in the real dtype of the same precision."""
    return wrap(_unary(x)[1].real)


def imag(x: Array, /) -> Array:
    """Imaginary component of each element, in the real dtype of the same precision."""
    return wrap(_unary(x)[1].imag)


# ---------------------------------------------------------------- exponents and logarithms


def exp(x: Array, /) -> Array:
    """Exponential of each element (``e ** x``)."""
    xp, native = _unary(x)
    if native.dtype.kind == "c":
        return wrap(_exp_complex(xp, native))
    return wrap(xp.exp(native))


def _exp_complex(xp: Any, z: Any) -> Any:
    """Complex exp; at ``-inf + NaN j`` numpy gives the imaginary zero NaN's sign, the standard
    ``0 + 0j`` (so for ``-inf ± inf j`` too)."""
    out = _owned(xp, xp.exp(z))
    fix = (z.real == -math.inf) & ~xp.isfinite(z.imag)
    if xp.count_nonzero(fix):
        xp.copyto(out, 0, where=fix)
    return out


def expm1(x: Array, /) -> Array:
    """``exp(x) - 1`` for each element, accurate for ``x`` near 0."""
    xp, native = _unary(x)
    if native.dtype.kind == "c":
        return wrap(_expm1_complex(xp, native))
    return wrap(xp.expm1(native))


def _expm1_complex(xp: Any, z: Any) -> Any:
    """Complex expm1 with the standard's special cases (numpy's misses most of them).

    With ``z = a + bj``: ``exp(z) - 1 = (expm1(a) cos(b) - 2 sin(b/2)**2) + exp(a) sin(b) j``,
    which keeps the precision of expm1 near 0; infinities and zeros are then set as the
    standard lists them.
    """
    a = z.real
    b = z.imag
    with np.errstate(all="ignore"):  # numpy's warnings (cupy gives none)
        half = xp.sin(b * 0.5)
        # "+ 0.0" turns the -0 of expm1(-0) into the +0 the standard asks for at z = -0 + 0j
        re = xp.expm1(a) * xp.cos(b) - 2 * half * half + 0.0
        im = xp.exp(a) * xp.sin(b)
    zero_b = b == 0
    if xp.count_nonzero(zero_b):  # inf * sin(0) is NaN; the imaginary part of a real argument stays 0
        im = xp.where(zero_b, b, im)
    infinite_a = xp.isinf(a)
    if xp.count_nonzero(infinite_a):
        finite_b = xp.isfinite(b)
        minus_inf = a < 0
        # -inf: exp(a) is 0, so the result is -1 (+ 0j when b is not finite)
        re = xp.where(infinite_a & minus_inf, -1, re)
        im = xp.where(infinite_a & minus_inf & ~finite_b, 0, im)
        # +inf with an infinite or NaN b: infinity + NaN j
        plus_bad = infinite_a & ~minus_inf & ~finite_b
        re = xp.where(plus_bad, math.inf, re)
        im = xp.where(plus_bad, math.nan, im)
    return _with_parts(xp, z, re, im)


def log(x: Array, /) -> Array:
    """Natural logarithm of each element."""
    xp, native = _unary(x)
    return wrap(xp.log(native))


def log1p(x: Array, /) -> Array:
    """``log(1 + x)`` for each element, accurate for ``x`` near 0."""
    xp, native = _unary(x)
    return wrap(xp.log1p(native))


def log2(x: Array, /) -> Array:
    """Base-2 logarithm of each element."""
    xp, native = _unary(x)
    return wrap(xp.log2(native))


def log10(x: Array, /) -> Array:
    """Base-10 logarithm of each element."""
    xp, native = _unary(x)
    return wrap(xp.log10(native))


def logaddexp(x1: Any, x2: Any, /) -> Array:
    """``log(exp(x1) + exp(x2))`` for each element pair, without overflow."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.logaddexp(a, b))


# ---------------------------------------------------------------- trigonometry


def sin(x: Array, /) -> Array:
    """Sine of each element (radians)."""
    xp, native = _unary(x)
    return wrap(xp.sin(native))


def cos(x: Array, /) -> Array:
    """Cosine of each element (radians)."""
    xp, native = _unary(x)
    return wrap(xp.cos(native))


def tan(x: Array, /) -> Array:
    """Tangent of each element (radians)."""
    xp, native = _unary(x)
    if native.dtype.kind == "c":
        # tan(z) = -1j * tanh(1j * z): the fixed-up tanh carries the special cases over
        return wrap(_rotate(xp, _tanh_complex(xp, _rotate(xp, native, 1)), -1))
    return wrap(xp.tan(native))


def _rotate(xp: Any, z: Any, direction: int) -> Any:
    """``1j * z`` (direction 1) or ``-1j * z`` (direction -1), exactly: a swap of the components
    and one sign change, with no multiplication to turn infinities into NaNs."""
    if direction == 1:
        return _with_parts(xp, z, xp.negative(z.imag), z.real)
    return _with_parts(xp, z, z.imag, xp.negative(z.real))


def asin(x: Array, /) -> Array:
    """Principal inverse sine of each element."""
    xp, native = _unary(x)
    return wrap(xp.arcsin(native))


def acos(x: Array, /) -> Array:
    """Principal inverse cosine of each element."""
    xp, native = _unary(x)
    return wrap(xp.arccos(native))


def atan(x: Array, /) -> Array:
    """Principal inverse tangent of each element."""
    xp, native = _unary(x)
    return wrap(xp.arctan(native))


def atan2(x1: Any, x2: Any, /) -> Array:
    """Inverse tangent of ``x1 / x2``, in the quadrant of the point ``(x2, x1)``."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.arctan2(a, b))


def sinh(x: Array, /) -> Array:
    """Hyperbolic sine of each element."""
    xp, native = _unary(x)
    return wrap(xp.sinh(native))


def cosh(x: Array, /) -> Array:
    """Hyperbolic cosine of each element."""
    xp, native = _unary(x)
    return wrap(xp.cosh(native))


def tanh(x: Array, /) -> Array:
    """Hyperbolic tangent of each element."""
    xp, native = _unary(x)
    if native.dtype.kind == "c":
        return wrap(_tanh_complex(xp, native))
    return wrap(xp.tanh(native))


def _tanh_complex(xp: Any, z: Any) -> Any:
    """Complex tanh; for an infinite real part and finite imaginary part the standard asks for
    ``±1 + 0j`` with the zero signed like ``b`` (numpy signs it like ``sin(2b)``)."""
    out = _owned(xp, xp.tanh(z))
    b = z.imag
    fix = xp.isinf(z.real) & xp.isfinite(b)
    if xp.count_nonzero(fix):
        xp.copyto(out.imag, xp.copysign(0, b), where=fix)
    return out


def asinh(x: Array, /) -> Array:
    """Inverse hyperbolic sine of each element."""
    xp, native = _unary(x)
    return wrap(xp.arcsinh(native))


def acosh(x: Array, /) -> Array:
    """Inverse hyperbolic cosine of each element."""
    xp, native = _unary(x)
    return wrap(xp.arccosh(native))


def atanh(x: Array, /) -> Array:
    """Inverse hyperbolic tangent of each element."""
    xp, native = _unary(x)
    return wrap(xp.arctanh(native))


def hypot(x1: Any, x2: Any, /) -> Array:
    """``sqrt(x1**2 + x2**2)`` for each element pair, without undue overflow or underflow."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.hypot(a, b))


# ---------------------------------------------------------------- rounding


def round(x: Array, /) -> Array:  # noqa: A001 - the standard's name
    """Each element rounded to the nearest integer, ties to even (complex: each component)."""
    xp, native = _unary(x)
    if native.dtype.kind in "biu":
        return wrap(native.copy())
    return wrap(xp.rint(native))


def ceil(x: Array, /) -> Array:
    """Smallest integer-valued number not less than each element (same dtype as ``x``)."""
    xp, native = _unary(x)
    return wrap(xp.ceil(native))


def floor(x: Array, /) -> Array:
    """Largest integer-valued number not greater than each element (same dtype as ``x``)."""
    xp, native = _unary(x)
    return wrap(xp.floor(native))


def trunc(x: Array, /) -> Array:
    """Each element rounded toward zero to an integer-valued number (same dtype as ``x``)."""
    xp, native = _unary(x)
    return wrap(xp.trunc(native))


def clip(x: Array, /, min: Any = None, max: Any = None) -> Array:  # noqa: A002 - the standard's names
    """Each element clamped to ``[min, max]``.

    Parameters
    ----------
    x
        Real-valued input array.
    min, max
        Bounds: ``None`` (no bound), a Python ``int``/``float``, or an Array broadcast with ``x``.
        A NaN bound gives NaN.

    Returns
    -------
    Array
        Of ``x``'s dtype (bounds do not take part in type promotion), in the broadcast shape.
    """
    xp, native = _unary(x)
    low = _clip_bound(min, x, native, "min")
    high = _clip_bound(max, x, native, "max")
    # maximum/minimum rather than np.clip: the same result (NaNs propagate), a third of the cost
    if low is None:
        if high is None:
            return wrap(native.copy())
        out = xp.minimum(native, high)
    else:
        out = xp.maximum(native, low)
        if high is not None:
            out = xp.minimum(out, high)
    if out.dtype != native.dtype:
        out = out.astype(native.dtype)
    return wrap(out)


def _clip_bound(bound: Any, x: Array, native: Any, name: str) -> Any:
    """A bound of clip as a backend operand. Python ints outside an integer dtype's range are
    clamped to it (the result is the same where it is specified, and numpy would raise)."""
    kind = type(bound)
    if bound is None or kind is float:
        return bound
    if kind is int or kind is bool:
        limits = _INT_LIMITS.get(native.dtype)
        if limits is not None and not limits[0] <= bound <= limits[1]:
            return limits[0] if bound < limits[0] else limits[1]
        return bound
    if kind is Array:
        if bound._device is not x._device:
            raise ValueError(devices_differ(x._device, bound._device))
        return bound._as_native()
    raise TypeError(f"clip: {name} must be None, a Python int or float, or an Array, not {kind.__name__}")


_INT_LIMITS = {
    np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
    for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
}


# ---------------------------------------------------------------- comparisons


def less(x1: Any, x2: Any, /) -> Array:
    """``x1 < x2`` element-wise."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.less(a, b))


def less_equal(x1: Any, x2: Any, /) -> Array:
    """``x1 <= x2`` element-wise."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.less_equal(a, b))


def greater(x1: Any, x2: Any, /) -> Array:
    """``x1 > x2`` element-wise."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.greater(a, b))


def greater_equal(x1: Any, x2: Any, /) -> Array:
    """``x1 >= x2`` element-wise."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.greater_equal(a, b))


def equal(x1: Any, x2: Any, /) -> Array:
    """``x1 == x2`` element-wise."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.equal(a, b))


def not_equal(x1: Any, x2: Any, /) -> Array:
    """``x1 != x2`` element-wise."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.not_equal(a, b))


def maximum(x1: Any, x2: Any, /) -> Array:
    """Larger of each element pair; NaN if either is NaN."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.maximum(a, b))


def minimum(x1: Any, x2: Any, /) -> Array:
    """Smaller of each element pair; NaN if either is NaN."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.minimum(a, b))


# ---------------------------------------------------------------- floating-point classification


def isfinite(x: Array, /) -> Array:
    """True where an element is finite (neither infinite nor NaN, in either component)."""
    xp, native = _unary(x)
    return wrap(xp.isfinite(native))


def isinf(x: Array, /) -> Array:
    """True where an element (or either complex component) is infinite."""
    xp, native = _unary(x)
    return wrap(xp.isinf(native))


def isnan(x: Array, /) -> Array:
    """True where an element (or either complex component) is NaN."""
    xp, native = _unary(x)
    return wrap(xp.isnan(native))


def signbit(x: Array, /) -> Array:
    """True where an element's sign bit is set (negative numbers, -0, NaNs with the bit)."""
    xp, native = _unary(x)
    return wrap(xp.signbit(native))


def copysign(x1: Any, x2: Any, /) -> Array:
    """Magnitude of ``x1`` with the sign bit of ``x2``, element-wise."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.copysign(a, b))


def nextafter(x1: Any, x2: Any, /) -> Array:
    """Next representable value after ``x1`` in the direction of ``x2``, element-wise."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.nextafter(a, b))


# ---------------------------------------------------------------- logical and bitwise


def logical_and(x1: Any, x2: Any, /) -> Array:
    """Logical AND of each element pair (booleans)."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.logical_and(a, b))


def logical_or(x1: Any, x2: Any, /) -> Array:
    """Logical OR of each element pair (booleans)."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.logical_or(a, b))


def logical_xor(x1: Any, x2: Any, /) -> Array:
    """Logical XOR of each element pair (booleans)."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.logical_xor(a, b))


def logical_not(x: Array, /) -> Array:
    """Logical NOT of each element (booleans)."""
    xp, native = _unary(x)
    return wrap(xp.logical_not(native))


def bitwise_and(x1: Any, x2: Any, /) -> Array:
    """Bitwise AND of each element pair (``x1 & x2``)."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.bitwise_and(a, b))


def bitwise_or(x1: Any, x2: Any, /) -> Array:
    """Bitwise OR of each element pair (``x1 | x2``)."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.bitwise_or(a, b))


def bitwise_xor(x1: Any, x2: Any, /) -> Array:
    """Bitwise XOR of each element pair (``x1 ^ x2``)."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.bitwise_xor(a, b))


def bitwise_left_shift(x1: Any, x2: Any, /) -> Array:
    """``x1`` shifted left by ``x2`` bits (``x1 << x2``)."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.left_shift(a, b))


def bitwise_right_shift(x1: Any, x2: Any, /) -> Array:
    """``x1`` shifted right by ``x2`` bits, sign-extending (``x1 >> x2``)."""
    xp, a, b = _operands(x1, x2)
    return wrap(xp.right_shift(a, b))


def bitwise_invert(x: Array, /) -> Array:
    """Bitwise inversion of each element (``~x``; logical NOT for booleans)."""
    xp, native = _unary(x)
    return wrap(xp.invert(native))
