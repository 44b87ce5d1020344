"""Profiles: loading, validation (file/key/line), extends, changes, rendering, hashing, diffs."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from supervisor.engines.base import render_args
from supervisor.profiles import (
    KNOWN_REMEDIES,
    Change,
    ProfileError,
    ProfileSet,
    ResolvedProfile,
    Timeouts,
    UnknownProfileError,
    diff_from_parent,
    diff_resolved,
    diff_sets,
    validate_path,
)
from supervisor.states import Phase

REPO = Path(__file__).resolve().parent.parent
PROFILES = REPO / "profiles"
DEMO = PROFILES / "demo"

BASE = """\
description = "base"
[launch]
model = "/m"
port = 30000
args = { tp = 2, trust-remote-code = true }
env = { A = "1" }
"""


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / f"{name}.toml"
    path.write_text(textwrap.dedent(text))
    return path


def load(tmp_path: Path, **files: str) -> ProfileSet:
    for name, text in files.items():
        write(tmp_path, name, text)
    return ProfileSet.load_dir(tmp_path)


def only_error(pset: ProfileSet) -> ProfileError:
    assert len(pset.errors) == 1, [str(e) for e in pset.errors]
    return pset.errors[0]


# -- the shipped examples ---------------------------------------------------------------------


@pytest.mark.parametrize("directory", [PROFILES, DEMO])
def test_shipped_profiles_validate_cleanly(directory: Path) -> None:
    assert validate_path(directory) == []
    pset = ProfileSet.load_dir(directory)
    assert pset.names() == sorted(p.stem for p in directory.glob("*.toml"))
    for name in pset.names():
        profile = pset.resolve(name)
        json.dumps(profile.to_dict())  # plain JSON
        assert validate_path(directory / f"{name}.toml") == []


def test_examples_resolve_to_real_sglang_flags() -> None:
    pset = ProfileSet.load_dir(PROFILES)
    base = pset.resolve("baseline")
    argv = base.argv()
    assert argv[:3] == ["python3", "-m", "sglang.launch_server"]
    assert argv[3:9] == ["--model-path", "/models/Kimi-K2.5",
                         "--host", "127.0.0.1", "--port", "30000"]
    assert "--trust-remote-code" in argv and "--mem-fraction-static" in argv
    eagle = pset.resolve("eagle3")
    assert eagle.parent == "baseline"
    assert eagle.args_dict()["speculative-algorithm"] == "EAGLE3"
    assert eagle.args_dict()["tp-size"] == 8  # inherited
    exp = pset.resolve("nccl_exp_1b_fewchan_fusion")
    assert exp.changes == ("nccl_fewchan", "flashinfer_fusion")
    assert exp.env_dict()["NCCL_MIN_NCHANNELS"] == "2"
    assert "--enable-flashinfer-allreduce-fusion" in exp.argv()
    assert exp.fallback.strategy == "isolate" and exp.fallback.chain == ("baseline",)
    # Isolation's parent: no changes = the baseline's launch exactly.
    assert pset.resolve("nccl_exp_1b_fewchan_fusion", changes=[]).hash == base.hash


def test_demo_fusion_change_is_a_source_patch_of_the_emulated_engine() -> None:
    pset = ProfileSet.load_dir(DEMO)
    fused = pset.resolve("demo-fewchan-fusion", changes=["flashinfer_fusion"])
    assert [p.change for p in fused.patches] == ["flashinfer_fusion"]
    assert "supervisor/emulator/engine_flags.py" in fused.patches[0].text
    assert "SGLANG_EMULATOR_FAULT" not in fused.env_dict()
    fewchan = pset.resolve("demo-fewchan-fusion", changes=["nccl_fewchan"])
    assert "SGLANG_EMULATOR_FAULT" not in fewchan.env_dict() and not fewchan.patches
    assert fewchan.command == ("{python}", "-m", "supervisor.emulator")
    assert fewchan.port == 31000 and fewchan.timeouts.silence == 6


def test_known_remedies_exported() -> None:
    assert "disable_custom_all_reduce" in KNOWN_REMEDIES and "disable_cuda_graph" in KNOWN_REMEDIES


# -- extends ----------------------------------------------------------------------------------


def test_extends_chain_merges_key_by_key(tmp_path: Path) -> None:
    pset = load(
        tmp_path,
        base=BASE + "[timeouts]\nsilence = 50\n[benchmark]\nkind = 'chat'\nmax_tokens = 10\n",
        mid="""\
        extends = "base"
        [launch]
        args = { tp = 4, mem-fraction-static = 0.8 }
        env = { B = "2" }
        [timeouts]
        warmup = 9
        """,
        leaf="""\
        extends = "mid"
        description = "leaf"
        [launch]
        port = 31000
        args = { trust_remote_code = false }
        [benchmark]
        max_tokens = 20
        """,
    )
    assert pset.errors == []
    leaf = pset.resolve("leaf")
    assert leaf.description == "leaf" and leaf.parent == "mid" and leaf.model == "/m"
    assert leaf.args_dict() == {"tp": 4, "trust-remote-code": False, "mem-fraction-static": 0.8}
    assert leaf.env_dict() == {"A": "1", "B": "2"}
    assert (leaf.timeouts.silence, leaf.timeouts.warmup, leaf.timeouts.launch) == (50, 9, 300)
    assert dict(leaf.benchmark) == {"kind": "chat", "max_tokens": 20}
    assert leaf.port == 31000 and "--trust-remote-code" not in leaf.argv()
    assert pset.resolve("mid").description == "base"  # inherited


def test_extends_cycle_names_every_file(tmp_path: Path) -> None:
    pset = load(tmp_path, a='extends = "b"\n', b='extends = "a"\n', c='extends = "a"\n', ok=BASE)
    assert pset.names() == ["ok"]
    by_file = {Path(e.file).stem: e for e in pset.errors}
    for name in ("a", "b"):
        err = by_file[name]
        assert err.key == "extends" and err.line == 1 and "cycle" in err.message
        assert str(err).startswith(f"{tmp_path / name}.toml:1: extends: extends cycle")
    assert "which has errors" in by_file["c"].message
    with pytest.raises(ProfileError) as info:
        pset.resolve("a")
    assert info.value.file == str(tmp_path / "a.toml")


def test_missing_parent(tmp_path: Path) -> None:
    pset = load(tmp_path, child='description = "x"\nextends = "nope"\n')
    err = only_error(pset)
    assert (err.key, err.line) == ("extends", 2) and "nope" in err.message
    assert pset.names() == []


def test_unknown_profile_is_a_key_error(tmp_path: Path) -> None:
    pset = load(tmp_path, base=BASE)
    with pytest.raises(KeyError):
        pset.resolve("ghost")
    with pytest.raises(UnknownProfileError) as info:
        pset.resolve("ghost")
    assert info.value.file is None and str(info.value) == "unknown profile 'ghost'"


# -- rendering --------------------------------------------------------------------------------


def test_arg_rendering() -> None:
    args = [("tp", 8), ("on", True), ("off", False), ("mem_fraction_static", 0.85),
            ("name", "x y"), ("cuda-graph-bs", (1, 2, 4))]
    assert render_args(args) == [
        "--tp", "8", "--on", "--mem-fraction-static", "0.85", "--name", "x y",
        "--cuda-graph-bs", "1", "2", "4",
    ]


def test_underscore_and_dash_keys_are_one_flag(tmp_path: Path) -> None:
    child = 'extends = "base"\n[launch]\nargs = { trust_remote_code = false }\n'
    pset = load(tmp_path, base=BASE, child=child)
    assert pset.resolve("child").args_dict()["trust-remote-code"] is False
    other = tmp_path / "other"
    other.mkdir()
    bad = load(other, dup='[launch]\nmodel = "m"\nargs = { a_b = 1, a-b = 2 }\n')
    err = only_error(bad)
    assert err.key == "launch.args.a-b" and err.line == 3


def test_engines_render(tmp_path: Path) -> None:
    pset = load(
        tmp_path,
        cmd='engine = "command"\n[launch]\ncommand = ["sleep", "100"]\n'
            'args = { x = 1 }\nport = 9000\n',
        vl='engine = "vllm"\n[launch]\nmodel = "m"\n',
        nocmd='engine = "command"\n',
    )
    assert pset.resolve("cmd").argv() == ["sleep", "100", "--x", "1"]
    assert pset.resolve("cmd").port == 9000
    assert pset.resolve("vl").argv() == ["vllm", "serve", "--model", "m", "--host", "127.0.0.1",
                                         "--port", "8000"]
    err = only_error(pset)
    assert err.file.endswith("nocmd.toml") and err.key == "launch.command"


# -- changes ----------------------------------------------------------------------------------

CHANGES = BASE + """\
[[changes]]
name = "one"
env = { X = "1" }
args = { tp = 4 }

