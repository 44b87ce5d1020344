"""Fallback logic without processes: ddmin/isolation over fake oracles, remedy selection, and
``plan_attempts`` driven by a fake arbiter (each attempt's outcome decided by a function)."""

from __future__ import annotations

import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest

from supervisor.fallback import plan_attempts
from supervisor.fallback.isolate import ddmin, run_isolation
from supervisor.fallback.remedies import build_remedy, is_relevant, next_remedy, reported_fit
from supervisor.profiles import ProfileSet, ResolvedProfile
from supervisor.states import Cause, Phase, Status

# -- ddmin / isolation ------------------------------------------------------------------------

def _oracle(culprits: set[str], together: bool = False) -> tuple[Callable, list]:
    calls: list[tuple[str, ...]] = []

    def failed(subset: tuple[str, ...]) -> bool:
        calls.append(tuple(subset))
        return culprits <= set(subset) if together else bool(culprits & set(subset))
    return failed, calls


def test_two_changes_one_culprit_each_alone() -> None:
    failed, calls = _oracle({"B"})
    res = run_isolation(["A", "B"], failed)
    assert res.complete and res.culprits == ["B"] and res.good == ["A"]
    assert calls == [("A",), ("B",)]          # A alone, B alone, verdict


def test_two_changes_that_only_fail_together() -> None:
    failed, calls = _oracle({"A", "B"}, together=True)
    res = run_isolation(["A", "B"], failed)
    assert res.culprits == ["A", "B"]
    assert calls == [("A",), ("B",)]
    assert len(res.good) == 1                  # one of them alone is known to work


def test_four_changes_two_culprits_found() -> None:
    failed, calls = _oracle({"B", "D"})
    res = run_isolation(["A", "B", "C", "D"], failed)
    assert res.complete and res.culprits == ["B", "D"] and res.good == ["A", "C"]
    assert len(calls) == len(set(calls))       # never the same launch twice
    assert ("A", "B", "C", "D") not in calls    # the failing full set is known
    assert calls[-1] == ("A", "C")              # the last test is the good combination


def test_many_changes_interacting_pair() -> None:
    items = [f"c{i}" for i in range(8)]
    failed, calls = _oracle({"c2", "c6"}, together=True)
    res = run_isolation(items, failed)
    assert res.culprits == ["c2", "c6"]
    assert not failed(tuple(res.good))
    assert len(calls) < 2 ** len(items)


def test_plain_ddmin_is_one_minimal() -> None:
    items = list("abcdefgh")
    out = ddmin(items, lambda s: {"c", "f"} <= set(s))
    assert out == ["c", "f"]
    assert ddmin(items, lambda s: "e" in s) == ["e"]


def test_isolation_budget_respected() -> None:
    failed, calls = _oracle({"B", "D"})
    res = run_isolation(["A", "B", "C", "D"], failed, budget=3)
    assert len(calls) == 3
    assert not res.complete
    assert res.culprits == ["B"]               # suspects so far: seen failing alone
    assert res.good == ["A"]                   # largest subset seen working
    res0 = run_isolation(["A", "B"], failed, budget=0)
    assert not res0.complete and res0.good == [] and len(calls) == 3


# -- remedies ---------------------------------------------------------------------------------

def _profiles(tmp_path: Path, body: str, version: str | None = None,
              extra: dict[str, str] | None = None) -> ProfileSet:
    ver = f'version = "{version}"\n' if version else ""
    (tmp_path / "p.toml").write_text(textwrap.dedent(f"""\
        engine = "sglang"
        [launch]
        model = "/m"
        port = 30000
        {ver}""") + body)
    for name, text in (extra or {}).items():
        (tmp_path / f"{name}.toml").write_text(text)
    pset = ProfileSet.load_dir(tmp_path)
    assert not pset.errors, pset.errors
    return pset


ARGS = 'args = { tp-size = 2, mem-fraction-static = 0.62, enable-torch-compile = true }\n'


def test_remedy_relevance_by_cause_and_phase() -> None:
    assert is_relevant("lower_mem_fraction", "cuda_oom", "cuda_graph_capture")
    assert is_relevant("lower_mem_fraction", "cuda_oom", "kv_cache_alloc")
    assert not is_relevant("lower_mem_fraction", "cuda_oom", "weight_loading")
    assert is_relevant("disable_custom_all_reduce", "custom_allreduce_error")
    assert is_relevant("nccl_p2p_disable", "nccl_error")
    assert not is_relevant("nccl_p2p_disable", "cuda_oom", "cuda_graph_capture")
    assert is_relevant("triton_attention", "unsupported_arch")
    assert is_relevant("disable_custom_all_reduce", "unknown", "cuda_graph_capture", "hung")
    assert not is_relevant("disable_cuda_graph", "import_error", "launch")


