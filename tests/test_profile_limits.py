"""Profiles that try to hurt the daemon: irregular and huge files, absurd numbers, deep and
circular extends chains, and broken edits of a profile in force."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from supervisor.profiles import ProfileError, ProfileSet, validate_path
from supervisor.profiles.files import MAX_FILE_BYTES, MAX_FILES, MAX_TOTAL_BYTES
from supervisor.profiles.resolve import MAX_EXTENDS_DEPTH

GOOD = 'engine = "command"\n[launch]\ncommand = ["true"]\nport = 9000\n'


def finishes(fn: Callable[[], Any], timeout: float = 20) -> Any:
    """``fn()`` in a daemon thread; fails (instead of hanging the suite) if it blocks."""
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the test below
            out["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), f"{fn} still blocked after {timeout} s"
    if "error" in out:
        raise out["error"]
    return out["value"]


def texts(errors: list[ProfileError]) -> list[str]:
    return [str(e) for e in errors]


# -- B6: only regular files, bounded reads --------------------------------------------------


def test_symlink_to_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    (tmp_path / "ok.toml").write_text(GOOD)
    (tmp_path / "evil.toml").symlink_to(fifo)
    errors = finishes(lambda: validate_path(tmp_path))
    assert [(Path(e.file).name, e.line) for e in errors] == [("evil.toml", None)]
    assert "not a regular file (a FIFO" in errors[0].message
    assert "not a regular file (a FIFO" in str(finishes(lambda: validate_path(fifo))[0])
    pset = finishes(lambda: ProfileSet.load_dir(tmp_path))
    assert pset.names() == ["ok"]


def test_symlink_to_dev_zero_is_refused(tmp_path: Path) -> None:
    (tmp_path / "zero.toml").symlink_to("/dev/zero")
    errors = finishes(lambda: validate_path(tmp_path))
    assert len(errors) == 1 and "a character device" in errors[0].message, texts(errors)
    assert "a character device" in finishes(lambda: validate_path(tmp_path / "zero.toml"))[0].message


def test_a_path_with_a_nul_is_an_error(tmp_path: Path) -> None:
    (error,) = validate_path(f"{tmp_path}/a\0b.toml")
    assert "NUL" in error.message


def test_symlink_to_a_regular_file_is_read(tmp_path: Path) -> None:
    real = tmp_path / "elsewhere"
    real.mkdir()
    (real / "p.toml").write_text(GOOD)
    (tmp_path / "p.toml").symlink_to(real / "p.toml")
    assert ProfileSet.load_dir(tmp_path).names() == ["p"]


def test_a_file_over_the_size_cap_is_refused(tmp_path: Path) -> None:
    big = GOOD + "# padding\n" * (MAX_FILE_BYTES // 10 + 1)
    assert len(big) > MAX_FILE_BYTES
    (tmp_path / "big.toml").write_text(big)
    errors = validate_path(tmp_path / "big.toml")
    assert len(errors) == 1 and "too large" in str(errors[0]) and "big.toml" in str(errors[0])
    (tmp_path / "big.toml").write_text(GOOD + "# padding\n" * 1000)
    assert validate_path(tmp_path / "big.toml") == []


def test_one_load_reads_a_bounded_total(tmp_path: Path) -> None:
    filler = GOOD + "# padding\n" * (MAX_FILE_BYTES // 10 - 100)
    count = MAX_TOTAL_BYTES // len(filler) + 2
    for i in range(count):
        (tmp_path / f"p{i}.toml").write_text(filler)
    pset = ProfileSet.load_dir(tmp_path)
    refused = [e for e in pset.errors if "not read: the files of this load exceed" in e.message]
    assert refused and len(pset.names()) + len(refused) == count
    assert len(pset.names()) * len(filler) <= MAX_TOTAL_BYTES


def test_too_many_files_in_one_folder_is_one_clear_error(tmp_path: Path) -> None:
    for i in range(MAX_FILES + 1):
        (tmp_path / f"p{i:05}.toml").write_text(GOOD)
    errors = validate_path(tmp_path)
    assert len(errors) == 1 and f"{MAX_FILES + 1:,} profile files" in errors[0].message
    assert errors[0].file == str(tmp_path)


def test_not_utf8_and_deep_nesting_are_errors_not_crashes(tmp_path: Path) -> None:
    (tmp_path / "bin.toml").write_bytes(b"description = \"\xff\xfe\"\n")
    (tmp_path / "deep.toml").write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    (tmp_path / "nest.toml").write_text("[benchmark]\nx = " + "[" * 40 + "]" * 40 + "\n")
    pset = ProfileSet.load_dir(tmp_path)
    by_file = {Path(e.file).stem: e.message for e in pset.errors}
    assert "not UTF-8" in by_file["bin"]
    assert "nested too deeply" in by_file["deep"] and "nested too deeply" in by_file["nest"]


# -- B8: every number finite and in range ---------------------------------------------------


@pytest.mark.parametrize(("table", "key", "value"), [
    ("timeouts", "launch", "nan"),
    ("timeouts", "weight_loading", "inf"),
    ("timeouts", "silence", "-inf"),
    ("timeouts", "stop_grace", "inf"),
    ("timeouts", "stop_grace", "1e9"),
    ("timeouts", "warmup", "0"),
    ("timeouts", "cuda_graph_capture", "1" + "0" * 400),
    ("health", "interval", "nan"),
    ("health", "timeout", "-5"),
    ("health", "failures", "100000"),
    ("fallback", "max_attempts", "1000000"),
    ("fallback", "time_budget", "inf"),
    ("restart", "max_restarts", "-1"),
    ("restart", "window", "nan"),
    ("restart", "backoff", "inf"),
    ("restart", "backoff_max", "1e300"),
    ("launch", "port", "0"),
    ("benchmark", "timeout", "nan"),
    ("benchmark", "max_tokens", "0"),
    ("benchmark", "temperature", "nan"),
    ("launch.args", "mem-fraction-static", "nan"),
    ("launch.args", "cuda-graph-bs", "[1, inf]"),
])
def test_absurd_numbers_are_refused_with_file_key_and_line(tmp_path: Path, table: str,
                                                           key: str, value: str) -> None:
    if table == "launch.args":
        text = GOOD + f"args = {{ {key} = {value} }}\n"
        line = 5
    else:
        head = "" if table == "launch" else f"[{table}]\n"
        text = GOOD.replace("port = 9000\n", "") + head + f"{key} = {value}\n"
        line = 4 if table == "launch" else 5
    (tmp_path / "p.toml").write_text(text)
    pset = ProfileSet.load_dir(tmp_path)
    assert len(pset.errors) == 1, texts(pset.errors)
    err = pset.errors[0]
    assert (Path(err.file).name, err.key, err.line) == ("p.toml", f"{table}.{key}", line), str(err)
    assert pset.names() == []


def test_sane_numbers_still_load(tmp_path: Path) -> None:
    (tmp_path / "p.toml").write_text(GOOD + "args = { mem-fraction-static = 0.85, tp = 8 }\n"
                                     "[timeouts]\nstop_grace = 0.5\nweight_loading = 86400\n"
                                     "[health]\ninterval = 0.02\nfailures = 3\n"
                                     "[benchmark]\nkind = 'chat'\nmax_tokens = 128\ntimeout = 60\n")
    pset = ProfileSet.load_dir(tmp_path)
    assert pset.errors == [] and pset.resolve("p").timeouts.stop_grace == 0.5


# -- B9: deep and circular extends ----------------------------------------------------------


def _chain(folder: Path, n: int, *, cycle: bool = False) -> list[str]:
    """``n`` files, each extending the next; the leaf sorts first (a0000)."""
    names = [f"a{i:04}" for i in range(n)]
    for i, name in enumerate(names):
        if i + 1 < n:
            text = f'extends = "{names[i + 1]}"\n'
        elif cycle:
            text = f'extends = "{names[0]}"\n'
        else:
            text = GOOD
        (folder / f"{name}.toml").write_text(text)
    return names


def test_a_1100_deep_extends_chain_is_an_error_not_a_crash(tmp_path: Path) -> None:
    names = _chain(tmp_path, 1100)
    started = time.perf_counter()
    pset = finishes(lambda: ProfileSet.load_dir(tmp_path))
    elapsed = time.perf_counter() - started
    print(f"1100-deep chain loaded in {elapsed * 1000:.0f} ms")
    root = len(names) - 1
    # The root and the 32 levels below it are fine; the 33rd level is the error.
    assert pset.names() == sorted(names[root - MAX_EXTENDS_DEPTH:])
    too_deep = names[root - MAX_EXTENDS_DEPTH - 1]
    err = pset.errors_for(too_deep)[0]
    assert (err.key, err.line) == ("extends", 1)
    assert f"extends chain too deep ({MAX_EXTENDS_DEPTH + 1} levels; at most 32)" in err.message
    assert err.message.endswith(f"-> {names[root]}") and too_deep in err.message
    assert "which has errors" in pset.errors_for(names[0])[0].message
    assert len(str(err)) < 400  # the chain is named, but abbreviated
    assert finishes(lambda: validate_path(tmp_path / f"{names[0]}.toml"))  # errors, no crash


def test_a_1100_file_cycle_names_it(tmp_path: Path) -> None:
    names = _chain(tmp_path, 1100, cycle=True)
    pset = finishes(lambda: ProfileSet.load_dir(tmp_path))
    assert pset.names() == []
    err = pset.errors_for(names[5])[0]
    assert err.message.startswith(f"extends cycle: {names[5]} -> {names[6]}")
    assert err.message.endswith(f"-> {names[5]}") and "more)" in err.message


def test_max_depth_exactly_is_valid(tmp_path: Path) -> None:
    names = _chain(tmp_path, MAX_EXTENDS_DEPTH + 1)
    pset = ProfileSet.load_dir(tmp_path)
    assert pset.errors == [] and pset.resolve(names[0]).port == 9000


# -- a broken edit of a profile in force ----------------------------------------------------


def test_a_broken_edit_is_pending_and_the_old_version_stays_in_force(tmp_path: Path) -> None:
    (tmp_path / "p.toml").write_text(GOOD)
    (tmp_path / "q.toml").write_text(GOOD)
    old = ProfileSet.load_dir(tmp_path)
    assert old.pending("p") is None
    (tmp_path / "p.toml").write_text(GOOD + "[timeouts]\nstop_grace = inf\n")
    merged = ProfileSet.load_dir(tmp_path).keep_valid_from(old)
    assert merged.resolve("p").timeouts.stop_grace == 30.0
    pending = merged.pending("p")
    assert pending is not None and pending["error"].startswith(f"{tmp_path / 'p.toml'}:6: ")
    assert "timeouts.stop_grace" in pending["error"]
    assert pending["in_force"].startswith("last valid version, loaded at ")
    rows = {r["name"]: r for r in merged.summary()}
    assert rows["p"]["valid"] is True and rows["p"]["pending_error"] == pending["error"]
    assert rows["q"]["pending_error"] is None and rows["q"]["in_force"] is None
    # Still broken on the next reload: the same version stays in force, the new error shows.
    (tmp_path / "p.toml").write_text(GOOD + "[timeouts]\nlaunch = nan\n")
    again = ProfileSet.load_dir(tmp_path).keep_valid_from(merged)
    assert again.pending("p")["in_force_loaded_at"] == pending["in_force_loaded_at"]
    assert "timeouts.launch" in again.pending("p")["error"]
    # Fixed: nothing pending.
    (tmp_path / "p.toml").write_text(GOOD.replace("9000", "9001"))
    fixed = ProfileSet.load_dir(tmp_path).keep_valid_from(again)
    assert fixed.pending("p") is None and fixed.resolve("p").port == 9001


def test_a_syntax_error_row_has_every_key(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text('description = "x"\n[launch]\nport = = 3\n')
    (row,) = ProfileSet.load_dir(tmp_path).summary()
    assert set(row) >= {"name", "description", "engine", "extends", "changes", "valid",
                        "error", "source", "pending_error", "in_force"}
    assert row["valid"] is False and row["error"].startswith(f"{tmp_path / 'bad.toml'}:3: ")
