"""The benchmark plots and the benchmarks page are drawn from the results JSON files alone.

``benchmarks/plots.py`` draws every plot from its JSON; ``docs_hooks/bench_page.py`` renders the
page's tables from the same files. These tests use the committed results (and, for the CUDA
section, which needs a GPU run, a folder with and without a ``cuda.json`` of made-up rendering
input; for the blocks a recorded run may predate, the general path, the exchange API and the
dispatch floor, made-up input in the layout the scripts write): every library keeps one colour in
every plot, the dispatch titles say what the inputs are, every result file present appears on the
page while a missing one says how to make it, and a block a file lacks is said to be missing once.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
HAS_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None
needs_matplotlib = pytest.mark.skipif(not HAS_MATPLOTLIB, reason="matplotlib comes with the bench extra")


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


plots = _load("dlarray_benchmark_plots", ROOT / "benchmarks" / "plots.py")
bench_page = _load("dlarray_bench_page", ROOT / "docs_hooks" / "bench_page.py")
harness = _load("dlarray_bench_harness", ROOT / "benchmarks" / "_harness.py")

PAGE = SimpleNamespace(file=SimpleNamespace(src_uri="benchmarks.md"))


def _committed(stem: str) -> dict[str, Any]:
    path = RESULTS / f"{stem}.json"
    if not path.is_file():
        pytest.skip(f"benchmarks/results/{stem}.json is not committed")
    return json.loads(path.read_text())


def _figure(monkeypatch: pytest.MonkeyPatch, plot: Any, data: dict[str, Any]) -> Any:
    """The matplotlib figure a plot function draws, kept open instead of saved."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    drawn = []
    monkeypatch.setattr(plots, "_save", lambda path, draw: drawn.append(draw(plt)) or True)
    plot(data, Path("unused.png"))
    return drawn[0]


# ------------------------------------------------------------------------------ plots
def test_every_library_has_its_own_colour() -> None:
    assert len(set(plots.LIBRARY_COLOURS.values())) == len(plots.LIBRARY_COLOURS)


@needs_matplotlib
def test_dlpack_curves_take_the_colour_of_the_library_called(monkeypatch: pytest.MonkeyPatch) -> None:
    figure = _figure(monkeypatch, plots.plot_dlpack, _committed("dlpack"))
    lines = [line for ax in figure.axes for line in ax.get_lines() if not line.get_label().startswith("_")]
    assert lines
    for line in lines:
        library = line.get_label().split(".", 1)[0]
        assert line.get_color() == plots.LIBRARY_COLOURS[library], line.get_label()
    for ax in figure.axes:  # legends sit below their panel, outside the axes
        legend = ax.get_legend()
        assert legend is not None and legend.get_bbox_to_anchor().y1 < ax.get_window_extent().y0


@needs_matplotlib
def test_dispatch_bars_take_the_colour_of_their_library(monkeypatch: pytest.MonkeyPatch) -> None:
    import matplotlib.colors

    figure = _figure(monkeypatch, plots.plot_dispatch, _committed("dispatch"))
    legend = figure.legends[0]
    names = [text.get_text() for text in legend.get_texts()]
    assert names == ["numpy", "dlarray", "array-api-strict"]
    for handle, library in zip(legend.legend_handles, plots.NAMESPACES):
        assert (
            matplotlib.colors.to_hex(handle.get_facecolor()).upper() == plots.LIBRARY_COLOURS[library].upper()
        )


def test_dispatch_titles_say_what_the_inputs_are() -> None:
    cases = _committed("dispatch")["cases"]
    small = plots.dispatch_case_title("small", cases["small"]["sizes"])
    large = plots.dispatch_case_title("large", cases["large"]["sizes"])
    assert "10 elements" in small and "8×8 matrices" in small and "list of 10 floats" in small
    assert "10,000,000 elements" in large and "1000×1000 matrices" in large and "100,000 floats" in large
    assert plots.dispatch_operation_label("matmul 8x8", cases["small"]["sizes"]) == "A @ B\n8×8"


@needs_matplotlib
@pytest.mark.parametrize("stem", ["dlpack", "dispatch", "sklearn"])
def test_render_draws_each_committed_result(stem: str, tmp_path: Path) -> None:
    shutil.copy(RESULTS / f"{stem}.json", tmp_path)
    assert plots.render(stem, tmp_path)
    assert (tmp_path / plots.PLOT_FILES[stem]).stat().st_size > 0


