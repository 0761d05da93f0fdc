"""Play in the terminal: ``regelwerk play RULEBOOK --players N --seats human,random``.

The person to move sees the view of their seat (:mod:`.view`) and their
legal actions, numbered and grouped by action; they type a number, an
action id, or a prefix of one that is unique.  Commands: ``undo`` (back to
your previous decision), ``log`` (the story so far), ``help``, ``quit``
(saves a log that ``regelwerk replay`` reads).  With two or more people at
one screen, a "pass to …" screen comes between their turns, so nobody sees
another's hidden components.
"""
from __future__ import annotations

import io
import re
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from dsl.diagnostics import printable

from ..game import IllegalAction
from .gamelog import LiveLog
from .session import Session
from .view import build_view
from .view.compact import choice_lines, compact_screen
from .view.steps import back, menu, stepped_groups
from .view.terminal import actions_renderable, numbered_actions, view_renderable
from ..commands import console as safe_console
from ..userstate import logs_dir

HELP = """Type the number of an action, its id, or the start of an id that only one action has
(Enter alone takes the only choice when there is one).  When there are many choices, a number
ending in ▸ narrows them one step (the piece, then how it is turned, then where); 0 goes back.
  undo   take back your last decision (and the bots' moves after it)
  log    the story of the game so far
  o      draw the next other player's board in full (small screens)
  help   this text
  quit   stop; the game is saved as a log; go on later with: regelwerk play RULEBOOK --resume LOG"""


_NUMBER_ID = re.compile(r"^(\w+)\((\w+)=(-?\d+)\)$")


class NumberGroup:
    """The options of an action with one number parameter written as a range (``bid(amount)``,
    ``0..money[player]``): entered as a number, not picked from a list of them."""

    def __init__(self, action: str, param: str, title: str, values: dict):
        self.action, self.param, self.title = action, param, title
        self.values = values            # value -> action id

    def describe(self) -> str:
        vals = sorted(self.values)
        run = vals == list(range(vals[0], vals[-1] + 1))
        span = f"{vals[0]} to {vals[-1]}" if run else ", ".join(map(str, vals))
        return f"{self.param}: a number, {span}"


def number_groups(view, game=None) -> list:
    """The groups of ``view``'s actions that are entered as numbers (the view marks them
    ``number``: an action whose only parameter's domain is a range ``lo..hi``)."""
    out = []
    for g in view["actions"]:
        param = g.get("number")
        if not param:
            continue
        values = {}
        for o in g["options"]:
            m = _NUMBER_ID.match(o["id"])
            if m is None or m.group(1) != g["action"]:
                break
            values[int(m.group(3))] = o["id"]
        else:
            if values:
                out.append(NumberGroup(g["action"], param, g.get("title") or g["action"], values))
    return out


def choose(text: str, ids: list, numbers=()) -> tuple[str | None, str]:
    """The action ``text`` means among ``ids`` (the numbered ones) and ``numbers`` (the
    :class:`NumberGroup` entered as numbers: ``bid 4``, or ``4`` when it is the only
    choice): (id, "") or (None, why not)."""
    text = text.strip()
    words = text.split()
    if len(words) == 2 and re.fullmatch(r"-?\d+", words[1]):
        group = next((g for g in numbers if g.action == words[0]), None)
        if group is not None:
            return _number(group, int(words[1]))
    if numbers and not ids and re.fullmatch(r"-?\d+", text):
        if len(numbers) == 1:
            return _number(numbers[0], int(text))
        return None, "type the action and the number: " + ", ".join(f"{g.action} N" for g in numbers)
    if text.isdigit():
        n = int(text)
        if 1 <= n <= len(ids):
            return ids[n - 1], ""
        return None, f"no action number {n} (1 to {len(ids)})"
    if text in ids:
        return text, ""
    compact = text.replace(" ", "")
    matches = [i for i in ids if i.startswith(compact)]
    if len(matches) == 1:
        return matches[0], ""
    if matches:
        return None, f"'{text}' fits {len(matches)} actions: " + ", ".join(matches[:6]) + (", …" if len(matches) > 6 else "")
    return None, f"no action starts with '{text}' (type help)"


def _plain(text: str) -> str:
    """An entry's words as typed: no case, spaces, commas or brackets ("(3, 4)" and "3 4" agree)."""
    return "".join(ch for ch in text.lower() if ch.isalnum() or ch in "-")


def _number(group: NumberGroup, n: int) -> tuple[str | None, str]:
    if n in group.values:
        return group.values[n], ""
    return None, f"{group.action}: {group.param} cannot be {n} now ({group.describe()})"


def number_renderable(numbers):
    """The actions entered as numbers, one line each."""
    t = Table.grid(padding=(0, 1))
    t.add_column(justify="right", style="bold yellow")
    t.add_column()
    for g in numbers:
        t.add_row("", Text(printable(g.title), style="bold"))
        t.add_row("#", Text(f"{g.describe()} — type {g.action} N" if len(numbers) > 1 else
                            f"{g.describe()} — type the number"))
    return t


def default_log(rb, seed) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return logs_dir() / f"{Path(str(rb.path)).name}-seed{seed}-{stamp}.jsonl"


