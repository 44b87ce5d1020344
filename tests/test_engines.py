"""Engines: live phase tracking over real logs, progress, serving, flag names per version."""

from __future__ import annotations

import re
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest

from supervisor.engines import PhaseUpdate, get_engine, parse_version
from supervisor.states import Phase

FIXTURES = Path(__file__).parent / "fixtures" / "sglang-logs"
LOGS = sorted(FIXTURES.glob("*.log"))

# Logs whose final phase is not shown by phase markers but by what the failure itself proves;
# the classifier infers these, the live tracker (markers only) cannot:
FROM_FAILURE = {
    "03": "bare traceback through init_cuda_graphs / cuda_graph_runner (frames -> capture)",
    "07": "SGLang's watchdog only fires on a running batch (cause -> serving)",
    "08": "faulthandler dump in weight_loader (frames -> weight_loading)",
    "10": "traceback through load_model (frames -> weight_loading)",
    "14": "torch NCCL watchdog at collective SeqNum 1522789 (-> serving)",
}


def split_fixture(path: Path) -> tuple[dict[str, str], list[str]]:
    text = path.read_text(encoding="utf-8")
    header, _, body = text.partition("\n\n")
    labels = dict(re.findall(r"^# (\w+): (.*)$", header, re.M))
    return labels, re.split(r"\r\n|\r|\n", body)


def track(engine: str, lines: list[str]):
    tracker = get_engine(engine).new_tracker()
    updates = [u for u in map(tracker.feed, lines) if u is not None]
    return tracker, updates


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name.split("-")[0])
def test_tracker_phase_over_fixtures(path: Path):
    labels, lines = split_fixture(path)
    tracker, updates = track(labels["engine"], lines)
    want = Phase(labels["phase_at_end"])
    key = path.name.split("-")[0]
    if key in FROM_FAILURE:
        assert tracker.phase.rank < want.rank  # markers alone never overshoot
    elif labels["outcome"] in ("ready", "crashed"):
        assert tracker.phase is want
    else:  # hung / timeout: the phase it was stuck in
        assert tracker.phase is want
    # phases only move forward, and every update says where the tracker is
    previous = Phase.LAUNCH
    for u in updates:
        assert u.phase.rank >= previous.rank
        assert u.changed_phase is (u.phase is not previous)
        previous = u.phase
    assert tracker.ready is (labels["outcome"] == "ready" and labels["engine"] == "sglang"
                             or key == "22")


def test_shard_progress_k_of_n():
    _, lines = split_fixture(FIXTURES / "02-ready-tp4-pcie-l4-qwq32b.log")
    tracker = get_engine("sglang").new_tracker()
    seen = []
    for line in lines:
        u = tracker.feed(line)
        if u and u.progress and u.progress["kind"] == "weight_shards":
            seen.append((u.progress["done"], u.progress["total"]))
    assert seen[0] == (0, 14) and seen[-1] == (14, 14)
    assert [d for d, _ in seen] == list(range(15))
    assert tracker.progress is None  # cleared when the phase moved on


def test_shard_progress_multithread_and_vllm():
    t = get_engine("sglang").new_tracker()
    u = t.feed("Multi-thread loading shards:  43% Completed | 3/7 [00:04<00:05,  1.3it/s]")
    assert u and u.phase is Phase.WEIGHT_LOADING and u.changed_phase
    assert u.progress == {"kind": "weight_shards", "done": 3, "total": 7}
    v = get_engine("vllm").new_tracker()
    u = v.feed("(EngineCore_DP0 pid=3) Loading safetensors checkpoint shards:  50% Completed | "
               "1/2 [00:01<00:01,  1.20it/s]")
    assert u and u.progress == {"kind": "weight_shards", "done": 1, "total": 2}


def test_capture_progress():
    t = get_engine("sglang").new_tracker()
    t.feed("[2026-02-04 11:30:29] Load weight end. elapsed=0.38 s, type=Qwen2ForCausalLM")
    u = t.feed("[2026-02-04 11:30:29] Capture cuda graph bs [1, 2, 4]")
    assert u.phase is Phase.CUDA_GRAPH_CAPTURE and u.changed_phase
    assert u.progress == {"kind": "cuda_graph_bs", "done": 0, "total": 3}
    u = t.feed("Capturing batches (bs=2 avail_mem=76.96 GB):  67%|######6   | 2/3 "
               "[00:00<00:00,  5.84it/s]")
    assert u.progress == {"kind": "cuda_graph_bs", "done": 2, "total": 3}
    assert not u.changed_phase
    # older builds: an unlabelled bar while capturing (fixture 02)
    u = t.feed("100%|██████████| 3/3 [00:07<00:00,  1.80it/s]")
    assert u.progress == {"kind": "cuda_graph_bs", "done": 3, "total": 3}
    # 0.5.23 wording
    t2 = get_engine("sglang").new_tracker()
    u = t2.feed("[2026-05-01 10:00:00] Capture target decode CUDA graph begin. backend=full, "
                "num_tokens_per_req=1, avail mem=70.00 GB")
    assert u.phase is Phase.CUDA_GRAPH_CAPTURE


