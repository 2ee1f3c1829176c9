"""Docstrings of the Array's operators, which ``dlarray._operators`` generates from its table.

Each is composed from the record of the operator's element-wise function
(``dlarray._elementwise_docs``): its summary and return with the function's ``x1``/``x2`` (``x``)
spelled ``self``/``other``, its errors, the operand types of its signature, a link to the 2025.12
standard, and the operator's own example below (the examples are run as doctests by
``tests/test_api_reference.py``, so what they print is checked).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from ._docs import SPEC, standard_link, standard_page
from ._elementwise_docs import DOCS, errors

_Method = TypeVar("_Method", bound=Callable[..., object])

_IN_PLACE_PAGE = SPEC + "API_specification/array_object.html#in-place-operators"
_REFLECTED_PAGE = SPEC + "API_specification/array_object.html#reflected-operators"

# How Python spells each operator of the table (``abs`` is a call: ``abs(self)``).
SPELLING = {
    "add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%", "pow": "**",
    "and": "&", "or": "|", "xor": "^", "lshift": "<<", "rshift": ">>", "matmul": "@",
    "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!=",
    "neg": "-", "pos": "+", "invert": "~",
}

_OPERAND = (
    "An Array or a Python scalar (weakly typed: it takes the Array's dtype); a numpy array or a "
    "(nested) list, tuple or range of numbers is converted as ``asarray`` converts it, on "
    "``self``'s device."
)
_TYPE_ERROR = (
    "``other`` is none of these (another array library's object gives ``NotImplemented``, so that "
    "Python tries its reflected method), or a dtype ``{function}`` does not compute."
)
_IN_PLACE_ERRORS = {
    "TypeError": "A result of another kind than ``self``'s dtype (``int8_array {symbol}= 1.5``): the "
                 "dtype does not change.",
    "ValueError": "``self`` is read-only, or the result's broadcast shape is not ``self``'s.",
}

# The example of each operator: the lines of a doctest session after ``>>> import dlarray as xp``.
EXAMPLES: dict[str, tuple[str, ...]] = {
    '__add__': (
        '>>> xp.asarray([1, 2, 3]) + 2',
        'Array([3, 4, 5], dtype=int64, device=cpu)',
    ),
    '__radd__': (
        '>>> 2 + xp.asarray([1, 2, 3])',
        'Array([3, 4, 5], dtype=int64, device=cpu)',
    ),
    '__iadd__': (
        '>>> x = xp.asarray([1.0, 2.0])',
        '>>> x += 1',
        '>>> x',
        'Array([2., 3.], dtype=float64, device=cpu)',
    ),
    '__sub__': (
        '>>> xp.asarray([5, 7]) - 2',
        'Array([3, 5], dtype=int64, device=cpu)',
    ),
    '__rsub__': (
        '>>> 10 - xp.asarray([1, 2])',
        'Array([9, 8], dtype=int64, device=cpu)',
    ),
    '__isub__': (
        '>>> x = xp.asarray([1.0, 2.0])',
        '>>> x -= 0.5',
        '>>> x',
        'Array([0.5, 1.5], dtype=float64, device=cpu)',
    ),
    '__mul__': (
        '>>> xp.asarray([1.5, -2.0]) * 2',
        'Array([ 3., -4.], dtype=float64, device=cpu)',
    ),
    '__rmul__': (
        '>>> 2 * xp.asarray([1.5, -2.0])',
        'Array([ 3., -4.], dtype=float64, device=cpu)',
    ),
    '__imul__': (
        '>>> x = xp.asarray([1, 2])',
        '>>> x *= 3',
        '>>> x',
        'Array([3, 6], dtype=int64, device=cpu)',
    ),
    '__truediv__': (
        '>>> xp.asarray([1, 2, 3]) / 2',
        'Array([0.5, 1. , 1.5], dtype=float64, device=cpu)',
    ),
    '__rtruediv__': (
        '>>> 1 / xp.asarray([2.0, 4.0])',
        'Array([0.5 , 0.25], dtype=float64, device=cpu)',
    ),
    '__itruediv__': (
        '>>> x = xp.asarray([1.0, 3.0])',
        '>>> x /= 2',
        '>>> x',
        'Array([0.5, 1.5], dtype=float64, device=cpu)',
    ),
    '__floordiv__': (
        '>>> xp.asarray([7, -7]) // 2',
        'Array([ 3, -4], dtype=int64, device=cpu)',
    ),
    '__rfloordiv__': (
        '>>> 7 // xp.asarray([2, -2])',
        'Array([ 3, -4], dtype=int64, device=cpu)',
    ),
    '__ifloordiv__': (
        '>>> x = xp.asarray([7, -7])',
        '>>> x //= 2',
        '>>> x',
        'Array([ 3, -4], dtype=int64, device=cpu)',
    ),
    '__mod__': (
        '>>> xp.asarray([7, -7]) % 3',
        'Array([1, 2], dtype=int64, device=cpu)',
    ),
    '__rmod__': (
        '>>> 7 % xp.asarray([3, -3])',
        'Array([ 1, -2], dtype=int64, device=cpu)',
    ),
    '__imod__': (
        '>>> x = xp.asarray([7, 9])',
        '>>> x %= 4',
        '>>> x',
        'Array([3, 1], dtype=int64, device=cpu)',
    ),
    '__pow__': (
        '>>> xp.asarray([1, 2, 3]) ** 2',
        'Array([1, 4, 9], dtype=int64, device=cpu)',
    ),
    '__rpow__': (
        '>>> 2 ** xp.asarray([0, 1, 2])',
        'Array([1, 2, 4], dtype=int64, device=cpu)',
    ),
    '__ipow__': (
        '>>> x = xp.asarray([1.5, 3.0])',
        '>>> x **= 2',
        '>>> x',
        'Array([2.25, 9.  ], dtype=float64, device=cpu)',
    ),
    '__and__': (
        '>>> xp.asarray([12, 10]) & 6',
        'Array([4, 2], dtype=int64, device=cpu)',
    ),
    '__rand__': (
        '>>> 6 & xp.asarray([12, 10])',
        'Array([4, 2], dtype=int64, device=cpu)',
    ),
    '__iand__': (
        '>>> x = xp.asarray([True, True])',
        '>>> x &= xp.asarray([True, False])',
        '>>> x',
        'Array([ True, False], dtype=bool, device=cpu)',
    ),
    '__or__': (
        '>>> xp.asarray([12, 10]) | 1',
        'Array([13, 11], dtype=int64, device=cpu)',
    ),
    '__ror__': (
        '>>> 1 | xp.asarray([12, 10])',
        'Array([13, 11], dtype=int64, device=cpu)',
    ),
    '__ior__': (
        '>>> x = xp.asarray([12, 10])',
        '>>> x |= 1',
        '>>> x',
        'Array([13, 11], dtype=int64, device=cpu)',
    ),
    '__xor__': (
        '>>> xp.asarray([True, False]) ^ True',
        'Array([False,  True], dtype=bool, device=cpu)',
    ),
    '__rxor__': (
        '>>> 5 ^ xp.asarray([1, 4])',
        'Array([4, 1], dtype=int64, device=cpu)',
    ),
    '__ixor__': (
        '>>> x = xp.asarray([1, 4])',
        '>>> x ^= 3',
        '>>> x',
        'Array([2, 7], dtype=int64, device=cpu)',
    ),
    '__lshift__': (
        '>>> xp.asarray([1, 3]) << 2',
        'Array([ 4, 12], dtype=int64, device=cpu)',
    ),
    '__rlshift__': (
        '>>> 1 << xp.asarray([0, 4])',
        'Array([ 1, 16], dtype=int64, device=cpu)',
    ),
    '__ilshift__': (
        '>>> x = xp.asarray([1, 3])',
        '>>> x <<= 1',
        '>>> x',
        'Array([2, 6], dtype=int64, device=cpu)',
    ),
    '__rshift__': (
        '>>> xp.asarray([16, -8]) >> 1',
        'Array([ 8, -4], dtype=int64, device=cpu)',
    ),
    '__rrshift__': (
        '>>> 256 >> xp.asarray([4, 8])',
        'Array([16,  1], dtype=int64, device=cpu)',
    ),
    '__irshift__': (
        '>>> x = xp.asarray([16, 64])',
        '>>> x >>= 2',
        '>>> x',
        'Array([ 4, 16], dtype=int64, device=cpu)',
    ),
    '__lt__': (
        '>>> xp.asarray([1, 2, 3]) < 2',
        'Array([ True, False, False], dtype=bool, device=cpu)',
    ),
    '__le__': (
        '>>> xp.asarray([1, 2, 3]) <= 2',
        'Array([ True,  True, False], dtype=bool, device=cpu)',
    ),
    '__gt__': (
        '>>> xp.asarray([1.0, xp.nan, 3.0]) > 2',
        'Array([False, False,  True], dtype=bool, device=cpu)',
    ),
    '__ge__': (
        '>>> xp.asarray([1, 2, 3]) >= 2',
        'Array([False,  True,  True], dtype=bool, device=cpu)',
    ),
    '__eq__': (
        '>>> xp.asarray([1, 2, 3]) == [1, 0, 3]',
        'Array([ True, False,  True], dtype=bool, device=cpu)',
    ),
    '__ne__': (
        '>>> xp.asarray([1.0, xp.nan]) != xp.asarray([1.0, xp.nan])',
        'Array([False,  True], dtype=bool, device=cpu)',
    ),
    '__neg__': (
        '>>> -xp.asarray([1, -2])',
        'Array([-1,  2], dtype=int64, device=cpu)',
    ),
    '__pos__': (
        '>>> +xp.asarray([1.5, -2.0])',
        'Array([ 1.5, -2. ], dtype=float64, device=cpu)',
    ),
    '__abs__': (
        '>>> abs(xp.asarray([-1.5, 2.0]))',
        'Array([1.5, 2. ], dtype=float64, device=cpu)',
    ),
    '__invert__': (
        '>>> ~xp.asarray([0, 5], dtype=xp.uint8)',
        'Array([255, 250], dtype=uint8, device=cpu)',
    ),
    '__matmul__': (
        '>>> xp.asarray([[1, 2], [3, 4]]) @ xp.asarray([1, 1])',
        'Array([3, 7], dtype=int64, device=cpu)',
    ),
    '__rmatmul__': (
        '>>> xp.asarray([1, 1]).__rmatmul__(xp.asarray([[1, 2], [3, 4]]))',
        'Array([3, 7], dtype=int64, device=cpu)',
    ),
    '__imatmul__': (
        '>>> x = xp.asarray([[1.0, 2.0], [3.0, 4.0]])',
        '>>> x @= xp.asarray([[0.0, 1.0], [1.0, 0.0]])',
        '>>> x',
        'Array([[2., 1.],',
        '       [4., 3.]], dtype=float64, device=cpu)',
    ),
}


_CODE_SPAN = re.compile(r"``(.+?)``")
_PARAMETER = re.compile(r"\b(x1|x2|x)\b")


def _spelled(text: str, names: dict[str, str]) -> str:
    """``text`` with the function's parameter names inside ````code```` spans replaced
    (``x1 + x2`` becomes ``self + other``)."""
    def spell(span: re.Match[str]) -> str:
        return "``" + _PARAMETER.sub(lambda n: names.get(n.group(1), n.group(1)), span.group(1)) + "``"

    return _CODE_SPAN.sub(spell, text)


def _render(
    summary: str, body: str, other: str | None, returns: str, raises: dict[str, str], dunder: str
) -> str:
    lines = [summary, "", body, ""]
    if other is not None:
        lines += ["Parameters", "----------", f"other : {other}", f"    {_OPERAND}", ""]
    lines += ["Returns", "-------", "Array", f"    {returns}", "", "Raises", "------"]
    for exception, text in raises.items():
        lines += [exception, f"    {text}"]
    lines += ["", "Examples", "--------", ">>> import dlarray as xp", *EXAMPLES[dunder]]
    return "\n".join(lines)


def document(method: _Method, symbol: str, function: Callable[..., object], form: str) -> _Method:
    """Give the operator ``method`` (``__{symbol}__`` in ``form``: "forward", "reflected",
    "in-place" or "unary") its docstring and the operand types of ``function``'s signature."""
    name = function.__name__
    doc = DOCS[name]
    spelling = SPELLING.get(symbol, symbol)  # abs: a call, abs(self)
    if form == "unary":
        dunder = f"__{symbol}__"
        expression = "abs(self)" if symbol == "abs" else f"{spelling}self"
        method.__annotations__ = {"return": "Array"}
        method.__doc__ = _render(
            _spelled(doc.summary, {"x": "self"}),
            f"The operator form of :func:`~dlarray.{name}`: ``{expression}`` is ``{name}(self)``.\n\n"
            + standard_link(f"array.{dunder}"),
            None,
            _spelled(doc.returns, {"x": "self"}),
            {"TypeError": f"``self``'s dtype is one ``{name}`` does not compute (stored-only dtypes such as "
                          f"bfloat16 included)."},
            dunder,
        )
        return method
    hints = function.__annotations__  # strings (postponed annotations): cheaper than inspect.signature
    left, right = ("other", "self") if form == "reflected" else ("self", "other")
    names = {"x1": left, "x2": right}
    raises = errors(doc, unary=False)
    raises["TypeError"] = _TYPE_ERROR.format(function=name)
    returns = _spelled(doc.returns, names)
    summary = _spelled(doc.summary, names)
    if form == "forward":
        dunder = f"__{symbol}__"
        body = (f"The operator form of :func:`~dlarray.{name}`: ``self {spelling} other`` is "
                f"``{name}(self, other)``.")
        if name in ("less", "less_equal", "greater", "greater_equal", "equal", "not_equal"):
            body += (" Comparisons have no reflected form: Python answers ``2 < x`` with "
                     "``x.__gt__(2)``.")
        page = f"[`{dunder}`]({standard_page(f'array.{dunder}')})"
    elif form == "reflected":
        dunder = f"__r{symbol}__"
        body = (f"Python calls it for ``other {spelling} self`` when ``other`` (a Python scalar, a numpy "
                f"array, a list) leaves the operation to ``self``: ``{name}(other, self)``, see "
                f":func:`~dlarray.{name}`.")
        page = f"[reflected operators]({_REFLECTED_PAGE})"
    else:
        dunder = f"__i{symbol}__"
        summary = f"In place: ``self {spelling}= other`` writes ``{name}(self, other)`` into ``self``."
        body = (f"Computed straight into ``self``'s memory where :func:`~dlarray.{name}` is one backend "
                "call, otherwise computed and copied back. A wider result of the same kind is cast back "
                "to ``self``'s dtype, as the standard allows.")
        returns = "``self``, with its dtype and shape unchanged."
        raises["TypeError"] = f"{raises['TypeError']} {_IN_PLACE_ERRORS['TypeError'].format(symbol=spelling)}"
        raises["ValueError"] = f"{raises['ValueError']} {_IN_PLACE_ERRORS['ValueError']}"
        page = f"[in-place operators]({_IN_PLACE_PAGE})"
    method.__annotations__ = {"other": hints["x2" if form != "reflected" else "x1"], "return": "Array"}
    method.__doc__ = _render(summary, f"{body}\n\nStandard: {page}.", method.__annotations__["other"],
                             returns, raises, dunder)
    return method


