"""dlarray: an Array API namespace over any DLPack buffer, CPU or CUDA, in pure Python.

``dlarray.from_dlpack(x)`` holds a buffer from any framework without copying it and hands it on to
any other; the module itself is a complete Array API (2025.12) namespace.
"""

from __future__ import annotations

__version__ = "0.1.0"
__array_api_version__ = "2025.12"

from ._array import Array
from ._devices import Device
from ._dlpack import DLDeviceType, DLDataTypeCode
from ._dtypes import (
    DType,
    bfloat16,
    bool,
    complex64,
    complex128,
    float4_e2m1fn,
    float6_e2m3fn,
    float6_e3m2fn,
    float8_e3m4,
    float8_e4m3,
    float8_e4m3b11fnuz,
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e5m2,
    float8_e5m2fnuz,
    float8_e8m0fnu,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ._creation_functions import asarray, from_dlpack
