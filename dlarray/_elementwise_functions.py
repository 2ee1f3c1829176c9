"""Element-wise functions (Array API "Element-wise Functions"), computed by the device's backend."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import Array, wrap

__all__ = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "bitwise_invert", "less", "less_equal", "greater", "greater_equal", "equal", "not_equal", "negative", "positive", "abs"]

_SCALARS = (bool, int, float, complex)


def _operands(x1: Any, x2: Any) -> tuple[Any, Any]:
    """Backend operands of a binary function: Arrays unwrapped, Python scalars kept as they are
    (numpy treats them as weakly typed, which is the standard's rule for scalars)."""
    if type(x1) is Array:
        if type(x2) is Array:
            if x1._device is not x2._device:
                raise ValueError(f"arrays are on different devices: {x1._device} and {x2._device}")
            return x1._as_native(), x2._as_native()
        if type(x2) in _SCALARS:
            return x1._as_native(), x2
        raise TypeError(f"expected an Array or a Python scalar, got {type(x2).__name__}")
    if type(x2) is Array and type(x1) in _SCALARS:
        return x1, x2._as_native()
    raise TypeError(
        f"at least one argument must be an Array, got {type(x1).__name__} and {type(x2).__name__}"
    )


def _unary(x: Any) -> Any:
    if type(x) is not Array:
        raise TypeError(f"expected an Array, got {type(x).__name__}")
    return x._as_native()


def add(x1: Any, x2: Any, /) -> Array:
    """Sum of each element pair (``x1 + x2``)."""
    return wrap(np.add(*_operands(x1, x2)))


def subtract(x1: Any, x2: Any, /) -> Array:
    """Difference of each element pair (``x1 - x2``)."""
    return wrap(np.subtract(*_operands(x1, x2)))


def multiply(x1: Any, x2: Any, /) -> Array:
    """Product of each element pair (``x1 * x2``)."""
    return wrap(np.multiply(*_operands(x1, x2)))


def divide(x1: Any, x2: Any, /) -> Array:
    """True division of each element pair (``x1 / x2``)."""
    return wrap(np.divide(*_operands(x1, x2)))


def floor_divide(x1: Any, x2: Any, /) -> Array:
    """Floor division of each element pair (``x1 // x2``)."""
    return wrap(np.floor_divide(*_operands(x1, x2)))


def remainder(x1: Any, x2: Any, /) -> Array:
    """Remainder with the sign of the divisor (``x1 % x2``)."""
    return wrap(np.remainder(*_operands(x1, x2)))


def pow(x1: Any, x2: Any, /) -> Array:  # noqa: A001 - the standard's name
    """``x1`` raised to ``x2`` (``x1 ** x2``)."""
    return wrap(np.power(*_operands(x1, x2)))


def bitwise_and(x1: Any, x2: Any, /) -> Array:
    """Bitwise AND (``x1 & x2``)."""
    return wrap(np.bitwise_and(*_operands(x1, x2)))


def bitwise_or(x1: Any, x2: Any, /) -> Array:
    """Bitwise OR (``x1 | x2``)."""
    return wrap(np.bitwise_or(*_operands(x1, x2)))


def bitwise_xor(x1: Any, x2: Any, /) -> Array:
    """Bitwise XOR (``x1 ^ x2``)."""
    return wrap(np.bitwise_xor(*_operands(x1, x2)))


def bitwise_left_shift(x1: Any, x2: Any, /) -> Array:
    """Left shift (``x1 << x2``)."""
    return wrap(np.left_shift(*_operands(x1, x2)))


def bitwise_right_shift(x1: Any, x2: Any, /) -> Array:
    """Right shift (``x1 >> x2``)."""
    return wrap(np.right_shift(*_operands(x1, x2)))


def bitwise_invert(x: Array, /) -> Array:
    """Bitwise inversion (``~x``)."""
    return wrap(np.invert(_unary(x)))


def less(x1: Any, x2: Any, /) -> Array:
    """``x1 < x2`` element-wise."""
    return wrap(np.less(*_operands(x1, x2)))


def less_equal(x1: Any, x2: Any, /) -> Array:
    """``x1 <= x2`` element-wise."""
    return wrap(np.less_equal(*_operands(x1, x2)))


def greater(x1: Any, x2: Any, /) -> Array:
    """``x1 > x2`` element-wise."""
    return wrap(np.greater(*_operands(x1, x2)))


def greater_equal(x1: Any, x2: Any, /) -> Array:
    """``x1 >= x2`` element-wise."""
    return wrap(np.greater_equal(*_operands(x1, x2)))


def equal(x1: Any, x2: Any, /) -> Array:
    """``x1 == x2`` element-wise."""
    return wrap(np.equal(*_operands(x1, x2)))


def not_equal(x1: Any, x2: Any, /) -> Array:
    """``x1 != x2`` element-wise."""
    return wrap(np.not_equal(*_operands(x1, x2)))


def negative(x: Array, /) -> Array:
    """Numerical negative (``-x``)."""
    return wrap(np.negative(_unary(x)))


def positive(x: Array, /) -> Array:
    """Numerical positive (``+x``)."""
    return wrap(np.positive(_unary(x)))


def abs(x: Array, /) -> Array:  # noqa: A001 - the standard's name
    """Absolute value (``abs(x)``)."""
    return wrap(np.abs(_unary(x)))
