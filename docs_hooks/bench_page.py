"""The benchmarks page's results, generated from ``benchmarks/results/`` when the site is built.

``mkdocs_hooks.py`` calls :func:`benchmark_results` for the ``<!-- generated: benchmark-results -->``
marker and copies the plots into the site as ``assets/benchmarks/<name>.png``. Every number, table
and plot comes from the JSON files the benchmark scripts write (and the plots ``benchmarks/plots.py``
draws from them); a result file that is missing is said to be missing, with how to make it, and so
is a block of a script that a recorded file predates (the general path, the C exchange API of other
publishers, the dispatch floor), once per block.
``DLARRAY_BENCH_RESULTS`` points at another folder.
"""

from __future__ import annotations

import importlib.util
import json
import os
import posixpath
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH_ASSETS = "assets/benchmarks"


def _load_plots() -> Any:
    """``benchmarks/plots.py``: the plots' file names and the dispatch cases' titles (one place for both)."""
    spec = importlib.util.spec_from_file_location("dlarray_benchmark_plots", ROOT / "benchmarks" / "plots.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses and typing look their module up by name
    spec.loader.exec_module(module)
    return module


plots = _load_plots()


def bench_dir() -> Path:
    """The folder of the results JSON files and plots."""
    return Path(os.environ.get("DLARRAY_BENCH_RESULTS", ROOT / "benchmarks" / "results"))


def _cell(text: str) -> str:
    """``text`` for a code span in a table cell (a ``|`` would end the cell)."""
    return str(text).replace("|", "\\|")


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|])")
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")  # what Markdown would take for HTML (a "<= 1" stays as it is)


