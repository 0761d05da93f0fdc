"""Run-time semantics of the language, each on a small rulebook of its own."""
import json

import pytest

from dsl.diagnostics import RuleRuntimeError
from interpreter.game import IllegalAction, Rulebook

HEAD = """\
regelwerk: 1
game: {name: T, players: {min: 2, max: 3}}
"""

CHIPS = """\
enums:
  color: [red, blue, fog]
components:
  chip:
    attributes: {color: color}
    items:
      - {for_each: {color: [red, blue]}, count: 3}
      - {color: fog, count: 3}
    label: "{color}"
    home: bag
zones:
  bag: {type: bag}
  out: {}
  hand: {index: {p: players}}
"""


def load(rulebook, body):
    return Rulebook.load(rulebook(HEAD + body))


def test_turns_skip_and_stop_when_everyone_is_skipped(rulebook):
    rb = load(rulebook, """
variables:
  passed: {index: {p: players}, init: false}
  turns_taken: 0
actions:
  go: {do: [{set: "turns_taken += 1"}]}
  stop: {do: [{set: "passed[player] = true"}]}
flow:
  - turns: 1
    skip: "passed[player]"
    do: [{decide: [go, stop]}]
end: {score: "turns_taken"}
""")
    st = rb.new_game(3, 1)
    assert st.current_player() == 1            # starts at the given seat
    st.apply_action("go")
    assert st.current_player() == 2
    st.apply_action("stop")
    st.apply_action("go")                      # seat 0
    assert st.current_player() == 1
    st.apply_action("stop")
    assert st.current_player() == 0            # seats 1 and 2 are skipped now
    st.apply_action("stop")
    assert st.is_terminal() and st.scores() == [2, 2, 2]


def test_turns_once_gives_every_seat_one_turn(rulebook):
    rb = load(rulebook, """
variables: {order: {init: [], type: "list of player"}}
actions:
  go: {do: [{set: "order = order + [player]"}]}
flow:
  - turns: 2
    once: true
    do: [{decide: [go]}]
end: {score: "0"}
""")
    st = rb.new_game(3, 1)
    for _ in range(3):
        st.apply_action("go")
    assert st.is_terminal()
    assert list(rb.evaluate(st, "order")) == [2, 0, 1]


def test_event_trigger_interrupts_and_recurses_then_defers(rulebook):
    # Every fog drawn is set aside and replaced by a new draw into the same
    # zone (which may bring fog again); the fog counter is deferred to the
    # end of the action, once.
    rb = load(rulebook, CHIPS + """
variables:
  tally: 0
  deferred_runs: 0
actions:
  draw3:
    do:
      - draw: 3
        from: bag
        to: "hand[player]"
triggers:
  fog_rises:
    on: drawn
    when: "event.from == bag and any(event.components, c -> c.color == fog)"
    do:
      - let: "fogs = filter(event.components, c -> c.color == fog)"
      - move: fogs
        to: out
      - draw: "count(fogs)"
        from: bag
        to: event.to
      - defer: count_fog
        until: action
        once: true
procedures:
  count_fog:
    - set: "tally = count(out)"
    - set: "deferred_runs += 1"
flow:
  - decide: [draw3]
    who: 0
end: {score: "tally"}
""")
    st = rb.new_game(2, 1)
    st.forced = ["red", "fog", "fog", "blue", "fog", "red"]
    # draw 3: red fog fog -> 2 fog out, 2 replacements: blue fog -> 1 fog out, 1 replacement: red
    st.apply_action("draw3")
    assert st.is_terminal()
    assert sorted(c.label for c in st.z[st.lay.zone_by_name("hand[0]").id]) == ["blue", "red", "red"]
    assert rb.evaluate(st, "tally") == 3       # all three fog, counted after the whole action
    assert rb.evaluate(st, "deferred_runs") == 1


