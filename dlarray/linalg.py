"""The Array API ``linalg`` extension (2025.12), computed by the device's backend.

Decompositions that return several arrays return named tuples (``EighResult``, ``EigResult``,
``QRResult``, ``SlogdetResult``, ``SVDResult``) whose fields are dlarray Arrays.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, Literal, NamedTuple

import numpy as np

from ._args import backend_array as _backend_array
from ._args import backend_arrays as _backend_arrays
from ._args import backend_function as _backend_function
from ._args import scalar_value as _scalar_value
from ._array import Array, wrap
from ._devices import devices_differ as _devices_differ
from ._dlpack import FLAG_IS_SUBBYTE_TYPE_PADDED
from ._docs import Sections
from ._dtypes import DType, as_dtype
from ._linear_algebra_functions import _normalized, matmul, matrix_transpose, tensordot, vecdot, vector_axis

__all__ = [
    "cholesky",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_transpose",
    "outer",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "tensordot",
    "trace",
    "vecdot",
    "vector_norm",
]


class EighResult(NamedTuple):
    """Result of :func:`eigh`: real eigenvalues and the matrix of eigenvectors (columns)."""

    eigenvalues: Array
    eigenvectors: Array


class EigResult(NamedTuple):
    """Result of :func:`eig`: complex eigenvalues and eigenvectors (columns)."""

    eigenvalues: Array
    eigenvectors: Array


class QRResult(NamedTuple):
    """Result of :func:`qr`: ``x = Q @ R`` with ``R`` upper triangular."""

    Q: Array
    R: Array


class SlogdetResult(NamedTuple):
    """Result of :func:`slogdet`: ``det(x) = sign * exp(logabsdet)``."""

    sign: Array
    logabsdet: Array


class SVDResult(NamedTuple):
    """Result of :func:`svd`: ``x = U @ diag(S) @ Vh``, ``S`` in descending order."""

    U: Array
    S: Array
    Vh: Array


# --------------------------------------------------------------------------------- helpers
def _matrices(x: Any, name: str) -> Any:
    """The backend array of a stack of matrices (at least 2 dimensions)."""
    native = _backend_array(x, name)
    if native.ndim < 2:
        raise ValueError(f"{name} needs an array of shape (..., M, N), got shape {native.shape}")
    return native


def _square(x: Any, name: str) -> Any:
    """The backend array of a stack of square matrices."""
    native = _matrices(x, name)
    if native.shape[-1] != native.shape[-2]:
        raise ValueError(f"{name} needs square matrices, got shape {native.shape}")
    return native


def _floating(native: Any) -> Any:
    """``native`` itself if it is floating point, else converted to float64 (the default
    floating dtype), which the decompositions compute in."""
    if native.dtype.kind in "fc":
        return native
    return native.astype(np.float64)


def _complex_of(native: Any) -> Any:
    """``native`` as the complex dtype of its precision (float32 -> complex64, ...)."""
    if native.dtype.kind == "c":
        return native
    target = np.complex64 if native.dtype == np.float32 else np.complex128
    return native.astype(target)


def _rtol(rtol: Any, x: Array, name: str) -> Any:
    """The rtol argument as the backend wants it: None, a Python float, or a backend array."""
    if rtol is None:
        return None
    if type(rtol) is Array:
        if rtol._device is not x._device:
            raise ValueError(_devices_differ(x._device, rtol._device, f"{name}: x and rtol"))
        if rtol._dtype.category != "real floating":
            raise TypeError(f"{name}: rtol must have a real floating-point dtype, got {rtol._dtype}")
        return rtol._as_native()
    if isinstance(rtol, bool) or not isinstance(rtol, (int, float)):
        raise TypeError(f"{name}: rtol must be a float or an Array, got {type(rtol).__name__}")
    return float(rtol)


# --------------------------------------------------------------------------------- functions
# What their docstrings share (dlarray._docs.Sections fills each ``{name}`` line in).
_STACK_PARAMETER = """
    Parameters
    ----------
    x
        Array of shape ``{shape}``.
