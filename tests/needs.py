"""The optional libraries a test needs: skipped, with the reason, where absent, unless the run requires them.

The suite runs in environments with and without torch (make test: Python 3.11 with torch 2.13;
make test-latest: the newest Python, where PyPI has no CPU torch) and a user may run it with only
some libraries. A test that needs a library skips where it is not installed, saying which, and never
silently where the run must have it: ``DLARRAY_TEST_REQUIRES`` (the Makefile sets it per leg) names the
libraries a run requires; tests/conftest.py stops the run at once if one of them is missing, and
:func:`library` imports a required one without a skip.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from types import ModuleType
from typing import Any

import pytest

REQUIRED: frozenset[str] = frozenset(os.environ.get("DLARRAY_TEST_REQUIRES", "").split())


def available(name: str) -> bool:
    """Whether the library ``name`` is installed (found, not imported)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def missing_required() -> list[str]:
    """The libraries this run requires that are not installed."""
    return sorted(name for name in REQUIRED if not available(name))


def library(name: str) -> ModuleType:
    """Import ``name`` for a test, or skip the test (or module) where it is not installed.

    Where the run requires ``name`` it is imported plainly, so its absence is an error, not a skip.
    """
    if name in REQUIRED:
        return importlib.import_module(name)
    return pytest.importorskip(name, reason=f"needs {name}, which is not installed")


def optional(name: str) -> Any:
    """The module ``name``, or None where it is not installed (and not required): for a test module
    that uses it in some tests only, which :func:`skip_without` marks."""
    if name in REQUIRED or available(name):
        return importlib.import_module(name)
    return None


def absent(*names: str) -> list[str]:
    """Those of ``names`` that are not installed and that this run does not require."""
    return [name for name in names if name not in REQUIRED and not available(name)]


def skip_without(*names: str) -> pytest.MarkDecorator:
    """Mark a test that needs all of ``names``: skipped where one is absent (never where required)."""
    missing = absent(*names)
    return pytest.mark.skipif(bool(missing), reason=f"needs {', '.join(missing)}, not installed")


def version(module: Any) -> tuple[int, int]:
    """``(major, minor)`` of an imported library, from its ``__version__``."""
    major, minor = module.__version__.split(".")[:2]
    return int(major), int(minor)