def test_deferred_effects_wait_for_their_scope_through_clone_and_json(rulebook):
    # Each `note` defers `bump` to the end of the round (not once: every deferral runs).
    # The round holds two decisions, so after the first one a deferral is pending in the
    # open round; a clone and a JSON round trip taken then run it at the round's end too.
    # A second round defers nothing (its scope ends with nothing to run).
    rb = load(rulebook, """
variables:
  bumps: 0
  before_end: -1
  after_first: -1
  after_second: -1
actions:
  note:
    do:
      - defer: bump
        until: round
procedures:
  bump:
    - set: "bumps += 1"
flow:
  - round: true
    do:
      - decide: [note]
        who: 0
      - decide: [note]
        who: 0
      - set: "before_end = bumps"
  - set: "after_first = bumps"
  - round: true
    do:
      - set: "bumps += 10"
  - set: "after_second = bumps"
end: {score: "bumps"}
""")
    st = rb.new_game(2, 0)
    st.apply_action("note")
    # only rounds are deferred to: the end of the action's own scope sets nothing off, so the
    # action runs as one Python call (flowcode.direct_function), not as a frame
    assert rb.game.defer_targets == {"round"} and rb.game.actions["note"].proc.direct
    ways = [st, st.clone(), rb.state_from_json(json.loads(json.dumps(st.to_json())))]
    for s in ways:
        s.apply_action("note")
        assert s.is_terminal()
        # nothing ran before the round ended; both deferrals at its end; the second round adds 10
        assert [rb.evaluate(s, v) for v in ("before_end", "after_first", "after_second")] == [0, 2, 12]


def test_a_move_of_a_list_moves_its_components_and_of_none_is_a_located_error(rulebook):
    # A list's value (a tuple) is moved as it is; a value that is not a list (none) goes the
    # general way and fails there, located at the move.  The bag holds 3 red and 3 blue chips (no
    # fog here): the first `go` moves the 3 red ones (filter), then the 3 blue ones left (the
    # comprehension); the second moves no red chip, then none.
    text = CHIPS.replace("- {color: fog, count: 3}", "") + """
variables:
  give: true
actions:
  go:
    do:
      - move: "filter(bag, c -> c.color == red)"
        to: out
      - move: "[c for c in bag] if give else none"
        to: out
flow:
  - decide: [go]
    who: 0
  - set: "give = false"
  - decide: [go]
    who: 0
end: {score: "count(out)"}
"""
    rb = load(rulebook, text)
    st = rb.new_game(2, 0)
    st.apply_action("go")
    assert sorted(c.label for c in st.z[st.lay.zone_by_name("out").id]) == ["blue"] * 3 + ["red"] * 3
    with pytest.raises(RuleRuntimeError) as err:
        st.apply_action("go")
    line = (HEAD + text).splitlines().index('      - move: "[c for c in bag] if give else none"') + 1
    assert "nothing to move (none)" in str(err.value) and err.value.pos.line == line


def test_condition_trigger_fires_when_true_and_cascades(rulebook):
    # "when the current column is full, score it and move on": columns 1 and 2
    # are full at once, so one fill scores both.
    rb = load(rulebook, """
variables:
  filled: {index: {c: "1..3"}, init: 0}
  column: 1
  scored: {init: [], type: "list of int"}
actions:
  fill:
    params: {c: "1..3"}
    do: [{set: "filled[c] += 1"}]
triggers:
  column_full:
    when: "column <= 3 and filled[column] >= 2"
    do:
      - set: "scored = scored + [column]"
      - set: "column += 1"
flow:
  - while: "column <= 3"
    do: [{decide: [fill], who: 0}]
end: {score: "count(scored)"}
""")
    st = rb.new_game(2, 1)
    st.apply_action("fill(c=2)")
    st.apply_action("fill(c=2)")
    assert list(rb.evaluate(st, "scored")) == []       # column 1 is not full yet
    st.apply_action("fill(c=1)")
    st.apply_action("fill(c=1)")
    assert list(rb.evaluate(st, "scored")) == [1, 2]   # column 2 was already full: scored at once
    assert rb.evaluate(st, "column") == 3


def test_decide_otherwise_and_inline_actions_see_enclosing_locals(rulebook):
    rb = load(rulebook, """
variables: {got: 0, none_left: false}
flow:
  - let: "limit = 2"
  - decide:
      - name: pick
        params: {n: "1..limit"}
        do: [{set: "got = n * 10 + limit"}]
    who: 1
  - decide:
      - name: never
        params: {n: "[]"}
        do: []
    who: 1
    otherwise: [{set: "none_left = true"}]
end: {score: "got"}
""")
    st = rb.new_game(2, 1)
    assert st.legal_actions() == ["pick(n=1)", "pick(n=2)"]
    st.apply_action("pick(n=2)")
    assert st.is_terminal()
    assert rb.evaluate(st, "got") == 22 and rb.evaluate(st, "none_left") is True


