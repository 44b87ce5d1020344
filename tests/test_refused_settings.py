"""A crash no rule names, whose error names a setting of the launch: a refused configuration
(supervisor/diagnosis/settings.py). The live half - a profile's args and env - is
tests/e2e/test_verdicts_e2e.py::test_an_error_naming_what_the_launch_set_is_a_refused_configuration.
"""

from __future__ import annotations

import pytest

from supervisor.diagnosis.classifier import classify_text
from supervisor.diagnosis.settings import (
    impossible_count,
    launch_settings,
    log_settings,
    named_setting,
)
from supervisor.states import Cause, Outcome

ARGS = ("(APIServer pid=7) INFO 12-04 19:09:52 [api_utils.py:286] non-default args: "
        "{'host': '127.0.0.1', 'model': '/models/tiny', 'frob_mode': 'zigzag', "
        "'max_model_len': 256, 'enforce_eager': True}")
TRACE = """\
(APIServer pid=7) Traceback (most recent call last):
(APIServer pid=7)   File "/venv/lib/python3.11/site-packages/vllm/entrypoints/openai/api_server.py", line 10, in run_server
(APIServer pid=7)     engine = build_engine(args)
(APIServer pid=7) ValueError: {error}
"""


def log(error: str, args: str = ARGS) -> str:
    return f"{args}\n{TRACE.format(error=error)}" if args else TRACE.format(error=error)


def test_the_log_s_own_argument_list_is_read() -> None:
    assert log_settings([ARGS]) == {"host": "127.0.0.1", "model": "/models/tiny",
                                    "frob_mode": "zigzag", "max_model_len": "256",
                                    "enforce_eager": "True"}
    # (not a literal: nothing read, nothing raised)
    assert log_settings(["non-default args: {'a': Namespace(x=1)}"]) == {}
    assert log_settings(["INFO all good"]) == {}


def test_sglang_s_argument_dump_is_read_too() -> None:
    # 0.5 on: a dict; before: the dataclass's repr (an enum's repr is skipped, not guessed)
    assert log_settings(["[2026-12-05 01:52:34] server_args={'model_path': '/m', "
                         "'reasoning_parser': 'nosuchparser', 'tp_size': 1, 'lora_paths': None}"]
                        ) == {"model_path": "/m", "reasoning_parser": "nosuchparser",
                              "tp_size": "1"}
    assert log_settings(["[2025-03-01 10:00:00] server_args=ServerArgs(model_path='/m', "
                         "tool_call_parser='nosuch', load_format=<LoadFormat.AUTO: 'auto'>, "
                         "tp_size=2)"]) == {"model_path": "/m", "tool_call_parser": "nosuch",
                                            "tp_size": "2"}
    # (a dump cut mid-line parses to nothing)
    assert log_settings(["server_args=ServerArgs(model_path='/m', tool_call_par"]) == {}
    text = ("[2026-12-05 01:52:34] server_args={'model_path': '/m', 'reasoning_parser': "
            "'nosuchparser'}\n" + TRACE.format(error="KeyError: 'nosuchparser'"))
    v = classify_text(text, engine="sglang")
    assert v.cause is Cause.INVALID_CONFIG, v
    assert v.evidence[-1] == "it names a setting of this launch: --reasoning-parser nosuchparser"


@pytest.mark.parametrize(("message", "named"), [
    ("cannot honour 'zigzag' on this build", "--frob-mode zigzag"),           # the value
    ('unknown value "zigzag"', "--frob-mode zigzag"),
    ("frob_mode must be one of a, b", "--frob-mode zigzag"),                  # the key
    ("--frob-mode requires --widget", "--frob-mode zigzag"),                  # the flag
    ("FROB_LEVEL is not an integer", "FROB_LEVEL=loud"),                      # a variable
    ("[Errno 20] Not a directory: '/srv/cache/torch'", "FROB_CACHE=/srv/cache"),  # under it
    ("[Errno 20] Not a directory: '/srv/cachet/torch'", None),   # another folder
    ("unexpected keys: {'prefetch_shards'}", "--loader-extra {'prefetch_shards': 4}"),  # a key
    ("unexpected keys: {'prefetch'}", None),  # of a table: another key is another key
    ("template /srv/cache is no file", "FROB_CACHE=/srv/cache"),  # a path, whole, unquoted
    ("template /srv/cachet is no file", None),   # another path
    ("cannot honour zigzag", None),          # a value unquoted may be any word of prose
    ("frob_model is missing", None),         # a longer name is another name
    ("bad mode", None),
    # a class named by its dotted path, refusing how the engine calls it (eq102)
    ("TypeError: PriorityQueue.__init__() got an unexpected keyword argument 'vllm_config'",
     "--sched-cls acme.sched.PriorityQueue"),
    ("TypeError: PriorityQueueV2.__init__() got an unexpected keyword argument 'x'", None),
    ("PriorityQueue is busy", None),  # the class's name as a word of prose
])
def test_which_setting_a_message_names(message: str, named: str | None) -> None:
    settings = {"frob_mode": "zigzag", "FROB_LEVEL": "loud", "FROB_CACHE": "/srv/cache",
                "loader_extra": "{'prefetch_shards': 4}",
                "sched_cls": "acme.sched.PriorityQueue"}
    assert named_setting(message, settings) == named


