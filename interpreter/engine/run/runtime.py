"""The game state and the machine that runs compiled rules.

A :class:`State` is pure data: zone contents, variables, the random
generator (one integer), a stack of :class:`Frame` (procedure, program
counter, local slots), the open scopes with their deferred effects, and the
pending decision.  Because the stack is data, a game can stop at a decision
anywhere — deep inside an action, a trigger or a loop — and be cloned or
serialised there.

:func:`run` executes instructions until a decision is needed or the game
is over.  An instruction is a closure ``ins(state, frame)``; the machine
advances the program counter *before* calling it, so an instruction jumps
by setting ``frame.pc`` and suspends by returning ``True``.
"""
from __future__ import annotations

from dsl.diagnostics import Pos, RuleRuntimeError

from ..compile.codegen import locals_maker, option_taker
from ..compile.flowcode import direct_function, rule_error
from .limits import LIMITS, NEXT, WORK
from .frames import Decision, Frame, Option, ScopeRec, id_part, option_id  # noqa: F401 - part of this module's API
from .values import Record, encode, decode
from .moves import Moves
from .rng import Ahead
from .told import Told
from .playerapi import PlayerAPI


class MoveJournal(list):
    """The ids of the components that changed zone, in order (``State.track_moves``): a list the
    engine appends to, kept bounded — once it holds more than ``2 * KEEP`` entries, the next
    decision drops all but the last ``KEEP`` (``trim``).  ``base`` counts the entries dropped
    so far, so a reader keeps its place as ``base + index`` (``end()`` after the last entry);
    finding its place before ``base``, it has lost entries and reads the state whole instead."""

    __slots__ = ("base",)

    #: the entries kept at a trim (a reader more than this many moves behind reads the state whole)
    KEEP = 2048

    def __init__(self):
        super().__init__()
        self.base = 0

    def end(self) -> int:
        """The place after the last entry (the entries dropped included)."""
        return self.base + len(self)

    def trim(self, keep: int) -> None:
        """Drop all but the last ``keep`` entries."""
        drop = len(self) - keep
        if drop > 0:
            del self[:drop]
            self.base += drop


class IllegalAction(Exception):
    """A decision that is not among the legal actions; the state is unchanged."""


