"""`regelwerk rules` (issue 41): the rules printed back from the encoding, every rule linked to its file:line.

The expected rules are read here from the rulebooks' YAML by a walker of this test's own (the
step lists of docs/language.md: setup, flow, actions, procedures, triggers, the end scoring,
and the steps inside them), never from the document's code; the document's HTML is parsed back.
"""
from __future__ import annotations

import re
from functools import lru_cache
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import RULES, SHIPPED, write_rulebook
from dsl.diagnostics import Report
from dsl.loader import load_rulebook
from interpreter.cli import main
from interpreter.game import STEP_KINDS, check_rulebook
from interpreter.tools.rulesdoc import build_document, write_html, write_markdown
from interpreter.tools.rulesdoc.speak import Namer, Speaker

TEST_BOOKS = Path(__file__).parent / "rulebooks"
BOOKS = [RULES / g for g in SHIPPED] + sorted(p for p in TEST_BOOKS.iterdir() if (p / "game.yaml").is_file())
SECTIONS = ["game", "components", "setup", "flow", "actions", "triggers", "scoring", "end", "options", "visibility",
            "terms"]


class _Page(HTMLParser):
    """What the HTML holds: each rule and table row as (kind, source label), the section ids, the
    source links, and the prose (every text but the source links, the style sheet and the title)."""

    def __init__(self):
        super().__init__()
        self.items: set = set()
        self.sections: dict = {}
        self.links: list = []
        self.prose: list = []
        self._skip = 0
        self._section = None
        self._stack: list = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        skip = tag in ("style", "title", "h1") or (tag == "a" and a.get("class") == "src")
        self._stack.append(skip)
        self._skip += skip
        if tag in ("li", "tr") and a.get("data-kind"):
            self.items.add((a["data-kind"], a.get("data-src")))
        if tag == "section":
            self._section = a["id"]
            self.sections[self._section] = 0
        if tag in ("li", "tr", "p") and self._section:
            self.sections[self._section] += 1
        if tag == "a" and a.get("class") == "src":
            self.links.append(a.get("data-src"))

    def handle_endtag(self, tag):
        if tag in ("meta",):
            return
        if self._stack:
            self._skip -= self._stack.pop()

    def handle_startendtag(self, tag, attrs):
        pass

    def handle_data(self, data):
        if not self._skip:
            self.prose.append(data)


@lru_cache(maxsize=None)
def _page(book: Path) -> tuple[_Page, str, str]:
    """The parsed page, its HTML and the game's name (each rulebook's document made once)."""
    doc = build_document(book)
    html = write_html(doc, book)
    page = _Page()
    page.feed(html)
    return page, html, doc.title


def _label(root: Path, pos) -> str:
    return f"{Path(pos.file).resolve().relative_to(root.resolve())}:{pos.line}"


def _expected(book: Path) -> set:
    """(kind, file:line) of every step, action, trigger and score part of the rulebook."""
    source = load_rulebook(book, Report())
    root, out = Path(source.root), set()

    def steps(lst):
        for st in lst if isinstance(lst, list) else []:
            if not isinstance(st, dict):
                continue
            kind = next(k for k in st if k in STEP_KINDS)
            out.add((kind, _label(root, st.pos)))
            for key in ("do", "then", "else", "otherwise"):
                steps(st.get(key))
            if kind == "decide" and isinstance(st["decide"], list):
                for inline in st["decide"]:
                    if isinstance(inline, dict):
                        out.add(("action", _label(root, inline.pos)))
                        steps(inline.get("do"))

    steps(source.sections.get("setup"))
    steps(source.sections.get("flow"))
    for section, kind in (("actions", "action"), ("procedures", None), ("triggers", "trigger")):
        found = source.mapping(section)
        for name, spec in found.items():
            if kind:
                out.add((kind, _label(root, found.key_pos[name])))
            steps(spec.get("do") if isinstance(spec, dict) else spec)
    end = source.mapping("end")
    steps(end.get("scoring"))
    parts = end.get("parts")
    if isinstance(parts, dict):
        out.update(("part", _label(root, parts.key_pos[k])) for k in parts)
    return out


