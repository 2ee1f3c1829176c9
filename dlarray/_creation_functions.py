"""Array creation functions (Array API "Creation Functions"): from_dlpack, asarray, and friends."""

from __future__ import annotations

import functools
import math
import operator
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from ._array import Array, _adopt, adopt_numpy, copy_argument, from_bits, wrap
from ._array import _new as _array_of_fields
from ._backend import BackendUnavailable
from ._data_type_functions import astype
from ._devices import CPU, DEFAULT_DEVICE, Device, as_device, devices_differ
from ._dlpack import (
    DLPACK_VERSION,
    FLAG_IS_COPIED,
    FLAG_READ_ONLY,
    CapsuleType,
    consume_capsule,
    contiguous_strides,
)
from ._dtypes import (
    BY_DLPACK, BY_NUMPY, INTEGER_KINDS, DType, as_dtype, bool as bool_dtype, complex128, extended_of_numpy, float64, int64,
)
from . import _interfaces
from ._args import scalar_device, scalar_value, xp_of
from ._producers import export_again, export_with, fast_import_for, import_refusal_for
from ._float_formats import encode
from ._storage import bits_dtype, bits_view
from ._docs import Sections, entries, section

__all__ = [
    "arange",
    "asarray",
    "empty",
    "empty_like",
    "eye",
    "from_dlpack",
    "full",
    "full_like",
    "linspace",
    "meshgrid",
    "ones",
    "ones_like",
    "tril",
    "triu",
    "zeros",
    "zeros_like",
]

_ndarray = np.ndarray
_HOST_XP = CPU.backend.xp  # new arrays are built on the host, then moved to their device
_DLPACK_VERSION = DLPACK_VERSION


def from_dlpack(x: object, /, *, device: Device | None = None, copy: bool | None = None) -> Array:
    """Import any DLPack producer (or a bare DLPack capsule) as an Array, zero-copy.

    Standard: [`from_dlpack`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.from_dlpack.html).

    Parameters
    ----------
    x
        An object with ``__dlpack__`` (numpy, torch, jax, cupy, array-api-strict, another
        dlarray Array, ...) or a ``PyCapsule`` named ``dltensor``/``dltensor_versioned``.
    device
        Device for the result. ``None``: where ``x`` is. Another device asks the producer for a
        copy there (``dl_device``), else the data is moved after the import.
    copy
        ``True``: always copy (made here where the producer refuses to, as cupy does on the
        GPU). ``False``: never copy (`BufferError` if the producer would have to, or if ``x``
        cannot be held as it lies). ``None``: copy only if needed: a numpy array whose strides
        are not multiples of its itemsize (a structured array's field: DLPack counts strides in
        elements) or whose byte order is foreign (DLPack has none) is copied. numpy's bools
        count as bools; nothing else does.

    Returns
    -------
    Array
        Sharing ``x``'s memory unless a copy was asked for or needed. The producer's deleter runs
        exactly once, when the last Array or view of the buffer is gone. Read-only when the
        producer says so (``READ_ONLY``, or its buffer protocol or ``__array_interface__`` where
        it has them: the strictest answer is kept), and whenever it answers with a legacy
        (unversioned) capsule, which cannot say whether the memory may be written (jax up to 0.11
        does; numpy imports such capsules read-only too). ``copy=True`` always gives a writable
        array: where the producer's own copy is marked READ_ONLY (jax 0.12 and newer mark theirs
        so), it is copied once more (numpy's ``from_dlpack`` keeps such a copy read-only).

    Raises
    ------
    TypeError
        ``x`` supports no DLPack; ``device`` is not a device; ``copy`` is not None or a bool.
    ValueError
        An unknown device name, or a device pair naming no DLPack device.
    BufferError
        The capsule was consumed already, is malformed, or holds a tensor dlarray cannot describe;
        ``copy=False`` and a copy is needed (the message says why); a torch tensor with the
        negative bit set.
        A producer's own refusal (torch's for a tensor that requires grad; pyarrow's
        ``ArrowTypeError``, a `TypeError`, for bit-packed booleans) reaches the caller as the
        producer raised it, after one call.

    Notes
    -----
    A producer from before DLPack 1.0 (``__dlpack__(self, stream=None)``) is asked again with
    the keywords it takes (none: it gives a legacy capsule), only where the producer shows that
    it does not take them: its signature, or, where Python cannot read one, a `TypeError` saying
    "unexpected keyword argument". Any other `TypeError` is the producer's own.

    A producer type with the C exchange API (torch) is imported through it, without a capsule,
    only where dlarray knows the producer's ``__dlpack__`` rules and the object passes them
    (``dlarray._producers``); the result is always the one ``__dlpack__`` gives.

    Examples
    --------
    >>> import numpy as np
    >>> import dlarray as xp
    >>> source = np.arange(3.0)
    >>> x = xp.from_dlpack(source)
    >>> x
    Array([0., 1., 2.], dtype=float64, device=cpu)
    >>> x.data_ptr == source.ctypes.data  # the same memory
    True
    >>> xp.from_dlpack(source, copy=True).data_ptr == source.ctypes.data
    False
    """
    kind = type(x)
    if kind is CapsuleType and device is None and copy is None:  # a bare capsule, nothing else to do
        alone = _PARAMETER_COUNTS and _references(x) == _ALONE  # as below
        return consume_capsule(x, _adopt, alone)
    if device is None and copy is None and (fast := fast_import_for(kind)) is not None:
        # First, being the costliest to reach otherwise: a producer with the C exchange API (torch),
        # only where its __dlpack__ would give the same (dlarray._producers has the rules).
        # (Array, numpy arrays and capsules have none: the lookup gives None for them.)
        array = fast(x)
        if array is not None:
            return array  # no device or copy asked for: nothing else to do
        # refused by the producer's rules, raised by its exchange function, or not on the CPU
        # (let go already): __dlpack__ below refuses or converts as the producer does
    if copy is not None and copy is not True and copy is not False:
        copy = copy_argument(copy)
    target = None if device is None else as_device(device)
    if kind is Array:
        array = x
    elif kind is _ndarray:
        array = _from_numpy(x)
        if array is None:  # not as it lies: copied (not again below), or refused for copy=False
            array = _copied_numpy(x, copy, for_asarray=False)
            copy = None
    elif kind is CapsuleType:
        alone = _PARAMETER_COUNTS and _references(x) == _ALONE  # before the call: an argument pushed for it counts too
        array = consume_capsule(x, _adopt, alone)
    else:
        array = None
    if array is None:
        method = getattr(x, "__dlpack__", None)
        if method is None:
            raise TypeError(f"{kind.__name__} does not support DLPack (no __dlpack__ method)")
        if (refusal := import_refusal_for(kind)) is not None:
            refusal(x)  # what dlarray refuses although the producer's __dlpack__ would not
        if target is None and copy is None:
            try:
                try:  # export_with, written out: the general import path
                    capsule = method(max_version=_DLPACK_VERSION)
                except TypeError as error:  # a producer from before DLPack 1.0: asked again without keywords
                    capsule = export_again(method, error, max_version=_DLPACK_VERSION)
            except BufferError as refusal:
                capsule = _asked_for_a_copy(method, refusal)
            alone = _references(capsule) == _ALONE  # before the call: an argument pushed for it counts too
            if not _interfaces.described_otherwise(x):
                # the general path's common case: no other description to cross-check, and with no
                # device or copy asked for, the producer's IS_COPIED changes nothing
                return consume_capsule(capsule, _adopt, alone)
        else:
            # What is asked, then what the producer may manage where it refuses that (BufferError),
            # the rest done here below, as for an array, a numpy array or a capsule: the data
            # where it is (numpy hands over only on the CPU), moved below; then as it is (cupy
            # copies only to the CPU), copied below.
            asked: list[dict[str, Any]] = [{"copy": copy}]
            if target is not None:
                asked.insert(0, {"copy": copy, "dl_device": (target.type, target.id)})
            if copy:
                asked.append({})
            for attempt, options in enumerate(asked, 1):
                try:  # what a producer does not take (dl_device, copy) is done here below
                    capsule = export_with(method, max_version=_DLPACK_VERSION, **options)
                except BufferError:
                    if attempt == len(asked):
                        raise
                    continue
                break
            alone = _references(capsule) == _ALONE
        array, flags, device_type = consume_capsule(capsule, _imported, alone)
        if not flags & _READ_ONLY_OR_COPIED and device_type == _CPU_TYPE and _interfaces.read_only_elsewhere(x):
            # its buffer or __array_interface__ says read-only where its capsule did not: the
            # strictest answer of the ways the object describes its memory is kept
            array = array._as_read_only()
        elif flags & FLAG_IS_COPIED:
            if copy is False:
                raise BufferError("the producer copied the data although copy=False was asked for")
            if not flags & FLAG_READ_ONLY:
                copy = None  # done already
            # else a copy the producer marked READ_ONLY (jax >= 0.12 does): copied again below, as
            # copy=True promises memory of the caller's own, writable like every other copy
    if target is not None and target is not array._device:
        if copy is False:
            raise BufferError(f"moving the data from {array._device} to {target} needs a copy, and copy=False forbids it")
        return array.to_device(target)
    if copy:
        return array._copy()
    return array


