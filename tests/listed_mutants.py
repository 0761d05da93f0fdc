"""The mutants issue 32 lists (found by an outside mutation harness): each is a rule the
shipped scenarios must pin down, so applying it must make `regelwerk test` fail.

Each entry: (game folder, file, line, text written there, what it is changed to). The text
must occur once, starting on that line (it may run over several lines: a step deleted).
``python tests/listed_mutants.py [GAME]`` applies each and prints the survivors;
tests/test_listed_mutants.py (slow) asserts there are none.
"""
from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _lines(path: str, first: int, last: int) -> str:
    """Lines first..last of rules/PATH, as written (a step deleted whole, marks and all)."""
    lines = (ROOT / "rules" / path).read_text(encoding="utf-8").split("\n")
    return "\n".join(lines[first - 1:last]) + "\n"


#: the loop that lays the strips in random order (flow.yaml 6-10), deleted whole
STRIP_SHUFFLE = _lines("iquazu/flow.yaml", 6, 10)

MUTANTS = [
    # Yak: the end of the game at exactly 14 stones
    ("yak", "flow.yaml", 113, "stones(p) >= tower_end_stones", "stones(p) > tower_end_stones"),
    # the market: at most 2 food
    ("yak", "components.yaml", 48, "market_take: 2", "market_take: 3"),
    ("yak", "actions.yaml", 87, "min(market_take - milk - meat,", "min(market_take + milk - meat,"),
    # the payment counters while placing
    ("yak", "actions.yaml", 58, 'crystals_to_place -= 1', 'crystals_to_place -= 0'),
    ("yak", "actions.yaml", 58, 'crystals_to_place -= 1', 'crystals_to_place += 1'),
    ("yak", "actions.yaml", 58, 'then: [{set: "crystals_to_place -= 1"}]', 'then: []'),
    ("yak", "actions.yaml", 59, 'colored_to_place -= 1', 'colored_to_place -= 0'),
    ("yak", "actions.yaml", 59, 'colored_to_place -= 1', 'colored_to_place += 1'),
    ("yak", "actions.yaml", 59, 'else: [{set: "colored_to_place -= 1"}]', 'else: []'),
    ("yak", "actions.yaml", 57, _lines("yak/actions.yaml", 57, 59), ''),   # the whole update deleted
    # setup: 16 stones leave a 2- or 3-player game; the removed colour's bonus card
    ("yak", "flow.yaml", 6, "num_players < 4", "num_players < 3"),
    ("yak", "flow.yaml", 53, "num_players == 4", "num_players != 4"),
    ("yak", "flow.yaml", 53, "num_players == 4", "num_players == 3"),
    # the fog track's second fill; the last fog back into the bag
    ("yak", "fog.yaml", 68, "not marker_on and count(fog_track)", "not marker_on or count(fog_track)"),
    ("yak", "fog.yaml", 54, "to: bag", "to: box"),
    # touching in the tower
    ("yak", "tower.yaml", 31, "if r >= 2 and", "if r > 2 and"),
    ("yak", "tower.yaml", 31, "[(r - 1, c), (r - 1, c + 1)]", "[(r - 0, c), (r - 1, c + 1)]"),
    ("yak", "tower.yaml", 31, "[(r - 1, c), (r - 1, c + 1)]", "[(r - 1, c), (r - 1, c + 0)]"),
    ("yak", "tower.yaml", 31, "r >= 2 and r <= 5", "r >= 2 and r <= 4"),
    ("yak", "tower.yaml", 32, "if r <= 4 and c > 1", "if r <= 3 and c > 1"),
    ("yak", "tower.yaml", 33, "if r <= 4 and c <= 5 - r", "if r <= 3 and c <= 5 - r"),
    ("yak", "tower.yaml", 33, "if r >= 5 and r < max_row", "if r >= 6 and r < max_row"),
    # the column above row 5 starts at row 6
    ("yak", "tower.yaml", 9, "for r in 6..max_row", "for r in 5..max_row"),
    # scoring reads the positions' rows and columns
    ("yak", "scoring.yaml", 57, "touching(q[0], q[1])", "touching(q[0], q[0])"),
    ("yak", "scoring.yaml", 78, "touching(q[0], q[1])", "touching(q[0], q[0])"),
    # the score tables: a group of 6, three groups
    ("yak", "scoring.yaml", 6, "6: 16", "6: 15"),
    ("yak", "scoring.yaml", 6, "6: 16", "6: 17"),
    ("yak", "scoring.yaml", 8, "3: 4", "3: 3"),
    ("yak", "scoring.yaml", 8, "3: 4", "3: 5"),
    # declared domains: 2 to 4 players, 0 to 3 bonus cards shown
    ("yak", "game.yaml", 6, "min: 2", "min: 1"),
    ("yak", "game.yaml", 35, '"0..3"', '"1..3"'),
    ("yak", "game.yaml", 35, '"0..3"', '"0..4"'),
    # Iquazú: every turn starts afresh; no drop in the turn of a scoring
    ("iquazu", "flow.yaml", 46, '          - set: "actions_done = 0"', '          - log: "deleted"'),
    ("iquazu", "flow.yaml", 47, '          - set: "scored_in_turn = false"', '          - log: "deleted"'),
    ("iquazu", "scoring.yaml", 11, "scored_in_turn = true", "scored_in_turn = false"),
    # the board's columns 11-14
    ("iquazu", "components.yaml", 93, "count(crevice_layout.strips) - 1]", "count(crevice_layout.strips) - 2]"),
    ("iquazu", "components.yaml", 93, "count(crevice_layout.strips) - 1]", "count(crevice_layout.strips) - 0]"),
    # the frame: 5 columns
    ("iquazu", "board.yaml", 18, "frame_width: 5", "frame_width: 6"),
    ("iquazu", "components.yaml", 102, "frame + frame_width - 1", "frame + frame_width - 0"),
    # setup: the strips in random order, each once; the cards shuffled
    ("iquazu", "flow.yaml", 5, "left = 1..count", "left = 0..count"),
    ("iquazu", "flow.yaml", 6, STRIP_SHUFFLE, ""),
    ("iquazu", "flow.yaml", 28, "  - shuffle: deck\n", ""),
    # Azul: the spaces of the statues and pillars; the centre star's colours on all 6 spaces
    ("azul_summer_pavilion", "components.yaml", 24, "(s % 6 + 1, 3), (s % 6 + 1, 4)", "(s % 5 + 1, 3), (s % 6 + 1, 4)"),
    ("azul_summer_pavilion", "components.yaml", 24, "(s % 6 + 1, 3), (s % 6 + 1, 4)", "(s % 6 + 1, 3), (s % 5 + 1, 4)"),
    ("azul_summer_pavilion", "components.yaml", 24, "(s % 6 + 1, 3),", "(s % 6 + 1, 4),"),
    ("azul_summer_pavilion", "components.yaml", 25, "[(s, 2), (s, 3), (0,", "[(s, 2), (s, 2), (0,"),
    ("azul_summer_pavilion", "place.yaml", 12, "for k in 1..6", "for k in 1..5"),
    # Moonlight Market: overbidding with the last seal; the supply's last seal; the automata cap
    ("moonlight_market", "bidding.yaml", 10, "seals[p] > 0", "seals[p] > 1"),
    ("moonlight_market", "chains.yaml", 110, "seal_supply > 0", "seal_supply > 1"),
    ("moonlight_market", "flow.yaml", 8, "min(2, max(0, 5 - num_players))", "min(2, max(0, 6 - num_players))"),
    ("moonlight_market", "flow.yaml", 8, "min(2, max(0, 5 - num_players))", "min(1, max(0, 5 - num_players))"),
    ("moonlight_market", "flow.yaml", 8, "min(2, max(0, 5 - num_players))", "min(3, max(0, 5 - num_players))"),
]


