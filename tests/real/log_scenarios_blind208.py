"""The two-hundred-and-eighth batch's scenarios (tests/fixtures/corpus/fresh207): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind208.py OUT

Themes: the executor and process layout a launch asks for, as a person changes it after reading
a deployment guide. vLLM: --distributed-executor-backend given a misspelt value
("multiprocessing" for mp); --worker-cls naming a worker class that is installed but is the
CUDA one (vllm.v1.worker.gpu_worker.Worker) on the CPU build; --worker-extension-cls naming a
class that is there but is a worker base class, not an extension (its methods clash with the
worker's). SGLang: --enable-metrics with PROMETHEUS_MULTIPROC_DIR naming a folder no process may
write (a sysfs folder, read-only even for root); --tokenizer-worker-num 2 with --enable-metrics.

Earlier batches already had (not repeated): --distributed-executor-backend ray without Ray, uni
with tensor parallel 2 and external_launcher under torchrun-like variables (119th),
external_launcher without torchrun (69th), VLLM_WORKER_MULTIPROC_METHOD=forkserver2 (68th),
spawn with a script lacking the __main__ guard (127th), --worker-cls naming a module not
installed (69th); SGLang --tokenizer-worker-num 0 (73rd), 2 serving (90th, 153rd) and 2 with a
worker SIGKILLed (183rd); PROMETHEUS_MULTIPROC_DIR missing (70th), a regular file (86th), holding
an earlier server's files (93rd), full (146th).

SGLang runs with --device cpu --model-impl transformers; vLLM with VLLM_BASE's settings.

Recorded 2026-12-07 in 1 invocation (raw1: the three vLLM scenarios, then the two SGLang ones,
after a wait for another helper's recorder); each scenario once. About 2m40s of recording
(vLLM 9+27+27 s, SGLang 13+81 s). 5 kept (final files gk101-gk105). Dropped: none.

What the engines did. vLLM reads an unknown --distributed-executor-backend string as a class's
qualified name: `multiprocessing` fails VllmConfig's validation at launch with only `Value
error, not enough values to unpack (expected 2, got 1)` - neither flag nor value named. The
CUDA worker class given by --worker-cls imports and is built, then its init_device raises
`RuntimeError: Unsupported device type: cpu` (launch, before any weight loading); a worker base
class given as --worker-extension-cls fails worker_base's conflict check, `AssertionError:
Worker class <class 'vllm.v1.worker.cpu_worker.CPUWorker'> already has an attribute add_lora,
which conflicts with the worker extension class ...` (launch). Both end `Engine core
initialization failed. See root cause above. Failed core proc(s): {}`. SGLang with metrics and
PROMETHEUS_MULTIPROC_DIR in sysfs dies at launch making its temporary folder there
(`PermissionError: [Errno 1] Operation not permitted: '/sys/kernel/mm/tmp...'`). With two
tokenizer workers and metrics SGLang came up and served, but uvicorn's supervisor first reported
`Child process [...] died` (no reason given) and started another; the two workers each ran a
warmup request and printed the ready line, one after the other (ready, serving).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]


def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, three completions and a short pause."""
    ctx.wait_any([READY_LINE], 180)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(3)
        time.sleep(8)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (three completions, a /metrics scrape); a pause."""
    found = ctx.wait_any([SG_READY], 150)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(3)
            try:
                import urllib.request
                urllib.request.urlopen(f"http://127.0.0.1:{ctx.port}/metrics", timeout=10).read()
            except OSError:
                pass
        linger(ctx, 10)


SCENARIOS = [
    Scenario("v-executor-backend-misspelt", "vllm", "--distributed-executor-backend "
             "multiprocessing (a misspelling of mp)",
             [*VLLM_BASE, "--distributed-executor-backend", "multiprocessing"], act=v_until),
    Scenario("v-worker-cls-gpu-worker", "vllm", "--worker-cls naming the CUDA worker class "
             "(vllm.v1.worker.gpu_worker.Worker) on the CPU build",
             [*VLLM_BASE, "--worker-cls", "vllm.v1.worker.gpu_worker.Worker"], act=v_until),
    Scenario("v-worker-extension-cls-base", "vllm", "--worker-extension-cls naming a worker "
             "base class (vllm.v1.worker.worker_base.WorkerBase), not an extension",
             [*VLLM_BASE, "--worker-extension-cls", "vllm.v1.worker.worker_base.WorkerBase"],
             act=v_until),
    Scenario("s-metrics-prom-dir-readonly", "sglang", "--enable-metrics with "
             "PROMETHEUS_MULTIPROC_DIR naming a sysfs folder no process may write "
             "(/sys/kernel/mm)", [*SG, "--enable-metrics"],
             env={"PROMETHEUS_MULTIPROC_DIR": "/sys/kernel/mm"}, act=s_until),
    Scenario("s-tokenizer-workers-2-metrics", "sglang", "--tokenizer-worker-num 2 with "
             "--enable-metrics", [*SG, "--tokenizer-worker-num", "2", "--enable-metrics"],
             act=s_until),
]
