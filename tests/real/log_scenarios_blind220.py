"""The two-hundred-and-twentieth batch's scenarios (tests/fixtures/corpus/fresh219): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind220.py OUT

Themes: a vision-language model served for the first time. A tiny LLaVA (2 Llama layers, hidden
256, vocabulary 640 with an `<image>` token; a 2-layer CLIP tower, hidden 64, 56-pixel images,
patch 14; random bfloat16 weights) is built under /tmp/blind220/vlm-good with transformers from
vLLM's venv when this table is loaded (/tmp/blind220/build_vlm.py), its processor_config.json,
tokenizer and chat_template.jinja saved beside it. (A Qwen2-VL was tried first: its processor
cannot be built here, transformers' video processor needing torchvision, which neither venv has.)

Earlier batches already had (not repeated): images sent to the text-only Llama - image and audio
parts in vLLM chat (74th), --limit-mm-per-prompt on the text model with unreachable and
not-an-image URLs (128th, 167th), SGLang chat image parts and /generate image_data (128th),
--mm-processor-kwargs cut short (83rd), --mm-process-config as key=value (167th), a 24 MB
not-an-image data: URL (167th). No earlier batch served a real multimodal model.

Models: vLLM cannot serve the LLaVA here (its llava module imports pixtral, which needs
torchvision), so its other scenarios use a tiny Idefics3 (SmolVLM's family: 2 Llama layers, a
2-layer SigLIP-style tower at 56 pixels, scale_factor 2, an Idefics3Processor with its PIL image
processor), built under /tmp/blind220/smolvlm-good by /tmp/blind220/build_idefics.py when this
table is loaded; vLLM serves it, images included. SGLang (--device cpu --model-impl transformers)
serves no VLM here: its Transformers backend builds a multimodal model's parameters on an
accelerator (`No accelerator (CUDA, XPU, HPU, NPU, MUSA, MPS) or platform plugin is available`),
so the good LLaVA was recorded once and SGLang's other faults are those that end before any
model is built (the processor files). Scenarios that serve send a chat with one small PNG
(base64 data: URL), their own requests, another one-image chat, and let the run go 12 s.

Recorded 2026-12-07 in three invocations (raw1: four, raw2: six, raw3: one), taking turns with
two other helpers' recorders; each scenario once. About 5m05s of recording (vLLM 17+16+16+61+25+
49+9 s, SGLang 56+17+23+16 s). 8 kept (final files gw101-gw108). Dropped, removed from the
table: v-limit-mm-audio (--limit-mm-per-prompt '{"audio": 1}' on the LLaVA) and
v-processor-from-qwen2vl (a Qwen2-VL's processor_config.json over the LLaVA): both the same log as
v-llava-two-images-limit-one, vLLM dying on the torchvision import while inspecting the
architecture before either setting is read; s-image-backend-torchvision (--image-processor-backend
torchvision, torchvision absent): the processor was built without a word of the flag and the log
is s-llava-huge-image's (`No accelerator ...` at the model's build). Not recorded: the LLaVA's
v-template-no-image-placeholder (would die as gw101; recorded on the Idefics3 instead) and
s-vision-hidden-mismatch (SGLang dies building any VLM before it reads the weights).

What the engines did. vLLM: the LLaVA ends at launch (`Model architectures
['LlavaForConditionalGeneration'] failed to be inspected` over `ModuleNotFoundError: No module
named 'torchvision'`); the Idefics3 serves in 19 s of engine init and answers one-image chats 200,
two images over --limit-mm-per-prompt 1 a bare 400 (no reason at INFO); a vision_config
hidden_size out of step with the weights ends in weight_loading (`Tried to load weights of size
torch.Size([256, 256])to a parameter of size torch.Size([256, 512])`, the connector); a chat
template without the image placeholder serves, each image chat a 500 with an ASGI traceback
ending `AssertionError: Failed to apply prompt replacement for mm_items['image'][0]`; a LLaVA's
processor_config.json over the Idefics3 ends at launch as the API server sizes the encoder budget
(`AttributeError: 'CLIPImageProcessorPil' object has no attribute 'max_image_size'`). SGLang: the
good LLaVA ends in weight_loading (`Load weight begin`, `Using Transformers backend.`, `No
accelerator ...`, `Received sigquit from a child process`); without processor_config.json the
tokenizer manager ends it at launch (`OSError: Can't load image processor for ...`), and with a
Qwen2-VL's it asks for a video processor (`OSError: Can't load video processor for ...`).
"""
from __future__ import annotations

