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
import struct
import sys

from . import _capi
from ._structs import (
    TENSOR_LAYOUT,
    VERSIONED_TENSOR_OFFSET,
    DLDataTypeCode,
    DLManagedTensorVersioned,
    DLPackVersion,
    DLTensor,
)

_VERSIONED_NAME = b"dltensor_versioned"
_LEGACY_NAME = b"dltensor"

_BYTE_OFFSET = DLTensor.byte_offset.offset
_FLAGS = DLManagedTensorVersioned.flags.offset
_MINOR = DLManagedTensorVersioned.version.offset + DLPackVersion.minor.offset
_FIRST_DLPACK_1_1_CODE = DLDataTypeCode.FLOAT8_E3M4
# The fields written, in two calls: DLTensor's head (data pointer, device, ndim, dtype code, bits
# and lanes, in that order at offset 0, as _structs.TENSOR_LAYOUT, checked against ctypes at
# import, says), then byte_offset.
_HEAD = struct.Struct(TENSOR_LAYOUT.format[:8])
_UINT64 = struct.Struct("@Q")
_UINT32 = struct.Struct("@I")
# All of memory as one writable buffer, for struct.pack_into at an absolute address. Written
# through only here, and only into the fields of a fresh capsule's struct (see retarget_capsule).
_ADDRESS_SPACE = memoryview((ctypes.c_char * sys.maxsize).from_address(0))


def retarget_capsule(
    capsule: object,
    versioned: bool,
    data: int,
    byte_offset: int,
    ndim: int,
    dtype_code: int,
    dtype_bits: int,
    device_type: int,
    device_id: int,
    set_flags: int = 0,
) -> None:
    """Rewrite the data pointer, dtype, device and (versioned) flags of a fresh DLPack capsule.

    Shape, strides, the deleter and the manager context are left as the producer wrote them;
    ``ndim`` is written back as it is (it sits between device and dtype: one write for all four).
    Arguments are positional too: every export of memory numpy cannot describe comes here.
    ``set_flags`` bits are OR-ed into the versioned flags (ignored for a legacy capsule). A dtype
    code from DLPack 1.1 on (float8/6/4) raises a versioned struct's minor version to 1 at least,
    so that consumers know the code is meant.
    """
    name = _VERSIONED_NAME if versioned else _LEGACY_NAME
    try:
        managed = _capi.capsule_get_pointer(capsule, name)
    except ctypes.ArgumentError as error:
        _capi.reraise(error)
    tensor = managed + (VERSIONED_TENSOR_OFFSET if versioned else 0)
    memory = _ADDRESS_SPACE
    _HEAD.pack_into(memory, tensor, data or 0, device_type, device_id, ndim, dtype_code, dtype_bits, 1)
    _UINT64.pack_into(memory, tensor + _BYTE_OFFSET, byte_offset)
    if versioned:
        if set_flags:
            flags = managed + _FLAGS
            _UINT64.pack_into(memory, flags, _UINT64.unpack_from(memory, flags)[0] | set_flags)
        if dtype_code >= _FIRST_DLPACK_1_1_CODE:
            minor = managed + _MINOR
            _UINT32.pack_into(memory, minor, max(_UINT32.unpack_from(memory, minor)[0], 1))
