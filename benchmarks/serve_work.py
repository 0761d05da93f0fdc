"""A decision's work inside `regelwerk serve`, part by part, without HTTP: CPU milliseconds per decision.

    python benchmarks/serve_work.py [--game rules/yak] [--seats 4] [--decisions 300] [--repeat 3]

Plays random games at tables of ``--seats`` people in one process (a Hall with an SQLite file in
a temporary folder) and times, with the process's CPU clock, each part of what the server does
for one decision: **apply** (the engine and the story), **store** (the SQLite commit), **views**
(the view of every seat for its live update: the board for that seat, `build_view` with the table's
``ViewCache`` and the seats' observations made together, ``Table.observed``; ``--fresh``: from
scratch, as before either), **story**
(the story told for each seat), **json** (each seat's payload as JSON) and **notify** (waking the
live streams).  Prints the median of ``--repeat`` runs of each part, and the whole.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def run(game: str, seats: int, decisions: int, seed: int, fresh: bool = False) -> dict:
    from interpreter.game import Rulebook
    from interpreter.play.view import build_view
    from interpreter.play.web import tables as T
    from interpreter.play.web.updates import dumps_utf8, fragment
    from interpreter.play.web.store import Store
    rb = Rulebook.load(game)
    key = Path(game).resolve().name
    tmp = Path(tempfile.mkdtemp(prefix="regelwerk-serve-work-"))
    hall = T.Hall({key: rb}, Store(tmp / "w.sqlite"), 0)
    rng = random.Random(seed)
    parts = dict.fromkeys(["apply", "store", "views", "story", "json", "notify"], 0.0)
    clock = time.process_time
    done = 0
    while done < decisions:
        table = hall.create(key, seats, rng.randrange(10**6), ["human"] * seats, [], {}, [], False)
        s = table.session
        while not s.state.is_terminal() and done < decisions:
            seat = s.state.current_player()
            action = rng.choice(s.state.legal_actions())
            with table.lock:
                t0 = clock()
                s.apply(action)
                t1 = clock()
                hall.store.add_decision(table.id, table.rows, seat, action, over=s.state.is_terminal())
                table.rows += 1
                t2 = clock()
                table.changed()
                t3 = clock()
                payloads = []
                for viewer in range(seats):
                    a = clock()
                    view = (build_view(s.state, viewer) if fresh else     # as Table.payload makes it
                            build_view(s.state, viewer, table.views, table.observed(viewer)))
                    b = clock()
                    story = table.story_for(viewer)
                    c = clock()
                    payloads.append({"view": view, "story": story})
                    parts["views"] += b - a
                    parts["story"] += c - b
                t4 = clock()
                for p in payloads:
                    if not fresh and fragment is not None:      # as Table.present sends it
                        p["view"] = table.views.packed(p["view"], fragment)
                    dumps_utf8(p)
                t5 = clock()
            parts["apply"] += t1 - t0
            parts["store"] += t2 - t1
            parts["notify"] += t3 - t2
            parts["json"] += t5 - t4
            done += 1
    hall.close()
    hall.store.close()
    for f in tmp.iterdir():
        f.unlink()
    tmp.rmdir()
    return {k: v * 1000 / decisions for k, v in parts.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default=str(ROOT / "rules" / "yak"))
    ap.add_argument("--seats", type=int, default=4)
    ap.add_argument("--decisions", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--fresh", action="store_true", help="make every view from scratch (no ViewCache: as before)")
    args = ap.parse_args(argv)
    runs = [run(args.game, args.seats, args.decisions, i, args.fresh) for i in range(args.repeat)]
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    total = statistics.median(sum(r.values()) for r in runs)
    print(f"{Path(args.game).name}, {args.seats} seats, {args.decisions} decisions x {args.repeat} runs"
          f"{', views from scratch' if args.fresh else ''} "
          f"(CPU ms per decision, medians):")
    print("  " + ", ".join(f"{k} {v:.2f}" for k, v in med.items()) + f"; whole {total:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
