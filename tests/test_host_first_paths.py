"""The first paths of the namespace's hot calls give what the general path gives (issue 33).

Element-wise functions that are one ufunc call, their forward operators, and ``sum``/``prod`` hand
two (or one) CPU Arrays whose numpy view is made already straight to numpy and its result straight
to the Array's constructor. An Array imported from a capsule has no numpy view yet: the same call
on it takes the general path. Each check below computes both ways over the same values and
compares the results slot by slot (dtype, device, stream, geometry, read-only, bytes), and the
refusals by type and message.
"""

from __future__ import annotations

import inspect
import operator
from typing import Any, Callable

import numpy as np
import pytest

import dlarray
from dlarray import _elementwise_functions as ew
from dlarray import _operators
from dlarray._dtypes import BY_NUMPY
from dlarray.testing import make_capsule

_DTYPES = [dtype.numpy_dtype for dtype in BY_NUMPY.values()]
_UNARY = sorted(name for name in ew.UFUNCS if name not in ew.HOST_UFUNCS)
_BINARY = sorted(ew.HOST_UFUNCS)


def _values(dtype: np.dtype, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Values of ``dtype`` that reach the special cases: zeros of both signs, infinities, NaN."""
    rng = np.random.default_rng(seed)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -9), min(info.max, 9), size=shape, endpoint=True).astype(dtype)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.5, -2.5, 0.5], dtype=np.float64)
    real = rng.choice(special, size=shape)
    if dtype.kind == "c":
        values = np.empty(shape, dtype=dtype)
        values.real = real
        values.imag = rng.choice(special, size=shape)
        return values
    return real.astype(dtype)


def _unviewed(values: np.ndarray) -> dlarray.Array:
    """A CPU Array over a copy of ``values`` with no numpy view made yet: the general path."""
    array = dlarray.from_dlpack(np.array(values).__dlpack__(max_version=(1, 0)))
    assert array._native is None
    return array


def _viewed(values: np.ndarray) -> dlarray.Array:
    """A CPU Array over a copy of ``values`` whose numpy view is made: the first path."""
    array = dlarray.asarray(np.array(values))
    assert array._native is not None
    return array


def _outcome(call: Callable[..., Any], *args: Any) -> tuple[str, Any]:
    """What ``call(*args)`` gives, in a form two paths can be compared by: the result's slots and
    bytes, or the exception's type and message."""
    try:
        with np.errstate(all="ignore"):
            result = call(*args)
    except Exception as error:  # the refusal itself is what is compared
        return "raised", (type(error), str(error))
    if type(result) is not dlarray.Array:
        return "returned", result
    fresh = result._data is None  # a backend result: its description is read when asked for
    values = np.asarray(result)
    return "array", (
        fresh, result.dtype, result.device, result._stream, result.shape, result.strides, result.readonly,
        type(result._native), result._owner is result._native, values.dtype, values.tobytes(),
    )


def _both_ways(call: Callable[..., Any], *values: np.ndarray) -> None:
    general = _outcome(call, *[_unviewed(v) for v in values])
    first = _outcome(call, *[_viewed(v) for v in values])
    assert first == general


@pytest.mark.parametrize("shape", [(5,), (), (2, 3)], ids=["vector", "0-d", "matrix"])
@pytest.mark.parametrize("name", _UNARY)
def test_unary_functions(name: str, shape: tuple[int, ...]) -> None:
    function = getattr(dlarray, name)
    for k, dtype in enumerate(_DTYPES):
        _both_ways(function, _values(dtype, shape, k))


@pytest.mark.parametrize("shapes", [((5,), (5,)), ((), ()), ((2, 3), (3,)), ((2,), (3,))],
                         ids=["vectors", "0-d", "broadcast", "mismatched"])
@pytest.mark.parametrize("name", _BINARY)
def test_binary_functions(name: str, shapes: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
    """Every dtype pair: one dtype (the remembered results) and two (numpy's promotion, or its
    refusal), and shapes that broadcast or do not."""
    function = getattr(dlarray, name)
    for k, dtype1 in enumerate(_DTYPES):
        for dtype2 in _DTYPES:
            _both_ways(function, _values(dtype1, shapes[0], k), _values(dtype2, shapes[1], k + 1))


def test_a_remembered_result_dtype_follows_the_operands() -> None:
    """One function over many dtype pairs in turn: each result has numpy's dtype for its pair,
    whatever came before."""
    for dtype1 in _DTYPES:
        for dtype2 in _DTYPES:
            with np.errstate(all="ignore"):
                try:
                    expected = np.divide(_values(dtype1, (3,), 0), _values(dtype2, (3,), 1)).dtype
                except TypeError:
                    continue
                x, y = _viewed(_values(dtype1, (3,), 0)), _viewed(_values(dtype2, (3,), 1))
                assert (x / y).dtype is BY_NUMPY[expected]
                assert dlarray.sqrt(x).dtype is BY_NUMPY[np.sqrt(_values(dtype1, (3,), 0)).dtype]


_FORWARD = [name for name, function in (*_operators.BINARY, *_operators.COMPARISONS)
            if function.__name__ in ew.HOST_UFUNCS]


@pytest.mark.parametrize("symbol", _FORWARD)
def test_forward_operators(symbol: str) -> None:
    method = getattr(operator, f"__{symbol}__")
    for k, dtype1 in enumerate(_DTYPES):
        for dtype2 in _DTYPES:
            _both_ways(method, _values(dtype1, (4,), k), _values(dtype2, (4,), k + 1))


@pytest.mark.parametrize("symbol", _FORWARD)
def test_forward_operators_keep_their_other_operands(symbol: str) -> None:
    """Python scalars, numpy arrays and scalars, lists; objects that are no array (NotImplemented:
    ``x == None`` is False, ``x + "a"`` a TypeError): as the general path takes them."""
    method = getattr(operator, f"__{symbol}__")
    values = _values(np.dtype(np.float32), (3,), 0)
    for other in (2, 2.5, True, np.float32(2), np.arange(3.0), [1.0, 2.0, 3.0], None, "a", object()):
        general = _outcome(method, _unviewed(values), other)
        first = _outcome(method, _viewed(values), other)
        assert first == general, other


@pytest.mark.parametrize("symbol", _FORWARD)
def test_forward_operators_are_named_as_operators(symbol: str) -> None:
    """The operator runs the function's first path, named (self, other), with its own annotations."""
    method = getattr(dlarray.Array, f"__{symbol}__")
    assert list(inspect.signature(method).parameters) == ["self", "other"]
    assert method.__name__ == f"__{symbol}__"


def _pinned(values: np.ndarray) -> tuple[dlarray.Array, Any]:
    """An Array labelled as CUDA pinned host memory over ``values`` (numpy computes on it)."""
    made = make_capsule(values.shape, code={"f": 2, "i": 0}[values.dtype.kind], bits=values.dtype.itemsize * 8,
                        strides=tuple([s // values.itemsize for s in values.strides]), device=(3, 0),
                        data_address=values.ctypes.data)
    return dlarray.from_dlpack(made.capsule), made


def test_device_rules_hold_beside_the_first_path() -> None:
    """Pinned memory is computed by numpy too, its results on the CPU; two devices are refused,
    whether or not numpy views are made."""
    values = np.arange(4.0, dtype=np.float32)
    pinned, _made = _pinned(values)
    cpu = _viewed(values)
    for x in (pinned, cpu):
        assert (pinned + pinned).device == dlarray.Device("cpu")
        with pytest.raises(ValueError, match="device"):
            pinned + cpu
        with pytest.raises(ValueError, match="device"):
            dlarray.add(cpu, pinned)
        np.asarray(x)  # the second round with every numpy view made
    assert dlarray.sin(pinned).device == dlarray.Device("cpu")
    assert dlarray.sum(pinned).device == dlarray.Device("cpu")


def test_results_of_read_only_operands_are_writable() -> None:
    x = dlarray.asarray(b"\x01\x02\x03")
    np.asarray(x)  # the numpy view made
    assert x.readonly and x._native is not None
    for result in (x + x, dlarray.negative(x), dlarray.sum(x), x < x):
        assert not result.readonly


@pytest.mark.parametrize("name", ["sum", "prod"])
@pytest.mark.parametrize("shape", [(5,), (), (2, 3), (0,)], ids=["vector", "0-d", "matrix", "empty"])
def test_accumulations(name: str, shape: tuple[int, ...]) -> None:
    """The default call, and the ones that keep the general path (axis, dtype, keepdims)."""
    function = getattr(dlarray, name)
    for k, dtype in enumerate(_DTYPES):
        values = _values(dtype, shape, k)
        _both_ways(function, values)
        _both_ways(lambda x: function(x, keepdims=True), values)
        if dtype.kind != "c":  # (complex into float64 warns that it drops the imaginary part)
            _both_ways(lambda x: function(x, dtype=dlarray.float64), values)
        if shape:
            _both_ways(lambda x: function(x, axis=0), values)


def test_accumulations_before_numpy_2_3(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where numpy's reductions take no ``out=...``, sum and prod keep the general path only."""
    from dlarray import _statistical_functions as st

    monkeypatch.setattr(st, "_HOST_REDUCTIONS", {})
    for name in ("sum", "prod"):
        function = st._accumulation(name)
        for k, dtype in enumerate(_DTYPES):
            values = _values(dtype, (5,), k)
            assert _outcome(function, _viewed(values)) == _outcome(getattr(dlarray, name), _unviewed(values))


def test_refusals_of_non_arrays_are_unchanged() -> None:
    """The first paths take Arrays only: anything else meets the general path's refusal."""
    with pytest.raises(TypeError, match="expected an Array"):
        dlarray.sin([1.0, 2.0])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="at least one argument must be an Array"):
        dlarray.add(1.0, 2.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expects an Array"):
        dlarray.sum(np.arange(3.0))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="cannot compute in bfloat16"):
        dlarray.sum(dlarray.asarray([1.0]), dtype=dlarray.bfloat16)
