"""Big choices made in steps (issue 38): the options of an action grouped by its parameters, one
step at a time, in the terminal at 80×24 and on a 375 px page."""
import json
from pathlib import Path
import os
import pty
import re
import select
import subprocess
import sys
import time
import fcntl
import struct
import termios

import pytest

from conftest import ROOT, RULES
from interpreter.game import Rulebook
from interpreter.play.view import build_view
from interpreter.play.view.steps import back, menu, stepped_groups

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[()][A-Z0-9]|\r")
CLEAR = "\x1b[2J"
QUILT = ROOT / "tests" / "rulebooks" / "patch_quilt"


class Pty:
    """A command in a terminal of ``cols``×``rows``: read its screen up to the prompt, type a line."""

    def __init__(self, cmd, env, cols=80, rows=24):
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=env["HOME"],
                                     start_new_session=True)
        os.close(slave)
        self.out = ""

    def screen(self, timeout=60.0) -> str:
        """What is on the screen once the program waits at its prompt (since the last clear)."""
        raw = b""
        deadline = time.time() + timeout
        while time.time() < deadline:
            ready, _, _ = select.select([self.master], [], [], 0.5)
            if ready:
                chunk = os.read(self.master, 65536)
                if not chunk:
                    break
                raw += chunk
                if ANSI.sub("", raw.decode("utf-8", "replace")).rstrip().endswith(">"):
                    break
            elif self.proc.poll() is not None:
                break
        text = raw.decode("utf-8", "replace")
        self.out += text
        return ANSI.sub("", self.out.split(CLEAR)[-1])

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def close(self):
        try:
            self.type("quit")
            self.proc.wait(timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
        os.close(self.master)


def _entries(screen):
    """number -> text of each numbered entry of the choices (several to a line, in columns), read
    from the line that names the action ("place" or "place · star 2 …") to the prompt."""
    lines = screen.split("\n")
    start = max(i for i, line in enumerate(lines) if line.strip() == "place" or line.startswith("place · "))
    screen = "\n".join(lines[start + 1:-1])
    return {int(n): t.strip() for n, t in re.findall(r"(?:^|\s)(\d+) (\S.*?)(?=\s{2,}\d+ |\s*$)", screen, re.M)}


def _fits(screen):
    lines = screen.rstrip("\n").split("\n")
    assert len(lines) <= 24, screen
    assert max(len(x) for x in lines) <= 80, screen
    assert lines[-1].rstrip().endswith(">"), lines[-3:]


def test_an_azul_tile_is_placed_at_80_by_24_by_steps(tmp_path):
    """The placing phase (up to 85 options) asks the star, then the space, then the colour and the
    jokers where there is a choice: every screen fits 80×24 and the tile lands where chosen."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(PYTHONPATH=str(ROOT), TERM="xterm-256color", HOME=str(tmp_path), REGELWERK_LOGS=str(tmp_path / "logs"))
    log = tmp_path / "game.jsonl"
    term = Pty([sys.executable, "-m", "interpreter.cli", "play", str(RULES / "azul_summer_pavilion"), "--players", "2",
                "--seats", "human,random", "--seed", "5", "--log", str(log)], env)
    try:
        chosen = []
        for _ in range(60):                      # take tiles (the first choice) until the placing phase
            screen = term.screen()
            _fits(screen)
            if re.search(r"^\s*1 star \d+ ▸\d+", screen, re.M):
                break
            term.type("1")
        else:
            pytest.fail("no placing phase reached: " + screen)
        # step 1: the stars (a few entries, each leading to its spaces), and pass on its own
        entries = _entries(screen)
        stars = {n: t for n, t in entries.items() if t.startswith("star ")}
        assert 2 <= len(stars) <= 7 and len(entries) <= 8, entries
        n, text = max(stars.items(), key=lambda kv: int(kv[1].split("▸")[1]))   # the star with most choices
        star = int(text.split()[1])
        term.type(str(n))
        chosen.append(f"star={star}")
        for _ in range(4):                      # then the space, the colour, the jokers: until a tile is placed
            screen = term.screen()
            _fits(screen)
            head = next(line for line in screen.split("\n") if line.startswith("place · "))
            assert f"star {star}" in head and "(0: back)" in head, head
            entries = _entries(screen)
            assert 1 <= len(entries) <= 12, entries
            n, text = min(entries.items())
            term.type(str(n))
            if "▸" not in text:
                break
        screen = term.screen()
        _fits(screen)
    finally:
        term.close()
    # the decision saved: a place on the chosen star, by the person (the log's first move of that kind)
    moves = [json.loads(x) for x in log.read_text().splitlines()[1:]]
    placed = [m["action"] for m in moves if m["seat"] == 0 and m["action"].startswith("place(")]
    assert placed[0].startswith(f"place(star={star},"), placed[:1]


def _placing_view(seed=5):
    import random
    st = Rulebook.load(RULES / "azul_summer_pavilion").new_game(2, seed)
    r = random.Random(1)
    while True:
        v = build_view(st, st.current_player())
        if any(g["action"] == "place" and len(g["options"]) > 30 for g in v["actions"]):
            return v
        st.apply_action(r.choice(st.legal_actions()))


def test_the_steps_reach_every_option_once_and_back_returns():
    """Walking every step of every entry finds each legal option exactly once; 0 goes back."""
    view = _placing_view()
    stepped = stepped_groups(view)
    assert stepped == {"place"}
    found = []

    def walk(path):
        m = menu(view, path, stepped)
        assert len(m["entries"]) <= 12
        for e in m["entries"]:
            if "id" in e:
                found.append(e["id"])
            else:
                walk(e["path"])
                assert back(view, e["path"]) == path or menu(view, back(view, e["path"]), stepped) == m
    walk(None)
    every = [o["id"] for g in view["actions"] for o in g["options"]]
    assert sorted(found) == sorted(every) and len(found) == len(set(found))


def test_a_shaped_piece_is_drawn_in_each_of_its_turns():
    """patch_quilt (display: steps: sew: [t, o, [r, c]], covers:): the turn step draws each shape."""
    st = Rulebook.load(QUILT).new_game(2, 3)
    view = build_view(st, 0)
    sew = next(g for g in view["actions"] if g["action"] == "sew")
    assert [s["params"] for s in sew["steps"]] == [["t"], ["o"], ["r", "c"]]
    m = menu(view, None, stepped_groups(view))
    patches = [e for e in m["entries"] if e.get("path")]
    assert patches and all(e["text"].startswith("patch ") for e in patches)
    turns = menu(view, max(patches, key=lambda e: e["count"])["path"], stepped_groups(view))
    shapes = [tuple(map(tuple, e["shape"])) for e in turns["entries"]]
    assert len(shapes) == len(set(shapes)) >= 2            # each turn a different shape
    for e in turns["entries"]:
        o = e["option"]
        cells = o["cover"]["cells"]
        r, c = int(o["params"]["r"]), int(o["params"]["c"])
        assert len(cells) == len(e["shape"])
        rows = [int(x.split("(")[1].split(",")[0]) for x in cells]
        cols = [int(x.split(",")[1].rstrip(")")) for x in cells]
        assert sorted([y - min(rows), x - min(cols)] for y, x in zip(rows, cols)) == e["shape"]
        assert min(rows) >= r and min(cols) >= c


def _serve(book):
    import tempfile
    db = str(Path(tempfile.mkdtemp(prefix="regelwerk-serve-")) / "serve.sqlite")
    proc = subprocess.Popen([sys.executable, "-m", "interpreter.cli", "serve", str(book), "--port", "0", "--db", db],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    m = re.search(r"(http://127\.0\.0\.1:\d+)/", proc.stdout.readline())
    assert m, proc.stderr.read()
    global KEY
    for _ in range(5):                  # the banner's creator's link: making tables in the lobby needs it
        k = re.search(r"/lobby\?key=(\S+)", proc.stdout.readline())
        if k:
            KEY = k.group(1)
            break
    return proc, m.group(1)


KEY = ""    # the creator's key of the last server _serve started


@pytest.mark.slow
def test_a_shaped_piece_is_played_by_pointing_on_a_375_px_page():
    """patch_quilt on a phone: the choices sit above the board; choose the patch, then its turn
    (each drawn), then the quilt is the choice: the cells where it fits are marked, pointing at
    one shows the piece there, a click sews it onto exactly those cells."""
    import shutil
    from browser import start_browser, wait_until
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    pytest.importorskip("starlette", reason="browser play needs the web extra")
    driver, profile = start_browser(375, 812)
    proc, base = _serve(QUILT)
    try:
        driver.set_window_size(375, 812)
        driver.get(base + "/?speed=0")
        body = driver.find_element(By.TAG_NAME, "body")
        wait_until(lambda: body.get_attribute("data-state") == "empty")
        Select(driver.find_element(By.ID, "players")).select_by_value("2")
        seats = driver.find_elements(By.CSS_SELECTOR, "#seatpicks select")
        Select(seats[0]).select_by_value("human")
        Select(seats[1]).select_by_value("random")
        driver.find_element(By.ID, "seed").clear()
        driver.find_element(By.ID, "seed").send_keys("3")
        driver.find_element(By.ID, "start").click()
        wait_until(lambda: body.get_attribute("data-state") == "human")
        # the choices are on the first screen, above the board
        top = driver.execute_script("return [document.getElementById('actions').getBoundingClientRect().top,"
                                    " document.getElementById('board').getBoundingClientRect().top, window.innerHeight]")
        assert top[0] < top[1] and top[0] < top[2], top
        # step 1: the patches (each with its shape), step 2: its turns
        patches = driver.find_elements(By.CSS_SELECTOR, "#actions .steps button.step")
        assert patches and all(b.find_elements(By.CSS_SELECTOR, ".shape .on") for b in patches)
        assert all(b.text.startswith("patch ") for b in patches), [b.text for b in patches]
        max(patches, key=lambda b: int(b.find_element(By.CSS_SELECTOR, ".n").text)).click()
        wait_until(lambda: driver.find_elements(By.CSS_SELECTOR, "#actions .steps button.step .shape")
                   or driver.find_elements(By.CSS_SELECTOR, "#actions [data-pointing]"))
        turns = driver.find_elements(By.CSS_SELECTOR, "#actions .steps button.step")
        if turns:
            shapes = {b.find_element(By.CSS_SELECTOR, ".shape").get_attribute("innerHTML") for b in turns}
            assert len(shapes) == len(turns) >= 2           # each turn drawn as a different shape
            turns[1].click()
        wait_until(lambda: driver.find_elements(By.CSS_SELECTOR, "#actions [data-pointing]"))
        # the quilt is the choice: marked cells on Player 1's quilt only
        fits = driver.find_elements(By.CSS_SELECTOR, "#board .zone.fits")
        places = int(re.search(r"\((\d+) places\)", driver.find_element(By.CSS_SELECTOR, "#actions .point").text).group(1))
        assert len(fits) == places >= 10            # every place marked (no row of the quilt folded away)
        assert all(f.get_attribute("data-zone").startswith("quilt[0] ") for f in fits)
        cell = fits[len(fits) // 2]
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", cell)
        ActionChains(driver).move_to_element(cell).perform()
        wait_until(lambda: driver.find_elements(By.CSS_SELECTOR, "#board .zone.shadow"))
        shadow = sorted(z.get_attribute("data-zone") for z in driver.find_elements(By.CSS_SELECTOR, "#board .zone.shadow"))
        assert cell.get_attribute("data-zone") in shadow and len(shadow) >= 2
        before = body.get_attribute("data-decisions")
        cell.click()
        wait_until(lambda: body.get_attribute("data-decisions") != before)
        wait_until(lambda: body.get_attribute("data-state") in ("human", "over"))
        # the patch now covers exactly the cells the shadow showed
        story = driver.find_element(By.ID, "story").text
        assert "Player 1: Sew patch" in story, story
        covered = driver.execute_script(
            "return [...document.querySelectorAll('#board [data-zone^=\"quilt[0] \"]')]"
            ".filter((z) => z.querySelector('.comp')).map((z) => z.dataset.zone).sort()")
        assert covered == shadow, (covered, shadow)
        # time travel to the start: the story is cut back to before the first decision
        driver.execute_script("const s = document.getElementById('slider'); s.value = 0;"
                              " s.dispatchEvent(new Event('input'))")
        wait_until(lambda: body.get_attribute("data-state") == "travel")
        wait_until(lambda: "Sew patch" not in driver.find_element(By.ID, "story").text)
        assert "Player 2:" not in driver.find_element(By.ID, "story").text
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


AXE_RUN = """
const done = arguments[arguments.length - 1];
axe.run(document, {resultTypes: ['violations']}).then(
  (r) => done(r.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious')
                          .map((v) => ({id: v.id, impact: v.impact, help: v.help,
                                        nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' '))}))),
  (e) => done([{id: 'axe failed', help: String(e)}]));
