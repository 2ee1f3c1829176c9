"""Element-wise functions (Array API "Element-wise Functions"), computed by the device's backend.

Each function hands the backend arrays to the matching ufunc of the device's backend namespace
(numpy for host memory, cupy with dlarray's corrections for CUDA) and wraps the result. Where the
backend's result differs from the standard's special cases, a vectorised fix-up runs, only for
the dtypes (and inputs) that need it, so the common path stays one ufunc call.

Type promotion is numpy's (NEP 50), which matches the standard's table for every pair the table
defines; Python scalars are weakly typed, as the standard asks. For pairs the standard leaves
unspecified (mixed kinds, integer inputs to floating-point functions) numpy's result is kept.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import numpy as np

from ._array import Array, _new, scalar_operand, wrap
from ._cuda import LEGACY_DEFAULT_STREAM as _NEW_STREAM
from ._devices import CPU, devices_differ
from ._docs import declared, parameter_names
from ._dtypes import ALL_DTYPES, BY_NUMPY, PYTHON_SCALARS, DType
from ._elementwise_docs import INTEGER_COMPUTED, SAME, docstring

# in the order of the API reference's page (``members_order: __all__``)
__all__ = [
    "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow", "negative", "positive",
    "abs", "square", "sqrt", "reciprocal", "sign", "conj", "real", "imag",
    "exp", "expm1", "log", "log1p", "log2", "log10", "logaddexp",
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
    "hypot", "round", "ceil", "floor", "trunc", "clip",
    "less", "less_equal", "greater", "greater_equal", "equal", "not_equal", "maximum", "minimum",
    "isfinite", "isinf", "isnan", "signbit", "copysign", "nextafter",
    "logical_and", "logical_or", "logical_xor", "logical_not",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "bitwise_invert",
]

_HOST_XP = CPU.backend.xp
_ndarray = np.ndarray
_Scalar = TypeVar("_Scalar")
_Function = TypeVar("_Function", bound=Callable[..., Array])


class Category(Generic[_Scalar]):
    """A dtype category of the standard's element-wise functions: the Python scalars a binary
    function of it takes beside an Array (``_Scalar``, spelled in ``scalars`` for the run-time
    signature), the words that name it in the docs, and what a result of it is unless the
    function's record says."""

    __slots__ = ("scalars", "words", "returns")

    def __init__(self, scalars: str, words: str, returns: str = "") -> None:
        self.scalars = scalars
        self.words = words
        self.returns = returns


NUMERIC: Category[int | float | complex] = Category("int | float | complex", "of a numeric dtype")
REAL_VALUED: Category[int | float] = Category(
    "int | float", "of a real-valued dtype (integer or real floating-point)"
)
REAL_FLOATING: Category[int | float] = Category("int | float", "of a real floating-point dtype")
FLOATING: Category[int | float | complex] = Category(
    "int | float | complex", "of a floating-point dtype (real or complex)", f"{SAME} {INTEGER_COMPUTED}"
)
COMPLEX_FLOATING: Category[complex] = Category("complex", "of a complex floating-point dtype")
INTEGER: Category[int] = Category("int", "of an integer dtype")
INTEGER_OR_BOOL: Category[int | bool] = Category("int | bool", "of an integer or boolean dtype")
BOOL: Category[bool] = Category("bool", "of dtype ``bool``")
ANY: Category[int | float | complex | bool] = Category("int | float | complex | bool", "of any dtype")


