"""MkDocs hooks: the parts of the site that are generated at build time, so that they never drift.

A page asks for generated content with a marker comment on a line of its own:

``<!-- generated: interop-table -->``
    the interop table of ``python -m dlarray`` as a Markdown table (home page);
``<!-- generated: probe-output -->``
    the verbatim output of ``python -m dlarray`` (interop probe page);
``<!-- generated: dtype-table -->``
    every dtype dlarray knows, from ``dlarray._dtypes`` (data types page);
``<!-- generated: benchmark-results -->``
    every benchmark's plot, tables and targets from ``benchmarks/results/`` (benchmarks page;
    ``bench_page.py``);
``<!-- generated: benchmarks-readme -->``
    ``benchmarks/README.md`` without its title, its headings one level down (benchmarks page);
``<!-- generated: conformance-result -->``
    the latest run of the official suite in ``conformance/results/`` (conformance page);
``<!-- generated: dlpack-kit-matrix -->``
    the DLPack conformance kit's results in ``docs/results/dlpack-kit/`` (DLPack conformance page).

The probe runs in a subprocess of the Python that runs MkDocs (the project's virtual environment),
once per build. The benchmark plots are copied into the site as ``assets/benchmarks/<name>.png``.
``DLARRAY_BENCH_RESULTS`` and ``DLARRAY_CONFORMANCE_RESULTS`` point the hooks at other folders.
"""

from __future__ import annotations

import html
import json
import logging
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs_hooks"))  # this folder, also where this file is loaded by path
try:
    from bench_page import BENCH_ASSETS, bench_dir, benchmark_results
finally:
    sys.path.remove(str(ROOT / "docs_hooks"))
log = logging.getLogger("mkdocs.hooks.dlarray")

_MARKER = re.compile(r"^<!-- generated: ([a-z-]+) -->$", re.MULTILINE)

_PROBE_SCRIPT = """
import contextlib, importlib.metadata, io, json
from dlarray.__main__ import main, probe
captured = io.StringIO()
with contextlib.redirect_stdout(captured):
    main([])
result = probe()
rows, notes = result.rows, result.notes
versions = {}
for name in ("numpy", "torch", "jax", "array-api-strict", "cupy-cuda12x"):
    try:
        versions[name] = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        pass
print(json.dumps({"text": captured.getvalue(), "rows": rows, "notes": notes, "versions": versions}))
"""

_probe_cache: dict[str, Any] = {}


def _conformance_dir() -> Path:
    return Path(os.environ.get("DLARRAY_CONFORMANCE_RESULTS", ROOT / "conformance" / "results"))


# ------------------------------------------------------------------------------ MkDocs events
def on_pre_build(config: Any) -> None:
    _probe_cache.clear()  # `mkdocs serve` rebuilds: probe again


# Pages other contributors write; until one exists, a clearly marked stand-in keeps the nav whole.


