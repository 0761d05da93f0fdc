"""Fuzzing what tests/test_fuzzing.py does not: command lines, game logs, scenario files, run-time values.

Hypothesis drives four more kinds of input, all in-process (an exception that
escapes is a crash and fails the test with its traceback):

* command lines: a command and flags with good, bad and extreme values, on a
  small rulebook, a broken one, a log and paths that are no rulebook —
  ``main`` returns 0, 1 or 2 and prints no traceback;
* game logs: real logs of every shipped rulebook with lines mutated, cut,
  doubled or made up — ``replay_log`` ends in a ``LogProblem`` or a replay;
* scenario files made up from the scenario schema's parts (starts, options,
  decisions, expectations written with a rulebook's own names), against every
  shipped rulebook — ``run_scenarios`` reports, located inside the folder;
* values built while a game runs: sequences of actions that nest a value
  (``x = [x]``), share and double it (``x = [x, x]``), widen it and keep many
  big lists — each decision is applied or refused with a located RW9xx error,
  and whatever the state holds can be formatted, hashed and serialised.

The default run tries a few of each; the slow suite (``pytest -m slow``) tries
2,000 of each (about 1-2 min per kind on a quiet 2-core machine).
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import RULES
from dsl.diagnostics import RuleRuntimeError
from interpreter.game import IllegalAction, Rulebook

GAMES = ["azul_summer_pavilion", "iquazu", "moonlight_market", "yak"]
QUICK = settings(max_examples=10, deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
SLOW_EXAMPLES = int(os.environ.get("REGELWERK_FUZZ_EXAMPLES", "2000"))   # to measure: fewer


def slow_settings(n=SLOW_EXAMPLES):
    return settings(max_examples=n, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                           HealthCheck.data_too_large])


@pytest.fixture(scope="module")
def work():
    """A private folder: a small rulebook, a broken one, a log of each shipped game."""
    folder = Path(tempfile.mkdtemp(prefix="rw-fuzz-inputs-"))
    (folder / "small").mkdir()
    (folder / "small" / "game.yaml").write_text(SMALL)
    (folder / "small" / "scenarios").mkdir()
    (folder / "small" / "scenarios" / "one.yaml").write_text(
        "scenario: one\nsource: made up\nplayers: 2\nsteps:\n  - decide: go\n  - expect: {x: 1}\n")
    (folder / "broken").mkdir()
    (folder / "broken" / "game.yaml").write_text(SMALL.replace('score: "x"', 'score: "x +"'))
    for game in GAMES:
        rb = _load(RULES / game)
        state = rb.new_game(rb.game.min_players, seed=3)
        lines = [json.dumps({"format": "regelwerk-log/1", "rulebook": str(RULES / game),
                             "players": rb.game.min_players, "seed": 3})]
        for _ in range(12):
            if state.is_terminal():
                break
            action = state.legal_actions()[0]
            lines.append(json.dumps({"seat": state.current_player(), "action": action}))
            state.apply_action(action)
        (folder / f"{game}.jsonl").write_text("\n".join(lines) + "\n")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


SMALL = """regelwerk: 1
game: {name: Small, players: {min: 1, max: 3}}
options:
  bonus: {default: 0, allowed: "[0, 1, 2]"}
variants:
  fast: {}
variables:
  x: 0
actions:
  go:
    do: [{set: "x += 1 + option.bonus"}]
flow:
  - repeat: 2
    do:
      - turns: 0
        once: true
        do: [{decide: [go]}]
end:
  score: "x"
