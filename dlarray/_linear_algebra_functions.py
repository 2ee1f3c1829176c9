"""Linear algebra functions of the main namespace (matmul, matrix_transpose, tensordot, vecdot)."""

from __future__ import annotations

import numpy as np

from ._array import Array, wrap

__all__ = ["matmul"]


def matmul(x1: Array, x2: Array, /) -> Array:
    """Matrix product (``x1 @ x2``), broadcasting over leading dimensions."""
    if type(x1) is not Array or type(x2) is not Array:
        raise TypeError("matmul takes two Arrays")
    if x1._device is not x2._device:
        raise ValueError(f"arrays are on different devices: {x1._device} and {x2._device}")
    return wrap(np.matmul(x1._as_native(), x2._as_native()))
