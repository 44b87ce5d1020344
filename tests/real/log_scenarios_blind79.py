"""The seventy-ninth batch's scenarios (tests/fixtures/corpus/fresh78): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind79.py OUT

Some scenarios put the engine's processes into cgroups (v1: cpu, memory) of their own, as a
container's limits would; the cgroups are named blind79-*. Broken model copies go to OUT/.work.
"""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import psutil  # noqa: E402
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    child_signal_when,
    copy_model,
    json_edit,
    linger,
    sg_until_exit,
    signal_quietly,
    until_exit,
    up,
)

BASE = VLLM_BASE
SG = ["--device", "cpu"]
CG = Path("/sys/fs/cgroup")


def cgroup(controller: str, name: str, settings: dict[str, str]) -> Path:
    d = CG / controller / f"blind79-{name}"
    d.mkdir(exist_ok=True)
    for k, v in settings.items():
        (d / k).write_text(v)
    return d


def tree_pids(ctx: Ctx) -> list[int]:
    assert ctx.proc is not None
    try:
        root = psutil.Process(ctx.proc.pid)
        return [root.pid, *(p.pid for p in root.children(recursive=True))]
    except psutil.Error:
        return []


def move_tree(ctx: Ctx, d: Path) -> None:
    for pid in tree_pids(ctx):
        try:
            (d / "cgroup.procs").write_text(str(pid))
        except OSError:
            pass


def cpu_quota_when(name: str, needles: list[str] | None, quota_us: int, after_s: float):
    """The run's whole process tree moved into a cpu cgroup of ``quota_us`` per 100 ms once one
    of ``needles`` is logged (None: at once); the run left ``after_s`` s, then killed."""
    def act(ctx: Ctx) -> None:
        if needles and ctx.wait_any(needles, 240) is None:
            return
        d = cgroup("cpu", name, {"cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": str(quota_us)})
        move_tree(ctx, d)
        linger(ctx, after_s)
    return act


def memcg_shrink_serving(ctx: Ctx) -> None:
    """In a memory cgroup from the start (no limit); once serving two completions, its limit
    is squeezed down to what it cannot give back (8 MiB steps until the kernel
    refuses), then more requests come."""
    assert ctx.proc is not None
    d = cgroup("memory", "shrink", {})
    (d / "cgroup.procs").write_text(str(ctx.proc.pid))
    if not up(ctx, 240):
        return
    ctx.complete(2)
    # cgroup v1 refuses a limit below what it cannot reclaim (EBUSY): set it just above the
    # usage of the moment, again and again, so that what the requests allocate is over it
    for _ in range(30):
        usage = int((d / "memory.usage_in_bytes").read_text())
        try:
            (d / "memory.limit_in_bytes").write_text(str(usage + (1 << 20)))
        except OSError:
            continue
        break
    limit = int((d / "memory.limit_in_bytes").read_text())
    for _ in range(400):    # then down in 8 MiB steps while the kernel can reclaim (page cache)
        try:
            (d / "memory.limit_in_bytes").write_text(str(limit - (8 << 20)))
            limit -= 8 << 20
        except OSError:
            break
    for i in range(4):
        ctx.post("/v1/completions", {"model": ctx.model_name(), "prompt": f"fox {i} " * 40,
                                     "max_tokens": 64}, timeout=40)
    linger(ctx, 20)


def api_signal_when(needles: list[str], sig: int, delay: float = 0.0, after_s: float = 30):
    """``sig`` to the API server process alone once one of ``needles`` shows."""
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        if ctx.wait_any(needles, 240) is None:
            return
        time.sleep(delay)
        signal_quietly(ctx.proc, sig)
        linger(ctx, after_s)
    return act


def linger_150(ctx: Ctx) -> None:
    linger(ctx, 150)


# --- model breakers ----------------------------------------------------------------------------

def shard_duplicate(work: Path) -> Path:
    """The second shard's file overwritten by a copy of the first (a sync tool's mix-up)."""
    d = copy_model(work, "shard-dup")
    shards = sorted(d.glob("model-*.safetensors"))
    shards[1].write_bytes(shards[0].read_bytes())
    return d


def tokenizer_model_null(work: Path) -> Path:
    """tokenizer.json parses, but its "model" is null (a converter's bad output)."""
    d = copy_model(work, "tok-model-null")
    f = d / "tokenizer.json"
    t = json.loads(f.read_text())
    t["model"] = None
    f.write_text(json.dumps(t))
    return d


def tokenizer_pretok_unknown(work: Path) -> Path:
    """tokenizer.json whose pre_tokenizer is of a type this tokenizers library lacks."""
    d = copy_model(work, "tok-pretok-unknown")
    f = d / "tokenizer.json"
    t = json.loads(f.read_text())
    t["pre_tokenizer"] = {"type": "SentencePieceSplit", "add_prefix_space": True}
    f.write_text(json.dumps(t))
    return d


layers_float = json_edit("layers-float", "config.json", num_hidden_layers=2.5)
rms_eps_string = json_edit("rms-eps-string", "config.json", rms_norm_eps="1e-06")
layers_float_sg = json_edit("layers-float-sg", "config.json", num_hidden_layers=2.5)


