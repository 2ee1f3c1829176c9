"""The Array API ``linalg`` extension."""

from __future__ import annotations

__all__: list[str] = []
