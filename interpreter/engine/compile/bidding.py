"""Open bidding (``bidding:`` steps): "any seat may raise, in any order, until all pass",
written out as the plain steps it means before the rulebook is compiled.

A ``bidding`` step lists the actions on offer, like ``decide`` — raises and the passing
action(s) (``passes:``, default ``pass``).  Who may speak first is a rule of its own:

- **priority** (the default): the seats are called in priority order, clockwise from
  ``first`` (default ``player``: the auctioneer); the first seat called that raises takes
  the bid, and the call goes round again — from ``first`` (``restart: first``, the
  default: priority stays with the auctioneer) or from the seat after the raiser
  (``restart: after``).  Bidding ends when every seat, called in turn, has passed.
- **all at once** (``together: true`` or an expression of the seats): each call for
  raises is a decision taken together; the raises then run clockwise from ``first``, so
  of equal raises the one with priority comes first.  Bidding ends when a call brings
  no raise.

Written out (``_bidN_…`` are locals of the expansion; N numbers the bidding steps)::

    - let: "_bidN_go = true"
    - let: "_bidN_first = FIRST"
    - while: "_bidN_go"
      do:
        - set: "_bidN_go = false"
        - for: "_bidN_k in 0..count(players) - 1"
          do:
            - decide: ACTIONS
              who: "next(_bidN_first, _bidN_k)"
              as: _bidN_said
            - if: "not (_bidN_said in PASSES)"
              then: [{set: "_bidN_go = true"}, (restart: after) {set: "_bidN_first = …"}, {break: true}]

and with ``together``::

    - let: "_bidN_go = true"
    - while: "_bidN_go"
      do:
        - decide: ACTIONS
          together: TOGETHER
          first: FIRST
          as: _bidN_said
        - set: "_bidN_go = count(_bidN_said, s -> s != none and not (s in PASSES)) > 0"

Every step of the expansion is located at the ``bidding`` step; the actions and
``first``/``together`` keep their own positions.
"""
from __future__ import annotations

from dsl.yamlload import LDict, LList

#: the sections whose values hold steps
_STEP_SECTIONS = ("setup", "flow", "procedures", "actions", "triggers", "end")


def expand_bidding(source) -> None:
    """Replace every ``bidding`` step in ``source``'s sections by the steps it means (in place)."""
    counter = [0]
    for name in _STEP_SECTIONS:
        value = source.sections.get(name)
        if value is not None:
            _walk(value, counter)


def _walk(value, counter) -> None:
    if isinstance(value, list):
        i = 0
        while i < len(value):
            item = value[i]
            if isinstance(item, dict) and "bidding" in item and isinstance(value, LList):
                counter[0] += 1
                steps = _expand(item, counter[0])
                pos = value.pos_of(i)
                value[i:i + 1] = steps
                value.item_pos[i:i + 1] = [pos] * len(steps)
                for step in steps:
                    _walk(step, counter)
                i += len(steps)
                continue
            _walk(item, counter)
            i += 1
    elif isinstance(value, dict):
        for v in value.values():
            _walk(v, counter)


def _d(pos, items: dict, at=None) -> LDict:
    """A step (or mapping) located at ``pos``; ``at``: key -> the position its value keeps."""
    d = LDict(items)
    d.pos = pos
    d.key_pos = {}
    d.val_pos = dict(at or {})
    return d


def _l(pos, items: list) -> LList:
    out = LList(items)
    out.pos = pos
    out.item_pos = [pos] * len(items)
    return out


def _expand(step, n: int) -> list:
    pos = getattr(step, "pos", None)
    at = step.pos_of if isinstance(step, LDict) else (lambda _key: pos)
    b = f"_bid{n}_"
    passes = step.get("passes", "pass")
    passes = passes if isinstance(passes, list) else [passes]
    plist = "[" + ", ".join(f"'{p}'" for p in passes) + "]"
    actions = step["bidding"]
    if "together" in step:
        decide = {"decide": actions, "together": step["together"], "as": f"{b}said"}
        where = {"decide": at("bidding"), "together": at("together")}
        if "first" in step:
            decide["first"] = step["first"]
            where["first"] = at("first")
        body = [_d(pos, decide, where),
                _d(pos, {"set": f"{b}go = count({b}said, s -> s != none and not (s in {plist})) > 0"})]
        return [_d(pos, {"let": f"{b}go = true"}),
                _d(pos, {"while": f"{b}go", "do": _l(pos, body)})]
    first = step.get("first", "player")
    then = [_d(pos, {"set": f"{b}go = true"})]
    if step.get("restart") == "after":
        then.append(_d(pos, {"set": f"{b}first = next({b}first, {b}k + 1)"}))
    then.append(_d(pos, {"break": True}))
    call = [_d(pos, {"decide": actions, "who": f"next({b}first, {b}k)", "as": f"{b}said"},
               {"decide": at("bidding")}),
            _d(pos, {"if": f"not ({b}said in {plist})", "then": _l(pos, then)})]
    first_step = _d(pos, {"let": f"{b}first = {first}"}, {"let": at("first")})
    rounds = [_d(pos, {"set": f"{b}go = false"}),
              _d(pos, {"for": f"{b}k in 0..count(players) - 1", "do": _l(pos, call)})]
    return [_d(pos, {"let": f"{b}go = true"}), first_step,
            _d(pos, {"while": f"{b}go", "do": _l(pos, rounds)})]
