"""The two-hundred-and-sixty-first batch's scenarios (tests/fixtures/corpus/fresh260): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind261.py OUT

Themes: seeds, determinism and reproducibility settings - what a person sets to get the same
answer twice (an evaluation, an RL rollout, a regression test). vLLM: its reproducibility recipe
VLLM_ENABLE_V1_MULTIPROCESSING=0 with --seed 1234; a per-request seed with n 4, sampled and greedy;
a per-request seed taken from the clock (`seed=time.time()`, a float); a cluster image's "seed
everything" sitecustomize.py on PYTHONPATH reading GLOBAL_SEED from an environment that lacks it.
SGLang: an RL framework's --rl-on-policy-target fsdp (deterministic inference turned on by it);
--sampling-backend flashinfer sent a seeded request with top_p (sampling_seed 7, top_p 0.95); a
/generate sampling_seed given as the string "1234"; OpenAI /v1/completions with seed 42 and n 4,
sampled and greedy. Every run that comes up is sent a plain completion, its odd requests and a
plain completion; the answers are compared outside the log (/tmp/blind261/compare-NAME.txt).

Earlier batches already had (not repeated): SGLang's --enable-deterministic-inference alone and
with torch_native, triton and flashinfer attention, VLLM_BATCH_INVARIANT=1 and =true,
torch.use_deterministic_algorithms(True) from a sitecustomize on both engines, --seed 0 with
PYTHONHASHSEED=0, the same greedy and seeded requests twice (148th); --seed abc, 99999999999999999999
and 0x2A, -1 (not recorded: the huge seed's check), PYTHONHASHSEED=abc, --random-seed -5 and
`random-seed: 1e3` in YAML (63rd, 70th, 226th, 72nd, 73rd); per-request seeds of 2**70 (95th,
145th) and a sampled request with seed 7 (131st); n 12 with a seed under --max-num-seqs 2 and
streamed n 4 with seeds (245th); --sampling-defaults hf (82nd); a sitecustomize importing a missing
module (93rd).

Recorded 2026-12-07 in one invocation (raw1: all eight, in the table's order, taking turns with
other helpers' recorders for the lock); each scenario once. About 5.8 minutes of recording (vLLM
38+42+43+53 s, SGLang 16+51+50+53 s), most of the 23 minutes spent waiting for the lock. 8 kept
(final files il101-il108); none dropped. s-flashinfer-sampling-seeded is kept although its fault
never showed (the CPU launch set the sampling backend back to pytorch without a word): a fair
log of the ground, labelled ready.

What the engines did. vLLM: VLLM_ENABLE_V1_MULTIPROCESSING=0 with --seed 1234 logs `The global
random seed is set to 1234. Since VLLM_ENABLE_V1_MULTIPROCESSING is set to False, this may affect
the random state of the Python process that launched vLLM.`, yet the API server still runs the
engine core in a process of its own, and serves (seeded samples and greedy answers repeat); seed
42 with n 4 serves, the two sampled answers equal choice for choice, while n 4 with temperature 0
is refused with a bare `400 Bad Request` in the log (`n must be 1 when using greedy sampling` only
in the answer); `seed=time.time()` gets two bare 400s (pydantic's `int_from_float` in the answer)
and it serves on; the sitecustomize prints `Error in sitecustomize; set PYTHONVERBOSE for
traceback:` / `KeyError: 'GLOBAL_SEED'` in each of its four processes and serves as if it were not
there. SGLang: --rl-on-policy-target fsdp logs `Enable deterministic inference because of
rl_on_policy_target.` and dies resolving its arguments with the 148th batch's `ValueError:
Currently only [...] attention backends are supported for deterministic inference, but you
explicitly specified 'intel_amx'.` (launch, 16 s); --sampling-backend flashinfer is replaced by
pytorch (server_args) and the seeded top_p requests are answered 200, two different texts for the
same sampling_seed; sampling_seed "1234" gets two bare 400s (`invalid type: string "1234",
expected i64` in the answer) and it serves on; /v1/completions seed 42 n 4 answers 200 with
different samples each time, and greedy n 4 is accepted (four empty texts). Crashed: il105 (launch);
ready in serving: il101-il104, il106-il108; none hung.
"""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind261")
SEED_SITE = ROOT / "seed-site"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
PROMPT = "The quick brown fox jumps over the lazy dog and then"


def _setup() -> None:
    SEED_SITE.mkdir(parents=True, exist_ok=True)
    # A cluster image's "seed everything" hook: it reads the job's seed from the environment.
    (SEED_SITE / "sitecustomize.py").write_text(
        "import os\n"
        "import random\n"
        "\n"
        "import numpy as np\n"
        "import torch\n"
        "\n"
        "SEED = int(os.environ[\"GLOBAL_SEED\"])\n"
        "random.seed(SEED)\n"
        "np.random.seed(SEED)\n"
        "torch.manual_seed(SEED)\n"
        "torch.use_deterministic_algorithms(True, warn_only=True)\n")


_setup()

Body = Callable[[Ctx], tuple[str, dict]]


def request(ctx: Ctx, path: str, body: dict, timeout: float = 90) -> str:
    """The response body as text (the status and reason where it failed)."""
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return f"HTTP {e.code}: {e.read().decode(errors='replace')[:400]}"
    except (OSError, TimeoutError) as e:
        return f"no answer: {e!r}"


def texts(raw: str) -> object:
    try:
        d = json.loads(raw)
    except ValueError:
        return raw
    if isinstance(d, dict) and "choices" in d:
        return [c.get("text", "") for c in d["choices"]]
    if isinstance(d, list):
        return [x.get("text", "") if isinstance(x, dict) else x for x in d]
    if isinstance(d, dict) and "text" in d:
        return d["text"]
    return raw


