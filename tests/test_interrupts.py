"""Ctrl-C inside an import: the import completes or leaves nothing behind, wherever it lands.

Each scenario of tests/interrupt_scenarios.py runs in a child process (a double free could crash
it): one KeyboardInterrupt at each bytecode of dlarray's frames in turn, for every way a buffer
arrives (capsules, producers with ``__dlpack__`` and the C exchange API, torch, the buffer
protocol, ``__array_interface__``). After each: a deleter ran exactly once or not at all (the
capsule still its producer's, and importable), no claim or buffer export outlives the call, and
no interrupt is lost in a finalizer. ``tests/stress/stress.py`` adds the same with real signals
(a timer), which land where the interpreter checks for them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import interrupt_scenarios
import needs
import pytest

SCRIPT = Path(interrupt_scenarios.__file__)


@pytest.mark.parametrize("scenario", sorted(interrupt_scenarios.SCENARIOS))
def test_an_interrupt_anywhere_in_an_import_leaves_ownership_whole(scenario: str) -> None:
    if scenario.startswith("torch"):
        needs.library("torch")
    result = subprocess.run([sys.executable, str(SCRIPT), scenario], capture_output=True, text=True,
                            timeout=600, check=False)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    report = json.loads(result.stdout.splitlines()[-1])
    assert report["problems"] == [], report["problems"]
    # every point of the import was tried: none is so short that the test would say nothing
    assert report["interrupted"] >= 10, report
