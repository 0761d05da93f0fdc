"""The third round of fuzzing reproducers (``tests/fuzz_repro/turn3``, a copy of
``shared/fuzz-repro/turn3``; its README says what each did): each now ends in a
located error or a clean result, within seconds and bounded memory.
"""
from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).with_name("fuzz_repro") / "turn3"
LOCATED = re.compile(r"^\s*(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): (error|warning): ")


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def run_cli(*argv, cwd=HERE, env=None, timeout=30, stdin=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "interpreter.cli", *map(str, argv)], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, preexec_fn=_limit_memory, env={**os.environ, **(env or {})},
                          stdin=subprocess.DEVNULL if stdin is None else stdin)


def errors(proc) -> list:
    """The located diagnostics of a run: (file, line, col, text of the line)."""
    out = proc.stdout + proc.stderr
    return [(m["file"], int(m["line"]), int(m["col"]), line) for line in out.splitlines()
            for m in [LOCATED.match(line)] if m]


def assert_located_in(proc, case, code, message):
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out[-2000:]
    assert "Traceback" not in out
    found = [e for e in errors(proc) if f"[{code}]" in e[3] and message in e[3]]
    assert found, out[-2000:]
    for file, *_ in found:
        assert (HERE / file).resolve().is_relative_to((HERE / case).resolve()), file


@pytest.mark.parametrize("case", ["T1_deep_value_native_format_segfault", "T2_deep_value_hash_segfault"])
def test_a_value_nested_past_the_depth_limit_is_refused_where_it_is_kept(case):
    proc = run_cli("play", case, "--players", "1", "--seed", "1", "--quiet")
    assert_located_in(proc, case, "RW910", "levels deep (limit 'depth')")
    line = next(e for e in errors(proc) if "RW910" in e[3])
    assert line[1:3] == ((14 if case.startswith("T1") else 15), 23)      # at `x = [x]`


def test_depth_is_measured_without_recursion_limits_and_remembered_for_big_lists():
    from interpreter.engine.run.limits import LIMITS, LimitError
    from interpreter.engine.run.values import Record, bounded
    flat = tuple(range(1000))
    assert bounded(flat) is flat
    v = 0
    for _ in range(LIMITS.depth - 2):        # (v, flat) nests one deeper than v; flat is 1 deep
        v = (v, flat)
    assert bounded(Record({"a": v})) is not None     # exactly at the limit
    with pytest.raises(LimitError, match="limit 'depth'"):
        bounded(((Record({"a": v}),),))
    with pytest.raises(LimitError, match="limit 'depth'"):
        bounded({1: (v,)})
    shared = 0
    with pytest.raises(LimitError, match="limit 'elements'"):     # 2^k elements in all, k+1 distinct parts
        for _ in range(60):
            shared = bounded((shared, shared))


def test_a_value_that_doubles_by_sharing_is_refused_at_once(tmp_path):
    (tmp_path / "game.yaml").write_text("""regelwerk: 1
game: {name: D, players: {min: 1, max: 1}}
variables:
  x: {type: any, init: 0}
  k: 0
actions:
  go:
    do: [{repeat: 90, do: [{set: "x = [x, x]"}]}, {set: "k = count(distinct([x, x]))"}]
flow:
  - turns: 0
    once: true
    do: [{decide: [go]}]
end:
  score: "k"
""")
    proc = run_cli("play", tmp_path, "--players", "1", "--seed", "1", "--quiet", timeout=20)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1 and "limit 'elements'" in out and "game.yaml:8:" in out, out[-2000:]


def test_procedure_arguments_are_bounded_too(tmp_path):
    (tmp_path / "game.yaml").write_text("""regelwerk: 1
game: {name: P, players: {min: 1, max: 1}}
variables:
  n: 0
procedures:
  wrap:
    params: {x: any}
    do:
      - set: "n += 1"
      - if: "n < 100000"
        then: [{call: wrap, with: {x: "[x]"}}]
actions:
  go:
    do: [{call: wrap, with: {x: "0"}}]
flow:
  - turns: 0
    once: true
    do: [{decide: [go]}]
end:
  score: "n"
""")
    proc = run_cli("play", tmp_path, "--players", "1", "--seed", "1", "--quiet", "--bots", "random")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1 and "Traceback" not in out, out[-2000:]
    assert "RW910" in out or "RW900" in out, out[-2000:]


def test_players_max_past_the_limit_is_a_located_error():
    case = "T13_players_max_1e6_validate_memory"
    proc = run_cli("validate", case, timeout=20)
    assert_located_in(proc, case, "RW310", "at most 100 players")
    assert errors(proc)[0][1:3] == (3, 42)


