"""The rules document in headless chromium (slow): it opens, prints to PDF on A4 and letter with
nothing wider than the page, and axe-core finds no critical or serious violation.

Needs chromium and chromedriver (tests/browser.py) and axe-core (``npm install axe-core``, or
``AXE_CORE_JS`` naming ``axe.min.js``); skips without them.
"""
from __future__ import annotations

import base64
import os
import re
import shutil
from pathlib import Path

import pytest

from browser import start_browser
from conftest import ROOT, RULES, SHIPPED
from interpreter.cli import main

# the printable width of each paper at 96 px an inch, margins of 14 mm each side (the style sheet's @page)
PAPERS = {"A4": (8.27, 11.69), "letter": (8.5, 11.0)}
RUN_AXE = """
const done = arguments[arguments.length - 1];
axe.run(document, {resultTypes: ['violations']}).then(
  (r) => done(r.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious')
                          .map((v) => ({id: v.id, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' '))}))),
  (e) => done([{id: 'axe failed', help: String(e)}]));
"""


def _axe() -> str:
    for path in (os.environ.get("AXE_CORE_JS"), ROOT / "node_modules" / "axe-core" / "axe.min.js",
                 Path("/usr/share/nodejs/axe-core/axe.min.js")):
        if path and Path(path).is_file():
            return Path(path).read_text(encoding="utf-8")
    pytest.skip("the accessibility test needs axe-core: npm install axe-core (or set AXE_CORE_JS)")


@pytest.mark.slow
def test_the_rules_document_prints_and_passes_axe(tmp_path):
    axe = _axe()
    driver, profile = start_browser(1280, 900)
    driver.set_script_timeout(60)
    found, overflow, pages = {}, {}, {}
    try:
        for game in SHIPPED:
            out = tmp_path / f"{game}.html"
            assert main(["rules", str(RULES / game), "--out", str(out)]) == 0
            driver.get(out.as_uri())
            heading = driver.execute_script("return document.querySelector('h1').textContent")
            assert driver.title == f"{heading}: the rules"
            driver.execute_script(axe)
            found[game] = driver.execute_async_script(RUN_AXE)
            for paper, (w, h) in PAPERS.items():
                pdf = base64.b64decode(driver.execute_cdp_cmd("Page.printToPDF", {
                    "paperWidth": w, "paperHeight": h, "preferCSSPageSize": False, "printBackground": True})["data"])
                assert pdf.startswith(b"%PDF")
                pages[(game, paper)] = len(re.findall(rb"/Type\s*/Page\b", pdf))
                # laid out as printed, at the paper's printable width: nothing wider than the page
                width = int((w * 25.4 - 28) / 25.4 * 96)
                driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
                driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                       {"width": width, "height": 1000, "deviceScaleFactor": 1, "mobile": False})
                overflow[(game, paper)] = driver.execute_script(
                    "return [...document.querySelectorAll('main *')].filter("
                    "e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).length")
                driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
                driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    assert {g: v for g, v in found.items() if v} == {}
    assert {k: v for k, v in overflow.items() if v} == {}
    assert all(n >= 3 for n in pages.values()), pages
