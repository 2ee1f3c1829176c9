"""Linear algebra (main namespace and ``linalg``) and ``fft``: results against numpy, dtypes by the
standard, argument checking."""

from __future__ import annotations

import math

import numpy as np
import needs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import dlarray
from dlarray import fft, linalg

FLOATS = st.sampled_from([np.float32, np.float64])
INEXACT = st.sampled_from([np.float32, np.float64, np.complex64, np.complex128])
NUMERIC = st.sampled_from([np.int8, np.int32, np.uint8, np.int64, np.float32, np.float64, np.complex128])
COMPLEX_OF = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}
REAL_OF = {np.dtype(np.complex64): np.float32, np.dtype(np.complex128): np.float64}


def elements(dtype) -> st.SearchStrategy:
    """Moderate finite values, so that float32 and float64 results compare with tolerances."""
    kind = np.dtype(dtype).kind
    if kind in "iu":
        info = np.iinfo(dtype)
        return st.integers(max(info.min, -20), min(info.max, 20))
    if kind == "c":
        part = st.floats(-10, 10, width=32)
        return st.builds(complex, part, part)
    return st.floats(-10, 10, width=32)


def arrays(dtype, shape) -> st.SearchStrategy:
    return hnp.arrays(dtype, shape, elements=elements(dtype))


def tolerance(dtype) -> float:
    return 1e-3 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-9


def to_numpy(x: dlarray.Array) -> np.ndarray:
    return np.asarray(x)


def assert_matches(result: dlarray.Array, expected: np.ndarray, *, exact: bool = False) -> None:
    """``result`` has ``expected``'s dtype and shape, and (close to) its values."""
    expected = np.asarray(expected)
    assert type(result) is dlarray.Array
    assert result.dtype.numpy_dtype == expected.dtype, (result.dtype, expected.dtype)
    assert result.shape == expected.shape
    if exact or expected.dtype.kind in "biu":
        np.testing.assert_array_equal(to_numpy(result), expected)
    else:
        rtol = tolerance(expected.dtype)
        np.testing.assert_allclose(to_numpy(result), expected, rtol=rtol, atol=rtol)


@st.composite
def square_stacks(draw, dtypes=INEXACT, max_side=4):
    n = draw(st.integers(1, max_side))
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3))
    return draw(arrays(draw(dtypes), batch + (n, n)))


@st.composite
def matrix_stacks(draw, dtypes=INEXACT, max_side=4):
    m, n = draw(st.integers(1, max_side)), draw(st.integers(1, max_side))
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3))
    return draw(arrays(draw(dtypes), batch + (m, n)))


def invertible(dtype, shape, seed: int = 0) -> np.ndarray:
    """Well-conditioned square matrices: diagonally dominant."""
    rng = np.random.default_rng(seed)
    base = rng.uniform(-1, 1, shape)
    if np.dtype(dtype).kind == "c":
        base = base + 1j * rng.uniform(-1, 1, shape)
    n = shape[-1]
    return (base + 2 * n * np.eye(n)).astype(dtype)


def hermitian_positive_definite(dtype, shape, seed: int = 0) -> np.ndarray:
    a = invertible(dtype, shape, seed)
    return (a @ np.conj(np.swapaxes(a, -1, -2))).astype(dtype)


# ============================================================================ main namespace
@settings(max_examples=40, deadline=None)
@given(st.data())
def test_matmul_matches_numpy(data) -> None:
    dtype = data.draw(NUMERIC)
    k = data.draw(st.integers(1, 4))
    left = data.draw(st.sampled_from([(k,), (2, k), (3, 1, 2, k)]))
    right = data.draw(st.sampled_from([(k,), (k, 3), (2, k, 1)]))
    a, b = data.draw(arrays(dtype, left)), data.draw(arrays(dtype, right))
    assert_matches(dlarray.matmul(dlarray.asarray(a), dlarray.asarray(b)), np.matmul(a, b))
    assert_matches(dlarray.asarray(a) @ dlarray.asarray(b), np.matmul(a, b))