def test_remedy_changes_use_version_aware_flags(tmp_path: Path) -> None:
    new = _profiles(tmp_path, ARGS, version="0.5.23").resolve("p")
    old_dir = tmp_path / "old"
    old_dir.mkdir()
    old = _profiles(old_dir, ARGS, version="0.5.5").resolve("p")
    assert build_remedy("smaller_cuda_graph_bs", new).args_dict() == {
        "cuda-graph-max-bs-decode": 16}
    assert build_remedy("smaller_cuda_graph_bs", old).args_dict() == {"cuda-graph-max-bs": 16}
    assert build_remedy("lower_mem_fraction", new).args_dict() == {"mem-fraction-static": 0.57}
    assert build_remedy("disable_torch_compile", new).args_dict() == {
        "enable-torch-compile": False}
    assert build_remedy("nccl_p2p_disable", new).env_dict() == {"NCCL_P2P_DISABLE": "1"}
    assert build_remedy("triton_attention", new).args_dict() == {
        "attention-backend": "triton", "sampling-backend": "pytorch"}
    assert build_remedy("disable_cuda_graph", new).args_dict() == {"disable-cuda-graph": True}


def test_next_remedy_order_filter_and_last(tmp_path: Path) -> None:
    pset = _profiles(tmp_path, ARGS)
    p = pset.resolve("p")
    allowed = ["disable_cuda_graph", "nccl_p2p_disable", "lower_mem_fraction",
               "smaller_cuda_graph_bs"]
    cause, phase = "cuda_oom", "cuda_graph_capture"
    assert next_remedy(allowed, [], p, cause, phase)[0] == "lower_mem_fraction"
    assert next_remedy(allowed, ["lower_mem_fraction"], p, cause, phase)[0] == \
        "smaller_cuda_graph_bs"
    # disable_cuda_graph comes last whatever its place in the list
    assert next_remedy(allowed, ["lower_mem_fraction", "smaller_cuda_graph_bs"], p, cause,
                       phase)[0] == "disable_cuda_graph"
    # every remedy tried once: further mem steps
    assert next_remedy(allowed, ["lower_mem_fraction", "smaller_cuda_graph_bs",
                                 "disable_cuda_graph"], p, cause, phase)[0] == \
        "lower_mem_fraction"
    # not listed in the profile: never used; an OOM in weight loading has no remedy here
    assert next_remedy(["nccl_p2p_disable"], [], p, cause, phase) is None
    assert next_remedy(allowed, [], p, cause, "weight_loading") is None


# -- plan_attempts with a fake arbiter ----------------------------------------------------------

class FakeChecklist:
    def __init__(self) -> None:
        self.items: dict[str, dict[str, Any]] = {}

    def set_key(self, key: str, status: Any, evidence: list[str] | None = None,
                title: str | None = None, run_id: int | None = None) -> int:
        self.items[key] = {"status": str(status), "evidence": evidence or [],
                           "title": title or self.items.get(key, {}).get("title", key)}
        return len(self.items)


def _run(rid: int, profile: ResolvedProfile, ok: bool, cause: str | None = None,
         phase: str = "cuda_graph_capture") -> SimpleNamespace:
    return SimpleNamespace(id=rid, profile=profile, status=Status.READY if ok else Status.CRASHED,
                           phase=Phase.READY if ok else Phase(phase),
                           cause=Cause(cause) if cause else None, evidence=["boom"])


def _drive(pset: ProfileSet, name: str, outcome: Callable[[ResolvedProfile], tuple],
           started: float | None = None) -> tuple[list[ResolvedProfile], list[str], SimpleNamespace]:
    """Run plan_attempts to the end; ``outcome(profile) -> (ok, cause, phase)``."""
    first = pset.resolve(name)
    arb = SimpleNamespace(profiles=pset, checklist=FakeChecklist(), current=None)
    req = SimpleNamespace(id=1, started=started or time.time(), culprits=[], notes=[])
    ok, cause, phase = outcome(first)
    failed = _run(1, first, ok, cause, phase)
    arb.current = failed
    launched: list[ResolvedProfile] = []
    reasons: list[str] = []

    async def main() -> None:
        async for attempt in plan_attempts(arb, req, first, failed):
            launched.append(attempt.profile)
            reasons.append(attempt.reason)
            ok, cause, phase = outcome(attempt.profile)
            arb.current = _run(len(launched) + 1, attempt.profile, ok, cause, phase)
            attempt.result = ok

    anyio.run(main)
    req.checklist = arb.checklist.items
    return launched, reasons, req


