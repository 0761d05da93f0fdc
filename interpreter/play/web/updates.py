"""A table's live updates as sent: a seat's payload encoded once per change, and as a change from
the one its stream sent before (``Table.present``; the page puts it together, table.js ``merged``).

An update's id (:func:`update_id`) names the server run, the decision rows written and the change
count; :class:`Sent` holds one seat's update at one version; :func:`change_from` writes a payload as a
change from the one sent before (families shown as they were become ``{"same": true}``, the story
only its new entries).  What a seat may see is the payload's: a change only leaves out what the page
has already.
"""
from __future__ import annotations

import json
import secrets

BOOT = secrets.token_hex(4)     # this run of the server: live-update ids name it (see Table.update_id)

try:                                  # the web extra's fast encoder (a table's payload is most of a decision's JSON)
    import orjson

    def dumps_utf8(data) -> bytes:
        """``data`` as JSON in the UTF-8 bytes sent (not text decoded only to be encoded again)."""
        return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)

    def fragment(data):
        """``data`` encoded once, to be put as it is into what dumps_utf8 encodes later."""
        return orjson.Fragment(orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS))
except ImportError:                   # pragma: no cover - the standard library's, slower
    def dumps_utf8(data) -> bytes:
        return json.dumps(data).encode()
    fragment = None


def update_id(boot: str, rows: int, n: int) -> str:
    """A live update's id from its parts (``game.update``: boot, rows, n): ``Table.update_id``."""
    return f"{boot}-{rows}-{n}"


class Sent:
    """What a seat is sent of a table at one version (``Table.present``): ``update_id`` (the
    live update's id), ``over`` (the table changes no more), ``base`` (the update id the change
    is from, or None), ``change`` (the payload as a change from ``base``, see change_from, or None)
    and ``payload``, the whole payload as JSON — encoded only when asked for (a stream that has
    the base sends the change; the act's answer, ``/state`` and a new stream ask for it)."""

    __slots__ = ("update_id", "over", "base", "change", "_data", "_payload")

    def __init__(self, update_id: str, data: dict, over: bool, base, change):
        self.update_id, self.over, self.base, self.change = update_id, over, base, change
        self._data, self._payload = data, None

    @property
    def payload(self) -> bytes:
        got = self._payload
        if got is None:             # (two threads may both encode it: the same bytes either way)
            got = self._payload = dumps_utf8(self._data)
        return got


SAME = {"same": True}       # in a change: this family is as it was


def change_from(payload: dict, last: tuple, views) -> dict:
    """``payload`` as a change from the payload a seat was sent before (``last``: its update,
    families and story), for a live stream that sent that one: each family shown as it was
    becomes ``{"same": true}`` (a family that shows the same is the same object: ViewCache), the
    story only its new entries after ``story_from`` (when it only grew), and ``base`` names the
    update it applies to.  The page puts the whole back together (table.js ``merged``); what a
    seat may see is the payload's, the change only leaves out what the page has."""
    base, (shared, players), story = last
    game = dict(payload["game"])
    view = game["view"] = dict(game["view"])
    view["shared"] = _kept(view["shared"], shared)
    if len(players) == len(view["players"]):
        view["players"] = [{**p, "families": _kept(p["families"], was)} for p, was in zip(view["players"], players)]
    new = game["story"]
    if len(story) <= len(new) and all(a is b or a == b for a, b in zip(story, new)):
        game["story"], game["story_from"] = new[len(story):], len(story)
    game["base"] = base
    view = views.packed(view, fragment) if fragment is not None else view
    game["view"] = view
    return {**payload, "game": game}


def _kept(families: list, was: list) -> list:
    if len(families) != len(was):
        return families
    return [SAME if f is w else f for f, w in zip(families, was)]