def test_matmul_refuses_0d_and_mismatch() -> None:
    with pytest.raises(ValueError):
        dlarray.matmul(dlarray.asarray(2.0), dlarray.asarray([1.0]))
    with pytest.raises(ValueError):
        dlarray.matmul(dlarray.asarray(np.ones((2, 3))), dlarray.asarray(np.ones((2, 3))))
    with pytest.raises(TypeError):
        dlarray.matmul(np.ones((2, 2)), dlarray.asarray(np.ones((2, 2))))


def test_matrix_transpose_is_a_view() -> None:
    base = np.arange(24.0).reshape(2, 3, 4)
    x = dlarray.asarray(base)
    t = dlarray.matrix_transpose(x)
    assert_matches(t, np.swapaxes(base, -1, -2), exact=True)
    assert np.shares_memory(to_numpy(t), base)
    assert linalg.matrix_transpose is dlarray.matrix_transpose
    with pytest.raises(ValueError):
        dlarray.matrix_transpose(dlarray.asarray([1.0, 2.0]))
    with pytest.raises(TypeError):
        dlarray.matrix_transpose(base)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_tensordot_matches_numpy(data) -> None:
    dtype = data.draw(NUMERIC)
    a = data.draw(arrays(dtype, (2, 3, 4)))
    b = data.draw(arrays(dtype, (4, 3, 2)))
    axes = data.draw(st.sampled_from([0, 1, ([1, 2], [1, 0]), ([-1], [0]), ((), ()), ([0, -2], [2, 1])]))
    x1, x2 = dlarray.asarray(a), dlarray.asarray(b)
    assert_matches(dlarray.tensordot(x1, x2, axes=axes), np.tensordot(a, b, axes=axes))
    assert_matches(linalg.tensordot(x1, x2, axes=axes), np.tensordot(a, b, axes=axes))


def test_tensordot_default_and_refusals() -> None:
    a, b = np.ones((2, 3, 4)), np.ones((3, 4, 5))
    x1, x2 = dlarray.asarray(a), dlarray.asarray(b)
    assert_matches(dlarray.tensordot(x1, x2), np.tensordot(a, b))
    with pytest.raises(ValueError):  # numpy would compute something for a negative count
        dlarray.tensordot(x1, x2, axes=-1)
    with pytest.raises(ValueError):  # contracted axes are not broadcast
        dlarray.tensordot(x1, dlarray.asarray(np.ones((1, 4, 5))), axes=([1, 2], [0, 1]))
    with pytest.raises(ValueError):
        dlarray.tensordot(x1, x2, axes=([0, 0], [1, 1]))
    with pytest.raises(ValueError):
        dlarray.tensordot(x1, x2, axes=([5], [0]))
    with pytest.raises(ValueError):
        dlarray.tensordot(x1, x2, axes=4)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_vecdot_conjugates_and_broadcasts(data) -> None:
    dtype = data.draw(st.sampled_from([np.int16, np.float32, np.float64, np.complex64, np.complex128]))
    a = data.draw(arrays(dtype, (3, 1, 4)))
    b = data.draw(arrays(dtype, (2, 4)))
    expected = np.sum(np.conj(a) * b, axis=-1)
    assert_matches(dlarray.vecdot(dlarray.asarray(a), dlarray.asarray(b)), expected.astype(dtype))
    c = data.draw(arrays(dtype, (4, 2)))
    along_first = np.sum(np.conj(a.reshape(3, 4, 1)) * c, axis=-2)
    assert_matches(
        linalg.vecdot(dlarray.asarray(a.reshape(3, 4, 1)), dlarray.asarray(c), axis=-2),
        along_first.astype(dtype),
    )


