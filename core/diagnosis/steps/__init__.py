"""The seed's five steps, one module each: functions that take what their step needs and return what it found.

resolve (Step 1), inspect (Step 2), history (Step 3), conditional (Step 4: the gates and metrics) and
kubernetes (Step 4: the Tier 2 reads), classify (Step 5). They keep no state between calls and return frozen
records; the orchestrator (core/diagnosis/orchestrator.py) decides which steps' reads run beside which and
applies the seed's gates between them. Inside a step, reads of one kind run together (a workload and its
events, a batch of candidates, a run's metrics queries).
"""
