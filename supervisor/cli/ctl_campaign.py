"""``supervisor-ctl campaign run NAME [--wait] [--timeout S] | status | stop``: the parser and
the human output (ctl.py sends the request)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

# exit codes of `campaign run --wait` (DESIGN §13): completed 0, stopped on failure 1, timeout 3
EXIT_BY_STATUS = {"completed": 0, "timeout": 3}


def add_campaign_parser(add: Callable[[str, str], argparse.ArgumentParser]) -> None:
    s = add("campaign", "campaign plans (PROFILES/campaigns/NAME.toml): run NAME, status, stop")
    s.add_argument("action", choices=["run", "status", "stop"])
    s.add_argument("name", nargs="?", help="the campaign to run (or resume, when paused)")
    s.add_argument("--wait", action="store_true", help="block until the campaign ends")
    s.add_argument("--timeout", type=float, default=None, help="seconds to wait at most")


def request_args(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"action": args.action}
    if args.action == "run":
        if not args.name:
            raise ValueError("campaign run needs the campaign's NAME")
        out["name"] = args.name
        if args.wait:
            out.update(wait=True, timeout=args.timeout)
    return out


def exit_code(args: argparse.Namespace, res: dict[str, Any]) -> int:
    if args.action != "run" or not args.wait:
        return 0
    return EXIT_BY_STATUS.get(res.get("status", ""), 1)


def format_campaign(r: dict[str, Any]) -> str:
    if not r.get("campaign"):
        return "no campaign has run (supervisor-ctl campaign run NAME)"
    if r.get("status") not in ("running", "paused") and r.get("report"):
        return str(r["report"]).rstrip("\n")
    lines = [f"campaign {r['campaign']}: {r['status']}" +
             (f", at {r['current']}" if r.get("current") else ""), f"  {r.get('note') or ''}"]
    base = r.get("baseline") or {}
    if base:
        bench = base.get("benchmark") or {}
        spread = (bench.get("spread") or {}).get("tokens_per_s") or {}
        sd = f" +/- {spread['stdev']}" if spread.get("stdev") is not None else ""
        lines.append(f"  baseline {base['profile']}: {bench.get('tokens_per_s', '-')}{sd} tok/s"
                     + (f" ({base['drift']['text']})" if base.get("drift") else ""))
    for row in r.get("experiments") or []:
        rate = (row.get("benchmark") or {}).get("tokens_per_s")
        lines.append(f"  {row['name']}: {row['verdict']}"
                     + (f", {rate} tok/s" if rate is not None else "")
                     + (", within the noise" if (row.get("benchmark") or {}).get("within_noise")
                        else "")
                     + (f", culprit {', '.join(row['culprits'])}" if row.get("culprits") else "")
                     + f" -> {(row.get('branch') or {}).get('next') or 'end'}")
    return "\n".join(lines)