def test_vecdot_example_and_refusals() -> None:
    x1, x2 = dlarray.asarray([1j, 2j, 3j]), dlarray.asarray([1, 2j, 3])
    assert complex(dlarray.vecdot(x1, x2)) == 4 - 10j
    with pytest.raises(ValueError):  # the contracted axis is not broadcast
        dlarray.vecdot(dlarray.asarray([1.0]), dlarray.asarray(np.ones((2, 3))))
    with pytest.raises(ValueError):  # a non-negative axis is ambiguous for different ranks
        dlarray.vecdot(dlarray.asarray(np.ones(3)), dlarray.asarray(np.ones((2, 3))), axis=0)
    same_rank = dlarray.vecdot(dlarray.asarray(np.ones((3, 2))), dlarray.asarray(np.ones((3, 2))), axis=0)
    assert_matches(same_rank, np.full(2, 3.0))
    with pytest.raises(ValueError):
        dlarray.vecdot(dlarray.asarray(np.ones(3)), dlarray.asarray(np.ones(3)), axis=-2)


# ============================================================================ linalg
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(dtype, upper) -> None:
    a = hermitian_positive_definite(dtype, (2, 3, 3))
    result = linalg.cholesky(dlarray.asarray(a), upper=upper)
    assert_matches(result, np.linalg.cholesky(a, upper=upper))
    factor = to_numpy(result)
    assert np.array_equal(factor, np.triu(factor) if upper else np.tril(factor))


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_cross(data) -> None:
    dtype = data.draw(st.sampled_from([np.int8, np.int64, np.float32, np.float64, np.complex128]))
    a = data.draw(arrays(dtype, (2, 3, 4)))
    b = data.draw(arrays(dtype, (3, 1)))
    expected = np.cross(a, np.broadcast_to(b, a.shape), axis=-2)
    assert_matches(linalg.cross(dlarray.asarray(a), dlarray.asarray(b), axis=-2), expected)


def test_cross_refusals() -> None:
    with pytest.raises(ValueError):  # numpy's np.cross accepts 2-element vectors
        linalg.cross(dlarray.asarray([1.0, 2.0]), dlarray.asarray([3.0, 4.0]))
    with pytest.raises(ValueError):  # the vector axis is not broadcast
        linalg.cross(dlarray.asarray(np.ones((3, 1))), dlarray.asarray(np.ones((3, 3))))
    with pytest.raises(ValueError):
        linalg.cross(dlarray.asarray(np.ones(3)), dlarray.asarray(np.ones(3)), axis=-2)


@settings(max_examples=30, deadline=None)
@given(square_stacks())
def test_det_inv_slogdet(a) -> None:
    a = a + 20 * np.eye(a.shape[-1], dtype=a.dtype)  # keep it well conditioned
    x = dlarray.asarray(a)
    assert_matches(linalg.det(x), np.linalg.det(a))
    assert_matches(linalg.inv(x), np.linalg.inv(a))
    sign, logabsdet = linalg.slogdet(x)
    expected = np.linalg.slogdet(a)
    assert_matches(sign, expected.sign)
    assert_matches(logabsdet, expected.logabsdet)
    assert linalg.slogdet(x).logabsdet.dtype.category == "real floating"


def test_slogdet_of_singular_matrix() -> None:
    sign, logabsdet = linalg.slogdet(dlarray.asarray(np.zeros((2, 2), np.float32)))
    assert float(sign) == 0.0 and float(logabsdet) == -math.inf
    assert sign.dtype is dlarray.float32 and logabsdet.dtype is dlarray.float32


@settings(max_examples=40, deadline=None)
@given(
    hnp.arrays(
        st.sampled_from([np.bool_, np.int16, np.uint64, np.float32, np.complex64]),
        hnp.array_shapes(min_dims=2, max_dims=4, min_side=0, max_side=4),
    ),
    st.integers(-6, 6),
)
def test_diagonal_and_trace(a, offset) -> None:
    x = dlarray.asarray(a)
    assert_matches(linalg.diagonal(x, offset=offset), np.diagonal(a, offset, -2, -1), exact=True)
    if a.dtype != np.bool_:
        expected = np.trace(a, offset, -2, -1)
        if a.dtype.kind == "f":
            expected = expected.astype(a.dtype)
        assert_matches(linalg.trace(x, offset=offset), expected)