"""


@lru_cache(maxsize=None)
def _cached_load(path: str, mtime: int):
    return Rulebook._uncached_load(path)


def _load(path):
    return Rulebook.load(path)


@pytest.fixture(autouse=True, scope="module")
def _rulebooks_load_once():
    """Rulebooks loaded once per file version: the inputs fuzzed are the logs, scenarios, command
    lines and values, not the (unchanged) rulebooks, and loading is most of the time otherwise."""
    original = Rulebook.__dict__["load"]
    Rulebook._uncached_load = original.__get__(None, Rulebook)

    def load(cls, path, *args, **kwargs):
        if args or kwargs:
            return Rulebook._uncached_load(path, *args, **kwargs)
        entry = Path(path) / "game.yaml" if Path(path).is_dir() else Path(path)
        try:
            mtime = max(p.stat().st_mtime_ns for p in entry.parent.glob("*.yaml"))
        except (OSError, ValueError):
            return Rulebook._uncached_load(path)
        return _cached_load(str(Path(path).resolve()), mtime)
    Rulebook.load = classmethod(load)
    yield
    Rulebook.load = original
    del Rulebook._uncached_load


def _quiet(fn, *args):
    """``fn(*args)`` with its output caught: (its value, the output)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        value = fn(*args)
    return value, out.getvalue()


# --------------------------------------------------------------------------
# command lines

NUMBERS = ["0", "1", "2", "3", "-1", "x", "", "1e400", "nan", "99999999999999999999999", "0x10", " 2", "2,3", "1,99"]
SMALL_COUNTS = ["0", "1", "2", "-1", "x", "", "1e400", "3.5"]
FLAGS = {
    "--players": NUMBERS, "--seed": NUMBERS, "--seat": NUMBERS, "--until": NUMBERS,
    "--games": SMALL_COUNTS, "--repeat": SMALL_COUNTS, "--max-decisions": SMALL_COUNTS, "--jobs": ["1", "0", "x"],
    "--bots": ["random", "greedy", "nobody", "", ",", "random,random,random,random", "RANDOM"],
    "--option": ["bonus=1", "bonus=9", "bonus=x", "nope=1", "bonus", "=", "bonus=1=2"],
    "--variant": ["fast", "slow", ""], "--format": ["text", "json", "xml"],
    "--log": ["LOG"], "--json": None, "--quiet": None, "--show": None, "--help": None, "--all-variants": None,
    "--complete-lines": None, "--nope": None,
}
COMMANDS = ["validate", "play", "test", "check", "replay", "coverage", "bench", "nonsense", ""]
PLACES = ["small", "broken", "missing", "small/game.yaml", "/dev/null", ".", "yak.jsonl", "", "-", "small/scenarios"]


@st.composite
def command_line(draw, folder: Path):
    argv = [draw(st.sampled_from(COMMANDS))]
    if draw(st.integers(0, 9)):
        place = draw(st.sampled_from(PLACES))
        argv.append(str(folder / place) if place not in ("", "-", "/dev/null") else place)
    for _ in range(draw(st.integers(0, 4))):
        flag = draw(st.sampled_from(sorted(FLAGS)))
        values = FLAGS[flag]
        argv.append(flag)
        if values is not None:
            value = draw(st.sampled_from(values))
            argv.append(str(folder / "out.jsonl") if value == "LOG" else value)
    if argv[0] in ("bench", "check", "coverage") and "--games" not in argv:
        argv += ["--games", "1"]                  # one game per count: the flags are fuzzed, not the rules
    if argv[0] == "bench" and "--repeat" not in argv:
        argv += ["--repeat", "1"]
    return argv


def _fuzz_command_line(work, data):
    from interpreter.cli import main
    argv = data.draw(command_line(work))
    try:
        code, out = _quiet(main, argv)
    except SystemExit as exc:          # --help: argparse prints and exits 0
        assert exc.code in (0, None), argv
        return
    assert code in (0, 1, 2), f"{argv}: exit {code}\n{out[-2000:]}"
    assert "Traceback" not in out, f"{argv}\n{out[-2000:]}"


# --------------------------------------------------------------------------
# game logs

