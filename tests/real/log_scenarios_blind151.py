"""The hundred-and-fifty-first batch's scenarios (tests/fixtures/corpus/fresh150): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind151.py OUT

Themes: batch inference from files, as evaluations and offline jobs run it. vLLM's offline batch
runner (`-m vllm.entrypoints.openai.run_batch -i IN -o OUT`, entry="python"): an input line
without its `custom_id`, request bodies copied from an OpenAI batch file that name OpenAI's model
(`gpt-4o-mini`) instead of the served one, an input given as an http:// URL nobody serves, an
output path that is an existing folder, and an output given as an http:// URL (upload by PUT)
nobody serves. SGLang: `-m sglang.benchmark.offline_throughput` over a ShareGPT file one of whose
turns carries its text under `text` instead of `value`, and over a JSONL file (one conversation
a line) given with --dataset-name sharegpt, which wants one JSON array; `-m
sglang.bench_serving` against a running server (a wrapper script starts the server, waits for
it, then runs the client) with a ShareGPT file whose conversations lost their assistant turns;
and a user's own script over `sglang.Engine` that reads its prompts from a JSONL file line by
line and meets a line cut short.

Earlier batches already had (not repeated): run_batch with an input line that is not JSON, an
input file that is not there, an output folder that is not there, a URL it does not serve
(/v1/images/generations) (all the 96th); offline_throughput with a dataset path that is not there
(96th); a script raising in its own code after the Engine generated (96th: here the error comes
from the input file while the batch is half done).

The input files, the ShareGPT files, the wrapper and the Engine script are written under
/tmp/blind151/ when this table is loaded. vLLM runs with VLLM_BASE's settings and a plain chat
template (the tiny model has none); SGLang with --device cpu --model-impl transformers.

Recorded 2026-12-06 in 1 invocation (raw1: the five vLLM scenarios, then the four SGLang ones),
taking turns with two other helpers' recorders; each scenario once. About 8.3 minutes of
recording (496 s: vLLM 33+33+36+42+56 s, SGLang 77+53+108+58 s). 9 kept (final files
ed101-ed109). Dropped: none (every log shows its fault). v-batch-output-is-folder is akin to the
96th's missing output folder (the same `open(output_path, "w")` after the batch ran), kept since
the engine's words differ (IsADirectoryError, not FileNotFoundError); s-engine-jsonl-cut-line
ends like the 96th's s-engine-raises-after (the script's traceback, the Engine silent), kept
because the error comes from the job's input file halfway through the batch.

What the engines did. vLLM's run_batch always builds the whole engine first (`init engine
(profile, create kv cache, warmup model) took`, `Supported tasks: ['generate']`) and only then
reads its input: one bad line (no custom_id) kills the whole job with a pydantic
`ValidationError ... custom_id / Field required` before any request runs (warmup), as does an
http:// input nobody serves (`aiohttp ... ClientConnectorError: Cannot connect to host`). Requests
naming another model (gpt-4o-mini) do not stop it: three `ERROR ... Error with model ...
The model `gpt-4o-mini` does not exist`, the batch "100% Completed", a file of 404s written and
exit 0. Output faults come after the work is done and lose it: an output path that is a folder
(`IsADirectoryError: [Errno 21] Is a directory`) and an http:// output nobody serves (four
`ERROR ... Failed to upload data (attempt N) ... Retrying in 5 seconds...`, then `Exception:
Failed to upload data (attempt 5)`). Every run_batch exit shuts the engine down first
(`force killing remaining process EngineCore`, `MPClient: complete`), so the traceback follows the
shutdown lines. SGLang's offline_throughput also builds its Engine first (KV cache allocated,
`Engine startup timings`) and dies reading the dataset: a turn without `value` gives a bare
`KeyError: 'value'`, a JSONL file under --dataset-name sharegpt `JSONDecodeError: Extra data:
line 2 column 1`, each followed by `kill_process_tree called`. bench_serving over ShareGPT
conversations with no assistant turn drops them all silently (`#Input tokens: 0.0`) and dies on
`first_prompt = input_requests[0].prompt` / `IndexError: list index out of range`, the server
untouched; SGLang's server then logged the wrapper's SIGTERM (`SIGTERM received ... Draining
requests and shutting down...`, `Gracefully exiting...`), which the corpus README says 0.5.23
does not print - it does for launch_server run this way. The Engine script stops at the cut line
(`JSONDecodeError: Invalid control character at: line 1 column 31`) after two answers, and the
Engine goes with it without a line of its own.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Scenario  # noqa: E402
from setup_engines import LLAMA  # noqa: E402

ROOT = Path("/tmp/blind151")
TEMPLATE = ROOT / "chat.jinja"
CHAT_TEMPLATE = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
                 "{% if add_generation_prompt %}assistant: {% endif %}")
SG = ["--device", "cpu", "--model-impl", "transformers"]


def chat_req(cid: str | None, content: str, model: str = str(LLAMA.dir)) -> dict:
    req: dict = {"method": "POST", "url": "/v1/chat/completions",
                 "body": {"model": model, "messages": [{"role": "user", "content": content}],
                          "max_completion_tokens": 12}}
    if cid is not None:
        req = {"custom_id": cid, **req}
    return req


def jsonl(*objs: object) -> str:
    return "".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objs)


def conv(human: str, gpt: str | None, key: str = "value") -> dict:
    turns = [{"from": "human", "value": human}]
    if gpt is not None:
        turns.append({"from": "gpt", key: gpt})
    return {"id": human[:8], "conversations": turns}


PROMPTS = ["the quick brown fox jumps over the lazy dog and then", "tell me about the sea",
           "write a haiku about autumn leaves", "what is two plus two", "name three colours",
           "why is the sky blue", "describe a cat in one line", "count from one to ten"]
ANSWER = "here is a fairly short answer that goes on for a few words more than needed."

SERVE_AND_BENCH = r'''"""Start SGLang's server, wait for it, run sglang.bench_serving against it, stop the server."""
import json
import subprocess
import sys
import time
import urllib.request

