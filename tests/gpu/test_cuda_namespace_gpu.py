"""The namespace on a real GPU gives what it gives on the CPU.

The same checks as tests/test_cuda_namespace.py, which runs them on the CPU against a cupy made of
numpy; here they run with real cupy: special cases exactly where the standard fixes them (signed
zeros, infinities, NaN positions; other values to rounding),
linalg, the rest of the namespace, in-place operators, and the -0.0 that cupy's fill would turn
into +0.0. Skipped without a GPU (conftest.py).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import test_cuda_namespace as cases

import dlarray as xp


@pytest.fixture(autouse=True)
def _gpu_rounding(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cases, "RTOL", 1e-7)  # cuSOLVER and thrust against LAPACK and libm
    monkeypatch.setattr(cases, "ATOL", 1e-9)
    # CUDA's libm, cuFFT and its reduction order round finite values differently from numpy's (an
    # H200 gave acos(0.5), var and fftn an ulp or two apart): exact where the standard fixes bits
    monkeypatch.setattr(cases, "SAME_ROUNDING", False)


def test_cuda_arrays_are_cupys() -> None:
    assert isinstance(cases.on_cuda([1.0])._native, cupy.ndarray)


@pytest.mark.parametrize("name", cases.UNARY)
def test_unary_special_cases(name: str) -> None:
    cases.test_unary_special_cases_match_the_cpu(name)


@pytest.mark.parametrize("name", cases.BINARY)
def test_binary_special_cases(name: str) -> None:
    cases.test_binary_special_cases_match_the_cpu(name)


@pytest.mark.parametrize("name", cases.COMPLEX_UNARY)
def test_complex_special_cases(name: str) -> None:
    cases.test_complex_special_cases_match_the_cpu(name)


def test_negative_zero_survives_creation_and_assignment() -> None:
    cases.test_assigning_a_negative_zero_keeps_its_sign()
    for made in (xp.asarray(-0.0, device=cases.CUDA), xp.asarray(-0.0, dtype=xp.float32, device=cases.CUDA),
                 xp.full((), -0.0, device=cases.CUDA), xp.full((3,), -0.0, device=cases.CUDA)[0]):
        assert bool(xp.signbit(made)) and str(float(made)) == "-0.0"


@pytest.mark.parametrize("call", [call for _, call in cases.FAILING_FACTORIZATIONS],
                         ids=[name for name, _ in cases.FAILING_FACTORIZATIONS])
def test_failing_factorizations_raise(call: Callable[[Any], Any]) -> None:
    cases.check_failing_factorization_raises(call)  # cupy's own default would return NaN or garbage


@pytest.mark.parametrize("symbol", list(cases.IN_PLACE))
def test_in_place_operators(symbol: str) -> None:
    cases.test_in_place_operators_give_what_the_cpu_gives(symbol)


@pytest.mark.parametrize(("function", "arguments"), [(f, a) for _, f, a in cases.LINALG_CASES],
                         ids=[name for name, _, _ in cases.LINALG_CASES])
def test_linalg(function: Callable[..., Any], arguments: list[np.ndarray]) -> None:
    cases.test_linalg_on_cuda_gives_what_the_cpu_gives(function, arguments)


def test_linalg_array_tolerances_and_diagonal_views() -> None:
    cases.test_pinv_and_matrix_rank_take_an_array_rtol()
    cases.test_diagonal_of_a_cuda_array_is_a_view()


@pytest.mark.parametrize("function", [f for _, f in cases.OTHER_CASES], ids=[name for name, _ in cases.OTHER_CASES])
def test_the_rest_of_the_namespace(function: Callable[..., Any]) -> None:
    cases.test_the_namespace_on_cuda_gives_what_the_cpu_gives(function)


def test_copy_on_an_external_stream_uses_cupys_current_api() -> None:
    """cupy 14 deprecates ExternalStream: a stream pointer goes through Stream.from_external."""
    stream = cupy.cuda.Stream(non_blocking=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        x = xp.asarray(np.arange(4.0)).to_device(cases.CUDA, stream=stream.ptr)
        back = x.to_device("cpu", stream=stream.ptr)
    np.testing.assert_array_equal(np.asarray(back), np.arange(4.0))


def test_the_stand_ins_description_is_this_cupys() -> None:
    """tests/numpy_cupy.py offers only what tests/cupy_api.json says cupy has: the file must
    describe this cupy (a cupy of another version is described anew by tests/cupy_api.py)."""
    import cupy_api

    described = cupy_api.load()
    if cupy.__version__ != described["cupy"]:
        pytest.skip(f"tests/cupy_api.json describes cupy {described['cupy']}, this is {cupy.__version__}")
    assert cupy_api.departures(described, cupy_api.describe(cupy)) == []