def test_markers_anywhere_in_the_line():
    t = get_engine("sglang").new_tracker()
    u = t.feed("sglang-1  | 2025-03-08T12:29:21.000Z [2025-03-08 12:29:21 DP0 TP0 EP0] KV Cache "
               "is allocated. dtype: torch.bfloat16, #tokens: 20480, K size: 0.12 GB")
    assert u.phase is Phase.KV_CACHE_ALLOC
    u = t.feed("  0%|          | 0/13 [00:00<?, ?it/s][2025-03-08 12:29:21 TP1] Capture cuda "
               "graph begin. This can take up to several minutes. avail mem=1.45 GB")
    assert u.phase is Phase.CUDA_GRAPH_CAPTURE
    u = t.feed("(SGLangEngine pid=12) [2025-03-08 12:29:33] The server is fired up and ready to "
               "roll! [repeated 2x across cluster]")
    assert u.phase is Phase.READY and u.ready and u.changed_phase


READY_LINE = "[2025-03-08 12:29:33] The server is fired up and ready to roll!"


def _ready_tracker():
    t = get_engine("sglang").new_tracker()
    for line in ["[2025-03-08 12:29:29] INFO:     Uvicorn running on http://0.0.0.0:30000",
                 '[2025-03-08 12:29:30] INFO:     127.0.0.1:49534 - "GET /get_model_info '
                 'HTTP/1.1" 200 OK',
                 "[2025-03-08 12:29:30 TP0] Prefill batch. #new-seq: 1, #new-token: 6, "
                 "#cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, ",
                 '[2025-03-08 12:29:33] INFO:     127.0.0.1:49540 - "POST /generate HTTP/1.1" '
                 '200 OK']:
        t.feed(line)
    assert t.phase is Phase.WARMUP and not t.ready and t.requests_seen == 0
    u = t.feed(READY_LINE)
    assert u.phase is Phase.READY and u.ready
    return t


@pytest.mark.parametrize("line,serving", [
    ('INFO:     127.0.0.1:50000 - "GET /health HTTP/1.1" 200 OK', False),
    ('INFO:     127.0.0.1:50000 - "GET /v1/models HTTP/1.1" 200 OK', False),
    ("[2025-03-08 12:29:40 TP0] Prefill batch. #new-seq: 1, #new-token: 1, #cached-token: 0, "
     "token usage: 0.00, #running-req: 0, #queue-req: 0, ", False),  # our /health probe
    ('INFO:     127.0.0.1:50000 - "POST /v1/chat/completions HTTP/1.1" 200 OK', True),
    ('INFO:     10.0.0.207:24382 - "GET /health HTTP/1.1" 200 OK', True),  # a load balancer
    ("[2025-03-08 12:29:40 TP0] Prefill batch, #new-seq: 1, #new-token: 28, #cached-token: 0, "
     "token usage: 0.00, #running-req: 0, #queue-req: 0, ", True),
    ("[2025-03-08 12:29:40 TP0] Decode batch, #running-req: 1, #token: 108, token usage: 0.00, "
     "cuda graph: True, gen throughput (token/s): 0.39, #queue-req: 0, ", True),
])
def test_serving_after_ready(line, serving):
    t = _ready_tracker()
    u = t.feed(line)
    assert t.phase is (Phase.SERVING if serving else Phase.READY)
    assert (u is not None and u.changed_phase) is serving
    assert (t.requests_seen >= 1) is serving


def test_requests_counted_while_serving_and_decode_excerpt():
    t = _ready_tracker()
    for _ in range(3):
        t.feed('INFO:     127.0.0.1:1 - "POST /generate HTTP/1.1" 200 OK')
    assert t.phase is Phase.SERVING and t.requests_seen == 3
    assert t.feed('INFO:     127.0.0.1:1 - "POST /generate HTTP/1.1" 200 OK') is None
    # an excerpt that starts while serving: decode stats prove the server is up
    t = get_engine("sglang").new_tracker()
    u = t.feed("[2025-10-22 10:27:57 TP0] Decode batch. #running-req: 1, #token: 108, ")
    assert u.phase is Phase.SERVING and u.ready


