"""Run the official Array API test suite (array-api-tests) against dlarray.

The suite is never part of this repository. Its location comes from ``ARRAY_API_TESTS_DIR`` (a
folder holding the suite at the pinned commit, with the spec repository at its pinned commit in
``array-api/``); without it, the pinned commits are cloned into ``conformance/.suite`` (needs a network).

Usage::

    ARRAY_API_TESTS_DIR=/path/to/array-api-tests python conformance/run.py [--max-examples 200]
        [--workers 2] [--device cuda:0] [--record] [-- extra pytest arguments]

No skip or xfail file is used: every test of the suite runs, with all extensions enabled. The
counts come from pytest-json-report's report. The summary line and the failures are written to
``conformance/.runs/<device>-<examples>.txt`` (ignored by git), and beside it
``<device>-<examples>.json``: the outcome of every test, with the date, the commit of this checkout,
the device and the versions the run used. ``--record`` writes both to the committed
``conformance/results/`` instead (what the docs show); a run on a CUDA device always does, and its
header names the GPU, the NVIDIA driver, cupy and python. A run that does not finish (no report)
writes nothing. A ``--json-report-file=`` among the pytest arguments is honoured: the counts are
read from that file, which is kept.

``--device cuda:0`` makes that device dlarray's default device (``DLARRAY_DEFAULT_DEVICE``), so the
suite's arrays live and compute on the GPU (through cupy); ``make conformance-cuda`` does that.

``--simulated-cuda`` runs the suite on ``cuda:0`` without a GPU: ``import cupy`` finds
tests/numpy_cupy.py (numpy playing cupy over host memory, refusing numpy conversions and reproducing
cupy's known departures from the standard) and no CUDA driver is loaded, so every spec function
takes its CUDA path. It finds what the CUDA path gets wrong before a GPU is at hand; it is never a
GPU result: it is written to ``conformance/.runs/cuda0-simulated-<examples>.txt`` only
(``make conformance-cuda-sim``).

Failures of the pinned suite that its maintainers have since fixed upstream are counted as xfailed,
with the upstream issue as the reason, when they fail exactly the way the fix accepts (the plugin
``suite_defects.py``; today one test, on GPU runs only). Any other failure is a failure.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import importlib.util
import json
import os
import platform
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
sys.path.insert(0, str(ROOT / "benchmarks"))
try:  # one way to name the commit measured, shared by the benchmark, stress and conformance results
    from _harness import source_commit
finally:
    sys.path.remove(str(ROOT / "benchmarks"))
sys.path.insert(0, str(HERE))
try:
    from suite_defects import KNOWN as KNOWN_SUITE_DEFECTS
finally:
    sys.path.remove(str(HERE))
SIMULATED_CUDA_SITE = HERE / "simulated_cuda"  # its sitecustomize installs tests/numpy_cupy.py as cupy
SIMULATED_ACCELERATOR = "simulated (tests/numpy_cupy.py: numpy playing cupy, no CUDA driver)"
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
    """The summary line (counts from pytest-json-report's ``summary``) and the failed/erroring
    tests, then the xfailed ones (known suite defects) with their reason."""
    counts = report.get("summary", {})
    line = (f"{counts.get('passed', 0)} passed, {counts.get('skipped', 0)} skipped, "
            f"{counts.get('failed', 0)} failed, {counts.get('error', 0)} errors")
    for extra in ("xfailed", "xpassed"):
        if counts.get(extra):
            line += f", {counts[extra]} {extra}"
    failures = [f"{test['outcome'].upper()} {test['nodeid']}" for test in report.get("tests", [])
                if test.get("outcome") in ("failed", "error")]
    failures += [f"XFAIL {test['nodeid']}: {_known_defect_reason(test['nodeid'])}" for test in report.get("tests", [])
                 if test.get("outcome") == "xfailed"]
    return line, failures


def _known_defect_reason(nodeid: str) -> str:
    """Why a test was counted xfailed: the suite defect suite_defects.py names for it."""
    for suffix, reason in KNOWN_SUITE_DEFECTS.items():
        if nodeid.endswith(suffix):
            return reason
    return "xfailed"


def outcomes_of(report: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Every test's outcome, and for a failed or erroring one the first line of its message."""
    found: dict[str, dict[str, str]] = {}
    for test in report.get("tests", []):
        entry = {"outcome": test.get("outcome", "?")}
        if entry["outcome"] in ("failed", "error"):
            phase = test.get("call") or test.get("setup") or test.get("teardown") or {}
            message = (phase.get("crash") or {}).get("message") or phase.get("longrepr") or ""
            entry["message"] = (message.strip().splitlines() or [""])[0][:300]
        elif entry["outcome"] == "xfailed":
            entry["message"] = _known_defect_reason(test["nodeid"])
        found[test["nodeid"]] = entry
    return found


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _accelerator(device: str) -> str | None:
    """The GPU's name for a CUDA run (from cupy, else nvidia-smi); None on the CPU."""
    if not device.startswith("cuda"):
        return None
    index = int(device.partition(":")[2] or 0)
    try:
        import cupy

        name = cupy.cuda.runtime.getDeviceProperties(index)["name"]
        return name.decode() if isinstance(name, bytes) else str(name)
    except Exception:  # noqa: BLE001 - no cupy or no driver: ask nvidia-smi, else say nothing
        try:
            listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, check=True).stdout
        except (subprocess.CalledProcessError, FileNotFoundError):
            return None
        lines = listed.strip().splitlines()
        return lines[index].split(":", 1)[1].split("(")[0].strip() if index < len(lines) else None


