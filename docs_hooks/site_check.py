"""A check of the built site as a reader sees it: ``make docs-check`` (after ``make docs``).

Two kinds of rules, each a list of defects with the page and the text they were found in:

Read from the HTML alone (:func:`static_defects`; ``tests/test_docs.py`` runs them on every build):

- a double-underscore name turned into bold by Markdown (``Array.<strong>dlpack</strong>()`` from an
  unescaped ``__dlpack__``);
- a count of one with a plural noun ("1 failed or erroring tests", "(1 lines)").

Measured in a real browser (:func:`browser_defects`: headless Chromium, driven through the DevTools
protocol over a pipe, so nothing but the Python standard library and the ``chromium`` executable):

- a code block or a table wider than the content column (at 1400 x 1000 px by default), every
  ``<details>`` opened first;
- a word broken across two lines in a table cell (``from_dlpac|k``);
- a request to any host other than this machine while a page is opened (web fonts, CDN scripts);
- an entry of the API reference not listed first when its name is typed into the search box (the
  name of every entry of the built search index, one after the other: "sin" must list ``sin``
  before ``sinh``).

The site is served from a local HTTP server on 127.0.0.1; host names are resolved to nothing, so a
request that would leave the machine fails at once, and is reported.

Usage::

    python docs_hooks/site_check.py site            # every rule, exit status 1 on any defect
    python docs_hooks/site_check.py site --static   # the HTML rules only (no browser)
"""

from __future__ import annotations

import argparse
import functools
import html
import http.server
import json
import os
import re
import select
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent

#: nouns a count of one must not be followed by (in their plural), with up to three words between
#: ("1 failed or erroring tests"); "1 of the tests" and "1 or more tests" are fine
PLURAL_NOUNS = ("tests", "lines", "files", "failures", "errors", "checks", "functions", "rows", "cells", "targets",
                "examples", "bytes", "elements", "defects", "warnings", "runs", "calls", "cases", "values", "arrays",
                "libraries", "hops", "notes", "seconds", "items", "modules", "names", "pages", "sizes", "times",
                "results", "dtypes", "entries", "members", "parameters", "requests", "words", "blocks", "tables")
_ONE_PLURAL = re.compile(r"(?<![\d.,\w])1 (?:(?!(?:of|in|out|more|to|and|per)\b)[a-z-]+ ){0,3}?(?:"
                         + "|".join(PLURAL_NOUNS) + r")\b")
_STRONG = re.compile(r"(<t[dh][^>]*>)?(.?)<strong>([A-Za-z_]\w*)</strong>(</t[dh]>)?(.?)", re.DOTALL)


class Defect(NamedTuple):
    """One defect: its kind, the page (path in the site) and what it was found in."""

    kind: str
    page: str
    where: str


