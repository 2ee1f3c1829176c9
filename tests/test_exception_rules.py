"""Which exception a refusal raises: the package's one rule (docs/safety.md, "Which error, when").

- BufferError: this buffer cannot be imported or exported as asked (a malformed or unsupported
  capsule or interface, a copy that ``copy=False`` forbids on a DLPack path, a device the data
  cannot be handed to).
- TypeError: an argument of the wrong kind (including an array whose dtype or device no backend
  computes with: ``BackendUnavailable`` is a TypeError).
- ValueError: an argument of the right kind with a bad value (numpy's ``AxisError`` and
  ``LinAlgError`` are ValueErrors).
- Where Python or the Array API standard name another class, that one: IndexError for an index
  out of range, OverflowError for a Python integer that does not fit the dtype.

The static test reads every ``raise`` in the package; the fuzz tests call every public function,
operator and DLPack method with arguments of every kind and check that nothing else escapes.
"""

from __future__ import annotations

import ast
import copy
import importlib
import operator
import pathlib
import pickle
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dlarray as xp
from tests.producer import make_capsule

PACKAGE = pathlib.Path(xp.__file__).parent
RULE = (BufferError, TypeError, ValueError)
# MemoryError: what memory exhaustion is, also where ctypes reports it as an ArgumentError
NAMED_BY_PYTHON_OR_STANDARD = (IndexError, OverflowError, MemoryError)
ALLOWED = RULE + NAMED_BY_PYTHON_OR_STANDARD

# The only other exceptions the package raises, each for a protocol that requires that class.
PROTOCOL_EXCEPTIONS = {
    # hasattr(x, "__cuda_array_interface__") must be False off CUDA: the attribute protocol
    AttributeError: {"_array.py"},
    # the conformance kit is asked for a library (or a consumer, by name) that cannot be imported
    ImportError: {"_cli.py", "_consumer_checks.py"},
    # ``report[name]`` of the conformance kit's Report: the mapping protocol
    KeyError: {"_report.py"},
    # the operating system (mmap/mprotect) or the CUDA runtime refused a resource the conformance
    # kit needs for its own test capsules or streams: not a refusal of anything a user passed
    OSError: {"_capsules.py", "_producer_checks.py"},
    # the command line ends with an exit status
    SystemExit: {"__main__.py", "_cli.py"},
}


def _raised_classes() -> list[tuple[str, int, type | None]]:
    """(file, line, class) of every ``raise X(...)`` / ``raise X`` in the package.

    The class is resolved in the namespace of its (imported) module; a re-raise of a caught
    exception (``raise exc``) is skipped, ``None`` stands for a name that cannot be resolved.
    """
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = ("dlarray",) + path.relative_to(PACKAGE).with_suffix("").parts
        module = importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Raise) or node.exc is None:
                continue
            expression = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            last = expression.attr if isinstance(expression, ast.Attribute) else getattr(expression, "id", "")
            if not isinstance(node.exc, ast.Call) and last[:1].islower():
                continue  # re-raising a caught or stored exception (``raise exc``, ``raise self.raises``)
            try:
                value = eval(compile(ast.Expression(expression), str(path), "eval"), vars(module))  # noqa: S307
            except (NameError, AttributeError):
                value = None
            found.append((str(path.relative_to(PACKAGE)), node.lineno, value))
    return found


def test_every_raise_in_the_package_follows_the_rule() -> None:
    unknown = []
    broken = []
    for where, line, raised in _raised_classes():
        if raised is None or not isinstance(raised, type):
            unknown.append(f"{where}:{line}")
            continue
        if issubclass(raised, ALLOWED):
            continue
        allowed_in = next((files for kind, files in PROTOCOL_EXCEPTIONS.items() if issubclass(raised, kind)), None)
        if allowed_in is None or pathlib.Path(where).name not in allowed_in:
            broken.append(f"{where}:{line} raises {raised.__name__}")
    assert not broken, "refusals outside the rule (docs/safety.md, 'Which error, when'):\n" + "\n".join(broken)
    assert not unknown, "raise statements whose class could not be resolved:\n" + "\n".join(unknown)


# ------------------------------------------------------------------ one refusal of each kind
def _capsule(**fields: Any) -> Any:
    return make_capsule(**fields).capsule


