"""The benchmark plots, drawn from the results JSON files alone.

Each benchmark script calls :func:`render` after writing its JSON (``make bench-cuda`` runs this
file after ``bench_cuda.py``), so a plot always shows exactly what its JSON holds. To draw them again from the
committed results (after changing a plot, say) without measuring anything::

    .venv/bin/python benchmarks/plots.py                  # every results/*.json that has a plot
    .venv/bin/python benchmarks/plots.py --results DIR    # another folder

The plots are read at the width of a documentation page (550 to 800 px), so figures are 8.5 inches
wide with 12- and 13-point text (about 11 px on the page at its narrowest), legends sit outside the
axes, and every library has one colour in every panel of every plot (``LIBRARY_COLOURS``,
colour-blind safe).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

RESULTS_DIR = Path(__file__).resolve().parent / "results"

#: One colour per library, the same in every plot (Okabe-Ito palette).
LIBRARY_COLOURS = {
    "dlarray": "#D55E00",  # vermillion
    "numpy": "#0072B2",  # blue
    "torch": "#009E73",  # bluish green
    "jax": "#CC79A7",  # reddish purple
    "array_api_strict": "#7F7F7F",  # grey
    "pydlpack": "#000000",  # black
    "cupy": "#E69F00",  # orange
    "array_api_compat": "#56B4E9",  # sky blue
}
#: What a library is called in legends (the names users import).
LIBRARY_NAMES = {"array_api_strict": "array-api-strict", "array_api_compat": "array_api_compat.cupy"}
#: Marker of a DLPack curve: the producer whose buffer is read.
PRODUCER_MARKERS = {
    "numpy": "o",
    "torch": "s",
    "dlarray": "D",
    "bytes": "^",
    "jax": "v",
    "array_api_strict": "P",
}
#: Output file of each benchmark's plot (results/<stem>.json -> results/<file>).
PLOT_FILES = {
    "dlpack": "dlpack_latency.png",
    "dispatch": "dispatch.png",
    "sklearn": "sklearn.png",
    "sklearn_cuda": "sklearn_cuda.png",
    "cuda": "cuda.png",
}
_STYLE = {
    "font.size": 13,
    "axes.titlesize": 13,
    "axes.labelsize": 13,
    "xtick.labelsize": 12,
    "ytick.labelsize": 12,
    "legend.fontsize": 12,
    "figure.titlesize": 14,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
_DPI = 150  # crisp on high-density screens; text size on the page depends on inches, not on this


def _library(name: str) -> str:
    """The library a label starts with (``torch.from_dlpack(numpy)`` -> ``torch``)."""
    return name.split(".", 1)[0].split(":", 1)[-1].strip()


def _producer(label: str) -> str:
    """The innermost argument of a DLPack label (``jax.from_dlpack(pydlpack.asdlpack(numpy))`` -> numpy)."""
    found = re.findall(r"\(([^()]*)\)", label)
    return found[-1] if found else ""


def _colour(library: str) -> str:
    return LIBRARY_COLOURS.get(library, "#333333")


def display_name(library: str) -> str:
    """What a library is called in legends, tables and target names (the name users import)."""
    return LIBRARY_NAMES.get(library, library)


def _median(timing: dict[str, Any] | None) -> float | None:
    return None if timing is None else timing.get("median_us")


def _save(path: Path, draw: Callable[[Any], Any]) -> bool:
    """Draw with matplotlib (Agg) into ``path``; without matplotlib, say so and draw nothing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"matplotlib is not installed: {path.name} not drawn")
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    with plt.rc_context(_STYLE):
        figure = draw(plt)
        figure.savefig(path, dpi=_DPI, bbox_inches="tight")
    plt.close("all")
    print(f"wrote {path}")
    return True


def size_label(size: int) -> str:
    """``100000`` -> ``10⁵`` (a power of ten from 10⁴ up), anything else with thousands separators."""
    digits = str(int(size))
    if digits.rstrip("0") == "1" and len(digits) > 4:
        return "10" + str(len(digits) - 1).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return f"{size:,.0f}"


def _readable_log_ticks(ax: Any) -> None:
    """On a log axis spanning under three decades, label 1-2-5 steps (not only the powers of ten)."""
    low, high = ax.get_ylim()
    if high / low >= 1000:
        return
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    steps = [m * 10.0**e for e in range(-3, 7) for m in (1, 2, 5)]
    ax.yaxis.set_major_locator(FixedLocator([t for t in steps if low <= t <= high]))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))