def test_diagonal_shares_memory_and_keeps_read_only() -> None:
    base = np.arange(9.0).reshape(3, 3)
    view = linalg.diagonal(dlarray.asarray(base), offset=1)
    view[0] = 100.0  # a view of a writable array is writable
    assert base[0, 1] == 100.0
    frozen = base.copy()
    frozen.flags.writeable = False
    frozen_view = linalg.diagonal(dlarray.asarray(frozen))
    assert frozen_view.readonly
    with pytest.raises(ValueError):
        frozen_view[0] = 1.0


def test_diagonal_of_bfloat16_without_backend() -> None:
    torch = needs.library("torch")
    t = torch.arange(24, dtype=torch.bfloat16).reshape(2, 3, 4)
    x = dlarray.from_dlpack(t)
    for offset in (-2, 0, 1, 5):
        view = linalg.diagonal(x, offset=offset)
        expected = torch.diagonal(t, offset=offset, dim1=-2, dim2=-1)
        assert view.shape == tuple(expected.shape)
        assert torch.equal(torch.from_dlpack(view), expected)


def test_trace_dtypes() -> None:
    ints = dlarray.asarray(np.full((3, 3), 100, np.int8))
    assert linalg.trace(ints).dtype is dlarray.int64 and int(linalg.trace(ints)) == 300
    assert linalg.trace(dlarray.asarray(np.ones((2, 2), np.uint16))).dtype is dlarray.uint64
    assert linalg.trace(dlarray.asarray(np.ones((2, 2), np.float32))).dtype is dlarray.float32
    result = linalg.trace(ints, dtype=dlarray.int8)
    assert result.dtype is dlarray.int8 and int(result) == np.int8(300 - 256)
    widened = linalg.trace(dlarray.asarray(np.ones((2, 2), np.float32)), dtype=dlarray.float64)
    assert widened.dtype is dlarray.float64
    assert float(linalg.trace(dlarray.asarray(np.ones((2, 2))), offset=5)) == 0.0


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_eigh_and_eigvalsh(dtype) -> None:
    a = hermitian_positive_definite(dtype, (2, 4, 4), seed=1)
    result = linalg.eigh(dlarray.asarray(a))
    assert type(result).__name__ == "EighResult"
    values, vectors = result
    assert result.eigenvalues is values and result.eigenvectors is vectors
    assert values.dtype.numpy_dtype == np.dtype(REAL_OF.get(np.dtype(dtype), dtype))
    assert vectors.dtype.numpy_dtype == dtype
    v, q = to_numpy(values), to_numpy(vectors)
    rebuilt = q @ (v[..., :, None] * np.conj(np.swapaxes(q, -1, -2)))
    np.testing.assert_allclose(rebuilt, a, rtol=tolerance(dtype) * 10, atol=tolerance(dtype) * 100)
    assert_matches(linalg.eigvalsh(dlarray.asarray(a)), np.linalg.eigvalsh(a))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_eig_results_are_complex(dtype) -> None:
    a = np.diag(np.array([1.0, 2.0, 3.0])).astype(dtype)  # real eigenvalues: numpy returns reals
    values, vectors = linalg.eig(dlarray.asarray(a))
    expected_dtype = COMPLEX_OF.get(np.dtype(dtype), dtype)
    assert values.dtype.numpy_dtype == expected_dtype and vectors.dtype.numpy_dtype == expected_dtype
    np.testing.assert_allclose(np.sort_complex(to_numpy(values)), [1, 2, 3])
    eigvals = linalg.eigvals(dlarray.asarray(a))
    assert eigvals.dtype.numpy_dtype == expected_dtype
    rotation = np.array([[0.0, -1.0], [1.0, 0.0]], dtype=np.dtype(dtype))
    found = to_numpy(linalg.eigvals(dlarray.asarray(rotation)))
    np.testing.assert_allclose(found[np.argsort(found.imag)], [-1j, 1j], atol=1e-6)


