"""Every scenario of every rulebook passes (each is a rulebook example or a
hand calculation, written out in the scenario's `source`)."""
import pytest

from conftest import game_folders
from interpreter.tools.scenarios import ScenarioRunner, find_scenarios
from interpreter.game import Rulebook

CASES = find_scenarios(game_folders())
_books = {}


def book(folder):
    if folder not in _books:
        _books[folder] = Rulebook.load(folder)
    return _books[folder]


@pytest.mark.parametrize("folder, file", CASES, ids=[f"{f.parent.parent.name}/{f.stem}" for _, f in CASES])
def test_scenario(folder, file):
    result = ScenarioRunner(book(folder), file).run()
    assert result.ok, "\n".join(d.format() for d in result.messages)


def test_every_scenario_says_where_it_comes_from():
    import yaml
    for _, file in CASES:
        data = yaml.safe_load(file.read_text())
        assert len(str(data.get("source", ""))) > 40, f"{file}: the source must explain the expectation"
