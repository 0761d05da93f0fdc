"""Nothing in a rulebook can run code or read files outside its folder."""
import os

import pytest

from conftest import RULES
from dsl.diagnostics import Report
from dsl.yamlload import load_yaml_text
from interpreter.game import check_rulebook

BASE = """\
regelwerk: 1
game: {name: T, players: {min: 2, max: 2}}
flow: []
end: {score: "0"}
"""


def test_python_tags_are_rejected_and_never_constructed(tmp_path):
    marker = tmp_path / "pwned"
    text = f"a: !!python/object/apply:os.system ['touch {marker}']\n"
    report = Report()
    load_yaml_text(text, "f.yaml", report)
    assert report.has_errors and "not allowed" in report.errors[0].message
    assert not marker.exists()


def test_custom_tags_are_rejected():
    report = Report()
    load_yaml_text("a: !include secret.yaml\n", "f.yaml", report)
    assert report.has_errors and report.errors[0].pos.line == 1


def test_anchors_and_aliases_are_rejected():
    report = Report()
    load_yaml_text("a: &x [1, 2]\nb: *x\n", "f.yaml", report)
    assert report.has_errors and "alias" in report.errors[0].message


def test_billion_laughs_is_refused_quickly():
    lol = "a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]\nd: [*c, *c]\n"
    report = Report()
    load_yaml_text(lol, "f.yaml", report)
    assert report.has_errors


def test_include_outside_the_folder_is_refused(tmp_path):
    (tmp_path / "outside.yaml").write_text("constants: {x: 1}\n")
    book = tmp_path / "book"
    book.mkdir()
    (book / "game.yaml").write_text(BASE + "include: [../outside.yaml]\n")
    report, game = check_rulebook(book)
    assert game is None
    assert any("leaves the rulebook folder" in d.message or "not a rulebook file" in d.message
               for d in report.errors)


def test_absolute_include_is_refused(tmp_path):
    (tmp_path / "outside.yaml").write_text("constants: {x: 1}\n")
    book = tmp_path / "book"
    book.mkdir()
    (book / "game.yaml").write_text(BASE + f"include: ['{tmp_path / 'outside.yaml'}']\n")
    report, game = check_rulebook(book)
    assert game is None


def test_symlink_out_of_the_folder_is_refused(tmp_path):
    (tmp_path / "secret.yaml").write_text("constants: {x: 1}\n")
    book = tmp_path / "book"
    book.mkdir()
    os.symlink(tmp_path / "secret.yaml", book / "link.yaml")
    (book / "game.yaml").write_text(BASE + "include: [link.yaml]\n")
    report, game = check_rulebook(book)
    assert game is None
    assert any("leaves the rulebook folder" in d.message for d in report.errors)


def test_expressions_cannot_reach_python(tmp_path):
    book = tmp_path / "book"
    book.mkdir()
    (book / "game.yaml").write_text(BASE.replace('score: "0"', 'score: "__import__(1)"'))
    report, game = check_rulebook(book)
    assert game is None
    assert "unknown function '__import__'" in report.errors[0].message


@pytest.mark.parametrize("bad", [["take"], {"a": 1}, None, 5, 3.5, b"x", ("a",)])
def test_a_malformed_action_id_is_illegal_and_changes_nothing(bad):
    from interpreter.game import IllegalAction, Rulebook
    rb = Rulebook.load(RULES / "azul_summer_pavilion")
    st = rb.new_game(2, seed=3)
    before = st.to_json()
    with pytest.raises(IllegalAction):
        st.apply_action(bad)
    assert st.to_json() == before
    st.apply_action(st.legal_actions()[0])   # and the game goes on


def _copy_game(tmp_path, name="azul_summer_pavilion"):
    import shutil
    dst = tmp_path / name
    shutil.copytree(RULES / name, dst)
    return dst


def test_a_scenarios_folder_linking_outside_is_not_read(tmp_path, capsys):
    from interpreter.cli import main
    book = _copy_game(tmp_path)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.yaml").write_text("TOP-SECRET-LINE: 1\n")
    import shutil
    shutil.rmtree(book / "scenarios")
    (book / "scenarios").symlink_to(outside, target_is_directory=True)
    code = main(["test", str(book)])
    out = capsys.readouterr()
    assert code == 1
    assert "TOP-SECRET" not in out.out + out.err
    assert "leads out of its rulebook folder" in out.out