def _identifiers(book: Path) -> set:
    """Every name with an underscore the rulebook's YAML holds (its internal identifiers)."""
    text = "\n".join(p.read_text() for p in book.glob("*.yaml"))
    return set(re.findall(r"\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*\b", text))


@pytest.mark.parametrize("book", BOOKS, ids=lambda p: p.name)
def test_every_rule_appears_with_its_source_link(book):
    page, _, _ = _page(book)
    expected = _expected(book)
    assert expected, book
    missing = expected - page.items
    assert not missing, sorted(missing)
    # every kind of step the language has is shown by some rulebook (checked across all of them below)
    assert all(src for _, src in page.items if _ != "row")


def test_every_step_kind_is_met_in_some_rulebook():
    """The step kinds shown above cover the language (emit has no rulebook yet: a rulebook of its own)."""
    seen = set()
    for book in BOOKS:
        seen |= {k for k, _ in _expected(book)}
    assert set(STEP_KINDS) - seen <= {"emit"}


def test_an_emit_step_reads_as_a_sentence_with_its_link(tmp_path):
    book = write_rulebook(tmp_path / "emits", """\
        regelwerk: 1
        game: {name: Bells, players: {min: 2, max: 2}}
        variables: {rung: 0}
        actions:
          ring: {do: [{emit: bell_rung}]}
        triggers:
          count_bells: {on: bell_rung, do: [{set: "rung += 1"}]}
        flow:
          - turns: 0
            once: true
            do: [{decide: [ring]}]
        end: {score: "rung"}
        """)
    page, _, _ = _page(book)
    assert ("emit", "game.yaml:5") in page.items
    assert ("trigger", "game.yaml:7") in page.items
    assert "the event “bell rung” happens" in " ".join(page.prose)


@pytest.mark.parametrize("book", BOOKS, ids=lambda p: p.name)
def test_no_internal_identifier_in_the_prose(book):
    page, _, game = _page(book)
    prose = unescape(" ".join(page.prose)).replace(game, "")
    names = _identifiers(book)
    assert not names & set(re.findall(r"\w+", prose)), sorted(names & set(re.findall(r"\w+", prose)))
    assert not re.search(r"\w_\w", prose), re.search(r".{30}\w_\w.{30}", prose)
    assert not re.search(r"\w+\(\w+=", prose)              # no action id: take(f=3,c=red)
    assert "lambda" not in prose and "->" not in prose and "==" not in prose


@pytest.mark.parametrize("game", SHIPPED)
def test_a_shipped_game_s_document_covers_every_section(game):
    page, html, _ = _page(RULES / game)
    for key in SECTIONS:
        assert key in page.sections, key
    for key in ("components", "setup", "flow", "actions", "scoring", "end", "options", "visibility"):
        assert page.sections[key] >= 1, key
    assert {k for k, _ in page.items} >= {"component", "zone", "action", "turns", "decide", "part"}
    assert html.count('<a class="src"') >= 100


def test_the_yak_document_reads_the_rulebook_s_words():
    page, html, _ = _page(RULES / "yak")
    prose = unescape(" ".join(page.prose))
    # the action's own description, with its lead in the display's words
    assert "You may build: pay food to your cart for n of its stones" in prose
    # a name given in display: names:, a title in a sentence, a plain constant as its value
    assert "the cart in front of the player" in prose
    assert "move every x in the box such that the kind of x is fog to quarry bag".lower() in prose.lower()
    assert "Draw 3 from quarry bag into stones on the carts of k." in prose
    # the trigger of the fog, when it fires
    assert "Whenever components are drawn and" in prose
    # the score parts as a table, the ranking and the tie-break
    assert re.search(r"<tr data-kind=\"part\" data-src=\"scoring.yaml:\d+\"><th scope=\"row\">Single stones</th>", html)
    assert "a tie is broken by the number of" not in prose
    assert re.search(r"ranked by score of p \(more is better\); a tie is broken by stones of p \(fewer is better\)",
                     prose)
    # counts per player count, the hidden hand, the secret choice
    assert "6 with 2 players; 9 with 3 players; 12 with 4 players" in prose
    assert "Action cards: only its owner sees what it holds" in prose
    assert "the others learn only that it was chosen" in prose


