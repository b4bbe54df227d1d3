"""Benchmark workloads and the baseline formulation our speed is measured against (benchmarks/README.md)."""

import engine  # noqa: F401  (sets torch's thread wait policy before torch is first imported)
from benchmarks.commit import watch_results

watch_results()   # a benchmark run records the result files it writes, with its commit and command
