"""Sorting Functions (Array API "Sorting Functions")."""

from __future__ import annotations

__all__: list[str] = []