JUNK = ['{"seat": 0, "action": 1}', '{"action": null}', "{", "[]", '"x"', "null", '{"seat": true, "action": "a"}',
        '{"format": "regelwerk-log/1"}', '{"seat": 99, "action": "go"}', "\x00", "é" * 10, '{"action": "' + "a" * 300 + '"}',
        '{"seat": 0, "action": "take(k=1)"}', "  ", '{"rulebook": "/etc", "players": 2, "seed": 1}',
        '{"rulebook": "../../../../", "players": 1e400, "seed": -1}', '{"action": {"nested": [[[[]]]]}}']


@st.composite
def game_log(draw, folder: Path) -> str:
    game = draw(st.sampled_from(GAMES))
    lines = (folder / f"{game}.jsonl").read_text().splitlines()
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["drop", "double", "swap", "junk", "edit", "cut", "header"]))
        i = draw(st.integers(0, len(lines) - 1)) if lines else 0
        if not lines:
            lines = [draw(st.sampled_from(JUNK))]
        elif kind == "drop":
            del lines[i]
        elif kind == "double":
            lines.insert(i, lines[i])
        elif kind == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "junk":
            lines.insert(i, draw(st.sampled_from(JUNK)))
        elif kind == "edit":
            k = draw(st.integers(0, max(len(lines[i]) - 1, 0)))
            lines[i] = lines[i][:k] + draw(st.sampled_from(list('{}[]",:0 x\\') + ["\\u0000", "-1"])) + lines[i][k + 1:]
        elif kind == "header":
            try:
                head = json.loads(lines[0])
            except ValueError:
                continue
            if isinstance(head, dict):
                key = draw(st.sampled_from(["players", "seed", "options", "variants", "seats", "rulebook"]))
                head[key] = draw(st.sampled_from([0, -1, 10 ** 30, "x", None, [], {"a": 1}, {"bonus": [1]}, True]))
                lines[0] = json.dumps(head)
    text = "\n".join(lines)
    return text if draw(st.booleans()) else text + "\n"


def _fuzz_log(work, data):
    from interpreter.play.gamelog import LogProblem
    from interpreter.play.replay import LogProblems, replay_log
    text = data.draw(game_log(work))
    path = work / "fuzzed.jsonl"
    path.write_text(text, encoding="utf-8")
    complete = data.draw(st.booleans())
    try:
        done = replay_log(path, complete_lines=complete, warn=lambda p: None)
    except (LogProblem, LogProblems):
        return
    done.state.to_json()
    assert done.applied <= text.count("\n") + 1


# --------------------------------------------------------------------------
# scenario files

@lru_cache(maxsize=None)
def _names(game: str, seed: int):
    """A rulebook's names, component labels and first legal actions (made once per game and seed)."""
    rb = _load(RULES / game)
    g = rb.game
    state = rb.new_game(g.min_players, seed=seed)
    return (g, sorted(str(n) for n in set(g.variables) | set(g.zones)), sorted(str(z) for z in g.zones),
            sorted({str(c.label) for c in state.lay.components})[:30] or ["x"],
            [str(a) for a in state.legal_actions()])