@functools.cache
def dunder_names() -> frozenset[str]:
    """The ``x`` of every ``__x__`` name dlarray's code, its tests and Python's own objects use."""
    names = {name for obj in (object, type, int, float, list, dict, type(sys), Exception) for name in dir(obj)}
    names |= {"__main__", "__file__", "__name__", "__all__", "__version__", "__init__", "__builtins__"}
    for folder in ("dlarray", "benchmarks", "conformance", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            names.update(re.findall(r"__[a-z][a-z0-9_]*?__", path.read_text(errors="replace")))
    return frozenset(name[2:-2] for name in names if name.startswith("__") and name.endswith("__"))


class _Text(HTMLParser):
    """The text of a page's content (``<article>``), outside ``<pre>`` blocks and ``<script>``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._depth = {"article": 0, "pre": 0, "script": 0, "style": 0}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._depth:
            self._depth[tag] += 1
        if tag in ("p", "li", "td", "th", "summary", "div", "h1", "h2", "h3", "h4", "br", "tr"):
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if self._depth.get(tag):
            self._depth[tag] -= 1

    def handle_data(self, data: str) -> None:
        depth = self._depth
        if depth["article"] and not (depth["pre"] or depth["script"] or depth["style"]):
            self.parts.append(data)


def page_text(source: str) -> str:
    """The reader's text of a page: its article, without code blocks."""
    parser = _Text()
    parser.feed(source)
    return re.sub(r"[ \t\r\f\v]+", " ", "".join(parser.parts))


def static_defects(page: str, source: str) -> list[Defect]:
    """The defects of one page readable from its HTML (``page``: its path in the site, for the report)."""
    found = []
    dunders = dunder_names()
    for match in _STRONG.finditer(source):
        cell, before, name, cell_end, after = match.groups()
        whole_cell = bool(cell and cell_end)  # a cell that is one bold word: the interop table's row names
        if (name in dunders and not whole_cell) or before in (".", ";", "_") or after in ("(", ".", "_"):
            context = html.unescape(re.sub(r"<[^>]+>", "", source[max(0, match.start() - 40):match.end() + 40]))
            found.append(Defect("double-underscore name shown in bold", page, " ".join(context.split())))
    for match in _ONE_PLURAL.finditer(page_text(source)):
        found.append(Defect("a count of one with a plural", page, match.group()))
    return found


def site_pages(site: Path) -> list[str]:
    """Every HTML page of the built site, as paths relative to it."""
    return sorted(str(path.relative_to(site)) for path in site.rglob("*.html"))


# ------------------------------------------------------------------------------ the browser
#: run in each page once it has loaded (every <details> opened): what overflows, what is broken
_MEASURE = r"""
(async () => {
  await document.fonts.ready;
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  await new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  const content = document.querySelector('.md-content__inner') || document.body;
  const style = getComputedStyle(content);
  const column = content.getBoundingClientRect().right - parseFloat(style.paddingRight);
  const shown = el => el.getClientRects().length > 0;
  const snippet = el => el.textContent.trim().replace(/\s+/g, ' ').slice(0, 90);
  const out = {wide: [], broken: []};
  // how far an element reaches past the column, or scrolls within a scrolling box of its own or of a
  // wrapper around it alone (the theme's scrolling wrappers of tables)
  const scrolls = node => ['auto', 'scroll', 'hidden'].includes(getComputedStyle(node).overflowX);
  const overflow = el => {
    let over = el.getBoundingClientRect().right - column;
    for (let node = el; node && node !== content; node = node.parentElement) {
      if (node !== el && node.children.length !== 1) break;
      if (scrolls(node)) over = Math.max(over, node.scrollWidth - node.clientWidth);
    }
    return Math.round(over);
  };
  for (const pre of content.querySelectorAll('pre')) {
    if (!shown(pre)) continue;
    const over = overflow(pre.querySelector('code') || pre);
    if (over > 1) out.wide.push({what: 'code block', over, text: snippet(pre)});
  }
  for (const table of content.querySelectorAll('table')) {
    if (!shown(table)) continue;
    const over = overflow(table);
    if (over > 1) out.wide.push({what: 'table', over, text: snippet(table.rows[0] || table)});
  }
  const word = /[A-Za-z0-9_]{2,}/g;
  const range = document.createRange();
  for (const cell of content.querySelectorAll('td, th')) {
    if (!shown(cell)) continue;
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.data.matchAll(word)) {
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = [...range.getClientRects()].filter(r => r.width > 0).map(r => r.top).sort((a, b) => a - b);
        const lines = tops.filter((top, i) => i === 0 || top - tops[i - 1] > 3).length;
        if (lines > 1) out.broken.push({word: match[0], text: snippet(cell)});
      }
    }
  }
  return out;
})()
"""


class Browser:
    """Headless Chromium driven through the DevTools protocol over a pipe (``--remote-debugging-pipe``:
    the browser reads commands on its file descriptor 3 and writes replies on 4, each a JSON message
    ending with a NUL byte)."""

    def __init__(self, executable: str, width: int, height: int, timeout: float = 60.0) -> None:
        self.timeout = timeout
        self._profile = tempfile.TemporaryDirectory(prefix="dlarray-site-check-")
        commands_read, self._commands = os.pipe()
        self._replies, replies_write = os.pipe()
        args = [executable, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--mute-audio",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-features=Translate,OptimizationHints,MediaRouter",
                f"--user-data-dir={self._profile.name}", f"--window-size={width},{height}",
                # a host name resolves to nothing: a request that would leave the machine fails at once
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
                "about:blank"]
        devnull = os.open(os.devnull, os.O_RDWR)
        self.pid = os.posix_spawn(executable, args, os.environ, file_actions=[
            (os.POSIX_SPAWN_DUP2, commands_read, 3), (os.POSIX_SPAWN_DUP2, replies_write, 4),
            (os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
        for fd in (commands_read, replies_write, devnull):
            os.close(fd)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.width, self.height = width, height

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=5)
        except (OSError, TimeoutError, RuntimeError):
            os.kill(self.pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while os.waitpid(self.pid, os.WNOHANG) == (0, 0):
            if time.monotonic() > deadline:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                break
            time.sleep(0.05)
        os.close(self._commands)
        os.close(self._replies)
        self._profile.cleanup()

    def _read(self, timeout: float) -> dict[str, Any] | None:
        """The next message, or None if none came within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._replies], [], [], left)[0]:
                return None
            chunk = os.read(self._replies, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed its DevTools pipe (it exited)")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None,
             timeout: float | None = None) -> dict[str, Any]:
        """Send one command and wait for its reply, keeping the events that arrive meanwhile."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            reply = self._read(deadline - time.monotonic())
            if reply is None:
                raise TimeoutError(f"chromium did not answer {method}")
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_for(self, method: str, session: str, timeout: float | None = None) -> None:
        """Wait for an event (already arrived or coming)."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while not any(e["method"] == method and e.get("sessionId") == session for e in self.events):
            event = self._read(deadline - time.monotonic())
            if event is None:
                raise TimeoutError(f"no {method} within {timeout or self.timeout} s")
            if "method" in event:
                self.events.append(event)

    def settle(self, quiet: float = 0.3, longest: float = 5.0) -> None:
        """Read events until none has come for ``quiet`` seconds (late requests: fonts, scripts)."""
        deadline = time.monotonic() + longest
        while time.monotonic() < deadline:
            event = self._read(quiet)
            if event is None:
                return
            if "method" in event:
                self.events.append(event)

    def open(self) -> str:
        """A new tab at the configured size; its session id."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for method in ("Page.enable", "Network.enable", "Runtime.enable"):
            self.send(method, session=session)
        self.send("Emulation.setDeviceMetricsOverride", {"width": self.width, "height": self.height,
                                                         "deviceScaleFactor": 1, "mobile": False}, session=session)
        return session

    def visit(self, session: str, url: str) -> tuple[dict[str, Any], list[str]]:
        """Open ``url`` in the tab: (the measurements of ``_MEASURE``, every URL the page requested)."""
        self.events.clear()
        self.send("Page.navigate", {"url": url}, session=session)
        self.wait_for("Page.loadEventFired", session)
        self.settle()
        result = self.send("Runtime.evaluate", {"expression": _MEASURE, "awaitPromise": True, "returnByValue": True},
                           session=session)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{url}: {result['exceptionDetails']}")
        self.settle()
        requested = [e["params"]["request"]["url"] for e in self.events
                     if e["method"] == "Network.requestWillBeSent" and e.get("sessionId") == session]
        return result["result"]["value"], requested


#: run in a page once it has loaded, with the names to type (a JSON list) appended in a call: each name
#: typed into the search box in turn; for each, what the result list shows first as the reader sees
#: it (a page's heading, then its sections ranked as high as its best; not what is folded under
#: "more on this page"), or null when no result came within 10 s
_SEARCH = r"""
(async (names) => {
  const input = document.querySelector('input[data-md-component="search-query"]');
  const list = document.querySelector('.md-search-result__list');
  if (!input || !list) return null;
  input.focus();
  const shown = () => [...list.querySelectorAll('a.md-search-result__link')]
    .filter(a => !a.closest('details'))
    .slice(0, 6)
    .map(a => ({page: !!a.querySelector('h1'), anchor: new URL(a.href).hash.slice(1),
                title: a.querySelector('h1, h2').textContent.trim().replace(/\s+/g, ' ')}));
  const out = {};
  for (const name of names) {
    const rendered = new Promise(resolve => {
      const observer = new MutationObserver(() => { observer.disconnect(); resolve(true); });
      observer.observe(list, {childList: true});
      setTimeout(() => { observer.disconnect(); resolve(false); }, 10000);
    });
    input.value = name;
    input.dispatchEvent(new KeyboardEvent('keyup', {key: name.slice(-1), bubbles: true}));
    out[name] = (await rendered) ? shown() : null;
  }
  return out;
})
"""

#: the anchor mkdocstrings gives an object it documents: its Python path
API_ANCHOR = re.compile(r"#(dlarray(?:\.\w+)+)$")


def api_entry_names(site: Path) -> list[str]:
    """The name of every entry of the API reference in the built search index (each name once, in
    the index's order): the last part of each section anchored at a documented object's path."""
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    names = (API_ANCHOR.search(doc["location"]) for doc in index["docs"])
    return list(dict.fromkeys(match.group(1).rpartition(".")[2] for match in names if match))


def first_section(shown: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The first section (not a page's heading) of what the result list shows, or None."""
    return next((item for item in shown if not item["page"]), None)


def search_defects(site: Path, executable: str, names: list[str] | None = None, width: int = 1400,
                   height: int = 1000) -> Iterator[Defect]:
    """The names (default: every API entry's, :func:`api_entry_names`) whose entry is not the first
    section listed when the name is typed into the search box of the home page, in Chromium.

    A page whose own title has the name may be listed above it as a heading; the first section
    listed must be an entry named so (``#dlarray....<name>``), ignoring case as the search does
    ("dtype" may list the ``DType`` class or the ``dtype`` property first; ``matmul`` has two entries).
    """
    names = api_entry_names(site) if names is None else names
    server, base = serve(site)
    browser = Browser(executable, width, height)
    try:
        session = browser.open()
        browser.visit(session, base)
        result = browser.send("Runtime.evaluate", {"expression": f"{_SEARCH}({json.dumps(names)})",
                                                   "awaitPromise": True, "returnByValue": True},
                              session=session, timeout=60 + 2 * len(names))
        if "exceptionDetails" in result:
            raise RuntimeError(f"search: {result['exceptionDetails']}")
        found = result["result"].get("value")
        if found is None:
            yield Defect("no search box", "index.html", "the home page has no search input or result list")
            return
        for name in names:
            shown = found[name]
            first = first_section(shown or [])
            if first is None or not re.fullmatch(rf"dlarray(?:\.\w+)*\.{re.escape(name)}", first["anchor"],
                                                 re.IGNORECASE):
                listed = " | ".join(("# " if item["page"] else "") + item["title"] for item in shown or [])
                yield Defect("an API entry not listed first when its name is searched", "search",
                             f"{name!r}: {listed or 'no result'}")
    finally:
        browser.close()
        server.shutdown()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # the base class's signature
        pass


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """The site served on 127.0.0.1 from a thread; (server, its base URL)."""
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def leaves_the_machine(url: str) -> bool:
    """Whether a request for ``url`` goes to another machine (data:, blob: and 127.0.0.1 stay here)."""
    parts = urlsplit(url)
    return parts.scheme in ("http", "https", "ws", "wss") and parts.hostname not in ("127.0.0.1", "localhost", "::1")


def browser_defects(site: Path, pages: list[str], executable: str, width: int = 1400,
                    height: int = 1000) -> Iterator[Defect]:
    """The defects measured in Chromium, page by page."""
    server, base = serve(site)
    browser = Browser(executable, width, height)
    try:
        session = browser.open()
        for page in pages:
            url = base + (page.removesuffix("index.html"))
            measured, requested = browser.visit(session, url)
            for item in measured["wide"]:
                yield Defect(f"{item['what']} wider than the content column", page,
                             f"{item['over']} px over: {item['text']}")
            for item in measured["broken"]:
                yield Defect("a word broken across lines in a table cell", page, f"{item['word']} in: {item['text']}")
            for request in requested:
                if leaves_the_machine(request):
                    yield Defect("a request leaving the machine", page, request)
    finally:
        browser.close()
        server.shutdown()


def find_chromium() -> str | None:
    """Debian's ``chromium`` (or another Chromium/Chrome on PATH)."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


def report(defects: list[Defect], out: Any = sys.stdout) -> None:
    """Every defect, grouped by kind, then the counts per kind."""
    by_kind: dict[str, list[Defect]] = {}
    for defect in defects:
        by_kind.setdefault(defect.kind, []).append(defect)
    for kind, found in by_kind.items():
        print(f"\n== {kind}: {len(found)}", file=out)
        for defect in found:
            print(f"   {defect.page}: {defect.where}", file=out)
    counts = Counter(defect.kind for defect in defects)
    print("\n" + ("\n".join(f"{n:5d}  {kind}" for kind, n in counts.most_common()) if counts else "no defect"),
          file=out)


def main(argv: list[str] | None = None) -> int:
    """The command line; the exit status is 1 when a defect was found."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, nargs="?", default=ROOT / "site", help="the built site (make docs)")
    parser.add_argument("--static", action="store_true", help="the HTML rules only, without a browser")
    parser.add_argument("--browser", default=None, help="the Chromium executable (default: chromium on PATH)")
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=1000)
    parser.add_argument("--pages", nargs="*", help="pages of the site to check (default: every page)")
    args = parser.parse_args(argv)
    pages = args.pages or site_pages(args.site)
    if not pages:
        parser.error(f"no HTML page under {args.site}: build the site first (make docs)")
    defects = [d for page in pages for d in static_defects(page, (args.site / page).read_text())]
    if not args.static:
        executable = args.browser or find_chromium()
        if executable is None:
            parser.error("no chromium on PATH (Debian: apt-get install chromium; make docs-check installs it)")
        started = time.monotonic()
        defects += browser_defects(args.site, pages, executable, args.width, args.height)
        print(f"{len(pages)} pages opened in {executable} at {args.width}x{args.height} "
              f"in {time.monotonic() - started:.0f} s")
        if not args.pages:  # the whole site: its search too
            started, names = time.monotonic(), api_entry_names(args.site)
            defects += search_defects(args.site, executable, names, args.width, args.height)
            print(f"{len(names)} names of API entries searched in {time.monotonic() - started:.0f} s")
    report(defects)
    return 1 if defects else 0


if __name__ == "__main__":
    sys.exit(main())
