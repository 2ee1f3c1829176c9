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

from typing import Any

import numpy as np

from ._array import Array, wrap

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

# The ufuncs, bound once: a module global is one lookup, ``np.add`` two.
_np_abs = np.absolute
_np_add = np.add
_np_arccos = np.arccos
_np_arccosh = np.arccosh
_np_arcsin = np.arcsin
_np_arcsinh = np.arcsinh
_np_arctan = np.arctan
_np_arctan2 = np.arctan2
_np_arctanh = np.arctanh
_np_bitwise_and = np.bitwise_and
_np_bitwise_or = np.bitwise_or
_np_bitwise_xor = np.bitwise_xor
_np_ceil = np.ceil
_np_count_nonzero = np.count_nonzero
_np_conj = np.conjugate
_np_copysign = np.copysign
_np_cos = np.cos
_np_cosh = np.cosh
_np_divide = np.divide
_np_equal = np.equal
_np_exp = np.exp
_np_expm1 = np.expm1
_np_floor = np.floor
_np_floor_divide = np.floor_divide
_np_greater = np.greater
_np_greater_equal = np.greater_equal
_np_hypot = np.hypot
_np_invert = np.invert
_np_isfinite = np.isfinite
_np_isinf = np.isinf
_np_isnan = np.isnan
_np_left_shift = np.left_shift
_np_less = np.less
_np_less_equal = np.less_equal
_np_log = np.log
_np_log10 = np.log10
_np_log1p = np.log1p
_np_log2 = np.log2
_np_logaddexp = np.logaddexp
_np_logical_and = np.logical_and
_np_logical_not = np.logical_not
_np_logical_or = np.logical_or
_np_logical_xor = np.logical_xor
_np_maximum = np.maximum
_np_minimum = np.minimum
_np_multiply = np.multiply
_np_negative = np.negative
_np_nextafter = np.nextafter
_np_not_equal = np.not_equal
_np_positive = np.positive
_np_power = np.power
_np_remainder = np.remainder
_np_right_shift = np.right_shift
_np_rint = np.rint
_np_sign = np.sign
_np_signbit = np.signbit
_np_sin = np.sin
_np_sinh = np.sinh
_np_sqrt = np.sqrt
_np_square = np.square
_np_subtract = np.subtract
_np_tan = np.tan
_np_tanh = np.tanh
_np_trunc = np.trunc
_np_where = np.where


def _operands(x1: Any, x2: Any) -> tuple[Any, Any]:
    """Backend operands of a binary function: Arrays unwrapped, Python scalars kept as they are
    (numpy treats them as weakly typed, which is the standard's rule for scalars)."""
    # The cached backend array is read directly (``_as_native`` only when it is not made yet):
    # this runs for every operator, so each saved call counts on small arrays.
    if type(x1) is Array:
        a = x1._native
        if a is None:
            a = x1._as_native()
        if type(x2) is Array:
            if x1._device is not x2._device:
                raise ValueError(f"arrays are on different devices: {x1._device} and {x2._device}")
            b = x2._native
            return a, (x2._as_native() if b is None else b)
        if type(x2) in _SCALARS:
            return a, x2
        raise TypeError(f"expected an Array or a Python scalar, got {type(x2).__name__}")
    if type(x2) is Array and type(x1) in _SCALARS:
        return x1, x2._as_native()
    raise TypeError(
        f"at least one argument must be an Array, got {type(x1).__name__} and {type(x2).__name__}"
    )


def _unary(x: Any) -> Any:
    """The backend array of a unary function's argument (which must be an Array)."""
    if type(x) is not Array:
        raise TypeError(f"expected an Array, got {type(x).__name__}")
    native = x._native
    return x._as_native() if native is None else native


def _owned(result: Any) -> Any:
    """A ufunc result as an array that can be written (numpy gives scalars for 0-d inputs)."""
    return np.array(result) if isinstance(result, np.generic) else result


def _with_parts(like: Any, real: Any, imag: Any) -> Any:
    """A complex array of ``like``'s dtype and shape from its two components (signed zeros and
    NaNs kept exactly, which ``real + 1j * imag`` would not do)."""
    out = np.empty_like(like)
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
    return wrap(_np_add(*_operands(x1, x2)))


