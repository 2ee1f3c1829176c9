"""The namespace on CUDA arrays, on the CPU: every function computes through cupy, never numpy.

cupy here is tests/numpy_cupy.py: numpy over host memory that dlarray is told lives on
``cuda:0``, refusing numpy as real cupy does, with cupy's names and signatures and its known
departures from the standard (a zero filled as zero bytes, its remainder, thrust's complex log,
tanh and acosh). Each result on ``cuda:0`` must equal, bit for bit where the standard fixes the
bits (signed zeros, NaN positions), the same function's result on the CPU, which the Array API
suite passes with 0 failures. tests/gpu/test_cuda_namespace_gpu.py runs the same checks on a real GPU.
"""

from __future__ import annotations

import itertools
import math
import operator
import types
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy_cupy
import pytest

import dlarray as xp
from dlarray import _cuda

CUDA = "cuda:0"
SPECIAL = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 0.5, -0.5, 2.0, -3.0, 1e-300]


@pytest.fixture(autouse=True)
def cupy(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(_cuda, "_driver_state", [None])  # no driver: nothing is ever ordered
    return numpy_cupy.install(monkeypatch)


def test_cuda_arrays_here_are_held_by_the_numpy_cupy() -> None:
    assert isinstance(on_cuda([1.0])._native, numpy_cupy.ndarray)


def on_cuda(values: Any, dtype: Any = None) -> xp.Array:
    x = xp.asarray(np.asarray(values, dtype=dtype), device=CUDA)
    assert str(x.device) == CUDA
    return x


def host(x: Any) -> np.ndarray:
    assert str(x.device) == CUDA, "a result of a CUDA array left the GPU"
    return np.asarray(x.to_device("cpu"))


# cupy's complex and linalg kernels are not numpy's: results other than special cases agree to rounding
# (tests/gpu/test_cuda_namespace_gpu.py loosens these for a real GPU)
RTOL, ATOL = 1e-10, 1e-12
# Whether "exact" comparisons hold finite nonzero values to the last bit. Here (numpy on both sides)
# they do; on a real GPU (tests/gpu/test_cuda_namespace_gpu.py) CUDA's libm, cuFFT and its reduction
# order round differently from numpy's, so there those values are compared to RTOL/ATOL, and the
# exact part is what the standard fixes: NaN positions, infinities and signed zeros.
SAME_ROUNDING = True


def compare(cuda_result: Any, cpu_result: Any, *, exact: bool, zero_signs: bool = True, signs: bool = True) -> None:
    """``exact``: NaNs in the same places (a NaN's sign is not compared: the standard never fixes
    it), infinities equal, zeros with the same sign (unless ``zero_signs`` is False, where the
    standard leaves a zero's sign to the implementation), each component; other values equal (to
    RTOL/ATOL where not SAME_ROUNDING). ``signs`` False compares the components' magnitudes only
    (where the standard leaves the signs open). Else equal to RTOL/ATOL. Tuples are compared item
    by item."""
    if isinstance(cpu_result, tuple):
        for ours, theirs in zip(cuda_result, cpu_result, strict=True):
            compare(ours, theirs, exact=exact, zero_signs=zero_signs, signs=signs)
        return
    got, want = host(cuda_result), np.asarray(cpu_result)
    if not signs:
        got, want = _magnitudes(got), _magnitudes(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    if not exact:
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
        return
    if want.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, want)
        return
    parts = (lambda a: (a.real, a.imag)) if want.dtype.kind == "c" else (lambda a: (a,))
    for g, w in zip(parts(got), parts(want)):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w), err_msg="NaN positions")
        np.testing.assert_array_equal(g[np.isinf(w) | np.isinf(g)], w[np.isinf(w) | np.isinf(g)], err_msg="infinities")
        finite = np.isfinite(w) & np.isfinite(g)
        if SAME_ROUNDING:
            np.testing.assert_array_equal(g[finite], w[finite])
        else:
            np.testing.assert_allclose(g[finite], w[finite], rtol=RTOL, atol=ATOL)
        if zero_signs:
            zeros = (g == 0) & (w == 0)
            np.testing.assert_array_equal(np.signbit(g[zeros]), np.signbit(w[zeros]), err_msg="the sign of a zero")


def _magnitudes(a: np.ndarray) -> np.ndarray:
    """Each component's magnitude (a NaN stays a NaN; no arithmetic turns an infinity into one)."""
    out = np.abs(a) if a.dtype.kind != "c" else np.empty_like(a)
    if a.dtype.kind == "c":
        out.real, out.imag = np.abs(a.real), np.abs(a.imag)
    return out


def assert_same_bits(cuda_result: Any, cpu_result: Any, *, zero_signs: bool = True, signs: bool = True) -> None:
    compare(cuda_result, cpu_result, exact=True, zero_signs=zero_signs, signs=signs)


def assert_close(cuda_result: Any, cpu_result: Any) -> None:
    compare(cuda_result, cpu_result, exact=False)


