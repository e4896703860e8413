"""The simulated Run:ai control plane and Kubernetes API, served from case bundles."""