"""


@pytest.mark.slow
@pytest.mark.parametrize("width,height", [(375, 812), (1280, 800)])
def test_no_serious_accessibility_violation_in_steps_pointing_lobby_and_table(width, height):
    """axe-core on the pages this issue changed: each step of sewing a patch (the quilt as the
    choice), Azul's placing phase in steps, the lobby and a table's seat page."""
    import shutil
    from browser import start_browser, wait_until
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    from test_page_axe import axe_source
    pytest.importorskip("starlette", reason="browser play needs the web extra")
    axe = axe_source()
    driver, profile = start_browser(width, height)
    driver.set_script_timeout(60)
    found = {}

    def check(what):
        driver.execute_script(axe)
        found[what] = driver.execute_async_script(AXE_RUN)

    def start(base, seed="1"):
        driver.get(base + "/?speed=0")
        body = driver.find_element(By.TAG_NAME, "body")
        wait_until(lambda: body.get_attribute("data-state") == "empty")
        Select(driver.find_element(By.ID, "players")).select_by_value("2")
        seats = driver.find_elements(By.CSS_SELECTOR, "#seatpicks select")
        Select(seats[0]).select_by_value("human")
        Select(seats[1]).select_by_value("random")
        driver.find_element(By.ID, "seed").clear()
        driver.find_element(By.ID, "seed").send_keys(seed)
        driver.find_element(By.ID, "start").click()
        wait_until(lambda: body.get_attribute("data-state") == "human")
        return body

    try:
        proc, base = _serve(QUILT)
        try:
            start(base, "3")
            check("patch_quilt: the patches")
            driver.find_elements(By.CSS_SELECTOR, "#actions button.step")[0].click()
            if driver.find_elements(By.CSS_SELECTOR, "#actions button.step"):
                check("patch_quilt: the turns")
                driver.find_elements(By.CSS_SELECTOR, "#actions button.step")[0].click()
            wait_until(lambda: driver.find_elements(By.CSS_SELECTOR, "#board .zone.fits"))
            check("patch_quilt: the quilt as the choice")
            # the lobby, a table made there, and a seat's page at that table
            driver.get(base + "/lobby?key=" + KEY)         # the creator's link
            wait_until(lambda: driver.find_elements(By.CSS_SELECTOR, "#rulebook option"))
            check("lobby")
            driver.find_element(By.ID, "start").click()
            wait_until(lambda: driver.find_elements(By.CSS_SELECTOR, "#links a.seatlink"))
            check("lobby: a table made")
            driver.get(driver.find_elements(By.CSS_SELECTOR, "#links a.seatlink")[0].get_attribute("href"))
            wait_until(lambda: driver.find_element(By.TAG_NAME, "body").get_attribute("data-state") in ("mine", "waiting"))
            check("a seat's page at a table")
        finally:
            proc.terminate()
            proc.wait(timeout=10)
        proc, base = _serve(RULES / "azul_summer_pavilion")
        try:
            body = start(base, "5")
            for _ in range(40):             # take tiles until the placing phase asks in steps
                if driver.find_elements(By.CSS_SELECTOR, "#actions .steps"):
                    break
                before = body.get_attribute("data-decisions")
                driver.execute_script("arguments[0].click()", driver.find_elements(By.CSS_SELECTOR, "#actions button.opt")[0])
                wait_until(lambda: body.get_attribute("data-decisions") != before)
                wait_until(lambda: body.get_attribute("data-state") == "human")
            assert driver.find_elements(By.CSS_SELECTOR, "#actions .steps button.step")
            check("azul: the stars")
            driver.find_elements(By.CSS_SELECTOR, "#actions .steps button.step")[0].click()
            check("azul: a star's spaces")
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    bad = {k: v for k, v in found.items() if v}
    assert not bad, "\n".join(f"{what} at {width} px: {v['impact']} {v['id']}: {v['help']} {v.get('nodes')}"
                              for what, vs in bad.items() for v in vs)
    assert len(found) >= 7              # (the turns step only for a patch with more than one)


def test_o_draws_another_seat_s_board_in_full_on_the_compact_screen():
    """The compact screen shows each other seat in a line; ``o`` draws the next one's board in full."""
    import io
    from rich.console import Console
    from interpreter.play.session import Session
    from interpreter.play.tui import TerminalPlay
    session = Session(Rulebook.load(QUILT), 2, 3, seats="human,random")
    typed = iter(["4", "o", "o", "quit"])            # rest (so that Player 2 sews), then the boards
    out = io.StringIO()
    screens = []

    def read(prompt):
        screens.append(out.getvalue())
        out.seek(0)
        out.truncate()
        return next(typed)
    TerminalPlay(session, "/dev/null", Console(file=out, width=80, height=24, color_system=None), read, compact=True).run()
    second, shown, hidden = screens[1], screens[2], screens[3]
    assert "Player 2  (o: next board)" not in second and "Player 2  (o: next board)" in shown
    assert "Player 2  (o: next board)" not in hidden
    theirs = shown.split("Player 2  (o: next board)")[1].split("\nsew")[0]
    sewn = session.state.observation(0)["zones"]["quilt[1]"]
    assert sewn and re.search(r"^quilt:", theirs, re.M) and all(label in theirs for label in sewn)   # cell by cell
    assert all(len(x) <= 24 for x in (second.rstrip("\n").split("\n"), shown.rstrip("\n").split("\n")))