import base64
import json
import struct
import subprocess
import sys
import urllib.error
import urllib.request
import zlib
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import LLAMA, VLLM  # noqa: E402

ROOT = Path("/tmp/blind220")
GOOD = ROOT / "vlm-good"
BUILDER = ROOT / "build_vlm.py"
SMOL = ROOT / "smolvlm-good"
SMOL_BUILDER = ROOT / "build_idefics.py"
NO_IMAGE_TEMPLATE = ROOT / "no-image.jinja"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
V = "vllm"
S = "sglang"


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    # a chat template that renders only the text parts: no <image> placeholder
    NO_IMAGE_TEMPLATE.write_text(
        "{% for m in messages %}{{ m['role'] | upper }}: {% if m['content'] is string %}"
        "{{ m['content'] }}{% else %}{% for c in m['content'] %}{% if c['type'] == 'text' %}"
        "{{ c['text'] }}{% endif %}{% endfor %}{% endif %}\n{% endfor %}"
        "{% if add_generation_prompt %}ASSISTANT:{% endif %}")
    if not (GOOD / "model.safetensors").is_file() and BUILDER.is_file():
        subprocess.run([str(VLLM.python), str(BUILDER), str(LLAMA.dir), str(GOOD)], check=True,
                       capture_output=True)
    if not (SMOL / "model.safetensors").is_file() and SMOL_BUILDER.is_file():
        subprocess.run([str(VLLM.python), str(SMOL_BUILDER), str(LLAMA.dir), str(SMOL)],
                       check=True, capture_output=True)


_setup()


def png(w: int, h: int) -> str:
    """A ``w`` x ``h`` RGB PNG (a gradient) as a base64 data: URL."""
    rows = b"".join(b"\x00" + bytes((x * 7 + y * 3) % 256 for x in range(w * 3))
                    for y in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    raw = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b""))
    return "data:image/png;base64," + base64.b64encode(raw).decode()


SMALL = png(32, 32)
UNREACHABLE = "http://images.invalid/cat.png"


def call(ctx: Ctx, path: str, body: dict, timeout: float = 90) -> int:
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            resp.read()
            return resp.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError):
        return 0


def chat(ctx: Ctx, name: str, *urls: str) -> int:
    parts = [{"type": "image_url", "image_url": {"url": u}} for u in urls]
    return call(ctx, "/v1/chat/completions", {"model": name, "max_tokens": 8, "messages": [
        {"role": "user", "content": [*parts, {"type": "text", "text": "What is this?"}]}]})


