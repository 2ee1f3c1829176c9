"""The namespace on a real GPU gives what it gives on the CPU (issue 17, item 1).

The same cases as tests/test_cuda_namespace.py (which runs them on the CPU against a cupy made of
numpy), here with real cupy: special cases bit for bit (signed zeros, NaN positions), linalg, the
rest of the namespace, in-place operators, and the -0.0 that cupy's fill would turn into +0.0.
Skipped without a GPU (conftest.py).
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import test_cuda_namespace as cases  # noqa: E402 - the CPU test module's tables, not its fixture

import dlarray as xp  # noqa: E402

CUDA = "cuda:0"


def on_cuda(values: Any, dtype: Any = None) -> xp.Array:
    x = xp.asarray(np.asarray(values, dtype=dtype), device=CUDA)
    assert str(x.device) == CUDA
    return x


def close(cuda_result: Any, cpu_result: Any) -> None:
    if isinstance(cpu_result, tuple):
        for ours, theirs in zip(cuda_result, cpu_result, strict=True):
            close(ours, theirs)
        return
    got, want = cases.host(cuda_result), np.asarray(cpu_result)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("name", cases.UNARY)
def test_unary_special_cases(name: str) -> None:
    values = np.array(cases.SPECIAL)
    function = getattr(xp, name)
    with np.errstate(all="ignore"):
        cases.assert_same_bits(function(on_cuda(values)), function(xp.asarray(values)))


@pytest.mark.parametrize("name", cases.BINARY)
def test_binary_special_cases(name: str) -> None:
    pairs = np.array(list(itertools.product(cases.SPECIAL, repeat=2)))
    function = getattr(xp, name)
    with np.errstate(all="ignore"):
        expected = function(xp.asarray(pairs[:, 0]), xp.asarray(pairs[:, 1]))
        cases.assert_same_bits(function(on_cuda(pairs[:, 0]), on_cuda(pairs[:, 1])), expected)
        cases.assert_same_bits(function(on_cuda(pairs[:, 0]), -0.0), function(xp.asarray(pairs[:, 0]), -0.0))


@pytest.mark.parametrize("name", cases.COMPLEX_UNARY)
def test_complex_special_cases(name: str) -> None:
    parts = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -2.0]
    values = np.array([complex(a, b) for a in parts for b in parts])
    special = ~np.isfinite(values) | (values == 0) | (values == -1)
    function = getattr(xp, name)
    with np.errstate(all="ignore"):
        cases.assert_same_bits(function(on_cuda(values[special])), function(xp.asarray(values[special])))
        close(function(on_cuda(values[~special])), np.asarray(function(xp.asarray(values[~special]))))


def test_negative_zero_survives_creation_and_assignment() -> None:
    for made in (xp.asarray(-0.0, device=CUDA), xp.asarray(-0.0, dtype=xp.float32, device=CUDA),
                 xp.full((), -0.0, device=CUDA), xp.full((3,), -0.0, device=CUDA)[0]):
        assert bool(xp.signbit(made)) and math.copysign(1, float(made)) == -1
    x = on_cuda([1.0, 2.0, 3.0])
    x[1] = -0.0
    x[2:] = -0.0
    assert np.signbit(np.asarray(x.to_device("cpu"))).tolist() == [False, True, True]


@pytest.mark.parametrize("operator", ["+=", "-=", "*=", "/=", "//=", "%=", "**=", "@="])
def test_in_place_operators(operator: str) -> None:
    values = np.array([[1.5, -0.0], [math.inf, -2.0]])
    other = np.array([[2.0, -3.0], [0.5, math.inf]])
    results = []
    for place in (lambda v: xp.asarray(v), on_cuda):
        namespace = {"x": place(values.copy()), "y": place(other)}
        target = namespace["x"]
        with np.errstate(all="ignore"):
            exec(f"x {operator} y", namespace)
        assert namespace["x"] is target
        results.append(namespace["x"])
    cases.assert_same_bits(results[1], np.asarray(results[0]))


@pytest.mark.parametrize(("function", "arguments"), [(f, a) for _, f, a in cases.LINALG_CASES],
                         ids=[name for name, _, _ in cases.LINALG_CASES])
def test_linalg(function: Callable[..., Any], arguments: list[np.ndarray]) -> None:
    expected = function(xp, *(xp.asarray(a) for a in arguments))
    close(function(xp, *(on_cuda(a) for a in arguments)), cases._numpy(expected))


@pytest.mark.parametrize("function", [f for _, f in cases.OTHER_CASES], ids=[name for name, _ in cases.OTHER_CASES])
def test_the_rest_of_the_namespace(function: Callable[..., Any]) -> None:
    values = np.array([[3.0, -1.0, 0.0, 2.0], [-0.0, 5.0, -2.0, 1.0], [4.0, 4.0, -3.0, 0.5]])
    expected = function(xp, xp.asarray(values))
    close(function(xp, on_cuda(values)), cases._numpy(expected))


def test_copy_on_an_external_stream_uses_cupys_current_api() -> None:
    """cupy 14 deprecates ExternalStream: a stream pointer goes through Stream.from_external."""
    import warnings

    stream = cupy.cuda.Stream(non_blocking=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        x = xp.asarray(np.arange(4.0)).to_device(CUDA, stream=stream.ptr)
        back = x.to_device("cpu", stream=stream.ptr)
    np.testing.assert_array_equal(np.asarray(back), np.arange(4.0))