def _references_of_a_local() -> int:
    local = object()
    return _references(local)


def _references_of_a_parameter(parameter: object) -> int:
    return _references(parameter)


def _counts_tell_a_held_parameter() -> bool:
    """Whether a parameter the caller also holds in a variable counts more references than a
    temporary passed the same way. Not where the interpreter lends a caller's reference to the
    callee without counting it (CPython 3.14 borrows stack references): then a capsule the caller
    still holds would look unheld, and a second consumer could take it from under the Array."""
    held = object()
    return _references_of_a_parameter(held) > _references_of_a_parameter(object()) == _ALONE


_references = sys.getrefcount
#: What ``_references(x)`` says in ``from_dlpack`` of an object only that frame holds (a capsule a
#: producer has just returned, or a temporary passed in): measured on an object held the same way,
#: since the count an argument adds differs between Python versions. Then no other code can reach
#: the capsule, and ``consume_capsule(..., alone=True)`` may keep it as the owner.
_ALONE = _references_of_a_local()
#: Whether a capsule passed in may be judged by its count (see _counts_tell_a_held_parameter);
#: where not, one passed in is always claimed. (A capsule a producer returns is a local: a
#: reference the producer keeps is a counted one on any build.)
_PARAMETER_COUNTS = _counts_tell_a_held_parameter()


def _imported(
    owner: Any, data: int, byte_offset: int, shape: tuple[int, ...], strides: tuple[int, ...], dtype_code: int,
    dtype_bits: int, device_type: int, device_id: int, flags: int, version: tuple[int, int] | None,
) -> tuple[Array, int, int]:
    """``consume_capsule``'s builder for from_dlpack: the Array, and the flags and device type
    from_dlpack's checks after an import read (the Array keeps no IS_COPIED)."""
    array = _adopt(owner, data, byte_offset, shape, strides, dtype_code, dtype_bits, device_type, device_id, flags)
    return array, flags, device_type


def _asked_for_a_copy(method: Callable[..., Any], refusal: BufferError) -> Any:
    """``copy=None`` allows a copy: a producer that cannot hand its data over as it lies (numpy's
    ``__dlpack__`` of a structured array's field, in a subclass) is asked for one. Its first
    refusal stands where it cannot make one either."""
    try:
        return method(max_version=_DLPACK_VERSION, copy=True)
    except (BufferError, TypeError):
        raise refusal from None


def _from_numpy(native: np.ndarray) -> Array | None:
    """Adopt a numpy array (our own backend type) without a capsule: same memory, same owner.

    None where it cannot be held as it lies (:func:`_copied_numpy` then copies or says why).
    """
    extended = None
    if _dtype_of_numpy(native.dtype) is None:  # a foreign byte order, or no dlarray dtype at all
        extended = extended_of_numpy(native.dtype)  # ml_dtypes' bfloat16, float8...: numpy lacks them
        if extended is None or not native.dtype.isnative:
            return None
    itemsize = native.itemsize
    for stride in native.strides:  # a loop, not any(generator): this is the import hot path
        if stride % itemsize:
            return None
    if extended is not None:  # held as the bit patterns dlarray stores such dtypes as
        return from_bits(native.view(bits_dtype(extended)), extended)
    return adopt_numpy(native)  # a view of its own, as np.from_dlpack makes a new array too


_dtype_of_numpy = BY_NUMPY.get
_CPU_TYPE = int(CPU.type)
_READ_ONLY_OR_COPIED = FLAG_READ_ONLY | FLAG_IS_COPIED


