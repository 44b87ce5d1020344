"""The eighty-fifth batch's scenarios (tests/fixtures/corpus/fresh84): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind85.py OUT

Broken model copies go to OUT/.work.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import psutil  # noqa: E402
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    child_signal_when,
    copy_model,
    linger,
    sg_until_exit,
    signal_quietly,
    signal_serving,
    until_exit,
)

BASE = VLLM_BASE
SG = ["--device", "cpu"]
LONG_TMP = "/tmp/blind85/" + "/".join(["t" * 60] * 3)


def config_latin1(name: str):
    """config.json saved by a Latin-1 editor: a name with an e-acute as the single byte 0xE9."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = d / "config.json"
        cfg = json.loads(f.read_text())
        cfg["_name_or_path"] = "tiny-mod\u00e8le"
        f.write_bytes(json.dumps(cfg, indent=2, ensure_ascii=False).encode("latin-1"))
        return d
    return make


def config_deep_nest(name: str):
    """config.json with a key whose value is 100000 nested lists (a generator's runaway)."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = d / "config.json"
        text = f.read_text().rstrip()
        assert text.endswith("}")
        f.write_text(text[:-1].rstrip() + ',\n  "extra": ' + "[" * 100000 + "]" * 100000 + "\n}\n")
        return d
    return make


def shard_tail_junk(work: Path) -> Path:
    """4 KiB of junk appended to shard 2 (a download resumed twice)."""
    d = copy_model(work, "shard-tail-junk")
    f = sorted(d.glob("model-*.safetensors"))[1]
    with open(f, "ab") as fh:
        fh.write(os.urandom(4096))
    return d


def long_tmpdir(ctx: Ctx) -> None:
    Path(LONG_TMP).mkdir(parents=True, exist_ok=True)


def worker_when(needles: list[str], sig: int, delay: float, after_s: float = 45):
    return child_signal_when("VLLM::Worker", needles, sig, delay, after_s)


def api_when(needles: list[str], sig: int, delay: float, after_s: float = 45):
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        if ctx.wait_any(needles, 240) is None:
            return
        import time
        time.sleep(delay)
        signal_quietly(ctx.proc, sig)
        linger(ctx, after_s)
    return act


def as_squeeze(child: str, needles: list[str] | None, after_s: float = 60):
    """The address-space limit (prlimit -v) of the ``child`` process(es) set to what each
    maps now, once a needle is logged (None: once the child has named itself)."""
    def act(ctx: Ctx) -> None:
        import time
        assert ctx.proc is not None
        if needles:
            if ctx.wait_any(needles, 240) is None:
                return
        else:
            end = time.monotonic() + 90
            while not ctx.children(child) and time.monotonic() < end and ctx.proc.poll() is None:
                time.sleep(0.2)
            time.sleep(0.3)
        for p in ctx.children(child):
            try:
                vms = p.memory_info().vms
                p.rlimit(psutil.RLIMIT_AS, (vms, vms))
            except psutil.Error:
                pass
        linger(ctx, after_s)
    return act


SSL_DIR = "/tmp/blind85"

SCENARIOS = [
    # vLLM
    Scenario("v-config-latin1", "vllm", "config.json written in Latin-1 (a byte 0xE9 in a name "
             "value)", BASE, model=config_latin1("config-latin1-v"), act=until_exit),
    Scenario("v-config-deep-nest", "vllm", "config.json with an extra key nesting 100000 lists",
             BASE, model=config_deep_nest("config-deep-nest-v"), act=until_exit),
    Scenario("v-shard-tail-junk", "vllm", "4 KiB of random bytes appended to shard 2", BASE,
             model=shard_tail_junk, act=until_exit),
    Scenario("v-tmpdir-long", "vllm", "TMPDIR a 200-character deep folder (longer than a unix "
             "socket path may be)", BASE, env={"TMPDIR": LONG_TMP}, before=long_tmpdir,
             act=until_exit),
    Scenario("v-ssl-cert-dir", "vllm", "--ssl-certfile and --ssl-keyfile naming a folder",
             [*BASE, "--ssl-certfile", SSL_DIR, "--ssl-keyfile", SSL_DIR], act=until_exit),
    Scenario("v-segv-worker-kvcache", "vllm", "SIGSEGV to the model worker process 0.2 s after "
             "the KV cache size is reported", BASE,
             act=worker_when(["CPU KV cache size"], signal.SIGSEGV, 0.2)),
    Scenario("v-kill-worker-warmup", "vllm", "SIGKILL to the model worker process 1 s into the "
             "compile warm-up", BASE,
             act=worker_when(["Warming up model for the"], signal.SIGKILL, 1.0)),
    Scenario("v-ill-api-load", "vllm", "SIGILL (default action: core dump) to the API server "
             "process 1 s after the worker starts loading the model", BASE,
             act=api_when(["Starting to load model"], signal.SIGILL, 1.0)),
    Scenario("v-as-squeeze-worker-load", "vllm", "the model worker's address-space limit set to "
             "what it maps, as it starts to load the model", BASE,
             act=as_squeeze("VLLM::Worker", ["Starting to load model"])),
    Scenario("v-hup-worker-serving", "vllm", "two completions served, then SIGHUP to the model "
             "worker process; one more request", BASE,
             act=signal_serving("VLLM::Worker", signal.SIGHUP)),
    # SGLang
    Scenario("s-config-latin1", "sglang", "config.json written in Latin-1 (a byte 0xE9 in a name "
             "value)", SG, model=config_latin1("config-latin1-s"), act=sg_until_exit),
    Scenario("s-config-deep-nest", "sglang", "config.json with an extra key nesting 100000 "
             "lists", SG, model=config_deep_nest("config-deep-nest-s"), act=sg_until_exit),
    Scenario("s-tmpdir-long", "sglang", "TMPDIR a 200-character deep folder (longer than a unix "
             "socket path may be)", SG, env={"TMPDIR": LONG_TMP}, before=long_tmpdir,
             act=sg_until_exit),
    Scenario("s-usr2-scheduler-init", "sglang", "SIGUSR2 (default action: terminate) to the "
             "scheduler subprocess 0.2 s after it names itself", SG,
             act=child_signal_when("sglang::scheduler", None, signal.SIGUSR2, 0.2, 60)),
    Scenario("s-trap-scheduler-init", "sglang", "SIGTRAP (default action: core dump) to the "
             "scheduler subprocess 0.2 s after it names itself", SG,
             act=child_signal_when("sglang::scheduler", None, signal.SIGTRAP, 0.2, 60)),
    Scenario("s-as-squeeze-scheduler-init", "sglang", "the scheduler's address-space limit set "
             "to what it maps, once it names itself", SG,
             act=as_squeeze("sglang::scheduler", None)),
]


# --- second round: two more file surprises per engine ----------------------------------------

TEMPLATE = "/tmp/blind85/template-latin1.jinja"


def tokenizer_deep_nest(name: str):
    """tokenizer.json with an extra top-level key nesting 5000 lists."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = d / "tokenizer.json"
        text = f.read_text().rstrip()
        assert text.endswith("}")
        f.write_text(text[:-1].rstrip() + ', "extra": ' + "[" * 5000 + "]" * 5000 + "\n}\n")
        return d
    return make


