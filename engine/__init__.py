"""Qt-free decipherment engine: data, phonology, model, training, evaluation, project store, CLI."""

__version__ = "0.1.0"
