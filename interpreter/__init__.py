"""The Regelwerk interpreter: compiler, runtime, standard library, bots, CLI.

It knows no game: everything a game means is in its rulebook folder.
"""

# Before any other module of the package: a compiled module (the optional
# native build) is imported only while its source is the one it was built from.
from . import native as _native

_native.install()
