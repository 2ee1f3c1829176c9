"""Data Type Functions (Array API "Data Type Functions")."""

from __future__ import annotations

__all__: list[str] = []
