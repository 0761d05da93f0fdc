"""Game logs: one JSON object per line, written by ``play`` and ``serve``, read by ``replay``.

The first line says which game it was::

    {"format": "regelwerk-log/1", "rulebook": "../rules/my_game", "rulebook_sha256": "…",
     "game": "My Game", "players": 2, "seed": 1, "options": {}, "variants": [], "seats": ["human", "random"],
     "names": ["Ann", ""]}

``names`` (optional): the people's names for the seats, in seat order ("" keeps a seat's
own name), as ``--names`` or the page gave them; a replay or a resumed game shows them again.

``rulebook`` is relative to the log file's folder (so a log replays from any
directory); the hash covers the rulebook's files, so a changed rulebook is
reported.  Every further line is one decision: ``{"seat": 0, "action": "…"}``.

:func:`read_log` checks every line and reports each problem as a
:class:`LogProblem` located ``LOG:line`` — a log is input, so a bad one
never ends in a traceback.  A rulebook path must be a rulebook folder (one
with ``game.yaml``): nothing else is ever opened.
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from dsl.diagnostics import Report
from dsl.loader import load_rulebook

from ..game import LIMITS, check_names

FORMAT = "regelwerk-log/1"
#: the problems of one log that are kept and shown (a log of a million bad lines says so in 21 lines)
MAX_PROBLEMS = 20
ENTRY = "game.yaml"


@dataclass
class LogProblem(Exception):
    file: str
    line: int
    message: str
    severity: str = "error"
    detail: str = ""

    def format(self) -> str:
        text = f"{self.file}:{self.line}: {self.severity}: {self.message}"
        return text + ("\n" + self.detail if self.detail else "")


@dataclass
class GameLog:
    path: str
    rulebook: Path
    players: int
    seed: int
    options: dict = field(default_factory=dict)
    variants: list = field(default_factory=list)
    seats: list = field(default_factory=list)
    sha256: str | None = None
    actions: list = field(default_factory=list)  # (line number, seat or None, action id)
    names: list | None = None                    # the people's names for the seats, or None


def rulebook_hash(folder) -> str:
    """SHA-256 over the files the rulebook is made of (names relative to the folder and contents):
    the files the loader reads (game.yaml and its includes), nothing else of the folder; a file that
    cannot be read (a FIFO, a device, a link out of the folder) is hashed as its name alone."""
    folder = Path(folder)
    if folder.is_file():
        folder = folder.parent
    stamp = _stamp(folder)
    known = _HASHES.get(stamp)
    if known is not None:
        return known
    src = load_rulebook(folder, Report())
    h = hashlib.sha256()
    named = [(Path(os.path.relpath(path, folder)).as_posix(), text) for path, text in zip(src.paths, src.texts)]
    for rel, text in sorted(named, key=lambda nt: nt[0].split("/")):
        h.update(rel.encode() + b"\0" + (text.encode("utf-8") if text is not None else b"") + b"\0")
    if len(_HASHES) > 64:
        _HASHES.clear()
    _HASHES[stamp] = h.hexdigest()
    return _HASHES[stamp]


#: rulebook_hash by the folder's stamp: a server asked for its log again reads nothing again
_HASHES: dict = {}


def _stamp(folder: Path) -> tuple:
    """The folder and the names, sizes and times of its entries (lstat: nothing opened), recursively
    for its sub-folders but ``scenarios``: it changes when a file the rulebook may read changes."""
    out = [str(folder.resolve())]
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not (dirpath == str(folder) and d == "scenarios"))
        for name in sorted(filenames + [d for d in dirnames]):
            try:
                info = os.lstat(os.path.join(dirpath, name))
            except OSError:
                continue
            out.append((dirpath, name, info.st_mode, info.st_size, info.st_mtime_ns, info.st_ino))
    return tuple(out)


def header(rulebook, log_path, game_name: str, players: int, seed: int, options: dict, variants, seats,
           names=None) -> dict:
    folder = Path(rulebook)
    if folder.is_file():
        folder = folder.parent
    try:
        rel = os.path.relpath(folder.resolve(), Path(log_path).resolve().parent)
    except ValueError:  # another drive
        rel = str(folder.resolve())
    head = {"format": FORMAT, "rulebook": Path(rel).as_posix(), "rulebook_sha256": rulebook_hash(folder),
            "game": game_name, "players": players, "seed": seed, "options": dict(options),
            "variants": list(variants), "seats": list(seats)}
    if names and any(names):
        head["names"] = list(names)
    return head


def write_log(path, head: dict, history) -> None:
    """Write a whole log: the header and ``history`` as (seat, action) pairs."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(head) + "\n")
        for seat, action in history:
            f.write(json.dumps({"seat": seat, "action": action}) + "\n")


class LiveLog:
    """A log kept on disk in step with a game played by people: each decision is appended and
    flushed as it is made, so a killed game keeps every decision made before the kill.  When the
    history no longer extends what was written (an undo), the file is written whole again — into a
    temporary file beside it, renamed over the log, so a kill never leaves half a log."""

    def __init__(self, path):
        self.path = Path(path)
        self.written: list | None = None    # the history on disk; None: not written by us yet

    def sync(self, head: dict, history) -> None:
        history = list(history)
        done = self.written
        if done is not None and len(done) <= len(history) and history[:len(done)] == done:
            if len(done) < len(history):
                with open(self.path, "a", encoding="utf-8") as f:
                    for seat, action in history[len(done):]:
                        f.write(json.dumps({"seat": seat, "action": action}) + "\n")
        elif self.path.exists() and not self.path.is_file():
            # a device or a pipe (/dev/null, a FIFO another program reads): written into, never
            # replaced — a rename over /dev/null would put a file in its place for every program
            write_log(self.path, head, history)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_name(self.path.name + ".partial")
            write_log(temporary, head, history)
            os.replace(temporary, self.path)
        self.written = history