def test_players_fixes_the_counts():
    doc = build_document(RULES / "yak", players=3)
    html = write_html(doc, RULES / "yak")
    assert "9 with 3 players" not in html and ">9<" in html and "this document: 3 players" in html


@pytest.mark.parametrize("text, words", [
    ("count(hand[p], t -> t.color == c) >= 2", "the number of t in hand of p such that the color of t is c is at least 2"),
    ("a - b - c", "a − b − c"),
    ("a - (b - c)", "a − (b − c)"),
    ("x if y else z", "x if y, otherwise z"),
    ("not empty(deck)", "deck is not empty"),
    ("my_cart(player)", "the cart in front of the player"),
    ("room(tent[p]) < tent_limit", "the room left in tent of p is less than 8"),
    ("[t for t in stone_type if t != crystal]", "every t in stone colour where t is not crystal"),
    ("pairs[0]", "the first of pairs"),
    ("max(players, q -> count(tent[q]))", "the largest the number of tent of q over every q in the players"),
    ("min(3, n)", "the smallest of 3 and n"),
    ("price(n, crystals)", "price of (n, crystals)"),
    ("not column_full(c + 1)", "it is not so that c + 1 is full"),      # words with a place for the arguments
])
def test_an_expression_reads_in_the_rulebook_s_names(text, words):
    class Source:
        sections = {"display": {"names": {"my_cart": "the cart in front of", "stone_type": "stone colour",
                                          "column_full": "… is full"}},
                    "constants": {"tent_limit": 8}}
    assert Speaker(Namer(Source())).expr(text) == words


def test_a_rulebook_function_with_a_library_name_reads_as_the_rulebook_s():
    # docs/compatibility.md: a rulebook's own `empty`, `count` or `inside` is its own, in the
    # document too, never the library function's phrase
    class Source:
        sections = {"display": {"names": {"inside": "… lies on the board"}},
                    "functions": {"empty": {"params": {"x": "int"}, "value": "x == 0"},
                                  "count": {"params": {"x": "int"}, "value": "x"},
                                  "inside": {"params": {"r": "int", "c": "int"}, "value": "r >= 0"}}}
    speak = Speaker(Namer(Source())).expr
    assert speak("not empty(n)") == "it is not so that empty of n"
    assert speak("count(n)") == "count of n"
    assert speak("inside(r, c)") == "r, c lies on the board"


