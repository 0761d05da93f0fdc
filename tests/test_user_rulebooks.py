"""A user's own rulebook folder in rules/ never breaks (or joins) the
project's tests: in a copy of the project with a copy of every shipped game
under a new name and a broken folder beside them, the tests that enumerate
games still collect only the shipped ones and the corpus check passes."""
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, SHIPPED


def test_the_shipped_list_names_real_games():
    for name in SHIPPED:
        assert (ROOT / "rules" / name / "game.yaml").is_file(), name


@pytest.mark.slow                     # copies the project and collects every test: ~15 s
def test_a_users_rulebook_folder_leaves_the_tests_green(tmp_path):
    copy = tmp_path / "project"
    skip = shutil.ignore_patterns(".venv", ".git", "*.egg-info", "__pycache__", ".pytest_cache", "golden")
    copy.mkdir()
    for item in ROOT.iterdir():
        if item.name in {".venv", ".git"} or item.name.endswith(".egg-info"):
            continue
        if item.is_dir():
            shutil.copytree(item, copy / item.name, ignore=skip)
        else:
            shutil.copy2(item, copy / item.name)
    for name in SHIPPED:
        shutil.copytree(ROOT / "rules" / name, copy / "rules" / f"my_{name}")
    (copy / "rules" / "my_broken").mkdir()
    (copy / "rules" / "my_broken" / "game.yaml").write_text("regelwerk: 1\ngame: [unfinished\n")

    def pytest(*args):
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
                              cwd=copy, capture_output=True, text=True, timeout=300)

    listed = pytest("--collect-only", "tests")
    assert listed.returncode == 0, listed.stdout[-3000:] + listed.stderr[-2000:]
    users = [f"my_{name}" for name in SHIPPED] + ["my_broken"]         # (Yak's own names start my_ too)
    mentions = [line for line in listed.stdout.splitlines() if any(u in line for u in users)]
    assert not mentions, mentions[:5]
    ran = pytest("tests/test_broken_rulebooks.py::test_the_corpus_covers_every_check_for_every_game",
                 "tests/test_scenarios.py::test_every_scenario_says_where_it_comes_from",
                 "tests/test_shipped.py", "tests/test_quickschema.py")
    assert ran.returncode == 0, ran.stdout[-3000:]
