"""The stress script runs and passes: ``--quick`` always, the full sizes with ``--run-slow``.

tests/stress/stress.py is what ``make stress`` runs; these tests keep it working (and its output
format stable) between releases. It runs in a child process, as a user would run it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent / "stress" / "stress.py"
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
    """The full sizes of issue 5 (a few minutes): 1e5 imports, 3e5 cycles, 8 threads for 10 s,
    240 exiting children."""
    _assert_passed(_run(timeout=3600))
