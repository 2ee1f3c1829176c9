"""numpy buffers on a :data:`~dlarray.testing._capsules.DATA_ALIGNMENT` (64-byte) boundary.

numpy and Python's allocators promise 16 bytes; XLA (jax) copies a CPU buffer that is not 64-byte
aligned, and tensorflow takes it zero-copy and then aborts in its first kernel (Eigen's check).
Buffers that the probe and the kit make start on a boundary, so that what they show is the same
on every run; an unaligned buffer is made on purpose, with ``misalign``.
"""

from __future__ import annotations

import numpy as np

from ._capsules import DATA_ALIGNMENT


def aligned_float32(count: int, misalign: int = 0) -> np.ndarray:
    """``arange(count)`` as float32 whose first element is ``misalign`` bytes past a 64-byte boundary.

    Examples
    --------
    >>> from dlarray.testing._buffers import aligned_float32
    >>> values = aligned_float32(5)
    >>> values.tolist(), values.ctypes.data % 64
    ([0.0, 1.0, 2.0, 3.0, 4.0], 0)
    >>> aligned_float32(5, misalign=16).ctypes.data % 64
    16
    """
    raw = np.empty(count * 4 + DATA_ALIGNMENT + misalign, dtype=np.uint8)
    start = -raw.ctypes.data % DATA_ALIGNMENT + misalign
    values = raw[start : start + count * 4].view(np.float32)
    values[:] = np.arange(count, dtype=np.float32)
    return values
