"""DLPack 1.3 ABI: enums, flags and the byte layout of the C structs.

Each struct is described once, as a ``ctypes.Structure`` class (readable, and used by producers
that build structs field by field, such as the test producer); the ``struct.Struct`` formats of the
hot path, where one ``unpack_from`` over ``_consume.MEMORY`` reads a whole header, are derived from
those classes.
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

# The hot path reads a whole header with one ``struct`` unpack over ``_consume.MEMORY``; its
# formats are derived from the ctypes classes above, field by field, so each struct is described
# once. Native alignment ("@") places every field where the C compiler does.
_FORMAT_OF = {
    ctypes.c_void_p: "P", ctypes.c_int32: "i", ctypes.c_uint8: "B", ctypes.c_uint16: "H",
    ctypes.c_uint32: "I", ctypes.c_uint64: "Q",
}


def _format(fields: list[tuple[str, type]]) -> str:
    """The ``struct`` format of ctypes fields: pointers and function pointers as "P", nested
    structs flattened."""
    parts = []
    for _name, kind in fields:
        if isinstance(kind, type) and issubclass(kind, ctypes.Structure):
            parts.append(_format(kind._fields_))
        elif kind in _FORMAT_OF:
            parts.append(_FORMAT_OF[kind])
        elif issubclass(kind, (ctypes._Pointer, ctypes._CFuncPtr)):  # type: ignore[attr-defined]
            parts.append("P")
        else:  # pragma: no cover - a field type added above without a format here
            raise TypeError(f"no struct format for {kind!r}")
    return "".join(parts)


def _layout(structure: type[ctypes.Structure], first: int = 0, stop: int | None = None) -> struct.Struct:
    """The layout of ``structure``'s fields ``first:stop`` as a native-alignment ``struct.Struct``."""
    return struct.Struct("@" + _format(structure._fields_[first:stop]))


#: DLTensor: data, device_type, device_id, ndim, code, bits, lanes, shape, strides, byte_offset
TENSOR_LAYOUT = _layout(DLTensor)
#: DLManagedTensorVersioned before its DLTensor: major, minor, manager_ctx, deleter, flags
VERSIONED_PREFIX_LAYOUT = _layout(DLManagedTensorVersioned, 0, 4)
#: DLManagedTensor after its DLTensor: manager_ctx, deleter
LEGACY_SUFFIX_LAYOUT = _layout(DLManagedTensor, 1)
#: The stable prefix every major version keeps: version, manager_ctx, deleter
VERSION_PREFIX_LAYOUT = _layout(DLManagedTensorVersioned, 0, 3)
#: Whole structs, read in one go
VERSIONED_LAYOUT = _layout(DLManagedTensorVersioned)
LEGACY_LAYOUT = _layout(DLManagedTensor)

TENSOR_SIZE = TENSOR_LAYOUT.size
VERSIONED_TENSOR_OFFSET = DLManagedTensorVersioned.dl_tensor.offset
VERSIONED_SIZE = ctypes.sizeof(DLManagedTensorVersioned)
LEGACY_SIZE = ctypes.sizeof(DLManagedTensor)
LEGACY_DELETER_OFFSET = DLManagedTensor.deleter.offset

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
