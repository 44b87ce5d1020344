"""Human output of `supervisor-ctl group status`: the group, its ranks side by side, the
verdict with the root rank first and its consequences."""

from __future__ import annotations

from typing import Any

from .ctl_format import text


def format_group(r: dict[str, Any]) -> str:
    coord = r.get("coordination") or {}
    tail = (f"coordination: {coord.get('state')} (etcd {', '.join(coord.get('etcd') or [])}, "
            f"node {coord.get('node')})")
    if coord.get("problem"):
        tail += f"\n  {coord['problem']}"
    if not r.get("group"):
        return f"this node is in no launch group yet\n{tail}"
    out = [f"group {r['group']}: {text(r.get('profile'))} attempt {text(r.get('attempt'))} -> "
           f"{text(r.get('status'))} in {text(r.get('phase'))}"]
    for rank in r.get("ranks") or []:
        cause = f"  cause {rank['cause']}" if rank.get("cause") else ""
        pid = f"  pid {rank['pid']}" if rank.get("pid") else ""
        out.append(f"  rank {rank['rank']}  {rank['node']:<16} {text(rank.get('status')):<9} "
                   f"{text(rank.get('phase'))}{cause}{pid}")
    v = r.get("verdict")
    if v:
        out.append(f"verdict: rank {v['rank']} ({v['node']}) {text(v.get('status'))} in "
                   f"{text(v.get('phase'))}, cause {text(v.get('cause'))}")
        out += [f"  evidence: {e}" for e in v.get("evidence") or []]
        for c in v.get("consequences") or []:
            out.append(f"  consequence: rank {c['rank']}: {text(c.get('cause'))}")
    out.append(tail)
    return "\n".join(out)
