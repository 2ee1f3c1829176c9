"""Run scikit-learn's and SciPy's own array-API tests with dlarray, and with array_api_strict, side by side.

The suites are the installed packages' test modules (``make downstream``; the ``downstream`` extra
pins nothing new: scikit-learn and SciPy come with the ``test`` extra). Each suite runs once, in one
pytest session with ``-n 2`` workers, through the plugin ``conformance/downstream/pytest_downstream.py``:
wherever the suite's tests are parametrized with array_api_strict, the plugin gives them a twin with
dlarray, and it keeps only those tests (the suite's array-API tests, once per namespace):

* scikit-learn: the test modules that name a namespace helper (``yield_namespace_device_dtype_combinations``,
  ``yield_mixed_namespace_input_permutations``, ``_array_api_for_tests``, array_api_strict) or turn
  estimator checks into tests (whose checks include the array-API ones);
* SciPy (``SCIPY_ARRAY_API=1``): the test modules of cluster, fft, integrate, optimize, special,
  stats, ndimage, signal, interpolate, spatial, differentiate and linalg that use its ``xp`` fixture.

It prints per suite the outcomes for both namespaces, then how dlarray fares on the tests
array_api_strict passes and on those the suite skips or xfails for array_api_strict, and writes
``conformance/results/downstream.json`` (a run of one suite, or with pytest arguments, writes
``conformance/.runs/downstream.json`` instead): versions, counts, targets, and every dlarray failure
with its node id, its first error line, where it was raised, array_api_strict's outcome of the same
test, and the cause where the failure is the suite's doing (``SUITE_CAUSES``: each matched by the
failure itself). The per-test records of the plugin stay in ``conformance/.runs/downstream/``;
``--summarize`` makes the results file again from them, without running anything.

Usage::

    python conformance/downstream.py [--workers 2] [--suite scipy] [--summarize] [-- pytest arguments]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PLUGIN_DIR = HERE / "downstream"
RECORDED = HERE / "results" / "downstream.json"
SCRATCH = HERE / ".runs"
RECORDS = SCRATCH / "downstream"
sys.path.insert(0, str(ROOT / "benchmarks"))
try:  # one way to name the commit measured, shared by every result file
    from _harness import run_context
finally:
    sys.path.remove(str(ROOT / "benchmarks"))
sys.path.insert(0, str(PLUGIN_DIR))
try:
    from pytest_downstream import OUTCOMES, REFERENCE, counts_of
finally:
    sys.path.remove(str(PLUGIN_DIR))

STANDIN = "dlarray"
#: the SciPy subpackages whose `xp` tests run (those of the issue that asked for this run)
SCIPY_MODULES = ("cluster", "fft", "integrate", "optimize", "special", "stats", "ndimage", "signal",
                 "interpolate", "spatial", "differentiate", "linalg")
#: a scikit-learn test module is run when it names one of these: its namespace helpers and
#: array_api_strict, or the ways estimator checks (which include the array-API checks) become tests
SKLEARN_MARKERS = re.compile(r"yield_namespace|yield_mixed_namespace|_array_api_for_tests|array_api_strict"
                             r"|parametrize_with_checks|_get_check_estimator_ids")
SCIPY_MARKER = re.compile(r"\bxp\b")  # a test requesting SciPy's `xp` fixture names it
#: a test running longer than this fails (a guard against a hang stalling the run, not a speed check)
TIMEOUT_S = 900
#: deliverable 3's share: of the tests skipped or xfailed for array_api_strict that run with dlarray
PASS_SHARE_TARGET = 0.90


def site_packages() -> Path:
    return Path(sysconfig.get_paths()["purelib"])


def test_files(suite: str) -> list[Path]:
    """The installed test modules of ``suite`` that can hold its array-API tests."""
    base = site_packages()
    if suite == "scikit-learn":
        candidates, marker = sorted((base / "sklearn").rglob("tests/test_*.py")), SKLEARN_MARKERS
    else:
        candidates = [path for module in SCIPY_MODULES for path in sorted((base / "scipy" / module).rglob("tests/test_*.py"))]
        marker = SCIPY_MARKER
    return [path for path in candidates if marker.search(path.read_text(errors="replace"))]


# ------------------------------------------------------------------------------ the suites' own causes
@dataclass(frozen=True)
class SuiteCause:
    """A way a test fails with dlarray that is the suite's doing, recognised by the failure itself."""

    key: str
    reason: str
    matches: Callable[[dict[str, Any]], bool]


