"""Produce: describe a buffer in a DLPack capsule that a native producer allocated.

dlarray does not allocate DLManagedTensor structs of its own. A struct that Python memory backs needs
a deleter and a capsule destructor written as ctypes callbacks, and those cannot be made safe: a
ctypes callback entered while the C code that frees the capsule has an error pending loses that error
(and prints "Exception ignored"), and one entered after the interpreter has finalized crashes.

Instead the Array layer asks numpy's C producer for a capsule over a host view of the same memory
(for a dtype numpy lacks, an unsigned integer view of the same width; for device memory, a view
that is never dereferenced), and this module rewrites the fields numpy could not know: dtype code and
bits, device, the original data/byte_offset pair, and flags. The struct, its shape and strides, the
deleter and the capsule destructor stay numpy's: C code that keeps the Array's owner alive through
the view's ``base`` and releases it exactly once, from any thread, at any time.

Ownership: the capsule must be fresh (unconsumed, not yet shared) when it is rewritten; after that it
is handed to the consumer unchanged.
"""

from __future__ import annotations

import ctypes

from . import _capi
from ._structs import (
    VERSIONED_TENSOR_OFFSET,
    DLDataTypeCode,
    DLManagedTensorVersioned,
    DLPackVersion,
    DLTensor,
)

_VERSIONED_NAME = b"dltensor_versioned"
_LEGACY_NAME = b"dltensor"

_DATA = DLTensor.data.offset
_DEVICE = DLTensor.device.offset
_DTYPE = DLTensor.dtype.offset
_BYTE_OFFSET = DLTensor.byte_offset.offset
_FLAGS = DLManagedTensorVersioned.flags.offset
_MINOR = DLManagedTensorVersioned.version.offset + DLPackVersion.minor.offset
_FIRST_DLPACK_1_1_CODE = DLDataTypeCode.FLOAT8_E3M4
_pack_device = ctypes.c_int32 * 2


def retarget_capsule(
    capsule: object,
    *,
    versioned: bool,
    data: int,
    byte_offset: int,
    dtype_code: int,
    dtype_bits: int,
    device_type: int,
    device_id: int,
    set_flags: int = 0,
) -> None:
    """Rewrite the data pointer, dtype, device and (versioned) flags of a fresh DLPack capsule.

    Shape, strides, ndim, the deleter and the manager context are left as the producer wrote them.
    ``set_flags`` bits are OR-ed into the versioned flags (ignored for a legacy capsule). A dtype
    code from DLPack 1.1 on (float8/6/4) raises a versioned struct's minor version to 1 at least,
    so that consumers know the code is meant.
    """
    name = _VERSIONED_NAME if versioned else _LEGACY_NAME
    managed = _capi.capsule_get_pointer(capsule, name)
    tensor = managed + (VERSIONED_TENSOR_OFFSET if versioned else 0)
    ctypes.c_void_p.from_address(tensor + _DATA).value = data or None
    device = _pack_device.from_address(tensor + _DEVICE)
    device[0] = device_type
    device[1] = device_id
    ctypes.c_uint8.from_address(tensor + _DTYPE).value = dtype_code
    ctypes.c_uint8.from_address(tensor + _DTYPE + 1).value = dtype_bits
    ctypes.c_uint64.from_address(tensor + _BYTE_OFFSET).value = byte_offset
    if versioned:
        if set_flags:
            flags = ctypes.c_uint64.from_address(managed + _FLAGS)
            flags.value |= set_flags
        if dtype_code >= _FIRST_DLPACK_1_1_CODE:
            minor = ctypes.c_uint32.from_address(managed + _MINOR)
            minor.value = max(minor.value, 1)

