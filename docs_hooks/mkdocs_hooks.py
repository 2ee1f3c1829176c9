"""MkDocs hooks: the parts of the site that are generated at build time, so that they never drift.

A page asks for generated content with a marker comment on a line of its own:

``<!-- generated: interop-table -->``
    the interop table of ``python -m dlarray`` as a Markdown table (home page);
``<!-- generated: probe-output -->``
    the verbatim output of ``python -m dlarray`` (interop probe page);
``<!-- generated: probe-frameworks -->``
    the probe's table with tensorflow, paddle and pyarrow, as ``make frameworks`` recorded it in
    ``docs/results/probe-frameworks.json`` (interop probe page);
``<!-- generated: dtype-table -->``
    every dtype dlarray knows, from ``dlarray._dtypes`` (data types page);
``<!-- generated: benchmark-results -->``
    every benchmark's plot, tables and targets from ``benchmarks/results/`` (benchmarks page;
    ``bench_page.py``);
``<!-- generated: benchmarks-readme -->``
    ``benchmarks/README.md`` without its title, its headings one level down (benchmarks page);
``<!-- generated: conformance-result -->``
    the latest recorded run of the official suite on each device in ``conformance/results/``
    (conformance page);
``<!-- generated: downstream-result -->``
    scikit-learn's and SciPy's array-API tests run with dlarray and array_api_strict,
    ``conformance/results/downstream.json`` (conformance page);
``<!-- generated: dlpack-kit-matrix -->``
    the DLPack conformance kit's results in ``docs/results/dlpack-kit/`` (DLPack conformance page);
``<!-- generated: results-summary -->`` / ``<!-- generated: cuda-status -->``
    the results in one line each, on the CPU and on a GPU (home page, results page), or the GPU
    part alone (devices page);
``<!-- generated: status-table -->``
    one row per result file (conformance per device, the downstream suites, kit, stress, benchmarks)
    with when, where and with what it was measured, folded away (results page);
``<!-- generated: coverage-table -->``
    one row per function of the standard, its status per device (coverage page);
``<!-- generated: stress-result -->``
    ``docs/results/stress.json`` (safety page);
``<!-- generated: extras-table -->``
    the extras of ``pyproject.toml`` (installation page);
``<!-- generated: tested-versions -->``
    declared and recorded versions of the libraries dlarray exchanges with (interop matrix page).

Every result is shown with the date, commit, machine and versions its file records; an absent file
is said to be absent ("no result file yet"). tests/test_docs_facts.py holds the pages to that.

Search: once the site is written, the entries of the API reference are boosted in
``search/search_index.json`` (``on_post_build``, ``API_ENTRY_BOOST``), so that with
``docs/javascripts/search-exact.js`` an entry named as typed is listed first.

The probe runs in a subprocess of the Python that runs MkDocs (the project's virtual environment),
once per build. The benchmark plots are copied into the site as ``assets/benchmarks/<name>.png``.
``DLARRAY_BENCH_RESULTS`` and ``DLARRAY_CONFORMANCE_RESULTS`` point the hooks at other folders.
"""

from __future__ import annotations

import json
import logging
import os
import posixpath
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, NamedTuple

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs_hooks"))  # this folder, also where this file is loaded by path
try:
    from bench_page import BENCH_ASSETS, SECTIONS, bench_dir, benchmark_results, plain
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
for name in ("numpy", "torch", "jax", "array-api-strict", "paddlepaddle", "tensorflow", "tensorflow-cpu", "pyarrow",
             "cupy-cuda12x", "cupy-cuda13x"):
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


_TABLE_CELL = re.compile(r"(<t[dh]\b[^>]*>)(.*?)(</t[dh]>)", re.DOTALL)
_LONG_CODE = re.compile(r"<code>([^<]{24,})</code>")
_NAME_BREAK = re.compile(r"(?<=_)(?=[^_])|(?<=::)|(?<=/)(?=.)|(?<=\w)(?=\.\w)")


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    """Long names in table cells may break only between their parts: a ``<wbr>`` after ``_``, ``::``
    and ``/`` and before ``.`` in code of 24 characters or more (extra.css breaks no word elsewhere
    in a cell, so a short name such as ``from_dlpack`` is never split)."""

    def cell(match: re.Match[str]) -> str:
        inner = _LONG_CODE.sub(lambda code: f"<code>{_NAME_BREAK.sub('<wbr>', code.group(1))}</code>",
                               match.group(2))
        return match.group(1) + inner + match.group(3)

    return _TABLE_CELL.sub(cell, html)


#: how much more an entry of the API reference weighs in search than any other section. With the
#: exact-word clause docs/javascripts/search-exact.js adds to a query, the entry named as typed comes
#: before a guide's section with that word in its title ("floor" before "The floor") and before a page
#: whose title has it ("fft" before the "fft extension" page, which the theme's worker weighs 2.5 times
#: a section: a boost of 2 leaves the fft entry folded under "more on this page")
API_ENTRY_BOOST = 3.0
_API_ENTRY = re.compile(r"#dlarray(?:\.\w+)+$")


def is_api_entry(location: str) -> bool:
    """Whether a search index location is an entry of the API reference: mkdocstrings anchors each
    object it documents by its Python path (``api/elementwise/#dlarray._elementwise_functions.sin``).

    Parameters
    ----------
    location : str
        A document's ``location`` in ``search/search_index.json``.

    Returns
    -------
    bool
        True for a documented object's section.
    """
    return _API_ENTRY.search(location) is not None


@event_priority(-100)  # after the search plugin has written the index
def on_post_build(config: Any) -> None:
    """Boost the API reference's entries in the search index (``API_ENTRY_BOOST``); the theme's
    worker passes a document's ``boost`` to lunr."""
    path = Path(config["site_dir"]) / "search" / "search_index.json"
    if not path.is_file():  # search switched off
        return
    index = json.loads(path.read_text(encoding="utf-8"))
    for doc in index["docs"]:
        if is_api_entry(doc["location"]):
            doc["boost"] = doc.get("boost", 1.0) * API_ENTRY_BOOST
    path.write_text(json.dumps(index, separators=(",", ":")), encoding="utf-8")


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
    """``text`` for a code span in a table cell (a ``|`` would end the cell); other text: ``plain``."""
    return text.replace("|", "\\|")


