"""The hundred-and-eighty-sixth batch's scenarios (tests/fixtures/corpus/fresh185): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind186.py OUT

Themes: custom logits processors, at launch and per request - what a person meets adding their
own sampling logic. vLLM (--logits-processors naming code in /tmp/blind186/procs/acme_lp.py, put
on PYTHONPATH): a processor whose constructor raises (it reads a banned-words file from an
environment variable that is not set), a V0-style plain function named where V1 wants a
LogitsProcessor subclass, and a processor whose update_state raises only for a request that
carries its vllm_xargs parameter with a value it cannot parse (a word where it wants a token
id). SGLang (--enable-custom-logit-processor, processors serialized with sglang's own
CustomLogitProcessor.to_str by SGLang's interpreter into /tmp/blind186/ when this table is
loaded): a processor that forgets to return the logits (returns None), one that returns a
reduced tensor (the row maxima: wrong shape), and a custom_logit_processor string that is not a
serialized processor at all (a module:class name, as vLLM's flag takes).

Earlier batches already had (not repeated): --logits-processors naming a module that is not
installed (75th, vLLM); SGLang's custom_logit_processor sent to a server without
--enable-custom-logit-processor, and one that raises a TypeError reading custom_params the
request did not send (149th).

vLLM runs with VLLM_BASE's settings; SGLang with --device cpu --model-impl transformers. Each
scenario first sets SIGINT and SIGQUIT back to their default actions (dfl_signals, as the 133rd
table does). Each serving scenario sends an ordinary request before and after the faulty one.

Recorded 2026-12-07 in one invocation (raw1: all eight scenarios then in the table, taking turns
with two other helpers' recorders); each scenario once. About 5m20s of recording (vLLM
27+29+36+45+44 s, SGLang 55+44+40 s). 6 kept (final files fm101-fm106). Dropped, and removed
from SCENARIOS: v-lp-wrong-shape (--logits-processors acme_lp:TrimPadding, whose apply returned
logits[:, :-1], one vocabulary column short: vLLM came up and served two completions 200 OK with a
stats line and not a word of the processor - the fault never shows) and
v-request-logits-processors (no --logits-processors; a completion and a chat request carrying a
per-request `logits_processors` field, as V0's --logits-processor-pattern allowed: the completion
was served 200 OK with no warning that the field was ignored, the chat request got a bare
`400 Bad Request` access line that says nothing of why - the fault never shows). What the
engines did: vLLM builds the --logits-processors classes in the worker's model runner
constructor (init_device), before any weight is loaded, so a constructor that raises
(`KeyError: 'BANNED_WORDS_FILE'` from the team's file) and a name that is not a class (vLLM's own
`ValueError: Loaded logit processor must be a type.`) both end the launch within 30 s with
`WorkerProc failed to start.`, `EngineCore failed to start.` and `RuntimeError: Engine core
initialization failed`. A processor that raises on one request's argument in update_state
(`ValueError: invalid literal for int() with base 10: 'the'`) kills the engine core while serving
(`EngineCore encountered a fatal error`, `EngineDeadError`, the request 500) and the API server
shuts itself down: vLLM does not isolate a request's failure in a processor. SGLang decodes and
runs the client's processor inside the scheduler, so all three SGLang faults kill the server
while serving with `Scheduler hit an exception`, `SIGQUIT received ... It usually means one child
failed.` and kill_process_tree: a processor returning None (`AttributeError: 'NoneType' object
has no attribute 'to'` in apply_custom_logit_processor), a reduced tensor (`IndexError:
index_copy_(): ... Source dimensionality (1), destination dimensionality (2)`), and a string that
is not the JSON of a serialized processor (`orjson.JSONDecodeError: unexpected character` in
CustomLogitProcessor.from_str while the prefill batch is built) - no 400 for the malformed field.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger, up  # noqa: E402
from setup_engines import SGLANG  # noqa: E402

ROOT = Path("/tmp/blind186")
PROCS = ROOT / "procs"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers", "--enable-custom-logit-processor"]
CLP_NONE = ROOT / "clp-returns-none.json"
CLP_SHAPE = ROOT / "clp-wrong-shape.json"

VLLM_PROCS = r'''"""A team's own logits processors for vLLM (V1 interface)."""
import os

import torch
from vllm.v1.sample.logits_processor import BatchUpdate, LogitsProcessor


class BannedWords(LogitsProcessor):
    """Bans the token ids listed in the file $BANNED_WORDS_FILE."""

    def __init__(self, vllm_config, device, is_pin_memory):
        path = os.environ["BANNED_WORDS_FILE"]
        with open(path) as f:
            self.banned = [int(x) for x in f.read().split()]

    def is_argmax_invariant(self):
        return False

    def update_state(self, batch_update):
        pass

    def apply(self, logits):
        logits[:, self.banned] = -float("inf")
        return logits


def ban_tokens(token_ids, logits):
    """A V0-style per-request logits processor function."""
    logits[13] = -float("inf")
    return logits


class BoostToken(LogitsProcessor):
    """Adds a bonus to the token a request names in vllm_xargs {"boost_token": id}."""

    def __init__(self, vllm_config, device, is_pin_memory):
        self.boost = {}

    def is_argmax_invariant(self):
        return False

    def update_state(self, batch_update):
        if batch_update is None:
            return
        for r in batch_update.removed:
            self.boost.pop(r, None)
        for added in batch_update.added:
            index, params = added[0], added[1]
            extra = params.extra_args or {}
            if "boost_token" in extra:
                self.boost[index] = int(extra["boost_token"])
            else:
                self.boost.pop(index, None)

    def apply(self, logits):
        for index, token in self.boost.items():
            logits[index, token] += 5.0
        return logits

