"""A pytest plugin for the conformance run: the pinned suite's known defects, counted as such.

The run uses array-api-tests at a pinned commit (``run.py``'s ``SUITE_COMMIT``). A test that the
suite's maintainers have since recognised as wrong, and fixed upstream, is not counted as a
failure of dlarray when it fails *exactly* the way the fix accepts: that one outcome is reported
as xfailed, with the upstream issue as its reason. Anything else the test raises stays a failure.

Known defects of 55fcc60:

* ``test_dlpack.py::test_dunder_dlpack`` (array-api-tests issue #456, fixed by pull request #457,
  merged after 55fcc60). It draws ``copy=False`` together with ``dl_device=(kDLCPU, 0)`` and fails
  on any exception. For an array on a GPU that export is a device-to-host copy, which the standard
  requires ``__dlpack__`` to refuse with ``BufferError`` ("If False, the function must never copy,
  and raise a BufferError in case a copy is deemed necessary"); the fix accepts a ``BufferError``
  when ``copy`` is False and ``dl_device`` is not the array's own device. The suite's arrays live
  on dlarray's default device, so this happens only in a run on ``cuda:0``.

``run.py`` loads this plugin (``-p suite_defects``) for every run and writes the reason beside each
xfailed test in the result files.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

DUNDER_DLPACK = "test_dlpack.py::test_dunder_dlpack"
DUNDER_DLPACK_REASON = (
    "suite defect array-api-tests#456 (fixed upstream by #457, after the pinned commit): "
    "__dlpack__(copy=False, dl_device=(kDLCPU, 0)) of a GPU array must raise BufferError"
)
# the suite's note on the exception (ph.add_note with its repro snippet) names the arguments drawn
_NO_COPY = "copy_kw = {'copy': False}"
_TO_THE_CPU = "dl_device_kw = {'dl_device': (1, 0)}"

KNOWN = {DUNDER_DLPACK: DUNDER_DLPACK_REASON}


def known_defect(nodeid: str, error: BaseException, default_device: str) -> str | None:
    """The reason to count this failure as a known suite defect, or None when it is a failure.

    Only a ``BufferError`` from ``test_dunder_dlpack``, for the drawn arguments ``copy=False`` and
    ``dl_device=(kDLCPU, 0)``, on a run whose arrays are not on the CPU.

    Examples
    --------
    >>> error = BufferError("a copy is needed")
    >>> error.add_note("x.__dlpack__ with copy_kw = {'copy': False}, max_version_kw = {} and "
    ...                "dl_device_kw = {'dl_device': (1, 0)}")
    >>> known_defect("array_api_tests/test_dlpack.py::test_dunder_dlpack", error, "cuda:0") is not None
    True
    >>> known_defect("array_api_tests/test_dlpack.py::test_dunder_dlpack", error, "cpu") is None
    True
    """
    if not nodeid.endswith(DUNDER_DLPACK) or type(error) is not BufferError:
        return None
    if default_device.strip().lower() in ("", "cpu"):
        return None
    notes = "\n".join(getattr(error, "__notes__", ()))
    if _NO_COPY in notes and _TO_THE_CPU in notes:
        return DUNDER_DLPACK_REASON
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Any:
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed or call.excinfo is None:
        return
    reason = known_defect(item.nodeid, call.excinfo.value, os.environ.get("DLARRAY_DEFAULT_DEVICE", ""))
    if reason is not None:
        report.outcome = "skipped"  # with wasxfail: pytest (and pytest-json-report) count it as xfailed
        report.wasxfail = reason