[[changes]]
name = "two"
env = { X = "2", Y = "y" }
"""


def test_changes_applied_in_order_and_subsets(tmp_path: Path) -> None:
    pset = load(tmp_path, p=CHANGES)
    full = pset.resolve("p")
    assert full.changes == ("one", "two") and full.env_dict()["X"] == "2"
    assert [c.name for c in full.own_changes] == ["one", "two"]
    # Subset in declared order regardless of the order asked.
    assert pset.resolve("p", changes=["two", "one"]).env_dict()["X"] == "2"
    only_one = pset.resolve("p", changes=["one"])
    assert only_one.changes == ("one",) and only_one.env_dict() == {"A": "1", "X": "1"}
    parent = pset.resolve("p", changes=[])
    assert parent.changes == () and parent.args_dict()["tp"] == 2 and "X" not in parent.env_dict()
    assert len({full.hash, only_one.hash, parent.hash}) == 3
    with pytest.raises(ProfileError) as info:
        pset.resolve("p", changes=["three"])
    assert info.value.key == "changes" and "three" in info.value.message


def test_extra_deltas_after_changes(tmp_path: Path) -> None:
    pset = load(tmp_path, p=CHANGES)
    remedy = Change(name="lower_mem_fraction", args={"mem_fraction_static": 0.7},
                    env={"X": "remedy"})
    out = pset.resolve("p", extra=[remedy, Change(name="", env={"Z": "z"})])
    assert out.changes == ("one", "two", "lower_mem_fraction")
    assert out.env_dict()["X"] == "remedy" and out.env_dict()["Z"] == "z"
    assert out.argv()[-2:] == ["--mem-fraction-static", "0.7"]
    assert remedy.args_dict() == {"mem-fraction-static": 0.7} and hash(remedy)


def test_child_inherits_parent_with_its_changes(tmp_path: Path) -> None:
    kid = 'extends = "p"\n[[changes]]\nname = "k"\nenv = { K = "k" }\n'
    pset = load(tmp_path, p=CHANGES, kid=kid)
    kid = pset.resolve("kid", changes=[])
    assert kid.env_dict()["X"] == "2" and kid.changes == ()
    assert [c.name for c in kid.own_changes] == ["k"]


def test_duplicate_change_names(tmp_path: Path) -> None:
    twice = '[[changes]]\nname = "a"\nenv = {B="1"}\n[[changes]]\nname = "a"\nenv = {B="2"}\n'
    pset = load(tmp_path, p=BASE + twice)
    err = only_error(pset)
    assert err.key == "changes[1].name" and err.line == 11 and "duplicate" in err.message


# -- hashing ----------------------------------------------------------------------------------


def test_hash_stable_and_sensitive(tmp_path: Path) -> None:
    write(tmp_path, "p", CHANGES)
    first = ProfileSet.load_dir(tmp_path).resolve("p")
    second = ProfileSet.load_dir(tmp_path).resolve("p")
    assert first == second and first.hash == second.hash and hash(first) == hash(second)
    write(tmp_path, "p", CHANGES.replace('A = "1"', 'A = "9"'))
    assert ProfileSet.load_dir(tmp_path).resolve("p").hash != first.hash
    # Timeouts do not affect the launch itself.
    write(tmp_path, "p", CHANGES + "[timeouts]\nsilence = 1\n")
    assert ProfileSet.load_dir(tmp_path).resolve("p").hash == first.hash


def test_hash_stable_across_processes(tmp_path: Path) -> None:
    write(tmp_path, "p", CHANGES)
    code = (
        "import sys; from supervisor.profiles import ProfileSet; "
        "print(ProfileSet.load_dir(sys.argv[1]).resolve('p').hash)"
    )
    hashes = {
        subprocess.run([sys.executable, "-c", code, str(tmp_path)], check=True, cwd=REPO,
                       capture_output=True, text=True, env={"PYTHONHASHSEED": seed}).stdout.strip()
        for seed in ("1", "2")
    }
    assert hashes == {ProfileSet.load_dir(tmp_path).resolve("p").hash}


# -- error paths: file, key, line -------------------------------------------------------------


def test_toml_syntax_error_line(tmp_path: Path) -> None:
    pset = load(tmp_path, bad='description = "x"\n[launch]\nport = = 3\n')
    err = only_error(pset)
    assert err.file == str(tmp_path / "bad.toml") and err.line == 3 and err.key is None
    assert str(err).startswith(f"{tmp_path / 'bad.toml'}:3: TOML syntax error")
    assert pset.summary()[0]["valid"] is False


@pytest.mark.parametrize(
    ("text", "key", "line", "fragment"),
    [
        ('description = "x"\ncolour = 1\n', "colour", 2, "unknown key"),
        ('[launch]\nmodel = "m"\nprot = 1\n', "launch.prot", 3, "unknown key"),
        ('[launch]\nmodel = "m"\nport = "abc"\n', "launch.port", 3,
         "must be an integer between 1 and 65535, got 'abc'"),
        ('[launch]\nmodel = "m"\nport = 70000\n', "launch.port", 3, "between 1 and 65535"),
        ('[launch]\nmodel = "m"\ncommand = []\n', "launch.command", 3, "non-empty list"),
        ('[launch]\nmodel = "m"\n\nenv = { N = 2 }\n', "launch.env.N", 4, 'write N = "2"'),
        ('[launch]\nmodel = "m"\nargs = { t = { a = 1 } }\n', "launch.args.t", 3, "got a table"),
        ('[launch]\nmodel = "m"\n[timeouts]\nsilence = -1\n', "timeouts.silence", 4,
         "from 0.01 to 86400, got -1"),
        ('[launch]\nmodel = "m"\n[timeouts]\nsilense = 3\n', "timeouts.silense", 4, "unknown key"),
        ('[launch]\nmodel = "m"\n[health]\nfailures = 0\n', "health.failures", 4, "between 1 and 1000"),
        ('[launch]\nmodel = "m"\n[fallback]\nstrategy = "pray"\n', "fallback.strategy", 4,
         "one of"),
        ('[launch]\nmodel = "m"\n[fallback]\nmax_attempts = 0\n', "fallback.max_attempts", 4,
         "between 1 and 1000"),
        ('[launch]\nmodel = "m"\n[fallback]\nremedies = ["reboot"]\n', "fallback.remedies", 4,
         "unknown remedy"),
        ('[launch]\nmodel = "m"\n[fallback]\nchain = ["ghost"]\n', "fallback.chain", 4,
         "unknown profile 'ghost'"),
        ('engine = "tgi"\n', "engine", 1, "must be one of"),
        ('[launch]\nmodel = "m"\n[[changes]]\nname = "bad name"\nenv = {A="1"}\n',
         "changes[0].name", 4, "identifier"),
        ('[launch]\nmodel = "m"\n[[changes]]\nname = "c"\nenv = {A="1"}\nbogus = 1\n',
         "changes[0].bogus", 6, "unknown key"),
        ('[launch]\nmodel = "m"\n[[changes]]\nname = "c"\n', "changes[0]", 3, "env or args"),
        ('[launch]\nmodel = "m"\n[[changes]]\nname = "c"\nenv = {A="1"}\n'
         '[[changes]]\nargs = {a=1}\n',
         "changes[1]", 6, "needs a name"),
        ('engine = "sglang"\n', "launch.model", None, "required"),
    ],
)
def test_errors_name_file_key_line(tmp_path: Path, text: str, key: str, line: int | None,
                                   fragment: str) -> None:
    pset = load(tmp_path, bad=text)
    err = only_error(pset)
    assert (err.file, err.key, err.line) == (str(tmp_path / "bad.toml"), key, line)
    assert fragment in err.message
    assert pset.names() == []
    with pytest.raises(ProfileError):
        pset.resolve("bad")


def test_error_str_and_pickle() -> None:
    err = ProfileError("must be an integer between 1 and 65535, got 'abc'",
                       file="profiles/bad.toml", key="launch.port", line=7)
    assert str(err) == ("profiles/bad.toml:7: launch.port: "
                        "must be an integer between 1 and 65535, got 'abc'")
    back = pickle.loads(pickle.dumps(err))
    assert (back.file, back.key, back.line, str(back)) == (err.file, err.key, err.line, str(err))
    assert str(ProfileError("m", file="f")) == "f: m"
    assert err.to_dict()["line"] == 7


def test_invalid_parent_makes_child_invalid(tmp_path: Path) -> None:
    pset = load(tmp_path, base=BASE + "bogus = 1\n", kid='extends = "base"\n')
    assert pset.names() == []
    kid = [e for e in pset.errors if e.file.endswith("kid.toml")]
    assert kid[0].key == "extends" and "has errors" in kid[0].message
    rows = {r["name"]: r for r in pset.summary()}
    assert rows["kid"]["valid"] is False and rows["kid"]["extends"] == "base"


# -- validate_path ----------------------------------------------------------------------------


def test_validate_path_file_uses_siblings(tmp_path: Path) -> None:
    write(tmp_path, "base", BASE)
    child = write(tmp_path, "child", 'extends = "base"\n')
    write(tmp_path, "broken", "= nope\n")
    assert validate_path(child) == []  # the broken sibling is not this file's problem
    errors = validate_path(tmp_path)
    assert [Path(e.file).name for e in errors] == ["broken.toml"]
    orphan = tmp_path / "sub"
    orphan.mkdir()
    lonely = write(orphan, "lonely", 'extends = "base"\n')
    assert [e.key for e in validate_path(lonely)] == ["extends"]
    assert validate_path(tmp_path / "nothing.toml")[0].message == "no such file or directory"


# -- summary ----------------------------------------------------------------------------------


def test_summary_includes_invalid(tmp_path: Path) -> None:
    pset = load(tmp_path, p=CHANGES, bad="x = \n")
    rows = pset.summary()
    assert [r["name"] for r in rows] == ["bad", "p"]
    assert rows[0]["valid"] is False and "bad.toml:1" in rows[0]["error"]
    assert rows[1] | {"source": None} == {
        "name": "p", "description": "base", "engine": "sglang", "extends": None,
        "changes": ["one", "two"], "valid": True, "error": None, "source": None,
        "pending_error": None, "in_force": None,
    }


def test_timeouts_for_phase() -> None:
    t = Timeouts(cuda_graph_capture=7)
    assert t.for_phase(Phase.CUDA_GRAPH_CAPTURE) == 7.0
    assert t.for_phase(Phase.LAUNCH) == 300.0
    assert t.for_phase(Phase.READY) is None and t.for_phase(Phase.SERVING) is None


# -- diffs ------------------------------------------------------------------------------------


def test_diff_resolved_and_from_parent() -> None:
    pset = ProfileSet.load_dir(PROFILES)
    diff = {d["key"]: d for d in diff_from_parent(pset, "nccl_exp_1b_fewchan_fusion")}
    assert diff["env.NCCL_MIN_NCHANNELS"] == {
        "key": "env.NCCL_MIN_NCHANNELS", "old": None, "new": "2"}
    assert diff["launch.args.enable-flashinfer-allreduce-fusion"]["new"] is True
    assert diff["fallback.strategy"]["new"] == "isolate"
    assert "launch.model" not in diff
    eagle = {d["key"]: d for d in diff_from_parent(pset, "eagle3")}
    assert eagle["launch.args.mem-fraction-static"] == {
        "key": "launch.args.mem-fraction-static", "old": 0.85, "new": 0.8}
    assert eagle["timeouts.cuda_graph_capture"]["old"] == 1800.0
    base = pset.resolve("baseline")
    assert diff_from_parent(pset, "baseline") == diff_resolved(None, base)
    assert diff_resolved(base, base) == []
    json.dumps(diff_resolved(None, pset.resolve("eagle3")))


def test_diff_resolved_reports_removed_keys(tmp_path: Path) -> None:
    pset = load(tmp_path, p=CHANGES)
    diff = diff_resolved(pset.resolve("p"), pset.resolve("p", changes=[]))
    assert {"key": "env.Y", "old": "y", "new": None} in diff
    assert {"key": "launch.args.tp", "old": 4, "new": 2} in diff


def test_diff_sets(tmp_path: Path) -> None:
    old_dir, new_dir = tmp_path / "old", tmp_path / "new"
    old_dir.mkdir(), new_dir.mkdir()
    for name in ("same", "edit", "gone", "broke"):
        write(old_dir, name, BASE)
    write(new_dir, "same", BASE)
    write(new_dir, "edit", BASE.replace("tp = 2", "tp = 4"))
    write(new_dir, "broke", BASE + "oops = 1\n")
    write(new_dir, "fresh", BASE)
    out = diff_sets(ProfileSet.load_dir(old_dir), ProfileSet.load_dir(new_dir))
    assert out["added"] == ["fresh"] and out["removed"] == ["gone"]
    assert out["changed"] == ["edit"] and out["invalid"] == ["broke"]
    assert len(out["errors"]) == 1 and "broke.toml:7: launch.oops: unknown key" in out["errors"][0]
    same = diff_sets(ProfileSet.load_dir(old_dir), ProfileSet.load_dir(old_dir))
    assert same == {"added": [], "removed": [], "changed": [], "invalid": [], "errors": []}


def test_resolved_profile_is_frozen(tmp_path: Path) -> None:
    profile = load(tmp_path, p=CHANGES + "[benchmark]\nkind='chat'\nlist=[1,2]\n").resolve("p")
    assert isinstance(profile, ResolvedProfile)
    with pytest.raises(AttributeError):
        profile.port = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        profile.benchmark["kind"] = "x"  # type: ignore[index]
    assert profile.to_dict()["benchmark"] == {"kind": "chat", "list": [1, 2]}


def test_bad_edit_keeps_the_old_valid_profile(tmp_path):
    from supervisor.profiles import ProfileSet

    good = 'engine = "command"\n[launch]\ncommand = ["true"]\nport = 9000\n'
    (tmp_path / "p.toml").write_text(good)
    old = ProfileSet.load_dir(tmp_path)
    (tmp_path / "p.toml").write_text(good.replace("port = 9000", 'port = "x"'))
    new = ProfileSet.load_dir(tmp_path)
    assert "p" not in new.names()
    merged = new.keep_valid_from(old)
    assert merged.resolve("p").port == 9000
    assert any("launch.port" in str(e) for e in merged.errors)


@pytest.mark.parametrize("line", [
    'env = { X = "a\\u0000b" }',
    'args = { tp = "2\\u0000" }',
    'command = ["/bin/true", "pass\\u0000"]',
])
def test_a_nul_in_what_exec_gets_is_refused_with_file_key_and_line(tmp_path: Path,
                                                                    line: str) -> None:
    command = "" if line.startswith("command") else 'command = ["/bin/true"]\n'
    pset = load(tmp_path, nul=f'engine = "command"\n[launch]\nport = 30000\n{command}{line}\n')
    err = only_error(pset)
    assert "NUL" in str(err) and "nul.toml" in str(err), str(err)
    assert err.line == (4 if not command else 5), str(err)