def subtract(x1: Any, x2: Any, /) -> Array:
    """Difference of each element pair (``x1 - x2``)."""
    return wrap(_np_subtract(*_operands(x1, x2)))


def multiply(x1: Any, x2: Any, /) -> Array:
    """Product of each element pair (``x1 * x2``)."""
    return wrap(_np_multiply(*_operands(x1, x2)))


def divide(x1: Any, x2: Any, /) -> Array:
    """True division of each element pair (``x1 / x2``); integer inputs give a floating result."""
    return wrap(_np_divide(*_operands(x1, x2)))


def floor_divide(x1: Any, x2: Any, /) -> Array:
    """Floor division of each element pair (``x1 // x2``).

    For floating-point operands with an infinity the result is ``floor(x1 / x2)``, as the
    standard prefers (numpy follows Python there: ``inf // 2`` is NaN, ``1 // -inf`` is -1).
    """
    a, b = _operands(x1, x2)
    out = _np_floor_divide(a, b)
    if out.dtype.kind == "f":
        infinite = _np_isinf(a) | _np_isinf(b)
        if _np_count_nonzero(infinite):
            out = _np_where(infinite, _np_floor(_np_divide(a, b)), out)
    return wrap(out)


def remainder(x1: Any, x2: Any, /) -> Array:
    """Remainder of each element pair, with the sign of the divisor (``x1 % x2``)."""
    return wrap(_np_remainder(*_operands(x1, x2)))


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
        return wrap(_np_square(_unary(x1)))
    return wrap(_np_power(*_operands(x1, x2)))


def negative(x: Array, /) -> Array:
    """Numerical negative of each element (``-x``)."""
    return wrap(_np_negative(_unary(x)))


def positive(x: Array, /) -> Array:
    """Numerical positive of each element (``+x``): a copy of ``x``."""
    return wrap(_np_positive(_unary(x)))


def abs(x: Array, /) -> Array:  # noqa: A001 - the standard's name
    """Absolute value of each element (``abs(x)``); complex input gives its real-valued modulus."""
    return wrap(_np_abs(_unary(x)))


def square(x: Array, /) -> Array:
    """Square of each element (``x * x``)."""
    return wrap(_np_square(_unary(x)))


def sqrt(x: Array, /) -> Array:
    """Principal square root of each element."""
    return wrap(_np_sqrt(_unary(x)))


def reciprocal(x: Array, /) -> Array:
    """``1 / x`` for each element; integer input gives a floating result (numpy's integer
    ``reciprocal`` would truncate it)."""
    native = _unary(x)
    if native.dtype.kind in "biu":
        return wrap(_np_divide(1.0, native))
    return wrap(_np_divide(1, native))


def sign(x: Array, /) -> Array:
    """Sign of each element: -1, 0 or 1 for real input, ``x / |x|`` (0 at 0) for complex."""
    return wrap(_np_sign(_unary(x)))


def conj(x: Array, /) -> Array:
    """Complex conjugate of each element (real input is returned unchanged, as a copy)."""
    return wrap(_np_conj(_unary(x)))


def real(x: Array, /) -> Array:
    """Real component of each element, in the real dtype of the same precision."""
    return wrap(_unary(x).real)


def imag(x: Array, /) -> Array:
    """Imaginary component of each element, in the real dtype of the same precision."""
    return wrap(_unary(x).imag)


# ---------------------------------------------------------------- exponents and logarithms


def exp(x: Array, /) -> Array:
    """Exponential of each element (``e ** x``)."""
    native = _unary(x)
    if native.dtype.kind == "c":
        return wrap(_exp_complex(native))
    return wrap(_np_exp(native))


def _exp_complex(z: Any) -> Any:
    """Complex exp; at ``-inf + NaN j`` numpy gives the imaginary zero NaN's sign, the standard
    ``0 + 0j`` (so for ``-inf ± inf j`` too)."""
    out = _owned(_np_exp(z))
    fix = (z.real == -np.inf) & ~_np_isfinite(z.imag)
    if _np_count_nonzero(fix):
        np.copyto(out, 0, where=fix)
    return out