# ----------------------------------------------------------------------------- special cases
UNARY = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "exp", "expm1",
         "floor", "isfinite", "isinf", "isnan", "log", "log1p", "log2", "log10", "negative", "positive",
         "round", "sign", "signbit", "sin", "sinh", "sqrt", "square", "tan", "tanh", "trunc", "reciprocal"]
BINARY = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow", "atan2", "hypot",
          "copysign", "nextafter", "maximum", "minimum", "logaddexp", "equal", "less", "greater_equal"]
COMPLEX_UNARY = ["log", "log1p", "tanh", "tan", "acosh", "asinh", "atanh", "exp", "expm1", "sqrt", "sin",
                 "cosh", "sign", "abs", "reciprocal"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_special_cases_match_the_cpu(name: str) -> None:
    values = np.array(SPECIAL)
    function = getattr(xp, name)
    with np.errstate(all="ignore"):
        assert_same_bits(function(on_cuda(values)), function(xp.asarray(values)))


# The standard: "the order of signed zeros is unspecified and thus implementation-defined"
ZERO_ORDER_FREE = {"maximum", "minimum"}


@pytest.mark.parametrize("name", BINARY)
def test_binary_special_cases_match_the_cpu(name: str) -> None:
    pairs = np.array(list(itertools.product(SPECIAL, repeat=2)))
    function = getattr(xp, name)
    zero_signs = name not in ZERO_ORDER_FREE
    with np.errstate(all="ignore"):
        expected = function(xp.asarray(pairs[:, 0]), xp.asarray(pairs[:, 1]))
        assert_same_bits(function(on_cuda(pairs[:, 0]), on_cuda(pairs[:, 1])), expected, zero_signs=zero_signs)
        # a Python scalar operand takes the same path as on the CPU
        assert_same_bits(function(on_cuda(pairs[:, 0]), -0.0), function(xp.asarray(pairs[:, 0]), -0.0),
                         zero_signs=zero_signs)
    if not zero_signs:  # where an operand is not a zero, the sign is fixed
        some = pairs[(pairs[:, 0] != 0) | (pairs[:, 1] != 0)]
        assert_same_bits(function(on_cuda(some[:, 0]), on_cuda(some[:, 1])),
                         function(xp.asarray(some[:, 0]), xp.asarray(some[:, 1])))
        nonzero = pairs[pairs[:, 0] != 0, 0]
        assert_same_bits(function(on_cuda(nonzero), -0.0), function(xp.asarray(nonzero), -0.0))


def _infinite(z: np.ndarray) -> np.ndarray:
    return np.isinf(z.real) | np.isinf(z.imag)


# Complex arguments whose result the standard leaves to the implementation, by function:
# ``sign`` and ``reciprocal`` follow complex division, whose special cases with an infinite
# component are "implementation dependent" (and a zero divisor "should" follow the textbook formula:
# NaN, where numpy gives an infinity).
COMPLEX_FREE: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "sign": lambda z: _infinite(z) & ~np.isnan(z.real) & ~np.isnan(z.imag),
    "reciprocal": lambda z: _infinite(z) | (z == 0),
}
# Complex arguments whose result's signs the standard leaves open ("sign of the real/imaginary
# component is unspecified"), by function (with the symmetries it states: conj, odd or even). sin
# is ``-1j * sinh(1j * x)``; sinh leaves the real sign of ``±0 + (inf or NaN) j`` and of
# ``±inf + (inf or NaN) j`` open. cupy's thrust takes the other sign in some of them (seen on an H200).
COMPLEX_SIGN_FREE: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "sin": lambda z: (np.isinf(z.real) | np.isnan(z.real)) & ((z.imag == 0) | np.isinf(z.imag)),
    "cosh": lambda z: (((z.real == 0) & ~np.isfinite(z.imag)) | (np.isinf(z.real) & np.isinf(z.imag))
                       | (np.isnan(z.real) & (z.imag == 0))),
    "asinh": lambda z: np.isnan(z.real) & np.isinf(z.imag),
}


@pytest.mark.parametrize("name", COMPLEX_UNARY)
def test_complex_special_cases_match_the_cpu(name: str) -> None:
    parts = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -2.0]
    values = np.array([complex(a, b) for a in parts for b in parts])
    if name in COMPLEX_FREE:
        values = values[~COMPLEX_FREE[name](values)]
    # the special cases (a zero, infinite or NaN component) exactly; the others to rounding (cupy's
    # complex kernels are not numpy's)
    special = ~np.isfinite(values) | (values == 0) | (values == -1)
    function = getattr(xp, name)
    if name in COMPLEX_SIGN_FREE:
        open_signs = COMPLEX_SIGN_FREE[name](values)
        with np.errstate(all="ignore"):
            assert_same_bits(function(on_cuda(values[open_signs])), function(xp.asarray(values[open_signs])),
                             signs=False)
        values, special = values[~open_signs], special[~open_signs]
    with np.errstate(all="ignore"):
        assert_same_bits(function(on_cuda(values[special])), function(xp.asarray(values[special])))
        assert_close(function(on_cuda(values[~special])), np.asarray(function(xp.asarray(values[~special]))))


