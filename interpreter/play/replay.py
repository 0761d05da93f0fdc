"""``regelwerk replay LOG [--until N] [--show] [--seat S]``: step through a game log.

Each decision is applied again from the seed; after each one the
rulebook's invariants and the engine's own (a component in one zone, no
capacity exceeded) are checked.  Every problem is one line
``LOG:line: error: …`` and exit status 1 — never a traceback.
"""
from __future__ import annotations

import sys

from dsl.diagnostics import RulebookError, RuleRuntimeError, format_report

from .gamelog import LogProblem, read_log, rulebook_hash
from ..game import GameSetupError
from ..game import IllegalAction
from ..commands import console as safe_console


class Replayed:
    """The outcome of replaying a log: the rulebook, the state, how many decisions were applied."""

    def __init__(self, rb, state, applied, log):
        self.rb, self.state, self.applied, self.log = rb, state, applied, log


def replay_log(path, until: int | None = None, on_decision=None, warn=None, complete_lines: bool = False) -> Replayed:
    """Replay the log at ``path``; raise :class:`LogProblem` (or a list of them as ``LogProblems``).
    ``complete_lines``: a last line cut short (no newline at its end: a killed game) is left out."""
    from ..game import Rulebook
    from ..tools.simulate import structure_problems
    log, problems = read_log(path, complete_lines)
    if problems:
        raise LogProblems(problems)
    shown = log.path
    if log.sha256 is not None and warn is not None:
        current = rulebook_hash(log.rulebook)
        if current != log.sha256:
            warn(LogProblem(shown, 1, f"the rulebook {log.rulebook} has changed since this log was written "
                                      f"(its hash differs); replaying it as it is now", "warning"))
    try:
        rb = Rulebook.load(log.rulebook)
    except RulebookError as exc:
        raise LogProblem(shown, 1, f"the rulebook {log.rulebook} does not load",
                         detail=format_report(exc.diagnostics)) from None
    try:
        st = rb.new_game(log.players, log.seed, log.options, log.variants, names=log.names)
    except (GameSetupError, ValueError) as exc:
        raise LogProblem(shown, 1, str(exc)) from None
    except RuleRuntimeError as exc:
        raise LogProblem(shown, 1, f"the setup fails: {exc.message}", detail=exc.diagnostic().format()) from None
    applied = 0
    for no, seat, action in log.actions:
        if until is not None and applied >= until:
            break
        if st.is_terminal():
            raise LogProblem(shown, no, f"the game is over, but the log goes on with '{action}'")
        who = st.current_player()
        if seat is not None and seat != who:
            raise LogProblem(shown, no, f"the log says seat {seat} decides, but it is seat {who}'s turn")
        try:
            if on_decision is not None:
                on_decision(st, who, action, before=True)
            st.apply_action(action)
        except IllegalAction as exc:
            legal = st.legal_actions()
            more = f" (legal now: {', '.join(legal[:8])}{', …' if len(legal) > 8 else ''})" if legal else ""
            raise LogProblem(shown, no, f"{exc}{more}") from None
        except RuleRuntimeError as exc:
            raise LogProblem(shown, no, f"the rules fail on '{action}': {exc.message}",
                             detail=exc.diagnostic().format()) from None
        applied += 1
        for name, fn, pos in rb.game.invariants:
            if not fn(st, [None]):
                raise LogProblem(shown, no, f"invariant '{name}' is broken after '{action}' ({pos})")
        for name, pos, kind in st.broken:
            raise LogProblem(shown, no, f"invariant '{name}' is broken at the end of a {kind}, "
                                        f"after '{action}' ({pos})")
        for problem in structure_problems(st):
            raise LogProblem(shown, no, f"after '{action}': {problem}")
        if on_decision is not None:
            on_decision(st, who, action, before=False)
    return Replayed(rb, st, applied, log)


class LogProblems(Exception):
    def __init__(self, problems):
        super().__init__(problems)
        self.problems = problems


def print_problems(exc) -> int:
    """Print a LogProblem or LogProblems to stderr, one located line each; the exit status (1)."""
    for p in getattr(exc, "problems", None) or [exc]:
        print(p.format(), file=sys.stderr)
    return 1


def _viewer(args, st):
    """The seat ``--seat`` names, counted from 0 as in the API and the log (None: an onlooker)."""
    if args.seat is None:
        return None
    if not 0 <= args.seat < st.lay.num_seats:
        from ..commands import UsageError
        raise UsageError(f"--seat takes 0 to {st.lay.num_seats - 1}: seats count from 0, as in the API and "
                         f"the log ({', '.join(f'{i} is {name}' for i, name in enumerate(st.lay.seat_names))})")
    return args.seat


def cmd_replay(args) -> int:
    from rich.console import Console
    from .narrate import Narrator
    from .view import build_view
    from .view.terminal import view_renderable
    console = safe_console(highlight=False)
    narrator = []

    def tell(st, who, action, before):
        if not args.show:
            return
        if not narrator:
            narrator.append(Narrator(st))
        n = narrator[0]
        if before:
            for line in n.lines_before(st):
                console.print(line, markup=False)
            viewer = _viewer(args, st)
            console.print(n.decision(who, action, viewer, everyone=viewer is None), markup=False)
        else:
            for line in n.lines_after(st, (who, action)):
                console.print(line, markup=False)
            for line in n.ending(st):
                console.print(line, markup=False)

    def warn(p):
        print(p.format(), file=sys.stderr)

    if args.until is not None and args.until < 0:
        from ..commands import UsageError
        raise UsageError("--until takes a number of decisions (0 or more)")
    try:
        done = replay_log(args.file, args.until, tell, warn, args.complete_lines)
    except (LogProblems, LogProblem) as exc:
        return print_problems(exc)
    st = done.state
    if args.show:
        console.print(view_renderable(build_view(st, _viewer(args, st))))
    print(f"{done.rb.name}: {done.applied} decisions replayed")
    if st.is_terminal():
        print(f"game over: scores {st.scores()}, ranking {st.ranking()}")
    else:
        legal = st.legal_actions()
        print(f"{st.lay.seat_names[st.current_player()]} to decide; legal: {', '.join(legal[:20])}"
              f"{', …' if len(legal) > 20 else ''}")
    return 0