def _operands(x1: Any, x2: Any) -> tuple[Any, Any, Any]:
    """``(xp, a, b)``: the compute namespace of the Arrays' device and the backend operands of a
    binary function, Arrays unwrapped, Python scalars kept as they are (numpy and cupy treat them
    as weakly typed, which is the standard's rule for scalars)."""
    # The cached backend array is read directly (``_as_native`` only when it is not made yet):
    # this runs for every operator, so each saved call counts on small arrays.
    if type(x1) is Array:
        device = x1._device
        a = x1._native
        if a is None:
            a = x1._as_native()
        if type(x2) is Array:
            if device is not x2._device:
                raise ValueError(devices_differ(device, x2._device))
            b = x2._native
            return device.backend.xp, a, (x2._as_native() if b is None else b)
        if type(x2) in PYTHON_SCALARS:
            return device.backend.xp, a, x2
        number = scalar_operand(x2, device)  # a numpy scalar, a float subclass...: as the operators
        if number is None:
            raise TypeError(f"expected an Array or a Python scalar, got {type(x2).__name__}")
        return _operands(x1, number)
    if type(x2) is Array:
        if type(x1) in PYTHON_SCALARS:
            return x2._device.backend.xp, x1, x2._as_native()
        number = scalar_operand(x1, x2._device)
        if number is not None:
            return _operands(number, x2)
    raise TypeError(
        f"at least one argument must be an Array, got {type(x1).__name__} and {type(x2).__name__}"
    )


def _operand(x: Any) -> tuple[Any, Any]:
    """``(xp, native)``: the compute namespace and backend array of a unary function's argument
    (which must be an Array)."""
    if type(x) is not Array:
        raise TypeError(f"expected an Array, got {type(x).__name__}")
    native = x._native
    return x._device.backend.xp, (x._as_native() if native is None else native)


def _owned(xp: Any, result: Any) -> Any:
    """A ufunc result as an array that can be written (numpy gives scalars for 0-d inputs)."""
    return xp.asarray(result) if isinstance(result, np.generic) else result


def _with_parts(xp: Any, like: Any, real: Any, imag: Any) -> Any:
    """A complex array of ``like``'s dtype and shape from its two components (signed zeros and
    NaNs kept exactly, which ``real + 1j * imag`` would not do)."""
    out = xp.empty_like(like)
    out.real = real
    out.imag = imag
    return out


# ---------------------------------------------------------------- declaring a function

#: The backend ufunc of each function declared in the table as that one call (the in-place
#: operators run it into the Array's memory).
UFUNCS: dict[str, str] = {}


# The first path of the functions (and operators) that are one ufunc call: Arrays on the CPU whose
# numpy view is made already go straight to numpy's ufunc, and its result straight to the Array's
# constructor, as ``wrap`` makes it (new host memory: on the CPU, nothing pending on a stream). A
# ufunc called without ``out=`` returns new memory, never a view, so the only other result is a
# numpy scalar (0-d operands), which ``wrap`` takes. Anything else (a Python scalar, another device,
# an Array not viewed yet) goes to ``general``, the long way: the same results, every refusal. On
# 10-element arrays the call is most of the time; issue 33 holds it to twice a one-slot wrapper's.
# The result's dtype is remembered by the operands' dtype: numpy's ufuncs choose it from the
# operands' dtypes alone (NEP 50), and reading it from the result (``result.dtype``, then a lookup
# hashing numpy's dtype) costs as much as every check of the path together.


def host_first_unary(host: Callable[[Any], Any], general: Callable[[Any], Array]) -> Callable[[Any], Array]:
    """A unary function computed by the numpy ufunc ``host`` on the CPU, ``general`` elsewhere."""
    results: list[DType | None] = [None] * len(ALL_DTYPES)  # the operand's dtype (its _index) -> the result's

    def function(x: Any, /) -> Array:
        if type(x) is Array and x._device is CPU:
            native = x._native
            if native is not None:
                result = host(native)
                if type(result) is _ndarray:
                    dtype = results[x._dtype._index]
                    if dtype is None:
                        dtype = results[x._dtype._index] = BY_NUMPY[result.dtype]
                    return _new(result, result, dtype, CPU, _NEW_STREAM)
                return wrap(result)
        return general(x)

    return function