def _copied_numpy(native: np.ndarray, copy: bool | None, for_asarray: bool) -> Array:
    """A numpy array whose elements cannot be held where they lie, copied (C order, native byte
    order) unless ``copy`` is False: then the reason, in the class the standard gives (ValueError
    for asarray, BufferError for from_dlpack). TypeError, copy or not, for a dtype dlarray has
    not (object, structured, long double, ...)."""
    dtype = native.dtype
    target = _dtype_of_numpy(dtype.newbyteorder("="))
    if target is None:
        target = extended_of_numpy(dtype)
        if target is None:
            raise TypeError(f"numpy dtype {dtype} has no dlarray equivalent")
    if not dtype.isnative:
        reason = f"numpy array dtype {dtype.str!r} is not in native byte order; DLPack has no byte order"
    else:  # the field of a structured array, a view of a buffer at odd byte steps
        reason = (f"numpy array strides {native.strides} are not multiples of its itemsize {dtype.itemsize}; "
                  f"DLPack counts strides in elements")
    if copy is False:
        if for_asarray:
            raise ValueError(f"{reason}: it can only be copied, and copy=False forbids it")
        raise BufferError(f"{reason}: it can only be copied, and copy=False forbids it")
    if target.numpy_dtype is None:  # ml_dtypes' copy, held as bit patterns
        return from_bits(native.astype(dtype.newbyteorder("="), order="C").view(bits_dtype(target)), target)
    return wrap(native.astype(target.numpy_dtype, order="C"))


def _held(describe: Callable[[Any], tuple[Any, Any]], obj: object, copy: bool | None) -> tuple[Array, bool]:
    """``obj`` as an Array over its memory, described by ``describe`` (a buffer or interface
    reader of dlarray._interfaces), and False; where its elements cannot be held where they lie
    (``CopyNeeded``), their copy and True, unless ``copy`` is False (ValueError with the reason)."""
    try:
        return Array._from_tensor(*describe(obj)), False
    except _interfaces.CopyNeeded as needed:
        if copy is False:
            raise ValueError(f"{needed}: it can only be copied, and copy=False forbids it") from None
        return _copy_of_elements(needed), True


def _copy_of_elements(needed: _interfaces.CopyNeeded) -> Array:
    """The copy a ``CopyNeeded`` describes, on the device of its elements: their bytes copied in C
    order (each element's bytes reversed first where they are in the foreign byte order), then
    held as the elements' dtype."""
    elements = Array._from_tensor(needed.elements, needed.owner)  # uint8, one more dimension
    if needed.swapped:
        elements = elements[..., ::-1]
    try:
        copied = elements._copy()
    except BackendUnavailable as exc:
        raise TypeError(f"{needed}; copying it: {exc}") from None
    copied._ensure_metadata()
    shape = needed.shape
    return _array_of_fields(None, copied._owner, BY_DLPACK[needed.dtype_code, needed.dtype_bits], copied._device,
                            copied._stream, (copied._data, 0, shape, contiguous_strides(shape), 0))


def asarray(
    obj: object,
    /,
    *,
    dtype: DType | None = None,
    device: Device | None = None,
    copy: bool | None = None,
) -> Array:
    """Convert ``obj`` to an Array, zero-copy wherever the source allows it.

    Standard: [`asarray`](https://data-apis.org/array-api/2025.12/API_specification/generated/array_api.asarray.html).

    Parameters
    ----------
    obj
        An Array; any DLPack producer; an object with ``__cuda_array_interface__`` (v2/v3, the
        device memory is never read) or ``__array_interface__`` (v3); a buffer-protocol object
        (``bytes`` gives a read-only uint8 array; ``bytearray``, ``array.array``, ``memoryview``
        including strided ones); a Python scalar, a range or a nested list/tuple (copied into a
        new buffer: bool, int64, float64 or complex128 unless ``dtype`` says otherwise).
    dtype
        Data type of the result. A different dtype than the source's means a copy.
    device
        Device of the result. A different device than the source's means a copy.
    copy
        ``True``: always copy. ``False``: never copy; `ValueError` if a copy is needed (saying
        why). ``None``: copy only if needed: elements that cannot be held where they lie (byte
        strides that are not multiples of the itemsize, as a structured array's field has; a
        foreign byte order) are copied into C order and native byte order.

    Returns
    -------
    Array
        Sharing ``obj``'s memory unless a copy was asked for or needed.

    Raises
    ------
    TypeError
        ``obj`` cannot be made an array; ``dtype`` is not a dtype; ``device`` is not a device;
        ``copy`` is not None or a bool (numpy's bools count).
    ValueError
        ``copy=False`` and a copy is needed (the standard's choice of class); an unknown device name.
    OverflowError
        A Python integer that does not fit the dtype (int64 or uint64 when none is given).
    BufferError
        A buffer or interface dlarray cannot describe (see `from_dlpack`).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.asarray([[1, 2], [3, 4]])
    Array([[1, 2],
           [3, 4]], dtype=int64, device=cpu)
    >>> xp.asarray(1.5, dtype=xp.float32)
    Array(1.5, dtype=float32, device=cpu)
    >>> xp.asarray(b"ab")  # zero-copy over the bytes object, hence read-only
    Array([97, 98], dtype=uint8, device=cpu, readonly=True)
    >>> import numpy as np
    >>> records = np.array([(1.5, 7), (2.5, 8)], dtype=[("a", "f8"), ("b", "i4")])
    >>> xp.asarray(records["a"])  # strides of 12 bytes, not whole float64s: copied
    Array([1.5, 2.5], dtype=float64, device=cpu)
    """
    if copy is not None and copy is not True and copy is not False:
        copy = copy_argument(copy)
    target_dtype = None if dtype is None else as_dtype(dtype)
    target_device = None if device is None else as_device(device)
    kind = type(obj)
    if target_device is None and DEFAULT_DEVICE is not CPU and (
        kind in (bool, int, float, complex) or isinstance(obj, (list, tuple, range))
    ):
        target_device = DEFAULT_DEVICE  # a new buffer goes to the default device
    copied = False
    if kind is Array:
        array = obj
    elif kind is _ndarray:
        array = _from_numpy(obj)
        if array is None:  # not as it lies: copied, or refused for copy=False
            array, copied = _copied_numpy(obj, copy, for_asarray=True), True
    elif kind is bytes:
        array = _interfaces.from_bytes(obj, _adopt)
    elif kind is bytearray or kind is memoryview:
        array, copied = _held(_interfaces.from_buffer, obj, copy)
    elif kind in (bool, int, float, complex) or isinstance(obj, (list, tuple, range, np.generic)):
        if copy is False:
            raise ValueError(f"a {kind.__name__} must be copied into a new buffer, and copy=False forbids it")
        return _from_python(obj, target_dtype, target_device)
    elif hasattr(obj, "__dlpack__") and not isinstance(obj, (bytes, bytearray, memoryview)):
        array = from_dlpack(obj, copy=False if copy is False else None)
    elif hasattr(obj, "__cuda_array_interface__"):
        array, copied = _held(_interfaces.from_cuda_array_interface, obj, copy)
    elif hasattr(obj, "__array_interface__"):
        array, copied = _held(_interfaces.from_array_interface, obj, copy)
    elif _interfaces.supports_buffer(obj):
        array, copied = _held(_interfaces.from_buffer, obj, copy)
    else:
        raise TypeError(f"cannot make an array from {kind.__name__}")
    if target_device is not None and target_device is not array._device:
        if copy is False:
            raise ValueError(f"moving the data from {array._device} to {target_device} needs a copy, and copy=False forbids it")
        array = array.to_device(target_device)
        copied = True
    if target_dtype is not None and target_dtype is not array._dtype:
        if copy is False:
            raise ValueError(f"converting {array._dtype} to {target_dtype} needs a copy, and copy=False forbids it")
        if target_dtype.numpy_dtype is None or array._dtype.numpy_dtype is None:
            return astype(array, target_dtype)  # bfloat16, float8/6/4: bit conversions
        return wrap(array._as_native().astype(target_dtype.numpy_dtype))
    if copy and not copied:
        return array._copy()
    return array


