"""The API reference: every public object is documented as the site renders it, and its example runs.

The objects are what a user can reach: the public names of ``dlarray`` (functions, classes, dtype
objects, constants), ``dlarray.__array_namespace_info__`` and its object's methods, the ``linalg``
and ``fft`` extensions, the ``dlarray.testing`` kit, and the public members of ``Array`` (methods,
properties, the dunders of the standard and the operators).

Docstrings are read as mkdocstrings reads them: loaded by griffe (static analysis, with the site's
``docs_hooks/griffe_roles.py`` extension) and parsed as numpy style, so a parameter's type is the one
the page shows (the docstring's, else the signature's). One pytest case per object and check:

- a function or method has a one-line summary, a Parameters section naming every parameter of its
  signature, each with a type, a Returns section (unless it returns ``None``), and an Examples
  section; a class, a property has a summary and Examples;
- no signature (parameters and return) is annotated ``Any``;
- each object is rendered on an API page (visible to griffe, and on a rendered page or class);
- each Examples section runs as a doctest whose output is checked exactly;
- each function of the 2025.12 standard (``docs/results/array-api-2025.12.json``) links its 2025.12
  spec page, and nothing links the moving ``latest`` spec.
"""

from __future__ import annotations

import doctest
import enum
import inspect
import json
import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import dlarray
import dlarray.testing
from dlarray._array import Array
from dlarray._devices import CPU, DEFAULT_DEVICE
from dlarray._dtypes import ALL_DTYPES, DType
from dlarray._info import Info

griffe = pytest.importorskip("griffe")

ROOT = Path(__file__).resolve().parent.parent

# Python's own protocol methods of Array, documented by the class rather than one by one.
_ARRAY_PLUMBING = frozenset({
    "__init__", "__repr__", "__str__", "__format__", "__reduce__", "__reduce_ex__", "__copy__",
    "__deepcopy__", "__hash__", "__slots__", "__module__", "__doc__", "__qualname__",
    "__array_priority__", "__weakref__", "__dict__", "__annotations__", "__firstlineno__",
    "__static_attributes__",
})
# Classes users construct themselves: their constructor's parameters are documented.
_CONSTRUCTED_BY_USERS = (dlarray.Device, dlarray.testing.SyntheticProducer)


@dataclass(frozen=True)
class Entry:
    """One public object: its griffe path (where it is defined), the object, and what it is."""

    path: str
    obj: Any
    kind: str  # "function", "method", "property", "class", "dtype", "constant"


def _function_path(function: Any) -> str:
    return f"{function.__module__}.{function.__qualname__}"


def _class_path(cls: type) -> str:
    if cls is Info:  # its __module__ says "dlarray", where users meet it
        return "dlarray._info.Info"
    return f"{cls.__module__}.{cls.__qualname__}"


def _class_members(cls: type, path: str) -> list[Entry]:
    entries = []
    for name, member in vars(cls).items():
        if cls is Array:
            if name in _ARRAY_PLUMBING or (name.startswith("_") and not name.startswith("__")):
                continue
        elif name.startswith("_") and not (name in ("__new__", "__init__") and cls in _CONSTRUCTED_BY_USERS):
            continue
        if isinstance(member, property):
            entries.append(Entry(f"{path}.{name}", member, "property"))
        elif isinstance(member, (staticmethod, classmethod)):
            entries.append(Entry(f"{path}.{name}", member.__func__, "method"))
        elif inspect.isfunction(member):
            entries.append(Entry(f"{path}.{name}", member, "method"))
    return entries


def _class_entries(cls: type) -> list[Entry]:
    path = _class_path(cls)
    entries = [Entry(path, cls, "class")]
    if not issubclass(cls, enum.Enum):
        entries += _class_members(cls, path)
    return entries