def test_cupys_departures_are_corrected(cupy: Any) -> None:
    """The fake cupy really departs where real cupy does, and dlarray corrects each departure."""
    with np.errstate(all="ignore"):
        assert math.isnan(float(cupy.remainder(cupy.asarray(np.array([1.0])), math.inf)[0]))
        assert float(xp.remainder(on_cuda([1.0]), math.inf)[0]) == 1.0
        assert float(xp.remainder(on_cuda([-1.0]), math.inf)[0]) == math.inf
        assert math.copysign(1, float(xp.remainder(on_cuda([0.0]), -5.0)[0])) == -1
        log_inf_nan = xp.log(on_cuda([complex(math.inf, math.nan)]))[0]
        assert complex(log_inf_nan).real == math.inf
        tanh_zero_inf = complex(xp.tanh(on_cuda([complex(-0.0, math.inf)]))[0])
        assert tanh_zero_inf.real == 0 and math.copysign(1, tanh_zero_inf.real) == -1
        acosh_zero_nan = complex(xp.acosh(on_cuda([complex(0.0, math.nan)]))[0])
        assert math.isnan(acosh_zero_nan.real) and abs(acosh_zero_nan.imag) == math.pi / 2


# ----------------------------------------------------------------------------- signed zeros in and out
def test_a_negative_zero_keeps_its_sign_on_the_way_to_the_gpu(cupy: Any) -> None:
    assert math.copysign(1, float(cupy.asarray(np.array(-0.0)))) == 1  # cupy's own fill loses it
    for made in (xp.asarray(-0.0, device=CUDA), xp.asarray(-0.0, dtype=xp.float32, device=CUDA),
                 xp.full((), -0.0, device=CUDA), xp.asarray(np.float64(-0.0), device=CUDA),
                 xp.asarray(xp.asarray(-0.0), device=CUDA)):
        assert str(made.device) == CUDA
        assert bool(xp.signbit(made)) and math.copysign(1, float(made)) == -1
    z = xp.asarray(complex(-0.0, -0.0), device=CUDA)
    assert all(math.copysign(1, part) == -1 for part in (complex(z).real, complex(z).imag))


def test_assigning_a_negative_zero_keeps_its_sign() -> None:
    x = on_cuda([1.0, 2.0, 3.0])
    x[1] = -0.0
    x[2:] = -0.0
    assert host(xp.signbit(x)).tolist() == [False, True, True]
    c = on_cuda([1 + 1j], dtype=np.complex128)
    c[0] = complex(-0.0, 0.0)
    assert math.copysign(1, complex(c[0]).real) == -1


# ----------------------------------------------------------------------------- operators
IN_PLACE = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
            "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "@=": operator.imatmul}


@pytest.mark.parametrize("symbol", list(IN_PLACE))
def test_in_place_operators_give_what_the_cpu_gives(symbol: str) -> None:
    values = np.array([[1.5, -0.0], [math.inf, -2.0]])
    other = np.array([[2.0, -3.0], [0.5, math.inf]])
    results = []
    for place in (lambda v: xp.asarray(v), on_cuda):
        x, y = place(values.copy()), place(other)
        with np.errstate(all="ignore"):
            assert IN_PLACE[symbol](x, y) is x  # in place: the same Array
        results.append(x)
    assert_same_bits(results[1], np.asarray(results[0]))


@pytest.mark.parametrize("scalar", [np.float64(-0.0), np.float32(2.5), np.int64(3), np.bool_(True)],
                         ids=lambda s: type(s).__name__)
@pytest.mark.parametrize("symbol", ["+", "*", "==", "<", "+="])
def test_numpy_scalar_operands_go_to_the_arrays_device(symbol: str, scalar: np.generic) -> None:
    """A numpy scalar (what numpy's reductions return, and scikit-learn's attributes fitted on
    numpy) is one value: a CUDA array's operator computes with it on the GPU, its dtype kept, as
    on the CPU (it is not refused as an array from another device; numpy *arrays* are)."""
    operation = {"+": operator.add, "*": operator.mul, "==": operator.eq, "<": operator.lt, "+=": operator.iadd}
    values = np.array([1.5, -0.0, 2.0], dtype=np.float32)
    expected = operation[symbol](xp.asarray(values.copy()), scalar)
    assert_same_bits(operation[symbol](on_cuda(values.copy()), scalar), np.asarray(expected))
    if symbol != "+=":  # reflected
        reflected = operation[symbol](scalar, xp.asarray(values))
        assert_same_bits(operation[symbol](scalar, on_cuda(values)), np.asarray(reflected))
    with pytest.raises(ValueError, match="different devices"):
        operation[symbol](on_cuda(values), np.asarray([scalar]))


# ----------------------------------------------------------------------------- linalg
def _matrices(shape: tuple[int, ...], seed: int = 0, spd: bool = False) -> np.ndarray:
    a = np.random.default_rng(seed).standard_normal(shape)
    if spd:
        a = a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])
    return a