'''

SGLANG_PROCS = r'''
import json, sys
from sglang.srt.sampling.custom_logit_processor import CustomLogitProcessor


class NoReturn(CustomLogitProcessor):
    """Bans token 13 in place, but forgets to return the logits."""

    def __call__(self, logits, custom_param_list=None):
        logits[:, 13] = -float("inf")


class RowMax(CustomLogitProcessor):
    """Returns each row's maximum instead of the row (a reduced tensor)."""

    def __call__(self, logits, custom_param_list=None):
        return logits.max(dim=-1).values


print(json.dumps({"none": NoReturn.to_str(), "shape": RowMax.to_str()}))
'''


def _setup() -> None:
    PROCS.mkdir(parents=True, exist_ok=True)
    (PROCS / "acme_lp.py").write_text(VLLM_PROCS)
    if not (CLP_NONE.is_file() and CLP_SHAPE.is_file()):
        out = json.loads(subprocess.run([str(SGLANG.python), "-c", SGLANG_PROCS], check=True,
                                        capture_output=True, text=True).stdout.strip())
        CLP_NONE.write_text(out["none"])
        CLP_SHAPE.write_text(out["shape"])


_setup()


def dfl_signals(ctx: Ctx) -> None:
    """SIGINT and SIGQUIT back to their default actions before the launch."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def call(ctx: Ctx, path: str, body: dict, timeout: float = 60) -> int:
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            resp.read()
            return resp.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError):
        return 0


def gen(ctx: Ctx, text: str = "The quick brown fox", tokens: int = 16, **extra: object) -> int:
    return call(ctx, "/generate", {"text": text, "sampling_params": {"max_new_tokens": tokens},
                                   **extra})


def sg_serving(requests: Callable[[Ctx], None]) -> Callable[[Ctx], None]:
    """SGLang: once fired up, a plain generation, the scenario's requests, one more plain
    generation and a short pause (or until it ends, if it dies)."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any([SG_READY], 240) != SG_READY:
            linger(ctx, 10)
            return
        gen(ctx)
        requests(ctx)
        time.sleep(1)
        gen(ctx, "After that")
        linger(ctx, 10)
    return act


def v_serving(requests: Callable[[Ctx], None]) -> Callable[[Ctx], None]:
    """vLLM: once up, a plain completion, the scenario's requests, one more and a pause; if it
    never comes up, until it ends."""
    def act(ctx: Ctx) -> None:
        if not up(ctx, 200):
            linger(ctx, 10)
            return
        ctx.complete(1)
        requests(ctx)
        time.sleep(1)
        ctx.complete(1)
        linger(ctx, 12)
    return act


def nothing(ctx: Ctx) -> None:
    pass


# --- the scenarios' requests ------------------------------------------------------------------

def v_boost_bad(ctx: Ctx) -> None:
    name = ctx.model_name()
    call(ctx, "/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 8,
                                  "vllm_xargs": {"boost_token": 42}})
    call(ctx, "/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 8,
                                  "vllm_xargs": {"boost_token": "the"}})


def sg_clp(path: Path) -> Callable[[Ctx], None]:
    def requests(ctx: Ctx) -> None:
        gen(ctx, custom_logit_processor=path.read_text())
    return requests


def sg_clp_not_serialized(ctx: Ctx) -> None:
    gen(ctx, custom_logit_processor="acme_lp:BannedWords")


S, V = "sglang", "vllm"
PP = {"PYTHONPATH": str(PROCS)}

SCENARIOS = [
    Scenario("v-lp-ctor-raises", V, "--logits-processors acme_lp:BannedWords, whose constructor "
             "reads os.environ['BANNED_WORDS_FILE'], not set",
             [*VLLM_BASE, "--logits-processors", "acme_lp:BannedWords"], env=PP,
             before=dfl_signals, act=v_serving(nothing)),
    Scenario("s-clp-returns-none", S, "--enable-custom-logit-processor; a /generate whose "
             "custom_logit_processor (CustomLogitProcessor.to_str) bans a token in place and "
             "returns None", SG, before=dfl_signals, act=sg_serving(sg_clp(CLP_NONE))),
    Scenario("v-lp-v0-function", V, "--logits-processors acme_lp:ban_tokens, a V0-style plain "
             "function (token_ids, logits), not a LogitsProcessor subclass",
             [*VLLM_BASE, "--logits-processors", "acme_lp:ban_tokens"], env=PP,
             before=dfl_signals, act=v_serving(nothing)),
    Scenario("s-clp-wrong-shape", S, "--enable-custom-logit-processor; a /generate whose "
             "custom_logit_processor returns logits.max(dim=-1).values (one value per row)",
             SG, before=dfl_signals, act=sg_serving(sg_clp(CLP_SHAPE))),
    Scenario("v-lp-bad-request-arg", V, "--logits-processors acme_lp:BoostToken, whose "
             "update_state does int(extra_args['boost_token']); one completion sends "
             "vllm_xargs boost_token 42, the next 'the'",
             [*VLLM_BASE, "--logits-processors", "acme_lp:BoostToken"], env=PP,
             before=dfl_signals, act=v_serving(v_boost_bad)),
    Scenario("s-clp-not-serialized", S, "--enable-custom-logit-processor; a /generate whose "
             "custom_logit_processor is 'acme_lp:BannedWords' (a class name, not the JSON of a "
             "serialized processor)", SG, before=dfl_signals,
             act=sg_serving(sg_clp_not_serialized)),
]