def read_log(path, complete_lines: bool = False) -> tuple[GameLog | None, list[LogProblem]]:
    """Read and check a log; (the log, []) or (None or the partial log, every problem found).
    ``complete_lines``: a last line without its newline (cut short: the game was killed) is left out."""
    shown = str(path)
    problems: list[LogProblem] = []

    def bad(line, message):
        if len(problems) < MAX_PROBLEMS:
            problems.append(LogProblem(shown, line, message))
        elif len(problems) == MAX_PROBLEMS:
            problems.append(LogProblem(shown, line, "more problems follow; only the first "
                                                    f"{MAX_PROBLEMS} are shown"))

    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):       # a FIFO or a device would block or never end
            return None, [LogProblem(shown, 0, "cannot read the log: not a regular file")]
        most = LIMITS.log_bytes
        with open(path, "rb") as f:
            raw = f.read(most + 1)
        if len(raw) > most:                      # located at the line that crosses the limit
            return None, [LogProblem(shown, raw[:most].count(b"\n") + 1,
                                     f"the log has more than {most:,} bytes (limit 'log_bytes')")]
    except OSError as exc:
        return None, [LogProblem(shown, 0, f"cannot read the log: {exc.strerror or exc}")]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        return None, [LogProblem(shown, line, "not UTF-8 text: a log is JSON lines")]
    cut = bool(text) and not text.endswith("\n")
    if cut and complete_lines:
        text = text[:text.rfind("\n") + 1]
    lines = [(i + 1, x) for i, x in enumerate(text.splitlines()) if x.strip()]
    if not lines:
        return None, [LogProblem(shown, 1, "the log is empty: it needs a header line naming the rulebook")]
    if len(lines) > LIMITS.decisions + 1:
        return None, [LogProblem(shown, LIMITS.decisions + 2, f"the log has {len(lines) - 1:,} decision lines; a game "
                                                               f"has at most {LIMITS.decisions:,} (limit 'decisions')")]
    parsed = []
    for no, x in lines:
        if len(problems) > MAX_PROBLEMS:
            break
        try:
            parsed.append((no, json.loads(x)))
        except json.JSONDecodeError as exc:
            hint = ("; the log ends in a cut line: --complete-lines goes on from the lines before it"
                    if cut and no == lines[-1][0] else "")
            bad(no, f"not JSON: {exc.msg} (column {exc.colno}){hint}")
            parsed.append((no, None))
    (hno, head), moves = parsed[0], parsed[1:]
    log = None
    if isinstance(head, dict):
        log = _read_header(shown, hno, head, path, bad)
    elif head is not None:
        bad(hno, "the first line must be an object naming the rulebook, players and seed")
    actions = []
    for no, m in moves:
        if len(problems) > MAX_PROBLEMS:
            break
        if m is None:
            continue
        if not isinstance(m, dict):
            bad(no, "a decision line must be an object like {\"action\": \"…\"}")
            continue
        if "action" not in m:
            bad(no, "this decision line has no 'action'")
            continue
        if not isinstance(m["action"], str):
            bad(no, f"'action' must be an action id (text), not {json.dumps(m['action'])}")
            continue
        seat = m.get("seat")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
            bad(no, f"'seat' must be a seat number, not {json.dumps(seat)}")
            continue
        actions.append((no, seat, m["action"]))
    if log is not None:
        log.actions = actions
    return (log if not problems else None), problems


def _read_header(shown, hno, head, path, bad) -> GameLog | None:
    ok = True
    rb = head.get("rulebook")
    if not isinstance(rb, str) or not rb:
        bad(hno, "the header has no 'rulebook' (the rulebook folder, relative to the log)")
        ok = False
    players = head.get("players")
    if not isinstance(players, int) or isinstance(players, bool):
        bad(hno, f"'players' must be a whole number, not {json.dumps(players)}")
        ok = False
    seed = head.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        bad(hno, f"'seed' must be a whole number, not {json.dumps(seed)}")
        ok = False
    options = head.get("options") or {}
    if not isinstance(options, dict) or not all(isinstance(v, (str, int, bool)) for v in options.values()):
        bad(hno, "'options' must be an object of option names and values")
        ok = False
    variants = head.get("variants") or []
    if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
        bad(hno, "'variants' must be a list of variant names")
        ok = False
    seats = head.get("seats") or []
    if not isinstance(seats, list):
        seats = []
    names = head.get("names")
    if names is not None:
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            bad(hno, "'names' must be a list of the seats' names (texts)")
            ok = False
        elif isinstance(players, int):
            try:
                names = check_names(names, players)
            except ValueError as exc:
                bad(hno, f"'names': {exc}")
                ok = False
    sha = head.get("rulebook_sha256")
    folder = None
    if isinstance(rb, str) and rb:
        folder = _find_rulebook(rb, Path(path))
        if folder is None:
            bad(hno, f"rulebook '{rb}' is not a rulebook folder (a folder with {ENTRY}), "
                     f"relative to the log's folder or the current one")
            ok = False
    if not ok:
        return None
    return GameLog(shown, folder, players, seed, {str(k): v for k, v in options.items()}, variants,
                   [str(s) for s in seats], sha if isinstance(sha, str) else None, names=names or None)


def _find_rulebook(name: str, log_path: Path) -> Path | None:
    """The rulebook folder a log names: relative to the log's folder first, then to the current one."""
    p = Path(name)
    candidates = [p] if p.is_absolute() else [log_path.parent / p, p]
    for c in candidates:
        if c.name == ENTRY:
            c = c.parent
        try:
            if c.is_dir() and (c / ENTRY).is_file():
                return c
        except OSError:
            continue
    return None
