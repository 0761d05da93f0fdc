"""`regelwerk serve` bounded per table and per server (issue 38 item 2): each reproducer of
/work/shared/fuzz-repro/turn4 (N3–N8, N10, N11, N13, N14) as a test that ends as its README
expects — a located error or a 4xx, bounded time and memory, nothing lost.

The server runs in a thread as in tests/test_serve.py (its `serve` fixture); sizes are small
and limits lowered so that each test takes a few seconds.
"""
import http.client
import json
import os
import random
import socket
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from conftest import ROOT, RULES

pytest.importorskip("starlette", reason="serve needs the web extra: pip install -e '.[web]'")
pytest.importorskip("uvicorn", reason="serve needs the web extra: pip install -e '.[web]'")

from interpreter.game import LIMITS, Rulebook, configure_limits as configure  # noqa: E402
from interpreter.play.web.server import make                                # noqa: E402
from interpreter.play.web.store import Store, StoreProblem                   # noqa: E402
from test_serve import options_of, serve, token, two_people                  # noqa: E402,F401

TESTBOOKS = ROOT / "tests" / "rulebooks"


@pytest.fixture
def limits():
    """configure() for one test; the old limits come back after it."""
    old = {}

    def set_(**values):
        for k in values:
            old.setdefault(k, getattr(LIMITS, k))
        configure(**values)
    yield set_
    configure(**old)


