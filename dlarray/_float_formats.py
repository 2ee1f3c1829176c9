"""The floating-point formats numpy lacks (bfloat16, float8, float6, float4): limits and conversion.

Each format is described by its exponent and mantissa widths, its exponent bias and the use of its
top exponent. Conversions go through lookup tables built from that description:

* decoding (format -> float32) is exact: every value of these formats is a float32;
* encoding (float32 -> format) rounds to nearest, ties to even. Wider inputs are rounded to
  float32 first, and out-of-range values, infinities and NaNs map as ml_dtypes (and so JAX) maps
  them, bit for bit: to infinity where the format has one, else to NaN, else (float6/float4, which
  have neither) to the largest finite value; a NaN becomes a zero there. One deliberate
  difference: float8_e8m0fnu rounds float32 subnormals to the nearest power of two, where ml_dtypes
  rounds every one above 2**-127 up to 2**-126.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from ._dtypes import DType


class Format(NamedTuple):
    """Layout of a floating-point format.

    ``style`` says how the top exponent is used: ``"ieee"`` (infinities and NaNs), ``"fn"`` (no
    infinity; only the all-ones pattern is NaN), ``"fnuz"`` (no infinity, no negative zero: its
    pattern is the NaN), ``"finite"`` (neither infinity nor NaN), ``"e8m0"`` (an unsigned exponent
    with no mantissa; the all-ones pattern is NaN).
    """

    exponent_bits: int
    mantissa_bits: int
    bias: int
    style: str


FORMATS: dict[str, Format] = {
    "bfloat16": Format(8, 7, 127, "ieee"),
    "float8_e3m4": Format(3, 4, 3, "ieee"),
    "float8_e4m3": Format(4, 3, 7, "ieee"),
    "float8_e4m3b11fnuz": Format(4, 3, 11, "fnuz"),
    "float8_e4m3fn": Format(4, 3, 7, "fn"),
    "float8_e4m3fnuz": Format(4, 3, 8, "fnuz"),
    "float8_e5m2": Format(5, 2, 15, "ieee"),
    "float8_e5m2fnuz": Format(5, 2, 16, "fnuz"),
    "float8_e8m0fnu": Format(8, 0, 127, "e8m0"),
    "float6_e2m3fn": Format(2, 3, 1, "finite"),
    "float6_e3m2fn": Format(3, 2, 3, "finite"),
    "float4_e2m1fn": Format(2, 1, 1, "finite"),
}


def format_of(dtype: DType) -> Format:
    """The layout of one of the extra floating-point dtypes; TypeError for any other dtype."""
    try:
        return FORMATS[dtype.name]
    except KeyError:
        raise TypeError(f"{dtype} is not one of the extra floating-point formats") from None


def limits(dtype: DType) -> tuple[float, float, float, float]:
    """``(eps, max, min, smallest_normal)`` of an extra floating-point dtype."""
    exponent_bits, mantissa_bits, bias, style = format_of(dtype)
    top = 2**exponent_bits - 1  # the all-ones exponent code
    if style == "e8m0":
        smallest = math.ldexp(1.0, -bias)
        return 1.0, math.ldexp(1.0, top - 1 - bias), smallest, smallest
    if style == "ieee":
        largest = (2.0 - math.ldexp(1.0, -mantissa_bits)) * math.ldexp(1.0, top - 1 - bias)
    elif style == "fn":
        largest = (2.0 - math.ldexp(1.0, 1 - mantissa_bits)) * math.ldexp(1.0, top - bias)
    else:  # "fnuz", "finite": the top exponent holds ordinary numbers
        largest = (2.0 - math.ldexp(1.0, -mantissa_bits)) * math.ldexp(1.0, top - bias)
    return math.ldexp(1.0, -mantissa_bits), largest, -largest, math.ldexp(1.0, 1 - bias)


# ---------------------------------------------------------------------------------- decoding
@functools.cache
def decode_table(dtype: DType) -> np.ndarray:
    """float32 value of every bit pattern of ``dtype`` (index: the pattern)."""
    exponent_bits, mantissa_bits, bias, style = format_of(dtype)
    codes = np.arange(2**dtype.bits, dtype=np.int64)
    if style == "e8m0":
        values = np.ldexp(1.0, codes - bias)
        values[-1] = np.nan
        return values.astype(np.float32)
    top = 2**exponent_bits - 1
    mantissa_mask = 2**mantissa_bits - 1
    negative = (codes >> (exponent_bits + mantissa_bits)) & 1 == 1
    exponent = (codes >> mantissa_bits) & top
    mantissa = codes & mantissa_mask
    magnitude = np.where(
        exponent == 0,
        np.ldexp(mantissa.astype(np.float64), 1 - bias - mantissa_bits),  # subnormals
        np.ldexp((mantissa + 2**mantissa_bits).astype(np.float64), exponent - bias - mantissa_bits),
    )
    if style == "ieee":
        magnitude = np.where(exponent == top, np.where(mantissa == 0, np.inf, np.nan), magnitude)
    elif style == "fn":
        magnitude = np.where((exponent == top) & (mantissa == mantissa_mask), np.nan, magnitude)
    values = np.where(negative, -magnitude, magnitude)
    if style == "fnuz":
        values[1 << (exponent_bits + mantissa_bits)] = -np.nan  # the negative-zero pattern
    return values.astype(np.float32)


def decode(bits: np.ndarray, dtype: DType) -> np.ndarray:
    """The float32 values of an array of ``dtype`` bit patterns (unsigned integers)."""
    if dtype.bits == 16:  # bfloat16: the top half of a float32
        return (bits.astype(np.uint32) << 16).view(np.float32)
    return decode_table(dtype)[bits]


# ---------------------------------------------------------------------------------- encoding
class _Encoder(NamedTuple):
    values: np.ndarray  # the finite non-negative values, ascending (float64)
    codes: np.ndarray  # their bit patterns
    overflow_threshold: float  # magnitudes above this overflow; equal to it: round to even
    overflow_code: int  # pattern (without sign) of an overflow
    nan_code: int  # pattern (without sign) of a NaN
    sign_bit: int  # 0 for the unsigned e8m0 format


@functools.cache
def _encoder(dtype: DType) -> _Encoder:
    fmt = format_of(dtype)
    table = decode_table(dtype).astype(np.float64)
    if fmt.style == "e8m0":
        codes = np.arange(255)
        sign_bit = 0
    else:
        sign_bit = 1 << (fmt.exponent_bits + fmt.mantissa_bits)
        codes = np.arange(sign_bit)
        codes = codes[np.isfinite(table[codes])]
    values = table[codes]
    largest = values[-1]
    # The value after the largest, as if the exponent went on: one more step of the same binade,
    # or (e8m0, no mantissa) the next power of two.
    following = 2 * largest if fmt.style == "e8m0" else 2 * largest - values[-2]
    top = 2**fmt.exponent_bits - 1
    if fmt.style == "ieee":
        infinity = top << fmt.mantissa_bits
        quiet_nan = infinity | (1 << (fmt.mantissa_bits - 1))
        overflow = infinity
    elif fmt.style == "finite":  # no NaN: ml_dtypes makes it a zero; overflow saturates
        quiet_nan = 0
        overflow = int(codes[-1])
    else:  # "fn" (all ones), "fnuz" (the negative-zero pattern), "e8m0" (all ones)
        quiet_nan = {"fn": sign_bit - 1, "fnuz": sign_bit, "e8m0": 255}[fmt.style]
        overflow = quiet_nan
    return _Encoder(values, codes.astype(np.int64), (largest + following) / 2, overflow, quiet_nan, sign_bit)


def encode(values: np.ndarray, dtype: DType) -> np.ndarray:
    """Bit patterns (unsigned integers of the element width) of ``values`` rounded to ``dtype``."""
    fmt = format_of(dtype)
    enc = _encoder(dtype)
    with np.errstate(over="ignore"):  # beyond float32: infinity, then the format's overflow
        single = np.asarray(values, dtype=np.float32)
    negative = np.signbit(single)
    magnitude = np.abs(single).astype(np.float64)
    nan = np.isnan(magnitude)
    table = enc.values
    upper = np.clip(np.searchsorted(table, magnitude), 1, len(table) - 1)
    below = table[upper - 1]
    above = table[upper]
    up = magnitude - below > above - magnitude
    tie = magnitude - below == above - magnitude
    if fmt.style == "e8m0":
        up |= tie  # no mantissa: a tie rounds the implicit mantissa 1.5 up to 2
    else:
        up |= tie & (enc.codes[upper] % 2 == 0)
    codes = np.where(up, enc.codes[upper], enc.codes[upper - 1])
    codes = np.where(magnitude <= table[0], enc.codes[0], codes)
    largest_is_even = bool(enc.codes[-1] % 2 == 0) and fmt.style != "e8m0"  # a Python bool: `not`, never `~`
    overflow = (magnitude > enc.overflow_threshold) | ((magnitude == enc.overflow_threshold) & (not largest_is_even))
    codes = np.where(overflow, enc.overflow_code, codes)
    codes = np.where(nan, enc.nan_code, codes)
    if fmt.style == "e8m0":
        codes = np.where(negative | (magnitude == 0), enc.nan_code, codes)
    else:
        signed = negative
        if fmt.style == "fnuz":
            signed = negative & (codes != 0) & ~nan  # no negative zero; the NaN has its own bits
        elif fmt.style == "finite":
            signed = np.where(nan, ~negative, negative)  # ml_dtypes' zero for a NaN: sign flipped
        codes = np.where(signed, codes | enc.sign_bit, codes)
    return codes.astype(np.dtype(f"u{dtype.itemsize}"))
