"""Searching Functions (Array API "Searching Functions")."""

from __future__ import annotations

__all__: list[str] = []
