"""Runs and their processes: the arbiter (one run at a time), a run, process handling."""
