"""The downstream plugin and runner (``make downstream``): scikit-learn's and SciPy's array-API tests
run with dlarray where they use array_api_strict.

The whole run takes about half an hour and is not part of ``make test``. Here, in seconds: the plugin
on a small suite of our own written the way both suites write theirs (a parametrize mark naming
array_api_strict by name, with its devices, in namedtuples and in partials; a fixture parametrized
with the module; SciPy-style backend marks), then on a few real tests of each installed suite,
checking that the dlarray twins really computed with dlarray; and the runner's summary and its
suite-side causes on records made up for the purpose.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
PLUGIN_DIR = ROOT / "conformance" / "downstream"
SITE = Path(sysconfig.get_paths()["purelib"])

CONFTEST = '''
import array_api_strict
import numpy
import pytest

@pytest.fixture(params=[pytest.param(numpy, id="numpy"), pytest.param(array_api_strict, id="array_api_strict")])
def xp(request):
    """As SciPy's: skips or xfails a backend its marks name, by the module's name."""
    for kind in ("skip", "xfail"):
        reasons = _backends_kwargs_from_request(request, kind)
        if request.param.__name__ in reasons:
            getattr(pytest, kind)(reason=reasons[request.param.__name__])
    return request.param

def _backends_kwargs_from_request(request, skip_or_xfail):
    """SciPy's rule, cut down: np_only and a named backend (the plugin finds it by this name)."""
    reasons = {}
    for marker in request.node.iter_markers(f"{skip_or_xfail}_xp_backends"):
        if marker.kwargs.get("np_only") and "array_api_strict" not in marker.kwargs.get("exceptions", ()):
            reasons.setdefault("array_api_strict", marker.kwargs.get("reason", "numpy only"))
        for backend in marker.args:
            reasons.setdefault(backend, marker.kwargs.get("reason", "named"))
    return reasons

def pytest_configure(config):
    for name in ("skip_xp_backends", "xfail_xp_backends"):
        config.addinivalue_line("markers", name)
'''

TESTS = '''
import collections
import functools
import importlib
import json
import os

import pytest

Where = collections.namedtuple("Where", ["xp", "device"])


def seen(*values):
    with open(os.environ["SEEN"], "a") as log:
        log.write(json.dumps([str(v) for v in values]) + "\\n")


def check(array_namespace, device_name=None):
    xp = importlib.import_module(array_namespace)
    seen("partial", array_namespace, device_name)
    return xp


@pytest.mark.parametrize("name, device, dtype", [
    ("numpy", None, None), ("array_api_strict", "CPU_DEVICE", "float64"), ("array_api_strict", "device1", "float32"),
])
@pytest.mark.parametrize("weights", [None, [1, 2]])
def test_by_name(name, device, dtype, weights):
    seen("by_name", name, device, dtype)
    assert importlib.import_module(name).asarray([1.0, 2.0]).shape == (2,)


@pytest.mark.parametrize("pair", [Where("torch", "cpu"), Where("array_api_strict", "device1")], ids=["t", "s"])
def test_namedtuple(pair):
    seen("namedtuple", *pair)


@pytest.mark.parametrize("checker", [functools.partial(check, array_namespace="array_api_strict",
                                                       device_name="CPU_DEVICE")], ids=repr)
def test_partial(checker):
    checker()


@pytest.mark.parametrize("n", iter([1, 2]))
def test_fixture(xp, n):
    seen("fixture", xp.__name__, n)
    assert xp.__name__ == "array_api_strict"  # fails with the stand-in: the record shows it


@pytest.mark.skip_xp_backends("array_api_strict", reason="strict lacks it")
def test_skipped_for_strict(xp):
    seen("skipped_for_strict", xp.__name__)


@pytest.mark.skip_xp_backends(np_only=True)
def test_numpy_only(xp):
    seen("numpy_only", xp.__name__)


def test_no_namespace():
    seen("no_namespace")
