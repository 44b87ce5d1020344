"""Real SGLang under the real daemon, on a host without a GPU: it starts, prints its real launch
lines and dies (no CPU build of its kernels here). The daemon must name the phase and the
cause, see the whole tree gone, and survive SGLang killing its own process group."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from e2e.harness import free_port

from .conftest import sglang_profile, write_profile
from .test_vllm_real import all_gone, save_log

pytestmark = pytest.mark.timeout(900)


@pytest.mark.parametrize("case, args, env, phase", [
    # model construction: RoPE imports vLLM's custom ops, after "Load weight begin"
    ("device-cpu", {"device": "cpu"}, {}, "weight_loading"),
    # server-args resolution imports sgl_kernel, which has CUDA builds only
    ("cpu-engine", {"device": "cpu"}, {"SGLANG_USE_CPU_ENGINE": "1"}, "launch"),
])
def test_sglang_on_a_host_without_gpu_crashes_with_import_error(
        workdir: Path, make_daemon, sglang_python, tiny_model, case: str, args: dict,
        env: dict, phase: str) -> None:
    write_profile(workdir, "sg", sglang_profile(sglang_python, tiny_model, free_port(),
                                                args=args, env=env))
    d = make_daemon()
    res = d.ctl("switch", "sg", "--wait", "--timeout", "400", "--json", timeout=460)
    assert res.returncode == 1, res.stdout + res.stderr
    v = json.loads(res.stdout)["verdict"]
    save_log(d, f"sglang-{case}")
    assert (v["status"], v["phase"], v["cause"]) == ("crashed", phase, "import_error"), v
    all_gone(d, d.run()["pid"])
    # SGLang SIGQUITs and kills its own process group: the daemon is not in it
    assert d.proc.poll() is None, "the daemon died with SGLang's process group"
    assert d.ctl("status").returncode == 0
