"""The Array: a DLPack buffer, its metadata, and whatever keeps the memory alive.

Every Array is made by one constructor, :func:`_new`, which sets every slot. The ways in call it:

* an imported tensor (:func:`_adopt`, :meth:`Array._from_tensor`): metadata read by the ctypes
  core, the owner an :class:`~dlarray._dlpack.ImportedTensor` (or a buffer-protocol/interface holder);
* a backend result (:func:`wrap`) and a slice of one: a numpy or cupy array that owns its memory
  (or views its base's); the metadata is read from it only when asked for;
* a view by metadata (:meth:`Array._view`) and host memory holding a dtype no backend has
  (:func:`_over_host_memory`: bfloat16, float8... copied, selected or decoded on the host).

Views (slices, transposes, reshapes that need no copy) hold their parent's owner, directly or through
the backend view's ``base`` chain, so the buffer outlives every view of it. What ``x[key]`` selects
is worked out in :mod:`dlarray._indexing`; what a pickle or a copy carries in :mod:`dlarray._pickling`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import EllipsisType, ModuleType
from typing import TYPE_CHECKING, Any, Iterator, Self, TypeAlias, TypeVar

import numpy as np

from . import _cuda
from ._devices import _cache as _DEVICE_CACHE
from ._devices import ADDRESS_DEVICE_TYPES, CPU, Device, as_device, device_of, devices_differ, int_pair
from ._docs import Doc, Sections, declared, numpy_docstring, standard_link, with_own_words
from ._dlpack import (
    DLPACK_VERSION,
    CapsuleType,
    FLAG_IS_COPIED,
    FLAG_IS_SUBBYTE_TYPE_PADDED,
    FLAG_READ_ONLY,
    DLDeviceType,
    TensorInfo,
    contiguous_strides,
    retarget_capsule,
)
from ._backend import (
    NEW_MEMORY_PLACEMENT,
    PLACEMENT_BY_NATIVE_TYPE,
    BackendUnavailable,
    numeric_native,
    numpy_data_pointer,
    opaque_host_view,
    placed_result,
)
from ._dtypes import BY_DLPACK as _DTYPE_BY_CODE
from ._dtypes import BY_NUMPY, PYTHON_SCALARS, DType
from ._float_formats import decode
from ._indexing import basic_geometry, is_basic, native_getitem, raw_setitem, selected_bits, setitem
from ._pickling import elements_from_pickle, host_elements, host_source, pickled_fields
from ._storage import bits_dtype, bits_view, is_packed, unpacked_bits

if TYPE_CHECKING:
    import cupy
    import numpy.typing as npt


# The operators' operands, by the operand their element-wise function takes (its ``x2``).
_Numeric: TypeAlias = "Array | int | float | complex"  # + - * / **
_Real: TypeAlias = "Array | int | float"  # // % < <= > >=
_Bitwise: TypeAlias = "Array | int | bool"  # & | ^
_Shift: TypeAlias = "Array | int"  # << >>
_Equality: TypeAlias = "Array | int | float | complex | bool"  # == !=

_new_array = object.__new__
_KEPT_FLAGS = FLAG_READ_ONLY | FLAG_IS_SUBBYTE_TYPE_PADDED
_LEGACY_DEFAULT_STREAM = _cuda.LEGACY_DEFAULT_STREAM
_ndarray = np.ndarray

# What bool(x), int(x), float(x) and complex(x) return.
_HOST_VALUE = "The value, read on the host (a CUDA array is read after the work on its stream)."
# What the Array's docstrings share (dlarray._docs.Sections fills each ``{name}`` line in and links
# each attribute's page of the standard).
_doc = Sections("array", host_value=_HOST_VALUE)
_Value = TypeVar("_Value", int, float, complex)


def _conversion(kind: type[_Value], doc: Doc) -> Callable[[Array], _Value]:
    """The Array's ``__int__``, ``__float__`` or ``__complex__``: the value of a 0-d array as a
    Python ``kind``, documented by its record ``doc`` around what the three share."""

    def conversion(self: Array) -> _Value:
        return self._scalar(kind)

    name = f"__{kind.__name__}__"
    conversion.__annotations__ = {"return": kind.__name__}
    declared(conversion, name, numpy_docstring(
        doc.summary,
        details=doc.details,
        link=standard_link(f"array.{name}"),
        returns=(kind.__name__, _HOST_VALUE),
        raises=with_own_words(
            {"TypeError": "The array is not 0-d, or its value cannot be read on the host."}, doc.raises
        ).items(),
        examples=doc.examples,
    ))
    conversion.__qualname__ = f"Array.{name}"
    return conversion


class Array:
    """An n-dimensional array over a DLPack buffer, on any device.

    Create one with :func:`dlarray.from_dlpack` or :func:`dlarray.asarray`, or with any function of
    the namespace. Besides the Array API attributes it exposes DLPack-level metadata:
    :attr:`strides` (in elements), :attr:`data_ptr`, :attr:`readonly`.

    Examples
    --------
    >>> import numpy as np, dlarray as xp
    >>> n = np.arange(6.0).reshape(2, 3)
    >>> x = xp.from_dlpack(n)  # zero-copy: the same memory
    >>> x.data_ptr == n.ctypes.data, x.shape, x.strides
    (True, (2, 3), (3, 1))
    >>> (x * 2)[1]
    Array([ 6.,  8., 10.], dtype=float64, device=cpu)
    """

    __slots__ = (
        "_native",  # backend array (numpy/cupy) over the same memory, or None until needed
        "_owner",  # keeps the memory alive
        "_data",  # DLPack data field (opaque on some devices); None until read from _native
        "_offset",  # DLPack byte_offset
        "_shape",
        "_strides",  # in elements
        "_dtype",
        "_device",
        "_flags",  # DLPack flags (READ_ONLY, IS_SUBBYTE_TYPE_PADDED)
        "_stream",  # the DLPack stream the data is ordered on (CUDA; 1, the legacy default, elsewhere)
        "_export_view",  # cache: the opaque numpy view retargeted exports describe (see _export)
        "__weakref__",
    )
    # Every slot is set by _new, the one constructor: a new field is added there and nowhere else.
    # Two kinds of slot wait until they are needed, because a store in the constructor would cost
    # every result and slice for what few of them use: the buffer's description (_offset, _shape,
    # _strides, _flags) of a backend result, read from the result by _fill_metadata when _data is
    # None (_ensure_metadata); and the cache _export_view, set by the first retargeted export.
    _native: Any
    _owner: Any
    _data: int | None
    _offset: int
    _shape: tuple[int, ...]
    _strides: tuple[int, ...]
    _dtype: DType
    _device: Device
    _flags: int
    _stream: int
    _export_view: np.ndarray

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise TypeError(
            "dlarray.Array cannot be constructed directly; use dlarray.asarray or dlarray.from_dlpack"
        )

    # ---------------------------------------------------------------- construction (internal)
    @classmethod
    def _from_tensor(cls, info: TensorInfo, owner: Any) -> Array:
        """An Array over a validated tensor description; ``owner`` keeps the memory alive."""
        return _adopt(owner, *info[:-1])  # all but the version, which the Array does not keep

    def _fill_metadata(self) -> None:
        """Read pointer, shape, strides and read-only from the backend array (results only).

        ``_data`` is stored last: it is what says the description is there (``_data is None``:
        not yet), so another thread that sees it set finds every other field set too (a thread
        switch can come between any two stores; two threads filling at once store equal values).
        """
        native = self._native
        data, flags = self._device.backend.describe(native)
        itemsize = native.itemsize
        self._flags = flags
        self._offset = 0
        self._shape = native.shape
        self._strides = tuple([s // itemsize for s in native.strides])
        self._data = data

    # ---------------------------------------------------------------- metadata
    @property
    @_doc
    def dtype(self) -> DType:
        """Data type of the elements.

        {examples}
        >>> xp.asarray([1.0, 2.0]).dtype
        dlarray.float64
        """
        return self._dtype

    @property
    @_doc
    def device(self) -> Device:
        """Device the memory lives on.

        {examples}
        >>> xp.asarray([1.0, 2.0]).device
        Device('cpu')
        """
        return self._device

    @property
    @_doc
    def shape(self) -> tuple[int, ...]:
        """Extent of each dimension (every extent is known: no ``None``).

        {examples}
        >>> xp.zeros((2, 3)).shape
        (2, 3)
        """
        native = self._native
        return native.shape if native is not None else self._shape

    @property
    @_doc
    def ndim(self) -> int:
        """Number of dimensions (0 for a 0-d array).

        {examples}
        >>> xp.zeros((2, 3)).ndim, xp.asarray(1.0).ndim
        (2, 0)
        """
        return len(self.shape)

    @property
    @_doc
    def size(self) -> int:
        """Number of elements (the product of :attr:`shape`; 1 for a 0-d array).

        {examples}
        >>> xp.zeros((2, 3)).size
        6
        """
        size = 1
        for extent in self.shape:
            size *= extent
        return size

    @property
    @_doc.outside_standard
    def strides(self) -> tuple[int, ...]:
        """Steps between neighbouring elements of each dimension, in elements (DLPack's unit).

        Not in the standard; numpy's ``strides`` count bytes, these count elements.

        {examples}
        >>> x = xp.zeros((2, 3))
        >>> x.strides, x[:, ::2].strides, x.mT.strides
        ((3, 1), (3, 2), (1, 3))
        """
        if self._data is None:
            self._fill_metadata()
        return self._strides

    @property
    @_doc.outside_standard
    def data_ptr(self) -> int:
        """Address of the first element (``data + byte_offset`` in DLPack terms).

        On a device the host cannot read (CUDA), an address in that device's memory.

        {examples}
        >>> x = xp.zeros((2, 3))
        >>> x[1].data_ptr - x.data_ptr
        24
        """
        if self._data is None:
            self._fill_metadata()
        return self._data + self._offset  # type: ignore[operator]

    @property
    @_doc.outside_standard
    def readonly(self) -> bool:
        """True if the buffer must not be written (DLPack's READ_ONLY flag).

        A read-only array refuses ``x[...] = v`` and in-place operators (ValueError), and is
        exported with the flag set (never as a legacy capsule, which cannot say it).

        {examples}
        >>> xp.asarray(b"abc").readonly, xp.zeros(3).readonly
        (True, False)
        """
        if self._data is None:
            self._fill_metadata()
        return bool(self._flags & FLAG_READ_ONLY)

    @property
    @_doc.outside_standard
    def itemsize(self) -> int:
        """Bytes per element (rounded up to a whole byte for sub-byte dtypes).

        {examples}
        >>> xp.zeros(3, dtype=xp.float32).itemsize
        4
        """
        return self._dtype.itemsize

    @property
    @_doc.outside_standard
    def nbytes(self) -> int:
        """Bytes spanned by the elements if they were contiguous (``size * itemsize``).

        {examples}
        >>> xp.zeros((2, 3), dtype=xp.float32).nbytes
        24
        """
        return self.size * self._dtype.itemsize

    @property
    @_doc
    def T(self) -> Array:
        """Transpose of a matrix (2-D array only, as the standard says): a view.

        Raises
        ------
        ValueError
            The array is not 2-D (use :func:`~dlarray.permute_dims` or :attr:`mT`).

        {examples}
        >>> xp.asarray([[1, 2, 3], [4, 5, 6]]).T
        Array([[1, 4],
               [2, 5],
               [3, 6]], dtype=int64, device=cpu)
        """
        if self.ndim != 2:
            raise ValueError(f"x.T needs a 2-D array, this one has {self.ndim} dimensions; use permute_dims or mT")
        return self._permuted((1, 0))

    @property
    @_doc
    def mT(self) -> Array:
        """Transpose of the last two dimensions (a stack of matrices): a view.

        Raises
        ------
        ValueError
            The array has fewer than 2 dimensions.

        {examples}
        >>> xp.zeros((5, 2, 3)).mT.shape
        (5, 3, 2)
        """
        if self.ndim < 2:
            raise ValueError(f"x.mT needs at least 2 dimensions, this one has {self.ndim}")
        axes = list(range(self.ndim))
        axes[-1], axes[-2] = axes[-2], axes[-1]
        return self._permuted(tuple(axes))

    def _permuted(self, axes: tuple[int, ...]) -> Array:
        if self._native is not None or self._computable():
            return wrap(self._as_native().transpose(axes))
        self._ensure_metadata()
        return self._view(
            self._offset,
            tuple([self._shape[a] for a in axes]),
            tuple([self._strides[a] for a in axes]),
        )

    # ---------------------------------------------------------------- backend access (internal)
    def _computable(self) -> bool:
        """Whether a backend can compute with this array (device has one, dtype is known to it)."""
        if self._dtype.numpy_dtype is None:
            return False
        if self._native is not None:
            return True
        try:
            self._as_native()
        except BackendUnavailable:
            return False
        return True

    def _as_native(self) -> Any:
        """The backend array over this Array's memory; BackendUnavailable if there is none."""
        native = self._native
        if native is None:
            native = self._native = self._device.backend.view(self)
        return native

    def _as_read_only(self) -> Array:
        """This array where it is read-only already, else a read-only view of the same memory."""
        self._ensure_metadata()
        if self._flags & FLAG_READ_ONLY:
            return self
        return self._view(self._offset, self._shape, self._strides, flags=self._flags | FLAG_READ_ONLY)

    def _flags_now(self) -> int:
        if self._data is None:
            self._fill_metadata()
        return self._flags

    def _ensure_metadata(self) -> None:
        if self._data is None:
            self._fill_metadata()

    def _view(
        self, offset: int, shape: tuple[int, ...], strides: tuple[int, ...], dtype: DType | None = None,
        flags: int | None = None,
    ) -> Array:
        """A view with new geometry over the same buffer and owner (metadata-only path).

        ``dtype``: another element type of the same width to label the elements with (the
        unsigned carrier through which dtypes numpy lacks are copied); default this array's.
        ``flags``: the view's DLPack flags (READ_ONLY added, say); default this array's.
        """
        return _new(None, self._owner, dtype or self._dtype, self._device, self._stream,
                    (self._data, offset, shape, strides, self._flags if flags is None else flags))

    # ---------------------------------------------------------------- DLPack
    @property
    @_doc.outside_standard
    def __cuda_array_interface__(
        self,
    ) -> dict[str, int | str | tuple[int, ...] | tuple[int, bool] | None]:
        """The CUDA Array Interface (version 3) of a CUDA array: numba, cupy and torch read it.

        Keys ``version`` (3), ``shape``, ``typestr`` (numpy's, e.g. ``"<f4"``), ``data``
        (``(pointer, read_only)``), ``strides`` (in bytes, None when C-contiguous) and ``stream``:
        the stream the data is ordered on, which the consumer synchronizes with, 1 (the legacy
        default stream) for imported data, which DLPack's ``stream=None`` means on CUDA; cupy's
        stream for results cupy computed on another one.

        Raises
        ------
        AttributeError
            The array is not on a CUDA device (so that ``hasattr`` answers False, as the protocol
            expects), or its dtype has no typestr (bfloat16, float8...).

        {examples}
        >>> hasattr(xp.zeros(3), "__cuda_array_interface__")  # a CPU array has none
        False
        """
        if not self._device.backend.orders_streams:
            raise AttributeError(f"__cuda_array_interface__ is only defined for CUDA arrays, not on {self._device}")
        numpy_dtype = self._dtype.numpy_dtype
        if numpy_dtype is None:
            raise AttributeError(f"the CUDA Array Interface has no typestr for {self._dtype}")
        self._ensure_metadata()
        itemsize = numpy_dtype.itemsize
        contiguous = self._strides == contiguous_strides(self._shape)
        return {
            "version": 3,
            "shape": self._shape,
            "typestr": numpy_dtype.str,
            "data": (self._data + self._offset, self.readonly),  # type: ignore[operator]
            "strides": None if contiguous else tuple([s * itemsize for s in self._strides]),
            "stream": self._stream,
        }

    @_doc
    def __dlpack_device__(self) -> tuple[DLDeviceType, int]:
        """The DLPack device of the buffer: ``(DLDeviceType, device_id)``.

        Returns
        -------
        tuple[DLDeviceType, int]
            The device type (an ``IntEnum``, so it compares equal to DLPack's integer code) and
            the device's index.

        {examples}
        >>> xp.zeros(3).__dlpack_device__()
        (<DLDeviceType.CPU: 1>, 0)
        """
        return self._device._dlpack_device

    @_doc
    def __dlpack__(
        self,
        *,
        stream: int | None = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> CapsuleType:
        """Export the array as a DLPack capsule.

        Parameters
        ----------
        stream : int | None
            None or an int. ``None`` on CPU (an int is refused). On CUDA, the consumer's stream:
            ``None`` or 1 the legacy default stream, 2 the per-thread default stream, a larger
            integer a stream pointer, -1 no synchronization; 0 is refused. When it is another
            stream than the one the data is ordered on, the consumer's stream waits for that one
            (an event).
        max_version : tuple[int, int] | None
            None or a tuple of two ints: the newest DLPack version the consumer reads. ``None``
            or a major version 0 gives a legacy ``dltensor`` capsule; ``(1, x)`` and above give
            ``dltensor_versioned``.
        dl_device : tuple[int, int] | None
            None or a ``(device_type, device_id)`` tuple of two ints: the device the consumer
            wants the data on; another device than the array's needs a copy (and ``copy`` not
            False).
        copy : bool | None
            ``True``: always copy (the IS_COPIED flag is set). ``False``: never copy, raise
            BufferError if one would be needed. ``None``: copy only if needed. numpy's bools
            count as bools; nothing else does.

        Returns
        -------
        CapsuleType
            A PyCapsule named ``dltensor_versioned`` or ``dltensor``, for one consumer.

        Raises
        ------
        BufferError
            A legacy export of a read-only array (the flag cannot be expressed), a copy refused by
            ``copy=False``, a stream on CPU, or a ``dl_device`` the data cannot be moved to
            (one DLPack does not define or a negative id included, as the standard says).
        TypeError
            An argument of the wrong kind: a ``stream`` that is not an int, a ``max_version`` or
            ``dl_device`` that is not a tuple of two ints (lists, floats, bools), a ``copy`` that
            is not a bool (``copy="no"``, ``copy=0``).
        ValueError
            A bad value: ``stream=0`` on CUDA (ambiguous in DLPack), a negative version number.

        {examples}
        >>> xp.asarray([1.0, 2.0]).__dlpack__(max_version=(1, 0))  # doctest: +ELLIPSIS
        <capsule object "dltensor_versioned" at ...>
        >>> import numpy as np
        >>> np.from_dlpack(xp.asarray([1.0, 2.0]))  # numpy calls __dlpack__ itself
        array([1., 2.])
        """
        native = self._native
        if native is not None and stream is None and dl_device is None and self._device is CPU and (
                copy is None or copy is False):
            # The commonest export: an array numpy holds, on the CPU, no copy. numpy's C producer
            # describes it exactly and carries the read-only flag of the view itself (as _export
            # does), for arguments the checks below accept; anything else goes the general way.
            if max_version is None:
                try:
                    return native.__dlpack__()
                except BufferError:
                    pass  # a read-only array: the general path refuses it in dlarray's words
            elif max_version is _accepted_version or max_version is _accepted_version_before:
                return native.__dlpack__(max_version=DLPACK_VERSION)
        elif dl_device is None and (copy is None or copy is False) and (
                max_version is _accepted_version or max_version is _accepted_version_before):
            device = self._device
            backend = device.backend
            if backend.orders_streams and (stream is None or (type(stream) is int and stream > 0)):
                # CUDA, a consumer stream backend.consumer_stream takes as it is (None: the legacy
                # default stream), versioned, no copy: ordered after the data's stream, then the
                # retargeted export
                _cuda.order(self._stream, _LEGACY_DEFAULT_STREAM if stream is None else stream, device.id)
                return self._export(True)
        versioned = _versioned_export(max_version)
        if versioned:
            _accept_version(max_version)
        if copy is not None and copy is not True and copy is not False:
            copy = copy_argument(copy)
        device = self._device
        backend = device.backend
        consumer_stream = None
        if stream is not None or backend.orders_streams:
            consumer_stream = backend.consumer_stream(device, stream)
        source = self
        copied = False  # a copy made here, to another device
        if dl_device is not None:
            target = _target_device(dl_device)
            if target is not device:
                if copy is False:
                    raise BufferError(
                        f"exporting to {target} needs a copy from {device}, and copy=False forbids it"
                    )
                try:
                    source = self.to_device(target)
                except BackendUnavailable as exc:
                    raise BufferError(f"cannot export to {target}: {exc}") from None
                copied = True
        copy_now = bool(copy) and not copied
        if not versioned and source.readonly and not copy_now:
            raise BufferError(
                "a read-only array cannot be exported as a legacy DLPack capsule (it has no "
                "read-only flag); ask for max_version=(1, 0) or newer, or copy=True"
            )
        if copy_now:
            source = source._copy()
            copied = True
        source_device = source._device
        if consumer_stream is not None and source_device.backend.orders_streams:
            # the consumer's stream must see the data as the producer's stream leaves it
            _cuda.order(source._stream, consumer_stream, source_device.id)
        return source._export(versioned, FLAG_IS_COPIED if copied else 0)

    def _export(self, versioned: bool, set_flags: int = 0) -> Any:
        """A fresh capsule over this array's memory, made by numpy's C producer.

        numpy describes a host view of the memory; for a dtype numpy lacks or memory that is not on
        the host, the view has an unsigned type of the same width and is never dereferenced, and the
        core rewrites dtype, device and data fields afterwards. The capsule's deleter and destructor
        are numpy's (C code, safe at any time); the view's ``base`` keeps this array's owner alive.
        """
        # numpy describes a CPU array of its own dtypes exactly (the device its producer names);
        # anything else gets retargeted
        device = self._device
        exact = device is device.backend.native_export_device and self._dtype.numpy_dtype is not None
        if exact:
            view = self._as_native()  # the host backend's native is numpy's
        else:
            # made once per Array (building it is half an export's time): pointer, geometry and
            # read-only flag never change, and the view keeps only the owner alive, not the Array
            try:
                view = self._export_view
            except AttributeError:  # the first retargeted export of this Array
                self._ensure_metadata()
                view = self._export_view = opaque_host_view(self)
        capsule = view.__dlpack__(max_version=DLPACK_VERSION) if versioned else view.__dlpack__()
        if not exact or set_flags:
            self._ensure_metadata()
            dtype = self._dtype
            device = self._device
            data, byte_offset = self._data, self._offset
            if byte_offset < 0 or device.type in ADDRESS_DEVICE_TYPES:
                # One rule, numpy's: where data is an address, the pointer moved to the first
                # element and byte_offset 0 (torch refuses a 0-d tensor with another one). A handle
                # keeps its offset, unless that is negative (a reversed view: byte_offset is unsigned).
                data, byte_offset = data + byte_offset, 0  # type: ignore[operator]
            # positional (every retargeted export comes here): capsule, versioned, data,
            # byte_offset, ndim, dtype code and bits, device type and id, flags to set
            retarget_capsule(
                capsule, versioned, data, byte_offset, len(self._shape),  # type: ignore[arg-type]
                dtype.code, dtype.bits, device.type, device.id,
                set_flags | (self._flags & FLAG_IS_SUBBYTE_TYPE_PADDED),
            )
        return capsule

    # ---------------------------------------------------------------- conversions
    @_doc
    def __array_namespace__(self, *, api_version: str | None = None) -> ModuleType:
        """The ``dlarray`` module: the Array API namespace of this array.

        Parameters
        ----------
        api_version : str | None
            The standard's version the caller wants: ``None`` (the newest, 2025.12), or one of
            ``"2023.12"``, ``"2024.12"``, ``"2025.12"``.

        Returns
        -------
        ModuleType
            The ``dlarray`` module.

        Raises
        ------
        ValueError
            Another ``api_version``.

        {examples}
        >>> xp.zeros(3).__array_namespace__() is xp
        True
        """
        if api_version is not None and api_version not in ("2023.12", "2024.12", "2025.12"):
            raise ValueError(f"unsupported Array API version {api_version!r}; dlarray implements 2023.12 to 2025.12")
        return sys.modules["dlarray"]

    def __array__(self, dtype: npt.DTypeLike | None = None, copy: bool | None = None) -> np.ndarray:
        """numpy conversion (``np.asarray(x)``): a zero-copy view of host memory.

        bfloat16 and float8/6/4 arrays give numpy arrays of ml_dtypes' dtypes where ml_dtypes is
        installed (as jax does), also zero-copy.

        Parameters
        ----------
        dtype : npt.DTypeLike | None
            The numpy dtype wanted; another one than the array's needs a copy.
        copy : bool | None
            ``True``: always copy; ``False``: never (ValueError if a dtype change needs one);
            ``None``: copy only for a dtype change.

        Returns
        -------
        np.ndarray
            Over this array's memory unless a copy was asked for or needed; a read-only array
            gives a read-only view.

        Raises
        ------
        TypeError
            The memory is not on the host (CUDA: copy it with ``x.to_device("cpu")`` first), or
            the dtype has no numpy equivalent (bfloat16, float8...: ml_dtypes gives numpy
            those it has, where it is installed; packed sub-byte data has none).
        ValueError
            ``copy=False`` with a dtype that needs a copy.

        Examples
        --------
        >>> import numpy as np, dlarray as xp
        >>> np.asarray(xp.asarray([1, 2]))
        array([1, 2])
        """
        try:
            native = self._as_native()
        except BackendUnavailable as exc:
            native = _ml_dtypes_view(self)  # bfloat16, float8...: ml_dtypes' where installed
            if native is None:
                raise TypeError(f"cannot convert to a numpy array: {exc}") from None
        if not self._device.backend.host_native:
            raise TypeError(
                f"an array on {self._device} is not converted to numpy implicitly; copy it "
                f"with x.to_device('cpu') first"
            )
        if dtype is not None and np.dtype(dtype) != native.dtype:
            if copy is False:
                raise ValueError("converting to another dtype needs a copy, and copy=False forbids it")
            return native.astype(dtype)
        # a view, never the Array's own numpy array: setting the result's shape, strides or dtype in
        # place (numpy allows it) must not change the Array
        return native.copy() if copy else native.view()

    @_doc.outside_standard
    def __buffer__(self, flags: int, /) -> memoryview:
        """The buffer protocol (Python 3.12 and newer, PEP 688): ``memoryview(x)``, zero-copy.

        What takes a bytes-like object takes a CPU array: ``memoryview(x)``, ``pa.py_buffer(x)``
        (pyarrow), ``hashlib.sha1(x)``, ``isinstance(x, collections.abc.Buffer)``, as with a numpy
        array. The view is numpy's buffer of the same memory: the format and item size of the
        dtype, strides in bytes (a strided array gives a strided view), read-only where the array
        is (a consumer that needs to write is refused, as for a read-only numpy array). Python 3.11
        has no buffer protocol for classes written in Python: ``memoryview(np.asarray(x))`` gives
        the same view there.

        Parameters
        ----------
        flags : int
            What the consumer asks for (``inspect.BufferFlags``); Python passes it.

        Returns
        -------
        memoryview
            Over this array's memory.

        Raises
        ------
        BufferError
            The array is not in host memory (CUDA: copy it with ``x.to_device("cpu")`` first); its
            dtype has no buffer-protocol format (bfloat16 and the float8/6/4 types: convert it with
            ``astype`` first).

        {examples}
        >>> import sys, numpy as np
        >>> x = xp.asarray([1, 2, 3], dtype=xp.int16)
        >>> view = memoryview(x if sys.version_info >= (3, 12) else np.asarray(x))  # 3.11: through numpy
        >>> view.format, view.nbytes, view.tolist()
        ('h', 6, [1, 2, 3])
        """
        dtype = self._dtype
        device = self._device
        if not device.backend.host_native:
            raise BufferError(f"an array on {device} has no buffer protocol (it is numpy's, for memory on the "
                              f"CPU); copy it with x.to_device('cpu') first")
        if dtype.numpy_dtype is None:
            raise BufferError(f"{dtype} has no buffer-protocol format (PEP 3118); convert it with astype first, "
                              f"e.g. to float32")
        return memoryview(self._as_native())

    @_doc.outside_standard
    def __bytes__(self) -> bytes:
        """``bytes(x)``: a copy of the elements' raw bytes in C order, as numpy's ``a.tobytes()``
        gives, on every Python and for every dtype (never the element values; numpy's ``bytes(a)``
        of a 0-d integer array takes it as a length).

        Returns
        -------
        bytes
            ``x.nbytes`` bytes for a byte-aligned dtype (the bytes packed float4 data fills, for it).

        Raises
        ------
        TypeError
            The array is not in host memory: ``bytes`` never copies from a device implicitly (copy
            it with ``x.to_device("cpu")`` first).

        {examples}
        >>> bytes(xp.asarray([1, 2, 3], dtype=xp.int16))  # little-endian machine
        b'\\x01\\x00\\x02\\x00\\x03\\x00'
        """
        if not self._device.host_accessible:
            raise TypeError(f"bytes() of an array on {self._device} would copy it from the device; "
                            f"copy it with x.to_device('cpu') first")
        return host_elements(self, copy=False).tobytes()

    @_doc
    def to_device(
        self, device: Device | str | tuple[int, int], /, *, stream: int | cupy.cuda.Stream | None = None
    ) -> Array:
        """The array on ``device``: itself if it is there already, otherwise a copy.

        Parameters
        ----------
        device : Device | str | tuple[int, int]
            The target device: a :class:`Device`, a name (``"cpu"``, ``"cuda:1"``), a DLPack
            ``(device_type, device_id)`` pair, or an object with ``__dlpack_device__``.
        stream : int | cupy.cuda.Stream | None
            For a copy to or from CUDA, the stream it runs on: a DLPack stream integer (1, 2 or
            a pointer) or a cupy stream. ``None``: cupy's current stream.

        Returns
        -------
        Array
            A new, writable, C-contiguous array on ``device`` (or ``self``).

        Raises
        ------
        TypeError
            ``device`` is not a device, ``stream`` is neither None, an int nor a cupy stream;
            the copy needs cupy (to or from CUDA) and it is not installed, or no backend can
            copy between these devices.
        ValueError
            An unknown device name; a stream where neither device is a CUDA device (there is
            no stream to run on), or a stream value DLPack does not allow (0, below -1).

        {examples}
        >>> x = xp.zeros(3)
        >>> x.to_device("cpu") is x
        True
        """
        target = as_device(device)
        if stream is not None:
            _copy_stream_argument(stream, self._device, target)
        if target is self._device:
            return self
        self._ensure_metadata()
        dtype = self._dtype
        if dtype.numpy_dtype is not None:
            return _moved(self._device.backend.move(self, target, stream), target, stream)
        # dtypes numpy and cupy lack travel as unsigned integers of their width
        return _relabelled(_moved(self._device.backend.move(_bits_carrier(self, "copying"), target, stream),
                                  target, stream), self)

    def _copy(self) -> Array:
        """A new, writable, C-contiguous copy on the same device."""
        if self._computable():
            backend = self._device.backend
            if backend.host_native:
                return wrap(self._as_native().copy())
            # cupy copies onto its current device, which may not be this array's: the backend's
            # copy runs on this array's device
            return wrap(backend.copy(self))
        return _copy_raw(self)

    # ---------------------------------------------------------------- pickling and copies
    # An Array's slots hold addresses and an owner that keeps foreign memory alive; neither may
    # travel. Pickles and copies carry the values (see "Pickling and copies" in docs/safety.md).

    def __reduce_ex__(self, protocol: int) -> tuple[Callable[..., Array], tuple[object, ...]]:
        """Pickle the values, never the memory.

        The pickle holds a C-contiguous copy of the elements' bytes read on the host, the dtype
        by name, the shape and the device; loading builds a fresh, writable, C-contiguous array
        that owns its memory (numpy's unpickled arrays are writable too: read-only is not kept).
        With protocol 5 the bytes go as a :class:`pickle.PickleBuffer`, out of band if the
        pickler takes buffers; a writable out-of-band buffer handed to ``pickle.loads`` is used
        in place, as numpy does, anything else is copied.

        CUDA arrays are copied to the host with cupy and restored onto the same device when
        loaded. Arrays on host-readable devices (pinned ``cuda_host``, ``rocm_host``,
        ``cuda_managed``) are read on the host and load onto the CPU, where a plain copy of
        their values lives.

        Parameters
        ----------
        protocol : int
            The pickle protocol; 5 and above pass the bytes as a buffer.

        Returns
        -------
        tuple[Callable[..., Array], tuple[object, ...]]
            The reconstructor and its arguments.

        Raises
        ------
        TypeError
            The values cannot be read: memory on a device nothing here can read (OpenCL, Vulkan,
            ROCm, ...), a CUDA array without cupy, or a strided view of packed sub-byte data.

        Examples
        --------
        >>> import pickle, dlarray as xp
        >>> x = xp.asarray(b"\\x01\\x02\\x03")
        >>> y = pickle.loads(pickle.dumps(x))
        >>> y.shape, y.dtype, y.readonly, y.data_ptr != x.data_ptr
        ((3,), dlarray.uint8, False, True)
        """
        return _array_from_pickle, pickled_fields(self, protocol)

    def __reduce__(self) -> tuple[Callable[..., Array], tuple[object, ...]]:
        """As :meth:`__reduce_ex__` with protocol 2 (the values as bytes)."""
        return self.__reduce_ex__(2)

    def __copy__(self) -> Array:
        """An independent copy with equal values: ``copy.copy(x)`` copies the data, as it does
        for a numpy array (an Array holds a buffer; a copy sharing it would be a view).

        The copy is a fresh, writable, C-contiguous array that owns its memory, on the same
        device (host-readable pinned or managed memory is copied to the CPU); read-only is not
        kept.

        Returns
        -------
        Array
            The copy.

        Raises
        ------
        TypeError
            The values cannot be read (see :meth:`__reduce_ex__`).

        Examples
        --------
        >>> import copy, dlarray as xp
        >>> x = xp.asarray([1, 2, 3])
        >>> y = copy.copy(x)
        >>> y[0] = 9
        >>> int(x[0]), int(y[0])
        (1, 9)
        """
        return _independent_copy(self)

    def __deepcopy__(self, memo: dict[int, object]) -> Array:
        """An independent copy with equal values, as :meth:`__copy__` (an Array holds no other
        Python objects to copy).

        Parameters
        ----------
        memo : dict[int, object]
            :func:`copy.deepcopy`'s memo (not needed: nothing inside is copied separately).

        Returns
        -------
        Array
            The copy, fresh memory as :meth:`__copy__` makes it.

        Raises
        ------
        TypeError
            Where :meth:`__copy__` raises it: the values cannot be read.

        Examples
        --------
        >>> import copy, dlarray as xp
        >>> x = xp.asarray([1.0, 2.0])[::-1]
        >>> y = copy.deepcopy(x)
        >>> y.strides, y.data_ptr != x.data_ptr
        ((1,), True)
        """
        return _independent_copy(self)

    def _scalar(self, kind: type) -> Any:
        if self.ndim != 0:
            raise TypeError(f"only 0-d arrays convert to Python {kind.__name__}, this one has shape {self.shape}")
        # a dtype numpy lacks (bfloat16, float8/6/4) is read decoded, as round() and format() read it
        value = self._printable().item()
        return kind(value)

    def _host_native(self) -> np.ndarray:
        """The values, readable by the host: the numpy view itself, or (CUDA) a copy made after
        the work on the array's stream, as cupy and torch read values for bool(), int(), repr()."""
        return self._device.backend.to_host(self._as_native(), self._stream)

    @_doc
    def __bool__(self) -> bool:
        """``bool(x)`` of a 0-d array (or, as in numpy and torch, of any one-element array): its
        value as a Python ``bool``.

        Any non-zero value, NaN included, is True.

        Returns
        -------
        bool
            {host_value}

        Raises
        ------
        ValueError
            More than one element, or none: the truth value is ambiguous (numpy's words); use
            ``any()`` or ``all()``.
        TypeError
            The value cannot be read on the host (a CUDA array without cupy; a device nothing
            here reads).

        {examples}
        >>> bool(xp.asarray(0.5)), bool(xp.asarray([0])), bool(xp.asarray([[2]]))
        (True, False, True)
        """
        if self.ndim:
            # numpy and torch give the truth value of any one-element array, and code such as
            # SciPy's writes `if xp.abs(x) < tol` for an x of shape (1,); int() and float() stay
            # 0-d only, as in numpy 2
            if self.size != 1:
                problem = "an empty array" if self.size == 0 else "an array with more than one element"
                raise ValueError(f"the truth value of {problem} is ambiguous (shape {self.shape}); use any() or all()")
            return self[(0,) * self.ndim]._scalar(bool)
        return self._scalar(bool)

    # int(x), float(x), complex(x): the same conversion of a 0-d array, declared once
    __int__ = _conversion(int, Doc(
        """``int(x)`` of a 0-d array: its value as a Python ``int``.

        A floating-point value is truncated toward zero.
        """,
        raises={
            "TypeError": "Also for a complex array: ``int()`` takes real values only.",
            "OverflowError": 'The value is an infinity (as Python\'s ``int(float("inf"))``).',
            "ValueError": "The value is NaN.",
        },
        examples="""
            >>> int(xp.asarray(-2.7))
            -2
        """,
    ))
    __float__ = _conversion(float, Doc(
        "``float(x)`` of a 0-d array: its value as a Python ``float``.",
        raises={"TypeError": "Also for a complex array: ``float()`` takes real values only."},
        examples="""
            >>> float(xp.asarray([1.5, 2.5])[1])
            2.5
        """,
    ))
    __complex__ = _conversion(complex, Doc(
        "``complex(x)`` of a 0-d array: its value as a Python ``complex``.",
        examples="""
            >>> complex(xp.asarray(1 + 2j))
            (1+2j)
        """,
    ))

    @_doc
    def __index__(self) -> int:
        """A 0-d integer array as a Python ``int`` where Python wants an index (``seq[x]``).

        Returns
        -------
        int
            The value.

        Raises
        ------
        TypeError
            The array is not 0-d, or its dtype is not an integer one (booleans included).

        {examples}
        >>> ["a", "b", "c"][xp.asarray(1)]
        'b'
        """
        if self._dtype.category not in ("signed integer", "unsigned integer"):
            raise TypeError(f"only integer arrays can be used as an index, not {self._dtype}")
        return self._scalar(int)

    @_doc.outside_standard
    def __len__(self) -> int:
        """``len(x)``: the extent of the first dimension (not in the standard; as numpy).

        Returns
        -------
        int
            ``x.shape[0]``.

        Raises
        ------
        TypeError
            A 0-d array.

        {examples}
        >>> len(xp.zeros((4, 2)))
        4
        """
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    @_doc.outside_standard
    def __iter__(self) -> Iterator[Array]:
        """Iterate over the first dimension: ``x[0]``, ``x[1]``, ... (views; as numpy).

        Returns
        -------
        Iterator[Array]
            The sub-arrays, one per index of the first dimension.

        Raises
        ------
        TypeError
            A 0-d array.

        {examples}
        >>> [int(v) for v in xp.asarray([3, 1, 2])]
        [3, 1, 2]
        """
        if not self.shape:
            # raised here, at iter(), not at the first next(): a generator would make a 0-d array
            # look iterable (np.iterable(x) is True for it)
            raise TypeError("iteration over a 0-d array")
        return map(self.__getitem__, range(self.shape[0]))

    def _printable(self, select: tuple[np.ndarray, ...] | None = None) -> Any:
        """The values as a host numpy array, for printing: bfloat16 and the float8/6/4 formats
        decoded to float32 (exact), packed float4/float6 data unpacked first (see
        ``unpacked_bits``). ``select``: open-mesh index arrays (``np.ix_``) of the elements wanted,
        the only ones read and decoded. TypeError where they cannot be read on the host (another
        device, a strided view of packed data)."""
        if self._dtype.numpy_dtype is not None:
            values = self._host_native()
            return values if select is None else values[select]
        if is_packed(self):
            if not self._device.host_accessible:
                raise TypeError(f"{self._dtype} arrays on {self._device} cannot be read on the host")
            self._ensure_metadata()
            return decode(unpacked_bits(self, select), self._dtype)
        bits = bits_view(self)
        return decode(bits if select is None else bits[select], self._dtype)

    def _shown(self) -> tuple[Any, dict[str, int]]:
        """What ``repr`` and ``str`` print: the values (see ``_printable``) and print options.

        numpy prints an array of more elements than its print ``threshold`` as the first and last
        ``edgeitems`` along each longer axis. For a dtype numpy lacks, whose values are decoded
        first, only those elements are read and decoded (with one placeholder between them, by
        which numpy sees that the axis is long, and never prints), then printed with threshold 0
        (summarised): numpy prints them exactly as it would the whole decoded array.
        """
        options = np.get_printoptions()
        if self._dtype.numpy_dtype is not None or self.size <= options["threshold"]:
            return self._printable(), {}
        edge = options["edgeitems"]
        select = np.ix_(*[np.r_[0:edge + 1, extent - edge:extent] if extent > 2 * edge else np.arange(extent)
                          for extent in self.shape])
        return self._printable(select), {"threshold": 0}

    @_doc.outside_standard
    def __repr__(self) -> str:
        """The values as numpy prints them, with dtype, device and (if set) ``readonly=True``.

        Values that cannot be read on the host (another device without a backend) are summarised
        as ``<n elements on device>``; bfloat16 and float8/6/4 are printed decoded.

        Returns
        -------
        str
            ``Array([...], dtype=..., device=...)``.

        {examples}
        >>> xp.asarray(b"ab")
        Array([97, 98], dtype=uint8, device=cpu, readonly=True)
        """
        try:
            values, options = self._shown()
            body = np.array2string(values, separator=", ", prefix="Array(", **options)  # type: ignore[arg-type]
        except TypeError:
            body = f"<{self.size} elements on {self._device}>"
        # numpy's rule: an empty array shows its shape unless it is (0,)
        shape = f", shape={self.shape}" if self.size == 0 and self.shape != (0,) else ""
        suffix = ", readonly=True" if self.readonly else ""
        return f"Array({body}{shape}, dtype={self._dtype}, device={self._device}{suffix})"

    @_doc.outside_standard
    def __str__(self) -> str:
        """The values alone, as numpy's ``str`` prints them (a 0-d array: its value).

        Returns
        -------
        str
            The values; ``repr(x)`` where they cannot be read on the host.

        {examples}
        >>> print(xp.asarray([1.0, 2.5], dtype=xp.bfloat16))
        [1.  2.5]
        """
        try:
            values, options = self._shown()
        except TypeError:
            return repr(self)
        return str(values[()]) if self.ndim == 0 else np.array2string(values, **options)  # type: ignore[arg-type]

    @_doc.outside_standard
    def __format__(self, format_spec: str, /) -> str:
        """``format(x, ".2f")``: a 0-d array formats as its Python value; others take only ``""``.

        Parameters
        ----------
        format_spec : str
            A format specification of the value's Python type (``""`` for other arrays).

        Returns
        -------
        str
            The formatted value, or ``str(x)``.

        Raises
        ------
        TypeError
            A non-empty ``format_spec`` for an array that is not 0-d.

        {examples}
        >>> f"{xp.asarray(3.14159):.2f}"
        '3.14'
        """
        if self.ndim == 0:
            return format(self._printable()[()].item(), format_spec)
        if format_spec:
            raise TypeError(
                f"unsupported format string {format_spec!r} passed to Array.__format__: only a 0-d array "
                f"takes one, this one has shape {self.shape}"
            )
        return str(self)

    @_doc.outside_standard
    def __round__(self, ndigits: int | None = None) -> int | float:
        """``round(x)``, ``round(x, n)`` of a 0-d real array: Python's round of its value
        (``dlarray.round`` rounds arrays elementwise).

        Parameters
        ----------
        ndigits : int | None
            Decimal digits to keep; ``None`` rounds to an ``int``.

        Returns
        -------
        int | float
            Python's ``round`` of the value.

        Raises
        ------
        TypeError
            The array is not 0-d, or it is complex.

        {examples}
        >>> round(xp.asarray(2.71828), 2)
        2.72
        """
        if self.ndim != 0:
            raise TypeError(
                f"round() takes a 0-d array, this one has shape {self.shape}: use dlarray.round(x) for "
                f"arrays"
            )
        if self._dtype.category == "complex floating":
            raise TypeError(f"round() of a {self._dtype} value: complex numbers have no rounding")
        value = self._printable()[()].item()
        return round(value) if ndigits is None else round(value, ndigits)

    __hash__ = None  # type: ignore[assignment]
    # numpy's ndarray operators defer to ours (np_array + x gives an Array, computed zero-copy)
    __array_priority__ = 100.0

    # ---------------------------------------------------------------- operators
    # The Python operators (``x + y``, ``x += y``, ``x @ y``, ``-x``, ...) are installed on this
    # class by ``dlarray._operators`` from one table, once the spec modules that compute them are
    # loaded: the core does not import them. A type checker cannot see what is installed at
    # import, so they are declared here for type checkers only (methods, not ClassVar callables:
    # pyright matches no ClassVar against a protocol's method, as abs() and sum() need;
    # tests/test_typing.py checks each against the installed method's operand).
    if TYPE_CHECKING:
        def __add__(self, other: _Numeric, /) -> Array: ...
        def __radd__(self, other: _Numeric, /) -> Array: ...
        def __iadd__(self, other: _Numeric, /) -> Self: ...
        def __sub__(self, other: _Numeric, /) -> Array: ...
        def __rsub__(self, other: _Numeric, /) -> Array: ...
        def __isub__(self, other: _Numeric, /) -> Self: ...
        def __mul__(self, other: _Numeric, /) -> Array: ...
        def __rmul__(self, other: _Numeric, /) -> Array: ...
        def __imul__(self, other: _Numeric, /) -> Self: ...
        def __truediv__(self, other: _Numeric, /) -> Array: ...
        def __rtruediv__(self, other: _Numeric, /) -> Array: ...
        def __itruediv__(self, other: _Numeric, /) -> Self: ...
        def __pow__(self, other: _Numeric, /) -> Array: ...
        def __rpow__(self, other: _Numeric, /) -> Array: ...
        def __ipow__(self, other: _Numeric, /) -> Self: ...
        def __floordiv__(self, other: _Real, /) -> Array: ...
        def __rfloordiv__(self, other: _Real, /) -> Array: ...
        def __ifloordiv__(self, other: _Real, /) -> Self: ...
        def __mod__(self, other: _Real, /) -> Array: ...
        def __rmod__(self, other: _Real, /) -> Array: ...
        def __imod__(self, other: _Real, /) -> Self: ...
        def __lt__(self, other: _Real, /) -> Array: ...
        def __le__(self, other: _Real, /) -> Array: ...
        def __gt__(self, other: _Real, /) -> Array: ...
        def __ge__(self, other: _Real, /) -> Array: ...
        def __and__(self, other: _Bitwise, /) -> Array: ...
        def __rand__(self, other: _Bitwise, /) -> Array: ...
        def __iand__(self, other: _Bitwise, /) -> Self: ...
        def __or__(self, other: _Bitwise, /) -> Array: ...
        def __ror__(self, other: _Bitwise, /) -> Array: ...
        def __ior__(self, other: _Bitwise, /) -> Self: ...
        def __xor__(self, other: _Bitwise, /) -> Array: ...
        def __rxor__(self, other: _Bitwise, /) -> Array: ...
        def __ixor__(self, other: _Bitwise, /) -> Self: ...
        def __lshift__(self, other: _Shift, /) -> Array: ...
        def __rlshift__(self, other: _Shift, /) -> Array: ...
        def __ilshift__(self, other: _Shift, /) -> Self: ...
        def __rshift__(self, other: _Shift, /) -> Array: ...
        def __rrshift__(self, other: _Shift, /) -> Array: ...
        def __irshift__(self, other: _Shift, /) -> Self: ...
        def __eq__(self, other: _Equality, /) -> Array: ...  # type: ignore[override]
        def __ne__(self, other: _Equality, /) -> Array: ...  # type: ignore[override]
        def __matmul__(self, other: Array, /) -> Array: ...
        def __rmatmul__(self, other: Array, /) -> Array: ...
        def __imatmul__(self, other: Array, /) -> Self: ...
        def __neg__(self, /) -> Array: ...
        def __pos__(self, /) -> Array: ...
        def __abs__(self, /) -> Array: ...
        def __invert__(self, /) -> Array: ...

    # What the in-place operators share:

    def _in_place_ufunc(self, ufunc: str, other: Any) -> Array:
        """``x op= y`` for an operator whose elementwise function is one bare ufunc call (no
        special-case fix-ups): computed straight into this array's memory, no temporary.

        numpy's rules for ``out=`` are the standard's for in-place operators: the dtype and shape
        stay; a result of a wider dtype of the same kind is cast back (the standard leaves that
        precision to the implementation), one of another kind (``int8 += 1.5``) is a TypeError,
        a broadcast shape other than this array's a ValueError; overlapping operands are handled.
        """
        if self.readonly:
            raise ValueError("in-place operation on a read-only array")
        native = self._as_native()
        if type(other) is Array:
            if other._device is not self._device:
                raise ValueError(devices_differ(self._device, other._device))
            other = other._as_native()
        getattr(self._device.backend.xp, ufunc)(native, other, out=native)
        return self

    def _in_place(self, func: Any, other: Any) -> Array:
        """``x = func(x, y)`` written into this array's memory, for operators whose function
        carries fix-ups (``//=``, ``@=``). The read-only check comes first, so nothing is computed
        for an array that cannot be written."""
        if self.readonly:
            raise ValueError("in-place operation on a read-only array")
        return self._assign_in_place(func(self, other))

    def _assign_in_place(self, result: Array) -> Array:
        """Copy ``result`` into this array: same shape required; the dtype stays, with the same
        casting rule as the ufunc path (same kind only, TypeError otherwise)."""
        if self.readonly:
            raise ValueError("in-place operation on a read-only array")
        native = self._as_native()
        if result.shape != native.shape:
            raise ValueError(
                f"in-place operation would change the shape from {native.shape} to {result.shape}"
            )
        if result._dtype is self._dtype:
            native[...] = result._as_native()
        else:
            try:
                self._device.backend.xp.copyto(native, result._as_native(), casting="same_kind")
            except TypeError:
                raise TypeError(
                    f"in-place operation would change the dtype from {self._dtype} to {result._dtype}"
                ) from None
        return self

    # ---------------------------------------------------------------- indexing
    @_doc
    def __getitem__(
        self, key: int | slice | EllipsisType | None | Array | tuple[int | slice | EllipsisType | None | Array, ...], /
    ) -> Array:
        """Index: basic indexing (ints, slices, ``...``, ``None``) gives a view; arrays select.

        Integer arrays broadcast together (with any integers) and gather; a boolean mask selects
        in row-major order. Dtypes numpy lacks (bfloat16, float8...) are indexed too: views by
        metadata, selections through their bytes.

        Parameters
        ----------
        key : int | slice | EllipsisType | None | Array | tuple[int | slice | EllipsisType | None | Array, ...]
            The index: one item or a tuple of them; integer or boolean Arrays (on this array's
            device) select. numpy arrays and lists are taken as numpy takes them.

        Returns
        -------
        Array
            A view sharing this array's memory (and read-only flag) for basic indexing; a new
            array for integer-array or mask selection.

        Raises
        ------
        IndexError
            An integer out of range, too many indices, more than one ``...``, or an index Array
            of another dtype than integer or bool.
        ValueError
            An index Array on another device.

        {examples}
        >>> x = xp.asarray([[1, 2], [3, 4]])
        >>> x[1], x[:, 0]
        (Array([3, 4], dtype=int64, device=cpu), Array([1, 3], dtype=int64, device=cpu))
        >>> x[x > 1]
        Array([2, 3, 4], dtype=int64, device=cpu)
        """
        native = self._native
        if native is not None and type(key) is slice:
            # the commonest index: a slice of the backend array is a view of it (numpy's or
            # cupy's), on this array's device and stream (pinned memory stays pinned), owned
            # through its base; its metadata is read from it when asked for
            view = native[key]
            return _new(view, view, self._dtype, self._device, self._stream)
        if native is not None or self._computable():
            return wrap(native_getitem(self, key))
        # no backend computes with it: a view by metadata, or a selection of the elements' bits
        if is_basic(self, key):
            return self._view(*basic_geometry(self, key))
        return from_bits(selected_bits(self, key), self._dtype)

    @_doc
    def __setitem__(
        self,
        key: int | slice | EllipsisType | None | Array | tuple[int | slice | EllipsisType | None | Array, ...],
        value: Array | int | float | complex | npt.ArrayLike,
        /,
    ) -> None:
        """Assign ``value`` (broadcast) into ``self[key]``.

        The array keeps its dtype and shape; values are cast to it (into bfloat16 and float8/6/4,
        rounded to nearest even).

        Parameters
        ----------
        key : int | slice | EllipsisType | None | Array | tuple[int | slice | EllipsisType | None | Array, ...]
            The selection, as for :meth:`__getitem__`.
        value : Array | int | float | complex | npt.ArrayLike
            An Array (on this array's device), a Python scalar, or what numpy (cupy on CUDA)
            converts to numbers: a numpy array, a nested list, tuple or range...

        Raises
        ------
        ValueError
            A read-only array, a value on another device, or one that does not broadcast to the
            selection.
        TypeError
            A complex value into a real array (the imaginary part would be lost), or a value
            that is not numbers.
        IndexError
            As for :meth:`__getitem__`.

        {examples}
        >>> x = xp.zeros(3)
        >>> x[:2] = [1, 2]
        >>> x
        Array([1., 2., 0.], dtype=float64, device=cpu)
        """
        if self.readonly:
            raise ValueError("assignment destination is read-only")
        if self._native is not None or self._computable():
            setitem(self, key, value)
        elif self._dtype.numpy_dtype is not None:
            # a dtype the backends compute with, on a device where none does here (CUDA without
            # cupy or a GPU, ROCm): the backend's reason, not raw_setitem's (it writes extra formats)
            try:
                self._as_native()
            except BackendUnavailable as exc:
                raise TypeError(f"cannot assign into an array on {self._device}: {exc}") from None
            setitem(self, key, value)
        else:
            raw_setitem(self, key, value)


def _new(
    native: Any, owner: Any, dtype: DType, device: Device, stream: int,
    described: tuple[int, int, tuple[int, ...], tuple[int, ...], int] | None = None,
) -> Array:
    """The constructor of Arrays: every Array is made here, and every slot is set here.

    ``native`` is the backend array over the memory (None until a computation asks for one);
    ``owner`` keeps the memory alive. ``stream`` is the DLPack stream the data is ordered on
    (CUDA), 1 (the legacy default stream) for data nothing is pending on. ``described`` is the
    buffer's description where it is known (imports, views by metadata, dtypes no backend has):
    ``(data, byte_offset, shape, strides, flags)``. None for a backend result: its description is
    read from ``native`` when first asked for (:meth:`Array._fill_metadata`), and until then only
    ``_data`` is set, to None.
    """
    self = _new_array(Array)
    self._native = native
    self._owner = owner
    self._dtype = dtype
    self._device = device
    self._stream = stream
    if described is None:
        self._data = None
    else:
        self._data, self._offset, self._shape, self._strides, self._flags = described
    return self


def _adopt(
    owner: Any, data: int, byte_offset: int, shape: tuple[int, ...], strides: tuple[int, ...],
    dtype_code: int, dtype_bits: int, device_type: int, device_id: int, flags: int, version: object = None,
    stream: int = _LEGACY_DEFAULT_STREAM,
) -> Array:
    """An Array over validated DLPack fields; ``owner`` keeps the memory alive.

    The import hot path: the core's ``import_with`` and ``consume_capsule`` call it with the fields
    they have just read (``consume_capsule`` adds the DLPack version, which the Array does not
    keep), so no tuple is built between reading a struct and filling the Array's slots. ``stream``:
    the stream the data is ordered on (the C exchange API's ``current_work_stream`` on CUDA, whose
    import synchronizes nothing; a capsule's data is ordered on the legacy default stream).
    """
    try:
        device = _DEVICE_CACHE[device_type, device_id]
    except KeyError:  # a device not seen yet (or a CPU device_id other than 0)
        device = device_of(device_type, device_id)
    return _new(None, owner, _DTYPE_BY_CODE[dtype_code, dtype_bits], device, stream,
                (data, byte_offset, shape, strides, flags & _KEPT_FLAGS))


def _over_host_memory(
    owner: np.ndarray, shape: tuple[int, ...], strides: tuple[int, ...], dtype: DType, flags: int,
    device: Device = CPU,
) -> Array:
    """An Array of ``dtype`` over the host memory of the numpy array ``owner`` (its elements as
    unsigned integers of the same width, or bytes): how stored-only dtypes (bfloat16, float8...)
    are held once copied, selected or decoded on the host. ``strides`` in elements of ``dtype``."""
    return _new(None, owner, dtype, device, _LEGACY_DEFAULT_STREAM,
                (numpy_data_pointer(owner), 0, shape, strides, flags & _KEPT_FLAGS))


# Bound once: a method call on a name bound by an import compiles to a slower attribute load and
# call in CPython 3.11 (no LOAD_METHOD), and wrap runs for every result.
_placement_of_new_memory = NEW_MEMORY_PLACEMENT.get
_placement_by_native_type = PLACEMENT_BY_NATIVE_TYPE.get


def wrap(native: Any) -> Array:
    """An Array that owns a backend result (a numpy array or scalar, or a cupy array).

    Its backend says where the result lives (a view of pinned host memory stays on that device,
    new memory is the CPU's; cupy results are on their GPU, ordered on cupy's current stream).
    """
    # most results own new host memory: its placement is a constant of the backend, no call
    kind = type(native)
    placed = _placement_of_new_memory(kind)
    if placed is None:
        place = _placement_by_native_type(kind)  # a cupy result: placed by its backend, no detour
        if place is None:
            native, placed = placed_result(native)  # a scalar, or a type not seen yet
        else:
            placed = place(native)
    elif native.base is not None:
        native, placed = placed_result(native)
    device, stream = placed
    # the metadata is read from the result when asked for
    return _new(native, native, BY_NUMPY[native.dtype], device, stream)


def adopt_numpy(native: np.ndarray) -> Array:
    """An Array over a user's numpy array (of a dtype dlarray has), zero-copy, through a view of
    its own: numpy lets the holder of an array set its shape, strides and dtype in place, which
    must not reach the Array (its dtype is read once, here). Placed where ``native`` is."""
    view = _view_of(native)
    if native.base is None:  # it owns its memory: new host memory, placed as wrap places it
        device, stream = _placement_of_new_memory(_ndarray)
    else:
        device, stream = placed_result(native)[1]
    return _new(view, view, BY_NUMPY[native.dtype], device, stream)


_view_of = np.ndarray.view


def _ml_dtypes_view(array: Array) -> np.ndarray | None:
    """A numpy view of a host array of a dtype numpy lacks, in ml_dtypes' dtype of that name;
    None where ml_dtypes lacks it (or is not installed), the memory is not the host's, or the
    elements are packed several to a byte."""
    if not array._device.host_accessible or is_packed(array):
        return None
    try:
        numpy_dtype = array._dtype.__numpy_dtype__  # ml_dtypes' dtype (any numpy 2)
    except TypeError:
        return None
    return bits_view(array).view(numpy_dtype)


def _foreign_operand(value: Any, array: Array) -> Any:
    """The operand of ``array``'s operator that is neither an Array nor a Python scalar.

    A numpy array becomes an Array (zero-copy), a subclass of a Python scalar type that Python
    scalar; a numpy scalar (one value, its dtype kept), a list, tuple or range is converted as
    ``asarray`` converts it, on ``array``'s device (``x == [1, 2, 3]`` compares elementwise, as in
    numpy; ``cuda_x * np.float32(2)`` computes on the GPU, as cupy and torch take numpy scalars).
    None (the operator returns NotImplemented) for anything else: another array library's object,
    whose reflected method then decides, or an object that is no array and no number, which Python
    then answers as it answers for any two unrelated objects (``x == None`` is False, ``x + "a"``
    and ``x < None`` are TypeErrors), as array-api-strict does.
    """
    if isinstance(value, _ndarray):
        return wrap(value) if value.dtype in BY_NUMPY else None
    scalar = scalar_operand(value, array._device)
    if scalar is not None:
        return scalar
    if isinstance(value, (list, tuple, range)):
        return wrap(numeric_native(array._device, value))
    return None


def scalar_operand(value: Any, device: Device) -> Any:
    """A number that is not an Array, as an operand of a function or operator with an Array.

    The one rule for numbers, the operators' and the functions' (``xp.add(x, v)``, ``where``,
    ``clip``, ``isin``, ``searchsorted``): a Python scalar as it is (weakly typed, as the standard
    says); a subclass of one (an ``IntEnum``, a ``float`` subclass) as that Python scalar; a numpy
    scalar as a 0-d Array on ``device`` with its dtype kept (numpy's rule for its scalars; cupy
    and torch take them too). None for anything else.

    Examples
    --------
    >>> import numpy as np
    >>> from dlarray._array import scalar_operand
    >>> from dlarray._devices import CPU
    >>> scalar_operand(0.5, CPU), scalar_operand(np.float32(0.5), CPU)
    (0.5, Array(0.5, dtype=float32, device=cpu))
    """
    if type(value) in PYTHON_SCALARS:
        return value
    if isinstance(value, np.generic):
        return wrap(device.backend.xp.asarray(value)) if value.dtype in BY_NUMPY else None
    for scalar_type in PYTHON_SCALARS:  # bool first: it is an int subclass
        if isinstance(value, scalar_type):
            return scalar_type(value)
    return None


def _moved(native: Any, target: Device, stream: Any) -> Array:
    """The Array of a copy made on ``target`` by ``to_device``. Given a ``stream``, the copy was
    queued on it, inside cupy's ``with stream:``, which has ended by now (cupy's current stream is
    the one outside it again): the result is ordered on ``stream``, not on the current one."""
    moved = wrap(native)
    if stream is not None and target.backend.orders_streams:
        moved._stream = target.backend.copy_stream_number(stream)
    return moved


def _copy_stream_argument(stream: Any, source: Device, target: Device) -> None:
    """Check ``to_device``'s ``stream`` (not None) before anything is moved, or not moved."""
    if not _cuda.is_cupy_stream(stream):
        if type(stream) is bool or not isinstance(stream, int):
            raise TypeError(f"stream must be None, an int or a cupy stream, got {type(stream).__name__}")
        if source.backend.cuda_streams or target.backend.cuda_streams:
            _cuda.consumer_stream(stream)  # ValueError for 0 or below -1
            return
    if not (source.backend.cuda_streams or target.backend.cuda_streams):
        raise ValueError(f"stream must be None for a copy from {source} to {target}, got {stream!r}")


def _target_device(dl_device: Any) -> Device:
    """``__dlpack__``'s ``dl_device``: a tuple of two ints (TypeError). A device type DLPack does
    not define, or a negative id, is a device the data cannot be exported to: BufferError, as the
    standard asks for a device the producer cannot handle."""
    kind, index = int_pair(dl_device, "dl_device")
    try:
        if index < 0:
            raise ValueError
        return device_of(DLDeviceType(kind), index)
    except ValueError:
        raise BufferError(f"cannot export to dl_device={dl_device!r}: no such DLPack device") from None


# The last two max_version tuples the checks of _versioned_export accepted, by identity: a consumer
# passes the same tuple object at every call (numpy's is a C constant, torch's a code constant),
# which the fast path of __dlpack__ then knows to be valid without checking it again (an equal
# tuple of other objects, (True, 0), is not the same object). Held here, so no id is reused.
# (never None, which asks for a legacy export: they start as this package's own version, valid)
_accepted_version: tuple[int, int] = DLPACK_VERSION
_accepted_version_before: tuple[int, int] = DLPACK_VERSION


def _accept_version(max_version: tuple[int, int]) -> None:
    global _accepted_version, _accepted_version_before
    if type(max_version[0]) is int and type(max_version[1]) is int and max_version is not _accepted_version:
        # numpy's integers and other __index__ objects are checked at every call
        _accepted_version_before, _accepted_version = _accepted_version, max_version


def _versioned_export(max_version: Any) -> bool:
    """``__dlpack__``'s ``max_version``: None or a tuple of two ints (TypeError), neither
    negative (ValueError); whether the consumer reads versioned capsules (major 1 or more)."""
    if max_version is None:
        return False
    major, minor = int_pair(max_version, "max_version")
    if major < 0 or minor < 0:
        raise ValueError(f"max_version must be two non-negative ints, got {max_version!r}")
    return major >= 1


def copy_argument(copy: Any) -> bool:
    """A ``copy`` argument that is not None, True or False: numpy's bool is one; TypeError else.

    numpy takes any object by its truth (``copy="no"`` would copy, ``copy=0`` would share) and
    refuses only strings (ValueError); the standard's ``copy`` is ``Optional[bool]``, and a wrong
    kind of argument is a TypeError here.

    Examples
    --------
    >>> copy_argument(np.True_)
    True
    """
    if type(copy) is np.bool_:
        return bool(copy)
    raise TypeError(f"copy must be None, True or False, got {copy!r}")


def _copy_raw(array: Array) -> Array:
    """Byte-wise copy for dtypes no backend computes with (bfloat16, float8, ...), on the host."""
    if not array._device.host_accessible:
        raise BackendUnavailable(f"copying an array on {array._device} needs cupy and a GPU")
    array._ensure_metadata()
    shape = array._shape
    return _over_host_memory(host_elements(array, copy=True), shape, contiguous_strides(shape), array._dtype,
                             array._flags & FLAG_IS_SUBBYTE_TYPE_PADDED, array._device)



def _array_over(elements: np.ndarray, dtype: DType, shape: tuple[int, ...], padded: bool) -> Array:
    """A CPU Array of ``dtype`` and ``shape`` over ``elements``, fresh C-contiguous memory that
    nothing else uses (numpy's dtype, or any carrier of the right byte size)."""
    numpy_dtype = dtype.numpy_dtype
    if numpy_dtype is not None:
        if elements.dtype != numpy_dtype:
            elements = elements.view(numpy_dtype)
        return wrap(elements.reshape(shape))
    return _over_host_memory(elements, shape, contiguous_strides(shape), dtype,
                             FLAG_IS_SUBBYTE_TYPE_PADDED if padded else 0)


def _independent_copy(array: Array) -> Array:
    """``copy.copy`` / ``copy.deepcopy``: fresh memory with the same values, on the same device
    (the CPU for host-readable pinned/managed memory); TypeError where the values cannot be read."""
    device = array._device
    dtype = array._dtype
    backend = device.backend
    if device.host_accessible or not backend.computes:
        source = host_source(array, "copy")  # refuses what the host cannot read
        elements = host_elements(source, copy=True)
        if dtype.numpy_dtype is not None:
            return wrap(elements)  # new host memory: on the CPU
        return _array_over(elements, dtype, source._shape, bool(source._flags & FLAG_IS_SUBBYTE_TYPE_PADDED))
    try:
        # dtypes cupy lacks are copied as unsigned integers of their width
        source = array if dtype.numpy_dtype is not None else _bits_carrier(array, "copying")
        copied = wrap(backend.copy(source))
    except BackendUnavailable as exc:
        raise TypeError(f"cannot copy an array on {device}: {exc}") from None
    return copied if source is array else _relabelled(copied, array)


def _bits_carrier(array: Array, purpose: str) -> Array:
    """A view of ``array`` (a dtype no backend has) typed as unsigned integers of its element
    width, which backends copy and move; BackendUnavailable for packed sub-byte data."""
    array._ensure_metadata()
    if is_packed(array):
        raise BackendUnavailable(f"{purpose} packed {array._dtype} data on {array._device} is not supported")
    return array._view(array._offset, array._shape, array._strides, BY_NUMPY[bits_dtype(array._dtype)])


def _relabelled(bits: Array, like: Array) -> Array:
    """The backend result ``bits`` (a copy of a :func:`_bits_carrier`) as an Array of ``like``'s
    dtype and sub-byte padding over the same memory, on its device and stream."""
    bits._ensure_metadata()
    return _new(None, bits._owner, like._dtype, bits._device, bits._stream,
                (bits._data, 0, bits._shape, bits._strides, like._flags & FLAG_IS_SUBBYTE_TYPE_PADDED))


# The reconstructor every pickled Array names: pickles store its qualified name
# (dlarray._array._array_from_pickle). It must stay importable under that name, with this
# argument layout (format 1: dlarray._pickling.PICKLE_FORMAT).
def _array_from_pickle(
    layout: int, data: Any, dtype_name: str, shape: tuple[int, ...], device_type: int, device_id: int,
    padded: bool, byteorder: str,
) -> Array:
    """Rebuild a pickled Array (see :meth:`Array.__reduce_ex__`): fresh, writable, C-contiguous."""
    elements, dtype = elements_from_pickle(layout, data, dtype_name, shape, padded, byteorder)
    result = _array_over(elements, dtype, shape, padded)
    device = device_of(device_type, device_id)
    if device.host_accessible:
        return result  # a plain copy of pinned/managed memory lives on the CPU
    try:
        return result.to_device(device)
    except (TypeError, ValueError, RuntimeError, BufferError, OSError) as exc:  # no cupy, no such GPU...
        raise TypeError(f"cannot restore the pickled array on {device}: {exc}") from None


def from_bits(raw: np.ndarray, dtype: DType, device: Device | None = None) -> Array:
    """An Array of ``dtype`` over the memory of ``raw`` (unsigned integers of the element width).

    The way back from :func:`dlarray._storage.bits_view`: ``raw`` owns the memory; the result is
    on the CPU, then moved to ``device`` when that is another one.
    """
    itemsize = raw.itemsize
    flags = FLAG_IS_SUBBYTE_TYPE_PADDED if dtype.bits < 8 else 0
    if not raw.flags.writeable:
        flags |= FLAG_READ_ONLY
    array = _over_host_memory(raw, raw.shape, tuple([s // itemsize for s in raw.strides]), dtype, flags)
    if device is not None and device is not CPU:
        return array.to_device(device)
    return array