SCENARIOS = [
    # vLLM
    Scenario("v-torch-logs-bogus", "vllm", "TORCH_LOGS naming a logging component torch lacks "
             "(+nonsense_component)", BASE, env={"TORCH_LOGS": "+nonsense_component"},
             act=until_exit),
    Scenario("v-env-stats-interval-text", "vllm", "VLLM_LOG_STATS_INTERVAL=ten (not a number)",
             BASE, env={"VLLM_LOG_STATS_INTERVAL": "ten"}, act=until_exit),
    Scenario("v-layers-float", "vllm", "config.json num_hidden_layers 2.5 (a float)", BASE,
             model=layers_float, act=until_exit),
    Scenario("v-rms-eps-string", "vllm", "config.json rms_norm_eps the string \"1e-06\"", BASE,
             model=rms_eps_string, act=until_exit),
    Scenario("v-shard-duplicate", "vllm", "the second safetensors shard overwritten by a copy "
             "of the first", BASE, model=shard_duplicate, act=until_exit),
    Scenario("v-tokenizer-model-null", "vllm", "tokenizer.json whose model entry is null", BASE,
             model=tokenizer_model_null, act=until_exit),
    Scenario("v-host-ip-foreign", "vllm", "VLLM_HOST_IP=192.0.2.1 (an address not on this host); "
             "the run left up to 150 s", BASE, env={"VLLM_HOST_IP": "192.0.2.1"},
             act=linger_150),
    Scenario("v-compile-backend-bogus", "vllm", "--compilation-config with a torch.compile "
             "backend that does not exist (nosuch_backend)",
             [*BASE, "--compilation-config", '{"backend": "nosuch_backend"}'], act=until_exit),
    Scenario("v-cpu-quota-load", "vllm", "the whole process tree moved into a cpu cgroup of "
             "5 ms per 100 ms once the worker starts loading the model; left 100 s, then killed",
             BASE, act=cpu_quota_when("quota-v", ["Starting to load model"], 5000, 100)),
    Scenario("v-stop-api-load", "vllm", "SIGSTOP to the API server process alone once the "
             "worker starts loading the model; left 90 s, then killed", BASE,
             act=api_signal_when(["Starting to load model"], signal.SIGSTOP, 0.0, 90)),
    Scenario("v-term-api-warmup", "vllm", "SIGTERM to the API server process alone as soon as "
             "the engine core logs how long its init took", BASE,
             act=api_signal_when(["init engine (profile"], signal.SIGTERM, 0.0, 40)),
    Scenario("v-memcg-shrink-serving", "vllm", "in a memory cgroup; after two completions its "
             "limit squeezed to what the engine cannot give back, then four longer requests",
             BASE, act=memcg_shrink_serving),
    # SGLang
    Scenario("s-torch-logs-bogus", "sglang", "TORCH_LOGS naming a logging component torch lacks "
             "(+nonsense_component)", SG, env={"TORCH_LOGS": "+nonsense_component"},
             act=sg_until_exit),
    Scenario("s-tp-size-text", "sglang", "--tp-size two (a word)", [*SG, "--tp-size", "two"],
             act=sg_until_exit),
    Scenario("s-override-args-bad", "sglang", "--json-model-override-args that is not JSON "
             "(single quotes)", [*SG, "--json-model-override-args", "{'num_hidden_layers': 1}"],
             act=sg_until_exit),
    Scenario("s-layers-float", "sglang", "config.json num_hidden_layers 2.5 (a float)", SG,
             model=layers_float_sg, act=sg_until_exit),
    Scenario("s-tokenizer-pretok-unknown", "sglang", "tokenizer.json whose pre_tokenizer type "
             "does not exist in the tokenizers library", SG, model=tokenizer_pretok_unknown,
             act=sg_until_exit),
    Scenario("s-usr1-scheduler-init", "sglang", "SIGUSR1 (default action) to the scheduler "
             "subprocess 0.5 s after it names itself", SG,
             act=child_signal_when("sglang::scheduler", None, signal.SIGUSR1, 0.5, 60)),
    Scenario("s-cpu-quota-init", "sglang", "the launcher in a cpu cgroup of 15 ms per 100 ms from "
             "its start (children inherit it); left 90 s, then killed", SG,
             act=cpu_quota_when("quota-s", None, 15000, 90)),
    Scenario("s-kv-dtype-bogus", "sglang", "--kv-cache-dtype int3 (no such type)",
             [*SG, "--kv-cache-dtype", "int3"], act=sg_until_exit),
    Scenario("s-device-xpu", "sglang", "--device xpu on a host with no Intel GPU",
             ["--device", "xpu"], act=sg_until_exit),
]

SCENARIOS += [
    Scenario("v-xcpu-core-compile", "vllm", "SIGXCPU (default action: core dump) to the "
             "EngineCore process 2 s after the worker begins its compile warm-up", BASE,
             act=child_signal_when("EngineCore", ["Warming up model for the"], signal.SIGXCPU,
                                   2.0, 60)),
]

# Recorded but left out of the batch (the fault never showed): v-term-api-warmup (the API
# server went on to its ready line and stayed up: the SIGTERM left no trace) and
# v-host-ip-foreign (served as usual, VLLM_HOST_IP only shown as the message queue's address).
# s-cpu-quota-init's first try (2 ms per 100 ms) logged nothing in 90 s; rerun at 15 ms.
# v-memcg-shrink-serving's first try lowered no limit (cgroup v1 refuses a limit below what it
# cannot reclaim: EBUSY); the second squeezed it, and the engine served on regardless.
