"""The stress script runs and passes: ``--quick`` always, the full sizes with ``--run-slow``.

tests/stress/stress.py is what ``make stress`` runs; these tests keep it working (and its output
format stable) between releases. It runs in a child process, as a user would run it; its checks
(deleters exactly once, no growth of dlarray's allocations or objects, 8 threads) also run here,
in this process, at small sizes.
"""

from __future__ import annotations

import gc
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent / "stress" / "stress.py"

# the stress checks themselves, run in this process at small sizes
_spec = importlib.util.spec_from_file_location("dlarray_stress", SCRIPT)
stress = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = stress  # dataclasses look their module up there
_spec.loader.exec_module(stress)  # type: ignore[union-attr]
CHECKS = ("exactly-once", "rss", "tracemalloc", "threads", "exit", "interrupts")


def _run(*flags: str, timeout: int) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *flags], capture_output=True, text=True,
                          timeout=timeout, check=False)


def _assert_passed(result: subprocess.CompletedProcess) -> None:
    report = result.stdout + result.stderr[-4000:]
    assert result.returncode == 0, report
    lines = result.stdout.splitlines()
    assert lines[-1].startswith("SUMMARY: PASS"), report
    for check in CHECKS:
        assert any(line.split()[:2] in (["PASS", check], ["SKIP", check]) for line in lines), report
    assert "Exception ignored" not in result.stderr, report


def test_stress_quick() -> None:
    _assert_passed(_run("--quick", "--seed", "3", timeout=300))


def test_stress_detects_faults() -> None:
    """With leaks injected on purpose, the checks fail and the exit status says so."""
    result = _run("--quick", "--inject-fault", "--seconds", "0.2", timeout=300)
    assert result.returncode == 1, result.stdout + result.stderr[-4000:]
    lines = result.stdout.splitlines()
    assert lines[-1].startswith("SUMMARY: FAIL"), result.stdout
    failed = {line.split()[1] for line in lines if line.startswith("FAIL ")}
    assert {"exactly-once", "tracemalloc"} <= failed, result.stdout


@pytest.mark.slow
def test_stress_full() -> None:
    """The full sizes (a few minutes): 1e5 imports, 3e5 cycles, 8 threads for 10 s,
    240 exiting children."""
    _assert_passed(_run(timeout=3600))


# ----------------------------------------------------------------------------- in this process, small sizes


def test_exactly_once_quick() -> None:
    outcome = stress.exactly_once(4000, seed=1)
    assert outcome.ok, outcome.detail


def test_dlarray_allocations_do_not_grow_quick() -> None:
    outcome = stress.tracemalloc_growth(1500, warmup=300)
    assert outcome.ok, outcome.detail


def test_no_dlarray_objects_left_behind() -> None:
    for i in range(200):
        stress.cycle_once(i)
    gc.collect()
    before = stress.live_dlarray_objects()
    for i in range(2000):
        stress.cycle_once(i)
    gc.collect()
    assert stress.live_dlarray_objects() == before


def test_threads_quick() -> None:
    outcome = stress.threads(2.0, count=8, seed=2)
    assert outcome.ok, outcome.detail
