"""cupy installed where it reaches no CUDA device: a clear refusal, as when cupy is missing.

cupy imports without a driver or a GPU (a laptop with dlarray's ``cuda12`` extra installed), and
then raises its own CUDARuntimeError from the first call into CUDA. dlarray counts the devices
cupy reaches (once per cupy module) before it hands cupy any work, so slicing, computing on or
copying a CUDA array there is a TypeError naming the device and what cupy found, the same kind
of error as without cupy; arrays are still held and their metadata read. No GPU: cupy is
tests/numpy_cupy.py with the CUDA calls of a machine without a driver, which raise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy_cupy
import pytest

import dlarray
from dlarray import _backend, _cuda

MADE_UP_ADDRESS = 0x7F00_0000_0000  # never dereferenced: every path below is refused first


class CUDARuntimeError(RuntimeError):
    """What cupy raises from a CUDA call without a driver."""


def _no_driver(*args: Any, **kwargs: Any) -> Any:
    raise CUDARuntimeError("cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version")


@pytest.fixture
def cupy(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(_cuda, "_driver_state", [None])  # no driver
    monkeypatch.setattr(_backend, "_cuda_devices_of", {})  # counted afresh for this test's cupy
    return numpy_cupy.install(monkeypatch)


@pytest.fixture
def cupy_without_a_driver(cupy: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    for name in ("Device", "UnownedMemory", "get_current_stream", "malloc_managed"):
        monkeypatch.setattr(cupy.cuda, name, _no_driver)
    monkeypatch.setattr(cupy.cuda.runtime, "getDeviceCount", _no_driver)
    return cupy


class _DeviceBuffer:
    """A GPU buffer as a producer describes it (``__cuda_array_interface__``), at a made-up address."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.__cuda_array_interface__ = {
            "version": 3, "shape": shape, "typestr": "<f4", "data": (MADE_UP_ADDRESS, False), "strides": None,
            "stream": None,
        }


COMPUTING_ON_A_CUDA_ARRAY: dict[str, Callable[[dlarray.Array], Any]] = {
    "add": lambda x: x + 1,
    "sum": dlarray.sum,
    "to the cpu": lambda x: x.to_device("cpu"),
    "assign": lambda x: x.__setitem__((0, 0), 1.0),
}


@pytest.mark.parametrize("work", list(COMPUTING_ON_A_CUDA_ARRAY), ids=str)
def test_computing_on_a_cuda_array_is_refused_naming_the_missing_device(cupy_without_a_driver: Any,
                                                                        work: str) -> None:
    x = dlarray.asarray(_DeviceBuffer((4, 6)))
    with pytest.raises(TypeError, match=r"needs CUDA device 0: cupy \S+ finds no CUDA device "
                                        r"\(CUDARuntimeError: cudaErrorInsufficientDriver"):
        COMPUTING_ON_A_CUDA_ARRAY[work](x)


def test_a_cuda_array_is_held_sliced_and_shown_as_without_cupy(cupy_without_a_driver: Any) -> None:
    """What needs no compute works as where cupy is missing: metadata, views made by dlarray, repr."""
    x = dlarray.asarray(_DeviceBuffer((4, 6)))
    assert (x.shape, str(x.device), x.dtype) == ((4, 6), "cuda:0", dlarray.float32)
    y = x[1:, ::2]
    assert y.shape == (3, 3) and str(y.device) == "cuda:0"
    assert y.__cuda_array_interface__["data"][0] == MADE_UP_ADDRESS + 6 * 4
    assert x.T.shape == (6, 4)
    assert repr(x) == "Array(<24 elements on cuda:0>, dtype=float32, device=cuda:0)"


@pytest.mark.parametrize("make", [lambda: dlarray.ones(3, device="cuda:0"),
                                  lambda: dlarray.asarray([1.0]).to_device("cuda:0"),
                                  lambda: dlarray.asarray(np.ones(2), device="cuda:0")],
                         ids=["ones", "to_device", "asarray"])
def test_arrays_are_not_made_on_a_missing_device(cupy_without_a_driver: Any, make: Callable[[], Any]) -> None:
    with pytest.raises(TypeError, match=r"needs CUDA device 0: cupy \S+ finds no CUDA device"):
        make()


def test_a_device_past_the_ones_cupy_finds_is_refused(cupy: Any) -> None:
    """cupy finds one GPU (cuda:0); cuda:1 is refused before cupy is asked to switch to it."""
    with pytest.raises(TypeError, match=r"needs CUDA device 1: cupy \S+ finds 1 CUDA device$"):
        dlarray.ones(3, device="cuda:1")
    with pytest.raises(TypeError, match=r"cuda:0 to cuda:1 needs CUDA device 1: cupy \S+ finds 1 CUDA device$"):
        dlarray.ones(3, device="cuda:0").to_device("cuda:1")
    assert float(dlarray.sum(dlarray.ones(3, device="cuda:0"))) == 3.0  # cuda:0 computes


def test_devices_are_counted_once_per_cupy_module(cupy: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    counted = []
    monkeypatch.setattr(cupy.cuda.runtime, "getDeviceCount", lambda: counted.append(1) or 1)
    x = dlarray.ones((2, 3), device="cuda:0")
    for _ in range(3):
        x[1:] + x[:1]
    assert counted == [1]
