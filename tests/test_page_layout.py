"""The page on a phone (375 px), a tablet (768 px) and a desktop, in headless chromium (slow).

At each width, for each shipped game, at its first decision and a few decisions later: no
horizontal scrolling, the board at least 300 px wide, every choice a button that can be
scrolled to and is not covered, and every choosable space reachable with the keyboard.
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from browser import start_browser, wait_until as _wait
from conftest import ROOT, RULES, game_folders

pytest.importorskip("starlette", reason="browser play needs the web extra: pip install -e '.[web]'")

GAMES = [p.name for p in game_folders()]

REACHABLE = """
const out = [];
for (const b of document.querySelectorAll('button.opt')) {
  b.scrollIntoView({block: 'center'});
  const r = b.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  if (!(r.width > 0 && r.left >= 0 && r.right <= window.innerWidth + 0.5 && hit && b.contains(hit)))
    out.push(b.textContent);
}
window.scrollTo(0, 0);
return out;
"""


def _db() -> str:
    """A fresh table database for one server (serve keeps its tables in SQLite)."""
    import tempfile
    return str(Path(tempfile.mkdtemp(prefix="regelwerk-serve-")) / "serve.sqlite")


def _serve(game):
    proc = subprocess.Popen([sys.executable, "-m", "interpreter.cli", "serve", str(RULES / game), "--port", "0",
                             "--db", _db()],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    m = re.search(r"(http://127\.0\.0\.1:\d+)/", proc.stdout.readline())
    assert m, proc.stderr.read()
    return proc, m.group(1)


@pytest.mark.slow
@pytest.mark.parametrize("width,height", [(375, 812), (768, 1024), (1280, 800)])
def test_the_page_fits_phones_tablets_and_desktops(width, height):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    driver, profile = start_browser(width, height)
    try:
        driver.set_window_size(width, height)
        for game in GAMES:
            proc, base = _serve(game)
            try:
                driver.get(base + "/?speed=0")
                body = driver.find_element(By.TAG_NAME, "body")
                state = lambda: body.get_attribute("data-state")                   # noqa: E731
                _wait(lambda: state() == "empty")
                assert driver.execute_script("return window.innerWidth") <= width
                Select(driver.find_element(By.ID, "players")).select_by_value("2")
                seats = driver.find_elements(By.CSS_SELECTOR, "#seatpicks select")
                Select(seats[0]).select_by_value("human")
                Select(seats[1]).select_by_value("random")
                driver.find_element(By.ID, "start").click()
                for step in range(4):
                    _wait(lambda: state() in ("human", "over"))
                    if state() == "over":
                        break
                    inner, scroll, board = driver.execute_script(
                        "return [window.innerWidth, document.documentElement.scrollWidth,"
                        " document.getElementById('board').getBoundingClientRect().width]")
                    where = f"{game} at {width} px, decision {step + 1}"
                    assert scroll <= inner, f"{where}: the page scrolls sideways ({scroll} > {inner})"
                    assert board >= min(300, inner - 20), f"{where}: the board is {board} px wide"
                    buttons = driver.find_elements(By.CSS_SELECTOR, "button.opt")
                    assert buttons, where
                    assert driver.execute_script(REACHABLE) == [], where
                    for b in buttons:
                        assert "=" not in b.text, (where, b.text)
                    # every space or component that chooses is reached with Tab: itself, or (a space whose
                    # components choose: no button inside a button) its components
                    zones = driver.find_elements(By.CSS_SELECTOR, ".zone.clickable, .comp.clickable")
                    assert all(z.get_attribute("tabindex") == "0"
                               or z.find_elements(By.CSS_SELECTOR, ".comp.clickable[tabindex='0']")
                               for z in zones), where
                    before = body.get_attribute("data-decisions")
                    driver.execute_script("arguments[0].click()", buttons[0])
                    _wait(lambda: body.get_attribute("data-decisions") != before or state() == "over")
            finally:
                proc.terminate()
                proc.wait(timeout=10)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.mark.slow
def test_a_choosable_space_is_taken_with_the_keyboard():
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select
    driver, profile = start_browser(375, 812)
    proc, base = _serve("azul_summer_pavilion")
    try:
        driver.get(base + "/?speed=0")
        body = driver.find_element(By.TAG_NAME, "body")
        _wait(lambda: body.get_attribute("data-state") == "empty")
        Select(driver.find_element(By.ID, "players")).select_by_value("2")
        driver.find_element(By.ID, "start").click()
        _wait(lambda: body.get_attribute("data-state") == "human")
        # a factory: its tiles are the keys (display: pick:); Enter on one takes all tiles of its colour
        zone = driver.find_element(By.CSS_SELECTOR, ".zone.clickable")
        tile = zone.find_element(By.CSS_SELECTOR, ".comp.clickable")
        colour, factory = tile.get_attribute("data-label"), zone.get_attribute("data-zone")
        before = body.get_attribute("data-decisions")
        tile.send_keys(Keys.ENTER)
        _wait(lambda: body.get_attribute("data-decisions") != before)
        story = driver.find_element(By.ID, "story").text
        assert f"Player 1: Take all {colour} tiles from factory {factory[len('factory['):-1]}" in story
    finally:
        driver.quit()
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(profile, ignore_errors=True)
