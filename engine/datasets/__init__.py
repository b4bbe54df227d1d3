"""Builders of lost-language datasets from public corpora (docs/datasets.md): ``gothic``."""