_DEFAULT_FOR_PYTHON = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}


def _integer_outside(obj: Any, limits: Any) -> Any:
    """The first Python integer in ``obj`` (a scalar or nested sequence) outside ``limits`` (an
    iinfo; None: outside both int64 and uint64), for the message; ``obj`` itself if none is found."""
    low, high = (-(2**63), 2**64 - 1) if limits is None else (int(limits.min), int(limits.max))
    pending = [obj]
    while pending:
        item = pending.pop()
        if isinstance(item, (list, tuple)):
            pending.extend(reversed(item))
        elif isinstance(item, int) and not isinstance(item, bool) and not low <= item <= high:
            return item
    return obj


def _device_elements_read(obj: Any) -> Any:
    """``obj`` (a nested sequence) with each Array whose memory numpy cannot read replaced by a
    copy on the host; ``obj`` itself when it holds none."""
    if type(obj) is Array:
        return obj if obj._device.backend.host_native else obj.to_device(CPU)
    if isinstance(obj, (list, tuple)):
        items = [_device_elements_read(item) for item in obj]
        if any([new is not old for new, old in zip(items, obj)]):
            return items
    return obj


def _from_python(obj: Any, dtype: DType | None, device: Device | None) -> Array:
    """Copy a Python scalar or nested sequence into a new buffer (numpy builds it)."""
    if dtype is not None:
        numpy_dtype = dtype.numpy_dtype
        if numpy_dtype is None:
            # numpy has no such type: build float64 values, then round them into the format
            return astype(_from_python(obj, float64, None), dtype, device=device)
    else:
        numpy_dtype = _DEFAULT_FOR_PYTHON.get(type(obj))
    try:
        native = _HOST_XP.array(obj, dtype=numpy_dtype)
    except TypeError:
        # numpy reads an Array in the sequence through __array__, which refuses device memory:
        # read such elements to the host (a copy each, as cupy or torch would read them)
        on_host = _device_elements_read(obj)
        if on_host is obj:
            raise
        return _from_python(on_host, dtype, device)
    except OverflowError:
        target = np.dtype("int64" if numpy_dtype is None else numpy_dtype)
        value = _integer_outside(obj, np.iinfo(target) if target.kind in "iu" else None)
        raise OverflowError(f"the Python integer {value} does not fit {target.name}") from None
    if native.dtype.kind not in "biufc":
        too_large = _integer_outside(obj, None)
        if too_large is not obj:
            raise OverflowError(f"the Python integer {too_large} does not fit int64 or uint64") from None
        raise TypeError(f"cannot make an array of {native.dtype} from {type(obj).__name__}")
    array = wrap(native)
    if device is not None and device is not CPU:
        return array.to_device(device)
    return array


# ================================================================================== new arrays
# Every function below builds its result on the host, with the host backend's namespace (_HOST_XP,
# numpy), and places it (_placed). An array for another device is
# then moved there by Array.to_device (which says what is missing when it cannot).



def _shape_argument(shape: Any) -> tuple[int, ...]:
    """A shape argument (an int or a sequence of ints) as a tuple; ValueError for a negative size."""
    if type(shape) is tuple:  # the common case, checked without building anything
        for extent in shape:
            if type(extent) is not int or extent < 0:
                break
        else:
            return shape
    if isinstance(shape, (tuple, list)):
        sizes = tuple([operator.index(extent) for extent in shape])
    else:
        try:
            sizes = (operator.index(shape),)
        except TypeError:
            raise TypeError(f"a shape must be an int or a tuple of ints, got {type(shape).__name__}") from None
    if any([extent < 0 for extent in sizes]):
        raise ValueError(f"negative dimensions are not allowed, got shape {sizes}")
    return sizes


def _device_argument(device: Any) -> Device | None:
    """The device a new array goes to; None for the CPU, where numpy builds it."""
    if device is None:
        return None if DEFAULT_DEVICE is CPU else DEFAULT_DEVICE
    return as_device(device)


def _dtype_argument(dtype: Any, default: DType) -> DType:
    return default if dtype is None else as_dtype(dtype)


def _placed(native: np.ndarray, device: Device | None) -> Array:
    """The Array owning a new host result, moved to ``device`` when that is another one."""
    array = wrap(native)
    if device is not None and device is not CPU:
        return array.to_device(device)
    return array


def _numpy_dtype(dtype: DType, function: str) -> np.dtype:
    numpy_dtype = dtype.numpy_dtype
    if numpy_dtype is None:
        raise TypeError(f"{function}() cannot fill {dtype} arrays: dlarray holds them but does not compute with them")
    return numpy_dtype


def _device_of_like(x: Any, device: Any) -> Device:
    if type(x) is not Array:
        raise TypeError(f"expected an Array, got {type(x).__name__}")
    return x._device if device is None else as_device(device)


