"""The hundred-and-sixtieth batch's scenarios (tests/fixtures/corpus/fresh159): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind160.py OUT

Themes: locale and text encoding around the engine - a minimal container or an old host whose
locale is not UTF-8. LC_ALL=C LANG=C with Python's UTF-8 mode off (PYTHONUTF8=0) and a served
model name with non-ASCII letters (both engines); PYTHONIOENCODING=latin-1 with a served name in
CJK letters (vLLM); LC_ALL/LANG naming fr_FR.UTF-8, a locale the host has not generated (the C
library stays in C), UTF-8 mode off, with request logging on and prompts holding non-ASCII text
(SGLang); tokenizer_config.json saved in Latin-1, a chat_template holding an e-acute as the
byte 0xE9 (both engines).

Earlier batches already had (not repeated): PYTHONIOENCODING=ascii (78th, both), config.json /
tokenizer.json with a UTF-8 BOM (76th), tokenizer.json / config.json / generation_config.json /
index re-saved as UTF-16 (78th, 89th), config.json in Latin-1 and a --chat-template in Latin-1
(85th, both), a model folder name with a Latin-1 byte (92nd) or non-ASCII letters (159th),
LC_ALL=C PYTHONUTF8=0 with a UTF-8 chat template (93rd, SGLang only), EncodingWarning made fatal
(93rd, 158th), lone surrogates in prompts (142nd).

vLLM runs with VLLM_BASE's settings; SGLang with --device cpu --model-impl transformers. Model
copies go to the recorder's work folder. Each run that serves gets /v1/models, a chat request
(400: the tiny model has no chat template), three completions with non-ASCII prompts and one
plain completion, all naming the served name where one is set.

Recorded 2026-12-06 in two invocations (raw1: v-served-name-non-ascii-c-locale, after which the
recorder was stopped while it waited for the lock and the table changed; raw2: the other seven
then in the table), taking turns with two other helpers' recorders; each scenario once. About 5.5
minutes of recording (vLLM 5+41+40+8 s, SGLang 162+42+13+13 s). 6 kept (final files
em101-em106). Dropped: v-log-requests-ioencoding-ascii (PYTHONIOENCODING=ascii with
--enable-log-requests and non-ASCII prompts: vLLM logs request params but not prompts at INFO,
so the only trace is the banner's `--- Logging error ---`, the same log as the 78th batch's
v-ioencoding-ascii) and s-chat-template-utf16 (a --chat-template saved as UTF-16: SGLang's
_load_jinja_template dies with `UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in
position 0`, the same log as the 85th's Latin-1 template but for the byte); both removed from
the table. Not recorded, after the first run showed why: vLLM under LC_ALL=fr_FR.UTF-8 (not
generated) with PYTHONUTF8=0, and vLLM under LANG=C PYTHONUTF8=0 with a UTF-8 chat template -
both would die as v-served-name-non-ascii-c-locale does, before any option is read.

What the engines did: vLLM cannot even be imported under an ASCII locale with UTF-8 mode off
(importing vllm imports torch._inductor.lowering, whose load_template reads a kernel template
that is not ASCII: `UnicodeDecodeError: 'ascii' codec can't decode byte 0xe2`, launch, 5 s),
while SGLang starts under it; SGLang keeps the non-ASCII served name as lone surrogates
('mod\\udcc3\\udca8le...'), so its own warm-up's GET /model_info fails 120 times in two minutes
(`UnicodeEncodeError: 'utf-8' codec can't encode characters ...: surrogates not allowed`) and
ends `Initialization failed. warmup error` (warmup). Under an ASCII or Latin-1 output encoding
both engines serve, but their log records that cannot be encoded become `--- Logging error ---`
blocks: vLLM's banner (block-drawing characters), its non-default args and engine config (the
CJK served name); SGLang's --log-requests `Receive`/`Finish` lines of non-ASCII prompts and
outputs. A Latin-1 tokenizer_config.json kills both at launch in transformers'
get_tokenizer_config (`'utf-8' codec can't decode byte 0xe9 in position 239`).
"""

from __future__ import annotations

import json
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, copy_model, linger  # noqa: E402

SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
PROMPTS = ["Grüße aus Köln, señor", "東京の天気は", "naïve café — “quoted”"]
NAME = "modèle-français"
CJK_NAME = "小羊驼-tiny"
C_LOCALE = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"}
FR_LOCALE = {"LC_ALL": "fr_FR.UTF-8", "LANG": "fr_FR.UTF-8", "PYTHONUTF8": "0"}


def tokconfig_latin1(name: str):
    """tokenizer_config.json saved by a Latin-1 editor, a chat_template with 0xE9 bytes in it."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = d / "tokenizer_config.json"
        cfg = json.loads(f.read_text())
        cfg["chat_template"] = ("{% for m in messages %}R\u00e9ponse {{ m['role'] }}: "
                                "{{ m['content'] }}\n{% endfor %}assistant:")
        f.write_bytes(json.dumps(cfg, indent=2, ensure_ascii=False).encode("latin-1"))
        return d
    return make


def get(ctx: Ctx, path: str) -> None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{ctx.port}{path}", timeout=20) as r:
            r.read()
    except OSError:
        pass


def traffic(ctx: Ctx, model: str) -> None:
    """/v1/models, a chat request and completions whose prompts hold non-ASCII text."""
    get(ctx, "/v1/models")
    ctx.post("/v1/chat/completions", {"model": model, "max_tokens": 8,
                                      "messages": [{"role": "user", "content": PROMPTS[0]}]})
    for p in PROMPTS:
        ctx.post("/v1/completions", {"model": model, "prompt": p, "max_tokens": 8})
    ctx.complete(1, max_tokens=8)


def v_act(model: str | None = None):
    def act(ctx: Ctx) -> None:
        ctx.wait_any([READY_LINE], 200)
        if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
            traffic(ctx, model or ctx.model_name())
            time.sleep(8)
    return act


def s_act(model: str | None = None):
    def act(ctx: Ctx) -> None:
        ctx.wait_any([SG_READY], 200)
        if ctx.proc is not None and ctx.proc.poll() is None and SG_READY in ctx.text():
            traffic(ctx, model or ctx.model_name())
            linger(ctx, 8)
    return act


def v(name: str, what: str, args: list[str], model=None, env=None, served=None) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], model=model, env=env or {},
                    act=v_act(served))


def s(name: str, what: str, args: list[str], model=None, env=None, served=None) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], model=model, env=env or {},
                    act=s_act(served))


SCENARIOS = [
    v("v-served-name-non-ascii-c-locale", f"LC_ALL=C LANG=C PYTHONUTF8=0 (an old base image) and "
      f"--served-model-name {NAME} (non-ASCII letters); /v1/models, chat and completions naming "
      "it", ["--served-model-name", NAME], env=C_LOCALE, served=NAME),
    v("v-ioencoding-latin1-served-name-cjk", "PYTHONIOENCODING=latin-1 (a host set up for "
      f"Western Europe) and --served-model-name {CJK_NAME} (CJK letters Latin-1 cannot "
      "show); /v1/models, chat and completions naming it", ["--served-model-name", CJK_NAME],
      env={"PYTHONIOENCODING": "latin-1"}, served=CJK_NAME),
    v("v-tokconfig-latin1", "tokenizer_config.json saved in Latin-1 (a chat_template holding the "
      "byte 0xE9)", [], model=tokconfig_latin1("tokconfig-latin1-v")),
    s("s-served-name-non-ascii-c-locale", f"LC_ALL=C LANG=C PYTHONUTF8=0 (an old base image) and "
      f"--served-model-name {NAME} (non-ASCII letters); /v1/models, chat and completions naming "
      "it", ["--served-model-name", NAME], env=C_LOCALE, served=NAME),
    s("s-log-requests-ungenerated-locale", "LC_ALL=LANG=fr_FR.UTF-8, a locale the host has not "
      "generated (the C library falls back to C), PYTHONUTF8=0, --log-requests; prompts with "
      "non-ASCII text", ["--log-requests"], env=FR_LOCALE),
    s("s-tokconfig-latin1", "tokenizer_config.json saved in Latin-1 (a chat_template holding the "
      "byte 0xE9)", [], model=tokconfig_latin1("tokconfig-latin1-s")),
]
