"""The two-hundred-and-thirty-sixth batch's scenarios (tests/fixtures/corpus/fresh235): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind236.py OUT

Themes: what a person's own working directory leaves around the launch - the engine started
with `cd PROJECT && python -m MODULE ...` from a notebook's or a project's folder, which -m puts
first on sys.path, so a file there named like a package the engines import shadows it. vLLM: a
tokenizers.py (a token-counting helper that itself imports transformers), a random.py (a
load test's prompt generator, shadowing the standard library's random), a triton.py (the
tutorial's vector-add kernel), a safetensors/ folder of the user's exported weights (no
__init__.py). SGLang: a requests.py (a urllib test client guarded by __main__), a uvloop.py (an
asyncio-vs-uvloop benchmark guarded by __main__), a legacy tokenizers.pyc that a deploy step's
`compileall -b` left after its source was deleted, a safetensors.py (a script printing a
.safetensors header with json and struct). Each scenario has its own folder
/tmp/blind236/NAME, written when this table is loaded, and runs entry="python" on
/tmp/blind236/incwd.py, which chdirs there, puts the folder first on sys.path and runs the
server module as `python -m` would. vLLM with VLLM_BASE's settings; SGLang with --device cpu
--model-impl transformers.

Earlier batches already had (not repeated): json.py, token.py and a triton/ client package in
the working directory, the engine launched from its own source checkout, a sitecustomize.py
importing a missing APM agent and a broken .pth hook (93rd); a logging.py and a
typing_extensions.py shim in the working directory, and uvloop, triton, llguidance, orjson,
psutil and safetensors broken on PYTHONPATH (150th); a half-copied safetensors and a stale
transformers on PYTHONPATH (71st); the working directory deleted (82nd); a relative model path
from the wrong working folder and wrapper scripts (105th); .env values with their quotes kept
(107th); sitecustomize.py files arming faulthandler or deterministic algorithms (121st, 148th);
interpreter options (158th); model paths as typed (159th).

Recorded 2026-12-07 in one invocation (raw1), each scenario once, under the shared recording
lock: vLLM 10, 0, 58 and 59 s, SGLang 5, 21, 6 and 9 s. 8 kept (final files
hm101-hm108), none dropped. v-cwd-safetensors-dir's fault never showed (a folder without
__init__.py is only a namespace portion; the installed package later on the path wins); it is
kept as a fair log of the ground, labelled ready.

What the engines did. vLLM: the tokenizers.py dies in the imports, the user's file importing
transformers back (`ImportError: cannot import name 'PreTrainedConfig' from partially
initialized module 'transformers.configuration_utils' (most likely due to a circular
import)`); the random.py ends at once in tempfile (`ImportError: cannot import name 'Random' from
'random' (/tmp/blind236/v-cwd-random-py/random.py)`); with the triton.py vLLM's probe prints
"Triton is installed, but `triton.backends` could not be imported. Disabling Triton." in each
process and serves two completions; with the safetensors/ folder it serves as if nothing were
there. SGLang: the requests.py imports (it is the user's module) and sglang/srt/utils/common.py
then fails `AttributeError: module 'requests' has no attribute 'exceptions'`; the uvloop.py gets
past sglang's own imports and dies as run_server imports the HTTP server (tokenizer_manager.py
`AttributeError: module 'uvloop' has no attribute 'EventLoopPolicy'`); the stray tokenizers.pyc
is imported without its source (`ImportError: cannot import name 'AddedToken' from 'tokenizers'
(.../tokenizers.pyc)`); the safetensors.py dies while server_args resolves its argument groups
(`ImportError: cannot import name 'safe_open' from 'safetensors'`). Crashed at launch: hm101,
hm102, hm105, hm106, hm107, hm108; ready in serving: hm103, hm104; none hung.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import LLAMA, SGLANG  # noqa: E402

ROOT = Path("/tmp/blind236")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
HOSTPORT = ["--host", "127.0.0.1", "--port", "{port}"]
INCWD = ROOT / "incwd.py"
VLLM_MOD = "vllm.entrypoints.openai.api_server"
SG_MOD = "sglang.launch_server"

# `cd DIR && python -m MODULE ARGS...`: the working folder first on sys.path, as -m puts it.
INCWD_SRC = '''\
"""cd DIR && python -m MODULE ARGS... (the folder first on sys.path, as -m puts it)."""
import os
import runpy
import sys

os.chdir(sys.argv[1])
sys.path[0] = os.getcwd()
sys.argv = [sys.argv[2], *sys.argv[3:]]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
'''

TOKENIZERS_PY = '''\
"""Count the tokens of my prompts with the model's tokenizer (notebook helper)."""
import sys

from transformers import AutoTokenizer


def count(path, texts):
    tok = AutoTokenizer.from_pretrained(path)
    return [len(tok(t).input_ids) for t in texts]


if __name__ == "__main__":
    print(count(sys.argv[1], sys.argv[2:]))
'''

RANDOM_PY = '''\
"""Make random prompts for the load test: python random.py N > prompts.jsonl"""
import json
import sys

WORDS = "the quick brown fox jumps over the lazy dog while the cat sleeps".split()


def prompts(n, seed=1):
    x = seed
    for _ in range(n):
        x = (x * 1103515245 + 12345) % 2**31
        yield " ".join(WORDS[(x >> s) % len(WORDS)] for s in range(0, 24, 3))


if __name__ == "__main__":
    for p in prompts(int(sys.argv[1])):
        print(json.dumps({"prompt": p}))