def plain(text: Any) -> str:
    """``text`` as it reads, in a table cell or a list item: ``__dlpack__`` stays ``__dlpack__`` (not a
    bold "dlpack"), ``<object at 0x...>`` stays text, a ``|`` does not end the cell."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", _TAG_START.sub("&lt;", str(text)))


def _number(value: Any) -> str:
    """A number for a table: 3 significant digits, thousands separated, "n/a" when missing."""
    if value is None:
        return "n/a"
    value = float(value)
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if value == 0 or abs(value) >= 0.01:
        return f"{value:.3g}"
    return f"{value:.2e}"


_VERDICT = {
    "MET": '<span class="verdict-met">MET</span>',
    "NOT MET": '<span class="verdict-not-met">NOT MET</span>',
    "n/a": "n/a",
}


def _verdict(target: dict[str, Any] | None) -> str:
    if target is None:
        return ""
    return _VERDICT.get(target.get("verdict"), str(target.get("verdict")))


def _table(header: list[str], rows: list[list[str]], align: str = "") -> list[str]:
    """A Markdown table in a ``bench`` block (small type, see extra.css), to fit the page's width.

    ``align``: one of l/r per column (default: the first left, the others right).
    """
    align = align or "l" + "r" * (len(header) - 1)
    rule = "|" + "|".join(" ---: " if a == "r" else " --- " for a in align) + "|"
    return [
        '<div class="bench" markdown>',
        "",
        "| " + " | ".join(header) + " |",
        rule,
        *("| " + " | ".join(row) + " |" for row in rows),
        "",
        "</div>",
        "",
    ]


def _size(size: int | str) -> str:
    return plots.size_label(int(size))


def _targets_table(targets: dict[str, dict[str, Any]], names: list[str] | None = None) -> list[str]:
    rows = []
    for name in names if names is not None else list(targets):
        target = targets[name]
        unit = f" {target['unit']}" if target.get("unit") else ""
        rows.append(
            [
                plain(name),
                _number(target.get("value")) + unit,
                plain(target.get("target")),
                _verdict(target),
            ]
        )
    return _table(["target", "value", "bound", "verdict"], rows, "lrrl")


def environment_line(env: dict[str, Any], script: str) -> str:
    """When and by which script a result was measured, in one line; at which commit, on which machine
    (CPU model, cores, load) and with which versions, folded away under it (as on the Results page).

    Parameters
    ----------
    env : dict
        The result file's ``environment``.
    script : str
        The script (and its arguments) under ``benchmarks/`` that wrote the file.

    Returns
    -------
    str
        Markdown: the line, the folded details, and a note when the run was a quick one.
    """
    versions = ", ".join(
        f"{name} {version}" for name, version in (env.get("versions") or {}).items() if version
    )
    load = env.get("load_average")
    commit = env.get("commit")
    cpu = env.get("cpu_model") or (
        "CPU model not recorded (this file predates that field; the next run of the script records it)"
    )
    details = (
        (f"At commit `{commit[:12]}{'+dirty' if commit.endswith('+dirty') else ''}`. " if commit else "")
        + f"Machine: {cpu}, {env.get('cpu_count', '?')} logical CPUs, {env.get('platform', '?')}"
        + (f", load average {load[0]:.1f} when it started" if load else "")
        + f". Python {env.get('python', '?')}; {versions}."
    )
    line = (
        f"Measured {str(env.get('time', '?')).replace('T', ' ', 1)} by `benchmarks/{script}`.\n\n"
        f'??? info "Machine, commit and versions"\n    {details}\n'
    )
    if env.get("quick"):
        line += (
            '\n!!! note "Quick run"\n    These numbers come from a `--quick` smoke run (short repeats): '
            "they are rough.\n"
        )
    return line


def _plot(stem: str, title: str, page: Any) -> list[str]:
    name = plots.PLOT_FILES[stem]
    if not (bench_dir() / name).is_file():
        return [
            (
                f"(no plot: `{name}` was not drawn; `python benchmarks/plots.py` draws it from the JSON, "
                "with matplotlib from the `bench` extra)\n"
            )
        ]
    link = posixpath.relpath(f"{BENCH_ASSETS}/{name}", posixpath.dirname(page.file.src_uri) or ".")
    return [f'[![{title}]({link}){{ loading=lazy }}]({link} "Full size")\n']


def _errors(data: dict[str, Any]) -> list[str]:
    errors = data.get("errors") or {}
    if not errors:
        return []
    return [
        "Operations that could not be timed (their targets are n/a):\n",
        *(f"- `{_cell(name.replace('|', ' '))}`: {plain(error)}" for name, error in errors.items()),
        "",
    ]


# ------------------------------------------------------------------------------ bench_dlpack
def _median(data: dict[str, Any], label: str, case: str) -> float | None:
    timing = data["timings"].get(label, {}).get(case)
    return None if timing is None else timing.get("median_us")


def _copy_note(data: dict[str, Any]) -> list[str]:
    """Why jax's imports grow with the buffer (the plot's spike), with the measured numbers."""
    sizes = [str(n) for n in data["sizes"]]
    growing = []
    for label in data["operations"]:
        if not label.startswith("jax.from_dlpack("):
            continue
        times = [_median(data, label, n) for n in sizes]
        if None not in times and max(times) > 20 * min(times):  # type: ignore[type-var,operator]
            growing.append(
                f"`{label}` {_number(times[0])} µs at {int(sizes[0]):,} elements, "
                f"{_number(times[-1])} µs at {int(sizes[-1]):,}"
            )
    if not growing:
        return []
    return [
        '!!! info "Why jax\'s imports grow with the buffer"',
        "    XLA's CPU client takes a foreign buffer without copying only when its address is a multiple of "
        "64 bytes; otherwise `jax.dlpack.from_dlpack` copies it. numpy allocates with `malloc`, whose "
        "blocks are 16-byte aligned, so most numpy arrays are copied; torch aligns its allocations to 64 "
        "bytes, so `jax.from_dlpack(torch)` stays flat. dlarray exports the numpy buffer it holds as it "
        "is (zero-copy), so jax copies it too: the copy is jax's, made on its side of the exchange. At "
        "small sizes the copy is hidden by jax's fixed cost of about 30 µs. Measured here: "
        + "; ".join(growing)
        + ".",
        "",
    ]


def _ratios_per_size(data: dict[str, Any]) -> list[str]:
    """The table of every per-size target: the worst size decides the target's value."""
    sizes = [str(n) for n in data["sizes"]]
    targets = {
        name: t
        for name, t in data.get("targets", {}).items()
        if t.get("detail") and set(t["detail"]) <= set(sizes)
    }
    if not targets:
        return []
    rows = [
        [plain(name), *(_number(t["detail"].get(n)) for n in sizes), plain(t.get("target"))]
        for name, t in targets.items()
    ]
    return [
        "#### Ratios per size\n",
        ("Each ratio at every size (elements); the target holds when every size is within its bound.\n"),
        *_table(["ratio", *(_size(n) for n in sizes), "bound"], rows),
    ]


