"""The CUDA backend's compute namespace: cupy, completed where the spec modules need more.

The spec modules call ``backend.xp.<name>`` with numpy 2's names and signatures. cupy (13 and 14)
has most of them; :func:`namespace` returns a module holding cupy's own attributes (so an
attribute load costs what it costs on cupy) with the differences filled in, written with cupy
alone: numpy cannot read device memory, and cupy's numpy hooks do not cover every function.

What is added or replaced (checked against cupy's sources, v13.6.0 and v14.2.0):

* names cupy lacks or spells differently: ``vecdot``, ``count_nonzero(keepdims=)``, ``linalg.cholesky(upper=)``,
  ``linalg.pinv(rtol=)`` (cupy: ``rcond``, default 1e-15), ``linalg.matrix_rank(rtol=)`` (cupy:
  an absolute ``tol``), ``linalg.svdvals``, ``linalg.matrix_norm``, ``linalg.vector_norm``,
  ``linalg.trace``, ``linalg.outer``, ``linalg.cross`` with broadcasting (cupy 14's asks for
  equal shapes, cupy 13 has none), ``linalg.solve`` with broadcast stack dimensions (cupy asks for
  equal ones) and of empty systems (cupy's batched solver divides by zero), ``isin`` of a Python
  scalar (cupy's calls ``ravel`` on it);
* results where cupy's kernels break the standard's special cases: floating ``remainder`` (cupy
  computes ``x1 - floor(x1 / x2) * x2``: NaN for a finite ``x1`` and an infinite ``x2``, and a +0
  where the zero takes the sign of ``x2``), complex ``log``/``log1p`` with a NaN component (thrust
  takes ``log(|z|**2)``: NaN for ``inf + NaN j``), complex ``tanh`` of ``±0 + (inf or NaN) j``
  (thrust gives NaN + NaN j, not ``±0 + NaN j``), complex ``arccosh`` of ``±0 + NaN j`` (thrust
  gives NaN + NaN j, not ``NaN + πj/2``), the imaginary sign of complex ``log1p`` (cupy adds
  ``1 + 0j``, so ``log1p(-0j)`` was ``+0j``);
* errors numpy raises and cupy does not by default: ``linalg.cholesky`` of a matrix that is not
  positive definite, ``linalg.inv``/``solve`` of a singular one (and ``matrix_power`` with a
  negative exponent, through inv) give NaN or garbage in cupy unless ``cupyx.errstate(linalg=
  "raise")`` is on (cupyx/_ufunc_config.py:42-50, cupy/linalg/_util.py:110-131): it is, for those
  calls, so they raise numpy's LinAlgError (a ValueError) as on the CPU. The check reads cuSOLVER's
  status to the host: one synchronization per call;
* a size of -1 in ``s`` of ``fft.fftn``/``ifftn``/``rfftn``/``irfftn``: the input's size, as numpy 2
  reads it (cupy reads -1 as a length, and its None differs on ``irfftn``'s last axis);
* ``asarray`` of a 0-d host array: cupy fills the new array with the value, and its ``fill``
  writes zero bytes for any zero, so -0.0 would arrive as +0.0. The value is copied as bytes.

Part of the core: imports neither numpy nor an Array; built once per cupy module.
"""

from __future__ import annotations

import math
import operator
import types
from typing import Any

from ._shapes import broadcast_shapes

__all__ = ["namespace"]

_PI = math.pi
_PYTHON_SCALARS = (bool, int, float, complex)