@cache
def public_entries() -> tuple[Entry, ...]:
    entries: list[Entry] = []
    seen: set[int] = set()

    def add(new: list[Entry]) -> None:
        for entry in new:
            if id(entry.obj) not in seen or entry.kind in ("dtype", "constant"):
                seen.add(id(entry.obj))
                entries.append(entry)

    for name in sorted(dir(dlarray)):
        if name.startswith("_"):
            continue
        obj = getattr(dlarray, name)
        if inspect.ismodule(obj):
            continue
        if isinstance(obj, DType):
            add([Entry(f"dlarray.{name}", obj, "dtype")])
        elif inspect.isclass(obj):
            add(_class_entries(obj))
        elif inspect.isfunction(obj):
            add([Entry(_function_path(obj), obj, "function")])
        else:
            add([Entry(f"dlarray._constants.{name}", obj, "constant")])
    add([Entry(_function_path(dlarray.__array_namespace_info__), dlarray.__array_namespace_info__, "function")])
    add(_class_entries(Info))
    for module in (dlarray.linalg, dlarray.fft, dlarray.testing):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj):
                path = f"{module.__name__}.{name}" if module is dlarray.testing else _class_path(obj)
                add([Entry(path, obj, "class"), *_class_members(obj, path)])
            else:
                path = f"{module.__name__}.{name}" if module is dlarray.testing else _function_path(obj)
                add([Entry(path, obj, "function")])
    return tuple(entries)


def _ids(entries: tuple[Entry, ...]) -> list[str]:
    return [entry.path for entry in entries]


ENTRIES = public_entries()
DOCUMENTED = tuple(e for e in ENTRIES if e.kind not in ("dtype", "constant"))
CALLABLES = tuple(e for e in DOCUMENTED if e.kind in ("function", "method"))


# ------------------------------------------------------------------------------ griffe's view
@cache
def _static_package() -> Any:
    """The package as mkdocstrings loads it for the site (same parser, same extension)."""
    extensions = griffe.load_extensions(f"{ROOT / 'docs_hooks' / 'griffe_roles.py'}:SphinxRoles")
    return griffe.load("dlarray", search_paths=[str(ROOT)], docstring_parser="numpy",
                       extensions=extensions, resolve_aliases=False)


@cache
def _roles() -> Any:
    """The site's griffe extension module: which objects the API pages render."""
    sys.path.insert(0, str(ROOT / "docs_hooks"))
    try:
        import griffe_roles
    finally:
        sys.path.remove(str(ROOT / "docs_hooks"))
    return griffe_roles


def _static(path: str) -> Any:
    """The griffe object at ``path`` (following aliases by their target paths), or None."""
    return _roles()._lookup(_static_package(), path)


@dataclass
class Parsed:
    summary: str
    sections: dict[str, Any]  # kind name -> section value (the parameters: name -> annotation)


def parsed_docstring(entry: Entry) -> Parsed:
    """The docstring of ``entry`` as the site parses it."""
    found = _static(entry.path)
    if found is not None and found.docstring is not None:
        sections = found.docstring.parsed
    else:  # defined at run time (no source to read): its docstring, types from its signature
        text = inspect.getdoc(entry.obj) or ""
        sections = griffe.Docstring(text, parser="numpy").parse()
    result = Parsed("", {})
    for section in sections:
        kind = section.kind.value
        if kind == "text" and not result.summary:
            result.summary = str(section.value).strip().split("\n\n")[0]
        elif kind == "parameters":
            result.sections.setdefault(kind, {}).update(
                {p.name: str(p.annotation or "") for p in section.value}
            )
            if found is None:
                for name, annotation in _signature_annotations(entry).items():
                    if not result.sections[kind].get(name):
                        result.sections[kind][name] = annotation
        else:
            result.sections.setdefault(kind, section.value)
    return result


def _signature(entry: Entry) -> inspect.Signature | None:
    target = entry.obj.fget if entry.kind == "property" else entry.obj
    if entry.kind == "class":
        return None
    try:
        return inspect.signature(target)
    except (TypeError, ValueError):
        return None


def _parameter_names(entry: Entry) -> list[str]:
    signature = _signature(entry)
    if signature is None or entry.kind == "property":
        return []
    names = []
    for parameter in signature.parameters.values():
        if parameter.name in ("self", "cls"):
            continue
        prefix = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}.get(parameter.kind, "")
        names.append(prefix + parameter.name)
    return names


