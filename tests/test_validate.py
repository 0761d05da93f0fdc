"""`regelwerk validate`: every problem located as file:line:col, all in one run.

The defects are planted in a copy of a real rulebook; the expected position
is found by searching the planted text in the file, independently of the
validator.
"""
import json
import shutil
import subprocess
import sys

import pytest

from conftest import RULES
from interpreter.cli import main
from interpreter.game import check_rulebook

AZUL = RULES / "azul_summer_pavilion"


def plant(tmp_path, file, old, new):
    book = tmp_path / "azul"
    if not book.exists():
        shutil.copytree(AZUL, book)
    path = book / file
    text = path.read_text()
    assert old in text, f"{old!r} not in {file}"
    path.write_text(text.replace(old, new, 1))
    return book, path


def position_of(path, needle, offset_in_needle=0):
    for i, line in enumerate(path.read_text().splitlines(), start=1):
        col = line.find(needle)
        if col >= 0:
            return i, col + 1 + offset_in_needle
    raise AssertionError(needle)


def run_validate(capsys, *args):
    code = main(["validate", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_the_real_rulebook_is_valid(capsys):
    code, out = run_validate(capsys, AZUL)
    assert code == 0, out
    assert "ok (0 errors" in out


def test_misspelled_zone_name(tmp_path, capsys):
    book, path = plant(tmp_path, "place.yaml", 'to: "board[player, star, space]"', 'to: "bord[player, star, space]"')
    line, col = position_of(path, "bord[player", 0)
    code, out = run_validate(capsys, book)
    assert code == 1
    assert f"place.yaml:{line}:{col}: error: unknown name 'bord'; did you mean 'board'?" in out


def test_broken_expression(tmp_path, capsys):
    book, path = plant(tmp_path, "take.yaml", '"score[player] -= n + 1"', '"score[player] -= n + * 1"')
    line, col = position_of(path, "n + * 1", 4)
    code, out = run_validate(capsys, book)
    assert code == 1
    assert f"take.yaml:{line}:{col}: error: syntax error: unexpected '*'" in out


def test_wrong_type(tmp_path, capsys):
    book, path = plant(tmp_path, "flow.yaml", 'while: "not all_taken()"', 'while: "count(centre)"')
    line, col = position_of(path, "count(centre)")
    code, out = run_validate(capsys, book)
    assert code == 1
    assert f"flow.yaml:{line}:{col}: error: a condition must be true or false, but this is a number" in out


def test_all_problems_are_reported_in_one_run(tmp_path, capsys):
    plant(tmp_path, "place.yaml", 'to: "board[player, star, space]"', 'to: "bord[player, star, space]"')
    plant(tmp_path, "take.yaml", '"score[player] -= n + 1"', '"score[player] -= n + * 1"')
    book, _ = plant(tmp_path, "flow.yaml", 'while: "not all_taken()"', 'while: "count(centre)"')
    code, out = run_validate(capsys, book)
    assert code == 1
    assert "place.yaml" in out and "take.yaml" in out and "flow.yaml" in out
    assert "(3 errors" in out


def test_structure_errors_are_located_with_suggestions(tmp_path, capsys):
    book, path = plant(tmp_path, "take.yaml", "    params:\n      factory_no", "    parms:\n      factory_no")
    line, col = position_of(path, "parms:")
    code, out = run_validate(capsys, book)
    assert code == 1
    assert f"take.yaml:{line}:{col}: error: unknown key 'parms' in 'take_factory'; did you mean 'params'?" in out


def test_json_format_carries_every_field(tmp_path, capsys):
    book, _ = plant(tmp_path, "place.yaml", 'to: "board[player, star, space]"', 'to: "bord[player, star, space]"')
    code, out = run_validate(capsys, "--format", "json", book)
    assert code == 1
    items = json.loads(out)
    assert items and set(items[0]) == {"file", "line", "column", "code", "severity", "message"}
    assert items[0]["severity"] == "error" and items[0]["code"].startswith("RW")


def test_yaml_syntax_error_is_located(tmp_path, capsys):
    book, path = plant(tmp_path, "scoring.yaml", "  score: \"score[p]\"", "  score: [\"score[p]\"")
    code, out = run_validate(capsys, book)
    assert code == 1
    assert "scoring.yaml:" in out and "YAML syntax" in out


def test_missing_rulebook_is_one_line(tmp_path, capsys):
    code, out = run_validate(capsys, tmp_path / "nothing")
    assert code == 2
    assert out.strip().count("\n") == 0 and "no such file or folder" in out


def test_no_traceback_from_the_command_line(tmp_path):
    book, _ = plant(tmp_path, "components.yaml", "enums:\n", "enums: [\n")
    proc = subprocess.run([sys.executable, "-m", "interpreter.cli", "validate", str(book)],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr + proc.stdout
    assert "components.yaml:" in proc.stdout + proc.stderr


@pytest.mark.parametrize("expr, message", [
    ("not count(hand[player])", "the operand of 'not' must be true or false, but this is a number"),
    ("hand[player] == 3", "cannot compare a zone with a number"),
    ("first(hand[player]).colour == red", "has no attribute 'colour'; did you mean 'color'?"),
    ("board[player, 1] == none", "zone family 'board' takes 3 index value(s)"),
    ("round + red > 2", "'+' needs numbers, but this is a color"),
    ("held(player)", "held() takes 2 arguments, not 1"),
    ("count(hand[player], t -> t.color) > 1", "the result of the 'pred' of count() must be true or false"),
    ("x -> x", "may only be an argument of a function call"),
    ("option.nope", "unknown option 'nope'"),
    ("score[player] and true", "each side of 'and' must be true or false"),
])
def test_type_and_name_errors(tmp_path, expr, message):
    book, path = plant(tmp_path, "flow.yaml", 'while: "not all_taken()"', f'while: "{expr}"')
    report, game = check_rulebook(book)
    assert game is None
    assert any(message in d.message for d in report.errors), [d.message for d in report.errors]
    line, _ = position_of(path, expr)
    assert any(d.pos.line == line and d.pos.file.endswith("flow.yaml") for d in report.errors)


def test_twenty_thousand_diagnostics_print_in_under_two_seconds(tmp_path):
    """Printing re-read the whole file per diagnostic: 20,000 took 210 s. Each file is now read once."""
    import time
    from dsl.diagnostics import Diagnostic, Pos, format_report
    source = tmp_path / "big.yaml"
    source.write_text("".join(f"key_{i}: value {i}\n" for i in range(20_000)))
    diags = [Diagnostic(Pos(str(source), i + 1, 3), f"problem {i}") for i in range(20_000)]
    start = time.perf_counter()
    text = format_report(diags)
    assert time.perf_counter() - start < 2.0
    assert text.count("\n  ") == 40_000          # each quotes its line and a caret
    assert "key_19999: value 19999" in text


def test_every_test_rulebook_is_clean():
    # the small rulebooks that show one construct each are examples too: 0 errors, 0 warnings
    from pathlib import Path
    from interpreter.game import check_rulebook
    folders = sorted(p for p in (Path(__file__).parent / "rulebooks").iterdir() if (p / "game.yaml").exists())
    assert folders
    # except the warning a rulebook exists to show (its header says so)
    meant = {"pair_dice": ["RW240"], "leaky_param": ["RW261"]}
    for folder in folders:
        report, _ = check_rulebook(folder)
        found = [d.code for d in report.items]
        assert found == meant.get(folder.name, []), f"{folder.name}: " + "; ".join(d.format() for d in report.items)


def test_loading_pauses_the_cycle_collector_only_while_it_loads():
    import gc
    from interpreter.game import check_rulebook
    assert gc.isenabled()
    check_rulebook(RULES / "iquazu")
    assert gc.isenabled()
    gc.disable()
    try:
        check_rulebook(RULES / "iquazu")
        assert not gc.isenabled()  # a caller's choice stays
    finally:
        gc.enable()
