"""A rulebook function that only option enumerators call, with arguments from the enumerator's
own loops, keeps its results there for one listing, not in the state (probes.listing_calls):
the same options, the same games, the same errors, as with its results remembered."""
from __future__ import annotations

import pytest

from dsl.diagnostics import RuleRuntimeError
from interpreter.ai.bots import RandomBot
from interpreter.engine.compile import codegen
from interpreter.engine.compile.probes import listing_calls, loop_made
from interpreter.game import Rulebook

GAME = """\
regelwerk: 1
game: {name: Test, players: {min: 2, max: 4}}
variables: {x: 0}
functions:
  cost:
    params: {a: int, b: int}
    value: "12 // (a + b - (2 if x == 1 else 0)) + x + count([k for k in 1..a if k > 5])"
actions:
  buy:
    params:
      a: "1..3"
      b: "[b for b in 1..3 if cost(a, b) % 2 == 0]"
      c: "[cost(a, b)]"
    do:
%s
flow:
  - repeat: 6
    do:
      - decide: [buy]
        who: 0
end: {score: "x"}
"""

ONLY_OPTIONS = '      - set: "x += c % 7"'
ALSO_STEPS = '      - set: "x += c % 7 + cost(1, 2) - cost(1, 2)"'


def _options(fn) -> str:
    return fn.__doc__ or ""


def _play(rb, seed):
    st = rb.new_game(2, seed)
    bots = [RandomBot(seed, s) for s in range(2)]
    seen = []
    try:
        while not st.is_terminal():
            seen.append(st.legal_actions())
            st.apply_index(bots[st.current_player()].choose_index(st))
    except RuleRuntimeError as exc:
        return seen, (exc.message, exc.pos.line, exc.pos.col)
    return seen, st.scores()


def _load(rulebook, do, monkeypatch=None):
    if monkeypatch is None:
        return Rulebook.load(rulebook(GAME.replace("%s", do)))
    with monkeypatch.context() as m:
        m.setattr(codegen, "listing_calls", lambda lines, plain, varying, fixed=(): (lines, []))
        rb = Rulebook.load(rulebook(GAME.replace("%s", do)))
        rb.new_game(2, 1).legal_actions()         # the enumerator written now, without the change
        return rb


def _enumerator(rb) -> str:
    rb.new_game(2, 1).legal_actions()
    return _options(rb.game.actions["buy"].enumerate)


def test_a_function_only_options_call_is_called_there_without_remembering(rulebook, monkeypatch):
    rb = _load(rulebook, ONLY_OPTIONS)
    text = _enumerator(rb)
    assert "_plain(st, " in text and "_M[" not in text
    kept = _load(rulebook, ONLY_OPTIONS, monkeypatch)
    assert "_plain(" not in _enumerator(kept) and "_M[" in _enumerator(kept)
    failed = 0
    for seed in range(1, 9):
        got = _play(rb, seed)
        assert got == _play(kept, seed)
        failed += isinstance(got[1], tuple)
    # the first decision by hand: x = 0, cost(a, b) = 12 // (a + b); even for
    # (1,1) 6, (1,2) 4, (1,3) 3 no, (2,1) 4, (2,2) 3 no, (2,3) 2, (3,1) 3 no, (3,2) 2, (3,3) 2
    first = _play(rb, 1)[0][0]
    assert first == [f"buy(a={a},b={b},c={c})" for a, b, c in [(1, 1, 6), (1, 2, 4), (2, 1, 4), (2, 3, 2),
                                                             (3, 2, 2), (3, 3, 2)]]
    assert failed == 0


def test_a_function_also_called_by_steps_stays_remembered(rulebook):
    text = _enumerator(_load(rulebook, ALSO_STEPS))
    assert "_plain(" not in text and "_M[" in text


def test_a_failure_in_the_function_is_reported_where_it_was(rulebook, monkeypatch):
    # x == 1 and a + b == 2: a division by zero inside cost, in both variants
    do = '      - set: "x = 1"'
    rb, kept = _load(rulebook, do), _load(rulebook, do, monkeypatch)
    got, want = _play(rb, 1), _play(kept, 1)
    assert isinstance(got[1], tuple) and got == want
    assert got[1][1:] == (7, 16)          # the function's value