LINALG_CASES: list[tuple[str, Callable[[Any, Any], Any], list[np.ndarray]]] = [
    ("cholesky", lambda m, a: m.linalg.cholesky(a), [_matrices((2, 3, 3), spd=True)]),
    ("cholesky upper", lambda m, a: m.linalg.cholesky(a, upper=True), [_matrices((2, 3, 3), spd=True)]),
    ("pinv", lambda m, a: m.linalg.pinv(a), [_matrices((2, 4, 3))]),
    ("pinv rtol", lambda m, a: m.linalg.pinv(a, rtol=0.5), [_matrices((2, 4, 3))]),
    ("svdvals", lambda m, a: m.linalg.svdvals(a), [_matrices((2, 4, 3))]),
    ("matrix_rank", lambda m, a: m.linalg.matrix_rank(a), [np.array([[1.0, 2.0], [2.0, 4.0]])]),
    ("matrix_rank rtol", lambda m, a: m.linalg.matrix_rank(a, rtol=0.9), [_matrices((2, 3, 3))]),
    ("matrix_norm fro", lambda m, a: m.linalg.matrix_norm(a), [_matrices((2, 3, 4))]),
    ("matrix_norm nuc keepdims", lambda m, a: m.linalg.matrix_norm(a, ord="nuc", keepdims=True), [_matrices((2, 3, 4))]),
    ("matrix_norm -2", lambda m, a: m.linalg.matrix_norm(a, ord=-2), [_matrices((2, 3, 4))]),
    ("matrix_norm inf", lambda m, a: m.linalg.matrix_norm(a, ord=math.inf), [_matrices((2, 3, 4))]),
    ("matrix_norm 1", lambda m, a: m.linalg.matrix_norm(a, ord=1), [_matrices((2, 3, 4))]),
    ("vector_norm", lambda m, a: m.linalg.vector_norm(a), [_matrices((2, 3, 4))]),
    ("vector_norm axes", lambda m, a: m.linalg.vector_norm(a, axis=(0, 2), keepdims=True), [_matrices((2, 3, 4))]),
    ("vector_norm ord 3 axis", lambda m, a: m.linalg.vector_norm(a, axis=1, ord=3), [_matrices((2, 3, 4))]),
    ("vector_norm ord -inf", lambda m, a: m.linalg.vector_norm(a, axis=-1, ord=-math.inf), [_matrices((2, 3, 4))]),
    ("vector_norm ord 0", lambda m, a: m.linalg.vector_norm(a, ord=0), [np.array([0.0, 1.0, -0.0, 2.0])]),
    ("trace", lambda m, a: m.linalg.trace(a, offset=1), [_matrices((2, 3, 4))]),
    ("trace int", lambda m, a: m.linalg.trace(m.astype(a, m.int8)), [np.arange(18.0).reshape(2, 3, 3)]),
    ("outer", lambda m, a, b: m.linalg.outer(a, b), [np.arange(3.0), np.arange(4.0)]),
    ("cross", lambda m, a, b: m.linalg.cross(a, b), [_matrices((2, 3)), _matrices((1, 3), seed=1)]),
    ("solve vector", lambda m, a, b: m.linalg.solve(a, b), [_matrices((2, 3, 3), spd=True), np.arange(3.0)]),
    ("solve broadcast", lambda m, a, b: m.linalg.solve(a, b),
     [_matrices((2, 3, 3), spd=True), _matrices((3, 2), seed=2)]),
    ("solve without columns", lambda m, a, b: m.linalg.solve(a, b), [_matrices((2, 3, 3), spd=True), np.zeros((2, 3, 0))]),
    ("solve of no systems", lambda m, a, b: m.linalg.solve(a, b), [np.zeros((0, 3, 3)), np.zeros((0, 3, 2))]),
    ("solve of empty matrices", lambda m, a, b: m.linalg.solve(a, b), [np.zeros((2, 0, 0)), np.zeros((0,))]),
    ("cross of a broadcast stack", lambda m, a, b: m.linalg.cross(a, b, axis=-2),
     [_matrices((2, 3, 1)), _matrices((4, 3, 2), seed=1)[:1]]),
    ("diagonal", lambda m, a: m.linalg.diagonal(a, offset=-1), [_matrices((2, 3, 4))]),
    ("det", lambda m, a: m.linalg.det(a), [_matrices((2, 3, 3))]),
    ("inv", lambda m, a: m.linalg.inv(a), [_matrices((2, 3, 3))]),
    ("slogdet", lambda m, a: tuple(m.linalg.slogdet(a)), [_matrices((2, 3, 3))]),
    ("eigvalsh", lambda m, a: m.linalg.eigvalsh(a), [_matrices((2, 3, 3), spd=True)]),
    ("qr", lambda m, a: tuple(m.linalg.qr(a)), [_matrices((2, 4, 3))]),
    ("matrix_power", lambda m, a: m.linalg.matrix_power(a, -2), [_matrices((2, 3, 3))]),
    ("matmul", lambda m, a, b: m.linalg.matmul(a, b), [_matrices((2, 3, 4)), _matrices((4, 2))]),
    ("matrix_transpose", lambda m, a: m.matrix_transpose(a), [_matrices((2, 3, 4))]),
    ("tensordot 0-d", lambda m, a, b: m.tensordot(a, b, axes=0), [np.array(2.5), np.arange(3.0)]),
    ("tensordot", lambda m, a, b: m.tensordot(a, b, axes=([1, 0], [0, 1])), [_matrices((3, 4)), _matrices((4, 3))]),
    ("vecdot", lambda m, a, b: m.vecdot(a, b), [_matrices((2, 3)), _matrices((3,), seed=3)]),
    ("vecdot complex", lambda m, a, b: m.vecdot(a, b, axis=0),
     [_matrices((3, 2)) + 1j * _matrices((3, 2), seed=4), _matrices((3, 2), seed=5)]),
]


