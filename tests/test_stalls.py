"""Stalls that end a log: a server that was up, then only reports of being stuck to the end of
the file, ended hung (``incomplete``, cause ``unknown``) where its tracker was, not ``ready``.
Synthetic lines in each engine's format; each kind once alone and once after healthy output."""

from __future__ import annotations

import pytest

from supervisor.diagnosis.classifier import classify_text
from supervisor.states import Cause, Outcome, Phase

SHM = ("(EngineCore_DP0 pid=3) INFO 12-09 11:25:53 [shm_broadcast.py:466] No available shared "
       "memory broadcast block found in 60 seconds. This typically happens when some processes "
       "are hanging or doing some time-consuming work (e.g. compilation).")
OFFLINE_BAR = ("Processed prompts:   0%|          | 0/4 [00:00<?, ?it/s, est. speed input: "
               "0.00 toks/s, output: 0.00 toks/s]")
PD_WAIT = ("DEBUG 10-09 19:47:51 [scheduler.py:345] cmpl-c7da0225-3a9e-0 is still in "
           "WAITING_FOR_REMOTE_KVS state.")
VLLM_BUSY = ("(APIServer pid=1) INFO 08-21 14:30:33 [loggers.py:123] Engine 000: Avg prompt "
             "throughput: 310.2 tokens/s, Avg generation throughput: 95.0 tokens/s, Running: 8 "
             "reqs, Waiting: 0 reqs, GPU KV cache usage: 3.0%, Prefix cache hit rate: 0.0%")
VLLM_STUCK = ("(APIServer pid=1) INFO 08-21 14:30:43 [loggers.py:123] Engine 004: Avg prompt "
              "throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 255 "
              "reqs, Waiting: 0 reqs, GPU KV cache usage: 0.0%, Prefix cache hit rate: 0.0%")
V0_STUCK = ("INFO 08-20 02:39:57 metrics.py:411] Avg prompt throughput: 0.0 tokens/s, Avg "
            "generation throughput: 0.0 tokens/s, Running: 3 reqs, Swapped: 0 reqs, Pending: 0 "
            "reqs, GPU KV cache usage: 9.1%, CPU KV cache usage: 0.0%.")
SG = "[2025-09-05 10:11:12 TP0]"
SG_DECODE = (f"{SG} Decode batch, #running-req: 6, #token: 1920, token usage: 0.44, cuda graph: "
             "True, gen throughput (token/s): 446.45, #queue-req: 0,")
SG_BOOTSTRAP_TIMEOUT = (
    "Prefill bootstrap failed for request rank=2 req.rid='d3fd' req.bootstrap_room=59 with "
    "exception KVTransferError(bootstrap_room=59): Request 59 timed out after 300.0s in "
    "KVPoll.Bootstrapping")
SG_PD_FAST_FAIL = (
    f"{SG} Decode transfer failed for request rank=0 decode_req.req.rid='a1af' with exception "
    "KVTransferError(bootstrap_room=17): Aborted by AbortReq.")
SG_SOFT_WATCHDOG = (f"{SG} Scheduler watchdog timeout (self.watchdog_timeout=300, "
                    "self.soft=True)")
SG_RETRACT = (f"{SG} Decode out of memory happened. #retracted_reqs: 1, #new_token_ratio: "
              "0.1474 -> 0.1845")


def _verdict(lines: list[str], engine: str):
    return classify_text("\n".join(lines) + "\n", engine=engine)


STALLS = [
    ("vllm-offline-shm", "vllm", [OFFLINE_BAR, SHM, SHM, SHM]),
    ("vllm-pd-remote-kvs", "vllm", ["...", PD_WAIT, PD_WAIT, "..."]),
    ("vllm-v1-stats-no-tokens", "vllm", [VLLM_BUSY, VLLM_STUCK]),
    ("vllm-v0-stats-no-tokens", "vllm", [V0_STUCK]),
    ("sglang-pd-bootstrap-timeout", "sglang", [SG_BOOTSTRAP_TIMEOUT]),
    ("sglang-soft-watchdog", "sglang", [SG_DECODE, SG_SOFT_WATCHDOG,
                                        "Thread 1234 (active): \"MainThread\"",
                                        "    event_loop_overlap (scheduler.py:1024)"]),
]


@pytest.mark.parametrize(("engine", "lines"), [s[1:] for s in STALLS], ids=[s[0] for s in STALLS])
def test_a_log_ending_in_stall_reports_ended_hung_in_serving(engine: str, lines: list[str]):
    v = _verdict(lines, engine)
    assert (v.outcome, v.phase, v.cause) == (Outcome.INCOMPLETE, Phase.SERVING, Cause.UNKNOWN)
    assert v.evidence  # the stall reports themselves


@pytest.mark.parametrize(("engine", "lines"), [
    ("vllm", [SHM, VLLM_BUSY]),                  # the wait passed: tokens moved after it
    ("vllm", [VLLM_BUSY, VLLM_STUCK, VLLM_BUSY]),
    ("sglang", [SG_PD_FAST_FAIL]),               # a transfer that failed fast: still serving
    ("sglang", [SG_RETRACT, SG_DECODE]),         # retracted, then decoding again
], ids=["shm-then-tokens", "stuck-then-tokens", "pd-fast-failure", "retraction-then-decode"])
def test_progress_after_a_stall_report_is_still_ready(engine: str, lines: list[str]):
    v = _verdict(lines, engine)
    assert (v.outcome, v.phase, v.cause) == (Outcome.READY, Phase.SERVING, None)


def test_a_fragment_ending_in_retractions_is_a_server_serving_under_kv_pressure():
    """SGLang retracts running requests when the KV pool runs short and goes on decoding them
    later: a fragment that ends in retractions shows a server serving, not one stalled."""
    v = _verdict([SG_DECODE, SG_RETRACT, SG_RETRACT], "sglang")
    assert (v.outcome, v.phase, v.cause) == (Outcome.READY, Phase.SERVING, None)