class TerminalPlay:
    """``compact``: draw each decision on one screen that fits the terminal (:mod:`.view.compact`);
    None: when the console is a terminal too small for the full drawing.  ``chosen_log``: False when
    the log path is the default one, which a game with no decision does not write."""

    def __init__(self, session: Session, log_path, console: Console | None = None, read=None,
                 compact: bool | None = None, chosen_log: bool = True):
        self.s = session
        self.log_path = Path(log_path)
        self.console = console or safe_console(highlight=False)
        self.read = read or self._read
        self.shown_to = None   # the person who last saw the screen
        self.decisions = 0
        self.compact = compact
        self.chosen_log = chosen_log
        self.recent: list = []   # story lines since the last compact screen
        self.path = None         # the action and the values chosen so far in a step-by-step choice
        self.show_seat = None    # the other seat whose board the compact screen draws in full
        self.live = LiveLog(self.log_path)   # the log on disk, in step with every decision

    def ask(self, prompt: str) -> str:
        self.console.print(prompt, end="", markup=False, highlight=False)
        self.console.file.flush()
        return self.read(prompt)

    @staticmethod
    def _read(prompt: str) -> str:
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line.rstrip("\n")

    def viewer(self):
        humans = self.s.humans()
        return humans[0] if len(humans) == 1 else self.shown_to

    def say(self, entries) -> None:
        lines = self.s.tell(entries, self.viewer())
        if self.compact:
            self.recent += lines       # shown on the next screen
            return
        for line in lines:
            self.console.print(line, markup=False, highlight=False)

    def use_compact(self, view) -> bool:
        """Compact when asked, or (unless told not to) when the full drawing would not fit the terminal."""
        if self.compact is not None:
            return self.compact
        c = self.console
        if not c.is_terminal:
            return False
        probe = Console(file=io.StringIO(), width=c.width, color_system=None)
        probe.print(view_renderable(view))
        probe.print(actions_renderable(view))
        return probe.file.getvalue().count("\n") > c.height - 1

    def show(self, view, seat) -> list:
        """Draw the view; the numbered entries the person chooses among (:func:`.view.steps.menu`)."""
        c, s = self.console, self.s
        numbers = number_groups(view, s.state.game)
        if numbers:                 # entered as numbers: one line each, not a list of every value
            listed = {g.action for g in numbers}
            view = {**view, "actions": [g for g in view["actions"] if g["action"] not in listed]}
        if self.compact is None and self.use_compact(view):
            self.compact = True
        if self.compact:
            # many choices that would push the board off the screen: chosen in steps
            stepped = stepped_groups(view) if len(choice_lines(view, c.width)) > c.height // 2 else set()
            m = menu(view, self.path, stepped)
            c.clear()
            for line in compact_screen(view, c.width, c.height, self.recent, m, self.show_seat):
                c.print(line, no_wrap=True, overflow="ellipsis", markup=False, highlight=False)
            if numbers:
                c.print(number_renderable(numbers))
            self.recent = []
            return m["entries"]
        c.print(Rule(Text(printable(f"{s.seat_names[seat]} decides (decision {len(s.history) + 1})"))))
        c.print(view_renderable(view))
        c.print(actions_renderable(view))
        if numbers:
            c.print(number_renderable(numbers))
        return menu(view)["entries"]

    def next_board(self, view) -> None:
        """The next other seat's board drawn in full (after the last: none)."""
        others = [p["seat"] for p in view["players"] if not p["is_viewer"]]
        if not others:
            return
        at = others.index(self.show_seat) + 1 if self.show_seat in others else 0
        self.show_seat = others[at] if at < len(others) else None

    def run(self) -> int:
        s, c = self.s, self.console
        try:
            while True:
                self.say(s.run_bots())
                self.record()
                st = s.state
                if st.is_terminal():
                    break
                seat = st.current_player()
                if len(s.humans()) > 1 and self.shown_to is not None and seat != self.shown_to:
                    c.clear()
                    c.print(Rule(Text(printable(f"Pass to {s.seat_names[seat]}"))))
                    if self.ask(f"{s.seat_names[seat]}, press Enter when only you can see the screen "
                                f"(or type quit). ").strip() in ("quit", "exit", "q"):
                        return self.quit()
                    c.clear()
                if self.shown_to != seat:
                    self.path = None
                self.shown_to = seat
                view = build_view(st, seat)
                entries = self.show(view, seat)
                numbers = number_groups(view, st.game)
                listed = {g.action for g in numbers}
                ids = numbered_actions({**view, "actions": [g for g in view["actions"]
                                                            if g["action"] not in listed]})
                only = next((o.get("say") or o["id"] for g in view["actions"] for o in g["options"]), "") \
                    if len(ids) == 1 and not numbers else None
                prompt = f"{s.seat_names[seat]} [Enter: {only}]> " if only else f"{s.seat_names[seat]}> "
                redraw = False
                while True:
                    text = self.ask(prompt).strip()
                    if not text and only:
                        text = "1"
                    if text in ("quit", "exit", "q"):
                        return self.quit()
                    if text == "help" or text == "?":
                        c.print(HELP, markup=False)
                        continue
                    if text in ("o", "0", "back"):
                        if text == "o":
                            self.next_board(view)
                        elif self.path is None:
                            c.print("nothing to go back to", markup=False)
                            continue
                        else:
                            self.path = back(view, self.path)
                        redraw = True
                        break
                    if text.isdigit() and 1 <= int(text) <= len(entries) and "path" in entries[int(text) - 1]:
                        self.path = entries[int(text) - 1]["path"]
                        redraw = True
                        break
                    if text == "log":
                        self.say(s.story or ["(nothing has happened yet)"])
                        continue
                    if text == "undo":
                        self.path = None
                        if s.undo():
                            c.print(f"undone: back to {s.seat_names[s.state.current_player()]}'s decision "
                                    f"{len(s.history) + 1}", markup=False)
                        else:
                            c.print("nothing to undo", markup=False)
                            continue
                        break
                    if not text:
                        continue
                    said = [i for i, e in enumerate(entries) if _plain(e["text"]) == _plain(text)]
                    if not text.isdigit() and len(said) == 1:
                        text = str(said[0] + 1)                      # an entry's words: "3, 4", "star 2"
                        if "path" in entries[said[0]]:
                            self.path = entries[said[0]]["path"]
                            redraw = True
                            break
                    if text.isdigit() and 1 <= int(text) <= len(entries):
                        text = entries[int(text) - 1]["id"]          # the number of an entry shown
                    elif text.isdigit() and not numbers:
                        c.print(f"no choice number {text} (1 to {len(entries)})", markup=False)
                        continue
                    action, why = choose(text, ids, numbers)
                    if action is None:
                        c.print(why, markup=False)
                        continue
                    try:
                        self.say(s.apply(action))
                    except IllegalAction as exc:
                        c.print(str(exc), markup=False)
                        continue
                    self.path = None
                    break
                if redraw:
                    continue
        except (EOFError, KeyboardInterrupt):
            c.print("")
            return self.quit()
        st = s.state
        self.flush_recent()
        c.print(Rule("Game over"))
        c.print(view_renderable(build_view(st, self.shown_to if len(s.humans()) == 1 else None)))
        self.save()
        c.print(f"{s.rb.name}: {len(s.history)} decisions; log saved to {self.log_path}", markup=False)
        for p in sorted(range(len(st.scores())), key=lambda p: st.ranking()[p]):
            c.print(f"  {st.ranking()[p]}. {s.seat_names[p]:<12} {st.scores()[p]:>4}  ({s.kinds[p]})", markup=False)
        return 0

    def flush_recent(self) -> None:
        for line in self.recent:
            self.console.print(line, markup=False, highlight=False)
        self.recent = []

    def record(self) -> None:
        """Bring the log on disk up to date (before every question, so a killed game loses nothing);
        a game on the default log with no decision yet writes no file."""
        if self.s.history or self.chosen_log or self.live.written is not None:
            self.live.sync(self.s.log_header(self.log_path), self.s.history)

    def save(self) -> None:
        self.live.sync(self.s.log_header(self.log_path), self.s.history)

    def quit(self) -> int:
        self.flush_recent()
        if not self.s.history and not self.chosen_log:
            self.console.print("no decision was made: nothing saved", markup=False)
            return 0
        self.save()
        st = self.s.state
        more = "" if st.is_terminal() else \
            f"go on with: regelwerk play {rulebook_name(self.s.rb)} --resume {self.log_path}; "
        self.console.print(f"game saved to {self.log_path} ({len(self.s.history)} decisions); {more}"
                           f"see it with: regelwerk replay {self.log_path} --show", markup=False)
        return 0