# ---------------------------------------------------------------- raw storage (extra dtypes)
# bfloat16 and the float8/6/4 types have no numpy dtype: new arrays of them are filled through
# their bits (see dlarray._storage).


def _raw_filled(shape: tuple[int, ...], dtype: DType, pattern: int | None, device: Device | None) -> Array:
    """A new array of a dtype numpy lacks, every element the bit ``pattern`` (None: uninitialised)."""
    unsigned = bits_dtype(dtype)
    raw = _HOST_XP.empty(shape, dtype=unsigned) if pattern is None else _HOST_XP.full(shape, pattern, dtype=unsigned)
    return from_bits(raw, dtype, device)


def _zero_pattern(dtype: DType) -> int:
    """The bit pattern of +0.0 in a dtype numpy lacks (all zero bits, where zero exists)."""
    if dtype.name == "float8_e8m0fnu":
        raise TypeError("float8_e8m0fnu has no zero (it stores powers of two only)")
    return 0


def _pattern(dtype: DType, value: Any) -> int:
    """The bit pattern of a real Python scalar in a dtype numpy lacks (rounded to nearest even)."""
    if isinstance(value, (complex, np.complexfloating)):
        raise TypeError(f"a complex value does not fit a {dtype} array")
    return int(encode(np.asarray(float(value)), dtype))


def _no_pattern(dtype: DType) -> None:
    """No bit pattern: ``empty`` leaves the elements of a dtype numpy lacks uninitialised."""


def _one_pattern(dtype: DType) -> int:
    """The bit pattern of 1.0 in a dtype numpy lacks."""
    return _pattern(dtype, 1.0)


def _new(
    shape: Any,
    dtype: Any,
    device: Any,
    make: Callable[..., np.ndarray],
    pattern: Callable[[DType], int | None],
) -> Array:
    """A new array of ``shape`` built by ``make`` (empty/zeros/ones of the host namespace; float64 by default).

    A dtype numpy lacks is filled with ``pattern(dtype)`` instead (``None``: uninitialised).
    """
    sizes = _shape_argument(shape)
    target = _dtype_argument(dtype, float64)
    place = _device_argument(device)
    if target.numpy_dtype is None:
        return _raw_filled(sizes, target, pattern(target), place)
    return _placed(make(sizes, dtype=target.numpy_dtype), place)


# ---------------------------------------------------------------- functions


_DEVICE = (
    "Device of the result (a `Device`, ``\"cpu\"``, ``\"cuda:0\"``, ...); default the default device "
    "(the CPU unless ``DLARRAY_DEFAULT_DEVICE`` says otherwise)."
)
_LIKE_X = "The array whose shape (and, unless given, dtype and device) the result takes."
_LIKE_DTYPE_DEVICE = [
    ("dtype", "Data type; default ``x``'s."),
    ("device", "Device of the result; default ``x``'s."),
]
# What the docstrings share (dlarray._docs.Sections fills each ``{name}`` line in).
_doc = Sections(
    shape_parameter=section("Parameters", [("shape", "Size of each dimension.")]),
    device_parameter=entries([("device", _DEVICE)]),
    new_array_parameters=section("Parameters", [
        ("shape", "Size of each dimension."),
        ("dtype", "Data type; default ``float64``. bfloat16 and the float8/6/4 types too."),
        ("device", _DEVICE),
    ]),
    shape_errors=section("Raises", [
        ("TypeError", "``shape`` is not an int or a tuple of ints; ``dtype`` is not a dtype; ``device`` is "
                      "not a device."),
        ("ValueError", "A negative size; an unknown device name."),
    ]),
    like_x=entries([("x", _LIKE_X)]),
    like_dtype_device=entries(_LIKE_DTYPE_DEVICE),
    triangle_sections="\n\n".join([
        section("Parameters", [
            ("x", "An array of rank 2 or more; the last two axes are the matrices."),
            ("k", "The diagonal: 0 the main one, positive above it, negative below."),
        ]),
        section("Returns", [("Array", "A new array, same shape, dtype and device as ``x``.")]),
        "{matrix_stack_errors}",
    ]),
    like_sections="\n\n".join([
        section("Parameters", [("x", _LIKE_X), *_LIKE_DTYPE_DEVICE]),
        section("Returns", [("Array", "")]).rstrip(),
        section("Raises", [
            ("TypeError", "``x`` is not an Array; ``dtype`` is not a dtype; ``device`` is not a device."),
            ("ValueError", "An unknown device name."),
        ]),
    ]),
)


@_doc
def empty(shape: int | tuple[int, ...], *, dtype: DType | None = None, device: Device | None = None) -> Array:
    """A new array of ``shape`` whose elements are not initialised.

    {new_array_parameters}

    Returns
    -------
    Array
        Writable, C-contiguous; its values are whatever the memory held.

    {shape_errors}

    {examples}
    >>> x = xp.empty((2, 3), dtype=xp.int32)
    >>> x.shape, x.dtype
    ((2, 3), dlarray.int32)
    """
    return _new(shape, dtype, device, _HOST_XP.empty, _no_pattern)


@_doc
def zeros(shape: int | tuple[int, ...], *, dtype: DType | None = None, device: Device | None = None) -> Array:
    """A new array of ``shape`` filled with zeros.

    {shape_parameter}
    dtype
        Data type; default ``float64``. bfloat16 and the float8/6/4 types too, except
        ``float8_e8m0fnu``, which has no zero (`TypeError`).
    {device_parameter}

    Returns
    -------
    Array
        Writable, C-contiguous, every element zero.

    {shape_errors}

    {examples}
    >>> xp.zeros((2, 2))
    Array([[0., 0.],
           [0., 0.]], dtype=float64, device=cpu)
    >>> xp.zeros(3, dtype=xp.bfloat16)
    Array([0., 0., 0.], dtype=bfloat16, device=cpu)
    """
    return _new(shape, dtype, device, _HOST_XP.zeros, _zero_pattern)


@_doc
def ones(shape: int | tuple[int, ...], *, dtype: DType | None = None, device: Device | None = None) -> Array:
    """A new array of ``shape`` filled with ones (``1 + 0j`` for complex dtypes).

    {new_array_parameters}

    Returns
    -------
    Array
        Writable, C-contiguous, every element one.

    {shape_errors}

    {examples}
    >>> xp.ones(3, dtype=xp.int8)
    Array([1, 1, 1], dtype=int8, device=cpu)
    """
    return _new(shape, dtype, device, _HOST_XP.ones, _one_pattern)