def _cuda_driver(device: str) -> int | None:
    if not device.startswith("cuda"):
        return None
    try:
        import cupy

        return int(cupy.cuda.runtime.driverGetVersion())
    except Exception:  # noqa: BLE001 - no cupy or no driver: the record says None
        return None


def _nvidia_driver(device: str) -> str | None:
    """The NVIDIA driver's version (nvidia-smi), e.g. "580.65.06"; None on the CPU or without it."""
    if not device.startswith("cuda"):
        return None
    index = device.partition(":")[2] or "0"
    try:
        listed = subprocess.run(["nvidia-smi", "-i", index, "--query-gpu=driver_version", "--format=csv,noheader"],
                                capture_output=True, text=True, check=True).stdout.strip()
    except (subprocess.CalledProcessError, FileNotFoundError):
        return None
    return listed or None


def device_line(record: dict[str, Any]) -> str:
    """What a GPU run ran on, for the result file's header: GPU, driver, cupy ("" on the CPU)."""
    if record["accelerator"] is None and record["cuda_driver"] is None:
        return ""
    if record["accelerator"] == SIMULATED_ACCELERATOR:
        return f", {SIMULATED_ACCELERATOR}"
    cuda = record["cuda_driver"]
    cupy = record["versions"].get("cupy-cuda13x") or record["versions"].get("cupy-cuda12x")
    line = f", GPU {record['accelerator'] or 'unknown'}, driver {record['nvidia_driver'] or 'unknown'}"
    if cuda:
        line += f" (CUDA {cuda // 1000}.{cuda % 1000 // 10})"
    return line + f", cupy {cupy or 'unknown'}"


def environment(device: str, *, simulated: bool = False) -> dict[str, Any]:
    """When, at which commit, on what and with which versions a run was made (``simulated``: on
    the CUDA stand-in, whose GPU and driver are named as such)."""
    versions = {name: _version(name) for name in
                ("dlarray", "numpy", "cupy-cuda12x", "cupy-cuda13x", "hypothesis", "pytest", "ndindex")}
    return {
        "time": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": source_commit(),
        "device": device,
        "accelerator": SIMULATED_ACCELERATOR if simulated else _accelerator(device),
        "cuda_driver": None if simulated else _cuda_driver(device),
        "nvidia_driver": None if simulated else _nvidia_driver(device),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "python": sys.version.split()[0],
        "versions": {name: version for name, version in versions.items() if version},
    }