@pytest.mark.parametrize(("function", "arguments"), [(f, a) for _, f, a in LINALG_CASES],
                         ids=[name for name, _, _ in LINALG_CASES])
def test_linalg_on_cuda_gives_what_the_cpu_gives(function: Callable[..., Any], arguments: list[np.ndarray]) -> None:
    expected = function(xp, *(xp.asarray(a) for a in arguments))
    assert_close(function(xp, *(on_cuda(a) for a in arguments)), _numpy(expected))


FAILING_FACTORIZATIONS: list[tuple[str, Callable[[Any], Any]]] = [
    ("cholesky of a matrix not positive definite", lambda m: m.linalg.cholesky(m.asarray([[1.0, 2.0], [2.0, 1.0]]))),
    ("cholesky upper", lambda m: m.linalg.cholesky(m.asarray([[-1.0, 0.0], [0.0, 1.0]]), upper=True)),
    ("inv of a singular matrix", lambda m: m.linalg.inv(m.asarray([[1.0, 2.0], [2.0, 4.0]]))),
    ("solve with a singular matrix", lambda m: m.linalg.solve(m.asarray([[1.0, 2.0], [2.0, 4.0]]), m.asarray([1.0, 1.0]))),
    ("solve with singular matrices and no columns",
     lambda m: m.linalg.solve(m.asarray([[[1.0, 2.0], [2.0, 4.0]]] * 2), m.asarray(np.zeros((2, 2, 0))))),
    ("matrix_power -1 of a singular matrix", lambda m: m.linalg.matrix_power(m.asarray([[0.0, 0.0], [0.0, 1.0]]), -1)),
]


@pytest.mark.parametrize("call", [call for _, call in FAILING_FACTORIZATIONS],
                         ids=[name for name, _ in FAILING_FACTORIZATIONS])
def test_failing_factorizations_raise_as_on_the_cpu(call: Callable[[Any], Any], cupy: Any) -> None:
    """cupy's default (cupyx linalg "ignore") returns what cuSOLVER left for a matrix that is not
    positive definite or is singular; numpy raises LinAlgError (a ValueError), and so must CUDA."""
    check_failing_factorization_raises(call)
    assert np.isnan(cupy.linalg.inv(cupy.asarray(np.zeros((2, 2)))).get()).all()  # cupy's own: no error


def check_failing_factorization_raises(call: Callable[[Any], Any]) -> None:
    with pytest.raises(np.linalg.LinAlgError):
        call(xp)  # the CPU
    with pytest.raises(np.linalg.LinAlgError):  # a ValueError, as documented
        call(types.SimpleNamespace(asarray=on_cuda, linalg=xp.linalg))


def test_pinv_and_matrix_rank_take_an_array_rtol() -> None:
    a = _matrices((2, 3, 3))
    rtol = np.array([0.1, 0.9])
    assert_close(xp.linalg.pinv(on_cuda(a), rtol=on_cuda(rtol)), np.asarray(xp.linalg.pinv(xp.asarray(a), rtol=xp.asarray(rtol))))
    assert_close(xp.linalg.matrix_rank(on_cuda(a), rtol=on_cuda(rtol)),
                 np.asarray(xp.linalg.matrix_rank(xp.asarray(a), rtol=xp.asarray(rtol))))


def test_diagonal_of_a_cuda_array_is_a_view() -> None:
    x = on_cuda(np.arange(9.0).reshape(3, 3))
    d = xp.linalg.diagonal(x)
    assert d.data_ptr == x.data_ptr and not d.readonly


VIEWS: list[tuple[str, Callable[[Any], Any]]] = [
    ("slice", lambda x: x[1:]),
    ("index tuple", lambda x: x[1, ::-1]),
    ("new axis", lambda x: x[None]),
    ("mT", lambda x: x.mT),
    ("reshape", lambda x: xp.reshape(x, (-1,))),
    ("permute_dims", lambda x: xp.permute_dims(x, (1, 0))),
    ("expand_dims", lambda x: xp.expand_dims(x, axis=0)),
    ("diagonal", lambda x: xp.linalg.diagonal(x)),
    ("real", lambda x: xp.real(x)),
    ("view of a view", lambda x: x[1:][:, 0]),
]


