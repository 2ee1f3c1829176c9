"""Manipulation Functions (Array API "Manipulation Functions")."""

from __future__ import annotations

__all__: list[str] = []
