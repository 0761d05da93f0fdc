"""Decisions taken together (``together:``) at a table of `regelwerk serve`: every seat taking part
chooses at once, may change its choice until the last one is in, and nobody is told anything of
another's choice — not what, not whether, not when — until all are applied together.

tests/rulebooks/sealed_bids: three lots, each bid for by every player at once (0 up to its coins,
6 at the start); the bids are revealed together and the single highest bid wins the lot.
"""
import http.client
import json
import socket
import time

import pytest

from conftest import ROOT

pytest.importorskip("starlette", reason="serve needs the web extra: pip install -e '.[web]'")
pytest.importorskip("uvicorn", reason="serve needs the web extra: pip install -e '.[web]'")

from test_serve import options_of, serve, sse_event, token  # noqa: E402,F401  (serve: the fixture)

BIDS = ROOT / "tests" / "rulebooks" / "sealed_bids"


def table_of(s, kinds):
    links = s.ok("POST", "/api/tables", {"rulebook": "sealed_bids", "players": len(kinds), "seats": kinds})
    tokens = [token(x["link"]) if x["link"] else None for x in links["seats"]]
    return links["table"], tokens, token(links["watch"])


def wait_held(s, tid, seat, timeout=10.0):
    end = time.time() + timeout
    while seat not in s.hall.tables[tid].held:
        assert time.time() < end, f"seat {seat} did not choose"
        time.sleep(0.01)


def act(s, t, action, at):
    return s.ok("POST", f"/api/t/{t}/act", {"action": action, "at": at})


def test_seats_choose_at_once_change_their_minds_and_are_told_nothing_of_the_others(serve):
    s = serve((BIDS,))
    tid, (t0, t1, _), watch = table_of(s, ["human", "human", "random"])
    wait_held(s, tid, 2)                            # the bot chose at once, not after the people
    before = {t: s.call("GET", f"/api/t/{t}/state")[1] for t in (t0, watch)}
    p0, p1 = (json.loads(before[t0]), s.ok("GET", f"/api/t/{t1}/state"))
    for seat, p in ((0, p0), (1, p1)):               # both may bid now, 0..6 coins
        g = p["game"]
        assert g["together"] == [0, 1, 2] and g["view"]["to_move"] == seat and g["held"] is None
        assert sorted(options_of(p)) == sorted(f"bid(amount={k})" for k in range(7))
    assert json.loads(before[watch])["game"]["view"]["actions"] == []
    assert "held" not in json.loads(before[watch])["game"]

    # seat 2 of the people (seat 1) bids first, then changes its mind: only it is told
    n_before = p1["game"]["update"]["n"]
    got = act(s, t1, "bid(amount=5)", 0)["game"]
    assert got["held"] == "bid(amount=5)" and got["decisions"] == 0
    assert got["update"]["n"] > n_before                # the seat's own update ids count its held choice
    got = act(s, t1, "bid(amount=4)", 0)["game"]
    assert got["held"] == "bid(amount=4)" and got["decisions"] == 0
    for t in (t0, watch):                             # the others' payloads: byte for byte as before
        assert s.call("GET", f"/api/t/{t}/state")[1] == before[t]
    # a bid over one's coins is refused and changes nothing
    code, text = s.call("POST", f"/api/t/{t1}/act", {"action": "bid(amount=7)", "at": 0})
    assert code == 400 and "not a legal action" in text
    assert s.ok("GET", f"/api/t/{t1}/state")["game"]["held"] == "bid(amount=4)"

    # the last bid in: the three are applied in seat order, seat 1's last choice counting
    done = act(s, t0, "bid(amount=3)", 0)["game"]
    assert done["decisions"] == 3 and done["held"] is None          # (the next lot's bids: none yet)
    assert done["story"][:3] == ["Player 1: bid(amount=3)", "Player 2: …", "Player 3: …"]
    history = s.hall.tables[tid].session.history
    assert [seat for seat, _ in history] == [0, 1, 2] and history[:2] == [(0, "bid(amount=3)"), (1, "bid(amount=4)")]
    # the next lot: the bot chose again at once; seat 1 paid 4 if its 4 was the single highest bid
    wait_held(s, tid, 2)
    bot_bid = int(history[2][1][len("bid(amount="):-1])
    st = s.hall.tables[tid].session.state
    money = [st.observation(seat)["variables"]["money"][str(seat)] for seat in (0, 1)]
    assert money == [6, 2 if bot_bid < 4 else 6]


def test_a_held_choice_reaches_only_its_own_seat_s_live_stream(serve):
    s = serve((BIDS,))
    tid, (t0, t1), watch = table_of(s, ["human", "human"])
    streams = {}
    for t in (t0, watch):
        c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=20)
        c.request("GET", f"/api/t/{t}/events")
        r = c.getresponse()
        assert r.status == 200
        streams[t] = (c, r)

    def event(t, timeout=10.0):
        c, r = streams[t]
        c.sock.settimeout(timeout)
        return sse_event(r)

    first = {t: event(t) for t in streams}
    act(s, t1, "bid(amount=2)", 0)
    act(s, t1, "bid(amount=1)", 0)
    for t in streams:                                 # no update at all: not even that something happened
        with pytest.raises((socket.timeout, TimeoutError)):
            event(t, timeout=0.8)
        streams[t][0].close()
        c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=20)
        c.request("GET", f"/api/t/{t}/events", headers={"Last-Event-ID": first[t]["id"]})
        streams[t] = (c, c.getresponse())
    act(s, t0, "bid(amount=0)", 0)
    for t in streams:                                 # the bids applied: every stream hears of it
        assert json.loads(event(t)["data"])["game"]["decisions"] == 2
        streams[t][0].close()


def test_held_choices_survive_a_restart(serve, tmp_path):
    db = tmp_path / "held.sqlite"
    s = serve((BIDS,), db=db)
    tid, (t0, t1), _ = table_of(s, ["human", "human"])
    act(s, t1, "bid(amount=6)", 0)
    s.stop()
    s = serve((BIDS,), db=db)
    assert s.ok("GET", f"/api/t/{t1}/state")["game"]["held"] == "bid(amount=6)"
    assert s.ok("GET", f"/api/t/{t0}/state")["game"]["held"] is None
    assert act(s, t0, "bid(amount=2)", 0)["game"]["decisions"] == 2
    assert s.hall.tables[tid].session.history == [(0, "bid(amount=2)"), (1, "bid(amount=6)")]
    s.stop()
    s = serve((BIDS,), db=db)                         # applied, and no held row comes back
    g = s.ok("GET", f"/api/t/{t1}/state")["game"]
    assert g["decisions"] == 2 and g["held"] is None


def test_the_last_bidder_cannot_take_its_bid_back_once_the_bids_are_revealed(serve):
    """Undo is never a way to peek: seat 2 bids last, the bids are revealed (a variable shown to it
    that it was not shown before), so its bid is final — else it would undo, know seat 1's bid and
    bid again alone."""
    s = serve((BIDS,))
    links = s.ok("POST", "/api/tables", {"rulebook": "sealed_bids", "players": 2, "seats": ["human", "human"],
                                         "undo": True})
    t0, t1 = (token(x["link"]) for x in links["seats"])
    act(s, t0, "bid(amount=2)", 0)
    assert act(s, t1, "bid(amount=1)", 0)["game"]["decisions"] == 2
    assert s.ok("GET", f"/api/t/{t1}/state")["game"]["can_undo"] is False
    code, text = s.call("POST", f"/api/t/{t1}/undo", {"at": 2})
    assert code == 409 and "saw something new" in text