def rulebook_name(rb) -> str:
    """How to name ``rb`` on the command line: a shipped game by its name, else its folder."""
    from ..game import shipped_games
    path = Path(str(rb.path))
    found = shipped_games().get(path.name)
    return path.name if found is not None and Path(found).resolve() == path.resolve() else str(path)


def play_in_terminal(rb, args, options, variants, seats: str) -> int:
    names = [n.strip() for n in args.names.split(",")] if getattr(args, "names", None) else None
    try:
        session = Session(rb, args.players, args.seed, options, variants, seats, names=names)
    except ValueError as exc:
        print(f"regelwerk play: --names: {exc}", file=sys.stderr)
        return 2
    log = args.log or default_log(rb, args.seed)
    compact = getattr(args, "compact", None)
    return TerminalPlay(session, log, compact=compact, chosen_log=bool(args.log)).run()


def resume_in_terminal(rb, log_path, seats: str | None, save_to=None, complete_lines: bool = False,
                       compact: bool | None = None) -> int:
    """Go on with a saved game (``play RULEBOOK --resume LOG``); it is saved again to the same log."""
    from .replay import LogProblem, LogProblems, print_problems
    try:
        session = Session.from_log(rb, log_path, seats, complete_lines)
    except (LogProblems, LogProblem) as exc:
        return print_problems(exc)
    return TerminalPlay(session, save_to or log_path, compact=compact).run()