def namespace(cupy: Any) -> types.ModuleType:
    """cupy as the CUDA backend's ``xp``: its attributes, with dlarray's completions.

    Examples
    --------
    On a machine with cupy (the CUDA backend builds it once, as its ``xp``):

    >>> import cupy  # doctest: +SKIP
    >>> namespace(cupy).linalg.svdvals(cupy.eye(2)).tolist()  # doctest: +SKIP
    [1.0, 1.0]
    """
    xp = types.ModuleType("cupy", "cupy, completed for dlarray's CUDA backend")
    xp.__dict__.update(vars(cupy))
    # cupy makes some attributes on first use (its module __getattr__): ask it for anything else
    xp.__dict__["__getattr__"] = lambda name: getattr(cupy, name)
    linalg = types.ModuleType("cupy.linalg", "cupy.linalg, completed for dlarray's CUDA backend")
    linalg.__dict__.update(vars(cupy.linalg))
    linalg.__dict__["__getattr__"] = lambda name: getattr(cupy.linalg, name)
    xp.linalg = linalg
    fft = types.ModuleType("cupy.fft", "cupy.fft, completed for dlarray's CUDA backend")
    fft.__dict__.update(vars(cupy.fft))
    fft.__dict__["__getattr__"] = lambda name: getattr(cupy.fft, name)
    xp.fft = fft
    for name, make in _TOP_LEVEL.items():
        setattr(xp, name, make(cupy))
    for name, make in _LINALG.items():
        setattr(linalg, name, make(cupy))
    for name in ("fftn", "ifftn", "rfftn", "irfftn"):
        setattr(fft, name, _sized_transform(getattr(cupy.fft, name)))
    return xp


# --------------------------------------------------------------------------- creation
def _asarray(cp: Any) -> Any:
    original = cp.asarray

    def asarray(a: Any, dtype: Any = None, order: Any = None) -> Any:
        """cupy.asarray, except that a Python scalar or a 0-d host array is copied as bytes
        (cupy's fill would write +0.0 for a -0.0)."""
        if type(a) in _PYTHON_SCALARS:
            return original([a], dtype=dtype).reshape(())
        if getattr(a, "ndim", None) == 0 and not isinstance(a, cp.ndarray) and hasattr(a, "reshape"):
            return original(a.reshape(1), dtype=dtype).reshape(())
        return original(a, dtype=dtype, order=order)

    return asarray


# --------------------------------------------------------------------------- element-wise
def _remainder(cp: Any) -> Any:
    original = cp.remainder

    def remainder(x1: Any, x2: Any, /, out: Any = None) -> Any:
        """``x1 % x2`` with the sign of ``x2``, as numpy computes it for floating point: from
        ``fmod`` (exact), moved by ``x2`` when the signs differ, a zero signed like ``x2``."""
        if not (_floating(x1) or _floating(x2)):  # integers: cupy's is exact
            return original(x1, x2) if out is None else original(x1, x2, out=out)
        mod = cp.fmod(x1, x2)
        adjust = (mod != 0) & ((mod < 0) != (x2 < 0))
        mod = cp.where(adjust, mod + x2, mod)
        mod = cp.where(mod == 0, cp.copysign(cp.zeros_like(mod), x2), mod)
        if out is None:
            return mod
        cp.copyto(out, mod, casting="same_kind")
        return out

    return remainder


def _floating(operand: Any) -> bool:
    """Whether an operand (a cupy array or a Python scalar) makes a result floating point."""
    return type(operand) is float or getattr(getattr(operand, "dtype", None), "kind", None) == "f"


def _complex_corrected(name: str, corrected: Any) -> Any:
    """The maker of cupy's ``name`` (a unary function) whose complex results pass through
    ``corrected(cp, x, out)``; real arguments get cupy's result as it is."""

    def make(cp: Any) -> Any:
        original = getattr(cp, name)

        def function(x: Any, /) -> Any:
            out = original(x)
            return corrected(cp, x, out) if x.dtype.kind == "c" else out

        function.__name__ = name
        function.__doc__ = corrected.__doc__
        return function

    return make


def _log_corrected(cp: Any, z: Any, out: Any) -> Any:
    """Natural logarithm; for a complex argument with a NaN component, ``log(hypot(a, b)) +
    atan2(b, a) j`` (exact in every special case the standard lists)."""
    a = z.real
    b = z.imag
    return _parts_set_where(cp, out, cp.isnan(a) | cp.isnan(b), cp.log(cp.hypot(a, b)), cp.arctan2(b, a))