def _latency_table(data: dict[str, Any]) -> list[str]:
    sizes = [str(n) for n in data["sizes"]]
    rows = [
        [
            f"`{_cell(label)}`" + (" (anchor)" if label == data.get("anchor") else ""),
            *(_number(_median(data, label, n)) for n in sizes),
        ]
        for label in data["operations"]
    ]
    lines = _table(["operation (median µs)", *(_size(n) for n in sizes)], rows)
    return [
        f'??? info "Every timing ({len(rows)} operations × {len(sizes)} sizes, median µs)"',
        "",
        *(f"    {line}" if line else "" for line in lines),
    ]


def _floor_judged(data: dict[str, Any]) -> list[str]:
    """The hand-off targets judged against the Python floor rather than numpy's array: those whose
    name names the floor (the script names each target by what it compares)."""
    targets = data.get("targets", {})
    return [name for name in data.get("handoffs") or {} if name in targets and "floor" in name]


def _handoffs_table(data: dict[str, Any]) -> list[str]:
    handoffs = data.get("handoffs")
    if not handoffs:
        return []
    rows = []
    for name, timed in handoffs.items():
        if "error" in timed:
            rows.append([plain(name), plain(timed["error"]), "", "", "", ""])
            continue
        for who, row in timed.items():
            low, high = row["ratio_quartiles"]
            rows.append([f"{plain(name)} ({who})", _number(row["us"]), _number(row["reference_us"]),
                         _number(row["ratio"]), f"{_number(low)}–{_number(high)}", _number(row["difference_us"])])
    judged = _floor_judged(data)
    if judged:
        listed = "; ".join(plain(name) for name in judged)
        judging = (
            f"The targets that name the floor ({listed}) judge the Array's row against the floor's, from "
            "the same rounds (a slice by its difference over numpy's: what each adds to numpy's own slice); "
            "the other hand-off targets judge the Array's ratio to numpy's."
        )
    else:
        judging = (
            "In this run the floor is shown, not judged: the hand-off targets judge the Array's ratio to "
            "numpy's."
        )
    return [
        "#### Hand-offs against numpy's array\n",
        (
            "Each statement timed with the Array, with the Python floor and with numpy's array in the same "
            "rounds on one buffer (one short repeat of each per round): the medians per call, and over the "
            "rounds the median of the ratio to numpy's (with its quartiles: how much the load moved it) and "
            "of the difference. The floor is about the least a pure-Python array can do in the Array's "
            "place (a `__dlpack__` that only forwards to numpy's, a slice that only wraps numpy's in a new "
            f"object): what the Array costs above it is its own (its checks, its constructor). {judging}\n"
        ),
        *_table(["statement", "µs", "numpy µs", "ratio", "ratio quartiles", "difference µs"], rows, "lrrrrr"),
        "",
    ]


def _shapes_table(data: dict[str, Any]) -> list[str]:
    shapes = data.get("shapes")
    if not shapes:
        return []
    columns = [
        "dlarray.from_dlpack(torch)",
        "numpy.from_dlpack(torch)",
        "dlarray.from_dlpack(numpy)",
        "torch / anchor",
        "numpy / anchor",
    ]
    rows = [[f"`{shape}`", *(_number(row.get(c)) for c in columns)] for shape, row in shapes.items()]
    return [
        "#### Imports of other ranks\n",
        "Median µs, and the ratio to the anchor for the same tensor; shown, not judged.\n",
        *_table(
            [
                "shape",
                "dlarray from torch",
                "numpy from torch (anchor)",
                "dlarray from numpy",
                "torch / anchor",
                "numpy / anchor",
            ],
            rows,
        ),
    ]


def _memory_table(data: dict[str, Any]) -> list[str]:
    memory = data.get("memory")
    if not memory:
        return []
    rows = [[f"`{_cell(label)}`", _number(mib)] for label, mib in memory["mib_per_import"].items()]
    return [
        "#### Resident memory per import\n",
        (
            f"{memory['imports']} imports of one {memory['buffer_bytes'] / 1e6:,.0f} MB buffer, all kept alive; "
            "`numpy copy` is the baseline that copies.\n"
        ),
        *_table(["operation", "MiB added per import"], rows),
    ]


def _measures(script: str, function: str) -> bool:
    """Whether ``benchmarks/<script>`` defines ``function`` (the block it measures)."""
    path = ROOT / "benchmarks" / script
    return path.is_file() and f"\ndef {function}(" in path.read_text()


