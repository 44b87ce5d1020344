"""The two-hundred-and-twenty-sixth batch's scenarios (tests/fixtures/corpus/fresh225): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind226.py OUT

Themes: numbers and units as people write them in launch flags, environment variables and
--config YAML files, on values a person tunes (KV-cache space, memory fractions, context length,
seeds, watchdog timeouts, batch limits). vLLM: VLLM_CPU_KVCACHE_SPACE=0.5 (a fraction where a
number of GiB is wanted); --gpu-memory-utilization 90 (a percentage where a fraction is wanted);
`max-model-len: 1e3` in a --config YAML file (scientific notation, which YAML leaves a string);
--seed 0x2A (hexadecimal). SGLang: --mem-fraction-static nan (parses, no fraction);
--watchdog-timeout inf (meant as "never"); --max-running-requests -1 (a negative count meant as
"no limit"); `random-seed: 1e3` in a --config YAML file.

Earlier batches already had (not repeated): SGLang --context-length 4k and a config.json
max_position_embeddings / model_max_length of "2k" (74th, 69th), --watchdog-timeout 5m (67th) and
0.05 (129th), --kv-cache-memory-bytes 70G (110th), VLLM_CPU_KVCACHE_SPACE of -4, 40, 64, 1 and a
quoted "1" (74th, 67th, 165th, 216th, 107th), --mem-fraction-static 0, 1.5, 0.0001 and 0.9 (73rd,
78th, 201st, 109th), `mem-fraction-static: 80%` in SGLang's YAML (107th), --gpu-memory-utilization
1.5 (206th), --max-model-len -5 and 1x (73rd, 84th), --seed abc and 99999999999999999999 (63rd,
70th), --random-seed -5 (73rd), --max-num-seqs 0 and --max-running-requests 0 (187th, 70th),
words for counts (--max-running-requests many, --chunked-prefill-size big, --swap-space lots,
--max-logprobs lots, VLLM_ENGINE_ITERATION_TIMEOUT_S ten and soon), SGLANG_WARMUP_TIMEOUT 0.2
and "600", a YAML value argparse refuses in vLLM (max-num-seqs: many, 76th).

Recorded 2026-12-07 in two invocations, each scenario once, taking turns with other helpers'
recorders. raw1 (vLLM, 13:38): four scenarios, started once vLLM was installed but before the
tiny model was (its folder appeared at 13:41): v-yaml-max-model-len-1e3 (12 s) and v-seed-hex
(13 s) fail in argparse before the model is touched and are kept; v-kvcache-space-gib-unit
(VLLM_CPU_KVCACHE_SPACE=4GiB, 20 s) and v-gpu-mem-util-nan (--gpu-memory-utilization nan, 14 s)
both died resolving the absent model folder (`HFValidationError: Repo id must be in the form
'repo_name' or 'namespace/repo_name': '.../models/llama-tiny-v3'`) before the value was read -
logs of a missing model, not of this ground - so they were dropped and removed from SCENARIOS.
raw2 (13:41-13:52): their replacements v-kvcache-space-fraction (23 s) and v-gpu-mem-util-percent
(12 s), then the SGLang four (31, 75, 75, 9 s). 8 kept (final files hc101-hc108).

What the engines did. vLLM: VLLM_CPU_KVCACHE_SPACE=0.5 is read with int() while VllmConfig is
built (`ValidationError: 1 validation error for VllmConfig` / `Value error, invalid literal for
int() with base 10: '0.5'`, the variable not named); --gpu-memory-utilization 90 passes argparse
and fails CacheConfig's pydantic check (`gpu_memory_utilization` / `Input should be less than or
equal to 1 [type=less_than_equal, input_value=90.0, ...]`); the YAML `1e3` ends in `error:
argument --max-model-len: invalid human_readable_int_or_auto value: '1e3'` and the hex seed in
`argument --seed: invalid int value: '0x2A'`. All four crashed at launch. SGLang: nan for
--mem-fraction-static is taken, the weights load, and sizing the KV pool raises `ValueError:
cannot convert float NaN to integer` in kv_cache_configurator (scheduler dead, SIGQUIT,
kill_process_tree: crashed in kv_cache_alloc); --watchdog-timeout inf kills only the scheduler's
watchdog thread (`Scheduler watchdog thread crashed: timestamp out of range for platform time_t`,
`OverflowError` from `time.sleep(inf / 2)`) and the server comes up and serves three completions
(ready, serving, no watchdog left); --max-running-requests -1 is silently made
`max_running_requests=1` and the server serves (ready, serving); the YAML `1e3` seed ends in
`sglang serve: error: argument --random-seed: invalid int value: '1e3'` (crashed at launch).
Crashed: hc101-hc105, hc108; ready in serving: hc106, hc107; none hung.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind226")
CFG = ROOT / "cfg"
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"

FILES: dict[str, str] = {
    "v-max-model-len-1e3.yaml": "# serving settings\nmax-model-len: 1e3\nmax-num-seqs: 8\n",
    "s-random-seed-1e3.yaml": "# serving settings\nrandom-seed: 1e3\nmax-running-requests: 8\n",
}


def _setup() -> None:
    CFG.mkdir(parents=True, exist_ok=True)
    for name, text in FILES.items():
        (CFG / name).write_text(text)


_setup()


def cfg(name: str) -> list[str]:
    return ["--config", str(CFG / name)]


def v_end_or_serve(ctx: Ctx) -> None:
    """Let the launch end by itself; if it serves instead, three completions and a pause."""
    if ctx.wait_for(READY_LINE, 200) and ctx.proc is not None and ctx.proc.poll() is None:
        time.sleep(2)
        ctx.complete(3, max_tokens=16)
        linger(ctx, 12)
    else:
        linger(ctx, 15)


def s_end_or_serve(ctx: Ctx) -> None:
    """The same for SGLang: its own ready line, then three completions and a pause."""
    if ctx.wait_for(SG_READY, 200) and ctx.proc is not None and ctx.proc.poll() is None:
        time.sleep(2)
        ctx.complete(3, max_tokens=16)
        linger(ctx, 12)
    else:
        linger(ctx, 15)


SCENARIOS = [
    Scenario("v-kvcache-space-fraction", "vllm",
             "VLLM_CPU_KVCACHE_SPACE=0.5 (a fraction, as for --gpu-memory-utilization, where a "
             "number of GiB is wanted)",
             [*VLLM_BASE], env={"VLLM_CPU_KVCACHE_SPACE": "0.5"}, act=v_end_or_serve),
    Scenario("v-gpu-mem-util-percent", "vllm",
             "--gpu-memory-utilization 90 (meant as 90 %, where a fraction is wanted)",
             [*VLLM_BASE, "--gpu-memory-utilization", "90"], act=v_end_or_serve),
    Scenario("v-yaml-max-model-len-1e3", "vllm",
             "--config serve.yaml with `max-model-len: 1e3` (scientific notation, which YAML "
             "reads as a string) and no --max-model-len on the command line",
             ["--dtype", "bfloat16", "--gpu-memory-utilization", "0.25",
              *cfg("v-max-model-len-1e3.yaml")], act=v_end_or_serve),
    Scenario("v-seed-hex", "vllm", "--seed 0x2A (a seed written in hexadecimal)",
             [*VLLM_BASE, "--seed", "0x2A"], act=v_end_or_serve),
    Scenario("s-mem-fraction-nan", "sglang",
             "--mem-fraction-static nan (a float that parses but is no fraction)",
             [*SG, "--mem-fraction-static", "nan"], act=s_end_or_serve),
    Scenario("s-watchdog-timeout-inf", "sglang",
             "--watchdog-timeout inf (meant as: never fire), then three completions",
             [*SG, "--watchdog-timeout", "inf"], act=s_end_or_serve),
    Scenario("s-max-running-requests-negative", "sglang",
             "--max-running-requests -1 (a negative count, meant as: no limit)",
             [*SG, "--max-running-requests", "-1"], act=s_end_or_serve),
    Scenario("s-yaml-random-seed-1e3", "sglang",
             "--config serve.yaml with `random-seed: 1e3` (scientific notation for an integer "
             "seed, which YAML reads as a string)",
             [*SG, *cfg("s-random-seed-1e3.yaml")], act=s_end_or_serve),
]
