"""The Array's Python operators, generated from one table and installed on the class.

Each operator is the namespace's function for it (which carries the standard's special cases):
``x + y`` is :func:`dlarray.add`, ``y + x`` (reflected) is ``add(y, x)``. An in-place operator
(``x += y``) whose function is declared as one ufunc call runs that ufunc into ``x``'s memory
(``out=``), no temporary; one whose function carries fix-ups (``//=``, ``@=``) computes and
copies back (``**=`` runs ``power``, or ``multiply`` for ``x **= 2``). An operand that is
neither an Array nor a Python scalar goes through ``_array._foreign_operand``: numpy arrays and
scalars, lists, tuples and ranges become Arrays (combined elementwise, as numpy does); anything
else gives ``NotImplemented``: another array library's object then decides in its reflected method,
and for an object that is no array and no number Python answers as for any two unrelated objects
(``x == None`` is False, ``x + "a"`` a TypeError), as array-api-strict does.
Their docstrings and operand types come from the same table: ``_operator_docs`` composes each from
the record of the operator's function (its summary, return and errors, with ``x1``/``x2`` read as
``self``/``other``).

This module sits above the spec modules it takes the functions from; the core (where ``Array``
is defined) does not import it: ``dlarray/__init__.py`` loads it, so every Array has them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import _elementwise_functions as ew
from ._array import Array, _foreign_operand
from ._dtypes import PYTHON_SCALARS
from ._linear_algebra_functions import matmul
from ._operator_docs import document, document_matmul


# (symbol, function): the in-place form of a function declared as one ufunc call runs that ufunc
# with ``out=`` (``ew.UFUNCS``); one with fix-ups computes with the function and copies back.
BINARY: tuple[tuple[str, Callable[..., Array]], ...] = (
    ("add", ew.add),
    ("sub", ew.subtract),
    ("mul", ew.multiply),
    ("truediv", ew.divide),
    ("floordiv", ew.floor_divide),
    ("mod", ew.remainder),
    ("pow", ew.pow),
    ("and", ew.bitwise_and),
    ("or", ew.bitwise_or),
    ("xor", ew.bitwise_xor),
    ("lshift", ew.bitwise_left_shift),
    ("rshift", ew.bitwise_right_shift),
)
# Comparisons have no reflected or in-place form (Python reflects ``<`` as the other's ``>``).
COMPARISONS: tuple[tuple[str, Callable[..., Array]], ...] = (
    ("lt", ew.less),
    ("le", ew.less_equal),
    ("gt", ew.greater),
    ("ge", ew.greater_equal),
    ("eq", ew.equal),
    ("ne", ew.not_equal),
)
UNARY: tuple[tuple[str, Callable[[Array], Array]], ...] = (
    ("neg", ew.negative),
    ("pos", ew.positive),
    ("abs", ew.abs),
    ("invert", ew.bitwise_invert),
)


def _operand(self: Array, other: Any) -> Any:
    """``other`` as an operand of ``self``'s operator (an Array or a Python scalar), or None for
    NotImplemented."""
    if type(other) is Array or type(other) in PYTHON_SCALARS:
        return other
    return _foreign_operand(other, self)


def _forward(function: Callable[..., Array]) -> Callable[[Array, Any], Any]:
    def method(self: Array, other: Any, /) -> Any:
        if type(other) is not Array and type(other) not in PYTHON_SCALARS:
            other = _foreign_operand(other, self)
            if other is None:
                return NotImplemented
        return function(self, other)

    return method


def _forward_first_on_cpu(function: Callable[..., Array]) -> Callable[[Array, Any], Any]:
    """The forward operator of ``function``: where it is one numpy ufunc call, two Arrays on the
    CPU go straight to the ufunc (``ew.host_first_binary``, the function's own first path, here
    without the call of the function in between); every other operand as :func:`_forward` takes it."""
    host = ew.HOST_UFUNCS.get(function.__name__)
    if host is None:
        return _forward(function)
    method = ew.host_first_binary(host, _forward(function))
    # the operator's own: its operands named (self, other, /), not the function's (x1, x2, /), and
    # this module's, where the operators are made (the API reference links it here)
    names = method.__code__.co_varnames
    method.__code__ = method.__code__.replace(co_varnames=("self", "other", *names[2:]))
    method.__module__ = __name__
    return method


def _reflected(function: Callable[..., Array]) -> Callable[[Array, Any], Any]:
    def method(self: Array, other: Any, /) -> Any:
        if type(other) is not Array and type(other) not in PYTHON_SCALARS:
            other = _foreign_operand(other, self)
            if other is None:
                return NotImplemented
        return function(other, self)

    return method


def _in_place(function: Callable[..., Array], ufunc: str | None) -> Callable[[Array, Any], Any]:
    def method(self: Array, other: Any, /) -> Any:
        other = _operand(self, other)
        if other is None:
            return NotImplemented
        if ufunc is None:
            return self._in_place(function, other)
        return self._in_place_ufunc(ufunc, other)

    return method


def _in_place_power(self: Array, other: Any, /) -> Any:
    other = _operand(self, other)
    if other is None:
        return NotImplemented
    if (type(other) is int or type(other) is float) and other == 2 and self._dtype.category == "real floating":
        # x **= 2 as x *= x: the same correctly rounded product, over twice as fast (see pow)
        return self._in_place_ufunc("multiply", self)
    return self._in_place_ufunc("power", other)


def _unary(function: Callable[[Array], Array]) -> Callable[[Array], Array]:
    def method(self: Array, /) -> Array:
        return function(self)

    return method


# ``@`` takes Arrays only: no Python scalars, no adopted numpy operands.
def _matmul(self: Array, other: Any, /) -> Any:
    if type(other) is not Array:
        return NotImplemented
    return matmul(self, other)


def _rmatmul(self: Array, other: Any, /) -> Any:
    if type(other) is not Array:
        return NotImplemented
    return matmul(other, self)


def _imatmul(self: Array, other: Any, /) -> Any:
    if type(other) is not Array:
        return NotImplemented
    return self._in_place(matmul, other)


def _install() -> tuple[str, ...]:
    """Set the operators on Array; their names, in table order."""
    methods: dict[str, Callable[..., Any]] = {}
    for symbol, function in BINARY:
        methods[f"__{symbol}__"] = document(_forward_first_on_cpu(function), symbol, function, "forward")
        methods[f"__r{symbol}__"] = document(_reflected(function), symbol, function, "reflected")
        ufunc = ew.UFUNCS.get(function.__name__)
        in_place_method = _in_place_power if symbol == "pow" else _in_place(function, ufunc)
        methods[f"__i{symbol}__"] = document(in_place_method, symbol, function, "in-place")
    for symbol, function in COMPARISONS:
        methods[f"__{symbol}__"] = document(_forward_first_on_cpu(function), symbol, function, "forward")
    for symbol, function in UNARY:
        methods[f"__{symbol}__"] = document(_unary(function), symbol, function, "unary")
    methods.update(__matmul__=document_matmul(_matmul, "forward"),
                   __rmatmul__=document_matmul(_rmatmul, "reflected"),
                   __imatmul__=document_matmul(_imatmul, "in-place"))
    for name, method in methods.items():
        method.__name__ = name
        method.__qualname__ = f"Array.{name}"
        setattr(Array, name, method)
    # defining __eq__ on a class sets __hash__ to None only inside a class body: keep it unhashable
    Array.__hash__ = None  # type: ignore[assignment]
    return tuple(methods)


NAMES = _install()  # the operators' names (the API reference renders each)