@pytest.mark.parametrize(("name", "view"), VIEWS, ids=[name for name, _ in VIEWS])
def test_views_of_read_only_cuda_memory_stay_read_only(name: str, view: Callable[[Any], Any]) -> None:
    """cupy arrays have no read-only flag (cupy/_core/core.pyx:462; cupy/_core/dlpack.pyx:323 leaves
    DLPack's unchecked): a view cupy makes of read-only memory (an import flagged read-only, a
    legacy capsule) is known read-only through the memory object it shares (``data.mem``), not
    written through."""
    from dlarray.testing import make_capsule

    values = np.arange(6.0).reshape(2, 3)
    made = make_capsule((2, 3), code=2, bits=64, device=(2, 0), flags=1, fill=values.tobytes())
    x = xp.from_dlpack(made.capsule)
    assert x.readonly
    y = view(x)
    assert y.readonly and y.data_ptr != 0
    with pytest.raises(ValueError, match="read-only"):
        y[...] = 7.0
    with pytest.raises(ValueError, match="read-only"):
        y += 1.0
    assert np.asarray(x.to_device("cpu")).tolist() == values.tolist()
    assert not (y + 1).readonly  # new memory
    assert not on_cuda(values)[1:].readonly  # writable memory's views stay writable


# ----------------------------------------------------------------------------- the rest of the namespace
OTHER_CASES: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("count_nonzero keepdims", lambda m, a: m.count_nonzero(a, axis=1, keepdims=True)),
    ("count_nonzero", lambda m, a: m.count_nonzero(a)),
    ("sum", lambda m, a: m.sum(a, axis=0)),
    ("prod", lambda m, a: m.prod(a, axis=(0, 1), keepdims=True)),
    ("mean", lambda m, a: m.mean(a, axis=1)),
    ("std", lambda m, a: m.std(a, correction=1)),
    ("var", lambda m, a: m.var(a, axis=0)),
    ("max", lambda m, a: m.max(a, axis=1)),
    ("min", lambda m, a: m.min(a)),
    ("cumulative_sum", lambda m, a: m.cumulative_sum(a, axis=1, include_initial=True)),
    ("cumulative_prod", lambda m, a: m.cumulative_prod(a, axis=0)),
    ("argmax", lambda m, a: m.argmax(a, axis=1)),
    ("argmin", lambda m, a: m.argmin(a)),
    ("sort", lambda m, a: m.sort(a, axis=1, descending=True)),
    ("argsort", lambda m, a: m.argsort(a, axis=0, stable=True)),
    ("nonzero", lambda m, a: m.nonzero(a)),
    ("where", lambda m, a: m.where(a > 0, a, -0.0)),
    ("unique_values", lambda m, a: m.unique_values(a)),
    ("unique_counts", lambda m, a: tuple(m.unique_counts(a))),
    ("unique_inverse", lambda m, a: tuple(m.unique_inverse(a))),
    ("unique_all", lambda m, a: tuple(m.unique_all(a))),
    ("isin", lambda m, a: m.isin(a, a[0])),
    ("isin of a scalar", lambda m, a: m.isin(m.astype(a, m.int64), 4)),
    ("isin in a scalar", lambda m, a: m.isin(3, m.astype(a, m.int64))),
    ("searchsorted", lambda m, a: m.searchsorted(m.sort(a[0]), a[1])),
    ("take", lambda m, a: m.take(a, m.asarray([2, 0], device=a.device), axis=1)),
    ("take_along_axis", lambda m, a: m.take_along_axis(a, m.argsort(a, axis=1), axis=1)),
    ("concat", lambda m, a: m.concat([a, a], axis=0)),
    ("stack", lambda m, a: m.stack([a, a], axis=1)),
    ("flip", lambda m, a: m.flip(a, axis=0)),
    ("roll", lambda m, a: m.roll(a, 2, axis=1)),
    ("reshape", lambda m, a: m.reshape(a, (4, 3))),
    ("permute_dims", lambda m, a: m.permute_dims(a, (1, 0))),
    ("tile", lambda m, a: m.tile(a, (2, 1))),
    ("repeat", lambda m, a: m.repeat(a, 2, axis=0)),
    ("moveaxis", lambda m, a: m.moveaxis(a[None], 0, 2)),
    ("squeeze", lambda m, a: m.squeeze(a[None], axis=0)),
    ("expand_dims", lambda m, a: m.expand_dims(a, axis=1)),
    ("broadcast_to", lambda m, a: m.broadcast_to(a, (2, 3, 4))),
    ("tril", lambda m, a: m.tril(a, k=1)),
    ("triu", lambda m, a: m.triu(a)),
    ("clip", lambda m, a: m.clip(a, -1.0, 1.0)),
    ("diff", lambda m, a: m.diff(a, axis=1, n=2)),
    ("all", lambda m, a: m.all(a > -5, axis=0)),
    ("any", lambda m, a: m.any(a > 1)),
    ("astype", lambda m, a: m.astype(a, m.float32)),
    ("real", lambda m, a: m.real(a + 0j)),
    ("conj", lambda m, a: m.conj(a * 1j)),
    ("matmul operator", lambda m, a: a @ m.matrix_transpose(a)),
    ("getitem mask", lambda m, a: a[a > 0]),
    ("getitem integers", lambda m, a: a[m.asarray([1, 0], device=a.device)]),
    ("fft", lambda m, a: m.fft.fft(a, axis=1)),
    ("rfftn", lambda m, a: m.fft.rfftn(a, axes=(0, 1))),
    ("irfft", lambda m, a: m.fft.irfft(m.fft.rfft(a), n=4)),
    ("fftshift", lambda m, a: m.fft.fftshift(a, axes=1)),
    ("fftn whole axis", lambda m, a: m.fft.fftn(a, s=(-1, 6), axes=(0, 1))),
    ("irfftn whole axis", lambda m, a: m.fft.irfftn(m.fft.rfftn(a), s=(2, -1), axes=(0, 1))),
    ("zeros_like", lambda m, a: m.zeros_like(a)),
    ("full_like", lambda m, a: m.full_like(a, -0.0)),
    ("eye", lambda m, a: m.eye(3, 4, k=1, device=a.device)),
    ("linspace", lambda m, a: m.linspace(0.0, 1.0, 5, device=a.device)),
    ("meshgrid", lambda m, a: tuple(m.meshgrid(a[0], a[1]))),
    ("vecdot", lambda m, a: m.vecdot(a, a[0] * 1j, axis=-1)),
    ("vecdot conjugates x1", lambda m, a: m.vecdot(a * 1j + 1, a[1] * 1j)),
    ("vecdot of bools", lambda m, a: m.vecdot(a > 0, a < 4)),
    ("vecdot of bools and integers", lambda m, a: m.vecdot(a > 0, m.astype(a, m.int8), axis=0)),
    ("vecdot keeps small integers", lambda m, a: m.vecdot(m.astype(a > 0, m.uint8), m.astype(a < 4, m.uint8))),
    ("linalg.vecdot", lambda m, a: m.linalg.vecdot(m.astype(a, m.int8), m.astype(a, m.int8), axis=0)),
    ("asarray of cuda elements", lambda m, a: m.asarray([[a[0, 1], a[1, 0]], [a[2, 2], 7.0]], device=a.device)),
    ("asarray of cuda rows", lambda m, a: m.asarray([a[0], a[2]], dtype=m.float32, device=a.device)),
]