@st.composite
def scenario(draw, game: str) -> str:
    g, names, zones, labels, legal = _names(game, draw(st.integers(0, 3)))
    ids = st.sampled_from(legal + ["nope", "", "x(", legal[0] + " ", legal[0].upper()])
    value = st.sampled_from([0, 1, -1, 10 ** 20, "x", [], None, True, [1, [2, [3]]], "count(bag)", {"a": 1}])
    out = {"scenario": draw(st.sampled_from(["s", "", "x" * 50, "\x1b]0;t\x07"])), "source": "fuzz",
           "players": draw(st.sampled_from([g.min_players, g.max_players, 0, 1, 99, "2"]))}
    if draw(st.booleans()):
        out["seed"] = draw(st.sampled_from([1, 2, -1, 10 ** 20, "x"]))
    if draw(st.booleans()):
        start = {}
        for key in draw(st.lists(st.sampled_from(["at", "player", "set", "zones", "draws", "locals"]), max_size=3)):
            if key == "at":
                start["at"] = draw(st.sampled_from(["main", "nope", "", "round"]))
            elif key == "player":
                start["player"] = draw(st.sampled_from([0, 1, 5, -1]))
            elif key == "set":
                start["set"] = {draw(st.sampled_from(names + ["nope", "x[1]"])): draw(value)}
            elif key == "zones":
                zone = draw(st.sampled_from(zones)) + draw(st.sampled_from(["", "[0]", "[*]", "[99]"]))
                start["zones"] = {zone: draw(st.sampled_from([[draw(st.sampled_from(labels))], [], {labels[0]: 2},
                                                              {labels[0]: 10 ** 9}, ["nope"]]))}
            elif key == "draws":
                start["draws"] = draw(st.lists(st.sampled_from(labels + [1, 6, -1, "nope"]), max_size=3))
            else:
                start["locals"] = {draw(st.sampled_from(["p", "i", "nope"])): draw(value)}
        out["start"] = start
    steps = []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["play", "play", "reject", "legal", "legal_includes", "current", "expect",
                                     "draws", "junk"]))
        if kind in ("play", "reject"):
            steps.append({kind: draw(ids)})
        elif kind in ("legal", "legal_includes"):
            steps.append({kind: draw(st.lists(ids, max_size=3))})
        elif kind == "current":
            steps.append({"current": draw(st.sampled_from([0, 1, 7, -1, "x"]))})
        elif kind == "expect":
            key = draw(st.sampled_from(names + ["terminal", "scores", "ranking", "current", "log", "1 // 0",
                                                "count(" + draw(st.sampled_from(zones)) + ")", "[[[1]]]", "x +"]))
            steps.append({"expect": {key: draw(value)}})
        elif kind == "draws":
            steps.append({"draws": draw(st.lists(st.sampled_from(labels + [1, 6, -1]), max_size=3))})
        else:
            steps.append(draw(st.sampled_from([{}, None, 5, "play", {"play": None, "expect": {}},
                                               {"note": "n", "play": legal[0], "current": 0}])))
    out["steps"] = steps
    if draw(st.booleans()):
        out["expect"] = {draw(st.sampled_from(names + ["terminal"])): draw(value)}
    import yaml
    return yaml.safe_dump(out, allow_unicode=True)


@pytest.fixture(scope="module")
def scenario_boxes():
    boxes = {}
    for game in GAMES:
        box = Path(tempfile.mkdtemp(prefix="rw-fuzz-scen-")) / game
        shutil.copytree(RULES / game, box, ignore=shutil.ignore_patterns("scenarios"))
        (box / "scenarios").mkdir()
        boxes[game] = box
    yield boxes
    for box in boxes.values():
        shutil.rmtree(box.parent, ignore_errors=True)


def _fuzz_scenario(scenario_boxes, data):
    from interpreter.tools.scenarios import run_scenarios
    game = data.draw(st.sampled_from(GAMES))
    box = scenario_boxes[game]
    file = box / "scenarios" / "fuzzed.yaml"
    file.write_text(data.draw(scenario(game)), encoding="utf-8")
    root = box.resolve()
    for result in run_scenarios([file]):
        for d in result.messages:
            path = Path(d.pos.file)
            path = (path if path.is_absolute() else Path.cwd() / path).resolve()
            assert path.is_relative_to(root), d.format(with_source=False)


# --------------------------------------------------------------------------
# values built at run time

