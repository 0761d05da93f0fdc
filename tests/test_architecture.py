"""The architecture holds: four wings around an engine, no import cycles (docs/design.md).

The import graph is computed from the source (every ``import`` and ``from … import``
statement, at module level or inside a function: a lazy import is an import too):

- no cycle among the modules of ``dsl`` and ``interpreter``;
- the engine (``interpreter/engine/``) imports nothing from the wings (``tools``, ``play``,
  ``ai``), from the front door (``cli``) or from the public face;
- a wing takes the engine only through the public face ``interpreter.game``, never
  ``interpreter.engine.*``, and no module takes a private (``_``) name of another wing;
- the package's root holds only the face, the front door and the shared modules listed here;
- every module of the engine is in one of its sub-packages (compile, run, knowledge, checks,
  display) or is one of the few listed here at its top;
- no module of ``interpreter`` is longer than ``MAX_LINES`` (a module that grows is split by job).
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("dsl", "interpreter")
WINGS = ("tools", "play", "ai")
FACE = "interpreter.game"
# the root of interpreter/: the package, its face, the front door and the modules both sides share
ROOT_MODULES = {"interpreter", "interpreter.game", "interpreter.cli", "interpreter.commands",
                "interpreter.native", "interpreter.moved", "interpreter.progress",
                "interpreter.userstate"}
# the engine's sub-packages (docs/design.md, "The engine") and the modules at its top: the facade
# that loads and compiles a rulebook, and the shipped rulebooks found by name
ENGINE_PARTS = ("compile", "run", "knowledge", "checks", "display")
ENGINE_TOP = {"interpreter.engine", "interpreter.engine.rulebook", "interpreter.engine.shipped"}
MAX_LINES = 800
# modules over MAX_LINES, each with its reason (none in the engine)
LONG = {
    "interpreter.play.view.model": "outside the engine: issue 40 split the engine's modules only",
    "interpreter.tools.mutate": "outside the engine: issue 40 split the engine's modules only",
}


def modules(root: Path) -> dict[str, Path]:
    """``{dotted name: file}`` of every module of the packages under ``root``."""
    out = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


@functools.lru_cache(maxsize=None)
def _import_statements(text: str) -> tuple:
    """(level, module, names, line) of each import statement of a module's text (``level`` None:
    ``import``); kept by the text, so the tests' copies of the tree are not parsed again."""
    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            out.append((None, None, tuple(a.name for a in node.names), node.lineno))
        elif isinstance(node, ast.ImportFrom):
            out.append((node.level, node.module, tuple(a.name for a in node.names), node.lineno))
    return tuple(out)


def imports(name: str, path: Path, known: set[str]) -> list[tuple[str, str | None, int]]:
    """(module imported, name taken from it or None, line) for each import in ``path``."""
    text = path.read_text()
    try:
        statements = _import_statements(text)
    except SyntaxError:
        ast.parse(text, str(path))          # raised again, with the file's name
        raise
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for level, module, names, line in statements:
        if level is None:
            out.extend((n, None, line) for n in names)
            continue
        if level:
            base = package.split(".")
            base = base[:len(base) - level + 1]
            target = ".".join(base + ([module] if module else []))
        else:
            target = module or ""
        for n in names:
            sub = f"{target}.{n}"
            out.append((sub, None, line) if sub in known else (target, n, line))
    return out


