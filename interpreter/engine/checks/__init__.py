"""The semantic checks ``regelwerk validate`` runs (checks) and their cache (checkcache).  docs/design.md.

``interpreter.engine.checks`` was the module ``checks.py`` in 0.2; its names are still
found here (with a DeprecationWarning) for one release, as interpreter/moved.py does
for the other modules that moved.
"""


def __getattr__(name):
    import importlib
    import warnings
    module = importlib.import_module(f"{__name__}.checks")
    if name.startswith("__") or not hasattr(module, name):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(f"{__name__}.{name} moved to {__name__}.checks.{name} (the old name goes in 0.3)",
                  DeprecationWarning, stacklevel=2)
    return getattr(module, name)
