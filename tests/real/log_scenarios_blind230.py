"""The two-hundred-and-thirtieth batch's scenarios (tests/fixtures/corpus/fresh229): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind230.py OUT

Themes: sampling defaults the server takes from the model folder and from its own flags, met by
plain requests that rely on them and requests that override them. vLLM: --override-generation-config
'{"repetition_penalty": 0}' (0 meant as 'off'); a fine-tune's generation_config.json with
max_new_tokens 4096 under --max-model-len 256; --override-generation-config given a JSON list
instead of an object; --generation-config naming a folder whose generation_config.json has
do_sample true and top_p 0.0. SGLang: --preferred-sampling-params given a JSON list;
--preferred-sampling-params '{"top_p": 0.0}' (meant as greedy); a generation_config.json with
top_p 95 (a conversion script's percentage) taken as the default chat sampling; a
generation_config.json with temperature 0.0 and do_sample true (a fine-tune's export). The two
generation_config scenarios of SGLang give a plain chat template by flag (the tiny model has
none), since SGLang applies the model's defaults to chat requests only.

Earlier batches already had (not repeated): generation_config.json temperature -0.7 / top_p 1.8 /
top_k -5 (67th), cut (69th and earlier), a JSON list (72nd), string values (74th), a git-lfs pointer
(87th), UTF-16 (89th), a named pipe (106th, 109th), max_new_tokens 0 (107th, 170th), top_k 0 on
SGLang (107th), repetition_penalty 0.0 on SGLang (92nd), a newer transformers_version with
cache_implementation (112th), eos ids past the vocabulary or as text (70th, 222nd);
--generation-config a missing folder (68th) or the file itself (89th), auto with an override in a
recipe (219th); --override-generation-config not JSON (68th), a word for temperature (77th),
stop_token_ids [-1] and max_new_tokens 0 (170th); --preferred-sampling-params not JSON (73rd) or
with a misspelt key (94th); --sampling-defaults hf (82nd); request-borne penalties and top_p 0
(87th, 95th, 96th).

Recorded 2026-12-07 in one invocation (raw2: the eight scenarios in table order), waiting turns
with other helpers' recorders; each scenario once. A first invocation (raw1) was stopped by its
pid while it still waited for the lock, before any scenario ran, when the SGLang generation_config
scenarios were changed to send chat requests (its folder was removed). About 8 minutes of
recording (vLLM 68+71+11+74 s, SGLang 56+51+63+65 s). All 8 kept (final files hg101-hg108); none
dropped.

What the engines did. vLLM takes every default from a file or the override flag with one warning
(`Default vLLM sampling parameters have been overridden by ...: {...}`, naming the model's
generation_config.json even for the flag's value) and comes up; repetition_penalty 0 and top_p 0.0
make every completion relying on them `400 Bad Request` with no error line, those giving their
own value 200 OK (hg101, hg104: ready, serving); max_new_tokens 4096 over a 256-token context is
capped silently, all four completions 200 OK (hg102: ready, serving, the fault never shows but in
the warning); a JSON list for --override-generation-config dies building ModelConfig in pydantic's
words (`Input should be a valid dictionary [type=dict_type ...]`, hg103: crashed at launch).
SGLang checks --preferred-sampling-params only as JSON: both the list and top_p 0.0 start the
server and fail its own warmup request (`POST /generate` 500 for the list, with no word of why;
`[http_server] Error: top_p must be in (0, 1], got 0.0.` and 400 for top_p), then
`Initialization failed. warmup error` and the process tree killed (hg105, hg106: crashed in
warmup). top_p 95 in generation_config.json is taken (`Using default chat sampling params from
model generation config: {'temperature': 0.7, 'top_p': 95}`), warmup and /generate pass, the chat
requests relying on it get 400 with no error line (hg107: ready, serving). temperature 0.0 with
do_sample true is taken (do_sample is not among what SGLang reads) and served as greedy, every
chat request and /generate 200 OK (hg108: ready, serving, the fault never shows). Crashed: hg103
(launch), hg105, hg106 (warmup); served: hg101, hg102, hg104, hg107, hg108; none hung.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, copy_model, linger, up  # noqa: E402

ROOT = Path("/tmp/blind230")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
GENCONF_DIR = ROOT / "genconf-top-p-0"
# the tiny model ships no chat template; SGLang applies the model's defaults to chat only
CHAT_TEMPLATE = ROOT / "chat.jinja"

# a generation_config.json as a fine-tune's trainer saves it (not derived from config.json)
BASE_GENCONF = {"bos_token_id": 0, "eos_token_id": 1, "transformers_version": "5.19.0"}


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    GENCONF_DIR.mkdir(parents=True, exist_ok=True)
    (GENCONF_DIR / "generation_config.json").write_text(json.dumps(
        {**BASE_GENCONF, "do_sample": True, "temperature": 0.7, "top_p": 0.0}, indent=2) + "\n")
    CHAT_TEMPLATE.write_text("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n"
                             "{% endfor %}{% if add_generation_prompt %}assistant:{% endif %}")


_setup()


def genconf(name: str, **values: object) -> Callable[[Path], Path]:
    """A copy of the tiny model whose generation_config.json is a trainer's, with ``values``."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        (d / "generation_config.json").write_text(
            json.dumps({**BASE_GENCONF, **values}, indent=2) + "\n")
        return d
    return make


