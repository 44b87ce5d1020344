"""The hundred-and-twenty-second batch's scenarios (tests/fixtures/corpus/fresh121): faults
chosen, recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind122.py OUT

Themes: models that bring their own code. A copy of the tiny model whose config.json (or
tokenizer_config.json) has an `auto_map` naming configuration or tokenizer classes in .py files
shipped beside the weights, as a hub repository with custom code: a configuration file with a
syntax error; an auto_map naming a file that is not in the folder, or a class that is not in the
file; a config class whose __init__ forgets to pass **kwargs on (the attributes the engine reads
are dropped); a config class that does not derive from PretrainedConfig; code that checks the
transformers version and refuses 5.x; a custom tokenizer class that opens a vocabulary file the
folder lacks; the same custom code launched without --trust-remote-code; and code that prints
and warns at import but is otherwise sound (served).

Files are built from copies of the tiny model (never the original) when the recorder calls each
scenario's `model`; transformers copies the remote code under HF_MODULES_CACHE
(/tmp/blind122/hfmod). SGLang runs with --device cpu --model-impl transformers (its own Llama
module imports vllm); vLLM with VLLM_BASE's settings.

Recorded 2026-12-06 in two invocations, one per engine (about 2m25s of recording: vLLM 1m29s for
4 scenarios, SGLang 55 s for 5), each scenario once; all 9 kept. What the engines did: both read
the model's config through transformers' AutoConfig before anything else, so every broken piece
of configuration code ends the launch at config parsing (vLLM: `Error parsing config for ...,
retrying 1 of 2`, then the exception; SGLang: in server_args.resolve_once, before any server
line). A config class that drops config.json's settings loads fine and vLLM then finds `No model
architectures are specified`. A config class not derived from PretrainedConfig dies in
transformers on `register_for_auto_class`. SGLang without --trust-remote-code refuses custom code
at once. A custom tokenizer fails only in SGLang's tokenizer manager (`Failed to load the
tokenizer`), after server_args is printed. Code that prints and warns at import is imported twice
by vLLM (API server and engine core) and serves.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    copy_model,
    linger,
)

ROOT = Path("/tmp/blind122")
ENV = {"HF_MODULES_CACHE": str(ROOT / "hfmod")}
SG = ["--device", "cpu", "--model-impl", "transformers"]
V_READY = "Application startup complete"
SG_READY = "The server is fired up and ready to roll"

# --- the custom code -------------------------------------------------------------------------

GOOD_CONFIG = '''"""TinyLM model configuration."""
from transformers import LlamaConfig


class TinyLMConfig(LlamaConfig):
    model_type = "tinylm"

    def __init__(self, use_fused_rope=True, **kwargs):
        self.use_fused_rope = use_fused_rope
        super().__init__(**kwargs)
'''

SYNTAX_CONFIG = '''"""TinyLM model configuration."""
from transformers import LlamaConfig


class TinyLMConfig(LlamaConfig):
    model_type = "tinylm"

    def __init__(self, use_fused_rope=True, **kwargs)
        self.use_fused_rope = use_fused_rope
        super().__init__(**kwargs)
'''

DROPS_KWARGS_CONFIG = '''"""TinyLM model configuration."""
from transformers import PretrainedConfig


class TinyLMConfig(PretrainedConfig):
    model_type = "tinylm"

    def __init__(self, vocab_size=512, hidden_size=256, intermediate_size=512,
                 num_hidden_layers=2, num_attention_heads=4, max_position_embeddings=2048,
                 bos_token_id=0, eos_token_id=1, **kwargs):
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.intermediate_size = intermediate_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.max_position_embeddings = max_position_embeddings
        super().__init__(bos_token_id=bos_token_id, eos_token_id=eos_token_id)
'''

NO_BASE_CONFIG = '''"""TinyLM model configuration."""


class TinyLMConfig:
    model_type = "tinylm"

    def __init__(self, use_fused_rope=True, **kwargs):
        self.use_fused_rope = use_fused_rope
        for k, v in kwargs.items():
            setattr(self, k, v)
'''

VERSION_CONFIG = '''"""TinyLM model configuration."""
import transformers
from packaging import version
from transformers import LlamaConfig

if version.parse(transformers.__version__) >= version.parse("5.0.0"):
    raise ImportError(
        f"TinyLM requires transformers<5.0.0, but found {transformers.__version__}. "
        "Please run `pip install transformers==4.46.3`."
    )


class TinyLMConfig(LlamaConfig):
    model_type = "tinylm"
'''

NOISY_CONFIG = '''"""TinyLM model configuration."""
import sys
import warnings

from transformers import LlamaConfig

print("[tinylm] flash_rope kernels not found, using the reference implementation",
      file=sys.stderr)
warnings.warn("TinyLMConfig: `use_fused_rope` is deprecated and will be removed in v2.0",
              FutureWarning)


class TinyLMConfig(LlamaConfig):
    model_type = "tinylm"

    def __init__(self, use_fused_rope=True, **kwargs):
        self.use_fused_rope = use_fused_rope
        super().__init__(**kwargs)
'''

TOKENIZER = '''"""TinyLM tokenizer (tiktoken-style BPE ranks file)."""
import base64

from transformers import PreTrainedTokenizer


class TinyLMTokenizer(PreTrainedTokenizer):
    vocab_files_names = {"vocab_file": "tinylm.tiktoken"}
    model_input_names = ["input_ids", "attention_mask"]

    def __init__(self, vocab_file=None, **kwargs):
        with open(vocab_file, "rb") as f:
            self.ranks = {base64.b64decode(t): int(r)
                          for t, r in (line.split() for line in f.read().splitlines() if line)}
        self.decoder = {r: t for t, r in self.ranks.items()}
        super().__init__(**kwargs)

    @property
    def vocab_size(self):
        return len(self.ranks)
'''


def remote(name: str, config_py: str, auto_config: str = "configuration_tinylm.TinyLMConfig",
           file: str = "configuration_tinylm.py") -> Callable[[Path], Path]:
    """A copy whose config.json names model_type tinylm and auto_map AutoConfig
    ``auto_config``, with ``config_py`` written to ``file`` beside it (None: no file)."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        if config_py is not None:
            (d / file).write_text(config_py)
        c = json.loads((d / "config.json").read_text())
        c.update(model_type="tinylm", auto_map={"AutoConfig": auto_config},
                 use_fused_rope=True)
        (d / "config.json").write_text(json.dumps(c, indent=2))
        return d
    return make


