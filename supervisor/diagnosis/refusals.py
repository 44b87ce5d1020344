"""A crash no rule named a cause for: what the launch was refused, read from where its error
was raised and what it names rather than from its words.

The message rules (signatures.py) chase refusals one batch of logs behind: each engine release
words its checks anew. These fallbacks read what does not change with the wording - the code
that raised (a setup check of the engine, the library reading the model's files, the loader
building the model from its config), a setting of the launch named in the error, a launch
asked to run on no processes - and are asked only where no rule produced a candidate (not
where one said on purpose that no cause can be named).

Two more re-read a rule's cause by the launch's own settings: a rank failure at a rendezvous
address no host of a one-node launch has (invalid_config), and the model's own folder refused
while its tokenizer is read (a checkpoint incomplete, not a model not found).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..states import Cause
from .evidence import MAX_EVIDENCE, evidence_lines
from .raised_where import raised_by_a_crash_handler
from .scan import Scan
from .settings import (
    impossible_count,
    log_settings,
    named_setting,
    non_finite_setting,
    zero_divisor_setting,
)
from .signatures import STORAGE_FULL

# The evidence's last line where a setting is the cause: why, then the setting (not a line of
# the log: the only evidence line that is not)
NAMES_A_SETTING = "it names a setting of this launch"
ASKED_FOR_NO_PROCESSES = "the launch asked for no processes"
MEETS_ELSEWHERE = "a launch of one node meeting at an address not this host's"
EXPLANATIONS = (NAMES_A_SETTING, ASKED_FOR_NO_PROCESSES, MEETS_ELSEWHERE)


def launch_refusal(msgs: list[str], scan: Scan, start: int) -> Cause | None:
    """What a launch that died, no rule naming a cause, was refused, read from where its error
    was raised rather than its words: a check of the engine's setup code or a config.json vLLM
    could not parse (invalid_config), or the model's own files refused by the library reading
    them (_MODEL_FILE_READERS)."""
    if _warning_raised(msgs, scan, start):
        return Cause.INVALID_CONFIG
    root = _failed_root(msgs, scan, start)
    if root is None:
        return None
    if _raised_by_setup_code(msgs, scan, root) or _config_not_parsed(msgs, root):
        return Cause.INVALID_CONFIG
    frame = _innermost_frame(scan, root)
    if frame is None:
        return None
    cause = next((cause for rx, cause in _MODEL_FILE_READERS if rx.search(frame[1])), None)
    if cause is Cause.CORRUPT_CHECKPOINT and _type_checked(msgs, frame[0], root):
        return Cause.INVALID_CONFIG  # (one value of the wrong type: wrong in itself)
    if cause is None and _raised_while_importing(msgs, scan, root) \
            and not STORAGE_FULL.search(msgs[root]):
        return Cause.IMPORT_ERROR
    return cause


# What runs a module's top level as it is imported: the import machinery's frames (Python 3.11
# shows `_handle_fromlist`, `_call_with_frames_removed`; importlib's import_module; runpy
# importing the package of a `python -m` module), or an import statement as the source line
_IMPORTING_FRAME = re.compile(r"^<frozen importlib\._bootstrap(?:_external)?>:"
                              r"|/importlib/__init__\.py:import_module$"
                              r"|^<frozen runpy>:_get_module_details$")
_IMPORT_STATEMENT = re.compile(r"\s*(?:import \w|from \S+ import )")


def _raised_while_importing(msgs: list[str], scan: Scan, root: int) -> bool:
    """The root error was raised while a module was being imported: under its traceback's
    innermost module frame (`<module>`, the module's top level, and what that calls - a
    decorator, a class body), entered by an import, not by the script run as the program. An
    import that fails on its own words (a library refusing the interpreter's settings,
    PYTHONOPTIMIZE=2 stripping the docstrings transformers parses at import, a version skew
    between two packages) fails the launch as a missing module does: the installation, not
    the model or the settings the engine read. Asked only where no rule and no reader above
    named a cause; a library's refusal of a setting's value in its own words is named first
    (`The value of X_Y must be`: invalid_config)."""
    opened = max((t for t in scan.tracebacks if t < root), default=None)
    if opened is None:
        return False
    frames = [(i, w) for i, w in scan.frames if opened < i < root and not w.startswith("<call>:")]
    modules = [k for k, (_, w) in enumerate(frames) if w.endswith(":<module>")]
    if not modules or modules[-1] == 0:
        return False
    outer_index, outer = frames[modules[-1] - 1]
    source = msgs[outer_index + 1] if outer_index + 1 < len(msgs) else ""
    return _IMPORTING_FRAME.search(outer) is not None or \
        _IMPORT_STATEMENT.match(source) is not None


def _type_checked(msgs: list[str], frame: int, root: int) -> bool:
    """The error on line ``root`` is a check of one value that the innermost frame (line
    ``frame``) made on purpose - a TypeError or ValueError raised by its own statement (`raise
    ValueError(` for a padding_side that is neither left nor right) - or a value's conversion
    refused (`invalid literal for int()`: added_tokens_decoder keyed by a name): one value wrong
    in itself, not code that failed on a file it could not handle."""
    error = msgs[root].lstrip()
    if error.startswith("ValueError: ") and _CONVERSION_REFUSED.search(error):
        return True
    return error.startswith(("TypeError: ", "ValueError: ")) and any(
        msgs[i].lstrip().startswith(("raise TypeError(", "raise ValueError("))
        for i in range(frame + 1, root))


_CONVERSION_REFUSED = re.compile(r"invalid literal for int\(\) with base \d+: "
                                 r"|could not convert string to float: ")


# The loader building the model from its config (vLLM's and SGLang's _initialize_model /
# initialize_model), and what reads the weights into it
_BUILDING_THE_MODEL = re.compile(r":_?initialize_model$")
_READING_WEIGHTS = re.compile(r":\w*load_weights\w*$|:weight_loader\w*$")


def refused_building_the_model(msgs: list[str], scan: Scan, start: int) -> bool:
    """A load that died, no rule naming a cause, of a check (`assert`, `raise ValueError(`)
    while the loader was building the model from its config - before any weight was read into
    it (no weight loader's frame): the check refused a value of the config (a layer count of 0,
    heads that do not divide), not the weights, which nothing had read yet. A division by zero
    there is the same refusal, met by the arithmetic of a count the config gives as 0
    (`assert tp_size % self.total_num_kv_heads == 0` with num_key_value_heads 0), whatever the
    statement."""
    root = _failed_root(msgs, scan, start)
    if root is None:
        return False
    divided = _DIVIDED_BY_ZERO.match(msgs[root]) is not None
    if not divided and _SETUP_CHECK.match(msgs[root]) is None:
        return False
    opened = max((t for t in scan.tracebacks if t < root), default=None)
    frame = _innermost_frame(scan, root)
    if opened is None or frame is None or frame[0] + 1 >= len(msgs) or \
            not divided and _CHECK_STATEMENT.match(msgs[frame[0] + 1]) is None:
        return False
    places = [w for i, w in scan.frames if opened < i < root]
    return any(_BUILDING_THE_MODEL.search(w) for w in places) and \
        not any(_READING_WEIGHTS.search(w) for w in places)


# A warning's class ending a traceback: the warning was raised as an exception
_RAISED_WARNING = re.compile(r"(?:\w+\.)*[A-Z]\w*Warning: ")


def _warning_raised(msgs: list[str], scan: Scan, start: int) -> bool:
    """The launch died of a warning raised as an error (`UserWarning: ...` ending a traceback,
    where a warning shown is `file.py:71: UserWarning: ...`): the interpreter's warnings filter
    set to turn warnings into errors (PYTHONWARNINGS=error, `-W error`), a setting of the
    launch, whatever code warned - the engine's own entry point, a module it imports, or a
    worker process the filter reached (vLLM's worker dying of `FutureWarning: ...` in
    init_worker, the engine core and the API server then relaying its death: every exception
    after the warning only wraps it)."""
    if not scan.tracebacks or scan.tracebacks[-1] < start or not scan.frames:
        return False
    raised = [_ending_warning(msgs, i) for i, _ in scan.frames if i >= start]
    last = max((j for j in raised if j is not None), default=None)
    if last is None:
        return False
    return all(wrapper for i, wrapper in scan.exceptions if i > last)


def _ending_warning(msgs: list[str], frame: int) -> int | None:
    """The line of a warning's class within a few lines under a traceback's frame (its source
    line and carets between), if one ends the traceback there."""
    for i in range(frame + 1, min(frame + 6, len(msgs))):
        if _RAISED_WARNING.match(msgs[i]):
            return i
    return None


def _failed_root(msgs: list[str], scan: Scan, start: int) -> int | None:
    """The line of the root exception a launch died of: the last that no wrapper raised, under
    SGLang's launcher relaying its scheduler's death (`Rank 0 scheduler died during
    initialization`, from the EOFError of the pipe the scheduler closed as it died: the
    scheduler's own error is above them)."""
    raised = [(i, wrapper) for i, wrapper in scan.exceptions if i >= start]
    relayed = bool(raised) and _LAUNCHER_RELAY.search(msgs[raised[-1][0]]) is not None
    roots = [i for i, wrapper in raised[:-1 if relayed else None] if not wrapper]
    while relayed and roots and msgs[roots[-1]].strip() == "EOFError":
        roots.pop()
    if not roots:
        return None
    # `raise RuntimeError("Failed to load the tokenizer...") from e`: the error it was raised
    # from is the cause (SGLang's tokenizer loader wraps Transformers' error so)
    root = roots[-1]
    while len(roots) > 1 and _DIRECT_CAUSE in "".join(msgs[roots[-2] + 1:root]):
        roots.pop()
        root = roots[-1]
    return root


_DIRECT_CAUSE = "The above exception was the direct cause of the following exception"


# The libraries that read a model's files, by the innermost frame of the error a launch died
# of: Transformers' config classes and their validators (config.json: a value it refuses on its
# own terms - the corpus's rule files those invalid_config; a file that does not parse or is
# missing is named corrupt_checkpoint by rules first), and the tokenizer readers (tokenizer.json,
# tokenizer.model and their configs: a tokenizer file damaged or missing). Measured on the
# corpus before it was kept: of the launch crashes whose error was raised there, 12 of 16
# under the config readers (a first, wider form) are labelled invalid_config (the other 4,
# files that do not parse or are missing, named by rules first), 5 of 8 under the tokenizer
# readers corrupt_checkpoint; on the corpus it turns one cause right and none wrong.
_MODEL_FILE_READERS = (
    # (the model's config class and the checks of its values - not the reading of the file,
    # configuration_utils' get_config_dict, whose failures are a file missing or unreadable,
    # nor an attribute looked up on the config by code of any kind)
    (re.compile(r"/transformers/(?:modeling_rope_utils|models/\w+/configuration_\w+)\.py:"
                r"|/transformers/(?:generation/)?configuration_utils\.py:_?validate\w*$"
                r"|/huggingface_hub/dataclasses\.py:"), Cause.INVALID_CONFIG),
    # (generation_config.json read into Transformers' GenerationConfig - from_pretrained,
    # from_dict - and not of the shape it must have: `'list' object is not a mapping`; its
    # values' own checks are above)
    (re.compile(r"/transformers/generation/configuration_utils\.py:"), Cause.CORRUPT_CHECKPOINT),
    # (a tokenizer file's value of the wrong type, refused by the reader's own check - `raise
    # TypeError(f"Special token {key} has to be either str or AddedToken ...")` for an eos_token
    # given as a number - is wrong in itself: _type_checked)
    (re.compile(r"/transformers/(?:tokenization_\w+|models/\w+/tokenization_\w+"
                r"|convert_slow_tokenizer)\.py:|/(?:tokenizers|sentencepiece|tiktoken)/"
                r"|/mistral_common/tokens/"), Cause.CORRUPT_CHECKPOINT),
    # (and a multimodal model's processor files - preprocessor_config.json and the like - read
    # by Transformers' image and feature processors' loaders: `'NoneType' object is not
    # subscriptable` where no processor file was resolved)
    (re.compile(r"/transformers/(?:image_processing_base|feature_extraction_utils)\.py:"
                r"get_\w+_dict$"), Cause.CORRUPT_CHECKPOINT),
)


def _raised_by_setup_code(msgs: list[str], scan: Scan, root: int) -> bool:
    """A launch that died, no rule naming a cause, of a check's exception (ValueError,
    AssertionError, TypeError, KeyError, NotImplementedError) raised by the engine's own setup
    code - argument and config resolution, entry points, platform selection, helpers - not by
    its model, kernels, workers or schedulers: a check of what the launch was given, in words
    no rule has met. Measured before it was kept, on classifiers that had not met the logs:
    a first form (the innermost frame's file only) on `d696cf9^`'s would have read 28 logs so,
    25 labelled invalid_config; this form on a2c1c22's (before the sixty-seventh batch) turns 7
    causes right and none wrong. ``root``: the exception's line (_failed_root)."""
    if _SETUP_CHECK.match(msgs[root]) is None:
        return False
    frame = _innermost_frame(scan, root)
    if frame is None:
        return False
    index, where = frame
    # (the check's own statement under its frame - `raise ValueError(...)`, `assert ...` - not
    # a call that failed inside, nor a runner re-raising what a child process reported)
    return _ENGINE_SETUP_FRAME.search(where) is not None \
        and _ENGINE_RUNTIME_FRAME.search(where) is None \
        and index + 1 < len(msgs) and _CHECK_STATEMENT.match(msgs[index + 1]) is not None


# vLLM's report that Transformers could not build the model's config from its config.json
# (transformers_utils/repo_utils.py with_retry: `Error parsing config for /models/x: integer
# modulo by zero, retrying 1 of 2`, then once more without the retry)
_CONFIG_PARSE_ERROR = re.compile(r"\bError parsing config for \S+?: (.+?)(?:, retrying \d+ of "
                                 r"\d+)?$")


def _config_not_parsed(msgs: list[str], root: int) -> bool:
    """A launch that died, no rule naming a cause, of the very error vLLM reported while it
    parsed the model's config.json (its exception line holds the reported message): a value
    Transformers' config refuses - a RoPE type without its parameters, a field of the wrong
    type, a head count of zero - whatever library words it is refused in. (Where the config
    contradicts the weights, rules that read the weights name corrupt_checkpoint first.)"""
    for i in range(root - 1, -1, -1):
        if "Error parsing config" in msgs[i]:
            reported = _CONFIG_PARSE_ERROR.search(msgs[i].rstrip())
            if reported is not None:
                text = reported[1].strip().strip("'\"")
                return len(text) >= 8 and text in msgs[root]
    return False


# A rendezvous that could not reach the address it was given (torch's TCPStore client: `failed
# to connect to any network address of (192.0.2.10, 5000)`, `timed out after 30000ms while
# trying to connect`, the name not resolving), and SGLang's dump of a launch of one node naming
# an address of another host to meet at (`'nnodes': 1`, `'dist_init_addr': '192.0.2.10:5000'`;
# ServerArgs(nnodes=1, dist_init_addr=...) before 0.5)
_CONNECT_FAILED = re.compile(r"failed to connect|timed out after .{0,80}connect"
                             r"|Name or service not known|No route to host", re.IGNORECASE)
_ONE_NODE = re.compile(r"""\bnnodes['"]?\s*[=:]\s*1\b""")
_MEET_AT = re.compile(r"""\bdist_init_addr['"]?\s*[=:]\s*['"]([^'"]+)['"]""")
_LOCAL_ADDRESS = ("127.", "localhost", "[::1]", "::1", "0.0.0.0")
# the address a SGLang launch serves at, which it also meets at where no dist_init_addr is set
_LAUNCH_HOST = re.compile(r"""['"]host['"]\s*:\s*['"]([^'"]+)['"]|\bhost=['"]([^'"]+)['"]""")


def unreachable_own_rendezvous(msgs: list[str], scan: Scan, index: int) -> str | None:
    """A rank failure read from a rendezvous that could not connect (line ``index``), in a
    launch of one node that was told to meet at another host's address (returned): there is
    no peer to have failed - the address is a setting the launch got wrong (a multi-node
    command line reused on one node)."""
    if not _CONNECT_FAILED.search(msgs[index]):
        return None
    return next((address for setting, address, _ in _one_node_meeting_points(msgs, scan)
                 if setting in ("dist_init_addr", "data_parallel_address")
                 and not address.startswith(_LOCAL_ADDRESS)),
                None)


def _one_node_meeting_points(msgs: list[str], scan: Scan) -> list[tuple[str, str, str]]:
    """Where a launch of one node meets its own rendezvous, from its settings dump: SGLang's
    dist_init_addr, and its --host (which it meets at where no dist_init_addr is set); vLLM's
    data_parallel_address where every data-parallel rank is local (im102) - each as (setting,
    address, host part)."""
    points = []
    for i in (i for i in scan.run_starts if _ONE_NODE.search(msgs[i])):
        meet = _MEET_AT.search(msgs[i])
        if meet:
            points.append(("dist_init_addr", meet[1], meet[1].rsplit(":", 1)[0].strip("[]")))
        host = _LAUNCH_HOST.search(msgs[i])
        if host:
            points.append(("host", host[1] or host[2], host[1] or host[2]))
    if not points:
        points = _vllm_local_data_parallel_address(msgs, scan)
    return points


# vLLM settings that say some data-parallel ranks run on another node (a head node's
# --data-parallel-size-local, a worker node's --headless / --data-parallel-start-rank)
_DP_ACROSS_NODES = ("data_parallel_size_local", "headless", "data_parallel_start_rank",
                    "data_parallel_rank", "nnodes", "node_rank")


def _vllm_local_data_parallel_address(msgs: list[str], scan: Scan) -> list[tuple[str, str, str]]:
    """vLLM's --data-parallel-address in a launch whose data-parallel ranks are all its own:
    the ranks meet there, and no other node will."""
    settings = log_settings(msgs[i] for i in scan.run_starts)
    address = settings.get("data_parallel_address")
    if not isinstance(address, str) or any(k in settings for k in _DP_ACROSS_NODES):
        return []
    return [("data_parallel_address", address, address.strip("[]"))]


# c10d's store client retrying a rendezvous (`[c10d] TCP client failed to connect/validate to
# host 10.0.3.17:29690 - retrying (try=3, ...)`): the host it is trying
_RETRYING_HOST = re.compile(r"failed to connect(?:/validate)? to host \[?([^\s\]]+?)\]?:\d+"
                            r" - retrying")


def stuck_meeting_elsewhere(msgs: list[str], scan: Scan,
                            start: int) -> tuple[int, str] | None:
    """An unfinished launch of one node whose rendezvous is still retrying an address that is
    not this host's (returned): the launch's --host or dist_init_addr copied from another
    machine (hd107: the node's address where the pod's was meant). Nothing else can answer
    for a one-node launch, so the retries will run out on the address, as its crash does
    (unreachable_own_rendezvous); a loopback address retrying (no local port, lo down) names
    no setting. The last retry line, and the setting."""
    retries = ((i, _RETRYING_HOST.search(msgs[i])) for i in range(len(msgs) - 1, start - 1, -1)
               if "- retrying" in msgs[i])  # (a word's test first: most logs have no retry)
    last, found = next(((i, m) for i, m in retries if m), (None, None))
    if last is None or found is None or found[1].startswith(_LOCAL_ADDRESS):
        return None
    return next(((last, f"--{setting.replace('_', '-')} {address}")
                 for setting, address, host in _one_node_meeting_points(msgs, scan)
                 if host == found[1]), None)


# the hub refusing a local path as a repository id (huggingface_hub's validate_repo_id: `Repo
# id must be in the form 'repo_name' or 'namespace/repo_name': '/models/x'`), the path last
_NOT_A_REPO_ID = re.compile(r"Repo id must (?:be|use) .*: '([^']+)'")
# the code that reads a tokenizer (the engines' tokenizer.py get_tokenizer and kin,
# Transformers' tokenization_auto.py / tokenization_utils*.py), not SGLang's tokenizer_manager
_READING_TOKENIZER = re.compile(r"/tokenizer\.py:|/tokenization_\w+\.py:|:get_tokenizer$"
                                r"|tokenizer_from_pretrained")


def tokenizer_missing_from_model(msgs: list[str], scan: Scan, index: int) -> bool:
    """A path not found (line ``index``) that is the model's own folder, met while reading the
    tokenizer from it: both engines read the model's config from that folder before its
    tokenizer (a folder not there fails then, in the config's frames), so it is there and lacks
    the tokenizer's files - a checkpoint incomplete, not a model not found (a tokenizer given
    a path of its own, `--tokenizer /x`, stays a path not found)."""
    named = _NOT_A_REPO_ID.search(msgs[index])
    if named is None:
        return False
    settings = log_settings(msgs[i] for i in scan.run_starts)
    model = settings.get("model_path") or settings.get("model")
    tokenizer = settings.get("tokenizer_path") or settings.get("tokenizer") or model
    if not model or {named[1].rstrip("/"), tokenizer.rstrip("/")} != {model.rstrip("/")}:
        return False
    opened = max((t for t in scan.tracebacks if t < index), default=-1)
    return any(opened < i < index and _READING_TOKENIZER.search(where)
               for i, where in scan.frames)


def a_benchmarks_dataset(scan: Scan, index: int) -> bool:
    """A file not found (line ``index``) while an engine's own benchmark fetched its dataset
    (SGLang's `benchmark/datasets/random.py` sampling its prompts from ShareGPT on the Hub,
    vLLM's `benchmarks/datasets.py`): the run's dataset, no model of the launch's - the
    setting that named it, as a dataset path not there is labelled (gj105, ca119)."""
    opened = max((t for t in scan.tracebacks if t < index), default=-1)
    return any(opened < i < index and _BENCHMARK_DATASET.search(where)
               for i, where in scan.frames)


# the engines' benchmark dataset code (sglang/benchmark/datasets/*.py, vllm/benchmarks/datasets.py)
_BENCHMARK_DATASET = re.compile(r"/benchmarks?/datasets?(?:/|\.py:)")


# the engines' loaders finding no weight file of the format they look for (vLLM's and SGLang's
# `Cannot find any model weights with '/m'`, vLLM's `Could not find any ... checkpoint files`)
_NO_WEIGHTS_FOUND = re.compile(r"Cannot find any model weights|Could not find \w* ?checkpoint "
                               r"files")
# load formats that read the checkpoint as it is on disk, whatever its files' kind
_ANY_FORMAT = frozenset({"auto", "none", ""})


def weights_of_another_format(msgs: list[str], scan: Scan, index: int,
                              settings: Mapping[str, str]) -> bool:
    """No weight file found (line ``index``) by a launch that chose the load format (`--load-
    format pt`, `mistral`, `sharded_state` over a plain safetensors checkpoint): the loader
    looked for that format's files, so the flag is what is wrong, not the folder - which the
    same words would blame under the default format."""
    if _NO_WEIGHTS_FOUND.search(msgs[index]) is None:
        return False
    chosen = settings.get("load_format", settings.get("load-format", "auto"))
    return chosen.strip().lower() not in _ANY_FORMAT


def _innermost_frame(scan: Scan, i: int) -> tuple[int, str] | None:
    """The innermost frame (its line and place) of the traceback that line ``i`` ends. Asked
    after the scan, when frames of later tracebacks are listed too (_innermost_places is asked
    during it, at line ``i``, and needs no such bound)."""
    for idx, where in reversed(scan.frames):
        if i - idx > 4:
            return None
        if idx < i and not where.startswith("<call>:"):
            return idx, where
    return None


def settings_of(msgs: list[str], scan: Scan, given: Mapping[str, str] | None) -> dict[str, str]:
    """The launch's settings: those its log shows (settings.log_settings), and those the
    daemon knows from its profile (``given``), which win."""
    return log_settings(msgs[i] for i in scan.run_starts) | dict(given or {})


def refused_setting(msgs: list[str], scan: Scan, start: int,
                    settings: Mapping[str, str]) -> tuple[int, str] | None:
    """A crash no rule names a cause for, raised with an error that names a setting of this
    launch (settings.py: a refusal in words no rule has met - a parser, a level, a flag that
    needs another): the exception line and the setting it names."""
    if not settings:
        return None
    for i in (i for i, _ in scan.exceptions if i >= start):
        named = named_setting(msgs[i], settings)
        if named is not None and not raised_by_a_crash_handler(scan, msgs, i):
            return i, named
    return None


def divided_by_a_zero_setting(msgs: list[str], scan: Scan, start: int,
                              settings: Mapping[str, str]) -> tuple[int, str] | None:
    """A crash no rule names a cause for, a ZeroDivisionError whose failing statement divides
    by a setting this launch set to zero (settings.zero_divisor_setting): the exception line
    and the setting."""
    if not settings:
        return None
    for i in (i for i, _ in scan.exceptions if i >= start):
        if _DIVIDED_BY_ZERO.search(msgs[i]) is None:
            continue
        frame = _innermost_frame(scan, i)
        if frame is not None and frame[0] + 1 < i:
            named = zero_divisor_setting(msgs[frame[0] + 1], settings)
            if named is not None:
                return i, named
    return None


def met_a_non_finite_setting(msgs: list[str], scan: Scan, start: int,
                             settings: Mapping[str, str]) -> tuple[int, str] | None:
    """A crash no rule names a cause for, whose exception is arithmetic meeting NaN or
    infinity (`ValueError: cannot convert float NaN to integer` as SGLang sizes its KV pool
    from `--mem-fraction-static nan`) in a launch that set a value so
    (settings.non_finite_setting): the exception line and the setting."""
    named = non_finite_setting(settings)
    if named is None:
        return None
    for i in (i for i, _ in scan.exceptions if i >= start):
        if _NON_FINITE_MET.search(msgs[i]) is not None:
            return i, named
    return None


def impossible_launch(scan: Scan, start: int,
                      settings: Mapping[str, str]) -> tuple[int, str] | None:
    """A crash no rule names a cause for, in a launch asked to run on no processes (`--tp-size
    0`): engines check few of these counts and fail later wherever the empty list is first
    used (SGLang 0.5's launcher: `IndexError: list index out of range` on its schedulers'
    infos). The failure's first error line, and the setting."""
    named = impossible_count(settings)
    if named is None:
        return None
    errors = [i for i, _ in scan.exceptions if i >= start] or [i for i, _ in scan.fatal
                                                               if i >= start]
    return (errors[0], named) if errors else None


def refusal_evidence(raw: list[str], msgs: list[str], refused: tuple[int, str],
                     evidence: tuple[str, ...],
                     why: str = NAMES_A_SETTING) -> tuple[str, ...]:
    """The refusal first, then the rest, and last which setting it names (or why a setting
    is the cause)."""
    first = evidence_lines(raw, msgs, [refused[0]])
    rest = tuple(line for line in evidence if line not in first)
    return (*first, *rest)[:MAX_EVIDENCE - 1] + (f"{why}: {refused[1]}",)


# SGLang's launcher reporting that a scheduler process exited before it was ready (engine.py
# _wait_for_scheduler_ready: `RuntimeError: Rank 0 scheduler died during initialization (exit
# code: 1)`, 0.5 on), under which the scheduler's own traceback was printed first
_LAUNCHER_RELAY = re.compile(r"\bscheduler died during initialization\b")
# (_raised_by_setup_code) the exceptions of a check, and the engines' code that runs them
_DIVIDED_BY_ZERO = re.compile(r"ZeroDivisionError\b")
# (met_a_non_finite_setting) Python's words for arithmetic on NaN or infinity
_NON_FINITE_MET = re.compile(r"cannot convert float (?:NaN|infinity) to integer"
                             r"|\bOverflowError\b.{0,120}\b(?:inf|infinity|out of range)\b")
_SETUP_CHECK = re.compile(r"(?:\w+\.)*(?:ValueError|AssertionError|TypeError|KeyError"
                          r"|NotImplementedError)\b")
_ENGINE_SETUP_FRAME = re.compile(r"/(?:vllm|sglang|sglang_router)/")
_CHECK_STATEMENT = re.compile(r"\s*(?:raise (?:\w+\.)*\w*(?:Error|Exception)\(|assert )")
_ENGINE_RUNTIME_FRAME = re.compile(r"/(?:models|layers|attention|managers|worker|lora|ops"
                                   r"|kernels|executor|distributed|kv_transfer)/|/v1/core/"
                                   r"|model_runner|tensor_schema")