def test_no_legal_action_without_otherwise_is_a_located_error(rulebook):
    rb = load(rulebook, """
flow:
  - decide:
      - name: never
        params: {n: "[]"}
        do: []
    who: 0
end: {score: "0"}
""")
    with pytest.raises(RuleRuntimeError) as info:
        rb.new_game(2, 1)
    assert "no legal action" in info.value.message
    text = (rb.path / "game.yaml").read_text().splitlines()
    assert text[info.value.pos.line - 1].strip().startswith("- decide:")


def test_illegal_action_leaves_the_state_unchanged(rulebook):
    rb = load(rulebook, """
variables: {x: 0}
actions:
  inc: {params: {n: "1..2"}, do: [{set: "x += n"}]}
flow: [{decide: [inc], who: 0}]
end: {score: "x"}
""")
    st = rb.new_game(2, 1)
    before = st.to_json()
    with pytest.raises(IllegalAction):
        st.apply_action("inc(n=3)")
    assert st.to_json() == before


def test_variables_are_clamped(rulebook):
    rb = load(rulebook, """
variables: {score: {index: {p: players}, init: 5, min: 1, max: 9}}
flow:
  - set: "score[0] -= 10"
  - set: "score[1] += 10"
end: {score: "score[p]"}
""")
    st = rb.new_game(2, 1)
    assert st.scores() == [1, 9]


def test_capacity_and_holds_are_enforced_with_the_rule_located(rulebook):
    rb = load(rulebook, CHIPS.replace("out: {}", "out: {capacity: 1}") + """
flow:
  - move: "take(bag, 2)"
    to: out
end: {score: "0"}
""")
    with pytest.raises(RuleRuntimeError) as info:
        rb.new_game(2, 1)
    assert "out is full" in info.value.message and info.value.pos.line > 1


def test_draw_refills_from_the_named_zone_and_can_fall_short(rulebook):
    rb = load(rulebook, CHIPS.replace("bag: {type: bag}", "bag: {type: bag, refill: {from: out}}") + """
variables: {short: false, got: 0}
triggers:
  note:
    on: drawn
    do: [{set: "short = event.short"}]
flow:
  - move: "take(bag, 7)"
    to: out
  - draw: 3
    from: bag
    to: "hand[0]"
    as: first
  - set: "got = count(first)"
  - move: "hand[0]"
    to: box
  - draw: 5
    from: bag
    to: "hand[1]"
end: {score: "count(hand[p])"}
""")
    st = rb.new_game(2, 1)
    # 9 chips: 7 to out, 2 left; drawing 3 takes the 2, then refills from out (7) and takes 1 more
    assert rb.evaluate(st, "got") == 3
    # 3 went to the box; 6 remain in the bag; drawing 5 is not short
    assert st.scores() == [0, 5] and rb.evaluate(st, "short") is False


def test_end_game_stops_play_and_runs_the_end_scoring(rulebook):
    rb = load(rulebook, """
variables: {x: 0}
flow:
  - set: "x = 1"
  - end_game: "enough"
  - set: "x = 100"
end:
  scoring: [{set: "x += 1"}]
  score: "x"
""")
    st = rb.new_game(2, 1)
    assert st.is_terminal() and st.scores() == [2, 2]
    assert "game ends: enough" in st.log


def test_an_endless_loop_is_a_located_error(rulebook):
    rb = load(rulebook, """
variables: {x: 0}
flow:
  - while: "true"
    do: [{set: "x += 1"}]
end: {score: "x"}
""")
    with pytest.raises(RuleRuntimeError) as info:
        rb.new_game(2, 1)
    assert "without reaching a decision" in info.value.message


def test_an_automaton_never_decides(rulebook):
    rb = load(rulebook, """
seats: {automata: 1}
actions: {go: {do: []}}
flow:
  - turns: 0
    once: true
    do: [{decide: [go]}]
end: {score: "0"}
""")
    st = rb.new_game(2, 1)
    st.apply_action("go")
    with pytest.raises(RuleRuntimeError) as info:
        st.apply_action("go")
    assert "automaton" in info.value.message


def test_clone_is_independent_and_serialisation_round_trips(rulebook):
    rb = load(rulebook, CHIPS + """
variables: {n: 0}
actions:
  take:
    params: {c: "distinct([x.color for x in bag])"}
    do:
      - move: "first(bag, x -> x.color == c)"
        to: "hand[player]"
      - set: "n += 1"
flow:
  - turns: 0
    while: "n < 6"
    do: [{decide: [take]}]
end: {score: "count(hand[p])"}
""")
    st = rb.new_game(2, 7)
    st.apply_action(st.legal_actions()[0])
    copy = st.clone()
    data = st.to_json()
    st.apply_action(st.legal_actions()[-1])
    assert copy.history != st.history               # the clone did not move
    restored = rb.state_from_json(data)
    assert restored.to_json() == copy.to_json()
    restored.apply_action(restored.legal_actions()[-1])
    assert restored.to_json()["zones"] == st.to_json()["zones"]


