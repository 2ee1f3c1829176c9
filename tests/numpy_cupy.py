"""A cupy made of numpy, for CPU tests of dlarray's CUDA path (tests/test_cuda_namespace.py).

"Device memory" here is host memory that dlarray is told lives on ``cuda:0``; this module plays
cupy over it with numpy, keeping what the CUDA path depends on in real cupy (v13/v14, read from
its sources):

* its arrays (``ndarray``) are not numpy arrays and refuse numpy: ``np.asarray(a)``, numpy
  ufuncs and numpy functions raise TypeError, as real cupy's implicit conversion does; numpy
  arrays are refused as operands (cupy's "Unsupported type"). A spec function that hands CUDA
  data to numpy fails here as it would on a GPU;
* only cupy's names and keywords, as tests/cupy_api.json describes real cupy (14.2.0; written by
  tests/cupy_api.py from a cupy wheel): a numpy name cupy lacks is an AttributeError, a keyword
  its cupy function does not take a TypeError, at the top level, in ``linalg``/``fft`` and for
  ``ndarray`` methods. So no top-level ``vecdot``; ``count_nonzero(a, axis=None)``;
  ``linalg`` without ``svdvals``, ``matrix_norm``, ``vector_norm``, ``trace``, ``outer``;
  ``linalg.cholesky(a)``, ``linalg.pinv(a, rcond=1e-15)``, ``linalg.matrix_rank(M, tol=None)``,
  ``linalg.solve`` with equal stack dimensions; flags without ``writeable``;
* cupy's known departures from the standard, so that dlarray's corrections are exercised: ``fill``
  (and so ``asarray`` of a 0-d host value, and scalar assignment) writes zero bytes for any zero;
  floating ``remainder`` is ``x1 - floor(x1 / x2) * x2``; complex ``log``/``log1p`` with a NaN
  component is ``log(|z|**2) + atan2 j``; complex ``tanh(±0 + (inf|NaN) j)`` is NaN + NaN j;
  complex ``arccosh(±0 + NaN j)`` is NaN + NaN j; complex ``log1p`` adds ``1 + 0j`` (an imaginary
  -0.0 becomes +0.0); ``linalg.cross`` takes equal shapes only; ``isin`` refuses a Python scalar;
  ``linalg.solve`` of a stack with no right-hand columns divides by zero; ``fft.irfftn``'s None on
  the last axis is ``2*(m - 1)``;
* no read-only arrays (cupy/_core/core.pyx:462): an array over read-only memory is written
  through; a view's ``data.mem`` is the memory object of the array it views;
* linalg errors as cupy reports them: ``linalg.cholesky`` of a matrix that is not positive
  definite, ``inv``/``solve``/``matrix_power`` (negative) of a singular one give NaN unless
  ``cupyx.errstate(linalg="raise")`` is on (cupy's default is "ignore"); ``install`` puts the
  stand-in's ``cupyx`` (only ``errstate``) in ``sys.modules`` too;
* ``cuda``: ``Device``, ``UnownedMemory``/``MemoryPointer`` over an address (a numpy view of it),
  ``Stream.from_external``, and cupy's current stream: ``with stream:`` makes ``stream`` current
  until the block ends and ``get_current_stream(device_id)`` answers it (the null stream outside
  any block), as cupy/cuda/stream.pyx keeps it (v14.2.0: ``_BaseStream.__enter__``/``__exit__``
  push and pop, lines 218-229; ``get_current_stream``, line 88). A copy to the host (``get``,
  ``asnumpy``) runs on the stream passed, else on the current one (cupy/_core/core.pyx:2120-2121),
  and appends that stream's pointer to :data:`host_copies_on`.

Use :func:`install` (a pytest ``monkeypatch``) to make ``import cupy`` find it.
"""

from __future__ import annotations

import contextlib
import ctypes
import operator
import sys
import types
from collections.abc import Iterator
from typing import Any, Self

import numpy as np
from cupy_api import load as _load_cupy_api

