"""PySide6 desktop front end of the decipherment workbench."""
