"""Benchmark workloads and the baseline formulation our speed is measured against."""

import engine  # noqa: F401  (sets torch's thread wait policy before torch is first imported)