def _not_recorded(heading: str, block: str, script: str, function: str) -> list[str]:
    """The section of a block the script measures but the recorded run does not have yet (the file
    was written before the script measured it): its heading and a note saying so. Nothing where the
    script does not measure it (a block is not announced before the script has it)."""
    if not _measures(script, function):
        return []
    result = script.replace("bench_", "").replace(".py", ".json")
    return [
        heading,
        (
            f'!!! note "No recorded run has {block} yet"\n    The recorded `benchmarks/results/{result}` '
            f"was written before `benchmarks/{script}` measured it (`{function}`); the next `make bench` "
            "records it, and the next build of the site shows it here.\n"
        )
    ]


def _quartiles(pair: dict[str, Any]) -> str:
    low, high = pair.get("ratio_quartiles") or (None, None)
    return f"{_number(low)}–{_number(high)}"


def _statements_fold(statements: dict[str, str]) -> list[str]:
    """The Python statement behind each label, folded away (the names are the script's)."""
    if not statements:
        return []
    return [
        f'??? info "The statements timed ({len(statements)})"',
        "",
        *(f"    - {plain(label)}: `{code}`" for label, code in statements.items()),
        "",
    ]


def _paired_table(pairs: dict[str, dict[str, Any]], targets: dict[str, dict[str, Any]]) -> list[str]:
    """One row per ratio of two statements timed in the same rounds (``_harness.against``): its median
    over the rounds and quartiles, and the bound and verdict of the target of the same name."""
    rows = []
    for name, pair in pairs.items():
        target = targets.get(name)
        rows.append([plain(name), _number(pair.get("ratio")), _quartiles(pair),
                     plain(target.get("target")) if target else "not judged", _verdict(target)])
    return _table(["ratio", "median", "quartiles", "bound", "verdict"], rows, "lrrrl")


def _general_section(data: dict[str, Any]) -> list[str]:
    """``run_general``'s block: each statement's time, each ratio with its target's verdict (the rows
    are the block's own: a statement or a ratio the script adds appears without a change here)."""
    heading = "#### The general path\n"
    general = data.get("general")
    if not general:
        return _not_recorded(heading, "the general path", "bench_dlpack.py", "run_general")
    medians, minima = general.get("median_us", {}), general.get("min_us", {})
    statements = general.get("statements", {})
    labels = list(dict.fromkeys([*statements, *medians]))
    rows = [
        [f"`{_cell(label)}`", _number(medians.get(label)), _number(minima.get(label))] for label in labels
    ]
    rounds = general.get("rounds")
    return [
        heading,
        (
            "What a producer dlarray has no rule for takes (a C library's object, say), and a raw capsule "
            "(a temporary, and one its caller holds in a variable): `__dlpack__`, then the capsule read "
            "through ctypes with every check. The producer only forwards `__dlpack__` to a numpy array, so "
            "each consumer reads it through a capsule. Beside dlarray: the floor (`floor_import`), a minimal "
            "ctypes consumer doing only the mandatory steps (no claim against a second consumer, no "
            "validation beyond the version, ndim and lanes, no interrupt safety), and numpy's C consumer on "
            f"the same producer. All in the same {rounds if rounds is not None else '?'} rounds on one "
            "buffer: the medians and minima per call.\n"
        ),
        *_table(["statement", "median µs", "min µs"], rows),
        *_statements_fold(statements),
        (
            "Each ratio is the median over the rounds of the two statements' times in that round (the "
            "quartiles show how much the load moved it).\n"
        ),
        *_paired_table(general.get("ratios", {}), data.get("targets", {})),
    ]