def test_a_fifo_among_the_scenarios_does_not_block(tmp_path):
    import subprocess
    import sys
    book = _copy_game(tmp_path)
    os.mkfifo(book / "scenarios" / "zz_pipe.yaml")
    proc = subprocess.run([sys.executable, "-m", "interpreter.cli", "test", str(book)], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 1
    assert "zz_pipe.yaml:1:1: error: not a regular file" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr


def test_a_fifo_as_game_yaml_does_not_block(tmp_path):
    import subprocess
    import sys
    book = tmp_path / "g"
    book.mkdir()
    os.mkfifo(book / "game.yaml")
    proc = subprocess.run([sys.executable, "-m", "interpreter.cli", "validate", str(book)], capture_output=True,
                          text=True, timeout=20)
    assert proc.returncode == 1 and "not a regular file" in proc.stdout + proc.stderr


# --- outside reads (issue 28): nothing outside the rulebook folder is read, hashed or quoted ---------

def _cli(*argv, cwd=None, timeout=60, env=None):
    import subprocess
    import sys
    return subprocess.run([sys.executable, "-m", "interpreter.cli", *map(str, argv)], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, stdin=subprocess.DEVNULL, env={**os.environ, **(env or {})})


def test_an_entry_file_linking_out_of_the_folder_is_refused_unread(tmp_path):
    (tmp_path / "credentials").write_text("[default]\naws_access_key_id = AKIAFAKEFAKEFAKE1234\n")
    (tmp_path / "case").mkdir()
    (tmp_path / "case" / "game.yaml").symlink_to("../credentials")
    for argv in (["validate", "case"], ["play", "case", "--players", "2", "--seed", "1"]):
        proc = _cli(*argv, cwd=tmp_path)
        out = proc.stdout + proc.stderr
        assert proc.returncode == 1, out
        assert "game.yaml leaves the rulebook folder" in out and "[RW005]" in out
        assert "AKIA" not in out and "[default]" not in out and "Traceback" not in out


def test_the_log_hash_reads_only_the_files_the_rulebook_is_made_of(tmp_path):
    from interpreter.play.gamelog import rulebook_hash
    book = _copy_game(tmp_path, "yak")
    before = rulebook_hash(book)
    (tmp_path / "secret.yaml").write_text("s: 1\n")
    (book / "notes.yaml").symlink_to(tmp_path / "secret.yaml")       # not included: never read
    (book / "zero.yaml").symlink_to("/dev/zero")
    os.mkfifo(book / "pipe.yaml")
    assert rulebook_hash(book) == before                                 # returns at once, same hash
    (book / "game.yaml").write_text((book / "game.yaml").read_text() + "\n# changed\n")
    assert rulebook_hash(book) != before


def test_play_log_and_replay_of_a_folder_with_a_fifo_end(tmp_path):
    book = _copy_game(tmp_path, "yak")
    os.mkfifo(book / "notes.yaml")
    proc = _cli("play", book, "--players", "2", "--seed", "1", "--quiet", "--log", tmp_path / "f.jsonl", timeout=60)
    assert proc.returncode == 0, proc.stderr
    proc = _cli("replay", tmp_path / "f.jsonl", timeout=60)
    assert proc.returncode == 0 and "decisions replayed" in proc.stdout, proc.stderr


def test_an_include_that_is_a_link_loop_is_located(tmp_path):
    (tmp_path / "game.yaml").write_text(BASE + "include: [loop.yaml]\n")
    (tmp_path / "loop.yaml").symlink_to("loop.yaml")
    proc = _cli("validate", tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1 and "Traceback" not in out, out
    assert "game.yaml:5:" in out and "[RW005]" in out


# --- special files (issue 28): FIFOs, devices and huge files are refused, never read ----------------

def test_a_log_that_is_a_fifo_or_huge_is_refused(tmp_path):
    os.mkfifo(tmp_path / "pipe.jsonl")
    proc = _cli("replay", tmp_path / "pipe.jsonl", timeout=20)
    assert proc.returncode == 1 and "not a regular file" in proc.stderr
    big = tmp_path / "big.jsonl"
    big.write_text('{"format": "regelwerk-log/1", "rulebook": "x", "players": 2, "seed": 1}\n'
                   + '{"seat": 0, "action": [1]}\n' * 200_000)
    proc = _cli("replay", big, timeout=30, env={"REGELWERK_LIMITS": "log_bytes=1000000"})
    assert proc.returncode == 1 and "limit 'log_bytes'" in proc.stderr
    # located at the line that crosses the limit (fuzz turn 4 N14 4: it said line 0): the header is 72
    # bytes with its newline, each move 27, so the first 1,000,000 bytes end 1 + floor(999,928 / 27) =
    # 37,035 lines, and byte 1,000,001 is in line 37,036
    assert f"big.jsonl:37036: error:" in proc.stderr, proc.stderr


def test_a_log_with_many_bad_lines_shows_the_first_problems_only(tmp_path):
    log = tmp_path / "many.jsonl"
    log.write_text('{"format": "regelwerk-log/1", "rulebook": "%s", "players": 2, "seed": 1}\n' % (RULES / "yak")
                   + '{"seat": 0, "action": [1]}\n' * 15_000)
    proc = _cli("replay", log, timeout=30)
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert 20 <= len(lines) <= 25 and "only the first 20 are shown" in proc.stderr


def test_a_rulebook_file_over_the_byte_limit_is_refused_before_parsing(tmp_path):
    (tmp_path / "game.yaml").write_text(BASE + "constants:\n  c: [" + ",".join(["0"] * 600_000) + "]\n")
    proc = _cli("validate", tmp_path, timeout=20)
    assert proc.returncode == 1 and "limit 'file_bytes'" in proc.stdout and "game.yaml:1:1" in proc.stdout


def test_a_long_expression_is_refused_before_it_is_parsed(tmp_path):
    import time
    (tmp_path / "game.yaml").write_text(BASE.replace('score: "0"', 'score: "' + "1+" * 200_000 + '1"'))
    t = time.monotonic()
    proc = _cli("validate", tmp_path, timeout=20)
    assert proc.returncode == 1 and "limit 'expr_chars'" in proc.stdout
    assert time.monotonic() - t < 15


# --- escapes (issue 28): no control sequence of a rulebook or a log reaches the terminal --------------

ESCAPES = "\x1b]0;TITLE\x07\x1b[31mRED\x1b[0m\r\x1b[2K\x1b]52;c;cHduZWQK\x07\x9b1A"


def test_names_and_log_lines_reach_the_terminal_without_control_sequences(tmp_path):
    import json
    esc = json.dumps(ESCAPES)
    (tmp_path / "game.yaml").write_text(f"""regelwerk: 1
game: {{name: {esc}, players: {{min: 2, max: 2}}}}
variables:
  x: 0
actions:
  go:
    do: [{{set: "x += 1"}}, {{log: {esc}}}]
flow:
  - turns: 0
    once: true
    do: [{{decide: [go]}}]
end:
  score: "x"
""")
    proc = _cli("play", tmp_path, "--players", "2", "--seed", "1", "--log", tmp_path / "L.jsonl")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "\\x1b]0;TITLE" in out                        # shown, made visible
    assert not any(c in out for c in "\x1b\x07\r\x9b")
    proc = _cli("replay", tmp_path / "L.jsonl", "--show")
    assert proc.returncode == 0 and not any(c in proc.stdout + proc.stderr for c in "\x1b\x07\r\x9b")


def test_diagnostics_show_control_characters_made_visible(tmp_path):
    (tmp_path / "game.yaml").write_text(BASE.replace("flow: []", 'flow:\n  - emit: "\\r\\e[2K\\e[1Afake: ok\\e[8m"'))
    proc = _cli("validate", tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1 and "\\x1b[2K" in out and "\x1b" not in out and "\r" not in out


def test_names_are_never_rich_markup(tmp_path):
    book = RULES.parent / "tests" / "fuzz_repro" / "turn3" / "T10_rich_markup_in_seat_and_index_names"
    proc = _cli("play", book, "--players", "1", "--seed", "1", "--log", tmp_path / "L.jsonl")
    assert proc.returncode == 0, proc.stderr
    proc = _cli("replay", tmp_path / "L.jsonl", "--show")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "Traceback" not in out, out
    assert "[link=file:///etc/passwd]click[/link]" in out and "[/row]" in out     # shown as written
    assert "\x1b]8" not in out


def test_mutate_copies_regular_files_only_and_refuses_a_folder_with_links_or_fifos(tmp_path):
    from interpreter.tools.mutate import copy_rulebook, folder_files
    book = _copy_game(tmp_path, "yak")
    (tmp_path / "outside_secret").mkdir()
    (tmp_path / "outside_secret" / "id_rsa").write_text("TOP SECRET")
    (book / "stolen").symlink_to(tmp_path / "outside_secret", target_is_directory=True)
    (book / "big.bin").symlink_to("/dev/zero")
    os.mkfifo(book / "pipe.yaml")
    files, others = folder_files(book)
    assert sorted(map(str, others)) == ["big.bin", "pipe.yaml", "stolen"]
    copy_rulebook(book, tmp_path / "copy")                       # returns at once: nothing followed or opened
    assert not (tmp_path / "copy" / "stolen").exists() and not (tmp_path / "copy" / "pipe.yaml").exists()
    assert (tmp_path / "copy" / "game.yaml").read_text() == (book / "game.yaml").read_text()
    proc = _cli("mutate", book, "--sample", "1", timeout=30)
    assert proc.returncode == 2 and "is a link or a special file" in proc.stderr


def test_a_crafted_findings_cache_entry_is_not_believed(tmp_path):
    book = RULES.parent / "tests" / "fuzz_repro" / "turn3" / "T22_crafted_check_cache"
    cache = tmp_path / "cache"
    env = {"REGELWERK_CACHE": "1", "REGELWERK_CACHE_DIR": str(cache)}
    first = _cli("validate", book, env=env, timeout=60)
    assert first.returncode == 1 and "RW203" in first.stdout
    entry, = cache.glob("*.json")
    key = entry.stem
    entry.write_text('{"format": 2, "key": "%s", "findings": [["/etc/passwd", 1, 1, "made up", "warning", "RW201", '
                     'true, null]]}' % key)
    again = _cli("validate", book, env=env, timeout=60)
    assert again.returncode == 1 and "RW203" in again.stdout and "made up" not in again.stdout
    assert "root:" not in again.stdout
    entry.unlink()
    os.mkfifo(entry)                                           # a FIFO in its place: a miss, not a hang
    third = _cli("validate", book, env=env, timeout=60)
    assert third.returncode == 1 and "RW203" in third.stdout


def test_a_file_over_file_bytes_reports_no_made_up_missing_section(tmp_path):
    # fuzz turn 4 N14 3: a too-long game.yaml (RW004) was followed by "the rulebook has no 'end' section" (RW011)
    book = tmp_path / "longexpr"
    book.mkdir()
    (book / "game.yaml").write_text("regelwerk: 1\ngame: {name: Long, players: {min: 1, max: 1}}\n"
                                    + "# padding\n" * 1000)
    proc = _cli("validate", book, timeout=60, env={"REGELWERK_LIMITS": "file_bytes=5000"})
    assert proc.returncode == 1 and "[RW004]" in proc.stdout + proc.stderr
    assert "RW011" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr


def test_a_yaml_error_at_the_end_of_a_cut_file_is_placed_on_its_last_line():
    # fuzz turn 4 N14 2: "display.yaml:7:1" for a file of 6 lines (the parser's mark after the last newline)
    from dsl.diagnostics import Report
    from dsl.yamlload import load_yaml_text
    for text, where in [("a: 1\nb: [1, 2\n", (2, 9)), ("a: 1\nb: [1, 2\n\n\n", (2, 9)), ("a: {x: 1\n", (1, 9))]:
        report = Report()
        assert load_yaml_text(text, "cut.yaml", report) is None
        (d,) = report.items
        assert (d.pos.line, d.pos.col) == where and d.code == "RW001", (text, d)