def raw_request(port, head: bytes, timeout=10):
    """Send ``head`` (request line and headers, as bytes) and return (status, headers, body)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.sendall(head)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    head_part, _, body = data.partition(b"\r\n\r\n")
    lines = head_part.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:])}
    return int(lines[0].split()[1]), headers, body


# --- N5: the headers docs/serve.md promises, on every answer ------------------------------

def test_every_answer_carries_the_security_headers(serve):
    s = serve()
    _, (t0, _), watch = two_people(s)
    here = f"127.0.0.1:{s.port}"
    cases = [("GET", "/", {}, 200), ("GET", "/lobby", {}, 200), ("GET", f"/t/{t0}", {}, 200),
             ("GET", "/static/app.js", {}, 200), ("GET", f"/api/t/{t0}/state", {}, 200),
             ("GET", "/api/t/AAAAAAAAAAAAAAAAAAAAAAAA/state", {}, 404), ("GET", "/nowhere", {}, 404),
             ("DELETE", "/api/lobby", {"Content-Type": "application/json"}, 405), ("POST", "/api/tables", {"Content-Type": "text/plain"}, 415),
             ("GET", "/api/lobby", {"Host": "evil.example"}, 403),
             ("POST", f"/api/t/{watch}/act", {"Content-Type": "application/json"}, 400)]
    for method, path, extra, status in cases:
        head = f"{method} {path} HTTP/1.1\r\nHost: {extra.pop('Host', here)}\r\nContent-Length: 0\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in extra.items()) + "Connection: close\r\n\r\n"
        code, headers, _ = raw_request(s.port, head.encode())
        assert code == status, (path, code)
        assert headers.get("x-content-type-options") == "nosniff", path
        assert headers.get("referrer-policy") == "no-referrer", path
        csp = headers.get("content-security-policy", "")
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp, (path, csp)


# --- N3: a Last-Event-ID that is not ASCII gives its live-stream slot back -------------------

def test_a_strange_last_event_id_keeps_no_stream_slot(serve, limits):
    s = serve()
    limits(serve_streams=3)
    _, _, watch = two_people(s)
    for value in [b"\xb2", "²".encode(), b"x-\xc2\xb2-1", b"\xff" * 150, b"--", b"1-2-3-4-5"]:
        k = socket.create_connection(("127.0.0.1", s.port), timeout=10)
        k.sendall(f"GET /api/t/{watch}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nLast-Event-ID: ".encode()
                  + value + b"\r\n\r\n")
        got = b""
        while b"data: " not in got:                       # the present is sent at once
            chunk = k.recv(65536)
            assert chunk, got
            got += chunk
        assert got.startswith(b"HTTP/1.1 200")
        k.close()
    end = time.time() + 5
    while s.hall.streams and time.time() < end:        # each closed stream gives its slot back
        time.sleep(0.05)
    assert s.hall.streams == 0
    held = [http.client.HTTPConnection("127.0.0.1", s.port, timeout=10) for _ in range(4)]
    codes = []
    for c in held:
        c.request("GET", f"/api/t/{watch}/events")
        codes.append(c.getresponse().status)
    assert codes == [200, 200, 200, 503]
    for c in held:
        c.close()


# --- N4: the creator's key; tables expire and can be closed ---------------------------------

def test_making_joining_and_closing_tables_need_the_creators_key(serve, limits):
    s = serve()
    limits(serve_tables=2)
    body = {"rulebook": "yak", "players": 2, "seats": ["human", "human"]}
    near = s.hall.key[:-1] + ("A" if s.hall.key[-1] != "A" else "B")    # one character off (a key ending in A, 1 in 64, made it the key)
    for key in [None, "", "x" * 24, near]:
        code, text = s.call("POST", "/api/tables", {**body, "key": key})
        assert code == 403 and "creator's link" in json.loads(text)["error"], key
    links, (t0, t1), watch = two_people(s, undo=True)
    two_people(s)
    code, text = s.call("POST", "/api/tables", body)
    assert code == 429 and "serve_tables" in text
    code, _ = s.call("POST", f"/api/tables/{links['table']}/join", {"seat": 1, "key": "nope" * 6})
    assert code == 403
    code, _ = s.call("POST", f"/api/tables/{links['table']}/close", {})
    assert code == 403
    # a spectator may not take back anything: 403, not 409 (issue 38's rough edges)
    code, text = s.call("POST", f"/api/t/{watch}/undo", {"at": 0})
    assert code == 403 and "spectator" in json.loads(text)["error"]
    # closing: the cap frees, the table's links show it closed, nobody decides any more
    assert s.ok("POST", f"/api/tables/{links['table']}/close", {"key": s.hall.key}) == {"closed": links["table"]}
    p = s.ok("GET", f"/api/t/{t0}/state")["game"]
    assert p["closed"] and p["view"]["actions"] == [] and not p["can_undo"]
    code, text = s.call("POST", f"/api/t/{t0}/act", {"action": "x", "at": 0})
    assert code == 409 and "closed" in text
    assert links["table"] not in [t["id"] for t in s.ok("GET", "/api/lobby")["tables"]]
    code, _ = s.call("POST", f"/api/tables/{links['table']}/close", {"key": s.hall.key})
    assert code == 409
    two_people(s)                                             # room again


def test_untouched_tables_expire_and_stay_closed_after_a_restart(serve, tmp_path, limits):
    db = tmp_path / "e.sqlite"
    s = serve(db=db)
    limits(serve_tables=2, serve_idle_hours=1)
    old, tokens, _ = two_people(s)
    fresh, _, _ = two_people(s)
    play_one = s.ok("GET", f"/api/t/{tokens[0]}/state")["game"]
    assert not play_one["closed"]
    s.hall.tables[old["table"]].touched -= 2 * 3600           # nobody touched it for two hours
    assert s.hall.expire() == [old["table"]]
    assert s.ok("GET", f"/api/t/{tokens[0]}/state")["game"]["closed"]
    two_people(s)                                             # its place is free
    s.stop()
    s2 = serve(db=db)                                         # not restored as unfinished: still closed
    assert old["table"] not in s2.hall.tables and fresh["table"] in s2.hall.tables
    assert s2.ok("GET", f"/api/t/{tokens[0]}/state")["game"]["closed"]


# --- N11: finished tables leave memory and come back from SQLite -------------------------------

def test_finished_tables_leave_memory_and_load_again_when_asked(serve, limits):
    s = serve([RULES / "moonlight_market"])
    limits(serve_finished_kept=2)
    made = [s.ok("POST", "/api/tables", {"rulebook": "moonlight_market", "players": 2, "seed": i,
                                         "seats": ["random", "random"]}) for i in range(6)]
    end = time.time() + 60
    while time.time() < end and s.hall.store.db.execute("SELECT COUNT(*) FROM tables WHERE over = 1").fetchone()[0] < 6:
        time.sleep(0.1)
    assert s.hall.store.db.execute("SELECT COUNT(*) FROM tables WHERE over = 1").fetchone()[0] == 6
    assert len(s.hall.tables) <= 2 and len(s.hall.finished) <= 2          # memory holds at most the limit
    first = token(made[0]["watch"])
    p = s.ok("GET", f"/api/t/{first}/state")["game"]                       # loaded from the store again
    assert p["over"] and p["seed"] == 0
    rows = s.hall.store.db.execute("SELECT COUNT(*) FROM decisions WHERE table_id = ?",
                                   (made[0]["table"],)).fetchone()[0]
    assert p["decisions"] == rows and len(s.hall.tables) <= 2


# --- N13: bots share the workers fairly; a table's bots have a budget ----------------------------

@pytest.mark.slow
def test_search_bots_do_not_starve_other_tables(serve, limits):
    """~15 s: two tables of four search bots (1 s a decision) and a table of a person and a quick bot."""
    s = serve()
    searching = [s.ok("POST", "/api/tables", {"rulebook": "yak", "players": 4, "seed": i, "seats": ["ismcts"] * 4})
                 for i in range(2)]                       # two tables of thinking bots (1 s a decision)
    time.sleep(1.5)                                       # both workers busy with them
    links = s.ok("POST", "/api/tables", {"rulebook": "yak", "players": 2, "seed": 5, "seats": ["human", "random"]})
    t = token(links["seats"][0]["link"])
    waits = []
    rng = random.Random(1)
    for _ in range(3):
        p = s.ok("GET", f"/api/t/{t}/state")["game"]
        s.ok("POST", f"/api/t/{t}/act", {"action": rng.choice(options_of({"game": p})), "at": p["decisions"]})
        start = time.time()
        while time.time() - start < 30:
            q = s.ok("GET", f"/api/t/{t}/state")["game"]
            if q["over"] or q["view"]["to_move"] == 0:
                break
            time.sleep(0.02)
        waits.append(time.time() - start)
    # a random bot's move waits at most for the search decisions under way (1 s each), not a whole game
    assert max(waits) < 4, waits
    # past the table's budget its bots take the first legal action at once
    for t in searching:                                   # (alone: the workers do not wait for other tables)
        s.ok("POST", f"/api/tables/{t['table']}/close", {"key": s.hall.key})
    limits(serve_bot_seconds=1)
    fast = s.ok("POST", "/api/tables", {"rulebook": "yak", "players": 2, "seed": 9, "seats": ["ismcts", "ismcts"]})
    start = time.time()
    while time.time() - start < 30 and s.hall.table(fast["table"]).rows < 10:
        time.sleep(0.05)
    assert s.hall.table(fast["table"]).rows >= 10 and time.time() - start < 12


# --- N8: slow clients are cut off ---------------------------------------------------------------

@pytest.mark.slow
def test_slow_clients_cannot_hold_the_connections(serve, limits):
    s = serve()
    limits(serve_connections=6, serve_request_seconds=1)
    slow = []
    for _ in range(6):
        k = socket.create_connection(("127.0.0.1", s.port), timeout=10)
        k.sendall(b"GET /api/lobby HTTP/1.1\r\nHost: 127.0.0.1\r\nX-a: ")
        slow.append(k)
    time.sleep(0.2)
    assert s.call("GET", "/api/lobby")[0] == 503            # all held for now
    stop = time.time() + 2.5
    codes = []
    while time.time() < stop:                               # a byte now and then keeps none of them alive
        for k in slow:
            try:
                k.sendall(b"a")
            except OSError:
                pass
        time.sleep(0.25)
    codes.append(s.call("GET", "/api/lobby")[0])
    answers = []
    for k in slow:
        try:
            answers.append(k.recv(200))
        except OSError:
            answers.append(b"")
        k.close()
    assert codes == [200]
    assert any(b"408" in a for a in answers)               # cut off with a reason


# --- N7: the hot-seat page's /api/new and /api/act take turns ---------------------------------

@pytest.mark.slow
def test_hot_seat_new_and_act_are_serialised(serve, tmp_path, capfd):
    db = tmp_path / "h.sqlite"
    s = serve(db=db)
    stop = time.time() + 2
    codes = {}
    lock = threading.Lock()

    def count(kind, code):
        with lock:
            codes[kind, code] = codes.get((kind, code), 0) + 1

    def newer():
        while time.time() < stop:
            count("new", s.call("POST", "/api/new", {"players": 2, "seats": ["human", "human"]})[0])

    def actor():
        while time.time() < stop:
            code, text = s.call("GET", "/api/state")
            game = json.loads(text).get("game") if code == 200 else None
            opts = options_of({"game": game}) if game else []
            if opts:
                count("act", s.call("POST", "/api/act", {"action": opts[-1]})[0])

    threads = [threading.Thread(target=newer)] + [threading.Thread(target=actor) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not [k for k in codes if k[1] >= 500], codes
    assert codes.get(("act", 200), 0) > 0 and codes.get(("new", 200), 0) > 0
    s.stop()
    # every stored hot-seat table replays: no decision stored for the wrong seat
    store = Store(db)
    hot = [store.load(tid) for tid in store.table_ids()]
    store.close()
    s2 = serve(db=db)
    for rec in hot:
        t = s2.hall._load(rec.id)
        assert t.problem is None and t.rows == len(rec.decisions), t.problem
    assert "Traceback" not in capfd.readouterr().err


# --- N6: undo is no peek ---------------------------------------------------------------------

def test_undo_cannot_take_back_a_decision_after_which_the_seat_saw_more(serve, tmp_path):
    db = tmp_path / "u.sqlite"
    s = serve([TESTBOOKS / "known_top"], db)
    body = {"rulebook": "known_top", "players": 2, "seats": ["human", "human"], "undo": True, "seed": 7}
    peek = s.ok("POST", "/api/tables", body)
    lay = s.ok("POST", "/api/tables", body)
    p0, l0 = token(peek["seats"][0]["link"]), token(lay["seats"][0]["link"])
    hidden = s.ok("GET", f"/api/t/{p0}/state")["game"]
    seen = s.ok("POST", f"/api/t/{p0}/act", {"action": "peek", "at": 0})["game"]
    assert json.dumps(seen["view"]) != json.dumps(hidden["view"])          # the deck shown to seat 0
    assert not seen["can_undo"]
    code, text = s.call("POST", f"/api/t/{p0}/undo", {"at": 1})
    assert code == 409 and "saw something new" in json.loads(text)["error"]
    # laying a market card on the deck shows seat 0 nothing new: it may take that back
    legal = options_of(s.ok("GET", f"/api/t/{l0}/state"))
    laid = s.ok("POST", f"/api/t/{l0}/act", {"action": next(a for a in legal if a.startswith("lay")), "at": 0})
    assert laid["game"]["can_undo"]
    s.stop()
    s2 = serve([TESTBOOKS / "known_top"], db)                              # the rule holds after a restart
    assert not s2.ok("GET", f"/api/t/{p0}/state")["game"]["can_undo"]
    assert s2.call("POST", f"/api/t/{p0}/undo", {"at": 1})[0] == 409
    assert s2.ok("POST", f"/api/t/{l0}/undo", {"at": 1})["game"]["decisions"] == 0


# --- N10: a database the server cannot use is one clear line ----------------------------------

def damaged_copies(serve, tmp_path):
    """A database with two tables, and three damaged copies of it: text, trunc, corrupt."""
    db = tmp_path / "good.sqlite"
    s = serve(db=db)
    two_people(s, seed=1)
    two_people(s, seed=2)
    s.stop()
    c = sqlite3.connect(db)
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()
    data = db.read_bytes()
    (tmp_path / "text.sqlite").write_text("hello, not a database\n")
    (tmp_path / "trunc.sqlite").write_bytes(data[:len(data) // 2])
    corrupt = bytearray(data)
    corrupt[4096:4096 + 4096] = os.urandom(4096)
    (tmp_path / "corrupt.sqlite").write_bytes(bytes(corrupt))
    return db


def test_a_damaged_database_is_a_clear_error_not_a_traceback(serve, tmp_path):
    damaged_copies(serve, tmp_path)
    for name in ["text", "trunc", "corrupt"]:
        with pytest.raises(StoreProblem) as err:
            Store(tmp_path / f"{name}.sqlite")
        assert f"{name}.sqlite: cannot use this file as the game database" in str(err.value)


@pytest.mark.slow
def test_serve_on_a_damaged_database_says_so_in_one_line(serve, tmp_path):
    """~15 s: the command on each damaged copy (exit 2, no traceback), and a row that is not JSON."""
    db = damaged_copies(serve, tmp_path)
    for name in ["text", "trunc", "corrupt"]:
        out = subprocess.run([sys.executable, "-m", "interpreter.cli", "serve", str(RULES / "yak"), "--port", "0",
                              "--db", str(tmp_path / f"{name}.sqlite")], capture_output=True, text=True, timeout=60,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
        assert out.stderr.startswith("regelwerk: error: ") and f"{name}.sqlite" in out.stderr
    # one row that is not JSON: that table is named and left, the others are restored and counted
    c = sqlite3.connect(db)
    bad = c.execute("SELECT id FROM tables ORDER BY created LIMIT 1").fetchone()[0]
    c.execute("UPDATE tables SET options = '{bad' WHERE id = ?", (bad,))
    c.commit()
    c.close()
    proc = subprocess.Popen([sys.executable, "-m", "interpreter.cli", "serve", str(RULES / "yak"), "--port", "0",
                             "--db", str(db)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        lines = [proc.stdout.readline() for _ in range(3)]
    finally:
        proc.terminate()
        err = proc.communicate(timeout=20)[1]
    assert f"table {bad}: its row in the database cannot be read" in err and "Traceback" not in err
    assert "(1 unfinished table(s) restored, 1 not)" in lines[1], lines


def test_a_bad_row_is_named_and_the_other_tables_are_restored(serve, tmp_path):
    db = tmp_path / "r.sqlite"
    s = serve(db=db)
    bad, _, _ = two_people(s, seed=1)
    good, _, _ = two_people(s, seed=2)
    s.stop()
    c = sqlite3.connect(db)
    c.execute("UPDATE tables SET options = '{bad' WHERE id = ?", (bad["table"],))
    c.commit()
    c.close()
    s2 = serve(db=db)
    assert s2.hall.restored == 1 and good["table"] in s2.hall.tables
    assert [p for p in s2.hall.problems if p.startswith(f"table {bad['table']}: its row in the database cannot be read")]


def test_a_read_only_database_folder_is_a_clear_error(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        if os.access(folder, os.W_OK):            # root writes anywhere: a path under a file instead
            target = tmp_path / "afile"
            target.write_text("x")
            path = target / "serve.sqlite"
        else:
            path = folder / "serve.sqlite"
        with pytest.raises(StoreProblem) as err:
            make([Rulebook.load(RULES / "yak")], 0, db=path)
        assert "serve.sqlite" in str(err.value) and "cannot use this file" in str(err.value)
    finally:
        folder.chmod(0o700)


# --- what held (keep it so): one of 20 identical decisions at once is taken --------------------

def test_one_of_twenty_identical_decisions_at_once_is_taken(serve):
    s = serve()
    _, tokens, _ = two_people(s)
    p = s.ok("GET", f"/api/t/{tokens[0]}/state")["game"]
    seat = p["view"]["to_move"]
    p = s.ok("GET", f"/api/t/{tokens[seat]}/state")
    body = {"action": options_of(p)[0], "at": p["game"]["decisions"]}
    go = threading.Barrier(20)
    codes = []

    def post():
        go.wait()
        codes.append(s.call("POST", f"/api/t/{tokens[seat]}/act", body)[0])

    threads = [threading.Thread(target=post) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(codes) == [200] + [409] * 19
    assert s.hall.store.db.execute("SELECT COUNT(*) FROM decisions").fetchone()[0] == 1


def test_a_fault_of_the_server_is_a_json_500_and_a_traceback_in_its_output(serve, capfd):
    s = serve()

    def broken():
        raise RuntimeError("a fault for the test")
    s.hall.lobby = broken
    code, text = s.call("GET", "/api/lobby")
    assert code == 500 and json.loads(text) == {"error": "the server failed on this request (see its output)"}
    err, end = "", time.time() + 5
    while "RuntimeError" not in err and time.time() < end:     # printed once the answer went out
        time.sleep(0.05)
        err += capfd.readouterr().err
    time.sleep(0.2)
    err += capfd.readouterr().err
    assert "RuntimeError: a fault for the test" in err and err.count("Traceback") == 1, err
