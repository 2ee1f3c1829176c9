"""The suite behaves the same with a GPU and without: what tests see of the GPU, and no hang.

tests/gpu_view.py hides the CUDA driver and cupy from every test but the ``real_cuda`` ones (and
from their child processes); tests/fake_gpu simulates a GPU machine on the CPU and records every
made-up pointer or stream that reaches its driver or cupy. ``make test-gpu-sim`` runs the whole
suite on it; here a short run checks both halves: with the GPU hidden nothing reaches it, and
shown to every test (as the suite was before) the made-up stream that segfaulted on a real H100
reaches the simulated driver.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import gpu_view
import pytest

import dlarray
from dlarray import _cuda

TESTS = Path(__file__).resolve().parent
SIMULATOR = TESTS / "fake_gpu" / "simulated_gpu.py"


def test_a_test_sees_no_driver_and_no_cupy() -> None:
    assert _cuda.driver() is None
    with pytest.raises(ImportError, match="hidden"):
        importlib.import_module("cupy")
    assert [str(d) for d in dlarray.__array_namespace_info__().devices()] == ["cpu"]
    with pytest.raises(TypeError, match="needs cupy"):
        dlarray.zeros(2, device="cuda:0")


def test_child_processes_see_no_gpu_either() -> None:
    code = textwrap.dedent("""
        import os, dlarray
        from dlarray import _cuda
        try:
            import cupy
        except ImportError as error:
            print("no cupy:", error)
        print("driver:", _cuda.driver(), "loader from:", _cuda._load_driver.__module__)
        print("devices:", os.environ["CUDA_VISIBLE_DEVICES"] or "none")
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert "no cupy: cupy is hidden" in result.stdout
    assert "driver: None loader from: gpu_hooks" in result.stdout  # hidden, whatever libcuda would do
    assert "devices: none" in result.stdout  # torch, cupy and jax in children see no GPU either
    assert os.environ[gpu_view.VIEW_VARIABLE] == gpu_view.HIDDEN


@pytest.mark.real_cuda
def test_real_cuda_tests_see_the_machine() -> None:
    assert os.environ[gpu_view.VIEW_VARIABLE] == gpu_view.VISIBLE
    assert not any(isinstance(finder, gpu_view.gpu_hooks.CupyBlocker) for finder in sys.meta_path)
    assert os.environ.get("CUDA_VISIBLE_DEVICES") != ""


def _simulate(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SIMULATOR), *args, "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         str(TESTS / "test_cuda_streams.py"), "-k", "accepts_dlpack_stream_values or interface or views_keep"],
        capture_output=True, text=True, timeout=300, check=False,
    )


def test_on_a_simulated_gpu_no_made_up_pointer_reaches_the_gpu() -> None:
    result = _simulate()
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "simulated GPU: 0 violations in 0 tests" in result.stdout


def test_the_simulation_catches_what_crashed_a_real_gpu() -> None:
    """Shown the GPU, the stream test hands a made-up stream to cuStreamWaitEvent (what segfaulted
    in libcuda on a real H100)."""
    result = _simulate("--show-gpu-to-all")
    assert result.returncode == 1, result.stdout[-4000:]
    assert "test_cuda_export_accepts_dlpack_stream_values" in result.stdout
    assert "driver cuStreamWaitEvent: a made-up stream" in result.stdout


def test_a_test_blocked_in_c_with_the_gil_held_ends_the_run(tmp_path: Path) -> None:
    """The watchdog (tests/conftest.py) needs no GIL: it ends a test that SIGALRM could not."""
    (tmp_path / "conftest.py").write_text(textwrap.dedent(f"""
        import importlib.util, sys
        sys.path.insert(0, {str(TESTS)!r})
        spec = importlib.util.spec_from_file_location("suite_conftest", {str(TESTS / "conftest.py")!r})
        suite = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(suite)
        pytest_configure = suite.pytest_configure
        pytest_runtest_protocol = suite.pytest_runtest_protocol
    """))
    (tmp_path / "test_blocked.py").write_text(textwrap.dedent("""
        import ctypes

        def test_blocked_in_c():
            ctypes.PyDLL(None).sleep(60)  # a C call that keeps the GIL
    """))
    env = dict(os.environ, DLARRAY_TEST_HANG_LIMIT_S="2")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", str(tmp_path)],
        capture_output=True, text=True, timeout=100, check=False, env=env, cwd=tmp_path,
    )
    assert result.returncode != 0
    assert "Timeout (0:00:02)!" in result.stderr, result.stderr[-3000:]
    assert "test_blocked_in_c" in result.stderr
