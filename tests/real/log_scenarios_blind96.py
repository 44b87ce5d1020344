"""The ninety-sixth batch's scenarios (tests/fixtures/corpus/fresh95): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind96.py OUT

Themes: the engines' entry points other than the HTTP server, run with entry="python" (the
engine's own interpreter on the scenario's arguments). vLLM's offline batch runner
(`-m vllm.entrypoints.openai.run_batch`: an input line that is not JSON, an input file that is
not there, an output folder that is not there, a request URL it does not serve); Python scripts
driving vLLM's `LLM` class (a keyword the engine does not know, `chat` on a model without a chat
template, `embed` on a generative model, SamplingParams it refuses, beam search, an exception
raised by the script after generating, a script that exits without deleting the engine);
SGLang's offline `sglang.Engine` (an Engine made at import time without the `__main__` guard,
a keyword it does not know, a negative temperature, prompt and sampling-params lists of other
lengths, a script that raises after generating, one that exits without shutdown) and its
offline tools (`-m sglang.benchmark.one_batch` with an input longer than the context,
`-m sglang.benchmark.offline_throughput` with a dataset file that is not there,
`-m sglang.check_env` on a host with no GPU).

The scripts and input files the faults need are written by each scenario's `before` step under
/tmp/blind96/. SGLang's own Llama module cannot be built here, so its Engine runs use
model_impl="transformers".

Recorded 2026-12-05 (about 13 minutes in all). The batch runner's first try of v-batch-no-input
failed before any fault: without --gpu-memory-utilization the CPU build reserves 0.92 of host
memory and refuses to start when less is free; the runner's arguments now carry 0.25. The first
takes of v-batch-no-outdir and v-batch-bad-url named a model ("m") the runner does not serve, a
second fault (404s in the log); the request bodies now name the served model and both were
re-recorded. v-batch-not-json was kept from its first take (with "m"): it dies parsing the file,
before any request is submitted. The offline sglang.Engine logs at error level only: its
startup shows little beyond the weight-loading bar.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import Ctx, Scenario  # noqa: E402
from setup_engines import LLAMA  # noqa: E402

TMP = Path("/tmp/blind96")


def write_file(path: Path, text: str):
    def before(ctx: Ctx) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return before


def lines(*objs: object) -> str:
    return "".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objs)


def chat_req(cid: str, url: str = "/v1/chat/completions") -> dict:
    return {"custom_id": cid, "method": "POST", "url": url,
            "body": {"model": str(LLAMA.dir), "messages": [{"role": "user", "content": "hi"}],
                     "max_completion_tokens": 8}}


CHAT_TEMPLATE = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
                 "{% if add_generation_prompt %}assistant: {% endif %}")
TEMPLATE = TMP / "chat.jinja"


def batch(name: str, what: str, inp: str | None, out: str, text: str = "",
          extra: tuple[str, ...] = ()) -> Scenario:
    """vLLM's offline batch runner over ``inp`` (written first unless None) into ``out``."""
    in_path = TMP / f"{name}.jsonl"
    args = ["-m", "vllm.entrypoints.openai.run_batch", "-i", inp or str(in_path), "-o", out,
            "--model", "{model}", "--max-model-len", "256", "--dtype", "bfloat16",
            "--gpu-memory-utilization", "0.25",
            "--chat-template", str(TEMPLATE), *extra]

    def before(ctx: Ctx) -> None:
        TMP.mkdir(parents=True, exist_ok=True)
        TEMPLATE.write_text(CHAT_TEMPLATE)
        if inp is None:
            in_path.write_text(text)
    return Scenario(name, "vllm", what, args, before=before, entry="python", wait_s=150)


V_HEAD = """import sys
from vllm import LLM, SamplingParams
MODEL = sys.argv[1]
"""
V_LLM = "llm = LLM(model=MODEL, max_model_len=256, dtype='bfloat16', gpu_memory_utilization=0.25)\n"
V_GEN = ("outs = llm.generate(['the quick brown fox', 'hello'], SamplingParams(max_tokens=8))\n"
         "for o in outs:\n    print(repr(o.outputs[0].text))\n")


def v_script(name: str, what: str, body: str, wait_s: float = 150) -> Scenario:
    path = TMP / f"{name}.py"
    code = V_HEAD + "if __name__ == '__main__':\n" + "".join(
        "    " + ln + "\n" for ln in body.splitlines())
    return Scenario(name, "vllm", what, [str(path), "{model}"], before=write_file(path, code),
                    entry="python", wait_s=wait_s)


S_HEAD = """import sys
import sglang as sgl
MODEL = sys.argv[1]
"""
S_ENGINE = "engine = sgl.Engine(model_path=MODEL, device='cpu', model_impl='transformers')\n"
S_GEN = ("outs = engine.generate(['the quick brown fox', 'hello'], {'max_new_tokens': 8})\n"
         "for o in outs:\n    print(repr(o['text']))\n")


def s_script(name: str, what: str, body: str, guard: bool = True, wait_s: float = 120) -> Scenario:
    path = TMP / f"{name}.py"
    if guard:
        code = S_HEAD + "if __name__ == '__main__':\n" + "".join(
            "    " + ln + "\n" for ln in body.splitlines())
    else:
        code = S_HEAD + body
    return Scenario(name, "sglang", what, [str(path), "{model}"], before=write_file(path, code),
                    entry="python", wait_s=wait_s)


