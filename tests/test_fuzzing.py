"""Fuzzing: whatever a user or an attacker feeds Regelwerk, no crash, no traceback.

Hypothesis drives four kinds of input, all in-process (an exception that
escapes is a crash and fails the test with its traceback):

* one-point mutations of every shipped rulebook file (a character deleted,
  inserted or replaced, a line deleted, doubled or swapped, a number
  changed) — `validate` must end in located diagnostics inside the folder;
* the same mutations of the shipped scenarios — `test` must report, not crash;
* expressions assembled from the grammar's tokens and a rulebook's names —
  parse, compile and evaluate raise only the located rulebook errors;
* action ids (mutated legal ids, random text and non-text values) —
  illegal ones are `IllegalAction` with the state unchanged.

The default run tries a few dozen inputs of each kind; the slow suite
(`pytest -m slow`, run by CI) tries more than 10,000 in all.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import RULES
from dsl.diagnostics import RulebookError, RuleRuntimeError
from interpreter.game import IllegalAction, Rulebook, check_rulebook
from interpreter.tools.scenarios import run_scenarios

GAMES = ["azul_summer_pavilion", "iquazu", "moonlight_market", "yak"]
QUICK = settings(max_examples=8, deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def slow_settings(n):
    return settings(max_examples=n, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                           HealthCheck.data_too_large])


# --------------------------------------------------------------------------
# mutations of text

CHARS = list(":-[]{}()\"',.#&*!|>%@`\t\n ") + ["\x00", "\x1b", "é", "0", "9", "-1", "999999", "not ", " and ",
                                                    " or ", "==", "..", "->", "{x}", "true", "null"]


@st.composite
def mutation(draw, text: str) -> str:
    lines = text.splitlines(keepends=True)
    kind = draw(st.sampled_from(["delete", "insert", "replace", "drop_line", "double_line", "swap_lines",
                                 "number"]))
    if kind in ("drop_line", "double_line", "swap_lines") and len(lines) > 1:
        i = draw(st.integers(0, len(lines) - 1))
        if kind == "drop_line":
            del lines[i]
        elif kind == "double_line":
            lines.insert(i, lines[i])
        else:
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        return "".join(lines)
    if kind == "number":
        digits = [i for i, c in enumerate(text) if c.isdigit()]
        if digits:
            i = draw(st.sampled_from(digits))
            return text[:i] + draw(st.sampled_from(["0", "7", "-3", "10**9", "99999999999"])) + text[i + 1:]
    i = draw(st.integers(0, max(len(text) - 1, 0)))
    if kind == "delete":
        n = draw(st.integers(1, 6))
        return text[:i] + text[i + n:]
    piece = draw(st.sampled_from(CHARS))
    if kind == "insert":
        return text[:i] + piece + text[i:]
    return text[:i] + piece + text[i + 1:]


def _files(folder: Path, pattern: str) -> list[Path]:
    return sorted(folder.glob(pattern))


class Sandbox:
    """A private copy of a shipped rulebook whose files are mutated one at a time."""

    def __init__(self, game: str):
        self.dir = Path(tempfile.mkdtemp(prefix="rw-fuzz-")) / game
        shutil.copytree(RULES / game, self.dir)

    def close(self):
        shutil.rmtree(self.dir.parent, ignore_errors=True)


@pytest.fixture(scope="module")
def sandboxes():
    boxes = {g: Sandbox(g) for g in GAMES}
    yield boxes
    for b in boxes.values():
        b.close()


def _assert_located_inside(diags, folder: Path):
    root = folder.resolve()
    for d in diags:
        path = Path(d.pos.file)
        path = (path if path.is_absolute() else Path.cwd() / path).resolve()
        assert path == root or path.is_relative_to(root), f"{d.format(with_source=False)} is outside {root}"
        if path.is_file():
            n = len(path.read_bytes().splitlines())
            assert 1 <= d.pos.line <= n + 1, d.format(with_source=False)
        assert d.pos.col >= 1, d.format(with_source=False)


def _fuzz_rulebook(sandboxes, data):
    game = data.draw(st.sampled_from(GAMES))
    box = sandboxes[game]
    file = data.draw(st.sampled_from(_files(box.dir, "*.yaml")))
    original = file.read_text(encoding="utf-8")
    mutated = data.draw(mutation(original))
    file.write_text(mutated, encoding="utf-8")
    try:
        report, _ = check_rulebook(box.dir)
        _assert_located_inside(report.items, box.dir)
    finally:
        file.write_text(original, encoding="utf-8")


def _fuzz_scenario(sandboxes, data):
    game = data.draw(st.sampled_from(GAMES))
    box = sandboxes[game]
    file = data.draw(st.sampled_from(_files(box.dir, "scenarios/*.yaml")))
    original = file.read_text(encoding="utf-8")
    file.write_text(data.draw(mutation(original)), encoding="utf-8")
    try:
        for result in run_scenarios([file]):
            _assert_located_inside(result.messages, box.dir)
    finally:
        file.write_text(original, encoding="utf-8")


# --------------------------------------------------------------------------
# expressions

_BOOKS: dict = {}


def _book(game):
    if game not in _BOOKS:
        rb = Rulebook.load(RULES / game)
        _BOOKS[game] = (rb, rb.new_game(rb.game.min_players, seed=5))
    return _BOOKS[game]


OPERATORS = ["+", "-", "*", "//", "%", "==", "!=", "<", "<=", ">", ">=", "and", "or", "not", "in", "if", "else",
             "for", "->", "..", ",", "(", ")", "[", "]", "{", "}", ".", ":", "=", "'a'", '"b"', "0", "1", "-1",
             "1000000", "10**12", "true", "false", "none", "x", "p", "player", "players", "_"]


def _expression(data, game) -> str:
    rb, _ = _book(game)
    g = rb.game
    names = sorted(set(g.variables) | set(g.zones) | set(g.functions) | set(g.constants) | set(g.tables)
                   | set(g.symbol_enum))
    from interpreter.engine.run.stdlib import BUILTINS
    tokens = st.sampled_from(OPERATORS + names + sorted(BUILTINS))
    return " ".join(data.draw(st.lists(tokens, min_size=1, max_size=14)))


def _fuzz_expression(data):
    game = data.draw(st.sampled_from(GAMES))
    rb, state = _book(game)
    text = _expression(data, game)
    before = state.to_json()
    try:
        rb.evaluate(state, text, player=0)
    except RulebookError as exc:
        assert exc.diagnostics, text
    except RuleRuntimeError as exc:
        assert exc.pos is not None, text
    assert state.to_json() == before, f"evaluating {text!r} changed the state"


# --------------------------------------------------------------------------
# action ids

def _fuzz_action_id(data):
    game = data.draw(st.sampled_from(GAMES))
    rb, fresh = _book(game)
    state = fresh.clone()
    legal = state.legal_actions()
    choice = data.draw(st.one_of(
        st.sampled_from(legal).flatmap(lambda a: mutation(a)),
        st.text(max_size=30),
        st.sampled_from([None, 0, 1.5, ["x"], {"a": 1}, ("t",), b"bytes", legal[0] + " "])))
    before = state.to_json()
    if isinstance(choice, str) and choice in legal:
        state.apply_action(choice)
        return
    with pytest.raises(IllegalAction):
        state.apply_action(choice)
    assert state.to_json() == before


# --------------------------------------------------------------------------
# the default run: a few of each

@QUICK
@given(data=st.data())
def test_mutated_rulebooks_end_in_located_diagnostics(sandboxes, data):
    _fuzz_rulebook(sandboxes, data)


@QUICK
@given(data=st.data())
def test_mutated_scenarios_are_reported_not_crashed(sandboxes, data):
    _fuzz_scenario(sandboxes, data)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(data=st.data())
def test_generated_expressions_raise_only_located_errors(data):
    _fuzz_expression(data)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(data=st.data())
def test_malformed_action_ids_are_illegal_and_change_nothing(data):
    _fuzz_action_id(data)


# --------------------------------------------------------------------------
# the slow suite: more than 10,000 inputs (1,200 + 600 + 6,000 + 3,000)

@pytest.mark.slow
@slow_settings(1200)
@given(data=st.data())
def test_many_mutated_rulebooks(sandboxes, data):
    _fuzz_rulebook(sandboxes, data)


@pytest.mark.slow
@slow_settings(600)
@given(data=st.data())
def test_many_mutated_scenarios(sandboxes, data):
    _fuzz_scenario(sandboxes, data)


@pytest.mark.slow
@slow_settings(6000)
@given(data=st.data())
def test_many_generated_expressions(data):
    _fuzz_expression(data)


@pytest.mark.slow
@slow_settings(3000)
@given(data=st.data())
def test_many_action_ids(data):
    _fuzz_action_id(data)