_MATMUL_RAISES = {
    "TypeError": "A dtype ``matmul`` does not compute (stored-only dtypes such as bfloat16 included).",
    "ValueError": "Arrays on different devices, a 0-d operand, or inner dimensions that differ.",
}


def document_matmul(method: _Method, form: str) -> _Method:
    """The docstring of ``__matmul__``, ``__rmatmul__`` or ``__imatmul__`` (``form`` as for
    :func:`document`): ``@`` takes Arrays only, so its operand is documented here."""
    operand = ("An Array on ``self``'s device; anything else gives ``NotImplemented`` (Python then "
               "raises TypeError).")
    raises = dict(_MATMUL_RAISES)
    if form == "forward":
        dunder = "__matmul__"
        summary = "Matrix product ``self @ other``: :func:`~dlarray.matmul` of ``self`` and ``other``."
        page = f"[`__matmul__`]({standard_page('array.__matmul__')})"
        returns = "The product, in the promoted dtype; 1-D operands count as vectors."
    elif form == "reflected":
        dunder = "__rmatmul__"
        summary = "Matrix product ``other @ self``: :func:`~dlarray.matmul` of ``other`` and ``self``."
        page = f"[reflected operators]({_REFLECTED_PAGE})"
        returns = "The product, in the promoted dtype; 1-D operands count as vectors."
    else:
        dunder = "__imatmul__"
        summary = "In place: ``self @= other`` writes ``matmul(self, other)`` into ``self``."
        page = f"[in-place operators]({_IN_PLACE_PAGE})"
        returns = "``self``, with its dtype and shape unchanged."
        raises["TypeError"] += " A product of another kind than ``self``'s dtype: the dtype does not change."
        raises["ValueError"] += " ``self`` is read-only, or the product's shape is not ``self``'s."
    method.__annotations__ = {"other": "Array", "return": "Array"}
    text = _render(summary, f"Standard: {page}.", "Array", returns, raises, dunder)
    method.__doc__ = text.replace(_OPERAND, operand)
    return method