def _latency_axes(ax: Any, sizes: list[int], dtype: str) -> None:
    """Log-log axes of latency against buffer size, a tick at each measured size."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(sizes)
    ax.set_xticklabels([size_label(n) for n in sizes])
    ax.minorticks_off()
    _readable_log_ticks(ax)
    ax.set_xlabel(f"elements ({dtype})")
    ax.set_ylabel("median latency (µs)")
    ax.grid(True, which="major", alpha=0.3)


# ------------------------------------------------------------------------------ bench_dlpack
ANCHOR = "numpy.from_dlpack(torch)"
DLPACK_PANELS = [
    (
        "Imports into dlarray, against the anchor (numpy reading torch)",
        lambda label: (
            label.startswith("dlarray.")
            and _producer(label) in ("numpy", "torch", "bytes")
            or label in (ANCHOR, "pydlpack.asdlpack(bytes)")
        ),
    ),
    (
        "Exports: peers reading a dlarray Array (torch reading numpy for reference)",
        lambda label: _producer(label) == "dlarray" or label == "torch.from_dlpack(numpy)",
    ),
    (
        "Peers reading a numpy array (dlarray's import for reference)",
        lambda label: _producer(label) == "numpy" and not label.startswith("torch."),
    ),
]


def dlpack_curves(data: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """(panel title, labels) of the latency plot; a panel with no curve of its own is left out.

    The rest of the ``--compare`` matrix (peers reading torch, jax, array-api-strict) is in the
    tables and the JSON: 30 curves in one plot would hide the ones the targets are about.
    """
    # pydlpack as a producer wraps numpy afresh in each call: its curves measure pydlpack, not the reader.
    labels = [
        label
        for label in data["operations"]
        if "asdlpack(numpy))" not in label
        and any(_median(t) for t in data["timings"].get(label, {}).values())
    ]
    panels, shown = [], set()
    for title, belongs in DLPACK_PANELS:
        chosen = [label for label in labels if belongs(label)]
        if set(chosen) - shown:  # without --compare the peers' panel would only repeat dlarray's import
            panels.append((title, chosen))
            shown.update(chosen)
    return panels


def _note_copies(ax: Any, data: dict[str, Any], labels: list[str]) -> None:
    """Point at a curve that grows with size: an import that copies (jax, for unaligned buffers)."""
    for label in labels:
        points = [(int(n), _median(t)) for n, t in data["timings"][label].items() if _median(t)]
        if len(points) > 1 and max(v for _, v in points) > 20 * min(v for _, v in points):
            n, v = max(points)
            ax.annotate(
                f"{_library(label)} copies: the buffer is not 64-byte aligned",
                xy=(n, v),
                xytext=(-12, 0),
                textcoords="offset points",
                ha="right",
                va="center",
                fontsize=12,
                color=_colour(_library(label)),
            )
            return


def plot_dlpack(data: dict[str, Any], path: Path) -> bool:
    """Log-log latency against size, one panel per direction (see ``DLPACK_PANELS``)."""
    panels = dlpack_curves(data)
    sizes = data["sizes"]

    def draw(plt: Any) -> Any:
        figure, axes = plt.subplots(
            len(panels), 1, figsize=(8.5, 4.7 * len(panels)), squeeze=False, layout="constrained"
        )
        for ax, (title, labels) in zip(axes[:, 0], panels):
            for label in labels:
                points = [(n, _median(data["timings"][label].get(str(n)))) for n in sizes]
                points = [(n, v) for n, v in points if v is not None]
                ours = "dlarray" in label
                consumer = _library(label)
                ax.plot(
                    *zip(*points),
                    label=label + (" (anchor)" if label == ANCHOR else ""),
                    color=_colour(consumer),
                    marker=PRODUCER_MARKERS.get(_producer(label), "o"),
                    markersize=8 if ours else 6,
                    linewidth=2.6 if ours else 1.4,
                    linestyle="-" if ours else "--",
                )
            _latency_axes(ax, sizes, data.get("dtype", "float32"))
            ax.set_title(title, loc="left")
            ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), ncols=2, frameon=False)
            _note_copies(ax, data, labels)
        figure.suptitle(
            "DLPack latency against buffer size\n"
            "colour: the library called · marker: the producer read · solid: dlarray takes part",
            x=0.0,
            ha="left",
        )
        return figure

    return _save(path, draw)


# ------------------------------------------------------------------------------ bench_dispatch
#: The namespaces bench_dispatch and bench_sklearn compare, in the order of their bars.
NAMESPACES = ("numpy", "dlarray", "array_api_strict")


def dispatch_operation_label(label: str, sizes: dict[str, Any]) -> str:
    """A tick label saying what an operation's inputs are (``matmul 8x8`` -> ``A @ B`` / ``8×8``)."""
    elements = f"{size_label(sizes['elements'])} el."
    if label.startswith("matmul"):
        return f"A @ B\n{sizes['matrix']}×{sizes['matrix']}"
    if label.startswith("asarray"):
        return f"asarray(list)\n{size_label(sizes['list_length'])} floats"
    if label.startswith("x["):
        return f"{label}\nof {elements}"
    return f"{label}\n{elements}"