# SGLang 0.5.23 on CPU (the Transformers backend) launched with `--decode-log-interval 1`, as
# the real tier's serving test runs it: the warmup request's own decode steps are logged
WARMUP_DECODES = [
    "[2026-12-05 19:46:17] Load weight begin. avail mem=20.86 GB",
    "[2026-12-05 19:46:17] Load weight end. elapsed=0.05 s, type=TransformersForCausalLM, "
    "avail mem=20.86 GB, mem usage=0.00 GB.",
    "[2026-12-05 19:46:17] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 4096, "
    "K size: 0.00 GB, V size: 0.00 GB",
    "[2026-12-05 19:46:17] Memory pool end. avail mem=20.83 GB",
    "[2026-12-05 19:46:18] Prefill batch, #new-seq: 1, #new-token: 20, #cached-token: 0, "
    "token usage: 0.01, #running-req: 0, #queue-req: 0, #pending-token: 0, cpu graph: False, "
    "input throughput (token/s): 3.51",
    *[f"[2026-12-05 19:46:18] Decode batch, #running-req: 1, #token: {n}, token usage: 0.01, "
      "cpu graph: False, gen throughput (token/s): 159.10, #queue-req: 0" for n in range(22, 28)],
    '[2026-12-05 19:46:19] INFO:     127.0.0.1:47866 - "POST /generate HTTP/1.1" 200 OK',
    '[2026-12-05 19:46:19] INFO:     127.0.0.1:47876 - "POST /freeze_gc HTTP/1.1" 200 OK',
]


def test_warmup_decode_lines_are_warmup_not_serving():
    t, updates = track("sglang", WARMUP_DECODES)
    assert t.phase is Phase.WARMUP and not t.ready and t.requests_seen == 0
    assert [u.phase for u in updates if u.changed_phase][-1] is Phase.WARMUP
    u = t.feed("[2026-12-05 19:46:19] The server is fired up and ready to roll!")
    assert u.phase is Phase.READY and u.ready
    u = t.feed(WARMUP_DECODES[5])  # the same line once the server is up: a client's request
    assert u.phase is Phase.SERVING and t.requests_seen == 1


def test_phases_only_move_forward():
    t = get_engine("sglang").new_tracker()
    t.feed("[x TP0] Memory pool end. avail mem=2.09 GB")
    assert t.feed("[x TP1] Load weight begin. avail mem=21.63 GB") is None
    assert t.phase is Phase.KV_CACHE_ALLOC


def test_vllm_tracker():
    _, lines = split_fixture(FIXTURES / "29-vllm-v1-startup-kv-and-graph-capture-sm120.log")
    t, updates = track("vllm", lines)
    assert t.phase is Phase.WARMUP and t.started and not t.ready
    assert any(u.progress == {"kind": "cuda_graph_bs", "done": 67, "total": 67} for u in updates)
    u = t.feed("(APIServer pid=1) INFO:     Application startup complete.")
    assert u.phase is Phase.READY and u.ready
    t.feed('(APIServer pid=1) INFO:     127.0.0.1:5 - "GET /health HTTP/1.1" 200 OK')
    assert t.phase is Phase.READY
    t.feed('(APIServer pid=1) INFO:     127.0.0.1:5 - "POST /v1/completions HTTP/1.1" 200 OK')
    assert t.phase is Phase.SERVING


def test_command_engine_has_no_markers():
    e = get_engine("command")
    t = e.new_tracker()
    assert e.default_command == () and e.model_flag is None
    for line in ["The server is fired up and ready to roll!", "Load weight begin", "x" * 100]:
        assert t.feed(line) is None
    assert t.phase is Phase.LAUNCH and not t.ready
    u = t.mark_ready("GET /health = 200")
    assert u.phase is Phase.READY and u.ready and u.changed_phase
    assert t.mark_ready() is None


def test_get_engine():
    assert get_engine("sglang").default_command == ("python3", "-m", "sglang.launch_server")
    assert get_engine("vllm").default_command == ("vllm", "serve")
    assert get_engine("SGLang").name == "sglang"
    for e in ("sglang", "vllm", "command"):
        assert get_engine(e).name == e
        assert get_engine(e).new_tracker() is not get_engine(e).new_tracker()
    with pytest.raises(ValueError, match="unknown engine"):
        get_engine("tgi")


