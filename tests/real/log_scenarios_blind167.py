"""The hundred-and-sixty-seventh batch's scenarios (tests/fixtures/corpus/fresh166): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind167.py OUT

Themes: multimodal inputs to a text-only server and the multimodal limits - what a person meets
setting the multimodal flags on the tiny (text-only) Llama, or sending it media. vLLM:
--mm-processor-cache-gb -4 (a negative cache size), --media-io-kwargs given flat
('{"num_frames": 16}', not keyed by modality), --allowed-local-media-path with chat requests
whose file:// URLs lie outside the folder (/etc/hostname, a ../ path) and a video_url naming a
text file inside it. SGLang: --mm-process-config given as key=value (not JSON),
--enable-multimodal on the text model with an image chat request and /generate image_data, and
chat requests with input_audio, video_url and audio_url parts.

Earlier batches already had (not repeated): image and audio parts in vLLM chat (74th),
--mm-processor-kwargs cut short (83rd), --allowed-local-media-path naming a missing folder (68th,
88th), --limit-mm-per-prompt '{"image": 2}' with unreachable and not-an-image image URLs (128th),
SGLang chat image parts and /generate image_data, unreachable or not an image (128th).

vLLM runs with VLLM_BASE's settings, SGLang with --device cpu --model-impl transformers; both
with a plain --chat-template written to /tmp/blind167/chat.jinja when this table is loaded (the
tiny model has none), beside /tmp/blind167/media/allowed.txt. Scenarios that serve send a
completion or generation, their requests, one more, and let the run go about 12 s.

Recorded 2026-12-07 in one invocation (raw1, taking turns with two other helpers' recorders);
each scenario once. About 5m20s of recording (vLLM 58+11+47+48 s, SGLang 8+46+46+54 s). 6 kept
(final files et101-et106). Dropped (removed from the table): v-limit-mm-negative
(--limit-mm-per-prompt '{"image": -1}' and an image chat request; 47 s): taken silently
(`'limit_mm_per_prompt': {'image': -1}` in the args line), the image request 400 - the same log
as fresh127/dg105's '{"image": 2}', the engine's response no different; s-huge-base64-image (a
chat request and a /generate with a 24 MB base64 data: PNG; 54 s): the chat 400 and the
image_data ignored (200), as in fresh127/dg103 - only the size differs and the log shows
nothing of it. What the engines did: only the malformed flag values end a launch, both in
argument resolution within 11 s - vLLM's pydantic `ValidationError: 1 validation error for
ModelConfig` / `media_io_kwargs.num_frames` / `Input should be a valid dictionary`, SGLang's
argparse `error: argument --mm-process-config: invalid loads value: 'image=448'` after its whole
usage text. Every other multimodal setting is taken without a word on the text-only model,
even a negative --mm-processor-cache-gb its config declares must be 0 or more (a text model
builds no multimodal processor), and --enable-multimodal (its help: nothing happens for a model
that is not multimodal). Media in chat requests are refused 400 by both engines with no reason
at INFO, before any URL is fetched or any path checked (vLLM never names the allowed-path rule;
SGLang's three refusals come in one second), and SGLang's /generate ignores image_data and
serves the text (200). Every serving run ends ready in serving.
"""
from __future__ import annotations

import base64
import json
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    linger,
    up,
)

ROOT = Path("/tmp/blind167")
CHAT_TEMPLATE = ROOT / "chat.jinja"
MEDIA = ROOT / "media"
CHAT_JINJA = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
              "{% if add_generation_prompt %}assistant:{% endif %}")
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
V = "vllm"
S = "sglang"


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    MEDIA.mkdir(parents=True, exist_ok=True)
    CHAT_TEMPLATE.write_text(CHAT_JINJA)
    (MEDIA / "allowed.txt").write_text("a file inside the allowed folder\n")


_setup()