@pytest.mark.parametrize("function", [f for _, f in OTHER_CASES], ids=[name for name, _ in OTHER_CASES])
def test_the_namespace_on_cuda_gives_what_the_cpu_gives(function: Callable[..., Any]) -> None:
    values = np.array([[3.0, -1.0, 0.0, 2.0], [-0.0, 5.0, -2.0, 1.0], [4.0, 4.0, -3.0, 0.5]])
    expected = function(xp, xp.asarray(values))
    assert_same_bits(function(xp, on_cuda(values)), _numpy(expected), zero_signs=function not in _ONE_OF_THE_ZEROS)


# unique_*: 0.0 and -0.0 are one value; which of them stands for it the standard leaves open
_ONE_OF_THE_ZEROS = {function for name, function in OTHER_CASES if name.startswith("unique")}


def test_a_sequence_of_cuda_elements_is_read_to_the_default_device() -> None:
    """A nested sequence is not an array: its values go to the default device (the CPU here),
    each CUDA element copied to the host as cupy or torch read one."""
    x = on_cuda([-0.0, 2.5])
    made = xp.asarray([x[0], x[1], 1.0])
    assert str(made.device) == "cpu"
    assert np.asarray(made).tobytes() == np.array([-0.0, 2.5, 1.0]).tobytes()
    with pytest.raises(TypeError, match="cannot make an array of object"):
        xp.asarray([x[0], object()])


def _numpy(result: Any) -> Any:
    if isinstance(result, tuple):
        return tuple(_numpy(r) for r in result)
    assert str(result.device) == "cpu"
    return np.asarray(result)


def test_no_numpy_function_is_handed_cuda_data(cupy: Any) -> None:
    """The fake cupy's arrays refuse numpy, as real cupy's do."""
    native = on_cuda([1.0, 2.0])._native
    with pytest.raises(TypeError):
        np.asarray(native)
    with pytest.raises(TypeError):
        np.sin(native)
    with pytest.raises(TypeError):
        np.linalg.norm(native)


def test_the_cuda_namespace_is_cupy_completed(cupy: Any) -> None:
    namespace = xp.Device(CUDA).backend.xp
    assert namespace.linalg.det is cupy.linalg.det and namespace.asnumpy is cupy.asnumpy  # cupy's own
    assert namespace.linalg.svdvals is not None and not hasattr(cupy.linalg, "svdvals")  # completed
    assert namespace.remainder is not cupy.remainder  # corrected
    assert namespace is xp.Device(CUDA).backend.xp  # built once per cupy module
    assert namespace.__name__ == cupy.__name__


