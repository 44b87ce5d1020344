"""The two-hundred-and-sixty-eighth batch's scenarios (tests/fixtures/corpus/fresh267): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind268.py OUT

Themes: images and other media in requests, a new round - what a person meets sending
multimodal chat requests to a tiny vision-language model built for the purpose, and the
multimodal settings and inputs of SGLang on the text-only Llama. vLLM serves a tiny Idefics3
(SmolVLM's family: 2 Llama layers, hidden 256; a 2-layer SigLIP-style tower, hidden 64, 56-pixel
images, patch 14, scale_factor 2; random bfloat16 weights; its Idefics3Processor, tokenizer with
the image tokens and a chat template beside it), built under /tmp/blind268/smolvlm-good by
/tmp/blind268/build_idefics.py with vLLM's venv's transformers when this table is loaded. vLLM:
a chat whose image_url is a base64 data: PNG cut off halfway (a client that truncated the
string); a chat whose image_url is `data:image/png;base64,` with nothing after the comma (a
zero-byte image); --allowed-local-media-path FOLDER with a file:// URL naming a symlink inside
the folder that points to a PNG outside it; --limit-mm-per-prompt in the older key=value form
(`image=2`, not JSON) with a three-image chat; --mm-processor-kwargs '{"size": {"longest_edge":
0}}' (the image processor told to resize to nothing) with one-image chats. SGLang (--device cpu --model-impl transformers,
a plain --chat-template): --mm-processor-worker-num 0; --limit-mm-data-per-request in vLLM's
older key=value form (`image=2`); /generate with audio_data (a base64 data: WAV). Where a server
comes up it is sent a plain chat (and, on the VLM, a one-image chat) before and after the odd
request, then let run about 12 s.

Earlier batches already had (not repeated): image and audio parts in vLLM chat to the text model
(74th), --mm-processor-kwargs cut short (83rd), --allowed-local-media-path naming a missing folder
(68th, 88th) and file:// URLs outside it, ../ paths, a video_url of a text file, on the text
model (167th), --limit-mm-per-prompt '{"image": 2}' / '{"image": -1}' with unreachable and
not-an-image URLs (128th, 167th), SGLang chat image parts and /generate image_data (128th),
--mm-processor-cache-gb -4, --media-io-kwargs flat, --mm-process-config key=value,
--enable-multimodal on the text model, input_audio / video_url / audio_url chat parts, a 24 MB
not-an-image data: URL (167th), a served tiny LLaVA and Idefics3 with two images over
--limit-mm-per-prompt 1, a 4096x4096 PNG, processor files missing or of another family, a vision
hidden size out of step with the weights, a chat template without the image placeholder (220th).

Recorded 2026-12-07 in two invocations (raw1: v-smolvlm-truncated-base64 and the three SGLang
scenarios, the VLM tried first to see that vLLM serves it; raw2: the other four vLLM scenarios,
v-smolvlm-mm-processor-kwargs-zero-edge added to the table while raw1 ran), taking turns with
other helpers' recorders under the shared lock; each scenario once. About 5m30s of recording
(vLLM 87+47+48+9+9 s, SGLang 62+7+61 s). All 8 kept (final files is101-is108); none dropped,
though the faults of s-mm-processor-worker-num-zero and s-generate-audio-data never show (kept
as fair logs of the ground, labelled ready).

What the engines did. vLLM serves the tiny Idefics3 (`Resolved architecture:
Idefics3ForConditionalGeneration`, transformers falling back to its PIL image processor without
torchvision) and answers one-image chats 200; a truncated base64 PNG, an empty
`data:image/png;base64,` and a file:// symlink out of --allowed-local-media-path are each a bare
`400 Bad Request` with no reason at INFO, the chats before and after 200, and the server serves
on (three logs ready in serving). --limit-mm-per-prompt image=2 ends in argparse within 9 s
(`error: argument --limit-mm-per-prompt: Value image=2 cannot be converted to <function loads
...>`); --mm-processor-kwargs with size longest_edge 0 is taken, then the API server dies within
9 s sizing the encoder budget on a dummy image (`ValueError: size must be a dictionary with key
'longest_edge' or 'height' and 'width'.`, then `ValueError: Failed to apply Idefics3Processor on
data=... with kwargs={'size': {'longest_edge': 0}, ...}`), before any engine core or weights
(both crashed at launch). SGLang on the text model: --mm-processor-worker-num 0 is taken without
a word (`'mm_processor_worker_num': 0` in server_args), the image chat refused 400 as before, the
plain chats 200 (ready in serving); --limit-mm-data-per-request image=2 ends in argparse after
its usage text (`error: argument --limit-mm-data-per-request: invalid loads value: 'image=2'`,
crashed at launch); /generate with audio_data is served 200, the audio ignored (a 6-token
prefill), ready in serving.
"""
from __future__ import annotations

