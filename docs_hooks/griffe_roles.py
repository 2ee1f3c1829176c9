"""Griffe extension: read dlarray's Sphinx-flavoured docstrings for mkdocstrings.

The docstrings are numpy-style and refer to other objects with Sphinx roles (``:func:`sum```,
``:class:`~dlarray._dlpack.ImportedTensor```), which Markdown would print literally. Each role becomes
a cross-reference (``[`sum`][dlarray._statistical_functions.sum]``) when its target is rendered
somewhere in the API reference, and plain code otherwise: a reference to something the site does not
show must not break the strict build.

Module constants are documented Sphinx's way, with ``#:`` comments above the assignment; griffe only
reads a string below it, so such a comment becomes the attribute's docstring.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import sys
from pathlib import Path
from typing import Any

import griffe

# Modules whose public members (their __all__) the API reference renders, one page each.
RENDERED_MODULES = frozenset({
    "dlarray._constants",
    "dlarray._creation_functions",
    "dlarray._data_type_functions",
    "dlarray._elementwise_functions",
    "dlarray._indexing_functions",
    "dlarray._linear_algebra_functions",
    "dlarray._manipulation_functions",
    "dlarray._searching_functions",
    "dlarray._set_functions",
    "dlarray._sorting_functions",
    "dlarray._statistical_functions",
    "dlarray._utility_functions",
    "dlarray.linalg",
    "dlarray.fft",
})
ROOT = Path(__file__).resolve().parent.parent


def _import(path: str) -> Any:
    """The package's module ``path``, imported from this checkout."""
    sys.path.insert(0, str(ROOT))
    try:
        return importlib.import_module(path)
    finally:
        sys.path.remove(str(ROOT))


# the names of the operators ``dlarray._operators`` installs on Array at import time
ARRAY_OPERATORS: tuple[str, ...] = _import("dlarray._operators").NAMES
# Classes rendered on their own pages, with the members shown there (None: every public member).
RENDERED_CLASSES: dict[str, frozenset[str] | None] = {
    "dlarray._array.Array": frozenset({
        "__dlpack__", "__dlpack_device__", "__array_namespace__", "__array__", "__buffer__", "__bytes__", "__getitem__",
        "__setitem__", "to_device", "shape", "ndim", "size", "dtype", "device", "strides", "data_ptr",
        "readonly", "itemsize", "nbytes", "T", "mT", "__cuda_array_interface__", "__bool__", "__int__",
        "__float__", "__complex__", "__index__", "__len__", "__iter__", "__round__", "__format__",
        "__str__", "__repr__", "__copy__", "__deepcopy__", "__reduce_ex__", *ARRAY_OPERATORS,
    }),
    "dlarray._dtypes.DType": None,
    "dlarray._devices.Device": frozenset({"type", "id", "host_accessible", "__new__"}),
    "dlarray._dlpack._structs.DLDeviceType": None,
    "dlarray._dlpack._structs.DLDataTypeCode": None,
    "dlarray._info.Info": None,
}

# Classes whose members' docstrings are composed at import (``dlarray._docs``): the API reference
# takes them from the run-time class.
COMPOSED_CLASSES = ("dlarray._array.Array", "dlarray.testing._report.Report")

_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|attr|mod|data|exc|obj):`(~?)([\w.]+)(?:\(\))?`")


def _exports(module: Any) -> set[str]:
    return {str(name) for name in (module.exports or ())}


def _lookup(root: Any, path: str, depth: int = 0) -> Any:
    """The object at a dotted path, following aliases by their target paths (no resolution needed)."""
    parts = path.split(".")
    if depth > 8 or parts[0] != root.name:
        return None
    obj = root
    for i, part in enumerate(parts[1:], 1):
        if obj.is_alias:
            return _lookup(root, ".".join([obj.target_path, *parts[i:]]), depth + 1)
        member = obj.members.get(part)
        if member is None:
            return None
        obj = member
    if obj.is_alias:
        return _lookup(root, obj.target_path, depth + 1)
    return obj


def _rendered(obj: Any) -> bool:
    parent = obj.parent
    if parent is None:
        return False
    if parent.is_module:
        if obj.path in RENDERED_CLASSES:
            return True
        return parent.path in RENDERED_MODULES and obj.name in _exports(parent)
    if parent.is_class:
        shown = RENDERED_CLASSES.get(parent.path, frozenset())
        if parent.path in RENDERED_CLASSES:
            return obj.name in shown if shown is not None else not obj.name.startswith("_")
        return _rendered(parent) and not obj.name.startswith("_")
    return False


def _comment_docstring(attribute: Any) -> None:
    """Give ``attribute`` the text of the ``#:`` comment lines right above its assignment."""
    try:
        lines = attribute.lines_collection[attribute.filepath]  # the whole source file
    except (KeyError, TypeError, AttributeError):
        return
    if not attribute.lineno or attribute.lineno > len(lines):
        return
    comment: list[str] = []
    index = attribute.lineno - 2
    while index >= 0 and lines[index].strip().startswith("#:"):
        comment.insert(0, lines[index].strip()[2:].strip())
        index -= 1
    if comment:
        attribute.docstring = griffe.Docstring("\n".join(comment), parent=attribute)


def _resolve(root: Any, context: Any, name: str) -> Any:
    """The object a role's target names, seen from the docstring's owner ``context``."""
    scopes = []
    if context.is_class:
        scopes.append(context.path)
    if context.parent is not None and context.parent.is_class:
        scopes.append(context.parent.path)
    scopes += [context.module.path, root.path]
    for scope in scopes:
        found = _lookup(root, f"{scope}.{name}")
        if found is not None:
            return found
    return _lookup(root, name)