class State(Moves, Told, PlayerAPI):
    """Everything that changes during a game.  See the module docstring.  (``zf``, ``zi``,
    ``vk``: the layout's zones, zone ids and variable slots by family and key, kept here
    for the generated code to reach in one step.)  Its parts: moves.py (randomness, moving
    components, grids), told.py (what the seats were shown and told), playerapi.py (history,
    scores, returns, observations)."""

    __slots__ = ("game", "lay", "z", "where", "v", "rng", "frames", "scopes", "pending", "_history",
                 "status", "running", "forced", "log", "log_marks", "logging", "steps", "error", "seed", "memo",
                 "short_draws", "known", "drawn", "facts", "step_limit", "chance", "zf", "zi", "zn", "vk", "broken",
                 "origin", "moved", "rec", "script", "ahead")

    # --- construction ------------------------------------------------------
    def clone(self) -> "State":
        s = State.__new__(State)
        s.game = self.game
        s.lay = self.lay
        s.z = list(map(list, self.z))       # each zone a list of its own, copied at C speed
        s.where = list(self.where)
        s.v = list(self.v)
        s.rng = self.rng
        s.ahead = self.ahead.copy()
        s.frames = [f.copy() for f in self.frames]
        s.scopes = [sc.copy() for sc in self.scopes]
        s.pending = self.pending  # decisions are never mutated
        s._history = list(self._history)
        s.status = self.status
        s.running = self.running
        s.forced = list(self.forced)
        s.log = list(self.log)
        s.log_marks = list(self.log_marks)
        s.logging = self.logging
        s.steps = 0
        s.error = self.error
        s.seed = self.seed
        s.memo = [None] * self.game.memo_size
        s.short_draws = []
        s.known = dict(self.known)
        s.drawn = self.drawn                # never changed in place (State.drew)
        s.facts = self.facts                # a tuple
        s.chance = None
        s.broken = []
        s.zf, s.zi, s.zn, s.vk = self.zf, self.zi, self.zn, self.vk
        s.origin = self.origin              # an edited start (never changed), or None
        s.script = self.script              # a sampled world's chance answers (a tuple pair), or None
        s.moved = None                      # a copy is tracked only when asked (track_moves)
        s.rec = None                        # a replay's record of what one seat is shown (knowledge/record.py)
        return s

    def __reduce__(self):
        """Plain ``pickle``: by the rulebook's folder and the game so far (engine/run/persist.py)."""
        from .persist import reduce_state
        return reduce_state(self)

    # --- queries -----------------------------------------------------------
    @property
    def terminal(self) -> bool:
        return self.status == "over"

    @property
    def truncated(self) -> bool:
        """Whether the game has not ended after its layout's ``decision_bound`` decisions (the
        rulebook's ``max_decisions``, else a default per seat: layout.py): an environment ends
        the episode there as truncated.  The engine itself plays on (to the limit 'decisions')."""
        return self.status != "over" and len(self._history) >= self.lay.decision_bound

    def contents(self, zone):
        return self.z[zone.id]

    def track_moves(self) -> "MoveJournal":
        """From now on every component that changes zone is appended (its id) to the journal
        returned (``State.moved``), kept until the state is cloned (a copy is not tracked).
        Observers read it from where they last were to see which components moved
        (observation_writer.ObservationWriter); the order within a zone is not tracked.  It stays
        bounded: a decision trims it when it grew past twice ``MoveJournal.KEEP`` entries."""
        if self.moved is None:
            self.moved = MoveJournal()
        return self.moved


    # --- events, triggers, scopes ------------------------------------------
    def frame_player(self):
        """The seat bound to `player` in the running frame (for triggers)."""
        return self.frames[-1].L[0] if self.frames else None

    def emit(self, name: str, event: Record, pos: Pos) -> None:
        triggers = self.game.event_triggers.get(name)
        if not triggers:
            return
        player = self.frame_player()
        fire = []
        for trig in triggers:
            L = [None] * trig.proc.nslots
            L[0] = player
            L[trig.event_slot] = event
            if trig.when is not None and not trig.when(self, L):
                continue
            fire.append((trig, L))
        for trig, L in reversed(fire):
            if trig.at:
                self.defer(trig.at, trig.proc, L, False, trig.pos, trig.name)
            else:
                self.frames.append(Frame(trig.proc, L, 0, trig.name))

    def forget_results(self, zone_ids) -> None:
        """The contents of these zones changed: forget the remembered function
        results that may depend on them (``Layout.stale_results``)."""
        memo = self.memo
        stale_results = self.lay.stale_results
        for zid in zone_ids:
            stale = stale_results[zid]
            if stale is None:           # no plan (or a zone it does not know): forget everything
                self.forget_all()
                return
            for slot in stale:
                memo[slot] = None
        keyed = self.game.memo_keyed
        if keyed:
            zones = self.lay.zones
            for slot, _, _ in keyed:
                results = memo[slot]
                if results:
                    for zid in zone_ids:
                        results.pop(zones[zid], None)

    def forget_all(self) -> None:
        """Forget every remembered function result."""
        self.memo = [None] * self.game.memo_size

    def changed(self, drop=None) -> None:
        """Called after every change of state: forget remembered function
        results — those at the slots in ``drop`` (the ones a change of one
        variable makes stale: ``GameDef.memo_drop``), or all (None) — and check
        condition triggers.  A move or a draw forgets its zones' results itself
        (``forget_results``) and calls ``changed(())`` only for the condition
        triggers, so not at all in a game without them."""
        if drop is None:
            self.forget_all()
        else:
            memo = self.memo
            for slot in drop:
                memo[slot] = None
        conds = self.game.condition_triggers
        if not conds or self.status != "play":
            return
        for trig in conds:
            if trig.name in self.running:
                continue
            L = [None] * trig.proc.nslots
            L[0] = self.frame_player()
            if trig.when(self, L):
                self.running = self.running | {trig.name}
                if trig.at:
                    self.defer(trig.at, trig.proc, L, True, trig.pos, trig.name)
                else:
                    self.frames.append(Frame(trig.proc, L, 0, trig.name))
                return

    def scope_start(self, kind: str, name: str) -> None:
        self.scopes.append(ScopeRec(kind, name))
        if self.game.event_triggers:
            ev = kind + "_start"
            if ev in self.game.event_triggers:
                self.emit(ev, Record.of({"name": name}), Pos("<scope>"))

    def scope_end(self, kind: str, name: str) -> None:
        rec = self.scopes.pop()
        if self.game.scope_invariants:  # `invariants: {x: {expr: ..., when: turn_end}}`
            for inv, fn, pos in self.game.scope_invariants.get(kind, ()):
                if not fn(self, [None]):
                    self.broken.append((inv, pos, kind))
        events = self.game.event_triggers
        if events:
            ev = _SCOPE_END.get(kind)
            if ev is None:
                ev = _SCOPE_END[kind] = kind + "_end"
            if ev in events:
                self.emit(ev, Record.of({"name": name}), _SCOPE_POS)
        if rec.deferred:
            self.push_deferred(rec)

    def push_deferred(self, rec) -> None:
        """The effects deferred to the end of the scope ``rec``, which has just ended, as frames
        (the first one deferred on top: it runs first)."""
        for proc, L, trig in reversed(rec.deferred):
            self.frames.append(Frame(proc, L, 0, trig))

    def defer(self, until: str, proc, L, once: bool, pos: Pos, trigger=None) -> None:
        scopes = self.scopes
        for i in range(len(scopes) - 1, -1, -1):
            rec = scopes[i]
            if rec.kind == until or rec.name == until:
                if once and rec.deferred and any(p is proc for p, _, _ in rec.deferred):
                    if trigger and trigger in self.running:
                        self.running = self.running - {trigger}
                    return
                if rec.deferred is None:    # (maybe the record every run of the scope shares: steps.scope_start)
                    rec = scopes[i] = ScopeRec(rec.kind, rec.name, [])
                rec.deferred.append((proc, L, trigger))
                return
        raise RuleRuntimeError(f"cannot defer to the end of '{until}': no such scope is open here", pos)

    def end_game(self) -> None:
        self.frames.clear()
        self.scopes.clear()
        self.running = frozenset()
        self.start_scoring()

    def start_scoring(self) -> None:
        self.status = "scoring"
        scoring = self.game.scoring
        if scoring is not None:
            self.frames.append(Frame(scoring, [None] * scoring.nslots))

    # --- decisions -----------------------------------------------------------
    def legal_actions(self) -> list:
        if self.pending is None:
            return []
        return [o.id for o in self.pending.options]

    def apply(self, action_id: str) -> None:
        dec = self.pending
        if dec is None or self.status == "over":
            raise IllegalAction("no decision is pending: the game is over" if self.status == "over"
                                else "no decision is pending")
        opt = dec.by_id.get(action_id) if isinstance(action_id, str) else None
        if opt is None:
            shown = repr(action_id)[:80] if not isinstance(action_id, str) else f"'{action_id[:80]}'"
            raise IllegalAction(f"{shown} is not a legal action now")
        self._apply(dec, opt)

    def legal_action_indices(self) -> range:
        """The legal actions by position (``legal_actions()[i]``): for bots and
        playouts, which need no ids."""
        return range(len(self.pending.raw)) if self.pending is not None else range(0)

    def apply_index(self, i: int) -> None:
        """Apply ``legal_actions()[i]`` without writing any action id."""
        dec = self.pending
        if dec is None or self.status == "over":
            raise IllegalAction("no decision is pending: the game is over" if self.status == "over"
                                else "no decision is pending")
        raw = dec.raw
        if type(i) is not int or not 0 <= i < len(raw):
            raise IllegalAction(f"{i!r} is not the index of a legal action now (0..{len(raw) - 1})")
        opts = dec._options
        if opts is not None:
            self._apply(dec, opts[i])
        else:
            action, values = raw[i]
            self._apply(dec, Option(action, values))

    def play_by_counts(self, pickers, max_decisions: int = 100_000) -> int:
        """Play to the end, each decision's action chosen by ``pickers[seat](n)``, the index of
        one of the ``n`` legal actions (``legal_actions()[i]``), for choosers that need nothing
        but their number (a random one, the first one); return the number of decisions.  What
        ``apply_index`` does at each decision, inside :func:`run`'s own loop (no return to a
        loop outside it between decisions: ai.bots.play_out).  RuntimeError after
        ``max_decisions``; IllegalAction for an index out of range or a game in error."""
        if self.status == "over":
            return 0
        if self.pending is None or self.status == "error":
            raise IllegalAction("the game is in error" if self.status == "error" else "no decision is pending")
        return run(self, None, None, None, pickers, max_decisions)

    def _apply(self, dec, opt) -> None:
        run(self, None, dec, opt)

    def run_together(self, held, first=None) -> None:
        """Run the options of a decision taken together (``held``: ``(seat, action, values)``
        of each seat, in seat order), each as a frame of its own, the first seat's on top;
        ``first``: clockwise from that seat instead (``first:``, a seat with priority)."""
        base = self.frames[-1].L
        by_proc = self.game.action_by_proc
        if first is not None:
            n = self.lay.num_seats
            held = sorted(held, key=lambda h: (h[0] - first) % n)
        for who, name, values in reversed(held):
            if name is None:            # a seat that had nothing legal took no part
                continue
            action = by_proc[name]
            make = action.make_locals
            if make is None:
                make = action.make_locals = locals_maker(action)
            self.frames.append(Frame(action.proc, make(who, values, base)))

    def pending_seats(self) -> list:
        """Every seat still to choose in the pending decision: for a decision taken together
        (``together:``) all that have not chosen yet, in seat order (``current_player()`` is
        the first of them); else ``[current_player()]``, or ``[]`` when none is pending."""
        dec = self.pending
        if dec is None:
            return []
        return list(dec.seats) if dec.seats is not None else [dec.who]


    def scores_if_ended(self) -> list:
        """The scores the game would give if it ended now: a copy runs the rulebook's
        ``scoring:`` steps, then ``end: score:`` (this state is unchanged).  For bots that
        judge a position by its score when the rules write scores only as the game ends; a
        ``scoring:`` that cannot run mid-game falls back to :meth:`scores`."""
        if self.status == "over" or self.game.scoring is None:
            return self.scores()
        s = self.clone()
        s.logging = False
        s.pending = None
        s.end_game()
        try:
            run(s)
        except RuleRuntimeError:
            return self.scores()
        return s.scores()


    # --- serialisation -------------------------------------------------------
    def to_json(self) -> dict:
        return {
            "format": "regelwerk-state/1",
            "game": self.game.name,
            "layout": self.lay.describe(),
            "seed": self.seed,
            "zones": [[c.id for c in zone] for zone in self.z],
            "v": [encode(x) for x in self.v],
            "rng": self.rng,
            "frames": [{"proc": f.proc.name, "pc": f.pc, "L": [encode(x) for x in f.L], "trigger": f.trigger}
                       for f in self.frames],
            "scopes": [{"kind": s.kind, "name": s.name,
                        "deferred": [[p.name, [encode(x) for x in L], t] for p, L, t in s.deferred or ()]}
                       for s in self.scopes],
            "pending": None if self.pending is None else {
                "who": self.pending.who,
                "as_slot": self.pending.as_slot,
                **({"group": self.pending.group} if self.pending.group is not None else {}),
                **({"held": self.pending.held, "seats": list(self.pending.seats)}
                   if self.pending.held is not None else {}),
                "pos": [self.pending.pos.file, self.pending.pos.line, self.pending.pos.col],
                "options": [[a.proc.name, [encode(v) for v in values]] for a, values in self.pending.raw],
            },
            "history": [[who, o.id] for who, o in self._history],
            "status": self.status,
            "running": sorted(self.running),
            "forced": list(self.forced),
            "log": list(self.log),
            # absent unless a `reveal` step showed something (states of games without one serialise as before)
            **({"known": {str(zid): sorted(seats) for zid, seats in sorted(self.known.items())}}
               if self.known else {}),
            # absent unless a `random` step drew a value into a variable that may be hidden
            **({"drawn": [[slot, key] for slot, key in sorted(self.drawn.items())]} if self.drawn else {}),
            **({"facts": [[seat, cid, attr, encode(value), equal, holds]
                          for seat, cid, attr, value, equal, holds in self.facts]} if self.facts else {}),
            # absent unless the game began at an edited start (a scenario's): what resample replays from
            **({"origin": self.origin.to_json()} if self.origin is not None else {}),
            # absent unless the state is a sampled world (resample): its chance answers and the generator after them
            **({"script": [list(self.script[0]), self.script[1]]} if self.script is not None else {}),
        }

    @classmethod
    def from_json(cls, game, data: dict, layout) -> "State":
        s = cls.__new__(cls)
        s.game = game
        s.lay = layout
        comps = layout.components
        s.z = [[comps[i] for i in zone] for zone in data["zones"]]
        s.moved = None
        s.rec = None
        s.where = [0] * len(comps)
        for zid, zone in enumerate(s.z):
            for c in zone:
                s.where[c.id] = zid
        s.v = [decode(x, layout) for x in data["v"]]
        s.rng = data["rng"]
        s.ahead = Ahead()
        procs = game.all_procs
        s.frames = [Frame(procs[f["proc"]], [decode(x, layout) for x in f["L"]], f["pc"], f["trigger"])
                    for f in data["frames"]]
        s.scopes = [ScopeRec(sc["kind"], sc["name"],
                             [(procs[p], [decode(x, layout) for x in L], t) for p, L, t in sc["deferred"]])
                    for sc in data["scopes"]]
        s.pending = None
        if data["pending"] is not None:
            pd = data["pending"]
            opts = []
            for name, values in pd["options"]:
                action = game.action_by_proc[name]
                opts.append((action, tuple(decode(v, layout) for v in values)))
            s.pending = Decision(pd["who"], opts, pd["as_slot"], Pos(*pd["pos"]), pd.get("group"), pd.get("held"),
                                 tuple(pd["seats"]) if "seats" in pd else None)
        s._history = [(who, Option(None, (), action_id)) for who, action_id in data["history"]]
        s.status = data["status"]
        s.running = frozenset(data["running"])
        s.forced = list(data["forced"])
        s.log = list(data["log"])
        s.log_marks = []
        s.logging = True
        s.steps = 0
        s.error = None
        s.seed = data.get("seed")
        s.memo = [None] * game.memo_size
        s.short_draws = []
        s.known = {int(zid): frozenset(seats) for zid, seats in data.get("known", {}).items()}
        s.broken = []
        s.drawn = {int(slot): key for slot, key in data.get("drawn", ())}
        s.facts = tuple((seat, cid, attr, decode(value, layout), equal, holds)
                        for seat, cid, attr, value, equal, holds in data.get("facts", ()))
        s.chance = None
        s.zf, s.zi, s.zn, s.vk = layout.zfam, layout.zid, layout.zidn, layout.vkeys
        origin = data.get("origin")
        s.origin = None if origin is None else cls.from_json(game, origin, layout)
        script = data.get("script")
        s.script = None if script is None else (tuple(script[0]), script[1])
        return s