model, port, dataset = sys.argv[1], sys.argv[2], sys.argv[3]
server = subprocess.Popen([sys.executable, "-m", "sglang.launch_server", "--model-path", model,
                           "--host", "127.0.0.1", "--port", port, "--device", "cpu",
                           "--model-impl", "transformers"])
end = time.monotonic() + 240
while time.monotonic() < end and server.poll() is None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as r:
            if r.status == 200:
                break
    except OSError:
        pass
    time.sleep(1)
time.sleep(8)
print(f"[bench] server up; running bench_serving over {dataset}", flush=True)
bench = subprocess.run([sys.executable, "-m", "sglang.bench_serving", "--backend", "sglang",
                        "--host", "127.0.0.1", "--port", port, "--model", model,
                        "--tokenizer", model, "--dataset-name", "sharegpt", "--dataset-path",
                        dataset, "--num-prompts", "4", "--sharegpt-output-len", "16"])
print(f"[bench] bench_serving exited with {bench.returncode}", flush=True)
time.sleep(3)
server.terminate()
try:
    server.wait(20)
except subprocess.TimeoutExpired:
    server.kill()
sys.exit(bench.returncode)
'''

ENGINE_JSONL = r'''"""Generate for each prompt of a JSONL file with sglang.Engine, writing answers as it goes."""
import json
import sys

import sglang as sgl

if __name__ == "__main__":
    model, path = sys.argv[1], sys.argv[2]
    engine = sgl.Engine(model_path=model, device="cpu", model_impl="transformers")
    print(f"[job] engine ready; reading {path}", flush=True)
    with open(path) as f:
        for n, line in enumerate(f, 1):
            item = json.loads(line)
            out = engine.generate(item["prompt"], {"max_new_tokens": 12})
            print(f"[job] line {n} id={item['id']}: {out['text']!r}", flush=True)
    engine.shutdown()
    print("[job] done", flush=True)
