"""The control protocol: wire format (shared by daemon, ctl and TUI), server, client."""