def host_first_binary(host: Callable[[Any, Any], Any], general: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """A binary function (or forward operator) computed by the numpy ufunc ``host`` for two Arrays
    on the CPU, ``general`` for anything else."""
    results: list[DType | None] = [None] * len(ALL_DTYPES)  # the operands' dtype (one, its _index) -> the result's

    def function(x1: Any, x2: Any, /) -> Any:
        if type(x1) is Array and type(x2) is Array and x1._device is CPU and x2._device is CPU:
            a = x1._native
            b = x2._native
            if a is not None and b is not None:
                result = host(a, b)
                if type(result) is _ndarray:
                    dtype = x1._dtype
                    if dtype is x2._dtype:
                        found = results[dtype._index]
                        if found is None:
                            found = results[dtype._index] = BY_NUMPY[result.dtype]
                        dtype = found
                    else:
                        dtype = BY_NUMPY[result.dtype]
                    return _new(result, result, dtype, CPU, _NEW_STREAM)
                return wrap(result)
        return general(x1, x2)

    return function


#: The numpy ufunc of each binary function declared as one ufunc call (the operators take the
#: same CPU path, :func:`host_first_binary`).
HOST_UFUNCS: dict[str, Callable[[Any, Any], Any]] = {}


def _documented(category: Category[Any]) -> Callable[[_Function], _Function]:
    """Give a function its docstring, composed from its record, its signature and ``category``."""

    def document(function: _Function) -> _Function:
        parameters = {name: function.__annotations__[name] for name in parameter_names(function)}
        function.__doc__ = docstring(function.__name__, parameters, category.words, category.returns)
        return function

    return document


def _declared(function: _Function, name: str, category: Category[Any]) -> _Function:
    """``function``, named ``name`` and documented."""
    return _documented(category)(declared(function, name, ""))


def _unary(
    name: str, ufunc: str, category: Category[Any], complex_case: Callable[[Any, Any], Any] | None = None
) -> Callable[[Array], Array]:
    """Element-wise function ``name(x, /)``: the backend's ``ufunc`` of ``x``, or for complex
    input ``complex_case(xp, native)`` where the ufunc misses the standard's special cases."""
    host = getattr(_HOST_XP, ufunc)  # looked up once; another device's namespace at each call
    if complex_case is None:
        UFUNCS[name] = ufunc

        def general(x: Array, /) -> Array:
            xp, native = _operand(x)
            return wrap((host if xp is _HOST_XP else getattr(xp, ufunc))(native))

        function = host_first_unary(host, general)
        function.__annotations__ = {"x": "Array", "return": "Array"}

    else:
        fix_up: Callable[[Any, Any], Any] = complex_case

        def function(x: Array, /) -> Array:
            xp, native = _operand(x)
            if native.dtype.kind == "c":
                return wrap(fix_up(xp, native))
            return wrap((host if xp is _HOST_XP else getattr(xp, ufunc))(native))

    return _declared(function, name, category)


def _binary(
    name: str, ufunc: str, category: Category[_Scalar]
) -> Callable[[Array | _Scalar, Array | _Scalar], Array]:
    """Element-wise function ``name(x1, x2, /)``: the backend's ``ufunc`` of ``x1`` and ``x2``,
    each an Array or a Python scalar of ``category``."""
    host = getattr(_HOST_XP, ufunc)  # looked up once; another device's namespace at each call

    def general(x1: Array | _Scalar, x2: Array | _Scalar, /) -> Array:
        xp, a, b = _operands(x1, x2)
        return wrap((host if xp is _HOST_XP else getattr(xp, ufunc))(a, b))

    function = host_first_binary(host, general)
    HOST_UFUNCS[name] = host
    UFUNCS[name] = ufunc
    operand = f"Array | {category.scalars}"
    function.__annotations__ = {"x1": operand, "x2": operand, "return": "Array"}
    return _declared(function, name, category)


# ---------------------------------------------------------------- complex fix-ups
# What the backend's ufunc misses of the standard's special cases for complex input.


def _exp_complex(xp: Any, z: Any) -> Any:
    """Complex exp; at ``-inf + NaN j`` numpy gives the imaginary zero NaN's sign, the standard
    ``0 + 0j`` (so for ``-inf ± inf j`` too)."""
    out = _owned(xp, xp.exp(z))
    fix = (z.real == -math.inf) & ~xp.isfinite(z.imag)
    if xp.count_nonzero(fix):
        xp.copyto(out, 0, where=fix)
    return out


def _expm1_complex(xp: Any, z: Any) -> Any:
    """Complex expm1 with the standard's special cases (numpy's misses most of them).

    With ``z = a + bj``: ``exp(z) - 1 = (expm1(a) cos(b) - 2 sin(b/2)**2) + exp(a) sin(b) j``,
    which keeps the precision of expm1 near 0; infinities and zeros are then set as the
    standard lists them.
    """
    a = z.real
    b = z.imag
    with np.errstate(all="ignore"):  # numpy's warnings (cupy gives none)
        half = xp.sin(b * 0.5)
        # "+ 0.0" turns the -0 of expm1(-0) into the +0 the standard asks for at z = -0 + 0j
        re = xp.expm1(a) * xp.cos(b) - 2 * half * half + 0.0
        im = xp.exp(a) * xp.sin(b)
    zero_b = b == 0
    if xp.count_nonzero(zero_b):  # inf * sin(0) is NaN; the imaginary part of a real argument stays 0
        im = xp.where(zero_b, b, im)
    infinite_a = xp.isinf(a)
    if xp.count_nonzero(infinite_a):
        finite_b = xp.isfinite(b)
        minus_inf = a < 0
        # -inf: exp(a) is 0, so the result is -1 (+ 0j when b is not finite)
        re = xp.where(infinite_a & minus_inf, -1, re)
        im = xp.where(infinite_a & minus_inf & ~finite_b, 0, im)
        # +inf with an infinite or NaN b: infinity + NaN j
        plus_bad = infinite_a & ~minus_inf & ~finite_b
        re = xp.where(plus_bad, math.inf, re)
        im = xp.where(plus_bad, math.nan, im)
    return _with_parts(xp, z, re, im)


def _tanh_complex(xp: Any, z: Any) -> Any:
    """Complex tanh; for an infinite real part and finite imaginary part the standard asks for
    ``±1 + 0j`` with the zero signed like ``b`` (numpy signs it like ``sin(2b)``)."""
    out = _owned(xp, xp.tanh(z))
    b = z.imag
    fix = xp.isinf(z.real) & xp.isfinite(b)
    if xp.count_nonzero(fix):
        xp.copyto(out.imag, xp.copysign(0, b), where=fix)
    return out


def _sign_complex(xp: Any, z: Any) -> Any:
    """Complex sign, ``z / |z|``; where a component is NaN the standard asks for NaN + NaN j, and
    numpy gives ``±1`` or ``±1j`` when the other component is infinite (``sign(inf + NaN j)`` is
    ``1 + 0j``). Written without asking first whether any element needs it: on a GPU that question
    is a read that waits for the device."""
    out = _owned(xp, xp.sign(z))
    xp.copyto(out, complex(math.nan, math.nan), where=xp.isnan(z.real) | xp.isnan(z.imag))
    return out


def _tan_complex(xp: Any, z: Any) -> Any:
    """Complex tan as ``-1j * tanh(1j * z)``: the fixed-up tanh carries the standard's special
    cases over."""
    return _rotate(xp, _tanh_complex(xp, _rotate(xp, z, 1)), -1)


def _rotate(xp: Any, z: Any, direction: int) -> Any:
    """``1j * z`` (direction 1) or ``-1j * z`` (direction -1), exactly: a swap of the components
    and one sign change, with no multiplication to turn infinities into NaNs."""
    if direction == 1:
        return _with_parts(xp, z, xp.negative(z.imag), z.real)
    return _with_parts(xp, z, z.imag, xp.negative(z.real))


# ---------------------------------------------------------------- the functions that are one ufunc call
# A line each: name, backend ufunc, arity (``_unary`` or ``_binary``) and dtype category, which
# gives the Python scalars a binary function takes; the last few name the fix-up of complex
# input above. The functions with logic are written out below. Every docstring is composed from
# the function's record in ``dlarray._elementwise_docs`` and what its arity and dtype category
# share; a type checker reads each function's type from its factory's (``Callable[[Array],
# Array]``), the API reference its run-time signature (docs_hooks/griffe_roles.py).

# arithmetic
add = _binary("add", "add", NUMERIC)
subtract = _binary("subtract", "subtract", NUMERIC)
multiply = _binary("multiply", "multiply", NUMERIC)
divide = _binary("divide", "divide", NUMERIC)
remainder = _binary("remainder", "remainder", REAL_VALUED)
negative = _unary("negative", "negative", NUMERIC)
positive = _unary("positive", "positive", NUMERIC)
abs = _unary("abs", "absolute", NUMERIC)  # noqa: A001 - the standard's name
square = _unary("square", "square", NUMERIC)
sqrt = _unary("sqrt", "sqrt", FLOATING)
conj = _unary("conj", "conjugate", NUMERIC)
# exponents and logarithms
log = _unary("log", "log", FLOATING)
log1p = _unary("log1p", "log1p", FLOATING)
log2 = _unary("log2", "log2", FLOATING)
log10 = _unary("log10", "log10", FLOATING)
logaddexp = _binary("logaddexp", "logaddexp", REAL_FLOATING)
# trigonometry
sin = _unary("sin", "sin", FLOATING)
cos = _unary("cos", "cos", FLOATING)
asin = _unary("asin", "arcsin", FLOATING)
acos = _unary("acos", "arccos", FLOATING)
atan = _unary("atan", "arctan", FLOATING)
atan2 = _binary("atan2", "arctan2", REAL_FLOATING)
sinh = _unary("sinh", "sinh", FLOATING)
cosh = _unary("cosh", "cosh", FLOATING)
asinh = _unary("asinh", "arcsinh", FLOATING)
acosh = _unary("acosh", "arccosh", FLOATING)
atanh = _unary("atanh", "arctanh", FLOATING)
hypot = _binary("hypot", "hypot", REAL_FLOATING)
# rounding
ceil = _unary("ceil", "ceil", REAL_VALUED)
floor = _unary("floor", "floor", REAL_VALUED)
trunc = _unary("trunc", "trunc", REAL_VALUED)
# comparisons
less = _binary("less", "less", REAL_VALUED)
less_equal = _binary("less_equal", "less_equal", REAL_VALUED)
greater = _binary("greater", "greater", REAL_VALUED)
greater_equal = _binary("greater_equal", "greater_equal", REAL_VALUED)
equal = _binary("equal", "equal", ANY)
not_equal = _binary("not_equal", "not_equal", ANY)
maximum = _binary("maximum", "maximum", REAL_VALUED)
minimum = _binary("minimum", "minimum", REAL_VALUED)
# floating-point classification
isfinite = _unary("isfinite", "isfinite", NUMERIC)
isinf = _unary("isinf", "isinf", NUMERIC)
isnan = _unary("isnan", "isnan", NUMERIC)
signbit = _unary("signbit", "signbit", REAL_FLOATING)
copysign = _binary("copysign", "copysign", REAL_FLOATING)
nextafter = _binary("nextafter", "nextafter", REAL_FLOATING)
# logical and bitwise
logical_and = _binary("logical_and", "logical_and", BOOL)
logical_or = _binary("logical_or", "logical_or", BOOL)
logical_xor = _binary("logical_xor", "logical_xor", BOOL)
logical_not = _unary("logical_not", "logical_not", BOOL)
bitwise_and = _binary("bitwise_and", "bitwise_and", INTEGER_OR_BOOL)
bitwise_or = _binary("bitwise_or", "bitwise_or", INTEGER_OR_BOOL)
bitwise_xor = _binary("bitwise_xor", "bitwise_xor", INTEGER_OR_BOOL)
bitwise_left_shift = _binary("bitwise_left_shift", "left_shift", INTEGER)
bitwise_right_shift = _binary("bitwise_right_shift", "right_shift", INTEGER)
bitwise_invert = _unary("bitwise_invert", "invert", INTEGER_OR_BOOL)
# one ufunc call, with a fix-up of complex input (above)
exp = _unary("exp", "exp", FLOATING, _exp_complex)
expm1 = _unary("expm1", "expm1", FLOATING, _expm1_complex)
tan = _unary("tan", "tan", FLOATING, _tan_complex)
sign = _unary("sign", "sign", NUMERIC, _sign_complex)
tanh = _unary("tanh", "tanh", FLOATING, _tanh_complex)


# ---------------------------------------------------------------- the functions with logic


@_documented(REAL_VALUED)
def floor_divide(x1: Array | int | float, x2: Array | int | float, /) -> Array:
    xp, a, b = _operands(x1, x2)
    out = xp.floor_divide(a, b)
    if out.dtype.kind == "f":
        infinite = xp.isinf(a) | xp.isinf(b)
        if xp.count_nonzero(infinite):
            out = xp.where(infinite, xp.floor(xp.divide(a, b)), out)
    return wrap(out)


@_documented(NUMERIC)
def pow(
    x1: Array | int | float | complex, x2: Array | int | float | complex, /
) -> Array:  # noqa: A001 - the standard's name
    if (
        (type(x2) is int or type(x2) is float) and x2 == 2
        and type(x1) is Array and x1._dtype.category == "real floating"
    ):
        # x ** 2 (variances, norms) is the commonest power: np.square gives the same correctly
        # rounded x * x, special cases included, over twice as fast as np.power (numpy's own
        # ndarray ** 2 takes this shortcut). Not ** 0.5: numpy's sqrt shortcut breaks the
        # standard's pow(-0, 0.5) = +0 and pow(-inf, 0.5) = +inf.
        xp, native = _operand(x1)
        return wrap(xp.square(native))
    xp, a, b = _operands(x1, x2)
    return wrap(xp.power(a, b))


@_documented(NUMERIC)
def reciprocal(x: Array, /) -> Array:
    xp, native = _operand(x)
    if native.dtype.kind in "biu":
        return wrap(xp.divide(1.0, native))
    return wrap(xp.divide(1, native))


@_documented(NUMERIC)
def real(x: Array, /) -> Array:
    return wrap(_operand(x)[1].real)


@_documented(COMPLEX_FLOATING)
def imag(x: Array, /) -> Array:
    return wrap(_operand(x)[1].imag)


@_documented(NUMERIC)
def round(x: Array, /) -> Array:  # noqa: A001 - the standard's name
    xp, native = _operand(x)
    if native.dtype.kind in "biu":
        return wrap(native.copy())
    return wrap(xp.rint(native))


@_documented(REAL_VALUED)
def clip(  # noqa: A002 - the standard's names
    x: Array, /, min: int | float | Array | None = None, max: int | float | Array | None = None
) -> Array:
    xp, native = _operand(x)
    low = _clip_bound(min, x, native, "min")
    high = _clip_bound(max, x, native, "max")
    # maximum/minimum rather than np.clip: the same result (NaNs propagate), a third of the cost
    if low is None:
        if high is None:
            return wrap(native.copy())
        out = xp.minimum(native, high)
    else:
        out = xp.maximum(native, low)
        if high is not None:
            out = xp.minimum(out, high)
    if out.dtype != native.dtype:
        out = out.astype(native.dtype)
    return wrap(out)


def _clip_bound(bound: Any, x: Array, native: Any, name: str) -> Any:
    """A bound of clip as a backend operand. Python ints outside an integer dtype's range are
    clamped to it (the result is the same where it is specified, and numpy would raise)."""
    kind = type(bound)
    if bound is None or kind is float:
        return bound
    if kind is not int and kind is not bool and kind is not Array:
        number = scalar_operand(bound, x._device)  # a numpy scalar, a float subclass...: as the operators
        if number is not None:
            return _clip_bound(number, x, native, name)
    if kind is int or kind is bool:
        limits = _INT_LIMITS.get(native.dtype)
        if limits is not None and not limits[0] <= bound <= limits[1]:
            return limits[0] if bound < limits[0] else limits[1]
        return bound
    if kind is Array:
        if bound._device is not x._device:
            raise ValueError(devices_differ(x._device, bound._device))
        return bound._as_native()
    raise TypeError(f"clip: {name} must be None, a Python int or float, or an Array, not {kind.__name__}")


_INT_LIMITS = {
    np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
    for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
}
