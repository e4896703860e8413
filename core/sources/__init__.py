"""Where evidence comes from: the Run:ai REST client (Tier 1) and the Kubernetes source (Tier 2)."""