def test_remedies_step_mem_fraction_then_serve(tmp_path: Path) -> None:
    pset = _profiles(tmp_path, ARGS + textwrap.dedent("""\
        [fallback]
        strategy = "remedies"
        remedies = ["lower_mem_fraction"]
        max_attempts = 6
        """))

    def outcome(p: ResolvedProfile) -> tuple:
        frac = p.args_dict()["mem-fraction-static"]
        return (frac <= 0.52, None if frac <= 0.52 else "cuda_oom", "cuda_graph_capture")

    launched, reasons, req = _drive(pset, "p", outcome)
    assert [p.args_dict()["mem-fraction-static"] for p in launched] == [0.57, 0.52]
    assert reasons == ["remedy lower_mem_fraction (cause cuda_oom)"] * 2
    assert launched[-1].changes == ("lower_mem_fraction",)
    assert req.checklist["req1:remedy:2:lower_mem_fraction"]["status"] == "done"
    assert req.checklist["req1:start"]["status"] == "done"


def test_a_memory_reservation_refused_at_launch_is_retried_smaller(tmp_path: Path) -> None:
    """vLLM refuses to start when free memory is below gpu-memory-utilization (the real log
    tests/fixtures/real-engines/r02: cuda_oom in launch); a weight that does not fit (cuda_oom
    in weight_loading) is not something a smaller reservation fixes."""
    (tmp_path / "v.toml").write_text(textwrap.dedent("""\
        engine = "vllm"
        [launch]
        model = "/m"
        args = { gpu-memory-utilization = 0.92 }
        [fallback]
        strategy = "remedies"
        remedies = ["lower_mem_fraction", "disable_cuda_graph"]
        max_attempts = 4
        """))
    pset = ProfileSet.load_dir(tmp_path)

    def outcome(p: ResolvedProfile) -> tuple:
        util = p.args_dict()["gpu-memory-utilization"]
        return (util <= 0.87, None if util <= 0.87 else "cuda_oom", "launch")

    launched, reasons, _ = _drive(pset, "v", outcome)
    assert [p.args_dict()["gpu-memory-utilization"] for p in launched] == [0.87]
    assert reasons == ["remedy lower_mem_fraction (cause cuda_oom)"]

    def weights(p: ResolvedProfile) -> tuple:
        return (False, "cuda_oom", "weight_loading")

    launched, _, req = _drive(pset, "v", weights)
    assert launched == [] and any("remed" in n for n in req.notes), req.notes


# vLLM's refusal lines as the CPU build (real log r02) and the GPU build print them
CPU_REFUSAL = ("(VllmWorker-0 pid=20773) ERROR 12-01 15:47:16 [multiproc_executor.py:953] "
               "ValueError: Available memory on node 0 (8.35/10.46 GiB) on startup is less than "
               "desired CPU memory utilization (0.99, 10.36 GiB). On the CPU backend, ...")
GPU_REFUSAL = ("ValueError: Free memory on device (62.3/79.19 GiB) on startup is less than "
               "desired GPU memory utilization (0.9, 71.27 GiB). Decrease GPU memory "
               "utilization or reduce GPU memory used by other processes.")


def test_the_fraction_that_fits_is_read_from_the_engines_refusal() -> None:
    assert reported_fit([CPU_REFUSAL]) == 0.77          # 8.35/10.46 = 0.798, less 0.02
    assert reported_fit(["boom", GPU_REFUSAL]) == 0.76  # 62.3/79.19 = 0.787, less 0.02
    assert reported_fit(["CUDA out of memory. Tried to allocate 2.00 GiB"]) is None
    assert reported_fit([]) is None