'''

TRITON_PY = '''\
"""My first Triton kernel: vector add, from the tutorial."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


def add(x, y):
    out = torch.empty_like(x)
    add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
    return out


if __name__ == "__main__":
    a = torch.rand(4096, device="cuda")
    print(torch.allclose(add(a, a), a + a))
'''

REQUESTS_PY = '''\
"""Send a few test requests to the server (urllib only: no third-party packages)."""
import json
import sys
import urllib.request


def complete(port, prompt, max_tokens=16):
    body = json.dumps({"model": "default", "prompt": prompt, "max_tokens": max_tokens})
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/completions", data=body.encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())["choices"][0]["text"]


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 30000
    for p in ["The quick brown fox", "Once upon a time"]:
        print(repr(complete(port, p)))
'''

UVLOOP_PY = '''\
"""Is uvloop faster than asyncio's own loop for our toy echo workload?"""
import asyncio
import time


async def work(n):
    q = asyncio.Queue()
    for i in range(n):
        await q.put(i)
        await q.get()


def bench(n=200_000):
    t = time.perf_counter()
    asyncio.run(work(n))
    base = time.perf_counter() - t
    import uvloop
    t = time.perf_counter()
    uvloop.run(work(n))
    return base, time.perf_counter() - t


if __name__ == "__main__":
    print(bench())
'''

TOKENIZERS_HELPER_PY = '''\
"""Token budget helper: split long documents into chunks of at most N words."""


def chunks(text, n=200):
    words = text.split()
    return [" ".join(words[i:i + n]) for i in range(0, len(words), n)]


if __name__ == "__main__":
    import sys
    print(len(chunks(open(sys.argv[1]).read())))
'''

SAFETENSORS_PY = '''\
"""Print the tensor names, dtypes and shapes in a .safetensors file's header."""
import json
import struct
import sys


def header(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        return json.loads(f.read(n))


if __name__ == "__main__":
    for name, meta in header(sys.argv[1]).items():
        if name != "__metadata__":
            print(name, meta["dtype"], meta["shape"])
'''


def _dir(name: str) -> Path:
    d = ROOT / name
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    return d


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    INCWD.write_text(INCWD_SRC)
    (_dir("v-cwd-tokenizers-py") / "tokenizers.py").write_text(TOKENIZERS_PY)
    (_dir("v-cwd-random-py") / "random.py").write_text(RANDOM_PY)
    (_dir("v-cwd-triton-py") / "triton.py").write_text(TRITON_PY)
    weights = _dir("v-cwd-safetensors-dir") / "safetensors"
    weights.mkdir()
    for f in sorted(LLAMA.dir.glob("model-*.safetensors"))[:1]:
        shutil.copy(f, weights / f"my-finetune-{f.name}")
    (_dir("s-cwd-requests-py") / "requests.py").write_text(REQUESTS_PY)
    (_dir("s-cwd-uvloop-py") / "uvloop.py").write_text(UVLOOP_PY)
    d = _dir("s-cwd-tokenizers-pyc")
    (d / "tokenizers.py").write_text(TOKENIZERS_HELPER_PY)
    # `python -m compileall -b .` in a deploy step leaves tokenizers.pyc beside the source;
    # the source was deleted later, the legacy .pyc stayed (and is imported without it).
    subprocess.run([str(SGLANG.python), "-c", "import py_compile, sys; "
                    "py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)",
                    str(d / "tokenizers.py"), str(d / "tokenizers.pyc")], check=True)
    (d / "tokenizers.py").unlink()
    (_dir("s-cwd-safetensors-py") / "safetensors.py").write_text(SAFETENSORS_PY)


_setup()


def ends_or_serves(ctx: Ctx) -> None:
    """Let the run end by itself; if it serves instead, two completions and a pause."""
    found = ctx.wait_any([READY_LINE], 200)
    if found and ctx.proc is not None and ctx.proc.poll() is None:
        if "sglang" in ctx.text().split("\n", 1)[0]:
            ctx.wait_any([SG_READY], 90)
        ctx.complete(2)
        time.sleep(10)
    else:
        linger(ctx, 20)


def v(name: str, what: str) -> Scenario:
    return Scenario(name, "vllm", what,
                    [str(INCWD), str(ROOT / name), VLLM_MOD, "--model", "{model}", *HOSTPORT,
                     *VLLM_BASE], entry="python", act=ends_or_serves)


def s(name: str, what: str) -> Scenario:
    return Scenario(name, "sglang", what,
                    [str(INCWD), str(ROOT / name), SG_MOD, "--model-path", "{model}",
                     *HOSTPORT, *SG], entry="python", act=ends_or_serves)


SCENARIOS = [
    v("v-cwd-tokenizers-py", "launched from a notebook folder holding the user's tokenizers.py "
      "(a token-counting helper that imports transformers)"),
    v("v-cwd-random-py", "launched from a load-test folder holding the user's random.py (a "
      "random-prompt generator)"),
    v("v-cwd-triton-py", "launched from a folder holding the user's triton.py (the tutorial's "
      "vector-add kernel, which imports triton and triton.language)"),
    v("v-cwd-safetensors-dir", "launched from a project folder holding a safetensors/ folder of "
      "the user's exported weights (no __init__.py)"),
    s("s-cwd-requests-py", "launched from a folder holding the user's requests.py (a urllib test "
      "client, guarded by __main__)"),
    s("s-cwd-uvloop-py", "launched from a folder holding the user's uvloop.py (an asyncio-vs-"
      "uvloop benchmark, guarded by __main__)"),
    s("s-cwd-tokenizers-pyc", "launched from a folder where a deploy step's `compileall -b` left "
      "tokenizers.pyc (a text-chunking helper) after its tokenizers.py was deleted"),
    s("s-cwd-safetensors-py", "launched from a folder holding the user's safetensors.py (a "
      "script printing a .safetensors file's header with json and struct)"),
]