VALUES = """regelwerk: 1
game: {name: Values, players: {min: 1, max: 1}}
variables:
  x: {type: any, init: 0}
  l: {type: list, init: []}
  n: 0
actions:
  wrap:   {do: [{repeat: 40, do: [{set: "x = [x]"}]}]}
  pair:   {do: [{repeat: 6, do: [{set: "x = [x, x]"}]}]}
  record: {do: [{set: "x = {a: x, b: [x, (x, 1)]}"}]}
  wide:   {params: {k: "[1, 10, 300, 2000]"}, do: [{set: "x = [x for i in 1..k]"}]}
  many:   {params: {k: "[10, 300, 3000]"}, do: [{set: "l = l + [1..k]"}]}
  nest_l: {do: [{set: "l = [l, l]"}]}
  mixed:  {do: [{set: "x = [l, x, {c: l}]"}]}
  peel:   {do: [{if: "x != 0 and count(x) > 0", then: [{set: "x = x[0]"}]}]}
  count:  {do: [{set: "n = count(distinct([x, x, l]))"}]}
  reset:  {do: [{set: "x = 0"}, {set: "l = []"}]}
flow:
  - while: "true"
    do:
      - decide: [wrap, pair, record, wide, many, nest_l, mixed, peel, count, reset]
        who: 0
end:
  score: "n"
"""


@pytest.fixture()
def values_book():
    """The rulebook above, under limits 5-250 times lower than the defaults (the same checks, at a size
    that lets 2,000 games run in a minute or two): depth 20, elements 5,000, work 200,000."""
    from interpreter.engine.run import limits
    before = {name: getattr(limits.LIMITS, name) for name in ("depth", "elements", "work")}
    limits.configure(depth=20, elements=5_000, work=200_000)
    folder = Path(tempfile.mkdtemp(prefix="rw-fuzz-values-"))
    (folder / "game.yaml").write_text(VALUES)
    try:
        rb = Rulebook.load(folder)
        yield rb, rb.new_game(1, seed=1)
    finally:
        limits.configure(**before)
        shutil.rmtree(folder, ignore_errors=True)


def _fuzz_values(values_book, data):
    from interpreter.engine.run.values import encode, format_value
    rb, fresh = values_book
    state = fresh.clone()
    for _ in range(data.draw(st.integers(1, 14))):
        legal = state.legal_actions()
        action = data.draw(st.sampled_from(legal))
        try:
            state.apply_action(action)
        except RuleRuntimeError as exc:
            assert exc.code in ("RW900", "RW910") and exc.pos.line > 0, exc
            assert "Recursion" not in exc.message, exc
            return
        except IllegalAction:
            raise
        for value in (state.v[rb.game.variables["x"].offset], state.v[rb.game.variables["l"].offset]):
            hash(value)
            if len(format_value(value)) > 100_000_000:
                raise AssertionError("formatting made more than 100 MB")
            json.dumps(encode(value))


# --------------------------------------------------------------------------
# the default run: a few of each

@QUICK
@given(data=st.data())
def test_command_lines_exit_0_1_or_2_without_traceback(work, data):
    _fuzz_command_line(work, data)


@QUICK
@given(data=st.data())
def test_mutated_game_logs_replay_or_end_in_log_problems(work, data):
    _fuzz_log(work, data)


@QUICK
@given(data=st.data())
def test_made_up_scenarios_are_reported_inside_the_folder(scenario_boxes, data):
    _fuzz_scenario(scenario_boxes, data)


@QUICK
@given(data=st.data())
def test_values_built_while_playing_stay_within_the_limits(values_book, data):
    _fuzz_values(values_book, data)


# --------------------------------------------------------------------------
# the slow suite: 2,000 of each

@pytest.mark.slow
@slow_settings()
@given(data=st.data())
def test_many_command_lines(work, data):
    _fuzz_command_line(work, data)


@pytest.mark.slow
@slow_settings()
@given(data=st.data())
def test_many_game_logs(work, data):
    _fuzz_log(work, data)


@pytest.mark.slow
@slow_settings()
@given(data=st.data())
def test_many_scenarios(scenario_boxes, data):
    _fuzz_scenario(scenario_boxes, data)


@pytest.mark.slow
@slow_settings()
@given(data=st.data())
def test_many_values(values_book, data):
    _fuzz_values(values_book, data)
