"""A benchmark you can trust: ``repeat = N`` against the real emulator gives a mean and its
spread, with the GPUs (the fake backend, through the real monitor) sampled meanwhile; a
difference within the noise is said to be so; ``repeat`` is checked like the other numbers."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import anyio
import pytest

from supervisor.benchmark import compare, conditions_differ, measure, noise
from supervisor.cli.ctl_campaign import format_campaign
from supervisor.cli.ctl_format import format_history
from supervisor.gpu.fake import FakeBackend
from supervisor.gpu.monitor import GpuMonitor
from supervisor.profiles import ProfileSet
from tests.test_benchmark import Emulator


@pytest.fixture
def emulator():
    emu = Emulator(100)
    yield emu
    emu.close()


def profile(port: int, **bench: object) -> SimpleNamespace:
    return SimpleNamespace(benchmark={"kind": "chat", "max_tokens": 64, "timeout": 20, **bench},
                           host="127.0.0.1", port=port, model=None)


async def measured_with_gpus(port: int, fault: str | None, repeat: int) -> dict:
    monitor = GpuMonitor(FakeBackend(2), gauge_interval=0.2, slow_interval=5)
    async with anyio.create_task_group() as tg:
        await tg.start(monitor.run)
        if fault:
            await monitor.inject(fault)
        with anyio.fail_after(60):
            res = await measure(profile(port, repeat=repeat), monitor.snapshot)
        tg.cancel_scope.cancel()
    return res


def test_repeat_gives_the_mean_its_spread_and_the_gpu_conditions(emulator: Emulator) -> None:
    res = anyio.run(measured_with_gpus, emulator.port, "throttle:1:hw_thermal", 3)
    assert res["complete"] is True and res["repeat"] == 3, res
    rates = [s["tokens_per_s"] for s in res["samples"]]
    assert len(rates) == 3 and all(40 <= r <= 200 for r in rates), rates
    spread = res["spread"]["tokens_per_s"]
    assert spread["n"] == 3 and spread["min"] <= res["tokens_per_s"] <= spread["max"]
    assert abs(res["tokens_per_s"] - sum(rates) / 3) < 0.02 and spread["stdev"] is not None
    assert res["spread"]["ttft_ms"]["n"] == 3
    gpu = res["gpu"]
    assert gpu["gpus"] == 2 and gpu["samples"] >= 2
    assert gpu["throttle_reasons"] == ["hw_thermal"]   # gpu_idle is not a throttle
    assert gpu["sm_clock_mhz"]["max"] > 0 and gpu["temperature_c"]["max"] >= 30


def test_one_repetition_without_gpus_says_there_is_no_telemetry(emulator: Emulator) -> None:
    res = anyio.run(measure, profile(emulator.port))
    assert res["repeat"] == 1 and res["spread"]["tokens_per_s"]["stdev"] is None
    assert res["gpu"] == {"gpus": 0, "samples": 0,
                          "note": "no GPU telemetry during the benchmark"}


def test_a_failed_repetition_makes_the_series_incomplete() -> None:
    res = anyio.run(measure, profile(1, repeat=3))   # nothing listens on port 1
    assert res["complete"] is False and "tokens_per_s" not in res
    assert res["error"].startswith("repetition 1 of 3: ") and len(res["samples"]) == 1


def bench(mean: float, lo: float, hi: float, sd: float, n: int = 3, **more: object) -> dict:
    return {"complete": True, "kind": "command", "tokens_per_s": mean, **more,
            "spread": {"tokens_per_s": {"n": n, "mean": mean, "stdev": sd, "min": lo, "max": hi}}}


def test_a_difference_within_the_noise_is_not_a_winner() -> None:
    assert noise(bench(82, 80, 84, 1.5), bench(83, 81, 85, 1.5))["within_noise"] is True
    far = noise(bench(82, 81, 83, 0.5), bench(60, 59, 61, 0.5))
    assert far["within_noise"] is False and far["noise"].startswith("beyond the noise")
    one = noise(bench(82, 82, 82, 0, n=1), bench(83, 81, 85, 1.5))
    assert one["within_noise"] is None and "one sample" in one["noise"]
    rows = [{"id": 1, "profile": "base", "changes": [], "benchmark": bench(82, 80, 84, 1.5)},
            {"id": 2, "profile": "trial", "changes": ["c"], "benchmark": bench(83, 81, 85, 1)},
            {"id": 3, "profile": "fast", "changes": [], "benchmark": bench(120, 119, 121, 1)}]
    out = {b["profile"]: b for b in compare(rows, lambda p: "base")}
    assert out["trial"]["within_noise"] is True and out["trial"]["noise"].startswith("within")
    assert out["fast"]["within_noise"] is False and "within_noise" not in out["base"]
    table = format_history({"runs": [], "benchmarks": list(out.values())}).splitlines()
    trial = next(ln for ln in table if "  trial + c" in ln)
    fast = next(ln for ln in table if "  fast" in ln)
    assert trial.endswith("(vs base)  within the noise"), table
    assert fast.endswith("(vs base)"), table


def test_a_running_campaign_shows_the_baselines_spread_and_rows_within_the_noise() -> None:
    state = {"campaign": "c", "status": "running", "current": "two", "note": "n",
             "baseline": {"profile": "base", "benchmark": bench(82, 80, 84, 1.5),
                          "drift": {"text": "no drift (within the noise)"}},
             "experiments": [{"name": "one", "verdict": "ready", "culprits": [],
                              "benchmark": {"tokens_per_s": 83, "within_noise": True},
                              "branch": {"next": "two"}}]}
    lines = format_campaign(state).splitlines()
    assert lines[2] == "  baseline base: 82 +/- 1.5 tok/s (no drift (within the noise))"
    assert lines[3] == "  one: ready, 83 tok/s, within the noise -> two"


def test_different_throttling_or_clocks_are_different_conditions() -> None:
    def gpu(reasons: list[str], clock: float) -> dict:
        return {"gpu": {"gpus": 1, "samples": 4, "throttle_reasons": reasons,
                        "sm_clock_mhz": {"max": clock}}}
    assert conditions_differ(gpu([], 1980), gpu([], 1950)) is None
    assert "throttle reasons differ (none then hw_thermal)" == conditions_differ(
        gpu([], 1980), gpu(["hw_thermal"], 1980))
    assert "SM clocks differ" in (conditions_differ(gpu([], 1980), gpu([], 1400)) or "")
    assert conditions_differ(gpu([], 1980), {"gpu": {"gpus": 0, "samples": 0}}) is None


GOOD = 'engine = "sglang"\n[launch]\ncommand = ["x"]\nmodel = "m"\nport = 9000\n[benchmark]\n'


@pytest.mark.parametrize("value", ["0", "101", "1.5", "true", "nan"])
def test_an_absurd_repeat_is_refused(tmp_path: Path, value: str) -> None:
    (tmp_path / "p.toml").write_text(GOOD + f"repeat = {value}\n")
    pset = ProfileSet.load_dir(tmp_path)
    assert [e.key for e in pset.errors] == ["benchmark.repeat"], pset.errors
    assert "between 1 and 100" in pset.errors[0].message and pset.names() == []


def test_a_sane_repeat_loads(tmp_path: Path) -> None:
    (tmp_path / "p.toml").write_text(GOOD + "repeat = 3\n")
    pset = ProfileSet.load_dir(tmp_path)
    assert pset.errors == [] and pset.resolve("p").benchmark["repeat"] == 3
