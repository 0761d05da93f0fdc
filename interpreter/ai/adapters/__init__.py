"""Any rulebook as an environment of a learning library (the ``rl`` extra).

``pettingzoo.env(path, players=N, **options)`` — an AEC environment;
``openspiel.load(path, players=N, **options)`` — a registered ``pyspiel.Game``.
Both use only the public API: the fixed action space, the legal mask, the
observation tensors and the returns of :class:`interpreter.game.State`.
"""
