"""The Regelwerk interpreter: it knows no game; everything a game means is in its rulebook folder.

Four wings (docs/design.md): ``engine/`` loads, compiles and runs rulebooks
(its public face is :mod:`interpreter.game`); ``tools/`` is what designers
run (scenarios, coverage, mutants, simulations, reports); ``play/`` is for
people (terminal, browser, logs, replays); ``ai/`` is for agents (bots,
search, environments).  ``cli.py`` is the front door.
"""

# Before any other module of the package: a compiled module (the optional
# native build) is imported only while its source is the one it was built from.
from . import native as _native
from . import moved as _moved

_native.install()
_moved.install()