"""
_STACK_ERRORS = """
    Raises
    ------
    TypeError
        ``x`` is not an Array, or of a stored-only dtype (bfloat16, float8/6/4).
    ValueError
        ``x`` is not of shape ``{shape}``.
"""
_doc = Sections(
    "linalg",
    square_parameter=_STACK_PARAMETER.format(shape="(..., M, M)"),
    matrices_parameter=_STACK_PARAMETER.format(shape="(..., M, N)"),
    square_errors=_STACK_ERRORS.format(shape="(..., M, M)"),
    matrices_errors=_STACK_ERRORS.format(shape="(..., M, N)"),
)


@_doc
def cholesky(x: Array, /, *, upper: bool = False) -> Array:
    """Cholesky factor of each (Hermitian) positive-definite matrix in ``x``.

    {square_parameter}
    upper
        ``False``: the lower factor ``L`` (``x = L @ L^H``). ``True``: the upper factor ``U``
        (``x = U^H @ U``).

    Returns
    -------
    Array
        The triangular factors, with the shape of ``x``.

    {square_errors}
        A matrix is not positive definite (numpy's ``LinAlgError``, a `ValueError`).

    {examples}
    >>> xp.linalg.cholesky(xp.asarray([[4.0, 2.0], [2.0, 5.0]]))
    Array([[2., 0.],
           [1., 2.]], dtype=float64, device=cpu)
    """
    return wrap(_backend_function(x, "linalg.cholesky")(_square(x, "cholesky"), upper=bool(upper)))


@_doc
def cross(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """Cross product of the 3-element vectors along ``axis``.

    Parameters
    ----------
    x1
        Array with size 3 along ``axis`` (that axis is not broadcast), broadcast against ``x2``
        along the other axes.
    x2
        Array with size 3 along ``axis``.
    axis
        The axis of the vectors, counted from the end (``-1``: the last one).

    Returns
    -------
    Array
        The cross products, with the broadcast shape; dtype by type promotion.

    Raises
    ------
    TypeError
        An operand that is not an Array, or of a stored-only dtype.
    ValueError
        A size other than 3 along ``axis``; shapes that do not broadcast; arrays on different
        devices.

    {examples}
    >>> xp.linalg.cross(xp.asarray([1, 0, 0]), xp.asarray([0, 1, 0]))
    Array([0, 0, 1], dtype=int64, device=cpu)
    """
    a, b = _backend_arrays(x1, x2, "cross")
    axis = vector_axis(axis, a.ndim, b.ndim, "cross")
    if a.shape[axis] != 3 or b.shape[axis] != 3:
        raise ValueError(
            f"cross needs 3-element vectors along axis {axis}, got shapes {a.shape} and {b.shape}"
        )
    return wrap(_backend_function(x1, "linalg.cross")(a, b, axis=axis))


@_doc
def det(x: Array, /) -> Array:
    """Determinant of each square matrix in ``x``.

    {square_parameter}

    Returns
    -------
    Array
        Shape ``x.shape[:-2]``; floating point (float64 for an integer ``x``).

    {square_errors}

    {examples}
    >>> xp.linalg.det(xp.asarray([[2.0, 1.0], [1.0, 3.0]]))
    Array(5., dtype=float64, device=cpu)
    """
    return wrap(_backend_function(x, "linalg.det")(_square(x, "det")))


@_doc
def diagonal(x: Array, /, *, offset: int = 0) -> Array:
    """The diagonal of each matrix in ``x``, as a view.

    {matrices_parameter}
    offset
        ``0``: the main diagonal; positive: above it; negative: below it. An offset past the
        matrix gives an empty diagonal.

    Returns
    -------
    Array
        Shape ``(..., K)`` where ``K`` is the length of the diagonal; dtype of ``x``. It shares
        ``x``'s memory and is writable when ``x`` is.

    {matrix_stack_errors}

    {examples}
    >>> m = xp.reshape(xp.arange(9), (3, 3))
    >>> xp.linalg.diagonal(m), xp.linalg.diagonal(m, offset=1)
    (Array([0, 4, 8], dtype=int64, device=cpu), Array([1, 5], dtype=int64, device=cpu))
    """
    if type(x) is not Array:
        raise TypeError(f"diagonal takes an Array, got {type(x).__name__}")
    if x.ndim < 2:
        raise ValueError(f"diagonal needs an array of shape (..., M, N), got shape {x.shape}")
    offset = operator.index(offset)
    if x._native is None and not x._computable():
        return _diagonal_view(x, offset)
    native = x._as_native()
    view = native.diagonal(offset=offset, axis1=-2, axis2=-1)
    if x._device.backend.host_native and native.flags.writeable and not view.flags.writeable:
        # numpy marks diagonal views read-only by policy only; the memory is x's and writable
        # (cupy arrays have no such flag)
        view.setflags(write=True)
    return wrap(view)


def _diagonal_view(x: Array, offset: int) -> Array:
    """The diagonal by metadata alone, for arrays no backend computes with (e.g. bfloat16)."""
    x._ensure_metadata()
    if x._dtype.bits < 8 and not x._flags & FLAG_IS_SUBBYTE_TYPE_PADDED:
        raise TypeError(f"packed {x._dtype} arrays (several elements per byte) cannot be viewed")
    *batch, rows, cols = x._shape
    *batch_strides, row_stride, col_stride = x._strides
    if offset >= 0:
        length = max(0, min(rows, cols - offset))
        start = offset * col_stride
    else:
        length = max(0, min(rows + offset, cols))
        start = -offset * row_stride
    byte_offset = x._offset + (start * x._dtype.itemsize if length else 0)
    return x._view(byte_offset, (*batch, length), (*batch_strides, row_stride + col_stride))


@_doc
def eigh(x: Array, /) -> EighResult:
    """Eigenvalues and eigenvectors of each real symmetric / complex Hermitian matrix in ``x``.

    Only the lower triangle of each matrix is read.

    {square_parameter}

    Returns
    -------
    EighResult
        ``eigenvalues`` (shape ``(..., M)``, ascending, real dtype of ``x``'s precision) and
        ``eigenvectors`` (shape ``(..., M, M)``, dtype of ``x``, one eigenvector per column).

    {square_errors}

    {examples}
    >>> w, v = xp.linalg.eigh(xp.asarray([[2.0, 0.0], [0.0, 1.0]]))
    >>> w
    Array([1., 2.], dtype=float64, device=cpu)
    >>> v
    Array([[0., 1.],
           [1., 0.]], dtype=float64, device=cpu)
    """
    values, vectors = _backend_function(x, "linalg.eigh")(_square(x, "eigh"))
    return EighResult(wrap(values), wrap(vectors))


@_doc
def eigvalsh(x: Array, /) -> Array:
    """Eigenvalues of each real symmetric / complex Hermitian matrix in ``x``.

    Parameters
    ----------
    x
        Array of shape ``(..., M, M)``; only the lower triangle is read.

    Returns
    -------
    Array
        Shape ``(..., M)``, ascending, real dtype of ``x``'s precision.

    {square_errors}

    {examples}
    >>> xp.linalg.eigvalsh(xp.asarray([[2.0, 1.0], [1.0, 2.0]]))
    Array([1., 3.], dtype=float64, device=cpu)
    """
    return wrap(_backend_function(x, "linalg.eigvalsh")(_square(x, "eigvalsh")))


@_doc.outside_standard
def eig(x: Array, /) -> EigResult:
    """Eigenvalues and eigenvectors of each square matrix in ``x``.

    {square_parameter}

    Returns
    -------
    EigResult
        ``eigenvalues`` (shape ``(..., M)``) and ``eigenvectors`` (shape ``(..., M, M)``, one per
        column), both complex of ``x``'s precision even where every eigenvalue is real (numpy
        returns a real dtype then). Their order is unspecified.

    {square_errors}

    {examples}
    >>> w, v = xp.linalg.eig(xp.asarray([[2.0, 0.0], [0.0, 3.0]]))
    >>> w
    Array([2.+0.j, 3.+0.j], dtype=complex128, device=cpu)
    """
    values, vectors = _backend_function(x, "linalg.eig")(_square(x, "eig"))
    return EigResult(wrap(_complex_of(values)), wrap(_complex_of(vectors)))


@_doc.outside_standard
def eigvals(x: Array, /) -> Array:
    """Eigenvalues of each square matrix in ``x``.

    {square_parameter}

    Returns
    -------
    Array
        Shape ``(..., M)``, complex of ``x``'s precision; their order is unspecified.

    {square_errors}

    {examples}
    >>> xp.linalg.eigvals(xp.asarray([[0.0, -1.0], [1.0, 0.0]]))
    Array([0.+1.j, 0.-1.j], dtype=complex128, device=cpu)
    """
    return wrap(_complex_of(_backend_function(x, "linalg.eigvals")(_square(x, "eigvals"))))


@_doc
def inv(x: Array, /) -> Array:
    """Inverse of each square matrix in ``x``.

    {square_parameter}

    Returns
    -------
    Array
        Same shape; floating point (float64 for an integer ``x``).

    {square_errors}
        The matrix is singular (numpy's ``LinAlgError``, a `ValueError`).

    {examples}
    >>> xp.linalg.inv(xp.asarray([[2.0, 0.0], [0.0, 4.0]]))
    Array([[0.5 , 0.  ],
           [0.  , 0.25]], dtype=float64, device=cpu)
    """
    return wrap(_backend_function(x, "linalg.inv")(_square(x, "inv")))


@_doc
def matrix_norm(
    x: Array,
    /,
    *,
    keepdims: bool = False,
    ord: float | Literal["fro", "nuc"] | None = "fro",
) -> Array:
    """Matrix norm of each matrix in ``x``.

    {matrices_parameter}
    keepdims
        Keep the last two dimensions as size-1 dimensions.
    ord
        ``'fro'`` (Frobenius), ``'nuc'`` (nuclear), ``1``/``-1`` (max/min column sum of
        ``abs(x)``), ``inf``/``-inf`` (max/min row sum), ``2``/``-2`` (largest/smallest
        singular value).

    Returns
    -------
    Array
        The norms, real floating point of ``x``'s precision.

    {matrices_errors}
        Another ``ord``.

    {examples}
    >>> m = xp.asarray([[3.0, 0.0], [0.0, -4.0]])
    >>> xp.linalg.matrix_norm(m), xp.linalg.matrix_norm(m, ord=1)
    (Array(5., dtype=float64, device=cpu), Array(4., dtype=float64, device=cpu))
    """
    native = _matrices(x, "matrix_norm")
    if ord is None:
        ord = "fro"
    ord = _scalar_value(ord, "matrix_norm() ord")
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise ValueError(f"matrix_norm: ord must be 'fro', 'nuc', ±1, ±2 or ±inf, got {ord!r}")
    elif ord not in (1, -1, 2, -2, np.inf, -np.inf):
        raise ValueError(f"matrix_norm: ord must be 'fro', 'nuc', ±1, ±2 or ±inf, got {ord!r}")
    return wrap(_backend_function(x, "linalg.matrix_norm")(native, keepdims=bool(keepdims), ord=ord))


@_doc
def matrix_power(x: Array, n: int, /) -> Array:
    """Each square matrix in ``x`` raised to the integer power ``n``.

    {square_parameter}
    n
        The exponent: ``0`` gives identity matrices, a negative ``n`` the power of the inverse.

    Returns
    -------
    Array
        Same shape as ``x``.

    Raises
    ------
    TypeError
        ``x`` is not an Array, or of a stored-only dtype; ``n`` is not an integer.
    ValueError
        ``x`` is not of shape ``(..., M, M)``; a negative ``n`` for a singular matrix.

    {examples}
    >>> xp.linalg.matrix_power(xp.asarray([[1, 1], [0, 1]]), 3)
    Array([[1, 3],
           [0, 1]], dtype=int64, device=cpu)
    """
    native = _square(x, "matrix_power")
    n = operator.index(n)
    if n < 0:
        native = _floating(native)
    return wrap(_backend_function(x, "linalg.matrix_power")(native, n))


@_doc
def matrix_rank(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    """Rank of each matrix in ``x``: the number of singular values above the tolerance.

    {matrices_parameter}
    rtol
        Relative tolerance: singular values ``<= rtol * largest`` count as zero. A float, or a
        real floating-point Array broadcast against ``x.shape[:-2]``. ``None``:
        ``max(M, N) * eps`` of ``x``'s precision.

    Returns
    -------
    Array
        The ranks, shape ``x.shape[:-2]``, default integer dtype (int64).

    {matrices_errors}

    {examples}
    >>> xp.linalg.matrix_rank(xp.asarray([[1.0, 2.0], [2.0, 4.0]]))
    Array(1, dtype=int64, device=cpu)
    """
    native = _matrices(x, "matrix_rank")
    ranks = _backend_function(x, "linalg.matrix_rank")(native, rtol=_rtol(rtol, x, "matrix_rank"))
    return wrap(ranks.astype(np.int64))


@_doc
def outer(x1: Array, x2: Array, /) -> Array:
    """Outer product of two vectors.

    Parameters
    ----------
    x1
        1-D array of ``N`` elements.
    x2
        1-D array of ``M`` elements.

    Returns
    -------
    Array
        Shape ``(N, M)``; dtype by type promotion.

    Raises
    ------
    TypeError
        An operand that is not an Array, or of a stored-only dtype.
    ValueError
        An operand that is not one-dimensional; arrays on different devices.

    {examples}
    >>> xp.linalg.outer(xp.asarray([1, 2]), xp.asarray([1, 10, 100]))
    Array([[  1,  10, 100],
           [  2,  20, 200]], dtype=int64, device=cpu)
    """
    a, b = _backend_arrays(x1, x2, "outer")
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"outer takes two 1-D arrays, got shapes {a.shape} and {b.shape}")
    return wrap(_backend_function(x1, "linalg.outer")(a, b))


@_doc
def pinv(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    """Moore-Penrose pseudo-inverse of each matrix in ``x``.

    {matrices_parameter}
    rtol
        Relative tolerance for small singular values (as in `matrix_rank`); ``None``:
        ``max(M, N) * eps`` of ``x``'s precision.

    Returns
    -------
    Array
        Shape ``(..., N, M)``; floating point.

    {matrices_errors}

    {examples}
    >>> xp.linalg.pinv(xp.asarray([[2.0, 0.0], [0.0, 0.0]]))
    Array([[0.5, 0. ],
           [0. , 0. ]], dtype=float64, device=cpu)
    """
    native = _floating(_matrices(x, "pinv"))
    # rtol=None explicitly selects the standard's default (numpy's own default is 1e-15)
    return wrap(_backend_function(x, "linalg.pinv")(native, rtol=_rtol(rtol, x, "pinv")))


@_doc
def qr(x: Array, /, *, mode: Literal["reduced", "complete"] = "reduced") -> QRResult:
    """QR decomposition of each matrix in ``x``.

    {matrices_parameter}
    mode
        ``'reduced'``: ``Q`` is ``(..., M, K)`` and ``R`` ``(..., K, N)`` with ``K = min(M, N)``.
        ``'complete'``: ``Q`` is ``(..., M, M)`` and ``R`` ``(..., M, N)``.

    Returns
    -------
    QRResult
        ``Q`` with orthonormal columns and upper-triangular ``R``.

    {matrices_errors}
        Another ``mode``.

    {examples}
    >>> q, r = xp.linalg.qr(xp.ones((3, 2)))
    >>> q.shape, r.shape
    ((3, 2), (2, 2))
    >>> q, r = xp.linalg.qr(xp.ones((3, 2)), mode="complete")
    >>> q.shape, r.shape
    ((3, 3), (3, 2))
    """
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode must be 'reduced' or 'complete', got {mode!r}")
    q, r = _backend_function(x, "linalg.qr")(_matrices(x, "qr"), mode=mode)
    return QRResult(wrap(q), wrap(r))


@_doc
def slogdet(x: Array, /) -> SlogdetResult:
    """Sign and natural log of the absolute value of the determinant of each square matrix.

    {square_parameter}

    Returns
    -------
    SlogdetResult
        ``sign`` (dtype of ``x``; 0 for a singular matrix) and ``logabsdet`` (real dtype of
        ``x``'s precision; ``-inf`` for a singular matrix).

    {square_errors}

    {examples}
    >>> sign, logabsdet = xp.linalg.slogdet(xp.asarray([[-1.0, 0.0], [0.0, 1.0]]))
    >>> sign, logabsdet
    (Array(-1., dtype=float64, device=cpu), Array(0., dtype=float64, device=cpu))
    """
    sign, logabsdet = _backend_function(x, "linalg.slogdet")(_square(x, "slogdet"))
    return SlogdetResult(wrap(sign), wrap(logabsdet))


@_doc
def solve(x1: Array, x2: Array, /) -> Array:
    """Solution ``X`` of ``x1 @ X = x2`` for each square system.

    Parameters
    ----------
    x1
        Invertible matrices, shape ``(..., M, M)``.
    x2
        Shape ``(M,)`` (one right-hand side vector for every matrix) or ``(..., M, K)`` (its
        stack dimensions broadcast against those of ``x1``).

    Returns
    -------
    Array
        Shape ``x1.shape[:-2] + (M,)`` for a vector ``x2``, else ``(..., M, K)`` with the
        broadcast stack shape; dtype by type promotion.

    Raises
    ------
    TypeError
        An operand that is not an Array, or of a stored-only dtype.
    ValueError
        Shapes that do not match; arrays on different devices; the matrix is singular (numpy's
        ``LinAlgError``, a `ValueError`).

    {examples}
    >>> xp.linalg.solve(xp.asarray([[2.0, 0.0], [0.0, 4.0]]), xp.asarray([1.0, 1.0]))
    Array([0.5 , 0.25], dtype=float64, device=cpu)
    """
    a, b = _backend_arrays(x1, x2, "solve")
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"solve: x1 must have shape (..., M, M), got {a.shape}")
    size = a.shape[-1]
    if b.ndim == 1:
        if b.shape[0] != size:
            raise ValueError(f"solve: x2 of shape {b.shape} does not match x1 of shape {a.shape}")
    elif b.ndim < 2 or b.shape[-2] != size:
        raise ValueError(f"solve: x2 must have shape ({size},) or (..., {size}, K), got {b.shape}")
    # numpy >= 2 treats x2 as a vector only when it is 1-D, as the standard does
    return wrap(_backend_function(x1, "linalg.solve")(a, b))


@_doc
def svd(x: Array, /, *, full_matrices: bool = True) -> SVDResult:
    """Singular value decomposition of each matrix in ``x``.

    {matrices_parameter}
    full_matrices
        ``True``: ``U`` is ``(..., M, M)`` and ``Vh`` ``(..., N, N)``. ``False``: ``(..., M, K)``
        and ``(..., K, N)`` with ``K = min(M, N)``.

    Returns
    -------
    SVDResult
        ``U``, ``S`` (shape ``(..., K)``, descending, real of ``x``'s precision) and ``Vh``.

    {matrices_errors}

    {examples}
    >>> u, s, vh = xp.linalg.svd(xp.asarray([[3.0, 0.0], [0.0, -5.0]]))
    >>> s
    Array([5., 3.], dtype=float64, device=cpu)
    """
    u, s, vh = _backend_function(x, "linalg.svd")(_matrices(x, "svd"), full_matrices=bool(full_matrices))
    return SVDResult(wrap(u), wrap(s), wrap(vh))


@_doc
def svdvals(x: Array, /) -> Array:
    """Singular values of each matrix in ``x``.

    {matrices_parameter}

    Returns
    -------
    Array
        Shape ``(..., min(M, N))``, in descending order, real of ``x``'s precision.

    {matrices_errors}

    {examples}
    >>> xp.linalg.svdvals(xp.asarray([[3.0, 0.0], [0.0, -5.0]]))
    Array([5., 3.], dtype=float64, device=cpu)
    """
    return wrap(_backend_function(x, "linalg.svdvals")(_matrices(x, "svdvals")))


@_doc
def trace(x: Array, /, *, offset: int = 0, dtype: DType | None = None) -> Array:
    """Sum of the diagonal of each matrix in ``x``.

    {matrices_parameter}
    offset
        Which diagonal: ``0`` the main one, positive above it, negative below it.
    dtype
        dtype of the result (the elements are cast to it before summing). ``None``: the dtype
        of ``x``, except that smaller integers sum in the default integer dtype (int64), or
        uint64 for unsigned ones.

    Returns
    -------
    Array
        The traces, shape ``x.shape[:-2]``.

    {matrices_errors}

    {examples}
    >>> m = xp.reshape(xp.arange(9, dtype=xp.int8), (3, 3))
    >>> xp.linalg.trace(m), xp.linalg.trace(m, offset=-1)
    (Array(12, dtype=int64, device=cpu), Array(10, dtype=int64, device=cpu))
    """
    native = _matrices(x, "trace")
    offset = operator.index(offset)
    target = None if dtype is None else as_dtype(dtype).numpy_dtype
    if dtype is not None and target is None:
        raise TypeError(f"trace cannot compute in {as_dtype(dtype)}")
    return wrap(_backend_function(x, "linalg.trace")(native, offset=offset, dtype=target))


@_doc
def vector_norm(
    x: Array,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
    ord: float = 2,
) -> Array:
    """Vector norm of ``x`` over ``axis``.

    Parameters
    ----------
    x
        Input array.
    axis
        ``None``: all elements (the flattened array). An int or a tuple: the axes reduced.
    keepdims
        Keep the reduced axes as size-1 dimensions.
    ord
        ``p`` of the p-norm ``sum(abs(x)**p)**(1/p)``; ``inf``/``-inf``: max/min of ``abs(x)``;
        ``0``: the number of non-zero elements.

    Returns
    -------
    Array
        The norms, real floating point (of ``x``'s precision for a floating ``x``).

    Raises
    ------
    TypeError
        ``x`` is not an Array, or of a stored-only dtype; ``ord`` is not a number.
    ValueError
        An axis out of range (``AxisError``, also an `IndexError`).

    {examples}
    >>> x = xp.asarray([[3.0, 4.0], [0.0, -1.0]])
    >>> xp.linalg.vector_norm(x, axis=1)
    Array([5., 1.], dtype=float64, device=cpu)
    >>> xp.linalg.vector_norm(x, ord=float("inf"))
    Array(4., dtype=float64, device=cpu)
    """
    native = _backend_array(x, "vector_norm")
    ord = _scalar_value(ord, "vector_norm() ord")
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise TypeError(f"vector_norm: ord must be an int or a float, got {type(ord).__name__}")
    if axis is not None:
        axis = _axes(axis, native.ndim)
    return wrap(_backend_function(x, "linalg.vector_norm")(_floating(native), axis=axis, keepdims=bool(keepdims), ord=ord))


def _axes(axis: int | Sequence[int], ndim: int) -> int | tuple[int, ...]:
    """Validated reduction axes of vector_norm (IndexError-free: ValueError for out-of-range or repeated)."""
    if isinstance(axis, (tuple, list)):
        return tuple(_normalized(axis, ndim, "vector_norm"))
    return _normalized([axis], ndim, "vector_norm")[0]
