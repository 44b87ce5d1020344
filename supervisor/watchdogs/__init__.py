"""Watchdogs of a run: phase deadlines, silence + activity (hangs), the health probe."""
