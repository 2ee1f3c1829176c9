"""Every status statement and number on the site comes from a committed result file.

The pages state no result by hand (a scan of their Markdown for counts, timings, ratios and GPU
status phrases); the build-time generators of ``docs_hooks/mkdocs_hooks.py`` render exactly what the
result files hold (conformance per device, stress, benchmarks, the extras of pyproject.toml), and
say "no result file yet" where a file is absent, such as the CUDA conformance run until a GPU run is
recorded.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import tomllib
from pathlib import Path
from types import ModuleType

import needs
import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CONFORMANCE = ROOT / "conformance" / "results"
RESULTS = DOCS / "results"

needs.library("mkdocs")


@pytest.fixture(scope="module")
def hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_facts_docs_hooks", ROOT / "docs_hooks" / "mkdocs_hooks.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


# ------------------------------------------------------------------------------ nothing by hand
#: what a result looks like in prose: test counts, timings and sizes, ratios, GPU status phrases
RESULT_PATTERNS = {
    "a test count": r"\b\d[\d ,]*\s+(passed|failed|errors?|skipped)\b",
    "a GPU status": r"not (yet )?(been )?run on a GPU|no GPU (has|had) been available|have not run on a GPU",
    "a timing or size": r"\b\d+(\.\d+)?\s?(µs|us|ms|ns|MiB|KiB|GiB)\b",
    "a ratio": r"\b\d+(\.\d+)?(\s?[-–]\s?\d+(\.\d+)?)?\s?×(?!\s?\d)",
    "a speed-up": r"\b\d+(\.\d+)? times (faster|slower|numpy|cupy|torch)",
}
#: (page, text) stated by hand on purpose, with the reason
HAND_WRITTEN = {
    # a valgrind run takes an hour and is not part of `make stress`: the page says it was run by hand
    ("safety.md", "5 510 errors"),
    ("safety.md", "8 KiB"),
}


def prose_lines(page: Path) -> list[tuple[int, str]]:
    """The lines of a page outside fenced code blocks (examples print what they print)."""
    lines, fenced = [], False
    for number, line in enumerate(page.read_text().splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append((number, line))
    return lines


def site_pages() -> list[Path]:
    """The hand-written pages: docs/ except the API reference (rendered from the docstrings)."""
    return [page for page in sorted(DOCS.rglob("*.md")) if "api" not in page.relative_to(DOCS).parts]


def test_the_scan_sees_what_it_looks_for(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("1379 passed, 0 failed\nnot yet run on a GPU\n```\n12 passed\n```\nabout 0.7-0.85× numpy, 40 µs\n")
    found = [name for _, line in prose_lines(page) for name, pattern in RESULT_PATTERNS.items()
             if re.search(pattern, line)]
    assert found == ["a test count", "a GPU status", "a timing or size", "a ratio"]


@pytest.mark.parametrize("page", site_pages(), ids=lambda p: str(p.relative_to(DOCS)))
def test_no_page_states_a_result_by_hand(page: Path) -> None:
    """A result belongs in a result file and reaches the page through a generated section."""
    name = str(page.relative_to(DOCS))
    stated = []
    for number, line in prose_lines(page):
        for kind, pattern in RESULT_PATTERNS.items():
            for match in re.finditer(pattern, line):
                if (name, match.group()) not in HAND_WRITTEN:
                    stated.append(f"{name}:{number}: {kind} {match.group()!r}: {line.strip()[:100]}")
    assert not stated, "\n".join(stated)


def test_the_hand_written_exceptions_are_still_there() -> None:
    for page, text in HAND_WRITTEN:
        assert text in (DOCS / page).read_text(), (page, text)


#: the generated section each status-bearing page must use
STATUS_SECTIONS = {
    "index.md": "results-summary",
    "results/index.md": "status-table",
    "guide/devices-cuda.md": "cuda-status",
    "conformance.md": "conformance-result",
    "coverage.md": "coverage-table",
    "safety.md": "stress-result",
    "installation.md": "extras-table",
    "interop.md": "tested-versions",
}


@pytest.mark.parametrize(("page", "section"), sorted(STATUS_SECTIONS.items()))
def test_status_pages_use_their_generated_section(page: str, section: str) -> None:
    assert f"<!-- generated: {section} -->" in (DOCS / page).read_text().splitlines()


# ------------------------------------------------------------------------------ conformance
def _recorded(device: str) -> list[Path]:
    return sorted(CONFORMANCE.glob(f"{device}-*.txt"), key=lambda p: int(p.stem.split("-")[1]))


def test_the_cpu_result_is_rendered_as_recorded(hooks: ModuleType) -> None:
    latest = _recorded("cpu")[-1]
    summary = latest.read_text().splitlines()[1]
    record = json.loads(latest.with_suffix(".json").read_text())
    counts = {kind: int(n) for n, kind in re.findall(r"(\d+) (passed|skipped|failed|errors)", summary)}
    outcomes = [entry["outcome"] for entry in record["tests"].values()]
    assert counts["passed"] == outcomes.count("passed") == record["summary"].get("passed", 0)
    assert counts["failed"] == outcomes.count("failed")
    assert counts["skipped"] == outcomes.count("skipped")
    rendered = hooks.conformance_result(None)
    assert f"**{summary}**" in rendered
    assert record["environment"]["commit"][:7] in rendered and record["environment"]["python"] in rendered
    row = next(row for row in hooks.status_rows(None) if "CPU" in row[0])
    assert row[1].startswith(summary) and record["environment"]["time"][:10] in row[2]


def test_a_missing_cuda_result_is_said_to_be_missing(hooks: ModuleType, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLARRAY_CONFORMANCE_RESULTS", str(tmp_path))
    for path in _recorded("cpu"):
        shutil.copy(path, tmp_path)
    cuda = next(row for row in hooks.status_rows(None) if "CUDA (`cuda:0`)" in row[0])
    assert cuda[1].startswith(hooks.NO_RESULT)
    assert "No result file yet" in hooks.conformance_result(None)
    assert all(row["status"]["cuda0"] == hooks.NO_RESULT for row in hooks.coverage_rows())


def _cuda_record(tmp_path: Path, failing: str) -> None:
    cpu = _recorded("cpu")[-1]
    record = json.loads(cpu.with_suffix(".json").read_text())
    record["environment"].update(device="cuda:0", accelerator="NVIDIA H100 80GB HBM3", cuda_driver=13000,
                                 nvidia_driver="580.65.06")
    record["tests"][failing] = {"outcome": "failed", "message": "TypeError: a made-up failure"}
    passed = sum(1 for entry in record["tests"].values() if entry["outcome"] == "passed")
    skipped = sum(1 for entry in record["tests"].values() if entry["outcome"] == "skipped")
    record["summary"] = {"passed": passed, "skipped": skipped, "failed": 1}
    (tmp_path / "cuda0-200.json").write_text(json.dumps(record))
    (tmp_path / "cuda0-200.txt").write_text(
        f"array-api-tests 55fcc60 (spec 5f847a3), dlarray on cuda:0, --max-examples=200\n"
        f"{passed} passed, {skipped} skipped, 1 failed, 0 errors\nFAILED {failing}\n")


def test_a_cuda_result_is_rendered_with_its_gpu(hooks: ModuleType, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLARRAY_CONFORMANCE_RESULTS", str(tmp_path))
    failing = "array_api_tests/test_operators_and_elementwise_functions.py::test_abs[abs]"
    _cuda_record(tmp_path, failing)
    summary = (tmp_path / "cuda0-200.txt").read_text().splitlines()[1]
    cuda = next(row for row in hooks.status_rows(None) if "CUDA (`cuda:0`)" in row[0])
    assert cuda[1].startswith(summary) and "NVIDIA H100 80GB HBM3" in cuda[2] and "580.65.06 (CUDA 13.0)" in cuda[2]
    rendered = hooks.conformance_result(None)
    assert f"**{summary}**" in rendered and "TypeError: a made-up failure" in rendered
    rows = {row["name"]: row for row in hooks.coverage_rows()}
    assert rows["abs"]["status"]["cuda0"].startswith("**FAIL** 1 of")
    assert rows["sin"]["status"]["cuda0"].startswith("pass")
    assert all(row["status"]["cpu"] == hooks.NO_RESULT for row in rows.values())  # no cpu file in tmp_path


def test_a_known_suite_defect_is_shown_as_such(hooks: ModuleType, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """conformance/suite_defects.py counts array-api-tests#456 as xfailed on a GPU run: the site
    says so beside the counts, never among the failures."""
    monkeypatch.setenv("DLARRAY_CONFORMANCE_RESULTS", str(tmp_path))
    nodeid = "array_api_tests/test_dlpack.py::test_dunder_dlpack"
    _cuda_record(tmp_path, nodeid)
    record = json.loads((tmp_path / "cuda0-200.json").read_text())
    reason = "suite defect array-api-tests#456 (fixed upstream by #457, after the pinned commit)"
    record["tests"][nodeid] = {"outcome": "xfailed", "message": reason}
    record["summary"] = {**record["summary"], "failed": 0, "xfailed": 1}
    (tmp_path / "cuda0-200.json").write_text(json.dumps(record))
    header, summary, _ = (tmp_path / "cuda0-200.txt").read_text().splitlines()
    summary = summary.replace("1 failed, 0 errors", "0 failed, 0 errors, 1 xfailed")
    (tmp_path / "cuda0-200.txt").write_text(f"{header}\n{summary}\nXFAIL {nodeid}: {reason}\n")
    run = hooks.conformance_run("cuda0")
    assert run.failures == [] and run.known_defects == [f"XFAIL {nodeid}: {reason}"]
    rendered = hooks.conformance_result(None)
    assert "failed or erroring" not in rendered.split("### CUDA")[1]
    assert "1 known defect of the pinned suite, counted as xfailed" in rendered and reason in rendered
    assert "| xfailed |" in rendered and "| `test_dlpack.py` |" in rendered
    # __dlpack__ is a method, not a row of the coverage table; a function's row would say it
    assert hooks._coverage_cell(["passed", "xfailed", "skipped"], "cuda0", run) == "pass (1), 1 suite defect (xfailed)"
    assert hooks._coverage_cell(["passed", "xfailed", "failed"], "cuda0", run) == "**FAIL** 1 of 3"


def test_a_summary_without_a_record_is_rendered_from_its_header(hooks: ModuleType, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A .txt alone (a runner older than the per-test record) still shows, with its header as provenance."""
    monkeypatch.setenv("DLARRAY_CONFORMANCE_RESULTS", str(tmp_path))
    (tmp_path / "cuda0-200.txt").write_text("array-api-tests 55fcc60, dlarray on cuda:0, python 3.12.3\n"
                                            "475 passed, 0 skipped, 904 failed, 0 errors\n")
    cuda = next(row for row in hooks.status_rows(None) if "CUDA (`cuda:0`)" in row[0])
    assert cuda[1].startswith("475 passed, 0 skipped, 904 failed, 0 errors") and "python 3.12.3" in cuda[2]
    assert {row["status"]["cuda0"] for row in hooks.coverage_rows()} == {"no per-test record"}


