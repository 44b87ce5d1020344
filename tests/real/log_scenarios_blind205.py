"""The two-hundred-and-fifth batch's scenarios (tests/fixtures/corpus/fresh204): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind205.py OUT

Themes: two nodes that disagree - the head node's (node 0's) log of a two-node launch whose
other node was started with ONE setting that does not match, as when a launch script drifts
between machines. Two "nodes" on this one host, as the 102nd and 196th batches made them: vLLM
tensor parallel 2 across --nnodes 2 (--master-addr 127.0.0.1), node 1 run headless by
/tmp/blind205/headless.py; SGLang --tp 2 --nnodes 2 --dist-init-addr 127.0.0.1:PORT
--node-rank 0/1, --device cpu --model-impl transformers --max-total-tokens 4096 and
SGLANG_NCCL_SO_PATH on a path with no library on both nodes (the 196th batch's reasons). The
RECORDED log is node 0's; node 1 is started by the scenario's act at once (its output in
/tmp/blind205/peers/NAME.log) with the one differing setting; if node 0 comes up it serves two
completions, then the run goes on 40-90 s.
The faults: node 1 with another --dtype (float32 against bfloat16; both engines), node 1
claiming --node-rank 0 as the head does (SGLang), node 1 pointed at another rendezvous port
(vLLM --master-port, SGLang --dist-init-addr), node 1 loading an older copy of the weights (same
shapes, other values: vLLM), node 1 with another --max-model-len / --context-length.

Earlier batches already had (not repeated): node 0's log with node 1 never started (vLLM and
SGLang), SIGKILLed while serving, started late, or started with another --tp (102nd); node 1's
log with its head disturbed (196th); --node-rank 1 on a one-node launch and --nnodes 2 on tensor
parallel 1 (119th); a rendezvous master that accepts and never answers (106th, 109th).

Recorded 2026-12-07 in one invocation (raw1), taking turns with two other helpers' recorders;
each scenario once. About 11 minutes of recording (vLLM 63+111+145+97 s, SGLang 71+42+83+57
s). 6 kept (final files gh101-gh106): v-peer-dtype-float32, v-peer-old-weights,
s-peer-dtype-float32, v-peer-master-port, s-peer-context-length, v-peer-max-model-len.
Dropped, both the same head log as fresh101/cg107 (node 1 never started): s-peer-same-node-rank
(node 1 with --node-rank 0 too: node 1 dies on its own TCPStore bind, `EADDRINUSE`, and node 0's
scheduler ends `DistStoreError: Timed out after 31 seconds waiting for clients. 1/2 clients
joined.`) and s-peer-dist-init-port (node 1 told another --dist-init-addr port: node 0's log the
same, word for word). Both are removed from SCENARIOS; with them gone SGLang keeps two.

What the engines did. A dtype that differs (float32 on node 1, bfloat16 on node 0) passes every
check at launch in both engines and dies at the first tensor-parallel collective, in gloo's
words: `terminate called after throwing an instance of 'gloo::EnforceNotMet' ... Received data
size doesn't match expected size` (twice the bytes expected). vLLM's worker dies so in the
profiling run (the engine core's `Worker proc VllmWorker-0 died unexpectedly (exit code: None)`,
`RuntimeError: cancelled` under _initialize_kv_caches: kv_cache_alloc); SGLang's scheduler in
its own warmup request's prefill after uvicorn is up (`Fatal Python error: Aborted`, exit code
-6: warmup). Another rendezvous port leaves vLLM's node 0 silent after `world_size=2 rank=0 ...
distributed_init_method=tcp://127.0.0.1:PORT backend=gloo` for two minutes (incomplete in
launch), SGLang's timing out after --dist-timeout (dropped, above). An older copy of the weights
on node 1 (same shapes, other values) and a --max-model-len / --context-length that differs are
never compared: both engines come up and serve without a word. s-peer-context-length's log ends
45 s after serving as the act SIGKILLs node 1 before the recorder stops node 0: the head's
scheduler fails its request broadcast (`Read error ... Connection reset by peer`), labelled from
what it shows. The vLLM runs whose node 1 was killed at the end (old weights, max-model-len)
show nothing of it: the recorder stopped node 0 first.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import LLAMA, SGLANG, VLLM  # noqa: E402

ROOT = Path("/tmp/blind205")
PEERS = ROOT / "peers"
HEADLESS_PY = ROOT / "headless.py"
OLD_WEIGHTS_PY = ROOT / "old_weights.py"
SG_READY = "The server is fired up and ready to roll!"
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1",
           "DO_NOT_TRACK": "1"}
SG = ["--device", "cpu", "--model-impl", "transformers", "--max-total-tokens", "4096"]
SG_ENV = {"SGLANG_CPU_OMP_THREADS_BIND": "0|1", "SGLANG_NCCL_SO_PATH": "/opt/no-nccl/libnccl.so.2"}
V_ENV0 = {"VLLM_CPU_OMP_THREADS_BIND": "0"}
V_ENV1 = {"VLLM_CPU_OMP_THREADS_BIND": "1"}

HEADLESS = """import sys
from vllm.entrypoints.serve.utils.api_utils import cli_env_setup
from vllm.utils.argparse_utils import FlexibleArgumentParser
from vllm.entrypoints.launchers.cli_args import make_arg_parser
from vllm.entrypoints.cli.serve import run_headless
if __name__ == "__main__":          # workers are spawned: the main module is re-imported
    cli_env_setup()
    args = make_arg_parser(FlexibleArgumentParser()).parse_args()
    if args.api_server_count is None:
        args.api_server_count = 0      # `vllm serve --headless` sets this default itself
    run_headless(args)
