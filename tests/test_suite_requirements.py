"""The suite runs with and without optional libraries, and never skips what a run must run.

``DLARRAY_TEST_REQUIRES`` (set per CI leg by the Makefile: torch in ``make test``) names libraries a
run must have: a missing one stops the run before any test (tests/conftest.py), and their tests
import them instead of skipping (tests/needs.py). Elsewhere a test that needs an absent library is
skipped with a reason that names it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import needs
import pytest

TESTS = Path(__file__).resolve().parent


def _pytest(env_requires: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, DLARRAY_TEST_REQUIRES=env_requires)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
                          cwd=TESTS.parent, env=env, capture_output=True, text=True, timeout=300, check=False)


def test_a_required_library_that_is_missing_stops_the_run() -> None:
    done = _pytest("numpy no_such_library_for_dlarray_tests", "tests/test_docs.py::test_block_extraction")
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert "no_such_library_for_dlarray_tests" in done.stderr and "must not skip" in done.stderr
    assert "numpy," not in done.stderr  # only what is missing is named


def test_a_present_requirement_lets_the_run_go_on() -> None:
    done = _pytest("numpy pytest", "tests/test_docs.py::test_block_extraction")
    assert done.returncode == 0, done.stdout + done.stderr


def test_an_absent_library_skips_naming_it_unless_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(needs, "REQUIRED", frozenset())
    with pytest.raises(pytest.skip.Exception, match="needs no_such_library_for_dlarray_tests"):
        needs.library("no_such_library_for_dlarray_tests")
    assert needs.optional("no_such_library_for_dlarray_tests") is None
    mark = needs.skip_without("numpy", "no_such_library_for_dlarray_tests")
    assert mark.args == (True,) and mark.kwargs["reason"] == "needs no_such_library_for_dlarray_tests, not installed"
    assert needs.skip_without("numpy").args == (False,)
    monkeypatch.setattr(needs, "REQUIRED", frozenset({"no_such_library_for_dlarray_tests"}))
    with pytest.raises(ModuleNotFoundError):  # required: an error, never a skip
        needs.library("no_such_library_for_dlarray_tests")
    assert needs.skip_without("no_such_library_for_dlarray_tests").args == (False,)