#: the fence of a generated list of test ids and messages: the browser wraps its long lines (extra.css),
#: so that each id stays whole, as written, in the page's text
WRAPPED_TEXT = "``` {.text .wrap}"
#: the widest line of a generated text block, in characters: what a code block holds at 1400 px
TEXT_WIDTH = 96
_BREAKS = re.compile(r"(?<= )|(?<=::)|(?<=/)|(?<=, )|(?=\[)|(?<=-)")


def wrapped(line: str, width: int = TEXT_WIDTH, indent: str = "    ") -> str:
    """``line`` of a generated text block in lines of at most ``width`` characters, its continuation
    lines indented by ``indent`` more than it: broken after a space, ``::``, ``/`` or ``-`` or before
    ``[`` (a test id is no word), within a word only when it has no such place."""
    lead = line[:len(line) - len(line.lstrip())]
    out, rest, first = [], line, True
    while len(rest) > width:
        cuts = [m.start() for m in _BREAKS.finditer(rest, len(lead) + 1, width + 1)]
        cut = cuts[-1] if cuts else width
        out.append(rest[:cut].rstrip())
        rest = lead + indent + rest[cut:].lstrip()
        first = False
    out.append(rest)
    return "\n".join(out) if not first else line


def counted(n: int, noun: str, plural: str = "") -> str:
    """``n`` with its noun in the singular or the plural: "1 test", "2 tests"."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def interop_table(page: Any) -> str:
    found = _probe()
    return _interop_markdown(found["rows"], found["notes"])


def _interop_markdown(rows: list[list[str]], notes: list[str]) -> str:
    header = [rows[0][0], "into dlarray"] + [f"→ {c.removeprefix('-> ')}" for c in rows[0][2:]]
    lines = ['<div class="interop" markdown>', "",
             "| " + " | ".join(_cell(c) for c in header) + " |", "|" + " --- |" * len(header)]
    for row in rows[1:]:
        cells = [f"**{row[0]}**", *(f"**{c}**" if c.startswith("COPY") else _cell(c) for c in row[1:])]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "</div>", ""]
    lines.extend(f"[{i}] `{_cell(note)}`  " for i, note in enumerate(notes, 1))
    return "\n".join(lines) + "\n"


#: the probe's table with tensorflow, paddle and pyarrow, as `make frameworks` recorded it
PROBE_FRAMEWORKS = ROOT / "docs" / "results" / "probe-frameworks.json"


def probe_frameworks(page: Any) -> str:
    if not PROBE_FRAMEWORKS.is_file():
        return f"{NO_RESULT}: `make frameworks` records it in `docs/results/probe-frameworks.json`.\n"
    found = json.loads(PROBE_FRAMEWORKS.read_text())
    versions = ", ".join(f"{name} {version}" for name, version in found.get("versions", {}).items())
    return (_interop_markdown([found["header"], *found["rows"]], found["notes"])
            + f"\nRecorded by `make frameworks` (dlarray {found['dlarray']}, Python {found['python']}) with {versions}.\n")


def probe_output(page: Any) -> str:
    found = _probe()
    versions = ", ".join(f"{name} {version}" for name, version in found["versions"].items())
    text = "\n".join(wrapped(line, indent="    ") for line in found["text"].rstrip().splitlines())
    return (f"```text\n$ python -m dlarray\n{text}\n```\n\n(Lines longer than {TEXT_WIDTH} characters wrapped "
            f"for this page.) Installed when the site was built: {versions}.\n")


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


# ------------------------------------------------------------------------------ recorded results
# Every status statement and number of the site comes from a committed result file, through the
# readers below, and is shown with when, at which commit, on what and with which versions it was
# measured. A result file that is absent is said to be absent: no generator states a result of its own.

#: conformance result files are named <device>-<examples>.txt (+ .json); the devices the site reports
CONFORMANCE_DEVICES = {"cpu": "CPU", "cuda0": "CUDA (`cuda:0`)"}
NO_RESULT = "no result file yet"
_COUNT = re.compile(r"(\d+) (passed|skipped|failed|errors|xfailed|xpassed)")


class ConformanceRun(NamedTuple):
    """One recorded run of the official suite: the .txt summary and, when written, its .json record."""

    device: str  # the file's prefix: cpu, cuda0
    examples: int
    path: Path  # the .txt
    header: str
    summary: str
    counts: dict[str, int]
    failures: list[str]  # "FAILED <test>" and "ERROR <test>" lines
    known_defects: list[str]  # "XFAIL <test>: <reason>": the pinned suite's known defects (suite_defects.py)
    record: dict[str, Any] | None  # per-test outcomes and environment (conformance/run.py --record)

    @property
    def environment(self) -> dict[str, Any] | None:
        return (self.record or {}).get("environment")


def _runs_of(device: str) -> list[ConformanceRun]:
    runs = []
    for path in _conformance_dir().glob(f"{device}-*.txt"):
        found = re.fullmatch(rf"{device}-(\d+)", path.stem)
        if not found:
            continue
        lines = path.read_text().splitlines() + ["", ""]
        record_path = path.with_suffix(".json")
        listed = [line for line in lines[2:] if line.strip()]
        runs.append(ConformanceRun(
            device, int(found.group(1)), path, lines[0], lines[1].strip("= "),
            {kind: int(n) for n, kind in _COUNT.findall(lines[1])},
            [line for line in listed if not line.startswith("XFAIL ")],
            [line for line in listed if line.startswith("XFAIL ")],
            json.loads(record_path.read_text()) if record_path.is_file() else None))
    return sorted(runs, key=lambda run: run.examples)


def conformance_run(device: str) -> ConformanceRun | None:
    """The recorded run with the most examples on ``device`` (None: no result file)."""
    runs = _runs_of(device)
    return runs[-1] if runs else None


def _short(commit: str | None) -> str:
    if not commit:
        return "commit not recorded"
    return f"dlarray at `{commit[:7]}`" + (" with uncommitted changes" if commit.endswith("+dirty") else "")


def provenance(env: dict[str, Any] | None, fallback: str = "") -> str:
    """One line: when, at which commit, on what, with which versions (as far as the file records them)."""
    if not env:
        return fallback or "date, commit and versions not recorded"
    when = re.sub(r"^(\d{4}-\d\d-\d\d)T", r"\1 ", str(env.get("time") or "date not recorded"))
    when = when[:-1] + " UTC" if when.endswith("Z") else when
    machine = env.get("accelerator") or ""
    if env.get("nvidia_driver"):
        machine += f", NVIDIA driver {env['nvidia_driver']}"
    if env.get("cuda_driver"):
        machine += f" (CUDA {env['cuda_driver'] // 1000}.{env['cuda_driver'] % 1000 // 10})"
    host = str(env.get("platform", "platform not recorded"))
    if env.get("cpu_count"):
        host += f", {env['cpu_count']} CPUs"
    load = env.get("load_average")
    if load:
        host += f" (load average {load[0]:.1f})"
    versions = {"Python": env.get("python"), **(env.get("versions") or {})}
    listed = ", ".join(f"{name} {version}" for name, version in versions.items() if version)
    where = f"{machine}; {host}" if machine else host
    return f"{when}, {_short(env.get('commit'))}, on {where}; {listed}"


def _link(page: Any, target: str) -> str:
    """``target`` (a docs-relative path, optionally with #anchor) relative to ``page``."""
    if page is None:
        return target
    path, _, anchor = target.partition("#")
    link = posixpath.relpath(path, posixpath.dirname(page.file.src_uri) or ".")
    return link + (f"#{anchor}" if anchor else "")


def _missing_conformance(device: str) -> str:
    return f"{NO_RESULT} (`conformance/results/{device}-<examples>.txt` is absent)"


def conformance_result(page: Any) -> str:
    out: list[str] = []
    for device, title in CONFORMANCE_DEVICES.items():
        run = conformance_run(device)
        out.append(f"### {title}\n")
        if run is None:
            make = "make conformance-cuda" if device.startswith("cuda") else "make conformance"
            out.append(f"{_missing_conformance(device).capitalize()}: `{make} CONFORMANCE_ARGS=--record` "
                       "writes it, and the next build shows it here.\n")
            continue
        out.append(f"**{run.summary}** (`conformance/results/{run.path.name}`, `--max-examples={run.examples}`)\n")
        out.append(f"Measured {provenance(run.environment, fallback=_cell(run.header))}.\n")
        tests = (run.record or {}).get("tests")
        if tests:
            per_file: dict[str, dict[str, int]] = {}
            for nodeid, entry in tests.items():
                counts = per_file.setdefault(nodeid.split("::")[0].rsplit("/", 1)[-1], {})
                counts[entry["outcome"]] = counts.get(entry["outcome"], 0) + 1
            out.append('??? info "Per test file"\n')
            xfails = any(counts.get("xfailed") for counts in per_file.values())
            out.append("    | test file | passed | failed | errors | skipped |" + (" xfailed |" if xfails else "")
                       + "\n    | --- | ---: | ---: | ---: | ---: |" + (" ---: |" if xfails else ""))
            for name, counts in sorted(per_file.items()):
                out.append(f"    | `{name}` | {counts.get('passed', 0)} | {counts.get('failed', 0)} | "
                           f"{counts.get('error', 0)} | {counts.get('skipped', 0)} |"
                           + (f" {counts.get('xfailed', 0)} |" if xfails else ""))
            out.append("")
        if run.failures:
            messages = {f"{entry['outcome'].upper()} {nodeid}": entry.get("message", "")
                        for nodeid, entry in (tests or {}).items()}
            out.append(f'??? failure "The {counted(len(run.failures), "failed or erroring test")}"\n    {WRAPPED_TEXT}')
            for line in run.failures:
                message = messages.get(line)
                out.append(f"    {line}" + (f"\n        {message}" if message else ""))
            out.append("    ```\n")
        if run.known_defects:
            out.append(f'??? note "{counted(len(run.known_defects), "known defect")} of the pinned suite, counted as xfailed"\n'
                       "    A test the suite's maintainers have fixed upstream after the pinned commit fails here "
                       "exactly the way the fix accepts (`conformance/suite_defects.py`); any other failure of "
                       f"it would be counted as a failure.\n\n    {WRAPPED_TEXT}")
            out.extend(f"    {line}" for line in run.known_defects)
            out.append("    ```\n")
        others = [other.path.name for other in _runs_of(device)[:-1]]
        if others:
            out.append("Other recorded runs: " + ", ".join(f"`{name}`" for name in others) + ".\n")
    return "\n".join(out)


# ------------------------------------------------------------------------------ scikit-learn's and SciPy's suites
#: conformance/downstream.py (``make downstream``) writes it: both suites' array-API tests, run with
#: dlarray and with array_api_strict
DOWNSTREAM_FILE = "downstream.json"
DOWNSTREAM_OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")


def downstream_record() -> dict[str, Any] | None:
    path = _conformance_dir() / DOWNSTREAM_FILE
    return json.loads(path.read_text()) if path.is_file() else None


def _missing_downstream() -> str:
    return f"{NO_RESULT} (`conformance/results/{DOWNSTREAM_FILE}` is absent)"


def downstream_counts(record: dict[str, Any], suite: str, namespace: str) -> str:
    """One namespace's outcomes in one suite, as pytest words them ("1075 passed, 1 failed, ...")."""
    counts = record["suites"][suite]["counts"][namespace]
    words = {"error": "errors"}
    return ", ".join(f"{counts.get(k, 0)} {words.get(k, k)}" for k in DOWNSTREAM_OUTCOMES
                     if counts.get(k, 0) or k in ("passed", "failed", "error"))


def downstream_brief(record: dict[str, Any], suite: str, namespace: str) -> str:
    """One namespace's outcomes in one suite for the ten-second summary: passed, and failed and errors
    when there are any (skips, xfails and xpasses are on the conformance page).

    Parameters
    ----------
    record : dict
        ``conformance/results/downstream.json``.
    suite : str
        The suite (``scikit-learn``, ``scipy``).
    namespace : str
        The namespace the suite ran with.

    Returns
    -------
    str
        For instance "1075 passed, 1 failed".
    """
    counts = record["suites"][suite]["counts"][namespace]
    words = {"error": "errors"}
    return ", ".join(f"{counts.get(k, 0)} {words.get(k, k)}" for k in ("passed", "failed", "error")
                     if counts.get(k, 0) or k == "passed")


def _target_value(target: dict[str, Any]) -> str:
    if target.get("ran") is not None:
        counted = target["ran"] - target.get("suite_caused", 0)
        share = "" if target["value"] is None else f" ({100 * target['value']:.1f} %)"
        apart = (f"; {target['suite_caused']} more fail by the suite's doing ({100 * target['raw_share']:.1f} % "
                 f"of all {target['ran']} pass)" if target.get("suite_caused") else "")
        return f"{target['passed']} of {counted}{share}{apart}; target {100 * target['target']:.0f} %"
    return f"{target['value']}, target {target['target']}"


def downstream_result(page: Any) -> str:
    record = downstream_record()
    if record is None:
        return (f'!!! warning "No result recorded yet"\n    {_missing_downstream().capitalize()}: `make downstream` '
                "writes it, and the next build shows it here.\n")
    reference, standin = record["reference"], record["standin"]
    out = [f"Measured {provenance(record['environment'])}"
           + (f", -n {record['environment']['workers']}" if record["environment"].get("workers") else "")
           + (f"; pytest arguments: `{' '.join(record['pytest_args'])}`" if record.get("pytest_args") else "")
           + ". From `conformance/results/downstream.json`.\n"]
    out += ["| suite | namespace | outcomes | seconds (both) |", "| --- | --- | --- | ---: |"]
    for suite, summary in record["suites"].items():
        for namespace in (standin, reference):
            out.append(f"| {suite} | `{namespace}` | {downstream_counts(record, suite, namespace)} | "
                       f"{summary.get('seconds', '')} |")
    out += ["", f"| suite | {reference} passes, {standin} fails | of those, the suite's doing | "
                f"skipped or xfailed for {reference}, run with {standin} | of those, passed |",
            "| --- | ---: | ---: | ---: | ---: |"]
    for suite, summary in record["suites"].items():
        out.append(f"| {suite} | {summary[f'{reference}_passed_{standin}_failed']} | "
                   f"{summary[f'{reference}_passed_{standin}_failed_suite_caused']} | "
                   f"{summary[f'{reference}_skipped_{standin}_ran']} | {summary[f'{reference}_skipped_{standin}_passed']} |")
    out += ["", "| target | measured | verdict |", "| --- | --- | --- |"]
    out += [f"| {plain(target['what'])} | {_target_value(target)} | **{target['verdict']}** |"
            for target in record["targets"].values()]
    out += ["", "### Failures that are the suite's doing\n",
            "Recognised by the failure itself (`SUITE_CAUSES` in `conformance/downstream.py`); dlarray is left "
            "as it is for them.\n", "| cause | why | failures |", "| --- | --- | ---: |"]
    out += [f"| `{key}` | {plain(cause['reason'])} | {cause['failures']} |"
            for key, cause in record["suite_causes"].items()]
    out.append("")
    for suite, failures in record["failures"].items():
        if not failures:
            continue
        out.append(f"### {suite}: every {standin} failure\n")
        groups: dict[tuple[str, str], int] = {}
        for failure in failures:
            key = (failure["message"], failure["cause"] or "")
            groups[key] = groups.get(key, 0) + 1
        out.append(f'??? failure "{counted(len(failures), "failed or erroring test")}, by first error line '
                   f'({counted(len(groups), "line")})"\n')
        out.append("    | tests | first error line | the suite's doing |\n    | ---: | --- | --- |")
        out += [f"    | {count} | `{_cell(message) or '(none)'}` | {f'`{cause}`' if cause else ''} |"
                for (message, cause), count in sorted(groups.items(), key=lambda item: -item[1])]
        out.append("")
        out.append(f'??? failure "The {counted(len(failures), "test")}, with {reference}\'s outcome of the same test"\n')
        out.append(f"    {WRAPPED_TEXT}")
        for failure in failures:
            cause = f" [{failure['cause']}]" if failure["cause"] else ""
            heading = (f"{failure['outcome'].upper()} {failure['nodeid']} ({reference}: "
                       f"{failure[f'{reference}_outcome'] or 'not run'}){cause}")
            out.append(f"    {heading}\n        {failure['message']}")
        out.append("    ```\n")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------ status summaries
def _bench_record(stem: str) -> dict[str, Any] | None:
    path = bench_dir() / f"{stem}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def _targets_met(record: dict[str, Any]) -> str:
    verdicts = [target.get("verdict") for target in (record.get("targets") or {}).values()]
    judged = [v for v in verdicts if v in ("MET", "NOT MET")]
    text = f"{judged.count('MET')} of {len(judged)} targets met"
    missed = [name for name, target in (record.get("targets") or {}).items() if target.get("verdict") == "NOT MET"]
    text += f" (not met: {'; '.join(plain(name) for name in missed)})" if missed else ""
    return text + (f", {len(verdicts) - len(judged)} not measured" if len(verdicts) > len(judged) else "")


def _stress_record() -> dict[str, Any] | None:
    path = _results_dir() / "stress.json"
    return json.loads(path.read_text()) if path.is_file() else None


def _stress_verdict(record: dict[str, Any]) -> str:
    verdicts = [check["verdict"] for check in record["checks"]]
    failed = [check["name"] for check in record["checks"] if check["verdict"] == "FAIL"]
    return (f"FAIL ({', '.join(failed)})" if failed else f"PASS ({verdicts.count('PASS')} checks passed, "
            f"{verdicts.count('SKIP')} skipped, {record['mode']} sizes)")


#: benchmark result files and what they measure (the site's status rows), from the benchmarks page's sections
BENCHMARK_FILES = {stem: f"{title} (`{script}`)" for stem, (title, script, *_) in SECTIONS.items()}


def status_rows(page: Any) -> list[tuple[str, str, str]]:
    """(what, result, measured) for every result file the site reports on."""
    rows = []
    for device, title in CONFORMANCE_DEVICES.items():
        run = conformance_run(device)
        what = f"[Array API suite]({_link(page, 'conformance.md')}), {title}"
        rows.append((what, _missing_conformance(device) if run is None else
                     f"{run.summary} (`--max-examples={run.examples}`)",
                     "" if run is None else provenance(run.environment, fallback=_cell(run.header))))
    kit = kit_records()
    for library in ("dlarray", "cupy"):
        record = kit[library]
        what = f"[DLPack conformance kit]({_link(page, 'guide/dlpack-conformance.md')}), {library}"
        if record is None:
            rows.append((what, f"{NO_RESULT} (`docs/results/dlpack-kit/{library}.json` is absent)", ""))
        else:
            env = dict(record.get("environment", {}), time=record.get("time"))
            counts = f"producer: {_kit_counts(record.get('producer'))}; consumer: {_kit_counts(record.get('consumer'))}"
            rows.append((what, counts, provenance(env)))
    downstream = downstream_record()
    what = f"[scikit-learn's and SciPy's array-API tests]({_link(page, 'conformance.md#scikit-learns-and-scipys-own-tests')})"
    if downstream is None:
        rows.append((what, _missing_downstream(), ""))
    else:
        standin = downstream["standin"]
        rows.append((what, "; ".join(f"{suite} with {standin}: {downstream_counts(downstream, suite, standin)}"
                                     for suite in downstream["suites"]), provenance(downstream["environment"])))
    stress = _stress_record()
    what = f"[stress run]({_link(page, 'safety.md#results')})"
    rows.append((what, f"{NO_RESULT} (`docs/results/stress.json` is absent)" if stress is None
                 else _stress_verdict(stress), "" if stress is None else provenance(stress["environment"])))
    for stem, title in BENCHMARK_FILES.items():
        record = _bench_record(stem)
        what = f"[benchmark]({_link(page, 'benchmarks.md')}): {title}"
        rows.append((what, f"{NO_RESULT} (`benchmarks/results/{stem}.json` is absent)" if record is None
                     else _targets_met(record) + (" (quick run)" if record["environment"].get("quick") else ""),
                     "" if record is None else provenance(record["environment"])))
    return rows


def status_table(page: Any) -> str:
    """Every result file's row, folded away: what it holds, and when, where and with what it was measured."""
    lines = ['??? info "Every result file: its result, and when, at which commit, on what machine and with '
             'which versions it was measured"', "", "    | check | result | measured |", "    | --- | --- | --- |"]
    lines += [f"    | {what} | {result} | {measured} |" for what, result, measured in status_rows(page)]
    return "\n".join(lines) + "\n"


def _date(env: dict[str, Any] | None) -> str:
    return str((env or {}).get("time") or "date not recorded")[:10]


_NO_GPU = "GPU not recorded"


def _gpu(env: dict[str, Any] | None) -> str:
    return str((env or {}).get("accelerator") or (env or {}).get("gpu") or _NO_GPU)


#: benchmark result files measured on a GPU (``make bench-cuda``)
CUDA_BENCHMARKS = [stem for stem, (_, _, make, *_) in SECTIONS.items() if make == "make bench-cuda"]


def gpu_summary(page: Any) -> list[str]:
    """What has been measured on a GPU, when and on which, one line each, or one line saying nothing was."""
    found, missing = [], []
    run = conformance_run("cuda0")
    suite = f"[Array API suite on `cuda:0`]({_link(page, 'conformance.md')})"
    if run is None:
        missing.append(suite)
    else:
        found.append(f"{suite}: {run.summary} ({_date(run.environment)}, {_gpu(run.environment)})")
    kit = kit_records()["cupy"]
    kit_link = f"[cupy in the DLPack conformance kit]({_link(page, 'guide/dlpack-conformance.md')})"
    if kit is None:
        missing.append(kit_link)
    else:
        found.append(f"{kit_link}: producer {_kit_counts(kit.get('producer'))}; consumer "
                     f"{_kit_counts(kit.get('consumer'))} ({str(kit.get('time'))[:10]}, {_gpu(kit.get('environment'))})")
    for stem in CUDA_BENCHMARKS:
        record = _bench_record(stem)
        what = f"[{SECTIONS[stem][0]}]({_link(page, 'benchmarks.md')})"
        if record is None:
            missing.append(what)
        else:
            gpu = _gpu(record["environment"])
            if gpu == _NO_GPU:  # bench_cuda and bench_sklearn name their GPU beside the environment
                gpu = record.get("device") or _NO_GPU
            found.append(f"{what}: {_targets_met(record)} ({_date(record['environment'])}, {gpu})")
    lines = [f"- {line}" for line in found]
    if missing:
        lines.append(f"- {'Nothing' if not found else 'Nothing else'} has been measured on a GPU: no result file for "
                     f"{', '.join(missing)} (a GPU machine writes them: `make conformance-cuda "
                     "CONFORMANCE_ARGS=--record`, `make bench-cuda`, `python -m dlarray check cupy --json ...`).")
    return lines


def cpu_summary(page: Any) -> list[str]:
    """The CPU results in one line each: the Array API suite, scikit-learn's and SciPy's suites, the speed
    targets of each benchmark and the stress run."""
    lines = []
    run = conformance_run("cpu")
    suite = f"[Array API suite]({_link(page, 'conformance.md')})"
    lines.append(f"{suite}: {_missing_conformance('cpu')}" if run is None
                 else f"{suite}: {run.summary} (`--max-examples={run.examples}`, {_date(run.environment)})")
    downstream = downstream_record()
    consumers = (f"[scikit-learn's and SciPy's own array-API tests]"
                 f"({_link(page, 'conformance.md#scikit-learns-and-scipys-own-tests')})")
    if downstream is None:
        lines.append(f"{consumers}: {_missing_downstream()}")
    else:
        verdicts = [target["verdict"] for target in downstream["targets"].values()]
        standin = downstream["standin"]
        lines.append(f"{consumers}: {verdicts.count('MET')} of {counted(len(verdicts), 'target')} met; "
                     + "; ".join(f"{suite} with {standin}: {downstream_brief(downstream, suite, standin)}"
                                 for suite in downstream["suites"])
                     + f" ({_date(downstream['environment'])})")
    for stem, (title, *_rest) in SECTIONS.items():
        if stem in CUDA_BENCHMARKS:
            continue
        record = _bench_record(stem)
        what = f"Speed, [{title}]({_link(page, 'benchmarks.md')})"
        lines.append(f"{what}: {NO_RESULT}" if record is None else
                     f"{what}: {_targets_met(record)} ({_date(record['environment'])})")
    stress = _stress_record()
    what = f"[Stress run]({_link(page, 'safety.md#results')})"
    lines.append(f"{what}: {NO_RESULT}" if stress is None
                 else f"{what}: {_stress_verdict(stress)} ({_date(stress['environment'])})")
    return [f"- {line}" for line in lines]


def results_summary(page: Any) -> str:
    """The results read in ten seconds: on the CPU, on a GPU; where and how: the Results section."""
    return "\n".join(["**On the CPU**", "", *cpu_summary(page), "", "**On a GPU**", "", *gpu_summary(page)]) + "\n"


def cuda_status(page: Any) -> str:
    """What has been measured on a GPU (the devices page): the GPU part of the results summary."""
    return "\n".join(gpu_summary(page)) + "\n"


# ------------------------------------------------------------------------------ coverage table
def _results_dir() -> Path:
    return Path(os.environ.get("DLARRAY_DOCS_RESULTS", ROOT / "docs" / "results"))


def spec_functions() -> dict[str, Any]:
    """The standard's functions with their spec pages (conformance/spec_functions.py wrote the file)."""
    return json.loads((_results_dir() / "array-api-2025.12.json").read_text())


_IDENTIFIER = re.compile(r"[A-Za-z_][\w.]*")


def functions_of_test(nodeid: str, names: set[str]) -> set[str]:
    """The standard's functions one test of array-api-tests exercises, read from its node id.

    The suite names its tests after the function (``test_abs``, ``test_linalg_matmul``,
    ``TestBroadcastShapes::test_empty``, ``test_expand_dims_tuples``) or passes the function as a
    parameter (``test_unary[sin(x_i is NaN) -> NaN]``, ``test_has_names[linalg-qr]``,
    ``test_extension_func_signature[fft.fft]``). Operator tests (``__add__``) name no function.
    """
    path, _, rest = nodeid.partition("::")
    module = path.rsplit("/", 1)[-1].removesuffix(".py")
    extension = {"test_linalg": "linalg", "test_fft": "fft"}.get(module)
    info = module == "test_inspection_functions" or "info_func" in rest

    def function_named(word: str) -> str | None:
        candidates = [word]
        if word.startswith("linalg_"):
            candidates = [f"linalg.{word[7:]}"]
        elif extension:
            candidates = [word, f"{extension}.{word}"] if extension == "linalg" else [f"fft.{word}"]
        if info or word.startswith("array_namespace_info_"):
            candidates.append(f"__array_namespace_info__().{word.removeprefix('array_namespace_info_')}")
        for candidate in candidates:
            matches = [n for n in names if candidate == n or candidate.startswith(n + "_")]
            if matches:
                return max(matches, key=len)
        return None

    words: list[str] = []
    named_by_class = False
    for part in rest.split("::"):
        name, _, parameter = part.partition("[")
        if name.startswith("Test"):  # a class named after its function: its methods are that function's
            word = re.sub(r"(?<!^)(?=[A-Z])", "_", name[4:]).lower()
            named_by_class = function_named(word) is not None
            words.append(word)
        elif not named_by_class:
            words.append(name.removeprefix("test_"))
        pieces = parameter.rstrip("]").split("-")
        words += [found.group() for found in (_IDENTIFIER.match(piece.strip()) for piece in pieces) if found]
        if len(pieces) == 2 and pieces[0] in ("linalg", "fft"):
            words.append(".".join(pieces))
    return {found for found in map(function_named, words) if found}


def _stored_only_dtypes() -> list[Any]:
    from dlarray._dtypes import ALL_DTYPES

    wanted = ("bfloat16", "float8_e4m3fn", "float4_e2m1fn")
    return [dtype for dtype in ALL_DTYPES if dtype.name in wanted]


def _usual_calls(xp: Any, dtype: Any) -> list[Callable[[Any], Any]]:
    """Calls of a function with small arrays of ``dtype``, in the argument patterns of the standard."""
    x = xp.astype(xp.reshape(xp.arange(4, dtype=xp.float32), (2, 2)), dtype)
    index = xp.asarray([0, 1])
    condition = xp.asarray([[True, False], [False, True]])
    return [
        lambda f: f(x), lambda f: f(x, x), lambda f: f([x, x]), lambda f: f(x, 0), lambda f: f(x, index, axis=0),
        lambda f: f(x, (2, 2)), lambda f: f(x, (4,)), lambda f: f(x, 0, 1), lambda f: f(condition, x, x),
        lambda f: f((2, 2), dtype=dtype), lambda f: f(2, dtype=dtype), lambda f: f((2, 2), 1.0, dtype=dtype),
        lambda f: f(x, xp.float32), lambda f: f(x, xp.reshape(index, (2, 1)), axis=1),
        lambda f: f(x, (1, 0)), lambda f: f(xp.reshape(x, (1, 4)), axis=0),
    ]


def _accepts(function: Any, call: Callable[[Any], Any]) -> bool:
    try:
        call(function)
    except Exception:  # noqa: BLE001 - a refused call is what is being measured
        return False
    return True


def stored_only_support(names: list[str]) -> dict[str, list[str]]:
    """Which stored-only dtypes (no numpy dtype: bfloat16, float8, float4) each function accepted.

    Measured at build time: each function is called with small arrays of each such dtype in a few
    usual argument patterns; a function is listed for a dtype when one call returns without error.
    """
    import dlarray as xp

    accepted: dict[str, list[str]] = {}
    for dtype in _stored_only_dtypes():
        calls = _usual_calls(xp, dtype)
        for name in names:
            function: Any = xp
            try:
                for part in name.split("."):
                    function = getattr(function, part)
            except AttributeError:
                continue
            if any(_accepts(function, call) for call in calls):
                accepted.setdefault(name, []).append(dtype.name)
    return accepted


_DIFFERENCE_ROW = re.compile(r"^\| *([^|]+?) *\|")


def documented_differences() -> dict[str, str]:
    """Function name -> anchor of its row on the differences page (the first cell names functions)."""
    found: dict[str, str] = {}
    text = (ROOT / "docs" / "differences.md").read_text()
    heading = ""
    for line in text.splitlines():
        if line.startswith("## "):
            heading = re.sub(r"[^\w\- ]", "", line[3:].strip().lower()).replace(" ", "-")
        row = _DIFFERENCE_ROW.match(line)
        if row and heading:
            for name in re.findall(r"`([\w.]+)`", row.group(1)):
                found.setdefault(name, heading)
    return found


def _coverage_cell(outcomes: list[str], device: str, run: ConformanceRun | None) -> str:
    if run is None:
        return NO_RESULT
    if run.record is None:
        return "no per-test record"
    if not outcomes:
        return "not tested by the suite"
    bad = sum(1 for o in outcomes if o in ("failed", "error"))
    known = outcomes.count("xfailed")  # the pinned suite's known defects (conformance/suite_defects.py)
    ran = sum(1 for o in outcomes if o != "skipped")
    if bad:
        return f"**FAIL** {bad} of {ran}"
    if known:
        return f"pass ({ran - known}), {known} suite defect (xfailed)"
    return f"pass ({ran})" if ran else f"skipped ({len(outcomes)})"


def coverage_rows() -> list[dict[str, Any]]:
    """One row per function of the standard, with its tests' outcomes on each device."""
    functions = spec_functions()["functions"]
    names = {f["name"] for f in functions}
    runs = {device: conformance_run(device) for device in CONFORMANCE_DEVICES}
    outcomes: dict[str, dict[str, list[str]]] = {device: {name: [] for name in names} for device in runs}
    for device, run in runs.items():
        for nodeid, entry in ((run.record or {}).get("tests") or {} if run else {}).items():
            for name in functions_of_test(nodeid, names):
                outcomes[device][name].append(entry["outcome"])
    stored = stored_only_support(sorted(names))
    differences = documented_differences()
    rows = []
    for function in functions:
        name = function["name"]
        rows.append({**function, "status": {device: _coverage_cell(outcomes[device][name], device, runs[device])
                                            for device in runs},
                     "stored_only": stored.get(name, []), "difference": differences.get(name)})
    return rows


def coverage_table(page: Any) -> str:
    rows = coverage_rows()
    runs = {device: conformance_run(device) for device in CONFORMANCE_DEVICES}
    out = []
    for device, title in CONFORMANCE_DEVICES.items():
        run = runs[device]
        if run is None:
            out.append(f"- **{title}**: {_missing_conformance(device)}.")
        else:
            passing = sum(1 for row in rows if row["status"][device].startswith("pass"))
            out.append(f"- **{title}**: {passing} of {len(rows)} functions pass every test that names them; "
                       f"`conformance/results/{run.path.name}`, {run.summary}; measured "
                       f"{provenance(run.environment, fallback=_cell(run.header))}.")
    out.append("")
    # a device with no recorded run is said to have none once, above, not in a cell per function
    shown = [device for device in CONFORMANCE_DEVICES if runs[device] is not None]
    header = "| function | " + " | ".join(CONFORMANCE_DEVICES[device] for device in shown) + " | notes |"
    category = None
    for row in rows:
        if row["category"] != category:
            category = row["category"]
            out += ["", f"### {category}", "", header, "| --- |" + " --- |" * (len(shown) + 1)]
        notes = []
        if row["stored_only"]:
            notes.append("takes " + ", ".join(row["stored_only"]) + " (stored-only dtypes: data moved, not computed)")
        if row["difference"]:
            notes.append(f"[differs from the standard]({_link(page, 'differences.md#' + row['difference'])})")
        cells = "".join(f"{row['status'][device]} | " for device in shown)
        out.append(f"| [`{row['name']}`]({row['url']}) | {cells}{'; '.join(notes)} |")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------ DLPack conformance kit
#: The libraries of the matrix, in column order; each has docs/results/dlpack-kit/<name>.json once
#: `python -m dlarray check <name> --json ...` has run (cupy needs a GPU).
KIT_LIBRARIES = ("numpy", "torch", "jax", "array-api-strict", "pydlpack", "dlarray", "tensorflow", "paddle", "pyarrow",
                 "cupy")
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
    absent = [library for library, record in records.items() if record is None]
    if absent:
        out.append(f"The matrices below have a column per library with a result file; {', '.join(absent)}: "
                   f"{KIT_MISSING} (see the table above).\n")
    for role, title in (("producer", "Producer checks (`check_producer`)"), ("consumer", "Consumer cases (`check_consumer`)")):
        libraries, rows = kit_matrix(role)
        libraries = [library for library in libraries if records[library] is not None]
        out += [f"### {title}\n", '<div class="interop" markdown>', "",
                "| " + " | ".join(["check", *libraries]) + " |", "|" + " --- |" * (len(libraries) + 1)]
        for check, statuses in rows.items():
            cells = [KIT_CELLS[statuses[lib]] if lib in statuses else "–" for lib in libraries]
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
            out.append(f'??? failure "{library} {role}: {counted(len(bad), "check")} failed or crashed"')
            out.extend(f"    - `{_cell(row['name'])}` ({row['status']}): {plain(row['detail'])}" for row in bad)
            out.append("")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------ stress
def stress_result(page: Any) -> str:
    record = _stress_record()
    if record is None:
        return ('!!! warning "No result recorded yet"\n    `docs/results/stress.json` is absent: `make stress` '
                "writes it, and the next build shows it here.\n")
    out = [f"**{_stress_verdict(record)}**, measured {provenance(record['environment'])}.\n",
           "| check | verdict | result | seconds |", "| --- | --- | --- | ---: |"]
    out += [f"| {check['name']} | {check['verdict']} | {plain(check['detail'])} | {check['seconds']} |"
            for check in record["checks"]]
    sizes = ", ".join(f"{name} {value:,}" if isinstance(value, int) else f"{name} {value}"
                      for name, value in record["sizes"].items())
    out.append(f"\nSizes of this run: {sizes}.\n")
    return "\n".join(out)


# ------------------------------------------------------------------------------ extras
#: what each extra of pyproject.toml is for (an extra whose name starts with a key); the packages
#: themselves are read from pyproject.toml, so the installation page cannot list other ones
EXTRA_PURPOSES = {
    "cuda12": "as `cuda`, for a CUDA 12 (or newer) driver",
    "cuda13": "as `cuda`, for a CUDA 13 driver",
    "cuda": "computing on CUDA arrays and copying them to and from the host (what has run on a GPU: "
            "[Devices and CUDA](guide/devices-cuda.md#status-on-a-gpu)); holding, viewing and exporting them "
            "needs no extra",
    "demo": "the interop probe's producers and consumers (`make demo`)",
    "test": "the test suite (`make test`)",
    "docs": "this site (`make docs`)",
    "bench": "the [benchmarks](benchmarks.md) and their plots",
    "conformance": "the official Array API suite (`make conformance`)",
    "frameworks": "tensorflow, paddle and pyarrow in the [probe](probe.md) and the "
                  "[DLPack conformance kit](guide/dlpack-conformance.md) (`make frameworks`)",
    "typing": "pyright (basedpyright) checking a user's script beside mypy (`make typing`)",
    "exchange": "publishers of DLPack's C exchange API besides torch (cuda-core's StridedMemoryView, "
                "tvm-ffi), which the tests and the [benchmarks](benchmarks.md) import through it",
}


def extras_table(page: Any) -> str:
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"].get("optional-dependencies", {})
    lines = ["| extra | adds | for |", "| --- | --- | --- |"]
    for extra, requirements in extras.items():
        purpose = next((text for key, text in EXTRA_PURPOSES.items() if extra.startswith(key)), None)
        if purpose is None:
            raise PluginError(f"pyproject.toml's extra {extra!r} has no purpose in EXTRA_PURPOSES "
                              "(docs_hooks/mkdocs_hooks.py)")
        added = ", ".join(f"`{_cell(r)}`" for r in requirements)
        lines.append(f"| `{extra}` | {added} | {_relink(purpose, page)} |")
    return "\n".join(lines) + "\n"


def _relink(text: str, page: Any) -> str:
    """Docs-relative Markdown links in ``text`` made relative to ``page``."""
    return re.sub(r"\]\(([^)#:]+)(#[^)]*)?\)", lambda m: f"]({_link(page, m.group(1))}{m.group(2) or ''})", text)


# ------------------------------------------------------------------------------ tested versions
#: the libraries of the interop matrix: distribution name -> the names result files use for it
INTEROP_LIBRARIES = {
    "numpy": ("numpy",), "torch": ("torch",), "jax": ("jax",), "cupy": ("cupy-cuda12x", "cupy-cuda13x", "cupy"),
    "array-api-strict": ("array-api-strict", "array_api_strict"), "pydlpack": ("pydlpack", "dlpack"),
    "tensorflow-cpu": ("tensorflow-cpu", "tensorflow_cpu", "tensorflow"), "paddlepaddle": ("paddlepaddle", "paddle"),
    "pyarrow": ("pyarrow",), "scikit-learn": ("scikit-learn", "sklearn"), "scipy": ("scipy",),
}


def _requirements() -> dict[str, list[str]]:
    """Distribution -> the requirements pyproject.toml declares for it, with the extra they are in."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found: dict[str, list[str]] = {}
    groups = {"required": project.get("dependencies", []), **project.get("optional-dependencies", {})}
    for extra, requirements in groups.items():
        for requirement in requirements:
            name = re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0]
            for library, aliases in INTEROP_LIBRARIES.items():
                if name in aliases:
                    label = extra if extra == "required" else f"`{extra}` extra"
                    found.setdefault(library, []).append(f"`{requirement}` ({label})")
    return found


def recorded_versions() -> dict[str, dict[str, set[str]]]:
    """Library -> version -> the result files that were measured with it."""
    found: dict[str, dict[str, set[str]]] = {}

    def note(name: str, version: Any, source: str) -> None:
        for library, aliases in INTEROP_LIBRARIES.items():
            if name in aliases and version:
                found.setdefault(library, {}).setdefault(str(version), set()).add(source)

    for library, record in kit_records().items():
        if record is None:
            continue
        source = f"`docs/results/dlpack-kit/{library}.json`"
        note(library, record.get("version"), source)
        note("numpy", (record.get("environment") or {}).get("numpy"), source)
    for stem in BENCHMARK_FILES:
        record = _bench_record(stem)
        for name, version in ((record or {}).get("environment", {}).get("versions") or {}).items():
            note(name, version, f"`benchmarks/results/{stem}.json`")
    for device in CONFORMANCE_DEVICES:
        run = conformance_run(device)
        for name, version in ((run.environment or {}).get("versions") or {} if run else {}).items():
            note(name, version, f"`conformance/results/{run.path.name}`")  # type: ignore[union-attr]
    stress = _stress_record()
    for name, version in ((stress or {}).get("environment", {}).get("versions") or {}).items():
        note(name, version, "`docs/results/stress.json`")
    if PROBE_FRAMEWORKS.is_file():
        for name, version in json.loads(PROBE_FRAMEWORKS.read_text()).get("versions", {}).items():
            note(name, version, "`docs/results/probe-frameworks.json`")
    return found


def installed_versions() -> dict[str, str]:
    """Library of ``INTEROP_LIBRARIES`` -> its installed version, in the interpreter building the site.

    The probe runs in the same interpreter (``sys.executable``), so these are the versions its table
    was made with; asked here for every library, not only those the probe exchanges with.
    """
    import importlib.metadata

    found: dict[str, str] = {}
    for library, aliases in INTEROP_LIBRARIES.items():
        for alias in aliases:
            try:
                found[library] = importlib.metadata.version(alias)
                break
            except importlib.metadata.PackageNotFoundError:
                continue
    return found


def tested_versions(page: Any) -> str:
    requirements, recorded = _requirements(), recorded_versions()
    installed = installed_versions()
    header = ("| library | declared in `pyproject.toml` | versions in the committed result files | "
              "installed where this site was built (the table below was made with these) |")
    out = [header, "| --- | --- | --- | --- |"]
    for library in INTEROP_LIBRARIES:
        versions = recorded.get(library, {})
        shown = "; ".join(f"{version}: " + ", ".join(sorted(sources)) for version, sources in sorted(versions.items()))
        now = installed.get(library, "")
        out.append(f"| {library} | {'<br>'.join(requirements.get(library, [])) or 'not declared'} | "
                   f"{shown or NO_RESULT} | {now or 'not installed'} |")
    return "\n".join(out) + "\n"


_GENERATORS: dict[str, Callable[[Any], str]] = {
    "interop-table": interop_table,
    "probe-frameworks": probe_frameworks,
    "probe-output": probe_output,
    "dtype-table": dtype_table,
    "benchmark-results": benchmark_results,
    "benchmarks-readme": benchmarks_readme,
    "conformance-result": conformance_result,
    "downstream-result": downstream_result,
    "dlpack-kit-matrix": dlpack_kit_matrix,
    "status-table": status_table,
    "results-summary": results_summary,
    "cuda-status": cuda_status,
    "coverage-table": coverage_table,
    "stress-result": stress_result,
    "tested-versions": tested_versions,
    "extras-table": extras_table,
}
