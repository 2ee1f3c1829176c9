"""The documentation of the element-wise functions, as data.

Each function's own words are a :class:`~dlarray._docs.Doc` record in ``DOCS``: its summary and
special cases, what its operands are (``{dtype}``: its dtype category's words), what it returns,
what it raises besides its family's, an example that runs. What a family of functions shares is
written once below: the errors of a unary and of a binary function, the words of a result's dtype
and shape. :func:`docstring` composes a function's docstring from its record, its signature and
its dtype category (the link to the standard and the types of its parameters included);
``dlarray._operator_docs`` composes the Array's operators' docstrings from the same records.
"""

from __future__ import annotations

from ._docs import Doc, numpy_docstring, standard_link

UNARY_ERRORS = {
    "TypeError": "``x`` is not an Array, or its dtype is one this function does not compute (stored-only "
                 "dtypes such as bfloat16 included).",
}
BINARY_ERRORS = {
    "TypeError": "An operand that is neither an Array nor a Python scalar, no Array among the two, or a "
                 "dtype this function does not compute (stored-only dtypes such as bfloat16 included).",
    "ValueError": "Arrays on different devices, or shapes that do not broadcast.",
}
# what a result is
SAME = "Of ``x``'s dtype and shape."
BOOL_OF_X = "Of dtype ``bool``, in ``x``'s shape."
BOOL_OF_PAIR = "Of dtype ``bool``, in the broadcast shape of ``x1`` and ``x2``."
# a result in the operands' dtype: a Python int operand is cast to the Array's integer dtype, so
# a binary function whose result this is raises OVERFLOW for one out of its range
PROMOTED_SCALAR = (
    "the promoted dtype of ``x1`` and ``x2`` (a Python scalar takes the Array's dtype) and their "
    "broadcast shape"
)
OVERFLOW = "A Python int outside the range of the Array's integer dtype."
PROMOTED_FLOAT = "the promoted floating-point dtype of ``x1`` and ``x2`` and their broadcast shape"
INTEGER_COMPUTED = (
    "Integer input is computed as numpy computes it (a floating-point result); the standard leaves it "
    "unspecified."
)
INTEGER_UNCHANGED = "Integer input is returned unchanged (as a copy)."

# an array parameter's words when its record gives none (the dtype category's words follow)
_ROLES = {"x": "Input array", "x1": "First operand", "x2": "Second operand"}


def docstring(name: str, annotations: dict[str, str], dtypes: str, returns: str = "") -> str:
    """The docstring of element-wise function ``name``: its record, with its parameters and their
    types from ``annotations`` (its signature's, in order), ``dtypes`` the words of its dtype
    category (``"of a numeric dtype"``) and ``returns`` what its result is unless the record says."""
    doc = DOCS[name]
    parameters = []
    for parameter, kind in annotations.items():
        text = doc.params.get(parameter, _ROLES.get(parameter, ""))
        if parameter in _ROLES:  # an array operand: its dtype category's words
            text = text.format(dtype=dtypes) if "{dtype}" in text else f"{text}, {dtypes}."
        parameters.append((parameter, kind, text))
    return numpy_docstring(
        doc.summary,
        details=doc.details,
        link=standard_link(name),
        parameters=parameters,
        returns=("Array", doc.returns or returns),
        raises=errors(doc, unary="x" in annotations).items(),
        examples=doc.examples,
    )


def errors(doc: Doc, *, unary: bool) -> dict[str, str]:
    """The Raises entries of a unary or binary function with record ``doc``: its family's, with
    the record's words added, and OverflowError where its result is in the operands' dtype."""
    found = dict(UNARY_ERRORS if unary else BINARY_ERRORS)
    for exception, text in doc.raises.items():
        found[exception] = f"{found[exception]} {text}" if exception in found else text
    if not unary and PROMOTED_SCALAR in doc.returns:
        found["OverflowError"] = OVERFLOW
    return found


