"""The import paths of 0.1, kept for one release: ``interpreter.runtime`` is ``interpreter.engine.run.runtime``
(and the 0.2 paths of the engine's modules that moved into its sub-packages: ``interpreter.engine.observe``
is ``interpreter.engine.knowledge.observe``, ``interpreter.engine.runtime`` is ``interpreter.engine.run.runtime``).

0.2 put the modules into wings (engine, tools, play, ai; docs/design.md).  Code
written against 0.1 (``from interpreter.runtime import State``,
``interpreter.gamelog.read_log``, ``from interpreter import bots``) still
imports: :class:`MovedFinder` (on ``sys.meta_path``, installed by the
package's ``__init__``) answers an old name with the module at its new place
— the same module object, not a copy — and warns once with a
``DeprecationWarning``.  These names go in 0.3.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

#: the engine's modules by sub-package (issue 40: compile, run, checks, display; knowledge below)
ENGINE = {
    "compile": "bidding bounds codegen compiler dependencies exprs flowcode model steps types",
    "run": "chance choices facts frames layout limits persist rng runtime spaces start stdlib values",
    "checks": "checkcache checks",
    "display": "display say wording",
}
_WINGS = {
    "engine": "chance checkcache checks codegen compiler dependencies exprs facts flowcode frames layout "
              "limits model rng runtime spaces stdlib steps types values",
    "tools": "backends bench coverage mutate report scenarios simulate",
    "play": "gamelog narrate replay session tui view web",
    "ai": "adapters bots ismcts",
}
_SUB = {module: sub for sub, names in ENGINE.items() for module in names.split()}


def _now(wing: str, module: str) -> str:
    """Where the 0.2 module ``interpreter.<wing>.<module>`` lives now."""
    return f"interpreter.engine.{_SUB[module]}.{module}" if wing == "engine" and module in _SUB \
        else f"interpreter.{wing}.{module}"


MOVED = {f"interpreter.{old}": _now(wing, old) for wing, names in _WINGS.items() for old in names.split()}
MOVED["interpreter.view.hints"] = "interpreter.engine.display.display"
# the 0.2 paths of the engine's modules (interpreter.engine.runtime), in their sub-packages since issue 40;
# interpreter.engine.checks and interpreter.engine.display are the sub-packages now, whose
# __getattr__ gives the old modules' names (see their __init__)
MOVED.update({f"interpreter.engine.{module}": f"interpreter.engine.{sub}.{module}"
              for module, sub in _SUB.items() if module != sub})
# what a seat knows, in one sub-package of the engine (issue 36): its 0.1 and its 0.2 paths
for _old, _new in (("observe", "observe"), ("infosets", "infosets"), ("tensors", "tensors"), ("leaks", "properties")):
    MOVED[f"interpreter.{_old}"] = MOVED[f"interpreter.engine.{_old}"] = f"interpreter.engine.knowledge.{_new}"


def new_name(name: str) -> str | None:
    """Where the 0.1 module ``name`` (or a module inside a moved package) lives now, or None."""
    if name in MOVED:
        return MOVED[name]
    head, _, rest = name.rpartition(".")
    while head:
        if head in MOVED:
            return MOVED[head] + name[len(head):]
        head, _, _ = head.rpartition(".")
    return None


class _Alias(importlib.abc.Loader):
    def __init__(self, target: str):
        self.target = target
        self.spec = None

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        self.spec = module.__spec__
        return module

    def exec_module(self, module):
        # the module at its new place has run already; the import system has just given it the
        # old name's spec: it keeps its own (its relative imports, reload and pickling read it)
        module.__spec__ = self.spec


class MovedFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        new = new_name(name) if name.startswith("interpreter.") else None
        if new is None or importlib.util.find_spec(new) is None:
            return None
        warnings.warn(f"{name} moved to {new} (the old name goes in 0.3)", DeprecationWarning, stacklevel=3)
        return importlib.util.spec_from_loader(name, _Alias(new))


def install() -> None:
    if not any(isinstance(f, MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(MovedFinder())