def expm1(x: Array, /) -> Array:
    """``exp(x) - 1`` for each element, accurate for ``x`` near 0."""
    native = _unary(x)
    if native.dtype.kind == "c":
        return wrap(_expm1_complex(native))
    return wrap(_np_expm1(native))


def _expm1_complex(z: Any) -> Any:
    """Complex expm1 with the standard's special cases (numpy's misses most of them).

    With ``z = a + bj``: ``exp(z) - 1 = (expm1(a) cos(b) - 2 sin(b/2)**2) + exp(a) sin(b) j``,
    which keeps the precision of expm1 near 0; infinities and zeros are then set as the
    standard lists them.
    """
    a = z.real
    b = z.imag
    with np.errstate(all="ignore"):
        half = _np_sin(b * 0.5)
        # "+ 0.0" turns the -0 of expm1(-0) into the +0 the standard asks for at z = -0 + 0j
        re = _np_expm1(a) * _np_cos(b) - 2 * half * half + 0.0
        im = _np_exp(a) * _np_sin(b)
    zero_b = b == 0
    if _np_count_nonzero(zero_b):  # inf * sin(0) is NaN; the imaginary part of a real argument stays 0
        im = _np_where(zero_b, b, im)
    infinite_a = _np_isinf(a)
    if _np_count_nonzero(infinite_a):
        finite_b = _np_isfinite(b)
        minus_inf = a < 0
        # -inf: exp(a) is 0, so the result is -1 (+ 0j when b is not finite)
        re = _np_where(infinite_a & minus_inf, -1, re)
        im = _np_where(infinite_a & minus_inf & ~finite_b, 0, im)
        # +inf with an infinite or NaN b: infinity + NaN j
        plus_bad = infinite_a & ~minus_inf & ~finite_b
        re = _np_where(plus_bad, np.inf, re)
        im = _np_where(plus_bad, np.nan, im)
    return _with_parts(z, re, im)


def log(x: Array, /) -> Array:
    """Natural logarithm of each element."""
    return wrap(_np_log(_unary(x)))


def log1p(x: Array, /) -> Array:
    """``log(1 + x)`` for each element, accurate for ``x`` near 0."""
    return wrap(_np_log1p(_unary(x)))


def log2(x: Array, /) -> Array:
    """Base-2 logarithm of each element."""
    return wrap(_np_log2(_unary(x)))


def log10(x: Array, /) -> Array:
    """Base-10 logarithm of each element."""
    return wrap(_np_log10(_unary(x)))


def logaddexp(x1: Any, x2: Any, /) -> Array:
    """``log(exp(x1) + exp(x2))`` for each element pair, without overflow."""
    return wrap(_np_logaddexp(*_operands(x1, x2)))


# ---------------------------------------------------------------- trigonometry


def sin(x: Array, /) -> Array:
    """Sine of each element (radians)."""
    return wrap(_np_sin(_unary(x)))


def cos(x: Array, /) -> Array:
    """Cosine of each element (radians)."""
    return wrap(_np_cos(_unary(x)))


def tan(x: Array, /) -> Array:
    """Tangent of each element (radians)."""
    native = _unary(x)
    if native.dtype.kind == "c":
        # tan(z) = -1j * tanh(1j * z): the fixed-up tanh carries the special cases over
        return wrap(_rotate(_tanh_complex(_rotate(native, 1)), -1))
    return wrap(_np_tan(native))


def _rotate(z: Any, direction: int) -> Any:
    """``1j * z`` (direction 1) or ``-1j * z`` (direction -1), exactly: a swap of the components
    and one sign change, with no multiplication to turn infinities into NaNs."""
    if direction == 1:
        return _with_parts(z, _np_negative(z.imag), z.real)
    return _with_parts(z, z.imag, _np_negative(z.real))


def asin(x: Array, /) -> Array:
    """Principal inverse sine of each element."""
    return wrap(_np_arcsin(_unary(x)))


def acos(x: Array, /) -> Array:
    """Principal inverse cosine of each element."""
    return wrap(_np_arccos(_unary(x)))


