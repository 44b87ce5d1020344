"""The two-hundred-and-thirty-second batch's scenarios (tests/fixtures/corpus/fresh231): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind232.py OUT

Themes: the shared-file side of a model - many shards, links and index files as tools write
them: checkpoints from save_pretrained(max_shard_size=...), merge and conversion scripts, or
folders assembled from several downloads. vLLM: the tiny model re-saved in 17 small shards
(max_shard_size='100KB') with its index; every shard a relative symlink into a shared store
folder whose third shard was since removed (one dangling link); the second shard's header
rewritten by a conversion script with non-string `__metadata__` values (an integer and a list);
a stale pytorch_model.bin.index.json naming two absent .bin shards beside the safetensors shards
and their index (two index files pointing at different files). SGLang: every shard's metadata
saying `format: mlx` (an MLX conversion); a Mistral-style consolidated.safetensors (Mistral tensor
names, no params.json) beside the HF shards and index; a browser's duplicate download
`model-00002-of-00004 (1).safetensors` beside the shards; the same tensors also saved as two
pytorch_model-*.bin shards with their own index beside the safetensors shards (a folder mixing
.bin and .safetensors shards of the same tensors).

Earlier batches already had (not repeated): a garbage pytorch_model.bin, bin-only checkpoints and
load formats (98th, 123rd); a shard replaced, overwritten, truncated, empty, missing or a git-lfs
pointer, an extra tensor in a shard and the index, index files naming ghost, lower-case or one
shard, an index of another split (67th and after, 92nd, 161st); a shard that is a symlink to
itself (92nd); leftover quantization, adapter, old-shard and Mistral-format files with
params.json or a tokenizer.model.v3 pointer, all for vLLM (161st); training checkpoints' prefixes,
optimizer state and float32 shards (131st, 179th); Hugging Face cache layouts and a dangling
snapshot link in the hub cache (103rd, 132nd, 174th); broken mirror downloads (197th); a dangling
or looping model-path symlink (80th, 114th).

Recorded 2026-12-07 in one invocation (raw1, all eight scenarios), waiting turns with other
helpers' recorders on the shared lock; each scenario once. About 9.5 minutes of recording
(vLLM 59+31+36+73 s, SGLang 93+94+88+93 s). 8 kept (final files hi101-hi108), none dropped.
Every model is a copy of the tiny Llama (hidden 256, 2 layers, four shards and an index) made
under /tmp/blind232/models/NAME by /tmp/blind232/mk.py (written when this table is loaded, run
with the vLLM venv's torch and safetensors). SGLang runs with --device
cpu --model-impl transformers; vLLM with VLLM_BASE's settings. Each run waits for the ready line
(SGLang: `The server is fired up and ready to roll!`) or its end; if it serves, three completions
and a 12 s pause.

What the engines did. vLLM loads the 17 small shards in one go (`Loading safetensors checkpoint
shards: 100% Completed | 17/17`) and serves; the dangling shard link ends the worker as the loader
sizes the checkpoint (`FileNotFoundError: [Errno 2] No such file or directory:
'.../model-00003-of-00004.safetensors'` from _get_checkpoints_size_bytes, then `Engine core
initialization failed`); the non-string metadata ends it opening the second shard
(`SafetensorError: Error while deserializing header: invalid JSON in header: invalid type: integer
`500`, expected a string`); the stale .bin index is never read (4/4 safetensors shards) and it
serves. SGLang never reads the `format` field and serves the MLX-tagged shards; with the index
present it loads only the four shards the index names and serves beside the consolidated file
and beside the duplicate download, saying nothing of either; beside the same
tensors as .bin shards with their own index it takes the safetensors side (4/4) and serves.
Crashed in weight_loading: hi102, hi103; ready in serving: hi101, hi104, hi105, hi106, hi107,
hi108. None hung.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import LLAMA, VLLM  # noqa: E402

ROOT = Path("/tmp/blind232")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"

MK = r'''
import json, os, shutil, struct, sys, glob
import torch
from safetensors.torch import load_file, save_file

kind, src, dest = sys.argv[1], sys.argv[2], sys.argv[3]
SHARDS = sorted(glob.glob(os.path.join(src, "model-*.safetensors")))


def base(skip_weights):
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    for f in os.listdir(src):
        if f == ".complete":
            continue
        if skip_weights and (f.endswith(".safetensors") or f.endswith(".index.json")):
            continue
        shutil.copy2(os.path.join(src, f), os.path.join(dest, f))


def all_tensors():
    t = {}
    for f in SHARDS:
        t.update(load_file(f))
    return t


def write_index(path, wmap, size):
    with open(path, "w") as fh:
        json.dump({"metadata": {"total_size": size}, "weight_map": dict(sorted(wmap.items()))},
                  fh, indent=2)
        fh.write("\n")


if kind == "many-small-shards":
    # save_pretrained(max_shard_size="100KB") on the tiny model: nearly one tensor a shard
    base(True)
    t = all_tensors()
    groups, cur, cur_size = [], {}, 0
    for k in sorted(t):
        n = t[k].numel() * t[k].element_size()
        if cur and cur_size + n > 100_000:
            groups.append(cur); cur, cur_size = {}, 0
        cur[k] = t[k]; cur_size += n
    if cur:
        groups.append(cur)
    wmap, total = {}, 0
    for i, g in enumerate(groups, 1):
        name = f"model-{i:05d}-of-{len(groups):05d}.safetensors"
        save_file({k: v.contiguous() for k, v in g.items()}, os.path.join(dest, name),
                  metadata={"format": "pt"})
        for k, v in g.items():
            wmap[k] = name; total += v.numel() * v.element_size()
    write_index(os.path.join(dest, "model.safetensors.index.json"), wmap, total)

elif kind == "dangling-shard-symlink":
    # shards kept in a shared store, linked into the model folder by relative links;
    # the store's third shard since removed (a cleanup of the store)
    store = dest + "-store"
    if os.path.exists(store):
        shutil.rmtree(store)
    os.makedirs(store)
    base(True)
    shutil.copy2(os.path.join(src, "model.safetensors.index.json"), dest)
    for f in SHARDS:
        shutil.copy2(f, store)
        os.symlink(os.path.join("..", os.path.basename(store), os.path.basename(f)),
                   os.path.join(dest, os.path.basename(f)))
    os.unlink(os.path.join(store, os.path.basename(SHARDS[2])))

elif kind == "shard-metadata-nonstring":
    # a conversion script that writes the header itself: __metadata__ values not all strings
    base(False)
    f = os.path.join(dest, os.path.basename(SHARDS[1]))
    raw = open(f, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    header["__metadata__"] = {"format": "pt", "merge_step": 500, "source_models": ["a", "b"]}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(f, "wb") as fh:
        fh.write(struct.pack("<Q", len(h)) + h + raw[8 + n:])

elif kind == "stale-bin-index":
    # a pytorch_model.bin.index.json from an older conversion beside the safetensors shards
    # and their index, naming two .bin shards that are not there
    base(False)
    idx = json.load(open(os.path.join(src, "model.safetensors.index.json")))
    wmap = {}
    for i, k in enumerate(sorted(idx["weight_map"])):
        wmap[k] = f"pytorch_model-0000{1 + (i * 2) // len(idx['weight_map'])}-of-00002.bin"
    write_index(os.path.join(dest, "pytorch_model.bin.index.json"), wmap,
                idx["metadata"]["total_size"])

elif kind == "shard-format-mlx":
    # shards re-saved by an MLX conversion: metadata format "mlx"
    base(False)
    for f in SHARDS:
        save_file(load_file(f), os.path.join(dest, os.path.basename(f)),
                  metadata={"format": "mlx"})

elif kind == "consolidated-beside-shards":
    # a Mistral-style consolidated.safetensors (Mistral tensor names) written beside the HF
    # shards by a conversion script; no params.json
    base(False)
    t = all_tensors()
    ren = {"model.embed_tokens.weight": "tok_embeddings.weight", "model.norm.weight": "norm.weight",
           "lm_head.weight": "output.weight"}
    part = {"self_attn.q_proj": "attention.wq", "self_attn.k_proj": "attention.wk",
            "self_attn.v_proj": "attention.wv", "self_attn.o_proj": "attention.wo",
            "mlp.gate_proj": "feed_forward.w1", "mlp.down_proj": "feed_forward.w2",
            "mlp.up_proj": "feed_forward.w3", "input_layernorm": "attention_norm",
            "post_attention_layernorm": "ffn_norm"}
    out = {}
    for k, v in t.items():
        if k in ren:
            out[ren[k]] = v; continue
        nk = k.replace("model.layers.", "layers.")
        for a, b in part.items():
            nk = nk.replace("." + a + ".", "." + b + ".")
        out[nk] = v
    save_file({k: v.contiguous() for k, v in out.items()},
              os.path.join(dest, "consolidated.safetensors"))

elif kind == "duplicate-download-shard":
    # a shard downloaded twice by a browser: "model-00002-of-00004 (1).safetensors" beside it
    base(False)
    shutil.copy2(SHARDS[1], os.path.join(dest, os.path.basename(SHARDS[1])[:-12] + " (1).safetensors"))

elif kind == "bin-and-safetensors-mixed":
    # the same tensors as .bin shards (and their index) beside the .safetensors shards
    base(False)
    t = all_tensors()
    keys = sorted(t)
    half = len(keys) // 2
    wmap = {}
    for i, part in enumerate((keys[:half], keys[half:]), 1):
        name = f"pytorch_model-0000{i}-of-00002.bin"
        torch.save({k: t[k] for k in part}, os.path.join(dest, name))
        for k in part:
            wmap[k] = name
    write_index(os.path.join(dest, "pytorch_model.bin.index.json"), wmap,
                sum(v.numel() * v.element_size() for v in t.values()))
else:
    raise SystemExit("unknown kind " + kind)
'''


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    (ROOT / "mk.py").write_text(MK)


_setup()


def made(kind: str) -> Callable[[Path], Path]:
    """A copy of the tiny model under /tmp/blind232/models/KIND, made by mk.py."""
    def make(work: Path) -> Path:
        dest = ROOT / "models" / kind
        dest.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([str(VLLM.python), str(ROOT / "mk.py"), kind, str(LLAMA.dir), str(dest)],
                       check=True)
        return dest
    return make


def ends_or_serves(ctx: Ctx) -> None:
    """Let the run end by itself; if it serves, three completions and a 12 s pause."""
    found = ctx.wait_any([READY_LINE], 240)
    if found and ctx.proc is not None and ctx.proc.poll() is None:
        if "sglang" in ctx.text().split("\n", 1)[0]:
            ctx.wait_any([SG_READY], 90)
        ctx.complete(3, max_tokens=16)
        time.sleep(12)
    else:
        linger(ctx, 15)


def V(name: str, what: str) -> Scenario:
    return Scenario(f"v-{name}", "vllm", what, list(VLLM_BASE), model=made(name),
                    act=ends_or_serves)


def S(name: str, what: str) -> Scenario:
    return Scenario(f"s-{name}", "sglang", what, list(SG), model=made(name), act=ends_or_serves)


SCENARIOS = [
    V("many-small-shards",
      "the tiny model re-saved as save_pretrained(max_shard_size='100KB') writes it: one small "
      "shard per tensor or two, with its index"),
    V("dangling-shard-symlink",
      "every shard a relative symlink into a shared store folder whose third shard was since "
      "removed (one dangling link)"),
    V("shard-metadata-nonstring",
      "the second shard's header rewritten by a conversion script with __metadata__ values that "
      "are not strings (an integer and a list)"),
    V("stale-bin-index",
      "a pytorch_model.bin.index.json from an older conversion left beside the safetensors "
      "shards and their index, naming two .bin shards that are not there"),
    S("shard-format-mlx",
      "every shard re-saved by an MLX conversion, its header metadata saying format: mlx"),
    S("consolidated-beside-shards",
      "a Mistral-style consolidated.safetensors (Mistral tensor names) written beside the HF "
      "shards and their index, no params.json"),
    S("duplicate-download-shard",
      "a shard downloaded twice by a browser: 'model-00002-of-00004 (1).safetensors' beside the "
      "four shards and their index"),
    S("bin-and-safetensors-mixed",
      "the same tensors also saved as two pytorch_model-*.bin shards with their own "
      "pytorch_model.bin.index.json beside the safetensors shards and index"),
]