#: the event a scope's end sends, by the scope's kind ("turn" -> "turn_end"), and where it is said to come from
_SCOPE_END = {}
_SCOPE_POS = Pos("<scope>")


class Unfinished(RuntimeError):
    """A playout of ``State.play_by_counts`` that reached its ``max_decisions``."""


def run(st: State, limit: int | None = None, dec=None, opt=None, pickers=None, max_decisions: int = 0) -> int:
    """Run until a decision is pending or the game is over (at most ``limit`` steps between
    two decisions: LIMITS.steps).  ``dec``, ``opt``: first take the option ``opt`` of the
    pending decision ``dec`` (``State.apply``).  ``pickers``: a decision pending is not the
    end — ``pickers[seat](n)`` picks one of its ``n`` options, taken here, until the game is
    over (``State.play_by_counts``; at most ``max_decisions``); return the number taken.

    Taking an option: the history records it; a decision taken together holds it in the
    deciding frame until every seat has chosen; else the action's procedure runs, as a
    Python call when it cannot stop (flowcode.direct_function), else as a frame on top."""
    if limit is None:
        limit = LIMITS.steps
    st.step_limit = limit           # for the loops of generated step code (interpreter/flowcode.py)
    frames = st.frames
    history = st._history
    most = LIMITS.decisions
    taken = 0
    fr = None
    proc = None
    pc = 0
    try:
        while True:                 # a round: pick and take an option (if any), then run to a decision or the end
            if pickers is not None:
                dec = st.pending
                if taken >= max_decisions:
                    raise Unfinished(f"no end after {max_decisions} decisions")
                raw = dec.raw
                i = pickers[dec.who](len(raw))
                if type(i) is not int or not 0 <= i < len(raw):
                    raise IllegalAction(f"{i!r} is not the index of a legal action now (0..{len(raw) - 1})")
                opts = dec._options
                if opts is not None:
                    opt = opts[i]
                else:
                    action, values = raw[i]
                    opt = Option(action, values)
                taken += 1
            NEXT[0] -= WORK[0]      # what was built counts towards the next look at the memory
            WORK[0] = 0             # the elements built between two decisions (limit 'work')
            steps = 0
            if dec is not None:
                moved = st.moved
                if moved is not None and len(moved) > 2 * MoveJournal.KEEP:     # tracked (track_moves): bounded
                    moved.trim(MoveJournal.KEEP)
                if len(history) >= most:
                    raise RuleRuntimeError(f"the game has gone on for {len(history):,} decisions without "
                                           f"ending (limit 'decisions')", dec.pos, "RW910")
                st.pending = None
                who = dec.who
                fr = None               # (an error from here on is located at the action)
                pc = 0
                history.append((who, opt))
                if dec.held is not None:        # taken together: held until every seat has chosen
                    top = frames[-1].L
                    top[dec.held] = top[dec.held] + ((who, opt.action.proc.name, opt.values),)
                else:
                    action = opt.action
                    if dec.as_slot is not None:
                        frames[-1].L[dec.as_slot] = action.name
                    proc = action.proc
                    take = action.take
                    if take is None:
                        take = action.take = option_taker(
                            action, proc.entries is not None and direct_function(proc, proc.live))
                    # an action that cannot stop runs as a Python call, then the frame that decided goes on
                    L = take(st, who, opt.values, frames[-1].L if action.inherit else None)
                    if L is not None:
                        frames.append(Frame(proc, L))
            while True:             # the frames run until one stops at a decision, or none is left
                while frames:
                    fr = frames[-1]
                    code = fr.code
                    n = len(code)
                    pc = fr.pc
                    while pc < n:               # the frame on top runs until it ends or another is on top
                        fr.pc = pc + 1
                        steps += 1
                        if code[pc](st, fr):    # a stop: a decision is pending (or try_setup's halt)
                            if pickers is None:
                                st.steps += steps
                                return taken
                            break
                        if steps > limit:
                            raise RuleRuntimeError(
                                f"the rules ran {limit:,} steps without reaching a decision (an endless loop? "
                                f"limit 'steps')", fr.proc.pos_at(pc), "RW910")
                        if not frames or frames[-1] is not fr:
                            break
                        pc = fr.pc
                    else:
                        frames.pop()
                        if fr.trigger is not None:
                            if fr.trigger in st.running:
                                st.running = st.running - {fr.trigger}
                            st.changed(())      # only which triggers run changed: no function reads it
                        elif fr.proc.kind == "setup":
                            st.status = "play"
                            st.changed(())
                        continue
                    if st.pending is not None:  # a decision for the pickers (else another frame is on top)
                        break
                else:
                    if st.status == "play":
                        st.start_scoring()
                        continue
                    if st.status == "setup":
                        st.status = "play"
                        continue
                    st.status = "over"
                    st.steps += steps
                    return taken
                break
            st.steps += steps           # (only the pickers' playout comes here: on to their pick)
    except (IllegalAction, Unfinished):
        raise                       # the decision is still pending: the game goes on
    except RuleRuntimeError as exc:
        st.error = exc
        st.status = "error"
        raise
    except Exception as exc:  # noqa: BLE001 - a failure of generated code or a fault, located at the rule
        if fr is not None or proc is not None:
            err = rule_error(exc, fr.proc if fr is not None else proc, pc)
        else:
            err = RuleRuntimeError(f"internal error while running this step: {type(exc).__name__}: {exc}",
                                   Pos("<runtime>"))
        st.error = err
        st.status = "error"
        raise err from exc