def serving(ready: str, send: Callable[[Ctx, str], None]) -> Callable[[Ctx], None]:
    """Until the run ends or is ready; then a small-image chat, ``send``'s requests, a pause."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_for(ready, 240) and ctx.proc is not None and ctx.proc.poll() is None:
            name = ctx.model_name()
            chat(ctx, name, SMALL)
            send(ctx, name)
            chat(ctx, name, SMALL)
            linger(ctx, 12)
        else:
            linger(ctx, 5)
    return act


def two_images(ctx: Ctx, name: str) -> None:
    chat(ctx, name, SMALL, SMALL)


def huge_image(ctx: Ctx, name: str) -> None:
    chat(ctx, name, png(4096, 4096))


def nothing(ctx: Ctx, name: str) -> None:
    pass


def vlm_copy(name: str, change: Callable[[Path], None], src: Path = GOOD
             ) -> Callable[[Path], Path]:
    def make(work: Path) -> Path:
        import shutil
        d = work / name
        if d.exists():
            shutil.rmtree(d)
        shutil.copytree(src, d)
        change(d)
        return d
    return make


def no_processor(d: Path) -> None:
    (d / "processor_config.json").unlink()


def qwen_processor(d: Path) -> None:
    """processor_config.json of a Qwen2-VL over the LLaVA (copied from another model's repo)."""
    px = 28 * 28
    (d / "processor_config.json").write_text(json.dumps({
        "image_processor": {"image_processor_type": "Qwen2VLImageProcessor", "min_pixels": 4 * px,
                            "max_pixels": 64 * px, "patch_size": 14, "merge_size": 2,
                            "temporal_patch_size": 2,
                            "image_mean": [0.48145466, 0.4578275, 0.40821073],
                            "image_std": [0.26862954, 0.26130258, 0.27577711]},
        "processor_class": "Qwen2VLProcessor"}, indent=2))


def llava_processor(d: Path) -> None:
    """The LLaVA's processor_config.json (LlavaProcessor, CLIPImageProcessor) over the Idefics3."""
    (d / "processor_config.json").write_text((GOOD / "processor_config.json").read_text())


def vision_hidden_128(d: Path) -> None:
    """vision_config.hidden_size 128 (the text's is 256; the vision weights are 64 wide)."""
    cfg = json.loads((d / "config.json").read_text())
    cfg["vision_config"]["hidden_size"] = 128
    (d / "config.json").write_text(json.dumps(cfg, indent=2))


V_READY = "Application startup complete"

SCENARIOS = [
    Scenario("v-llava-two-images-limit-one", V, "the tiny LLaVA served with --limit-mm-per-prompt "
             "'{\"image\": 1}'; a chat with one small PNG (base64 data: URL), one with two",
             [*VLLM_BASE, "--limit-mm-per-prompt", '{"image": 1}'],
             model=vlm_copy("llava", lambda d: None), act=serving(V_READY, two_images)),
    Scenario("s-llava-huge-image", S, "the tiny LLaVA served; a chat with one small PNG, then one "
             "with a 4096x4096 PNG (the processor's images are 56x56)", [*SG],
             model=vlm_copy("llava", lambda d: None), act=serving(SG_READY, huge_image)),
    Scenario("s-no-processor-files", S, "the tiny LLaVA without its processor_config.json",
             [*SG], model=vlm_copy("no-processor", no_processor),
             act=serving(SG_READY, nothing)),
    Scenario("v-smolvlm-two-images-limit-one", V, "the tiny Idefics3 (SmolVLM's family) served "
             "with --limit-mm-per-prompt '{\"image\": 1}'; a chat with one small PNG (base64 "
             "data: URL), then one with two", [*VLLM_BASE, "--limit-mm-per-prompt", '{"image": 1}'],
             model=vlm_copy("smolvlm", lambda d: None, SMOL), act=serving(V_READY, two_images)),
    Scenario("s-processor-from-qwen2vl", S, "the tiny LLaVA with a Qwen2-VL's "
             "processor_config.json (Qwen2VLProcessor, Qwen2VLImageProcessor)", [*SG],
             model=vlm_copy("qwen-processor", qwen_processor), act=serving(SG_READY, nothing)),
    Scenario("v-smolvlm-vision-hidden-mismatch", V, "the tiny Idefics3 whose config.json has "
             "vision_config.hidden_size 128 over vision weights 64 wide (the text model's is 256)",
             [*VLLM_BASE], model=vlm_copy("smol-vision-128", vision_hidden_128, SMOL),
             act=serving(V_READY, nothing)),
    Scenario("v-smolvlm-template-no-image", V, "--chat-template whose messages render only the "
             "text parts (no <image> placeholder) on the tiny Idefics3; chats with one image",
             [*VLLM_BASE, "--chat-template", str(NO_IMAGE_TEMPLATE)],
             model=vlm_copy("smolvlm", lambda d: None, SMOL), act=serving(V_READY, nothing)),
    Scenario("v-smolvlm-processor-from-llava", V, "the tiny Idefics3 with a LLaVA's "
             "processor_config.json (LlavaProcessor, CLIPImageProcessor); chats with one image",
             [*VLLM_BASE], model=vlm_copy("smol-llava-processor", llava_processor, SMOL),
             act=serving(V_READY, nothing)),
]