# ------------------------------------------------------------------------------ scikit-learn's and SciPy's suites
def test_the_conformance_page_shows_the_downstream_suites() -> None:
    assert "<!-- generated: downstream-result -->" in (DOCS / "conformance.md").read_text().splitlines()


def test_the_downstream_result_is_rendered_as_recorded(hooks: ModuleType) -> None:
    path = CONFORMANCE / "downstream.json"
    if not path.is_file():
        pytest.skip("conformance/results/downstream.json is not recorded yet (make downstream)")
    record = json.loads(path.read_text())
    rendered = hooks.downstream_result(None)
    assert record["environment"]["commit"][:7] in rendered and record["environment"]["time"][:10] in rendered
    row = next(row for row in hooks.status_rows(None) if "scikit-learn's and SciPy's" in row[0])
    for suite, summary in record["suites"].items():
        for namespace in (record["standin"], record["reference"]):
            counts = summary["counts"][namespace]
            shown = hooks.downstream_counts(record, suite, namespace)
            assert shown.startswith(f"{counts['passed']} passed, {counts['failed']} failed, {counts['error']} errors")
            assert f"| {suite} | `{namespace}` | {shown} |" in rendered
        assert f"{suite} with {record['standin']}: {hooks.downstream_counts(record, suite, record['standin'])}" in row[1]
        failures = record["failures"][suite]
        if failures:
            assert hooks.counted(len(failures), "failed or erroring test") in rendered and failures[0]["nodeid"] in rendered
    for target in record["targets"].values():
        assert f"**{target['verdict']}**" in rendered
    for key in record["suite_causes"]:
        assert f"| `{key}` |" in rendered


