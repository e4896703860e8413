"""Triage across many workloads, Textual-free: which ones need attention (`attention`), diagnosing many at once
within an API politeness budget (`batch`), a whole window of failures (`scan`), verdicts kept per workload
and phase change (`verdicts`). The picker, `runai-triage scan` and the MCP server share it."""