import base64
import io
import json
import struct
import subprocess
import sys
import urllib.error
import urllib.request
import wave
import zlib
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import LLAMA, VLLM  # noqa: E402

ROOT = Path("/tmp/blind268")
SMOL = ROOT / "smolvlm-good"
SMOL_BUILDER = ROOT / "build_idefics.py"
MEDIA = ROOT / "media"
OUTSIDE = ROOT / "outside"
CHAT_TEMPLATE = ROOT / "chat.jinja"
CHAT_JINJA = ("{% for m in messages %}{{ m['role'] }}: {% if m['content'] is string %}"
              "{{ m['content'] }}{% else %}{% for c in m['content'] %}{% if c['type'] == 'text' %}"
              "{{ c['text'] }}{% endif %}{% endfor %}{% endif %}\n{% endfor %}"
              "{% if add_generation_prompt %}assistant:{% endif %}")
V_READY = "Application startup complete"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
V = "vllm"
S = "sglang"


def png_bytes(w: int, h: int) -> bytes:
    """A ``w`` x ``h`` RGB PNG (a gradient)."""
    rows = b"".join(b"\x00" + bytes((x * 7 + y * 3) % 256 for x in range(w * 3))
                    for y in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b""))


def data_url(raw: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64," + base64.b64encode(raw).decode()


def wav_bytes(seconds: float = 0.5, rate: int = 16000) -> bytes:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"\x00\x10" * int(seconds * rate))
    return buf.getvalue()


