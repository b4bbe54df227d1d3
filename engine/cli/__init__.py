"""The command line (`decipher`): one module per command group; nothing else in engine/ imports it."""

from engine.cli.main import main

__all__ = ["main"]
