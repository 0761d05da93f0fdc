"""The remembered findings of the semantic checks (interpreter/checkcache.py)."""
from __future__ import annotations

import json

import pytest

from interpreter.engine.checks import checkcache, checks
from interpreter.game import check_rulebook

from conftest import MINIMAL_HEADER

# one finding the semantic checks make (RW201: zone 'spare' is never used), none from compiling
BOOK = MINIMAL_HEADER + """\
zones:
  pile: {type: area}
  spare: {type: area}
flow:
  - log: "{count(pile)}"
end: {score: 0}
"""


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("REGELWERK_CACHE", "1")
    monkeypatch.setenv("REGELWERK_CACHE_DIR", str(folder))
    return folder


def _checks_run(monkeypatch) -> list:
    """Count the runs of the semantic checks."""
    runs = []
    real = checks.run_checks

    def counted(source, game):
        runs.append(1)
        return real(source, game)
    monkeypatch.setattr(checks, "run_checks", counted)
    return runs


def _codes(report):
    return [(d.code, d.severity, d.message, str(d.pos)) for d in report.items]


def test_an_unchanged_rulebook_is_checked_once(rulebook, cache, monkeypatch):
    book = rulebook(BOOK)
    runs = _checks_run(monkeypatch)
    first, game1 = check_rulebook(book)
    assert [d.code for d in first.items] == ["RW201"] and "spare" in first.items[0].message
    assert first.items[0].pos.line == 5           # the line of `spare:` in BOOK (the header is 2 lines)
    assert len(runs) == 1 and len(list(cache.glob("*.json"))) == 1
    second, game2 = check_rulebook(book)
    assert len(runs) == 1                          # remembered: the checks did not run again
    assert _codes(second) == _codes(first)
    assert game2 is not None                       # the rulebook is still compiled (it must be playable)


def test_a_changed_rulebook_is_checked_again(rulebook, cache, monkeypatch):
    book = rulebook(BOOK)
    runs = _checks_run(monkeypatch)
    check_rulebook(book)
    (book / "game.yaml").write_text(BOOK.replace('"{count(pile)}"', '"{count(pile) + count(spare)}"'),
                                    encoding="utf-8")
    report, _ = check_rulebook(book)
    assert len(runs) == 2
    assert report.items == []                      # 'spare' is used now: no stale warning


def test_a_changed_engine_or_limit_is_another_key(rulebook, cache, monkeypatch):
    from dsl.diagnostics import Report
    from dsl.loader import load_rulebook
    from interpreter.engine.run.limits import LIMITS
    source = load_rulebook(rulebook(BOOK), Report())
    key = checkcache.key_of(source)
    monkeypatch.setattr(LIMITS, "elements", LIMITS.elements + 1)
    assert checkcache.key_of(source) != key
    monkeypatch.setattr(LIMITS, "elements", LIMITS.elements - 1)
    assert checkcache.key_of(source) == key
    checkcache.engine_fingerprint.cache_clear()
    monkeypatch.setattr(checkcache, "FORMAT", checkcache.FORMAT + 1)
    try:
        assert checkcache.key_of(source) != key
    finally:
        checkcache.engine_fingerprint.cache_clear()


@pytest.mark.parametrize("content", ["", "not json", "[]", '{"format": 2}', "null",
                                     '{"format": 2, "key": "KEY", "findings": [["f", "1", 1, "m", "error", "RW1", true, null]]}',
                                     '{"format": 2, "key": "KEY", "findings": [["f", 1, 1, "m", "fatal", "RW1", true, null]]}',
                                     '{"format": 2, "key": "KEY", "findings": [["f", 1, 1, "m", "error", "RW1", true, "2"]]}',
                                     '{"format": 2, "key": "KEY", "findings": 7}',
                                     '{"format": 2, "key": "KEY", "findings": [[1, 2]]}'])
def test_a_damaged_cache_file_is_a_miss_never_a_crash(rulebook, cache, monkeypatch, content):
    book = rulebook(BOOK)
    check_rulebook(book)
    [file] = cache.glob("*.json")
    file.write_text(content.replace("KEY", file.stem), encoding="utf-8")
    runs = _checks_run(monkeypatch)
    report, _ = check_rulebook(book)
    assert len(runs) == 1 and [d.code for d in report.items] == ["RW201"]
    assert json.loads(file.read_text(encoding="utf-8"))["findings"]   # written anew


def test_a_file_under_another_key_is_not_believed(rulebook, cache, monkeypatch):
    book = rulebook(BOOK)
    check_rulebook(book)
    [file] = cache.glob("*.json")
    data = json.loads(file.read_text(encoding="utf-8"))
    data["key"] = "0" * 64
    file.write_text(json.dumps(data), encoding="utf-8")
    runs = _checks_run(monkeypatch)
    check_rulebook(book)
    assert len(runs) == 1


def test_off_writes_nothing(rulebook, cache, monkeypatch):
    monkeypatch.setenv("REGELWERK_CACHE", "0")
    runs = _checks_run(monkeypatch)
    book = rulebook(BOOK)
    check_rulebook(book)
    check_rulebook(book)
    assert len(runs) == 2 and not cache.exists()


def test_a_cache_that_cannot_be_written_is_no_cache(rulebook, cache, monkeypatch):
    cache.write_text("a file where the folder should be", encoding="utf-8")
    runs = _checks_run(monkeypatch)
    book = rulebook(BOOK)
    first, _ = check_rulebook(book)
    second, _ = check_rulebook(book)
    assert len(runs) == 2 and _codes(first) == _codes(second)


def test_an_internal_fault_of_a_check_is_not_remembered(rulebook, cache, monkeypatch):
    def broken(source, game):
        raise RuntimeError("boom")
    monkeypatch.setattr(checks, "run_checks", broken)
    book = rulebook(BOOK)
    report, _ = check_rulebook(book)
    assert [d.code for d in report.items] == ["RW299"]
    assert not list(cache.glob("*.json"))


def test_nothing_is_written_into_the_rulebook_folder(rulebook, cache):
    book = rulebook(BOOK)
    before = sorted(p.name for p in book.iterdir())
    check_rulebook(book)
    assert sorted(p.name for p in book.iterdir()) == before


def test_the_cache_is_off_in_the_rest_of_the_tests():
    import os
    assert os.environ.get("REGELWERK_CACHE") == "0" and not checkcache.enabled()