def owner(name: str, known: set[str]) -> str | None:
    """The module of ours that ``name`` is (or is inside), else None (the standard library, a dependency)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def graph(root: Path):
    mods = modules(root)
    known = set(mods)
    edges: dict[str, set[str]] = {m: set() for m in mods}
    taken: list[tuple[str, str, str | None, int]] = []
    for name, path in mods.items():
        for target, what, line in imports(name, path, known):
            mod = owner(target, known)
            if mod is None or mod == name:
                continue
            edges[name].add(mod)
            taken.append((name, mod, what, line))
    return mods, edges, taken


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def wing_of(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "dsl":
        return "dsl"
    if len(parts) > 1 and parts[1] in ("engine",) + WINGS:
        return parts[1]
    return module            # a root module: its own


def problems(root: Path) -> list[str]:
    mods, edges, taken = graph(root)
    found = [f"import cycle: {' -> '.join(c)}" for c in cycles(edges)]
    for src, dst, what, line in taken:
        where = f"{mods[src].relative_to(root)}:{line}"
        a, b = wing_of(src), wing_of(dst)
        if a == "engine" and (b in WINGS or dst in (FACE, "interpreter.cli", "interpreter.commands")):
            found.append(f"{where}: the engine imports {dst} (the engine imports nothing around it)")
        if a in WINGS and b == "engine":
            found.append(f"{where}: {src} imports {dst}: a wing takes the engine through {FACE} only")
        if a in WINGS and b in WINGS and a != b and what is not None and what.startswith("_"):
            found.append(f"{where}: {src} takes the private name {what} of {dst}")
        if a == "dsl" and dst.startswith("interpreter"):
            found.append(f"{where}: the front end (dsl) imports {dst}")
    for name in mods:
        if name.startswith("interpreter") and wing_of(name) not in ("engine",) + WINGS and name not in ROOT_MODULES:
            found.append(f"{mods[name].relative_to(root)}: a module at the root of interpreter/ "
                         f"(put it in a wing, or list it as shared in docs/design.md and here)")
    for name, path in mods.items():
        if wing_of(name) == "engine" and name not in ENGINE_TOP and name.split(".")[2] not in ENGINE_PARTS:
            found.append(f"{path.relative_to(root)}: a module of the engine in none of its sub-packages "
                         f"({', '.join(ENGINE_PARTS)}; docs/design.md)")
        lines = len(path.read_text().splitlines())
        if name.startswith("interpreter") and lines > MAX_LINES and name not in LONG:
            found.append(f"{path.relative_to(root)}: {lines} lines, more than {MAX_LINES} "
                         f"(split it by job, or list it in LONG with the reason)")
    return found


@functools.lru_cache(maxsize=1)
def _project_graph():
    """graph(ROOT), read once for the tests that only read it (each read parses every module)."""
    return graph(ROOT)


@functools.lru_cache(maxsize=1)
def _project_problems() -> list[str]:
    return problems(ROOT)


def test_the_project_has_no_import_cycle_and_keeps_its_wings_apart():
    assert _project_problems() == []


def test_the_graph_sees_the_whole_package():
    mods, edges, _ = _project_graph()
    assert {"interpreter.engine.run.runtime", "interpreter.tools.scenarios", "interpreter.play.session",
            "interpreter.ai.bots", "interpreter.cli", "dsl.parser"} <= set(mods)
    assert "interpreter.engine.run.runtime" in edges["interpreter.engine.rulebook"]
    assert FACE in edges["interpreter.cli"]


def _copy(tmp_path: Path) -> Path:
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "__pycache__" not in path.parts:
                dest = tmp_path / path.relative_to(ROOT)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_text(path.read_text())
    return tmp_path


def _plant(root: Path, module: str, line: str) -> None:
    path = root / (module.replace(".", "/") + ".py")
    path.write_text(path.read_text() + f"\n\ndef _planted():\n    {line}\n")


@pytest.mark.parametrize("module, line, expected", [
    # a lazy import that closes a cycle: limits -> runtime -> limits
    ("interpreter.engine.run.limits", "from .runtime import State", "import cycle"),
    # the engine reaching into a wing
    ("interpreter.engine.run.runtime", "from ...play.narrate import Narrator", "the engine imports interpreter.play.narrate"),
    # a wing past the face
    ("interpreter.play.session", "from ..engine.run.runtime import State", "a wing takes the engine through"),
    # a wing's private name
    ("interpreter.tools.simulate", "from ..play.session import _private", "takes the private name _private"),
])
def test_a_planted_violation_is_found(tmp_path, module, line, expected):
    assert not any(expected in p for p in _project_problems())     # the copy is the project's own
    root = _copy(tmp_path)
    _plant(root, module, line)
    found = problems(root)
    assert any(expected in p for p in found), found


def test_a_stray_module_at_the_root_is_found(tmp_path):
    root = _copy(tmp_path)
    (root / "interpreter" / "helpers.py").write_text("X = 1\n")
    assert any("interpreter/helpers.py: a module at the root" in p for p in problems(root))


def test_a_module_outside_the_engines_sub_packages_is_found(tmp_path):
    root = _copy(tmp_path)
    (root / "interpreter" / "engine" / "helpers.py").write_text("X = 1\n")
    assert any("interpreter/engine/helpers.py: a module of the engine in none" in p for p in problems(root))


def test_a_module_over_the_length_limit_is_found(tmp_path):
    root = _copy(tmp_path)
    path = root / "interpreter" / "engine" / "run" / "rng.py"
    path.write_text(path.read_text() + "\n" * MAX_LINES)
    assert any(p.startswith("interpreter/engine/run/rng.py: ") and "more than 800" in p for p in problems(root))


def test_the_long_modules_listed_are_still_long():
    """An exception that no longer applies is taken off the list; the engine has none."""
    mods, _, _ = _project_graph()
    assert [m for m in LONG if wing_of(m) == "engine"] == []
    assert [m for m in LONG if len(mods[m].read_text().splitlines()) <= MAX_LINES] == []


def test_the_import_paths_of_0_1_still_import_the_moved_modules():
    """docs/api.md's old paths (interpreter.runtime, interpreter.gamelog, …) are the modules at
    their new places, with a DeprecationWarning, for one release."""
    import importlib
    import sys
    import warnings

    from interpreter.engine.run import runtime
    from interpreter.play import gamelog
    for old in ("interpreter.runtime", "interpreter.gamelog", "interpreter.view.hints"):
        sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old_runtime = importlib.import_module("interpreter.runtime")
        from interpreter.gamelog import read_log
        hints = importlib.import_module("interpreter.view.hints")
    assert old_runtime is runtime and read_log is gamelog.read_log
    # the module keeps its own spec (the old name's once replaced it: relative imports then warned)
    assert runtime.__spec__.name == "interpreter.engine.run.runtime" == runtime.__name__
    assert gamelog.__spec__.name == "interpreter.play.gamelog"
    assert hints.read_hints is importlib.import_module("interpreter.engine.display.display").read_hints
    said = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    assert any("interpreter.runtime moved to interpreter.engine.run.runtime" in s for s in said), said


def test_the_engine_paths_of_0_2_still_import_the_moved_modules():
    """interpreter.engine.runtime (0.2) is interpreter.engine.run.runtime, and so on for every module
    issue 40 put into a sub-package; checks and display are packages now and give the old names."""
    import importlib
    import sys
    import warnings

    from interpreter import moved
    from interpreter.engine.checks import checks
    from interpreter.engine.display import display
    olds = [(f"interpreter.engine.{m}", f"interpreter.engine.{sub}.{m}")
            for sub, names in moved.ENGINE.items() for m in names.split() if m != sub]
    assert len(olds) == 26
    for old, new in olds:
        sys.modules.pop(old, None)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert importlib.import_module(old) is importlib.import_module(new), old
        assert importlib.import_module(new).__spec__.name == new, old
        assert any(f"{old} moved to {new}" in str(w.message) for w in caught), old
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from interpreter.engine.checks import run_checks
        from interpreter.engine.display import read_hints
    assert run_checks is checks.run_checks and read_hints is display.read_hints
    said = {str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)}
    assert said == {"interpreter.engine.checks.run_checks moved to interpreter.engine.checks.checks.run_checks "
                    "(the old name goes in 0.3)",
                    "interpreter.engine.display.read_hints moved to interpreter.engine.display.display.read_hints "
                    "(the old name goes in 0.3)"}


#: the shipped games' names and words only they use (the four rulebooks in rules/): none of
#: them belongs in the language or the interpreter, which know no game
GAME_WORDS = ("yak", "azul", "iquaz", "moonlight", "pavilion", "crystal", "stupa", "nebel", "fog")
SOURCE_SUFFIXES = {".py", ".pxd", ".lark", ".html", ".js", ".css", ".json", ".md", ".txt", ".yaml"}


def test_the_language_and_the_interpreter_know_no_game():
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*")):
            if path.suffix not in SOURCE_SUFFIXES or not path.is_file():
                continue
            for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                low = line.lower()
                found += [f"{path.relative_to(ROOT)}:{no}: {word}" for word in GAME_WORDS if word in low]
    assert not found, "\n".join(found)