# a 24 MB "image": base64 of random-looking bytes behind a PNG signature
HUGE_IMAGE = "data:image/png;base64," + base64.b64encode(
    b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * (18 * 1024 * 1024 // 256)).decode()
WAV_NOT_AUDIO = base64.b64encode(b"RIFF\x00\x00\x00\x00WAVEnot really audio").decode()


def call(ctx: Ctx, path: str, body: dict | None = None, timeout: float = 60) -> int:
    """POST ``body`` (GET when None) and read the whole answer."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}", data=data,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            resp.read()
            return resp.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError):
        return 0


def gen(ctx: Ctx, **extra: object) -> int:
    return call(ctx, "/generate", {"text": "the quick brown fox",
                                   "sampling_params": {"max_new_tokens": 8}, **extra})


def chat(ctx: Ctx, name: str, *parts: dict) -> int:
    return call(ctx, "/v1/chat/completions", {"model": name, "max_tokens": 8, "messages": [
        {"role": "user", "content": [{"type": "text", "text": "What is this?"}, *parts]}]})


def v_until(send: Callable[[Ctx, str], None] | None = None) -> Callable[[Ctx], None]:
    """vLLM: until the run ends; if it serves, a completion, ``send``'s requests, a completion."""
    def act(ctx: Ctx) -> None:
        if up(ctx, 200) and ctx.proc is not None and ctx.proc.poll() is None:
            name = ctx.model_name()
            ctx.complete(1, max_tokens=8)
            if send:
                send(ctx, name)
            ctx.complete(1, max_tokens=8)
            linger(ctx, 12)
        else:
            linger(ctx, 5)
    return act


def sg_until(send: Callable[[Ctx, str], None] | None = None) -> Callable[[Ctx], None]:
    """SGLang: until it ends or is fired up; then a generation, ``send``'s requests, one more."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_for(SG_READY, 200) and ctx.proc is not None and ctx.proc.poll() is None:
            name = ctx.model_name()
            gen(ctx)
            if send:
                send(ctx, name)
            gen(ctx)
            linger(ctx, 12)
        else:
            linger(ctx, 5)
    return act


def image_chat_one(ctx: Ctx, name: str) -> None:
    chat(ctx, name, {"type": "image_url", "image_url": {"url": "http://images.invalid/a.png"}})


def local_media_outside(ctx: Ctx, name: str) -> None:
    chat(ctx, name, {"type": "image_url", "image_url": {"url": "file:///etc/hostname"}})
    chat(ctx, name, {"type": "image_url", "image_url": {"url": f"file://{MEDIA}/../chat.jinja"}})
    chat(ctx, name, {"type": "video_url", "video_url": {"url": f"file://{MEDIA}/allowed.txt"}})


def sg_multimodal_on(ctx: Ctx, name: str) -> None:
    chat(ctx, name, {"type": "image_url", "image_url": {"url": "http://images.invalid/a.png"}})
    gen(ctx, image_data=HUGE_IMAGE[:2000])


def sg_audio_video(ctx: Ctx, name: str) -> None:
    chat(ctx, name, {"type": "input_audio", "input_audio": {"data": WAV_NOT_AUDIO,
                                                           "format": "wav"}})
    chat(ctx, name, {"type": "video_url", "video_url": {"url": "http://videos.invalid/a.mp4"}})
    chat(ctx, name, {"type": "audio_url", "audio_url": {"url": "http://audio.invalid/a.wav"}})


VT = [*VLLM_BASE, "--chat-template", str(CHAT_TEMPLATE)]
ST = [*SG, "--chat-template", str(CHAT_TEMPLATE)]

SCENARIOS = [
    # vLLM
    Scenario("v-mm-cache-gb-negative", V, "--mm-processor-cache-gb -4 (a negative cache size)",
             [*VT, "--mm-processor-cache-gb", "-4"], act=v_until(image_chat_one)),
    Scenario("v-media-io-kwargs-flat", V, "--media-io-kwargs '{\"num_frames\": 16}' (not keyed "
             "by modality, as the flag wants)",
             [*VT, "--media-io-kwargs", '{"num_frames": 16}'], act=v_until(image_chat_one)),
    Scenario("v-local-media-outside", V, "--allowed-local-media-path /tmp/blind167/media, then "
             "chat requests with file:// URLs outside it (/etc/hostname, a ../ path) and a "
             "video_url inside it, on the text-only model",
             [*VT, "--allowed-local-media-path", str(MEDIA)], act=v_until(local_media_outside)),
    # SGLang
    Scenario("s-mm-process-config-not-json", S, "--mm-process-config image=448 (a key=value, "
             "not the JSON the flag wants)", [*ST, "--mm-process-config", "image=448"],
             act=sg_until(sg_multimodal_on)),
    Scenario("s-enable-multimodal-text-model", S, "--enable-multimodal on the text-only model, "
             "then a chat request with an unreachable image URL and /generate with image_data",
             [*ST, "--enable-multimodal"], act=sg_until(sg_multimodal_on)),
    Scenario("s-audio-video-parts", S, "chat requests with an input_audio part (a WAV header "
             "and no audio), a video_url and an audio_url part, unreachable, to the text-only "
             "model", ST, act=sg_until(sg_audio_video)),
]
