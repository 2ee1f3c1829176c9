"""Pickles and copies of an Array carry its values, never its memory.

An Array's slots hold addresses and an owner that keeps foreign memory alive; neither may travel.
A pickle holds a C-contiguous copy of the elements' bytes read on the host, the dtype by name, the
shape and the device (:func:`pickled_fields`); loading checks them and gives fresh elements that
only the new array uses (:func:`elements_from_pickle`). ``copy.copy`` and ``copy.deepcopy`` read the
values the same way (:func:`host_source`, :func:`host_elements`). See "Pickling and copies" in
docs/safety.md.

Part of the core, below the Array: it reads an Array's fields and calls its methods, and makes no
Array; the reconstructor pickles name, ``dlarray._array._array_from_pickle``, builds the result.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _dtypes
from ._backend import BackendUnavailable, host_view
from ._devices import CPU
from ._dlpack import FLAG_IS_SUBBYTE_TYPE_PADDED
from ._dtypes import DType
from ._storage import bits_dtype, bits_view, copy_packed, is_packed

if TYPE_CHECKING:
    from ._array import Array

PICKLE_FORMAT = 1  # the layout of the reconstructor's arguments; a new layout gets a new number
_UINT8 = np.dtype(np.uint8)


def host_source(array: Array, purpose: str) -> Array:
    """``array`` if the host can read its memory, else its copy on the CPU (CUDA, with cupy).

    TypeError, saying why, where nothing here can read the memory: no pointer is ever touched or
    handed on for it.
    """
    device = array._device
    if device.host_accessible:
        return array
    if not device.backend.computes:
        raise TypeError(
            f"cannot {purpose} an array on {device}: dlarray has no backend that reads {device.type.name} "
            f"memory; copy it to the CPU with its producer first"
        )
    try:
        return array.to_device(CPU)
    except BackendUnavailable as exc:
        raise TypeError(f"cannot {purpose} an array on {device}: its values must be copied to the host, "
                        f"and {exc}") from None


def host_elements(array: Array, copy: bool) -> np.ndarray:
    """The stored elements of a host-readable array as a C-contiguous numpy array.

    numpy's dtype where it has one, else unsigned integers of the element width, else (packed
    sub-byte data) the bytes the elements fill. A view where the elements are contiguous already
    and ``copy`` is False; a copy otherwise.
    """
    dtype = array._dtype
    if dtype.numpy_dtype is not None:
        view = array._native
        if view is None or not array._device.backend.host_native:  # an import; or managed memory
            array._ensure_metadata()
            view = host_view(array)
    elif is_packed(array):
        return copy_packed(array)  # the bytes the elements fill; refused for a strided view
    else:
        view = bits_view(array)
    if copy or not view.flags.c_contiguous:
        return view.copy(order="C")
    return view


def pickled_fields(array: Array, protocol: int) -> tuple[object, ...]:
    """The reconstructor's arguments for ``array`` (format :data:`PICKLE_FORMAT`): the format,
    the elements' bytes (a :class:`pickle.PickleBuffer` from protocol 5), the dtype's name, the
    shape, the device's type and id, whether sub-byte elements are padded, the byte order."""
    host = host_source(array, "pickle")
    elements = host_elements(host, copy=False)
    if protocol >= 5:
        from pickle import PickleBuffer  # the pickle module is loaded when pickling, not at import

        payload: Any = PickleBuffer(elements)
    else:
        payload = elements.tobytes()
    device = array._device
    dtype = array._dtype
    padded = dtype.bits < 8 and bool(host._flags_now() & FLAG_IS_SUBBYTE_TYPE_PADDED)
    return (PICKLE_FORMAT, payload, dtype.name, tuple(host.shape), int(device.type), device.id, padded,
            sys.byteorder)


def elements_from_pickle(
    layout: int, data: Any, dtype_name: str, shape: tuple[int, ...], padded: bool, byteorder: str,
) -> tuple[np.ndarray, DType]:
    """The elements (fresh host memory nothing else uses, in this machine's byte order) and the
    dtype of a pickled array, its fields checked: ValueError for a field that is not what
    :func:`pickled_fields` writes (another format, an unknown dtype, a bad shape, too few or too
    many bytes)."""
    if layout != PICKLE_FORMAT:
        raise ValueError(f"this pickled dlarray.Array has format {layout}; this dlarray reads format {PICKLE_FORMAT}")
    dtype = _dtypes.BY_NAME.get(dtype_name)
    if dtype is None:
        raise ValueError(f"the pickled array has dtype {dtype_name!r}, which this dlarray does not know")
    if type(shape) is not tuple or not all([type(n) is int and n >= 0 for n in shape]):
        raise ValueError(f"the pickled array has an invalid shape {shape!r}")
    size = 1
    for extent in shape:
        size *= extent
    packed = dtype.bits < 8 and not padded
    expected = (size * dtype.bits + 7) // 8 if packed else size * dtype.itemsize
    view = memoryview(data)
    if view.readonly or not view.c_contiguous:
        elements = np.frombuffer(bytearray(view), dtype=_UINT8)  # fresh memory only this array uses
    else:
        # a buffer the unpickler made for this array (protocol 5, in band), or one the caller
        # handed to pickle.loads out of band to be used in place, as numpy does
        elements = np.frombuffer(view.cast("B") if view.format != "B" else view, dtype=_UINT8)
    if elements.nbytes != expected:
        raise ValueError(f"the pickled array holds {elements.nbytes} bytes; {dtype} of shape {shape} needs {expected}")
    carrier = dtype.numpy_dtype if dtype.numpy_dtype is not None else bits_dtype(dtype)
    if elements.ctypes.data % carrier.alignment:  # an out-of-band buffer at an odd address
        elements = elements.copy()
    if byteorder != sys.byteorder and dtype.itemsize > 1 and not packed:
        elements.view(carrier).byteswap(inplace=True)  # pickled on a machine of the other byte order
    return elements, dtype
