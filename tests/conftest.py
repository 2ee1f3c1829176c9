"""Shared test configuration: hypothesis profiles and the --run-slow switch."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

# "ci" (what make test uses) draws the same examples on every run, so that a green commit stays
# green on a clean clone; "thorough" (make test-thorough) explores new random examples each run,
# which is how new failing inputs are found (then pinned with @example).
settings.register_profile(
    "ci", max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=25, deadline=None)
settings.register_profile(
    "thorough", max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", help="run the long stress tests")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="long stress test: make stress runs it")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
