"""Untrusted-text handling and the read-only guards."""
