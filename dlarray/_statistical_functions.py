"""Statistical Functions (Array API "Statistical Functions")."""

from __future__ import annotations

__all__: list[str] = []