def _annotation_text(annotation: Any) -> str:
    if annotation is inspect.Parameter.empty:
        return ""
    return annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)


def _signature_annotations(entry: Entry) -> dict[str, str]:
    signature = _signature(entry)
    if signature is None:
        return {}
    found = {}
    for parameter in signature.parameters.values():
        prefix = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}.get(parameter.kind, "")
        found[prefix + parameter.name] = _annotation_text(parameter.annotation)
    return found


def _returns_none(entry: Entry) -> bool:
    signature = _signature(entry)
    return signature is not None and _annotation_text(signature.return_annotation) in ("None", "NoneType")


# ------------------------------------------------------------------------------ the checks
@pytest.mark.parametrize("entry", DOCUMENTED, ids=_ids(DOCUMENTED))
def test_documented(entry: Entry) -> None:
    """Summary, Parameters (every parameter, typed), Returns and Examples, as the site renders them."""
    parsed = parsed_docstring(entry)
    problems = []
    if not parsed.summary:
        problems.append("no summary line")
    if entry.kind in ("function", "method"):
        wanted = _parameter_names(entry)
        documented = parsed.sections.get("parameters", {})
        # numpy style documents ``*args`` as ``*args`` or ``args``
        documented = {name.lstrip("*"): annotation for name, annotation in documented.items()}
        for name in wanted:
            if name.lstrip("*") not in documented:
                problems.append(f"parameter {name} not in Parameters")
            elif not documented[name.lstrip("*")]:
                problems.append(f"parameter {name} has no type")
        extra = set(documented) - {name.lstrip("*") for name in wanted}
        if extra and _signature(entry) is not None:
            problems.append(f"Parameters names {sorted(extra)}, not in the signature")
        if "returns" not in parsed.sections and "yields" not in parsed.sections and not _returns_none(entry):
            problems.append("no Returns section")
    if "examples" not in parsed.sections:
        problems.append("no Examples section")
    assert not problems, f"{entry.path}: " + "; ".join(problems)


@pytest.mark.parametrize("entry", CALLABLES, ids=_ids(CALLABLES))
def test_no_any_in_signature(entry: Entry) -> None:
    """A public signature says what it takes: ``Array | int | float``, not ``Any``."""
    signature = _signature(entry)
    assert signature is not None, f"{entry.path} has no signature"
    annotations = _signature_annotations(entry)
    annotations["return"] = _annotation_text(signature.return_annotation)
    untyped = [name for name, text in annotations.items() if re.search(r"\bAny\b", text)]
    assert not untyped, f"{entry.path}: annotated Any: {untyped}"


@pytest.mark.parametrize("entry", DOCUMENTED, ids=_ids(DOCUMENTED))
def test_rendered(entry: Entry) -> None:
    """mkdocstrings sees the object (it is in the source) and an API page renders it."""
    found = _static(entry.path)
    assert found is not None, f"{entry.path} is not visible to griffe (defined at run time?)"
    if entry.path.startswith("dlarray.testing."):
        page = (ROOT / "docs" / "guide" / "dlpack-conformance.md").read_text()
        owner = entry.path.split(".")[2]
        assert f"::: dlarray.testing.{owner}" in page, f"{entry.path} is not rendered"
        return
    assert _roles()._rendered(found) or _exported_by_rendered_module(entry.path), (
        f"{entry.path} is on no API page (docs_hooks/griffe_roles.py)"
    )
    if entry.kind == "function" and not found.is_alias:
        # a function declared in a table (an assignment to static analysis) is shown as a function
        # with its run-time signature
        assert found.is_function, f"{entry.path} is shown as a {found.kind.value}"
        shown = [("*" if p.kind.value == "variadic positional" else "**" if p.kind.value == "variadic keyword"
                  else "") + p.name for p in found.parameters]
        assert shown == _parameter_names(entry), f"{entry.path}: the page shows parameters {shown}"