def test_a_stream_pointer_reaches_cupy_through_the_stream_protocol(cupy: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """cupy 14: Stream.from_external(obj with __cuda_stream__) (ExternalStream is deprecated);
    cupy 13, which has no from_external: ExternalStream(pointer)."""
    made: list[Any] = []
    original = cupy.cuda.Stream.from_external
    monkeypatch.setattr(cupy.cuda.Stream, "from_external",
                        classmethod(lambda cls, obj: made.append(obj) or original.__func__(cls, obj)))
    x = xp.asarray(np.arange(3.0)).to_device(CUDA, stream=0x7000)
    assert made and made[0].__cuda_stream__() == (0, 0x7000)
    np.testing.assert_array_equal(host(x), np.arange(3.0))
    monkeypatch.delattr(cupy.cuda.Stream, "from_external")
    external: list[int] = []
    monkeypatch.setattr(cupy.cuda, "ExternalStream", lambda pointer: external.append(pointer) or cupy.cuda.Stream(pointer),
                        raising=False)
    xp.asarray(np.arange(3.0)).to_device(CUDA, stream=0x7000)
    assert external == [0x7000]


@pytest.mark.parametrize(("setting", "stream"), [(None, 1), ("0", 1), ("1", 2), ("00", 1), ("2", 2)])
def test_results_are_ordered_on_cupys_current_stream(
    cupy: Any, monkeypatch: pytest.MonkeyPatch, setting: str | None, stream: int
) -> None:
    """cupy's null stream is the legacy default stream, or the per-thread one in cupy's
    per-thread-default-stream mode, which is on where ``int(CUPY_CUDA_PER_THREAD_DEFAULT_STREAM)``
    is not 0 (cupy_backends/cuda/stream.pyx:10-11: "00" is off); another current stream is itself."""
    monkeypatch.setattr(_cuda, "_null_stream_of", {})
    if setting is None:
        monkeypatch.delenv("CUPY_CUDA_PER_THREAD_DEFAULT_STREAM", raising=False)
    else:
        monkeypatch.setenv("CUPY_CUDA_PER_THREAD_DEFAULT_STREAM", setting)
    x = on_cuda([1.0, 2.0])
    assert (x + 1)._stream == stream
    monkeypatch.setattr(cupy.cuda, "get_current_stream", lambda device_id=-1: cupy.cuda.Stream(0x5000))
    assert (x + 1).__cuda_array_interface__["stream"] == 0x5000


def test_a_function_this_cupy_lacks_is_named_with_its_version(cupy: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """cupy 13 has no linalg.eig (cupy 14 added it): a clear TypeError naming the cupy, not an
    AttributeError from inside the namespace."""
    x = on_cuda([[2.0, 0.0], [0.0, 3.0]])
    monkeypatch.delattr(cupy.linalg, "eig")
    monkeypatch.delattr(x._device.backend.xp.linalg, "eig")
    with pytest.raises(TypeError, match=r"linalg.eig is not available for arrays on cuda:0: cupy 14.2.0\+numpy has no linalg.eig"):
        xp.linalg.eig(x)


# ----------------------------------------------------------------------------- the stand-in is cupy-shaped
def test_the_stand_in_offers_only_cupys_names_and_keywords(cupy: Any) -> None:
    """numpy names and keywords real cupy lacks fail here as they would on a GPU
    (tests/cupy_api.json, written from a real cupy by tests/cupy_api.py)."""
    a = on_cuda([3.0, 1.0, 2.0])._native
    for absent in ("vecdot", "unstack", "matvec", "vecmat"):
        with pytest.raises(AttributeError, match=f"module 'cupy' has no attribute '{absent}'"):
            getattr(cupy, absent)
    with pytest.raises(TypeError, match="unexpected keyword argument 'stable'"):
        cupy.sort(a, stable=True)
    with pytest.raises(TypeError, match="unexpected keyword argument 'where'"):
        a.sum(where=a > 1)
    with pytest.raises(AttributeError, match="'cupy.ndarray' object has no attribute 'setflags'"):
        a.setflags(write=False)
    assert np.asarray(cupy.sort(a, axis=-1).get()).tolist() == [1.0, 2.0, 3.0]


def test_every_name_the_stand_in_defines_is_cupys() -> None:
    import cupy_api

    api = cupy_api.load()
    defined = {name for name, value in vars(numpy_cupy).items()
               if callable(value) and not name.startswith("_") and getattr(value, "__module__", None) == "numpy_cupy"}
    assert defined - {"install", "ndarray", "Flags", "MemoryPointer", "UnownedMemory", "Device", "Stream"} <= set(api["top"])
    assert set(vars(numpy_cupy.linalg)) <= set(api["linalg"])
    assert set(vars(numpy_cupy.fft)) <= set(api["fft"])

