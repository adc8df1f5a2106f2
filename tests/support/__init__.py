"""Helpers of the tests and benchmarks, never imported by orchestrator/ or
experiments/: testing.py (build dir, leftovers, machine-wide inventory,
sanitizer reports)."""
