"""Runs: one session per run and its sinks, output folders, worker pools, sweeps, seeds and their consensus."""