def dispatch_inputs(sizes: dict[str, Any]) -> str:
    """What the rows of a dispatch case really are: vectors, matrices and a list, of different sizes."""
    return (
        f"float64 vectors of {sizes['elements']:,} elements, {sizes['matrix']}×{sizes['matrix']} matrices, "
        f"a list of {sizes['list_length']:,} floats"
    )


def dispatch_case_title(case: str, sizes: dict[str, Any]) -> str:
    return f"{case} inputs: {dispatch_inputs(sizes)}"


def plot_dispatch(data: dict[str, Any], path: Path) -> bool:
    """Grouped bars of the time per call of each library, one panel per case (log scale)."""
    cases = data["cases"]

    def draw(plt: Any) -> Any:
        figure, axes = plt.subplots(
            len(cases), 1, figsize=(8.5, 4.4 * len(cases)), squeeze=False, layout="constrained"
        )
        width = 0.27
        for ax, (case, rows) in zip(axes[:, 0], cases.items()):
            labels = list(rows["operations"])
            for i, library in enumerate(NAMESPACES):
                values = [rows["operations"][label].get(f"{library}_us") for label in labels]
                ax.bar(
                    [k + (i - 1) * width for k, v in enumerate(values) if v is not None],
                    [v for v in values if v is not None],
                    width,
                    label=display_name(library) if case == next(iter(cases)) else None,
                    color=_colour(library),
                )
            ax.set_xticks(range(len(labels)))
            ax.set_xticklabels([dispatch_operation_label(label, rows["sizes"]) for label in labels])
            ax.set_yscale("log")
            ax.set_ylabel("median time per call (µs)")
            ax.set_title(dispatch_case_title(case, rows["sizes"]), loc="left", fontsize=12)
            ax.grid(True, axis="y", which="major", alpha=0.3)
        figure.legend(loc="outside upper center", ncols=3, frameon=False)
        return figure

    return _save(path, draw)


# ------------------------------------------------------------------------------ bench_sklearn


def sklearn_libraries(data: dict[str, Any]) -> list[str]:
    """The libraries a bench_sklearn result compares, in its bars' order (files written before the
    GPU run existed do not list them: the CPU run's)."""
    return list(data.get("libraries", NAMESPACES))


def plot_sklearn(data: dict[str, Any], path: Path) -> bool:
    """Horizontal grouped bars: fit time per estimator for each library, its value at the bar's end
    (sklearn.json: on the CPU; sklearn_cuda.json: on a GPU, numpy on the CPU for reference)."""
    estimators = data["estimators"]
    shape = data.get("data", {})
    libraries = sklearn_libraries(data)

    def draw(plt: Any) -> Any:
        figure, ax = plt.subplots(figsize=(8.5, 1.0 + 1.15 * len(estimators)), layout="constrained")
        height = 0.26
        names = list(estimators)
        for i, library in enumerate(libraries):
            for k, name in enumerate(names):
                value = estimators[name].get(f"{library}_ms")
                if value is None:
                    continue
                y = k + (i - 1) * height
                label = display_name(library) if k == 0 else None
                ax.barh(y, value, height, color=_colour(library), label=label)
                ax.text(value, y, f" {value:.1f}", va="center", fontsize=11)
        ax.set_yticks(range(len(names)))
        ax.set_yticklabels(names)
        ax.invert_yaxis()
        ax.set_xlim(
            0,
            max(
                v
                for row in estimators.values()
                for k, v in row.items()
                if k.endswith("_ms") and v is not None
            )
            * 1.15,
        )
        ax.grid(True, axis="x", alpha=0.3)
        ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncols=3, frameon=False)
        where = f";\nGPU: {data['device']} (numpy on the CPU)" if data.get("device") else ""
        ax.set_xlabel(
            f"median time per fit (ms): {shape.get('samples', 0):,} × {shape.get('features', '?')} "
            f"{shape.get('dtype', 'float64')}, array API dispatch on{where}"
        )
        return figure

    return _save(path, draw)


# ------------------------------------------------------------------------------ bench_cuda
def cuda_groups(data: dict[str, Any]) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """cuda.json's operations: (hand-offs timed per size, operations timed per named case).

    Each maps a kind (a label's text before its colon: ``import``, ``compute x + y``, ...) to its
    labels. Hand-offs have sizes as cases ("10", "10000", ...); compute has named cases ("small", ...).
    """
    handoffs: dict[str, list[str]] = {}
    cases: dict[str, list[str]] = {}
    for label, row in data["timings"].items():
        group = handoffs if all(case.isdigit() for case in row) else cases
        group.setdefault(label.split(":", 1)[0].strip(), []).append(label)
    return handoffs, cases


