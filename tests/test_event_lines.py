"""The daemon's stored events as `supervisor-ctl events` prints them: text, never a repr."""

from __future__ import annotations

from supervisor.cli.ctl_format import format_stored_event


def test_a_stack_dump_event_says_how_many_files_where_and_how_long_it_took() -> None:
    ev = {"ts": 0, "run_id": 3, "kind": "stacks",
          "data": {"files": ["/s/runs/3/stacks/10.txt", "/s/runs/3/stacks/11.txt"],
                   "began": 0, "took_s": 2.5}}
    line = format_stored_event(ev)
    assert line.endswith("run #3: stack dumps: 2 file(s) in /s/runs/3/stacks, 2.5 s"), line


def test_a_stack_dump_event_of_an_older_daemon_has_no_duration() -> None:
    ev = {"ts": 0, "run_id": 3, "kind": "stacks", "data": {"files": ["/s/stacks/10.txt"]}}
    assert format_stored_event(ev).endswith("stack dumps: 1 file(s) in /s/stacks")


def test_a_status_event_names_its_cause() -> None:
    ev = {"ts": 0, "run_id": 4, "kind": "status",
          "data": {"status": "hung", "cause": "serving_stall"}}
    assert format_stored_event(ev, {4: "web"}).endswith("run #4 web: hung (cause serving_stall)")


def test_removed_shared_memory_reads_as_a_sentence() -> None:
    ev = {"ts": 0, "run_id": 3, "kind": "shm_removed",
          "data": {"files": ["psm_a", "psm_b", "sem.mp-c", "psm_d", "psm_e"], "bytes": 3 << 20}}
    assert format_stored_event(ev).endswith(
        "run #3: removed 5 shared-memory file(s) it left in /dev/shm (3.0 MiB): psm_a, psm_b, "
        "sem.mp-c, psm_d and 1 more")


def test_a_long_list_of_names_is_kept_to_the_first_few() -> None:
    from supervisor.text import first_few
    assert first_few(["a", "b"]) == "a, b"
    assert first_few([f"psm_{i}" for i in range(6)]) == "psm_0, psm_1, psm_2, psm_3 and 2 more"
