"""The page (headless chromium, slow): a person named on the new-game form enters a bid as a
number (an action whose one parameter is a range), not by picking it from a list."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from browser import start_browser, wait_until
from conftest import ROOT

pytest.importorskip("starlette", reason="browser play needs the web extra: pip install -e '.[web]'")


@pytest.mark.slow
def test_a_named_person_enters_a_bid_as_a_number_on_the_page():
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select
    db = str(Path(tempfile.mkdtemp(prefix="regelwerk-serve-")) / "serve.sqlite")
    proc = subprocess.Popen([sys.executable, "-m", "interpreter.cli", "serve",
                             str(ROOT / "tests" / "rulebooks" / "sealed_bids"), "--port", "0", "--db", db],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    m = re.search(r"(http://127\.0\.0\.1:\d+)/", proc.stdout.readline())
    assert m, proc.stderr.read()
    driver, profile = start_browser(1280, 900)
    try:
        driver.get(m.group(1) + "/?speed=0")
        body = driver.find_element(By.TAG_NAME, "body")
        wait_until(lambda: body.get_attribute("data-state") == "empty")
        Select(driver.find_element(By.ID, "players")).select_by_value("2")
        driver.find_elements(By.CSS_SELECTOR, "input.seatname")[0].send_keys("Ann")
        driver.find_element(By.ID, "start").click()
        wait_until(lambda: body.get_attribute("data-state") == "human")
        # one number input for the bid (0 to 6 coins), no button per amount
        box = driver.find_element(By.CSS_SELECTOR, "input.numberpick")
        assert (box.get_attribute("min"), box.get_attribute("max")) == ("0", "6")
        assert not driver.find_elements(By.CSS_SELECTOR, 'button.opt[data-id="bid(amount=3)"]')
        box.clear()
        box.send_keys("9", Keys.ENTER)                  # not a legal bid: said, nothing sent
        wait_until(lambda: "0 to 6" in driver.find_element(By.ID, "actions").text)
        assert body.get_attribute("data-decisions") == "0"
        box.clear()
        box.send_keys("5", Keys.ENTER)
        wait_until(lambda: body.get_attribute("data-decisions") not in ("0", None))
        story = driver.find_element(By.ID, "story").text
        assert "Ann" in story and "bid" in story and "5" in story, story
    finally:
        driver.quit()
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(profile, ignore_errors=True)