def report_file_in(pytest_args: list[str], default: Path) -> Path:
    """Where pytest-json-report writes: the caller's ``--json-report-file`` if given (the last wins)."""
    chosen = default
    for i, argument in enumerate(pytest_args):
        if argument.startswith("--json-report-file="):
            chosen = Path(argument.partition("=")[2])
        elif argument == "--json-report-file" and i + 1 < len(pytest_args):
            chosen = Path(pytest_args[i + 1])
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-examples", type=int, default=200)
    parser.add_argument("--workers", default="2", help="pytest-xdist workers (0: none)")
    parser.add_argument("--device", default="cpu", help="dlarray's default device, e.g. cuda:0")
    parser.add_argument("--record", action="store_true",
                        help="write the result to the committed conformance/results/ (else conformance/.runs/; "
                             "a run on a CUDA device always writes conformance/results/)")
    parser.add_argument("--simulated-cuda", action="store_true",
                        help="run on cuda:0 with tests/numpy_cupy.py as cupy and no driver (no GPU needed; "
                             "written to conformance/.runs/ only)")
    parser.add_argument("pytest_args", nargs="*")
    options = parser.parse_args(argv)
    if options.simulated_cuda:
        if options.record:
            parser.error("a simulated CUDA run is not a GPU result: --record is refused")
        if not options.device.startswith("cuda"):
            options.device = "cuda:0"
    missing = missing_requirements(options.workers)
    if missing:
        raise SystemExit(f"the conformance run needs {', '.join(missing)}: run `make conformance`, or "
                         f"pip install 'dlarray[conformance]' (or -e '.[conformance]' from this checkout)")
    suite = suite_location()
    env = dict(
        os.environ, ARRAY_API_TESTS_MODULE="dlarray", DLARRAY_DEFAULT_DEVICE=options.device,
        # this checkout's dlarray first (after the stand-in's sitecustomize for a simulated run),
        # the known-defects plugin, the user's own path after them
        PYTHONPATH=os.pathsep.join(filter(None, [
            str(SIMULATED_CUDA_SITE) if options.simulated_cuda else None, str(ROOT), str(HERE),
            os.environ.get("PYTHONPATH")])),
    )
    with tempfile.TemporaryDirectory() as scratch:
        report_file = report_file_in(options.pytest_args, Path(scratch) / "report.json")
        command = [
            sys.executable, "-m", "pytest", "array_api_tests", "-p", "no:cacheprovider", "-p", "suite_defects",
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
        pytest_report = json.loads(report_file.read_text())
        summary, failures = summary_of(pytest_report)
    # a GPU run is rare (a borrowed machine) and is what the docs show: it is always recorded
    recorded = not options.simulated_cuda and (options.record or options.device.startswith("cuda"))
    folder = RECORDED if recorded else SCRATCH
    folder.mkdir(exist_ok=True)
    name = options.device.replace(':', '') + ("-simulated" if options.simulated_cuda else "")
    report = folder / f"{name}-{options.max_examples}.txt"
    ran_on = environment(options.device, simulated=options.simulated_cuda)
    header = (
        f"array-api-tests {SUITE_COMMIT[:7]} (spec {SPEC_COMMIT[:7]}), dlarray on {options.device}"
        f"{device_line(ran_on)}, --max-examples={options.max_examples}, -n {options.workers}, {elapsed:.0f} s, "
        f"python {sys.version.split()[0]}"
        + (f", pytest arguments: {' '.join(options.pytest_args)}" if options.pytest_args else "")
        + "\n"
    )
    report.write_text(header + summary + "\n" + "\n".join(failures) + ("\n" if failures else ""))
    record = {
        "suite": {"repository": SUITE_REPOSITORY, "commit": SUITE_COMMIT, "spec_commit": SPEC_COMMIT},
        "max_examples": options.max_examples, "workers": options.workers, "seconds": round(elapsed),
        "pytest_args": options.pytest_args, "environment": ran_on,
        "summary": pytest_report.get("summary", {}),
        "tests": outcomes_of(pytest_report),
    }
    report.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")
    print(f"\n{summary}\nwritten to {os.path.relpath(report, ROOT)}"
          + ("" if recorded or options.simulated_cuda else " (--record writes conformance/results/, which the docs show)"))
    return result.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