def atan(x: Array, /) -> Array:
    """Principal inverse tangent of each element."""
    return wrap(_np_arctan(_unary(x)))


def atan2(x1: Any, x2: Any, /) -> Array:
    """Inverse tangent of ``x1 / x2``, in the quadrant of the point ``(x2, x1)``."""
    return wrap(_np_arctan2(*_operands(x1, x2)))


def sinh(x: Array, /) -> Array:
    """Hyperbolic sine of each element."""
    return wrap(_np_sinh(_unary(x)))


def cosh(x: Array, /) -> Array:
    """Hyperbolic cosine of each element."""
    return wrap(_np_cosh(_unary(x)))


def tanh(x: Array, /) -> Array:
    """Hyperbolic tangent of each element."""
    native = _unary(x)
    if native.dtype.kind == "c":
        return wrap(_tanh_complex(native))
    return wrap(_np_tanh(native))


def _tanh_complex(z: Any) -> Any:
    """Complex tanh; for an infinite real part and finite imaginary part the standard asks for
    ``±1 + 0j`` with the zero signed like ``b`` (numpy signs it like ``sin(2b)``)."""
    out = _owned(_np_tanh(z))
    b = z.imag
    fix = _np_isinf(z.real) & _np_isfinite(b)
    if _np_count_nonzero(fix):
        np.copyto(out.imag, _np_copysign(0, b), where=fix)
    return out


def asinh(x: Array, /) -> Array:
    """Inverse hyperbolic sine of each element."""
    return wrap(_np_arcsinh(_unary(x)))


def acosh(x: Array, /) -> Array:
    """Inverse hyperbolic cosine of each element."""
    return wrap(_np_arccosh(_unary(x)))


def atanh(x: Array, /) -> Array:
    """Inverse hyperbolic tangent of each element."""
    return wrap(_np_arctanh(_unary(x)))


def hypot(x1: Any, x2: Any, /) -> Array:
    """``sqrt(x1**2 + x2**2)`` for each element pair, without undue overflow or underflow."""
    return wrap(_np_hypot(*_operands(x1, x2)))


# ---------------------------------------------------------------- rounding


def round(x: Array, /) -> Array:  # noqa: A001 - the standard's name
    """Each element rounded to the nearest integer, ties to even (complex: each component)."""
    native = _unary(x)
    if native.dtype.kind in "biu":
        return wrap(native.copy())
    return wrap(_np_rint(native))


def ceil(x: Array, /) -> Array:
    """Smallest integer-valued number not less than each element (same dtype as ``x``)."""
    return wrap(_np_ceil(_unary(x)))


def floor(x: Array, /) -> Array:
    """Largest integer-valued number not greater than each element (same dtype as ``x``)."""
    return wrap(_np_floor(_unary(x)))


def trunc(x: Array, /) -> Array:
    """Each element rounded toward zero to an integer-valued number (same dtype as ``x``)."""
    return wrap(_np_trunc(_unary(x)))


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
    native = _unary(x)
    low = _clip_bound(min, x, native, "min")
    high = _clip_bound(max, x, native, "max")
    # maximum/minimum rather than np.clip: the same result (NaNs propagate), a third of the cost
    if low is None:
        if high is None:
            return wrap(native.copy())
        out = _np_minimum(native, high)
    else:
        out = _np_maximum(native, low)
        if high is not None:
            out = _np_minimum(out, high)
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
            raise ValueError(f"arrays are on different devices: {x._device} and {bound._device}")
        return bound._as_native()
    raise TypeError(f"clip: {name} must be None, a Python int or float, or an Array, not {kind.__name__}")


_INT_LIMITS = {
    np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
    for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
}


# ---------------------------------------------------------------- comparisons


def less(x1: Any, x2: Any, /) -> Array:
    """``x1 < x2`` element-wise."""
    return wrap(_np_less(*_operands(x1, x2)))


def less_equal(x1: Any, x2: Any, /) -> Array:
    """``x1 <= x2`` element-wise."""
    return wrap(_np_less_equal(*_operands(x1, x2)))


def greater(x1: Any, x2: Any, /) -> Array:
    """``x1 > x2`` element-wise."""
    return wrap(_np_greater(*_operands(x1, x2)))


