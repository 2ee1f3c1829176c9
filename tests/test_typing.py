"""What a type checker sees of the namespace, the functions declared in a table included.

The element-wise functions that are one ufunc call, the fft transforms and shifts, and the
reductions that are one call of a shared helper (``sum``, ``max``, ``all``, ``argmax``, ...) are
declared by factories (``ceil = _unary("ceil", "ceil", REAL_VALUED)``) whose return types carry
the signature; a user's script is checked with mypy, in a child process, to see that it reads
them: the result type, a wrong number of arguments, an argument of the wrong kind.
"""

from __future__ import annotations

import ast
import inspect
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import needs
import pytest

import dlarray
import dlarray as xp
from dlarray import _elementwise_functions as ew
from dlarray import _searching_functions as searching
from dlarray import _statistical_functions as st

ROOT = Path(__file__).resolve().parent.parent

# A user's script: each line that ends in ``# E: <code>`` must give that error, and no other line
# an error; each ``reveal_type`` must reveal an Array.
USER_SCRIPT = """\
import dlarray as xp

x = xp.asarray([1.0, 2.0])
reveal_type(xp.ceil(x))
reveal_type(xp.add(x, 1))
reveal_type(xp.exp(x))
reveal_type(xp.floor_divide(x, 2))
xp.equal(x, True)
xp.ceil(x, x)  # E: call-arg
xp.add(x)  # E: call-arg
xp.logical_and(x, 1.5)  # E: arg-type
xp.bitwise_left_shift(x, 1.5)  # E: arg-type
xp.less(x, 1j)  # E: arg-type
reveal_type(xp.fft.fft(x, n=4, norm="ortho"))
reveal_type(xp.fft.rfftn(x, axes=(0,)))
reveal_type(xp.fft.fftshift(x, axes=0))
reveal_type(xp.sum(x, axis=0, keepdims=True))
reveal_type(xp.argmax(x))
xp.std(x, correction=1, keepdims=True)
xp.cumulative_sum(x, axis=(0, 1))  # E: arg-type
xp.max(x, 0)  # E: call-arg
xp.fft.fft(x, 4)  # E: call-arg
xp.fft.ifftn(x, norm="other")  # E: arg-type
reveal_type(x + 1)
reveal_type(2.5 ** x)
reveal_type(x @ x)
reveal_type(-x)
reveal_type(abs(x))
reveal_type(x < 1)
reveal_type(1 < x)
reveal_type(x == x)
x += 1
x -= x
reveal_type(x)
n: int = int(x)
f: float = float(x)
z: complex = complex(x)
x << 1.5  # E: operator
x @ 2  # E: operator
x & 1.0  # E: operator
reveal_type(pow(x, 2))
"""


def test_type_checker_reads_declared_functions(tmp_path: Path) -> None:
    """mypy on a user's script: results are Arrays (of functions and of the operators installed at
    import), the scalar conversions give Python scalars, wrong arity and wrong operand kinds are
    flagged."""
    needs.library("mypy")
    script = tmp_path / "user.py"
    script.write_text(USER_SCRIPT)
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--follow-imports=silent", "--cache-dir", str(tmp_path / "cache"),
         "--no-error-summary", "--hide-error-context", str(script)],
        capture_output=True, text=True, env=env, timeout=300,
    )
    lines = USER_SCRIPT.splitlines()
    expected_errors = {n: line.split("# E: ")[1] for n, line in enumerate(lines, 1) if "# E: " in line}
    reveals = {n for n, line in enumerate(lines, 1) if line.startswith("reveal_type(")}
    found_errors: dict[int, str] = {}
    found_reveals: dict[int, str] = {}
    for line in result.stdout.splitlines():
        match = re.match(r".*user\.py:(\d+): (error|note): (.*?)(?:  \[([\w-]+)\])?$", line)
        assert match, f"unexpected mypy output: {line}\n{result.stdout}{result.stderr}"
        number, kind, message, code = int(match[1]), match[2], match[3], match[4]
        if kind == "error":
            found_errors[number] = code
        elif message.startswith("Revealed type"):
            found_reveals[number] = message
    assert found_errors == expected_errors, result.stdout
    assert set(found_reveals) == reveals, result.stdout
    for number, message in found_reveals.items():
        assert message == 'Revealed type is "dlarray._array.Array"', f"line {number}: {message}"


def _pyright() -> str | None:
    """A pyright (basedpyright, or pyright) next to this Python or on PATH; None without one (it
    comes with ``make typing``, not with ``make test``: with its node it is some 280 MB)."""
    for name in ("basedpyright", "pyright"):
        beside = Path(sys.executable).parent / name
        if beside.exists():
            return str(beside)
        found = shutil.which(name)
        if found:
            return found
    return None