def _fill_dtype(fill_value: Any) -> DType:
    """The dtype ``full`` infers from a Python scalar: bool, int64, float64 or complex128."""
    if isinstance(fill_value, (bool, np.bool_)):
        return bool_dtype
    if isinstance(fill_value, (int, np.integer)):
        return int64
    if isinstance(fill_value, (float, np.floating)):
        return float64
    if isinstance(fill_value, (complex, np.complexfloating)):
        return complex128
    raise TypeError(f"fill_value must be a bool, int, float or complex, not {type(fill_value).__name__}")


def _filled(shape: tuple[int, ...], fill_value: Any, dtype: DType, device: Device | None) -> Array:
    _fill_dtype(fill_value)  # type check
    if dtype.numpy_dtype is None:
        return _raw_filled(shape, dtype, _pattern(dtype, fill_value), device)
    numpy_dtype = dtype.numpy_dtype
    if isinstance(fill_value, (complex, np.complexfloating)) and dtype.category != "complex floating":
        raise TypeError(f"a complex fill_value does not fit a {dtype} array")
    if dtype.category in INTEGER_KINDS and isinstance(fill_value, (int, np.integer)):
        low, high = _integer_bounds(numpy_dtype)
        if not low <= int(fill_value) <= high:
            raise OverflowError(f"fill_value {fill_value} is out of the range of {dtype}")
    return _placed(_HOST_XP.full(shape, fill_value, dtype=numpy_dtype), device)


@_doc
def full(
    shape: int | tuple[int, ...],
    fill_value: bool | int | float | complex | Array,
    *,
    dtype: DType | None = None,
    device: Device | None = None,
) -> Array:
    """A new array of ``shape`` with every element ``fill_value``.

    {shape_parameter}
    fill_value
        A Python scalar, or a 0-d Array (read as its value).
    dtype
        Data type; default: inferred from ``fill_value`` (bool, int64, float64 or complex128; a
        0-d Array's own dtype, as in numpy).
    device
        Device of the result (a `Device`, ``"cpu"``, ``"cuda:0"``, ...); default the device of a
        0-d Array ``fill_value``, else the default device (the CPU unless
        ``DLARRAY_DEFAULT_DEVICE`` says otherwise).

    Returns
    -------
    Array
        Writable, C-contiguous, every element ``fill_value``.

    Raises
    ------
    TypeError
        ``fill_value`` is not a bool, int, float or complex, or is complex for a real ``dtype``;
        ``shape``, ``dtype`` or ``device`` of the wrong kind.
    ValueError
        A negative size; an unknown device name.
    OverflowError
        An integer ``fill_value`` outside the range of an integer ``dtype``.

    {examples}
    >>> xp.full((2, 2), 7)
    Array([[7, 7],
           [7, 7]], dtype=int64, device=cpu)
    >>> xp.full(2, 0.5, dtype=xp.float32)
    Array([0.5, 0.5], dtype=float32, device=cpu)
    """
    sizes = _shape_argument(shape)
    place = scalar_device(_device_argument(device), fill_value)
    value = scalar_value(fill_value, "full() fill_value")
    if dtype is not None:
        target = as_dtype(dtype)
    else:  # a 0-d Array keeps its dtype, as in numpy; a Python scalar gives the default of its kind
        target = fill_value._dtype if type(fill_value) is Array else _fill_dtype(value)
    return _filled(sizes, value, target, place)


@_doc
def empty_like(x: Array, /, *, dtype: DType | None = None, device: Device | None = None) -> Array:
    """A new array of ``x``'s shape (and dtype and device, unless given), not initialised.

    {like_sections}

    {examples}
    >>> xp.empty_like(xp.asarray([1, 2, 3])).shape
    (3,)
    """
    place = _device_of_like(x, device)  # checks that x is an Array
    return _new(x.shape, x._dtype if dtype is None else dtype, place, _HOST_XP.empty, _no_pattern)


@_doc
def zeros_like(x: Array, /, *, dtype: DType | None = None, device: Device | None = None) -> Array:
    """A new array of ``x``'s shape (and dtype and device, unless given) filled with zeros.

    {like_sections}

    {examples}
    >>> xp.zeros_like(xp.asarray([[1, 2, 3]]))
    Array([[0, 0, 0]], dtype=int64, device=cpu)
    """
    place = _device_of_like(x, device)  # checks that x is an Array
    return _new(x.shape, x._dtype if dtype is None else dtype, place, _HOST_XP.zeros, _zero_pattern)


@_doc
def ones_like(x: Array, /, *, dtype: DType | None = None, device: Device | None = None) -> Array:
    """A new array of ``x``'s shape (and dtype and device, unless given) filled with ones (``1 + 0j`` for
    complex dtypes).

    {like_sections}

    {examples}
    >>> xp.ones_like(xp.asarray([1, 2]), dtype=xp.float32)
    Array([1., 1.], dtype=float32, device=cpu)
    """
    place = _device_of_like(x, device)  # checks that x is an Array
    return _new(x.shape, x._dtype if dtype is None else dtype, place, _HOST_XP.ones, _one_pattern)


@_doc
def full_like(
    x: Array,
    /,
    fill_value: bool | int | float | complex | Array,
    *,
    dtype: DType | None = None,
    device: Device | None = None,
) -> Array:
    """A new array of ``x``'s shape (and dtype and device, unless given), every element ``fill_value``.

    Parameters
    ----------
    {like_x}
    fill_value
        A Python scalar, or a 0-d Array on the result's device (read as its value).
    {like_dtype_device}

    Returns
    -------
    Array
        Writable, C-contiguous, of ``x``'s shape, every element ``fill_value``.

    Raises
    ------
    TypeError
        ``x`` is not an Array; ``fill_value`` is not a bool, int, float or complex, or is complex
        for a real dtype.
    OverflowError
        An integer ``fill_value`` outside the range of an integer dtype.

    {examples}
    >>> xp.full_like(xp.asarray([1.0, 2.0]), 9)
    Array([9., 9.], dtype=float64, device=cpu)
    """
    place = scalar_device(_device_of_like(x, device), fill_value)
    target = x._dtype if dtype is None else as_dtype(dtype)
    return _filled(tuple(x.shape), scalar_value(fill_value, "full_like() fill_value"), target, place)