def _log1p_corrected(cp: Any, x: Any, out: Any) -> Any:
    """``log(1 + x)``; complex arguments with a NaN component as :func:`log` of ``1 + x``, the
    imaginary part signed as ``x``'s."""
    shifted = x.copy()
    shifted.real += 1  # not x + 1, which adds 0j and turns an imaginary -0.0 into +0.0
    out = _log_corrected(cp, shifted, out)
    # cupy's kernel adds 1 as a complex 1 + 0j (an imaginary -0.0 becomes +0.0); the imaginary
    # part, atan2(b, 1 + a), has the sign of b in every case, zeros included
    cp.copyto(out.imag, cp.copysign(out.imag, x.imag))
    return out


def _tanh_corrected(cp: Any, x: Any, out: Any) -> Any:
    """Hyperbolic tangent; a complex ``±0 + (inf or NaN) j`` gives ``±0 + NaN j``."""
    a = x.real
    return _parts_set_where(cp, out, (a == 0) & ~cp.isfinite(x.imag), a, math.nan)


def _arccosh_corrected(cp: Any, x: Any, out: Any) -> Any:
    """Inverse hyperbolic cosine; a complex ``±0 + NaN j`` gives ``NaN + πj/2``."""
    return _parts_set_where(cp, out, (x.real == 0) & cp.isnan(x.imag), math.nan, _PI / 2)


def _parts_set_where(cp: Any, out: Any, fix: Any, real: Any, imag: Any) -> Any:
    """``out`` (a new result, written in place) with its real and imaginary parts set to ``real``
    and ``imag`` where ``fix`` holds. Always written, never first asked whether anything needs
    fixing: that question is a read on the host, which waits for the GPU."""
    cp.copyto(out.real, real, where=fix)
    cp.copyto(out.imag, imag, where=fix)
    return out


def _isin(cp: Any) -> Any:
    original = cp.isin

    def isin(element: Any, test_elements: Any, *, invert: bool = False) -> Any:
        """cupy.isin, a Python scalar operand made a 0-d array first (cupy calls ``ravel`` on both)."""
        if type(element) in _PYTHON_SCALARS:
            element = cp.asarray(element)
        if type(test_elements) in _PYTHON_SCALARS:
            test_elements = cp.asarray(test_elements)
        return original(element, test_elements, invert=invert)

    return isin


def _count_nonzero(cp: Any) -> Any:
    def count_nonzero(a: Any, axis: Any = None, *, keepdims: bool = False) -> Any:
        """Non-zero elements over ``axis`` (cupy's count_nonzero has no ``keepdims``)."""
        return (a != 0).sum(axis=axis, keepdims=keepdims, dtype=cp.int64)

    return count_nonzero


