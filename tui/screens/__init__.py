"""Screens: main (run, log, GPUs, checklist), profiles, history, brief, help, nodes, dialogs."""
