"""conformance/run.py (``make conformance``): counts from the JSON report, results in an ignored
folder unless recorded, the user's PYTHONPATH kept, one clear sentence when it cannot run.

A stand-in suite (a conftest with the suite's options, and tests that look at their environment)
checks the runner end to end in seconds; the official suite itself is run by ``make conformance``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent



@pytest.fixture()
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location("conformance_run", ROOT / "conformance" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "RECORDED", tmp_path / "results")
    monkeypatch.setattr(module, "SCRATCH", tmp_path / "runs")
    return module


SUITE_CONFTEST = '''
def pytest_addoption(parser):
    parser.addoption("--max-examples", type=int)
    parser.addoption("--disable-deadline", action="store_true")
'''
SUITE_TESTS = '''
import os, dlarray

def test_sees_this_checkout_first_and_the_users_path_after():
    paths = os.environ["PYTHONPATH"].split(os.pathsep)
    assert paths == [{root!r}, {root!r} + "/conformance", "/the/users/own/path"]
    assert dlarray.__file__.startswith({root!r})
    assert os.environ["ARRAY_API_TESTS_MODULE"] == "dlarray"

def test_fails():
    assert False

def test_skipped():
    import pytest
    pytest.skip("the suite skips some")
'''


def _suite(tmp_path: Path) -> Path:
    suite = tmp_path / "suite"
    (suite / "array_api_tests").mkdir(parents=True)
    (suite / "array-api" / "src").mkdir(parents=True)
    (suite / "conftest.py").write_text(SUITE_CONFTEST)
    (suite / "array_api_tests" / "test_stand_in.py").write_text(SUITE_TESTS.format(root=str(ROOT)))
    return suite


def test_a_run_counts_from_the_report_and_writes_to_the_ignored_folder(
    runner: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ARRAY_API_TESTS_DIR", str(_suite(tmp_path)))
    monkeypatch.setenv("PYTHONPATH", "/the/users/own/path")
    assert runner.main(["--max-examples", "3", "--workers", "0"]) == 1  # one test fails
    written = (tmp_path / "runs" / "cpu-3.txt").read_text().splitlines()
    assert written[0].startswith("array-api-tests 55fcc60 (spec 5f847a3), dlarray on cpu, --max-examples=3")
    assert written[1] == "1 passed, 1 skipped, 1 failed, 0 errors"
    assert written[2:] == ["FAILED array_api_tests/test_stand_in.py::test_fails"]
    assert not (tmp_path / "results").exists()
    assert "written to " in capsys.readouterr().out
    record = json.loads((tmp_path / "runs" / "cpu-3.json").read_text())
    assert record["summary"]["passed"] == 1 and record["summary"]["failed"] == 1
    assert record["tests"]["array_api_tests/test_stand_in.py::test_fails"]["outcome"] == "failed"
    assert "assert False" in record["tests"]["array_api_tests/test_stand_in.py::test_fails"]["message"]
    assert record["tests"]["array_api_tests/test_stand_in.py::test_skipped"] == {"outcome": "skipped"}
    environment = record["environment"]
    assert environment["device"] == "cpu" and environment["python"] == sys.version.split()[0]
    assert environment["versions"]["numpy"] and environment["time"].endswith("Z")
    assert record["suite"]["commit"] == runner.SUITE_COMMIT and record["max_examples"] == 3


def test_a_report_file_given_to_pytest_is_where_the_counts_are_read(
    runner: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """shared GPU scripts pass their own --json-report-file: the runner reads that file and keeps it."""
    monkeypatch.setenv("ARRAY_API_TESTS_DIR", str(_suite(tmp_path)))
    monkeypatch.setenv("PYTHONPATH", "/the/users/own/path")
    mine = tmp_path / "mine.json"
    runner.main(["--max-examples", "3", "--workers", "0", "--", "--json-report", f"--json-report-file={mine}"])
    assert json.loads(mine.read_text())["summary"]["failed"] == 1
    assert (tmp_path / "runs" / "cpu-3.txt").read_text().splitlines()[1] == "1 passed, 1 skipped, 1 failed, 0 errors"
    assert runner.report_file_in(["--json-report-file", "a.json", "--json-report-file=b.json"], Path("d")) == Path("b.json")
    assert runner.report_file_in(["-k", "x"], Path("d")) == Path("d")


def test_record_writes_the_committed_results(runner: ModuleType, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARRAY_API_TESTS_DIR", str(_suite(tmp_path)))
    monkeypatch.setenv("PYTHONPATH", "/the/users/own/path")
    runner.main(["--max-examples", "3", "--workers", "0", "--record", "--", "-k", "not fails"])
    lines = (tmp_path / "results" / "cpu-3.txt").read_text().splitlines()
    assert lines[0].endswith("pytest arguments: -k not fails")
    assert lines[1:] == ["1 passed, 1 skipped, 0 failed, 0 errors"]
    assert not (tmp_path / "runs").exists()


def test_a_run_that_does_not_finish_writes_nothing(runner: ModuleType, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    suite = _suite(tmp_path)
    (suite / "conftest.py").write_text("raise RuntimeError('the suite cannot even be collected')\n")
    monkeypatch.setenv("ARRAY_API_TESTS_DIR", str(suite))
    assert runner.main(["--max-examples", "3", "--workers", "0"]) != 0
    assert not (tmp_path / "runs").exists() and not (tmp_path / "results").exists()


def test_offline_clone_fails_with_one_sentence(runner: ModuleType, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARRAY_API_TESTS_DIR", raising=False)
    monkeypatch.setattr(runner, "SUITE_REPOSITORY", str(tmp_path / "no-such-repository"))
    monkeypatch.setattr(runner, "HERE", tmp_path)
    with pytest.raises(SystemExit) as raised:
        runner.suite_location()
    message = str(raised.value.code)
    assert message.startswith("could not clone the Array API test suite (")
    assert "set ARRAY_API_TESTS_DIR" in message and "\n" not in message


def test_missing_requirements_are_named(runner: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(runner.REQUIRED_MODULES, "no_such_module_here", "no-such-package")
    with pytest.raises(SystemExit, match=r"needs no-such-package: run `make conformance`"):
        runner.main(["--workers", "0"])


def test_summary_comes_from_the_report_counts(runner: ModuleType) -> None:
    report = {"summary": {"passed": 7, "failed": 1, "error": 2, "skipped": 3, "xfailed": 1, "total": 14},
              "tests": [{"nodeid": "a::b", "outcome": "failed"}, {"nodeid": "c::d", "outcome": "error"},
                        {"nodeid": "e::f", "outcome": "passed"}]}
    assert runner.summary_of(json.loads(json.dumps(report))) == (
        "7 passed, 3 skipped, 1 failed, 2 errors, 1 xfailed", ["FAILED a::b", "ERROR c::d"])


def test_runs_land_in_an_ignored_folder() -> None:
    ignored = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", "conformance/.runs/cpu-5.txt"], check=False)
    if ignored.returncode == 128:
        pytest.skip("not a git checkout")
    assert ignored.returncode == 0


def test_the_conformance_extra_declares_what_the_runner_needs() -> None:
    import tomllib

    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["conformance"]
    names = {requirement.split(">")[0].split("=")[0].strip() for requirement in extra}
    spec = importlib.util.spec_from_file_location("conformance_run_modules", ROOT / "conformance" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert set(module.REQUIRED_MODULES.values()) <= names
    assert sys.version_info >= (3, 11)


def test_a_cuda_run_is_recorded_naming_the_gpu_driver_cupy_and_python(
    runner: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``make conformance-cuda`` (and shared/gpu/run.sh, which passes no --record) write
    conformance/results/cuda0-<examples>.txt, whose first line says what the run ran on."""
    monkeypatch.setenv("ARRAY_API_TESTS_DIR", str(_suite(tmp_path)))
    monkeypatch.setenv("PYTHONPATH", "/the/users/own/path")
    monkeypatch.setattr(runner, "_accelerator", lambda device: "NVIDIA H100 80GB HBM3")
    monkeypatch.setattr(runner, "_cuda_driver", lambda device: 13000)
    monkeypatch.setattr(runner, "_nvidia_driver", lambda device: "580.65.06")
    installed = runner._version
    monkeypatch.setattr(runner, "_version", lambda name: "14.2.0" if name == "cupy-cuda13x" else installed(name))
    runner.main(["--max-examples", "3", "--workers", "0", "--device", "cuda:0"])
    header = (tmp_path / "results" / "cuda0-3.txt").read_text().splitlines()[0]
    assert "dlarray on cuda:0, GPU NVIDIA H100 80GB HBM3, driver 580.65.06 (CUDA 13.0), cupy 14.2.0, " in header
    assert header.endswith(f"python {sys.version.split()[0]}")
    record = json.loads((tmp_path / "results" / "cuda0-3.json").read_text())["environment"]
    assert record["nvidia_driver"] == "580.65.06" and record["accelerator"] == "NVIDIA H100 80GB HBM3"
    assert not (tmp_path / "runs").exists()


