"""The facade: load a rulebook, start games, and the state API players use.

    rules = Rulebook.load("rules/<game>")
    state = rules.new_game(players=3, seed=7)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    state.scores(), state.ranking()

``Rulebook.load`` runs every check (YAML, schema, names, types) and raises
:class:`RulebookError` with all diagnostics if anything is wrong.  A game
state follows the OpenSpiel habits: ``current_player``, ``legal_actions``,
``apply_action``, ``is_terminal``, ``returns``; plus ``observation(p)``,
``clone`` and ``to_json`` / ``Rulebook.state_from_json``.
"""
from __future__ import annotations

import copy

import gc
from contextlib import contextmanager
from functools import partial
from pathlib import Path

from dsl.diagnostics import Report, RulebookError, RuleRuntimeError
from dsl.loader import load_rulebook

from .compile.bidding import expand_bidding
from .compile.compiler import compile_source
from .run.layout import GameSetupError, make_layout
from .run.runtime import Frame, IllegalAction, State, run
from .shipped import rulebook_path
from .run.start import enter_label, fresh_state, local_slot, new_locals, start_game, try_setup, with_frames

__all__ = ["Rulebook", "State", "IllegalAction", "GameSetupError", "RulebookError", "RuleRuntimeError",
           "check_rulebook"]


def check_rulebook(path, semantic: bool = True, coverage=None) -> tuple[Report, object]:
    """Load and compile ``path``; return the report and the GameDef (or None).

    ``semantic`` also runs the semantic checks of :mod:`interpreter.checks`
    (what `regelwerk validate` reports); loading a rulebook to play skips them.
    ``coverage``: a recorder of :mod:`interpreter.coverage`, compiled in (None: plain play).
    """
    with _no_cycle_collection():
        return _check_rulebook(rulebook_path(path), semantic, coverage)


@contextmanager
def _no_cycle_collection():
    """Pause Python's cycle collector while a rulebook loads: loading makes many long-lived
    objects and almost no cyclic garbage, and the collector's passes over them cost ~10 % of
    validating the four games.  (Reference counting frees everything else as usual; the collector runs
    again afterwards.)"""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _check_rulebook(path, semantic: bool, coverage) -> tuple[Report, object]:
    report = Report()
    source = load_rulebook(path, report)
    expand_bidding(source)          # open bidding: the plain steps it means (engine/compile/bidding.py)
    game = None
    if source.files and not report.has_errors:
        game = compile_source(source, report, coverage)
        if semantic and not report.has_errors:
            report.extend(_semantic_findings(source, game))
    elif source.files and not any(d.code in ("RW001", "RW006") for d in report.items):
        # structure errors: still compile to report name and type errors too
        # (not after a YAML syntax error: a file is missing, names would cascade)
        try:
            compile_source(source, report)
        except Exception:  # noqa: BLE001 - a broken structure may confuse the compiler; schema errors stand
            pass
    return report, (None if report.has_errors else game)


def _semantic_findings(source, game) -> list:
    """What the semantic checks find: remembered for this very text and engine
    (interpreter/checkcache.py), else found and remembered."""
    from .checks import checkcache
    found = checkcache.lookup(source)
    if found is not None:
        return found
    from .checks.checks import run_checks
    try:
        found = run_checks(source, game)
    except Exception as exc:  # noqa: BLE001 - a fault in a check must not hide the rulebook's state
        from dsl.diagnostics import ERROR, Diagnostic, Pos
        return [Diagnostic(Pos(source.files[0]), f"a semantic check failed inside Regelwerk, so this "
                                                 f"rulebook could not be fully checked: "
                                                 f"{type(exc).__name__}: {exc}", ERROR, "RW299")]
    checkcache.store(source, found)
    return found


def check_names(names, players: int) -> list:
    """People's names for the seats: at most one per player, each a short line of
    printable text, no two alike (a blank one keeps the seat's own name); a ValueError says
    what is wrong."""
    names = [str(n).strip() for n in names]
    if len(names) > players:
        raise ValueError(f"{len(names)} names for {players} players")
    for n in names:
        if len(n) > 40 or not n.isprintable():
            raise ValueError(f"a seat's name is at most 40 printable characters, not {n[:40]!r}")
    given = [n for n in names if n]
    if len(set(given)) != len(given):
        raise ValueError("two seats have the same name: " + ", ".join(sorted({n for n in given if given.count(n) > 1})))
    return names


