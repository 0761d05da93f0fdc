"""Any rulebook as an environment of a learning library (the ``rl`` extra).

``pettingzoo.env(path, players=N, **options)`` — an AEC environment;
``single_agent.single_agent_env(path, players=N, **options)`` — one seat as a
Gymnasium environment, the others played by an opponent policy;
``openspiel.load(path, players=N, **options)`` — a registered ``pyspiel.Game``.
They use only the engine's public face (:mod:`interpreter.game`): the fixed
action space, the legal mask, the observation vectors and their bounds,
explicit chance and the returns of :class:`interpreter.game.State`.
"""
