"""Pydantic models for what the Run:ai control plane and the Kubernetes API return."""
