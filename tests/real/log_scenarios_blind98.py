"""The ninety-eighth batch's scenarios (tests/fixtures/corpus/fresh97): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind98.py OUT

Themes: commands and files copied from older docs, blogs and the other engine. Flags that
earlier vLLM releases took (--use-v2-block-manager, --worker-use-ray, --num-lookahead-slots,
--tokenizer-pool-size, --task generate, --disable-log-requests, --rope-scaling) and a quantization
method older docs list (deepspeedfp); SGLang's names from before its argument rewrite (--disable-flashinfer, --enable-overlap-schedule); one engine's flag given to
the other (--mem-fraction-static and --tp to vLLM, --gpu-memory-utilization, --max-model-len and
--tensor-parallel-size to SGLang); a boolean flag given a value (`--enforce-eager true`,
`--disable-radix-cache true`); environment variables older releases read
(VLLM_ATTENTION_BACKEND=XFORMERS, a backend gone from vLLM; VLLM_CPU_OMP_THREADS_BIND=all, the old
default; SGLang's SGL_-prefixed names); a config.json in an older transformers' format (torch_dtype
only, top-level rope_theta, transformers_version 4.31.0; rope_scaling with `type` not `rope_type`);
and an older checkpoint layout (one pytorch_model.bin, no safetensors).

SGLang scenarios run with --device cpu --model-impl transformers, with which it serves here, so
that a flag it accepts shows what follows.

Recorded 2026-12-05 in three invocations (about 10.5 minutes in all), each scenario once. Every
removed or foreign flag stops at argparse (vLLM: `unrecognized arguments`, a value after the flag
taken as the positional model_tag; SGLang: `unrecognized arguments`, or `ambiguous option` where an
old name prefixes newer ones: --disable-flashinfer). SGLang takes --tensor-parallel-size (an alias)
and serves. `--enforce-eager true` turns eager mode on (vLLM's model_tag absorbs `true`) and the
worker then dies of SIGILL (exit -4) on the first request; VLLM_CPU_OMP_THREADS_BIND=all fails int()
in the engine core; deepspeedfp is refused by ModelConfig. VLLM_ATTENTION_BACKEND=XFORMERS only
warns (unknown variable); SGL_-prefixed variables only warn (deprecated). Both engines serve the
4.31-style config.json, the old rope_scaling `type` and a pytorch_model.bin-only checkpoint.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    READY_LINE,
    VLLM,
    VLLM_BASE,
    Ctx,
    Scenario,
    copy_model,
    linger,
)

SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]


def s_until(ctx: Ctx) -> None:
    """SGLang: until the run ends or is fired up; if it serves, two completions, a pause."""
    ctx.wait_any([SG_READY], 150)
    if ctx.proc is not None and ctx.proc.poll() is None and SG_READY in ctx.text():
        ctx.complete(2)
        linger(ctx, 6)


def v_until(ctx: Ctx) -> None:
    """vLLM: until the run ends or is up; if it serves, two completions and a short pause."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        time.sleep(6)


def old_config(name: str, rope_scaling: dict | None = None):
    """A copy whose config.json is in transformers 4.31's form: torch_dtype (no dtype), a
    top-level rope_theta (no rope_parameters), transformers_version 4.31.0; optionally a
    rope_scaling object in the old form."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = d / "config.json"
        cfg = json.loads(f.read_text())
        cfg.pop("dtype", None)
        rope = cfg.pop("rope_parameters", {}) or {}
        cfg["rope_theta"] = rope.get("rope_theta", 10000.0)
        cfg["torch_dtype"] = "bfloat16"
        cfg["transformers_version"] = "4.31.0"
        if rope_scaling is not None:
            cfg["rope_scaling"] = rope_scaling
        f.write_text(json.dumps(cfg, indent=2))
        return d
    return make


def bin_only(name: str):
    """A copy with its safetensors shards merged into one pytorch_model.bin (torch.save), the
    safetensors files and their index removed: the layout of older checkpoints."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        code = ("import sys, glob, os, torch\nfrom safetensors.torch import load_file\n"
                "sd = {}\n"
                "for f in sorted(glob.glob(sys.argv[1] + '/model-*.safetensors')):\n"
                "    sd.update(load_file(f)); os.remove(f)\n"
                "os.remove(sys.argv[1] + '/model.safetensors.index.json')\n"
                "torch.save(sd, sys.argv[1] + '/pytorch_model.bin')\n")
        subprocess.run([str(VLLM.python), "-c", code, str(d)], check=True)
        return d
    return make


def v(name: str, what: str, extra: list[str], env: dict[str, str] | None = None,
      model=None) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *extra], env=env or {}, model=model,
                    act=v_until)


def s(name: str, what: str, extra: list[str], env: dict[str, str] | None = None,
      model=None) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *extra], env=env or {}, model=model,
                    act=s_until)


ROPE_OLD = {"type": "linear", "factor": 2.0}

