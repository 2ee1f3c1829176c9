"""Zero-copy interchange with real frameworks, both directions: pointers must be preserved."""

from __future__ import annotations

import gc
import sys
import warnings
from typing import Any

import numpy as np
import pytest

import dlarray
from dlarray._dlpack import contiguous_strides
from dlarray._dtypes import ALL_DTYPES

# Test dependencies of both legs: CI must run these tests, not skip them. torch is not on the newest
# Pythons (make test-latest): its tests are skipped there, saying so, and required in make test.
import array_api_strict as strict
import jax
import jax.numpy as jnp
import needs

torch = needs.optional("torch")


def _numpy_ptr(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def _jax_ptr(a) -> int:
    return a.unsafe_buffer_pointer()


def _strict_ptr(a) -> int:
    return _numpy_ptr(np.from_dlpack(a))


def test_numpy_round_trip_keeps_pointer() -> None:
    a = np.arange(12.0).reshape(3, 4)
    x = dlarray.from_dlpack(a)
    assert x.data_ptr == _numpy_ptr(a)
    b = np.from_dlpack(x)
    assert _numpy_ptr(b) == _numpy_ptr(a)
    c = np.asarray(x)
    assert _numpy_ptr(c) == _numpy_ptr(a)
    b[0, 0] = 42.0
    assert a[0, 0] == 42.0


def test_numpy_views_keep_pointer_and_strides() -> None:
    a = np.arange(24, dtype=np.int32).reshape(4, 6)
    for view in (a[::2, 1::3], a.T, a[::-1], a[:, ::-2], np.asfortranarray(a), a[1:3, 2]):
        x = dlarray.from_dlpack(view)
        assert x.data_ptr == _numpy_ptr(view)
        assert x.strides == tuple(s // view.itemsize for s in view.strides)
        assert np.array_equal(np.from_dlpack(x), view)


def test_numpy_read_only_round_trip() -> None:
    a = np.arange(4.0)
    a.flags.writeable = False
    x = dlarray.from_dlpack(a)
    assert x.readonly
    assert not np.from_dlpack(x).flags.writeable
    assert not np.asarray(x).flags.writeable
    with pytest.raises(ValueError):
        x[0] = 1.0


@needs.skip_without("torch")
@pytest.mark.parametrize(
    "dtype_name",
    ["float32", "float64", "int8", "int64", "uint8", "bool", "complex64", "float16", "bfloat16"],
)
def test_torch_round_trip_keeps_pointer(dtype_name: str) -> None:
    dtype = getattr(torch, dtype_name)
    t = torch.ones((3, 5), dtype=dtype)[:, 1::2]
    x = dlarray.from_dlpack(t)
    assert x.data_ptr == t.data_ptr()
    assert x.shape == tuple(t.shape)
    assert x.strides == tuple(t.stride())
    back = torch.from_dlpack(x)
    assert back.data_ptr() == t.data_ptr()
    assert back.dtype == dtype
    assert torch.equal(back, t)


# ---------------------------------------------------------------- every view of every dtype, out
# Views as users make them; jax takes only compact strides (numpy's own strided views too:
# "Only DLPack tensors with trivial (compact) striding are supported"), so it gets those.
EXPORTED_VIEWS = {
    "whole": np.s_[...], "0-d element": np.s_[1, 2], "row": np.s_[2], "block": np.s_[1:3, 2:5],
    "every other column": np.s_[:, ::2], "column": np.s_[:, 3],
}
COMPACT_VIEWS = ("whole", "0-d element", "row", "transposed")
# every dtype each consumer has (torch lacks float8_e3m4, e4m3, e4m3b11fnuz and the float6/4
# formats; jax the float6/4 formats; numpy all but its own)
_FLOAT8 = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"]
_NUMPY_DTYPES = [d.name for d in ALL_DTYPES if d.numpy_dtype is not None]
CONSUMER_DTYPES = {
    "numpy": _NUMPY_DTYPES,
    "torch": [*_NUMPY_DTYPES, "bfloat16", *_FLOAT8],
    "jax": [*_NUMPY_DTYPES, "bfloat16", *_FLOAT8, "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz"],
}


def _read_back(consumer: str, view: dlarray.Array) -> np.ndarray:
    """``view`` imported by ``consumer``, its values as complex128 (every dtype fits)."""
    if consumer == "numpy":
        return np.from_dlpack(view).astype(np.complex128)
    if consumer == "torch":
        t = torch.from_dlpack(view)
        return (t if t.is_complex() or t.dtype == torch.bool else t.to(torch.float64)).numpy().astype(np.complex128)
    values = np.asarray(jnp.from_dlpack(view))
    if values.dtype.kind not in "biufc":  # bfloat16 and float8, as ml_dtypes holds them
        values = values.astype(np.float32)
    return values.astype(np.complex128)


@pytest.mark.parametrize(("consumer", "dtype"), [
    pytest.param(c, d, marks=needs.skip_without(c)) for c, names in CONSUMER_DTYPES.items() for d in names
])
def test_every_view_of_every_dtype_exports_to_torch_numpy_and_jax(consumer: str, dtype: str) -> None:
    """Each consumer reads every view (a 0-d element included) of every dtype it has, with the
    values dlarray holds: bfloat16 and float8 views go out with byte_offset 0, as numpy's do."""
    x = dlarray.astype(dlarray.asarray(np.arange(24.0).reshape(4, 6) / 4), getattr(dlarray, dtype))
    values = np.asarray(dlarray.astype(x, dlarray.complex128 if dtype != "bool" else dlarray.bool))
    views = {name: (x[key], values[key]) for name, key in EXPORTED_VIEWS.items()}
    views["transposed"] = (x.T, values.T)
    for name, (view, expected) in views.items():
        if consumer == "jax" and name not in COMPACT_VIEWS:
            continue
        assert np.array_equal(_read_back(consumer, view), expected.astype(np.complex128), equal_nan=True), name


@needs.skip_without("torch")
def test_torch_writes_are_visible() -> None:
    t = torch.zeros(4)
    x = dlarray.from_dlpack(t)
    x[1] = 3.0
    assert t[1].item() == 3.0
    back = torch.from_dlpack(x)
    back[2] = 5.0
    assert float(x[2]) == 5.0


@needs.skip_without("torch")
def test_torch_tensor_outlives_everything_correctly() -> None:
    t = torch.arange(100.0)
    ptr = t.data_ptr()
    x = dlarray.from_dlpack(t)
    del t
    gc.collect()
    view = x[10:20]
    del x
    gc.collect()
    assert view.data_ptr == ptr + 40
    assert float(view[0]) == 10.0


# jax up to 0.11 hands out and asks for legacy capsules only; 0.12 and newer versioned ones (0.11.0
# to 0.11.2 still call __dlpack__ without max_version and export "dltensor")
JAX_VERSIONED = needs.version(jax) >= (0, 12)


def test_jax_import_keeps_pointer_and_is_read_only() -> None:
    """jax arrays are immutable: read-only, whether jax says so (READ_ONLY, 0.12 and newer) or its
    legacy capsule cannot (up to 0.11: read-only, as numpy imports such capsules)."""
    a = jnp.arange(8.0, dtype=jnp.float32).reshape(2, 4)
    x = dlarray.from_dlpack(a)
    assert x.data_ptr == _jax_ptr(a)
    assert x.readonly
    with pytest.raises(ValueError):
        x[0, 0] = 42.0
    assert np.array_equal(np.asarray(a), np.arange(8.0).reshape(2, 4))  # the immutable array is intact
    if JAX_VERSIONED:  # back to jax: it asks for a versioned capsule, which says read-only: zero-copy
        assert _jax_ptr(jnp.from_dlpack(x)) == x.data_ptr
    else:  # back to jax: a read-only array has no legacy export (numpy refuses the same way) ...
        with pytest.raises(BufferError):
            jnp.from_dlpack(x)
        with pytest.raises(BufferError):
            jnp.from_dlpack(np.from_dlpack(a))
    # ... a copy is writable, and jax reads it
    for copy in (dlarray.from_dlpack(a, copy=True), dlarray.asarray(a, copy=True)):
        assert not copy.readonly and copy.data_ptr != _jax_ptr(a)
        assert np.array_equal(np.asarray(jnp.from_dlpack(copy)), np.asarray(a))
        copy[0, 0] = 42.0
    assert float(a[0, 0]) == 0.0


def test_array_api_strict_round_trip_keeps_pointer() -> None:
    a = strict.reshape(strict.arange(6, dtype=strict.float64), (2, 3))
    x = dlarray.from_dlpack(a)
    assert x.data_ptr == _strict_ptr(a)
    b = strict.from_dlpack(x)
    assert _strict_ptr(b) == _strict_ptr(a)


def test_dlarray_to_dlarray_is_the_same_buffer() -> None:
    x = dlarray.asarray(np.arange(5))
    y = dlarray.from_dlpack(x)
    assert y.data_ptr == x.data_ptr
    z = dlarray.from_dlpack(x, copy=True)
    assert z.data_ptr != x.data_ptr
    assert np.array_equal(np.asarray(z), np.asarray(x))


def test_from_dlpack_copy_false_with_numpy() -> None:
    a = np.arange(5.0)
    assert dlarray.from_dlpack(a, copy=False).data_ptr == _numpy_ptr(a)


@needs.skip_without("torch")
def test_from_dlpack_copy_false_and_true_with_torch() -> None:
    torch_tensor = torch.arange(5.0)
    assert dlarray.from_dlpack(torch_tensor, copy=False).data_ptr == torch_tensor.data_ptr()
    copied = dlarray.from_dlpack(torch_tensor, copy=True)
    assert copied.data_ptr != torch_tensor.data_ptr()


# numpy arrays whose elements cannot be held where they lie: a structured array's field (strides
# not multiples of the itemsize, which DLPack counts in elements), a foreign byte order
_RECORDS = np.array([(1.5, 7), (-2.0, 8), (3.25, 9)], dtype=[("a", "f8"), ("b", "i4")])
NOT_AS_THEY_LIE = {
    "field": (lambda: _RECORDS["a"], "strides \\(12,\\) are not multiples of its itemsize 8"),
    "reversed field": (lambda: _RECORDS["a"][::-1], "strides \\(-12,\\) are not multiples"),
    "field of a 2-d array": (lambda: np.zeros((2, 3), dtype=[("x", "i2"), ("y", "u1")])["x"], "strides"),
    "foreign byte order": (lambda: np.arange(6, dtype=">i4" if sys.byteorder == "little" else "<i4").reshape(2, 3),
                           "not in native byte order"),
}


@pytest.mark.parametrize("copy", [True, None])
@pytest.mark.parametrize("function", ["from_dlpack", "asarray"])
@pytest.mark.parametrize("source", list(NOT_AS_THEY_LIE))
def test_a_copy_is_made_where_it_is_asked_for_or_allowed(source: str, function: str, copy: Any) -> None:
    """copy=True always copies, and copy=None copies what cannot be held zero-copy, as
    np.from_dlpack(copy=True) and np.asarray do: a fresh, writable, C-order array with numpy's
    values, in native byte order."""
    native = NOT_AS_THEY_LIE[source][0]()
    x = getattr(dlarray, function)(native, copy=copy)
    np.testing.assert_array_equal(np.asarray(x), native)
    assert np.asarray(x).dtype == native.dtype.newbyteorder("=")
    assert x.strides == contiguous_strides(x.shape) and not x.readonly
    base = native.base if native.base is not None else native
    assert not _numpy_ptr(base) <= x.data_ptr < _numpy_ptr(base) + base.nbytes


class _Records(np.ndarray):
    """A numpy subclass: imported through its own ``__dlpack__``, not as a numpy array."""


@pytest.mark.parametrize("function", ["from_dlpack", "asarray"])
def test_a_producer_that_cannot_share_is_asked_for_a_copy_when_one_is_allowed(function: str) -> None:
    """numpy's ``__dlpack__`` refuses a field (strides not whole items) unless asked to copy:
    copy=None allows the copy, so the producer is asked for one; copy=False keeps its refusal."""
    field = _RECORDS.view(_Records)["a"]
    x = getattr(dlarray, function)(field)
    np.testing.assert_array_equal(np.asarray(x), np.asarray(field))
    assert not _numpy_ptr(_RECORDS) <= x.data_ptr < _numpy_ptr(_RECORDS) + _RECORDS.nbytes
    with pytest.raises(BufferError, match="strides"):
        dlarray.from_dlpack(field, copy=False)


@needs.skip_without("torch")
def test_a_refusal_a_copy_does_not_cure_stands() -> None:
    """torch refuses a tensor that requires grad, copy or not: its own error, as before."""
    with pytest.raises(BufferError, match="require gradient"):
        dlarray.from_dlpack(torch.ones(3, requires_grad=True))


@pytest.mark.parametrize(("function", "error"), [("from_dlpack", BufferError), ("asarray", ValueError)])
@pytest.mark.parametrize("source", list(NOT_AS_THEY_LIE))
def test_copy_false_refuses_what_only_a_copy_holds_and_says_why(source: str, function: str, error: type) -> None:
    """The standard's classes: BufferError from from_dlpack, ValueError from asarray."""
    make, reason = NOT_AS_THEY_LIE[source]
    with pytest.raises(error, match=f"{reason}.*copy=False forbids it"):
        getattr(dlarray, function)(make(), copy=False)


def test_dtypes_dlarray_has_not_are_refused_copy_or_not() -> None:
    """A copy cannot hold what has no dlarray dtype (object, long double, structured)."""
    for native in (np.array([1, None], dtype=object), np.zeros(2, dtype=np.longdouble), _RECORDS):
        for copy in (True, None, False):
            with pytest.raises(TypeError, match="has no dlarray equivalent"):
                dlarray.from_dlpack(native, copy=copy)
            with pytest.raises(TypeError, match="has no dlarray equivalent"):
                dlarray.asarray(native, copy=copy)


# ------------------------------------------------ numpy arrays of ml_dtypes' dtypes (what jax users hold)
ml_dtypes = needs.optional("ml_dtypes")
ML_DTYPES = [d.name for d in ALL_DTYPES if d.numpy_dtype is None and ml_dtypes is not None and hasattr(ml_dtypes, d.name)]


@needs.skip_without("ml_dtypes")
@pytest.mark.parametrize("function", ["asarray", "from_dlpack"])
@pytest.mark.parametrize("name", ML_DTYPES)
def test_ml_dtypes_arrays_are_taken_zero_copy_as_dlarrays_dtypes(name: str, function: str) -> None:
    source = np.array([[1.0, 0.5], [2.0, 4.0]], dtype=getattr(ml_dtypes, name))
    x = getattr(dlarray, function)(source)
    assert x.dtype is getattr(dlarray, name)
    assert x.data_ptr == source.ctypes.data and not x.readonly
    assert np.asarray(x).tobytes() == source.tobytes()
    back = np.asarray(x)  # ml_dtypes' dtype again, the same memory
    assert back.dtype == source.dtype and back.ctypes.data == source.ctypes.data
    column = getattr(dlarray, function)(source[:, 1])  # a strided view stays one
    assert column.data_ptr == source[:, 1].ctypes.data and column.strides == (2,)
    source.flags.writeable = False
    assert getattr(dlarray, function)(source).readonly


@needs.skip_without("ml_dtypes")
@pytest.mark.parametrize("function", ["asarray", "from_dlpack"])
def test_ml_dtypes_arrays_not_as_they_lie_are_copied_or_refused(function: str) -> None:
    swapped = np.arange(3, dtype=np.dtype(ml_dtypes.bfloat16).newbyteorder(">"))
    copied = getattr(dlarray, function)(swapped)
    assert copied.dtype is dlarray.bfloat16
    assert np.asarray(dlarray.astype(copied, dlarray.float32)).tolist() == [0.0, 1.0, 2.0]
    with pytest.raises((ValueError, BufferError), match="not in native byte order"):
        getattr(dlarray, function)(swapped, copy=False)
    with pytest.raises(TypeError, match="numpy dtype int4 has no dlarray equivalent"):
        getattr(dlarray, function)(np.zeros(2, dtype=ml_dtypes.int4))  # ml_dtypes has it, DLPack not


@needs.skip_without("ml_dtypes", "torch")
@pytest.mark.parametrize("name", ["bfloat16", *_FLOAT8])
def test_ml_dtypes_arrays_go_on_to_torch_with_their_dlpack_codes(name: str) -> None:
    source = np.array([1.0, 0.5, 2.0], dtype=getattr(ml_dtypes, name))
    tensor = torch.from_dlpack(dlarray.asarray(source))
    assert tensor.dtype is getattr(torch, name) and tensor.data_ptr() == source.ctypes.data
    assert tensor.to(torch.float32).tolist() == source.astype(np.float32).tolist()


@needs.skip_without("ml_dtypes")
def test_without_ml_dtypes_numpy_conversion_of_bfloat16_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    x = dlarray.ones(2, dtype=dlarray.bfloat16)
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)  # as in an install without it
    with pytest.raises(TypeError, match="cannot convert to a numpy array"):
        np.asarray(x)


class CopiesOnlyToTheCpu:
    """A producer that refuses ``copy=True`` on its own device, as cupy does for GPU arrays
    (cupy/_core/core.pyx:360-365 at v14.2.0: "copy=True only supported for copy to CPU")."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array
        self.asked: list[dict[str, Any]] = []

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.array.__dlpack_device__()

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: bool | None = None) -> Any:
        self.asked.append({"dl_device": dl_device, "copy": copy})
        if copy is True:
            raise BufferError("copy=True only supported for copy to CPU.")
        return self.array.__dlpack__(max_version=max_version, dl_device=dl_device, copy=copy)


@pytest.mark.parametrize("device", [None, "cpu"])
def test_from_dlpack_copies_where_the_producer_cannot(device: str | None) -> None:
    """copy=True asks for a copy: where the producer refuses to make it, dlarray takes the data as it
    is and copies it (as it moves data a producer cannot hand over on the asked device)."""
    source = np.arange(4.0)
    producer = CopiesOnlyToTheCpu(source)
    x = dlarray.from_dlpack(producer, copy=True, device=device)
    assert x.data_ptr != _numpy_ptr(source) and not x.readonly
    np.testing.assert_array_equal(np.asarray(x), source)
    asked = [{"dl_device": (1, 0), "copy": True}] if device else []
    assert producer.asked == [*asked, {"dl_device": None, "copy": True}, {"dl_device": None, "copy": None}]
    producer.asked.clear()
    assert dlarray.from_dlpack(producer, copy=False).data_ptr == _numpy_ptr(source)  # no copy asked: none made
    assert producer.asked == [{"dl_device": None, "copy": False}]


def test_from_dlpack_passes_on_a_refusal_of_the_data_itself() -> None:
    """A producer that refuses even the plain export: its BufferError, whatever was asked."""
    class Refusing(CopiesOnlyToTheCpu):
        def __dlpack__(self, **options: Any) -> Any:
            raise BufferError("this buffer cannot be exported")

    for options in ({}, {"copy": True}, {"copy": True, "device": "cpu"}, {"copy": False}):
        with pytest.raises(BufferError, match="cannot be exported"):
            dlarray.from_dlpack(Refusing(np.arange(3.0)), **options)


class RefusesForItsOwnReasons:
    """A DLPack 1.0 producer whose export raises TypeError about the data, not the call (as
    pyarrow's does for bit-packed booleans and for arrays with nulls)."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: bool | None = None) -> Any:
        self.calls.append({"max_version": max_version, "dl_device": dl_device, "copy": copy})
        raise TypeError("bit-packed booleans have no DLPack export")

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


class PreDLPack1:
    """A producer from before DLPack 1.0: ``__dlpack__`` takes ``stream`` only."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array
        self.calls = 0

    def __dlpack__(self, stream: Any = None) -> Any:
        self.calls += 1
        return self.array.__dlpack__()

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


class _NoSignature:
    """A ``__dlpack__`` Python cannot read the signature of, as a C method without a text
    signature; it takes no keywords, and says so in Python's words."""

    __signature__ = "none: a C method without a text signature"  # inspect.signature raises

    def __init__(self, array: np.ndarray, message: str) -> None:
        self.array = array
        self.message = message
        self.calls: list[dict[str, Any]] = []

    def __call__(self, **keywords: Any) -> Any:
        self.calls.append(keywords)
        if keywords:
            raise TypeError(self.message)
        return self.array.__dlpack__()


class CMethodProducer:
    """A producer whose ``__dlpack__`` is a :class:`_NoSignature`."""

    def __init__(self, array: np.ndarray, message: str) -> None:
        self.__dlpack__ = _NoSignature(array, message)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


ASKED = [{}, {"copy": True}, {"copy": False}, {"device": "cpu"}, {"device": "cpu", "copy": True}]


@pytest.mark.parametrize("asked", ASKED)
def test_a_producers_own_type_error_reaches_the_caller_after_one_call(asked: dict[str, Any]) -> None:
    """A TypeError from a producer that takes the keywords is its refusal: no legacy retry (which
    would repeat it, or import a refused buffer as a legacy, read-only one)."""
    producer = RefusesForItsOwnReasons()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(TypeError, match="^bit-packed booleans have no DLPack export$"):
            dlarray.from_dlpack(producer, **asked)
    assert len(producer.calls) == 1 and producer.calls[0]["max_version"] == (1, 3)


@pytest.mark.parametrize("asked", ASKED)
def test_a_producer_from_before_dlpack_1_is_asked_without_keywords(asked: dict[str, Any]) -> None:
    """``__dlpack__(self, stream=None)``: its signature says it takes no keywords; its legacy capsule
    is imported (read-only: a legacy capsule cannot say the memory may be written), copied where
    asked."""
    source = np.arange(4.0)
    producer = PreDLPack1(source)
    x = dlarray.from_dlpack(producer, **asked)
    np.testing.assert_array_equal(np.asarray(x), source)
    if asked.get("copy"):
        assert x.data_ptr != _numpy_ptr(source) and not x.readonly
    else:
        assert x.data_ptr == _numpy_ptr(source) and x.readonly


def test_a_producer_taking_max_version_only_keeps_its_versioned_export() -> None:
    """A keyword the producer lacks (``copy``) is dropped, not every keyword: the capsule stays
    versioned (writable), and the copy is made here."""
    class VersionedOnly(PreDLPack1):
        def __dlpack__(self, stream: Any = None, max_version: Any = None) -> Any:
            self.calls += 1
            return self.array.__dlpack__(max_version=max_version)

    source = np.arange(4.0)
    producer = VersionedOnly(source)
    shared = dlarray.from_dlpack(producer, copy=False)
    assert shared.data_ptr == _numpy_ptr(source) and not shared.readonly
    copied = dlarray.from_dlpack(producer, copy=True)
    assert copied.data_ptr != _numpy_ptr(source) and not copied.readonly


@pytest.mark.parametrize("message", [
    "__dlpack__() got an unexpected keyword argument 'max_version'",  # CPython, Cython
    "'max_version' is an invalid keyword argument for __dlpack__()",  # CPython's builtins
    "__dlpack__() takes no keyword arguments",  # CPython, METH_NOARGS / METH_O
    "__dlpack__(): incompatible function arguments. The following argument types are supported: ...",  # pybind11
])
def test_a_producer_without_a_signature_is_retried_where_it_refuses_the_keywords(message: str) -> None:
    """Where Python cannot read the signature, the TypeError's message says whether the keywords
    were refused: then the producer is asked once more, without them."""
    source = np.arange(3.0)
    producer = CMethodProducer(source, message)
    x = dlarray.from_dlpack(producer)
    assert x.data_ptr == _numpy_ptr(source) and x.readonly
    assert producer.__dlpack__.calls == [{"max_version": (1, 3)}, {}]


def test_a_producer_without_a_signature_raising_about_its_data_is_not_retried() -> None:
    source = np.arange(3.0)
    producer = CMethodProducer(source, "Can only use DLPack on arrays with no nulls.")
    with pytest.raises(TypeError, match="^Can only use DLPack on arrays with no nulls.$"):
        dlarray.from_dlpack(producer)
    assert producer.__dlpack__.calls == [{"max_version": (1, 3)}]


@pytest.mark.parametrize("values", [[True, False], [1.0, None]])
def test_pyarrows_refusal_reaches_the_caller_without_a_legacy_export(values: list[Any]) -> None:
    """pyarrow 26 refuses bit-packed booleans and arrays with nulls with ArrowTypeError (a
    TypeError), and warns that a legacy export is deprecated: neither is asked for again."""
    pa = needs.library("pyarrow")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(pa.ArrowTypeError):
            dlarray.from_dlpack(pa.array(values))
        exported = pa.array([1.0, 2.0])
        x = dlarray.from_dlpack(exported)  # what pyarrow exports: imported zero-copy
    np.testing.assert_array_equal(np.asarray(x), [1.0, 2.0])
    assert x.data_ptr == exported.buffers()[1].address


def test_namespace_and_device() -> None:
    x = dlarray.asarray(np.arange(3))
    assert x.__array_namespace__() is dlarray
    assert x.__array_namespace__(api_version="2024.12") is dlarray
    with pytest.raises(ValueError):
        x.__array_namespace__(api_version="2021.12")
    assert str(x.device) == "cpu"
    assert x.to_device("cpu") is x