def test_render_without_its_json_draws_nothing(tmp_path: Path) -> None:
    assert plots.render("cuda", tmp_path) is False
    assert not (tmp_path / "cuda.png").exists()


def test_plots_refuses_an_unknown_name() -> None:
    with pytest.raises(SystemExit):
        plots.main(["--results", str(RESULTS), "no-such-plot"])


# ------------------------------------------------------------------------------ the page
def test_page_shows_every_committed_result() -> None:
    text = bench_page.benchmark_results(PAGE)
    dlpack, dispatch, sklearn = _committed("dlpack"), _committed("dispatch"), _committed("sklearn")
    # "Ratios per size": one column per size, one row per per-size target
    assert "#### Ratios per size" in text
    per_size = text[text.index("#### Ratios per size"):]  # other tables open with "| ratio |" too
    header = next(line for line in per_size.splitlines() if line.startswith("| ratio |"))
    assert header.count("|") == len(dlpack["sizes"]) + 3
    for name, target in dlpack["targets"].items():
        assert bench_page.plain(name) in text and target["verdict"] in text
    # the dispatch cases, each titled with what its rows are
    for case, rows in dispatch["cases"].items():
        assert (
            f"#### {case.capitalize()} inputs\n\n{plots.dispatch_inputs(rows['sizes']).capitalize()}." in text
        )
    # scikit-learn: one row per estimator, with its times
    for label, row in sklearn["estimators"].items():
        line = next(line for line in text.splitlines() if line.startswith(f"| `{label}`"))
        assert bench_page._number(row["dlarray_ms"]) in line
    for stem in ("dlpack", "dispatch", "sklearn"):
        if (RESULTS / plots.PLOT_FILES[stem]).is_file():
            assert f"assets/benchmarks/{plots.PLOT_FILES[stem]}" in text


def test_page_explains_jax_copies_when_they_were_measured() -> None:
    data = _committed("dlpack")
    if "jax.from_dlpack(numpy)" not in data["timings"]:
        pytest.skip("the committed run has no --compare rows")
    note = "\n".join(bench_page._copy_note(data))
    assert "64 bytes" in note and "`jax.from_dlpack(numpy)`" in note


def test_missing_cuda_result_says_it_needs_a_gpu_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DLARRAY_BENCH_RESULTS", str(tmp_path))
    text = bench_page.benchmark_results(PAGE)
    cuda = text[text.index("### CUDA hand-offs") :]
    assert "Not measured yet" in cuda and "CUDA GPU" in cuda and "make bench-cuda" in cuda
    assert text.count("Not measured yet") == len(bench_page.SECTIONS)  # the folder is empty


def _cuda_json(folder: Path) -> None:
    """Rendering input only (nothing measured): the layout bench_cuda.py writes."""
    timings = {
        "import: dlarray.from_dlpack(torch)": {"10": {"median_us": 4.25}, "100000": {"median_us": 4.5}},
        "import: cupy.from_dlpack(torch)": {"10": {"median_us": 6.75}, "100000": None},
        "compute x + y: dlarray": {"small": {"median_us": 9.5}, "large": {"median_us": 410.0}},
        "compute x + y: array_api_compat.cupy": {"small": {"median_us": 12.5}, "large": {"median_us": 412.0}},
        "compute x + y: cupy": {"small": {"median_us": 7.5}, "large": {"median_us": 405.0}},
    }
    target = {"value": 0.63, "target": "<= 1", "met": True, "verdict": "MET", "unit": "", "detail": {}}
    (folder / "cuda.json").write_text(
        json.dumps(
            {
                "environment": {
                    "time": "T",
                    "cpu_model": "Some CPU",
                    "cpu_count": 8,
                    "versions": {"cupy": "x"},
                },
                "device": "Some GPU",
                "timings": timings,
                "errors": {},
                "targets": {"import ratio": target},
                "compat_passes_through": {"x + y": True, "sin(x)": False, "sum(x)": True},
            }
        )
    )


def _rendered_section(folder: Path, monkeypatch: pytest.MonkeyPatch, title: str) -> str:
    """The benchmarks page's section ``title``, rendered from the result files in ``folder``;
    it must not say that it was not measured."""
    monkeypatch.setenv("DLARRAY_BENCH_RESULTS", str(folder))
    section = bench_page.benchmark_results(PAGE).split(f"### {title}")[1].split("\n### ")[0]
    assert "Not measured yet" not in section
    return section


def _assert_shows(section: str, *fragments: str) -> None:
    """Each fragment appears in the rendered section."""
    for fragment in fragments:
        assert fragment in section


