"""The workload picker (screen.py: PickerScreen) and the plain objects it calls: its reads, its verdict queue, the
refresh's pacing and what moved since the last read."""