REFUSALS = [
    # (what, call, expected class)
    ("a capsule used twice", lambda: [xp.from_dlpack(c) for c in [_capsule()] * 2], BufferError),
    ("a capsule with an unknown dtype code", lambda: xp.from_dlpack(_capsule(code=99)), BufferError),
    ("a capsule with a negative extent", lambda: xp.from_dlpack(_capsule(shape=(-1,))), BufferError),
    ("from_dlpack of something without __dlpack__", lambda: xp.from_dlpack(object()), TypeError),
    ("from_dlpack(copy=False) that needs a move", lambda: xp.from_dlpack(xp.ones(2), device="cuda:0", copy=False),
     BufferError),
    ("a legacy export of a read-only array", lambda: xp.asarray(b"ab").__dlpack__(), BufferError),
    ("__dlpack__ with a stream on the CPU", lambda: xp.ones(2).__dlpack__(stream=1), BufferError),
    ("asarray(copy=False) that needs a copy (the standard: ValueError)",
     lambda: xp.asarray([1, 2], copy=False), ValueError),
    ("asarray of an unsupported object", lambda: xp.asarray(object()), TypeError),
    ("an unknown dtype name", lambda: xp.zeros(2, dtype="float128"), TypeError),
    ("an unknown device name", lambda: xp.zeros(2, device="gpu:0"), ValueError),
    ("a negative shape", lambda: xp.zeros((-1,)), ValueError),
    ("an axis out of range", lambda: xp.sum(xp.ones((2, 2)), axis=2), ValueError),
    ("an index out of range (the standard: IndexError)", lambda: xp.ones(3)[5], IndexError),
    ("writing a read-only array", lambda: xp.asarray(b"ab").__setitem__(0, 1), ValueError),
    ("a Python int that does not fit", lambda: xp.asarray(2**70, dtype=xp.int64), OverflowError),
    ("computing with a dtype numpy lacks", lambda: xp.sin(xp.asarray([1.0], dtype=xp.bfloat16)), TypeError),
    ("mismatched shapes", lambda: xp.ones(2) + xp.ones(3), ValueError),
]


