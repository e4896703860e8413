"""Runs last (see conftest): no request other than GET and the two token POSTs reached any simulator."""

from __future__ import annotations

import pytest

from core.sim import audit


def test_no_write_request_reached_any_simulator(request: pytest.FixtureRequest) -> None:
    requests = audit.all_requests()
    if len(request.session.items) > 50:
        # In a full run the suite drives the simulators hard; an audit over nothing would prove nothing.
        assert len(requests) > 100
    assert audit.write_violations() == []
    assert not [r for r in requests if "/secrets" in r.path]