def _runtime_function(name: str, function: Any, lineno: int, endlineno: int, scope: Any) -> Any:
    """Griffe's function for the run-time ``function``: its signature (annotations resolved in
    ``scope``, griffe's module or class) and its docstring, read as ``scope``'s are."""
    signature = inspect.signature(function)
    parameters = griffe.Parameters(*(
        griffe.Parameter(
            parameter.name,
            annotation=_annotation(parameter.annotation, scope),
            kind=griffe.ParameterKind(parameter.kind.description),
            default=None if parameter.default is inspect.Parameter.empty else repr(parameter.default),
        )
        for parameter in signature.parameters.values()
    ))
    griffe_function = griffe.Function(
        name, lineno=lineno, endlineno=endlineno, parameters=parameters,
        returns=_annotation(signature.return_annotation, scope),
    )
    griffe_function.docstring = _runtime_docstring(function, griffe_function, scope)
    return griffe_function


def _runtime_docstring(function: Any, parent: Any, scope: Any) -> Any:
    return griffe.Docstring(
        inspect.cleandoc(function.__doc__ or ""), parent=parent, parser=scope.docstring.parser,
        parser_options=scope.docstring.parser_options,
    )


def _add_array_operators(pkg: Any) -> None:
    """Give griffe's Array the operators, which static analysis cannot see: ``dlarray._operators``
    sets them on the class at import time, from its table. Each gets its run-time signature and
    docstring (both composed from the table's element-wise function)."""
    cls = _lookup(pkg, "dlarray._array.Array")
    if cls is None:
        return
    Array = _import("dlarray._array").Array
    after = cls.endlineno or 0
    for line, name in enumerate(ARRAY_OPERATORS, after + 1):
        cls.set_member(name, _runtime_function(name, getattr(Array, name), line, line, cls))


def _use_runtime_members(pkg: Any, path: str) -> None:
    """Give the members of the class at ``path`` what the package composes at import: a member
    the class declares by a table (``__int__ = _conversion(int, ...)``, an assignment to static
    analysis) becomes a function with its run-time signature, and every member its run-time
    docstring, whose shared sections and link are filled in (``dlarray._docs``)."""
    cls = _lookup(pkg, path)
    if cls is None:
        return
    module, _, name = path.rpartition(".")
    runtime_class = getattr(_import(module), name)
    for name, member in list(cls.members.items()):
        runtime = runtime_class.__dict__.get(name)
        if member.is_alias or runtime is None:
            continue
        if member.is_attribute and inspect.isfunction(runtime):
            cls.set_member(name, _runtime_function(
                name, runtime, member.lineno or 0, member.endlineno or 0, cls
            ))
        elif getattr(runtime, "__doc__", None) and member.docstring is not None:
            member.docstring = _runtime_docstring(runtime, member, cls)


def _use_runtime_functions(pkg: Any) -> None:
    """Give the rendered modules' functions what the package composes at import: a function
    declared in a table (``sin = _unary("sin", "sin", FLOATING)``, an assignment to static
    analysis) becomes a function with its run-time signature, and every function gets its
    run-time docstring, whose shared sections are filled in (``dlarray._docs``)."""
    for path in RENDERED_MODULES:
        module = _lookup(pkg, path)
        runtime = _import(path)
        for name in _exports(module):
            member = module.members.get(name)
            function = getattr(runtime, name, None)
            if member is None or member.is_alias or not inspect.isfunction(function):
                continue
            if member.is_function:
                member.docstring = _runtime_docstring(function, member, module)
            else:
                module.set_member(name, _runtime_function(
                    name, function, member.lineno or 0, member.endlineno or 0, module
                ))


def _annotation(annotation: Any, scope: Any) -> Any:
    """A run-time annotation (a string: the package's annotations are postponed) as griffe's
    expression, resolved in the scope of ``scope``'s module; None where there is none."""
    if annotation is inspect.Parameter.empty or annotation is inspect.Signature.empty:
        return None
    return griffe.safe_get_annotation(ast.parse(str(annotation), mode="eval").body, scope.module)


class SphinxRoles(griffe.Extension):
    """Rewrite ``:role:`target``` in every docstring of the package once it is loaded (after
    taking the functions and the Array's operators the package composes at import, so that
    theirs are rewritten too)."""

    def on_package(self, *, pkg: Any, **kwargs: Any) -> None:
        if pkg.name == "dlarray":
            _use_runtime_functions(pkg)
            for path in COMPOSED_CLASSES:
                _use_runtime_members(pkg, path)
            # after the members: the operators come in whole (signature and docstring) from run time
            _add_array_operators(pkg)
        self._visit(pkg, pkg)

    def _visit(self, root: Any, obj: Any) -> None:
        if obj.docstring is None and obj.is_attribute:
            _comment_docstring(obj)
        if obj.docstring is not None:
            obj.docstring.value = _ROLE.sub(lambda m: self._replace(root, obj, m), obj.docstring.value)
        for member in obj.members.values():
            if not member.is_alias:
                self._visit(root, member)

    @staticmethod
    def _replace(root: Any, context: Any, match: re.Match[str]) -> str:
        short, name = match.group(1), match.group(2)
        text = name.rsplit(".", 1)[-1] if short else name
        target = _resolve(root, context, name)
        if target is not None and _rendered(target):
            return f"[`{text}`][{target.path}]"
        return f"`{text}`"