'''


def run_pytest(tmp_path: Path, *arguments: str, plugin: bool = True, rootdir: Path | None = None,
               **env: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any], list[list[str]]]:
    """Run pytest on ``arguments`` in a child process with the plugin; (result, record, what tests saw)."""
    record, seen = tmp_path / "record.json", tmp_path / "seen.jsonl"
    record.unlink(missing_ok=True)
    seen.unlink(missing_ok=True)
    environment = dict(os.environ, SCIPY_ARRAY_API="1", SEEN=str(seen), **env,
                       PYTHONPATH=os.pathsep.join([str(ROOT), str(PLUGIN_DIR), str(tmp_path)]))
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-c", str(PLUGIN_DIR / "pytest.ini"),
               f"--rootdir={rootdir or tmp_path}", f"--confcutdir={rootdir or tmp_path}"]
    if plugin:
        command += ["-p", "pytest_downstream", "--downstream-standin=dlarray", f"--downstream-record={record}"]
    done = subprocess.run([*command, *arguments], cwd=tmp_path, env=environment, capture_output=True, text=True,
                          timeout=600)
    written = json.loads(record.read_text()) if record.is_file() else {}
    lines = [json.loads(line) for line in seen.read_text().splitlines()] if seen.is_file() else []
    return done, written, lines


@pytest.fixture()
def own_suite(tmp_path: Path) -> Path:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "conftest.py").write_text(CONFTEST)
    (suite / "test_namespaces.py").write_text(TESTS)
    return suite


def test_each_value_naming_strict_gets_a_dlarray_twin(tmp_path: Path, own_suite: Path) -> None:
    done, record, seen = run_pytest(tmp_path, str(own_suite))
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]  # test_fixture fails with dlarray
    by_name = sorted(tuple(line[1:]) for line in seen if line[0] == "by_name")
    # numpy dropped; strict's devices become dlarray's device (its only one here: the default)
    assert by_name == sorted(2 * [("array_api_strict", "CPU_DEVICE", "float64"), ("array_api_strict", "device1", "float32"),
                                  ("dlarray", "cpu", "float64"), ("dlarray", "cpu", "float32")])
    assert sorted(tuple(line[1:]) for line in seen if line[0] == "namedtuple") == [
        ("array_api_strict", "device1"), ("dlarray", "cpu")]
    assert sorted(tuple(line[1:]) for line in seen if line[0] == "partial") == [
        ("array_api_strict", "CPU_DEVICE"), ("dlarray", "cpu")]
    # a fixture parametrized with the module; an iterator's values are all still there
    assert sorted(tuple(line[1:]) for line in seen if line[0] == "fixture") == [
        ("array_api_strict", "1"), ("array_api_strict", "2"), ("dlarray", "1"), ("dlarray", "2")]
    assert not any(line[0] == "no_namespace" for line in seen)
    tests = record["tests"]
    assert {entry["namespace"] for entry in tests.values()} == {"array_api_strict", "dlarray"}
    # the ids are the suite's for strict, and the same made from the twin's values for dlarray
    assert "test_namespaces.py::test_by_name[None-array_api_strict-CPU_DEVICE-float64]" in "\n".join(tests)
    assert "test_namespaces.py::test_by_name[None-dlarray-cpu-float64]" in "\n".join(tests)
    assert any(nodeid.endswith("test_namedtuple[s]") for nodeid in tests)
    # every test has its twin, under one key
    pairs: dict[str, set[str]] = {}
    for entry in tests.values():
        pairs.setdefault(entry["pair"], set()).add(entry["namespace"])
    assert all(namespaces == {"array_api_strict", "dlarray"} for namespaces in pairs.values())
    failed = {nodeid: entry for nodeid, entry in tests.items() if entry["outcome"] == "failed"}
    assert sorted(nodeid.rsplit("::", 1)[1] for nodeid in failed) == ["test_fixture[1-dlarray]", "test_fixture[2-dlarray]"]
    assert all(entry["message"].startswith("AssertionError: assert 'dlarray' == 'array_api_strict'")
               and "test_namespaces.py:" in entry["where"] for entry in failed.values())


def test_scipy_style_marks_skip_dlarray_as_strict_except_those_naming_strict(tmp_path: Path, own_suite: Path) -> None:
    done, record, seen = run_pytest(tmp_path, str(own_suite), "-k", "skipped_for_strict or numpy_only")
    outcomes = {nodeid.rsplit("::", 1)[1]: (entry["outcome"], entry.get("message")) for nodeid, entry in record["tests"].items()}
    assert outcomes == {
        "test_skipped_for_strict[array_api_strict]": ("skipped", "strict lacks it"),
        "test_skipped_for_strict[dlarray]": ("passed", None),
        "test_numpy_only[array_api_strict]": ("skipped", "numpy only"),
        "test_numpy_only[dlarray]": ("skipped", "numpy only"),
    }, done.stdout[-3000:]
    assert [line for line in seen if line[0] != "no_namespace"] == [["skipped_for_strict", "dlarray"]]


def test_one_namespace_can_be_chosen_and_a_wrong_one_is_refused(tmp_path: Path, own_suite: Path) -> None:
    done, record, _ = run_pytest(tmp_path, str(own_suite), "--downstream-namespaces=dlarray", "-k", "by_name")
    assert done.returncode == 0 and {e["namespace"] for e in record["tests"].values()} == {"dlarray"}
    done, _, _ = run_pytest(tmp_path, str(own_suite), "--downstream-namespaces=numpy")
    assert done.returncode == 4 and "--downstream-namespaces: choose among array_api_strict and dlarray" in done.stderr


def test_without_the_plugin_the_suite_is_its_own(tmp_path: Path, own_suite: Path) -> None:
    done, _, seen = run_pytest(tmp_path, str(own_suite), "-k", "by_name", plugin=False)
    assert done.returncode == 0
    assert {line[1] for line in seen} == {"numpy", "array_api_strict"}


# ------------------------------------------------------------------------------ the real suites
PROBE = '''
"""Counts the calls of each namespace's asarray during each test (what it really computed with)."""
import json, os
import array_api_strict, dlarray
import pytest

