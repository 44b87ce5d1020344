"""The hundred-and-twenty-seventh batch's scenarios (tests/fixtures/corpus/fresh126): faults
chosen, recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind127.py OUT

Themes: offline use from a Python script - vLLM's `LLM` class and SGLang's `sglang.Engine`
driven by a user's own script (entry="python": the engine's interpreter on a script written
under /tmp/blind127/scripts when this table is loaded), with the mistakes people make in such
scripts. vLLM: a script without the `if __name__ == "__main__":` guard run with
VLLM_WORKER_MULTIPROC_METHOD=spawn (the engine core re-imports the script); a prompt longer than
the model's window (max_model_len 256); SamplingParams' max_tokens read from the environment as
a string; LLM.chat given messages without a `role`; a Ctrl-C (SIGINT to the whole process group)
in the middle of a long generation; the script's output piped into `head -n 3`, which exits and
leaves the rest to a closed pipe. SGLang: Engine.generate called inside a running asyncio loop
(`asyncio.run(main())`); the Engine used again after engine.shutdown(); mem_fraction_static
given as a string; a prompt longer than the model's 2048-token context.

Earlier batches already had (fresh95, the 96th table; not repeated): a keyword LLM/Engine does
not know, LLM.chat without a chat template, LLM.embed on a generative model, top_p 0, beam
search, a script raising after generating, a script ending without del/shutdown, SGLang's
Engine made without the `__main__` guard, a negative temperature, prompts and sampling-params
lists of other lengths.

SGLang's own Llama module cannot be built here, so its Engine runs use
model_impl="transformers"; vLLM's LLM is built with VLLM_BASE's settings (max_model_len 256,
bfloat16, gpu_memory_utilization 0.25). The chat template for LLM.chat is a plain one written to
/tmp/blind127/chat.jinja (the tiny model has none).

Recorded 2026-12-06 in five invocations (raw1-raw5 under /tmp/blind127), taking turns with three
other helpers' recorders; about 9.5 minutes of my own recording (568 s: vLLM 15+35+32+34+35+36+64
+40 s, SGLang 30+100+23+30+94 s), ten logs kept (df101-df110). v-llm-ctrl-c-generating took three
takes: the first (64 prompts) finished generating in under a second, before the Ctrl-C; the
second waited for a needle that the source line itself holds (the scenario's `what`), so the
SIGINT went 4 s after launch, during imports, and left no trace (the run went on to generate; a
Ctrl-C that early did nothing visible) - the needle is now the script's own `[batch] submitting`
line, and the third take is kept. Dropped: s-engine-ctrl-c-generating (recorded once, 94 s, and
removed from the table): SGLang's offline Engine printed nothing at all for the Ctrl-C and the
script did not exit within 60 s, so the log ends on the script's `[batch] submitting 256 prompts`
line - the fault never shows. What the engines did: vLLM's LLM with the spawn method and no
`__main__` guard dies as the engine core re-imports the script (`An attempt has been made to
start a new process before the current process has finished its bootstrapping phase`, then
`Engine core initialization failed`). vLLM refuses a prompt over max_model_len offline with
`VLLMValidationError: This model's maximum context length is 256 tokens`, a string max_tokens
with a TypeError in SamplingParams._verify_args, and messages without a role with a bare
`KeyError: 'role'`; each after the engine is up. `python gen.py | head -n 3`: vLLM logs to
stdout, so once head exits every log record becomes `--- Logging error --- ... BrokenPipeError`
(with its call stack and `Message:`), the engine still loads and generates, and the script's
own print dies of BrokenPipeError. A Ctrl-C to vLLM's group mid-generation: the engine core logs
`trigger received signal=SIGINT`, the worker exits, the core reports a fatal error (`RuntimeError:
cancelled`) and the script gets EngineDeadError, not KeyboardInterrupt. SGLang's synchronous
Engine.generate inside a running loop: `RuntimeError: This event loop is already running`;
generate after shutdown() blocks forever without a word; mem_fraction_static '0.5' is accepted
and fails in the scheduler sizing the KV pool (`TypeError: unsupported operand type(s) for -:
'int' and 'str'`, then SGLang kills its own group: exit -9); a prompt over the context is refused
in TokenizerManager (`ValueError: The input (2972 tokens) is longer than the model's context
length (2048 tokens).`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import Ctx, Scenario, Step  # noqa: E402

ROOT = Path("/tmp/blind127")
SCRIPTS = ROOT / "scripts"
TEMPLATE = ROOT / "chat.jinja"
CHAT_TEMPLATE = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
                 "assistant:")

V_HEAD = """import os
import sys
from vllm import LLM, SamplingParams