def test_pyright_reads_what_mypy_reads(tmp_path: Path) -> None:
    """pyright (what editors such as VS Code check with) on the same user's script: every reveal an
    Array and an error on exactly the lines mypy flags (the operators declared as methods, so that
    ``abs(x)`` and ``pow(x, 2)`` match the protocols of Python's builtins)."""
    pyright = _pyright()
    if pyright is None:
        pytest.skip("no pyright here: `make typing` installs basedpyright")
    script = tmp_path / "user.py"
    script.write_text(USER_SCRIPT)
    (tmp_path / "pyrightconfig.json").write_text(json.dumps({
        "extraPaths": [str(ROOT)], "pythonVersion": "3.11", "typeCheckingMode": "standard",
        "reportUnusedExpression": False,
    }))
    result = subprocess.run(
        [pyright, "--pythonpath", sys.executable, "--outputjson", str(script)],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )
    diagnostics = json.loads(result.stdout)["generalDiagnostics"]
    lines = USER_SCRIPT.splitlines()
    expected_errors = {n for n, line in enumerate(lines, 1) if "# E: " in line}
    reveals = {n for n, line in enumerate(lines, 1) if line.startswith("reveal_type(")}
    errors = {d["range"]["start"]["line"] + 1 for d in diagnostics if d["severity"] == "error"}
    revealed = {d["range"]["start"]["line"] + 1: d["message"] for d in diagnostics
                if d["severity"] == "information" and d["message"].startswith("Type of ")}
    assert errors == expected_errors, result.stdout
    assert set(revealed) == reveals, result.stdout
    for number, message in revealed.items():
        assert message.endswith(' is "Array"'), f"line {number}: {message}"


def test_category_types_agree() -> None:
    """Each dtype category's static type (what a type checker reads) names the Python scalars its
    run-time signatures show."""
    categories = {name: value for name, value in vars(ew).items() if isinstance(value, ew.Category)}
    assert categories
    for name, category in categories.items():
        assert ew.__annotations__[name] == f"Category[{category.scalars}]", name


def _declared_operators() -> dict[str, str]:
    """The operators the Array's class declares for type checkers (the ``def``s under ``if
    TYPE_CHECKING:`` in its body): each one's operand type, the aliases of ``_array`` written out
    (``_Numeric: TypeAlias = "Array | int | float | complex"``), "" for the unary ones."""
    source = ast.parse((ROOT / "dlarray" / "_array.py").read_text())
    aliases = {
        node.target.id: node.value.value
        for node in source.body
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and isinstance(node.value, ast.Constant)
    }
    array = next(node for node in source.body if isinstance(node, ast.ClassDef) and node.name == "Array")
    declared = {}
    for node in array.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for function in node.body:
                assert isinstance(function, ast.FunctionDef)
                arguments = function.args.posonlyargs
                operand = ast.unparse(arguments[1].annotation) if len(arguments) > 1 else ""  # type: ignore[arg-type]
                declared[function.name] = aliases.get(operand, operand)
    return declared


def test_declared_operator_types_agree() -> None:
    """Every operator installed on the Array at import is declared in the class for type checkers
    (a method under ``if TYPE_CHECKING:``, which makes no attribute), with the operand the installed
    method takes; at run time the installed method is what the class has."""
    from dlarray._operators import NAMES

    declared = _declared_operators()
    assert set(declared) == set(NAMES)
    for name in NAMES:
        installed = getattr(xp.Array, name)
        assert declared[name] == installed.__annotations__.get("other", ""), name
        assert installed.__module__ == "dlarray._operators", name


# the functions declared in a table beside the element-wise ones, by the Protocol their factory
# returns (a type checker reads the Protocol, a user calls the function)
DECLARED = {
    dlarray.fft._OneDimensional: ("fft.fft", "fft.ifft", "fft.rfft", "fft.irfft", "fft.hfft", "fft.ihfft"),
    dlarray.fft._NDimensional: ("fft.fftn", "fft.ifftn", "fft.rfftn", "fft.irfftn"),
    dlarray.fft._Shift: ("fft.fftshift", "fft.ifftshift"),
    st.Reduction: ("max", "min", "all", "any"),
    st._Accumulation: ("sum", "prod"),
    st._Spread: ("var", "std"),
    st._Cumulative: ("cumulative_sum", "cumulative_prod"),
    searching._ArgExtremum: ("argmax", "argmin"),
}


def _public(name: str) -> Any:
    owner: Any = dlarray
    for part in name.split("."):
        owner = getattr(owner, part)
    return owner


def test_declared_signatures_agree() -> None:
    """Each function declared in a table has at run time the signature its factory's Protocol
    gives a type checker (parameters, kinds, defaults, annotations)."""
    for protocol, names in DECLARED.items():
        static = inspect.signature(protocol.__call__)
        static = static.replace(parameters=list(static.parameters.values())[1:])  # without self
        for name in names:
            assert str(inspect.signature(_public(name))) == str(static), name


def test_declared_functions_are_functions() -> None:
    """A declared function is a plain function named as it is exported (its tracebacks too), takes
    its array positionally, and pickles by reference like a written-out one."""
    declared = [getattr(xp, name) for name in ew.UFUNCS]
    declared += [_public(name) for names in DECLARED.values() for name in names]
    for function in declared:
        name = function.__name__
        assert inspect.isfunction(function), name
        assert (function.__name__, function.__qualname__, function.__code__.co_name) == (name, name, name)
        assert getattr(sys.modules[function.__module__], name) is function
        first = next(iter(inspect.signature(function).parameters.values()))
        assert first.kind is inspect.Parameter.POSITIONAL_ONLY, name
        assert pickle.loads(pickle.dumps(function)) is function
