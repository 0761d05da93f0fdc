"""The Regelwerk interpreter: compiler, runtime, standard library, bots, CLI.

It knows no game: everything a game means is in its rulebook folder.
"""
