"""Browser play: the JSON API (default run) and full games in headless chromium (slow).

The browser test needs the `web` extra (starlette, uvicorn, selenium) and Debian's
chromium and chromedriver (`.ci/run` installs them); it skips with a clear
message when they are missing.  Set REGELWERK_SCREENSHOTS=docs/screenshots
to save a picture of each game's page.
"""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from browser import click_a_choice, start_browser as _browser
from conftest import ROOT, RULES, game_folders
from interpreter.cli import main
from interpreter.play.replay import replay_log

pytest.importorskip("starlette", reason="browser play needs the web extra: pip install -e '.[web]'")

GAMES = [p.name for p in game_folders()]


def call(base, method, path, data=None):
    req = urllib.request.Request(base + path, method=method, data=None if data is None else json.dumps(data).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


@pytest.fixture
def server():
    from interpreter.game import Rulebook
    from interpreter.play.web.server import make
    servers = []

    def start(game):
        httpd, url, gs = make(Rulebook.load(RULES / game), 0)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        servers.append(httpd)
        return url.rstrip("/")
    yield start
    for s in servers:
        s.shutdown()
        s.server_close()


def test_the_api_plays_a_game_with_undo_time_travel_and_a_log(server, tmp_path, capsys):
    base = server("yak")
    code, text = call(base, "GET", "/")
    assert code == 200 and "<script src=\"/static/app.js\">" in text
    assert call(base, "GET", "/static/app.js")[0] == 200
    code, text = call(base, "POST", "/api/new", {"players": 2, "seed": 4, "seats": ["human", "random"]})
    assert code == 200
    p = json.loads(text)["game"]
    assert p["view"]["viewer"] == 0 and p["view"]["actions"]
    rng = random.Random(4)
    undone = False
    while not p["over"]:
        if p["bot_to_move"]:
            p = json.loads(call(base, "POST", "/api/bot", {})[1])["game"]
            continue
        if p["decisions"] > 6 and not undone:
            before = p["decisions"]
            p = json.loads(call(base, "POST", "/api/undo")[1])["game"]
            assert p["decisions"] < before and p["view"]["to_move"] == 0
            undone = True
            continue
        assert p["view"]["viewer"] == 0                        # the person sees their own seat only
        assert not any(x.startswith("Player 2: choose(card=") for x in p["story"])   # yak's secret card
        assert "history" not in p
        ids = [o["id"] for g in p["view"]["actions"] for o in g["options"]]
        p = json.loads(call(base, "POST", "/api/act", {"action": rng.choice(ids)})[1])["game"]
    assert undone
    assert any(x.startswith("Player 2: Choose the ") and "…" not in x for x in p["story"])  # told once the game is over
    # a seat's view of the past; an illegal action is refused with a message
    past = json.loads(call(base, "GET", "/api/state?at=3&seat=1")[1])["game"]
    assert past["at"] == 3 and past["view"]["viewer"] == 1 and past["view"]["actions"] == []
    code, text = call(base, "POST", "/api/act", {"action": "nonsense"})
    assert code == 409 and "no person is to decide" in json.loads(text)["error"]
    code, log = call(base, "GET", "/api/log")
    (tmp_path / "g.jsonl").write_text(log)
    done = replay_log(tmp_path / "g.jsonl")
    assert done.state.scores() == p["view"]["scores"]
    code, text = call(base, "POST", "/api/new", {"players": 9})
    assert code == 400 and "for 2 to 4 players" in json.loads(text)["error"]


def test_serve_without_a_port_number_is_a_usage_error(capsys):
    assert main(["serve", str(RULES / "yak"), "--port", "x"]) == 2


# --- the real browser ---------------------------------------------------------------------

def _serve(game, db):
    proc = subprocess.Popen([sys.executable, "-m", "interpreter.cli", "serve", str(RULES / game), "--port", "0",
                             "--db", str(db)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    line = proc.stdout.readline()
    m = re.search(r"(http://127\.0\.0\.1:\d+)/", line)
    assert m, line + proc.stderr.read()
    return proc, m.group(1)


def _wait(driver, cond, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        value = cond()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("the page did not get there: " + driver.find_element("tag name", "body").get_attribute("data-state"))


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_a_full_game_in_the_browser(game, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    driver, profile = _browser()
    proc, base = _serve(game, tmp_path / "serve.sqlite")
    shots = os.environ.get("REGELWERK_SCREENSHOTS")
    try:
        driver.get(base + "/?speed=0")
        body = driver.find_element(By.TAG_NAME, "body")
        state = lambda: body.get_attribute("data-state")            # noqa: E731
        decisions = lambda: int(body.get_attribute("data-decisions") or 0)   # noqa: E731
        _wait(driver, lambda: state() == "empty")
        Select(driver.find_element(By.ID, "players")).select_by_value("2")
        driver.find_element(By.ID, "seed").clear()
        driver.find_element(By.ID, "seed").send_keys("5")
        seats = driver.find_elements(By.CSS_SELECTOR, "#seatpicks select")
        Select(seats[0]).select_by_value("human")
        Select(seats[1]).select_by_value("random")
        driver.find_element(By.ID, "start").click()
        rng = random.Random(5)
        undone, n, offered, by_board, marked, clicks = False, 0, 0, 0, 0, {"zone": 0, "comp": 0}
        while True:
            _wait(driver, lambda: state() in ("human", "over"))
            if state() == "over":
                break
            n += 1
            if shots and n == 12:
                Path(shots).mkdir(parents=True, exist_ok=True)
                driver.save_screenshot(str(Path(shots) / f"{game}.png"))
            before = decisions()
            if n == 4 and not undone:
                driver.find_element(By.ID, "undo").click()
                _wait(driver, lambda: decisions() < before and state() in ("human", "over"))
                undone = True
                continue
            # the board first: a space or a component (a click takes one choice or narrows the list; a
            # second click on what is still marked narrows further), a button when the board offers none
            board = driver.find_elements(By.CSS_SELECTOR, "#board .clickable")
            offered += bool(board)
            marked += bool(driver.find_elements(By.CSS_SELECTOR, "#board .zone.moved"))   # the last move
            if board and rng.random() < 0.85:
                target = rng.choice(board)
                for _ in range(3):
                    kind = "comp" if "comp" in target.get_attribute("class") else "zone"
                    target.click()
                    clicks[kind] += 1
                    filtered = lambda: driver.find_elements(By.CSS_SELECTOR, "a.showall")   # noqa: E731
                    _wait(driver, lambda: body.get_attribute("data-busy") is None
                          and (decisions() != before or state() == "over" or filtered()))
                    if decisions() != before or state() != "human":
                        by_board += 1
                        break
                    narrows = driver.find_elements(By.CSS_SELECTOR, "#board .narrows")
                    if not narrows or rng.random() < 0.2:
                        click_a_choice(driver, rng)
                        break
                    target = rng.choice(narrows)
                else:
                    click_a_choice(driver, rng)
            else:
                click_a_choice(driver, rng)
            _wait(driver, lambda: decisions() != before or state() == "over")
        # the game was played on the board: spaces and components clicked, most decisions made there
        print(f"{game}: {n} decisions, the board offered {offered}, {by_board} taken there, clicks {clicks}")
        assert clicks["zone"] and clicks["comp"], clicks
        assert by_board * 2 > offered, (by_board, offered)
        # the zones the last move changed are marked, each seat has its colour, the last decision is marked
        assert marked * 2 > n, (marked, n)
        colours = {p.get_attribute("style") for p in driver.find_elements(By.CSS_SELECTOR, ".player")}
        assert len(colours) == len(driver.find_elements(By.CSS_SELECTOR, ".player")) and all("--seat" in c for c in colours)
        assert len(driver.find_elements(By.CSS_SELECTOR, "#story li.last")) == 1
        assert undone
        total = decisions()
        scores = {int(td.get_attribute("data-seat")): int(td.text)
                  for td in driver.find_elements(By.CSS_SELECTOR, "td.score")}
        # time travel: the slider to the middle shows that moment, "back to now" returns
        driver.execute_script("const s = document.getElementById('slider'); s.value = arguments[0];"
                              "s.dispatchEvent(new Event('input'));", total // 2)
        _wait(driver, lambda: state() == "travel")
        assert f"decision {total // 2} of {total}" in driver.find_element(By.ID, "status").text
        driver.find_element(By.ID, "now").click()
        _wait(driver, lambda: state() == "over")
        # the downloaded log replays to the same scores
        href = driver.find_element(By.ID, "download").get_attribute("href")
        with urllib.request.urlopen(href, timeout=30) as r:
            (tmp_path / "game.jsonl").write_bytes(r.read())
        out = subprocess.run([sys.executable, "-m", "interpreter.cli", "replay", str(tmp_path / "game.jsonl")],
                             capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert out.returncode == 0, out.stderr
        assert f"{total} decisions replayed" in out.stdout
        assert f"scores {[scores[i] for i in sorted(scores)]}" in out.stdout
    finally:
        driver.quit()
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(profile, ignore_errors=True)


def test_a_loaded_log_opens_for_time_travel(tmp_path, capsys):
    from interpreter.game import Rulebook
    from interpreter.play.replay import LogProblem
    from interpreter.play.session import Session
    from interpreter.play.web.server import GameServer
    log = tmp_path / "g.jsonl"
    assert main(["play", str(RULES / "iquazu"), "--players", "2", "--seed", "2", "--quiet", "--log", str(log)]) == 0
    rb = Rulebook.load(RULES / "iquazu")
    session = Session.from_log(rb, log)
    done = replay_log(log)
    assert session.state.is_terminal() and session.state.scores() == done.state.scores()
    gs = GameServer(rb, session)
    p = gs.payload("1", 5)["game"]              # a finished game: any seat's view, at any decision
    assert p["at"] == 5 and p["viewer"] == 1 and p["open_view"]
    with pytest.raises(LogProblem, match="not a game of"):
        Session.from_log(Rulebook.load(RULES / "yak"), log)


@pytest.mark.slow
def test_hot_seat_in_the_browser_hides_the_board_between_people(tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    driver, profile = _browser()
    proc, base = _serve("yak", tmp_path / "serve.sqlite")
    try:
        driver.get(base + "/?speed=0")
        body = driver.find_element(By.TAG_NAME, "body")
        _wait(driver, lambda: body.get_attribute("data-state") == "empty")
        for sel in driver.find_elements(By.CSS_SELECTOR, "#seatpicks select"):
            Select(sel).select_by_value("human")
        driver.find_element(By.ID, "start").click()
        _wait(driver, lambda: body.get_attribute("data-state") == "human")
        assert not driver.find_element(By.ID, "pass").is_displayed()
        driver.find_elements(By.CSS_SELECTOR, "button.opt")[0].click()     # Player 1 chooses a card in secret
        _wait(driver, lambda: driver.find_element(By.ID, "pass").is_displayed())
        assert "Pass to Player 2" in driver.find_element(By.ID, "passmsg").text
        driver.find_element(By.ID, "ready").click()
        assert not driver.find_element(By.ID, "pass").is_displayed()
        assert "Player 1: Choose the … card" in driver.find_element(By.ID, "story").text
        assert "Player 2 (you)" in driver.find_element(By.ID, "board").text
    finally:
        driver.quit()
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(profile, ignore_errors=True)
