"""A zone of a family with several index values read through nested ids
(``st.z[st.zn[family][a][b]]``, context.contents_of): the same zones as the ids by
tuple key, and a key that names no zone is still reported whole."""
import pytest

from dsl.diagnostics import RuleRuntimeError
from interpreter.ai.bots import RandomBot, play_out
from interpreter.game import Rulebook

from conftest import RULES, SHIPPED

HEAD = """\
regelwerk: 1
game: {name: T, players: {min: 2, max: 2}}
components:
  chip: {count: 4, home: "grid[1, 1]"}
zones:
  grid: {index: {r: "1..2", c: "1..3"}}
variables: {x: 0, y: 0}
"""


@pytest.mark.parametrize("game", SHIPPED)
def test_the_nested_ids_name_the_zones_the_tuple_keys_name(game):
    rb = Rulebook.load(RULES / game)
    st = rb.new_game(3 if game != "moonlight_market" else 2, 1, logging=False)
    lay = st.lay
    checked = 0
    for fid, ids in enumerate(lay.zid):
        for key, zid in ids.items():
            if isinstance(key, tuple) and len(key) > 1:
                at = lay.zidn[fid]
                for part in key:
                    at = at[part]
                assert at == zid, (game, fid, key)
                checked += 1
            else:
                assert lay.zidn[fid] is ids
    assert st.zn is lay.zidn
    assert checked > 0 or game == "moonlight_market"


def _fail(rulebook, body: str):
    rb = Rulebook.load(rulebook(HEAD + body))
    with pytest.raises(RuleRuntimeError) as info:
        st = rb.new_game(2, 1)
        play_out(st, [RandomBot(1, s) for s in range(2)])
    return info.value


@pytest.mark.parametrize("where", ["variables", "loop", "function", "numbers"])
def test_a_key_that_names_no_zone_is_reported_whole(rulebook, where):
    body = {
        # variables (st.v[...]) in a step
        "variables": """
flow:
  - set: "x = 2"
  - set: "y = 4"
  - set: "x = count(grid[x, y])"
end: {score: "x"}
""",
        # a comprehension's loop values (Python locals)
        "loop": """
flow:
  - set: "x = sum([count(grid[r, c]) for r in 1..2 for c in 2..4])"
end: {score: "x"}
""",
        # a function's parameters, the second past the family's range
        "function": """
functions:
  chips: {params: {r: int, c: int}, value: "count(grid[r, c]) + count(grid[c, r])"}
flow:
  - set: "x = chips(1, 3) + chips(2, 4)"
end: {score: "x"}
""",
        # numbers
        "numbers": """
flow:
  - set: "x = count(grid[2, 1]) + count(grid[2, 4])"
end: {score: "x"}
""",
    }[where]
    err = _fail(rulebook, body)
    wanted = {"variables": "grid[2, 4]", "loop": "grid[1, 4]", "function": "grid[3, 1]", "numbers": "grid[2, 4]"}
    assert err.message == f"there is no zone {wanted[where]}", err.message


def test_an_option_listing_reports_the_whole_key_too(rulebook):
    err = _fail(rulebook, """
flow:
  - {decide: [take], who: 0}
actions:
  take:
    params:
      c: "[k for k in 1..4 if not empty(grid[1, k]) or k == 4]"
      r: "[q for q in 1..2 if empty(grid[q, c])]"
    do: []
end: {score: "0"}
""")
    assert err.message == "there is no zone grid[1, 4]", err.message


def test_the_generated_code_reads_plain_keys_through_the_nested_ids(rulebook):
    rb = Rulebook.load(rulebook(HEAD + """
flow:
  - set: "x = sum([count(grid[r, c]) for r in 1..2 for c in 1..3])"
  - set: "y = count(grid[1, 1])"
end: {score: "x + y"}
"""))
    st = rb.new_game(2, 1)
    assert st.scores() == [4 + 4, 4 + 4]        # the four chips start on grid[1, 1]
    texts = "\n".join(str(getattr(code, "__doc__", "")) for proc in [rb.game.flow] for code in proc.entries or ())
    assert "zn[" in texts and "zi[" not in texts
