"""The optional native build at import time: a compiled module only while its source is unchanged.

``setup.py`` may compile some of this package's modules with Cython and
writes ``_native.json`` beside them: for each compiled module, the file it
was compiled to and the SHA-256 of the ``.py`` it was compiled from.  Python
itself would import a compiled ``runtime.*.so`` before ``runtime.py`` — also
after ``runtime.py`` was edited, in an editable install.  :class:`NativeFinder`
(first on ``sys.meta_path``, installed by the package's ``__init__``) decides
instead: a module is imported compiled only when the manifest lists it, the
compiled file is there and the ``.py`` still has the recorded hash; otherwise
its ``.py`` is imported, whatever lies beside it.  ``REGELWERK_PURE=1`` in the
environment imports every module from its ``.py``.

:func:`backend` says what actually ran (``regelwerk bench`` prints it).
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader, SourceFileLoader
from importlib.util import spec_from_file_location

MANIFEST = "_native.json"
PURE_VARIABLE = "REGELWERK_PURE"


def pure_forced() -> bool:
    """``REGELWERK_PURE`` set to anything but empty/0/no/false/off."""
    return os.environ.get(PURE_VARIABLE, "").strip().lower() not in ("", "0", "no", "false", "off")


def sha256_of(path: str) -> str:
    """The SHA-256 of a module's source: its ``.py`` and, when there is one, the ``.pxd``
    beside it that gives the native build its C types (setup.py digests alike)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    pxd = path[:-3] + ".pxd"
    if os.path.exists(pxd):
        with open(pxd, "rb") as f:
            h.update(b"\0" + f.read())
    return h.hexdigest()


def load_manifest(directory: str) -> dict:
    """``directory``'s manifest if it is this Python's, else {}."""
    try:
        with open(os.path.join(directory, MANIFEST)) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("python") != sys.implementation.cache_tag:
        return {}
    return data


def read_manifest(directory: str) -> dict:
    """The compiled modules ``{name: {"file", "sha256"}}`` that ``directory``'s manifest lists (else {})."""
    modules = load_manifest(directory).get("modules")
    return modules if isinstance(modules, dict) else {}


class NativeFinder:
    """Finds the modules of one package: compiled only when the manifest vouches for today's source."""

    def __init__(self, package: str, directory: str, pure: bool = False):
        self.package = package
        self.directory = directory
        self.pure = pure
        self.manifest = read_manifest(directory)
        not_built = load_manifest(directory).get("not_built")     # the build tried them and failed
        self.not_built = {n for n in not_built if isinstance(n, str)} if isinstance(not_built, list) else set()
        self.decided: dict[str, str] = {}       # module -> "native" or why it is pure Python

    def choose(self, name: str, py: str) -> tuple[str | None, str]:
        """(the compiled file to import or None, "native" or why not) for module ``name`` at ``py``."""
        entry = self.manifest.get(name)
        if not isinstance(entry, dict):
            return None, "not compiled"
        if self.pure:
            return None, f"{PURE_VARIABLE} is set"
        compiled = os.path.join(os.path.dirname(py), os.path.basename(str(entry.get("file", ""))))
        if not os.path.isfile(compiled) or compiled == py:
            return None, "its compiled file is missing"
        if sha256_of(py) != entry.get("sha256"):
            return None, "its source changed since the build"
        return compiled, "native"

    def find_spec(self, name, path=None, target=None):
        if not name.startswith(self.package + "."):
            return None
        last = name.rpartition(".")[2]
        for d in path or ():
            py = os.path.join(d, last + ".py")
            if not os.path.isfile(py):
                continue
            compiled, why = self.choose(name, py)
            if why != "not compiled":
                self.decided[name] = why
            if compiled is not None:
                return spec_from_file_location(name, compiled, loader=ExtensionFileLoader(name, compiled))
            if why == "not compiled" and not any(os.path.exists(os.path.join(d, last + s))
                                                 for s in EXTENSION_SUFFIXES):
                return None             # nothing compiled beside it: the ordinary import
            return spec_from_file_location(name, py, loader=SourceFileLoader(name, py))
        return None


_finder: NativeFinder | None = None


def install() -> NativeFinder:
    """Put this package's finder first on ``sys.meta_path`` (once)."""
    global _finder
    if _finder is None:
        package = __name__.rpartition(".")[0]
        _finder = NativeFinder(package, os.path.dirname(os.path.abspath(__file__)), pure_forced())
        sys.meta_path.insert(0, _finder)
    return _finder


def import_built(finder: NativeFinder | None = None) -> None:
    """Import every module the build compiled or tried to (so that :func:`backend` speaks of all of them)."""
    import importlib
    finder = finder or install()
    for name in sorted(set(finder.manifest) | finder.not_built):
        try:
            importlib.import_module(name)
        except ImportError:         # a manifest of an older layout names a module that is gone
            pass


def status(finder: NativeFinder | None = None) -> dict[str, str]:
    """Each module the build compiled or tried to that is imported now: ``native`` or why it runs as Python."""
    finder = finder or install()
    out = {}
    for name in finder.manifest:
        module = sys.modules.get(name)
        if module is None:
            continue
        compiled = not str(getattr(module, "__file__", "")).endswith(".py")
        out[name] = "native" if compiled else finder.decided.get(name, "imported before the check")
    for name in finder.not_built - set(finder.manifest):
        if name in sys.modules:
            out[name] = "its native build failed"
    return out


def backend(finder: NativeFinder | None = None) -> str:
    """``native`` when every compiled module imported so far is the compiled one; else ``pure Python``
    (``pure Python: why`` when a native build exists), or ``native except runtime, …: why``."""
    st = status(finder)
    pure = {name.rpartition(".")[2]: why for name, why in st.items() if why != "native"}
    if not st:
        return "pure Python"
    if not pure:
        return "native"
    reasons = sorted(set(pure.values()))
    if len(pure) == len(st):
        return f"pure Python: {'; '.join(reasons)}"
    return f"native except {', '.join(sorted(pure))}: {'; '.join(reasons)}"