_API = _load_cupy_api()  # what real cupy has: names -> the keywords each takes (None: any)

__version__ = "14.2.0+numpy"
calls: list[str] = []  # module functions called, in order (tests read it)
host_copies_on: list[int] = []  # the stream pointer each copy to the host ran on, in order


class Flags:
    """cupy's flags: contiguity and ownership, no ``writeable``."""

    def __init__(self, a: np.ndarray) -> None:
        self.c_contiguous = a.flags.c_contiguous
        self.f_contiguous = a.flags.f_contiguous
        self.owndata = a.flags.owndata


class MemoryPointer:
    """cupy.cuda.MemoryPointer: an address on a device (and what keeps it alive)."""

    def __init__(self, mem: Any, offset: int) -> None:
        self.mem = mem
        self.ptr = mem.ptr + offset
        self.device_id = mem.device_id

    def copy_from_device_async(self, src: MemoryPointer, size: int, stream: Any = None) -> None:
        ctypes.memmove(self.ptr, src.ptr, size)


class UnownedMemory:
    """cupy.cuda.UnownedMemory: memory cupy did not allocate, kept alive by ``owner``."""

    def __init__(self, ptr: int, size: int, owner: Any, device_id: int = -1) -> None:
        # cupy: readonly object _owner (cupy/cuda/memory.pyx:193-194)
        self.ptr, self.size, self._owner, self.device_id = ptr, size, owner, max(device_id, 0)


class _Over:
    """Presents an address to numpy (``__array_interface__``), keeping the memory's owner."""

    def __init__(self, interface: dict[str, Any], keep: Any) -> None:
        self.__array_interface__ = interface
        self.keep = keep


def _unwrap(value: Any, *, host_ok: bool = False) -> Any:
    if isinstance(value, ndarray):
        return value._a
    if isinstance(value, np.ndarray) and not host_ok:
        raise TypeError(f"Unsupported type {type(value)}")  # cupy refuses host arrays
    if isinstance(value, (list, tuple)):
        return type(value)(_unwrap(v, host_ok=host_ok) for v in value)
    return value