@_doc
def eye(
    n_rows: int,
    n_cols: int | None = None,
    /,
    *,
    k: int = 0,
    dtype: DType | None = None,
    device: Device | None = None,
) -> Array:
    """A 2-D array with ones on the ``k``-th diagonal and zeros elsewhere.

    Parameters
    ----------
    n_rows
        Number of rows.
    n_cols
        Number of columns; default ``n_rows``.
    k
        The diagonal: 0 the main one, positive above it, negative below.
    dtype
        Data type; default ``float64``. Not the stored-only types (bfloat16, float8/6/4).
    {device_parameter}

    Returns
    -------
    Array
        Shape ``(n_rows, n_cols)``; all zeros when the diagonal misses the matrix.

    Raises
    ------
    TypeError
        A size or ``k`` that is not an integer; a stored-only ``dtype``.
    ValueError
        A negative size.

    {examples}
    >>> xp.eye(2, 3, k=1, dtype=xp.int32)
    Array([[0, 1, 0],
           [0, 0, 1]], dtype=int32, device=cpu)
    """
    rows = operator.index(n_rows)
    cols = rows if n_cols is None else operator.index(n_cols)
    if rows < 0 or cols < 0:
        raise ValueError(f"eye() needs non-negative sizes, got {rows} x {cols}")
    diagonal = operator.index(k)
    target = _dtype_argument(dtype, float64)
    numpy_dtype = _numpy_dtype(target, "eye")
    if -rows < diagonal < cols:
        native = _HOST_XP.eye(rows, cols, k=diagonal, dtype=numpy_dtype)
    else:  # the diagonal misses the matrix (numpy's eye fails for a huge k)
        native = _HOST_XP.zeros((rows, cols), dtype=numpy_dtype)
    return _placed(native, _device_argument(device))


def _real_argument(value: Any, name: str) -> int | float:
    kind = type(value)
    if kind is int or kind is float:
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"arange() {name} must be an int or a float, got {type(value).__name__}")
    return int(value) if isinstance(value, (int, np.integer)) else float(value)


@_doc
def arange(
    start: int | float | Array,
    /,
    stop: int | float | Array | None = None,
    step: int | float | Array = 1,
    *,
    dtype: DType | None = None,
    device: Device | None = None,
) -> Array:
    """Evenly spaced values in the half-open interval ``[start, stop)``.

    Parameters
    ----------
    start
        Start of the interval; with ``stop`` omitted, the end (and the start is 0). Each of
        ``start``, ``stop`` and ``step`` may be a 0-d Array, read as its value.
    stop
        End of the interval (excluded).
    step
        Distance between neighbouring values; not zero, may be negative.
    dtype
        Data type; default int64 when ``start``, ``stop`` and ``step`` are all ints, float64
        otherwise. An integer dtype with float arguments counts as numpy does: as many values as
        the float interval holds, from ``int(start)`` spaced by ``int(start + step) - int(start)``.
    {device_parameter}

    Returns
    -------
    Array
        One-dimensional, ``ceil((stop - start) / step)`` elements (none when the signs differ).
        Integer ranges are exact over the whole int64/uint64 range.

    Raises
    ------
    TypeError
        An argument that is not an int, a float or a 0-d array of one (bools included); a bool or
        stored-only ``dtype``; an array argument of another shape.
    ValueError
        ``step`` is zero; an infinite or NaN argument with an integer ``dtype``; a 0-d array
        argument on another device than ``device``.
    OverflowError
        Values outside the range of an integer ``dtype``.

    {examples}
    >>> xp.arange(5)
    Array([0, 1, 2, 3, 4], dtype=int64, device=cpu)
    >>> xp.arange(1.0, 0.0, -0.25)
    Array([1.  , 0.75, 0.5 , 0.25], dtype=float64, device=cpu)
    """
    if stop is None:
        start, stop = 0, start
    place = scalar_device(_device_argument(device), start, stop, step)
    first = _real_argument(scalar_value(start, "arange() start"), "start")
    last = _real_argument(scalar_value(stop, "arange() stop"), "stop")
    delta = _real_argument(scalar_value(step, "arange() step"), "step")
    if delta == 0:
        raise ValueError("arange() step must not be zero")
    integral = type(first) is int and type(last) is int and type(delta) is int
    target = _dtype_argument(dtype, int64 if integral else float64)
    numpy_dtype = _numpy_dtype(target, "arange")
    if target.category in INTEGER_KINDS:
        if integral:
            native = _integer_range(first, last, delta, numpy_dtype)  # type: ignore[arg-type]
        else:
            native = _truncated_range(first, last, delta, numpy_dtype)
    elif target.category == "bool":
        raise TypeError("arange() cannot make a bool range")
    else:
        native = _HOST_XP.arange(first, last, delta, dtype=numpy_dtype)
    return _placed(native, place)


_EXACT = 2**52  # |start|, |stop| below this: |stop - start| < 2**53, exact in a double


@functools.cache
def _integer_bounds(numpy_dtype: np.dtype) -> tuple[int, int]:
    info = np.iinfo(numpy_dtype)
    return int(info.min), int(info.max)


def _integer_range(start: int, stop: int, step: int, numpy_dtype: np.dtype) -> np.ndarray:
    """``range(start, stop, step)`` as an array of an integer dtype, exact for every length.

    numpy's arange computes the length in double precision (off by one for long ranges of
    large numbers); here the length is exact and the values are computed modulo 2**64, which is
    exact because every true value fits the dtype.
    """
    count = len(range(start, stop, step))
    if count:
        low, high = _integer_bounds(numpy_dtype)
        final = start + (count - 1) * step
        if not (low <= start <= high and low <= final <= high):
            raise OverflowError(f"arange({start}, {stop}, {step}) has values out of the range of {numpy_dtype}")
        if -_EXACT < start < _EXACT and -_EXACT < stop < _EXACT:
            # numpy's double-precision length is exact for spans below 2**53: its arange is faster
            return _HOST_XP.arange(start, stop, step, dtype=numpy_dtype)
    wide = _HOST_XP.arange(count, dtype=np.uint64)
    wide *= np.uint64(step % 2**64)
    wide += np.uint64(start % 2**64)
    if numpy_dtype.kind == "i":
        wide = wide.view(np.int64)
    return wide.astype(numpy_dtype, copy=False)