def test_observation_hides_what_a_seat_may_not_see(rulebook):
    rb = load(rulebook, CHIPS.replace("hand: {index: {p: players}}",
                                      'hand: {index: {p: players}, visible: "viewer == p"}') + """
variables:
  secret: {index: {p: players}, init: 3, visible: "viewer == p"}
flow:
  - draw: 2
    from: bag
    to: "hand[0]"
  - decide: [{name: go, do: []}]
    who: 1
end: {score: "0"}
""")
    st = rb.new_game(2, 1)
    mine, theirs = st.observation(0), st.observation(1)
    assert len(mine["zones"]["hand[0]"]) == 2
    assert theirs["zones"]["hand[0]"] == {"count": 2}
    assert mine["variables"]["secret"] == {"0": 3}
    assert "legal_actions" in theirs["decision"] and "legal_actions" not in mine["decision"]


def test_random_step_uses_the_game_generator(rulebook):
    rb = load(rulebook, """
enums: {color: [red, blue, green, black]}
variables: {removed: {type: color, init: red}}
setup:
  - random: "removed in color"
flow: []
end: {score: "0"}
""")
    picks = {rb.new_game(2, seed).v[0] for seed in range(1, 30)}
    assert picks == {"red", "blue", "green", "black"}             # every colour comes up
    assert rb.new_game(2, 5).v[0] == rb.new_game(2, 5).v[0]       # and the seed decides


def test_index_domains_may_depend_on_earlier_indices(rulebook):
    rb = load(rulebook, """
zones:
  tri: {index: {r: "1..3", c: "1..4 - r"}}
flow: []
end: {score: "count([z for z in [tri[1, 3], tri[3, 1]] if empty(z)])"}
""")
    st = rb.new_game(2, 1)
    names = [z.name for z in st.lay.zones if z.family == "tri"]
    assert names == ["tri[1, 1]", "tri[1, 2]", "tri[1, 3]", "tri[2, 1]", "tri[2, 2]", "tri[3, 1]"]
    assert st.scores() == [2, 2]


def test_a_home_may_be_a_zone_of_a_family_chosen_by_an_attribute(rulebook):
    # each seat's cards start in that seat's own pile: home: "pile[owner]"
    rb = load(rulebook, """
components:
  card:
    attributes: {owner: player, value: int}
    items:
      - {for_each: {owner: players, value: "1..3"}, count: 1}
    label: "{value}@{owner}"
    home: "pile[owner]"
zones:
  pile: {index: {p: players}, type: deck}
flow: []
end: {score: "sum(pile[p], c -> c.value * (1 if c.owner == p else 100))"}
""")
    st = rb.new_game(3, 1)
    assert st.scores() == [6, 6, 6]               # 1 + 2 + 3, every card with its owner


def test_a_variable_holding_a_list_can_be_indexed(rulebook):
    rb = load(rulebook, """
variables:
  order: {type: "list of int", init: [30, 10, 20]}
  picked: 0
flow:
  - set: "picked = order[1] + order[index_of(order, 20)]"
end: {score: "picked"}
""")
    assert rb.new_game(2, 1).scores() == [30, 30]     # 10 + 20


#: each seat takes a chip from the bag four times
TAKE_FOUR = """
actions:
  take:
    params: {c: "bag"}
    do:
      - move: c
        to: "hand[player]"
flow:
  - repeat: 4
    do: [{decide: [take], who: 0}, {decide: [take], who: 1}]
"""


def test_choosing_by_index_is_choosing_by_id_without_writing_ids(rulebook):
    """apply_index(i) is apply_action(legal_actions()[i]); interchangeable components
    (one label) give one option, as their ids are one id."""
    rb = load(rulebook, CHIPS + TAKE_FOUR + """end: {score: "count(hand[p], c -> c.color == red)"}
""")
    by_id, by_index = rb.new_game(2, 5), rb.new_game(2, 5)
    assert sorted(by_id.legal_actions()) == ["take(c=blue)", "take(c=fog)", "take(c=red)"]   # 9 chips, 3 labels
    k = 0
    while not by_id.is_terminal():
        legal = by_id.legal_actions()
        i = k % len(legal)
        assert list(by_index.legal_action_indices()) == list(range(len(legal)))
        by_id.apply_action(legal[i])
        by_index.apply_index(i)
        k += 1
    assert by_index.history == by_id.history and by_index.scores() == by_id.scores()
    assert by_index.is_terminal() and list(by_index.legal_action_indices()) == []
    fresh = rb.new_game(2, 5)
    before = fresh.to_json()
    for bad in (3, -1, "0", 1.0):
        with pytest.raises(IllegalAction):
            fresh.apply_index(bad)
    assert fresh.to_json() == before