def on_files(files: Files, config: Any) -> Files:
    """Add the benchmark plots to the site, and stand-ins for pages not written yet."""
    for plot in sorted(bench_dir().glob("*.png")):
        files.append(File.generated(config, f"{BENCH_ASSETS}/{plot.name}", abs_src_path=str(plot)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Replace each marker with its generated Markdown."""

    def expand(match: re.Match[str]) -> str:
        name = match.group(1)
        generator = _GENERATORS.get(name)
        if generator is None:
            raise PluginError(f"{page.file.src_uri}: unknown generated section {name!r}")
        return generator(page)

    return _MARKER.sub(expand, markdown)


# ------------------------------------------------------------------------------ the probe
def _probe() -> dict[str, Any]:
    if not _probe_cache:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
        done = subprocess.run([sys.executable, "-c", _PROBE_SCRIPT], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=600)
        if done.returncode != 0:
            raise PluginError(f"python -m dlarray failed while building the docs:\n{done.stderr[-4000:]}")
        _probe_cache.update(json.loads(done.stdout.strip().splitlines()[-1]))
    return _probe_cache


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def interop_table(page: Any) -> str:
    found = _probe()
    rows, notes = found["rows"], found["notes"]
    header = [rows[0][0], "into dlarray"] + [f"→ {c.removeprefix('-> ')}" for c in rows[0][2:]]
    lines = ['<div class="interop" markdown>', "",
             "| " + " | ".join(_cell(c) for c in header) + " |", "|" + " --- |" * len(header)]
    for row in rows[1:]:
        cells = [f"**{row[0]}**", *(f"**{c}**" if c.startswith("COPY") else _cell(c) for c in row[1:])]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "</div>", ""]
    lines.extend(f"[{i}] `{_cell(note)}`  " for i, note in enumerate(notes, 1))
    return "\n".join(lines) + "\n"


def probe_output(page: Any) -> str:
    found = _probe()
    versions = ", ".join(f"{name} {version}" for name, version in found["versions"].items())
    return f"```text\n$ python -m dlarray\n{found['text'].rstrip()}\n```\n\nInstalled when the site was built: {versions}.\n"


# ------------------------------------------------------------------------------ dtypes
def dtype_table(page: Any) -> str:
    sys.path.insert(0, str(ROOT))
    try:
        from dlarray._dtypes import ALL_DTYPES, ARRAY_API_DTYPES
        from dlarray._dlpack import DLDataTypeCode
    finally:
        sys.path.remove(str(ROOT))
    lines = [
        "| dtype | Array API | bits | DLPack type code | numpy dtype |",
        "| --- | --- | --- | --- | --- |",
    ]
    for dtype in ALL_DTYPES:
        code = f"`{DLDataTypeCode(dtype.code).name}` ({int(dtype.code)})"
        numpy = f"`{dtype.numpy_dtype}`" if dtype.numpy_dtype is not None else "none: stored only"
        standard = "yes" if dtype in ARRAY_API_DTYPES else "no"
        lines.append(f"| `{dtype.name}` | {standard} | {dtype.bits} | {code} | {numpy} |")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------ benchmarks
def benchmarks_readme(page: Any) -> str:
    text = (ROOT / "benchmarks" / "README.md").read_text()
    lines = text.splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    in_code = False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and line.startswith("#"):
            lines[i] = "#" + line
    return "\n".join(lines).strip() + "\n"


# ------------------------------------------------------------------------------ conformance
def _examples(path: Path) -> int:
    found = re.fullmatch(r"cpu-(\d+)", path.stem)
    return int(found.group(1)) if found else -1


def conformance_result(page: Any) -> str:
    runs = sorted(_conformance_dir().glob("cpu-*.txt"), key=_examples)
    if not runs:
        return ('!!! warning "No result recorded yet"\n    `conformance/results/` holds no run yet. '
                "Run `make conformance` (below); the build then shows its summary here.\n")
    latest = runs[-1]
    lines = latest.read_text().splitlines()
    header, summary = (lines + ["", ""])[:2]
    failures = [line for line in lines[2:] if line.strip()]
    out = [
        f"Latest recorded run, `conformance/results/{latest.name}`: {_cell(header)}.\n",
        f"**{summary.strip('= ')}**\n",
    ]
    if failures:
        out.append(f'??? info "The {len(failures)} failed or erroring tests"\n    ```text')
        out.extend(f"    {line}" for line in failures)
        out.append("    ```\n")
    others = [run.name for run in runs[:-1]]
    if others:
        out.append("Other recorded runs: " + ", ".join(f"`{name}`" for name in others) + ".\n")
    return "\n".join(out)


# ------------------------------------------------------------------------------ DLPack conformance kit
#: The libraries of the matrix, in column order; each has docs/results/dlpack-kit/<name>.json once
#: `python -m dlarray check <name> --json ...` has run (cupy needs a GPU).
KIT_LIBRARIES = ("numpy", "torch", "jax", "array-api-strict", "pydlpack", "dlarray", "cupy")
KIT_CELLS = {"passed": "pass", "failed": "**FAIL**", "not applicable": "n/a", "crashed": "**CRASH**"}
KIT_MISSING = "not run"


def _kit_dir() -> Path:
    return Path(os.environ.get("DLARRAY_KIT_RESULTS", ROOT / "docs" / "results" / "dlpack-kit"))


def kit_records() -> dict[str, dict[str, Any] | None]:
    """Library -> its recorded kit result (None: not run here)."""
    found: dict[str, dict[str, Any] | None] = {}
    for name in KIT_LIBRARIES:
        path = _kit_dir() / f"{name}.json"
        found[name] = json.loads(path.read_text()) if path.is_file() else None
    return found


def kit_matrix(role: str) -> tuple[list[str], dict[str, dict[str, str]]]:
    """(libraries, {check: {library: status}}) for ``role`` ("producer" or "consumer")."""
    records = kit_records()
    rows: dict[str, dict[str, str]] = {}
    for library, record in records.items():
        report = (record or {}).get(role) or {"results": []}
        for row in report["results"]:
            rows.setdefault(row["name"], {})[library] = row["status"]
    return list(records), rows


def _kit_counts(report: dict[str, Any] | None) -> str:
    if report is None:
        return "none"
    counts = {status: 0 for status in KIT_CELLS}
    for row in report["results"]:
        counts[row["status"]] += 1
    return (f"{counts['passed']} passed, {counts['failed']} failed, {counts['not applicable']} n/a"
            + (f", **{counts['crashed']} crashed**" if counts["crashed"] else ""))


def dlpack_kit_matrix(page: Any) -> str:
    records = kit_records()
    out = ["| library | version | device | recorded | producer | consumer |", "| --- | --- | --- | --- | --- | --- |"]
    for library, record in records.items():
        if record is None:
            out.append(f"| {library} | | {'cuda' if library == 'cupy' else 'cpu'} | {KIT_MISSING}: "
                       f"{'needs a GPU' if library == 'cupy' else 'not installed where the results were made'} | | |")
            continue
        env = record.get("environment", {})
        out.append(f"| {library} | {record.get('version') or '?'} | {record.get('device', 'cpu')} | "
                   f"{record.get('time', '?')}, Python {env.get('python', '?')}, numpy {env.get('numpy', '?')} | "
                   f"{_kit_counts(record.get('producer'))} | {_kit_counts(record.get('consumer'))} |")
    out.append("")
    for role, title in (("producer", "Producer checks (`check_producer`)"), ("consumer", "Consumer cases (`check_consumer`)")):
        libraries, rows = kit_matrix(role)
        out += [f"### {title}\n", '<div class="interop" markdown>', "",
                "| " + " | ".join(["check", *libraries]) + " |", "|" + " --- |" * (len(libraries) + 1)]
        for check, statuses in rows.items():
            cells = [KIT_CELLS[statuses[lib]] if lib in statuses else ("–" if records[lib] else KIT_MISSING)
                     for lib in libraries]
            out.append(f"| `{_cell(check)}` | " + " | ".join(cells) + " |")
        out += ["", "</div>", ""]
    out.append("### Why each check failed\n")
    for library, record in records.items():
        if record is None:
            continue
        for role in ("producer", "consumer"):
            report = record.get(role)
            bad = [row for row in (report or {}).get("results", []) if row["status"] in ("failed", "crashed")]
            if not bad:
                continue
            out.append(f'??? failure "{library} {role}: {len(bad)} failed or crashed"')
            out.extend(f"    - `{_cell(row['name'])}` ({row['status']}): {html.escape(row['detail'])}" for row in bad)
            out.append("")
    return "\n".join(out) + "\n"


_GENERATORS: dict[str, Callable[[Any], str]] = {
    "interop-table": interop_table,
    "probe-output": probe_output,
    "dtype-table": dtype_table,
    "benchmark-results": benchmark_results,
    "benchmarks-readme": benchmarks_readme,
    "conformance-result": conformance_result,
    "dlpack-kit-matrix": dlpack_kit_matrix,
}