SCENARIOS = [
    # --- vLLM: the offline batch runner ------------------------------------------------------
    batch("v-batch-not-json", "run_batch whose input file's second line is not JSON (a CSV "
          "row pasted in)", None, str(TMP / "out-not-json.jsonl"),
          text=lines(chat_req("r1"), "r2,POST,/v1/chat/completions,hi", chat_req("r3"))),
    batch("v-batch-no-input", "run_batch with an input file that is not there",
          str(TMP / "requests-2026-12-05.jsonl"), str(TMP / "out-no-input.jsonl")),
    batch("v-batch-no-outdir", "run_batch writing its output into a folder that is not there",
          None, str(TMP / "results" / "2026-12-05" / "out.jsonl"),
          text=lines(chat_req("r1"), chat_req("r2"))),
    batch("v-batch-bad-url", "run_batch with requests for a URL it does not serve "
          "(/v1/images/generations)", None, str(TMP / "out-bad-url.jsonl"),
          text=lines(chat_req("r1", "/v1/images/generations"), chat_req("r2"))),
    # --- vLLM: scripts driving the LLM class -------------------------------------------------
    v_script("v-llm-bad-kwarg", "a script passing LLM a keyword the engine does not know "
             "(tensor_parallel=1, for tensor_parallel_size)",
             "llm = LLM(model=MODEL, max_model_len=256, tensor_parallel=1)\n" + V_GEN, 90),
    v_script("v-llm-chat-no-template", "a script calling LLM.chat on a model that has no "
             "chat template (and passing none)",
             V_LLM + "out = llm.chat([{'role': 'user', 'content': 'hi'}], "
             "SamplingParams(max_tokens=8))\nprint(out[0].outputs[0].text)\n"),
    v_script("v-llm-embed-generative", "a script calling LLM.embed on a generative model "
             "loaded without an embedding runner",
             V_LLM + "out = llm.embed(['the quick brown fox'])\nprint(len(out[0].outputs.embedding))\n"),
    v_script("v-llm-bad-sampling", "a script that generates, then builds SamplingParams with "
             "top_p=0 for a second pass",
             V_LLM + V_GEN + "sp = SamplingParams(top_p=0.0, max_tokens=8)\n"
             "print(llm.generate(['again'], sp)[0].outputs[0].text)\n"),
    v_script("v-llm-beam-search", "a script running LLM.beam_search (beam width 3) on the "
             "tiny model",
             V_LLM + "from vllm.sampling_params import BeamSearchParams\n"
             "outs = llm.beam_search([{'prompt': 'the quick brown fox'}], "
             "BeamSearchParams(beam_width=3, max_tokens=8))\n"
             "for s in outs[0].sequences:\n    print(repr(s.text))\n"),
    v_script("v-llm-raises-after", "a script whose own post-processing raises (KeyError on "
             "the outputs) after the engine generated",
             V_LLM + V_GEN + "scores = {}\nprint(scores[outs[0].request_id])\n"),
    v_script("v-llm-no-del", "a script that generates and exits without deleting the LLM "
             "(engine torn down by interpreter exit)", V_LLM + V_GEN + "print('done')\n"),
    # --- SGLang: the offline Engine ----------------------------------------------------------
    s_script("s-engine-no-guard", "a script creating sglang.Engine at import time, without "
             "the `if __name__ == '__main__':` guard the spawned subprocesses need",
             S_ENGINE + S_GEN + "engine.shutdown()\n", guard=False, wait_s=90),
    s_script("s-engine-bad-kwarg", "a script passing sglang.Engine a keyword it does not know "
             "(vLLM's tensor_parallel_size)",
             "engine = sgl.Engine(model_path=MODEL, device='cpu', model_impl='transformers', "
             "tensor_parallel_size=1)\n" + S_GEN, wait_s=60),
    s_script("s-engine-neg-temperature", "a script calling Engine.generate with temperature "
             "-0.5", S_ENGINE + "outs = engine.generate(['the quick brown fox'], "
             "{'max_new_tokens': 8, 'temperature': -0.5})\nprint(outs)\nengine.shutdown()\n"),
    s_script("s-engine-batch-mismatch", "a script calling Engine.generate with three prompts "
             "and a list of two sampling-params dicts",
             S_ENGINE + "outs = engine.generate(['a', 'b', 'c'], [{'max_new_tokens': 8}, "
             "{'max_new_tokens': 4}])\nprint(outs)\nengine.shutdown()\n"),
    s_script("s-engine-raises-after", "a script that generates, then raises in its own code "
             "(ZeroDivisionError) without shutting the Engine down",
             S_ENGINE + S_GEN + "rate = len(outs) / 0\n"),
    s_script("s-engine-no-shutdown", "a script that generates and exits without "
             "engine.shutdown()", S_ENGINE + S_GEN + "print('done')\n"),
    # --- SGLang: offline tools ---------------------------------------------------------------
    Scenario("s-one-batch-too-long", "sglang", "sglang.benchmark.one_batch with --input-len 4096, beyond "
             "the model's 2048-token context", ["-m", "sglang.benchmark.one_batch",
             "--model-path", "{model}", "--device", "cpu", "--model-impl", "transformers",
             "--batch-size", "1", "--input-len", "4096", "--output-len", "8"],
             entry="python", wait_s=120),
    Scenario("s-offline-no-dataset", "sglang", "sglang.benchmark.offline_throughput with a ShareGPT "
             "dataset path that is not there", ["-m", "sglang.benchmark.offline_throughput",
             "--model-path", "{model}", "--device", "cpu", "--model-impl", "transformers",
             "--dataset-name", "sharegpt", "--dataset-path",
             str(TMP / "ShareGPT_V3_unfiltered_cleaned_split.json"), "--num-prompts", "4"],
             entry="python", wait_s=120),
    Scenario("s-check-env", "sglang", "sglang.check_env (the environment report users paste in issues) "
             "on a host with no GPU and no CUDA toolkit", ["-m", "sglang.check_env"],
             entry="python", wait_s=60),
]
