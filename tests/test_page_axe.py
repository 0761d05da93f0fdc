"""An accessibility check of the page with axe-core in headless chromium (slow).

axe-core is the npm package (``npm install axe-core``: ``.ci/run`` installs it into
``node_modules/``; ``AXE_CORE_JS`` may name another ``axe.min.js``).  Each shipped game's page, at
its first decision and a few decisions later, on a desktop and a phone: no critical or serious
violation.
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


def _db() -> str:
    """A fresh table database for one server (serve keeps its tables in SQLite)."""
    import tempfile
    return str(Path(tempfile.mkdtemp(prefix="regelwerk-serve-")) / "serve.sqlite")


def axe_source() -> str:
    for path in (os.environ.get("AXE_CORE_JS"), ROOT / "node_modules" / "axe-core" / "axe.min.js",
                 Path("/usr/share/nodejs/axe-core/axe.min.js")):
        if path and Path(path).is_file():
            return Path(path).read_text(encoding="utf-8")
    pytest.skip("the accessibility test needs axe-core: npm install axe-core (or set AXE_CORE_JS)")


RUN = """
const done = arguments[arguments.length - 1];
axe.run(document, {resultTypes: ['violations']}).then(
  (r) => done(r.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious')
                          .map((v) => ({id: v.id, impact: v.impact, help: v.help,
                                        nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' '))}))),
  (e) => done([{id: 'axe failed', help: String(e)}]));
"""


@pytest.mark.slow
@pytest.mark.parametrize("width,height", [(1280, 800), (375, 812)])
def test_no_critical_or_serious_accessibility_violations(width, height):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    axe = axe_source()
    driver, profile = start_browser(width, height)
    driver.set_script_timeout(60)
    found = {}
    try:
        for game in GAMES:
            proc = subprocess.Popen([sys.executable, "-m", "interpreter.cli", "serve", str(RULES / game), "--port", "0",
                             "--db", _db()],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                                    env={**os.environ, "PYTHONPATH": str(ROOT)})
            base = re.search(r"(http://127\.0\.0\.1:\d+)/", proc.stdout.readline()).group(1)
            try:
                driver.get(base + "/?speed=0")
                body = driver.find_element(By.TAG_NAME, "body")
                _wait(lambda: body.get_attribute("data-state") == "empty")
                driver.execute_script(axe)
                found[(game, "new game form")] = driver.execute_async_script(RUN)
                Select(driver.find_element(By.ID, "players")).select_by_value("2")
                driver.find_element(By.ID, "start").click()
                for step in range(3):
                    _wait(lambda: body.get_attribute("data-state") in ("human", "over"))
                    found[(game, f"decision {step + 1}")] = driver.execute_async_script(RUN)
                    if body.get_attribute("data-state") == "over":
                        break
                    before = body.get_attribute("data-decisions")
                    driver.execute_script("arguments[0].click()", driver.find_elements(By.CSS_SELECTOR, "button.opt")[0])
                    _wait(lambda: body.get_attribute("data-decisions") != before)
            finally:
                proc.terminate()
                proc.wait(timeout=10)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    bad = {k: v for k, v in found.items() if v}
    assert not bad, "\n".join(f"{g} ({when}) at {width} px: {v['impact']} {v['id']}: {v['help']} {v.get('nodes')}"
                              for (g, when), vs in bad.items() for v in vs)