def test_listing_calls_rewrites_only_probes_of_loop_values_with_a_plain_variant():
    probe = ["for _v1 in xs:",
             "    _q2 = st.memo[0]",
             "    if _q2 is None or (_q2 := _q2.get((_l0, _v1,), _miss0)) is _miss0:",
             "        _q2 = _u3(st, _l0, _v1)",
             "    out.append(_q2)"]
    names = {"_u3": "_u3_plain"}
    assert listing_calls(probe, names.get, {"_v1"}) == (
        ["for _v1 in xs:",
         "    _q2k = (_l0, _v1,)",
         "    _q2 = _rw_here0.get(_q2k, _miss0)",
         "    if _q2 is _miss0:",
         "        _q2 = _rw_here0[_q2k] = _u3_plain(st, _l0, _v1)",
         "    out.append(_q2)"],
        ["_rw_here0 = {}"])
    assert listing_calls(probe, names.get, {"_v9"}) == (probe, [])          # not the loop's values
    assert listing_calls(probe, {}.get, {"_v1"}) == (probe, [])              # no plain variant


def test_a_listing_asks_the_function_once_per_arguments(rulebook):
    # c asks cost(b, a): every such pair was asked by b's domain before, in the same listing
    rb = Rulebook.load(rulebook(GAME.replace("%s", ONLY_OPTIONS).replace('c: "[cost(a, b)]"', 'c: "[cost(b, a)]"')))
    rb.new_game(2, 1).legal_actions()
    ns = rb.game.actions["buy"].enumerate.__globals__
    [name] = [k for k in ns if k.endswith("_plain")]
    plain, calls = ns[name], []
    ns[name] = lambda st, *args: calls.append(args) or plain(st, *args)
    assert len(rb.new_game(2, 1).legal_actions()) == 6
    assert sorted(calls) == [(a, b) for a in (1, 2, 3) for b in (1, 2, 3)]     # each once


def test_listing_calls_leaves_the_names_the_listing_keeps_out_of_its_keys():
    probe = ["for _v1 in xs:",
             "    _q2 = st.memo[0]",
             "    if _q2 is None or (_q2 := _q2.get(_l0)) is None or (_q2 := _q2.get(_v1, _miss0)) is _miss0:",
             "        _q2 = _u3(st, _l0, _v1)",
             "    out.append(_q2)"]
    names = {"_u3": "_u3_plain"}
    lines, inits = listing_calls(probe, names.get, {"_v1"}, frozenset({"_l0"}))
    assert lines == ["for _v1 in xs:",                 # one argument left: it is the key, no tuple
                     "    _q2 = _rw_here0.get(_v1, _miss0)",
                     "    if _q2 is _miss0:",
                     "        _q2 = _rw_here0[_v1] = _u3_plain(st, _l0, _v1)",
                     "    out.append(_q2)"]
    three = ["for _v1 in xs:",
             "    _q2 = st.memo[0]",
             "    if _q2 is None or (_q2 := _q2.get((_l0, _v1, _l4,), _miss0)) is _miss0:",
             "        _q2 = _u3(st, _l0, _v1, _l4)",
             "    out.append(_q2)"]
    lines, _ = listing_calls(three, names.get, {"_v1"}, frozenset({"_l0"}))
    assert lines[1] == "    _q2k = (_v1, _l4,)"
    assert lines[4] == "        _q2 = _rw_here0[_q2k] = _u3_plain(st, _l0, _v1, _l4)"
    lines, _ = listing_calls(three, names.get, {"_v1"}, frozenset({"_l9"}))     # a name the key does not read
    assert lines[1] == "    _q2k = (_l0, _v1, _l4,)"


