"""Choices in words: `display: say:` templates, their checks, and where the sentences appear."""
import re
import shutil

import pytest

from conftest import RULES, game_folders
from interpreter.ai.bots import make_bots
from interpreter.cli import main
from interpreter.game import Rulebook, check_rulebook
from interpreter.play.view import build_view
from interpreter.engine.display.say import Phrases, TemplateError, parse_template, split_id

GAMES = [p.name for p in game_folders()]


class _Game:
    """Just enough of a compiled rulebook for Phrases: one action with int parameters."""

    def __init__(self, say, params):
        from interpreter.game import types as T

        class P:
            def __init__(self, name, typ):
                self.name, self.type = name, typ

        class A:
            name = "market"
            pos = None
        A.params = [P(n, T.INT) for n in params]
        self.actions = {"market": A}
        self.inline_actions = {}
        self.display = {"say": {"market": say}}


def sentence(say, action_id, params=("milk", "meat", "bread")):
    return Phrases(_Game(say, params), ["Anna", "Ben"]).sentence(action_id, 0)


def test_templates_write_values_counts_optional_parts_and_lists():
    t = "Take [{milk} milk][{meat} meat][{bread} bread|no food]"
    assert sentence(t, "market(milk=1,meat=0,bread=2)") == "Take 1 milk and 2 bread"
    assert sentence(t, "market(milk=1,meat=3,bread=2)") == "Take 1 milk, 3 meat and 2 bread"
    assert sentence(t, "market(milk=0,meat=0,bread=0)") == "Take no food"
    assert sentence("{milk:stone}, {meat:child/children}, {bread:box}", "market(milk=1,meat=2,bread=3)") == \
        "1 stone, 2 children, 3 boxes"
    assert sentence("{player} takes {{{milk}}} [[sic]] a||b", "market(milk=1,meat=2,bread=3)") == \
        "Anna takes {1} [sic] a|b"
    assert sentence("Keep[ {milk}]", "market(…)") == "Keep …"        # a secret value stays secret


def test_template_errors_say_where():
    for text, offset in (("Take {milk", 5), ("a } b", 2), ("[x", 0), ("x]", 1), ("{1x}", 1), ("a|b", 1)):
        with pytest.raises(TemplateError) as exc:
            parse_template(text)
        assert exc.value.offset == offset, text


def test_split_id_reads_values_with_commas():
    assert split_id("pay(a=(1,2),b=x)", ["a", "b"]) == {"a": "(1,2)", "b": "x"}
    assert split_id("pay", []) == {}
    assert split_id("pay(c=1)", ["a"]) is None


def test_every_shipped_action_has_a_sentence_and_no_button_reads_as_pairs():
    for game in GAMES:
        rb = Rulebook.load(RULES / game)
        phrases = Phrases(rb.game, ["A", "B", "C", "D"])
        names = {a.name for a in list(rb.game.actions.values()) + list(rb.game.inline_actions.values())}
        assert all(phrases.has_say(n) for n in names), game
        st = rb.new_game(2, 5)
        bots = make_bots("random", st.lay.num_seats, 5)
        n = 0
        while not st.is_terminal() and n < 150:
            view = build_view(st, st.current_player())
            for g in view["actions"]:
                assert "_" not in g["title"]
                for o in g["options"]:
                    assert "=" not in o["say"] and "(" not in o["say"].split(" ")[0], (game, o["say"])
            st.apply_action(bots[st.current_player()].choose(st))
            n += 1


def test_the_same_options_keep_their_order_across_turns():
    """Yak's hand comes back in another order every day; the choices do not."""
    rb = Rulebook.load(RULES / "yak")
    st = rb.new_game(2, 11)
    bots = make_bots("random", st.lay.num_seats, 11)
    seen = {}
    while not st.is_terminal():
        view = build_view(st, st.current_player())
        says = [o["say"] for g in view["actions"] for o in g["options"]]
        key = frozenset(says)
        if key in seen:
            assert seen[key] == says
        seen[key] = says
        st.apply_action(bots[st.current_player()].choose(st))
    assert len(seen) > 10


def test_validate_locates_unknown_names_and_warns_drawn_rulebooks_without_sentences(tmp_path, capsys):
    book = tmp_path / "yak"
    shutil.copytree(RULES / "yak", book)
    d = book / "display.yaml"
    text = d.read_text()
    text = text.replace('choose: "Choose the {card} card"', 'choose: "Choose the {crad} card"')
    text = text.replace('    supply: "Supply: take your cart\'s {sort} to your tent"\n', "")
    text = text.replace('    keep: "Keep', '    kep: "Keep')
    d.write_text(text)
    code = main(["validate", str(book)])
    out = capsys.readouterr().out
    assert code == 1
    line = next(i for i, x in enumerate(text.splitlines(), 1) if "{crad}" in x)
    col = text.splitlines()[line - 1].index("crad") + 1
    assert f"display.yaml:{line}:{col}: error: say: of 'choose' names 'crad', which is no parameter" in out
    assert "say: names 'kep', which is no action [RW251]" in out
    assert re.search(r"actions\.yaml:\d+:\d+: warning: action 'supply' has no sentence in display: say:", out)
    assert re.search(r"warning: action 'keep' has no sentence", out)