def test_a_reported_free_memory_is_fitted_in_one_launch(tmp_path: Path) -> None:
    """Stepping 0.05 from 0.99 to a free 0.80 takes four launches (minutes each on a GPU); the
    engine said what is free, so one launch at the fit is enough. A step below the blind floor
    is taken only when the engine's numbers call for it."""
    (tmp_path / "v.toml").write_text(textwrap.dedent("""\
        engine = "vllm"
        [launch]
        model = "/m"
        args = { gpu-memory-utilization = 0.99 }
        [fallback]
        strategy = "remedies"
        remedies = ["lower_mem_fraction"]
        max_attempts = 6
        """))
    pset = ProfileSet.load_dir(tmp_path)
    p = pset.resolve("v")
    pick = next_remedy(["lower_mem_fraction"], [], p, "cuda_oom", "launch", "crashed",
                       [CPU_REFUSAL])
    assert pick is not None and pick[1].args_dict() == {"gpu-memory-utilization": 0.77}
    # without the engine's numbers: one blind step
    blind = next_remedy(["lower_mem_fraction"], [], p, "cuda_oom", "launch", "crashed", ["x"])
    assert blind is not None and blind[1].args_dict() == {"gpu-memory-utilization": 0.94}
    low = CPU_REFUSAL.replace("8.35/10.46", "3.10/10.46")
    pick = next_remedy(["lower_mem_fraction"], [], p, "cuda_oom", "launch", "crashed", [low])
    assert pick is not None and pick[1].args_dict() == {"gpu-memory-utilization": 0.27}
    # nothing left to fit into
    none = CPU_REFUSAL.replace("8.35/10.46", "0.20/10.46")
    assert next_remedy(["lower_mem_fraction"], [], p, "cuda_oom", "launch", "crashed",
                       [none]) is None


def test_remedies_floor_then_disable_cuda_graph_then_chain(tmp_path: Path) -> None:
    pset = _profiles(tmp_path, ARGS + textwrap.dedent("""\
        [fallback]
        strategy = "remedies"
        remedies = ["lower_mem_fraction", "disable_cuda_graph"]
        chain = ["safe"]
        max_attempts = 10
        """), extra={"safe": 'engine = "sglang"\n[launch]\nmodel = "/m"\n'})

    def outcome(p: ResolvedProfile) -> tuple:
        return (p.name == "safe", None if p.name == "safe" else "cuda_oom", "cuda_graph_capture")

    launched, reasons, req = _drive(pset, "p", outcome)
    assert [r.split()[1] for r in reasons[:-1]] == [
        "lower_mem_fraction", "disable_cuda_graph", "lower_mem_fraction"]
    fracs = [p.args_dict().get("mem-fraction-static") for p in launched[:-1]]
    assert fracs == [0.57, 0.57, 0.52]        # 0.47 would be under the 0.5 floor
    assert launched[-2].changes == ("disable_cuda_graph", "lower_mem_fraction")
    assert launched[-2].args_dict()["disable-cuda-graph"] is True
    assert launched[-1].name == "safe" and reasons[-1] == "fallback chain: safe"


def test_demo_crash_oom_profile_reaches_disable_cuda_graph() -> None:
    """profiles/demo/demo-crash-oom.toml: OOM in capture until CUDA graphs are off (the
    emulator then skips capture), within its max_attempts of 4."""
    pset = ProfileSet.load_dir(Path(__file__).resolve().parent.parent / "profiles" / "demo")

    def outcome(p: ResolvedProfile) -> tuple:
        ok = bool(p.args_dict().get("disable-cuda-graph"))
        return ok, None if ok else "cuda_oom", "cuda_graph_capture"

    launched, reasons, req = _drive(pset, "demo-crash-oom", outcome)
    assert reasons == ["remedy lower_mem_fraction (cause cuda_oom)",
                       "remedy smaller_cuda_graph_bs (cause cuda_oom)",
                       "remedy disable_cuda_graph (cause cuda_oom)"]
    last = launched[-1]
    assert last.changes == ("lower_mem_fraction", "smaller_cuda_graph_bs", "disable_cuda_graph")
    assert last.args_dict()["mem-fraction-static"] == 0.9
    assert last.args_dict()["cuda-graph-max-bs-decode"] == 16   # no version: newest flags


def test_plan_respects_max_attempts(tmp_path: Path) -> None:
    pset = _profiles(tmp_path, ARGS + textwrap.dedent("""\
        [fallback]
        strategy = "remedies"
        remedies = ["lower_mem_fraction", "smaller_cuda_graph_bs", "disable_cuda_graph"]
        max_attempts = 3
        """))
    launched, _, req = _drive(pset, "p", lambda p: (False, "cuda_oom", "cuda_graph_capture"))
    assert len(launched) == 2                  # + the first launch = 3
    assert any("max_attempts (3)" in n for n in req.notes)
    assert req.checklist["req1:start"]["status"] == "failed"


