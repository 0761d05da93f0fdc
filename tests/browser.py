"""Headless Debian chromium driven by selenium, for the browser tests (not a test module).

Needs the `web` extra (selenium) and Debian's chromium and chromium-driver
(`.ci/run` installs them); skips the calling test with a clear message when
they are missing.  Nothing is downloaded: selenium is pointed at the system's
chromedriver.
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

import pytest

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


def start_browser(width: int = 1400, height: int = 1000):
    """(driver, profile folder); the caller quits the driver and removes the folder."""
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.skip("the browser test needs Debian's chromium and chromium-driver (apt-get install chromium "
                    "chromium-driver; .ci/run does it)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="the browser test needs selenium (the web extra)")
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    profile = tempfile.mkdtemp(prefix="regelwerk-chromium-")
    for a in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              f"--user-data-dir={profile}", f"--window-size={width},{height}"]:
        opts.add_argument(a)
    opts.binary_location = CHROMIUM
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    return driver, profile


def wait_until(cond, timeout: float = 30) -> None:
    """Poll ``cond()`` every 50 ms until it is true; AssertionError after ``timeout`` seconds."""
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return
        time.sleep(0.05)
    raise AssertionError("the page did not get there")


def click_a_choice(driver, rng, within: str = "") -> None:
    """Click one of the page's choices at random: an option's button (``button.opt``), or, where an
    action with many options is chosen in steps (issue 38), a step's button (``button.step``) and
    then on until an option's button is there."""
    from selenium.webdriver.common.by import By
    for _ in range(10):
        opts = driver.find_elements(By.CSS_SELECTOR, f"{within} button.opt".strip())
        steps = driver.find_elements(By.CSS_SELECTOR, f"{within} button.step".strip())
        if opts and (not steps or rng.random() < 0.5):
            driver.execute_script("arguments[0].click()", rng.choice(opts))
            return
        if not steps:
            break
        driver.execute_script("arguments[0].click()", rng.choice(steps))
        time.sleep(0.05)
    raise AssertionError("no choice to click on the page")