def test_cuda_result_is_rendered_when_present(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _cuda_json(tmp_path)
    cuda = _rendered_section(tmp_path, monkeypatch, "CUDA hand-offs")
    _assert_shows(
        cuda,
        "GPU: Some GPU",
        "Machine: Some CPU, 8 logical CPUs",
        "| operation (median µs) | 10 | 10⁵ |",
        "| `import: dlarray.from_dlpack(torch)` | 4.25 | 4.5 |",
        "| `import: cupy.from_dlpack(torch)` | 6.75 | n/a |",
        "| operation (median µs) | small | large |",
        "| `compute x + y: array_api_compat.cupy` | 12.5 | 412 |",
        "| import ratio | 0.63 | <= 1 |",
        "compat.cupy's `x + y`, `sum(x)` are cupy's own function (compat adds no code)",
        "no plot: `cuda.png` was not drawn",
    )


@needs_matplotlib
def test_cuda_plot_colours_each_library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import matplotlib.colors

    _cuda_json(tmp_path)
    assert plots.render("cuda", tmp_path) and (tmp_path / "cuda.png").stat().st_size > 0
    figure = _figure(monkeypatch, plots.plot_cuda, json.loads((tmp_path / "cuda.json").read_text()))
    legend = figure.legends[0]
    assert [text.get_text() for text in legend.get_texts()] == ["dlarray", "cupy", "array_api_compat.cupy"]
    for handle, library in zip(legend.legend_handles, ("dlarray", "cupy", "array_api_compat")):
        assert matplotlib.colors.to_hex(handle.get_color()).upper() == plots.LIBRARY_COLOURS[library].upper()


def test_environment_line_names_the_cpu_or_says_it_was_not_recorded() -> None:
    named = bench_page.environment_line(
        {"cpu_model": "AMD EPYC 7B13", "cpu_count": 2, "commit": "a" * 40}, "x.py"
    )
    assert "Machine: AMD EPYC 7B13, 2 logical CPUs" in named and f"commit `{'a' * 12}`" in named
    assert "CPU model not recorded" in bench_page.environment_line({"cpu_count": 2}, "x.py")


def test_results_record_the_cpu_model_and_commit() -> None:
    env = harness.environment(harness.Settings.for_mode(True), True, ["numpy"])
    assert "cpu_model" in env and "commit" in env
    if Path("/proc/cpuinfo").is_file():
        assert env["cpu_model"]


def _sklearn_cuda_json(folder: Path) -> dict[str, Any]:
    """Rendering input only (nothing measured): the layout bench_sklearn.py --device cuda:0 writes."""
    target = {"value": 1.08, "target": "<= 1.1", "met": True, "verdict": "MET", "unit": "", "detail": {}}
    missed = dict(target, value=1.25, met=False, verdict="NOT MET")
    data = {
        "benchmark": "sklearn_cuda",
        "environment": {"time": "T", "cpu_model": "Some CPU", "cpu_count": 8, "versions": {"cupy": "x"}},
        "data": {"samples": 20000, "features": 50, "dtype": "float64"},
        "libraries": ["numpy", "cupy", "dlarray"],
        "ratios": {"dlarray_over_cupy": "cupy"},
        "device": "Some GPU",
        "device_argument": "cuda:0",
        "estimators": {
            "PCA()": {"numpy_ms": 26.5, "cupy_ms": 5.25, "dlarray_ms": 5.5, "dlarray_over_cupy": 1.05},
            "Ridge()": {"numpy_ms": 30.5, "cupy_ms": 4.0, "dlarray_ms": 5.0, "dlarray_over_cupy": 1.25},
        },
        "timings": {},
        "errors": {},
        "targets": {
            "PCA(): dlarray / cupy": dict(target, value=1.05),
            "Ridge(): dlarray / cupy": missed,
            "all estimators: dlarray / cupy": missed,
            "all estimators together (sum of fit times): dlarray / cupy": target,
        },
        "profiles": {},
    }
    (folder / "sklearn_cuda.json").write_text(json.dumps(data))
    return data


def test_sklearn_gpu_result_is_rendered_when_present(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _sklearn_cuda_json(tmp_path)
    section = _rendered_section(tmp_path, monkeypatch, "scikit-learn fits on a CUDA GPU")
    _assert_shows(
        section,
        "by `benchmarks/bench_sklearn.py --device cuda:0`",
        "on the GPU (Some GPU) by cupy and dlarray, on the CPU by numpy",
        "| estimator | numpy ms | cupy ms | dlarray ms | dlarray / cupy |",
        "| `PCA()` | 26.5 | 5.25 | 5.5 | 1.05 ",
        "| `Ridge()` | 30.5 | 4 | 5 | 1.25 ",
        "| all estimators together (sum of fit times): dlarray / cupy | 1.08 | <= 1.1 |",
        "no plot: `sklearn_cuda.png` was not drawn",
    )


def test_sklearn_cpu_result_without_a_library_list_keeps_its_columns() -> None:
    """sklearn.json files written before the GPU run existed list no libraries: the CPU run's."""
    data = _committed("sklearn")
    data.pop("libraries", None)
    data.pop("ratios", None)
    table = "\n".join(bench_page.sklearn_section(data, PAGE))
    assert ("| estimator | numpy ms | dlarray ms | array-api-strict ms | dlarray / numpy | "
            "dlarray / array-api-strict |") in table


@needs_matplotlib
def test_sklearn_gpu_plot_colours_each_library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import matplotlib.colors

    data = _sklearn_cuda_json(tmp_path)
    assert plots.render("sklearn_cuda", tmp_path) and (tmp_path / "sklearn_cuda.png").stat().st_size > 0
    figure = _figure(monkeypatch, plots.plot_sklearn, data)
    legend = figure.axes[0].get_legend()
    assert [text.get_text() for text in legend.get_texts()] == ["numpy", "cupy", "dlarray"]
    for handle, library in zip(legend.legend_handles, data["libraries"]):
        colour = matplotlib.colors.to_hex(handle.get_facecolor())
        assert colour.upper() == plots.LIBRARY_COLOURS[library].upper()
    assert "GPU: Some GPU (numpy on the CPU)" in figure.axes[0].get_xlabel()


# ------------------------------------------------------------------------------ issue 33's blocks
# Rendering input only (nothing measured): the layouts that ``bench_dlpack.run_general``,
# ``bench_dlpack.run_exchange`` and ``bench_dispatch.run_floor`` write (as a ``--quick`` run writes
# them), with made-up numbers. The page must show each block's rows as the block has them, the
# verdict of each target, and say once per block when the recorded run has none.
def _pair(us: float, reference_us: float, ratio: float, low: float, high: float) -> dict[str, Any]:
    """A ``_harness.Against`` as ``asdict`` writes it."""
    return {"us": us, "reference_us": reference_us, "ratio": ratio, "ratio_quartiles": [low, high],
            "difference_us": us - reference_us}


def _target(value: float | None, bound: float, met: bool | None) -> dict[str, Any]:
    """A ``_harness.Target.as_dict()``."""
    verdict = {True: "MET", False: "NOT MET", None: "n/a"}[met]
    return {"value": value, "target": f"<= {bound:g}", "met": met, "verdict": verdict, "unit": "",
            "detail": {}}


GENERAL_MET = "general path: from_dlpack(producer) / floor(producer)"
GENERAL_MISSED = "stretch: from_dlpack(producer) / numpy.from_dlpack(producer)"
GENERAL_UNJUDGED = "from_dlpack(a second publisher) / floor(a second publisher)"  # a row the script may add


def _with_general(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (a dlpack.json) with a general block of three statements and three ratios, two of
    them judged."""
    statements = {"dlarray.from_dlpack(producer)": "dl_from(p)", "floor(producer)": "floor_import(p)",
                  "numpy.from_dlpack(producer)": "np_from(p)"}
    data = dict(data, targets=dict(data["targets"]))
    data["general"] = {
        "rounds": 11,
        "statements": statements,
        "median_us": dict(zip(statements, (2.75, 2.5, 0.625))),
        "min_us": dict(zip(statements, (2.625, 2.375, 0.5))),
        "ratios": {
            GENERAL_MET: _pair(2.75, 2.5, 1.125, 1.0625, 1.1875),
            GENERAL_MISSED: _pair(2.75, 0.625, 4.375, 4.25, 4.5),
            GENERAL_UNJUDGED: _pair(2.75, 2.5, 1.0625, 1.03125, 1.09375),
        },
    }
    data["targets"][GENERAL_MET] = _target(1.125, 1.25, True)
    data["targets"][GENERAL_MISSED] = _target(4.375, 3.0, False)
    return data


def _block(section: str, heading: str) -> str:
    """The text of one ``#### heading`` block of a benchmark section, up to the next block."""
    return section.split(f"#### {heading}")[1].split("\n#### ")[0]


def test_general_path_block_shows_its_rows_and_verdicts() -> None:
    section = "\n".join(bench_page.dlpack_section(_with_general(_committed("dlpack")), PAGE))
    general = _block(section, "The general path")
    _assert_shows(
        general,
        "| `dlarray.from_dlpack(producer)` | 2.75 | 2.62 |",
        "| `floor(producer)` | 2.5 | 2.38 |",
        "| `numpy.from_dlpack(producer)` | 0.625 | 0.5 |",
        "- floor(producer): `floor_import(p)`",
        "same 11 rounds",
        f"| {bench_page.plain(GENERAL_MET)} | 1.12 | 1.06–1.19 | <= 1.25 | {bench_page._VERDICT['MET']} |",
        f"| {bench_page.plain(GENERAL_MISSED)} | 4.38 | 4.25–4.5 | <= 3 | {bench_page._VERDICT['NOT MET']} |",
        f"| {bench_page.plain(GENERAL_UNJUDGED)} | 1.06 | 1.03–1.09 | not judged |  |",
    )
    assert "No recorded run" not in general


def _with_exchange(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (a dlpack.json) with an exchange block: one publisher timed, one not installed."""
    statements = {
        "dlarray.from_dlpack (exchange API)": "dl_from(o)",
        "dlarray.from_dlpack (its __dlpack__)": "dl_from(f)",
        "peer's own from_dlpack": "peer(o)",
    }
    first, second, peer = statements
    data = dict(data, targets=dict(data["targets"]))
    data["exchange"] = {
        "rounds": 11,
        "statements": statements,
        "publishers": {
            "Publisher A": {
                "median_us": {first: 1.5, second: 2.5, peer: 0.75},
                "min_us": {first: 1.25, second: 2.25, peer: 0.5},
                "exchange_over": {
                    second: _pair(1.5, 2.5, 0.625, 0.5, 0.75),
                    peer: _pair(1.5, 0.75, 2.0, 1.75, 2.25),
                },
            },
            "Publisher B": {"error": "not installed (pip install dlarray[exchange])"},
        },
        "versions": {"publisher-a": "1.0", "publisher-b": None},
    }
    for publisher, value, met in (("Publisher A", 0.625, True), ("Publisher B", None, None)):
        data["targets"][f"exchange API: from_dlpack({publisher}) / from_dlpack(its __dlpack__)"] = _target(
            value, 1.0, met
        )
    return data


def test_exchange_block_shows_each_publisher_and_its_targets() -> None:
    section = "\n".join(bench_page.dlpack_section(_with_exchange(_committed("dlpack")), PAGE))
    exchange = _block(section, "The C exchange API of other publishers")
    _assert_shows(
        exchange,
        "Installed: publisher-a 1.0, publisher-b not installed.",
        "| Publisher A: dlarray.from\\_dlpack (exchange API) | 1.5 | 1.25 |  |  |",
        "| Publisher A: dlarray.from\\_dlpack (its \\_\\_dlpack\\_\\_) | 2.5 | 2.25 | 0.625 | 0.5–0.75 |",
        "| Publisher A: peer's own from\\_dlpack | 0.75 | 0.5 | 2 | 1.75–2.25 |",
        "- Publisher B: not installed (pip install dlarray\\[exchange\\])",
        "| exchange API: from\\_dlpack(Publisher A) / from\\_dlpack(its \\_\\_dlpack\\_\\_) | 0.625 | <= 1 | "
        f"{bench_page._VERDICT['MET']} |",
        "| exchange API: from\\_dlpack(Publisher B) / from\\_dlpack(its \\_\\_dlpack\\_\\_) | n/a | <= 1 "
        "| n/a |",
    )
    assert "No recorded run" not in exchange


def _dispatch_with_floor(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (a dispatch.json) with a floor block of two operations, one of them over its bound."""
    data = dict(data, targets={k: v for k, v in data["targets"].items() if not k.startswith("floor ")})
    data["floor"] = {
        "dtype": "float32",
        "elements": 10,
        "rounds": 11,
        "numpy_calls": {"x + y": "a + b", "sin(x)": "np.sin(a)"},
        "operations": {
            "x + y": {"numpy_us": 0.25, "dlarray_us": 0.625, "floor_us": 0.5, "dlarray_overhead_us": 0.375,
                      "floor_overhead_us": 0.25, "overhead_ratio": 1.5},
            "sin(x)": {"numpy_us": 0.25, "dlarray_us": 0.875, "floor_us": 0.5, "dlarray_overhead_us": 0.625,
                       "floor_overhead_us": 0.25, "overhead_ratio": 2.5},
        },
    }
    data["targets"]["floor x + y: dlarray overhead / floor overhead"] = _target(1.5, 2.0, True)
    data["targets"]["floor sin(x): dlarray overhead / floor overhead"] = _target(2.5, 2.0, False)
    data["targets"]["floor all operations (worst): dlarray overhead / floor overhead"] = _target(
        2.5, 2.0, False
    )
    return data


def test_dispatch_floor_block_is_a_table_per_call() -> None:
    section = "\n".join(bench_page.dispatch_section(_dispatch_with_floor(_committed("dispatch")), PAGE))
    floor = _block(section, "Against the floor")
    _assert_shows(
        floor,
        "2 operations on 10 float32 elements, each as numpy's own call (`a + b`, `np.sin(a)`)",
        "All 6 statements run in the same 11 rounds",
        "dlarray's overhead / the floor's, <= 2.",
        "| operation | numpy | dlarray | floor | dlarray + | floor + | ratio | verdict |",
        f"| `x + y` | 0.25 | 0.625 | 0.5 | 0.375 | 0.25 | 1.5 | {bench_page._VERDICT['MET']} |",
        f"| `sin(x)` | 0.25 | 0.875 | 0.5 | 0.625 | 0.25 | 2.5 | {bench_page._VERDICT['NOT MET']} |",
    )
    assert "No recorded run" not in floor
    # the worst of them in the summary of targets
    assert "| floor all operations (worst): dlarray overhead / floor overhead | 2.5 | <= 2 |" in section


def test_blocks_a_recorded_run_lacks_are_said_missing_once_each(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    for stem, blocks in (("dlpack", ("general", "exchange")), ("dispatch", ("floor",))):
        data = _committed(stem)
        for block in blocks:
            data.pop(block, None)
        (tmp_path / f"{stem}.json").write_text(json.dumps(data))
    monkeypatch.setenv("DLARRAY_BENCH_RESULTS", str(tmp_path))
    text = bench_page.benchmark_results(PAGE)
    blocks = [
        ("the general path", "bench_dlpack.py", "run_general"),
        ("the exchange API of other publishers", "bench_dlpack.py", "run_exchange"),
        ("the floor", "bench_dispatch.py", "run_floor"),
    ]
    measured = [(block, function) for block, script, function in blocks if bench_page._measures(script, function)]
    assert {"run_general", "run_floor"} <= {function for _, function in measured}
    for block, function in measured:
        assert text.count(f'!!! note "No recorded run has {block} yet"') == 1, block
        assert f"(`{function}`)" in text
    assert text.count("No recorded run has") == len(measured)  # a block no script measures is not announced
    assert "| `floor(producer)` |" not in text and "| `x + y` | " in text  # the cases' tables are still there


def test_handoffs_say_which_targets_judge_the_floor() -> None:
    data = _committed("dlpack")
    judged = {"numpy.from_dlpack(dlarray) / numpy.from_dlpack(floor)": 1.15,
              "Array[1:-1] overhead / the floor's, over numpy's ndarray[1:-1]": 1.5}
    row = _pair(0.25, 0.125, 2.0, 1.75, 2.25)
    floor_relative = dict(data, handoffs={name: {"dlarray": row, "floor": row} for name in judged},
                          targets={name: _target(1.0, bound, True) for name, bound in judged.items()})
    text = "\n".join(bench_page._handoffs_table(floor_relative))
    assert "shown, not judged" not in text
    for name in judged:  # the Array's row and the floor's, each against numpy's
        for who in ("dlarray", "floor"):
            assert f"| {bench_page.plain(name)} ({who}) | 0.25 | 0.125 | 2 | 1.75–2.25 | 0.125 |" in text
    listed = "; ".join(bench_page.plain(name) for name in judged)
    assert f"The targets that name the floor ({listed})" in text
    # issue 26's bounds (a run recorded before the floor-relative ones): the floor is not judged
    old = "numpy.from_dlpack(dlarray) / numpy.from_dlpack(numpy)"
    numpy_relative = dict(data, handoffs={old: {"dlarray": row}}, targets={old: _target(2.0, 1.5, False)})
    text = "\n".join(bench_page._handoffs_table(numpy_relative))
    assert "In this run the floor is shown, not judged" in text and "name the floor" not in text
