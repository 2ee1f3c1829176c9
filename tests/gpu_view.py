"""What a test sees of the machine's GPU: hidden (the default) or the real one (``real_cuda`` tests).

The suite runs on machines with and without a GPU and must behave the same on both. Most tests
fake CUDA memory (made-up device pointers and streams from tests/producer.py) and check what
dlarray does *without* a GPU: metadata kept, nothing dereferenced, "needs cupy" refusals. On a
GPU machine those made-up pointers would reach the real ``libcuda`` (a made-up stream given to
``cuStreamWaitEvent`` segfaults) or cupy (which would compute on them). So every test runs with
the GPU hidden, unless it is marked ``real_cuda`` (all of tests/gpu is), in which case it sees
the machine as it is.

Hidden means, in the test process:

* ``dlarray._cuda.driver()`` answers None (no driver: nothing to order, as on a CPU machine);
* ``import cupy`` raises ImportError (so dlarray raises its "needs cupy" BackendUnavailable), and
  a cupy imported earlier is out of ``sys.modules`` for the test;
* ``__array_namespace_info__().devices()`` is recomputed without cupy;

and in every child process the test starts (they inherit the environment):

* ``CUDA_VISIBLE_DEVICES=""``: the CUDA driver sees no device (``cuInit`` fails with
  CUDA_ERROR_NO_DEVICE, so dlarray loads no driver; torch and cupy see no GPU);
* ``DLARRAY_TEST_GPU=hidden`` and ``tests/gpu_site`` first on ``PYTHONPATH``: its
  ``sitecustomize`` makes ``import cupy`` fail and dlarray find no driver (gpu_hooks.py), whatever
  the driver does with ``CUDA_VISIBLE_DEVICES``.

Tests that check driver calls install a recording stand-in themselves (tests/test_cuda_streams.py).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from gpu_site import gpu_hooks

import dlarray._info
from dlarray import _cuda

TESTS = Path(__file__).resolve().parent
SITE_PATH = TESTS / "gpu_site"  # its sitecustomize hides the GPU from child processes
#: Environment variable telling child processes (and the simulated GPU) what the test sees.
VIEW_VARIABLE = "DLARRAY_TEST_GPU"
HIDDEN, VISIBLE = "hidden", "visible"
MARKER = "real_cuda"


def hide_gpu(monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """Hide the driver and cupy from this test and from the processes it starts.

    Undone by ``monkeypatch``, and by the function returned (call it first).
    """
    monkeypatch.setattr(_cuda, "_driver_state", [None])
    monkeypatch.setattr(_cuda, "_contexts", {})
    monkeypatch.setattr(_cuda, "_idle_events", {})
    for name in [n for n in sys.modules if n == "cupy" or n.startswith("cupy.")]:
        monkeypatch.delitem(sys.modules, name)
    blocker = gpu_hooks.CupyBlocker()
    sys.meta_path.insert(0, blocker)  # the same list: finders others add meanwhile stay
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    torch = sys.modules.get("torch")
    if torch is not None:
        # CUDA_VISIBLE_DEVICES is read once, when CUDA starts: a process whose torch already asked
        # (tests/gpu/conftest.py does, at collection) keeps seeing the GPU; say what the children see
        monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
        monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)
    path = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(SITE_PATH), path])))
    monkeypatch.setenv(VIEW_VARIABLE, HIDDEN)
    return lambda: sys.meta_path.remove(blocker)


def show_gpu(monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """Let this test see the machine as it is (a GPU if there is one)."""
    monkeypatch.setenv(VIEW_VARIABLE, VISIBLE)
    return lambda: None


def forget_devices() -> None:
    """The device list is cached per process: call before and after a test changes its view."""
    dlarray._info._devices.cache_clear()


def sees_real_gpu(item: pytest.Item) -> bool:
    return item.get_closest_marker(MARKER) is not None