def _wrap(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return ndarray._of(value)
    if isinstance(value, np.generic):
        return ndarray._of(np.asarray(value))
    if isinstance(value, tuple):
        wrapped = [_wrap(v) for v in value]
        return type(value)(*wrapped) if hasattr(value, "_fields") else tuple(wrapped)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


def _zero_as_cupy_fills(value: Any, dtype: np.dtype) -> Any:
    """cupy's fill: any zero (-0.0 included) is written as zero bytes."""
    scalar = np.asarray(_unwrap(value, host_ok=True), dtype=dtype)
    return np.zeros((), dtype) if scalar.shape == () and scalar == 0 else scalar


class ndarray:
    """A cupy array over (host) memory: numpy does the work, numpy is refused as a caller."""

    __array_ufunc__ = None  # numpy's ufuncs and operators refuse it (TypeError)
    __array_priority__ = 1000

    def __init__(self, shape: Any, dtype: Any = float, memptr: MemoryPointer | None = None,
                 strides: Any = None, order: str = "C") -> None:
        if memptr is None:
            self._a = np.empty(shape, dtype, order=order)
            return
        dtype = np.dtype(dtype)
        interface = {"version": 3, "shape": tuple(shape), "typestr": dtype.str,
                     "data": (memptr.ptr or 16, False), "strides": None if strides is None else tuple(strides)}
        self._a = np.asarray(_Over(interface, memptr))

    @classmethod
    def _of(cls, a: np.ndarray) -> ndarray:
        self = cls.__new__(cls)
        self._a = a
        return self

    # numpy is refused, as cupy refuses implicit conversion
    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use `.get()` "
                        "to construct a NumPy array explicitly.")

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        raise TypeError(f"numpy.{func.__name__} called on a cupy array (numpy cannot read device memory)")

    # what dlarray reads
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    strides = property(lambda self: self._a.strides)
    nbytes = property(lambda self: self._a.nbytes)
    itemsize = property(lambda self: self._a.itemsize)
    flags = property(lambda self: Flags(self._a))
    T = property(lambda self: ndarray._of(self._a.T))
    mT = property(lambda self: ndarray._of(self._a.mT))

    @property
    def data(self) -> MemoryPointer:
        """As cupy's: a view (slice, reshape, transpose...) of an array made over a MemoryPointer
        points into that pointer's memory object (``data.mem``), shared with the array it views."""
        address = self._a.__array_interface__["data"][0]
        base = self._a.base
        if type(base) is np.ndarray:  # numpy stops collapsing a view's base at the array over _Over
            base = base.base
        if type(base) is _Over:
            mem = base.keep.mem
            return MemoryPointer(mem, address - mem.ptr)
        return MemoryPointer(UnownedMemory(address, self._a.nbytes, self, 0), 0)

    @property
    def device(self) -> Device:
        return Device(0)

    @property
    def real(self) -> ndarray:
        return ndarray._of(self._a.real)

    @real.setter
    def real(self, value: Any) -> None:
        self._a.real = _unwrap(value)

    @property
    def imag(self) -> ndarray:
        return ndarray._of(self._a.imag)

    @imag.setter
    def imag(self, value: Any) -> None:
        self._a.imag = _unwrap(value)

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        a = self._a
        return {"version": 3, "shape": a.shape, "typestr": a.dtype.str, "strides": a.strides,
                "data": (a.__array_interface__["data"][0], False), "stream": 1}

    def get(self, stream: Any = None) -> np.ndarray:
        host_copies_on.append((_get_current_stream() if stream is None else stream).ptr)
        return self._a.copy()

    def set(self, arr: np.ndarray, stream: Any = None) -> None:
        """cupy's set: a host numpy array of this array's dtype and shape copied in."""
        if not isinstance(arr, np.ndarray):
            raise TypeError("Only numpy.ndarray can be set to cupy.ndarray")
        if arr.dtype != self._a.dtype or arr.shape != self._a.shape:
            raise TypeError(f"{arr.dtype} {arr.shape} array cannot be set to {self._a.dtype} {self._a.shape} array")
        self._a[...] = arr

    def fill(self, value: Any) -> None:
        self._a[...] = _zero_as_cupy_fills(value, self._a.dtype)

    def __getitem__(self, key: Any) -> ndarray:
        return _wrap(self._a[_unwrap(key)])

    def __setitem__(self, key: Any, value: Any) -> None:
        if isinstance(value, ndarray):
            self._a[_unwrap(key)] = value._a
        elif isinstance(value, np.ndarray) and value.ndim:
            raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
        else:  # a scalar: cupy fills the selection
            self._a[_unwrap(key)] = _zero_as_cupy_fills(value, self._a.dtype)

    def __getattr__(self, name: str) -> Any:
        # numpy's setflags, ctypes, ... are not cupy's; ``base`` is, but here it would be numpy's
        if name.startswith("__") or name not in _API["ndarray"] or name == "base":
            raise AttributeError(f"'cupy.ndarray' object has no attribute {name!r}")
        attribute = getattr(self._a, name)
        if not callable(attribute):
            return _wrap(attribute)

        def method(*args: Any, **kwargs: Any) -> Any:
            _keywords_checked("ndarray", name, kwargs)
            with np.errstate(all="ignore"):
                return _wrap(attribute(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()}))

        return method

    def __bool__(self) -> bool:
        return bool(self._a)

    def __int__(self) -> int:
        return int(self._a)

    def __float__(self) -> float:
        return float(self._a)

    def __complex__(self) -> complex:
        return complex(self._a)

    def __index__(self) -> int:
        return operator.index(self._a)

    def __len__(self) -> int:
        return len(self._a)

    def __repr__(self) -> str:
        return f"numpy_cupy.ndarray({self._a!r})"


