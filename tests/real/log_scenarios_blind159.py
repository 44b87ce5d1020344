"""The hundred-and-fifty-ninth batch's scenarios (tests/fixtures/corpus/fresh158): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind159.py OUT

Themes: the model path as people type it. The parent of the model folder (a folder of folders)
given as the model (both engines); --tokenizer naming the tokenizer.json file instead of a folder
(vLLM); --model-path naming the model's config.json (SGLang); a path typed with a double slash
and a trailing slash (vLLM); a folder whose names hold spaces and non-ASCII letters (SGLang); a
model folder the server can enter but not list (mode 0711, owned by another user,
the server a root without CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH; vLLM).

Earlier batches already had (not repeated): a quoted `~/` model path (88th, both engines), a
relative model path from the wrong working folder (105th), a dangling model symlink (80th, both),
a model symlink loop, vLLM's --model naming config.json and SGLang's naming a shard, a trailing
newline or CR on the path (114th), folder names with glob brackets or a Latin-1 byte and a model
folder readable but not searchable (92nd), a folder only root or a group may read, as nobody
(130th).

Recorded 2026-12-06 in one invocation (raw1: the eight scenarios in table order, waiting its
turn for the shared lock twice), each scenario once. About 3m25s of recording (vLLM 9+11+52+8 s,
SGLang 11+13+52+49 s). 7 kept (final files el101-el107). Dropped: s-model-hub-like-relative (a
copy of the model as tiny-org/llama-tiny in the working folder, --model-path given as that
relative Hub-like id; SGLang took it for the local folder and served two completions, its log
the same as s-model-spaces-non-ascii's but for the path in server_args), removed from the table.
What the engines did: vLLM given the parent of the model folder fails ModelConfig's validation at
launch (`Invalid repository ID or local directory specified`); SGLang given it fails resolving
its server arguments (`ValueError: Unrecognized model in ... Should have a `model_type` key in
its config.json.`), before server_args is printed. vLLM's --tokenizer naming tokenizer.json logs
`Error parsing config for .../tokenizer.json: Unrecognized model ...` twice at ERROR, then dies
building the renderer's tokenizer with `OSError: Repo id must be in the form ...` (launch).
SGLang's --model-path naming config.json gets further than a shard did (114th): transformers
reads the JSON file as the config, the tokenizer path defaults to the same file, and SGLang's
get_tokenizer takes a .json path for a tiktoken file: `KeyError: 'regular_tokens'` (launch). A
double slash and trailing slash (vLLM) and a folder with spaces and non-ASCII letters (SGLang)
are taken as they are: both served (ready, serving). A model folder that can be entered but not
listed (0711, another owner, no DAC capabilities) lets vLLM read config.json by name, then its
tokenizer load calls os.listdir on the folder: `PermissionError: [Errno 13] Permission denied`
(launch).

SGLang runs with --device cpu --model-impl transformers; vLLM with VLLM_BASE's settings. Model
copies are made in the recorder's work folder (the engines' working folder); the unlistable
folder's scenario drops the DAC capabilities from the recorder's bounding set, so it is last.
"""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    copy_model,
    linger,
    until_exit,
)
from setup_engines import LLAMA  # noqa: E402

ROOT = Path("/tmp/blind159")
ROOT.mkdir(parents=True, exist_ok=True)
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, PR_CAPBSET_DROP = 1, 2, 24


def no_dac(ctx: Ctx) -> None:
    """A root without CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH (docker --cap-drop) from now on."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), f"PR_CAPBSET_DROP {cap}")


def parent_of(name: str):
    """A folder of folders: models/llama-tiny-v3 copied, the path given is models/."""
    def make(work: Path) -> Path:
        copy_model(work, f"{name}/llama-tiny-v3")
        return work / name
    return make


def config_file(work: Path) -> Path:
    return copy_model(work, "cfg-file-s") / "config.json"


def double_slash(work: Path) -> str:
    d = copy_model(work, "dslash/llama-tiny-v3")
    # as typed: "$MODELS/" + "/llama-tiny-v3/" - a str, so that no Path normalises it
    return f"{d.parent}//{d.name}/"


def spaces_non_ascii(work: Path) -> Path:
    return copy_model(work, "Modèles LLM/Llama tiny ü")


def unlistable(work: Path) -> Path:
    d = copy_model(work, "unlistable")
    for f in d.iterdir():
        f.chmod(0o644)
    os.chown(d, 65534, 65534)
    d.chmod(0o711)
    work.chmod(0o755)
    return d


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (then two completions and a pause)."""
    found = ctx.wait_any([SG_READY], 150)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2)
        linger(ctx, 10)


def v(name: str, what: str, args: list[str] | None = None, **kw: object) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *(args or [])], act=until_exit,
                    **kw)  # type: ignore[arg-type]


def s(name: str, what: str, args: list[str] | None = None, **kw: object) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *(args or [])], act=s_until,
                    **kw)  # type: ignore[arg-type]


SCENARIOS = [
    v("v-model-parent-folder", "--model naming the parent of the model folder (models/, which "
      "holds llama-tiny-v3/): a folder of folders", model=parent_of("models-v")),
    s("s-model-parent-folder", "--model-path naming the parent of the model folder (models/, "
      "which holds llama-tiny-v3/): a folder of folders", model=parent_of("models-s")),
    v("v-tokenizer-json-file", "--tokenizer naming the model's tokenizer.json file instead of "
      "its folder", ["--tokenizer", str(LLAMA.dir / "tokenizer.json")]),
    s("s-model-is-config-file", "--model-path naming the model's config.json instead of its "
      "folder", model=config_file),
    v("v-model-double-trailing-slash", "the model path typed with a double slash and a trailing "
      "slash (\"$MODELS/\" + \"/llama-tiny-v3/\")", model=double_slash),
    s("s-model-spaces-non-ascii", "the model folder 'Modèles LLM/Llama tiny ü' (spaces and "
      "non-ASCII letters), passed as one argument", model=spaces_non_ascii),
    v("v-model-folder-unlistable", "the model folder mode 0711 owned by uid 65534 (enterable, "
      "not listable; its files 0644), the server a root without CAP_DAC_OVERRIDE / "
      "CAP_DAC_READ_SEARCH (docker --cap-drop)", model=unlistable, before=no_dac),
]