@pytest.mark.parametrize("game", ["yak", "moonlight_market", "azul_summer_pavilion", "iquazu"])
def test_a_playout_by_counts_inside_the_state_is_the_playout_by_index(game):
    """play_out with bots that choose by the number of legal actions alone (RandomBot,
    FirstBot: pick_index) runs inside the state (State.play_by_counts): the same draws of each
    bot's generator, so the same game as choosing by index one decision at a time."""
    from conftest import RULES
    from interpreter.ai.bots import FirstBot, RandomBot, play_out

    class ByIndexOnly:              # the same bot without pick_index: play_out's loop
        def __init__(self, bot):
            self.choose_index = bot.choose_index

    rb = Rulebook.load(RULES / game)
    for seed in (1, 2):
        inside, outside = rb.new_game(3 if game != "azul_summer_pavilion" else 4, seed), None
        outside = rb.new_game(len(inside.lay.seats), seed)
        n = len(inside.lay.seats)
        kinds = [RandomBot if (s + seed) % 3 else FirstBot for s in range(n)] if seed == 2 else [RandomBot] * n
        made = play_out(inside, [kind(seed, s) for s, kind in enumerate(kinds)])
        assert made == play_out(outside, [ByIndexOnly(kind(seed, s)) for s, kind in enumerate(kinds)])
        assert inside.is_terminal() and inside.history == outside.history
        assert inside.scores() == outside.scores() and made == len(inside.history)


def test_a_playout_by_counts_refuses_a_pick_out_of_range_and_stops_after_its_limit(rulebook):
    rb = load(rulebook, CHIPS + TAKE_FOUR + """end: {score: "0"}
""")
    st = rb.new_game(2, 5)
    with pytest.raises(IllegalAction, match="not the index of a legal action"):
        st.play_by_counts([lambda n: n, lambda n: 0])
    assert len(st.history) == 0
    with pytest.raises(RuntimeError, match="no end after 3 decisions"):
        st.play_by_counts([lambda n: 0, lambda n: n - 1], max_decisions=3)
    assert len(st.history) == 3
    assert st.play_by_counts([lambda n: 0, lambda n: 0]) == 5 and st.is_terminal()


def test_moving_one_component_checks_and_reports_like_moving_many(rulebook):
    # one component at a time (State.move_component): bottom puts it first; a component
    # already in the zone stays where it is, and the `moved` event names no component
    rb = load(rulebook, CHIPS.replace("out: {}", "out: {capacity: 2}") + """
variables: {events: 0, moved: 0, last_from_out: false}
triggers:
  seen:
    on: moved
    do:
      - set: "events += 1"
      - set: "moved += count(event.components)"
      - set: "last_from_out = event.from == out"
flow:
  - move: "first(bag, c -> c.color == red)"
    to: out
  - move: "first(bag, c -> c.color == blue)"
    to: out
    bottom: true
  - move: "top(out)"
    to: out
end: {score: "0"}
""")
    st = rb.new_game(2, 1)
    assert [c.label for c in st.z[st.lay.zone_by_name("out").id]] == ["blue", "red"]
    # three moves, three events; two components moved; the last moved nothing, from out itself
    assert [rb.evaluate(st, e) for e in ("events", "moved", "last_from_out")] == [3, 2, True]
    full = load(rulebook, CHIPS.replace("out: {}", "out: {capacity: 2}") + """
flow:
  - move: "take(bag, 2)"
    to: out
  - move: "first(bag)"
    to: out
end: {score: "0"}
""")
    with pytest.raises(RuleRuntimeError) as info:
        full.new_game(2, 1)
    assert info.value.message == "out is full: it holds 2 of 2 and cannot take 1 more"
    # the body opens with an empty line, then flow:, the first move (2 lines), the second move
    assert info.value.pos.line == HEAD.count("\n") + CHIPS.count("\n") + 5


