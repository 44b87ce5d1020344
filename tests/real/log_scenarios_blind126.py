"""The hundred-and-twenty-sixth batch's scenarios (tests/fixtures/corpus/fresh125): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind126.py OUT

Themes: torch.compile and Inductor - their settings and environment, as a person tuning compile for
speed sets them. vLLM's --compilation-config with an Inductor option misspelt inside
inductor_compile_config (a key Inductor's config does not have), a pass_config switch given a word
instead of a boolean, and a debug_dump_path under /proc (a folder that cannot be made); Inductor's
weight freezing switched on and its C++ vector width set to 1024 bits (no x86 ISA has it) through
inductor_compile_config; TORCHINDUCTOR_CPP_WRAPPER=1 (Inductor's C++ wrapper), and
TORCH_COMPILE_DISABLE=1 left in the environment from a debugging session (torch.compile becomes a
no-op under vLLM's compile mode). SGLang's --enable-torch-compile on the CPU device (its CPU graph
runner compiles the decode step), the same with --torch-compile-max-bs 0 (no batch size to
capture), and --attention-backend intel_amx (the CPU attention backend of SGLang's own kernels)
with the Transformers model implementation; TORCHDYNAMO_REPRO_AFTER with TORCHDYNAMO_REPRO_LEVEL a
word (the minifier's level, read as a number), left from a debugging session.

Each vLLM run has its own VLLM_CACHE_ROOT under /tmp/blind126/vc (a cold compile each time),
with VLLM_BASE's settings. SGLang runs with --device cpu --model-impl transformers (its own Llama
module imports vllm). A run that serves is given two completions and ended.

Recorded 2026-12-06 in five invocations (vLLM 3 + 2 + 2, SGLang 3 + 1; about 6m42s of recording:
402 s), each scenario once; 10 of the 11 kept (final files de101-de110). Dropped:
s-torch-compile-max-bs-0 (its log is s-torch-compile-cpu's line for line: neither switch has any
effect on CPU here). What the engines did: torch's own check refuses an unknown Inductor option
as the model is built (`RuntimeError: Unexpected optimization option ...`, in the loader's
frames), and pydantic a word for a pass switch at argument parsing; TORCHINDUCTOR_CPP_WRAPPER=1
and Inductor's freezing both fail the compile warm-up inside profile_run (`InductorError:
NotImplementedError: arg type PyObject is not yet supported by custom_op_wrapper`; `AssertionError:
expected OutputCode, got <class 'function'>`); a debug_dump_path under /proc and cpp.simdlen 1024
are taken silently and the server serves. TORCH_COMPILE_DISABLE=1 is noticed only after start-up
(`TORCH_COMPILE_DISABLE is set, disabling torch.compile`): the engine is up in 2 s, and its worker
dies without a word on the first completion (EngineDeadError, 500s, the API server exits). SGLang
0.5.23 on CPU logs `The current platform does not support Intel AMX, will fallback to
torch_native backend.` (though the CPU has AMX flags: its CPU kernels are not installed), turns
--attention-backend intel_amx into torch_native, and ignores --enable-torch-compile and
--torch-compile-max-bs (`cpu graph: False`, no capture); TORCHDYNAMO_REPRO_LEVEL=high kills it
at `import sglang` (torch._dynamo's config reads it with int()).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    linger,
)

ROOT = Path("/tmp/blind126")
V_READY = "Application startup complete"
S_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]


def body(ctx: Ctx) -> str:
    """The run's output, without the header (which quotes the description)."""
    return ctx.text().split("\n\n", 1)[-1]


def until_end_or_serve(ready: str, timeout: float):
    """Wait for the run to end by itself; if it serves instead, two completions and a pause."""
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if ready in body(ctx):
                time.sleep(2)
                ctx.complete(2, max_tokens=12)
                linger(ctx, 4)
                return
            if ctx.proc.poll() is not None:
                return
            time.sleep(0.5)
    return act


def v(name: str, what: str, args: list[str], env: dict[str, str] | None = None,
      timeout: float = 110.0) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args],
                    env={"VLLM_CACHE_ROOT": str(ROOT / "vc" / name), **(env or {})},
                    act=until_end_or_serve(V_READY, timeout))


def s(name: str, what: str, args: list[str], env: dict[str, str] | None = None,
      timeout: float = 100.0) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], env=env or {},
                    act=until_end_or_serve(S_READY, timeout))


def cc(conf: dict) -> list[str]:
    return ["--compilation-config", json.dumps(conf)]


SCENARIOS = [
    # --- vLLM ------------------------------------------------------------------------------------
    v("v-inductor-option-typo", "--compilation-config with inductor_compile_config naming an "
      "Inductor option that does not exist (max_autotune_gemm_backendz, a typo of "
      "max_autotune_gemm_backends)",
      cc({"inductor_compile_config": {"max_autotune_gemm_backendz": "ATEN"}})),
    v("v-pass-config-word", "--compilation-config with pass_config.eliminate_noops given a word "
      "(\"sometimes\") instead of a boolean",
      cc({"pass_config": {"eliminate_noops": "sometimes"}})),
    v("v-inductor-cpp-wrapper", "TORCHINDUCTOR_CPP_WRAPPER=1 (Inductor's C++ wrapper instead of "
      "its Python wrapper, a setting people try to cut CPU overhead)", [],
      env={"TORCHINDUCTOR_CPP_WRAPPER": "1"}),
    v("v-debug-dump-proc", "--compilation-config with debug_dump_path under /proc "
      "(/proc/vllm-compile-dump: a folder that cannot be made)",
      cc({"debug_dump_path": "/proc/vllm-compile-dump"})),
    v("v-compile-disabled-env", "TORCH_COMPILE_DISABLE=1 left in the environment from a "
      "debugging session (torch.compile a no-op) under vLLM's default compile mode", [],
      env={"TORCH_COMPILE_DISABLE": "1"}),
    v("v-inductor-freezing", "--compilation-config with inductor_compile_config freezing true "
      "(Inductor's weight freezing, a CPU inference tuning)",
      cc({"inductor_compile_config": {"freezing": True}})),
    v("v-inductor-simdlen-1024", "--compilation-config with inductor_compile_config cpp.simdlen "
      "1024 (a vector width no x86 ISA has; 256 and 512 are AVX2 and AVX-512)",
      cc({"inductor_compile_config": {"cpp.simdlen": 1024}})),
    # --- SGLang ----------------------------------------------------------------------------------
    s("s-torch-compile-cpu", "--enable-torch-compile on the CPU device (the CPU graph runner "
      "compiles the decode step)", ["--enable-torch-compile"], timeout=150.0),
    s("s-torch-compile-max-bs-0", "--enable-torch-compile with --torch-compile-max-bs 0 (no "
      "batch size left to compile)", ["--enable-torch-compile", "--torch-compile-max-bs", "0"]),
    s("s-attn-intel-amx", "--attention-backend intel_amx (SGLang's CPU attention kernels) with "
      "--model-impl transformers", ["--attention-backend", "intel_amx"]),
    s("s-dynamo-repro-level-word", "TORCHDYNAMO_REPRO_AFTER=dynamo with TORCHDYNAMO_REPRO_LEVEL="
      "high (a word where torch reads a number: the minifier's level) left from a debugging "
      "session", [], env={"TORCHDYNAMO_REPRO_AFTER": "dynamo", "TORCHDYNAMO_REPRO_LEVEL": "high"},
      timeout=80.0),
]