def _exchange_section(data: dict[str, Any]) -> list[str]:
    """``run_exchange``'s block: each publisher of the C exchange API besides torch, read by dlarray
    through that API, through its ``__dlpack__``, by numpy and by the publisher's own library, with
    the exchange path's ratio to each and the targets that name the publisher."""
    heading = "#### The C exchange API of other publishers\n"
    exchange = data.get("exchange")
    if not exchange:
        return _not_recorded(
            heading, "the exchange API of other publishers", "bench_dlpack.py", "run_exchange"
        )
    targets = data.get("targets", {})
    versions = ", ".join(
        f"{name} {version}" if version else f"{name} not installed"
        for name, version in (exchange.get("versions") or {}).items()
    )
    rows, missing, judged = [], [], []
    for publisher, timed in (exchange.get("publishers") or {}).items():
        judged += [name for name in targets if publisher in name]
        if "error" in timed:
            missing.append(f"- {plain(publisher)}: {plain(timed['error'])}")
            continue
        medians, minima = timed.get("median_us", {}), timed.get("min_us", {})
        over = timed.get("exchange_over", {})
        for label in medians:
            pair = over.get(label)
            rows.append([
                f"{plain(publisher)}: {plain(label)}", _number(medians[label]), _number(minima.get(label)),
                _number(pair.get("ratio")) if pair else "", _quartiles(pair) if pair else "",
            ])
    rounds = exchange.get("rounds")
    out = [
        heading,
        (
            "Types that publish `__dlpack_c_exchange_api__` besides torch, over one numpy buffer: dlarray "
            "reading each through that API, dlarray reading the same object through its `__dlpack__` (the "
            "general path), numpy's C consumer and the publisher's own `from_dlpack`, in the same "
            f"{rounds if rounds is not None else '?'} rounds: the medians and minima per call, and the "
            "exchange path's time over each row's (the median over the rounds of the ratio, with its "
            "quartiles)." + (f" Installed: {versions}." if versions else "") + "\n"
        ),
    ]
    if rows:
        out += _table(["publisher: statement", "median µs", "min µs", "exchange / this", "quartiles"], rows)
        out += _statements_fold(exchange.get("statements", {}))
    if missing:
        out += ["Not timed in this run:\n", *missing, ""]
    if judged:
        out += _targets_table(targets, list(dict.fromkeys(judged)))
    return out


def dlpack_section(data: dict[str, Any], page: Any) -> list[str]:
    return [
        environment_line(data.get("environment", {}), "bench_dlpack.py"),
        *_plot("dlpack", "DLPack latency against buffer size", page),
        *_copy_note(data),
        "#### Targets\n",
        *_targets_table(data.get("targets", {})),
        *_handoffs_table(data),
        *_general_section(data),
        *_exchange_section(data),
        *_ratios_per_size(data),
        *_latency_table(data),
        "",
        *_shapes_table(data),
        *_memory_table(data),
        *_errors(data),
    ]


# ------------------------------------------------------------------------------ bench_dispatch
def _overhead_row(label: str, row: dict[str, Any], peer: str, peer_overhead: str, ratio: Any,
                  target: dict[str, Any] | None) -> list[str]:
    """A dispatch table's row: numpy's, dlarray's and a peer's time (the row's ``peer`` key), the
    overheads of dlarray and the peer over numpy, the ratio judged and its verdict."""
    return [
        f"`{_cell(label)}`",
        _number(row.get("numpy_us")),
        _number(row.get("dlarray_us")),
        _number(row.get(peer)),
        _number(row.get("dlarray_overhead_us")),
        _number(row.get(peer_overhead)),
        _number(ratio),
        _verdict(target),
    ]


def _floor_section(data: dict[str, Any]) -> list[str]:
    """``run_floor``'s block: each operation's time with numpy, dlarray and the floor (a one-slot
    Python wrapper), the overheads over numpy's call and the verdict of its target."""
    heading = "#### Against the floor\n"
    floor = data.get("floor")
    if not floor:
        return _not_recorded(heading, "the floor", "bench_dispatch.py", "run_floor")
    targets = data.get("targets", {})
    operations = floor.get("operations", {})
    rows = []
    bounds = set()
    for label, row in operations.items():
        target = targets.get(f"floor {label}: dlarray overhead / floor overhead") or next(
            (t for name, t in targets.items() if name.startswith(f"floor {label}: ")), None
        )
        if target:
            bounds.add(target["target"])
        rows.append(_overhead_row(label, row, "floor_us", "floor_overhead_us", row.get("overhead_ratio"), target))
    calls = ", ".join(f"`{code}`" for code in (floor.get("numpy_calls") or {}).values())
    elements, dtype, rounds = floor.get("elements", "?"), floor.get("dtype", "?"), floor.get("rounds", "?")
    return [
        heading,
        f"{len(operations)} operations on {elements} {dtype} elements, each as numpy's own call"
        + (f" ({calls})" if calls else "")
        + ", as dlarray's, and through the floor: about the least a pure-Python array can do, one slot "
        "holding the numpy array, each operation unwrapping, calling numpy and wrapping the result in a "
        f"new one-slot object (`FloorArray`). All {3 * len(operations)} statements run in the same "
        f"{rounds} rounds; each time is the fastest of its rounds, in µs per call; overhead (+) = "
        "t − t(numpy); the ratio judged is dlarray's overhead / the floor's, "
        f"{' or '.join(sorted(bounds)) or 'not judged'}.\n",
        *_table(["operation", "numpy", "dlarray", "floor", "dlarray +", "floor +", "ratio", "verdict"], rows,
                "lrrrrrrl"),
    ]


