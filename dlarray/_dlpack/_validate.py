"""One validation path for every way a buffer arrives.

A DLPack capsule or exchange-API struct (read by ``_consume.read_managed``), a buffer-protocol
object, an ``__array_interface__`` and a ``__cuda_array_interface__`` (parsed by
``dlarray._interfaces``) all come down to the same fields: data pointer, byte offset, shape,
strides in elements, dtype, device. :func:`validate_fields` decides whether those fields describe a
buffer this library can hold; every refusal is a ``BufferError`` that names the faulty field,
prefixed by where the fields came from (``where``), so one fault reads the same whichever way it
arrived. Each source parses its own syntax first (a typestr, a format string, the C struct) and
refuses malformed syntax itself.

Fast paths in front of it (``_consume.ordinary_geometry``, the exchange API's inline test,
``_interfaces.from_bytes``) only ever accept fields this function would accept, unchanged: they
decide nothing it would decide differently.
"""

from __future__ import annotations

from ._structs import MAX_NDIM, VALID_BITS, DLDataTypeCode, DLDeviceType

INT64_MAX = (1 << 63) - 1
ADDRESS_END = 1 << 64
_STEP_MIN = -INT64_MAX
#: Every (dtype code, bits) pair DLPack 1.3 defines and this library holds.
VALID_CODE_BITS = frozenset([(int(code), bits) for code, allowed in VALID_BITS.items() for bits in allowed])
KNOWN_DEVICE_TYPES = frozenset([int(d) for d in DLDeviceType])
#: ``where`` for fields read from a DLPack struct.
DLPACK_TENSOR = "DLPack tensor"


def check_ndim(ndim: int, shape_pointer: int, where: str) -> None:
    """Refuse an ``ndim`` out of range, or a NULL shape pointer with ``ndim > 0``, before the
    shape is read from C memory."""
    if not 0 <= ndim <= MAX_NDIM:
        _refuse_ndim(ndim, where)
    if ndim and not shape_pointer:
        raise BufferError(f"{where} has ndim={ndim} but a NULL shape pointer")


def validate_fields(
    data: int, byte_offset: int, shape: tuple[int, ...], strides: tuple[int, ...], dtype_code: int,
    dtype_bits: int, lanes: int, device_type: int, device_id: int, where: str = DLPACK_TENSOR,
) -> tuple[int, int]:
    """Check that these fields describe a buffer that can be held; return the bytes it spans.

    The fields are checked in this order, and the first fault is reported (``BufferError``,
    naming the field): ``device_type`` known, ``lanes == 1``, ``dtype code`` known and ``bits``
    possible for it, ``device_id >= 0``; ``ndim <= 64``; no negative extent in ``shape``; every
    stride, the size and the span of the strides within int64 **in bytes** (also for an empty
    tensor, whose non-zero extents must multiply within int64 in bytes); ``data`` an address
    (``0 <= data < 2**64``); ``data`` not NULL unless the tensor is empty; ``byte_offset`` within
    ``0 .. 2**63 - 1`` and every element inside the address space (unless empty).

    Parameters
    ----------
    data, byte_offset
        The data pointer, and the byte offset of element ``[0, ..., 0]`` from it.
    shape, strides
        Extents, and strides in elements (the caller resolves absent strides to C-contiguous).
    dtype_code, dtype_bits, lanes, device_type, device_id
        DLPack's dtype and device fields.
    where
        What the fields describe, for the messages (e.g. ``"__array_interface__"``).

    Returns
    -------
    (low, high)
        The address of the lowest byte of any element and one past the highest (both
        ``data + byte_offset`` for an empty tensor): the caller can check they lie in a buffer.

    Examples
    --------
    >>> validate_fields(0x1000, 0, (2, 3), (3, 1), 2, 32, 1, 1, 0)
    (4096, 4120)
    >>> validate_fields(-8, 0, (2,), (1,), 2, 32, 1, 1, 0, where="__array_interface__")
    Traceback (most recent call last):
    ...
    BufferError: __array_interface__ has a data pointer -8 that is not an address (0 <= data < 2**64)
    """
    if ((dtype_code, dtype_bits) not in VALID_CODE_BITS or lanes != 1
            or device_type not in KNOWN_DEVICE_TYPES or device_id < 0):
        _refuse_dtype_or_device(dtype_code, dtype_bits, lanes, device_type, device_id, where)
    if len(shape) > MAX_NDIM:
        _refuse_ndim(len(shape), where)
    itemsize = (dtype_bits + 7) >> 3
    # Python loops, not builtins (min, math.prod, sum): cheaper for the few dimensions of nearly
    # every tensor.
    size = 1
    for extent in shape:
        if extent < 0:
            raise BufferError(f"{where} has a negative dimension in shape {shape}")
        size *= extent
    start = data + byte_offset
    low = high = start
    for stride, extent in zip(strides, shape):
        step = stride * itemsize
        if not _STEP_MIN <= step <= INT64_MAX:
            _refuse_extent(shape, strides, itemsize, where)
        if extent > 1:
            if step < 0:
                low += step * (extent - 1)
            else:
                high += step * (extent - 1)
    if size:
        if size * itemsize > INT64_MAX or high - low > INT64_MAX:
            _refuse_extent(shape, strides, itemsize, where)
    elif _product_of_nonzero(shape) * itemsize > INT64_MAX:
        # empty, but numpy (and most consumers) cannot describe such a shape at all
        _refuse_extent(shape, strides, itemsize, where)
    if not 0 <= data < ADDRESS_END:
        raise BufferError(f"{where} has a data pointer {data} that is not an address (0 <= data < 2**64)")
    if not size:
        return start, start
    if not data:
        raise BufferError(f"{where} has a NULL data pointer but a non-zero size")
    high += itemsize
    if not 0 <= byte_offset <= INT64_MAX or low < 0 or high > ADDRESS_END:
        raise BufferError(
            f"{where}'s data ({data:#x}) + byte_offset ({byte_offset}) and strides reach outside the "
            f"address space"
        )
    return low, high


def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Element strides of a C-contiguous array of ``shape`` (extents of 0 counted as 1).

    Examples
    --------
    >>> contiguous_strides((2, 3, 4))
    (12, 4, 1)
    """
    strides = []
    step = 1
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))


def _product_of_nonzero(shape: tuple[int, ...]) -> int:
    product = 1
    for extent in shape:
        if extent:
            product *= extent
    return product


def _refuse_ndim(ndim: int, where: str) -> None:
    raise BufferError(f"{where} has ndim={ndim}; expected 0 <= ndim <= {MAX_NDIM}")


def _refuse_extent(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int, where: str) -> None:
    raise BufferError(
        f"{where} shape {shape} with strides {strides} (in elements of {itemsize} bytes) "
        f"overflows int64 in bytes"
    )


def _refuse_dtype_or_device(
    code: int, bits: int, lanes: int, device_type: int, device_id: int, where: str
) -> None:
    if device_type not in KNOWN_DEVICE_TYPES:
        raise BufferError(f"{where} has an unknown device_type {device_type}")
    if lanes != 1:
        raise BufferError(f"{where} has dtype lanes={lanes}; only lanes=1 is supported")
    if code not in VALID_BITS:
        raise BufferError(f"{where} has an unsupported dtype code {code}")
    if (code, bits) not in VALID_CODE_BITS:
        raise BufferError(f"{where} has dtype {DLDataTypeCode(code).name.lower()}, which cannot have bits={bits}")
    raise BufferError(f"{where} has device_id={device_id}; a device id cannot be negative")