MODEL = sys.argv[1]
"""
V_LLM = ("llm = LLM(model=MODEL, max_model_len=256, dtype='bfloat16', "
         "gpu_memory_utilization=0.25)\n")
V_GEN = ("outs = llm.generate(['the quick brown fox', 'hello'], SamplingParams(max_tokens=8))\n"
         "for o in outs:\n    print(repr(o.outputs[0].text))\n")

S_HEAD = """import sys
import sglang as sgl

MODEL = sys.argv[1]
"""
S_ENGINE = "engine = sgl.Engine(model_path=MODEL, device='cpu', model_impl='transformers')\n"
S_GEN = ("outs = engine.generate(['the quick brown fox', 'hello'], {'max_new_tokens': 8})\n"
         "for o in outs:\n    print(repr(o['text']))\n")


def guarded(head: str, body: str) -> str:
    return head + "\nif __name__ == '__main__':\n" + "".join(
        "    " + ln + "\n" for ln in body.splitlines())


def write(name: str, code: str) -> Path:
    SCRIPTS.mkdir(parents=True, exist_ok=True)
    path = SCRIPTS / f"{name}.py"
    path.write_text(code)
    return path


def script(name: str, engine: str, what: str, code: str, wait_s: float = 120,
           env: dict[str, str] | None = None, act: Step | None = None) -> Scenario:
    path = write(name, code)
    return Scenario(name, engine, what, [str(path), "{model}"], env=env or {}, act=act,
                    entry="python", wait_s=wait_s)


def ctrl_c_after(needle: str, delay: float) -> Step:
    """Ctrl-C at a terminal: SIGINT to the whole process group, ``delay`` s after ``needle``."""
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        if ctx.wait_for(needle, 200):
            time.sleep(delay)
            try:
                os.killpg(ctx.proc.pid, signal.SIGINT)
            except ProcessLookupError:
                return
            try:
                ctx.proc.wait(60)
            except subprocess.TimeoutExpired:
                pass
    return act


TEMPLATE.parent.mkdir(parents=True, exist_ok=True)
TEMPLATE.write_text(CHAT_TEMPLATE)

LONG_GEN_V = (V_LLM + "prompts = [f'story {i}: once upon a time' for i in range(4096)]\n"
              "sp = SamplingParams(max_tokens=230, ignore_eos=True, temperature=0.8)\n"
              "print(f'[batch] submitting {len(prompts)} prompts', flush=True)\n"
              "outs = llm.generate(prompts, sp)\n"
              "print(sum(len(o.outputs[0].token_ids) for o in outs))\n")
PIPE_SCRIPT = write("v-llm-stdout-closed-pipe", guarded(V_HEAD, V_LLM + V_GEN + "print('done')\n"))
PIPE_WRAP = ("import os,sys; os.execvp('bash', ['bash', '-c', "
             "'\"$0\" \"$1\" \"$2\" | head -n 3', sys.executable, sys.argv[1], sys.argv[2]])")

SCENARIOS = [
    # --- vLLM: scripts driving the LLM class -------------------------------------------------
    script("v-llm-no-guard-spawn", "vllm", "a script building LLM at module level, without the "
           "`if __name__ == '__main__':` guard, run with VLLM_WORKER_MULTIPROC_METHOD=spawn (set "
           "by the user after a fork warning): the spawned engine core re-imports the script",
           V_HEAD + V_LLM + V_GEN + "print('done')\n", wait_s=90,
           env={"VLLM_WORKER_MULTIPROC_METHOD": "spawn"}),
    script("v-llm-prompt-too-long", "vllm", "a script calling LLM.generate with a prompt of about "
           "400 tokens on an LLM built with max_model_len 256",
           guarded(V_HEAD, V_LLM + "long = 'the quick brown fox jumps over the lazy dog ' * 50\n"
                   "outs = llm.generate(['hello', long], SamplingParams(max_tokens=8))\n"
                   "for o in outs:\n    print(repr(o.outputs[0].text))\n")),
    script("v-llm-max-tokens-str", "vllm", "a script building SamplingParams with max_tokens read "
           "from the environment (MAX_NEW_TOKENS=64) and never converted: a string",
           guarded(V_HEAD, V_LLM + "max_new = os.environ.get('MAX_NEW_TOKENS', '32')\n"
                   "sp = SamplingParams(max_tokens=max_new, temperature=0.7)\n"
                   "outs = llm.generate(['the quick brown fox'], sp)\n"
                   "print(repr(outs[0].outputs[0].text))\n"),
           env={"MAX_NEW_TOKENS": "64"}),
    script("v-llm-chat-no-role", "vllm", "a script calling LLM.chat (with a plain chat template) "
           "on messages that have no `role` key, only `content`",
           guarded(V_HEAD, V_LLM + f"template = open({str(TEMPLATE)!r}).read()\n"
                   "msgs = [{'content': 'You are terse.'}, {'content': 'Name a colour.'}]\n"
                   "out = llm.chat(msgs, SamplingParams(max_tokens=8), chat_template=template)\n"
                   "print(repr(out[0].outputs[0].text))\n")),
    script("v-llm-ctrl-c-generating", "vllm", "a script generating 4096 prompts of 230 tokens "
           "each; Ctrl-C (SIGINT to the process group) about 4 s into the generation",
           guarded(V_HEAD, LONG_GEN_V), wait_s=150,
           act=ctrl_c_after("[batch] submitting", 4)),
    Scenario("v-llm-stdout-closed-pipe", "vllm", "a script that generates and prints, run as "
             "`python gen.py MODEL | head -n 3`: head exits after three lines and the rest of "
             "stdout (vLLM logs there too) goes to a closed pipe",
             ["-c", PIPE_WRAP, str(PIPE_SCRIPT), "{model}"], entry="python", wait_s=120),
    # --- SGLang: scripts driving sglang.Engine -----------------------------------------------
    script("s-engine-asyncio-running", "sglang", "a script calling the synchronous "
           "Engine.generate inside `async def main()` run by asyncio.run (an event loop already "
           "running)",
           S_HEAD + "import asyncio\n\n\nasync def main():\n"
           + "".join("    " + ln + "\n" for ln in (S_ENGINE + S_GEN + "engine.shutdown()\n")
                     .splitlines())
           + "\n\nif __name__ == '__main__':\n    asyncio.run(main())\n", wait_s=120),
    script("s-engine-after-shutdown", "sglang", "a script that generates, calls "
           "engine.shutdown(), then calls engine.generate again for a second pass",
           guarded(S_HEAD, S_ENGINE + S_GEN + "engine.shutdown()\nprint('second pass', flush=True)\n"
                   "outs = engine.generate(['again'], {'max_new_tokens': 8})\nprint(outs)\n"),
           wait_s=100),
    script("s-engine-mem-fraction-str", "sglang", "a script passing sglang.Engine "
           "mem_fraction_static as a string ('0.5', read from a YAML file as text)",
           guarded(S_HEAD, "engine = sgl.Engine(model_path=MODEL, device='cpu', "
                   "model_impl='transformers', mem_fraction_static='0.5')\n" + S_GEN
                   + "engine.shutdown()\n"), wait_s=100),
    script("s-engine-prompt-too-long", "sglang", "a script calling Engine.generate with a prompt "
           "of about 3,000 tokens, beyond the model's 2048-token context",
           guarded(S_HEAD, S_ENGINE + "long = 'the quick brown fox jumps over the lazy dog ' * 330\n"
                   "outs = engine.generate(['hello', long], {'max_new_tokens': 8})\n"
                   "for o in outs:\n    print(repr(o['text']))\nengine.shutdown()\n"),
           wait_s=100),
]
