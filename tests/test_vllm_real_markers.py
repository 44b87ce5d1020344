"""vLLM's phase markers against a real vLLM log (tests/fixtures/real-engines, from make
test-real): the tracker must walk the phases a real CPU-build start goes through, in order."""

from __future__ import annotations

from pathlib import Path

from supervisor.engines import get_engine

REAL = Path(__file__).parent / "fixtures" / "real-engines"
READY_LOG = REAL / "r01-vllm-cpu-ready-tiny-llama.log"


def _body(path: Path) -> list[str]:
    lines = path.read_text().splitlines()
    return [ln for ln in lines if not ln.startswith("# ")]


def test_real_vllm_start_walks_every_phase_in_order() -> None:
    tracker = get_engine("vllm").new_tracker()
    phases: list[str] = []
    shards: list[int] = []
    for line in _body(READY_LOG):
        update = tracker.feed(line)
        if update is None:
            continue
        if update.changed_phase:
            phases.append(update.phase.value)
        if update.progress and update.progress["kind"] == "weight_shards":
            shards.append(update.progress["done"])
    assert phases == ["weight_loading", "kv_cache_alloc", "warmup", "ready", "serving"], phases
    assert shards[0] == 0 and shards[-1] == 4, shards
    assert tracker.started and tracker.ready


def test_real_vllm_compile_warmup_is_not_weight_loading() -> None:
    """On the CPU build the torch.compile warmup takes most of the start (30 s cold); it is
    profiling the model, which vLLM's GPU build logs in kv_cache_alloc too."""
    tracker = get_engine("vllm").new_tracker()
    for line in _body(READY_LOG):
        tracker.feed(line)
        if "Warming up model for the compilation" in line:
            assert tracker.phase.value == "kv_cache_alloc", line
            return
    raise AssertionError("the real log has no compile warmup line")


def test_the_api_server_starting_is_warmup_in_either_wording() -> None:
    """vLLM's API server starts only once the engine core is up: `Starting vLLM API server 0 on
    http://...` (2025) and `Starting vLLM server on http://...` (2026 builds) both mean warmup;
    a mention of the server elsewhere does not."""
    for line in ("(APIServer pid=1) INFO 09-08 02:54:59 [api_server.py:1880] Starting vLLM API "
                 "server 0 on http://0.0.0.0:8000",
                 "(APIServer pid=1264644) INFO 06-02 00:52:40 [api_server.py:584] Starting vLLM "
                 "server on http://0.0.0.0:8000"):
        tracker = get_engine("vllm").new_tracker()
        tracker.feed(line)
        assert tracker.phase.value == "warmup", line
    tracker = get_engine("vllm").new_tracker()
    tracker.feed("INFO 06-02 00:52:40 [utils.py:12] Starting vLLM serverless mode checks")
    assert tracker.phase.value == "launch"
