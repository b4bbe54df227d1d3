"""Benchmark workloads and the baseline formulation our speed is measured against."""