def cuda_library(label: str) -> str:
    """The library a cuda.json operation measures: the text after its colon names it, or holds it."""
    who = label.split(":", 1)[-1].strip()
    if who.startswith("array_api_compat"):
        return "array_api_compat"
    return next((name for name in ("dlarray", "cupy") if name in who), _library(who))


def plot_cuda(data: dict[str, Any], path: Path) -> bool:
    """Top: latency against size of each CUDA hand-off; bottom: compute per case; dlarray against cupy."""
    handoffs, computed = cuda_groups(data)
    case_names = list(
        dict.fromkeys(
            case for labels in computed.values() for label in labels for case in data["timings"][label]
        )
    )
    libraries = list(dict.fromkeys(cuda_library(label) for label in data["timings"]))

    def draw(plt: Any) -> Any:
        figure = plt.figure(figsize=(8.5, 4.2 + (3.8 if computed else 0)), layout="constrained")
        top, bottom = figure.subfigures(2, 1, height_ratios=[4.2, 3.8]) if computed else (figure, None)
        axes = top.subplots(1, max(len(handoffs), 1), sharey=True, squeeze=False)[0]
        for ax, (kind, labels) in zip(axes, handoffs.items()):
            sizes: set[int] = set()
            for label in labels:
                points = sorted((int(n), _median(t)) for n, t in data["timings"][label].items())
                points = [(n, v) for n, v in points if v is not None]
                if points:
                    library = cuda_library(label)
                    ours = library == "dlarray"
                    ax.plot(
                        *zip(*points),
                        color=_colour(library),
                        marker="o",
                        linewidth=2.6 if ours else 1.4,
                        linestyle="-" if ours else "--",
                    )
                    sizes.update(n for n, _ in points)
            if sizes:
                _latency_axes(ax, sorted(sizes), "float32")
            ax.set_title(f"hand-off: {kind}", loc="left")
        for ax in axes[1:]:
            ax.set_ylabel("")
        if bottom is not None:
            case_axes = bottom.subplots(1, len(case_names), squeeze=False)[0]
            kinds = list(computed)
            width = 0.8 / max(len(libraries), 1)
            for ax, case in zip(case_axes, case_names):
                for i, library in enumerate(libraries):
                    values = [
                        next(
                            (
                                _median(data["timings"][label].get(case))
                                for label in computed[kind]
                                if cuda_library(label) == library
                            ),
                            None,
                        )
                        for kind in kinds
                    ]
                    shown = [(k, v) for k, v in enumerate(values) if v is not None]
                    if shown:
                        ax.bar(
                            [k + (i - (len(libraries) - 1) / 2) * width for k, _ in shown],
                            [v for _, v in shown],
                            width,
                            color=_colour(library),
                        )
                ax.set_xticks(range(len(kinds)))
                ax.set_xticklabels([kind.removeprefix("compute ") for kind in kinds])
                ax.set_title(f"compute, {case} arrays", loc="left")  # linear: each case has its own panel
                ax.grid(True, axis="y", which="major", alpha=0.3)
            case_axes[0].set_ylabel("median time per call (µs)")
        handles = [plt.Line2D([], [], color=_colour(name), linewidth=6) for name in libraries]
        figure.legend(
            handles,
            [display_name(name) for name in libraries],
            loc="outside lower center",
            ncols=len(libraries),
            frameon=False,
        )
        figure.suptitle(f"CUDA on {data.get('device', 'a GPU')}: dlarray against cupy", x=0.0, ha="left")
        return figure

    return _save(path, draw)


PLOTTERS: dict[str, Callable[[dict[str, Any], Path], bool]] = {
    "dlpack": plot_dlpack,
    "dispatch": plot_dispatch,
    "sklearn": plot_sklearn,
    "sklearn_cuda": plot_sklearn,
    "cuda": plot_cuda,
}


def render(stem: str, folder: Path) -> bool:
    """Draw ``folder/<PLOT_FILES[stem]>`` from ``folder/<stem>.json``; False when not drawn."""
    source = folder / f"{stem}.json"
    if not source.is_file():
        print(f"{source} does not exist: {PLOT_FILES[stem]} not drawn")
        return False
    return PLOTTERS[stem](json.loads(source.read_text()), folder / PLOT_FILES[stem])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--results", type=Path, default=RESULTS_DIR, help="folder of the JSON files and plots"
    )
    parser.add_argument(
        "stems",
        nargs="*",
        metavar="NAME",
        help=f"plots to draw, of {', '.join(PLOTTERS)} (default: every one whose JSON exists)",
    )
    args = parser.parse_args(argv)
    unknown = sorted(set(args.stems) - set(PLOTTERS))
    if unknown:
        parser.error(f"no such plot: {', '.join(unknown)} (known: {', '.join(PLOTTERS)})")
    for stem in args.stems or PLOTTERS:
        if args.stems or (args.results / f"{stem}.json").is_file():
            render(stem, args.results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
