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
import os
import pickle
import re
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

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
x << 1.5  # E: arg-type
x @ 2  # E: arg-type
x & 1.0  # E: arg-type
"""


def test_type_checker_reads_declared_functions(tmp_path: Path) -> None:
    """mypy on a user's script: results are Arrays (of functions and of the operators installed at
    import), the scalar conversions give Python scalars, wrong arity and wrong operand kinds are
    flagged."""
    pytest.importorskip("mypy")
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


def test_category_types_agree() -> None:
    """Each dtype category's static type (what a type checker reads) names the Python scalars its
    run-time signatures show."""
    categories = {name: value for name, value in vars(ew).items() if isinstance(value, ew.Category)}
    assert categories
    for name, category in categories.items():
        assert ew.__annotations__[name] == f"Category[{category.scalars}]", name


def _operator_types() -> dict[str, str]:
    """The operand type of each operator type the Array's module declares for type checkers
    (``_Numeric = Callable[["Array", "Array | int | float | complex"], "Array"]``: its operand),
    "" for the unary ones."""
    source = ast.parse((ROOT / "dlarray" / "_array.py").read_text())
    operands = {}
    for node in ast.walk(source):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript):
            value = node.value
            if isinstance(value.value, ast.Name) and value.value.id == "Callable":
                arguments = value.slice.elts[0].elts  # type: ignore[attr-defined]
                operands[node.targets[0].id] = arguments[1].value if len(arguments) > 1 else ""  # type: ignore[attr-defined]
    return operands


def test_declared_operator_types_agree() -> None:
    """Every operator installed on the Array at import is declared on the class for type checkers
    (an annotation ``ClassVar[<type>]``), with the operand the installed method takes."""
    from dlarray._operators import NAMES

    operands = _operator_types()
    declared = {name: hint for name, hint in xp.Array.__annotations__.items() if name in NAMES}
    assert set(declared) == set(NAMES)
    # the declarations resolve at run time too (documentation tools and run-time checkers read them)
    hints = typing.get_type_hints(xp.Array)
    assert all(typing.get_origin(hints[name]) is typing.ClassVar for name in NAMES)
    for name in NAMES:
        kind = re.fullmatch(r"ClassVar\[(\w+)\]", declared[name])
        assert kind, f"{name}: {declared[name]}"
        assert operands[kind[1]] == getattr(xp.Array, name).__annotations__.get("other", ""), name


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