"""

# An "older copy" of the weights: the same tensors, shapes and dtypes, other values (each
# tensor moved by noise half its own spread, as an earlier checkpoint of the run would differ).
OLD_WEIGHTS = """import shutil, sys
from pathlib import Path
import torch
from safetensors.torch import load_file, save_file
src, dst = Path(sys.argv[1]), Path(sys.argv[2])
if dst.exists():
    shutil.rmtree(dst)
shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".complete"))
g = torch.Generator().manual_seed(400)
for shard in sorted(dst.glob("model-*.safetensors")):
    ts = load_file(str(shard))
    out = {}
    for k, t in ts.items():
        f = t.float()
        s = f.std().item() if f.numel() > 1 else 0.0
        out[k] = (f + torch.randn(f.shape, generator=g) * (0.5 * s)).to(t.dtype).contiguous()
    save_file(out, str(shard), metadata={"format": "pt"})
"""


def _setup() -> None:
    PEERS.mkdir(parents=True, exist_ok=True)
    HEADLESS_PY.write_text(HEADLESS)
    OLD_WEIGHTS_PY.write_text(OLD_WEIGHTS)


_setup()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def dfl() -> None:
    """SIGINT and SIGQUIT at their defaults (a background shell's recorder has them ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def dfl_signals(ctx: Ctx) -> None:
    dfl()


def v_node(dist: int) -> list[str]:
    return ["--tensor-parallel-size", "2", "--nnodes", "2", "--master-addr", "127.0.0.1",
            "--master-port", str(dist)]


def s_node(dist: int) -> list[str]:
    return ["--tp", "2", "--nnodes", "2", "--dist-init-addr", f"127.0.0.1:{dist}",
            "--dist-timeout", "30"]


def old_weights(ctx: Ctx) -> Path:
    dst = ROOT / "old-weights"
    if (dst / "config.json").exists():
        return dst
    subprocess.run([str(VLLM.python), str(OLD_WEIGHTS_PY), str(LLAMA.dir), str(dst)],
                   check=True, timeout=120, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return dst


# --- node 1, started by the act with one setting that differs ---------------------------------

class Peer:
    def __init__(self, ctx: Ctx, engine: str, dist: int, rank: str, extra: list[str],
                 model: Path):
        self.log = PEERS / f"{ctx.log.stem}.log"
        if engine == "vllm":
            argv = [str(VLLM.python), str(HEADLESS_PY), "--model", str(model), "--headless",
                    "--port", str(free_port()), *VLLM_BASE, *v_node(dist), "--node-rank", rank,
                    *extra]
            env = V_ENV1
        else:
            argv = [str(SGLANG.python), "-m", "sglang.launch_server", "--model-path", str(model),
                    "--host", "127.0.0.1", "--port", str(free_port()), *SG, *s_node(dist),
                    "--node-rank", rank, *extra]
            env = SG_ENV
        with open(self.log, "wb") as f:
            f.write((" ".join(argv) + "\n\n").encode())
            f.flush()
            self.proc = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, start_new_session=True,
                                         env={**os.environ, **OFFLINE, **env}, cwd=ctx.work,
                                         preexec_fn=dfl)

    def kill(self) -> None:
        for sig in (signal.SIGCONT, signal.SIGKILL):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            pass


def peer_differs(engine: str, dist: int, extra: list[str], rank: str = "1",
                 peer_dist: int | None = None, model=None, wait_s: float = 200,
                 after_s: float = 45) -> object:
    """Node 1 started beside the recorded node 0 with ``extra`` (or ``rank``, ``peer_dist``,
    ``model``) differing; node 0 given ``wait_s`` to come up (then two completions and a longer
    one), the run then left ``after_s`` s."""
    def act(ctx: Ctx) -> None:
        path = model(ctx) if model else LLAMA.dir
        peer = Peer(ctx, engine, peer_dist or dist, rank, extra, path)
        try:
            ready = READY_LINE if engine == "vllm" else SG_READY
            if ctx.wait_for(ready, wait_s):
                ctx.complete(2, max_tokens=16)
                ctx.post("/v1/completions", {"model": ctx.model_name(), "prompt": "the old road",
                                             "max_tokens": 48}, 60)
            linger(ctx, after_s)
        finally:
            peer.kill()
    return act


def v_head(name: str, desc: str, extra: list[str] | None = None, **kw: object) -> Scenario:
    dist = free_port()
    peer_dist = free_port() if kw.pop("other_port", False) else None
    return Scenario(name, "vllm", f"node 0 of two (--nnodes 2 --node-rank 0, tensor parallel 2 "
                    f"across the nodes, master 127.0.0.1), node 1 (headless) started beside it "
                    f"with one setting that differs: {desc}",
                    [*VLLM_BASE, *v_node(dist), "--node-rank", "0"], env=V_ENV0, tp=2,
                    before=dfl_signals,
                    act=peer_differs("vllm", dist, extra or [], peer_dist=peer_dist, **kw))


def s_head(name: str, desc: str, extra: list[str] | None = None, **kw: object) -> Scenario:
    dist = free_port()
    peer_dist = free_port() if kw.pop("other_port", False) else None
    return Scenario(name, "sglang", f"node 0 of two (--tp 2 --nnodes 2 --node-rank 0, "
                    f"--dist-init-addr 127.0.0.1, --dist-timeout 30, --max-total-tokens 4096, "
                    f"SGLANG_NCCL_SO_PATH on a path with no library on both nodes), node 1 "
                    f"started beside it with one setting that differs: {desc}",
                    [*SG, *s_node(dist), "--node-rank", "0"], env=SG_ENV, tp=2,
                    before=dfl_signals,
                    act=peer_differs("sglang", dist, extra or [], peer_dist=peer_dist, **kw))


SCENARIOS = [
    v_head("v-peer-dtype-float32", "node 1 with --dtype float32 (node 0 bfloat16)",
           ["--dtype", "float32"]),
    v_head("v-peer-old-weights", "node 1 loads an older copy of the weights (same shapes and "
           "dtype, other values)", model=old_weights),
    s_head("s-peer-dtype-float32", "node 1 with --dtype float32 (node 0 bfloat16, the model's)",
           ["--dtype", "float32"]),
    v_head("v-peer-master-port", "node 1 told another --master-port (the rendezvous port)",
           other_port=True, wait_s=100),
    s_head("s-peer-context-length", "node 1 with --context-length 512 (node 0 the model's 2048)",
           ["--context-length", "512"]),
    v_head("v-peer-max-model-len", "node 1 with --max-model-len 128 (node 0 256)",
           ["--max-model-len", "128"]),
]