def remote_tokenizer(name: str) -> Callable[[Path], Path]:
    """A copy whose tokenizer_config.json names a custom TinyLMTokenizer (auto_map) shipped in
    tokenization_tinylm.py, whose vocabulary file (tinylm.tiktoken) is not in the folder."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        (d / "tokenization_tinylm.py").write_text(TOKENIZER)
        f = d / "tokenizer_config.json"
        t = json.loads(f.read_text())
        t.update(tokenizer_class="TinyLMTokenizer",
                 auto_map={"AutoTokenizer": ["tokenization_tinylm.TinyLMTokenizer", None]})
        t.pop("backend", None)
        f.write_text(json.dumps(t, indent=2))
        return d
    return make


# --- steps -----------------------------------------------------------------------------------

def body(ctx: Ctx) -> str:
    return ctx.text().split("\n\n", 1)[-1]


def wait_ready(ctx: Ctx, needle: str, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if needle in body(ctx):
            return True
        if ctx.proc is not None and ctx.proc.poll() is not None:
            return needle in body(ctx)
        time.sleep(0.5)
    return False


def end_or_serve(engine: str, timeout: float = 90) -> Callable[[Ctx], None]:
    """Wait for the launch to end; if it serves instead, two completions and a short pause."""
    needle = V_READY if engine == "vllm" else SG_READY

    def act(ctx: Ctx) -> None:
        if wait_ready(ctx, needle, timeout):
            time.sleep(2)
            ctx.complete(2, max_tokens=12)
            linger(ctx, 8)
    return act


def v(name: str, what: str, model, args: tuple[str, ...] = ("--trust-remote-code",),
      timeout: float = 90) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], model=model, env=dict(ENV),
                    act=end_or_serve("vllm", timeout))


def s(name: str, what: str, model, args: tuple[str, ...] = ("--trust-remote-code",),
      timeout: float = 90) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], model=model, env=dict(ENV),
                    act=end_or_serve("sglang", timeout))


SCENARIOS = [
    # --- vLLM ------------------------------------------------------------------------------------
    v("v-remote-config-syntax-error", "config.json auto_map to configuration_tinylm.py shipped "
      "beside the weights, whose __init__ line lacks its colon (a SyntaxError); launched with "
      "--trust-remote-code", remote("remote-syntax-v", SYNTAX_CONFIG)),
    v("v-remote-automap-file-absent", "config.json auto_map names "
      "configuration_tinylm.TinyLMConfig but the folder ships no configuration_tinylm.py (the "
      "upload left it out); launched with --trust-remote-code",
      remote("remote-nofile-v", None)),
    v("v-remote-config-drops-kwargs", "custom TinyLMConfig (auto_map; a PretrainedConfig "
      "subclass) whose __init__ keeps only a few named settings and does not pass **kwargs on, "
      "so rms_norm_eps, num_key_value_heads, hidden_act, rope settings from config.json are "
      "dropped; launched with --trust-remote-code", remote("remote-kwargs-v",
                                                          DROPS_KWARGS_CONFIG)),
    v("v-remote-config-noisy-import", "custom TinyLMConfig (auto_map) whose module prints a "
      "message to stderr and raises a FutureWarning at import but is otherwise sound; launched "
      "with --trust-remote-code, served two completions", remote("remote-noisy-v", NOISY_CONFIG),
      timeout=150),
    # --- SGLang ----------------------------------------------------------------------------------
    s("s-remote-code-no-trust", "config.json model_type tinylm with auto_map to "
      "configuration_tinylm.py shipped beside the weights (sound code), launched without "
      "--trust-remote-code", remote("remote-notrust-s", GOOD_CONFIG), args=()),
    s("s-remote-automap-class-absent", "config.json auto_map names "
      "configuration_tinylm.TinyLMConfigV2, a class the shipped configuration_tinylm.py does "
      "not define (renamed in the file, not in config.json); launched with --trust-remote-code",
      remote("remote-noclass-s", GOOD_CONFIG,
             auto_config="configuration_tinylm.TinyLMConfigV2")),
    s("s-remote-config-no-base", "custom TinyLMConfig (auto_map) written as a plain class, not "
      "derived from PretrainedConfig (no from_pretrained, no to_dict); launched with "
      "--trust-remote-code", remote("remote-nobase-s", NO_BASE_CONFIG)),
    s("s-remote-config-version-gate", "custom configuration_tinylm.py (auto_map) that checks "
      "transformers.__version__ at import and raises ImportError for 5.x (`TinyLM requires "
      "transformers<5.0.0`); launched with --trust-remote-code",
      remote("remote-version-s", VERSION_CONFIG)),
    s("s-remote-tokenizer-vocab-absent", "tokenizer_config.json auto_map names a custom "
      "TinyLMTokenizer in tokenization_tinylm.py (shipped) whose __init__ opens its "
      "tinylm.tiktoken vocabulary, which the folder lacks (vocab_file None); launched with "
      "--trust-remote-code", remote_tokenizer("remote-tok-s")),
]