def plain(ctx: Ctx) -> tuple[str, dict]:
    return "/v1/completions", {"model": ctx.model_name(), "prompt": "fox", "max_tokens": 8}


def completion(**extra: object) -> Body:
    def make(ctx: Ctx) -> tuple[str, dict]:
        return "/v1/completions", {"model": ctx.model_name(), "prompt": PROMPT,
                                   "max_tokens": 16, **extra}
    return make


def generate(**params: object) -> Body:
    def make(ctx: Ctx) -> tuple[str, dict]:
        return "/generate", {"text": PROMPT, "sampling_params": {"max_new_tokens": 16, **params}}
    return make


def serve_then(bodies: list[Body], ready: str = READY_LINE) -> Callable[[Ctx], None]:
    """Until the run ends; if it comes up: a plain completion, each body in turn (the answers
    compared into /tmp/blind261/compare-NAME.txt, not part of the log), a plain completion, a
    pause."""
    def act(ctx: Ctx) -> None:
        found = ctx.wait_any([ready], 240)
        if not (found and ctx.proc is not None and ctx.proc.poll() is None):
            linger(ctx, 20)
            return
        out = []
        for make in [plain, *bodies, plain]:
            path, body = make(ctx)
            raw = request(ctx, path, body)
            out.append(f"{path} {json.dumps(body)}\n    -> {texts(raw)!r}")
        (ROOT / f"compare-{ctx.log.stem}.txt").write_text("\n".join(out) + "\n")
        linger(ctx, 12)
    return act


def seed_from_clock(ctx: Ctx) -> tuple[str, dict]:
    """An evaluation script's `seed=time.time()`: a float of the current time."""
    return "/v1/completions", {"model": ctx.model_name(), "prompt": PROMPT, "max_tokens": 16,
                               "temperature": 0.8, "seed": time.time()}


SAMPLED = {"temperature": 0.8}
V_SEEDED_N4 = completion(n=4, seed=42, **SAMPLED)
V_GREEDY_N4 = completion(n=4, seed=42, temperature=0)
S_SEEDED_N4 = completion(n=4, seed=42, **SAMPLED)
S_GREEDY_N4 = completion(n=4, seed=42, temperature=0)

SCENARIOS = [
    Scenario("v-no-multiprocessing-seed", "vllm",
             "vLLM's reproducibility recipe: VLLM_ENABLE_V1_MULTIPROCESSING=0 with --seed 1234 "
             "(the engine core in the API server's process); once up, the same seeded sample "
             "and the same greedy completion twice each",
             [*VLLM_BASE, "--seed", "1234"], env={"VLLM_ENABLE_V1_MULTIPROCESSING": "0"},
             act=serve_then([completion(seed=7, **SAMPLED), completion(seed=7, **SAMPLED),
                             completion(temperature=0), completion(temperature=0)])),
    Scenario("v-request-seed-n4", "vllm",
             "per-request seed 42 with n 4: a sampled request (temperature 0.8) twice, then the "
             "same with temperature 0",
             VLLM_BASE, act=serve_then([V_SEEDED_N4, V_SEEDED_N4, V_GREEDY_N4])),
    Scenario("v-request-seed-clock-float", "vllm",
             "an evaluation script's per-request seed=time.time() (a float such as "
             "1765137600.43), sent twice",
             VLLM_BASE, act=serve_then([seed_from_clock, seed_from_clock])),
    Scenario("v-sitecustomize-seed-env-unset", "vllm",
             f"a 'seed everything' sitecustomize.py on PYTHONPATH ({SEED_SITE}) that reads "
             "GLOBAL_SEED from the environment (unset here), then seeds random, numpy and torch "
             "and turns deterministic algorithms on; once up, the same seeded sample twice",
             VLLM_BASE, env={"PYTHONPATH": str(SEED_SITE)},
             act=serve_then([completion(seed=7, **SAMPLED), completion(seed=7, **SAMPLED)])),
    Scenario("s-rl-on-policy-fsdp", "sglang",
             "an RL framework's launch: --rl-on-policy-target fsdp (match the FSDP trainer's "
             "numerics bit for bit), which turns deterministic inference on",
             [*SG, "--rl-on-policy-target", "fsdp"],
             act=serve_then([generate(temperature=0.8, sampling_seed=7)] * 2, SG_READY)),
    Scenario("s-flashinfer-sampling-seeded", "sglang",
             "--sampling-backend flashinfer (as GPU recipes set it), sent an RL rollout's seeded "
             "request: sampling_seed 7 with temperature 0.8 and top_p 0.95",
             [*SG, "--sampling-backend", "flashinfer"],
             act=serve_then([generate(temperature=0.8, top_p=0.95, sampling_seed=7)] * 2,
                            SG_READY)),
    Scenario("s-sampling-seed-string", "sglang",
             "/generate with sampling_seed \"1234\" (a string, as a YAML or environment config "
             "hands it on), sent twice",
             SG, act=serve_then([generate(temperature=0.8, sampling_seed="1234")] * 2,
                                SG_READY)),
    Scenario("s-openai-seed-n4", "sglang",
             "OpenAI /v1/completions with seed 42 and n 4: a sampled request (temperature 0.8) "
             "twice, then the same with temperature 0",
             SG, act=serve_then([S_SEEDED_N4, S_SEEDED_N4, S_GREEDY_N4], SG_READY)),
]