@settings(max_examples=40, deadline=None)
@given(matrix_stacks(), st.sampled_from(["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf]), st.booleans())
def test_matrix_norm(a, ord, keepdims) -> None:
    result = linalg.matrix_norm(dlarray.asarray(a), ord=ord, keepdims=keepdims)
    assert_matches(result, np.linalg.matrix_norm(a, ord=ord, keepdims=keepdims))
    assert result.dtype.category == "real floating"


def test_matrix_norm_refuses_unknown_ord() -> None:
    with pytest.raises(ValueError):
        linalg.matrix_norm(dlarray.asarray(np.ones((2, 2))), ord=3)


@pytest.mark.filterwarnings("ignore:(overflow|divide by zero) encountered:RuntimeWarning")
@settings(max_examples=30, deadline=None)
@given(st.data())
def test_vector_norm(data) -> None:
    dtype = data.draw(INEXACT)
    a = data.draw(arrays(dtype, data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))))
    axis = data.draw(st.none() | st.integers(-a.ndim, a.ndim - 1) | st.just(tuple(range(a.ndim))[:2]))
    ord = data.draw(st.sampled_from([2, 1, 0, -1, -2, 3, 0.5, math.inf, -math.inf]))
    keepdims = data.draw(st.booleans())
    result = linalg.vector_norm(dlarray.asarray(a), axis=axis, keepdims=keepdims, ord=ord)
    expected = np.linalg.vector_norm(a, axis=axis, keepdims=keepdims, ord=ord)
    assert result.dtype.numpy_dtype == np.dtype(REAL_OF.get(np.dtype(dtype), dtype))
    assert result.shape == expected.shape
    rtol = tolerance(dtype) * 10
    np.testing.assert_allclose(to_numpy(result), expected, rtol=rtol, atol=rtol)


def test_vector_norm_special_orders() -> None:
    x = dlarray.asarray(np.array([0.0, -3.0, 4.0], np.float32))
    assert float(linalg.vector_norm(x, ord=0)) == 2.0
    assert float(linalg.vector_norm(x, ord=math.inf)) == 4.0
    assert float(linalg.vector_norm(x, ord=-math.inf)) == 0.0
    assert float(linalg.vector_norm(x)) == pytest.approx(5.0)
    assert linalg.vector_norm(dlarray.asarray(np.ones(3, np.int32))).dtype is dlarray.float64
    with pytest.raises(ValueError):
        linalg.vector_norm(x, axis=(0, 0))


@pytest.mark.parametrize("n", [-3, -1, 0, 1, 2, 5])
def test_matrix_power(n) -> None:
    a = invertible(np.float64, (2, 3, 3)) / 6
    assert_matches(linalg.matrix_power(dlarray.asarray(a), n), np.linalg.matrix_power(a, n))


def test_matrix_power_of_integers() -> None:
    a = np.array([[1, 1], [1, 0]], np.int64)
    assert_matches(linalg.matrix_power(dlarray.asarray(a), 10), np.linalg.matrix_power(a, 10))
    inverse = linalg.matrix_power(dlarray.asarray(a), -1)  # numpy refuses integers here
    assert_matches(inverse, np.linalg.inv(a.astype(np.float64)))


def test_matrix_rank_and_pinv_tolerances() -> None:
    a = np.stack([np.diag([1.0, 1e-3, 1e-9]), np.diag([1.0, 1.0, 1.0])])
    x = dlarray.asarray(a)
    ranks = linalg.matrix_rank(x)
    assert ranks.dtype is dlarray.int64 and to_numpy(ranks).tolist() == [3, 3]
    assert to_numpy(linalg.matrix_rank(x, rtol=1e-6)).tolist() == [2, 3]
    per_matrix = dlarray.asarray(np.array([1e-2, 1e-6]))
    assert to_numpy(linalg.matrix_rank(x, rtol=per_matrix)).tolist() == [1, 3]
    assert_matches(linalg.pinv(x), np.linalg.pinv(a, rtol=None))
    assert_matches(linalg.pinv(x, rtol=1e-6), np.linalg.pinv(a, rtol=1e-6))
    assert_matches(linalg.pinv(x, rtol=per_matrix), np.linalg.pinv(a, rtol=np.array([1e-2, 1e-6])))
    # the default tolerance is max(M, N) * eps, not numpy's 1e-15
    small = np.diag([1.0, 7e-16])  # above 2 * eps, below 1e-15
    assert_matches(linalg.pinv(dlarray.asarray(small)), np.diag([1.0, 1 / 7e-16]))
    assert linalg.pinv(dlarray.asarray(np.ones((2, 3), np.int32))).shape == (3, 2)
    with pytest.raises(TypeError):
        linalg.matrix_rank(x, rtol=dlarray.asarray(np.array([1, 2])))


@settings(max_examples=30, deadline=None)
@given(matrix_stacks(), st.sampled_from(["reduced", "complete"]))
def test_qr(a, mode) -> None:
    q, r = linalg.qr(dlarray.asarray(a), mode=mode)
    expected = np.linalg.qr(a, mode=mode)
    assert_matches(q, expected.Q)
    assert_matches(r, expected.R)
    result = linalg.qr(dlarray.asarray(a), mode=mode)
    assert result.Q.shape == q.shape and result.R.shape == r.shape


def test_qr_refuses_other_modes() -> None:
    with pytest.raises(ValueError):
        linalg.qr(dlarray.asarray(np.ones((2, 2))), mode="r")


@settings(max_examples=30, deadline=None)
@given(matrix_stacks(), st.booleans())
def test_svd_and_svdvals(a, full_matrices) -> None:
    x = dlarray.asarray(a)
    result = linalg.svd(x, full_matrices=full_matrices)
    assert type(result).__name__ == "SVDResult"
    u, s, vh = result
    assert result.U is u and result.S is s and result.Vh is vh
    expected = np.linalg.svd(a, full_matrices=full_matrices)
    assert u.shape == expected.U.shape and vh.shape == expected.Vh.shape
    assert u.dtype.numpy_dtype == a.dtype and vh.dtype.numpy_dtype == a.dtype
    assert_matches(s, expected.S)
    assert_matches(linalg.svdvals(x), np.linalg.svdvals(a))


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_solve(data) -> None:
    dtype = data.draw(INEXACT)
    n = data.draw(st.integers(1, 4))
    a = invertible(dtype, (2, 1, n, n), seed=data.draw(st.integers(0, 100)))
    vector = data.draw(arrays(dtype, (n,)))
    result = linalg.solve(dlarray.asarray(a), dlarray.asarray(vector))
    assert result.shape == (2, 1, n)
    np.testing.assert_allclose(np.einsum("...ij,...j->...i", a, to_numpy(result)),
                               np.broadcast_to(vector, (2, 1, n)),
                               rtol=tolerance(dtype) * 10, atol=tolerance(dtype) * 10)
    columns = data.draw(arrays(dtype, (3, n, 2)))
    result = linalg.solve(dlarray.asarray(a), dlarray.asarray(columns))
    assert result.shape == (2, 3, n, 2)
    np.testing.assert_allclose(a @ to_numpy(result), np.broadcast_to(columns, (2, 3, n, 2)),
                               rtol=tolerance(dtype) * 10, atol=tolerance(dtype) * 10)


def test_solve_promotes_and_checks_shapes() -> None:
    a = dlarray.asarray(invertible(np.float32, (3, 3)))
    b = dlarray.asarray(np.ones(3, np.float64))
    assert linalg.solve(a, b).dtype is dlarray.float64
    with pytest.raises(ValueError):
        linalg.solve(a, dlarray.asarray(np.ones(4)))
    with pytest.raises(ValueError):
        linalg.solve(a, dlarray.asarray(np.ones((2, 3))))


def test_outer() -> None:
    a, b = np.arange(3, dtype=np.int8), np.arange(4, dtype=np.int16)
    assert_matches(linalg.outer(dlarray.asarray(a), dlarray.asarray(b)), np.outer(a, b))
    with pytest.raises(ValueError):
        linalg.outer(dlarray.asarray(np.ones((2, 2))), dlarray.asarray(a))


def test_linalg_refuses_non_arrays() -> None:
    matrix = np.eye(2)
    for function in (linalg.det, linalg.inv, linalg.svdvals, linalg.eigh, linalg.cholesky, linalg.diagonal,
                     linalg.vector_norm, linalg.matrix_norm, linalg.trace):
        with pytest.raises(TypeError):
            function(matrix)
    with pytest.raises(TypeError):
        linalg.solve(dlarray.asarray(matrix), matrix)
    with pytest.raises(ValueError):
        linalg.det(dlarray.asarray(np.ones((2, 3))))
    with pytest.raises(ValueError):
        linalg.svd(dlarray.asarray(np.ones(3)))


# ============================================================================ fft
COMPLEX = st.sampled_from([np.complex64, np.complex128])
REAL = st.sampled_from([np.float32, np.float64])
NORMS = st.sampled_from(["backward", "ortho", "forward"])


def in_double(a: np.ndarray) -> np.ndarray:
    """``a`` in double precision, for the reference result."""
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)