def _exported_by_rendered_module(path: str) -> bool:
    """Whether a rendered module exports the object at ``path`` under its own name (an alias)."""
    for module_path in _roles().RENDERED_MODULES:
        module = _static_package()
        for part in module_path.split(".")[1:]:
            module = module.members[part]
        for name in module.exports or ():
            member = module.members.get(str(name))
            if member is not None and member.is_alias and member.target_path == path:
                return True
    return False


@pytest.mark.parametrize("entry", DOCUMENTED, ids=_ids(DOCUMENTED))
def test_examples_run(entry: Entry) -> None:
    """Every Examples section runs, and prints exactly what it shows."""
    if DEFAULT_DEVICE is not CPU:
        pytest.skip(f"the examples show CPU arrays; DLARRAY_DEFAULT_DEVICE is {DEFAULT_DEVICE}")
    text = inspect.getdoc(entry.obj.fget if entry.kind == "property" else entry.obj)
    assert text, f"{entry.path} has no docstring"
    test = doctest.DocTestParser().get_doctest(text, {}, entry.path, None, 0)
    assert test.examples, f"{entry.path}: no doctest example"
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    result = runner.run(test, out=report.append, clear_globs=True)
    assert result.failed == 0, "".join(report)


@pytest.mark.parametrize("entry", CALLABLES, ids=_ids(CALLABLES))
def test_documented_types_match_hints(entry: Entry) -> None:
    """A parameter's type in the docstring is the one its signature annotates (they cannot drift);
    the docstring may leave out the ``| None`` of a parameter that defaults to None."""
    hints = {name.lstrip("*"): text for name, text in _signature_annotations(entry).items()}
    for name, documented in parsed_docstring(entry).sections.get("parameters", {}).items():
        hint = hints.get(name.lstrip("*"), "").replace(" ", "")
        if documented and hint:
            documented = documented.replace(" ", "")
            assert hint in (documented, f"{documented}|None"), (
                f"{entry.path}({name}): documented {documented}, annotated {hint}"
            )


SPEC_FUNCTIONS = json.loads((ROOT / "docs" / "results" / "array-api-2025.12.json").read_text())["functions"]


def _spec_object(name: str) -> Any:
    """The dlarray object of a function of the standard (``linalg.svd``, ``__array_namespace_info__().dtypes``)."""
    if name.startswith("__array_namespace_info__()."):
        return getattr(Info, name.split(".", 1)[1])
    owner: Any = dlarray
    for part in name.split("."):
        owner = getattr(owner, part)
    return owner


@pytest.mark.parametrize("spec", SPEC_FUNCTIONS, ids=[spec["name"] for spec in SPEC_FUNCTIONS])
def test_links_its_spec_page(spec: dict[str, str]) -> None:
    """Each function of the 2025.12 standard links its page of the 2025.12 spec (one of them, for a
    function the main namespace and an extension share)."""
    obj = _spec_object(spec["name"])
    entry = next(entry for entry in DOCUMENTED if entry.obj is obj)
    urls = [other["url"] for other in SPEC_FUNCTIONS if _spec_object(other["name"]) is obj]
    assert any(url in (obj.__doc__ or "") for url in urls), f"{entry.path} does not link {spec['url']}"


@pytest.mark.parametrize("entry", DOCUMENTED, ids=_ids(DOCUMENTED))
def test_shared_sections_filled_in(entry: Entry) -> None:
    """A docstring composed from shared sections (``dlarray._docs``) has every ``{section}`` line
    filled in, for ``help()`` as for the site."""
    doc = (entry.obj.fget if entry.kind == "property" else entry.obj).__doc__ or ""
    unfilled = re.findall(r"^ *\{\w+\} *$", doc, re.M)
    assert not unfilled, f"{entry.path}: {unfilled}"


def test_no_latest_spec_links() -> None:
    """The package targets 2025.12: no docstring or API page links the moving ``latest`` spec."""
    for entry in DOCUMENTED:
        doc = (entry.obj.fget if entry.kind == "property" else entry.obj).__doc__ or ""
        assert "array-api/latest" not in doc, entry.path
    for page in (ROOT / "docs" / "api").glob("*.md"):
        assert "array-api/latest" not in page.read_text(), page.name