def test_moving_a_whole_zone_is_moving_its_components_in_order(rulebook):
    # `move: ZONE` (State.move_zone) is the move of the zone's contents: onto the top in their
    # order, onto the bottom one at a time (so the last one lowest), one `moved` event naming
    # them all and where they came from; capacity checked for them all before anything moves
    rb = load(rulebook, CHIPS + """
variables: {events: 0, moved: 0, from_hand: false}
triggers:
  seen:
    on: moved
    do:
      - set: "events += 1"
      - set: "moved += count(event.components)"
      - set: "from_hand = event.from == hand[0]"
flow:
  - move: "filter(bag, c -> c.color == red)"
    to: "hand[0]"
  - move: "first(bag, c -> c.color == blue)"
    to: out
  - move: "hand[0]"
    to: out
  - move: "first(bag, c -> c.color == fog)"
    to: "hand[1]"
  - move: out
    to: "hand[1]"
    bottom: true
  - move: "hand[0]"
    to: out
end: {score: "0"}
""")
    st = rb.new_game(2, 1)
    labels = lambda name: [c.label for c in st.z[st.lay.zone_by_name(name).id]]  # noqa: E731
    # out held blue, red, red, red; onto the bottom of hand[1] one at a time: red, red, red, blue, fog
    assert labels("hand[1]") == ["red", "red", "red", "blue", "fog"]
    assert labels("out") == [] and labels("hand[0]") == []
    # events: 3 reds, blue, 3 reds from hand[0], fog, 4 from out; the empty hand[0] moves nothing
    assert [rb.evaluate(st, e) for e in ("events", "moved", "from_hand")] == [5, 12, False]
    assert all(st.lay.zones[st.where[c.id]].name == "hand[1]" for c in st.z[st.lay.zone_by_name("hand[1]").id])
    full = load(rulebook, CHIPS.replace("out: {}", "out: {capacity: 2}") + """
flow:
  - move: "take(bag, 3)"
    to: "hand[0]"
  - move: "hand[0]"
    to: out
end: {score: "0"}
""")
    with pytest.raises(RuleRuntimeError) as info:
        full.new_game(2, 1)
    assert info.value.message == "out is full: it holds 0 of 2 and cannot take 3 more"


def test_a_condition_trigger_is_looked_at_after_changes_of_what_it_reads_only(rulebook):
    # the condition reads `out` through a function and the variable `done`: a move into the
    # hands or a change of `ticks` cannot make it true, so they do not look at it (dependencies.
    # plan_conditions); a move into `out` does, and the trigger fires at the second one
    rb = load(rulebook, CHIPS + """
variables: {done: false, ticks: 0, fired_at: 0}
functions:
  outs: {value: "count(out)"}
actions:
  to_out: {do: [{move: "first(bag)", to: out}]}
  to_hand: {do: [{move: "first(bag)", to: "hand[player]"}]}
  tick: {do: [{set: "ticks += 1"}]}
triggers:
  two_out:
    when: "outs() >= 2 and not done"
    do:
      - set: "done = true"
      - set: "fired_at = ticks"
flow:
  - while: "ticks < 5"
    do: [{decide: [to_out, to_hand, tick], who: 0}]
end: {score: "fired_at"}
""")
    st = rb.new_game(2, 1)
    assert st.game.condition_reads == frozenset({"out", "done"})
    for action in ["to_hand", "tick", "to_out", "tick", "to_hand"]:
        st.apply_action(action)
    assert rb.evaluate(st, "done") is False
    st.apply_action("to_out")
    assert rb.evaluate(st, "done") is True
    assert rb.evaluate(st, "fired_at") == 2


def test_a_condition_on_the_seat_that_acts_is_looked_at_after_every_change(rulebook):
    # `player` is the seat of the frame that runs: no change of state names it, so a change of
    # anything (here `other`, which the condition does not read) looks at the condition
    rb = load(rulebook, """
variables: {armed: false, other: 0, seen_by: -1}
actions:
  arm: {do: [{set: "armed = true"}]}
  poke: {do: [{set: "other += 1"}]}
triggers:
  second_seat:
    when: "armed and player == 1 and seen_by < 0"
    do: [{set: "seen_by = player"}]
flow:
  - decide: [arm]
    who: 0
  - decide: [poke]
    who: 1
end: {score: "seen_by"}
""")
    st = rb.new_game(2, 1)
    assert st.game.condition_reads is None
    st.apply_action("arm")
    assert rb.evaluate(st, "seen_by") == -1      # seat 0 armed it: not yet
    st.apply_action("poke")
    assert rb.evaluate(st, "seen_by") == 1
