"""CI runs the README's own commands first (issue 37): .ci/run takes the install-and-play and
the test command from README.md (.ci/readme_command.py), so the two cannot drift apart."""
import subprocess
import sys

from conftest import ROOT


def readme_command(heading: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / ".ci" / "readme_command.py"), heading],
                          capture_output=True, text=True, timeout=60)


def test_the_readme_commands_are_found_as_written():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    play = readme_command("Install and play a game")
    tests = readme_command("Install and run the tests")
    assert play.returncode == 0 and tests.returncode == 0, play.stderr + tests.stderr
    for found in (play.stdout.strip(), tests.stdout.strip()):
        assert f"```sh\n{found}\n```" in readme
    assert "pip install -e ." in play.stdout and "regelwerk play rules/" in play.stdout
    assert "pip install -e '.[test]'" in tests.stdout and tests.stdout.strip().endswith("python -m pytest")
    assert readme_command("No such heading").returncode != 0


def test_ci_runs_them_first_before_any_extra():
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    first = run.index('readme_command.py "Install and play a game"')
    assert first < run.index('readme_command.py "Install and run the tests"') < run.index("[test,rl,")
    assert run.index('bash -euo pipefail -c "$play_cmd"') < run.index('bash -euo pipefail -c "$test_cmd"') \
        < run.index("pip install --quiet -e '.[test,rl")