def _vecdot(cp: Any) -> Any:
    def vecdot(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
        """Dot products of the vectors along ``axis`` (a negative axis, the same dimension before and
        after broadcasting), ``x1`` conjugated; the sum keeps the operands' type (cupy's sum, like
        numpy's, widens small integers). Only a complex ``x1`` is conjugated: cupy's ``conj`` of a
        bool array is int8 (numpy's vecdot of bools is a bool), and of a real one a copy."""
        products = (cp.conj(x1) if x1.dtype.kind == "c" else x1) * x2
        return products.sum(axis=axis, dtype=products.dtype)

    return vecdot


def _tensordot(cp: Any) -> Any:
    original = cp.tensordot

    def tensordot(a: Any, b: Any, axes: Any = 2) -> Any:
        """cupy.tensordot, with the axes as tuples (cupy compares them with ``((), ())`` to
        accept a 0-d operand)."""
        if isinstance(axes, (list, tuple)) and len(axes) == 2:
            first, second = axes
            axes = (tuple(first) if isinstance(first, (list, tuple)) else first,
                    tuple(second) if isinstance(second, (list, tuple)) else second)
        return original(a, b, axes=axes)

    return tensordot


# --------------------------------------------------------------------------- linalg
def _checked(function: Any) -> Any:
    """cupy's ``function`` with its cuSOLVER/cuBLAS status checked: numpy's LinAlgError where
    the factorization fails (cupy's default, ``linalg="ignore"``, returns what the solver left)."""

    def checked(*args: Any, **kwargs: Any) -> Any:
        import cupyx  # shipped with cupy

        with cupyx.errstate(linalg="raise"):
            return function(*args, **kwargs)

    checked.__name__ = function.__name__
    return checked


def _checked_maker(name: str) -> Any:
    """The maker of ``cupy.linalg.<name>`` with its status checked (see :func:`_checked`)."""
    return lambda cp: _checked(getattr(cp.linalg, name))


def _cholesky(cp: Any) -> Any:
    factor = _checked(cp.linalg.cholesky)

    def cholesky(a: Any, /, *, upper: bool = False) -> Any:
        """Lower factor from cupy (LinAlgError for a matrix that is not positive definite); the
        upper one is its conjugate transpose."""
        lower = factor(a)
        return lower.swapaxes(-2, -1).conj() if upper else lower

    return cholesky


def _default_rtol(cp: Any, shape: tuple[int, ...], dtype: Any) -> float:
    """The standard's default relative tolerance: ``max(M, N) * eps``."""
    return max(shape[-2:]) * float(cp.finfo(dtype).eps)


def _pinv(cp: Any) -> Any:
    def pinv(a: Any, /, *, rtol: Any = None) -> Any:
        """Pseudo-inverse; cupy's ``rcond`` is the same relative cutoff."""
        rcond = _default_rtol(cp, a.shape, a.dtype) if rtol is None else rtol
        return cp.linalg.pinv(a, rcond=rcond)

    return pinv


def _svdvals(cp: Any) -> Any:
    def svdvals(a: Any, /) -> Any:
        """Singular values, descending (cupy's svd without the vectors)."""
        return cp.linalg.svd(a, compute_uv=False)

    return svdvals


def _matrix_rank(cp: Any) -> Any:
    def matrix_rank(a: Any, /, *, rtol: Any = None) -> Any:
        """Singular values above ``rtol`` times the largest, counted (numpy 2's rule)."""
        values = cp.linalg.svd(a, compute_uv=False)
        if values.shape[-1] == 0:
            return cp.zeros(values.shape[:-1], dtype=cp.int64)
        if rtol is None:
            rtol = _default_rtol(cp, a.shape, values.dtype)
        elif not isinstance(rtol, (int, float)):
            rtol = rtol[..., None]
        tolerance = values.max(axis=-1, keepdims=True) * rtol
        return (values > tolerance).sum(axis=-1, dtype=cp.int64)

    return matrix_rank


def _matrix_norm(cp: Any) -> Any:
    def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Any:
        """cupy's norm over the last two axes."""
        return cp.linalg.norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)

    return matrix_norm


def _vector_norm(cp: Any) -> Any:
    def vector_norm(x: Any, /, *, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Any:
        """The p-norm over ``axis`` (several axes: flattened into one first, as numpy does;
        cupy's norm reads two axes as a matrix norm)."""
        shape = x.shape
        if axis is None:
            flat, reduced = x.ravel(), tuple(range(x.ndim))
        elif isinstance(axis, tuple):
            reduced = tuple([operator.index(a) % x.ndim for a in axis])
            rest = tuple([i for i in range(x.ndim) if i not in reduced])
            size = math.prod([shape[i] for i in reduced])
            flat = x.transpose(reduced + rest).reshape((size,) + tuple([shape[i] for i in rest]))
        else:
            flat, reduced = x, (operator.index(axis) % x.ndim,)
        result = cp.linalg.norm(flat, ord=ord, axis=0 if axis is None or isinstance(axis, tuple) else reduced[0])
        if keepdims:
            result = result.reshape(tuple([1 if i in reduced else n for i, n in enumerate(shape)]))
        return result

    return vector_norm


def _trace(cp: Any) -> Any:
    def trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> Any:
        """Sum of each matrix's diagonal (cupy's trace takes the axes)."""
        return cp.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)

    return trace


