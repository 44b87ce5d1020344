"""supervisor-tui entry point (placeholder until the TUI lands)."""


def main() -> None:
    raise SystemExit("supervisor-tui: not built yet; use 'supervisor-ctl events -f'")
