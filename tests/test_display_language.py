"""The display language (issue 30): component looks, picks (a click on a component chooses),
seat colours, and the story's round headers where the round begins.  Cheap: a few states per game."""
import shutil

from conftest import ROOT, RULES
from interpreter.ai.bots import make_bots
from interpreter.cli import main
from interpreter.game import Rulebook
from interpreter.play.narrate import Narrator
from interpreter.play.view import build_view


def _cells(view):
    for fam in list(view["shared"]) + [f for p in view["players"] for f in p["families"]]:
        if fam["shape"] == "single":
            yield fam["zone"]
        elif fam["shape"] == "grid":
            yield from (c for row in fam["cells"] for c in row if c is not None)
        else:
            yield from fam["zones"]


def test_a_pick_makes_components_in_a_zone_choose_by_their_attributes():
    st = Rulebook.load(RULES / "azul_summer_pavilion").new_game(2, 1)
    view = build_view(st, st.current_player())
    contents = {c["name"]: [x["label"] for x in c["components"]] for c in _cells(view)}
    takes = [o for g in view["actions"] if g["action"] == "take_factory" for o in g["options"]]
    assert takes
    for o in takes:       # display.yaml: take_factory: {zone: factory, index: [factory_no], match: {color: color}}
        zone = f"factory[{o['params']['factory_no']}]"
        assert o["pieces"] == [[zone, o["params"]["color"]]] and o["params"]["color"] in contents[zone]
    # nobody else's zone is a piece, and an action without a pick has none
    assert all(not o["pieces"] for g in view["actions"] if g["action"] not in ("take_factory", "take_centre")
               for o in g["options"])


def test_a_card_in_hand_bids_it_and_cards_read_as_cards():
    rb = Rulebook.load(RULES / "moonlight_market")
    st = rb.new_game(2, 1)
    seat = st.current_player()
    view = build_view(st, seat)
    hand = next(c for c in _cells(view) if c["name"] == f"hand[{seat}]")
    bids = [o for g in view["actions"] if g["action"] == "bid" for o in g["options"]]
    for o in bids:        # pick: bid: hand[player], value == card; the card's label is "<value>@<owner>"
        assert o["pieces"] == [[f"hand[{seat}]", f"{o['params']['card']}@{seat}"]]
    card = hand["components"][0]
    # display.yaml components: card: {color: owner, text: "{value}", name: "card {value}", shape: card}
    assert card["face"] == card["label"].split("@")[0] and card["shape"] == "card"
    assert card["name"] == f"card {card['face']}" and card["color"] == view["seat_colors"][seat]
    assert view["seat_colors"][:2] == ["#b03a2e", "#1f618d"]
    # a two-gem link: both colours, its number, its name in sentences (not the label red-white4)
    labels = {}
    for c in _cells(build_view(st, None)):
        for x in c["components"]:
            labels[x["label"]] = x
    pair = next((x for lbl, x in labels.items() if "-" in lbl), None)
    if pair is not None:
        a, _, rest = pair["label"].partition("-")
        assert len(pair["colors"]) == 2 and pair["face"] == "".join(ch for ch in rest if ch.isdigit())
        assert pair["name"] == f"{a}-{rest.rstrip('0123456789')} {pair['face']}"
    from interpreter.play.view.model import maker_for
    phrases = maker_for(st).phrases
    assert phrases.sentence("attach(tile=red-white4,gem=red)", 0) == "Attach red-white 4 to your red chain"


def test_round_headers_stand_before_the_lines_of_their_round():
    # Yak: the noon phase begins by revealing the chosen cards ("day 1: Player 1 reveals build"):
    # that line belongs under "── day 1 · phase noon ──", not above it
    rb = Rulebook.load(RULES / "yak")
    st = rb.new_game(2, 1)
    bots = make_bots("random", st.lay.num_seats, 1)
    n = Narrator(st)
    story = []
    while not st.is_terminal() and len(story) < 30:
        story += n.lines_before(st)
        story.append(n.decision(st.current_player(), "x", everyone=True))
        st.apply_action(bots[st.current_player()].choose(st))
        story += n.lines_after(st)
    noon = story.index("── day 1 · phase noon ──")
    reveal = next(i for i, x in enumerate(story) if x.startswith("  day 1: ") and "reveals" in x)
    assert noon < reveal
    assert story[noon + 1].startswith("  day 1: ")