@pytest.mark.slow
@pytest.mark.parametrize("case, line", [("T14_zone_family_5M_no_limit", 8), ("T15_variable_family_5M_no_limit", 9)])
def test_zone_and_variable_families_count_against_the_components_limit(case, line):
    for code, command in (("RW203", ["validate", case]), ("RW910", ["play", case, "--players", "2", "--seed", "1"])):
        proc = run_cli(*command, timeout=20)
        assert_located_in(proc, case, code, "limit 'components'")
        assert any(e[1] == line for e in errors(proc) if code in e[3])


def test_option_allowed_that_is_not_a_list_is_located():
    case = "T11_option_allowed_not_a_list"
    proc = run_cli("validate", case)
    assert_located_in(proc, case, "RW102", "allowed values must be a list")
    proc = run_cli("play", case, "--players", "2", "--seed", "1", "--quiet")
    out = proc.stdout + proc.stderr
    assert proc.returncode in (1, 2) and "Traceback" not in out, out[-2000:]


def test_component_count_that_is_text_is_located():
    case = "T12_component_count_text_from_constant"
    proc = run_cli("play", case, "--players", "2", "--seed", "1", "--quiet")
    assert_located_in(proc, case, "RW900", "the count must be a whole number")
    proc = run_cli("validate", case)
    assert proc.returncode == 1 and "RW299" not in proc.stdout + proc.stderr


@pytest.mark.parametrize("case, limit", [("T20_work_per_step_hang", "work"),
                                         ("T21_many_big_lists_unbounded_memory", "elements")])
def test_element_work_between_decisions_and_kept_elements_are_bounded(case, limit):
    proc = run_cli("play", case, "--players", "2", "--seed", "1", "--quiet",
                   env={"REGELWERK_LIMITS": "work=5000000"})
    assert_located_in(proc, case, "RW910", f"(limit '{limit}')")


def test_work_counts_restart_at_each_decision_and_memory_is_looked_at_for_big_builds():
    from interpreter.engine.run import limits
    before = (limits.LIMITS.work, limits.LIMITS.memory)
    try:
        limits.configure(work=100)
        limits.WORK[0] = 0
        limits.check_size(60, "a list")
        with pytest.raises(limits.LimitError, match="limit 'work'"):
            limits.check_size(60, "a list")
        limits.configure(work=before[0], memory=1)
        with pytest.raises(limits.LimitError, match="limit 'memory'"):
            limits.check_size(limits.BIG, "a list")
        limits.check_size(limits.BIG - 1, "a small list")      # small builds do not look
    finally:
        limits.configure(work=before[0], memory=before[1])
        limits.WORK[0] = 0
    assert 1 < limits.resident_mb() < before[1]


def test_a_name_with_a_final_newline_is_not_a_name():
    case = "T9_identifier_trailing_newline"
    proc = run_cli("validate", case)
    assert_located_in(proc, case, "RW010", "'go\\n' is not a valid name")
    from dsl.quickschema import anchored
    assert anchored("^[a-z]+$").search("go\n") is None and anchored("^[a-z]+$").search("go")
    assert anchored("^a\\$").search("a$")          # an escaped $ stays a dollar sign


def test_a_decide_without_who_in_a_turns_loop_that_binds_another_name_is_found_by_validate():
    case = "T19_turns_as_decide_without_who"
    proc = run_cli("validate", case)
    assert_located_in(proc, case, "RW311", "binds 'p' (as:), not 'player'")
    assert errors(proc)[0][1:3] == (14, 10)


def test_diagnostics_exceptions_unpickle_as_themselves():
    import pickle
    from concurrent.futures import ProcessPoolExecutor
    from dsl.diagnostics import Diagnostic, Pos, RulebookError, RuleRuntimeError
    err = RuleRuntimeError("boom", Pos("g.yaml", 3, 4), "RW910")
    back = pickle.loads(pickle.dumps(err))
    assert (type(back), back.message, back.pos, back.code, str(back)) == (RuleRuntimeError, "boom", err.pos, "RW910",
                                                                           str(err))
    book = RulebookError([Diagnostic(Pos("g.yaml", 1, 2), "bad", "error", "RW001")])
    back = pickle.loads(pickle.dumps(book))
    assert back.diagnostics == book.diagnostics and str(back) == str(book)
    with ProcessPoolExecutor(1) as pool:          # a worker's error reaches the parent as itself
        with pytest.raises(RuleRuntimeError, match="boom"):
            pool.submit(_raise, err).result(timeout=60)


def _raise(exc):
    raise exc


