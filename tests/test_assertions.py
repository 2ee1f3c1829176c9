"""The shared comparison ``same`` (tests/assertions.py) refuses every difference that the
per-file copies it replaced refused: dtype, shape, values (NaNs equal), and in its modes the bytes
(``bitwise``), a tolerance (``close``), an Array's dtype and device, a sequence's kind and length,
a plain value's type."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from assertions import same

import dlarray as xp

# (label, actual, expected, options): each pair differs in one way that ``same`` must refuse
DIFFERENCES: list[tuple[str, Any, Any, dict[str, Any]]] = [
    ("dtype", xp.asarray([1, 2], dtype=xp.int32), np.array([1, 2], dtype=np.int64), {}),
    ("shape", xp.asarray([[1.0, 2.0]]), np.array([1.0, 2.0]), {}),
    ("0-d against 1-d", xp.asarray(1.0), np.array([1.0]), {}),
    ("value", xp.asarray([1.0, 2.0]), np.array([1.0, 2.5]), {}),
    ("NaN against a number", xp.asarray([np.nan]), np.array([0.0]), {}),
    ("beyond close", xp.asarray([1.0]), np.array([1.001]), {"close": True}),
    ("signed zero, bitwise", np.array([-0.0]), np.array([0.0]), {"bitwise": True}),
    ("bool byte 2, bitwise", np.frombuffer(bytes([2]), dtype=np.bool_), np.array([True]), {"bitwise": True}),
    ("Array dtype", xp.asarray([1.0], dtype=xp.float32), xp.asarray([1.0]), {}),
    ("numpy against an Array", np.array([1.0]), xp.asarray([1.0]), {}),
    ("tuple against a list", (xp.asarray(1.0),), [xp.asarray(1.0)], {}),
    ("length", (xp.asarray(1.0),), (xp.asarray(1.0), xp.asarray(2.0)), {}),
    ("an item", (xp.asarray(1.0), xp.asarray(2.0)), (xp.asarray(1.0), xp.asarray(3.0)), {}),
    ("int against float", 1, 1.0, {}),
    ("bool against int", True, 1, {}),
    ("a dtype", xp.float32, xp.float64, {}),
]


@pytest.mark.parametrize(("label", "actual", "expected", "options"), DIFFERENCES, ids=[d[0] for d in DIFFERENCES])
def test_same_refuses_each_difference(label: str, actual: Any, expected: Any, options: dict[str, Any]) -> None:
    with pytest.raises(AssertionError):
        same(actual, expected, **options)


def test_same_accepts_what_is_the_same() -> None:
    same(xp.asarray([1.0, np.nan]), np.array([1.0, np.nan]))  # NaNs equal
    same(xp.asarray([-0.0]), np.array([0.0]))  # equal values: only bitwise tells signed zeros apart
    same(xp.asarray([1.0]), np.array([1.0 + 1e-7]), close=True)
    same(np.sum(np.arange(3.0)), np.float64(3.0))  # numpy scalars, through np.asarray
    same(xp.asarray([2, 3]), xp.asarray([2, 3]))
    same((xp.asarray(1.0), 2, xp.float32), (xp.asarray(1.0), 2, xp.float32))
