"""docs/api.md: its example runs and prints what the page shows, every
member its tables name exists, and the game-log format it describes is the
one `play --log` writes and `replay` reads."""
import json
import re

from conftest import ROOT, RULES
from docrun import blocks, run_page

PAGE = ROOT / "docs" / "api.md"


def test_the_example_runs_as_shown():
    ran = run_page(PAGE, ROOT)
    assert ran["python"] >= 1


def _section(title: str) -> str:
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(title)
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None]


def _members(section: str) -> set:
    names = set()
    for row in section.splitlines():
        if not row.startswith("| `"):
            continue
        first_cell = row.split("|")[1]
        for m in re.finditer(r"`\.?([A-Za-z_]\w*)(?:\.(\w+))?", first_cell):
            names.add(m.group(2) or m.group(1))
    return names


def test_every_member_named_exists():
    from interpreter.game import Rulebook
    rb = Rulebook.load(RULES / "yak")
    st = rb.new_game(2, seed=1)
    rulebook_members = _members(_section("## `Rulebook`"))
    state_members = _members(_section("## `State`"))
    assert {"load", "new_game", "state_from_json", "evaluate", "info"} <= rulebook_members
    assert {"current_player", "legal_actions", "apply_action", "is_terminal", "scores", "ranking", "returns",
            "observation", "history_for", "clone", "to_json"} <= state_members
    for name in rulebook_members - {"Rulebook"}:
        assert hasattr(rb, name), f"docs/api.md names Rulebook.{name}, which does not exist"
    for name in state_members:
        assert hasattr(st, name), f"docs/api.md names State.{name}, which does not exist"


def test_the_exceptions_are_where_the_page_says():
    import dsl.diagnostics as diagnostics
    import interpreter.game as game
    import interpreter.engine.run.layout as layout
    import interpreter.engine.run.runtime as runtime
    assert game.RulebookError is diagnostics.RulebookError
    assert game.RuleRuntimeError is diagnostics.RuleRuntimeError
    assert game.IllegalAction is runtime.IllegalAction
    assert game.GameSetupError is layout.GameSetupError


def test_the_observation_keys_are_the_documented_ones():
    from interpreter.game import Rulebook
    st = Rulebook.load(RULES / "moonlight_market").new_game(3, seed=2)
    obs = st.observation(st.current_player())
    table = _section("## Observations")
    documented = {m.group(1) for m in re.finditer(r"^\| `(\w+)` \|", table, re.M)}
    assert set(obs) == documented
    json.dumps(obs)  # plain JSON


def test_the_game_log_is_as_described(tmp_path):
    from interpreter.cli import main
    from interpreter.play.gamelog import read_log
    from interpreter.play.replay import replay_log
    log = tmp_path / "game.jsonl"
    assert main(["play", str(RULES / "yak"), "--players", "2", "--seed", "3", "--quiet", "--log", str(log)]) == 0
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    head = lines[0]
    documented = next(b for b in blocks(PAGE) if b.kind == "text" and "regelwerk-log/1" in b.text)
    assert set(json.loads(documented.text.replace("…", "x"))) == set(head)
    assert head["format"] == "regelwerk-log/1" and head["players"] == 2 and head["seed"] == 3
    assert all(set(x) == {"seat", "action"} for x in lines[1:])
    parsed, problems = read_log(log)
    assert problems == [] and len(parsed.actions) == len(lines) - 1
    done = replay_log(log)
    assert done.applied == len(lines) - 1 and done.state.is_terminal() and done.rb.name == "Yak"