def latin1_template(ctx: Ctx) -> None:
    """A chat template saved in Latin-1 (a French greeting with 0xE9 bytes)."""
    Path(TEMPLATE).write_bytes(
        "{% for m in messages %}R\u00e9ponse: {{ m['content'] }}\n{% endfor %}".encode("latin-1"))


SCENARIOS += [
    Scenario("v-tokenizer-deep-nest", "vllm", "tokenizer.json with an extra key nesting 5000 "
             "lists", BASE, model=tokenizer_deep_nest("tokenizer-deep-nest-v"), act=until_exit),
    Scenario("v-chat-template-latin1", "vllm", "--chat-template naming a file saved in Latin-1",
             [*BASE, "--chat-template", TEMPLATE], before=latin1_template, act=until_exit),
    Scenario("s-tokenizer-deep-nest", "sglang", "tokenizer.json with an extra key nesting 5000 "
             "lists", SG, model=tokenizer_deep_nest("tokenizer-deep-nest-s"), act=sg_until_exit),
    Scenario("s-chat-template-latin1", "sglang", "--chat-template naming a file saved in "
             "Latin-1", [*SG, "--chat-template", TEMPLATE], before=latin1_template,
             act=sg_until_exit),
]

# All twenty scenarios were recorded once and kept (final files bp101-bp120). None was silent,
# though v-ill-api-load hit later than meant: the weights loaded in 0.01 s, before the 1 s delay
# ran out, so the API server died during the compile warm-up instead of the load.
