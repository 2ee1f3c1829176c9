"""`pip install .` gives a working dlarray with numpy alone: the wheel is built from the sources,
installed with its dependencies into a bare virtual environment (no torch, jax, test tools), and
there the probe runs and an array goes numpy -> dlarray -> numpy without a copy.

Building needs setuptools (pip fetches it for the isolated build, as `pip install .` does) and
numpy's wheel (pip's cache, or the package index: CI has it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

ROUND_TRIP = """
import numpy as np, dlarray as xp
a = np.arange(6.0).reshape(2, 3)
x = xp.from_dlpack(a)
assert x.data_ptr == a.ctypes.data, "import copied"
b = np.from_dlpack(x[1:])
assert b.ctypes.data == a.ctypes.data + 24, "export copied"
print(float(xp.sum(x)), xp.__file__)
"""


def _pip(*args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
                          capture_output=True, text=True, timeout=timeout, env=_clean_env(), check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def _clean_env() -> dict[str, str]:
    # the test run puts this checkout on PYTHONPATH: the installed copy must be the one found
    return {name: value for name, value in os.environ.items() if name not in ("PYTHONPATH", "PYTHONHOME")}


def _build_requirements_reachable(folder: Path) -> str | None:
    """None where pip can fetch what the build and the bare install need (setuptools, numpy's
    wheel); else why not. An offline machine (the lent GPU machines) cannot; CI can, and a CI without
    the index fails long before this test, in make test's own installs."""
    import numpy

    done = subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", "download", "--no-deps",
                           "--only-binary=:all:", "--timeout", "15", "--retries", "0", "-d", str(folder),
                           "setuptools>=77", f"numpy=={numpy.__version__}"],
                          capture_output=True, text=True, timeout=300, env=_clean_env(), check=False)
    return None if done.returncode == 0 else (done.stderr.strip().splitlines() or ["pip download failed"])[-1]


def test_wheel_installs_and_works_with_numpy_alone(tmp_path: Path) -> None:
    unreachable = _build_requirements_reachable(tmp_path / "downloads")
    if unreachable:
        pytest.skip(f"needs setuptools and numpy's wheel from the package index (offline?): {unreachable}")
    source = tmp_path / "source"  # a copy: building writes build/ and *.egg-info next to the sources
    source.mkdir()
    shutil.copytree(ROOT / "dlarray", source / "dlarray", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    _pip("wheel", "--no-deps", "--wheel-dir", str(tmp_path / "dist"), str(source))
    (wheel,) = (tmp_path / "dist").glob("dlarray-*.whl")

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    _pip("--python", python, "install", str(wheel))
    installed = json.loads(_pip("--python", python, "list", "--format=json").stdout)
    assert sorted(package["name"].lower() for package in installed) == ["dlarray", "numpy"]

    run = subprocess.run([python, "-c", ROUND_TRIP], capture_output=True, text=True, timeout=120,
                         cwd=tmp_path, env=_clean_env(), check=False)
    assert run.returncode == 0, run.stderr
    total, location = run.stdout.split()
    assert float(total) == 15.0 and location.startswith(str(venv))

    probe = subprocess.run([python, "-m", "dlarray", "--json"], capture_output=True, text=True, timeout=120,
                           cwd=tmp_path, env=_clean_env(), check=False)
    assert probe.returncode == 0, probe.stderr
    rows = {row[0]: row[1:] for row in json.loads(probe.stdout)["rows"]}
    assert set(rows) == {"numpy", "numpy[::-1]", "numpy (unaligned)", "bytes", "bytearray", "array.array",
                         "memoryview"}  # no torch/jax here
    assert rows["numpy"] == ["zero-copy", "zero-copy", "zero-copy"]  # -> dlarray, -> numpy, -> dlarray


def test_the_second_leg_finds_a_runnable_newest_python() -> None:
    """make test-latest takes the Python .ci/newest_python.py prints: one that runs, a final build
    of at least the oldest version the package supports."""
    done = subprocess.run([sys.executable, str(ROOT / ".ci" / "newest_python.py")], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    found = done.stdout.strip()
    probe = subprocess.run([found, "-c", "import sys; print(*sys.version_info[:3], sys.version_info.releaselevel)"],
                           capture_output=True, text=True, timeout=60, check=True)
    major, minor, _micro, level = probe.stdout.split()
    assert level == "final" and (int(major), int(minor)) >= (3, 11)


def test_the_classifiers_name_the_pythons_the_legs_run() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    versions = {c.rsplit(" ", 1)[-1] for c in project["classifiers"] if c.startswith("Programming Language :: Python :: 3.")}
    oldest = project["requires-python"].removeprefix(">=")
    assert oldest in versions  # make test's Python
    assert all(tuple(map(int, v.split("."))) >= tuple(map(int, oldest.split("."))) for v in versions)