def test_the_command_writes_html_and_markdown(tmp_path, capsys):
    out = tmp_path / "yak.html"
    assert main(["rules", str(RULES / "yak"), "--out", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("<!DOCTYPE html>") and '<html lang="en">' in text and "@media print" in text
    assert "<script" not in text and "http" not in text.split("<body>")[1]   # one self-contained file
    # a source link leads from the document's folder to the rulebook's file
    assert 'href="' + str(Path("..") / Path(*(RULES / "yak" / "actions.yaml").resolve().parts[1:])) not in text
    href = re.search(r'href="([^"]+actions\.yaml)"', text).group(1)
    assert (tmp_path / href).resolve() == (RULES / "yak" / "actions.yaml").resolve()
    md = tmp_path / "yak.md"
    assert main(["rules", str(RULES / "yak"), "--format", "md", "--out", str(md)]) == 0
    mdt = md.read_text()
    assert mdt.startswith("# Yak\n") and "## Setup" in mdt and "| Part | Points | Source |" in mdt
    assert re.search(r"\[actions\.yaml:\d+\]\(<[^>]*actions\.yaml>\)", mdt)
    assert main(["rules", str(RULES / "yak"), "--players", "5"]) == 2
    assert "Yak is for 2 to 4 players, not 5" in capsys.readouterr().err


def test_a_broken_rulebook_gives_located_errors_not_a_document(tmp_path, capsys):
    book = write_rulebook(tmp_path / "broken", """\
        regelwerk: 1
        game: {name: Broken, players: {min: 2, max: 2}}
        flow: [{set: "nothing = 1"}]
        end: {score: "0"}
        """)
    assert main(["rules", str(book)]) == 1
    err = capsys.readouterr().err
    assert re.search(r"game\.yaml:3:\d+: error: .*nothing", err) and "Traceback" not in err


DRAWN = """\
    regelwerk: 1
    game: {name: Names, players: {min: 2, max: 2}}
    constants: {hand_size: 3, start_seat: {expr: "0"}}
    variables: {turns_taken: 0}
    actions:
      pass_turn: {do: [{set: "turns_taken += hand_size"}]}
    flow:
      - turns: start_seat
        once: true
        do: [{decide: [pass_turn]}]
    end: {score: "turns_taken"}
    display:
      say: {pass_turn: "Pass"}
    """


def test_validate_warns_where_the_document_would_print_a_raw_name(tmp_path):
    book = write_rulebook(tmp_path / "names", DRAWN)
    report, game = check_rulebook(book)
    assert game is not None
    found = sorted((d.message.split("'")[1], d.pos.line, d.pos.col) for d in report.items if d.code == "RW274")
    # each once, where first written (a declaration before its uses); hand_size is a plain number (it reads
    # as 3): no warning
    assert found == [("pass_turn", 6, 3), ("start_seat", 3, 27), ("turns_taken", 4, 13)]
    assert all(not d.is_error for d in report.items)
    text = (book / "game.yaml").read_text().replace(
        'say: {pass_turn: "Pass"}',
        'say: {pass_turn: "Pass"}\n  names: {pass_turn: "pass", start_seat: "the first player"}\n'
        '  titles: {turns_taken: "Turns taken"}')
    (book / "game.yaml").write_text(text)
    report, _ = check_rulebook(book)
    assert [d for d in report.items if d.code == "RW274"] == []
    html = write_html(build_document(book), book)
    assert "starting with the first player" in html and "to turns taken" in html


def test_a_name_in_display_names_that_nothing_uses_is_an_error(tmp_path):
    book = write_rulebook(tmp_path / "names", DRAWN.replace('say: {pass_turn: "Pass"}',
                                                            'say: {pass_turn: "Pass"}\n      names: {pas_turn: "pass"}'))
    report, game = check_rulebook(book)
    assert game is None
    bad = [d for d in report.items if d.code == "RW254"]
    assert len(bad) == 1 and "names names 'pas_turn', which no rule or declaration uses" in bad[0].message
    assert bad[0].pos.line == 14


def test_a_rulebook_without_display_is_not_asked_for_names(tmp_path):
    book = write_rulebook(tmp_path / "plain", DRAWN.split("    display:")[0])
    report, _ = check_rulebook(book)
    assert report.items == []
    # its document still prints no raw name: the words stand in
    html = write_html(build_document(book), book)
    assert "pass turn" in html and "pass_turn" not in html.split("</style>")[1]


def test_markdown_holds_the_same_rules():
    doc = build_document(RULES / "iquazu")
    md = write_markdown(doc, RULES / "iquazu")
    for s in doc.sections:
        assert f"## {s.title}" in md
    assert md.count("](<") >= 100


def test_components_show_their_pictures_inside_the_file():
    """garden_path's display: a picture for the pawn, one per colour for the seed (red, blue)."""
    _, html, _ = _page(TEST_BOOKS / "garden_path")
    seed = re.search(r'<tr data-kind="component"[^>]*><th scope="row">((?:<img [^>]*>)*)Seed</th>', html)
    pawn = re.search(r'<tr data-kind="component"[^>]*><th scope="row">((?:<img [^>]*>)*)Pawn</th>', html)
    assert seed and seed.group(1).count('src="data:image/svg+xml;base64,') == 2
    assert pawn and pawn.group(1).count('src="data:image/svg+xml;base64,') == 1
    assert "images/" not in html                       # no picture read from outside the file
