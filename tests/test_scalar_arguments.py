"""0-d Arrays where the standard writes a Python scalar.

numpy, cupy and torch take a 0-d array wherever they take a number (``linspace(x0, 1., 3)``,
``full(3, value)``, ``roll(x, shift=k)``), and array-API consumers such as SciPy rely on it. Every
such argument of the namespace takes a 0-d Array and then follows the scalar's rules for its value
(the Python scalar of its kind: bool, int, float or complex); ``full`` without ``dtype`` takes the
0-d Array's dtype, as numpy does. An array of another shape is refused with a TypeError that names
the shape, and an array on another device than the result with a ValueError.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from assertions import same

import dlarray as xp

Scalar = Callable[[Any], Any]

VECTOR = xp.asarray([3.0, -1.0, 2.0, 0.5])
MATRIX = xp.reshape(xp.arange(12.0), (3, 4))
SQUARE = xp.asarray([[4.0, 1.0], [1.0, 3.0]])
INTS = xp.asarray([5, 2, 7, 1])
BOOLS = xp.asarray([True, False, True, False])
COMPLEX = xp.asarray([1 + 2j, 3 - 1j, 0.5j, 2.0])

# (function name, parameter, call): ``call(s)`` calls the function with ``s(value)`` for the
# parameter, where ``s`` is either the identity (the Python scalar) or ``xp.asarray``.
CALLS: list[tuple[str, str, Callable[[Scalar], Any]]] = [
    # creation
    ("arange", "start", lambda s: xp.arange(s(1), 7)),
    ("arange", "stop", lambda s: xp.arange(1, s(4.0))),
    ("arange", "step", lambda s: xp.arange(0.0, 2.0, s(0.5))),
    ("linspace", "start", lambda s: xp.linspace(s(0.0), 1.0, 3)),
    ("linspace", "stop", lambda s: xp.linspace(0, s(1 + 1j), 3)),
    ("linspace", "num", lambda s: xp.linspace(0, 1, s(5))),
    ("full", "shape", lambda s: xp.full((s(2), 3), 1.5)),
    ("full", "fill_value", lambda s: xp.full(3, s(2), dtype=xp.int32)),
    ("full_like", "fill_value", lambda s: xp.full_like(VECTOR, s(1.0))),
    ("empty", "shape", lambda s: xp.empty(s(3)).shape),
    ("zeros", "shape", lambda s: xp.zeros((s(2), 1))),
    ("ones", "shape", lambda s: xp.ones(s(2))),
    ("eye", "n_rows", lambda s: xp.eye(s(3))),
    ("eye", "n_cols", lambda s: xp.eye(2, s(3))),
    ("eye", "k", lambda s: xp.eye(3, k=s(1))),
    ("tril", "k", lambda s: xp.tril(MATRIX, k=s(-1))),
    ("triu", "k", lambda s: xp.triu(MATRIX, k=s(1))),
    # manipulation
    ("broadcast_to", "shape", lambda s: xp.broadcast_to(VECTOR, (s(2), 4))),
    ("broadcast_shapes", "shapes", lambda s: xp.broadcast_shapes((s(3), 1), (1, 4))),
    ("concat", "axis", lambda s: xp.concat([MATRIX, MATRIX], axis=s(1))),
    ("expand_dims", "axis", lambda s: xp.expand_dims(VECTOR, axis=s(0))),
    ("flip", "axis", lambda s: xp.flip(MATRIX, axis=s(1))),
    ("moveaxis", "source", lambda s: xp.moveaxis(MATRIX, s(0), 1)),
    ("moveaxis", "destination", lambda s: xp.moveaxis(MATRIX, 0, s(-1))),
    ("permute_dims", "axes", lambda s: xp.permute_dims(MATRIX, (s(1), 0))),
    ("repeat", "repeats", lambda s: xp.repeat(VECTOR, s(2))),
    ("repeat", "axis", lambda s: xp.repeat(MATRIX, 2, axis=s(0))),
    ("reshape", "shape", lambda s: xp.reshape(MATRIX, (s(4), -1))),
    ("roll", "shift", lambda s: xp.roll(VECTOR, s(1))),
    ("roll", "axis", lambda s: xp.roll(MATRIX, 1, axis=s(1))),
    ("squeeze", "axis", lambda s: xp.squeeze(xp.ones((1, 3)), axis=s(0))),
    ("stack", "axis", lambda s: xp.stack([VECTOR, VECTOR], axis=s(1))),
    ("tile", "repetitions", lambda s: xp.tile(VECTOR, (s(2),))),
    ("unstack", "axis", lambda s: xp.unstack(MATRIX, axis=s(1))),
    ("take", "axis", lambda s: xp.take(MATRIX, xp.asarray([0, 2]), axis=s(1))),
    ("take", "indices", lambda s: xp.take(MATRIX, s(1), axis=1)),
    ("take_along_axis", "axis", lambda s: xp.take_along_axis(MATRIX, xp.zeros((3, 1), dtype=xp.int64), axis=s(1))),
    # statistics, searching, sorting
    ("all", "axis", lambda s: xp.all(MATRIX, axis=s(0))),
    ("any", "axis", lambda s: xp.any(MATRIX, axis=s(1))),
    ("argmax", "axis", lambda s: xp.argmax(MATRIX, axis=s(1))),
    ("argmin", "axis", lambda s: xp.argmin(MATRIX, axis=s(0))),
    ("argsort", "axis", lambda s: xp.argsort(MATRIX, axis=s(0))),
    ("sort", "axis", lambda s: xp.sort(MATRIX, axis=s(0))),
    ("count_nonzero", "axis", lambda s: xp.count_nonzero(MATRIX, axis=s(1))),
    ("cumulative_sum", "axis", lambda s: xp.cumulative_sum(MATRIX, axis=s(1))),
    ("cumulative_prod", "axis", lambda s: xp.cumulative_prod(MATRIX, axis=s(0))),
    ("diff", "axis", lambda s: xp.diff(MATRIX, axis=s(0))),
    ("diff", "n", lambda s: xp.diff(VECTOR, n=s(2))),
    ("max", "axis", lambda s: xp.max(MATRIX, axis=s(1))),
    ("min", "axis", lambda s: xp.min(MATRIX, axis=s(1))),
    ("mean", "axis", lambda s: xp.mean(MATRIX, axis=s(1))),
    ("prod", "axis", lambda s: xp.prod(MATRIX, axis=s(1))),
    ("sum", "axis", lambda s: xp.sum(MATRIX, axis=(s(0), 1))),
    ("std", "axis", lambda s: xp.std(MATRIX, axis=s(1))),
    ("std", "correction", lambda s: xp.std(VECTOR, correction=s(1))),
    ("var", "axis", lambda s: xp.var(MATRIX, axis=s(0))),
    ("var", "correction", lambda s: xp.var(VECTOR, correction=s(1.5))),
    ("vecdot", "axis", lambda s: xp.vecdot(MATRIX, MATRIX, axis=s(0))),
    ("tensordot", "axes", lambda s: xp.tensordot(MATRIX, MATRIX, axes=s(0))),
    ("searchsorted", "x2", lambda s: xp.searchsorted(xp.sort(VECTOR), s(1.0))),
    ("isin", "x1", lambda s: xp.isin(s(2), INTS)),
    ("isin", "x2", lambda s: xp.isin(INTS, s(2))),
    ("clip", "min", lambda s: xp.clip(VECTOR, min=s(0.0))),
    ("clip", "max", lambda s: xp.clip(VECTOR, max=s(1))),
    ("where", "x1", lambda s: xp.where(BOOLS, s(1.5), VECTOR)),
    ("where", "x2", lambda s: xp.where(BOOLS, VECTOR, s(2))),
    # linalg and fft
    ("linalg.cross", "axis", lambda s: xp.linalg.cross(xp.ones((3, 2)), xp.ones((3, 2)), axis=s(0))),
    ("linalg.diagonal", "offset", lambda s: xp.linalg.diagonal(MATRIX, offset=s(1))),
    ("linalg.trace", "offset", lambda s: xp.linalg.trace(MATRIX, offset=s(-1))),
    ("linalg.matrix_norm", "ord", lambda s: xp.linalg.matrix_norm(SQUARE, ord=s(1))),
    ("linalg.matrix_power", "n", lambda s: xp.linalg.matrix_power(SQUARE, s(3))),
    ("linalg.matrix_rank", "rtol", lambda s: xp.linalg.matrix_rank(SQUARE, rtol=s(0.5))),
    ("linalg.pinv", "rtol", lambda s: xp.linalg.pinv(SQUARE, rtol=s(0.01))),
    ("linalg.tensordot", "axes", lambda s: xp.linalg.tensordot(MATRIX, MATRIX, axes=s(0))),
    ("linalg.vecdot", "axis", lambda s: xp.linalg.vecdot(MATRIX, MATRIX, axis=s(1))),
    ("linalg.vector_norm", "axis", lambda s: xp.linalg.vector_norm(MATRIX, axis=s(1))),
    ("linalg.vector_norm", "ord", lambda s: xp.linalg.vector_norm(VECTOR, ord=s(3))),
    ("fft.fft", "n", lambda s: xp.fft.fft(COMPLEX, n=s(6))),
    ("fft.fft", "axis", lambda s: xp.fft.fft(COMPLEX, axis=s(0))),
    ("fft.ifft", "n", lambda s: xp.fft.ifft(COMPLEX, n=s(3))),
    ("fft.ifft", "axis", lambda s: xp.fft.ifft(COMPLEX, axis=s(-1))),
    ("fft.rfft", "n", lambda s: xp.fft.rfft(VECTOR, n=s(6))),
    ("fft.rfft", "axis", lambda s: xp.fft.rfft(MATRIX, axis=s(0))),
    ("fft.irfft", "n", lambda s: xp.fft.irfft(COMPLEX, n=s(5))),
    ("fft.irfft", "axis", lambda s: xp.fft.irfft(COMPLEX, axis=s(0))),
    ("fft.hfft", "n", lambda s: xp.fft.hfft(COMPLEX, n=s(5))),
    ("fft.hfft", "axis", lambda s: xp.fft.hfft(COMPLEX, axis=s(0))),
    ("fft.ihfft", "n", lambda s: xp.fft.ihfft(VECTOR, n=s(3))),
    ("fft.ihfft", "axis", lambda s: xp.fft.ihfft(VECTOR, axis=s(0))),
    ("fft.fftn", "s", lambda s: xp.fft.fftn(MATRIX, s=(s(2), 4), axes=(0, 1))),
    ("fft.fftn", "axes", lambda s: xp.fft.fftn(MATRIX, axes=(s(1),))),
    ("fft.ifftn", "s", lambda s: xp.fft.ifftn(MATRIX, s=(s(3),), axes=(0,))),
    ("fft.ifftn", "axes", lambda s: xp.fft.ifftn(MATRIX, axes=(s(0),))),
    ("fft.rfftn", "s", lambda s: xp.fft.rfftn(MATRIX, s=(3, s(4)), axes=(0, 1))),
    ("fft.rfftn", "axes", lambda s: xp.fft.rfftn(MATRIX, axes=(s(0),))),
    ("fft.irfftn", "s", lambda s: xp.fft.irfftn(MATRIX, s=(3, s(6)), axes=(0, 1))),
    ("fft.irfftn", "axes", lambda s: xp.fft.irfftn(MATRIX, axes=(s(0),))),
    ("fft.fftfreq", "n", lambda s: xp.fft.fftfreq(s(5))),
    ("fft.fftfreq", "d", lambda s: xp.fft.fftfreq(5, d=s(0.5))),
    ("fft.rfftfreq", "n", lambda s: xp.fft.rfftfreq(s(5))),
    ("fft.rfftfreq", "d", lambda s: xp.fft.rfftfreq(5, d=s(2))),
    ("fft.fftshift", "axes", lambda s: xp.fft.fftshift(MATRIX, axes=s(1))),
    ("fft.ifftshift", "axes", lambda s: xp.fft.ifftshift(MATRIX, axes=s(0))),
]

# a scalar in place of an array operand of every two-operand elementwise function
for _name, _value in [
    ("add", 1.5), ("atan2", 1.0), ("bitwise_and", 3), ("bitwise_left_shift", 1), ("bitwise_or", 2),
    ("bitwise_right_shift", 1), ("bitwise_xor", 6), ("copysign", -1.0), ("divide", 2.0), ("equal", 2),
    ("floor_divide", 2), ("greater", 1), ("greater_equal", 1.0), ("hypot", 3.0), ("less", 2),
    ("less_equal", 2), ("logaddexp", 0.5), ("logical_and", True), ("logical_or", False),
    ("logical_xor", True), ("maximum", 2), ("minimum", 2.5), ("multiply", 1j), ("nextafter", 1.0),
    ("not_equal", 2), ("pow", 2), ("remainder", 3), ("subtract", 1),
]:
    _operand = BOOLS if isinstance(_value, bool) else INTS if _name.startswith("bitwise") else VECTOR
    CALLS.append((_name, "x1", lambda s, f=_name, v=_value, a=_operand: getattr(xp, f)(s(v), a)))
    CALLS.append((_name, "x2", lambda s, f=_name, v=_value, a=_operand: getattr(xp, f)(a, s(v))))

# parameters that are flags (True/False switches), not values: a 0-d Array there is not asked for
FLAGS = {"keepdims", "descending", "stable", "copy", "endpoint", "upper", "full_matrices",
         "include_initial", "invert"}
# where an Array is an array (it promotes as one), not a stand-in for a scalar
ARRAY_PARAMETERS = {("result_type", "arrays_and_dtypes")}


def _functions() -> dict[str, Any]:
    names = {}
    for prefix, module in (("", xp), ("linalg.", xp.linalg), ("fft.", xp.fft)):
        public = getattr(module, "__all__", None) or [name for name in dir(module) if not name.startswith("_")]
        for name in public:
            value = getattr(module, name)
            if inspect.isfunction(value):
                names[prefix + name] = value
    return names


def _scalar_parameters() -> set[tuple[str, str]]:
    """Every (function, parameter) whose annotation admits a number."""
    found = set()
    for name, function in _functions().items():
        for parameter in inspect.signature(function).parameters.values():
            annotation = str(parameter.annotation)
            if parameter.name not in FLAGS and any(t in annotation for t in ("int", "float", "complex", "bool")):
                found.add((name, parameter.name))
    return found


def test_every_scalar_parameter_of_the_namespace_is_checked_here() -> None:
    parameters = _scalar_parameters()
    assert ("full", "fill_value") in parameters and ("fft.fftfreq", "d") in parameters
    assert parameters - ARRAY_PARAMETERS - {(name, parameter) for name, parameter, _ in CALLS} == set()


@pytest.mark.parametrize("name, parameter, call", CALLS, ids=[f"{n}-{p}" for n, p, _ in CALLS])
def test_a_0d_array_acts_as_its_python_scalar(name: str, parameter: str, call: Callable[[Scalar], Any]) -> None:
    same(call(xp.asarray), call(lambda value: value))


def test_full_takes_the_dtype_of_a_0d_array_and_the_scalar_rules_for_its_value() -> None:
    assert xp.full(2, xp.asarray(1.5, dtype=xp.float32)).dtype == xp.float32
    assert xp.full(2, xp.asarray(7, dtype=xp.int8), dtype=xp.int64).dtype == xp.int64
    with pytest.raises(OverflowError, match="out of the range of int8"):
        xp.full(2, xp.asarray(300), dtype=xp.int8)
    with pytest.raises(TypeError, match="complex"):
        xp.full_like(xp.zeros(2), xp.asarray(1j))
    with pytest.raises(TypeError, match="bool"):  # arange refuses bools, as Python scalars
        xp.arange(xp.asarray(True))


@pytest.mark.parametrize("call", [
    lambda a: xp.full(3, a), lambda a: xp.full_like(VECTOR, a), lambda a: xp.arange(a),
    lambda a: xp.linspace(a, 1.0, 3), lambda a: xp.std(VECTOR, correction=a),
    lambda a: xp.linalg.vector_norm(VECTOR, ord=a), lambda a: xp.fft.fftfreq(4, d=a),
    lambda a: xp.tensordot(MATRIX, MATRIX, axes=a),
], ids=["full", "full_like", "arange", "linspace", "std", "vector_norm", "fftfreq", "tensordot"])
def test_an_array_of_another_shape_is_refused_naming_its_shape(call: Callable[[Any], Any]) -> None:
    with pytest.raises(TypeError, match=r"shape \(1,\)"):
        call(xp.asarray([1]))


def test_the_result_is_made_where_the_0d_arrays_are() -> None:
    """With device=None, the device of the 0-d Arrays; a device that differs from theirs is refused."""
    from dlarray._args import scalar_device  # the rule itself: a second device needs a GPU here
    cpu = xp.asarray(1.0).device
    assert xp.full(2, xp.asarray(1.0)).device == cpu
    assert scalar_device(None, 1.0, xp.asarray(2.0)) is cpu
    assert scalar_device(None, 1.0, 2.0) is None
    with pytest.raises(ValueError, match="different devices: cuda:0 and cpu"):
        scalar_device(xp.Device("cuda:0"), xp.asarray(2.0))


@pytest.mark.parametrize("number", [np.float64(0.5), np.float32(0.5), np.int64(1), np.int8(1), np.bool_(True),
                                    type("MyFloat", (float,), {})(0.5), type("MyInt", (int,), {})(1)],
                         ids=["float64", "float32", "int64", "int8", "bool_", "float-subclass", "int-subclass"])
def test_functions_take_numpy_scalars_as_the_operators_do(number: Any) -> None:
    """A numpy scalar is a 0-d array of its dtype, a subclass of a Python scalar that scalar:
    ``xp.add(x, v)`` gives exactly ``x + v``, and so do where, clip, isin and searchsorted."""
    floats = xp.asarray([0.25, 1.0, 2.0], dtype=xp.float32)
    ints = xp.asarray([1, 2, 3], dtype=xp.int16)
    x = ints if isinstance(number, (int, np.integer, np.bool_)) else floats
    # what the operators make of it: a 0-d array of the numpy scalar's dtype, or the Python scalar
    meant = xp.asarray(number) if isinstance(number, np.generic) else (int if isinstance(number, int) else float)(number)
    assert (x + number).dtype == (x + meant).dtype
    for function in (xp.add, xp.multiply, xp.equal, xp.maximum, xp.atan2 if x is floats else xp.bitwise_or):
        for ours, expected in ((function(x, number), function(x, meant)), (function(number, x), function(meant, x))):
            assert ours.dtype == expected.dtype
            assert np.asarray(ours).tolist() == np.asarray(expected).tolist()
    mask = xp.asarray([True, False, True])
    chosen = xp.where(mask, x, number)
    assert chosen.dtype == (x + number).dtype and np.asarray(chosen)[1] == np.asarray(number).astype(np.asarray(chosen).dtype)
    assert np.asarray(xp.clip(x, number, None)).min() >= number
    assert xp.isin(x, number).dtype == xp.bool
    assert int(xp.searchsorted(x, number)) == int(np.searchsorted(np.asarray(x), number))


def test_functions_refuse_what_is_not_a_number() -> None:
    x = xp.asarray([1.0, 2.0])
    for call in (lambda: xp.add(x, "1"), lambda: xp.where(xp.asarray([True, False]), x, None),
                 lambda: xp.clip(x, "0"), lambda: xp.isin(x, object()), lambda: xp.add(np.float64(1.0), 2.0)):
        with pytest.raises(TypeError):
            call()
