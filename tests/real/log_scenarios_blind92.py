"""The ninety-second batch's scenarios (tests/fixtures/corpus/fresh91): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind92.py OUT

Themes: the launch's network address and port (a host name that does not resolve, the IPv6
wildcard, an IPv6 link-local address given without its interface, an address this host lacks,
a privileged port in a container without CAP_NET_BIND_SERVICE, a proxy variable the engine's
own warmup request obeys, a proxy in front of the hub), the model folder as the filesystem
presents it (a folder name holding glob brackets or a byte that is not UTF-8, a shard that is a
symlink to itself, files and folders whose permission bits deny reading to a root without
CAP_DAC_OVERRIDE, an index naming shards of another split), and the model's auxiliary configs
(a generation_config.json default the sampler refuses, chat templates in tokenizer_config.json
given as a list with no default or calling a filter Jinja lacks, added tokens whose ids lie past
the model's embedding).

SGLang's own Llama module cannot be built on this host (it imports vllm), so its scenarios that
must reach weight loading, the HTTP server or its warmup request run the model through the
Transformers backend (--model-impl transformers), with which it serves here.

The scenarios that need a capability dropped (``drop_caps``: v-port-privileged, v-shard-unreadable,
v-model-dir-chmod-644, s-port-privileged, s-config-unreadable) take it out of the recorder's own
bounding set, which cannot be given back: record them in an invocation of their own, after the
others. Broken model copies go to OUT/.work.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    Step,
    copy_model,
    json_edit,
    linger,
    serve_short,
    sg_until_exit,
    until_exit,
    up,
)

BASE = VLLM_BASE
SG = ["--device", "cpu"]
SG_SERVE = [*SG, "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
HUB_ID = Path("Qwen/Qwen2.5-0.5B-Instruct")

# capabilities (linux/capability.h) and prctl's PR_CAPBSET_DROP
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_NET_BIND_SERVICE = 1, 2, 10
PR_CAPBSET_DROP = 24


def drop_caps(*caps: int) -> Step:
    """The launch runs as a root without ``caps`` (a container started with --cap-drop): they
    leave the recorder's bounding set, so every process it starts from now on lacks them."""
    def before(ctx: Ctx) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        for cap in caps:
            if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), f"PR_CAPBSET_DROP {cap}")
    return before


NO_DAC = drop_caps(CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH)
NO_BIND = drop_caps(CAP_NET_BIND_SERVICE)

PROXY = "http://127.0.0.1:9"
PROXY_ENV = {"http_proxy": PROXY, "HTTP_PROXY": PROXY, "https_proxy": PROXY, "HTTPS_PROXY": PROXY}
HUB_PROXY_ENV = {"HF_HUB_OFFLINE": "0", "TRANSFORMERS_OFFLINE": "0",
                 "HF_HOME": "/tmp/blind92/hf-empty", "HTTPS_PROXY": PROXY, "https_proxy": PROXY}

LINK_LOCAL = "fe80::fc:ff:fe00:1"      # eth0's link-local address here, without its %eth0


# --- the model folder as the filesystem presents it ------------------------------------------

def bracket_folder(work: Path) -> Path:
    """A copy in a folder whose name holds glob brackets (a model card's title kept as is)."""
    return copy_model(work, "Llama-tiny [bf16]")


def latin1_folder(work: Path) -> Path:
    """A copy in a folder whose name holds the Latin-1 byte 0xE8 (a zip made on Windows,
    unpacked here): not UTF-8."""
    return copy_model(work, os.fsdecode(b"mod\xe8les-tiny"))


def shard_self_link(work: Path) -> Path:
    """The third shard a symlink to itself (a sync tool's botched relink)."""
    d = copy_model(work, "shard-self-link")
    shard = sorted(d.glob("model-*.safetensors"))[2]
    shard.unlink()
    shard.symlink_to(shard.name)
    return d


def shard_mode_000(work: Path) -> Path:
    """The third shard mode 000 (copied in by another tool with a restrictive umask)."""
    d = copy_model(work, "shard-mode-000")
    sorted(d.glob("model-*.safetensors"))[2].chmod(0)
    return d