def test_validate_reports_bad_picks_and_component_looks(tmp_path, capsys):
    book = tmp_path / "moonlight_market"
    shutil.copytree(RULES / "moonlight_market", book)
    d = book / "display.yaml"
    text = d.read_text()
    text = text.replace("{zone: hand, index: [player], match: {value: card}}",
                        "{zone: hand, index: [player], match: {worth: cards}}")
    text = text.replace("pair: {color: [color, other], text: \"{value}\"", "pair: {color: [color, rim], text: \"{valu}\"")
    text = text.replace("    hammer: {text:", "    hamer: {text:")
    d.write_text(text)
    code = main(["validate", str(book)])
    out = capsys.readouterr().out
    assert code == 1
    assert out.count("[RW255]") == 2 and out.count("[RW256]") == 3, out
    for words in ("no attribute 'worth'", "'cards' is no parameter of bid", "'rim' is no attribute of pair",
                  "names 'valu', which is no attribute of pair", "'hamer', which is no component kind"):
        assert words in out


def test_layouts_need_families_with_the_right_number_of_indices(tmp_path, capsys):
    book = tmp_path / "azul_summer_pavilion"
    shutil.copytree(RULES / "azul_summer_pavilion", book)
    d = book / "display.yaml"
    # board has 2 indices besides the player (a ring per star: fine), factory 1, centre none
    d.write_text(d.read_text().replace("    board: ring", "    board: ring\n    factory: hex\n    centre: track\n"
                                       "    supply: stack\n    hand: fan"))
    assert main(["validate", str(book)]) == 1
    out = capsys.readouterr().out
    assert out.count("[RW254]") == 2, out
    assert "a hex needs a family with 2 indices besides the player; factory has 1" in out
    assert "a track needs a family with 1 index besides the player; centre has 0" in out


def test_the_story_names_components_as_the_choices_do():
    # Moonlight Market's log writes a link by its label ("attaches red1 to red"); the story says it as the
    # choices do, by its name (components: gem: name: "{color} {value}")
    import re
    rb = Rulebook.load(RULES / "moonlight_market")
    st = rb.new_game(2, 1)
    bots = make_bots("random", st.lay.num_seats, 1)
    n = Narrator(st)
    story = []
    while not st.is_terminal() and len(story) < 60:
        story += n.lines_before(st)
        st.apply_action(bots[st.current_player()].choose(st))
        story += n.lines_after(st)
    attaches = [x for x in story if " attaches " in x]
    assert attaches and all(re.search(r" attaches [a-z]+(-[a-z]+)? \d+ to ", x) or "doubler" in x
                            or "worthless" in x for x in attaches), attaches
    assert not any(re.search(r"\b(red|blue|white|green|yellow)\d", x) for x in story)


def test_validate_reports_bad_steps_covers_values_and_parameter_titles(tmp_path, capsys):
    """Issue 38: display: steps:, covers:, values: and titles of an action's parameters name what exists."""
    book = tmp_path / "patch_quilt"
    shutil.copytree(ROOT / "tests" / "rulebooks" / "patch_quilt", book)
    g = book / "game.yaml"
    text = g.read_text()
    text = text.replace("    sew: [t, o, [r, c]]", "    sew: [t, o, [r, col], t]\n    sow: [t]")
    text = text.replace("    sew: {zone: quilt, index: [player], cells: cells}",
                        "    sew: {zone: offer, index: [], cells: fits}\n    rest: {zone: quilt, index: [p, q], cells: cellz}")
    text = text.replace("    sew.o: turn", "    sew.o: turn\n    sew.x: nothing")
    text += "  values:\n    buttons: {1: one}\n    button: {1: one}\n"
    g.write_text(text)
    assert main(["validate", str(book)]) == 1
    out = capsys.readouterr().out
    assert out.count("[RW275]") == 9, out
    for words in ("steps: 'col' is no parameter of sew", "sew chooses 't' twice", "steps names 'sow', which is no action",
                  "covers zone 'offer' is no zone family with cells:", "fits takes 'p', which is no parameter of sew",
                  "quilt has 1 indices, not 2", "'p' is no parameter of rest", "'q' is no parameter of rest", "'cellz' is no function"):
        assert words in out, words
    assert "titles names 'x', which is no parameter of sew [RW254]" in out
    assert "values names 'button', which is no variable" in out and "values names 'buttons'" not in out


def test_values_and_symbol_names_read_in_words():
    """Yak's carts move 'clockwise' (display: values:), not 1; a table keyed by carts names them."""
    st = Rulebook.load(RULES / "yak").new_game(2, 1)
    shown = {v["name"]: v["value"] for v in build_view(st, 0)["variables"]}
    assert shown["direction"] == "clockwise"
    assert "no_" not in shown["stop"] and "no-milk" in shown["stop"]
