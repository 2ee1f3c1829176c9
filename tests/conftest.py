"""Shared test configuration: hypothesis profiles, the --run-slow switch, what a test sees of the
GPU (tests/gpu_view.py) and a watchdog that ends a hung test run."""

from __future__ import annotations

import faulthandler
import gc
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# SciPy reads this once, at its first import (tests/array_api_consumers.py explains why it must be on).
# Set here, before any test module is collected: on a GPU machine tests/gpu is collected first and
# imports cupy, torch and jax with CUDA, any of which may import scipy before the tests of SciPy and
# scikit-learn could.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import gpu_view
import needs
import pytest
from hypothesis import HealthCheck, settings

# tests/assertions.py (the shared ``same``) gets pytest's assert messages, as a test module does
pytest.register_assert_rewrite("assertions")

# "ci" (what make test uses) draws the same examples on every run, so that a green commit stays
# green on a clean clone; "thorough" (make test-thorough) explores new random examples each run,
# which is how new failing inputs are found (then pinned with @example).
settings.register_profile(
    "ci", max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=25, deadline=None)
settings.register_profile(
    "thorough", max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", help="run the long stress tests")


def pytest_configure(config: pytest.Config) -> None:
    global _watchdog_stream
    # a leg that must run the tests of a library (DLARRAY_TEST_REQUIRES: make test's torch) stops here
    # where it is missing, instead of skipping those tests (tests/needs.py)
    if missing := needs.missing_required():
        raise pytest.UsageError(
            f"DLARRAY_TEST_REQUIRES names {', '.join(missing)}, not installed in {sys.prefix}: "
            "this run must not skip their tests"
        )
    # the terminal's stderr, kept now: while a test runs, pytest captures file descriptor 2
    _watchdog_stream = os.fdopen(os.dup(sys.__stderr__.fileno() if sys.__stderr__ else 2), "w")
    config.addinivalue_line(
        "markers", f"{gpu_view.MARKER}: sees the machine's real CUDA driver and cupy (every other test runs "
        "with them hidden: tests/gpu_view.py); all of tests/gpu is marked",
    )


def pytest_collection_finish(session: pytest.Session) -> None:
    # What the test modules imported (torch, jax, SciPy, scikit-learn: millions of objects) is set
    # aside from the collector's scans: many tests call gc.collect() to see deleters run, and each
    # full collection would walk all of it (~80 ms with torch imported, instead of a few ms).
    # Objects the tests make are collected as before.
    gc.collect()
    gc.freeze()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    gpu_tests = Path(__file__).resolve().parent / "gpu"
    for item in items:
        if gpu_tests in Path(item.path).resolve().parents:
            item.add_marker(gpu_view.MARKER)
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="long stress test: make stress runs it")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _gpu_view(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Hide the GPU from every test but the ``real_cuda`` ones, so that made-up CUDA pointers and
    streams never reach a real driver or cupy, and a test behaves the same with a GPU and without."""
    gpu_view.forget_devices()
    # DLARRAY_TEST_SHOW_GPU=1: no test hidden (tests/fake_gpu/simulated_gpu.py --show-gpu-to-all)
    show = gpu_view.sees_real_gpu(request.node) or os.environ.get("DLARRAY_TEST_SHOW_GPU") == "1"
    unhide = gpu_view.show_gpu(monkeypatch) if show else gpu_view.hide_gpu(monkeypatch)
    yield
    unhide()
    monkeypatch.undo()
    gpu_view.forget_devices()


# A test that hangs ends the run instead of blocking it: after HANG_LIMIT_S seconds in one test
# (setup, call and teardown), faulthandler prints every thread's stack and exits the process
# (pytest-xdist reports the test as crashed and starts a new worker). faulthandler's watchdog is
# a C thread that needs no GIL, so it fires even when the test is blocked in C code holding the
# GIL (a CUDA call, a deadlocked lock in a deleter), where pytest-timeout's SIGALRM handler never
# runs and its "thread" method cannot take the GIL to print the stacks (so pytest-timeout is not
# a test dependency). The slowest test took 106 s on a 2-core machine at load 21; the limit is
# well above that, and DLARRAY_TEST_HANG_LIMIT_S changes it (0: no watchdog).
HANG_LIMIT_S = float(os.environ.get("DLARRAY_TEST_HANG_LIMIT_S", "600"))
_watchdog_stream: Any = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    pytest_faulthandler_timeout = float(item.config.getini("faulthandler_timeout") or 0)  # one timer only
    armed = _watchdog_stream is not None and HANG_LIMIT_S > 0 and not pytest_faulthandler_timeout
    if armed:
        faulthandler.dump_traceback_later(HANG_LIMIT_S, exit=True, file=_watchdog_stream)
    try:
        yield
    finally:
        if armed:
            faulthandler.cancel_dump_traceback_later()