def dispatch_section(data: dict[str, Any], page: Any) -> list[str]:
    targets = data.get("targets", {})
    out = [
        environment_line(data.get("environment", {}), "bench_dispatch.py"),
        *_plot("dispatch", "Time per call of numpy, dlarray and array-api-strict", page),
    ]
    for case, rows in data["cases"].items():
        small = case == "small"
        judged = "dlarray's overhead / array-api-strict's overhead" if small else "t(dlarray) / t(numpy)"
        bounds = {t["target"] for name, t in targets.items() if name.startswith(f"{case} ")}
        out += [
            f"#### {case.capitalize()} inputs\n",
            (
                f"{plots.dispatch_inputs(rows['sizes']).capitalize()}. Median µs per call; overhead (+) = "
                f"t(library) − t(numpy); the ratio judged is {judged}, {' or '.join(sorted(bounds))}.\n"
            ),
        ]
        table = []
        for label, row in rows["operations"].items():
            target = next((t for name, t in targets.items() if name.startswith(f"{case} {label}: ")), None)
            value = row.get("overhead_ratio" if small else "dlarray_over_numpy")
            table.append(_overhead_row(label, row, "array_api_strict_us", "strict_overhead_us", value, target))
        out += _table(
            ["operation", "numpy", "dlarray", "strict", "dlarray +", "strict +", "ratio", "verdict"],
            table,
            "lrrrrrrl",
        )
    out += _floor_section(data)
    summary = [name for name in targets if "all operations" in name]
    if summary:
        out += [
            "#### Targets\n",
            "All operations of a case together: the worst one decides.\n",
            *_targets_table(targets, summary),
        ]
    return out + _errors(data)


# ------------------------------------------------------------------------------ bench_sklearn
#: bench_sklearn's ratio columns where a file does not list them (written before the GPU run existed)
SKLEARN_CPU_RATIOS = {"dlarray_over_numpy": "numpy", "dlarray_over_strict": "array_api_strict"}


def sklearn_section(data: dict[str, Any], page: Any) -> list[str]:
    """sklearn.json (on the CPU) or sklearn_cuda.json (on a GPU): a row per estimator with each
    library's time and dlarray's ratios, the plot, the summary targets and any profile."""
    shape = data.get("data", {})
    targets = data.get("targets", {})
    libraries = plots.sklearn_libraries(data)
    ratios = data.get("ratios", SKLEARN_CPU_RATIOS)
    rows = []
    for label, row in data["estimators"].items():
        rows.append(
            [
                f"`{_cell(label)}`",
                *(_number(row.get(f"{library}_ms")) for library in libraries),
                *(
                    f"{_number(row.get(key))} "
                    f"{_verdict(targets.get(f'{label}: dlarray / {plots.display_name(peer)}'))}"
                    for key, peer in ratios.items()
                ),
            ]
        )
    summary = [name for name in targets if name.startswith("all estimators")]
    gpu = data.get("device")
    held = f"on the GPU ({plain(gpu)}) by cupy and dlarray, on the CPU by numpy" if gpu else "by each library"
    out = [
        environment_line(data.get("environment", {}), "bench_sklearn.py" + (
            f" --device {data['device_argument']}" if data.get("device_argument") else "")),
        (
            f"`Estimator().fit(X[, y])` with `sklearn.set_config(array_api_dispatch=True)`, on "
            f"{shape.get('samples', 0):,} × {shape.get('features', '?')} {shape.get('dtype', 'float64')} "
            f"data held {held}; see [scikit-learn and SciPy](guide/ecosystem.md#speed) for where the time goes.\n"
        ),
        *_plot(data.get("benchmark", "sklearn"), "scikit-learn fit times", page),
        *_table(
            [
                "estimator",
                *(f"{plots.display_name(library)} ms" for library in libraries),
                *(f"dlarray / {plots.display_name(peer)}" for peer in ratios.values()),
            ],
            rows,
        ),
        "#### Targets\n",
        *_targets_table(targets, summary),
    ]
    for label, profile in (data.get("profiles") or {}).items():
        lines = _table(
            ["function", "calls", "own ms per fit", "cumulative ms per fit"],
            [
                [
                    f"`{_cell(p['function'])}`",
                    str(p["calls"]),
                    _number(p["own_ms_per_fit"]),
                    _number(p["cumulative_ms_per_fit"]),
                ]
                for p in profile
            ],
        )
        out += [
            f'??? info "cProfile of the dlarray fit of {_cell(label)}"',
            "",
            *(f"    {line}" if line else "" for line in lines),
        ]
    return out + _errors(data)


