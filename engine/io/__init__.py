"""Importers and exporters of corpora, vocabularies, gold annotations, pins and reports."""
