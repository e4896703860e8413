"""Suite-wide fixtures and plugins: the read-only audit over every simulated server the tests started (see
tests/read_only_audit.py; it judges at the end of the session, also across pytest-xdist workers)."""

pytest_plugins = ["tests.read_only_audit"]
