"""Print the path of the newest CPython 3 on this machine that runs (for make test-latest).

Looked for, newest release first: ``python3.N`` on PATH for N from 30 down to the oldest dlarray
supports, and every pyenv version (``$(pyenv root)/versions/3.N.M``). A candidate counts only when it
starts and reports its own version (a pyenv shim for a version that is not selected exits with an
error); free-threaded and pre-release builds are passed over (the suite runs on the GIL build users
get by default). Exits 1, naming what it tried, when none is found.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

OLDEST_MINOR = 11  # pyproject.toml: requires-python = ">=3.11"
NEWEST_MINOR_TRIED = 30
VERSION_PROBE = (
    "import sys, sysconfig; v = sys.version_info; "
    "print(v.major, v.minor, v.micro, v.releaselevel, int(bool(sysconfig.get_config_var('Py_GIL_DISABLED'))))"
)


def candidates() -> list[str]:
    """Executables that might be a CPython 3, in no particular order."""
    found = []
    for minor in range(NEWEST_MINOR_TRIED, OLDEST_MINOR - 1, -1):
        path = shutil.which(f"python3.{minor}")
        if path:
            found.append(path)
    pyenv_root = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
    if shutil.which("pyenv"):
        try:
            pyenv_root = subprocess.run(
                ["pyenv", "root"], capture_output=True, text=True, timeout=30, check=True
            ).stdout.strip() or pyenv_root
        except (OSError, subprocess.SubprocessError):
            pass
    versions = Path(pyenv_root) / "versions"
    if versions.is_dir():
        for entry in versions.iterdir():
            if re.fullmatch(r"3\.\d+\.\d+", entry.name):
                found.append(str(entry / "bin" / "python3"))
    return found


def version_of(executable: str) -> tuple[int, int, int] | None:
    """(major, minor, micro) of a final, GIL-enabled CPython 3 build, else None."""
    try:
        done = subprocess.run(
            [executable, "-c", VERSION_PROBE], capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    fields = done.stdout.split()
    if len(fields) != 5 or fields[3] != "final" or fields[4] != "0":
        return None
    major, minor, micro = (int(field) for field in fields[:3])
    if major != 3 or minor < OLDEST_MINOR:
        return None
    return major, minor, micro


def main() -> int:
    tried = candidates()
    runnable = [(version, path) for path in tried if (version := version_of(path)) is not None]
    if not runnable:
        print(f"no runnable CPython >= 3.{OLDEST_MINOR} found (tried: {', '.join(tried) or 'nothing'})",
              file=sys.stderr)
        return 1
    print(max(runnable)[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
