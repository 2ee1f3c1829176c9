"""Indexing Functions (Array API "Indexing Functions")."""

from __future__ import annotations

__all__: list[str] = []
