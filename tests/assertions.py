"""The one comparison of a result with what it should be: ``same``.

Test modules import it as ``from assertions import same`` (pytest puts tests/ on ``sys.path``, as
for the other helper modules here); conftest.py has pytest rewrite its asserts, so that a failure
shows both sides.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dlarray


def same(actual: Any, expected: Any, *, close: bool = False, bitwise: bool = False) -> None:
    """``actual`` has the type, dtype, shape and values of ``expected``.

    ``expected`` is a numpy array or scalar (``actual``, anything ``np.asarray`` takes, is compared
    through ``np.asarray``), a dlarray ``Array`` (then ``actual`` is an ``Array`` of the same dtype
    and device), a tuple or list of these (``actual`` is the same kind of sequence, of the same
    length, compared item by item) or another Python value such as a number or a dtype (``actual``
    is equal and of the same type).

    Values are equal with NaNs equal to each other; ``close=True`` allows a relative difference of
    1e-5 and an absolute one of 1e-6 (results computed in another order); ``bitwise=True`` asks
    for the same bytes (signed zeros, NaN payloads and bool bytes other than 0 and 1 included).
    """
    if isinstance(expected, (tuple, list)):
        assert type(actual) is type(expected), (type(actual), type(expected))
        assert len(actual) == len(expected), (len(actual), len(expected))
        for actual_item, expected_item in zip(actual, expected):
            same(actual_item, expected_item, close=close, bitwise=bitwise)
        return
    if not isinstance(expected, (dlarray.Array, np.ndarray, np.generic)):
        assert type(actual) is type(expected), (type(actual), type(expected))
        assert actual == expected, (actual, expected)
        return
    if isinstance(expected, dlarray.Array):
        assert type(actual) is dlarray.Array, type(actual)
        assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
        assert actual.device == expected.device, (actual.device, expected.device)
    got, want = np.asarray(actual), np.asarray(expected)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if bitwise:
        assert got.tobytes() == want.tobytes(), (got, want)
    elif close:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)
