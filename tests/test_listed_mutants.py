"""The mutants issue 32 lists (tests/listed_mutants.py) are each noticed by the shipped
scenarios: applying one makes `regelwerk test` fail. (Slow: about 2-3 minutes in all.)"""
import shutil

import pytest

from conftest import RULES
from listed_mutants import MUTANTS, apply, killed


def test_every_listed_mutation_is_written_where_it_says(tmp_path):
    # fast: each change applies to the shipped text (a rulebook edit that moves a line shows here)
    for game, file, line, old, new in MUTANTS:
        book = tmp_path / f"{game}-{len(list(tmp_path.iterdir()))}"
        shutil.copytree(RULES / game, book)
        apply(book, file, line, old, new)
        assert (book / file).read_text() != (RULES / game / file).read_text()


@pytest.mark.slow
@pytest.mark.parametrize("mutant", MUTANTS, ids=[f"{m[0]}/{m[1]}:{m[2]}:{m[4][:30]}" for m in MUTANTS])
def test_the_scenarios_kill_the_listed_mutant(mutant):
    assert killed(*mutant), f"no scenario notices {mutant}"
