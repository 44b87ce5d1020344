"""The two-hundred-and-eighty-first batch's scenarios (tests/fixtures/corpus/fresh280): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind281.py OUT

Themes: the model path as people type it, a new round. vLLM: --model given as a `file://` URL
to the model folder (a habit from other tools' model URIs); --model `tiny-org/llama-tiny`, a
hub-id-like relative path that is also a local folder in the working folder, the hub offline
(which of the two is served?); --tokenizer given as a quoted
`~/...` path (a YAML list item, which no shell expands) beside a good --model; --model given as
`$HOME/.cache/...` left unexpanded (a Kubernetes `args` list or a systemd ExecStart without a
shell). SGLang: --model-path a Windows-style path pasted from a colleague's machine
(`C:\\Users\\ana\\models\\llama-tiny-v3`); a non-ASCII folder whose name was written in Unicode
NFD (decomposed, as macOS tools copy it) while the path is typed in NFC (composed); the model
reached through a symlink to a symlink (models/current -> latest -> ../store/llama-tiny-v3, all
relative links, as a release script leaves them); a path typed through a folder that does not
exist and `..` (`models/old/../llama-tiny-v3`, `old` never made), which the kernel refuses
though the text normalises to a real folder.

Earlier batches already had (not repeated): a quoted `~/` model path (88th, both engines), a
relative model path from the wrong working folder (105th), a dangling model symlink (80th), a
symlink loop and vLLM's --model naming config.json, SGLang's naming a shard, a trailing newline
or CR (114th), a trailing space (89th), a parent folder of the model, --tokenizer naming
tokenizer.json, SGLang's --model-path naming config.json, a double and trailing slash, spaces
and non-ASCII letters in the folder's name, an unlistable folder (159th), a link chain past the
kernel's 40 links and served names with slashes, spaces or `~/` (246th), a model path with its
.env quotes kept (107th), folder names with glob brackets or a Latin-1 byte (92nd), the model by
hub id in Hugging Face caches of many states (103rd, 174th, 274th), --model naming a weight file
(63rd, fresh63/au104; SGLang's 65th).

Recorded 2026-12-08 in two invocations (raw1: the first table's eight scenarios in its order,
waiting its turn for the shared lock twice; raw2: v-model-hub-like-local-folder, added after
raw1), each scenario once. About 3m40s of recording (vLLM 9+9+11+63 s, SGLang 11+11+85+13 s).
8 kept (final files jf101-jf108). Dropped: v-model-weights-shard (--model naming
model-00001-of-00004.safetensors; recorded in raw1, where transformers read the shard as the
config: `OSError: It looks like the config file at '.../model-00001-of-00004.safetensors' is not
a valid JSON file.`) - found after recording to repeat the 63rd batch's v-model-is-file
(fresh63/au104) word for word, so removed from the table and replaced by
v-model-hub-like-local-folder.

What the engines did. Every path that names no folder dies at launch in the same place: vLLM in
AsyncEngineArgs.__post_init__'s get_model_path -> snapshot_download, the last line
`HFValidationError: Repo id must be in the form 'repo_name' or 'namespace/repo_name': '...'` -
the file:// URL, `$HOME/...` unexpanded, and the quoted `~/...` --tokenizer (its get_model_path
runs right after the model's, which passed); SGLang while resolving its server arguments (before
server_args is printed; get_config -> load_pointer_head -> transformers cached_file), chained
HFValidationError / `OSError: Repo id must ...` lines - the NFC path to an NFD folder (the log
shows only the NFC path) and the path through a missing folder and `..`; the Windows path fails
the repo id's character check instead (`Repo id must use alphanumeric chars, '-', '_' or '.'
... 'C:\\Users\\ana\\models\\llama-tiny-v3'`). Served, the fault not showing: vLLM given
tiny-org/llama-tiny took the local folder without a word and served two completions; SGLang
given a symlink to a symlink kept the link path unresolved in server_args, fired up and served
two completions. Crashed at launch: jf101, jf102, jf104, jf105, jf107, jf108; ready in serving:
jf103, jf106. None hung.

SGLang runs with --device cpu --model-impl transformers; vLLM with VLLM_BASE's settings. Model
copies are made in the recorder's work folder (the engines' working folder, under
/tmp/blind281/rawK); the `~` and `$HOME` scenarios name the shared model's own folder as it
sits under /root, read only.
"""

from __future__ import annotations

import os
import sys
import unicodedata
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

ROOT = Path("/tmp/blind281")
ROOT.mkdir(parents=True, exist_ok=True)
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
# the shared tiny model's folder, as a person on this host would type it with `~` or `$HOME`
HOME_REL = LLAMA.dir.relative_to(Path("/root"))


def file_url(work: Path) -> str:
    d = copy_model(work, "url/llama-tiny-v3")
    return f"file://{d}"


def hub_like_local(work: Path) -> str:
    copy_model(work, "tiny-org/llama-tiny")    # the recorder runs the engine in ``work``
    return "tiny-org/llama-tiny"


def home_unexpanded(work: Path) -> str:
    return f"$HOME/{HOME_REL}"


def windows_path(work: Path) -> str:
    copy_model(work, "win/llama-tiny-v3")   # the model is on this host too, at another path
    return r"C:\Users\ana\models\llama-tiny-v3"


def nfd_folder(work: Path) -> str:
    name = "Modèles"
    copy_model(work, unicodedata.normalize("NFD", name) + "/llama-tiny-v3")
    return str(work / unicodedata.normalize("NFC", name) / "llama-tiny-v3")


def symlink_chain(work: Path) -> Path:
    copy_model(work, "store/llama-tiny-v3")
    models = work / "models"
    models.mkdir(exist_ok=True)
    os.symlink("../store/llama-tiny-v3", models / "latest")
    os.symlink("latest", models / "current")
    return models / "current"


def through_missing_dotdot(work: Path) -> str:
    copy_model(work, "models-dd/llama-tiny-v3")
    return str(work / "models-dd" / "old" / ".." / "llama-tiny-v3")


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
    v("v-model-file-url", "--model given as a file:// URL to the model folder "
      "(file:///.../llama-tiny-v3)", model=file_url),
    s("s-model-windows-path", "--model-path a Windows-style path pasted from another machine "
      "(C:\\Users\\ana\\models\\llama-tiny-v3)", model=windows_path),
    v("v-model-hub-like-local-folder", "--model tiny-org/llama-tiny, a hub-id-like relative "
      "path that is also a local folder in the working folder (a copy of the model there), "
      "the hub offline", model=hub_like_local),
    s("s-model-nfd-folder", "the model folder's non-ASCII name written in Unicode NFD "
      "(decomposed, as macOS tools copy it), the path typed in NFC (Modèles/llama-tiny-v3)",
      model=nfd_folder),
    v("v-tokenizer-tilde-quoted", "--tokenizer given as a quoted '~/...' path (a YAML list "
      "item no shell expands) beside a good --model",
      ["--tokenizer", f"~/{HOME_REL}"]),
    s("s-model-symlink-to-symlink", "--model-path models/current, a relative symlink to the "
      "relative symlink latest, which points to ../store/llama-tiny-v3", model=symlink_chain),
    v("v-model-home-unexpanded", "--model given as '$HOME/.cache/.../llama-tiny-v3' left "
      "unexpanded (a Kubernetes args list, no shell)", model=home_unexpanded),
    s("s-model-missing-dotdot", "--model-path typed through a folder that does not exist and "
      "'..' (models/old/../llama-tiny-v3, old never made)", model=through_missing_dotdot),
]
