"""Set Functions (Array API "Set Functions")."""

from __future__ import annotations

__all__: list[str] = []