@pytest.mark.parametrize("message", [
    "Repository '/models/tiny' not found",   # the model's own path: causes of its own
    "port 8000 is in use",                   # the listening address
    "dtype 'auto' is odd",                   # a plain word as the value
    "value '256' too large",                 # a number
    "eager mode is off",                     # a key of one word: prose uses those by chance
    "cannot read '/data/hf/hub/x/model.safetensors'",  # under the download folder: the model's
])
def test_what_is_no_user_choice_is_not_named(message: str) -> None:
    settings = {"model": "/models/tiny", "port": "8000", "dtype": "auto",
                "max_model_len": "256", "eager": "yes", "HF_HOME": "/data/hf"}
    assert named_setting(message, settings) is None


def test_a_profile_s_args_and_env_are_settings() -> None:
    assert launch_settings({"--tool-call-parser": "x", "tp-size": 2, "lora-modules": ["a", "b"]},
                           {"VLLM_LOGGING_LEVEL": "LOUD"}) == {
        "tool-call-parser": "x", "tp-size": "2", "lora-modules": "a b",
        "VLLM_LOGGING_LEVEL": "LOUD"}


def test_a_crash_whose_error_names_a_setting_the_log_lists_is_invalid_config() -> None:
    v = classify_text(log("cannot honour 'zigzag' on this build"), engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG)
    assert v.evidence[0].endswith("ValueError: cannot honour 'zigzag' on this build")
    assert v.evidence[-1] == "it names a setting of this launch: --frob-mode zigzag"
    assert len(v.evidence) <= 5


def test_the_same_error_naming_nothing_the_launch_set_stays_unknown() -> None:
    assert classify_text(log("cannot honour 'zigzag' on this build", args=""),
                         engine="vllm").cause is Cause.UNKNOWN
    assert classify_text(log("cannot honour 'spiral' on this build"),
                         engine="vllm").cause is Cause.UNKNOWN


def test_settings_given_live_count_as_the_log_s_own() -> None:
    text = log("FROB_LEVEL='loud' cannot be parsed", args="")
    assert classify_text(text, engine="vllm").cause is Cause.UNKNOWN
    v = classify_text(text, engine="vllm", settings={"FROB_LEVEL": "loud"})
    assert v.cause is Cause.INVALID_CONFIG
    assert v.evidence[-1] == "it names a setting of this launch: FROB_LEVEL=loud"


def test_a_cause_a_rule_names_is_kept_even_when_its_words_name_a_setting() -> None:
    # the KV-cache check names the flag to change: the cause is the KV cache, not the flag
    args = ARGS.replace("'enforce_eager': True", "'gpu_memory_utilization': 0.3")
    v = classify_text(log("No available memory for the cache blocks. Try increasing "
                          "`gpu_memory_utilization` when initializing the engine.", args=args),
                      engine="vllm")
    assert v.cause is Cause.KV_CACHE_OOM


def test_a_process_count_below_one_is_impossible_and_other_zeros_are_not() -> None:
    assert impossible_count({"tp_size": "0"}) == "--tp-size 0"
    assert impossible_count({"tensor_parallel_size": "-2"}) == "--tensor-parallel-size -2"
    assert impossible_count({"nnodes": "0", "port": "0"}) == "--nnodes 0"
    # one process, or a count the engine chooses; zeros and negatives that mean something
    # (SGLang's chunked_prefill_size -1 switches chunking off)
    for ok in ({"tp_size": "1"}, {"dp_size": "auto"}, {"chunked_prefill_size": "-1"},
               {"max_running_requests": "0"}, {}):
        assert impossible_count(ok) is None, ok
