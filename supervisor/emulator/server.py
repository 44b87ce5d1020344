"""The launch_server main process: phases in order, fault hooks, signals, HTTP lifecycle.

Timings at ``SGLANG_EMULATOR_TIME_SCALE=1.0`` (every sleep is multiplied by the scale):
launch ~5 s, weight_loading ~30 s (``SGLANG_EMULATOR_SHARDS`` shards, default 14), kv_cache_alloc
~3 s, cuda_graph_capture ~20 s, warmup ~3 s. ``slow:<phase>:<seconds>`` is never scaled.

The main process prints the lines of the ranks it drives (as SGLang's ranks would, with their
``TPn`` prefixes); the scheduler children burn CPU while "working", and they are the ones that
crash (printing their own traceback) or hang.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import sys
import threading
import time

from supervisor.emulator import api, engine_flags, faults, logfmt, procs
from supervisor.emulator.config import FaultError, FaultPlan, env_float, parse_args, parse_faults
from supervisor.emulator.logfmt import emit, line, rank_prefix, scheduler_title, uvicorn

WORK_DUTY = 0.25   # share of a core each scheduler burns while loading / capturing
SLOW_DUTY = 0.4    # ... during a slow:<phase> stretch (plus disk reads)
PREFILL_CHUNK_S = 1.0  # slow_prefill: one chunk's line a second (unscaled)
GPU_TOTAL_GB = 79.19
MAX_SCHEDULERS = 8
WORDS = (" The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", ".",
         " It", " was", " a", " bright", " cold", " day", " in", " April", ",", " and")


def _model_type(path: str) -> str:
    p = path.lower()
    for key, arch in (("deepseek", "DeepseekV3ForCausalLM"), ("kimi", "DeepseekV3ForCausalLM"),
                      ("llama", "LlamaForCausalLM"), ("mistral", "MistralForCausalLM"),
                      ("gemma", "Gemma3ForCausalLM"), ("qwen3", "Qwen3ForCausalLM")):
        if key in p:
            return arch
    return "Qwen2ForCausalLM"


class Emulator:
    def __init__(self, args, plan: FaultPlan, env: dict[str, str]) -> None:
        self.args = args
        self.plan = plan
        self.scale = env_float(env, "SGLANG_EMULATOR_TIME_SCALE", 1.0)
        self.tokens_per_s = env_float(env, "SGLANG_EMULATOR_TOKENS_PER_S", 80.0)
        self.shards = max(1, int(env_float(env, "SGLANG_EMULATOR_SHARDS", 14)))
        self.leak_ttl = env_float(env, "SGLANG_EMULATOR_LEAK_TTL", 86400.0)
        self.health_timeout = env_float(env, "SGLANG_HEALTH_CHECK_TIMEOUT", 20.0)
        self.tp = min(args.tp_size, MAX_SCHEDULERS)
        self.dp = max(1, min(args.dp_size, MAX_SCHEDULERS // self.tp))
        self.ranks: list[tuple[int, str]] = []  # (tp rank, prefix)
        for d in range(self.dp):
            for t in range(self.tp):
                self.ranks.append((t, rank_prefix(t, args.tp_size, d if self.dp > 1 else None)))
        self.prefix0 = self.ranks[0][1]
        self.cuda_graph = not args.disable_cuda_graph
        self.spec = bool(args.speculative_algorithm)
        self.arch = _model_type(args.model_path)
        self.weight_gb = round(15.23 / self.tp, 2)
        self.kv_gb = round(max(0.5, GPU_TOTAL_GB * args.mem_fraction_static - self.weight_gb
                               - 0.8 - 2.0), 2)
        self.max_total_tokens = args.max_total_tokens or int(self.kv_gb * 17476)
        self.context_len = args.context_length or 32768
        # runtime state
        self.scheds: list[tuple[int, object]] = []  # (rank index, Popen)
        self.detok = None
        self.exiting = False
        self.exit_lock = threading.Lock()
        self.ready = threading.Event()
        self.http_up = False
        self.httpd = None
        self.served = False
        self.frozen = False           # hang:ready / hang:serving: HTTP stops answering
        self.health_broken = False    # unhealthy: /health stops answering
        self.engine_dead = False      # a rank died after ready (zombie service)
        self.lock = threading.Lock()
        self.running_reqs = 0
        self.running_tokens = 0
        self.stalled = False          # stall: a request came in, no token will follow
        self.prompt_tokens_total = 0  # counters for the optional /metrics (api.prometheus)
        self.generated_tokens_total = 0

    # --- small helpers --------------------------------------------------------------------

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds * self.scale)

    def sched_lines(self, msg: str) -> None:
        emit(*(line(msg, p) for _, p in self.ranks))

    def rank0(self, msg: str) -> None:
        emit(line(msg, self.prefix0))

    def main_line(self, msg: str) -> None:
        emit(line(msg))

    def tell(self, cmd: str, ranks: list[int] | None = None, detok: bool = False) -> None:
        targets = [p for i, p in self.scheds if ranks is None or i in ranks]
        if detok and self.detok is not None:
            targets.append(self.detok)
        for p in targets:
            try:
                p.stdin.write((cmd + "\n").encode())
                p.stdin.flush()
            except (OSError, ValueError):
                pass

    def work(self, seconds_unscaled: float) -> None:
        """Schedulers burn CPU while the main process waits (scaled)."""
        self.tell(f"work {seconds_unscaled * self.scale:.4f} {WORK_DUTY}")

    # --- signals and deaths ---------------------------------------------------------------

    def _claim_exit(self) -> bool:
        with self.exit_lock:
            if self.exiting:
                return False
            self.exiting = True
            return True

    def _kill_children(self) -> None:
        pids = [p.pid for _, p in self.scheds] + ([self.detok.pid] if self.detok else [])
        procs.kill_pids(pids)
        deadline = time.monotonic() + 2.0
        for _, p in self.scheds + ([(0, self.detok)] if self.detok else []):
            try:
                p.wait(max(0.01, deadline - time.monotonic()))
            except Exception:  # noqa: BLE001
                pass

    def on_sigterm(self, signum, frame) -> None:
        if not self._claim_exit():
            return
        self.main_line(f"SIGTERM received. signum={signum} frame={frame!r}. Draining requests "
                       "and shutting down...")
        self.main_line("Gracefully exiting... Remaining number of requests 0. Remaining "
                       "requests remaining_rids=[].")
        if self.http_up:
            emit(uvicorn("Shutting down"), uvicorn("Waiting for application shutdown."),
                 uvicorn("Application shutdown complete."),
                 uvicorn(f"Finished server process [{os.getpid()}]"))
        self._kill_children()  # direct children only: leaked helpers in their own session stay
        os._exit(0)

    def on_sigquit(self, signum, frame) -> None:
        if not self._claim_exit():
            return
        self.main_line("Received sigquit from a child process. It usually means the child "
                       "failed.")
        procs.kill_process_tree(os.getpid())  # SIGKILLs everything below, then us: -9

    def _watch(self, index: int, proc) -> None:
        code = proc.wait()
        if self.exiting:
            return
        if self.ready.is_set():
            self.engine_dead = True  # 0.5.5 keeps serving as a zombie; /health fails
            return
        if not self._claim_exit():
            return
        emit(*faults.rank_dead_lines(index, code))
        self._kill_children()
        os._exit(1)

    def exit_main(self, lines: list[str], code: int = 1) -> None:
        """A main-process exception: print it, kill the children, exit ``code``."""
        if not self._claim_exit():
            self._idle_forever()
        emit(*lines)
        self._kill_children()
        os._exit(code)

    def _idle_forever(self) -> None:
        while True:
            time.sleep(3600)

    # --- fault hooks ----------------------------------------------------------------------

    def checkpoint(self, phase: str) -> None:
        """Called once a phase's first lines are out: crash, hang or go slow here."""
        cause = self.plan.crash_cause(phase)
        if cause:
            self.crash(phase, cause)
        if phase in self.plan.hang:
            self.hang(phase)
        if phase in self.plan.spin:
            self.spin(phase)
        if phase in self.plan.slow:
            seconds = self.plan.slow[phase]
            self.tell(f"work {seconds:.3f} {SLOW_DUTY} read")
            time.sleep(seconds)
        if phase in self.plan.compile:  # a long compile or autotune: CPU, nothing else
            seconds = self.plan.compile[phase]
            self.tell(f"work {seconds:.3f} {SLOW_DUTY}")
            time.sleep(seconds)

    def hang(self, phase: str) -> None:
        """Stop printing and working; from ready on, HTTP stops answering too."""
        if phase in ("ready", "serving"):
            self.frozen = True
        self.tell("hang", detok=True)
        if threading.current_thread() is threading.main_thread():
            self._idle_forever()
        threading.Event().wait()

    def spin(self, phase: str) -> None:
        """The ranks enter a collective that a peer never joins and busy-wait in it (the GPUs
        look busy at low power); no more output. /health still answers: the HTTP thread is
        alive, as in SGLang, but a generation request never returns."""
        self.tell("spin")
        if threading.current_thread() is threading.main_thread():
            self._idle_forever()
        threading.Event().wait()

    def crash(self, phase: str, cause_name: str) -> None:
        cause = faults.CAUSES[cause_name]
        ctx = faults.Ctx(host=self.args.host, port=self.args.port,
                         model_path=self.args.model_path)
        if cause.death == "main_exit1":
            self.exit_main(cause.lines(phase, ctx))
        if cause.death == "main_kill":
            if not self._claim_exit():
                self._idle_forever()
            emit(*cause.lines(phase, ctx))
            procs.kill_process_tree(os.getpid())
        if cause.all_ranks:
            targets = list(range(len(self.scheds)))
        else:
            targets = [min(faults.crash_rank(cause_name, self.tp), len(self.scheds) - 1)]
        if phase == "cuda_graph_capture":
            logfmt.write("\n")  # the exception closes the tqdm bar first (fixture 01)
        self.tell(f"crash {cause_name} {phase}", ranks=targets)
        if phase in ("ready", "serving"):
            return  # the tree dies (sigquit) or serves on as a zombie (dead rank)
        time.sleep(30)  # the child's SIGQUIT or death ends us long before this
        self.exit_main([line("Emulator: the crashing scheduler did not die; giving up.")])

    # --- phases ---------------------------------------------------------------------------

    def server_args_line(self) -> str:
        a = self.args
        fields = [
            ("model_path", a.model_path), ("tokenizer_path", a.tokenizer_path),
            ("tokenizer_mode", "auto"), ("skip_tokenizer_init", False), ("load_format", "auto"),
            ("trust_remote_code", a.trust_remote_code), ("context_length", a.context_length),
            ("is_embedding", False), ("revision", None), ("host", a.host), ("port", a.port),
            ("dtype", a.dtype), ("kv_cache_dtype", a.kv_cache_dtype),
            ("quantization", a.quantization), ("served_model_name",
                                               a.served_model_name or a.model_path),
            ("mem_fraction_static", a.mem_fraction_static),
            ("max_running_requests", a.max_running_requests),
            ("max_total_tokens", a.max_total_tokens),
            ("chunked_prefill_size", a.chunked_prefill_size or 8192),
            ("tp_size", a.tp_size), ("pp_size", a.pp_size), ("stream_interval", 1),
            ("random_seed", a.random_seed or 1234), ("watchdog_timeout", int(a.watchdog_timeout)),
            ("dist_timeout", a.dist_timeout), ("log_level", a.log_level),
            ("decode_log_interval", a.decode_log_interval), ("api_key", None),
            ("dp_size", a.dp_size), ("ep_size", a.ep_size), ("nnodes", a.nnodes),
            ("node_rank", a.node_rank), ("dist_init_addr", a.dist_init_addr),
            ("attention_backend", a.attention_backend),
            ("sampling_backend", a.sampling_backend or "flashinfer"),
            ("speculative_algorithm", a.speculative_algorithm),
            ("speculative_draft_model_path", a.speculative_draft_model_path),
            ("disable_cuda_graph", a.disable_cuda_graph),
            ("cuda_graph_max_bs", a.cuda_graph_max_bs), ("cuda_graph_bs", a.cuda_graph_bs),
            ("disable_custom_all_reduce", a.disable_custom_all_reduce),
            ("enable_flashinfer_allreduce_fusion", a.enable_flashinfer_allreduce_fusion),
            ("enable_torch_compile", a.enable_torch_compile),
            ("skip_server_warmup", a.skip_server_warmup),
        ]
        return "server_args=ServerArgs(" + ", ".join(f"{k}={v!r}" for k, v in fields) + ")"

    def spawn(self) -> None:
        a = self.args
        base = dict(tp_size=a.tp_size, host=a.host, port=a.port, model_path=a.model_path,
                    mem_fraction_static=a.mem_fraction_static,
                    watchdog_timeout=a.watchdog_timeout, scale=self.scale)
        for i, (t, prefix) in enumerate(self.ranks):
            p = procs.spawn_child(scheduler_title(prefix), dict(base, role="scheduler", rank=t,
                                                                prefix=prefix))
            self.scheds.append((i, p))
        self.detok = procs.spawn_child("sglang::detokenizer", dict(base, role="detokenizer"))
        for i, p in self.scheds:
            threading.Thread(target=self._watch, args=(i, p), daemon=True).start()
        if self.plan.leak:
            self.tell(f"leak 2 {self.leak_ttl}", ranks=[0])

    def phase_launch(self) -> None:
        cause = self.plan.crash_cause("launch")
        if cause in ("import_error", "model_not_found"):
            self.exit_main(faults.CAUSES[cause].lines("launch", faults.Ctx(
                model_path=self.args.model_path)))
        self.main_line(self.server_args_line())
        self.spawn()
        self.sleep(1.5)
        self.sched_lines("Init torch distributed begin.")
        self.join_ranks()
        self.checkpoint("launch")
        self.work(2.0)
        self.sleep(2.0)
        if self.tp > 1:
            self.sched_lines("sglang is using nccl==2.27.3")
        if self.tp > 2 and not self.args.disable_custom_all_reduce:
            self.sched_lines("Custom allreduce is disabled because it's not supported on more "
                             "than two PCIe-only GPUs. To silence this warning, specify "
                             "disable_custom_all_reduce=True explicitly.")
        self.sched_lines("Init torch distributed ends. mem usage=0.13 GB")
        self.sleep(1.5)

    def phase_weights(self, draft: bool = False) -> None:
        avail = GPU_TOTAL_GB - 0.76
        self.sched_lines(f"Load weight begin. avail mem={avail:.2f} GB")
        n = 1 if draft else self.shards
        start = time.monotonic()
        logfmt.write("\r" + logfmt.weight_bar(0, n, 0.0) + "\n")  # tqdm: "\r" + bar + "\n"
        if not draft:
            self.checkpoint("weight_loading")
        per_shard = (2.0 if draft else 30.0) / n
        self.work(per_shard * n)
        for k in range(1, n + 1):
            self.sleep(per_shard)
            logfmt.write("\r" + logfmt.weight_bar(k, n, time.monotonic() - start) + "\n")
        logfmt.write(logfmt.weight_bar(n, n, time.monotonic() - start) + "\n\n")
        arch = "LlamaForCausalLMEagle3" if draft else self.arch
        wgb = 0.98 if draft else self.weight_gb
        self.sched_lines(f"Load weight end. type={arch}, dtype=torch.bfloat16, "
                         f"avail mem={avail - wgb:.2f} GB, mem usage={wgb:.2f} GB.")

    def phase_kv(self) -> None:
        self.checkpoint("kv_cache_alloc")
        self.work(3.0)
        self.sleep(2.0)
        half = self.kv_gb / 2
        self.sched_lines(f"KV Cache is allocated. #tokens: {self.max_total_tokens}, "
                         f"K size: {half:.2f} GB, V size: {half:.2f} GB")
        self.sleep(1.0)
        self.sched_lines(f"Memory pool end. avail mem={self.avail_after_kv():.2f} GB")

    def avail_after_kv(self) -> float:
        return max(0.3, GPU_TOTAL_GB - 0.76 - self.weight_gb - self.kv_gb)

    def capture_bs(self) -> list[int]:
        if self.args.cuda_graph_bs:
            return sorted(set(self.args.cuda_graph_bs))
        max_bs = self.args.cuda_graph_max_bs or 160
        return [b for b in [1, 2, 4, 8, *range(16, max_bs + 1, 8)] if b <= max_bs]

    def phase_capture(self) -> None:
        avail = self.avail_after_kv()
        self.sched_lines("Capture cuda graph begin. This can take up to several minutes. "
                         f"avail mem={avail:.2f} GB")
        bs = self.capture_bs()
        self.rank0(f"Capture cuda graph bs {bs}")
        start = time.monotonic()

        def desc(b: int) -> str:
            return f"Capturing batches (bs={b} avail_mem={avail - 0.04:.2f} GB)"

        logfmt.write("\r" + logfmt.tqdm_bar(desc(bs[-1]), 0, len(bs), 0.0))
        self.checkpoint("cuda_graph_capture")
        if engine_flags.use_flashinfer_allreduce_fusion(
                self.args.enable_flashinfer_allreduce_fusion, self.tp):
            self.capture_with_fusion()
        per_bs = 20.0 / len(bs)
        self.work(20.0)
        for k, b in enumerate(reversed(bs), start=1):
            self.sleep(per_bs)
            logfmt.write("\r" + logfmt.tqdm_bar(desc(b), k, len(bs), time.monotonic() - start))
        logfmt.write("\n")
        took = time.monotonic() - start
        self.sched_lines(f"Capture cuda graph end. Time elapsed: {took:.2f} s. "
                         f"mem usage=0.93 GB. avail mem={avail - 0.93:.2f} GB.")
        if self.spec:
            for what in ("draft", "draft extend"):
                self.sched_lines(f"Capture {what} cuda graph begin. This can take up to several "
                                 f"minutes. avail mem={avail - 0.93:.2f} GB")
                self.work(2.0)
                self.sleep(2.0)
                self.sched_lines(f"Capture {what} cuda graph end. Time elapsed: "
                                 f"{2.0 * self.scale:.2f} s. mem usage=0.31 GB. "
                                 f"avail mem={avail - 1.24:.2f} GB.")

    def capture_with_fusion(self) -> None:
        """Capture runs the fused all-reduce (engine_flags.py); where it hangs, the ranks spin
        in the collective as the seed's did (the same path as the spin:<phase> fault)."""
        if engine_flags.fused_allreduce_hangs():
            self.spin("cuda_graph_capture")

    def phase_warmup(self) -> None:
        a = self.args
        self.rank0(f"max_total_num_tokens={self.max_total_tokens}, chunked_prefill_size="
                   f"{a.chunked_prefill_size or 8192}, max_prefill_tokens=16384, "
                   f"max_running_requests={a.max_running_requests or 4096}, "
                   f"context_len={self.context_len}, available_gpu_mem="
                   f"{self.avail_after_kv() - 0.93:.2f} GB")
        emit(uvicorn(f"Started server process [{os.getpid()}]"),
             uvicorn("Waiting for application startup."),
             uvicorn("Application startup complete."))
        port_fault = self.plan.crash_cause("warmup") == "port_in_use"
        try:
            if port_fault:
                raise OSError(98, "address already in use")
            self.httpd = api.make_server(self, a.host, a.port)
        except OSError as e:
            if e.errno != 98 and not port_fault:
                raise
            ctx = faults.Ctx(host=a.host, port=a.port)
            self.exit_main([uvicorn(faults.CAUSES["port_in_use"].lines("warmup", ctx)[0],
                                    "ERROR")])
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.2},
                         daemon=True).start()
        self.http_up = True
        emit(uvicorn(f"Uvicorn running on http://{a.host}:{a.port} (Press CTRL+C to quit)"))
        if self.plan.crash_cause("warmup") != "port_in_use":
            self.checkpoint("warmup")
        self.sleep(1.0)
        if a.skip_server_warmup:
            return
        try:
            self.self_request("GET", "/get_model_info")
            self.sleep(0.5)
            self.self_request("POST", "/generate", {
                "text": "The capital city of France is",
                "sampling_params": {"temperature": 0, "max_new_tokens": 8}})
        except Exception as e:  # noqa: BLE001 - SGLang: warmup error -> kill the tree
            if self._claim_exit():
                emit(line(f"Initialization failed. warmup error: {e!r}"))
                procs.kill_process_tree(os.getpid())
            self._idle_forever()
        self.sleep(0.5)

    def self_request(self, method: str, path: str, body: dict | None = None) -> None:
        host = self.args.host
        if host in ("0.0.0.0", "", "::"):
            host = "127.0.0.1"
        conn = http.client.HTTPConnection(host, self.args.port, timeout=600)
        try:
            conn.request(method, path, body=json.dumps(body) if body is not None else None,
                         headers={"Content-Type": "application/json"})
            res = conn.getresponse()
            res.read()
            if res.status != 200:
                raise AssertionError(f"<Response [{res.status}]>")
        finally:
            conn.close()

    def phase_ready(self) -> None:
        self.ready.set()
        self.main_line("The server is fired up and ready to roll!")
        self.checkpoint("ready")
        if self.plan.flood:
            threading.Thread(target=self.flood, args=(self.plan.flood,), daemon=True).start()
        if self.plan.unhealthy:
            threading.Thread(target=self.break_health, daemon=True).start()

    def run(self) -> int:
        signal.signal(signal.SIGTERM, self.on_sigterm)
        signal.signal(signal.SIGINT, self.on_sigterm)
        signal.signal(signal.SIGQUIT, self.on_sigquit)
        self.phase_launch()
        self.phase_weights()
        if self.spec:
            self.phase_weights(draft=True)
        self.phase_kv()
        if self.cuda_graph:
            self.phase_capture()
        if self.args.nnodes > 1 and self.args.node_rank > 0:
            self.phase_follower()
        else:
            self.phase_warmup()
            self.phase_ready()
        self._idle_forever()
        return 0

    # --- multi-node ranks (emulator/ranks.py) ---------------------------------------------

    def join_ranks(self) -> None:
        """--nnodes > 1: the TCP rendezvous on --dist-init-addr; a peer's death later ends
        this rank after the time-scaled dist timeout, with torch's lines."""
        a = self.args
        if a.nnodes <= 1:
            return
        from supervisor.emulator.ranks import DEFAULT_DIST_TIMEOUT, Rendezvous

        timeout = a.dist_timeout or DEFAULT_DIST_TIMEOUT
        self.rendezvous = Rendezvous(a.nnodes, a.node_rank, a.dist_init_addr or "",
                                     timeout * self.scale, on_fatal=self.exit_main,
                                     shown_s=timeout)
        self.rendezvous.join()

    def phase_follower(self) -> None:
        """A rank on another node than rank 0 serves no API: its schedulers run, and a
        health endpoint answers (SGLang's dummy health check server on non-zero nodes)."""
        self.rank0(f"max_total_num_tokens={self.max_total_tokens}, node_rank="
                   f"{self.args.node_rank}: scheduler ready, waiting for rank 0's requests")
        self.checkpoint("warmup")
        self.httpd = api.make_server(self, self.args.host, self.args.port)
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.2},
                         daemon=True).start()
        self.http_up = True
        self.ready.set()
        self.checkpoint("ready")

    # --- serving --------------------------------------------------------------------------

    def before_generate(self) -> None:
        """Gate for generation requests: serving-phase faults and dead engines."""
        if self.frozen or self.engine_dead:
            threading.Event().wait()  # the request hangs, as against a dead scheduler
        if not self.ready.is_set():
            return  # the internal warmup request
        with self.lock:
            first = not self.served
            self.served = True
        if first:
            if self.plan.crash_cause("serving") or {"serving"} & (self.plan.hang |
                                                                  self.plan.spin):
                # the request reaches the scheduler, whose forward then fails or never returns
                self.rank0("Prefill batch, #new-seq: 1, #new-token: 12, #cached-token: 0, "
                           "token usage: 0.00, #running-req: 0, #queue-req: 0, ")
            self.checkpoint("serving")
            if self.plan.crash_cause("serving"):
                threading.Event().wait()

    def decode_line(self, throughput: float) -> str:
        usage = self.running_tokens / max(1, self.max_total_tokens)
        spec = "accept len: 2.17, accept rate: 0.54, " if self.spec else ""
        return (f"Decode batch, #running-req: {self.running_reqs}, #token: {self.running_tokens},"
                f" token usage: {usage:.2f}, {spec}cuda graph: {self.cuda_graph}, "
                f"gen throughput (token/s): {throughput:.2f}, #queue-req: 0, ")

    def generate(self, prompt_tokens: int, max_new: int, on_token=None) -> list[str]:
        """Produce ``max_new`` tokens at SGLANG_EMULATOR_TOKENS_PER_S, logging like SGLang."""
        with self.lock:
            self.running_reqs += 1
            self.running_tokens += prompt_tokens
            self.prompt_tokens_total += prompt_tokens
        self.prefill(prompt_tokens)
        out: list[str] = []
        interval = 1.0 / self.tokens_per_s
        every = max(1, self.args.decode_log_interval)
        start = last_log = time.monotonic()
        try:
            for i in range(max_new):
                delay = start + (i + 1) * interval - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                tok = WORDS[i % len(WORDS)]
                out.append(tok)
                with self.lock:
                    self.running_tokens += 1
                    self.generated_tokens_total += 1
                if on_token is not None:
                    on_token(i, tok)
                if (i + 1) % every == 0:
                    now = time.monotonic()
                    self.rank0(self.decode_line(every / max(1e-6, now - last_log)))
                    last_log = now
        finally:
            with self.lock:
                self.running_reqs -= 1
                self.running_tokens -= prompt_tokens + len(out)
        return out

    def prefill(self, prompt_tokens: int) -> None:
        """A request's Prefill batch line(s); after ready, the stall and slow_prefill faults."""
        def batch(new: int) -> str:
            usage = self.running_tokens / max(1, self.max_total_tokens)
            return (f"Prefill batch, #new-seq: 1, #new-token: {new}, #cached-token: 0, "
                    f"token usage: {usage:.2f}, #running-req: {self.running_reqs - 1}, "
                    "#queue-req: 0, ")
        serving = self.ready.is_set()
        if serving and self.plan.slow_prefill:
            # a long prompt in chunks (--chunked-prefill-size): slow, but a line per chunk
            chunk = self.args.chunked_prefill_size or 8192
            end = time.monotonic() + self.plan.slow_prefill
            while time.monotonic() < end:
                self.rank0(batch(chunk))
                time.sleep(min(PREFILL_CHUNK_S, max(0.0, end - time.monotonic())))
        self.rank0(batch(prompt_tokens))
        if serving and self.plan.stall:
            self.stalled = True
            threading.Event().wait()  # the scheduler took it and never runs a forward again

    def flood(self, rate: float) -> None:
        """flood:<rate>: Decode-batch lines at ``rate``/s, written in blocks every ~10 ms."""
        sent = 0
        start = time.monotonic()
        tokens = 1000
        while True:
            due = int((time.monotonic() - start) * rate) - sent
            if due <= 0:
                time.sleep(0.01)
                continue
            due = min(due, max(1, int(rate)))  # a slow reader: don't build a huge backlog
            head = f"[{logfmt.ts()}{self.prefix0}] Decode batch, #running-req: 1, #token: "
            rows = []
            for _ in range(due):
                tokens += 1
                rows.append(f"{head}{tokens}, token usage: 0.01, cuda graph: {self.cuda_graph},"
                            f" gen throughput (token/s): 82.10, #queue-req: 0, \n")
            logfmt.write("".join(rows))
            sent += due

    def break_health(self) -> None:
        time.sleep(max(0.5, 2.0 * self.scale))
        tic = time.strftime("%H:%M:%S", time.localtime(time.time() - 20))
        self.main_line("Health check failed. Server couldn't get a response from detokenizer "
                       "for last 20 seconds. tic start time: "
                       f"{tic}. last_heartbeat time: {tic}")
        self.health_broken = True

    def health(self) -> int | None:
        """Status for /health; None means the request hangs."""
        if self.frozen or self.health_broken:
            return None
        if self.engine_dead:
            time.sleep(max(0.5, self.health_timeout * self.scale))
            now = time.strftime("%H:%M:%S")
            self.main_line("Health check failed. Server couldn't get a response from "
                           f"detokenizer for last {self.health_timeout:g} seconds. tic start "
                           f"time: {now}. last_heartbeat time: {now}")
            return 503
        return 200 if self.ready.is_set() else 503


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args.replay:
        from supervisor.emulator.replay import replay

        return replay(args.replay, args.speed, args.port)
    try:
        plan = parse_faults(os.environ.get("SGLANG_EMULATOR_FAULT", ""), argv)
        emu = Emulator(args, plan, dict(os.environ))
    except FaultError as e:
        logfmt.emit(f"supervisor.emulator: {e}")
        return 2
    return emu.run()