def greater_equal(x1: Any, x2: Any, /) -> Array:
    """``x1 >= x2`` element-wise."""
    return wrap(_np_greater_equal(*_operands(x1, x2)))


def equal(x1: Any, x2: Any, /) -> Array:
    """``x1 == x2`` element-wise."""
    return wrap(_np_equal(*_operands(x1, x2)))


def not_equal(x1: Any, x2: Any, /) -> Array:
    """``x1 != x2`` element-wise."""
    return wrap(_np_not_equal(*_operands(x1, x2)))


def maximum(x1: Any, x2: Any, /) -> Array:
    """Larger of each element pair; NaN if either is NaN."""
    return wrap(_np_maximum(*_operands(x1, x2)))


def minimum(x1: Any, x2: Any, /) -> Array:
    """Smaller of each element pair; NaN if either is NaN."""
    return wrap(_np_minimum(*_operands(x1, x2)))


# ---------------------------------------------------------------- floating-point classification


def isfinite(x: Array, /) -> Array:
    """True where an element is finite (neither infinite nor NaN, in either component)."""
    return wrap(_np_isfinite(_unary(x)))


def isinf(x: Array, /) -> Array:
    """True where an element (or either complex component) is infinite."""
    return wrap(_np_isinf(_unary(x)))


def isnan(x: Array, /) -> Array:
    """True where an element (or either complex component) is NaN."""
    return wrap(_np_isnan(_unary(x)))


def signbit(x: Array, /) -> Array:
    """True where an element's sign bit is set (negative numbers, -0, NaNs with the bit)."""
    return wrap(_np_signbit(_unary(x)))


def copysign(x1: Any, x2: Any, /) -> Array:
    """Magnitude of ``x1`` with the sign bit of ``x2``, element-wise."""
    return wrap(_np_copysign(*_operands(x1, x2)))


def nextafter(x1: Any, x2: Any, /) -> Array:
    """Next representable value after ``x1`` in the direction of ``x2``, element-wise."""
    return wrap(_np_nextafter(*_operands(x1, x2)))


# ---------------------------------------------------------------- logical and bitwise


def logical_and(x1: Any, x2: Any, /) -> Array:
    """Logical AND of each element pair (booleans)."""
    return wrap(_np_logical_and(*_operands(x1, x2)))


def logical_or(x1: Any, x2: Any, /) -> Array:
    """Logical OR of each element pair (booleans)."""
    return wrap(_np_logical_or(*_operands(x1, x2)))


def logical_xor(x1: Any, x2: Any, /) -> Array:
    """Logical XOR of each element pair (booleans)."""
    return wrap(_np_logical_xor(*_operands(x1, x2)))


def logical_not(x: Array, /) -> Array:
    """Logical NOT of each element (booleans)."""
    return wrap(_np_logical_not(_unary(x)))


def bitwise_and(x1: Any, x2: Any, /) -> Array:
    """Bitwise AND of each element pair (``x1 & x2``)."""
    return wrap(_np_bitwise_and(*_operands(x1, x2)))


def bitwise_or(x1: Any, x2: Any, /) -> Array:
    """Bitwise OR of each element pair (``x1 | x2``)."""
    return wrap(_np_bitwise_or(*_operands(x1, x2)))


def bitwise_xor(x1: Any, x2: Any, /) -> Array:
    """Bitwise XOR of each element pair (``x1 ^ x2``)."""
    return wrap(_np_bitwise_xor(*_operands(x1, x2)))


def bitwise_left_shift(x1: Any, x2: Any, /) -> Array:
    """``x1`` shifted left by ``x2`` bits (``x1 << x2``)."""
    return wrap(_np_left_shift(*_operands(x1, x2)))


def bitwise_right_shift(x1: Any, x2: Any, /) -> Array:
    """``x1`` shifted right by ``x2`` bits, sign-extending (``x1 >> x2``)."""
    return wrap(_np_right_shift(*_operands(x1, x2)))


def bitwise_invert(x: Array, /) -> Array:
    """Bitwise inversion of each element (``~x``; logical NOT for booleans)."""
    return wrap(_np_invert(_unary(x)))