calls = {}

def _counting(module, counts):
    original = module.asarray
    def asarray(*args, **kwargs):
        counts[module.__name__] = counts.get(module.__name__, 0) + 1
        return original(*args, **kwargs)
    return original, asarray

@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    counts = calls.setdefault(item.nodeid, {})
    originals = {}
    for module in (dlarray, array_api_strict):
        originals[module], module.asarray = _counting(module, counts)
    try:
        return (yield)
    finally:
        for module, original in originals.items():
            module.asarray = original

def pytest_sessionfinish(session):
    with open(os.environ["PROBE"], "w") as out:
        json.dump(calls, out)
'''


@pytest.mark.skipif(not (SITE / "scipy" / "conftest.py").is_file() or not (SITE / "sklearn" / "conftest.py").is_file(),
                    reason="needs scikit-learn and SciPy installed with their tests")
def test_scipy_and_sklearn_tests_compute_with_dlarray(tmp_path: Path) -> None:
    (tmp_path / "downstream_probe.py").write_text(PROBE)
    done, record, _ = run_pytest(
        tmp_path, "-p", "downstream_probe",
        str(SITE / "scipy" / "special" / "tests" / "test_logsumexp.py"),
        str(SITE / "sklearn" / "utils" / "tests" / "test_array_api.py"),
        "-k", "test_logsumexp_sign_zero or test_softmax_fixtures or (test_average and not raises)",
        rootdir=SITE, PROBE=str(tmp_path / "probe.json"))
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    calls = json.loads((tmp_path / "probe.json").read_text())
    tests = record["tests"]
    suites = {nodeid.split("/")[0] for nodeid in tests}
    assert suites == {"scipy", "sklearn"}
    for suite in suites:
        namespaces = {entry["namespace"] for nodeid, entry in tests.items() if nodeid.startswith(suite)}
        assert namespaces == {"array_api_strict", "dlarray"}, suite
    for nodeid, entry in tests.items():
        assert entry["outcome"] == "passed", (nodeid, entry)
        other = "array_api_strict" if entry["namespace"] == "dlarray" else "dlarray"
        assert calls[nodeid].get(entry["namespace"], 0) > 0 and calls[nodeid].get(other, 0) == 0, (nodeid, calls[nodeid])


# ------------------------------------------------------------------------------ the runner
@pytest.fixture()
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location("downstream_runner", ROOT / "conformance" / "downstream.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    monkeypatch.setitem(sys.modules, "downstream_runner", module)  # its dataclass looks itself up there
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    monkeypatch.setattr(module, "RECORDS", tmp_path / "records")
    monkeypatch.setattr(module, "SCRATCH", tmp_path / "runs")
    monkeypatch.setattr(module, "RECORDED", tmp_path / "results" / "downstream.json")
    return module


def _entry(namespace: str, outcome: str, message: str = "", where: str = "", when: str = "call",
           key: str = "t") -> dict[str, Any]:
    return {"namespace": namespace, "pair": key, "outcome": outcome, "message": message, "where": where, "when": when}


SKLEARN_FLOAT16 = ("assert (dlarray.floa...array.float16) == (dlarray.floa...array.float32)\n  \n"
                   "  Left contains one more item: dlarray.float16\n  Use -v to get more diff")
DEVICES = 'TypeError: can only concatenate tuple (not "list") to tuple'
STRICT_WORDING = ("AssertionError: Regex pattern did not match.\n  Expected regex: \"`cval` must include only "
                  "numbers.|Unsupported|The array_api_strict|Value 'a duck'\"\n  Actual message: 'cannot make an array from str'")
# numpy's words among the alternatives: dlarray can say it so (strict's "axis out of range" is there too)
NUMPY_WORDING = ("AssertionError: Regex pattern did not match.\n  Expected regex: '...axis 10 is out of bounds for "
                 "array...|out of range'\n  Actual message: 'axis 10 is out of bounds for an array of 1 dimensions'")


def test_suite_causes_are_recognised_by_the_failure(runner: ModuleType) -> None:
    def cause(**entry: Any) -> str | None:
        entry.setdefault("outcome", "failed")
        return runner.suite_cause({**entry, "full_message": entry.get("message", "")})

    assert cause(outcome="error", when="setup", message=DEVICES,
                 where=f"{SITE}/scipy/conftest.py:499") == "scipy-devices-fixture"
    assert cause(outcome="error", when="setup", message=DEVICES, where="/somewhere/else.py:3") is None
    assert cause(message=SKLEARN_FLOAT16) == "sklearn-float16"
    assert cause(message=STRICT_WORDING) == "strict-error-text"  # array_api_strict's own message, by name
    assert cause(message=NUMPY_WORDING) is None
    assert cause(message="TypeError: fill_value must be a bool, int, float or complex, not Array") is None
    # names the standard lacks (array_api_strict too) are the suite's; a standard one missing would be dlarray's
    assert cause(message="AttributeError: 'Array' object has no attribute 'view'") == "non-standard-name"
    assert cause(message="AttributeError: module 'dlarray' has no attribute 'logspace'") == "non-standard-name"
    assert cause(message="AttributeError: module 'dlarray' has no attribute 'linspace'") is None
    assert cause(message="AttributeError: 'Array' object has no attribute 'mT'") is None


def test_summary_pairs_twins_and_counts_what_strict_skips(runner: ModuleType, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    tests = {
        "a[array_api_strict]": _entry("array_api_strict", "passed", key="a"),
        "a[dlarray]": _entry("dlarray", "failed", "TypeError: no\nmore", "/x.py:1", key="a"),
        "b[array_api_strict]": _entry("array_api_strict", "passed", key="b"),
        "b[dlarray]": _entry("dlarray", "failed", SKLEARN_FLOAT16, key="b"),
        "c[array_api_strict]": _entry("array_api_strict", "skipped", "strict lacks it", key="c"),
        "c[dlarray]": _entry("dlarray", "passed", key="c"),
        "d[array_api_strict]": _entry("array_api_strict", "xfailed", "strict lacks it", key="d"),
        "d[dlarray]": _entry("dlarray", "error", DEVICES, f"{SITE}/scipy/conftest.py:499", "setup", key="d"),
        "e[array_api_strict]": _entry("array_api_strict", "skipped", key="e"),
        "e[dlarray]": _entry("dlarray", "skipped", key="e"),
    }
    records = tmp_path / "records"
    records.mkdir()
    environment = {"time": "2026-01-01T00:00:00Z", "commit": "abc1234", "python": "3.11", "versions": {}}
    for suite in ("scikit-learn", "scipy"):
        (records / f"{suite}.json").write_text(json.dumps({"tests": tests, "seconds": 7, "exitstatus": 1,
                                                           "test_modules": 2, "environment": environment}))
    assert runner.main(["--summarize"]) == 0
    result = json.loads((tmp_path / "results" / "downstream.json").read_text())
    summary = result["suites"]["scipy"]
    assert summary["counts"]["dlarray"] == {"passed": 1, "failed": 2, "error": 1, "skipped": 1, "xfailed": 0, "xpassed": 0}
    assert summary["counts"]["array_api_strict"]["passed"] == 2 and summary["paired"] == 5
    assert summary["array_api_strict_passed_dlarray_failed"] == 2
    assert summary["array_api_strict_passed_dlarray_failed_suite_caused"] == 1
    assert summary["array_api_strict_skipped_dlarray_ran"] == 2 and summary["array_api_strict_skipped_dlarray_passed"] == 1
    assert summary["seconds"] == 7 and result["environment"] == environment
    failures = {f["nodeid"]: f for f in result["failures"]["scipy"]}
    assert failures["a[dlarray]"] == {"nodeid": "a[dlarray]", "outcome": "failed", "message": "TypeError: no",
                                      "where": "/x.py:1", "array_api_strict_outcome": "passed", "cause": None}
    assert failures["b[dlarray]"]["cause"] == "sklearn-float16"
    assert failures["d[dlarray]"]["cause"] == "scipy-devices-fixture"
    targets = result["targets"]
    assert targets["strict_passes_dlarray_fails"]["value"] == 2 and targets["strict_passes_dlarray_fails"]["verdict"] == "NOT MET"
    # c passed, d failed by the suite's doing: 1 of 1 counted, 1 of 2 in all
    assert targets["strict_skipped_dlarray_passes"]["value"] == 1.0
    assert targets["strict_skipped_dlarray_passes"]["raw_share"] == 0.5
    assert targets["strict_skipped_dlarray_passes"]["verdict"] == "MET"
    assert result["suite_causes"]["scipy-devices-fixture"]["failures"] == 2
    printed = capsys.readouterr().out
    assert "dlarray           1 passed, 2 failed, 1 error, 1 skipped" in printed


def test_the_test_modules_are_found_in_the_installed_packages(runner: ModuleType) -> None:
    sklearn = {path.relative_to(SITE).as_posix() for path in runner.test_files("scikit-learn")}
    assert {"sklearn/utils/tests/test_array_api.py", "sklearn/tests/test_common.py"} <= sklearn
    assert "sklearn/tests/test_base.py" not in sklearn
    scipy = {path.relative_to(SITE).as_posix() for path in runner.test_files("scipy")}
    assert "scipy/differentiate/tests/test_differentiate.py" in scipy
    assert "scipy/optimize/tests/test_linprog.py" not in scipy  # no `xp` in it
    assert {path.split("/")[1] for path in scipy} <= set(runner.SCIPY_MODULES)
