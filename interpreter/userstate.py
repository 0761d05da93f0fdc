"""Where Regelwerk keeps what it writes for a user: never the current folder.

Everything a command writes without being told where — the logs of games people
play, the replays of ``check``'s findings, the playtest server's database — goes
to the user's state folder, ``$XDG_STATE_HOME/regelwerk`` (else
``~/.local/state/regelwerk``), or ``$REGELWERK_STATE`` when set.  A flag that names a
place (``--log``, ``--replays``, ``--db``) always wins.  (The remembered check
findings are a cache and live in the cache folder: interpreter/engine/checks/checkcache.py.)
"""
from __future__ import annotations

import os
from pathlib import Path


def state_dir() -> Path:
    """The user's state folder for Regelwerk (not created here)."""
    if os.environ.get("REGELWERK_STATE"):
        return Path(os.environ["REGELWERK_STATE"])
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "regelwerk"


def logs_dir() -> Path:
    """Games played by people: ``$REGELWERK_LOGS``, else ``logs/`` in the state folder."""
    if os.environ.get("REGELWERK_LOGS"):
        return Path(os.environ["REGELWERK_LOGS"])
    return state_dir() / "logs"


def replays_dir() -> Path:
    """The replay files of ``regelwerk check``'s findings: ``replays/`` in the state folder."""
    return state_dir() / "replays"


def serve_db() -> Path:
    """The playtest server's SQLite file: ``serve.sqlite`` in the state folder."""
    return state_dir() / "serve.sqlite"