def _operator(name: str) -> Any:
    def method(self: ndarray, *others: Any) -> Any:
        with np.errstate(all="ignore"):
            result = getattr(self._a, name)(*(_unwrap(o) for o in others))
        if result is NotImplemented:
            return NotImplemented
        if name in _IN_PLACE:  # the same array
            return self
        return _wrap(result)

    return method


_IN_PLACE = {f"__i{name}__" for name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
                                          "and", "or", "xor", "lshift", "rshift")}
for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor",
              "lshift", "rshift"):
    for _form in (f"__{_name}__", f"__r{_name}__", f"__i{_name}__"):
        setattr(ndarray, _form, _operator(_form))
for _form in ("__neg__", "__pos__", "__abs__", "__invert__", "__lt__", "__le__", "__gt__", "__ge__",
              "__eq__", "__ne__"):
    setattr(ndarray, _form, _operator(_form))


# ----------------------------------------------------------------------------- cupy.cuda
class Device:
    def __init__(self, device: int = 0) -> None:
        if not 0 <= int(device) < 1:
            raise RuntimeError("cudaErrorInvalidDevice: invalid device ordinal")
        self.id = int(device)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def synchronize(self) -> None:
        calls.append(f"cuda.Device({self.id}).synchronize")


class Stream:
    """A stream object (the null stream unless made from an external pointer); ``with`` makes it
    cupy's current stream for the block."""

    def __init__(self, ptr: int = 0) -> None:
        self.ptr = ptr

    def __enter__(self) -> Self:
        _current_streams.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _current_streams.pop()

    def synchronize(self) -> None:
        return None

    @classmethod
    def from_external(cls, obj: Any) -> Stream:  # cupy 14: the CUDA stream protocol only
        version, pointer = obj.__cuda_stream__()
        if version != 0 or not isinstance(pointer, int):
            raise TypeError("__cuda_stream__() must return (0, int)")
        return cls(pointer)


Stream.null = Stream(0)  # type: ignore[attr-defined]
Stream.ptds = Stream(2)  # type: ignore[attr-defined]
_current_streams: list[Stream] = []  # the streams made current by ``with`` blocks (one device)


def _malloc_managed(size: int) -> MemoryPointer:
    """cupy.cuda.malloc_managed: here host memory, like everything."""
    calls.append("cuda.malloc_managed")
    buffer = np.empty(max(size, 1), np.uint8)
    return MemoryPointer(UnownedMemory(buffer.ctypes.data, size, buffer, 0), 0)


def _get_current_stream(device_id: int = -1) -> Stream:
    """cupy's current stream: that of the innermost ``with stream:`` block, else the null stream."""
    return _current_streams[-1] if _current_streams else Stream.null


cuda = types.SimpleNamespace(
    Device=Device, UnownedMemory=UnownedMemory, MemoryPointer=MemoryPointer, Stream=Stream,
    get_current_stream=_get_current_stream, stream=types.SimpleNamespace(), malloc_managed=_malloc_managed,
    runtime=types.SimpleNamespace(getDeviceCount=lambda: 1),
)


# ----------------------------------------------------------------------------- functions
def _keywords_checked(where: str, name: str, kwargs: dict[str, Any]) -> None:
    """TypeError for a keyword real cupy's function does not take (as cupy would raise it)."""
    accepted = _API[where][name]
    if accepted is not None:
        for keyword in kwargs:
            if keyword not in accepted:
                raise TypeError(f"{name}() got an unexpected keyword argument {keyword!r} (cupy {_API['cupy']})")


def _function(name: str, source: Any, where: str = "top") -> Any:
    numpy_function = getattr(source, name)
    if name not in _API[where]:
        raise AttributeError(f"module 'cupy{'' if where == 'top' else '.' + where}' has no attribute {name!r}")

    def function(*args: Any, **kwargs: Any) -> Any:
        _keywords_checked(where, name, kwargs)
        calls.append(name)
        with np.errstate(all="ignore"):  # cupy's kernels raise no floating-point warnings
            return _wrap(numpy_function(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()}))

    function.__name__ = name
    return function