def assert_fft_matches(result: dlarray.Array, expected: np.ndarray, dtype) -> None:
    assert result.dtype.numpy_dtype == np.dtype(dtype), (result.dtype, dtype)
    assert result.shape == expected.shape
    scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
    rtol = tolerance(dtype)
    np.testing.assert_allclose(to_numpy(result), expected, rtol=rtol, atol=rtol * scale)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_one_dimensional_transforms(data) -> None:
    complex_dtype = data.draw(COMPLEX)
    real_dtype = REAL_OF[np.dtype(complex_dtype)]
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=6))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = data.draw(st.none() | st.integers(1, 8))
    norm = data.draw(NORMS)
    z = data.draw(arrays(complex_dtype, shape))
    r = data.draw(arrays(real_dtype, shape))
    kw = {"n": n, "axis": axis, "norm": norm}
    cases = [("fft", z, complex_dtype), ("ifft", z, complex_dtype), ("rfft", r, complex_dtype),
             ("ihfft", r, complex_dtype), ("irfft", z, real_dtype), ("hfft", z, real_dtype)]
    for name, source, out in cases:
        if name in ("irfft", "hfft") and n is None and source.shape[axis] < 2:
            continue
        result = getattr(fft, name)(dlarray.asarray(source), **kw)
        expected = getattr(np.fft, name)(in_double(source), **kw)
        assert_fft_matches(result, expected, out)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_n_dimensional_transforms(data) -> None:
    complex_dtype = data.draw(COMPLEX)
    real_dtype = REAL_OF[np.dtype(complex_dtype)]
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=5))
    axes = data.draw(st.none() | st.lists(st.integers(0, len(shape) - 1), min_size=1, unique=True))
    s = None if axes is None else data.draw(st.none() | st.tuples(*[st.integers(1, 6) for _ in axes]))
    norm = data.draw(NORMS)
    z = data.draw(arrays(complex_dtype, shape))
    r = data.draw(arrays(real_dtype, shape))
    kw = {"s": s, "axes": axes, "norm": norm}
    for name, source, out in [("fftn", z, complex_dtype), ("ifftn", z, complex_dtype),
                              ("rfftn", r, complex_dtype), ("irfftn", z, real_dtype)]:
        result = getattr(fft, name)(dlarray.asarray(source), **kw)
        expected = getattr(np.fft, name)(in_double(source), **kw)
        assert_fft_matches(result, expected, out)


