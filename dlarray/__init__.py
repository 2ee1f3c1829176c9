"""dlarray: an Array API namespace over any DLPack buffer, CPU or CUDA, in pure Python.

``dlarray.from_dlpack(x)`` holds a buffer from any framework without copying it and hands it on to
any other; the module itself is a complete Array API (2025.12) namespace.
"""

# (no ``from __future__ import annotations`` here: it would publish ``dlarray.annotations``)
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
from ._constants import *  # noqa: F401,F403
from ._creation_functions import *  # noqa: F401,F403
from ._data_type_functions import *  # noqa: F401,F403
from ._elementwise_functions import *  # noqa: F401,F403
from ._indexing_functions import *  # noqa: F401,F403
from ._linear_algebra_functions import *  # noqa: F401,F403
from ._manipulation_functions import *  # noqa: F401,F403
from ._searching_functions import *  # noqa: F401,F403
from ._set_functions import *  # noqa: F401,F403
from ._sorting_functions import *  # noqa: F401,F403
from ._statistical_functions import *  # noqa: F401,F403
from ._utility_functions import *  # noqa: F401,F403
from . import fft, linalg  # noqa: E402
from . import _operators  # noqa: E402,F401 - installs the Array's operators