def _strict_sources() -> str:
    import array_api_strict

    return "\n".join(path.read_text() for path in sorted(Path(array_api_strict.__file__).parent.glob("*.py")))


_EXPECTED_REGEX = re.compile(r"Expected regex: (['\"])(.*)\1\n  Actual message: ", re.DOTALL)
_strict_text: list[str] = []


def _alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of a regular expression (``a|b(c|d)`` -> ``a``, ``b(c|d)``)."""
    parts, depth, start, escaped = [], 0, 0, False
    for position, character in enumerate(pattern):
        if escaped:
            escaped = False
        elif character == "\\":
            escaped = True
        elif character in "([":
            depth += 1
        elif character in ")]":
            depth -= 1
        elif character == "|" and depth == 0:
            parts.append(pattern[start:position])
            start = position + 1
    return [*parts, pattern[start:]]


def _matches_strict_wording(entry: dict[str, Any]) -> bool:
    """A ``pytest.raises(match=...)`` accepting array_api_strict's own message by its words: one of the
    pattern's alternatives names array_api_strict and is found in array_api_strict's source."""
    message = entry.get("full_message") or ""
    if not message.startswith("AssertionError: Regex pattern did not match"):
        return False
    found = _EXPECTED_REGEX.search(message)
    if not found:
        return False
    if not _strict_text:
        _strict_text.append(_strict_sources())
    for alternative in _alternatives(found.group(2).encode().decode("unicode_escape")):
        try:
            if REFERENCE in alternative and re.search(alternative, _strict_text[0]):
                return True
        except re.error:
            continue
    return False


_MISSING_NAME = re.compile(r"AttributeError: (?:module '[\w.]+'|'Array' object) has no attribute '(\w+)'")


def _uses_a_name_outside_the_standard(entry: dict[str, Any]) -> bool:
    """An AttributeError for a namespace function or array method that array_api_strict lacks too."""
    found = _MISSING_NAME.match(entry.get("full_message") or "")
    if not found:
        return False
    import array_api_strict

    name = found.group(1)
    owner = array_api_strict if found.group(0).startswith("AttributeError: module") else type(array_api_strict.asarray(0))
    return not hasattr(owner, name)


SUITE_CAUSES = (
    SuiteCause(
        "scipy-devices-fixture",
        "SciPy's `devices` fixture (scipy/conftest.py) does `xp.__array_namespace_info__().devices() + [None]`: "
        "it expects a list, while the 2025.12 standard makes `devices()` a tuple (array_api_strict too, "
        "except under the 2024.12 flags SciPy's conftest sets). The test never starts.",
        lambda entry: entry["outcome"] == "error" and entry.get("when") == "setup"
        and "can only concatenate tuple (not \"list\") to tuple" in entry.get("message", "")
        and re.search(r"scipy/conftest\.py:\d+$", entry.get("where", "")) is not None,
    ),
    SuiteCause(
        "strict-error-text",
        "The test matches the error message against a list of libraries' own wordings, array_api_strict's "
        "among them (an alternative of the pattern names it and is found in its source); the standard "
        "words no message, and dlarray's is none of those listed.",
        _matches_strict_wording,
    ),
    SuiteCause(
        "non-standard-name",
        "The test, or the SciPy code it runs, uses a function or array method the standard does not define "
        "(array_api_strict has no such name either; the suite skips those tests for it): dlarray keeps to "
        "the standard's names, e.g. no `x.view()`, `x.reshape()`, `x.sum()`.",
        _uses_a_name_outside_the_standard,
    ),
    SuiteCause(
        "sklearn-float16",
        "scikit-learn's `supported_float_dtypes` adds float16 whenever the namespace has `xp.float16`, while "
        "`test_supported_float_types` expects array_api_strict's (float64, float32) for it; dlarray has "
        "float16, as numpy and torch do (the test expects float16 for those).",
        lambda entry: re.search(r"Left contains one more item: \w+\.float16\b", entry.get("full_message", "")) is not None,
    ),
)


def suite_cause(entry: dict[str, Any]) -> str | None:
    return next((cause.key for cause in SUITE_CAUSES if cause.matches(entry)), None)


# ------------------------------------------------------------------------------ running
def run_suite(suite: str, workers: str, pytest_args: list[str]) -> tuple[Path, float, int]:
    """Run one suite through the plugin; (its per-test record, seconds, pytest's exit status)."""
    RECORDS.mkdir(parents=True, exist_ok=True)
    record = RECORDS / f"{suite}.json"
    record.unlink(missing_ok=True)
    files = test_files(suite)
    env = dict(os.environ, SCIPY_ARRAY_API="1", PYTHONPATH=os.pathsep.join(filter(None, [
        str(ROOT), str(PLUGIN_DIR), os.environ.get("PYTHONPATH")])))
    command = [
        sys.executable, "-m", "pytest", "-p", "pytest_downstream", f"--downstream-standin={STANDIN}",
        f"--downstream-record={record}", f"--downstream-timeout={TIMEOUT_S}",
        "-p", "no:cacheprovider", f"--rootdir={site_packages()}", f"--confcutdir={site_packages()}",
        "-c", str(PLUGIN_DIR / "pytest.ini"), "-q", "--no-header", "-rN", "--tb=no",  # failures: in the record
        *(["-n", workers] if workers not in ("0", "") else []),
        *map(str, files), *pytest_args,
    ]
    print(f"== {suite}: {len(files)} test modules, {STANDIN} and {REFERENCE}, -n {workers}", flush=True)
    started = time.time()
    done = subprocess.run(command, cwd=SCRATCH, env=env, check=False)
    return record, time.time() - started, done.returncode


# ------------------------------------------------------------------------------ summarizing
def _first_line(message: str) -> str:
    """The message's first line; for a ``pytest.raises(match=...)`` that did not match, with the
    pattern and the message (its first line alone says nothing)."""
    lines = message.strip().splitlines() or [""]
    if lines[0].startswith("AssertionError: Regex pattern did not match"):
        return " ".join(line.strip() for line in lines[:3])[:500]
    return lines[0][:300]


def summarize_suite(tests: dict[str, dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the suite's counts and comparisons, its dlarray failures) from the plugin's per-test record."""
    pairs: dict[str, dict[str, tuple[str, dict[str, Any]]]] = {}
    for nodeid, entry in tests.items():
        pairs.setdefault(entry["pair"], {})[entry["namespace"]] = (nodeid, entry)
    failures = []
    strict_passed_failing, strict_skipped_ran, strict_skipped_passed, strict_skipped_suite_caused = [], 0, 0, 0
    for twins in pairs.values():
        if STANDIN not in twins:
            continue
        nodeid, entry = twins[STANDIN]
        reference = twins.get(REFERENCE, (None, {}))[1].get("outcome")
        strict_skipped = reference in ("skipped", "xfailed")
        if strict_skipped and entry["outcome"] in ("passed", "failed", "error", "xpassed"):
            strict_skipped_ran += 1
            strict_skipped_passed += entry["outcome"] in ("passed", "xpassed")
        if entry["outcome"] not in ("failed", "error"):
            continue
        full = {**entry, "full_message": entry.get("message", "")}
        failure = {"nodeid": nodeid, "outcome": entry["outcome"], "message": _first_line(entry.get("message", "")),
                   "where": entry.get("where", ""), f"{REFERENCE}_outcome": reference, "cause": suite_cause(full)}
        failures.append(failure)
        if reference == "passed":
            strict_passed_failing.append(failure)
        if strict_skipped and failure["cause"]:
            strict_skipped_suite_caused += 1
    counts = counts_of(list(tests.values()))
    paired = sum(1 for twins in pairs.values() if len(twins) == 2)
    summary = {
        "counts": {name: counts.get(name, dict.fromkeys(OUTCOMES, 0)) for name in (STANDIN, REFERENCE)},
        "paired": paired,
        "unpaired": sum(1 for twins in pairs.values() if len(twins) == 1),
        f"{REFERENCE}_passed_{STANDIN}_failed": len(strict_passed_failing),
        f"{REFERENCE}_passed_{STANDIN}_failed_suite_caused": sum(1 for f in strict_passed_failing if f["cause"]),
        f"{REFERENCE}_skipped_{STANDIN}_ran": strict_skipped_ran,
        f"{REFERENCE}_skipped_{STANDIN}_passed": strict_skipped_passed,
        f"{REFERENCE}_skipped_{STANDIN}_failed_suite_caused": strict_skipped_suite_caused,
    }
    return summary, sorted(failures, key=lambda f: f["nodeid"])


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def environment(workers: str) -> dict[str, Any]:
    versions = {name: _version(name) for name in ("numpy", "scikit-learn", "scipy", "array-api-strict",
                                                   "array-api-compat", "pytest", "pytest-xdist")}
    return {
        **run_context(),
        "workers": workers,
        "versions": {name: version for name, version in versions.items() if version},
    }


def targets(suites: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Deliverable 3's two targets over both suites, the failures that are the suites' doing apart
    (for the share, the raw one is given beside it)."""
    failing = sum(s[f"{REFERENCE}_passed_{STANDIN}_failed"] - s[f"{REFERENCE}_passed_{STANDIN}_failed_suite_caused"]
                  for s in suites.values())
    ran = sum(s[f"{REFERENCE}_skipped_{STANDIN}_ran"] for s in suites.values())
    passed = sum(s[f"{REFERENCE}_skipped_{STANDIN}_passed"] for s in suites.values())
    suite_caused = sum(s[f"{REFERENCE}_skipped_{STANDIN}_failed_suite_caused"] for s in suites.values())
    counted = ran - suite_caused
    share = passed / counted if counted else None
    return {
        "strict_passes_dlarray_fails": {
            "what": f"tests {REFERENCE} passes that fail with {STANDIN}, suite-caused ones apart",
            "value": failing, "target": 0, "verdict": "MET" if failing == 0 else "NOT MET"},
        "strict_skipped_dlarray_passes": {
            "what": f"of the tests skipped or xfailed for {REFERENCE} that run with {STANDIN}, the share passing, "
                    "suite-caused failures apart",
            "value": None if share is None else round(share, 4), "passed": passed, "ran": ran,
            "suite_caused": suite_caused, "raw_share": round(passed / ran, 4) if ran else None,
            "target": PASS_SHARE_TARGET,
            "verdict": "not measured" if share is None else ("MET" if share >= PASS_SHARE_TARGET else "NOT MET")},
    }


def report(suites: dict[str, dict[str, Any]]) -> str:
    lines = []
    for suite, summary in suites.items():
        lines.append(f"\n{suite}")
        for namespace in (STANDIN, REFERENCE):
            counts = summary["counts"][namespace]
            lines.append(f"  {namespace:<17} " + ", ".join(f"{counts[k]} {k}" for k in OUTCOMES))
        lines.append(f"  {REFERENCE} passes, {STANDIN} fails: {summary[f'{REFERENCE}_passed_{STANDIN}_failed']} "
                     f"({summary[f'{REFERENCE}_passed_{STANDIN}_failed_suite_caused']} the suite's doing)")
        lines.append(f"  skipped or xfailed for {REFERENCE}, run with {STANDIN}: "
                     f"{summary[f'{REFERENCE}_skipped_{STANDIN}_ran']}, of which "
                     f"{summary[f'{REFERENCE}_skipped_{STANDIN}_passed']} passed, "
                     f"{summary[f'{REFERENCE}_skipped_{STANDIN}_failed_suite_caused']} failed by the suite's doing")
    return "\n".join(lines)


def build_result(suites: dict[str, dict[str, Any]], failures: dict[str, list[dict[str, Any]]],
                 runs: dict[str, dict[str, Any]], workers: str, pytest_args: list[str]) -> dict[str, Any]:
    causes_seen: dict[str, int] = {}
    for listed in failures.values():
        for failure in listed:
            if failure["cause"]:
                causes_seen[failure["cause"]] = causes_seen.get(failure["cause"], 0) + 1
    recorded = [run["environment"] for run in runs.values() if "environment" in run]
    return {
        "environment": recorded[0] if recorded else environment(workers),
        "reference": REFERENCE, "standin": STANDIN, "pytest_args": pytest_args,
        "suites": {suite: {**summary, **{key: value for key, value in runs.get(suite, {}).items()
                                         if key != "environment"}}
                   for suite, summary in suites.items()},
        "targets": targets(suites),
        "suite_causes": {cause.key: {"reason": cause.reason, "failures": causes_seen.get(cause.key, 0)}
                         for cause in SUITE_CAUSES},
        "failures": failures,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", default="2", help="pytest-xdist workers (0: none)")
    parser.add_argument("--suite", choices=("scikit-learn", "scipy"), action="append",
                        help="run only this suite (repeatable; default both)")
    parser.add_argument("--summarize", action="store_true",
                        help="only write the results file again from the records in conformance/.runs/downstream/")
    parser.add_argument("--output", type=Path, help="where to write the results (default: see above)")
    parser.add_argument("pytest_args", nargs="*")
    options = parser.parse_args(argv)
    chosen = options.suite or ["scikit-learn", "scipy"]
    SCRATCH.mkdir(exist_ok=True)
    runs: dict[str, dict[str, Any]] = {}
    for suite in chosen:
        if options.summarize:
            continue
        ran_on = environment(options.workers)
        record, seconds, status = run_suite(suite, options.workers, options.pytest_args)
        runs[suite] = {"seconds": round(seconds), "exitstatus": status, "test_modules": len(test_files(suite)),
                       "environment": ran_on}
        if status not in (0, 1) or not record.is_file():  # 1: some tests failed; else it did not finish
            print(f"\n{suite}: the run did not finish (pytest exit status {status}): nothing written",
                  file=sys.stderr)
            return status or 1
    suites, failures = {}, {}
    for suite in chosen:
        path = RECORDS / f"{suite}.json"
        if not path.is_file():
            raise SystemExit(f"no record of {suite} in {path.relative_to(ROOT)}: run without --summarize first")
        record = json.loads(path.read_text())
        suites[suite], failures[suite] = summarize_suite(record["tests"])
        if options.summarize:
            runs[suite] = {key: record[key] for key in ("seconds", "exitstatus", "test_modules", "environment")
                           if key in record}
        else:
            path.write_text(json.dumps({**record, **runs[suite]}, indent=0) + "\n")
    partial = options.suite is not None or bool(options.pytest_args)
    output = options.output or (SCRATCH / "downstream.json" if partial else RECORDED)
    result = build_result(suites, failures, runs, options.workers, options.pytest_args)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(result, indent=1) + "\n")
    print(report(suites))
    for target in result["targets"].values():
        print(f"  target: {target['what']}: {target['value']} ({target['verdict']})")
    print(f"\nwritten to {os.path.relpath(output, ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