def test_a_missing_downstream_result_is_said_to_be_missing(hooks: ModuleType, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLARRAY_CONFORMANCE_RESULTS", str(tmp_path))
    assert "No result file yet (`conformance/results/downstream.json` is absent)" in hooks.downstream_result(None)
    row = next(row for row in hooks.status_rows(None) if "scikit-learn's and SciPy's" in row[0])
    assert row[1].startswith(hooks.NO_RESULT)


# ------------------------------------------------------------------------------ coverage table
def test_the_coverage_table_has_every_function_of_the_standard(hooks: ModuleType) -> None:
    import dlarray

    spec = json.loads((RESULTS / "array-api-2025.12.json").read_text())
    rows = hooks.coverage_rows()
    assert [row["name"] for row in rows] == [f["name"] for f in spec["functions"]]
    assert len(rows) > 150
    info = dlarray.__array_namespace_info__()
    for row in rows:
        assert row["url"].startswith("https://data-apis.org/array-api/2025.12/"), row
        owner, _, name = row["name"].rpartition(".")
        target = info if owner == "__array_namespace_info__()" else getattr(dlarray, owner) if owner else dlarray
        assert callable(getattr(target, name)), row["name"]
    table = hooks.coverage_table(None)
    for row in rows:
        assert f"[`{row['name']}`]({row['url']})" in table


def test_every_function_is_tested_by_the_recorded_cpu_run(hooks: ModuleType) -> None:
    """The suite names every function of the standard in some test, and the CPU record has them all."""
    untested = [row["name"] for row in hooks.coverage_rows() if row["status"]["cpu"] == "not tested by the suite"]
    assert not untested


@pytest.mark.parametrize(("nodeid", "expected"), [
    ("array_api_tests/test_special_cases.py::test_unary[sin(x_i is NaN) -> NaN]", {"sin"}),
    ("array_api_tests/test_special_cases.py::test_iop[__iadd__(x1_i is NaN) -> NaN]", set()),
    ("array_api_tests/test_linalg.py::test_linalg_matmul", {"linalg.matmul"}),
    ("array_api_tests/test_linalg.py::test_matmul", {"matmul"}),
    ("array_api_tests/test_linalg.py::test_cholesky", {"linalg.cholesky"}),
    ("array_api_tests/test_fft.py::test_rfft", {"fft.rfft"}),
    ("array_api_tests/test_has_names.py::test_has_names[linalg-qr]", {"linalg.qr"}),
    ("array_api_tests/test_signatures.py::test_extension_func_signature[fft.hfft]", {"fft.hfft"}),
    ("array_api_tests/test_manipulation_functions.py::TestExpandDims::test_expand_dims_tuples", {"expand_dims"}),
    ("array_api_tests/test_data_type_functions.py::TestBroadcastShapes::test_empty", {"broadcast_shapes"}),
    ("array_api_tests/test_signatures.py::test_info_func_signature[devices]", {"__array_namespace_info__().devices"}),
    ("array_api_tests/test_operators_and_elementwise_functions.py::test_binary_with_scalars_bool[logical_or]",
     {"logical_or"}),
])
def test_tests_are_mapped_to_the_functions_they_name(hooks: ModuleType, nodeid: str, expected: set[str]) -> None:
    names = {f["name"] for f in hooks.spec_functions()["functions"]}
    assert hooks.functions_of_test(nodeid, names) == expected


def test_stored_only_notes_are_measured(hooks: ModuleType) -> None:
    import dlarray as xp

    support = hooks.stored_only_support(["astype", "sin", "reshape"])
    assert "bfloat16" in support["astype"] and "bfloat16" in support["reshape"]
    assert "sin" not in support
    with pytest.raises(TypeError):
        xp.sin(xp.astype(xp.asarray([1.0]), xp.bfloat16))


def test_difference_links_point_at_documented_functions(hooks: ModuleType) -> None:
    differences = hooks.documented_differences()
    names = {f["name"] for f in hooks.spec_functions()["functions"]}
    assert {"astype", "result_type", "from_dlpack", "asarray", "to_device"} <= set(differences)
    text = (DOCS / "differences.md").read_text()
    anchors = {re.sub(r"[^\w\- ]", "", h[3:].strip().lower()).replace(" ", "-")
               for h in text.splitlines() if h.startswith("## ")}
    assert {anchor for name, anchor in differences.items() if name in names} <= anchors


def test_every_difference_names_an_existing_test() -> None:
    for test in re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", (DOCS / "differences.md").read_text()):
        path, name = ROOT / test[0], test[1]
        assert path.is_file(), test
        assert re.search(rf"^def {name}\(", path.read_text(), re.MULTILINE), test


# ------------------------------------------------------------------------------ stress, benchmarks, extras
def test_the_stress_result_is_rendered_as_recorded(hooks: ModuleType) -> None:
    record = json.loads((RESULTS / "stress.json").read_text())
    rendered = hooks.stress_result(None)
    for check in record["checks"]:
        assert f"| {check['name']} | {check['verdict']} | {hooks.plain(check['detail'])} |" in rendered
    assert record["environment"]["commit"][:7] in rendered
    row = next(row for row in hooks.status_rows(None) if "stress" in row[0])
    assert row[1].startswith("PASS" if all(c["verdict"] != "FAIL" for c in record["checks"]) else "FAIL")


def test_benchmark_rows_count_the_recorded_targets(hooks: ModuleType) -> None:
    for stem, title in hooks.BENCHMARK_FILES.items():
        path = ROOT / "benchmarks" / "results" / f"{stem}.json"
        row = next(row for row in hooks.status_rows(None) if row[0].endswith(f": {title}"))
        if not path.is_file():
            assert row[1].startswith(hooks.NO_RESULT)
            continue
        verdicts = [t.get("verdict") for t in json.loads(path.read_text())["targets"].values()]
        judged = [v for v in verdicts if v in ("MET", "NOT MET")]
        assert row[1].startswith(f"{judged.count('MET')} of {len(judged)} targets met")


def test_the_extras_table_is_pyprojects(hooks: ModuleType) -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    rendered = hooks.extras_table(None)
    for extra, requirements in extras.items():
        line = next(line for line in rendered.splitlines() if line.startswith(f"| `{extra}` |"))
        assert line.split(" | ")[1] == ", ".join(f"`{r}`" for r in requirements)


def test_tested_versions_come_from_the_result_files(hooks: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hooks, "installed_versions", lambda: {"numpy": "9.9.9"})
    recorded = hooks.recorded_versions()
    kit = json.loads((RESULTS / "dlpack-kit" / "torch.json").read_text())
    assert "`docs/results/dlpack-kit/torch.json`" in recorded["torch"][kit["version"]]
    rendered = hooks.tested_versions(None)
    numpy_row = next(line for line in rendered.splitlines() if line.startswith("| numpy |"))
    assert numpy_row.endswith("| 9.9.9 |") and "`numpy>=2` (required)" in numpy_row
    assert "| cupy |" in rendered


def test_tested_versions_name_what_is_installed_beyond_the_probe(hooks: ModuleType) -> None:
    """scikit-learn, SciPy and pydlpack are not exchanged with by the probe, yet are installed here
    (the test and bench extras): their rows say which version, not "not installed"."""
    import importlib.metadata

    rendered = hooks.tested_versions(None)
    for library, distribution in (("scikit-learn", "scikit-learn"), ("scipy", "scipy"), ("pydlpack", "pydlpack")):
        try:
            version = importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            continue
        row = next(line for line in rendered.splitlines() if line.startswith(f"| {library} |"))
        assert row.endswith(f"| {version} |"), row


def test_links_are_relative_to_the_page(hooks: ModuleType) -> None:
    class File:
        src_uri = "guide/devices-cuda.md"

    class Page:
        file = File()

    table = hooks.cuda_status(Page())
    assert "](../conformance.md)" in table and "](dlpack-conformance.md)" in table
    assert "](../benchmarks.md)" in table
    assert "](conformance.md)" in hooks.status_table(None)
    assert "](conformance.md)" in hooks.results_summary(None)


def test_the_results_summary_says_what_each_file_holds(hooks: ModuleType, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The ten-second summary: the CPU suite's counts, the consumers' targets, each benchmark's targets
    (naming those not met), and on a GPU what was measured, with its GPU, or once that nothing was."""
    summary = hooks.results_summary(None)
    cpu, gpu = summary.split("**On a GPU**")
    run = hooks.conformance_run("cpu")
    assert run.summary in cpu
    for stem in hooks.BENCHMARK_FILES:
        record = hooks._bench_record(stem)
        if record is None or stem in hooks.CUDA_BENCHMARKS:
            continue
        assert hooks._targets_met(record) in cpu
        for name, target in record["targets"].items():
            assert (hooks.plain(name) in cpu) == (target.get("verdict") == "NOT MET"), name
    for stem in hooks.CUDA_BENCHMARKS:  # a GPU benchmark's record names its GPU beside the environment
        record = hooks._bench_record(stem)
        if record is not None and record.get("device"):
            assert f"{record['device']})" in gpu, stem
    monkeypatch.setenv("DLARRAY_CONFORMANCE_RESULTS", str(tmp_path))
    no_benchmarks = tmp_path / "no-benchmarks"
    no_benchmarks.mkdir()
    monkeypatch.setenv("DLARRAY_BENCH_RESULTS", str(no_benchmarks))  # the committed GPU benchmarks out of sight
    assert hooks.results_summary(None).split("**On a GPU**")[1].count("Nothing has been measured on a GPU") == 1
    _cuda_record(tmp_path, "array_api_tests/test_operators_and_elementwise_functions.py::test_abs[abs]")
    gpu = hooks.results_summary(None).split("**On a GPU**")[1]
    assert "NVIDIA H100 80GB HBM3" in gpu and "Nothing else has been measured on a GPU" in gpu