SMALL = data_url(png_bytes(32, 32))
# a PNG cut off halfway through its base64 text (a client that truncated the string)
_FULL = data_url(png_bytes(48, 48))
TRUNCATED = _FULL[: len("data:image/png;base64,") + (len(_FULL) - 22) // 2 // 4 * 4]


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    CHAT_TEMPLATE.write_text(CHAT_JINJA)
    MEDIA.mkdir(exist_ok=True)
    OUTSIDE.mkdir(exist_ok=True)
    (MEDIA / "inside.png").write_bytes(png_bytes(32, 32))
    (OUTSIDE / "secret.png").write_bytes(png_bytes(40, 40))
    link = MEDIA / "escape.png"
    if not link.is_symlink():
        link.symlink_to(OUTSIDE / "secret.png")
    if not (SMOL / "model.safetensors").is_file() and SMOL_BUILDER.is_file():
        subprocess.run([str(VLLM.python), str(SMOL_BUILDER), str(LLAMA.dir), str(SMOL)],
                       check=True, capture_output=True)


_setup()


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


def chat(ctx: Ctx, name: str, *parts: dict) -> int:
    return call(ctx, "/v1/chat/completions", {"model": name, "max_tokens": 8, "messages": [
        {"role": "user", "content": [*parts, {"type": "text", "text": "What is this?"}]}]})


def image(url: str) -> dict:
    return {"type": "image_url", "image_url": {"url": url}}


def serving(ready: str, send: Callable[[Ctx, str], None], with_image: bool) -> Callable[[Ctx], None]:
    """Until the run ends or is ready; then a plain chat (and a small-image one where the model
    takes images), ``send``'s odd request, the same again, and a pause."""
    def plain(ctx: Ctx, name: str) -> None:
        chat(ctx, name)
        if with_image:
            chat(ctx, name, image(SMALL))

    def act(ctx: Ctx) -> None:
        if ctx.wait_for(ready, 240) and ctx.proc is not None and ctx.proc.poll() is None:
            name = ctx.model_name()
            plain(ctx, name)
            send(ctx, name)
            plain(ctx, name)
            linger(ctx, 12)
        else:
            linger(ctx, 5)
    return act


def truncated_image(ctx: Ctx, name: str) -> None:
    chat(ctx, name, image(TRUNCATED))


def empty_image(ctx: Ctx, name: str) -> None:
    chat(ctx, name, image("data:image/png;base64,"))


def symlink_escape(ctx: Ctx, name: str) -> None:
    chat(ctx, name, image(f"file://{MEDIA}/escape.png"))


def three_images(ctx: Ctx, name: str) -> None:
    chat(ctx, name, image(SMALL), image(SMALL), image(SMALL))


def generate_audio(ctx: Ctx, name: str) -> None:
    call(ctx, "/generate", {"text": "Listen:", "audio_data": data_url(wav_bytes(), "audio/wav"),
                            "sampling_params": {"max_new_tokens": 8}})


def image_chat(ctx: Ctx, name: str) -> None:
    chat(ctx, name, image(SMALL))


VT = [*VLLM_BASE]
ST = [*SG, "--chat-template", str(CHAT_TEMPLATE)]


def smol(work: Path) -> Path:
    return SMOL


SCENARIOS = [
    Scenario("v-smolvlm-truncated-base64", V, "the tiny Idefics3 served; a chat whose image_url is "
             "a base64 data: PNG cut off halfway (the client truncated the string), between plain "
             "and one-image chats", VT, model=smol,
             act=serving(V_READY, truncated_image, True)),
    Scenario("v-smolvlm-empty-data-url", V, "the tiny Idefics3 served; a chat whose image_url is "
             "'data:image/png;base64,' with nothing after the comma (a zero-byte image)", VT,
             model=smol, act=serving(V_READY, empty_image, True)),
    Scenario("v-smolvlm-media-symlink-escape", V, "the tiny Idefics3 with --allowed-local-media-path "
             f"{MEDIA}; a chat whose file:// URL names a symlink inside that folder pointing to a "
             f"PNG outside it ({OUTSIDE}/secret.png)",
             [*VT, "--allowed-local-media-path", str(MEDIA)], model=smol,
             act=serving(V_READY, symlink_escape, True)),
    Scenario("v-smolvlm-limit-mm-older-form", V, "the tiny Idefics3 with --limit-mm-per-prompt "
             "image=2 (the older key=value form, not JSON); a chat with three images",
             [*VT, "--limit-mm-per-prompt", "image=2"], model=smol,
             act=serving(V_READY, three_images, True)),
    Scenario("v-smolvlm-mm-processor-kwargs-zero-edge", V, "the tiny Idefics3 with "
             "--mm-processor-kwargs '{\"size\": {\"longest_edge\": 0}}' (a resize to nothing); "
             "one-image chats", [*VT, "--mm-processor-kwargs", '{"size": {"longest_edge": 0}}'],
             model=smol, act=serving(V_READY, image_chat, True)),
    Scenario("s-mm-processor-worker-num-zero", S, "--mm-processor-worker-num 0 on the tiny Llama; "
             "a chat with one image between plain chats", [*ST, "--mm-processor-worker-num", "0"],
             act=serving(SG_READY, image_chat, False)),
    Scenario("s-limit-mm-data-older-form", S, "--limit-mm-data-per-request image=2 (vLLM's older "
             "key=value form, not JSON) on the tiny Llama",
             [*ST, "--limit-mm-data-per-request", "image=2"],
             act=serving(SG_READY, image_chat, False)),
    Scenario("s-generate-audio-data", S, "/generate with audio_data (a base64 data: WAV) on the "
             "tiny Llama, between plain chats", ST, act=serving(SG_READY, generate_audio, False)),
]
