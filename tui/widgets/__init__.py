"""Reusable widgets of the main screen; each carries its own DEFAULT_CSS."""