def __getattr__(name: str) -> Any:
    if name.startswith("__") or name not in _API["top"]:  # numpy names cupy lacks: vecdot, unstack...
        raise AttributeError(f"module 'cupy' has no attribute {name!r}")
    found = getattr(np, name)
    if isinstance(found, type) or not callable(found):
        return found  # dtypes (cupy.float32, cupy.int64...), constants
    return _function(name, np)


def asarray(a: Any, dtype: Any = None, order: Any = None) -> ndarray:
    calls.append("asarray")
    if isinstance(a, ndarray):
        return a if dtype is None or np.dtype(dtype) == a.dtype else ndarray._of(a._a.astype(dtype))
    host = np.array(a, dtype=dtype)
    out = ndarray._of(np.empty(host.shape, host.dtype))
    if host.ndim == 0:
        out.fill(host)  # cupy's _array_default fills a 0-d value: -0.0 arrives as +0.0
    else:
        out._a[...] = host
    return out


array = asarray


def asnumpy(a: ndarray, stream: Any = None) -> np.ndarray:
    return a.get(stream=stream)


def ascontiguousarray(a: ndarray, dtype: Any = None) -> ndarray:
    return ndarray._of(np.ascontiguousarray(a._a, dtype=dtype))


def count_nonzero(a: ndarray, axis: Any = None) -> ndarray:  # cupy: no keepdims
    calls.append("count_nonzero")
    return _wrap(np.asarray(np.count_nonzero(a._a, axis=axis)))


def remainder(x1: Any, x2: Any, out: Any = None) -> Any:
    """cupy's kernel: ``x1 - floor(x1 / x2) * x2`` for floating point."""
    calls.append("remainder")
    a, b = _unwrap(x1), _unwrap(x2)
    with np.errstate(all="ignore"):
        exact = np.remainder(a, b)
        if exact.dtype.kind == "f":
            exact = np.asarray(a - np.floor(np.true_divide(a, b)) * b, dtype=exact.dtype)
    if out is None:
        return _wrap(exact)
    np.copyto(out._a, exact, casting="same_kind")
    return out


def _thrust_log(z: np.ndarray) -> np.ndarray:
    """thrust's complex log: the NaN branch takes ``log(norm(z))`` (``|z|**2``)."""
    with np.errstate(all="ignore"):
        out = np.log(z)
        nan = np.isnan(z.real) | np.isnan(z.imag)
        norm = z.real * z.real + z.imag * z.imag
        out = np.where(nan, np.log(norm) + 1j * np.arctan2(z.imag, z.real), out)
    return np.asarray(out, dtype=z.dtype)


def log(x: ndarray) -> ndarray:
    calls.append("log")
    return _wrap(_thrust_log(x._a) if x.dtype.kind == "c" else np.log(x._a))


def log1p(x: ndarray) -> ndarray:
    calls.append("log1p")
    if x.dtype.kind != "c":
        return _wrap(np.log1p(x._a))
    # cupy's log1p(complex) is ``x += 1; log(x)`` (cupy/_core/include/cupy/complex.cuh), the 1
    # added as 1 + 0j: an imaginary -0.0 becomes +0.0 (seen on an H200)
    shifted = x._a + np.asarray(1 + 0j, x.dtype)
    return _wrap(_thrust_log(shifted))


def tanh(x: ndarray) -> ndarray:
    """thrust's ctanh: ``if (!isfinite(y)) return (y - y, y - y)`` even for x = ±0."""
    calls.append("tanh")
    out = np.tanh(x._a)
    if x.dtype.kind == "c":
        bad = ~np.isfinite(x._a.imag) & np.isfinite(x._a.real)
        out = np.where(bad, np.asarray(complex(np.nan, np.nan), out.dtype), out)
    return _wrap(np.asarray(out))


