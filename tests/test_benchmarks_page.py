"""The benchmark plots and the benchmarks page are drawn from the results JSON files alone.

``benchmarks/plots.py`` draws every plot from its JSON; ``docs_hooks/bench_page.py`` renders the
page's tables from the same files. These tests use the committed results (and, for the CUDA
section, which needs a GPU run, a folder with and without a ``cuda.json`` of made-up rendering
input): every library keeps one colour in every plot, the dispatch titles say what the inputs are,
and every result file present appears on the page while a missing one says how to make it.
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
    header = next(line for line in text.splitlines() if line.startswith("| ratio |"))
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
