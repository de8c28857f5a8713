"""Widgets only: the main window, the document list, previews, the tray. Logic lives in core and services."""