DOCS: dict[str, Doc] = {
    "add": Doc(
        """
        Sum of each element pair (``x1 + x2``).

        IEEE 754 special cases as the standard lists them: ``inf + -inf`` is NaN, ``-0.0 + -0.0`` is
        ``-0.0``, any NaN gives NaN.
        """,
        params={"x1": "First addend", "x2": "Second addend"},
        returns=f"The sums, in {PROMOTED_SCALAR}.",
        examples="""
        >>> xp.add(xp.asarray([1, 2, 3]), 10)
        Array([11, 12, 13], dtype=int64, device=cpu)
        >>> xp.asarray([0.5, 1.5], dtype=xp.float32) + 1
        Array([1.5, 2.5], dtype=float32, device=cpu)
        """,
    ),
    "subtract": Doc(
        """
        Difference of each element pair (``x1 - x2``).
        """,
        params={"x1": "Minuend", "x2": "Subtrahend"},
        returns=f"The differences, in {PROMOTED_SCALAR}.",
        examples="""
        >>> xp.subtract(xp.asarray([5, 7]), xp.asarray([1, 2]))
        Array([4, 5], dtype=int64, device=cpu)
        """,
    ),
    "multiply": Doc(
        """
        Product of each element pair (``x1 * x2``).
        """,
        params={"x1": "First factor", "x2": "Second factor"},
        returns=f"The products, in {PROMOTED_SCALAR}.",
        examples="""
        >>> xp.multiply(xp.asarray([1.5, -2.0]), 2)
        Array([ 3., -4.], dtype=float64, device=cpu)
        """,
    ),
    "divide": Doc(
        """
        True division of each element pair (``x1 / x2``).

        Division by zero gives ``±inf`` (``0 / 0`` NaN), signed as IEEE 754 says; numpy emits a
        ``RuntimeWarning`` for it.
        """,
        params={"x1": "Dividend", "x2": "Divisor"},
        returns=f"The quotients, in {PROMOTED_FLOAT}; integer inputs give ``float64`` (unspecified by the "
                "standard).",
        examples="""
        >>> xp.divide(xp.asarray([1, 2, 3]), 2)
        Array([0.5, 1. , 1.5], dtype=float64, device=cpu)
        """,
    ),
    "floor_divide": Doc(
        """
        Floor division of each element pair (``x1 // x2``).

        For floating-point operands with an infinity, dlarray returns ``floor(x1 / x2)`` as the
        standard prefers, where numpy follows Python (``inf // 2`` is NaN there, ``inf`` here; ``1
        // -inf`` is -1 there, -0.0 here). Integer division by zero gives 0 (numpy's result; the
        standard leaves it unspecified).
        """,
        params={"x1": "Dividend", "x2": "Divisor"},
        returns=f"``floor(x1 / x2)``, in {PROMOTED_SCALAR}.",
        examples="""
        >>> xp.floor_divide(xp.asarray([7, -7]), 2)
        Array([ 3, -4], dtype=int64, device=cpu)
        >>> xp.asarray([1.0, 5.0]) // -xp.inf
        Array([-0., -0.], dtype=float64, device=cpu)
        """,
    ),
    "remainder": Doc(
        """
        Remainder of each element pair, with the sign of the divisor (``x1 % x2``).
        """,
        params={"x1": "Dividend", "x2": "Divisor"},
        returns=f"``x1 - floor_divide(x1, x2) * x2``, in {PROMOTED_SCALAR}.",
        examples="""
        >>> xp.remainder(xp.asarray([7, -7]), 3)
        Array([1, 2], dtype=int64, device=cpu)
        """,
    ),
    "pow": Doc(
        """
        ``x1`` raised to the power ``x2``, element-wise (``x1 ** x2``).

        ``pow(x, 0)`` is 1 even for NaN; ``pow(1, y)`` is 1 even for NaN; ``pow(-0.0, 0.5)`` is
        ``+0.0``, as the standard lists. ``x ** 2`` of a real floating-point array is computed as
        ``x * x`` (the same correctly rounded result, faster).
        """,
        params={"x1": "Bases", "x2": "Exponents"},
        returns=f"The powers, in {PROMOTED_SCALAR}.",
        raises={
            "ValueError": "An integer base raised to a negative integer exponent (numpy's refusal; the "
                          "standard leaves the result unspecified)."
        },
        examples="""
        >>> xp.pow(xp.asarray([1, 2, 3]), 2)
        Array([1, 4, 9], dtype=int64, device=cpu)
        >>> xp.asarray(2.0) ** xp.asarray([0.5, -1.0])
        Array([1.41421356, 0.5       ], dtype=float64, device=cpu)
        """,
    ),
    "negative": Doc(
        """
        Numerical negative of each element (``-x``).

        Integer negation wraps around: ``-(-128)`` is ``-128`` in ``int8``.
        """,
        returns=SAME,
        examples="""
        >>> xp.negative(xp.asarray([1, -2, 0]))
        Array([-1,  2,  0], dtype=int64, device=cpu)
        """,
    ),
    "positive": Doc(
        """
        Numerical positive of each element (``+x``): a copy of ``x``.
        """,
        returns="A new array with ``x``'s values, dtype and shape.",
        examples="""
        >>> +xp.asarray([1.5, -2.0])
        Array([ 1.5, -2. ], dtype=float64, device=cpu)
        """,
    ),
    "abs": Doc(
        """
        Absolute value of each element (``abs(x)``).

        ``abs(-0.0)`` is ``+0.0``; a complex element with an infinite component has modulus ``inf``
        even if the other is NaN. Integer ``abs`` of the smallest value wraps (``abs(int8(-128))``
        is -128).
        """,
        returns="Of ``x``'s shape; of ``x``'s dtype for real input, the modulus in the real dtype of the "
                "same precision for complex input (``complex128`` gives ``float64``).",
        examples="""
        >>> xp.abs(xp.asarray([-1.5, 0.0, 2.0]))
        Array([1.5, 0. , 2. ], dtype=float64, device=cpu)
        >>> xp.abs(xp.asarray([3 + 4j]))
        Array([5.], dtype=float64, device=cpu)
        """,
    ),
    "square": Doc(
        """
        Square of each element (``x * x``).
        """,
        returns=SAME,
        examples="""
        >>> xp.square(xp.asarray([1, -2, 3]))
        Array([1, 4, 9], dtype=int64, device=cpu)
        """,
    ),
    "sqrt": Doc(
        """
        Principal square root of each element.

        A negative real input gives NaN (numpy warns); ``sqrt(-0.0)`` is ``-0.0``; complex results
        have a non-negative real part (branch cut along the negative real axis).
        """,
        examples="""
        >>> xp.sqrt(xp.asarray([4.0, 2.0, -0.0]))
        Array([ 2.        ,  1.41421356, -0.        ], dtype=float64, device=cpu)
        >>> xp.sqrt(xp.asarray(-4 + 0j))
        Array(0.+2.j, dtype=complex128, device=cpu)
        """,
    ),
    "reciprocal": Doc(
        """
        ``1 / x`` for each element.
        """,
        returns="Of ``x``'s shape and floating-point dtype; integer input gives ``float64`` (numpy's "
                "integer ``reciprocal`` would truncate it).",
        examples="""
        >>> xp.reciprocal(xp.asarray([1.0, 2.0, 4.0]))
        Array([1.  , 0.5 , 0.25], dtype=float64, device=cpu)
        >>> xp.reciprocal(xp.asarray([2, 4]))
        Array([0.5 , 0.25], dtype=float64, device=cpu)
        """,
    ),
    "sign": Doc(
        """
        Sign of each element.

        Real input: -1, 0 or 1 (NaN for NaN, 0 for either zero). Complex input: ``x / |x|``, ``0 +
        0j`` at 0, NaN if either component is NaN.
        """,
        returns=SAME,
        examples="""
        >>> xp.sign(xp.asarray([-3.0, 0.0, 2.5]))
        Array([-1.,  0.,  1.], dtype=float64, device=cpu)
        >>> xp.sign(xp.asarray([3 + 4j]))
        Array([0.6+0.8j], dtype=complex128, device=cpu)
        """,
    ),
    "conj": Doc(
        """
        Complex conjugate of each element.
        """,
        returns="Of ``x``'s dtype and shape; real input is returned as a copy.",
        examples="""
        >>> xp.conj(xp.asarray([1 + 2j, 3 - 1j]))
        Array([1.-2.j, 3.+1.j], dtype=complex128, device=cpu)
        """,
    ),
    "real": Doc(
        """
        Real component of each element.
        """,
        returns="Of ``x``'s shape, in the real dtype of the same precision (``complex64`` gives "
                "``float32``); real input keeps its dtype. A view of ``x``'s memory, as numpy's ``.real`` "
                "is: writing to it writes ``x``.",
        examples="""
        >>> xp.real(xp.asarray([1 + 2j, 3 - 1j]))
        Array([1., 3.], dtype=float64, device=cpu)
        """,
    ),
    "imag": Doc(
        """
        Imaginary component of each element.
        """,
        returns="Of ``x``'s shape, in the real dtype of the same precision (``complex64`` gives "
                "``float32``); a view of ``x``'s memory, as numpy's ``.imag`` is. Real input gives "
                "read-only zeros of its dtype.",
        examples="""
        >>> xp.imag(xp.asarray([1 + 2j, 3 - 1j], dtype=xp.complex64))
        Array([ 2., -1.], dtype=float32, device=cpu)
        """,
    ),
    "exp": Doc(
        """
        Exponential of each element (``e ** x``).

        ``exp(-inf)`` is 0, ``exp(inf)`` is ``inf``. For complex input dlarray fixes numpy's
        ``exp(-inf + NaN j)`` (and ``-inf ± inf j``) to ``0 + 0j``, as the standard lists.
        """,
        examples="""
        >>> xp.exp(xp.asarray([0.0, 1.0]))
        Array([1.        , 2.71828183], dtype=float64, device=cpu)
        >>> xp.exp(xp.asarray(complex(-xp.inf, xp.nan)))
        Array(0.+0.j, dtype=complex128, device=cpu)
        """,
    ),
    "expm1": Doc(
        """
        ``exp(x) - 1`` for each element, accurate for ``x`` near 0.

        For complex input numpy misses most of the standard's special cases; dlarray computes
        ``expm1(a) cos(b) - 2 sin(b/2)**2 + exp(a) sin(b) j`` and sets the infinite and zero cases
        as the standard lists them (``expm1(-inf + bj)`` is ``-1 + 0j`` for infinite ``b``,
        ``expm1(-0 + 0j)`` is ``0 + 0j``).
        """,
        examples="""
        >>> xp.expm1(xp.asarray([1e-10, 1.0]))
        Array([1.00000000e-10, 1.71828183e+00], dtype=float64, device=cpu)
        >>> xp.expm1(xp.asarray(complex(-xp.inf, xp.inf)))
        Array(-1.+0.j, dtype=complex128, device=cpu)
        """,
    ),
    "log": Doc(
        """
        Natural logarithm of each element.

        ``log(0)`` is ``-inf``, a negative real input NaN (numpy warns for both); complex results
        have their branch cut along the negative real axis.
        """,
        examples="""
        >>> xp.log(xp.asarray([1.0, xp.e]))
        Array([0., 1.], dtype=float64, device=cpu)
        """,
    ),
    "log1p": Doc(
        """
        ``log(1 + x)`` for each element, accurate for ``x`` near 0.
        """,
        examples="""
        >>> xp.log1p(xp.asarray([1e-10, 0.0]))
        Array([1.e-10, 0.e+00], dtype=float64, device=cpu)
        """,
    ),
    "log2": Doc(
        """
        Base-2 logarithm of each element.
        """,
        examples="""
        >>> xp.log2(xp.asarray([1.0, 8.0]))
        Array([0., 3.], dtype=float64, device=cpu)
        """,
    ),
    "log10": Doc(
        """
        Base-10 logarithm of each element.
        """,
        examples="""
        >>> xp.log10(xp.asarray([1.0, 1000.0]))
        Array([0., 3.], dtype=float64, device=cpu)
        """,
    ),
    "logaddexp": Doc(
        """
        ``log(exp(x1) + exp(x2))`` for each element pair, without overflow.
        """,
        params={"x1": "First input", "x2": "Second input"},
        returns=f"In {PROMOTED_FLOAT}.",
        examples="""
        >>> xp.logaddexp(xp.asarray([1000.0]), xp.asarray([1000.0]))
        Array([1000.69314718], dtype=float64, device=cpu)
        """,
    ),
    "sin": Doc(
        """
        Sine of each element (radians).
        """,
        examples="""
        >>> xp.sin(xp.asarray([0.0, xp.pi / 2]))
        Array([0., 1.], dtype=float64, device=cpu)
        """,
    ),
    "cos": Doc(
        """
        Cosine of each element (radians).
        """,
        examples="""
        >>> xp.cos(xp.asarray([0.0, xp.pi]))
        Array([ 1., -1.], dtype=float64, device=cpu)
        """,
    ),
    "tan": Doc(
        """
        Tangent of each element (radians).

        Complex input is computed as ``-1j * tanh(1j * x)`` with the components swapped exactly, so
        the standard's special cases of ``tanh`` carry over.
        """,
        examples="""
        >>> xp.tan(xp.asarray([0.0, xp.pi / 4]))
        Array([0., 1.], dtype=float64, device=cpu)
        """,
    ),
    "asin": Doc(
        """
        Principal inverse sine of each element.

        Real input outside ``[-1, 1]`` gives NaN.
        """,
        examples="""
        >>> xp.asin(xp.asarray([0.0, 1.0]))
        Array([0.        , 1.57079633], dtype=float64, device=cpu)
        """,
    ),
    "acos": Doc(
        """
        Principal inverse cosine of each element.

        Real input outside ``[-1, 1]`` gives NaN.
        """,
        examples="""
        >>> xp.acos(xp.asarray([1.0, 0.0, -1.0]))
        Array([0.        , 1.57079633, 3.14159265], dtype=float64, device=cpu)
        """,
    ),
    "atan": Doc(
        """
        Principal inverse tangent of each element.
        """,
        examples="""
        >>> xp.atan(xp.asarray([0.0, xp.inf]))
        Array([0.        , 1.57079633], dtype=float64, device=cpu)
        """,
    ),
    "atan2": Doc(
        """
        Inverse tangent of ``x1 / x2``, in the quadrant of the point ``(x2, x1)``.

        Signed zeros pick the quadrant as the standard lists: ``atan2(+0.0, -0.0)`` is ``pi``,
        ``atan2(-0.0, -0.0)`` is ``-pi``.
        """,
        params={"x1": "y-coordinates", "x2": "x-coordinates"},
        returns=f"Angles in radians in ``[-pi, pi]``, in {PROMOTED_FLOAT}.",
        examples="""
        >>> xp.atan2(xp.asarray([1.0, -1.0]), -1.0)
        Array([ 2.35619449, -2.35619449], dtype=float64, device=cpu)
        >>> xp.atan2(xp.asarray([0.0, -0.0]), -0.0)
        Array([ 3.14159265, -3.14159265], dtype=float64, device=cpu)
        """,
    ),
    "sinh": Doc(
        """
        Hyperbolic sine of each element.
        """,
        examples="""
        >>> xp.sinh(xp.asarray([0.0, 1.0]))
        Array([0.        , 1.17520119], dtype=float64, device=cpu)
        """,
    ),
    "cosh": Doc(
        """
        Hyperbolic cosine of each element.
        """,
        examples="""
        >>> xp.cosh(xp.asarray([0.0, 1.0]))
        Array([1.        , 1.54308063], dtype=float64, device=cpu)
        """,
    ),
    "tanh": Doc(
        """
        Hyperbolic tangent of each element.

        For complex input with an infinite real part and a finite imaginary part ``b`` the standard
        asks for ``±1 + 0j`` with the zero signed like ``b``; dlarray fixes numpy's (signed like
        ``sin(2b)``).
        """,
        examples="""
        >>> xp.tanh(xp.asarray([0.0, xp.inf]))
        Array([0., 1.], dtype=float64, device=cpu)
        >>> xp.tanh(xp.asarray(complex(xp.inf, 2.0)))
        Array(1.+0.j, dtype=complex128, device=cpu)
        """,
    ),
    "asinh": Doc(
        """
        Inverse hyperbolic sine of each element.
        """,
        examples="""
        >>> xp.asinh(xp.asarray([0.0, 1.0]))
        Array([0.        , 0.88137359], dtype=float64, device=cpu)
        """,
    ),
    "acosh": Doc(
        """
        Inverse hyperbolic cosine of each element.

        Real input below 1 gives NaN.
        """,
        examples="""
        >>> xp.acosh(xp.asarray([1.0, 2.0]))
        Array([0.       , 1.3169579], dtype=float64, device=cpu)
        """,
    ),
    "atanh": Doc(
        """
        Inverse hyperbolic tangent of each element.

        ``atanh(±1)`` is ``±inf``; real input outside ``[-1, 1]`` gives NaN.
        """,
        examples="""
        >>> xp.atanh(xp.asarray([0.0, 0.5]))
        Array([0.        , 0.54930614], dtype=float64, device=cpu)
        """,
    ),
    "hypot": Doc(
        """
        ``sqrt(x1**2 + x2**2)`` for each element pair, without undue overflow or underflow.

        An infinite leg gives ``inf`` even if the other is NaN.
        """,
        params={"x1": "First leg", "x2": "Second leg"},
        returns=f"In {PROMOTED_FLOAT}.",
        examples="""
        >>> xp.hypot(xp.asarray([3.0, 1e200]), xp.asarray([4.0, 1e200]))
        Array([5.00000000e+000, 1.41421356e+200], dtype=float64, device=cpu)
        """,
    ),
    "round": Doc(
        """
        Each element rounded to the nearest integer-valued number, ties to even.
        """,
        returns="Of ``x``'s dtype and shape; complex input is rounded component-wise, integer input "
                "returned as a copy.",
        examples="""
        >>> xp.round(xp.asarray([0.5, 1.5, 2.5, -1.7]))
        Array([ 0.,  2.,  2., -2.], dtype=float64, device=cpu)
        """,
    ),
    "ceil": Doc(
        """
        Smallest integer-valued number not less than each element.
        """,
        returns=f"{SAME} {INTEGER_UNCHANGED}",
        examples="""
        >>> xp.ceil(xp.asarray([-1.5, -0.5, 1.2]))
        Array([-1., -0.,  2.], dtype=float64, device=cpu)
        """,
    ),
    "floor": Doc(
        """
        Largest integer-valued number not greater than each element.
        """,
        returns=f"{SAME} {INTEGER_UNCHANGED}",
        examples="""
        >>> xp.floor(xp.asarray([-1.5, 1.2]))
        Array([-2.,  1.], dtype=float64, device=cpu)
        """,
    ),
    "trunc": Doc(
        """
        Each element rounded toward zero to an integer-valued number.
        """,
        returns=f"{SAME} {INTEGER_UNCHANGED}",
        examples="""
        >>> xp.trunc(xp.asarray([-1.5, 1.7]))
        Array([-1.,  1.], dtype=float64, device=cpu)
        """,
    ),
    "clip": Doc(
        """
        Each element clamped to ``[min, max]``.

        A NaN in ``x`` or in a bound gives NaN. Where ``min > max`` the result is unspecified by the
        standard (here ``max``). A Python int outside an integer dtype's range is clamped to that
        range (numpy would raise), which gives the same result.
        """,
        params={
            "min": "Lower bound: ``None`` (no bound), a Python scalar, or an Array broadcast with ``x``.",
            "max": "Upper bound, as ``min``.",
        },
        returns="Of ``x``'s dtype (the bounds take no part in type promotion), in the broadcast shape of "
                "``x`` and the bounds.",
        raises={
            "TypeError": "A bound that is neither None, a Python int or float nor an Array.",
            "ValueError": "A bound on another device than ``x``, or shapes that do not broadcast.",
        },
        examples="""
        >>> xp.clip(xp.asarray([-3, 0, 7], dtype=xp.int8), -1, 1000)
        Array([-1,  0,  7], dtype=int8, device=cpu)
        >>> xp.clip(xp.asarray([0.5, 2.0, 9.0]), xp.asarray([1.0, 1.0, 1.0]), 5)
        Array([1., 2., 5.], dtype=float64, device=cpu)
        """,
    ),
    "less": Doc(
        """
        ``x1 < x2``, element-wise.

        Any comparison with NaN is False.
        """,
        returns=BOOL_OF_PAIR,
        examples="""
        >>> xp.less(xp.asarray([1, 2, 3]), 2)
        Array([ True, False, False], dtype=bool, device=cpu)
        """,
    ),
    "less_equal": Doc(
        """
        ``x1 <= x2``, element-wise.
        """,
        returns=BOOL_OF_PAIR,
        examples="""
        >>> xp.asarray([1, 2, 3]) <= 2
        Array([ True,  True, False], dtype=bool, device=cpu)
        """,
    ),
    "greater": Doc(
        """
        ``x1 > x2``, element-wise.
        """,
        returns=BOOL_OF_PAIR,
        examples="""
        >>> xp.greater(xp.asarray([1.0, xp.nan, 3.0]), 2.0)
        Array([False, False,  True], dtype=bool, device=cpu)
        """,
    ),
    "greater_equal": Doc(
        """
        ``x1 >= x2``, element-wise.
        """,
        returns=BOOL_OF_PAIR,
        examples="""
        >>> xp.asarray([1, 2, 3]) >= 2
        Array([False,  True,  True], dtype=bool, device=cpu)
        """,
    ),
    "equal": Doc(
        """
        ``x1 == x2``, element-wise.

        NaN equals nothing, itself included; ``-0.0 == +0.0``; complex numbers are equal when both
        components are.
        """,
        returns=BOOL_OF_PAIR,
        examples="""
        >>> xp.equal(xp.asarray([1.0, xp.nan, -0.0]), xp.asarray([1.0, xp.nan, 0.0]))
        Array([ True, False,  True], dtype=bool, device=cpu)
        """,
    ),
    "not_equal": Doc(
        """
        ``x1 != x2``, element-wise.

        NaN differs from everything, itself included.
        """,
        returns=BOOL_OF_PAIR,
        examples="""
        >>> xp.asarray([1, 2, 3]) != 2
        Array([ True, False,  True], dtype=bool, device=cpu)
        """,
    ),
    "maximum": Doc(
        """
        Larger of each element pair.

        NaN if either element is NaN; which zero ``maximum(+0.0, -0.0)`` gives is unspecified.
        """,
        returns=f"The maxima, in {PROMOTED_SCALAR}.",
        examples="""
        >>> xp.maximum(xp.asarray([1.0, 5.0, xp.nan]), 2.0)
        Array([ 2.,  5., nan], dtype=float64, device=cpu)
        """,
    ),
    "minimum": Doc(
        """
        Smaller of each element pair.

        NaN if either element is NaN.
        """,
        returns=f"The minima, in {PROMOTED_SCALAR}.",
        examples="""
        >>> xp.minimum(xp.asarray([1, 5, 3]), xp.asarray([4, 2, 3]))
        Array([1, 2, 3], dtype=int64, device=cpu)
        """,
    ),
    "isfinite": Doc(
        """
        True where an element is finite (neither infinite nor NaN).
        """,
        returns=f"{BOOL_OF_X} A complex element is finite when both components are; integers and bools "
                "always are.",
        examples="""
        >>> xp.isfinite(xp.asarray([1.0, xp.inf, xp.nan]))
        Array([ True, False, False], dtype=bool, device=cpu)
        """,
    ),
    "isinf": Doc(
        """
        True where an element is positive or negative infinity.
        """,
        returns=f"{BOOL_OF_X} A complex element is infinite when either component is.",
        examples="""
        >>> xp.isinf(xp.asarray([1.0, -xp.inf, xp.nan]))
        Array([False,  True, False], dtype=bool, device=cpu)
        """,
    ),
    "isnan": Doc(
        """
        True where an element is NaN.
        """,
        returns=f"{BOOL_OF_X} A complex element is NaN when either component is.",
        examples="""
        >>> xp.isnan(xp.asarray([1.0, xp.nan]))
        Array([False,  True], dtype=bool, device=cpu)
        """,
    ),
    "signbit": Doc(
        """
        True where an element's sign bit is set.

        True for negative numbers, ``-0.0``, ``-inf`` and NaNs with the sign bit set.
        """,
        returns=BOOL_OF_X,
        examples="""
        >>> xp.signbit(xp.asarray([-1.0, -0.0, 0.0, 2.0]))
        Array([ True,  True, False, False], dtype=bool, device=cpu)
        """,
    ),
    "copysign": Doc(
        """
        Magnitude of ``x1`` with the sign bit of ``x2``, element-wise.

        The sign bit counts, so ``-0.0`` and NaNs with the bit set give a negative result.
        """,
        params={"x1": "Magnitudes", "x2": "Signs"},
        returns=f"In {PROMOTED_FLOAT}.",
        examples="""
        >>> xp.copysign(xp.asarray([1.0, 2.0, 3.0]), xp.asarray([-0.0, 0.0, -1.0]))
        Array([-1.,  2., -3.], dtype=float64, device=cpu)
        """,
    ),
    "nextafter": Doc(
        """
        Next representable value after ``x1`` in the direction of ``x2``, element-wise.

        ``x1`` if the two are equal; NaN if either is NaN.
        """,
        params={"x1": "Starting values", "x2": "Directions"},
        returns=f"In {PROMOTED_FLOAT}.",
        examples="""
        >>> xp.nextafter(xp.asarray([1.0], dtype=xp.float32), 2.0) - 1
        Array([1.1920929e-07], dtype=float32, device=cpu)
        """,
    ),
    "logical_and": Doc(
        """
        Logical AND of each element pair.

        Other dtypes are taken by their truth (zero is False), as numpy does.
        """,
        returns=BOOL_OF_PAIR,
        examples="""
        >>> xp.logical_and(xp.asarray([True, True, False]), xp.asarray([True, False, False]))
        Array([ True, False, False], dtype=bool, device=cpu)
        """,
    ),
    "logical_or": Doc(
        """
        Logical OR of each element pair.
        """,
        returns=BOOL_OF_PAIR,
        examples="""
        >>> xp.logical_or(xp.asarray([True, False]), False)
        Array([ True, False], dtype=bool, device=cpu)
        """,
    ),
    "logical_xor": Doc(
        """
        Logical XOR of each element pair.
        """,
        returns=BOOL_OF_PAIR,
        examples="""
        >>> xp.logical_xor(xp.asarray([True, True, False]), xp.asarray([True, False, False]))
        Array([False,  True, False], dtype=bool, device=cpu)
        """,
    ),
    "logical_not": Doc(
        """
        Logical NOT of each element.
        """,
        returns=BOOL_OF_X,
        examples="""
        >>> xp.logical_not(xp.asarray([True, False]))
        Array([False,  True], dtype=bool, device=cpu)
        """,
    ),
    "bitwise_and": Doc(
        """
        Bitwise AND of each element pair (``x1 & x2``).
        """,
        returns=f"In {PROMOTED_SCALAR}.",
        examples="""
        >>> xp.bitwise_and(xp.asarray([12, 10]), 6)
        Array([4, 2], dtype=int64, device=cpu)
        """,
    ),
    "bitwise_or": Doc(
        """
        Bitwise OR of each element pair (``x1 | x2``).
        """,
        returns=f"In {PROMOTED_SCALAR}.",
        examples="""
        >>> xp.asarray([12, 10]) | 1
        Array([13, 11], dtype=int64, device=cpu)
        """,
    ),
    "bitwise_xor": Doc(
        """
        Bitwise XOR of each element pair (``x1 ^ x2``).
        """,
        returns=f"In {PROMOTED_SCALAR}.",
        examples="""
        >>> xp.asarray([True, False]) ^ True
        Array([False,  True], dtype=bool, device=cpu)
        """,
    ),
    "bitwise_left_shift": Doc(
        """
        ``x1`` shifted left by ``x2`` bits (``x1 << x2``).
        """,
        params={
            "x1": "Values",
            "x2": "Shift counts, {dtype}, each non-negative (a negative count is unspecified by the "
                  "standard).",
        },
        returns=f"In {PROMOTED_SCALAR}; bits shifted out are lost.",
        examples="""
        >>> xp.bitwise_left_shift(xp.asarray([1, 3]), 2)
        Array([ 4, 12], dtype=int64, device=cpu)
        """,
    ),
    "bitwise_right_shift": Doc(
        """
        ``x1`` shifted right by ``x2`` bits, sign-extending (``x1 >> x2``).
        """,
        params={
            "x1": "Values",
            "x2": "Shift counts, {dtype}, each non-negative (a negative count is unspecified by the "
                  "standard).",
        },
        returns=f"In {PROMOTED_SCALAR} (an arithmetic shift: ``-8 >> 1`` is -4).",
        examples="""
        >>> xp.bitwise_right_shift(xp.asarray([16, -8]), 1)
        Array([ 8, -4], dtype=int64, device=cpu)
        """,
    ),
    "bitwise_invert": Doc(
        """
        Bitwise inversion of each element (``~x``).
        """,
        returns=f"{SAME} For booleans, logical NOT.",
        examples="""
        >>> xp.bitwise_invert(xp.asarray([0, 5], dtype=xp.uint8))
        Array([255, 250], dtype=uint8, device=cpu)
        >>> ~xp.asarray([True, False])
        Array([False,  True], dtype=bool, device=cpu)
        """,
    ),
}
