"""What each seat of a served table is sent: its observation of the present (made with the other
seats', what all see read once), its view, its story, its payload (a page's data) and that payload
as the live update sent (once per change and seat: whole, or as a change from the one sent before),
and its log.  :class:`SeatViews` is a base of :class:`~.tables.Table`, whose state it reads (the
session, the record, the view cache, the change count)."""
from __future__ import annotations

import json

from ..gamelog import FORMAT
from ..view import build_view
from .updates import BOOT, Sent, change_from, dumps_utf8, fragment


class SeatViews:
    """The seats' payloads of a :class:`~.tables.Table` (see the module docstring)."""

    def observed(self, seat) -> dict:
        """``seat``'s observation of the present (history=False), made at once for every seat that looks
        (people, open live streams): ``state.observations`` reads what all see once for them all.
        Kept while the state is the same object with as many decisions and the same status (a state
        changes in place only by a decision; undo makes a new one)."""
        s = self.session
        st = s.state
        key = (len(s.history), st.status)
        kept = self._observed
        if kept[0] is not st or kept[1] != key:
            kept = self._observed = (st, key, {})
        made = kept[2]
        got = made.get(seat)
        if got is None:
            want = {seat, *self.watchers.values(), *s.humans()}.difference(made)
            made.update(st.observations(want, history=False))
            got = made[seat]
        return got

    def payload_json(self, seat) -> bytes:
        """:meth:`payload` of the present as JSON (UTF-8 bytes), made once per change and seat (the live
        streams of a seat's tabs and its own decision's answer share it).  Call with the lock held."""
        return self.present(seat).payload

    def present(self, seat) -> "Sent":
        """:class:`Sent`: the present for ``seat``, made once per change and seat.  Call with the
        lock held."""
        got = self._sent.get(seat)
        if got is None:
            payload = self.payload(seat)
            game = payload["game"]
            view = game["view"]
            families = (view["shared"], [p["families"] for p in view["players"]])
            last = self._last.get(seat)
            now = self.update_id(seat)
            self._last[seat] = (now, game["update"], families, game["story"])
            over = self.over or self.closed
            change = None
            if last is not None and last[0] != now and not over:
                change = dumps_utf8(change_from(payload, last[1:], self.views))
            if fragment is not None:        # the families that did not change: encoded once, not per seat and change
                game["view"] = self.views.packed(view, fragment)
            got = self._sent[seat] = Sent(now, payload, over, None if change is None else last[0], change)
        return got

    def ready(self, seat) -> tuple | None:
        """:meth:`present` if it is made already, else None; without the lock (a live stream on the
        event loop: the entry was made whole under the lock, and a change empties them all at once)."""
        return self._sent.get(seat)

    def story_for(self, viewer) -> list:
        """``Session.tell`` of the whole story for ``viewer``, telling each entry once: the story only
        grows (an undo makes a new list; the end of the game, which tells everyone all, starts again)."""
        s = self.session
        everyone = not s.humans() or s.state.is_terminal()
        kept = self._told.get(viewer)
        if kept is None or kept[0] is not s.story or kept[2] != everyone or kept[1] > len(s.story):
            kept = (s.story, 0, everyone, [])
        lines = kept[3] + s.tell(s.story[kept[1]:], viewer)
        self._told[viewer] = (s.story, len(s.story), everyone, lines)
        return list(lines)

    # --- what a seat is sent -----------------------------------------------------------
    def payload(self, seat, asked="auto", at=None) -> dict:
        """The page's data for the holder of ``seat``'s token (None: a spectator).  Once the
        game is over the holder may look as any seat (``asked``)."""
        s = self.session
        over = s.state.is_terminal()
        viewer = seat
        if over and asked != "auto":
            viewer = asked
        n = len(s.history)
        together = None
        if at is not None and 0 <= at < n:
            view = build_view(s.state_after(at), viewer, self.views)
            view["actions"] = []
        else:
            at = n
            together = self.together()
            if together is not None and seat in together:
                # its options from a state where it decides (the seats before it chose, it is not told what)
                view = build_view(together[seat], viewer, self.views)
            else:
                view = build_view(s.state, viewer, self.views, self.observed(viewer))
                if seat is None or over or self.closed or s.state.current_player() != seat:
                    view["actions"] = []
        rec = self.rec
        game = {
            "view": view, "at": at, "decisions": n, "story": self.story_for(viewer),
            "seats": s.kinds, "seat_names": s.seat_names, "viewer": viewer, "me": seat,
            "player_names": [rec.names.get(i, "") for i in range(len(s.kinds))],
            "players": s.players, "variants": s.variants, "options": s.options,
            "bot_to_move": False,                  # bots move on the server
            # (while seats choose together, whether a bot has chosen is not told: nothing of another's choice is)
            "bots_moving": together is None and self.bot_to_move(),
            "over": over, "open_view": over, "closed": self.closed,
            "can_undo": self.can_undo(seat) is not None,
            "table": rec.id, "version": self.version,
            "update": {"boot": BOOT, "rows": self.rows, "n": self.version + self.own[seat]}}   # (as update_id(seat))
        if together is not None:
            game["together"] = list(together)     # the seats choosing at once (who has chosen is not told)
            if seat in together:
                game["held"] = self.held.get(seat)  # its own choice so far (it may change it), or None
        if over:
            game["seed"] = s.seed
        return {"info": {"game": self.rb.name, "rulebook": rec.rulebook}, "game": game}

    def log_lines(self, seat) -> tuple[list, bool]:
        """The game log for ``seat``: the whole log once the game is over (``regelwerk replay``
        reads it), before that the seat's own history (others' secret choices as ``…``; no seed)."""
        s = self.session
        over = s.state.is_terminal()
        head = {"format": FORMAT, "rulebook": self.rec.rulebook, "rulebook_sha256": self.rec.sha256,
                "game": self.rb.name, "players": s.players, "options": s.options, "variants": s.variants,
                "seats": s.kinds}
        if s.names and any(s.names):
            head["names"] = list(s.names)
        if over:
            head["seed"] = s.seed
            moves = s.state.history
        else:
            head["view"] = "spectator" if seat is None else seat
            moves = s.state.history_for(seat)
        return [json.dumps(head)] + [json.dumps({"seat": p, "action": a}) for p, a in moves], over