def test_rulebooks_without_display_are_not_asked_for_sentences():
    """The warning is for rulebooks drawn for people (those with a display: section): the small
    rulebooks of the tests and the tutorial have none and stay at 0 warnings."""
    for game in GAMES:
        report, _ = check_rulebook(RULES / game)
        assert report.items == [], game
    report, _ = check_rulebook(RULES.parent / "tests" / "rulebooks" / "dice")
    assert not [d for d in report.items if d.code == "RW252"]


def test_the_story_tells_decisions_in_words(capsys):
    assert main(["play", str(RULES / "azul_summer_pavilion"), "--players", "2", "--seed", "7"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^Player [12]: Take all \w+ tiles from (factory \d|the centre)$", out, re.M)
    assert "take_factory(" not in out


def test_game_over_shows_the_score_parts_and_the_story_explains_them(capsys):
    from interpreter.play.view.compact import compact_screen
    from interpreter.play.view.terminal import view_renderable
    from rich.console import Console
    st = None
    for st in _played("azul_summer_pavilion", 7):
        pass
    view = build_view(st, None)
    parts = view["score_parts"]
    assert [n for n, _ in parts[0]] == ["complete stars", "number bonuses", "tiles left", "during play"]
    for s, row in enumerate(parts):
        assert sum(v for _, v in row) == view["scores"][s]        # the parts make up the score
    console = Console(width=120, record=True, color_system=None)
    console.print(view_renderable(view))
    text = console.export_text()
    assert "complete stars" in text and "tiles left" in text
    assert any("tiles left" in line.plain for line in compact_screen(view, 80, 24))
    assert main(["play", str(RULES / "azul_summer_pavilion"), "--players", "2", "--seed", "7"]) == 0
    out = capsys.readouterr().out
    assert "── final scoring ──" in out
    for s, row in enumerate(parts):
        detail = ", ".join(f"{n} {v:+d}" for n, v in row)
        assert f"Player {s + 1}: {detail} = {view['scores'][s]}" in out


def _played(game, seed):
    rb = Rulebook.load(RULES / game)
    st = rb.new_game(2, seed)
    bots = make_bots("random", st.lay.num_seats, seed)
    while not st.is_terminal():
        yield st
        st.apply_action(bots[st.current_player()].choose(st))
    yield st


def test_spaces_show_what_is_printed_on_them_and_titles_name_things_in_the_game_s_words():
    rb = Rulebook.load(RULES / "iquazu")
    st = rb.new_game(2, 3)
    view = build_view(st, 0)
    wall = next(f for f in view["shared"] if f["name"] == "wall")
    assert wall["title"] == "The waterfall (crevices)"
    symbols = view["symbols"]
    for r, row in zip(wall["rows"], wall["cells"]):
        for c, cell in zip(wall["columns"], row):
            colour = rb.evaluate(st, f"crevice_color({c}, {r})")
            assert cell["space"]["color"] == symbols[colour]["color"] and cell["space"]["name"] == colour
    frame = next(v for v in view["variables"] if v["name"] == "frame")
    assert frame["title"] == "Water frame at column"
    yak = build_view(Rulebook.load(RULES / "yak").new_game(2, 3), 0)
    tower = next(f for f in yak["players"][0]["families"] if f["name"] == "tower")
    assert tower["layout"] == "pyramid"


def test_a_space_function_that_reads_hidden_things_is_refused_and_never_drawn(tmp_path, capsys):
    book = tmp_path / "iquazu"
    shutil.copytree(RULES / "iquazu", book)
    d = book / "display.yaml"
    text = d.read_text().replace("wall: {color: crevice_color}", "wall: {color: crevice_color, text: peek}")
    text = text.replace('    wall: "The waterfall (crevices)"', '    wal: "The waterfall (crevices)"')
    text = text.replace("  layout:\n", "  layout:\n    hand: pyramid\n")      # display.yaml has a layout: already
    text += "functions:\n  peek:\n    params: {c: int, k: int}\n    value: \"count(deck) + c + k\"\n"
    d.write_text(text)
    assert main(["validate", str(book)]) == 1
    out = capsys.readouterr().out
    assert "display: spaces of wall: peek reads deck (through peek): a space shows only what everyone sees" \
        " [RW253]" in out
    assert "display: titles names 'wal', which is no zone family or variable [RW254]" in out
    assert "display: a pyramid needs a family with 2 indices besides the player" in out
    # loaded anyway (the semantic checks are validate's), the drawing leaves the function out
    st = Rulebook.load(book).new_game(2, 3)
    wall = next(f for f in build_view(st, 0)["shared"] if f["name"] == "wall")
    assert all("text" not in c["space"] and "color" in c["space"] for row in wall["cells"] for c in row)


def test_facts_show_each_player_s_cart(tmp_path, capsys):
    rb = Rulebook.load(RULES / "yak")
    st = rb.new_game(3, 1)
    view = build_view(st, 0)
    for p in view["players"]:
        fact = p["variables"][0]
        assert fact["title"] == "Cart in front"
        cart = rb.evaluate(st, f"my_cart({p['seat']})")
        # the cart by its name in the rulebook's words (display: symbols: no_milk: {name: no-milk})
        assert fact["value"] == rb.game.display["symbols"][cart]["name"]
    book = tmp_path / "yak"
    shutil.copytree(RULES / "yak", book)
    d = book / "display.yaml"
    d.write_text(d.read_text() + "    price: \"Price\"\n    held: \"Held\"\n")
    assert main(["validate", str(book)]) == 1
    out = capsys.readouterr().out
    assert "display: facts: price must take one parameter, a player (it takes 2) [RW253]" in out
