"""Storage of dtypes no compute backend has (bfloat16, float8/6/4): their elements as bit patterns.

numpy handles such elements as unsigned integers of the same width ("bits"): allocating, copying,
moving and selecting elements need no arithmetic on the values, so they work through a bits view,
and the result is labelled with the real dtype again (:func:`dlarray._array.from_bits`). Sub-byte
types are stored padded, one element per byte (DLPack's IS_SUBBYTE_TYPE_PADDED); packed ones can
only be held and exported.

Part of the core: reads an Array's fields, imports no spec module.
"""

from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING

import numpy as np

from ._backend import HostBuffer
from ._dlpack import FLAG_IS_SUBBYTE_TYPE_PADDED, FLAG_READ_ONLY, contiguous_strides
from ._dtypes import DType

if TYPE_CHECKING:
    from ._array import Array

# numpy wants a non-NULL address even for an empty array: empty views point at this live buffer
_EMPTY_BITS = np.zeros(16, dtype=np.uint8)


def bits_dtype(dtype: DType) -> np.dtype:
    """The unsigned numpy integer type as wide as one stored element of ``dtype``.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray._storage import bits_dtype
    >>> bits_dtype(dlarray.bfloat16)
    dtype('uint16')
    """
    return np.dtype(f"u{dtype.itemsize}")


def is_packed(array: Array) -> bool:
    """Whether ``array`` stores several sub-byte elements per byte (it can only be held and exported)."""
    return array._dtype.bits < 8 and not array._flags & FLAG_IS_SUBBYTE_TYPE_PADDED


def bits_view(array: Array) -> np.ndarray:
    """A numpy view of a host array's elements as unsigned integers of the same width, zero-copy.

    For dtypes numpy lacks; read-only when the array is. TypeError for packed sub-byte data
    (several elements per byte) and for memory the host cannot read.

    Examples
    --------
    >>> import dlarray
    >>> from dlarray._storage import bits_view
    >>> bits_view(dlarray.ones(2, dtype=dlarray.bfloat16))
    array([16256, 16256], dtype=uint16)
    """
    array._ensure_metadata()
    dtype = array._dtype
    if is_packed(array):
        raise TypeError(f"packed {dtype} arrays (several elements per byte) can only be held and exported")
    if not array._device.host_accessible:
        raise TypeError(f"{dtype} arrays on {array._device} can only be held and exported; copy to the CPU first")
    unsigned = bits_dtype(dtype)
    readonly = bool(array._flags & FLAG_READ_ONLY)
    address = array._data + array._offset  # type: ignore[operator]
    interface = {
        "version": 3,
        "shape": array._shape,
        "typestr": unsigned.str,
        "data": (address if address and array.size else _EMPTY_BITS.ctypes.data, readonly),
        "strides": tuple([s * unsigned.itemsize for s in array._strides]),
    }
    return np.asarray(HostBuffer(interface, array._owner, array._device))


def copy_packed(array: Array) -> np.ndarray:
    """A new host buffer (``uint8``, one dimension) with the bytes packed sub-byte elements fill;
    TypeError for a strided view (its elements do not start on byte boundaries)."""
    return np.frombuffer(_packed_bytes(array), dtype=np.uint8).copy()


def unpacked_bits(array: Array, select: tuple[np.ndarray, ...] | None = None) -> np.ndarray:
    """The elements of a packed sub-byte host array as unsigned integers, one per element, in its
    shape (``select``: open-mesh index arrays, ``np.ix_``, of the only elements read, in theirs).

    DLPack packs sub-byte elements (float4, float6 without IS_SUBBYTE_TYPE_PADDED) into one
    continuous bit stream; the header does not name the bit order, and this reads it least
    significant bit first (element 0 in the low bits of byte 0), as ONNX's and NVIDIA's 4-bit
    formats store it. Only C-contiguous data can be read (elements of a strided view do not start
    on byte boundaries): TypeError otherwise.
    """
    bits = array._dtype.bits
    if select is not None:
        _refuse_strided_packed(array)
        # element k holds stream bits k*bits .. k*bits+bits-1: within the 2 bytes from (k*bits)//8
        start = np.ravel_multi_index(select, array._shape) * bits  # type: ignore[arg-type]
        count = (array.size * bits + 7) // 8
        packed = np.frombuffer((ctypes.c_uint8 * count).from_address(array._data + array._offset), np.uint8)  # type: ignore[operator]
        low = packed[start // 8].astype(np.uint16)
        high = packed[np.minimum(start // 8 + 1, count - 1)].astype(np.uint16)
        return (((low | high << 8) >> (start % 8)) & ((1 << bits) - 1)).astype(np.uint8)  # type: ignore[no-any-return]
    stream = np.unpackbits(np.frombuffer(_packed_bytes(array), dtype=np.uint8), bitorder="little")
    fields = stream[: array.size * bits].reshape(-1, bits).astype(np.uint8)
    weights = (1 << np.arange(bits, dtype=np.uint8)).astype(np.uint8)
    return (fields * weights).sum(axis=1, dtype=np.uint8).reshape(array._shape)


def _refuse_strided_packed(array: Array) -> None:
    # contiguous in C order: only dimensions of extent 1 may have any stride
    if array.size and any([n > 1 and s != c for n, s, c in zip(array._shape, array._strides,
                                                               contiguous_strides(array._shape))]):
        raise TypeError(f"a strided view of packed {array._dtype} data cannot be copied: its elements do "
                        f"not start on byte boundaries")


def _packed_bytes(array: Array) -> bytes:
    _refuse_strided_packed(array)
    count = (array.size * array._dtype.bits + 7) // 8
    return ctypes.string_at(array._data + array._offset, count) if count else b""  # type: ignore[operator]
