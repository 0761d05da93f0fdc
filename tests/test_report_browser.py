"""The report page opens in headless chromium without errors and shows every plot.

Set REGELWERK_SCREENSHOTS=docs/screenshots to save a picture of the page.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from browser import start_browser
from conftest import RULES
from interpreter.cli import main

pytest.importorskip("matplotlib", reason="reports need the report extra (pip install -e '.[report]')")


@pytest.mark.slow     # 4-7 s each: moved out of the default run, which must stay under 5 minutes
def test_the_report_page_opens_without_errors(tmp_path):
    out = tmp_path / "report"
    assert main(["report", str(RULES / "iquazu"), "--games", "20", "--players", "2", "--jobs", "1",
                 "--out", str(out)]) == 0
    driver, profile = start_browser(1200, 900)
    try:
        driver.get((out / "report.html").as_uri())
        assert driver.title == "Iquazú: balance report"
        images = driver.find_elements("css selector", "img")
        assert len(images) == 5
        for img in images:   # every plot is inlined and decoded: no file, no network
            assert driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", img)
            assert img.get_attribute("src").startswith("data:image/png;base64,")
        rows = driver.find_elements("css selector", "table.winrates tr[data-seat]")
        assert [r.get_attribute("data-seat") for r in rows] == ["0", "1", "first"]
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == []
        shots = os.environ.get("REGELWERK_SCREENSHOTS")
        if shots:
            height = driver.execute_script("return document.body.scrollHeight")
            driver.set_window_size(1200, min(height + 40, 4000))
            driver.save_screenshot(str(Path(shots) / "report.png"))
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
