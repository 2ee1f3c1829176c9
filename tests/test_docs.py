"""The documentation: every Python example on the site runs, and the site builds with --strict.

Each ```python block of docs/**/*.md and README.md is executed; the blocks of one page share a
namespace and run in order, as a reader would run them. A block that cannot run here (CUDA-only) is
preceded by a ``<!-- skip-test -->`` line; one that needs an optional library by ``<!-- needs: torch -->``
(names separated by commas): it runs where the library is installed, and is left out, saying so, where
it is not (make test-latest has no torch), unless the run requires it (tests/needs.py). Every other
block runs with numpy alone, as after ``pip install .``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import needs
import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md")) + [ROOT / "README.md"]

# A fenced block: its opening fence (with the line before it), language and body.
_BLOCK = re.compile(
    r"(?P<before>^[^\n]*\n)?^(?P<indent>[ \t]*)```(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
_SKIP = "<!-- skip-test -->"
_NEEDS = re.compile(r"<!-- needs: (?P<names>[\w, ]+) -->")


def python_blocks(text: str) -> list[tuple[int, str, bool, tuple[str, ...]]]:
    """``(line number, code, skipped, libraries needed)`` for each ```python block of a Markdown text."""
    found = []
    for match in _BLOCK.finditer(text):
        if match.group("lang") not in ("python", "py"):
            continue
        indent = match.group("indent")
        body = "".join(line[len(indent):] if line.startswith(indent) else line
                       for line in match.group("body").splitlines(keepends=True))
        before = (match.group("before") or "").strip()
        needed = _NEEDS.fullmatch(before)
        libraries = tuple(name.strip() for name in needed.group("names").split(",")) if needed else ()
        line = text.count("\n", 0, match.start("indent")) + 1
        found.append((line, body, before == _SKIP, libraries))
    return found


def test_block_extraction() -> None:
    text = ("intro\n```python\na = 1\n```\n\n<!-- skip-test -->\n```python\ncuda()\n```\n```bash\nls\n```\n"
            "<!-- needs: torch, jax -->\n```python\nimport torch\n```\n")
    assert python_blocks(text) == [(2, "a = 1\n", False, ()), (7, "cuda()\n", True, ()),
                                   (14, "import torch\n", False, ("torch", "jax"))]


def _page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


PAGES_WITH_CODE = [page for page in PAGES if python_blocks(page.read_text())]


def test_pages_have_examples() -> None:
    """The guides are example-driven: a page losing all its examples is a mistake to notice."""
    names = {_page_id(page) for page in PAGES_WITH_CODE}
    for expected in ("docs/index.md", "docs/guide/neutral-container.md", "docs/guide/versions-copies.md",
                     "docs/guide/devices-cuda.md", "README.md"):
        assert expected in names


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=_page_id)
def test_examples_run(page: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    namespace: dict[str, object] = {"__name__": "__docs__"}
    ran = 0
    left_out = []
    for line, code, skipped, libraries in python_blocks(page.read_text()):
        if skipped:
            continue
        if absent := needs.absent(*libraries):
            left_out.append(f"line {line} (needs {', '.join(absent)})")
            continue
        compiled = compile(code, f"{_page_id(page)}:{line}", "exec")
        try:
            exec(compiled, namespace)
        except Exception as error:
            pytest.fail(f"the example at {_page_id(page)}, line {line}, raised {type(error).__name__}: {error}")
        ran += 1
    if not ran and left_out:
        pytest.skip(f"every example of {_page_id(page)} needs a library not installed: {'; '.join(left_out)}")
    assert ran, f"every example of {_page_id(page)} is skipped"


# What `pip install .` does not bring: a block that imports one of these must say so (needs:)
OPTIONAL_LIBRARIES = ("torch", "jax", "jaxlib", "array_api_strict", "array_api_compat", "array_api_extra", "scipy",
                      "sklearn", "pyarrow", "hypothesis", "matplotlib", "ml_dtypes", "cupy", "tensorflow", "paddle",
                      "dlpack", "ndindex", "cubed", "xarray", "pandas")
_BARE_RUN = """
import sys
sys.path.insert(0, {tests!r})
# numpy and dlarray alone, as after `pip install .`: each optional library is absent (importing it
# raises ModuleNotFoundError, importlib.util.find_spec gives None), none of them imported yet
for name in {blocked!r}:
    assert name not in sys.modules, name
    sys.modules[name] = None
from test_docs import python_blocks
page = sys.argv[1]
namespace = {{"__name__": "__docs__"}}
ran = 0
for line, code, skipped, libraries in python_blocks(open(page).read()):
    if skipped or libraries:
        continue
    try:
        exec(compile(code, f"{{page}}:{{line}}", "exec"), namespace)
    except Exception as error:
        print(f"line {{line}}: {{type(error).__name__}}: {{error}}")
        raise SystemExit(1)
    ran += 1
print("ran", ran)
"""


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=_page_id)
def test_examples_run_with_numpy_alone(page: Path, tmp_path: Path) -> None:
    """Every block not marked ``<!-- needs: ... -->`` runs in a bare install (``pip install .``:
    numpy and dlarray): the optional libraries cannot be imported in the child that runs them."""
    code = _BARE_RUN.format(tests=str(ROOT / "tests"), blocked=sorted(OPTIONAL_LIBRARIES))
    done = subprocess.run([sys.executable, "-c", code, str(page)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600, env=dict(os.environ, JAX_PLATFORMS="cpu"))
    assert done.returncode == 0, f"{_page_id(page)}, {done.stdout.strip()}\n{done.stderr[-2000:]}"


def test_every_needs_marker_names_an_optional_library() -> None:
    """A misspelt name would leave its block out everywhere, silently."""
    for page in PAGES_WITH_CODE:
        for line, _code, _skipped, libraries in python_blocks(page.read_text()):
            unknown = set(libraries) - set(OPTIONAL_LIBRARIES)
            assert not unknown, f"{_page_id(page)}:{line} needs {sorted(unknown)}"


def test_the_home_page_and_readme_open_with_numpy_alone() -> None:
    """The first example a newcomer meets needs nothing but numpy."""
    for page in (DOCS / "index.md", ROOT / "README.md"):
        line, code, skipped, libraries = python_blocks(page.read_text())[0]
        assert not skipped and not libraries, (page, line)


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None, reason="mkdocs is not installed (pip install -e '.[docs]')")
def test_site_builds_strict(tmp_path: Path) -> None:
    """`mkdocs build --strict` (what `make docs` runs): any warning fails the build."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-6000:]
    built = tmp_path / "site"
    for page in ("index.html", "api/creation/index.html", "benchmarks/index.html", "probe/index.html"):
        assert (built / page).is_file(), page
    probe = (built / "probe" / "index.html").read_text()
    assert "interop probe" in probe and "zero-copy" in probe  # generated at build time
    _check_summary_tables(built)
    _check_rendering(built)
    _check_search(built)


def _site_check() -> ModuleType:
    """docs_hooks/site_check.py, the check of the built site (``make docs-check``)."""
    spec = importlib.util.spec_from_file_location("_docs_site_check", ROOT / "docs_hooks" / "site_check.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _check_rendering(built: Path) -> None:
    """The rules of ``make docs-check`` that the HTML alone shows (no bold double-underscore name, no
    "1 tests"); the browser's (widths, broken words, requests) are ``make docs-check``'s."""
    check = _site_check()
    defects = [defect for page in check.site_pages(built)
               for defect in check.static_defects(page, (built / page).read_text())]
    assert not defects, "\n".join(f"{d.page}: {d.kind}: {d.where}" for d in defects)


def test_the_site_check_sees_what_it_looks_for() -> None:
    check = _site_check()
    page = ("<article><p>Array.<strong>dlpack</strong>() and <strong>array_namespace</strong>, "
            "1 failed or erroring tests (1 lines), 1 of the tests, 11 tests, 1 test</p>"
            "<table><tr><td><strong>bytes</strong></td></tr></table>"
            "<pre>1 tests in a code block</pre></article>")
    found = check.static_defects("page.html", page)
    assert [d.kind for d in found] == ["double-underscore name shown in bold"] * 2 + ["a count of one with a plural"] * 2
    assert [d.where for d in found[2:]] == ["1 failed or erroring tests", "1 lines"]
    assert check.leaves_the_machine("https://fonts.googleapis.com/css?family=Roboto")
    assert not check.leaves_the_machine("http://127.0.0.1:8123/assets/x.js")
    assert not check.leaves_the_machine("data:image/svg+xml;base64,AAAA")


_CHROMIUM = _site_check().find_chromium()


@pytest.mark.skipif(_CHROMIUM is None, reason="no chromium (make docs-check installs it)")
def test_the_browser_check_measures_what_it_looks_for(tmp_path: Path) -> None:
    """Widths, broken words and requests, measured in Chromium on a page made for it."""
    check = _site_check()
    (tmp_path / "index.html").write_text(
        '<!doctype html><html><head><link rel="stylesheet" href="https://fonts.example.com/font.css"></head>'
        '<body style="margin:0"><div class="md-content__inner" style="width:400px">'
        '<pre><code style="display:block;overflow:auto">' + "x" * 200 + "</code></pre>"
        "<pre><code>short</code></pre>"
        '<table style="width:300px"><tr><td style="width:40px;word-break:break-all">from_dlpack</td>'
        "<td>fits</td></tr></table>"
        "<table><tr>" + "<td>cell</td>" * 80 + "</tr></table></div></body></html>")
    found = list(check.browser_defects(tmp_path, ["index.html"], _CHROMIUM))
    kinds = sorted(d.kind for d in found)
    assert kinds == ["a request leaving the machine", "a word broken across lines in a table cell",
                     "code block wider than the content column", "table wider than the content column"], found


_SUMMARY_NAME = re.compile(r'<td><code><a [^>]*href="#([\w.]+)"[^>]*>[^<]+</a></code></td>')


def _check_summary_tables(built: Path) -> None:
    """Each API category page (a module of functions) opens with a table of all its functions,
    each name linked to its entry, before the first of them; the Array page has every method and
    attribute in its tables. Generated from the code (mkdocstrings' summary), never kept by hand."""

    for page in sorted((DOCS / "api").glob("*.md")):
        for target in re.findall(r"^::: (dlarray\S*)", page.read_text(), re.MULTILINE):
            html = (built / "api" / page.stem / "index.html").read_text()
            listed = set(_SUMMARY_NAME.findall(html))
            if target == "dlarray._array.Array":  # every member the page lists, in its tables
                members = re.findall(r"^ +- (\w+)$", page.read_text(), re.MULTILINE)
                expected = {f"{target}.{name}" for name in members}
                assert members and expected <= listed, (page.name, sorted(expected - listed))
                continue
            if target.rpartition(".")[2][:1].isupper():
                continue  # another class (Device, DType, Info...): its own members only
            module = importlib.import_module(target)
            if not hasattr(module, "__all__") or not callable(getattr(module, module.__all__[0], None)):
                continue  # constants and info: not a page of functions
            functions = [name for name in module.__all__ if callable(getattr(module, name))]
            expected = {f"{target}.{name}" for name in functions}
            assert expected <= listed, (page.name, sorted(expected - listed))
            first_table = html.find("<table>")
            first_entry = html.find('class="doc doc-heading"')  # the first function's heading
            assert 0 <= first_table < first_entry, f"{page.name}: the summary table comes after the first entry"


def _check_search(built: Path) -> None:
    """Exact names first in search, as far as the built files show it: every page loads the script
    that adds an exact-word clause to a query (docs/javascripts/search-exact.js); the index keeps
    stop words (``where``, ``all`` and ``any`` are functions) and boosts every entry of the API
    reference, and nothing else; every function of an API page (from the code) has an entry titled
    with its name. Where Chromium is installed, the names that begin another entry's name (``sin`` of
    ``sinh``: the theme's trailing wildcard matches both) are typed into the search box of the built
    site, and each must list its own entry first (``make docs-check`` types every name)."""
    index = json.loads((built / "search" / "search_index.json").read_text())
    assert "stopWordFilter" not in index["config"]["pipeline"], index["config"]
    check = _site_check()
    assert (built / "javascripts" / "search-exact.js").is_file()
    for page in check.site_pages(built):
        assert re.search(r'<script src="[^"]*javascripts/search-exact\.js"', (built / page).read_text()), page
    entries = {doc["location"]: doc for doc in index["docs"] if check.API_ANCHOR.search(doc["location"])}
    boosted = {doc["location"] for doc in index["docs"] if "boost" in doc}
    assert entries and boosted == set(entries), sorted(boosted ^ set(entries))[:10]
    boosts = {doc["boost"] for doc in entries.values()}
    # one boost, above the 2.5 times a section that the theme's worker gives a page's own title
    assert len(boosts) == 1 and boosts.pop() > 2.5, boosts
    titled = {(doc["location"].rpartition("#")[2], doc["title"].split()[0]) for doc in entries.values()}
    for page in sorted((DOCS / "api").glob("*.md")):
        for target in re.findall(r"^::: (dlarray\S*)", page.read_text(), re.MULTILINE):
            module = importlib.import_module(target) if not target.rpartition(".")[2][:1].isupper() else None
            for name in getattr(module, "__all__", ()):
                if callable(getattr(module, name)):
                    assert (f"{target}.{name}", name) in titled, f"{page.name}: no search entry titled {name}"
    if _CHROMIUM is None:
        return
    names = check.api_entry_names(built)
    prefixes = [name for name in names if any(other != name and other.startswith(name) for other in names)]
    assert {"sin", "log", "fft"} <= set(prefixes)
    defects = list(check.search_defects(built, _CHROMIUM, prefixes))
    assert not defects, "\n".join(d.where for d in defects)
