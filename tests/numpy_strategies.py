"""Hypothesis strategies of numpy arrays and axes that the tests of the namespace's functions share.

Test modules import them as ``from numpy_strategies import arrays`` (pytest puts tests/ on
``sys.path``).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
REALS = INTS + [np.float32, np.float64]
NUMERIC = REALS + [np.complex64, np.complex128]


def arrays(dtypes=REALS, min_dims=1, max_dims=3, min_side=0, max_side=4, elements=None):
    """numpy arrays of the given dtypes (finite, no NaN unless elements says otherwise)."""
    dtype = st.sampled_from(dtypes)
    shapes = hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)
    kwargs = elements if elements is not None else {"allow_nan": False, "allow_infinity": False}

    def build(dt):
        if np.dtype(dt).kind in "fc":
            return hnp.arrays(dt, shapes, elements=kwargs)
        return hnp.arrays(dt, shapes)

    return dtype.flatmap(build)


def axis_for(ndim: int):
    """None, one axis (possibly negative) or a tuple of distinct axes."""
    single = st.integers(-ndim, ndim - 1) if ndim else st.nothing()
    many = st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).map(tuple) if ndim else st.just(())
    return st.none() | single | many
