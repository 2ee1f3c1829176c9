"""Shape arithmetic shared by the namespace and the backends (no arrays, no numpy)."""

from __future__ import annotations

import operator


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape that arrays of ``shapes`` broadcast to together (ValueError where they do not).

    Examples
    --------
    >>> from dlarray._shapes import broadcast_shapes
    >>> broadcast_shapes((2, 1), (1, 3), (3,))
    (2, 3)
    """
    ndim = max([len(shape) for shape in shapes], default=0)
    result = [1] * ndim
    for shape in shapes:
        offset = ndim - len(shape)
        for i, extent in enumerate(shape):
            extent = operator.index(extent)
            current = result[offset + i]
            if extent != current:
                if current == 1:
                    result[offset + i] = extent
                elif extent != 1:
                    raise ValueError(f"shapes {', '.join(map(str, shapes))} cannot be broadcast together")
    return tuple(result)