@pytest.mark.parametrize("n_culprits", [1, 2])
def test_isolate_plan_names_culprits_and_serves_the_rest(tmp_path: Path,
                                                         n_culprits: int) -> None:
    changes = "".join(f'[[changes]]\nname = "c{i}"\nenv = {{ C{i} = "1" }}\n' for i in range(4))
    pset = _profiles(tmp_path, changes + '[fallback]\nstrategy = "isolate"\nmax_attempts = 12\n')
    bad = {"c1", "c3"} if n_culprits == 2 else {"c1"}

    def outcome(p: ResolvedProfile) -> tuple:
        ok = not (bad & set(p.changes))
        return ok, None if ok else "unknown", "kv_cache_alloc"

    launched, reasons, req = _drive(pset, "p", outcome)
    assert req.culprits == sorted(bad)
    assert set(launched[-1].changes) == {"c0", "c1", "c2", "c3"} - bad
    assert all(r.startswith(("isolate:", "best working")) for r in reasons)
    assert "req1:isolate:verdict" in req.checklist
    assert ", ".join(sorted(bad)) in req.checklist["req1:isolate:verdict"]["title"]


@pytest.mark.parametrize("cause, isolates", [("invalid_config", True), ("import_error", False)])
def test_isolation_runs_for_a_bad_config_but_not_for_a_broken_environment(
        tmp_path: Path, cause: str, isolates: bool) -> None:
    """A change that sets max-model-len past the model's is exactly an invalid config: its
    culprit is found. A missing library is the environment's fault: no change is to blame."""
    changes = ('[[changes]]\nname = "long_context"\nargs = { max-model-len = 100000 }\n'
               '[[changes]]\nname = "fewer_seqs"\nargs = { max-num-seqs = 16 }\n')
    pset = _profiles(tmp_path, changes + '[fallback]\nstrategy = "isolate"\n')

    def outcome(p: ResolvedProfile) -> tuple:
        bad = "long_context" in p.changes or cause == "import_error"
        return (not bad, cause if bad else None, "launch")

    launched, _, req = _drive(pset, "p", outcome)
    if isolates:
        assert req.culprits == ["long_context"]
        assert launched[-1].changes == ("fewer_seqs",)
    else:
        assert launched == [] and any("not caused by a config change" in n for n in req.notes)


def test_plan_respects_time_budget(tmp_path: Path) -> None:
    pset = _profiles(tmp_path, ARGS + textwrap.dedent("""\
        [fallback]
        strategy = "remedies"
        remedies = ["lower_mem_fraction"]
        max_attempts = 6
        time_budget = 60
        """))
    launched, _, req = _drive(pset, "p", lambda p: (False, "cuda_oom", "cuda_graph_capture"),
                              started=time.time() - 120)
    assert launched == []
    assert any("time budget of 60 s" in n for n in req.notes)


def test_a_collective_hang_tries_the_changes_that_touch_all_reduce_first(tmp_path: Path) -> None:
    changes = ('[[changes]]\nname = "bigger_batch"\nargs = { max-running-requests = 64 }\n'
               '[[changes]]\nname = "longer_ctx"\nargs = { context-length = 8192 }\n'
               '[[changes]]\nname = "fusion"\n'
               'args = { enable-flashinfer-allreduce-fusion = true }\n')
    pset = _profiles(tmp_path, changes + '[fallback]\nstrategy = "isolate"\nmax_attempts = 12\n')

    def outcome(p: ResolvedProfile) -> tuple:
        bad = "fusion" in p.changes
        return (not bad, "collective_hang" if bad else None, "cuda_graph_capture")

    launched, _, req = _drive(pset, "p", outcome)
    assert launched[0].changes == ("fusion",), [p.changes for p in launched]
    assert req.culprits == ["fusion"]
    assert any("all-reduce/NCCL are tried first" in n for n in req.notes), req.notes

    def crash(p: ResolvedProfile) -> tuple:  # another cause: the profile's order stands
        bad = "fusion" in p.changes
        return (not bad, "cuda_oom" if bad else None, "cuda_graph_capture")

    launched, _, _ = _drive(pset, "p", crash)
    assert launched[0].changes == ("bigger_batch",)