def test_check_prints_its_findings_where_it_cannot_write_replays(tmp_path):
    (tmp_path / "game.yaml").write_text("""regelwerk: 1
game: {name: F, players: {min: 2, max: 2}}
variables:
  x: 0
actions:
  go:
    do: [{set: "x += 1"}, {if: "x > 1", then: [{fail: "broken on purpose"}]}]
flow:
  - turns: 0
    do: [{decide: [go]}]
end:
  score: "x"
""")
    proc = run_cli("check", tmp_path, "--games", "2", "--jobs", "1", "--replays", "/dev/null/replays")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1 and "Traceback" not in out, out
    assert "broken on purpose" in out and "no replay file: Not a directory" in out and "1 problem found" in out


@pytest.mark.slow     # 4-7 s each: moved out of the default run, which must stay under 5 minutes
def test_a_killed_play_log_keeps_its_decisions_and_a_cut_log_goes_on_from_its_complete_lines(tmp_path):
    import json
    import signal
    import time
    log = tmp_path / "killed.jsonl"
    rules = Path(__file__).resolve().parent.parent / "rules" / "yak"
    proc = subprocess.Popen([sys.executable, "-m", "interpreter.cli", "play", str(rules), "--players", "2", "--seed",
                             "1", "--bots", "ismcts", "--quiet", "--log", str(log)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and proc.poll() is None:
            if log.exists() and log.read_text().count("\n") >= 4:        # the header and three decisions
                break
            time.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    lines = log.read_text().splitlines()
    assert len(lines) >= 4
    kept = [json.loads(x) for x in lines[1:4]]
    assert all("action" in d for d in kept)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:4]) + "\n" + lines[3][:-7])         # a last line cut mid-way
    refused = run_cli("replay", cut)
    assert refused.returncode == 1 and "--complete-lines" in refused.stderr
    done = run_cli("replay", cut, "--complete-lines")
    assert done.returncode == 0 and "3 decisions replayed" in done.stdout, done.stderr
    from interpreter.game import Rulebook
    from interpreter.play.session import Session
    session = Session.from_log(Rulebook.load(rules), cut, "random", complete_lines=True)    # play --resume
    assert len(session.history) == 3