def _truncated_range(start: float, stop: float, step: float, numpy_dtype: np.dtype) -> np.ndarray:
    """An integer ``arange`` of float arguments, as numpy makes it: as many values as the float
    interval holds, starting at ``int(start)`` and spaced by ``int(start + step) - int(start)``
    (``arange(1.5, 10, 2)`` in int8 is 1, 3, 5, 7, 9); values outside the dtype: OverflowError."""
    if not all([math.isfinite(value) for value in (start, stop, step)]):
        raise ValueError(f"arange({start}, {stop}, {step}) needs finite arguments")
    count = max(0, math.ceil((stop - start) / step))
    first = int(start)
    spacing = int(start + step) - first
    try:
        if spacing == 0:  # the truncated start and its successor coincide: numpy repeats the start
            return _integer_range(first, first + 1, 1, numpy_dtype).repeat(count)
        return _integer_range(first, first + count * spacing, spacing, numpy_dtype)
    except OverflowError:
        raise OverflowError(f"arange({start}, {stop}, {step}) has values out of the range of {numpy_dtype}") from None


@_doc
def linspace(
    start: int | float | complex | Array,
    stop: int | float | complex | Array,
    /,
    num: int,
    *,
    dtype: DType | None = None,
    device: Device | None = None,
    endpoint: bool = True,
) -> Array:
    """``num`` evenly spaced numbers from ``start`` to ``stop``.

    Parameters
    ----------
    start
        Start of the interval (a number, or a 0-d Array read as its value).
    stop
        End of the interval; included when ``endpoint`` is True (a number or a 0-d Array).
    num
        Number of values (non-negative).
    dtype
        Data type; default complex128 if ``start`` or ``stop`` is complex, float64 otherwise.
    {device_parameter}
    endpoint
        Whether ``stop`` is the last value. When False the values are the first ``num`` of
        ``linspace(start, stop, num + 1)``.

    Returns
    -------
    Array
        One-dimensional, ``num`` elements; the first is ``start`` and, with ``endpoint``, the
        last is ``stop`` exactly.

    Raises
    ------
    TypeError
        ``start`` or ``stop`` is not a number (bools included); a complex one with a real
        ``dtype``; a stored-only ``dtype``.
    ValueError
        A negative ``num``.

    {examples}
    >>> xp.linspace(0, 1, 5)
    Array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float64, device=cpu)
    >>> xp.linspace(0, 1, 4, endpoint=False)
    Array([0.  , 0.25, 0.5 , 0.75], dtype=float64, device=cpu)
    """
    count = operator.index(num)
    if count < 0:
        raise ValueError(f"linspace() num must be non-negative, got {count}")
    place = scalar_device(_device_argument(device), start, stop)
    start = scalar_value(start, "linspace() start")
    stop = scalar_value(stop, "linspace() stop")
    for value in (start, stop):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, complex, np.number)):
            raise TypeError(f"linspace() start and stop must be numbers, got {type(value).__name__}")
    is_complex = any([isinstance(v, (complex, np.complexfloating)) for v in (start, stop)])
    target = _dtype_argument(dtype, complex128 if is_complex else float64)
    numpy_dtype = _numpy_dtype(target, "linspace")
    if is_complex and target.category != "complex floating":
        raise TypeError(f"linspace() with complex start or stop needs a complex dtype, not {target}")
    native = _HOST_XP.linspace(start, stop, count, endpoint=bool(endpoint), dtype=numpy_dtype)
    return _placed(native, place)


@_doc
def meshgrid(*arrays: Array, indexing: str = "xy") -> tuple[Array, ...]:
    """Coordinate matrices from coordinate vectors.

    Parameters
    ----------
    *arrays
        One-dimensional arrays, all on one device.
    indexing
        ``"xy"`` (Cartesian: the first two output axes swapped) or ``"ij"`` (matrix).

    Returns
    -------
    tuple[Array, ...]
        One array per input, each of rank ``len(arrays)``; new (writable) arrays.

    Raises
    ------
    TypeError
        An argument that is not an Array.
    ValueError
        An array that is not one-dimensional; arrays on different devices; another ``indexing``.

    {examples}
    >>> X, Y = xp.meshgrid(xp.asarray([1, 2, 3]), xp.asarray([10, 20]))
    >>> X
    Array([[1, 2, 3],
           [1, 2, 3]], dtype=int64, device=cpu)
    >>> Y
    Array([[10, 10, 10],
           [20, 20, 20]], dtype=int64, device=cpu)
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"indexing must be 'xy' or 'ij', got {indexing!r}")
    device = None
    natives = []
    for array in arrays:
        if type(array) is not Array:
            raise TypeError(f"meshgrid() takes Arrays, got {type(array).__name__}")
        if array.ndim != 1:
            raise ValueError(f"meshgrid() takes one-dimensional arrays, got one of shape {array.shape}")
        if device is not None and array._device is not device:
            raise ValueError(devices_differ(device, array._device))
        device = array._device
        natives.append(array._as_native())
    if not natives:
        return ()
    backend = xp_of(arrays[0])
    return tuple([wrap(grid) for grid in backend.meshgrid(*natives, indexing=indexing)])


def _triangle(x: Array, k: int, lower: bool) -> Array:
    if type(x) is not Array:
        raise TypeError(f"expected an Array, got {type(x).__name__}")
    if x.ndim < 2:
        raise ValueError(f"{'tril' if lower else 'triu'}() needs an array of at least 2 dimensions, got shape {x.shape}")
    diagonal = operator.index(k)
    name = "tril" if lower else "triu"
    if x._dtype.numpy_dtype is None:  # zero bits are +0.0 in the extra float types
        _zero_pattern(x._dtype)
        return from_bits(getattr(np, name)(bits_view(x), diagonal), x._dtype)
    return wrap(getattr(xp_of(x), name)(x._as_native(), diagonal))


@_doc
def tril(x: Array, /, *, k: int = 0) -> Array:
    """The lower triangle of a matrix (or of each in a stack): elements above diagonal ``k`` zeroed.

    {triangle_sections}

    {examples}
    >>> xp.tril(xp.ones((3, 3), dtype=xp.int8))
    Array([[1, 0, 0],
           [1, 1, 0],
           [1, 1, 1]], dtype=int8, device=cpu)
    """
    return _triangle(x, k, lower=True)


@_doc
def triu(x: Array, /, *, k: int = 0) -> Array:
    """The upper triangle of a matrix (or of each in a stack): elements below diagonal ``k`` zeroed.

    {triangle_sections}

    {examples}
    >>> xp.triu(xp.ones((2, 3), dtype=xp.int8), k=1)
    Array([[0, 1, 1],
           [0, 0, 1]], dtype=int8, device=cpu)
    """
    return _triangle(x, k, lower=False)
