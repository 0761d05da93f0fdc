"""What the rulebook says about showing a game: the ``display:`` section (display), the
``say:`` templates of choices in words (say), the rulebook's names in words for rules
documents (wording).  docs/design.md.

``interpreter.engine.display`` was the module ``display.py`` in 0.2; its names are still
found here (with a DeprecationWarning) for one release, as interpreter/moved.py does
for the other modules that moved.
"""


def __getattr__(name):
    import importlib
    import warnings
    module = importlib.import_module(f"{__name__}.display")
    if name.startswith("__") or not hasattr(module, name):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(f"{__name__}.{name} moved to {__name__}.display.{name} (the old name goes in 0.3)",
                  DeprecationWarning, stacklevel=2)
    return getattr(module, name)