def _children(pid: int) -> list:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_check_workers_end_when_their_parent_is_killed():
    import signal
    import time
    rules = Path(__file__).resolve().parent.parent / "rules" / "azul_summer_pavilion"
    proc = subprocess.Popen([sys.executable, "-m", "interpreter.cli", "check", str(rules), "--games", "20000",
                             "--jobs", "2"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers = []
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(workers) < 2:
            time.sleep(0.5)
            workers = [c for c in _children(proc.pid) if _alive(c)]
        assert len(workers) >= 2, "the pool did not start"
        time.sleep(1)                       # the workers are busy with their tasks
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.25)
    left = [w for w in workers if _alive(w)]
    for w in left:                          # do not leave them behind when the test fails
        os.kill(w, signal.SIGKILL)
    assert not left, f"orphaned workers after 10 s: {left}"


@pytest.mark.slow
def test_report_draws_names_with_dollar_signs_as_text(tmp_path):
    pytest.importorskip("matplotlib")
    case = "T17_report_mathtext_in_names"
    proc = run_cli("report", case, "--players", "1", "--games", "4", "--jobs", "1", "--out", tmp_path / "out",
                   timeout=120)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "Traceback" not in out, out[-2000:]
    assert (tmp_path / "out" / "report.html").exists()


# --- every reproducer, the way its README shows it (slow: ~2-3 min) ------------------------------------

PLAY = ["--players", "2", "--seed", "1", "--quiet"]
#: per case: how to make it (a script run in a copy of its folder) and the commands that showed the problem
#: (run in that copy; "ROOT" is a folder holding rules/yak, for the cases whose scripts need a rulebook)
EVERY = {
    "T1_deep_value_native_format_segfault": [["play", ".", "--players", "1", "--seed", "1", "--log", "L.jsonl"],
                                             ["replay", "L.jsonl", "--show"]],
    "T2_deep_value_hash_segfault": [["play", ".", "--players", "1", "--seed", "1", "--quiet"],
                                    ["check", ".", "--games", "2", "--jobs", "1"]],
    "T3_entry_file_symlink_outside": [["validate", "case"], ["play", "case", *PLAY]],
    "T4_terminal_escapes_in_output": [["play", ".", "--players", "2", "--seed", "1", "--log", "L.jsonl"],
                                      ["replay", "L.jsonl", "--show"]],
    "T4b_terminal_escapes_in_diagnostic": [["validate", "."], ["play", ".", *PLAY]],
    "T5_rulebook_hash_reads_any_yaml": [["play", "fifo", *PLAY, "--log", "f.jsonl"],
                                        ["play", "zero", *PLAY, "--log", "z.jsonl"], ["replay", "f.jsonl"],
                                        ["replay", "z.jsonl"]],
    "T6_include_symlink_loop_traceback": [["validate", "."], ["play", ".", *PLAY], ["test", "."]],
    "T7_replay_log_memory_amplification": [["replay", "many.jsonl"]],
    "T8_mutate_copytree_follows_links": [["mutate", d, "--sample", "1"] for d in ("mz_link", "mz_zero", "mz_fifo")],
    "T9_identifier_trailing_newline": [["validate", "."], ["play", ".", *PLAY]],
    "T10_rich_markup_in_seat_and_index_names": [["play", ".", "--players", "1", "--seed", "1", "--log", "L.jsonl"],
                                                ["replay", "L.jsonl", "--show"]],
    "T11_option_allowed_not_a_list": [["validate", "."], ["play", ".", *PLAY], ["check", ".", "--games", "2"]],
    "T12_component_count_text_from_constant": [["validate", "."], ["play", ".", *PLAY], ["test", "."]],
    "T13_players_max_1e6_validate_memory": [["validate", "."], ["play", ".", *PLAY]],
    "T14_zone_family_5M_no_limit": [["validate", "."], ["play", ".", *PLAY]],
    "T15_variable_family_5M_no_limit": [["validate", "."], ["play", ".", *PLAY], ["test", "."]],
    "T16_long_expression_parse_memory": [["validate", "longexpr"]],
    "T17_report_mathtext_in_names": [["validate", "."], ["play", ".", "--players", "1", "--seed", "1"]],
    "T18_big_yaml_memory": [["validate", "bigyaml"]],
    "T19_turns_as_decide_without_who": [["validate", "."], ["play", ".", *PLAY]],
    "T20_work_per_step_hang": [["play", ".", *PLAY]],
    "T21_many_big_lists_unbounded_memory": [["play", ".", *PLAY]],
    "T22_crafted_check_cache": [["validate", "."]],
}
SECRETS = ("AKIAFAKE", "root:x:", "TOP SECRET", "made up")


def _make(case: str, work: Path) -> Path:
    """A copy of the case's folder, its script run (from a folder with rules/yak where it needs one)."""
    import shutil
    folder = work / case
    shutil.copytree(HERE / case, folder)
    for p in folder.rglob("*"):
        p.chmod(p.stat().st_mode | 0o200)
    if case.startswith(("T5_", "T8_")):
        (folder / "rules").mkdir()
        shutil.copytree(HERE.parent.parent.parent / "rules" / "yak", folder / "rules" / "yak")
    if (folder / "make.sh").exists() and not case.startswith("T22"):
        subprocess.run(["sh", "make.sh"], cwd=folder, check=True, timeout=60, capture_output=True)
    if (folder / "make.py").exists():
        subprocess.run([sys.executable, "make.py"], cwd=folder, check=True, timeout=60, capture_output=True)
    if case.startswith("T22"):
        cache = work / "cache"
        env = {"REGELWERK_CACHE": "1", "REGELWERK_CACHE_DIR": str(cache)}
        run_cli("validate", ".", cwd=folder, env=env)
        entry, = cache.glob("*.json")
        entry.write_text('{"format": 1, "key": "%s", "findings": [["/etc/passwd", 1, 1, "made up", "warning", '
                         '"RW201", true]]}' % entry.stem)
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(EVERY))
def test_every_reproducer_ends_cleanly(case, tmp_path):
    import time
    assert {p.name for p in HERE.iterdir() if p.is_dir()} == set(EVERY)        # none left out
    folder = _make(case, tmp_path)
    env = {"REGELWERK_CACHE": "1", "REGELWERK_CACHE_DIR": str(tmp_path / "cache")} if case.startswith("T22") else {}
    for argv in EVERY[case]:
        started = time.monotonic()
        proc = run_cli(*argv, cwd=folder, env=env, timeout=30)
        out = proc.stdout + proc.stderr
        what = f"{case}: regelwerk {' '.join(argv)} -> {proc.returncode} in {time.monotonic() - started:.1f}s"
        assert proc.returncode in (0, 1, 2), what + "\n" + out[-2000:]
        assert "Traceback" not in out, what + "\n" + out[-2000:]
        assert not any(s in out for s in SECRETS), what + "\n" + out[-2000:]
        assert not any(c in out for c in "\x1b\x07\x9b\r"), what
