"""Benchmark scripts (run by hand: `python -m tests.benchmarks.<name>`); they print ratios, never assert time."""