def test_the_story_leaves_out_log_lines_that_repeat_the_decision():
    """Moonlight Market: "Player 1 bids 8 at pillow 1" after "Player 1: Bid your card 8 at pillow 1" is
    left out of the story; "overbids … and pays a seal" (news) stays; the log keeps every line."""
    from interpreter.play.session import Session
    s = Session(Rulebook.load(RULES / "moonlight_market"), 3, 1, seats="random,random")
    s.run_bots()
    story = s.tell(s.story, None)
    assert any(x.startswith("Player ") and ": Bid your card" in x for x in story)
    assert not any(re.match(r"  Player \d bids \d+ at pillow \d", x) for x in story)
    assert any("overbids" in x for x in story) or not any("overbids" in x for x in s.state.log)
    assert any(re.match(r"Player \d bids \d+ at pillow \d", x) for x in s.state.log)


def test_a_step_is_chosen_by_its_words_too():
    """"patch 5", then a turn's number, then "3 4": the piece lands with its top left at row 3, column 4."""
    import io
    from rich.console import Console
    from interpreter.play.session import Session
    from interpreter.play.tui import TerminalPlay
    session = Session(Rulebook.load(QUILT), 2, 3, seats="human,random")
    typed = iter(["patch 5", "2", "3 4", "quit"])
    TerminalPlay(session, "/dev/null", Console(file=io.StringIO(), width=80, height=24, color_system=None),
                 lambda prompt: next(typed), compact=True).run()
    assert session.history[0] == (0, "sew(t=p5,o=1,r=3,c=4)")
