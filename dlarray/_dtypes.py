"""Data type objects: the Array API dtypes, plus float16, bfloat16 and DLPack's float8/6/4 codes.

Each dtype is a singleton, compared by identity and hashable. Those numpy can compute with carry
the matching numpy dtype; the others (bfloat16, float8/6/4) are metadata only: arrays of them can
be held, viewed, indexed and handed on through DLPack, not computed with.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from ._dlpack import DLDataTypeCode as _Code


class DType:
    """An element type: one of the dtype objects ``dlarray.float32``, ``dlarray.bfloat16``, ...

    Each dtype is a singleton: compare with ``is`` or ``==``, use as a dictionary key, pickle it.
    Users never construct one; ``str(dtype)`` is its name. numpy reads it as its own dtype
    (``np.dtype(xp.float32)``, numpy 2.4 and later), and the attributes that share a name with
    numpy's dtype attributes mean what numpy's mean, so code written for numpy dtypes reads
    dlarray's the same way.

    Attributes
    ----------
    name : str
        The Array API (or DLPack) name, e.g. ``"float32"``, ``"bfloat16"``; numpy's name too.
    category : str
        What the Array API calls the dtype's kind (the names ``isdtype`` takes): ``"bool"``,
        ``"signed integer"``, ``"unsigned integer"``, ``"real floating"``, ``"complex floating"``
        (float16 included, as in numpy and torch) or, for the types numpy lacks (bfloat16,
        float8/6/4), ``"extended floating"``.
    code : DLDataTypeCode
        The DLPack type code (an `IntEnum` member).
    bits : int
        Bits per element.
    itemsize : int
        Bytes per element, as numpy says (sub-byte types round up to one byte).
    kind, char, str, byteorder : str
        numpy's: ``xp.float64.kind == "f"``, ``.char == "d"``, ``.str == "<f8"``. The types numpy
        lacks describe themselves as numpy describes raw bytes of their size (``np.dtype("V2")``:
        kind ``"V"``), which is what numpy code takes them for: not numbers it computes with.
    type : type
        numpy's scalar type (``xp.float64.type is np.float64``; ``numpy.void`` for the types numpy
        lacks).
    numpy_dtype : numpy.dtype or None
        The numpy dtype numpy computes this type with; None for types numpy lacks (bfloat16,
        float8/6/4), which are held and exchanged but not computed with.

    Examples
    --------
    >>> import numpy as np
    >>> import dlarray as xp
    >>> xp.float32.name, xp.float32.bits, xp.float32.category
    ('float32', 32, 'real floating')
    >>> xp.float64.kind, xp.float64.char, xp.float64.itemsize
    ('f', 'd', 8)
    >>> np.dtype(xp.float64) == np.float64
    True
    >>> xp.asarray([1.0]).dtype is xp.float64
    True
    >>> xp.bfloat16.code, xp.bfloat16.numpy_dtype, xp.bfloat16.kind
    (<DLDataTypeCode.BFLOAT: 4>, None, 'V')
    """

    __slots__ = (
        "name", "code", "bits", "category", "numpy_dtype", "itemsize", "kind", "char", "str",
        "byteorder", "type", "_hash", "_index", "__weakref__",
    )

    def __init__(self, name: str, code: int, bits: int, category: str, numpy_dtype: Any) -> None:
        self.name = name
        self.code = code
        self.bits = bits
        self.category = category
        self.numpy_dtype = numpy_dtype
        # numpy's description, or that of raw bytes of this size for the types numpy lacks
        described = numpy_dtype if numpy_dtype is not None else np.dtype(f"V{max(bits // 8, 1)}")
        self.itemsize: int = described.itemsize
        self.kind: str = described.kind
        self.char: str = described.char
        self.str: str = described.str
        self.byteorder: str = described.byteorder
        self.type: type = described.type
        # numpy's dtype compares equal to this one (it reads __numpy_dtype__), so both hash alike
        self._hash = hash(numpy_dtype) if numpy_dtype is not None else object.__hash__(self)

    @property
    def __numpy_dtype__(self) -> np.dtype:
        """numpy's dtype for this one: what ``np.dtype(d)`` returns (numpy 2.4 and later).

        The types numpy lacks give ml_dtypes' dtype of that name where ml_dtypes is installed;
        without it (or a type it lacks) TypeError.

        Examples
        --------
        >>> import numpy as np
        >>> import dlarray as xp
        >>> np.dtype(xp.int16)
        dtype('int16')
        >>> np.zeros(2, dtype=xp.float32).dtype
        dtype('float32')
        """
        if self.numpy_dtype is not None:
            return self.numpy_dtype
        try:
            import ml_dtypes  # on first need: numpy's dtypes for these come from it
        except ImportError:
            raise TypeError(f"numpy has no {self.name} dtype; installing ml_dtypes gives it one") from None
        found = getattr(ml_dtypes, self.name, None)
        if found is None:
            raise TypeError(f"numpy has no {self.name} dtype, nor has ml_dtypes {ml_dtypes.__version__}")
        return np.dtype(found)

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"dlarray.{self.name}"

    def __str__(self) -> str:
        return self.name

    def __reduce__(self) -> str:
        return self.name  # pickles as the module attribute of that name

    def __copy__(self) -> DType:
        return self

    def __deepcopy__(self, memo: Any) -> DType:
        return self


def _make(name: str, code: int, bits: int, category: str, numpy_name: str | None) -> DType:
    return DType(name, code, bits, category, np.dtype(numpy_name) if numpy_name else None)


bool = _make("bool", _Code.BOOL, 8, "bool", "bool")
int8 = _make("int8", _Code.INT, 8, "signed integer", "int8")
int16 = _make("int16", _Code.INT, 16, "signed integer", "int16")
int32 = _make("int32", _Code.INT, 32, "signed integer", "int32")
int64 = _make("int64", _Code.INT, 64, "signed integer", "int64")
uint8 = _make("uint8", _Code.UINT, 8, "unsigned integer", "uint8")
uint16 = _make("uint16", _Code.UINT, 16, "unsigned integer", "uint16")
uint32 = _make("uint32", _Code.UINT, 32, "unsigned integer", "uint32")
uint64 = _make("uint64", _Code.UINT, 64, "unsigned integer", "uint64")
# float16 is real floating, as in numpy and torch (consumers such as SciPy take it by its kind); the
# standard does not name it, so the inspection API does not list it
float16 = _make("float16", _Code.FLOAT, 16, "real floating", "float16")
float32 = _make("float32", _Code.FLOAT, 32, "real floating", "float32")
float64 = _make("float64", _Code.FLOAT, 64, "real floating", "float64")
complex64 = _make("complex64", _Code.COMPLEX, 64, "complex floating", "complex64")
complex128 = _make("complex128", _Code.COMPLEX, 128, "complex floating", "complex128")
bfloat16 = _make("bfloat16", _Code.BFLOAT, 16, "extended floating", None)
float8_e3m4 = _make("float8_e3m4", _Code.FLOAT8_E3M4, 8, "extended floating", None)
float8_e4m3 = _make("float8_e4m3", _Code.FLOAT8_E4M3, 8, "extended floating", None)
float8_e4m3b11fnuz = _make("float8_e4m3b11fnuz", _Code.FLOAT8_E4M3B11FNUZ, 8, "extended floating", None)
float8_e4m3fn = _make("float8_e4m3fn", _Code.FLOAT8_E4M3FN, 8, "extended floating", None)
float8_e4m3fnuz = _make("float8_e4m3fnuz", _Code.FLOAT8_E4M3FNUZ, 8, "extended floating", None)
float8_e5m2 = _make("float8_e5m2", _Code.FLOAT8_E5M2, 8, "extended floating", None)
float8_e5m2fnuz = _make("float8_e5m2fnuz", _Code.FLOAT8_E5M2FNUZ, 8, "extended floating", None)
float8_e8m0fnu = _make("float8_e8m0fnu", _Code.FLOAT8_E8M0FNU, 8, "extended floating", None)
float6_e2m3fn = _make("float6_e2m3fn", _Code.FLOAT6_E2M3FN, 6, "extended floating", None)
float6_e3m2fn = _make("float6_e3m2fn", _Code.FLOAT6_E3M2FN, 6, "extended floating", None)
float4_e2m1fn = _make("float4_e2m1fn", _Code.FLOAT4_E2M1FN, 4, "extended floating", None)

#: The ``DType.category`` of the integer dtypes.
INTEGER_KINDS = frozenset({"signed integer", "unsigned integer"})
# The Python scalar types the standard takes beside Arrays (bool first: it is an int subclass).
PYTHON_SCALARS: tuple[type, ...] = (builtins.bool, int, float, complex)  # this module's bool is the dtype

#: Every dtype, Array API ones first.
ALL_DTYPES: tuple[DType, ...] = (
    bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64,
    complex64, complex128, float16, bfloat16, float8_e3m4, float8_e4m3, float8_e4m3b11fnuz,
    float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz, float8_e8m0fnu,
    float6_e2m3fn, float6_e3m2fn, float4_e2m1fn,
)
for _position, _dtype in enumerate(ALL_DTYPES):
    # a small int per dtype: what a per-dtype table on a hot path is indexed by (a list, no hashing)
    _dtype._index = _position
#: The dtypes the Array API standard names.
ARRAY_API_DTYPES: tuple[DType, ...] = ALL_DTYPES[:13]

BY_DLPACK: dict[tuple[int, int], DType] = {(d.code, d.bits): d for d in ALL_DTYPES}
BY_NAME: dict[str, DType] = {d.name: d for d in ALL_DTYPES}
BY_NUMPY: dict[Any, DType] = {d.numpy_dtype: d for d in ALL_DTYPES if d.numpy_dtype is not None}
# numpy's scalar types too, so that np.float32 and np.dtype("float32") both resolve
BY_NUMPY.update({d.numpy_dtype.type: d for d in ALL_DTYPES if d.numpy_dtype is not None})


def from_numpy_dtype(numpy_dtype: Any) -> DType:
    """The dlarray dtype of a numpy dtype (ml_dtypes' included); TypeError for one outside the set."""
    found = BY_NUMPY.get(numpy_dtype)
    if found is None:
        described = np.dtype(numpy_dtype)
        found = BY_NUMPY.get(described.newbyteorder("="))
        if found is None:
            found = extended_of_numpy(described)
        if found is None or not described.isnative:
            raise TypeError(f"numpy dtype {described} has no dlarray equivalent")
    return found


def extended_of_numpy(numpy_dtype: np.dtype) -> DType | None:
    """The dtype numpy lacks that ml_dtypes' ``numpy_dtype`` stands for (bfloat16, float8...)."""
    scalar_type = numpy_dtype.type
    if getattr(scalar_type, "__module__", None) != "ml_dtypes":
        return None
    found = BY_NAME.get(scalar_type.__name__)
    return found if found is not None and found.numpy_dtype is None else None


def from_dlpack_code(code: int, bits: int) -> DType:
    """The dtype of a DLPack ``(code, bits)`` pair (validated by the core already)."""
    return BY_DLPACK[(code, bits)]


def as_dtype(value: Any) -> DType:
    """Resolve a dtype argument: a DType, a name, or a numpy dtype/type; TypeError otherwise."""
    if type(value) is DType:
        return value
    if isinstance(value, str) and value in BY_NAME:
        return BY_NAME[value]
    try:
        return from_numpy_dtype(value)
    except Exception:
        raise TypeError(f"{value!r} is not a dlarray dtype") from None
