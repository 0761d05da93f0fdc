"""Load on `regelwerk serve`: many tables, every seat a client playing random legal moves over HTTP.

    python benchmarks/serve_load.py [--tables 50] [--seats 4] [--seconds 120] [--game rules/yak]

Starts the server as its own process on loopback (127.0.0.1, a free port, a fresh
SQLite file in a temporary folder), makes ``--tables`` tables of ``--seats`` people
each, and runs one client per seat (a coroutine), as a browser would: it listens to its
table's live updates (Server-Sent Events) and, when it is to move, posts a random
legal action with the decision count it saw.  A finished game is replaced by a new
table.  The clients run in ``--client-procs`` processes of their own (tables shared
out among them), so that parsing 200 live streams in one interpreter does not
become the limit.  After ``--seconds`` the clients stop; the server is stopped and
the database is read back: every decision the server acknowledged (HTTP 200) must
be stored.

Prints decisions/s, the latency of a decision (POST to answer) at p50/p95/p99,
errors (any answer but 200, any broken stream: must be 0), lost decisions
(acknowledged but not in the database: must be 0), the server process's CPU time
per decision (user + system, from /proc, over the playing time), the load
average, and the load clients' CPU per decision (what they need of the same machine).
Bounded: loopback only, at most ``--seconds`` plus the time to stop.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

try:                        # a browser parses JSON natively: the web extra's parser stands in for it
    from orjson import loads
except ImportError:         # pragma: no cover - the standard library's, slower (the clients then need more CPU)
    from json import loads


class Run:
    """What one client process saw: latencies, errors, acknowledged decisions."""

    def __init__(self, port: int, deadline: float, key: str = ""):
        self.port = port
        self.key = key
        self.deadline = deadline
        self.latencies: list = []
        self.errors: list = []
        self.acked: dict = {}        # table id -> [(decision number, seat, action)] acknowledged
        self.games_done = 0
        self.updates = 0             # live updates read (each parsed, as a page parses it)
        self.bytes = 0               # bytes of live updates and answers read

    def error(self, text):
        self.errors.append(text)


# --- HTTP/1.1 on asyncio streams: what a browser's connection does, without a thread per seat ---------
async def read_head(r) -> tuple:
    """The status and the headers (lower-case names) of an answer."""
    line = await r.readline()
    if not line:
        raise ConnectionError("the server closed the connection")
    status = int(line.split()[1])
    headers = {}
    while True:
        h = await r.readline()
        if h in (b"\r\n", b"\n", b""):
            return status, headers
        name, _, value = h.partition(b":")
        headers[name.strip().lower()] = value.strip()


async def read_chunk(r, headers) -> bytes:
    """The next piece of a streamed body (a chunk of ``Transfer-Encoding: chunked``); b"" at its end."""
    if headers.get(b"transfer-encoding") != b"chunked":
        return await r.read(1 << 16)
    size = int((await r.readline()).split(b";")[0], 16)
    if size == 0:
        await r.readline()
        return b""
    data = await r.readexactly(size)
    await r.readline()
    return data


async def read_body(r, headers) -> bytes:
    if b"content-length" in headers:
        return await r.readexactly(int(headers[b"content-length"]))
    parts = []
    while True:
        part = await read_chunk(r, headers)
        if not part:
            return b"".join(parts)
        parts.append(part)


class Connection:
    """One keep-alive connection for a seat's requests, opened anew when idle near the server's
    5 s keep-alive (as a browser does) or when the server closed it."""

    def __init__(self, run: Run):
        self.run = run
        self.port = run.port
        self.streams = None
        self.used = 0.0

    async def request(self, method: str, path: str, data=None) -> tuple:
        body = b"" if data is None else json.dumps(data).encode()
        if self.streams is None or time.monotonic() - self.used >= 3:
            self.close()
            self.streams = await asyncio.open_connection("127.0.0.1", self.port)
        r, w = self.streams
        w.write(f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        status, headers = await read_head(r)
        answer = await read_body(r, headers)
        self.run.bytes += len(answer)
        if headers.get(b"connection") == b"close":
            self.close()
        else:
            self.used = time.monotonic()
        return status, answer

    def close(self):
        if self.streams is not None:
            self.streams[1].close()
            self.streams = None


class Slot:
    """One table's place: its seats' clients meet here when a game ends, and seat 0 makes the next table."""

    def __init__(self, run: Run, game: str, seats: int, no: int):
        self.run, self.game, self.seats, self.no = run, game, seats, no
        self.barrier = asyncio.Barrier(seats)
        self.tokens = None
        self.table = None

    async def new_table(self, conn: Connection):
        code, body = await conn.request("POST", "/api/tables", {"rulebook": self.game, "players": self.seats,
                                                                 "seats": ["human"] * self.seats, "key": self.run.key})
        if code != 200:
            raise RuntimeError(f"making a table: {code} {body[:200]!r}")
        links = loads(body)
        self.table = links["table"]
        self.tokens = [s["link"].rsplit("/", 1)[1] for s in links["seats"]]
        self.run.acked[self.table] = []


async def seat_client(slot: Slot, seat: int, rng: random.Random):
    """One seat: its tables one after another until the deadline (then its coroutine is cancelled)."""
    run = slot.run
    conn = Connection(run)
    try:
        while True:
            if seat == 0:
                try:
                    await slot.new_table(conn)
                except Exception as exc:            # noqa: BLE001 - counted, reported
                    run.error(str(exc))
                    slot.tokens = None
            await slot.barrier.wait()
            if slot.tokens is None or not await play_one(slot, seat, rng, conn):
                return
            await slot.barrier.wait()
            if seat == 0:
                run.games_done += 1
    finally:
        conn.close()


async def play_one(slot: Slot, seat: int, rng: random.Random, conn: Connection) -> bool:
    """Play this seat until the game is over (True) or the stream fails (False)."""
    run, token, table = slot.run, slot.tokens[seat], slot.table
    r, w = await asyncio.open_connection("127.0.0.1", run.port, limit=1 << 20)
    try:
        w.write(f"GET /api/t/{token}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
                .encode())
        status, headers = await read_head(r)
        if status != 200:
            run.error(f"events: {status} {(await read_body(r, headers))[:200]!r}")
            return False
        acted_at = -1
        have = None                                 # the update the seat has (a page sends it with its decision)
        buf = b""
        while True:
            piece = await read_chunk(r, headers)
            if not piece:
                run.error("a live-update stream ended before the game did")
                return False
            buf += piece
            run.bytes += len(piece)
            while b"\n\n" in buf:
                event, buf = buf.split(b"\n\n", 1)
                data = next((line[6:] for line in event.split(b"\n") if line.startswith(b"data: ")), None)
                if data is None:
                    continue                        # the retry line, a keep-alive comment
                game = loads(data)["game"]
                run.updates += 1
                over, n, view, have = game["over"], game["decisions"], game["view"], game["update"]
                ids = [o["id"] for g in view["actions"] for o in g["options"]] if view["to_move"] == seat else None
                game = view = data = event = None    # nothing of an update kept while waiting (see client_process)
                if over:
                    return True
                if ids is None or n <= acted_at:
                    continue
                action = rng.choice(ids)
                t0 = time.perf_counter()
                code, body = await conn.request("POST", f"/api/t/{token}/act", {"action": action, "at": n, "have": have})
                dt = time.perf_counter() - t0
                acted_at = n
                if code == 200:
                    run.latencies.append(dt)
                    run.acked[table].append((n, seat, action))
                else:
                    run.errors.append(f"act: {code} {body[:200]!r}")
    except asyncio.CancelledError:
        raise
    except Exception as exc:                    # noqa: BLE001 - counted, reported
        run.error(f"{type(exc).__name__}: {exc}")
        return False
    finally:
        w.close()


def pct(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def client_process(port, key, game, seats, tables, deadline, seed, out):
    """One client process: ``tables`` tables' seats as coroutines of one event loop (a thread per
    seat spent most of the clients' CPU taking turns); its figures sent through ``out``."""
    run = Run(port, deadline, key)
    rng = random.Random(seed)

    async def all_seats():
        slots = [Slot(run, game, seats, i) for i in range(tables)]
        tasks = [asyncio.ensure_future(seat_client(slot, seat, random.Random(rng.random())))
                 for slot in slots for seat in range(seats)]
        done, pending = await asyncio.wait(tasks, timeout=max(0.0, deadline - time.time()))
        for t in pending:
            t.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for t in done:
            if not t.cancelled() and t.exception() is not None:
                run.error(f"{type(t.exception()).__name__}: {t.exception()}")

    asyncio.run(all_seats())
    out.send({"latencies": run.latencies, "errors": run.errors, "acked": run.acked, "games": run.games_done,
              "cpu": time.process_time(), "updates": run.updates, "bytes": run.bytes})
    out.close()


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` and its threads so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main(argv=None) -> int:
    import multiprocessing
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=50)
    ap.add_argument("--seats", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--game", default=str(ROOT / "rules" / "yak"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--client-procs", type=int, default=2, help="processes the clients run in")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="regelwerk-serve-load-"))
    db = tmp / "serve.sqlite"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # the live streams: one per seat (50 tables x 4 seats = the default serve_streams, 200) and some room
    streams = max(200, args.tables * args.seats + 20)
    env["REGELWERK_LIMITS"] = f"serve_streams={streams},serve_connections={max(400, 2 * streams + 100)}"
    server = subprocess.Popen([sys.executable, "-m", "interpreter.cli", "serve", args.game, "--port", "0",
                               "--host", "127.0.0.1", "--db", str(db), "--bot-delay", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    lines = [server.stdout.readline() for _ in range(3)]
    m = re.search(r"http://127\.0\.0\.1:(\d+)/", lines[0])
    creator = re.search(r"/lobby\?key=(\S+)", lines[2])
    if not m or not creator:
        print("the server did not start: " + "".join(lines) + server.stderr.read(), file=sys.stderr)
        return 2
    key = Path(args.game).resolve().name
    load_before = os.getloadavg()
    start = time.time()
    cpu_start = cpu_seconds(server.pid)
    deadline = start + args.seconds
    procs, pipes = [], []
    ctx = multiprocessing.get_context("fork")
    share = [args.tables // args.client_procs + (1 if i < args.tables % args.client_procs else 0)
             for i in range(args.client_procs)]
    for i, n in enumerate(x for x in share if x):
        here, there = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=client_process, args=(int(m.group(1)), creator.group(1), key, args.seats, n,
                                                        deadline, args.seed * 1000 + i, there), daemon=True)
        proc.start()
        procs.append(proc)
        pipes.append(here)
    results = []
    for here in pipes:
        results.append(here.recv() if here.poll(args.seconds + 90) else
                       {"latencies": [], "errors": ["a client process sent nothing"], "acked": {}, "games": 0})
    for proc in procs:
        proc.join(timeout=10)
    elapsed = time.time() - start
    cpu = cpu_seconds(server.pid) - cpu_start
    load_after = os.getloadavg()
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
    acked_all = {tid: acked for r in results for tid, acked in r["acked"].items()}
    errors = [e for r in results for e in r["errors"]]
    latencies = [x for r in results for x in r["latencies"]]
    games = sum(r["games"] for r in results)
    from interpreter.play.web.store import Store, effective_history
    store = Store(db)
    lost = 0
    for tid, acked in acked_all.items():
        rec = store.load(tid)
        stored = effective_history(rec.decisions) if rec is not None else []
        lost += sum(1 for n, seat, action in acked if n >= len(stored) or tuple(stored[n]) != (seat, action))
    store.close()
    total = sum(len(a) for a in acked_all.values())
    ms = [x * 1000 for x in latencies]
    figures = {"tables": args.tables, "seats": args.seats, "game": key, "seconds": round(elapsed, 1),
               "decisions": total, "decisions_per_s": round(total / elapsed, 1), "games_finished": games,
               "p50_ms": round(pct(ms, 50), 1), "p95_ms": round(pct(ms, 95), 1), "p99_ms": round(pct(ms, 99), 1),
               "mean_ms": round(statistics.fmean(ms), 1) if ms else None,
               "server_cpu_ms_per_decision": round(cpu * 1000 / total, 2) if total else None,
               "server_cpu_share": round(cpu / elapsed, 2),
               # the load clients' own CPU (parsing every seat's live updates…): what else the machine must carry
               "clients_cpu_ms_per_decision": round(sum(r.get("cpu", 0) for r in results) * 1000 / total, 2)
               if total else None,
               "updates_per_decision": round(sum(r.get("updates", 0) for r in results) / total, 2) if total else None,
               "kb_per_decision": round(sum(r.get("bytes", 0) for r in results) / 1024 / total, 1) if total else None,
               "errors": len(errors), "lost": lost, "db_bytes": db.stat().st_size,
               "load_before": [round(x, 1) for x in load_before], "load_after": [round(x, 1) for x in load_after]}
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"{args.tables} tables x {args.seats} seats of {key}, {elapsed:.0f} s on loopback: "
              f"{total} decisions ({figures['decisions_per_s']}/s), {games} games finished")
        print(f"decision latency p50 {figures['p50_ms']} ms, p95 {figures['p95_ms']} ms, p99 {figures['p99_ms']} ms")
        print(f"server CPU {figures['server_cpu_ms_per_decision']} ms per decision "
              f"({figures['server_cpu_share']:.0%} of a core); load average {load_before[0]:.1f} before, "
              f"{load_after[0]:.1f} after (1 min)")
        print(f"load clients' CPU {figures['clients_cpu_ms_per_decision']} ms per decision; "
              f"{figures['updates_per_decision']} live updates and {figures['kb_per_decision']} kB read per decision")
        print(f"errors {len(errors)}, lost decisions {lost}")
        for e in errors[:10]:
            print("  " + e)
    for f in tmp.iterdir():
        f.unlink()
    tmp.rmdir()
    return 0 if not errors and not lost else 1


if __name__ == "__main__":
    sys.exit(main())
