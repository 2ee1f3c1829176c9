"""Run the official Array API test suite (array-api-tests) against dlarray.

The suite is never part of this repository. Its location comes from ``ARRAY_API_TESTS_DIR`` (a
folder holding the suite at the pinned commit, with the spec repository at its pinned commit in
``array-api/``); without it, the pinned commits are cloned into ``conformance/.suite`` (needs a network).

Usage::

    ARRAY_API_TESTS_DIR=/path/to/array-api-tests python conformance/run.py [--max-examples 200]
        [--workers 2] [--device cuda:0] [--record] [-- extra pytest arguments]

No skip or xfail file is used: every test of the suite runs, with all extensions enabled. The
counts come from pytest-json-report's report. The summary line and the failures are written to
``conformance/.runs/<device>-<examples>.txt`` (ignored by git); ``--record`` writes them to the
committed ``conformance/results/<device>-<examples>.txt`` instead (what the docs show). A run that
does not finish (no report) writes nothing.

``--device cuda:0`` makes that device dlarray's default device (``DLARRAY_DEFAULT_DEVICE``), so the
suite's arrays live and compute on the GPU (through cupy); ``make conformance-cuda`` does that.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SUITE_REPOSITORY = "https://github.com/data-apis/array-api-tests.git"
SUITE_COMMIT = "55fcc60179efa2680ddd6cd926ddf17b83530e2b"
SPEC_REPOSITORY = "https://github.com/data-apis/array-api.git"
SPEC_COMMIT = "5f847a3858875c682ae901aa22b0413bf24be9da"

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RECORDED = HERE / "results"  # committed: what the docs show
SCRATCH = HERE / ".runs"  # ignored by git: every other run

# what the suite imports (its requirements.txt) and what this runner uses; the `conformance` extra
REQUIRED_MODULES = {"pytest": "pytest", "hypothesis": "hypothesis", "ndindex": "ndindex",
                    "pytest_jsonreport": "pytest-json-report", "xdist": "pytest-xdist"}


def _git(*args: str) -> None:
    subprocess.run(["git", *args], check=True, capture_output=True, text=True)


def _clone_pinned(target: Path) -> Path:
    """Clone the suite and its spec submodule at the pinned commits (needs network access)."""
    try:
        if not (target / "array_api_tests").is_dir():
            _git("clone", "--quiet", SUITE_REPOSITORY, str(target))
            _git("-C", str(target), "checkout", "--quiet", SUITE_COMMIT)
        spec = target / "array-api"
        if not (spec / "src").is_dir():
            _git("clone", "--quiet", SPEC_REPOSITORY, str(spec))
            _git("-C", str(spec), "checkout", "--quiet", SPEC_COMMIT)
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:
        detail = exc.stderr.strip().splitlines()[-1] if getattr(exc, "stderr", None) else str(exc)
        raise SystemExit(
            f"could not clone the Array API test suite ({detail}); without a network, set ARRAY_API_TESTS_DIR "
            f"to a copy of {SUITE_REPOSITORY} at {SUITE_COMMIT[:7]} with {SPEC_REPOSITORY} at "
            f"{SPEC_COMMIT[:7]} in its array-api/ folder"
        ) from None
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


def missing_requirements(workers: str) -> list[str]:
    """The distributions the run needs that this Python lacks (pytest-xdist only with workers)."""
    needed = dict(REQUIRED_MODULES)
    if workers in ("0", ""):
        del needed["xdist"]
    return [package for module, package in needed.items() if importlib.util.find_spec(module) is None]


def summary_of(report: dict[str, Any]) -> tuple[str, list[str]]:
    """The summary line (counts from pytest-json-report's ``summary``) and the failed/erroring tests."""
    counts = report.get("summary", {})
    line = (f"{counts.get('passed', 0)} passed, {counts.get('skipped', 0)} skipped, "
            f"{counts.get('failed', 0)} failed, {counts.get('error', 0)} errors")
    for extra in ("xfailed", "xpassed"):
        if counts.get(extra):
            line += f", {counts[extra]} {extra}"
    failures = [f"{test['outcome'].upper()} {test['nodeid']}" for test in report.get("tests", [])
                if test.get("outcome") in ("failed", "error")]
    return line, failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-examples", type=int, default=200)
    parser.add_argument("--workers", default="2", help="pytest-xdist workers (0: none)")
    parser.add_argument("--device", default="cpu", help="dlarray's default device, e.g. cuda:0")
    parser.add_argument("--record", action="store_true",
                        help="write the result to the committed conformance/results/ (else conformance/.runs/)")
    parser.add_argument("pytest_args", nargs="*")
    options = parser.parse_args(argv)
    missing = missing_requirements(options.workers)
    if missing:
        raise SystemExit(f"the conformance run needs {', '.join(missing)}: run `make conformance`, or "
                         f"pip install 'dlarray[conformance]' (or -e '.[conformance]' from this checkout)")
    suite = suite_location()
    env = dict(
        os.environ, ARRAY_API_TESTS_MODULE="dlarray", DLARRAY_DEFAULT_DEVICE=options.device,
        # this checkout's dlarray first, the user's own path after it
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    )
    with tempfile.TemporaryDirectory() as scratch:
        report_file = Path(scratch) / "report.json"
        command = [
            sys.executable, "-m", "pytest", "array_api_tests", "-p", "no:cacheprovider",
            *(["-n", options.workers] if options.workers not in ("0", "") else []),
            "--json-report", "--json-report-omit", "collectors", "log", "traceback", "streams", "keywords",
            "warnings", f"--json-report-file={report_file}",
            f"--max-examples={options.max_examples}", "-q", "-rfE", "--disable-deadline",
            *options.pytest_args,
        ]
        started = time.time()
        result = subprocess.run(command, cwd=suite, env=env, capture_output=True, text=True, check=False)
        elapsed = time.time() - started
        output = result.stdout + result.stderr
        print(output[-20000:])
        if not report_file.is_file():
            print(f"\nthe suite did not finish (pytest exit status {result.returncode}, no report): nothing written",
                  file=sys.stderr)
            return result.returncode or 1
        summary, failures = summary_of(json.loads(report_file.read_text()))
    folder = RECORDED if options.record else SCRATCH
    folder.mkdir(exist_ok=True)
    report = folder / f"{options.device.replace(':', '')}-{options.max_examples}.txt"
    header = (
        f"array-api-tests {SUITE_COMMIT[:7]} (spec {SPEC_COMMIT[:7]}), dlarray on {options.device}, "
        f"--max-examples={options.max_examples}, -n {options.workers}, {elapsed:.0f} s, "
        f"python {sys.version.split()[0]}"
        + (f", pytest arguments: {' '.join(options.pytest_args)}" if options.pytest_args else "")
        + "\n"
    )
    report.write_text(header + summary + "\n" + "\n".join(failures) + ("\n" if failures else ""))
    print(f"\n{summary}\nwritten to {os.path.relpath(report, ROOT)}"
          + ("" if options.record else " (--record writes conformance/results/, which the docs show)"))
    return result.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
