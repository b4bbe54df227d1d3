"""The dockable panels of the main window, one module each."""