def arccosh(x: ndarray) -> ndarray:
    """thrust's cacosh: ``cacosh(0 + I*NaN) = NaN + I*NaN``."""
    calls.append("arccosh")
    out = np.arccosh(x._a)
    if x.dtype.kind == "c":
        bad = (x._a.real == 0) & np.isnan(x._a.imag)
        out = np.where(bad, np.asarray(complex(np.nan, np.nan), out.dtype), out)
    return _wrap(np.asarray(out))


def isin(element: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False) -> ndarray:
    """cupy's isin calls ``ravel`` on both operands (cupy/_logic/truth.py, in1d): a Python scalar
    is an AttributeError there."""
    calls.append("isin")
    for operand in (element, test_elements):
        if not isinstance(operand, ndarray):
            raise AttributeError(f"'{type(operand).__name__}' object has no attribute 'ravel'")
    return _wrap(np.isin(element._a, test_elements._a, assume_unique=assume_unique, invert=invert))


def full(shape: Any, fill_value: Any, dtype: Any = None) -> ndarray:
    calls.append("full")  # cupy.full: copyto, an element-wise copy (the sign of a zero kept)
    return ndarray._of(np.full(shape, _unwrap(fill_value), dtype=dtype))


# ----------------------------------------------------------------------------- cupy.linalg
# cupyx's linalg error setting, innermost errstate last: 'ignore' by default (cupyx/_ufunc_config.py:42-50)
_linalg_errors: list[str] = ["ignore"]


@contextlib.contextmanager
def _errstate(*, linalg: str | None = None) -> Iterator[None]:
    """cupyx.errstate (only its ``linalg`` setting, the one cupy implements)."""
    _linalg_errors.append(_linalg_errors[-1] if linalg is None else linalg)
    try:
        yield
    finally:
        _linalg_errors.pop()


cupyx = types.ModuleType("cupyx", "cupyx as the stand-in needs it: errstate")
cupyx.errstate = _errstate  # type: ignore[attr-defined]


def _status_checked(shape_of: Any) -> Any:
    """cupy's factorizations: where numpy raises LinAlgError (a matrix that is not positive definite,
    a singular one), cupy raises only under ``cupyx.errstate(linalg="raise")`` and otherwise returns
    what cuSOLVER left (cupy/linalg/_util.py:110-131); NaN here. ``shape_of(*args)``: the result's shape."""

    def decorate(function: Any) -> Any:
        def checked(*args: Any) -> Any:
            try:
                return function(*args)
            except np.linalg.LinAlgError:
                if _linalg_errors[-1] == "raise":
                    raise
                dtype = args[0].dtype if args[0].dtype.kind in "fc" else np.dtype(np.float64)
                return ndarray._of(np.full(shape_of(*args), np.nan, dtype=dtype))

        checked.__name__ = function.__name__
        return checked

    return decorate


@_status_checked(lambda a: a.shape)
def _cholesky(a: ndarray) -> ndarray:
    calls.append("linalg.cholesky")
    return _wrap(np.linalg.cholesky(a._a))


@_status_checked(lambda a: a.shape)
def _inv(a: ndarray) -> ndarray:
    calls.append("linalg.inv")
    return _wrap(np.linalg.inv(a._a))


@_status_checked(lambda a, n: a.shape)
def _matrix_power(a: ndarray, n: int) -> ndarray:
    calls.append("linalg.matrix_power")
    return _wrap(np.linalg.matrix_power(a._a, n))


def _pinv(a: ndarray, rcond: Any = 1e-15) -> ndarray:
    calls.append("linalg.pinv")
    return _wrap(np.linalg.pinv(a._a, rcond=_unwrap(rcond)))


def _matrix_rank(M: ndarray, tol: Any = None) -> ndarray:
    calls.append("linalg.matrix_rank")
    return _wrap(np.linalg.matrix_rank(M._a, tol=_unwrap(tol)))