_LOADED: dict = {}


def load_rulebook_once(path: str) -> "Rulebook":
    """The Rulebook at ``path``, loaded once per process (what unpickling a Rulebook calls)."""
    key = str(Path(path).resolve())
    book = _LOADED.get(key)
    if book is None:
        book = _LOADED[key] = Rulebook.load(key)
    return book


class Rulebook:
    """A compiled rulebook, ready to start games."""

    def __init__(self, game, path: Path, report: Report):
        self.game = game
        game.replay_start = partial(start_game, game)       # for resample (engine/knowledge/)
        game.rulebook = self                                # a State pickles by its rulebook (engine/run/persist.py)
        self.path = Path(path)
        self.report = report
        self._layouts: dict = {}

    @classmethod
    def load(cls, path, coverage=None) -> "Rulebook":
        """Load and compile a rulebook (every error raised at once; `validate` checks more).

        ``coverage``: an :class:`interpreter.coverage.Recorder` to compile in, so that
        what runs is recorded (only for measuring scenarios; plain play passes nothing)."""
        path = rulebook_path(path)
        report, game = check_rulebook(path, semantic=False, coverage=coverage)
        if game is None:
            raise RulebookError(report.sorted() or report.items)
        # the tens of thousands of objects compiling made (code, names, declarations) are in the
        # cycle collector's younger generations: its first collection of the middle one walks
        # them all (~40,000 for a large rulebook, some 14 ms, as much as two of its games) and
        # moves them to the oldest. That walk is done here, once, as part of loading, not in
        # whichever game it would fall on (a process that turned the collector off keeps it off).
        if gc.isenabled():
            gc.collect(1)
        return cls(game, path, report)

    def __reduce__(self):
        """Pickled by its folder: unpickling loads (and compiles) the rulebook there once per
        process (engine/run/persist.py); compiled code itself never pickles."""
        return (load_rulebook_once, (str(self.path),))

    @property
    def name(self) -> str:
        return self.game.name

    @property
    def score_direction(self) -> str:
        """``"higher"`` (the default) or ``"lower"`` (``end: better: lower``): which scores win."""
        return self.game.score_direction

    def layout(self, players: int, options=None, variants=(), names=None):
        """The layout of a game for ``players`` (made once per options and variants); ``names``:
        the seats' names instead of "Player 1" … (people's names: every seat of a player in
        order, the last ones may be left out), a copy that shares everything else."""
        key = (players, tuple(sorted((options or {}).items())), tuple(sorted(variants)))
        lay = self._layouts.get(key)
        if lay is None:
            lay = make_layout(self.game, players, options, variants)
            self._layouts[key] = lay
        if names:
            named = tuple(check_names(names, players))
            nkey = (key, named)
            got = self._layouts.get(nkey)
            if got is None:
                got = copy.copy(lay)
                got.seat_names = [n or lay.seat_names[i] for i, n in enumerate(named)] + \
                    list(lay.seat_names[len(named):])
                self._layouts[nkey] = got
            lay = got
        return lay

    def action_space(self, players: int, options=None, variants=()):
        """Every action id that can ever be legal in this layout, in a stable order
        (an :class:`interpreter.spaces.ActionSpace`: ``ids``, ``action_index(id)``,
        ``action_id(i)``, ``mask(legal_ids)``).  A layout with a parameter that cannot be
        bounded before the game (RW240, a warning of ``validate``) has none: a RulebookError
        located at each such parameter."""
        from .run.spaces import space_of, unbounded_diagnostics
        space = space_of(self.game, self.layout(players, options, variants))
        if space.unbounded:
            raise RulebookError(unbounded_diagnostics(space))
        return space

    def observation_spec(self, players: int, options=None, variants=()):
        """Names and shapes of ``State.observation_tensor`` in this layout
        (an :class:`interpreter.tensors.ObservationSpec`; needs numpy for the tensors)."""
        from .knowledge.tensors import observation_spec
        return observation_spec(self.game, self.layout(players, options, variants))

    def information_state_spec(self, players: int, options=None, variants=()):
        """Names and shapes of ``State.information_state_tensor`` in this layout: the
        observation spec and the two history parts (see interpreter/infosets.py)."""
        from .knowledge.infosets import information_state_spec
        return information_state_spec(self.game, self.layout(players, options, variants))

    def info(self, players: int, options=None, variants=()) -> dict:
        """Facts about a layout: seats, deciding seats, automata, sizes, score direction
        (see interpreter/facts.py)."""
        from .run.facts import game_info
        return game_info(self, players, options, variants)

    def new_chance_game(self, players: int, options=None, variants=()):
        """A game whose every random number is an explicit chance node
        (an :class:`interpreter.chance.ChanceState`)."""
        from .run.chance import ChanceState
        return ChanceState(self, players, options, variants)

    def new_game(self, players: int, seed: int = 0, options=None, variants=(), logging: bool = True,
                 start=None, names=None) -> State:
        """A new game, run up to its first decision.

        ``start`` (used by scenarios) is a callable ``start(state)`` applied
        after setup; it may edit zones and variables and return the name of
        a flow label to start at, plus the locals to set there.  ``names``: the
        seats' names (:meth:`layout`); a ValueError for bad ones.
        """
        if start is None:
            lay = self.layout(players, options, variants, names)
            st = with_frames(fresh_state(self.game, lay, seed, logging))
            run(st)
            return st
        # scenario start: run setup, stop, let the scenario edit, then enter the flow
        st = self.run_setup(players, seed, options, variants, logging)
        st.status = "play"
        label, local_values = start(st)
        st.forget_all()
        flow = self.game.flow
        frame = Frame(flow, new_locals(flow))
        if label is not None:
            enter_label(st, frame, label, local_values)
        else:
            for name, value in (local_values or {}).items():
                frame.L[local_slot(flow, name)] = value
        st.frames.append(frame)
        run(st)
        if not st._history:         # what resample replays from: the seats know nothing before it
            st.origin = st.clone()
        return st

    def run_setup(self, players: int, seed: int = 0, options=None, variants=(), logging: bool = True) -> State:
        """A new game after its setup, before the flow begins (no decision pending)."""
        st, error = self.try_setup(players, seed, options, variants, logging)
        if error is not None:
            raise error
        return st

    def try_setup(self, players: int, seed: int = 0, options=None, variants=(), logging: bool = True,
                  limit: int | None = None):
        """Run the setup; return (state, None), or (the state as far as it got, the rule error)."""
        return try_setup(self.game, self.layout(players, options, variants), seed, logging, limit)

    def evaluate(self, state: State, text: str, player=None):
        """Evaluate an expression of the rulebook's language in ``state``.

        Raises :class:`RulebookError` for an expression that does not
        compile and :class:`RuleRuntimeError` for one that fails.
        """
        from dsl.diagnostics import Pos
        from dsl.parser import ParseError, parse_expression
        from .compile.context import Cx, Scope
        from .compile.exprs import compile_expr
        from .compile import types as T
        report = Report()
        try:
            node = parse_expression(text, Pos("<expression>"))
        except ParseError as exc:
            from dsl.diagnostics import Diagnostic
            raise RulebookError([Diagnostic(exc.pos, exc.message, "error", "RW100")]) from None
        scope = Scope([("player", T.PLAYER)])
        fn, _ = compile_expr(node, Cx(self.game, report, scope, False, {}, None))
        if report.has_errors:
            raise RulebookError(report.sorted())
        L = [None] * max(scope.nslots, 1)
        L[0] = player
        return fn(state, L)

    def state_from_json(self, data: dict) -> State:
        lay_info = data["layout"]
        lay = self.layout(lay_info["players"], lay_info["options"], lay_info["variants"])
        return State.from_json(self.game, data, lay)
