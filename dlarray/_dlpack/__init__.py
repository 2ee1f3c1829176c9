"""The pure-ctypes DLPack core: structs, capsule calls, consume (import) and produce (export).

Nothing here imports numpy; the package could be lifted out alone.
"""

from ._consume import (
    CapsuleLender,
    CapsuleType,
    ImportedTensor,
    TensorInfo,
    armed,
    capsule_name,
    consume_capsule,
    contiguous_strides,
    use_host_consumer,
)
from ._produce import retarget_capsule
from ._structs import (
    DLPACK_VERSION,
    FLAG_IS_COPIED,
    FLAG_IS_SUBBYTE_TYPE_PADDED,
    FLAG_READ_ONLY,
    MAX_NDIM,
    DLDataTypeCode,
    DLDeviceType,
)

__all__ = [
    "DLPACK_VERSION",
    "FLAG_IS_COPIED",
    "FLAG_IS_SUBBYTE_TYPE_PADDED",
    "FLAG_READ_ONLY",
    "MAX_NDIM",
    "CapsuleLender",
    "CapsuleType",
    "DLDataTypeCode",
    "DLDeviceType",
    "ImportedTensor",
    "TensorInfo",
    "armed",
    "capsule_name",
    "consume_capsule",
    "contiguous_strides",
    "retarget_capsule",
    "use_host_consumer",
]