def _outer(cp: Any) -> Any:
    def outer(x1: Any, x2: Any, /) -> Any:
        """Outer product of two vectors (cupy has it at the top level)."""
        return cp.outer(x1, x2)

    return outer


def _cross(cp: Any) -> Any:
    def cross(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
        """Cross product of the 3-element vectors along ``axis`` (negative: the same dimension
        before and after broadcasting), the operands broadcast against each other. cupy 14's
        ``linalg.cross`` asks for equal shapes; its top-level ``cross`` (cupy 13 and 14) broadcasts
        only the vectors' stack, so both are given the broadcast shape."""
        shape = broadcast_shapes(x1.shape, x2.shape)
        return cp.cross(cp.broadcast_to(x1, shape), cp.broadcast_to(x2, shape), axis=axis)

    return cross


def _solve(cp: Any) -> Any:
    solved = _checked(cp.linalg.solve)

    def solve(a: Any, b: Any, /) -> Any:
        """``a @ x = b``, the stack dimensions of ``a`` and a matrix ``b`` broadcast (cupy asks
        for equal ones); LinAlgError for a singular ``a``. A right-hand side with no columns is
        not given to cupy (its batched solver divides by their size: ZeroDivisionError in
        cupy/cublas.py's ``arange`` of pointers): ``a`` is checked against one zero column, as
        numpy checks it, and the empty result is made here."""
        if b.ndim > 1:
            batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
            a = cp.broadcast_to(a, batch + a.shape[-2:])
            b = cp.broadcast_to(b, batch + b.shape[-2:])
        if a.size == 0:
            shape = a.shape[:-1] if b.ndim == 1 else b.shape
            return cp.empty(shape, dtype=cp.result_type(a.dtype, b.dtype))
        if b.size == 0:  # no columns (a is not empty): LinAlgError for a singular a all the same
            solved(a, cp.zeros(b.shape[:-1] + (1,), dtype=b.dtype))
            return cp.empty(b.shape, dtype=cp.result_type(a.dtype, b.dtype))
        return solved(a, b)

    return solve


# --------------------------------------------------------------------------- fft
def _sized_transform(original: Any) -> Any:
    def transform(a: Any, s: Any = None, axes: Any = None, norm: Any = None) -> Any:
        """An n-dimensional transform; a size of -1 in ``s`` is the input's size along that axis,
        numpy 2's rule (the standard's "the whole axis"). cupy reads -1 as a length, and its None
        is not the same for ``irfftn``'s last axis (``2*(m - 1)`` there, where numpy's -1 is ``m``)."""
        if s is not None:
            placed = range(-len(s), 0) if axes is None else axes
            s = [a.shape[axis] if size == -1 else size for size, axis in zip(s, placed)]
        return original(a, s=s, axes=axes, norm=norm)

    transform.__name__ = original.__name__
    return transform


_TOP_LEVEL = {
    "asarray": _asarray,
    "remainder": _remainder,
    "log": _complex_corrected("log", _log_corrected),
    "log1p": _complex_corrected("log1p", _log1p_corrected),
    "tanh": _complex_corrected("tanh", _tanh_corrected),
    "arccosh": _complex_corrected("arccosh", _arccosh_corrected),
    "count_nonzero": _count_nonzero,
    "isin": _isin,
    "tensordot": _tensordot,
    "vecdot": _vecdot,
}
_LINALG = {
    "cholesky": _cholesky,
    "pinv": _pinv,
    "svdvals": _svdvals,
    "matrix_rank": _matrix_rank,
    "matrix_norm": _matrix_norm,
    "vector_norm": _vector_norm,
    "trace": _trace,
    "outer": _outer,
    "cross": _cross,
    "solve": _solve,
    "inv": _checked_maker("inv"),
    "matrix_power": _checked_maker("matrix_power"),
}