def folder_mode_644(work: Path) -> Path:
    """`chmod -R 644` over the model folder: the files readable, the folder not searchable."""
    d = copy_model(work, "folder-644")
    for f in d.iterdir():
        f.chmod(0o644)
    d.chmod(0o644)
    return d


def config_mode_000(work: Path) -> Path:
    d = copy_model(work, "config-mode-000")
    (d / "config.json").chmod(0)
    return d


def index_other_split(work: Path) -> Path:
    """model.safetensors.index.json from a five-shard split of the same weights, beside the
    four shards of this one."""
    d = copy_model(work, "index-other-split")
    f = d / "model.safetensors.index.json"
    idx = json.loads(f.read_text())
    idx["weight_map"] = {k: v.replace("-of-00004", "-of-00005")
                         for k, v in idx["weight_map"].items()}
    f.write_text(json.dumps(idx, indent=2))
    return d


# --- auxiliary configs ------------------------------------------------------------------------

def added_tokens_past_vocab(name: str):
    """tokenizer.json with two tool-call tokens at ids 700 and 701 (a tokenizer from a sibling
    model whose embedding was resized; this one's has 512 rows)."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = d / "tokenizer.json"
        t = json.loads(f.read_text())
        base = dict(t["added_tokens"][0])
        for i, tok in ((700, "<tool_call>"), (701, "</tool_call>")):
            t["model"]["vocab"][tok] = i
            t["added_tokens"].append({**base, "id": i, "content": tok})
        f.write_text(json.dumps(t))
        return d
    return make


PLAIN_JINJA = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
               "{% if add_generation_prompt %}assistant:{% endif %}")
named_templates = json_edit("chat-templates-named", "tokenizer_config.json", chat_template=[
    {"name": "tool_use", "template": "{% if tools %}Tools: {{ tools | tojson }}\n{% endif %}"
                                     + PLAIN_JINJA},
    {"name": "rag", "template": "{% for d in documents %}{{ d['text'] }}\n{% endfor %}"
                                + PLAIN_JINJA}])
filter_template = json_edit("chat-template-filter", "tokenizer_config.json", chat_template=(
    "{% for m in messages %}{{ m['role'] }}: {{ m['content'] | to_nice_json }}\n{% endfor %}"
    "{% if add_generation_prompt %}assistant:{% endif %}"))
genconfig_rep0 = json_edit("genconfig-rep0", "generation_config.json", repetition_penalty=0.0,
                           temperature=0.7)
# the tiny model ships no chat template: the chat scenarios give one by flag
CHAT_TEMPLATE = Path("/tmp/blind92/chat.jinja")


def write_template(ctx: Ctx) -> None:
    CHAT_TEMPLATE.parent.mkdir(parents=True, exist_ok=True)
    CHAT_TEMPLATE.write_text(PLAIN_JINJA)


# --- steps ------------------------------------------------------------------------------------

def chat(ctx: Ctx, n: int = 1) -> None:
    for _ in range(n):
        ctx.post("/v1/chat/completions", {"model": ctx.model_name(), "max_tokens": 16,
                                          "messages": [{"role": "user", "content": "hi"}]})


def serve_then_chat(ctx: Ctx) -> None:
    """One completion, two chat requests, one completion."""
    if not up(ctx, 240):
        return
    ctx.complete(1)
    chat(ctx, 2)
    ctx.complete(1)
    linger(ctx, 12)


def serve_tool_tokens(ctx: Ctx) -> None:
    """Two completions, then a prompt holding the tool-call tokens, then one completion."""
    if not up(ctx, 240):
        return
    ctx.complete(2)
    ctx.post("/v1/completions", {"model": ctx.model_name(), "max_tokens": 16,
                                 "prompt": "<tool_call> fox </tool_call>"})
    time.sleep(2)
    ctx.complete(1)
    linger(ctx, 15)


def sg_generate(ctx: Ctx, text: str, **params: object) -> int:
    return ctx.post("/generate", {"text": text,
                                  "sampling_params": {"max_new_tokens": 16, **params}}, 120)


def sg_tool_tokens(ctx: Ctx) -> None:
    """Two generations, then one whose prompt holds the tool-call tokens, then one more."""
    if not ctx.wait_for(SG_READY, 240):
        return
    sg_generate(ctx, "fox")
    sg_generate(ctx, "fox 2")
    sg_generate(ctx, "<tool_call> fox </tool_call>")
    time.sleep(2)
    sg_generate(ctx, "fox 3")
    linger(ctx, 15)


def sg_then_chat(ctx: Ctx) -> None:
    """If it serves: one generation, two chat requests, one generation."""
    if ctx.wait_any([SG_READY], 240) is None:
        return
    sg_generate(ctx, "fox")
    chat(ctx, 2)
    sg_generate(ctx, "fox 2")
    linger(ctx, 12)


def sg_maybe_serve(ctx: Ctx) -> None:
    """Until it ends (up to 200 s); if it serves, two generations and a pause."""
    if ctx.wait_any([SG_READY], 200) is not None:
        sg_generate(ctx, "fox")
        ctx.complete(1)
        linger(ctx, 12)


def sg_long(ctx: Ctx) -> None:
    """Its warmup may retry for two minutes: give it 220 s."""
    linger(ctx, 220)


SCENARIOS = [
    # vLLM: addresses and ports
    Scenario("v-host-unresolved", "vllm", "--host vllm-0.vllm.inference.svc.cluster.local (a "
             "pod's DNS name from a manifest, which does not resolve here)",
             [*BASE, "--host", "vllm-0.vllm.inference.svc.cluster.local"], act=until_exit),
    Scenario("v-host-ipv6-wildcard", "vllm", "--host :: (the IPv6 wildcard, as an IPv6 cluster's "
             "manifests set it); requests over IPv4 to the dual-stack socket",
             [*BASE, "--host", "::"], act=serve_short),
    Scenario("v-host-link-local", "vllm", f"--host {LINK_LOCAL} (this host's IPv6 link-local "
             "address, given without its %eth0 scope)", [*BASE, "--host", LINK_LOCAL],
             act=until_exit),
    Scenario("v-port-privileged", "vllm", "--port 443 in a container run as root without "
             "CAP_NET_BIND_SERVICE (docker --cap-drop)", [*BASE, "--port", "443"],
             before=NO_BIND, act=until_exit),
    Scenario("v-https-proxy-refused", "vllm", "a hub model id fetched online through "
             "HTTPS_PROXY=http://127.0.0.1:9 (a proxy variable left from another network; "
             "nothing listens there), empty HF_HOME", BASE, model=lambda work: HUB_ID,
             env=HUB_PROXY_ENV, act=until_exit),
    # vLLM: the model folder on disk
    Scenario("v-model-path-brackets", "vllm", "the model folder named 'Llama-tiny [bf16]' (glob "
             "brackets in the name)", BASE, model=bracket_folder, act=until_exit),
    Scenario("v-model-path-latin1-byte", "vllm", "the model folder's name holds the byte 0xE8 "
             "(Latin-1 'è' from a zip made on Windows), not UTF-8", BASE, model=latin1_folder,
             act=until_exit),
    Scenario("v-shard-symlink-loop", "vllm", "the third safetensors shard a symlink to itself",
             BASE, model=shard_self_link, act=until_exit),
    Scenario("v-shard-unreadable", "vllm", "the third safetensors shard mode 000, the server a "
             "root without CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH (docker --cap-drop)", BASE,
             model=shard_mode_000, before=NO_DAC, act=until_exit),
    Scenario("v-model-dir-chmod-644", "vllm", "chmod -R 644 over the model folder (the folder "
             "loses its search bit), the server a root without CAP_DAC_OVERRIDE / "
             "CAP_DAC_READ_SEARCH", BASE, model=folder_mode_644, before=NO_DAC, act=until_exit),
    # vLLM: auxiliary configs
    Scenario("v-chat-templates-no-default", "vllm", "tokenizer_config.json chat_template a list "
             "of named templates (tool_use, rag) with none named default; a completion, two chat "
             "requests, a completion", BASE, model=named_templates, act=serve_then_chat),
    Scenario("v-added-tokens-past-vocab", "vllm", "tokenizer.json adds <tool_call> and "
             "</tool_call> at ids 700 and 701, past the model's 512-row embedding; two "
             "completions, then a prompt holding them, then one more", BASE,
             model=added_tokens_past_vocab("added-past-vocab-v"), act=serve_tool_tokens),
    # SGLang: addresses and ports
    Scenario("s-host-link-local", "sglang", f"--model-impl transformers; --host {LINK_LOCAL} "
             "(this host's IPv6 link-local address, given without its %eth0 scope)",
             [*SG_SERVE, "--host", LINK_LOCAL], act=sg_until_exit),
    Scenario("s-host-not-local", "sglang", "--model-impl transformers; --host 10.99.99.99, an "
             "address this host does not have (a launch line copied from another machine)",
             [*SG_SERVE, "--host", "10.99.99.99"], act=sg_until_exit),
    Scenario("s-port-privileged", "sglang", "--model-impl transformers; --port 443 in a "
             "container run as root without CAP_NET_BIND_SERVICE (docker --cap-drop)",
             [*SG_SERVE, "--port", "443"], before=NO_BIND, act=sg_until_exit),
    Scenario("s-http-proxy-refused", "sglang", "--model-impl transformers; http_proxy / "
             "HTTP_PROXY / https_proxy set to http://127.0.0.1:9 (nothing listens) and no "
             "no_proxy", SG_SERVE, env=PROXY_ENV, act=sg_long),
    # SGLang: the model folder on disk
    Scenario("s-model-path-brackets", "sglang", "--model-impl transformers; the model folder "
             "named 'Llama-tiny [bf16]' (glob brackets in the name)", SG_SERVE,
             model=bracket_folder, act=sg_maybe_serve),
    Scenario("s-shard-symlink-loop", "sglang", "--model-impl transformers; the third "
             "safetensors shard a symlink to itself", SG_SERVE, model=shard_self_link,
             act=sg_maybe_serve),
    Scenario("s-index-other-split", "sglang", "--model-impl transformers; "
             "model.safetensors.index.json naming the shards of a five-way split "
             "(model-0000N-of-00005) beside the four shards present", SG_SERVE,
             model=index_other_split, act=sg_maybe_serve),
    Scenario("s-config-unreadable", "sglang", "config.json mode 000, the server a root without "
             "CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH (docker --cap-drop)", SG,
             model=config_mode_000, before=NO_DAC, act=sg_until_exit),
    # SGLang: auxiliary configs
    Scenario("s-genconfig-rep-penalty-0", "sglang", "--model-impl transformers; "
             "generation_config.json repetition_penalty 0.0 (and temperature 0.7), which SGLang "
             "takes as its default chat sampling parameters; a plain chat template by flag; a "
             "generation, two chat requests, a generation",
             [*SG_SERVE, "--chat-template", str(CHAT_TEMPLATE)], model=genconfig_rep0,
             before=write_template, act=sg_then_chat),
    Scenario("s-chat-template-unknown-filter", "sglang", "--model-impl transformers; "
             "tokenizer_config.json chat_template calling to_nice_json (an Ansible filter Jinja "
             "lacks); a generation, two chat requests, a generation", SG_SERVE,
             model=filter_template, act=sg_then_chat),
    Scenario("s-added-tokens-past-vocab", "sglang", "--model-impl transformers; tokenizer.json "
             "adds <tool_call> and </tool_call> at ids 700 and 701, past the model's 512-row "
             "embedding; two generations, then a prompt holding them, then one more", SG_SERVE,
             model=added_tokens_past_vocab("added-past-vocab-s"), act=sg_tool_tokens),
]

# Recorded 2026-12-05 (about 23 minutes of recording in all, the SGLang runs that retry or linger
# taking 150-220 s each). All 23 kept, as final files bw101-bw123. s-genconfig-rep-penalty-0 was
# recorded twice: the first time without a chat template, no chat request was sent and the
# defaults (which SGLang applies to chat requests only) never bit; the kept run gives one by flag.
# Found while recording: SGLang takes --host as its torch.distributed rendezvous address too, so a
# host it cannot reach leaves the scheduler retrying for 30 minutes (s-host-link-local,
# s-host-not-local were cut at 150 s); an unreachable address here answers TCP with HTTP (the
# TCPStore ping reads 'HTTP'); safetensors reports a shard it may not read as `No such file or
# directory`; vLLM's tokenizer path check passes ids up to the tokenizer's own maximum, so ids
# past the embedding reach the compiled model (index out of bounds) and kill the engine.