SEATED = """\
regelwerk: 1
game: {name: Test, players: {min: 2, max: 4}}
variables: {x: {index: {p: players}, init: 0}}
functions:
  cost:
    params: {p: player, a: int, b: int}
    value: "12 // (a + b) + x[p] + p + count([k for k in 1..a if k > 5])"
actions:
  buy:
    params:
      a: "1..3"
      b: "[b for b in 1..3 if cost(player, a, b) % 2 == 0]"
      c: "[cost(player, b, a)]"
    do:
      - set: "x[player] += c % 5"
flow:
  - repeat: 5
    do:
      - for: "p in players"
        do:
          - decide: [buy]
            who: p
end: {score: "x[0]"}
"""


def test_a_listing_keys_its_own_results_without_the_deciding_seat(rulebook, monkeypatch):
    rb = Rulebook.load(rulebook(SEATED))
    text = _enumerator(rb)
    assert "_plain(st, " in text
    # cost(player, a, b) kept by (a, b) alone: the seat is the same for the whole listing
    assert [line.strip() for line in text.splitlines() if line.strip().startswith("_q") and line.strip().endswith(",)")] \
        and all("_l0" not in line for line in text.splitlines() if "k = (" in line)
    with monkeypatch.context() as m:
        real = codegen.listing_calls
        m.setattr(codegen, "listing_calls", lambda lines, plain, varying, fixed=(): real(lines, plain, varying))
        kept = Rulebook.load(rulebook(SEATED))
        kept.new_game(2, 1).legal_actions()
        assert any("_l0" in line for line in _enumerator(kept).splitlines() if "k = (" in line)
    for seed in range(1, 7):
        got = _play(rb, seed)
        assert not isinstance(got[1], tuple) and got == _play(kept, seed)
    # by hand, seat 0's first listing: x = 0, cost(0, a, b) = 12 // (a + b); even for
    # (1,1) 6, (1,2) 4, (2,1) 4, (2,3) 2, (3,2) 2, (3,3) 2; c = cost(0, b, a), the same
    assert _play(rb, 1)[0][0] == [f"buy(a={a},b={b},c={c})" for a, b, c in
                                  [(1, 1, 6), (1, 2, 4), (2, 1, 4), (2, 3, 2), (3, 2, 2), (3, 3, 2)]]


def test_a_part_computed_in_the_loop_varies_with_it():
    lines = ["_q1 = who + 1",                      # before every loop: kept
             "for _v1 in xs:",
             "    _q2 = _v1 * 2",                  # in the loop: made from its value
             "    for (_v3, _v4,) in ys:",
             "        \x04" "7\x02_q5 = _q2 + _v3",  # a guarded line, two loops deep
             "    _q6 = 0",
             "_q7 = _q6"]                          # after the loops: kept
    assert loop_made(lines) == {"_v1", "_v3", "_v4", "_q2", "_q5", "_q6"}


def test_a_function_asked_with_a_part_its_loop_computed_is_kept_for_the_listing(rulebook, monkeypatch):
    # b's domain asks cost(a, 4 - b): an argument computed from the loop's value, not the value
    text = GAME.replace("%s", ONLY_OPTIONS).replace("if cost(a, b) % 2 == 0", "if cost(a, 4 - b) % 2 == 0")
    rb = Rulebook.load(rulebook(text))
    with monkeypatch.context() as m:
        m.setattr(codegen, "listing_calls", lambda lines, plain, varying, fixed=(): (lines, []))
        kept = Rulebook.load(rulebook(text))
        kept.new_game(2, 1).legal_actions()
    assert "_plain(st, " in _enumerator(rb) and "_plain(" not in _enumerator(kept)
    for seed in range(1, 9):
        assert _play(rb, seed) == _play(kept, seed)
    # by hand, x = 0: b's domain keeps b where 12 // (a + 4 - b) is even — a=1: b=1 3 no,
    # b=2 4 yes, b=3 6 yes; a=2: b=1 2 yes, b=2 3 no, b=3 4 yes; a=3: b=1 2 yes, b=2 2 yes,
    # b=3 3 no; c = cost(a, b) = 12 // (a + b)
    first = _play(rb, 1)[0][0]
    assert first == [f"buy(a={a},b={b},c={12 // (a + b)})" for a, b in [(1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2)]]
