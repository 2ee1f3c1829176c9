"""DLPack 1.3 ABI: enums, flags and the byte layout of the C structs.

The layout is declared twice on purpose: as ``ctypes.Structure`` classes (readable, and used by
producers that build structs field by field, such as the test producer) and as ``struct.Struct``
formats used on the hot path, where one ``unpack_from`` over ``_consume.MEMORY`` reads a whole header.
An import-time check keeps the two in agreement.
"""

from __future__ import annotations

import ctypes
import struct
from enum import IntEnum

#: The newest DLPack version this library reads and writes.
DLPACK_VERSION: tuple[int, int] = (1, 3)
DLPACK_MAJOR_VERSION = DLPACK_VERSION[0]

#: ``DLManagedTensorVersioned.flags`` bits.
FLAG_READ_ONLY = 1 << 0
FLAG_IS_COPIED = 1 << 1
FLAG_IS_SUBBYTE_TYPE_PADDED = 1 << 2

#: numpy's limit; a producer claiming more dimensions is refused before its shape is read.
MAX_NDIM = 64


class DLDeviceType(IntEnum):
    """``DLDeviceType``: where a buffer lives (DLPack's device type codes).

    An `IntEnum`: each member equals DLPack's integer code, as ``__dlpack_device__`` returns it.

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.asarray([1]).__dlpack_device__()
    (<DLDeviceType.CPU: 1>, 0)
    >>> xp.DLDeviceType(2), xp.DLDeviceType.CUDA == 2
    (<DLDeviceType.CUDA: 2>, True)
    """

    CPU = 1
    CUDA = 2
    CUDA_HOST = 3
    OPENCL = 4
    VULKAN = 7
    METAL = 8
    VPI = 9
    ROCM = 10
    ROCM_HOST = 11
    EXT_DEV = 12
    CUDA_MANAGED = 13
    ONE_API = 14
    WEBGPU = 15
    HEXAGON = 16
    MAIA = 17
    TRN = 18


class DLDataTypeCode(IntEnum):
    """``DLDataTypeCode``: the kind of an element (DLPack's data type codes).

    An `IntEnum`: each member equals DLPack's integer code; with the bit width it names a dtype
    (`DType.code`, `DType.bits`).

    Examples
    --------
    >>> import dlarray as xp
    >>> xp.DLDataTypeCode(xp.float32.code)
    <DLDataTypeCode.FLOAT: 2>
    >>> xp.DLDataTypeCode.BFLOAT == xp.bfloat16.code
    True
    """

    INT = 0
    UINT = 1
    FLOAT = 2
    OPAQUE_HANDLE = 3
    BFLOAT = 4
    COMPLEX = 5
    BOOL = 6
    FLOAT8_E3M4 = 7
    FLOAT8_E4M3 = 8
    FLOAT8_E4M3B11FNUZ = 9
    FLOAT8_E4M3FN = 10
    FLOAT8_E4M3FNUZ = 11
    FLOAT8_E5M2 = 12
    FLOAT8_E5M2FNUZ = 13
    FLOAT8_E8M0FNU = 14
    FLOAT6_E2M3FN = 15
    FLOAT6_E3M2FN = 16
    FLOAT4_E2M1FN = 17


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),  # NULL means C-contiguous
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    pass


DLManagedTensor._fields_ = [
    ("dl_tensor", DLTensor),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", ctypes.PYFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))),
]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


DLManagedTensorVersioned._fields_ = [
    ("version", DLPackVersion),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", ctypes.PYFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))),
    ("flags", ctypes.c_uint64),
    ("dl_tensor", DLTensor),
]

#: The C signature of both deleters; they take the struct's own address. Called the way C
#: consumers (numpy, torch) call it: with the GIL held. A CFUNCTYPE prototype would release
#: the GIL around the call, and a daemon thread that then re-takes it during interpreter
#: shutdown is ended by pthread_exit from inside the producer's frames, which can crash
#: (a ctypes-callback deleter has no unwind information to end through).
DELETER = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)

# Fast-path layouts (native alignment, so they match the C compiler's on any platform).
#   DLTensor: data, device_type, device_id, ndim, code, bits, lanes, shape, strides, byte_offset
TENSOR_LAYOUT = struct.Struct("@PiiiBBHPPQ")
#   DLManagedTensorVersioned prefix: major, minor, manager_ctx, deleter, flags
VERSIONED_PREFIX_LAYOUT = struct.Struct("@IIPPQ")
#   DLManagedTensor suffix: manager_ctx, deleter
LEGACY_SUFFIX_LAYOUT = struct.Struct("@PP")
#   The stable prefix every major version keeps: version, manager_ctx, deleter
VERSION_PREFIX_LAYOUT = struct.Struct("@IIPP")
#   Whole structs, read in one go: DLManagedTensorVersioned (prefix, then DLTensor) and
#   DLManagedTensor (DLTensor, then suffix)
VERSIONED_LAYOUT = struct.Struct(VERSIONED_PREFIX_LAYOUT.format + TENSOR_LAYOUT.format[1:])
LEGACY_LAYOUT = struct.Struct(TENSOR_LAYOUT.format + LEGACY_SUFFIX_LAYOUT.format[1:])

TENSOR_SIZE = TENSOR_LAYOUT.size
VERSIONED_TENSOR_OFFSET = DLManagedTensorVersioned.dl_tensor.offset
VERSIONED_SIZE = ctypes.sizeof(DLManagedTensorVersioned)
LEGACY_SIZE = ctypes.sizeof(DLManagedTensor)
LEGACY_DELETER_OFFSET = DLManagedTensor.deleter.offset

if not (
    TENSOR_SIZE == ctypes.sizeof(DLTensor)
    and VERSIONED_PREFIX_LAYOUT.size == VERSIONED_TENSOR_OFFSET
    and TENSOR_SIZE + LEGACY_SUFFIX_LAYOUT.size == LEGACY_SIZE
    and DLManagedTensor.manager_ctx.offset == TENSOR_SIZE
    and VERSIONED_LAYOUT.size == VERSIONED_SIZE
    and LEGACY_LAYOUT.size == LEGACY_SIZE
):  # pragma: no cover - a platform whose C layout differs from the struct module's
    raise ImportError("dlarray: struct layouts disagree with ctypes on this platform")

#: (code, bits) pairs a DLPack element type may have; anything else is refused.
VALID_BITS: dict[int, frozenset[int]] = {
    DLDataTypeCode.INT: frozenset({8, 16, 32, 64}),
    DLDataTypeCode.UINT: frozenset({8, 16, 32, 64}),
    DLDataTypeCode.FLOAT: frozenset({16, 32, 64}),
    DLDataTypeCode.BFLOAT: frozenset({16}),
    DLDataTypeCode.COMPLEX: frozenset({64, 128}),
    DLDataTypeCode.BOOL: frozenset({8}),
    **{code: frozenset({8}) for code in range(7, 15)},
    DLDataTypeCode.FLOAT6_E2M3FN: frozenset({6}),
    DLDataTypeCode.FLOAT6_E3M2FN: frozenset({6}),
    DLDataTypeCode.FLOAT4_E2M1FN: frozenset({4}),
}