@pytest.mark.parametrize("what, call, expected", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_each_kind_of_refusal_raises_its_class(what: str, call: Any, expected: type) -> None:
    with pytest.raises(expected) as caught:
        call()
    assert str(caught.value), f"{what}: the error says nothing"


# ------------------------------------------------------------------ fuzz: nothing else escapes
def _junk() -> list[Any]:
    """Arguments of every kind (fresh arrays each time: in-place operators may write them)."""
    return [
        None, True, 0, 1, -1, 3, 2**70, -(2**70), 1.5, float("nan"), float("inf"), 1j, "x", "cpu", "cuda:0", b"ab",
        [1, 2], [[1, 2], [3, 4]], (3, 2), (), (0,), {}, object(), slice(None), Ellipsis,
        xp.float32, xp.bfloat16, xp.int8, xp.asarray([1.0, 2.0, 3.0]), xp.asarray([[1, 2], [3, 4]]),
        xp.asarray(True), xp.asarray([1, -2], dtype=xp.int8), xp.asarray([1 + 2j]), xp.zeros((0, 3)),
        xp.asarray([1.0, 2.0], dtype=xp.bfloat16), np.arange(3.0), np.float64(2), xp.asarray(3),
        xp.asarray([[1.0, 2.0], [3.0, 4.0]]), xp.asarray(b"abc"),
    ]


JUNK_COUNT = len(_junk())
ARRAY_INDICES = [i for i, value in enumerate(_junk()) if isinstance(value, xp.Array)]
KEYWORDS = ["axis", "dtype", "device", "copy", "keepdims", "k", "n", "ord", "stable", "descending", "correction",
            "upper", "rtol", "norm", "shape", "s", "axes", "offset", "endpoint", "fill_value", "num", "side",
            "indexing", "return_counts", "api_version", "stream", "max_version", "dl_device"]


def _public_functions() -> list[tuple[str, Any]]:
    functions = []
    for namespace, prefix in ((xp, ""), (xp.linalg, "linalg."), (xp.fft, "fft.")):
        for name in sorted(dir(namespace)):
            value = getattr(namespace, name)
            if name.startswith("_") or isinstance(value, (type, xp.DType)) or not callable(value):
                continue
            if getattr(value, "__module__", "").startswith("dlarray"):
                functions.append((prefix + name, value))
    return functions


FUNCTIONS = _public_functions()


def _call_allowing_the_rule(call: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            call()
        except ALLOWED:
            pass


@settings(max_examples=600)
@given(
    function=st.sampled_from(FUNCTIONS),
    positional=st.lists(st.integers(0, JUNK_COUNT - 1), max_size=3),
    keywords=st.dictionaries(st.sampled_from(KEYWORDS), st.integers(0, JUNK_COUNT - 1), max_size=2),
)
def test_public_functions_refuse_any_argument_by_the_rule(
    function: tuple[str, Any], positional: list[int], keywords: dict[str, int]
) -> None:
    junk = _junk()
    _name, call = function
    _call_allowing_the_rule(lambda: call(*(junk[i] for i in positional), **{k: junk[i] for k, i in keywords.items()}))


BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod, operator.pow,
          operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift, operator.lt, operator.le,
          operator.eq, operator.ne, operator.gt, operator.ge, operator.matmul, operator.iadd, operator.isub,
          operator.imul, operator.itruediv, operator.ifloordiv, operator.imod, operator.ipow, operator.iand,
          operator.ior, operator.ixor, operator.ilshift, operator.irshift, operator.imatmul,
          operator.getitem, lambda a, b: a.__setitem__(b, 1), lambda a, b: a.__setitem__(slice(None), b),
          lambda a, b: a.to_device(b), lambda a, b: xp.astype(a, b),
          lambda a, b: a.__array_namespace__(api_version=b)]
UNARY = [operator.neg, operator.pos, abs, operator.invert, bool, int, float, complex, operator.index, len, repr, str,
         list, hash, np.asarray, copy.copy, copy.deepcopy, lambda a: pickle.loads(pickle.dumps(a)),
         lambda a: a.T, lambda a: a.mT, lambda a: a.strides, lambda a: a.data_ptr, lambda a: format(a, ".2f"), round]


@settings(max_examples=400)
@given(
    array=st.sampled_from(ARRAY_INDICES),
    other=st.integers(0, JUNK_COUNT - 1),
    binary=st.sampled_from(BINARY),
    unary=st.sampled_from(UNARY),
    reflected=st.booleans(),
)
def test_operators_and_methods_refuse_any_operand_by_the_rule(
    array: int, other: int, binary: Any, unary: Any, reflected: bool
) -> None:
    junk = _junk()
    a, b = junk[array], junk[other]
    _call_allowing_the_rule(lambda: binary(b, a) if reflected and binary in BINARY[:32] else binary(a, b))
    _call_allowing_the_rule(lambda: unary(a))


@settings(max_examples=300)
@given(
    array=st.sampled_from(ARRAY_INDICES),
    options=st.dictionaries(st.sampled_from(["stream", "max_version", "dl_device", "copy"]),
                            st.integers(0, JUNK_COUNT - 1), max_size=4),
    import_options=st.dictionaries(st.sampled_from(["device", "copy"]), st.integers(0, JUNK_COUNT - 1), max_size=2),
)
def test_dlpack_methods_refuse_any_option_by_the_rule(
    array: int, options: dict[str, int], import_options: dict[str, int]
) -> None:
    junk = _junk()
    a = junk[array]
    # a made-up stream must never reach a CUDA driver: these arrays are all on the CPU
    assert a.device == xp.Device("cpu")
    _call_allowing_the_rule(lambda: a.__dlpack__(**{k: junk[i] for k, i in options.items()}))
    _call_allowing_the_rule(lambda: xp.from_dlpack(a, **{k: junk[i] for k, i in import_options.items()}))
    _call_allowing_the_rule(lambda: xp.asarray(a, **{k: junk[i] for k, i in import_options.items()}))


_VECTOR = xp.asarray([1.0, 2.0])
def test_axis_errors_are_worded_as_numpys() -> None:
    for call in (lambda: xp.sum(_VECTOR, axis=1), lambda: xp.fft.fft(_VECTOR, axis=1),
                 lambda: xp.flip(_VECTOR, axis=1), lambda: xp.tensordot(_VECTOR, _VECTOR, axes=([1], [0]))):
        with pytest.raises(ValueError, match="axis 1 is out of bounds for array of dimension 1"):
            call()
    with pytest.raises(ValueError, match="^source: axis 10 is out of bounds for array of dimension 1$"):
        xp.moveaxis(_VECTOR, 10, -1)  # numpy names the argument
    with pytest.raises(ValueError, match="^destination: axis 10 is out of bounds"):
        xp.moveaxis(_VECTOR, 0, 10)


def test_functions_refuse_non_arrays() -> None:
    for function in (xp.sum, xp.max, xp.mean, xp.argmax, xp.sort, xp.unique_values, xp.all, xp.nonzero):
        with pytest.raises(TypeError):
            function([1, 2, 3])
