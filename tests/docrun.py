"""Run the examples of a Markdown page, in order, so that the page cannot rot.

The fenced blocks of a page are read in order:

- a ``yaml`` block whose first line is a comment naming a path
  (``# dice_duel/game.yaml``) is written to that path (a later block with
  the same path replaces the file);
- a ``console`` block holds commands (``$ command``), each followed by the
  output it must print (stdout and stderr together); they run in a shell,
  in the page's folder, with ``regelwerk`` on the PATH; a command ends with
  exit status 0 unless its line ends in ``# exit N``;
- a ``python`` block is executed (in the page's folder); a ``text`` block
  right after it is the output it must print.

Output matches line by line (trailing spaces ignored): ``…`` alone on a
line stands for any number of lines, ``…`` inside a line for any text.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
PATH_COMMENT = re.compile(r"^#\s*([\w./-]+\.ya?ml)\s*$")
EXIT = re.compile(r"\s+#\s*exit\s+(\d+)\s*$")


@dataclass
class Block:
    kind: str
    text: str
    line: int       # where the block's body starts in the page (1-based)


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(text):
        out.append(Block(m.group(1), m.group(2), text.count("\n", 0, m.start(2)) + 1))
    return out


def matches(expected: list[str], got: list[str]) -> bool:
    """Whether ``got`` fits ``expected`` (``…`` lines and ``…`` inside lines are wildcards)."""
    exp = [e.rstrip() for e in expected]
    got = [g.rstrip() for g in got]
    while exp and not exp[-1]:
        exp.pop()
    while got and not got[-1]:
        got.pop()

    def line_ok(e, g):
        if "…" not in e:
            return e == g
        return re.fullmatch(".*".join(re.escape(part) for part in e.split("…")), g, re.S) is not None

    from functools import lru_cache

    @lru_cache(maxsize=None)
    def fit(i, j):
        if i == len(exp):
            return j == len(got)
        if exp[i] == "…":
            return any(fit(i + 1, k) for k in range(j, len(got) + 1))
        return j < len(got) and line_ok(exp[i], got[j]) and fit(i + 1, j + 1)
    return fit(0, 0)


def commands(block: Block) -> list[tuple[str, int, list[str], int]]:
    """(command, expected exit status, expected output lines, page line) of a console block."""
    out = []
    for no, line in enumerate(block.text.splitlines()):
        if line.startswith("$ "):
            cmd = line[2:]
            status = 0
            m = EXIT.search(cmd)
            if m:
                status = int(m.group(1))
                cmd = cmd[:m.start()]
            out.append([cmd, status, [], block.line + no])
        elif out:
            out[-1][2].append(line)
    return [tuple(x) for x in out]


def run_page(page: Path, folder: Path, files_only: bool = False) -> dict:
    """Run every example of ``page`` in ``folder``; raise AssertionError at the first mismatch.
    Returns counts of what ran, for the caller to check that the page still has examples."""
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["COLUMNS"] = "80"
    env.pop("REGELWERK_LIMITS", None)
    ran = {"files": 0, "commands": 0, "python": 0}
    items = blocks(page)
    for k, block in enumerate(items):
        where = f"{page.name}:{block.line}"
        if block.kind == "yaml":
            first = block.text.splitlines()[0] if block.text else ""
            m = PATH_COMMENT.match(first)
            if not m:
                continue
            target = folder / m.group(1)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.text, encoding="utf-8")
            ran["files"] += 1
        elif files_only:
            continue
        elif block.kind == "console":
            for cmd, status, expected, line in commands(block):
                proc = subprocess.run(["bash", "-c", cmd], cwd=folder, env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True, timeout=300)
                got = proc.stdout.splitlines()
                assert proc.returncode == status, (f"{page.name}:{line}: `{cmd}` exited with {proc.returncode}, "
                                                   f"not {status}:\n{proc.stdout}")
                assert matches(expected, got), (f"{page.name}:{line}: `{cmd}` printed:\n{proc.stdout}\n"
                                                f"--- but the page shows:\n" + "\n".join(expected))
                ran["commands"] += 1
        elif block.kind == "python":
            buf = io.StringIO()
            cwd = os.getcwd()
            os.chdir(folder)
            try:
                with contextlib.redirect_stdout(buf):
                    exec(compile(block.text, where, "exec"), {"__name__": "__doc_example__"})
            finally:
                os.chdir(cwd)
            ran["python"] += 1
            nxt = items[k + 1] if k + 1 < len(items) else None
            if nxt is not None and nxt.kind == "text":
                expected = nxt.text.splitlines()
                assert matches(expected, buf.getvalue().splitlines()), (
                    f"{where}: the example printed:\n{buf.getvalue()}\n--- but the page shows:\n{nxt.text}")
    return ran