def apply(book: Path, file: str, line: int, old: str, new: str) -> None:
    """Write the change into the copy ``book`` (the text must start on ``line``, once)."""
    path = book / file
    text = path.read_text(encoding="utf-8")
    start = sum(len(x) + 1 for x in text.split("\n")[:line - 1])
    at = text.find(old, start)
    if at < 0 or "\n" in text[start:at]:
        raise ValueError(f"{file}:{line}: '{old}' is not written on that line")
    path.write_text(text[:at] + new + text[at + len(old):], encoding="utf-8")


def killed(game: str, file: str, line: int, old: str, new: str) -> str:
    """What notices the mutant ('' if nothing does): a compile error or the first failing scenario."""
    from dsl.diagnostics import RulebookError
    from interpreter.game import Rulebook
    from interpreter.tools.scenarios import ScenarioRunner, find_scenarios
    tmp = Path(tempfile.mkdtemp(prefix="regelwerk-listed-"))
    try:
        book = tmp / game
        shutil.copytree(ROOT / "rules" / game, book)
        apply(book, file, line, old, new)
        try:
            rb = Rulebook.load(book)
        except RulebookError as exc:
            return f"does not compile: {exc.diagnostics[0].message}"
        for _, scenario in find_scenarios([book]):
            result = ScenarioRunner(rb, scenario).run()
            if not result.ok:
                return scenario.name
        return ""
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv) -> int:
    games = set(argv[1:])
    alive = 0
    for m in MUTANTS:
        if games and m[0] not in games:
            continue
        by = killed(*m)
        alive += not by
        print(f"{'killed' if by else 'SURVIVED'}: rules/{m[0]}/{m[1]}:{m[2]}: {m[3]!r} -> {m[4]!r}"
              + (f" ({by})" if by else ""))
    return 1 if alive else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main(sys.argv))
