"""Element-wise functions (Array API "Element-wise Functions"), computed by the device's backend.

Each function hands the backend arrays to the matching ufunc of the device's backend namespace
(numpy for host memory, cupy with dlarray's corrections for CUDA) and wraps the result. Where the
backend's result differs from the standard's special cases, a vectorised fix-up runs, only for
the dtypes (and inputs) that need it, so the common path stays one ufunc call.

Type promotion is numpy's (NEP 50), which matches the standard's table for every pair the table
defines; Python scalars are weakly typed, as the standard asks. For pairs the standard leaves
unspecified (mixed kinds, integer inputs to floating-point functions) numpy's result is kept.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._array import Array, scalar_operand, wrap
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
        number = scalar_operand(x2, device)  # a numpy scalar, a float subclass...: as the operators
        if number is None:
            raise TypeError(f"expected an Array or a Python scalar, got {type(x2).__name__}")
        return _operands(x1, number)
    if type(x2) is Array:
        if type(x1) in _SCALARS:
            return x2._device.backend.xp, x1, x2._as_native()
        number = scalar_operand(x1, x2._device)
        if number is not None:
            return _operands(number, x2)
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


def add(x1: Array | int | float | complex, x2: Array | int | float | complex, /) -> Array:
    """Sum of each element pair (``x1 + x2``).

    IEEE 754 special cases as the standard lists them: ``inf + -inf`` is NaN, ``-0.0 + -0.0`` is ``-0.0``, any
    NaN gives NaN.

    Standard: [`add`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.add.html).

    Parameters
    ----------
    x1 : Array | int | float | complex
        First addend, of a numeric dtype.
    x2 : Array | int | float | complex
        Second addend, of a numeric dtype.

    Returns
    -------
    Array
        The sums, in the promoted dtype of ``x1`` and ``x2`` (a Python scalar takes the Array's dtype) and
        their broadcast shape.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.
    OverflowError
        A Python int outside the range of the Array's integer dtype.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.add(xp.asarray([1, 2, 3]), 10)
    Array([11, 12, 13], dtype=int64, device=cpu)
    >>> xp.asarray([0.5, 1.5], dtype=xp.float32) + 1
    Array([1.5, 2.5], dtype=float32, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.add(a, b))


def subtract(x1: Array | int | float | complex, x2: Array | int | float | complex, /) -> Array:
    """Difference of each element pair (``x1 - x2``).

    Standard: [`subtract`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.subtract.html).

    Parameters
    ----------
    x1 : Array | int | float | complex
        Minuend, of a numeric dtype.
    x2 : Array | int | float | complex
        Subtrahend, of a numeric dtype.

    Returns
    -------
    Array
        The differences, in the promoted dtype of ``x1`` and ``x2`` (a Python scalar takes the Array's dtype)
        and their broadcast shape.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.
    OverflowError
        A Python int outside the range of the Array's integer dtype.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.subtract(xp.asarray([5, 7]), xp.asarray([1, 2]))
    Array([4, 5], dtype=int64, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.subtract(a, b))


def multiply(x1: Array | int | float | complex, x2: Array | int | float | complex, /) -> Array:
    """Product of each element pair (``x1 * x2``).

    Standard: [`multiply`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.multiply.html).

    Parameters
    ----------
    x1 : Array | int | float | complex
        First factor, of a numeric dtype.
    x2 : Array | int | float | complex
        Second factor, of a numeric dtype.

    Returns
    -------
    Array
        The products, in the promoted dtype of ``x1`` and ``x2`` (a Python scalar takes the Array's dtype) and
        their broadcast shape.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.
    OverflowError
        A Python int outside the range of the Array's integer dtype.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.multiply(xp.asarray([1.5, -2.0]), 2)
    Array([ 3., -4.], dtype=float64, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.multiply(a, b))


def divide(x1: Array | int | float | complex, x2: Array | int | float | complex, /) -> Array:
    """True division of each element pair (``x1 / x2``).

    Division by zero gives ``±inf`` (``0 / 0`` NaN), signed as IEEE 754 says; numpy emits a ``RuntimeWarning``
    for it.

    Standard: [`divide`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.divide.html).

    Parameters
    ----------
    x1 : Array | int | float | complex
        Dividend, of a numeric dtype.
    x2 : Array | int | float | complex
        Divisor, of a numeric dtype.

    Returns
    -------
    Array
        The quotients, in the promoted floating-point dtype of ``x1`` and ``x2`` and their broadcast shape;
        integer inputs give ``float64`` (unspecified by the standard).

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.divide(xp.asarray([1, 2, 3]), 2)
    Array([0.5, 1. , 1.5], dtype=float64, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.divide(a, b))


def floor_divide(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    """Floor division of each element pair (``x1 // x2``).

    For floating-point operands with an infinity, dlarray returns ``floor(x1 / x2)`` as the standard prefers,
    where numpy follows Python (``inf // 2`` is NaN there, ``inf`` here; ``1 // -inf`` is -1 there, -0.0
    here). Integer division by zero gives 0 (numpy's result; the standard leaves it unspecified).

    Standard: [`floor_divide`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.floor_divide.html).

    Parameters
    ----------
    x1 : Array | int | float
        Dividend, of a real-valued dtype.
    x2 : Array | int | float
        Divisor, of a real-valued dtype.

    Returns
    -------
    Array
        ``floor(x1 / x2)``, in the promoted dtype of ``x1`` and ``x2`` (a Python scalar takes the Array's
        dtype) and their broadcast shape.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.
    OverflowError
        A Python int outside the range of the Array's integer dtype.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.floor_divide(xp.asarray([7, -7]), 2)
    Array([ 3, -4], dtype=int64, device=cpu)
    >>> xp.asarray([1.0, 5.0]) // -xp.inf
    Array([-0., -0.], dtype=float64, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    out = xp.floor_divide(a, b)
    if out.dtype.kind == "f":
        infinite = xp.isinf(a) | xp.isinf(b)
        if xp.count_nonzero(infinite):
            out = xp.where(infinite, xp.floor(xp.divide(a, b)), out)
    return wrap(out)


def remainder(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    """Remainder of each element pair, with the sign of the divisor (``x1 % x2``).

    Standard: [`remainder`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.remainder.html).

    Parameters
    ----------
    x1 : Array | int | float
        Dividend, of a real-valued dtype.
    x2 : Array | int | float
        Divisor, of a real-valued dtype.

    Returns
    -------
    Array
        ``x1 - floor_divide(x1, x2) * x2``, in the promoted dtype of ``x1`` and ``x2`` (a Python scalar takes
        the Array's dtype) and their broadcast shape.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.
    OverflowError
        A Python int outside the range of the Array's integer dtype.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.remainder(xp.asarray([7, -7]), 3)
    Array([1, 2], dtype=int64, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.remainder(a, b))


def pow(
    x1: Array | int | float | complex, x2: Array | int | float | complex, /
) -> Array:  # noqa: A001 - the standard's name
    """``x1`` raised to the power ``x2``, element-wise (``x1 ** x2``).

    ``pow(x, 0)`` is 1 even for NaN; ``pow(1, y)`` is 1 even for NaN; ``pow(-0.0, 0.5)`` is ``+0.0``, as the
    standard lists. ``x ** 2`` of a real floating-point array is computed as ``x * x`` (the same correctly
    rounded result, faster).

    Standard: [`pow`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.pow.html).

    Parameters
    ----------
    x1 : Array | int | float | complex
        Bases, of a numeric dtype.
    x2 : Array | int | float | complex
        Exponents, of a numeric dtype.

    Returns
    -------
    Array
        The powers, in the promoted dtype of ``x1`` and ``x2`` (a Python scalar takes the Array's dtype) and
        their broadcast shape.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast. An integer base raised to a negative
        integer exponent (numpy's refusal; the standard leaves the result unspecified).
    OverflowError
        A Python int outside the range of the Array's integer dtype.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.pow(xp.asarray([1, 2, 3]), 2)
    Array([1, 4, 9], dtype=int64, device=cpu)
    >>> xp.asarray(2.0) ** xp.asarray([0.5, -1.0])
    Array([1.41421356, 0.5       ], dtype=float64, device=cpu)
    """
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
    """Numerical negative of each element (``-x``).

    Integer negation wraps around: ``-(-128)`` is ``-128`` in ``int8``.

    Standard: [`negative`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.negative.html).

    Parameters
    ----------
    x : Array
        Input array, of a numeric dtype.

    Returns
    -------
    Array
        Of ``x``'s dtype and shape.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.negative(xp.asarray([1, -2, 0]))
    Array([-1,  2,  0], dtype=int64, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.negative(native))


def positive(x: Array, /) -> Array:
    """Numerical positive of each element (``+x``): a copy of ``x``.

    Standard: [`positive`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.positive.html).

    Parameters
    ----------
    x : Array
        Input array, of a numeric dtype.

    Returns
    -------
    Array
        A new array with ``x``'s values, dtype and shape.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> +xp.asarray([1.5, -2.0])
    Array([ 1.5, -2. ], dtype=float64, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.positive(native))


def abs(x: Array, /) -> Array:  # noqa: A001 - the standard's name
    """Absolute value of each element (``abs(x)``).

    ``abs(-0.0)`` is ``+0.0``; a complex element with an infinite component has modulus ``inf`` even if the
    other is NaN. Integer ``abs`` of the smallest value wraps (``abs(int8(-128))`` is -128).

    Standard: [`abs`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.abs.html).

    Parameters
    ----------
    x : Array
        Input array, of a numeric dtype.

    Returns
    -------
    Array
        Of ``x``'s shape; of ``x``'s dtype for real input, the modulus in the real dtype of the same precision
        for complex input (``complex128`` gives ``float64``).

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.abs(xp.asarray([-1.5, 0.0, 2.0]))
    Array([1.5, 0. , 2. ], dtype=float64, device=cpu)
    >>> xp.abs(xp.asarray([3 + 4j]))
    Array([5.], dtype=float64, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.absolute(native))


def square(x: Array, /) -> Array:
    """Square of each element (``x * x``).

    Standard: [`square`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.square.html).

    Parameters
    ----------
    x : Array
        Input array, of a numeric dtype.

    Returns
    -------
    Array
        Of ``x``'s dtype and shape.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.square(xp.asarray([1, -2, 3]))
    Array([1, 4, 9], dtype=int64, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.square(native))


def sqrt(x: Array, /) -> Array:
    """Principal square root of each element.

    A negative real input gives NaN (numpy warns); ``sqrt(-0.0)`` is ``-0.0``; complex results have a
    non-negative real part (branch cut along the negative real axis).

    Standard: [`sqrt`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.sqrt.html).

    Parameters
    ----------
    x : Array
        Input array, of a floating-point dtype (real or complex).

    Returns
    -------
    Array
        Of ``x``'s dtype and shape. Integer input is computed as numpy computes it (a floating-point result);
        the standard leaves it unspecified.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.sqrt(xp.asarray([4.0, 2.0, -0.0]))
    Array([ 2.        ,  1.41421356, -0.        ], dtype=float64, device=cpu)
    >>> xp.sqrt(xp.asarray(-4 + 0j))
    Array(0.+2.j, dtype=complex128, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.sqrt(native))


def reciprocal(x: Array, /) -> Array:
    """``1 / x`` for each element.

    Standard: [`reciprocal`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.reciprocal.html).

    Parameters
    ----------
    x : Array
        Input array, of a numeric dtype.

    Returns
    -------
    Array
        Of ``x``'s shape and floating-point dtype; integer input gives ``float64`` (numpy's integer
        ``reciprocal`` would truncate it).

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.reciprocal(xp.asarray([1.0, 2.0, 4.0]))
    Array([1.  , 0.5 , 0.25], dtype=float64, device=cpu)
    >>> xp.reciprocal(xp.asarray([2, 4]))
    Array([0.5 , 0.25], dtype=float64, device=cpu)
    """
    xp, native = _unary(x)
    if native.dtype.kind in "biu":
        return wrap(xp.divide(1.0, native))
    return wrap(xp.divide(1, native))


def sign(x: Array, /) -> Array:
    """Sign of each element.

    Real input: -1, 0 or 1 (NaN for NaN, 0 for either zero). Complex input: ``x / |x|``, ``0 + 0j`` at 0, NaN
    if either component is NaN.

    Standard: [`sign`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.sign.html).

    Parameters
    ----------
    x : Array
        Input array, of a numeric dtype.

    Returns
    -------
    Array
        Of ``x``'s dtype and shape.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.sign(xp.asarray([-3.0, 0.0, 2.5]))
    Array([-1.,  0.,  1.], dtype=float64, device=cpu)
    >>> xp.sign(xp.asarray([3 + 4j]))
    Array([0.6+0.8j], dtype=complex128, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.sign(native))


def conj(x: Array, /) -> Array:
    """Complex conjugate of each element.

    Standard: [`conj`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.conj.html).

    Parameters
    ----------
    x : Array
        Input array, of a numeric dtype.

    Returns
    -------
    Array
        Of ``x``'s dtype and shape; real input is returned as a copy.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.conj(xp.asarray([1 + 2j, 3 - 1j]))
    Array([1.-2.j, 3.+1.j], dtype=complex128, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.conjugate(native))


def real(x: Array, /) -> Array:
    """Real component of each element.

    Standard: [`real`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.real.html).

    Parameters
    ----------
    x : Array
        Input array, of a numeric dtype.

    Returns
    -------
    Array
        Of ``x``'s shape, in the real dtype of the same precision (``complex64`` gives ``float32``); real
        input keeps its dtype. A view of ``x``'s memory, as numpy's ``.real`` is: writing to it writes ``x``.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.real(xp.asarray([1 + 2j, 3 - 1j]))
    Array([1., 3.], dtype=float64, device=cpu)
    """
    return wrap(_unary(x)[1].real)


def imag(x: Array, /) -> Array:
    """Imaginary component of each element.

    Standard: [`imag`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.imag.html).

    Parameters
    ----------
    x : Array
        Input array, of a complex floating-point dtype.

    Returns
    -------
    Array
        Of ``x``'s shape, in the real dtype of the same precision (``complex64`` gives ``float32``); a view of
        ``x``'s memory, as numpy's ``.imag`` is. Real input gives read-only zeros of its dtype.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.imag(xp.asarray([1 + 2j, 3 - 1j], dtype=xp.complex64))
    Array([ 2., -1.], dtype=float32, device=cpu)
    """
    return wrap(_unary(x)[1].imag)


# ---------------------------------------------------------------- exponents and logarithms


def exp(x: Array, /) -> Array:
    """Exponential of each element (``e ** x``).

    ``exp(-inf)`` is 0, ``exp(inf)`` is ``inf``. For complex input dlarray fixes numpy's ``exp(-inf + NaN j)``
    (and ``-inf ± inf j``) to ``0 + 0j``, as the standard lists.

    Standard: [`exp`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.exp.html).

    Parameters
    ----------
    x : Array
        Input array, of a floating-point dtype (real or complex).

    Returns
    -------
    Array
        Of ``x``'s dtype and shape. Integer input is computed as numpy computes it (a floating-point result);
        the standard leaves it unspecified.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.exp(xp.asarray([0.0, 1.0]))
    Array([1.        , 2.71828183], dtype=float64, device=cpu)
    >>> xp.exp(xp.asarray(complex(-xp.inf, xp.nan)))
    Array(0.+0.j, dtype=complex128, device=cpu)
    """
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
    """``exp(x) - 1`` for each element, accurate for ``x`` near 0.

    For complex input numpy misses most of the standard's special cases; dlarray computes ``expm1(a) cos(b) -
    2 sin(b/2)**2 + exp(a) sin(b) j`` and sets the infinite and zero cases as the standard lists them
    (``expm1(-inf + bj)`` is ``-1 + 0j`` for infinite ``b``, ``expm1(-0 + 0j)`` is ``0 + 0j``).

    Standard: [`expm1`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.expm1.html).

    Parameters
    ----------
    x : Array
        Input array, of a floating-point dtype (real or complex).

    Returns
    -------
    Array
        Of ``x``'s dtype and shape. Integer input is computed as numpy computes it (a floating-point result);
        the standard leaves it unspecified.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.expm1(xp.asarray([1e-10, 1.0]))
    Array([1.00000000e-10, 1.71828183e+00], dtype=float64, device=cpu)
    >>> xp.expm1(xp.asarray(complex(-xp.inf, xp.inf)))
    Array(-1.+0.j, dtype=complex128, device=cpu)
    """
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
    """Natural logarithm of each element.

    ``log(0)`` is ``-inf``, a negative real input NaN (numpy warns for both); complex results have their
    branch cut along the negative real axis.

    Standard: [`log`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.log.html).

    Parameters
    ----------
    x : Array
        Input array, of a floating-point dtype (real or complex).

    Returns
    -------
    Array
        Of ``x``'s dtype and shape. Integer input is computed as numpy computes it (a floating-point result);
        the standard leaves it unspecified.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.log(xp.asarray([1.0, xp.e]))
    Array([0., 1.], dtype=float64, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.log(native))


def log1p(x: Array, /) -> Array:
    """``log(1 + x)`` for each element, accurate for ``x`` near 0.

    Standard: [`log1p`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.log1p.html).

    Parameters
    ----------
    x : Array
        Input array, of a floating-point dtype (real or complex).

    Returns
    -------
    Array
        Of ``x``'s dtype and shape. Integer input is computed as numpy computes it (a floating-point result);
        the standard leaves it unspecified.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.log1p(xp.asarray([1e-10, 0.0]))
    Array([1.e-10, 0.e+00], dtype=float64, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.log1p(native))


def log2(x: Array, /) -> Array:
    """Base-2 logarithm of each element.

    Standard: [`log2`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.log2.html).

    Parameters
    ----------
    x : Array
        Input array, of a floating-point dtype (real or complex).

    Returns
    -------
    Array
        Of ``x``'s dtype and shape. Integer input is computed as numpy computes it (a floating-point result);
        the standard leaves it unspecified.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.log2(xp.asarray([1.0, 8.0]))
    Array([0., 3.], dtype=float64, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.log2(native))


def log10(x: Array, /) -> Array:
    """Base-10 logarithm of each element.

    Standard: [`log10`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.log10.html).

    Parameters
    ----------
    x : Array
        Input array, of a floating-point dtype (real or complex).

    Returns
    -------
    Array
        Of ``x``'s dtype and shape. Integer input is computed as numpy computes it (a floating-point result);
        the standard leaves it unspecified.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.log10(xp.asarray([1.0, 1000.0]))
    Array([0., 3.], dtype=float64, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.log10(native))


def logaddexp(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    """``log(exp(x1) + exp(x2))`` for each element pair, without overflow.

    Standard: [`logaddexp`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.logaddexp.html).

    Parameters
    ----------
    x1 : Array | int | float
        First input, of a real floating-point dtype.
    x2 : Array | int | float
        Second input, of a real floating-point dtype.

    Returns
    -------
    Array
        In the promoted floating-point dtype of ``x1`` and ``x2`` and their broadcast shape.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.logaddexp(xp.asarray([1000.0]), xp.asarray([1000.0]))
    Array([1000.69314718], dtype=float64, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.logaddexp(a, b))


# ---------------------------------------------------------------- trigonometry


def sin(x: Array, /) -> Array:
    """Sine of each element (radians).

    Standard: [`sin`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.sin.html).

    Parameters
    ----------
    x : Array
        Input array, of a floating-point dtype (real or complex).

    Returns
    -------
    Array
        Of ``x``'s dtype and shape. Integer input is computed as numpy computes it (a floating-point result);
        the standard leaves it unspecified.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.sin(xp.asarray([0.0, xp.pi / 2]))
    Array([0., 1.], dtype=float64, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.sin(native))


def cos(x: Array, /) -> Array:
    """Cosine of each element (radians).

    Standard: [`cos`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.cos.html).

    Parameters
    ----------
    x : Array
        Input array, of a floating-point dtype (real or complex).

    Returns
    -------
    Array
        Of ``x``'s dtype and shape. Integer input is computed as numpy computes it (a floating-point result);
        the standard leaves it unspecified.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.cos(xp.asarray([0.0, xp.pi]))
    Array([ 1., -1.], dtype=float64, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.cos(native))


def tan(x: Array, /) -> Array:
    """Tangent of each element (radians).

    Complex input is computed as ``-1j * tanh(1j * x)`` with the components swapped exactly, so the standard's
    special cases of ``tanh`` carry over.

    Standard: [`tan`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.tan.html).

    Parameters
    ----------
    x : Array
        Input array, of a floating-point dtype (real or complex).

    Returns
    -------
    Array
        Of ``x``'s dtype and shape. Integer input is computed as numpy computes it (a floating-point result);
        the standard leaves it unspecified.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.tan(xp.asarray([0.0, xp.pi / 4]))
    Array([0., 1.], dtype=float64, device=cpu)
    """
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
    """Principal inverse sine of each element.

    Real input outside ``[-1, 1]`` gives NaN.

    Standard: [`asin`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.asin.html).

    Parameters
    ----------
    x : Array
        Input array, of a floating-point dtype (real or complex).

    Returns
    -------
    Array
        Of ``x``'s dtype and shape. Integer input is computed as numpy computes it (a floating-point result);
        the standard leaves it unspecified.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.asin(xp.asarray([0.0, 1.0]))
    Array([0.        , 1.57079633], dtype=float64, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.arcsin(native))


def acos(x: Array, /) -> Array:
    """Principal inverse cosine of each element.

    Real input outside ``[-1, 1]`` gives NaN.

    Standard: [`acos`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.acos.html).

    Parameters
    ----------
    x : Array
        Input array, of a floating-point dtype (real or complex).

    Returns
    -------
    Array
        Of ``x``'s dtype and shape. Integer input is computed as numpy computes it (a floating-point result);
        the standard leaves it unspecified.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.acos(xp.asarray([1.0, 0.0]))
    Array([0.        , 1.57079633], dtype=float64, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.arccos(native))


def atan(x: Array, /) -> Array:
    """Principal inverse tangent of each element.

    Standard: [`atan`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.atan.html).

    Parameters
    ----------
    x : Array
        Input array, of a floating-point dtype (real or complex).

    Returns
    -------
    Array
        Of ``x``'s dtype and shape. Integer input is computed as numpy computes it (a floating-point result);
        the standard leaves it unspecified.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.atan(xp.asarray([0.0, xp.inf]))
    Array([0.        , 1.57079633], dtype=float64, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.arctan(native))


def atan2(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    """Inverse tangent of ``x1 / x2``, in the quadrant of the point ``(x2, x1)``.

    Signed zeros pick the quadrant as the standard lists: ``atan2(+0.0, -0.0)`` is ``pi``, ``atan2(-0.0,
    -0.0)`` is ``-pi``.

    Standard: [`atan2`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.atan2.html).

    Parameters
    ----------
    x1 : Array | int | float
        y-coordinates, of a real floating-point dtype.
    x2 : Array | int | float
        x-coordinates, of a real floating-point dtype.

    Returns
    -------
    Array
        Angles in radians in ``[-pi, pi]``, in the promoted floating-point dtype of ``x1`` and ``x2`` and
        their broadcast shape.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.atan2(xp.asarray([1.0, -1.0]), -1.0)
    Array([ 2.35619449, -2.35619449], dtype=float64, device=cpu)
    >>> xp.atan2(xp.asarray([0.0, -0.0]), -0.0)
    Array([ 3.14159265, -3.14159265], dtype=float64, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.arctan2(a, b))


def sinh(x: Array, /) -> Array:
    """Hyperbolic sine of each element.

    Standard: [`sinh`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.sinh.html).

    Parameters
    ----------
    x : Array
        Input array, of a floating-point dtype (real or complex).

    Returns
    -------
    Array
        Of ``x``'s dtype and shape. Integer input is computed as numpy computes it (a floating-point result);
        the standard leaves it unspecified.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.sinh(xp.asarray([0.0, 1.0]))
    Array([0.        , 1.17520119], dtype=float64, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.sinh(native))


def cosh(x: Array, /) -> Array:
    """Hyperbolic cosine of each element.

    Standard: [`cosh`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.cosh.html).

    Parameters
    ----------
    x : Array
        Input array, of a floating-point dtype (real or complex).

    Returns
    -------
    Array
        Of ``x``'s dtype and shape. Integer input is computed as numpy computes it (a floating-point result);
        the standard leaves it unspecified.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.cosh(xp.asarray([0.0, 1.0]))
    Array([1.        , 1.54308063], dtype=float64, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.cosh(native))


def tanh(x: Array, /) -> Array:
    """Hyperbolic tangent of each element.

    For complex input with an infinite real part and a finite imaginary part ``b`` the standard asks for ``±1
    + 0j`` with the zero signed like ``b``; dlarray fixes numpy's (signed like ``sin(2b)``).

    Standard: [`tanh`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.tanh.html).

    Parameters
    ----------
    x : Array
        Input array, of a floating-point dtype (real or complex).

    Returns
    -------
    Array
        Of ``x``'s dtype and shape. Integer input is computed as numpy computes it (a floating-point result);
        the standard leaves it unspecified.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.tanh(xp.asarray([0.0, xp.inf]))
    Array([0., 1.], dtype=float64, device=cpu)
    >>> xp.tanh(xp.asarray(complex(xp.inf, 2.0)))
    Array(1.+0.j, dtype=complex128, device=cpu)
    """
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
    """Inverse hyperbolic sine of each element.

    Standard: [`asinh`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.asinh.html).

    Parameters
    ----------
    x : Array
        Input array, of a floating-point dtype (real or complex).

    Returns
    -------
    Array
        Of ``x``'s dtype and shape. Integer input is computed as numpy computes it (a floating-point result);
        the standard leaves it unspecified.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.asinh(xp.asarray([0.0, 1.0]))
    Array([0.        , 0.88137359], dtype=float64, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.arcsinh(native))


def acosh(x: Array, /) -> Array:
    """Inverse hyperbolic cosine of each element.

    Real input below 1 gives NaN.

    Standard: [`acosh`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.acosh.html).

    Parameters
    ----------
    x : Array
        Input array, of a floating-point dtype (real or complex).

    Returns
    -------
    Array
        Of ``x``'s dtype and shape. Integer input is computed as numpy computes it (a floating-point result);
        the standard leaves it unspecified.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.acosh(xp.asarray([1.0, 2.0]))
    Array([0.       , 1.3169579], dtype=float64, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.arccosh(native))


def atanh(x: Array, /) -> Array:
    """Inverse hyperbolic tangent of each element.

    ``atanh(±1)`` is ``±inf``; real input outside ``[-1, 1]`` gives NaN.

    Standard: [`atanh`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.atanh.html).

    Parameters
    ----------
    x : Array
        Input array, of a floating-point dtype (real or complex).

    Returns
    -------
    Array
        Of ``x``'s dtype and shape. Integer input is computed as numpy computes it (a floating-point result);
        the standard leaves it unspecified.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.atanh(xp.asarray([0.0, 0.5]))
    Array([0.        , 0.54930614], dtype=float64, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.arctanh(native))


def hypot(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    """``sqrt(x1**2 + x2**2)`` for each element pair, without undue overflow or underflow.

    An infinite leg gives ``inf`` even if the other is NaN.

    Standard: [`hypot`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.hypot.html).

    Parameters
    ----------
    x1 : Array | int | float
        First leg, of a real floating-point dtype.
    x2 : Array | int | float
        Second leg, of a real floating-point dtype.

    Returns
    -------
    Array
        In the promoted floating-point dtype of ``x1`` and ``x2`` and their broadcast shape.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.hypot(xp.asarray([3.0, 1e200]), xp.asarray([4.0, 1e200]))
    Array([5.00000000e+000, 1.41421356e+200], dtype=float64, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.hypot(a, b))


# ---------------------------------------------------------------- rounding


def round(x: Array, /) -> Array:  # noqa: A001 - the standard's name
    """Each element rounded to the nearest integer-valued number, ties to even.

    Standard: [`round`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.round.html).

    Parameters
    ----------
    x : Array
        Input array, of a numeric dtype.

    Returns
    -------
    Array
        Of ``x``'s dtype and shape; complex input is rounded component-wise, integer input returned as a copy.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.round(xp.asarray([0.5, 1.5, 2.5, -1.7]))
    Array([ 0.,  2.,  2., -2.], dtype=float64, device=cpu)
    """
    xp, native = _unary(x)
    if native.dtype.kind in "biu":
        return wrap(native.copy())
    return wrap(xp.rint(native))


def ceil(x: Array, /) -> Array:
    """Smallest integer-valued number not less than each element.

    Standard: [`ceil`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.ceil.html).

    Parameters
    ----------
    x : Array
        Input array, of a real-valued dtype (integer or real floating-point).

    Returns
    -------
    Array
        Of ``x``'s dtype and shape. Integer input is returned unchanged (as a copy).

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.ceil(xp.asarray([-1.5, 1.2]))
    Array([-1.,  2.], dtype=float64, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.ceil(native))


def floor(x: Array, /) -> Array:
    """Largest integer-valued number not greater than each element.

    Standard: [`floor`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.floor.html).

    Parameters
    ----------
    x : Array
        Input array, of a real-valued dtype (integer or real floating-point).

    Returns
    -------
    Array
        Of ``x``'s dtype and shape. Integer input is returned unchanged (as a copy).

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.floor(xp.asarray([-1.5, 1.2]))
    Array([-2.,  1.], dtype=float64, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.floor(native))


def trunc(x: Array, /) -> Array:
    """Each element rounded toward zero to an integer-valued number.

    Standard: [`trunc`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.trunc.html).

    Parameters
    ----------
    x : Array
        Input array, of a real-valued dtype (integer or real floating-point).

    Returns
    -------
    Array
        Of ``x``'s dtype and shape. Integer input is returned unchanged (as a copy).

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.trunc(xp.asarray([-1.5, 1.7]))
    Array([-1.,  1.], dtype=float64, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.trunc(native))


def clip(  # noqa: A002 - the standard's names
    x: Array, /, min: int | float | Array | None = None, max: int | float | Array | None = None
) -> Array:
    """Each element clamped to ``[min, max]``.

    A NaN in ``x`` or in a bound gives NaN. Where ``min > max`` the result is unspecified by the
    standard (here ``max``). A Python int outside an integer dtype's range is clamped to that
    range (numpy would raise), which gives the same result.

    Standard: [`clip`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.clip.html).

    Parameters
    ----------
    x : Array
        Input array, of a real-valued dtype.
    min : int | float | Array | None
        Lower bound: ``None`` (no bound), a Python scalar, or an Array broadcast with ``x``.
    max : int | float | Array | None
        Upper bound, as ``min``.

    Returns
    -------
    Array
        Of ``x``'s dtype (the bounds take no part in type promotion), in the broadcast shape of
        ``x`` and the bounds.

    Raises
    ------
    TypeError
        ``x`` is not an Array, a bound is neither None, a Python int or float nor an Array, or
        ``x``'s dtype is one this function does not compute (stored-only dtypes such as bfloat16
        included).
    ValueError
        A bound on another device than ``x``, or shapes that do not broadcast.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.clip(xp.asarray([-3, 0, 7], dtype=xp.int8), -1, 1000)
    Array([-1,  0,  7], dtype=int8, device=cpu)
    >>> xp.clip(xp.asarray([0.5, 2.0, 9.0]), xp.asarray([1.0, 1.0, 1.0]), 5)
    Array([1., 2., 5.], dtype=float64, device=cpu)
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
    if kind is not int and kind is not bool and kind is not Array:
        number = scalar_operand(bound, x._device)  # a numpy scalar, a float subclass...: as the operators
        if number is not None:
            return _clip_bound(number, x, native, name)
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


def less(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    """``x1 < x2``, element-wise.

    Any comparison with NaN is False.

    Standard: [`less`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.less.html).

    Parameters
    ----------
    x1 : Array | int | float
        First operand, of a real-valued dtype.
    x2 : Array | int | float
        Second operand, of a real-valued dtype.

    Returns
    -------
    Array
        Of dtype ``bool``, in the broadcast shape of ``x1`` and ``x2``.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.less(xp.asarray([1, 2, 3]), 2)
    Array([ True, False, False], dtype=bool, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.less(a, b))


def less_equal(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    """``x1 <= x2``, element-wise.

    Standard: [`less_equal`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.less_equal.html).

    Parameters
    ----------
    x1 : Array | int | float
        First operand, of a real-valued dtype.
    x2 : Array | int | float
        Second operand, of a real-valued dtype.

    Returns
    -------
    Array
        Of dtype ``bool``, in the broadcast shape of ``x1`` and ``x2``.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.asarray([1, 2, 3]) <= 2
    Array([ True,  True, False], dtype=bool, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.less_equal(a, b))


def greater(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    """``x1 > x2``, element-wise.

    Standard: [`greater`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.greater.html).

    Parameters
    ----------
    x1 : Array | int | float
        First operand, of a real-valued dtype.
    x2 : Array | int | float
        Second operand, of a real-valued dtype.

    Returns
    -------
    Array
        Of dtype ``bool``, in the broadcast shape of ``x1`` and ``x2``.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.greater(xp.asarray([1.0, xp.nan, 3.0]), 2.0)
    Array([False, False,  True], dtype=bool, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.greater(a, b))


def greater_equal(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    """``x1 >= x2``, element-wise.

    Standard: [`greater_equal`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.greater_equal.html).

    Parameters
    ----------
    x1 : Array | int | float
        First operand, of a real-valued dtype.
    x2 : Array | int | float
        Second operand, of a real-valued dtype.

    Returns
    -------
    Array
        Of dtype ``bool``, in the broadcast shape of ``x1`` and ``x2``.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.asarray([1, 2, 3]) >= 2
    Array([False,  True,  True], dtype=bool, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.greater_equal(a, b))


def equal(x1: Array | int | float | complex | bool, x2: Array | int | float | complex | bool, /) -> Array:
    """``x1 == x2``, element-wise.

    NaN equals nothing, itself included; ``-0.0 == +0.0``; complex numbers are equal when both components are.

    Standard: [`equal`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.equal.html).

    Parameters
    ----------
    x1 : Array | int | float | complex | bool
        First operand, of any dtype.
    x2 : Array | int | float | complex | bool
        Second operand, of any dtype.

    Returns
    -------
    Array
        Of dtype ``bool``, in the broadcast shape of ``x1`` and ``x2``.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.equal(xp.asarray([1.0, xp.nan, -0.0]), xp.asarray([1.0, xp.nan, 0.0]))
    Array([ True, False,  True], dtype=bool, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.equal(a, b))


def not_equal(x1: Array | int | float | complex | bool, x2: Array | int | float | complex | bool, /) -> Array:
    """``x1 != x2``, element-wise.

    NaN differs from everything, itself included.

    Standard: [`not_equal`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.not_equal.html).

    Parameters
    ----------
    x1 : Array | int | float | complex | bool
        First operand, of any dtype.
    x2 : Array | int | float | complex | bool
        Second operand, of any dtype.

    Returns
    -------
    Array
        Of dtype ``bool``, in the broadcast shape of ``x1`` and ``x2``.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.asarray([1, 2, 3]) != 2
    Array([ True, False,  True], dtype=bool, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.not_equal(a, b))


def maximum(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    """Larger of each element pair.

    NaN if either element is NaN; which zero ``maximum(+0.0, -0.0)`` gives is unspecified.

    Standard: [`maximum`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.maximum.html).

    Parameters
    ----------
    x1 : Array | int | float
        First operand, of a real-valued dtype.
    x2 : Array | int | float
        Second operand, of a real-valued dtype.

    Returns
    -------
    Array
        The maxima, in the promoted dtype of ``x1`` and ``x2`` (a Python scalar takes the Array's dtype) and
        their broadcast shape.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.
    OverflowError
        A Python int outside the range of the Array's integer dtype.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.maximum(xp.asarray([1.0, 5.0, xp.nan]), 2.0)
    Array([ 2.,  5., nan], dtype=float64, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.maximum(a, b))


def minimum(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    """Smaller of each element pair.

    NaN if either element is NaN.

    Standard: [`minimum`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.minimum.html).

    Parameters
    ----------
    x1 : Array | int | float
        First operand, of a real-valued dtype.
    x2 : Array | int | float
        Second operand, of a real-valued dtype.

    Returns
    -------
    Array
        The minima, in the promoted dtype of ``x1`` and ``x2`` (a Python scalar takes the Array's dtype) and
        their broadcast shape.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.
    OverflowError
        A Python int outside the range of the Array's integer dtype.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.minimum(xp.asarray([1, 5, 3]), xp.asarray([4, 2, 3]))
    Array([1, 2, 3], dtype=int64, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.minimum(a, b))


# ---------------------------------------------------------------- floating-point classification


def isfinite(x: Array, /) -> Array:
    """True where an element is finite (neither infinite nor NaN).

    Standard: [`isfinite`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.isfinite.html).

    Parameters
    ----------
    x : Array
        Input array, of a numeric dtype.

    Returns
    -------
    Array
        Of dtype ``bool``, in ``x``'s shape. A complex element is finite when both components are; integers
        and bools always are.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.isfinite(xp.asarray([1.0, xp.inf, xp.nan]))
    Array([ True, False, False], dtype=bool, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.isfinite(native))


def isinf(x: Array, /) -> Array:
    """True where an element is positive or negative infinity.

    Standard: [`isinf`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.isinf.html).

    Parameters
    ----------
    x : Array
        Input array, of a numeric dtype.

    Returns
    -------
    Array
        Of dtype ``bool``, in ``x``'s shape. A complex element is infinite when either component is.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.isinf(xp.asarray([1.0, -xp.inf, xp.nan]))
    Array([False,  True, False], dtype=bool, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.isinf(native))


def isnan(x: Array, /) -> Array:
    """True where an element is NaN.

    Standard: [`isnan`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.isnan.html).

    Parameters
    ----------
    x : Array
        Input array, of a numeric dtype.

    Returns
    -------
    Array
        Of dtype ``bool``, in ``x``'s shape. A complex element is NaN when either component is.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.isnan(xp.asarray([1.0, xp.nan]))
    Array([False,  True], dtype=bool, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.isnan(native))


def signbit(x: Array, /) -> Array:
    """True where an element's sign bit is set.

    True for negative numbers, ``-0.0``, ``-inf`` and NaNs with the sign bit set.

    Standard: [`signbit`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.signbit.html).

    Parameters
    ----------
    x : Array
        Input array, of a real floating-point dtype.

    Returns
    -------
    Array
        Of dtype ``bool``, in ``x``'s shape.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.signbit(xp.asarray([-1.0, -0.0, 0.0, 2.0]))
    Array([ True,  True, False, False], dtype=bool, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.signbit(native))


def copysign(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    """Magnitude of ``x1`` with the sign bit of ``x2``, element-wise.

    The sign bit counts, so ``-0.0`` and NaNs with the bit set give a negative result.

    Standard: [`copysign`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.copysign.html).

    Parameters
    ----------
    x1 : Array | int | float
        Magnitudes, of a real floating-point dtype.
    x2 : Array | int | float
        Signs, of a real floating-point dtype.

    Returns
    -------
    Array
        In the promoted floating-point dtype of ``x1`` and ``x2`` and their broadcast shape.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.copysign(xp.asarray([1.0, 2.0, 3.0]), xp.asarray([-0.0, 0.0, -1.0]))
    Array([-1.,  2., -3.], dtype=float64, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.copysign(a, b))


def nextafter(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    """Next representable value after ``x1`` in the direction of ``x2``, element-wise.

    ``x1`` if the two are equal; NaN if either is NaN.

    Standard: [`nextafter`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.nextafter.html).

    Parameters
    ----------
    x1 : Array | int | float
        Starting values, of a real floating-point dtype.
    x2 : Array | int | float
        Directions, of a real floating-point dtype.

    Returns
    -------
    Array
        In the promoted floating-point dtype of ``x1`` and ``x2`` and their broadcast shape.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.nextafter(xp.asarray([1.0], dtype=xp.float32), 2.0) - 1
    Array([1.1920929e-07], dtype=float32, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.nextafter(a, b))


# ---------------------------------------------------------------- logical and bitwise


def logical_and(x1: Array | bool, x2: Array | bool, /) -> Array:
    """Logical AND of each element pair.

    Other dtypes are taken by their truth (zero is False), as numpy does.

    Standard: [`logical_and`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.logical_and.html).

    Parameters
    ----------
    x1 : Array | bool
        First operand, of dtype ``bool``.
    x2 : Array | bool
        Second operand, of dtype ``bool``.

    Returns
    -------
    Array
        Of dtype ``bool``, in the broadcast shape of ``x1`` and ``x2``.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.logical_and(xp.asarray([True, True, False]), xp.asarray([True, False, False]))
    Array([ True, False, False], dtype=bool, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.logical_and(a, b))


def logical_or(x1: Array | bool, x2: Array | bool, /) -> Array:
    """Logical OR of each element pair.

    Standard: [`logical_or`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.logical_or.html).

    Parameters
    ----------
    x1 : Array | bool
        First operand, of dtype ``bool``.
    x2 : Array | bool
        Second operand, of dtype ``bool``.

    Returns
    -------
    Array
        Of dtype ``bool``, in the broadcast shape of ``x1`` and ``x2``.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.logical_or(xp.asarray([True, False]), False)
    Array([ True, False], dtype=bool, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.logical_or(a, b))


def logical_xor(x1: Array | bool, x2: Array | bool, /) -> Array:
    """Logical XOR of each element pair.

    Standard: [`logical_xor`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.logical_xor.html).

    Parameters
    ----------
    x1 : Array | bool
        First operand, of dtype ``bool``.
    x2 : Array | bool
        Second operand, of dtype ``bool``.

    Returns
    -------
    Array
        Of dtype ``bool``, in the broadcast shape of ``x1`` and ``x2``.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.logical_xor(xp.asarray([True, False]), True)
    Array([False,  True], dtype=bool, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.logical_xor(a, b))


def logical_not(x: Array, /) -> Array:
    """Logical NOT of each element.

    Standard: [`logical_not`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.logical_not.html).

    Parameters
    ----------
    x : Array
        Input array, of dtype ``bool``.

    Returns
    -------
    Array
        Of dtype ``bool``, in ``x``'s shape.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.logical_not(xp.asarray([True, False]))
    Array([False,  True], dtype=bool, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.logical_not(native))


def bitwise_and(x1: Array | int | bool, x2: Array | int | bool, /) -> Array:
    """Bitwise AND of each element pair (``x1 & x2``).

    Standard: [`bitwise_and`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.bitwise_and.html).

    Parameters
    ----------
    x1 : Array | int | bool
        First operand, of an integer or boolean dtype.
    x2 : Array | int | bool
        Second operand, of an integer or boolean dtype.

    Returns
    -------
    Array
        In the promoted dtype of ``x1`` and ``x2`` and their broadcast shape.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.
    OverflowError
        A Python int outside the range of the Array's integer dtype.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.bitwise_and(xp.asarray([12, 10]), 6)
    Array([4, 2], dtype=int64, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.bitwise_and(a, b))


def bitwise_or(x1: Array | int | bool, x2: Array | int | bool, /) -> Array:
    """Bitwise OR of each element pair (``x1 | x2``).

    Standard: [`bitwise_or`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.bitwise_or.html).

    Parameters
    ----------
    x1 : Array | int | bool
        First operand, of an integer or boolean dtype.
    x2 : Array | int | bool
        Second operand, of an integer or boolean dtype.

    Returns
    -------
    Array
        In the promoted dtype of ``x1`` and ``x2`` and their broadcast shape.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.
    OverflowError
        A Python int outside the range of the Array's integer dtype.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.asarray([12, 10]) | 1
    Array([13, 11], dtype=int64, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.bitwise_or(a, b))


def bitwise_xor(x1: Array | int | bool, x2: Array | int | bool, /) -> Array:
    """Bitwise XOR of each element pair (``x1 ^ x2``).

    Standard: [`bitwise_xor`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.bitwise_xor.html).

    Parameters
    ----------
    x1 : Array | int | bool
        First operand, of an integer or boolean dtype.
    x2 : Array | int | bool
        Second operand, of an integer or boolean dtype.

    Returns
    -------
    Array
        In the promoted dtype of ``x1`` and ``x2`` and their broadcast shape.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.
    OverflowError
        A Python int outside the range of the Array's integer dtype.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.asarray([True, False]) ^ True
    Array([False,  True], dtype=bool, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.bitwise_xor(a, b))


def bitwise_left_shift(x1: Array | int, x2: Array | int, /) -> Array:
    """``x1`` shifted left by ``x2`` bits (``x1 << x2``).

    Standard: [`bitwise_left_shift`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.bitwise_left_shift.html).

    Parameters
    ----------
    x1 : Array | int
        Values, of an integer dtype.
    x2 : Array | int
        Shift counts, of an integer dtype, each non-negative (a negative count is unspecified by the
        standard).

    Returns
    -------
    Array
        In the promoted dtype of ``x1`` and ``x2`` and their broadcast shape; bits shifted out are lost.

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.
    OverflowError
        A Python int outside the range of the Array's integer dtype.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.bitwise_left_shift(xp.asarray([1, 3]), 2)
    Array([ 4, 12], dtype=int64, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.left_shift(a, b))


def bitwise_right_shift(x1: Array | int, x2: Array | int, /) -> Array:
    """``x1`` shifted right by ``x2`` bits, sign-extending (``x1 >> x2``).

    Standard: [`bitwise_right_shift`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.bitwise_right_shift.html).

    Parameters
    ----------
    x1 : Array | int
        Values, of an integer dtype.
    x2 : Array | int
        Shift counts, of an integer dtype, each non-negative (a negative count is unspecified by the
        standard).

    Returns
    -------
    Array
        In the promoted dtype of ``x1`` and ``x2`` and their broadcast shape (an arithmetic shift: ``-8 >> 1``
        is -4).

    Raises
    ------
    TypeError
        An operand that is neither an Array nor a Python scalar, no Array among the two, or a dtype this
        function does not compute (stored-only dtypes such as bfloat16 included).
    ValueError
        Arrays on different devices, or shapes that do not broadcast.
    OverflowError
        A Python int outside the range of the Array's integer dtype.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.bitwise_right_shift(xp.asarray([16, -8]), 1)
    Array([ 8, -4], dtype=int64, device=cpu)
    """
    xp, a, b = _operands(x1, x2)
    return wrap(xp.right_shift(a, b))


def bitwise_invert(x: Array, /) -> Array:
    """Bitwise inversion of each element (``~x``).

    Standard: [`bitwise_invert`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.bitwise_invert.html).

    Parameters
    ----------
    x : Array
        Input array, of an integer or boolean dtype.

    Returns
    -------
    Array
        Of ``x``'s dtype and shape. For booleans, logical NOT.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or its dtype is one this function does not compute (stored-only dtypes such as
        bfloat16 included).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.bitwise_invert(xp.asarray([0, 5], dtype=xp.uint8))
    Array([255, 250], dtype=uint8, device=cpu)
    >>> ~xp.asarray([True, False])
    Array([False,  True], dtype=bool, device=cpu)
    """
    xp, native = _unary(x)
    return wrap(xp.invert(native))
