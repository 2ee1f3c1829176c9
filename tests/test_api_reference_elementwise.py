"""The API reference of the element-wise functions: every one documents each parameter with its
type, its return, its errors and an example, links the 2025.12 standard, and its examples print
exactly what the docstring says (run here as doctests)."""

from __future__ import annotations

import doctest
import inspect
import re
from collections.abc import Callable

import pytest

import dlarray._elementwise_functions as ew

FUNCTIONS = {name: getattr(ew, name) for name in ew.__all__}
SPEC_PAGE = "https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.{}.html"


def sections(doc: str) -> dict[str, str]:
    """A numpy docstring's sections by title (the text before the first one under "")."""
    parts = re.split(r"^([A-Z][a-z]+)\n-+\n", inspect.cleandoc(doc), flags=re.M)
    found = {"": parts[0]}
    for title, body in zip(parts[1::2], parts[2::2]):
        found[title] = body
    return found


def documented_parameters(section: str) -> dict[str, str]:
    """``name : type`` lines of a Parameters section."""
    return dict(re.findall(r"^(\w+) : (.+)$", section, flags=re.M))


def run_examples(obj: Callable[..., object], name: str) -> None:
    tests = doctest.DocTestFinder(recurse=False).find(obj, name, globs={})
    assert tests and tests[0].examples, f"{name} has no example"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        runner.run(test)
    assert runner.failures == 0, f"{name}: {runner.failures} example(s) print something else"


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_function_is_documented(name: str) -> None:
    function = FUNCTIONS[name]
    found = sections(function.__doc__ or "")
    for title in ("Parameters", "Returns", "Raises", "Examples"):
        assert title in found, f"{name} has no {title} section"
    signature = inspect.signature(function)
    parameters = documented_parameters(found["Parameters"])
    assert list(parameters) == list(signature.parameters), f"{name}: documented parameters differ"
    for parameter in signature.parameters.values():
        annotation = parameter.annotation
        assert "Any" not in annotation, f"{name}({parameter.name}) is typed Any"
        assert parameters[parameter.name] == annotation, f"{name}({parameter.name}): type differs from the hint"
    assert signature.return_annotation == "Array"
    assert SPEC_PAGE.format(name) in found[""], f"{name} does not link its 2025.12 spec page"


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_function_examples_run(name: str) -> None:
    run_examples(FUNCTIONS[name], name)