def test_round_trips() -> None:
    rng = np.random.default_rng(0)
    z = dlarray.asarray((rng.normal(size=(4, 6)) + 1j * rng.normal(size=(4, 6))).astype(np.complex64))
    np.testing.assert_allclose(to_numpy(fft.ifft(fft.fft(z))), to_numpy(z), atol=1e-5)
    back = fft.ifftn(fft.fftn(z, norm="ortho"), norm="ortho")
    np.testing.assert_allclose(to_numpy(back), to_numpy(z), atol=1e-5)
    r = dlarray.asarray(rng.normal(size=(4, 7)).astype(np.float32))
    back = fft.irfft(fft.rfft(r), n=7)
    assert back.dtype is dlarray.float32
    np.testing.assert_allclose(to_numpy(back), to_numpy(r), atol=1e-5)
    back = fft.irfftn(fft.rfftn(r, axes=[0, 1]), s=[4, 7], axes=[0, 1])
    np.testing.assert_allclose(to_numpy(back), to_numpy(r), atol=1e-5)


def test_fft_argument_checks() -> None:
    z = dlarray.asarray(np.ones((3, 4), np.complex64))
    r = dlarray.asarray(np.ones((3, 4), np.float32))
    with pytest.raises(ValueError):
        fft.fft(z, norm="none")
    with pytest.raises(ValueError):
        fft.fft(z, n=0)
    with pytest.raises(ValueError):
        fft.fft(z, axis=2)
    with pytest.raises(ValueError):  # s needs axes
        fft.fftn(z, s=(2, 2))
    with pytest.raises(ValueError):
        fft.fftn(z, s=(2,), axes=(0, 1))
    for function in (fft.rfft, fft.rfftn, fft.ihfft):  # numpy would drop the imaginary part
        with pytest.raises(TypeError):
            function(z)
    with pytest.raises(TypeError):
        fft.fft(np.ones(4))
    with pytest.raises(ValueError):
        fft.fft(dlarray.asarray(np.complex64(1)))
    assert fft.fft(r).dtype is dlarray.complex64  # real input is transformed as complex


