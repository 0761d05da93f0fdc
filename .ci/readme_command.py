#!/usr/bin/env python3
"""Print the first shell command under a heading of README.md, exactly as written there.

`.ci/run` runs the README's install-and-play and test commands as a new user would, taken
from the README itself so that what CI runs and what the README says cannot drift apart:

    python3 .ci/readme_command.py "Install and play a game"

Fails (exit 1) when the heading or its ```sh block is missing."""
import sys
from pathlib import Path


def command(readme: str, heading: str) -> str:
    lines = readme.splitlines()
    try:
        start = lines.index(f"## {heading}")
    except ValueError:
        raise SystemExit(f"README.md has no heading '## {heading}'") from None
    for i in range(start + 1, len(lines)):
        if lines[i].startswith("## "):
            break
        if lines[i].strip() == "```sh":
            block = []
            for line in lines[i + 1:]:
                if line.strip() == "```":
                    break
                block.append(line)
            if len(block) != 1 or not block[0].strip():
                raise SystemExit(f"README.md: the command under '## {heading}' must be one line")
            return block[0]
    raise SystemExit(f"README.md has no ```sh block under '## {heading}'")


if __name__ == "__main__":
    root = Path(__file__).resolve().parent.parent
    print(command((root / "README.md").read_text(encoding="utf-8"), sys.argv[1]))