'''


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    (ROOT / "results").mkdir(exist_ok=True)
    TEMPLATE.write_text(CHAT_TEMPLATE)
    (ROOT / "no-custom-id.jsonl").write_text(jsonl(
        chat_req("req-1", PROMPTS[0]), chat_req(None, PROMPTS[1]), chat_req("req-3", PROMPTS[2])))
    (ROOT / "openai-model.jsonl").write_text(jsonl(
        *(chat_req(f"req-{i}", p, model="gpt-4o-mini") for i, p in enumerate(PROMPTS[:3], 1))))
    (ROOT / "good.jsonl").write_text(jsonl(
        *(chat_req(f"req-{i}", p) for i, p in enumerate(PROMPTS[:3], 1))))
    (ROOT / "sharegpt-text-key.json").write_text(json.dumps(
        [conv(p, ANSWER) for p in PROMPTS[:5]] + [conv(PROMPTS[5], ANSWER, key="text")]
        + [conv(p, ANSWER) for p in PROMPTS[6:]], indent=1))
    (ROOT / "sharegpt-lines.jsonl").write_text(jsonl(*(conv(p, ANSWER) for p in PROMPTS)))
    (ROOT / "sharegpt-no-gpt-turn.json").write_text(json.dumps(
        [conv(p, None) for p in PROMPTS], indent=1))
    (ROOT / "serve_and_bench.py").write_text(SERVE_AND_BENCH)
    (ROOT / "engine_jsonl.py").write_text(ENGINE_JSONL)
    lines = [json.dumps({"id": f"p{i}", "prompt": p}) for i, p in enumerate(PROMPTS[:5], 1)]
    lines[2] = lines[2][:30]      # a line cut short (the writer stopped mid-line)
    (ROOT / "prompts.jsonl").write_text("\n".join(lines) + "\n")


_setup()


def batch(name: str, what: str, inp: str, out: str) -> Scenario:
    args = ["-m", "vllm.entrypoints.openai.run_batch", "-i", inp, "-o", out, "--model",
            "{model}", *VLLM_BASE, "--chat-template", str(TEMPLATE)]
    return Scenario(name, "vllm", what, args, entry="python", wait_s=150)


def offline(name: str, what: str, dataset: Path) -> Scenario:
    args = ["-m", "sglang.benchmark.offline_throughput", "--model-path", "{model}", *SG,
            "--dataset-name", "sharegpt", "--dataset-path", str(dataset), "--num-prompts", "4",
            "--sharegpt-output-len", "16"]
    return Scenario(name, "sglang", what, args, entry="python", wait_s=150)


SCENARIOS = [
    batch("v-batch-no-custom-id", "run_batch whose input file's second line has no custom_id",
          str(ROOT / "no-custom-id.jsonl"), str(ROOT / "out-no-custom-id.jsonl")),
    batch("v-batch-openai-model-name", "run_batch over requests copied from an OpenAI batch "
          "file: every body names model gpt-4o-mini, not the served one",
          str(ROOT / "openai-model.jsonl"), str(ROOT / "out-openai-model.jsonl")),
    batch("v-batch-http-input-refused", "run_batch with its input given as an http:// URL on a "
          "port nobody serves", "http://127.0.0.1:{port}/batches/requests.jsonl",
          str(ROOT / "out-http-input.jsonl")),
    batch("v-batch-output-is-folder", "run_batch whose output path is an existing folder "
          "(/tmp/blind151/results/)", str(ROOT / "good.jsonl"), str(ROOT / "results") + "/"),
    batch("v-batch-upload-refused", "run_batch whose output is an http:// URL (upload by PUT) "
          "on a port nobody serves", str(ROOT / "good.jsonl"),
          "http://127.0.0.1:{port}/uploads/out.jsonl"),
    offline("s-offline-sharegpt-text-key", "sglang.benchmark.offline_throughput over a ShareGPT "
            "file whose sixth conversation has its gpt turn's text under 'text', not 'value'",
            ROOT / "sharegpt-text-key.json"),
    offline("s-offline-sharegpt-jsonl", "sglang.benchmark.offline_throughput with "
            "--dataset-name sharegpt over a JSONL file (one conversation a line), not one JSON "
            "array", ROOT / "sharegpt-lines.jsonl"),
    Scenario("s-bench-serving-no-gpt-turns", "sglang", "sglang.bench_serving against a running "
             "SGLang server (a wrapper starts it, waits for /health, then runs the client) with "
             "a ShareGPT file whose conversations lost their assistant turns",
             [str(ROOT / "serve_and_bench.py"), "{model}", "{port}",
              str(ROOT / "sharegpt-no-gpt-turn.json")], entry="python", wait_s=240),
    Scenario("s-engine-jsonl-cut-line", "sglang", "a script over sglang.Engine generating for "
             "each line of a prompts JSONL file, whose third line is cut short mid-object",
             [str(ROOT / "engine_jsonl.py"), "{model}", str(ROOT / "prompts.jsonl")],
             entry="python", wait_s=150),
]