@pytest.mark.parametrize("n", [1, 2, 7, 8])
def test_frequencies(n) -> None:
    assert_matches(fft.fftfreq(n, d=0.5), np.fft.fftfreq(n, 0.5))
    assert_matches(fft.rfftfreq(n, d=0.5), np.fft.rfftfreq(n, 0.5))
    single = fft.fftfreq(n, dtype=dlarray.float32, device=dlarray.asarray(1.0).device)
    assert single.dtype is dlarray.float32 and single.device is dlarray.asarray(1.0).device
    assert fft.rfftfreq(n, dtype="float32").dtype is dlarray.float32
    with pytest.raises(TypeError):
        fft.fftfreq(n, dtype=dlarray.int32)
    with pytest.raises(TypeError):
        fft.rfftfreq(n, dtype=dlarray.complex64)
    with pytest.raises(ValueError):
        fft.fftfreq(0)
    for frequencies in (fft.fftfreq, fft.rfftfreq):  # numpy's ZeroDivisionError, named instead
        with pytest.raises(ValueError, match="sample spacing d must not be 0"):
            frequencies(n, d=0)


@settings(max_examples=30, deadline=None)
@given(
    hnp.arrays(
        st.sampled_from([np.float32, np.complex128, np.int16]),
        hnp.array_shapes(min_dims=1, max_dims=3, max_side=5),
    ),
    st.data(),
)
def test_shifts(a, data) -> None:
    axis_lists = st.lists(st.integers(0, a.ndim - 1), min_size=1, unique=True)
    axes = data.draw(st.none() | st.integers(-a.ndim, a.ndim - 1) | axis_lists)
    x = dlarray.asarray(a)
    assert_matches(fft.fftshift(x, axes=axes), np.fft.fftshift(a, axes=axes), exact=True)
    assert_matches(fft.ifftshift(x, axes=axes), np.fft.ifftshift(a, axes=axes), exact=True)
    assert_matches(fft.ifftshift(fft.fftshift(x, axes=axes), axes=axes), a, exact=True)