def v_requests(*bodies: dict) -> Callable[[Ctx], None]:
    """Once up: each body as a completion (the model filled in), then a pause; the run is
    let end by itself if it does not come up."""
    def act(ctx: Ctx) -> None:
        if up(ctx, 240):
            name = ctx.model_name()
            for b in bodies:
                ctx.post("/v1/completions", {"model": name, **b}, timeout=90)
            time.sleep(12)
        else:
            linger(ctx, 20)
    return act


def s_requests(*calls: tuple[str, dict]) -> Callable[[Ctx], None]:
    """Once SGLang is ready: each (path, body) posted ('model' filled in for /v1 paths), then a
    pause; the run is let end by itself if it never comes up."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_for(SG_READY, 300):
            name = ctx.model_name()
            for path, body in calls:
                if path.startswith("/v1/"):
                    body = {"model": name, **body}
                ctx.post(path, body, timeout=90)
            time.sleep(12)
        else:
            linger(ctx, 30)
    return act


PLAIN = {"prompt": "The quick brown fox", "max_tokens": 16}
SG_GEN = ("/generate", {"text": "The quick brown fox", "sampling_params": {"max_new_tokens": 16}})
SG_CMPL = ("/v1/completions", {"prompt": "The quick brown fox", "max_tokens": 16})
SG_CHAT = ("/v1/chat/completions", {"messages": [{"role": "user", "content": "Say hi"}],
                                    "max_tokens": 16})
SG_CHAT_ARGS = [*SG, "--chat-template", str(CHAT_TEMPLATE)]

SCENARIOS = [
    Scenario("v-override-genconf-rep-penalty-0", "vllm",
             "--override-generation-config '{\"repetition_penalty\": 0}' (0 meant as 'off'); "
             "two plain completions, one giving repetition_penalty 1.0, one plain",
             [*VLLM_BASE, "--override-generation-config", '{"repetition_penalty": 0}'],
             act=v_requests(PLAIN, PLAIN, {**PLAIN, "repetition_penalty": 1.0}, PLAIN)),
    Scenario("v-genconf-max-new-tokens-4096", "vllm",
             "generation_config.json max_new_tokens 4096 (the fine-tune's) under --max-model-len "
             "256; two completions without max_tokens, one with max_tokens 8, one without",
             VLLM_BASE, model=genconf("genconf-mnt-4096", max_new_tokens=4096),
             act=v_requests({"prompt": "The quick brown fox"}, {"prompt": "Once upon a time"},
                            {**PLAIN, "max_tokens": 8}, {"prompt": "fox"})),
    Scenario("v-override-genconf-list", "vllm",
             "--override-generation-config given a JSON list ('[{\"temperature\": 0.2}]') "
             "instead of an object",
             [*VLLM_BASE, "--override-generation-config", '[{"temperature": 0.2}]'],
             act=v_requests(PLAIN, PLAIN)),
    Scenario("v-generation-config-folder-top-p-0", "vllm",
             f"--generation-config {GENCONF_DIR} (a folder whose generation_config.json has "
             "do_sample true, temperature 0.7, top_p 0.0); two plain completions, one giving "
             "top_p 0.9, one plain",
             [*VLLM_BASE, "--generation-config", str(GENCONF_DIR)],
             act=v_requests(PLAIN, PLAIN, {**PLAIN, "top_p": 0.9}, PLAIN)),
    Scenario("s-preferred-sampling-list", "sglang",
             "--preferred-sampling-params given a JSON list ('[{\"temperature\": 0.2}]') instead "
             "of an object; two /generate calls, two completions",
             [*SG, "--preferred-sampling-params", '[{"temperature": 0.2}]'],
             act=s_requests(SG_GEN, SG_GEN, SG_CMPL, SG_CMPL)),
    Scenario("s-preferred-sampling-top-p-0", "sglang",
             "--preferred-sampling-params '{\"top_p\": 0.0}' (meant as greedy); two /generate "
             "calls relying on it, one giving top_p 0.9, one completion",
             [*SG, "--preferred-sampling-params", '{"top_p": 0.0}'],
             act=s_requests(SG_GEN, SG_GEN,
                            ("/generate", {"text": "The quick brown fox",
                                           "sampling_params": {"max_new_tokens": 16,
                                                               "top_p": 0.9}}),
                            SG_CMPL)),
    Scenario("s-genconf-top-p-95", "sglang",
             "generation_config.json top_p 95 (a conversion script's percentage) with do_sample "
             "true and temperature 0.7, SGLang's default chat sampling (--sampling-defaults "
             "model); a plain chat template by flag; a /generate, two chat requests relying on "
             "the defaults, one giving top_p 0.9, a /generate",
             SG_CHAT_ARGS, model=genconf("genconf-top-p-95", do_sample=True, temperature=0.7,
                                         top_p=95),
             act=s_requests(SG_GEN, SG_CHAT, SG_CHAT, (SG_CHAT[0], {**SG_CHAT[1], "top_p": 0.9}),
                            SG_GEN)),
    Scenario("s-genconf-temperature-0-do-sample", "sglang",
             "generation_config.json temperature 0.0 with do_sample true and top_p 0.9 (a "
             "fine-tune's export), SGLang's default chat sampling; a plain chat template by flag; "
             "two chat requests relying on it, one giving temperature 0.8, a /generate",
             SG_CHAT_ARGS, model=genconf("genconf-temp-0", do_sample=True, temperature=0.0,
                                         top_p=0.9),
             act=s_requests(SG_CHAT, SG_CHAT, (SG_CHAT[0], {**SG_CHAT[1], "temperature": 0.8}),
                            SG_GEN)),
]
