"""Pictures of the page for docs/screenshots (not a test module): each shipped game at 1280×800 and
375×812, at its first decision and in mid-game (a person against a random bot, seed 1, the person
choosing at random with seed 1).  Run: ``python tests/screenshots.py [DIR]`` (Debian's chromium and
chromedriver and the web extra)."""
from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from browser import start_browser, wait_until as _wait            # noqa: E402
from conftest import ROOT, RULES, SHIPPED    # noqa: E402

SIZES = [(1280, 800), (375, 812)]
MID = {"azul_summer_pavilion": 30, "iquazu": 14, "moonlight_market": 14, "yak": 16}


def _db() -> str:
    """A fresh table database for one server (serve keeps its tables in SQLite)."""
    import tempfile
    return str(Path(tempfile.mkdtemp(prefix="regelwerk-serve-")) / "serve.sqlite")


def shoot(out: Path) -> list:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    out.mkdir(parents=True, exist_ok=True)
    made = []
    for width, height in SIZES:
        driver, profile = start_browser(width, height)
        try:
            driver.set_window_size(width, height)
            inner = driver.execute_script("return window.innerHeight")
            driver.set_window_size(width, height + (height - inner))      # the page itself gets height px
            for game in SHIPPED:
                proc = subprocess.Popen([sys.executable, "-m", "interpreter.cli", "serve", str(RULES / game),
                                         "--port", "0",
                             "--db", _db()], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
                base = re.search(r"(http://127\.0\.0\.1:\d+)/", proc.stdout.readline()).group(1)
                try:
                    driver.get(base + "/?speed=0")
                    body = driver.find_element(By.TAG_NAME, "body")
                    wait = lambda cond: _wait(cond)                       # noqa: E731
                    wait(lambda: body.get_attribute("data-state") == "empty")
                    Select(driver.find_element(By.ID, "players")).select_by_value("2")
                    driver.find_element(By.ID, "start").click()
                    rng = random.Random(1)
                    for stage, moves in (("start", 0), ("mid", MID[game])):
                        for _ in range(moves):
                            wait(lambda: body.get_attribute("data-state") in ("human", "over"))
                            if body.get_attribute("data-state") == "over":
                                break
                            before = body.get_attribute("data-decisions")
                            buttons = driver.find_elements(By.CSS_SELECTOR, "button.opt")
                            driver.execute_script("arguments[0].click()", rng.choice(buttons))
                            wait(lambda: body.get_attribute("data-decisions") != before)
                        wait(lambda: body.get_attribute("data-state") in ("human", "over"))
                        driver.execute_script("window.scrollTo(0, 0)")
                        time.sleep(0.3)
                        path = out / f"{game}-{width}-{stage}.png"
                        driver.save_screenshot(str(path))
                        made.append(path)
                finally:
                    proc.terminate()
                    proc.wait(timeout=10)
        finally:
            driver.quit()
            shutil.rmtree(profile, ignore_errors=True)
    return made


if __name__ == "__main__":
    for p in shoot(Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "docs" / "screenshots")):
        print(p)
