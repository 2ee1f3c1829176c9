"""Run the official Array API test suite (array-api-tests) against dlarray.

The suite is never part of this repository. Its location comes from ``ARRAY_API_TESTS_DIR`` (a
folder holding the suite at the pinned commit, with the spec repository at its pinned commit in
``array-api/``); without it, the pinned commits are cloned into ``conformance/.suite`` (needs a network).

Usage::

    ARRAY_API_TESTS_DIR=/path/to/array-api-tests python conformance/run.py [--max-examples 200]
        [--workers 2] [--device cuda:0] [-- extra pytest arguments]

No skip or xfail file is used: every test of the suite runs, with all extensions enabled. The summary
line and the failures are written to ``conformance/results/<device>-<examples>.txt``.

``--device cuda:0`` makes that device dlarray's default device (``DLARRAY_DEFAULT_DEVICE``), so the
suite's arrays live and compute on the GPU (through cupy); ``make conformance-cuda`` does that.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

SUITE_REPOSITORY = "https://github.com/data-apis/array-api-tests.git"
SUITE_COMMIT = "55fcc60179efa2680ddd6cd926ddf17b83530e2b"
SPEC_REPOSITORY = "https://github.com/data-apis/array-api.git"
SPEC_COMMIT = "5f847a3858875c682ae901aa22b0413bf24be9da"

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _clone_pinned(target: Path) -> Path:
    """Clone the suite and its spec submodule at the pinned commits (needs network access)."""
    if not (target / "array_api_tests").is_dir():
        subprocess.run(["git", "clone", "--quiet", SUITE_REPOSITORY, str(target)], check=True)
        subprocess.run(["git", "-C", str(target), "checkout", "--quiet", SUITE_COMMIT], check=True)
    spec = target / "array-api"
    if not (spec / "src").is_dir():
        subprocess.run(["git", "clone", "--quiet", SPEC_REPOSITORY, str(spec)], check=True)
        subprocess.run(["git", "-C", str(spec), "checkout", "--quiet", SPEC_COMMIT], check=True)
    return target


def suite_location() -> Path:
    """The suite folder: $ARRAY_API_TESTS_DIR, or a clone of the pinned commits."""
    configured = os.environ.get("ARRAY_API_TESTS_DIR")
    location = Path(configured) if configured else _clone_pinned(HERE / ".suite")
    if not (location / "array_api_tests").is_dir():
        raise SystemExit(f"{location} does not hold array-api-tests (no array_api_tests/ folder)")
    if not (location / "array-api" / "src").is_dir():
        raise SystemExit(f"{location}/array-api does not hold the spec repository at {SPEC_COMMIT[:7]}")
    return location


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-examples", type=int, default=200)
    parser.add_argument("--workers", default="2")
    parser.add_argument("--device", default="cpu", help="dlarray's default device, e.g. cuda:0")
    parser.add_argument("pytest_args", nargs="*")
    options = parser.parse_args(argv)
    suite = suite_location()
    env = dict(os.environ, ARRAY_API_TESTS_MODULE="dlarray", PYTHONPATH=str(ROOT),
               DLARRAY_DEFAULT_DEVICE=options.device)
    command = [
        sys.executable, "-m", "pytest", "array_api_tests", "-p", "no:cacheprovider",
        "-n", options.workers, f"--max-examples={options.max_examples}", "-q", "-rfE",
        "--disable-deadline", *options.pytest_args,
    ]
    started = time.time()
    result = subprocess.run(command, cwd=suite, env=env, capture_output=True, text=True)
    elapsed = time.time() - started
    output = result.stdout + result.stderr
    lines = output.strip().splitlines()
    summary = lines[-1] if lines else "(no output)"
    failures = [line for line in lines if line.startswith(("FAILED", "ERROR"))]
    HERE.joinpath("results").mkdir(exist_ok=True)
    device_label = options.device.replace(":", "")
    report = HERE / "results" / f"{device_label}-{options.max_examples}.txt"
    header = (
        f"array-api-tests {SUITE_COMMIT[:7]} (spec {SPEC_COMMIT[:7]}), dlarray on {options.device}, "
        f"--max-examples={options.max_examples}, -n {options.workers}, {elapsed:.0f} s, "
        f"python {sys.version.split()[0]}\n"
    )
    report.write_text(header + summary + "\n" + "\n".join(failures) + ("\n" if failures else ""))
    print(output[-20000:])
    print(f"\nsummary written to {report.relative_to(ROOT)}")
    return result.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
