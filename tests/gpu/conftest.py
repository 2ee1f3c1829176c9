"""GPU tests: they run only where CUDA works with torch and cupy, and skip cleanly elsewhere."""

from __future__ import annotations

import pytest


def _cuda_unavailable() -> str | None:
    try:
        import cupy
        import torch
    except ImportError as missing:
        return f"needs torch and cupy with CUDA ({missing.name} is not installed)"
    if not torch.cuda.is_available():
        return "needs a CUDA GPU (torch.cuda.is_available() is False)"
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return "needs a CUDA GPU (cupy sees none)"
    except Exception as error:  # noqa: BLE001 - cupy raises its own CUDA errors without a driver
        return f"needs a CUDA GPU (cupy: {error})"
    return None


REASON = _cuda_unavailable()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if REASON is None:
        return
    skip = pytest.mark.skip(reason=REASON)
    for item in items:
        if "tests/gpu/" in item.nodeid.replace("\\", "/"):
            item.add_marker(skip)
