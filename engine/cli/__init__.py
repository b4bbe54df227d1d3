"""The command line (`decipher`, `python -m engine.cli`): one module per command group, the entry point
being `engine.cli.main:main`; nothing else in engine/ imports it."""
