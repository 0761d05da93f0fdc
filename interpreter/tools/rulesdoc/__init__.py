"""``regelwerk rules``: a rulebook printed back as a rules document (issue 41).

    collect.py   the structure, read from the compiled rulebook and its located source
    speak.py     an expression in the rulebook's own names (never Python, never a raw name)
    steps.py     one sentence template per step kind; actions as "You may …"
    pictures.py  component pictures folded in as data: addresses
    html.py      one self-contained HTML file that prints on A4 and letter
    markdown.py  the same as Markdown
    command.py   the subcommand
"""
from .collect import build_document
from .html import write_html
from .markdown import write_markdown
from .model import lines_of

__all__ = ["build_document", "write_html", "write_markdown", "lines_of"]
