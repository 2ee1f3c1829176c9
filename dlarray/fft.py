"""The Array API ``fft`` extension."""

from __future__ import annotations

__all__: list[str] = []