# a stand-in for the suite's test_dunder_dlpack: the exception it raises, with the note the suite adds
DLPACK_TEST = '''
def test_dunder_dlpack():
    error = BufferError({message!r})
    error.add_note("x.__dlpack__ with copy_kw = {{'copy': {copy}}}, max_version_kw = {{}} and "
                   "dl_device_kw = {{'dl_device': (1, 0)}}")
    raise error
'''
DLPACK_TESTS = DLPACK_TEST.format(message="moving cuda:0 to the CPU needs a copy, and copy=False forbids it", copy=False)
OTHER_DLPACK_FAILURES = DLPACK_TEST.format(message="a copy=None export to the CPU must copy, not refuse", copy=None)

def _dlpack_suite(tmp_path: Path, tests: str) -> Path:
    suite = _suite(tmp_path)
    (suite / "array_api_tests" / "test_stand_in.py").unlink()
    (suite / "array_api_tests" / "test_dlpack.py").write_text(tests)
    return suite


def _on_a_gpu(runner: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "_accelerator", lambda device: "NVIDIA H100 80GB HBM3")
    monkeypatch.setattr(runner, "_cuda_driver", lambda device: 13000)
    monkeypatch.setattr(runner, "_nvidia_driver", lambda device: "580.65.06")


def test_the_known_suite_defect_is_counted_xfailed_with_its_reason(
    runner: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """array-api-tests#456: a BufferError for copy=False + dl_device=CPU on a GPU array is what the
    standard asks; the pinned suite fails on it, its fix (#457) accepts it."""
    monkeypatch.setenv("ARRAY_API_TESTS_DIR", str(_dlpack_suite(tmp_path, DLPACK_TESTS)))
    _on_a_gpu(runner, monkeypatch)
    assert runner.main(["--max-examples", "3", "--workers", "0", "--device", "cuda:0"]) == 0
    lines = (tmp_path / "results" / "cuda0-3.txt").read_text().splitlines()
    assert lines[1] == "0 passed, 0 skipped, 0 failed, 0 errors, 1 xfailed"
    assert lines[2] == ("XFAIL array_api_tests/test_dlpack.py::test_dunder_dlpack: suite defect "
                        "array-api-tests#456 (fixed upstream by #457, after the pinned commit): "
                        "__dlpack__(copy=False, dl_device=(kDLCPU, 0)) of a GPU array must raise BufferError")
    entry = json.loads((tmp_path / "results" / "cuda0-3.json").read_text())["tests"][
        "array_api_tests/test_dlpack.py::test_dunder_dlpack"]
    assert entry == {"outcome": "xfailed", "message": lines[2].partition(": ")[2]}


def test_the_same_refusal_on_the_cpu_is_a_failure(runner: ModuleType, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARRAY_API_TESTS_DIR", str(_dlpack_suite(tmp_path, DLPACK_TESTS)))
    assert runner.main(["--max-examples", "3", "--workers", "0"]) == 1
    assert (tmp_path / "runs" / "cpu-3.txt").read_text().splitlines()[1:] == [
        "0 passed, 0 skipped, 1 failed, 0 errors", "FAILED array_api_tests/test_dlpack.py::test_dunder_dlpack"]


def test_other_failures_of_that_test_stay_failures(runner: ModuleType, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARRAY_API_TESTS_DIR", str(_dlpack_suite(tmp_path, OTHER_DLPACK_FAILURES)))
    _on_a_gpu(runner, monkeypatch)
    assert runner.main(["--max-examples", "3", "--workers", "0", "--device", "cuda:0"]) == 1
    assert (tmp_path / "results" / "cuda0-3.txt").read_text().splitlines()[1] == "0 passed, 0 skipped, 1 failed, 0 errors"


def _defect_check() -> ModuleType:
    spec = importlib.util.spec_from_file_location("suite_defects", ROOT / "conformance" / "suite_defects.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _noted(error: BaseException, note: str) -> BaseException:
    error.add_note(note)
    return error


@pytest.mark.parametrize(("nodeid", "error", "device", "known"), [
    ("t/test_dlpack.py::test_dunder_dlpack", BufferError("copy"), "cuda:0", True),
    ("t/test_dlpack.py::test_dunder_dlpack", BufferError("copy"), "cpu", False),
    ("t/test_dlpack.py::test_dunder_dlpack", ValueError("copy"), "cuda:0", False),  # the standard says BufferError
    ("t/test_dlpack.py::test_from_dlpack", BufferError("copy"), "cuda:0", False),
])
def test_only_the_refusal_the_upstream_fix_accepts_is_a_known_defect(
    nodeid: str, error: BaseException, device: str, known: bool
) -> None:
    defects = _defect_check()
    drawn = "x.__dlpack__ with copy_kw = {'copy': False}, max_version_kw = {} and dl_device_kw = {'dl_device': (1, 0)}"
    assert (defects.known_defect(nodeid, _noted(error, drawn), device) is not None) is known
    other_draw = drawn.replace("'copy': False", "'copy': True")
    assert defects.known_defect(nodeid, _noted(BufferError("copy"), other_draw), device) is None
    assert defects.known_defect(nodeid, BufferError("no note"), device) is None


def test_a_simulated_cuda_run_is_never_recorded(runner: ModuleType, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARRAY_API_TESTS_DIR", str(_suite(tmp_path)))
    runner.main(["--max-examples", "3", "--workers", "0", "--simulated-cuda", "--", "-k", "not sees"])
    lines = (tmp_path / "runs" / "cuda0-simulated-3.txt").read_text().splitlines()
    assert "dlarray on cuda:0, simulated (tests/numpy_cupy.py: numpy playing cupy, no CUDA driver)," in lines[0]
    assert not (tmp_path / "results").exists()
    with pytest.raises(SystemExit):
        runner.main(["--simulated-cuda", "--record"])


def test_the_simulated_cuda_site_computes_cuda_arrays_with_numpy_cupy() -> None:
    """What a simulated run's processes see: the default device cuda:0, held and computed by
    tests/numpy_cupy.py, no driver loaded (nothing here reaches a real GPU)."""
    script = (
        "import dlarray as xp, sys\n"
        "from dlarray import _cuda\n"
        "x = xp.sin(xp.asarray([0.0, -0.0]))\n"
        "print(x.device, type(x._native).__module__, sys.modules['cupy'].__name__, _cuda._driver_state)\n"
        "try:\n"
        "    xp.linalg.inv(xp.zeros((2, 2)))\n"  # checked under the stand-in's cupyx.errstate
        "except Exception as error:\n"
        "    print(type(error).__name__)\n"
    )
    env = {**os.environ, "DLARRAY_DEFAULT_DEVICE": "cuda:0",
           "PYTHONPATH": f"{ROOT / 'conformance' / 'simulated_cuda'}{os.pathsep}{ROOT}"}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["cuda:0", "numpy_cupy", "numpy_cupy", "[None]", "LinAlgError"]
