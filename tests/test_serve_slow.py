"""`regelwerk serve` tables, slow suite: a crash (kill -9) and a restart, and two browsers at one table.

The crash test runs the server as a separate process (`regelwerk serve --db`), plays 30 decisions
on each of 5 tables over HTTP, kills it with SIGKILL and starts it again on the same database.
The browser test needs Debian's chromium and chromedriver (see tests/browser.py).
"""
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from browser import click_a_choice, start_browser
from conftest import ROOT, RULES

pytest.importorskip("starlette", reason="serve needs the web extra: pip install -e '.[web]'")

from interpreter.game import Rulebook                      # noqa: E402
from interpreter.engine.knowledge.observe import sees_zone           # noqa: E402
from interpreter.play.web.store import Store, effective_history  # noqa: E402
from interpreter.play.web.tables import state_hash              # noqa: E402

GAMES = [("yak", 2), ("iquazu", 3), ("azul_summer_pavilion", 2), ("moonlight_market", 4), ("yak", 4)]


def call(base, method, path, data=None):
    req = urllib.request.Request(base + path, method=method, data=None if data is None else json.dumps(data).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


KEYS = {}      # base address -> the creator's key the server printed


def start_server(db, *books, port=0):
    proc = subprocess.Popen([sys.executable, "-m", "interpreter.cli", "serve", *[str(RULES / b) for b in books],
                             "--port", str(port), "--db", str(db), "--bot-delay", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    lines = [proc.stdout.readline() for _ in range(3)]
    m = re.search(r"(http://127\.0\.0\.1:\d+)/", lines[0])
    key = re.search(r"/lobby\?key=(\S+)", lines[2])
    assert m and key, "".join(lines) + proc.stderr.read()
    KEYS[m.group(1)] = key.group(1)
    return proc, m.group(1)


@pytest.mark.slow
def test_kill_9_and_restart_loses_nothing_acknowledged(tmp_path):
    db = tmp_path / "serve.sqlite"
    books = sorted({g for g, _ in GAMES})
    proc, base = start_server(db, *books)
    tables = []
    try:
        for i, (game, n) in enumerate(GAMES):
            code, links = call(base, "POST", "/api/tables", {"rulebook": game, "players": n, "seed": 10 + i,
                                                            "seats": ["human"] * n, "undo": True,
                                                            "key": KEYS[base]})
            assert code == 200, links
            tables.append({"game": game, "n": n, "seed": 10 + i, "id": links["table"], "acked": [],
                           "tokens": [s["link"].rsplit("/", 1)[1] for s in links["seats"]]})

        def play(t, rng):
            while len(t["acked"]) < 30:
                seat = None
                for s, tok in enumerate(t["tokens"]):
                    code, p = call(base, "GET", f"/api/t/{tok}/state")
                    assert code == 200, p
                    if p["game"]["view"]["to_move"] == s and not p["game"]["over"]:
                        seat = s
                        break
                ids = [o["id"] for g in p["game"]["view"]["actions"] for o in g["options"]]
                action = rng.choice(ids)
                code, q = call(base, "POST", f"/api/t/{t['tokens'][seat]}/act",
                               {"action": action, "at": p["game"]["decisions"]})
                assert code == 200, q
                t["acked"].append((seat, action))          # acknowledged: the server said 200
        threads = [threading.Thread(target=play, args=(t, random.Random(i))) for i, t in enumerate(tables)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(timeout=300)
        assert all(len(t["acked"]) == 30 for t in tables)
        before = {t["id"]: [call(base, "GET", f"/api/t/{tok}/state")[1]["game"]["view"] for tok in t["tokens"]]
                  for t in tables}
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    # the same database, a new server: every table at the same decision, in the same state
    proc, base = start_server(db, *books)
    try:
        for t in tables:
            views = [call(base, "GET", f"/api/t/{tok}/state")[1]["game"] for tok in t["tokens"]]
            assert all(v["decisions"] == 30 for v in views)
            assert [v["view"] for v in views] == before[t["id"]]
        store = Store(db)
        for t in tables:
            rb = Rulebook.load(RULES / t["game"])
            fresh = rb.new_game(t["n"], t["seed"])
            for _, action in t["acked"]:
                fresh.apply_action(action)
            stored = effective_history(store.load(t["id"]).decisions)
            assert stored == t["acked"]                     # nothing acknowledged lost, nothing more
            replayed = rb.new_game(t["n"], t["seed"])
            for _, action in stored:
                replayed.apply_action(action)
            assert state_hash(replayed) == state_hash(fresh)
        store.close()
        # and play goes on where it was
        t = tables[0]
        for s, tok in enumerate(t["tokens"]):
            p = call(base, "GET", f"/api/t/{tok}/state")[1]["game"]
            if p["view"]["to_move"] == s:
                ids = [o["id"] for g in p["view"]["actions"] for o in g["options"]]
                assert call(base, "POST", f"/api/t/{tok}/act", {"action": ids[0], "at": 30})[0] == 200
                break
        assert call(base, "GET", f"/api/t/{t['tokens'][0]}/state")[1]["game"]["decisions"] == 31
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def hidden_labels(state, seat) -> set:
    """Labels of components only in zones ``seat`` may not see (none of that label where it may)."""
    hid, seen = set(), set()
    for z in state.lay.zones:
        if z.family == "box":
            continue
        (seen if sees_zone(state, z, seat) else hid).update(c.label for c in state.z[z.id])
    return hid - seen


@pytest.mark.slow
def test_two_browsers_play_a_whole_game_at_one_table(tmp_path):
    from selenium.webdriver.common.by import By
    from interpreter.play.web.server import make
    httpd, url, _ = make([Rulebook.load(RULES / "yak")], 0, db=tmp_path / "serve.sqlite", bot_delay=0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    hall, base = httpd.hall, url.rstrip("/")
    drivers = []
    evil = '<img src=x onerror="window.pwned=1">'
    try:
        a, pa = start_browser(1200, 900)
        drivers.append((a, pa))
        b, pb = start_browser(1200, 900)
        drivers.append((b, pb))
        # player A makes the table in the lobby (a name with HTML in it), sends B the second link
        a.get(base + "/lobby?key=" + hall.key)           # the creator's link
        wait(lambda: a.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "ready")
        a.find_element(By.CSS_SELECTOR, "#seatpicks .seatrow input").send_keys(evil)
        a.find_element(By.ID, "seed").send_keys("11")
        a.find_element(By.ID, "start").click()
        wait(lambda: a.find_elements(By.CSS_SELECTOR, "#linklist input"))
        urls = [x.get_attribute("value") for x in a.find_elements(By.CSS_SELECTOR, "#linklist .link input")]
        assert len(urls) == 3 and all("/t/" in u for u in urls)
        assert not a.find_elements(By.CSS_SELECTOR, "#tables img")                   # the name is text
        assert evil in a.find_element(By.ID, "tables").text
        a.get(urls[0])
        b.get(urls[1])
        table = next(iter(hall.tables.values()))
        pages = [a, b]
        for d in pages:
            wait(lambda: d.find_element(By.TAG_NAME, "body").get_attribute("data-state") in ("mine", "waiting"))
        assert evil in a.find_element(By.ID, "whoami").text and not a.find_elements(By.CSS_SELECTOR, "#whoami img")
        rng = random.Random(11)
        checked = 0
        while True:
            n = len(table.session.history)
            for d in pages:          # both pages caught up (live updates, no reload)
                wait(lambda: d.execute_script("return document.body.dataset.decisions") == str(n))
            for seat, d in enumerate(pages):   # what the page put together from the changes is the whole payload
                wait(lambda: d.execute_script("return latest && latest.game.decisions") == n)
                with table.lock:
                    whole_payload = json.loads(table.payload_json(seat))
                assert json.loads(d.execute_script("return JSON.stringify(latest)")) == whole_payload
                # and what it shows (after its own decision: the answer, a change, put together) is that game
                assert json.loads(d.execute_script("return JSON.stringify(game)")) == whole_payload["game"]
            states = [d.execute_script("return document.body.dataset.state") for d in pages]
            for seat, d in enumerate(pages):
                secret = hidden_labels(table.session.state, seat) if states[seat] != "over" else set()
                drawn, source = d.execute_script(
                    "return [[...document.querySelectorAll('[data-label]')].map((e) => e.dataset.label),"
                    " document.documentElement.outerHTML]")
                assert not set(drawn) & secret, (seat, set(drawn) & secret)
                assert not [x for x in secret if re.search(r"[_\d]", x) and x in source]
                checked += bool(secret)
            if "over" in states:
                assert states == ["over", "over"]
                break
            me = states.index("mine")
            click_a_choice(pages[me], rng)
            wait(lambda: len(table.session.history) > n)
        assert checked > 10
        assert all(d.execute_script("return window.pwned") is None for d in pages)
        scores = {int(td.get_attribute("data-seat")): int(td.text)
                  for td in a.find_elements(By.CSS_SELECTOR, "td.score")}
        # the stored game, replayed by `regelwerk replay`, ends with the same scores
        rec = hall.store.load(table.id)
        head = {"format": "regelwerk-log/1", "rulebook": str(RULES / "yak"), "players": rec.players,
                "seed": rec.seed, "options": rec.options, "variants": rec.variants, "seats": rec.kinds}
        moves = effective_history(rec.decisions)
        log = tmp_path / "stored.jsonl"
        log.write_text("\n".join([json.dumps(head)] + [json.dumps({"seat": s, "action": x}) for s, x in moves]) + "\n")
        out = subprocess.run([sys.executable, "-m", "interpreter.cli", "replay", str(log)], capture_output=True,
                             text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert out.returncode == 0, out.stderr
        assert f"{len(moves)} decisions replayed" in out.stdout
        assert f"scores {[scores[i] for i in sorted(scores)]}" in out.stdout
    finally:
        close_all(drivers, httpd)


@pytest.mark.slow
def test_open_pages_follow_a_server_killed_and_restarted(tmp_path):
    """Issue 38: after kill -9 and a restart, both open seat pages show the next decision without a
    reload (the page once ignored updates numbered lower than the last it saw, and the restarted
    server counted from 0)."""
    import socket
    from selenium.webdriver.common.by import By
    db = tmp_path / "serve.sqlite"
    with socket.socket() as k:                       # a free port, the same for both runs of the server
        k.bind(("127.0.0.1", 0))
        port = k.getsockname()[1]
    proc, base = start_server(db, "yak", port=port)
    drivers = []
    try:
        code, links = call(base, "POST", "/api/tables", {"rulebook": "yak", "players": 2, "seed": 3,
                                                        "seats": ["human", "human"], "key": KEYS[base]})
        assert code == 200, links
        for s in links["seats"]:
            d, profile = start_browser(1000, 800)
            drivers.append((d, profile))
            d.get(base + s["link"])
        pages = [d for d, _ in drivers]

        def decide_in_page():
            n = int(pages[0].execute_script("return document.body.dataset.decisions"))
            me = [d.execute_script("return document.body.dataset.state") for d in pages].index("mine")
            click_a_choice(pages[me], random.Random(0))
            return n + 1

        def both_show(n):
            for d in pages:
                wait(lambda: d.execute_script("return document.body.dataset.decisions") == str(n)
                     and d.execute_script("return document.body.dataset.state") in ("mine", "waiting"))

        both_show(0)
        for _ in range(3):
            both_show(decide_in_page())
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        for d in pages:                              # the pages notice the server is gone
            wait(lambda: d.find_element(By.ID, "live").text != "live", timeout=20)
        proc, base2 = start_server(db, "yak", port=port)
        assert base2 == base
        for d in pages:                              # and come back by themselves
            wait(lambda: d.find_element(By.ID, "live").text == "live", timeout=30)
        both_show(decide_in_page())                  # the next decision reaches both, no reload
        both_show(decide_in_page())
    finally:
        for d, profile in drivers:
            d.quit()
            shutil.rmtree(profile, ignore_errors=True)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)


def close_all(drivers, httpd) -> None:
    """Quit the browsers (their profiles removed) and stop the server made in the test."""
    for d, profile in drivers:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)
    httpd.shutdown()
    httpd.server_close()
    httpd.hall.close()


def wait(cond, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        value = cond()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("timed out")


@pytest.mark.slow
def test_two_browsers_bid_at_once_and_one_changes_its_bid(tmp_path):
    """A decision taken together (tests/rulebooks/sealed_bids): both pages may bid at once, the
    second seat bids first and changes its bid, the first seat's page hears nothing of it.
    By hand (lots worth 3, 5, 2; 6 coins each; score = points + coins left):
    lot 1: seat 1 bids 3, seat 2 bids 4 then changes to 2 -> seat 1 wins, pays 3 (3 coins, 3 points);
    lot 2: 1 against 5 -> seat 2 wins, pays 5 (1 coin, 5 points);
    lot 3: 0 against 1 -> seat 2 wins, pays 1 (0 coins, 7 points).  Scores: 3 + 3 = 6 and 7 + 0 = 7."""
    from selenium.webdriver.common.by import By
    from interpreter.play.web.server import make
    httpd, url, _ = make([Rulebook.load(ROOT / "tests" / "rulebooks" / "sealed_bids")], 0,
                         db=tmp_path / "serve.sqlite", bot_delay=0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    hall, base = httpd.hall, url.rstrip("/")
    drivers = []
    try:
        code, links = call(base, "POST", "/api/tables", {"rulebook": "sealed_bids", "players": 2,
                                                        "seats": ["human", "human"], "key": hall.key})
        assert code == 200, links
        for s in links["seats"]:
            d, profile = start_browser(1000, 800)
            drivers.append((d, profile))
            d.get(base + s["link"])
        a, b = (d for d, _ in drivers)

        def bid(d, amount):
            d.execute_script("const i = document.querySelector('input.numberpick'); i.value = arguments[0];"
                             "i.closest('.numberrow').querySelector('button.opt').click()", amount)

        def status(d):
            return d.find_element(By.ID, "status").text

        for lot, (bid_a, bids_b) in enumerate([(3, (4, 2)), (1, (5,)), (0, (1,))]):
            for d in (a, b):          # both may bid now
                wait(lambda: d.execute_script("return document.body.dataset.decisions") == str(2 * lot)
                     and d.execute_script("return document.body.dataset.state") == "mine")
                wait(lambda: status(d).startswith("your turn: Player 1, Player 2 choose at once"))
            seen_a = a.execute_script("return JSON.stringify(latest.game.update)")
            for amount in bids_b:     # the second seat first (it could not, when seats chose in turn)
                bid(b, amount)
                wait(lambda: b.execute_script("return game.held") == f"bid(amount={amount})")
                assert status(b).startswith("your choice is in: ") and status(b).endswith(
                    "(you may change it until everyone has chosen)")
            time.sleep(0.3)           # (time for a live update to reach the first page, were one sent)
            assert a.execute_script("return JSON.stringify(latest.game.update)") == seen_a
            assert status(a).startswith("your turn") and a.execute_script("return game.held") is None
            bid(a, bid_a)
        for d in (a, b):
            wait(lambda: d.execute_script("return document.body.dataset.state") == "over")
        table = next(iter(hall.tables.values()))
        assert table.session.state.scores() == [6, 7]
        assert [x for _, x in table.session.history] == [f"bid(amount={n})" for n in (3, 2, 1, 5, 0, 1)]
        shown = {int(td.get_attribute("data-seat")): int(td.text) for td in a.find_elements(By.CSS_SELECTOR, "td.score")}
        assert shown == {0: 6, 1: 7}
    finally:
        close_all(drivers, httpd)
