"""Constants (Array API "Constants"), and the inspection namespace entry point."""

from __future__ import annotations

import math

from ._info import __array_namespace_info__

__all__ = ["e", "inf", "nan", "newaxis", "pi", "__array_namespace_info__"]

#: Euler's number, the base of natural logarithms.
e: float = math.e
#: Positive infinity (IEEE 754).
inf: float = math.inf
#: Not a Number (IEEE 754).
nan: float = math.nan
#: An alias for ``None``, for inserting a new axis when indexing.
newaxis = None
#: The ratio of a circle's circumference to its diameter.
pi: float = math.pi
