"""Utility Functions (Array API "Utility Functions")."""

from __future__ import annotations

__all__: list[str] = []
