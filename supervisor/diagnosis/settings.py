"""What the user set for a launch, and whether an error names it.

A configuration the engine refuses fails in the words of whatever setting was wrong - an
unknown parser, a log level, a flag that needs another - and message rules only reach the
wordings someone has met before. What does not change is that the error names the setting:
its flag (`--enable-auto-tool-choice requires --tool-call-parser`), its variable
(`VLLM_LOGGING_LEVEL`) or the value given (`Reasoning parser 'nosuchparser' not found`). So a
crash whose cause nothing else names, raised with an error that names a setting of this launch,
is a configuration the engine refused.

The settings come from two places: the log itself (vLLM's `non-default args: {...}`, printed
from 0.9 on before any check runs, and SGLang's dump of every argument, `server_args=`, printed
unless an argument check fails first - so offline `diagnose` sees them as the live daemon does)
and, live, the run's profile (its `args` and `env`: the environment no log prints).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from typing import Any

# vLLM's API server listing what the launch changed from its defaults (a Python dict's repr)
_NON_DEFAULT = re.compile(r"\bnon-default args: (\{.*\})\s*$")
# SGLang's dump of every argument: a dict from 0.5 (`server_args={'model_path': ...}`), a
# dataclass's repr before (`server_args=ServerArgs(model_path='...', ...)`)
_SERVER_ARGS_DICT = re.compile(r"\bserver_args=(\{.*\})\s*$")
_SERVER_ARGS_REPR = re.compile(r"\bserver_args=ServerArgs\((.*)\)\s*$")
_OBJECT_REPR = re.compile(r"<[^<>]*>")
_MAX_DUMP = 20_000  # (a dump longer than this is no argument list; never parsed)

# Settings that name the model or where the server listens: errors name them for reasons of
# their own (a path not found, a checkpoint that does not load, a port taken), each with its
# own cause. Keys are compared in snake_case.
# The folders checkpoints are downloaded to count as the model's: a file under them that does
# not load is the checkpoint's fault.
_IDENTITY = frozenset({"model", "model_tag", "model_path", "served_model_name", "tokenizer",
                       "host", "port", "download_dir", "revision", "hf_home", "hf_hub_cache",
                       "huggingface_hub_cache", "transformers_cache", "modelscope_cache"})
# Values too common to be a user's choice when quoted in an error
_PLAIN = frozenset({"auto", "none", "true", "false", "null", "default", "yes", "no"})


def log_settings(msgs: Iterable[str]) -> dict[str, str]:
    """The settings a log shows its launch was given (vLLM's non-default args, SGLang's
    server_args), or none."""
    for msg in msgs:
        if len(msg) > _MAX_DUMP or "args" not in msg:
            continue
        found = _NON_DEFAULT.search(msg) or _SERVER_ARGS_DICT.search(msg)
        if found is not None:
            return _literal_dict(found.group(1))
        found = _SERVER_ARGS_REPR.search(msg)
        if found is not None:
            return _keywords(found.group(1))
    return {}


# a float the repr writes as a bare name (`'mem_fraction_static': nan`, `timeout=inf`), which
# literal_eval cannot read: quoted, so that one such value does not lose the whole dump
_BARE_FLOAT = re.compile(r"(?<=[:=])(\s*)(-?(?:nan|inf))(?=\s*[,})])")


def _literal_dict(text: str) -> dict[str, str]:
    text = _BARE_FLOAT.sub(r"\1'\2'", text)
    try:
        parsed = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return {}
    if not isinstance(parsed, dict):
        return {}
    return {str(k): _text(v) for k, v in parsed.items() if v is not None}


def _keywords(text: str) -> dict[str, str]:
    """ServerArgs(model_path='m', tp_size=2, ...)'s keywords whose values are literals (a
    dataclass's repr: an enum's or an object's repr is skipped, not guessed)."""
    text = _OBJECT_REPR.sub("None", text)  # (`<LoadFormat.AUTO: 'auto'>` is no Python)
    text = _BARE_FLOAT.sub(r"\1'\2'", text)
    try:
        call = ast.parse(f"f({text})", mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return {}
    out: dict[str, str] = {}
    for kw in getattr(call, "keywords", ()):
        try:
            value = ast.literal_eval(kw.value)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if kw.arg and value is not None:
            out[kw.arg] = _text(value)
    return out


def launch_settings(args: Mapping[str, Any], env: Mapping[str, str]) -> dict[str, str]:
    """A profile's launch arguments and environment, as settings an error may name."""
    out = {str(k).lstrip("-"): _text(v) for k, v in args.items()}
    out.update((str(k), str(v)) for k, v in env.items())
    return out


def named_setting(message: str, settings: Mapping[str, str]) -> str | None:
    """The setting ``message`` names ("--reasoning-parser nosuchparser"), or None.

    A setting is named by its key in any of the forms engines print it (`reasoning_parser`,
    `--reasoning-parser`, an environment variable's own name) - only keys of two words or more,
    which prose does not use by chance - or by its value quoted (`'nosuchparser'`, a template's
    path, a file under a folder it names), unless the value is a word as plain as `auto` or
    the model's own name.
    """
    identity = {value for key, value in settings.items()
                if key.replace("-", "_").lower() in _IDENTITY}
    for key, value in settings.items():
        snake = key.replace("-", "_")
        if snake.lower() in _IDENTITY or value in identity:
            continue
        if "_" in snake.strip("_") and _names_key(message, snake):
            return _describe(key, value)
        if _quotes_value(message, value) or _calls_its_class(message, value):
            return _describe(key, value)
    return None


# a class given by its dotted path (`--scheduler-cls vllm.v1.core.sched.request_queue.
# PriorityRequestQueue`, `--worker-cls pkg.mod.MyWorker`): the class's own name, last
_DOTTED_CLASS = re.compile(r"^[A-Za-z_][\w.]*\.([A-Z]\w+)$")


def _calls_its_class(message: str, value: str) -> bool:
    """The error is the class the setting names refusing how the engine calls it
    (`TypeError: PriorityRequestQueue.__init__() got an unexpected keyword argument
    'vllm_config'`, eq102): the setting named a class that is not what the engine expects."""
    named = _DOTTED_CLASS.match(value.strip())
    return named is not None and re.search(
        rf"(?<![\w.]){re.escape(named[1])}\.\w+\(\)", message) is not None


# How many processes a launch spreads over, in each engine's keys: no launch runs with none
# (SGLang 0.5 takes `--tp-size 0` and starts no scheduler; vLLM checks some of them)
_PROCESS_COUNTS = frozenset({"tp_size", "pp_size", "dp_size", "ep_size", "nnodes",
                             "tensor_parallel_size", "pipeline_parallel_size",
                             "data_parallel_size", "data_parallel_size_local"})


def impossible_count(settings: Mapping[str, str]) -> str | None:
    """A process count of the launch below one ("--tp-size 0"), or None."""
    for key, value in settings.items():
        if key.replace("-", "_").lower() in _PROCESS_COUNTS and \
                re.fullmatch(r"\s*(?:0|-\d+)\s*", value):
            return _describe(key, value.strip())
    return None


def _names_key(message: str, snake: str) -> bool:
    if snake.isupper():  # an environment variable: its own name only
        return re.search(rf"(?<![\w-]){re.escape(snake)}(?![\w-])", message) is not None
    kebab = snake.replace("_", "-")
    return re.search(rf"(?<![\w-])(?:{re.escape(snake)}|--{re.escape(kebab)})(?![\w-])",
                     message) is not None


def _quotes_value(message: str, value: str) -> bool:
    if len(value) < 3 or value.lower() in _PLAIN or _number(value):
        return False
    if f"'{value}'" in message or f'"{value}"' in message:
        return True
    if value.startswith("{") and ("'" in message or '"' in message):
        # a table's setting (`--model-loader-extra-config '{"prefetch_shards": 4}'`) is named
        # by one of its keys quoted (`Unexpected extra config keys ...: {'prefetch_shards'}`)
        return any(_quotes_value(message, key) for key in _table_keys(value))
    # a path given whole, unquoted (`Completion template /srv/templates/fim.json is not a
    # built-in template name or a valid completion template file path`): a path is no word of prose
    if value.startswith("/") and len(value) > 4 and re.search(
            rf"(?<![\w/.~-]){re.escape(value)}(?![\w/~-])", message):
        return True
    # a folder the launch named, and a file under it that the engine could not use
    # (`[Errno 20] Not a directory: '<VLLM_CACHE_ROOT>/torch_compile_cache'`)
    return value.startswith("/") and len(value) > 4 and (
        f"'{value.rstrip('/')}/" in message or f'"{value.rstrip("/")}/' in message)


def _table_keys(value: str) -> list[str]:
    """The keys of a setting whose value is a table (a dict's repr, as the log prints it)."""
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return []
    return [k for k in parsed if isinstance(k, str) and not k.startswith("{")] \
        if isinstance(parsed, dict) else []


# (zero_divisor_setting) the last name of the operand right of `%`, `/` or `//`, and a zero
_DIVISOR = re.compile(r"(?:%|//?)=?\s*\(?\s*(?:\w+\.)*(\w+)")
_ZERO = re.compile(r"[+-]?0+(?:\.0*)?")


def zero_divisor_setting(statement: str, settings: Mapping[str, str]) -> str | None:
    """The setting of this launch, set to zero, that ``statement`` divides by - the source
    line a ZeroDivisionError was raised at (`self.forward_ct_decode % self.decode_log_interval`
    under `--decode-log-interval 0`) - or None. The engine took the value and divided by it
    later: the setting's fault, not its code's."""
    zeros = {key.replace("-", "_").lower(): key for key, value in settings.items()
             if _ZERO.fullmatch(value.strip())}
    if not zeros:
        return None
    for name in _DIVISOR.findall(statement):
        key = zeros.get(name.lower())
        if key is not None:
            return _describe(key, settings[key])
    return None


# (non_finite_setting) a value no count, size, fraction or time can take
_NON_FINITE = re.compile(r"\s*[+-]?(?:nan|inf(?:inity)?)\s*", re.I)


def non_finite_setting(settings: Mapping[str, str]) -> str | None:
    """A setting of this launch given as NaN or infinity (`--mem-fraction-static nan`,
    `--watchdog-timeout inf`), which Python's float() takes and argparse passes on, or None.
    The engine fails later, where arithmetic first meets the value."""
    for key, value in settings.items():
        if _NON_FINITE.fullmatch(value):
            return _describe(key, value.strip())
    return None


def _describe(key: str, value: str) -> str:
    name = key if key.isupper() else "--" + key.replace("_", "-")
    return f"{name}={value}" if key.isupper() else f"{name} {value}"


def _number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


def _text(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return " ".join(map(str, value))
    return str(value)