def test_dtype_objects_listed() -> None:
    """Every dtype object is a row of the generated dtype table on the Data types page."""
    dtypes = [entry.obj for entry in ENTRIES if entry.kind == "dtype"]
    assert dtypes and all(dtype in ALL_DTYPES for dtype in dtypes)
    assert "<!-- generated: dtype-table -->" in (ROOT / "docs" / "api" / "dtypes.md").read_text()


def test_constants_documented() -> None:
    """Each constant has a docstring on the constants page."""
    for entry in ENTRIES:
        if entry.kind == "constant":
            found = _static(entry.path)
            assert found is not None and found.docstring is not None, entry.path
            assert found.docstring.value.strip(), entry.path


def test_enum_members_listed() -> None:
    """DLDeviceType and DLDataTypeCode list their members on their API pages."""
    api = "".join(page.read_text() for page in sorted((ROOT / "docs" / "api").glob("*.md")))
    for cls in (dlarray.DLDeviceType, dlarray.DLDataTypeCode):
        found = _static(_class_path(cls))
        assert found is not None and _roles()._rendered(found), cls.__name__
        assert f"::: {_class_path(cls)}" in api, cls.__name__


def test_inventory() -> None:
    """The inventory covers the namespace: every function of the standard the package exports."""
    paths = {entry.path for entry in ENTRIES}
    for name in ("dlarray._creation_functions.from_dlpack", "dlarray.linalg.svd", "dlarray.fft.fft",
                 "dlarray._array.Array.__dlpack__", "dlarray._info.Info.dtypes"):
        assert name in paths
    assert len(CALLABLES) > 150


def coverage() -> dict[str, int]:
    """Counts of the public functions and methods with each part (``python tests/test_api_reference.py``)."""
    counts = {"functions and methods": len(CALLABLES), "with Parameters for every parameter": 0,
              "with Examples": 0, "with an Any in the signature": 0}
    for entry in CALLABLES:
        parsed = parsed_docstring(entry)
        documented = {name.lstrip("*") for name in parsed.sections.get("parameters", {})}
        if all(name.lstrip("*") in documented for name in _parameter_names(entry)):
            counts["with Parameters for every parameter"] += 1
        if "examples" in parsed.sections:
            counts["with Examples"] += 1
        if any(re.search(r"\bAny\b", text) for text in _signature_annotations(entry).values()):
            counts["with an Any in the signature"] += 1
    return counts


if __name__ == "__main__":
    for label, count in coverage().items():
        print(f"{label}: {count}")


# The array object's attributes in the 2025.12 standard (its array_object page lists them).
STANDARD_ARRAY_ATTRIBUTES = (
    "dtype", "device", "mT", "ndim", "shape", "size", "T", "__abs__", "__add__", "__and__",
    "__array_namespace__", "__bool__", "__complex__", "__dlpack__", "__dlpack_device__", "__eq__",
    "__float__", "__floordiv__", "__ge__", "__getitem__", "__gt__", "__index__", "__int__",
    "__invert__", "__le__", "__lshift__", "__lt__", "__matmul__", "__mod__", "__mul__", "__ne__",
    "__neg__", "__or__", "__pos__", "__pow__", "__rshift__", "__setitem__", "__sub__",
    "__truediv__", "__xor__", "to_device",
)


@pytest.mark.parametrize("name", STANDARD_ARRAY_ATTRIBUTES)
def test_array_attribute_links_its_spec_page(name: str) -> None:
    """Each attribute of the standard's array object links its own page of the 2025.12 spec (in
    API_specification, as the array object's pages are), shown by its name."""
    page = f"https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.array.{name}.html"
    doc = getattr(Array, name).__doc__ or ""
    assert f"Standard: [`{name}`]({page})." in doc


def test_array_links_only_its_own_pages() -> None:
    """No Array member links another member's page of the standard (a template filled in for the
    wrong name would)."""
    for name, member in vars(Array).items():
        doc = getattr(member, "__doc__", None) or ""
        for linked in re.findall(r"generated/array_api\.array\.(\w+)\.html", doc):
            assert linked == name, f"Array.{name} links the page of {linked}"