def test_phase_update_is_frozen():
    u = PhaseUpdate(Phase.LAUNCH, None, False, False, "x")
    with pytest.raises(FrozenInstanceError):
        u.phase = Phase.READY  # type: ignore[misc]


@pytest.mark.parametrize("version,expected", [
    ("0.4.10.post2", "cuda-graph-max-bs"),
    ("0.5.5", "cuda-graph-max-bs"),
    ("0.5.22", "cuda-graph-max-bs"),
    ("0.5.23", "cuda-graph-max-bs-decode"),
    ("0.6.0rc1", "cuda-graph-max-bs-decode"),
    (None, "cuda-graph-max-bs-decode"),  # unknown version: the newest behaviour
])
def test_sglang_cuda_graph_max_bs_by_version(version, expected):
    assert get_engine("sglang").flag("cuda_graph_max_bs", version) == expected


def test_flags():
    sg, vl, cmd = get_engine("sglang"), get_engine("vllm"), get_engine("command")
    for v in ("0.4.10", "0.5.5", "0.5.23", None):
        assert sg.flag("disable_cuda_graph", v) == "disable-cuda-graph"
        assert sg.flag("mem_fraction", v) == "mem-fraction-static"
        assert sg.flag("disable_custom_all_reduce", v) == "disable-custom-all-reduce"
        assert sg.flag("attention_backend", v) == "attention-backend"
        assert sg.flag("sampling_backend", v) == "sampling-backend"
        assert sg.flag("enable_torch_compile", v) == "enable-torch-compile"
    assert sg.flag("cuda_graph_bs", "0.5.5") == "cuda-graph-bs"
    assert sg.flag("cuda-graph-bs", "0.5.23") == "cuda-graph-bs-decode"
    assert sg.flag("no_such_knob", "0.5.5") is None
    assert vl.flag("mem_fraction", "0.10.1") == "gpu-memory-utilization"
    assert vl.flag("disable_cuda_graph", None) == "enforce-eager"
    assert vl.flag("disable_custom_all_reduce", None) == "disable-custom-all-reduce"
    assert vl.flag("cuda_graph_max_bs", None) is None
    assert vl.flag("sampling_backend", None) is None
    assert cmd.flag("mem_fraction", None) is None


def test_parse_version():
    assert parse_version("0.5.23") == (0, 5, 23)
    assert parse_version("v0.4.10.post2") == (0, 4, 10)
    assert parse_version("0.5.0rc1") == (0, 5, 0)
    assert parse_version(None) is None and parse_version("dev") is None


def test_throughput_200k_ordinary_lines():
    """Feeding must stay cheap: ordinary lines go through one prefilter and return None."""
    ordinary = [
        "sglang-0:100:1012 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via P2P/CUMEM",
        "[2025-03-08 12:29:13 TP3] The following error message 'operation scheduled before its "
        "operands' can be ignored.",
        '[2025-10-22 10:27:57] INFO:     127.0.0.1:1 - "POST /generate HTTP/1.1" 200 OK',
        "[2025-10-22 10:27:57 TP0] Decode batch. #running-req: 1, #token: 108, token usage: 0.0",
        "2025-03-03 18:46:45,039 - INFO - flashinfer.jit: Loading JIT ops: batch_decode",
        "x" * 300,
    ]
    for engine in ("sglang", "vllm", "command"):
        t = get_engine(engine).new_tracker()
        for i in range(200_000):
            t.feed(ordinary[i % len(ordinary)])
    # the SGLang tracker ends serving (decode lines), counting requests as it goes
    t = get_engine("sglang").new_tracker()
    for i in range(60):
        t.feed(ordinary[i % len(ordinary)])
    assert t.phase is Phase.SERVING and t.requests_seen >= 9


def test_each_engine_builds_its_own_command_line():
    launch = type("L", (), {"command": ("srv",), "model": "/m", "host": "h", "port": 9,
                            "args": (("tp", 2), ("x", True), ("y", False))})()
    assert get_engine("sglang").argv(launch) == [
        "srv", "--model-path", "/m", "--host", "h", "--port", "9", "--tp", "2", "--x"]
    assert get_engine("vllm").argv(launch)[1:3] == ["--model", "/m"]
    assert get_engine("command").argv(launch) == ["srv", "--tp", "2", "--x"]
