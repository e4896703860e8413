"""Suite-wide fixtures and the read-only audit over every simulated server the tests started."""

from __future__ import annotations

import pytest

AUDIT_TEST = "test_no_write_request_reached_any_simulator"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The audit reads the request logs of every other test, so it must run last.
    items.sort(key=lambda item: item.name == AUDIT_TEST)