SCENARIOS = [
    v("v-use-v2-block-manager", "--use-v2-block-manager, from a 2024 blog's command line "
      "(removed once the V2 block manager became the only one)", ["--use-v2-block-manager"]),
    v("v-worker-use-ray", "--worker-use-ray, an old docs' multi-GPU command (since replaced by "
      "--distributed-executor-backend ray)", ["--worker-use-ray"]),
    v("v-num-lookahead-slots", "--num-lookahead-slots 4, a V0 scheduler flag from an old "
      "speculative-decoding recipe", ["--num-lookahead-slots", "4"]),
    v("v-tokenizer-pool-size", "--tokenizer-pool-size 4, from an old throughput guide (the "
      "tokenizer pool was removed)", ["--tokenizer-pool-size", "4"]),
    v("v-task-generate", "--task generate, from older docs (replaced by --runner/--convert)",
      ["--task", "generate"]),
    v("v-disable-log-requests", "--disable-log-requests, from an old deployment script "
      "(replaced by --enable-log-requests)", ["--disable-log-requests"]),
    v("v-mem-fraction-static", "--mem-fraction-static 0.8, SGLang's memory flag given to vLLM",
      ["--mem-fraction-static", "0.8"]),
    v("v-tp-short", "--tp 1, SGLang's short tensor-parallel flag given to vLLM", ["--tp", "1"]),
    v("v-enforce-eager-true", "--enforce-eager true, a boolean flag given a value (as an old "
      "YAML-to-flags template writes it)", ["--enforce-eager", "true"]),
    v("v-rope-scaling-flag", "--rope-scaling '{\"type\":\"dynamic\",\"factor\":2.0}', the CLI "
      "flag older releases had for RoPE scaling (now --hf-overrides)",
      ["--rope-scaling", '{"type":"dynamic","factor":2.0}']),
    v("v-quant-deepspeedfp", "--quantization deepspeedfp, a method an older release's docs list",
      ["--quantization", "deepspeedfp"]),
    v("v-env-attn-xformers", "VLLM_ATTENTION_BACKEND=XFORMERS, a backend earlier releases had, "
      "from an old Dockerfile", [], env={"VLLM_ATTENTION_BACKEND": "XFORMERS"}),
    v("v-omp-bind-all", "VLLM_CPU_OMP_THREADS_BIND=all, the old CPU backend's default value "
      "copied from an old guide", [], env={"VLLM_CPU_OMP_THREADS_BIND": "all"}),
    v("v-config-old-format", "config.json in transformers 4.31's form: torch_dtype only, "
      "top-level rope_theta, transformers_version 4.31.0", [],
      model=old_config("old-format-v")),
    v("v-rope-scaling-type", "config.json in the old form with rope_scaling {\"type\": "
      "\"linear\", \"factor\": 2.0} (`type`, not `rope_type`)", [],
      model=old_config("rope-type-v", ROPE_OLD)),
    v("v-bin-only", "the checkpoint as one pytorch_model.bin (torch.save), no safetensors: an "
      "older layout", [], model=bin_only("bin-only-v")),
    s("s-disable-flashinfer", "--disable-flashinfer, a flag of SGLang's early releases (since "
      "--attention-backend)", ["--disable-flashinfer"]),
    s("s-enable-overlap-schedule", "--enable-overlap-schedule, from before the overlap "
      "scheduler became the default (now --disable-overlap-schedule)",
      ["--enable-overlap-schedule"]),
    s("s-gpu-memory-utilization", "--gpu-memory-utilization 0.8, vLLM's memory flag given to "
      "SGLang", ["--gpu-memory-utilization", "0.8"]),
    s("s-max-model-len", "--max-model-len 256, vLLM's length flag given to SGLang",
      ["--max-model-len", "256"]),
    s("s-tensor-parallel-size", "--tensor-parallel-size 1, vLLM's long tensor-parallel flag "
      "given to SGLang", ["--tensor-parallel-size", "1"]),
    s("s-disable-radix-cache-true", "--disable-radix-cache true, a boolean flag given a value",
      ["--disable-radix-cache", "true"]),
    s("s-env-sgl-prefix", "SGL_ENABLE_JIT_DEEPGEMM=1 and SGL_CHUNKED_PREFIX_CACHE_THRESHOLD=64, "
      "environment variables under their old SGL_ prefix", [],
      env={"SGL_ENABLE_JIT_DEEPGEMM": "1", "SGL_CHUNKED_PREFIX_CACHE_THRESHOLD": "64"}),
    s("s-config-old-format", "config.json in transformers 4.31's form: torch_dtype only, "
      "top-level rope_theta, transformers_version 4.31.0", [],
      model=old_config("old-format-s")),
    s("s-rope-scaling-type", "config.json in the old form with rope_scaling {\"type\": "
      "\"linear\", \"factor\": 2.0} (`type`, not `rope_type`)", [],
      model=old_config("rope-type-s", ROPE_OLD)),
    s("s-bin-only", "the checkpoint as one pytorch_model.bin (torch.save), no safetensors: an "
      "older layout", [], model=bin_only("bin-only-s")),
]