# ------------------------------------------------------------------------------ bench_cuda
def cuda_section(data: dict[str, Any], page: Any) -> list[str]:
    handoffs, computed = plots.cuda_groups(data)
    out = [
        environment_line(data.get("environment", {}), "bench_cuda.py"),
        f"GPU: {data.get('device', 'not recorded')}.\n",
        *_plot("cuda", "CUDA hand-offs and compute, dlarray against cupy", page),
    ]
    for title, groups in (("Hand-offs", handoffs), ("Compute", computed)):
        labels = [label for group in groups.values() for label in group]
        if not labels:
            continue
        cases = list(dict.fromkeys(case for label in labels for case in data["timings"][label]))
        rows = [
            [f"`{_cell(label)}`", *(_number(_median(data, label, case)) for case in cases)]
            for label in labels
        ]
        header = [_size(case) if case.isdigit() else case for case in cases]
        out += [f"#### {title}\n", *_table(["operation (median µs)", *header], rows)]
    return out + ["#### Targets\n", *_targets_table(data.get("targets", {})), *_passes_through(data),
                  *_errors(data)]


def _passes_through(data: dict[str, Any]) -> list[str]:
    """What bench_cuda found: the operations where array_api_compat.cupy calls cupy's own function."""
    same = [name for name, passes in data.get("compat_passes_through", {}).items() if passes]
    if not same:
        return []
    listed = ", ".join(f"`{_cell(name)}`" for name in same)
    return [
        f"In this run array_api_compat.cupy's {listed} {'is' if len(same) == 1 else 'are'} cupy's own "
        "function (compat adds no code): what it adds over raw cupy is timing noise around 0, so the "
        "10-element compute target compares dlarray's overhead (an Array made for each result) with "
        "that noise.\n"
    ]


#: stem -> (section title, script, how to run it, what it needs, the section's renderer)
SECTIONS: dict[str, tuple[str, str, str, str, Callable[[dict[str, Any], Any], list[str]]]] = {
    "dlpack": ("DLPack import and export latency", "bench_dlpack.py", "make bench", "", dlpack_section),
    "dispatch": (
        "Per-call overhead of the namespace",
        "bench_dispatch.py",
        "make bench",
        "",
        dispatch_section,
    ),
    "sklearn": ("scikit-learn fits", "bench_sklearn.py", "make bench", "", sklearn_section),
    "sklearn_cuda": (
        "scikit-learn fits on a CUDA GPU",
        "bench_sklearn.py --device cuda:0",
        "make bench-cuda",
        "a machine with a CUDA GPU and cupy",
        sklearn_section,
    ),
    "cuda": (
        "CUDA hand-offs",
        "bench_cuda.py",
        "make bench-cuda",
        "a machine with a CUDA GPU, torch and cupy",
        cuda_section,
    ),
}


def benchmark_results(page: Any) -> str:
    """Every benchmark's section: its environment, plot, tables and targets, or why it is missing."""
    parts: list[str] = []
    for stem, (title, script, command, needs, render) in SECTIONS.items():
        parts.append(f"### {title}\n")
        source = bench_dir() / f"{stem}.json"
        if not source.is_file():
            where = f" It needs {needs}; there" if needs else ""
            parts.append(
                f'!!! warning "Not measured yet"\n    `benchmarks/{script}` has not written '
                f"`benchmarks/results/{stem}.json`.{where} `{command}` writes it and its plot, and the "
                "next build of the site shows them here.\n"
            )
            continue
        parts.extend(render(json.loads(source.read_text()), page))
    return "\n".join(parts)
