"""Docstrings composed from parts written once.

What many functions share (the errors of a family of functions, a dtype rule, a parameter that
means the same everywhere, the link to the function's page of the standard) is written once, and
composed into each docstring at import; each function keeps what is its own (its summary, its
special cases, an example that runs: ``tests/test_api_reference.py`` runs every example).

Two ways in, both giving ordinary numpy-style docstrings (``help()``, the API reference):

- a function written out keeps its docstring, a template whose lines ``{name}`` stand for a
  block shared by its module (or by several: ``SHARED``, ``{examples}`` among them):
  ``Sections(...)`` holds the blocks and, as a decorator, fills them in and adds the function's
  link to the standard;
- a function declared in a table has no ``def`` to hold a docstring: its own parts are a ``Doc``
  record, which its module renders with :func:`numpy_docstring` around the shared parts.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple, TypeVar

_Function = TypeVar("_Function", bound=Callable[..., object])

SPEC = "https://data-apis.org/array-api/2025.12/"


def standard_page(name: str) -> str:
    """The address of the 2025.12 standard's page of ``name``: a function (``"add"``), a function
    of an extension (``"linalg.det"``) or an attribute of the array object (``"array.__add__"``)."""
    folder = "extensions" if "." in name and not name.startswith("array.") else "API_specification"
    return f"{SPEC}{folder}/generated/array_api.{name}.html"


def standard_link(name: str) -> str:
    """The line linking the 2025.12 standard's page of ``name`` (as :func:`standard_page`), shown
    as the name without ``array.``."""
    shown = name.removeprefix("array.")
    return f"Standard: [`{shown}`]({standard_page(name)})."


class Doc(NamedTuple):
    """What is a function's own in its docstring, for a function declared in a table.

    ``text`` begins as a docstring does: the summary line, then the function's own paragraphs
    (its special cases). ``params`` maps a parameter to its own words (its module adds what its
    family shares), ``raises`` an exception to the words its module adds to the family's;
    ``examples`` are the lines of a doctest session after ``>>> import dlarray as xp``.
    """

    text: str
    params: Mapping[str, str] = {}
    returns: str = ""
    raises: Mapping[str, str] = {}
    examples: str = ""

    @property
    def summary(self) -> str:
        return inspect.cleandoc(self.text).partition("\n\n")[0]

    @property
    def details(self) -> str:
        return inspect.cleandoc(self.text).partition("\n\n")[2]


def entries(items: Iterable[tuple[str, str]]) -> str:
    """Entries of a numpy-style section: each name, then its description indented."""
    return "\n".join(f"{name}\n    {text}" for name, text in items)


def section(title: str, items: Iterable[tuple[str, str]]) -> str:
    """A numpy-style section: ``title`` underlined, then its entries."""
    return f"{title}\n{'-' * len(title)}\n{entries(items)}".rstrip("\n")


def numpy_docstring(
    summary: str,
    *,
    details: str = "",
    link: str = "",
    parameters: Iterable[tuple[str, str, str]] = (),
    returns: tuple[str, str] | None = None,
    raises: Iterable[tuple[str, str]] = (),
    examples: str = "",
) -> str:
    """A numpy-style docstring: ``parameters`` as (name, type, description), ``returns`` as
    (type, description), ``raises`` as (exception, description), ``examples`` the doctest lines
    after ``>>> import dlarray as xp``."""
    parts = [summary, details, link]
    described = [(f"{name} : {kind}" if kind else name, text) for name, kind, text in parameters]
    if described:
        parts.append(section("Parameters", described))
    if returns is not None:
        parts.append(section("Returns", [returns]))
    errors = list(raises)
    if errors:
        parts.append(section("Raises", errors))
    parts.append(f"{section('Examples', [])}\n>>> import dlarray as xp\n{inspect.cleandoc(examples)}")
    return "\n\n".join(part for part in parts if part)


def declared(function: _Function, name: str, doc: str) -> _Function:
    """``function``, made by a factory for a table's row, named ``name`` (in tracebacks too) and
    given its docstring ``doc``."""
    function.__name__ = function.__qualname__ = name
    function.__code__ = function.__code__.replace(co_name=name, co_qualname=name)
    function.__doc__ = doc
    return function


def declare(
    function: _Function,
    name: str,
    doc: Doc,
    *,
    words: Mapping[str, str],
    errors: Mapping[str, str],
    returns: str = "Array",
    returned: str = "",
    standard: str | None = "",
) -> _Function:
    """``function``, made by a factory for a table's row, named ``name`` and documented: its
    record ``doc``, with its family's ``words`` for its parameters and ``returned`` for its result
    (the record's own words win), its family's ``errors`` (the record's words added), ``returns``
    the type it returns, and a link to the page of ``standard`` (``""``: ``name``'s in the main
    namespace; None: no link)."""
    own = {**words, **doc.params}
    raises = with_own_words(errors, doc.raises)
    return declared(function, name, numpy_docstring(
        doc.summary,
        details=doc.details,
        link="" if standard is None else standard_link(standard or name),
        parameters=[(parameter, "", own[parameter]) for parameter in parameter_names(function)],
        returns=(returns, doc.returns or returned),
        raises=raises.items(),
        examples=doc.examples,
    ))


def with_own_words(family: Mapping[str, str], own: Mapping[str, str]) -> dict[str, str]:
    """A family's errors (exception: words) with a function's own: its words follow the family's
    for the same exception, and its other exceptions come after."""
    raises = dict(family)
    for exception, text in own.items():
        raises[exception] = f"{raises[exception]} {text}" if exception in raises else text
    return raises


def parameter_names(function: Callable[..., object]) -> tuple[str, ...]:
    """The names of ``function``'s parameters, in order (``__annotations__`` may list them in
    another)."""
    code = function.__code__  # type: ignore[attr-defined]
    return code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]


#: Blocks that docstrings of several modules share: every ``Sections`` fills them in.
SHARED = {
    # the head of every Examples section (the function's doctest lines follow)
    "examples": """
        Examples
        --------
        >>> import dlarray as xp
    """,
    # a function of an Array along an axis, of every dtype
    "axis_errors": """
        Raises
        ------
        TypeError
            ``x`` is not an Array.
        ValueError
            An axis out of range (``AxisError``, also an `IndexError`).
    """,
    # a function that takes a stack of matrices by its metadata (no compute: every dtype)
    "matrix_stack_errors": """
        Raises
        ------
        TypeError
            ``x`` is not an Array.
        ValueError
            ``x`` has fewer than two dimensions.
    """,
}

_PLACEHOLDER = re.compile(r"^( *)\{(\w+)\}$", re.MULTILINE)
_FIRST_SECTION = re.compile(r"^\w[\w ]*\n-+$", re.MULTILINE)


class Sections:
    """The blocks a module's docstrings share, and the decorator that composes a docstring.

    The decorator takes a function's docstring as a template: a line that is only ``{name}``
    becomes the block ``name`` (the module's, or one of ``SHARED``; it may hold ``{name}`` lines
    of its own), indented as the line is (an unknown name fails at import). ``{examples}`` opens
    the Examples section (with ``>>> import dlarray as xp``). The link to the function's page of
    the standard, in the part of it ``namespace`` names (``"linalg"``: ``linalg.<name>``;
    ``"array"``: the array object's attribute ``<name>``; None: the main namespace), becomes the
    paragraph before the first section.
    """

    def __init__(self, namespace: str | None = None, **blocks: str) -> None:
        self.namespace = namespace
        # dedented as a whole (cleandoc would treat a block's first line apart from the rest)
        self.blocks = {name: textwrap.dedent(text).strip("\n") for name, text in {**SHARED, **blocks}.items()}

    def fill(self, template: str, name: str | None) -> str:
        """``template`` (a docstring) composed for function ``name`` (None: one outside the
        standard, with no link)."""

        def block(match: re.Match[str]) -> str:
            indent, key = match.groups()
            return "\n".join(f"{indent}{line}" if line else line for line in self.blocks[key].split("\n"))

        text = inspect.cleandoc(template)
        for _ in range(3):  # a block may hold others
            text = _PLACEHOLDER.sub(block, text)
        if name is not None:
            link = standard_link(f"{self.namespace}.{name}" if self.namespace else name)
            first = _FIRST_SECTION.search(text)
            at = first.start() if first else len(text)
            text = f"{text[:at]}{link}\n\n{text[at:]}"
        return text

    def __call__(self, function: _Function) -> _Function:
        function.__doc__ = self.fill(function.__doc__ or "", function.__name__)
        return function

    def outside_standard(self, function: _Function) -> _Function:
        """The decorator for a function the standard does not have: no link."""
        function.__doc__ = self.fill(function.__doc__ or "", None)
        return function