def _svd(a: ndarray, full_matrices: bool = True, compute_uv: bool = True) -> Any:
    calls.append("linalg.svd")
    return _wrap(np.linalg.svd(a._a, full_matrices=full_matrices, compute_uv=compute_uv))


def _norm(x: ndarray, ord: Any = None, axis: Any = None, keepdims: bool = False) -> ndarray:
    calls.append("linalg.norm")
    return _wrap(np.linalg.norm(x._a, ord=ord, axis=axis, keepdims=keepdims))


@_status_checked(lambda a, b: a.shape[:-1] if b.ndim == 1 else b.shape)
def _solve(a: ndarray, b: ndarray) -> ndarray:
    calls.append("linalg.solve")
    if b.ndim > 1 and a.shape[:-1] != b.shape[:-1]:
        raise ValueError("a must have (..., M, M) shape and b must have (..., M, K) shape")
    if a.ndim > 2 and a.size and not b.size:
        # cupy's batched_gesv (cupy/cublas.py) makes its pointer array with a step of the
        # right-hand side's byte size: arange(p, p, 0) for no columns
        raise ZeroDivisionError("division by zero")
    if b.ndim == 1:
        return _wrap(np.linalg.solve(a._a, np.broadcast_to(b._a, a.shape[:-1])[..., None])[..., 0])
    return _wrap(np.linalg.solve(a._a, b._a))


def _linalg_cross(x1: ndarray, x2: ndarray, axis: int = -1) -> ndarray:
    """cupy 14's linalg.cross (cupy/linalg/_product.py, linalg_cross): equal shapes only."""
    calls.append("linalg.cross")
    if x1.shape != x2.shape:
        raise ValueError("x1 and x2 must have the same shape")
    return _wrap(np.linalg.cross(x1._a, x2._a, axis=axis))


linalg = types.SimpleNamespace(
    cholesky=_cholesky, pinv=_pinv, matrix_rank=_matrix_rank, svd=_svd, norm=_norm, solve=_solve,
    inv=_inv, matrix_power=_matrix_power, cross=_linalg_cross,
    **{name: _function(name, np.linalg, "linalg") for name in (
        "det", "qr", "eigh", "eigvalsh", "eig", "eigvals", "slogdet", "matmul",
        "matrix_transpose", "tensorsolve", "tensorinv", "lstsq", "cond")},
)
def _sized_transform(name: str) -> Any:
    """cupy's n-dimensional transforms: None in ``s`` is the input's size, except on ``irfftn``'s
    last axis, where it is ``2*(m - 1)`` (cupy/fft/_fft.py, _cook_shape and the C2R output size);
    -1 is refused here (cupy would read it as a length and slice the axis to ``:-1``)."""
    transform = _function(name, np.fft, "fft")

    def sized(a: ndarray, s: Any = None, axes: Any = None, norm: Any = None) -> ndarray:
        if s is not None:
            if -1 in s:
                raise ValueError(f"cupy.fft.{name}: cupy reads -1 in s as a length")
            placed = list(range(-len(s), 0)) if axes is None else list(axes)
            s = [-1 if size is None else size for size in s]
            if name == "irfftn" and s[-1] == -1:
                s[-1] = 2 * (a.shape[placed[-1]] - 1)
        return transform(a, s=s, axes=axes, norm=norm)

    return sized


fft = types.SimpleNamespace(
    **{name: _function(name, np.fft, "fft") for name in (
        "fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftshift", "ifftshift", "fftfreq", "rfftfreq")},
    **{name: _sized_transform(name) for name in ("fftn", "ifftn", "rfftn", "irfftn")},
)


def install(monkeypatch: Any) -> types.ModuleType:
    """Make ``import cupy`` find this module for one test (pytest's ``monkeypatch``)."""
    module = sys.modules[__name__]
    monkeypatch.setitem(sys.modules, "cupy", module)
    monkeypatch.setitem(sys.modules, "cupyx", cupyx)
    calls.clear()
    host_copies_on.clear()
    _current_streams.clear()
    return module
