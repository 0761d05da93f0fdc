"""The optional native build: the engine's hot modules compiled with Cython.

Everything else about the package is in pyproject.toml; this file only adds
the extension modules and a ``build_ext`` that never fails the install.

The build is opt-in: ``REGELWERK_NATIVE=1`` at install time asks for it
(it takes about two minutes on two cores and makes random playouts 8-20 %
faster; docs/performance.md).  When Cython and a C compiler work then, each module of
``NATIVE_MODULES`` is compiled as it is (Cython's pure-Python mode, the
same ``.py`` file) and ``interpreter/_native.json`` records the SHA-256 of
every source that was compiled.  At import, ``interpreter/native.py`` uses a
compiled module only when its source still has that hash, so an edited
``.py`` is never shadowed by an older binary (an editable install keeps the
``.so`` next to the ``.py``).

Any failure (no Cython, no compiler, ``CC=/bin/false``, a compile error)
prints one warning line and leaves that module pure Python: the install
itself succeeds.  Without ``REGELWERK_NATIVE=1`` nothing is compiled.
"""
from __future__ import annotations

import importlib.util
import json
import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# the modules of the hot loop (measured: each pays; see docs/performance.md); exprs and steps
# write the generated code (start-up), the others run under it
NATIVE_MODULES = [
    "interpreter.engine.run.runtime",
    "interpreter.engine.run.moves",
    "interpreter.engine.run.told",
    "interpreter.engine.run.playerapi",
    "interpreter.engine.compile.exprs",
    "interpreter.engine.compile.context",
    "interpreter.engine.compile.names",
    "interpreter.engine.compile.operators",
    "interpreter.engine.compile.comprehensions",
    "interpreter.engine.compile.calls",
    "interpreter.engine.compile.steps",
    "interpreter.engine.compile.effects",
    "interpreter.engine.compile.control",
    "interpreter.engine.compile.decisions",
    "interpreter.engine.run.stdlib",
    "interpreter.engine.run.signatures",
    "interpreter.engine.run.grids",
    "interpreter.engine.run.values",
    "interpreter.engine.run.rng",
    "interpreter.engine.knowledge.movewrite",
    "interpreter.ai.bots",
]
HERE = os.path.dirname(os.path.abspath(__file__))


def _native_module():
    """interpreter/native.py, loaded from its file (it needs only the standard library): the
    manifest's name and the source digest are the ones the import side checks, not a copy."""
    spec = importlib.util.spec_from_file_location("_regelwerk_native_build",
                                                  os.path.join(HERE, "interpreter", "native.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_native = _native_module()
MANIFEST = _native.MANIFEST     # in the package directory, next to the compiled modules
sha256 = _native.sha256_of      # a module's .py and the .pxd beside it, if any


def warn(message: str) -> None:
    print(f"regelwerk: native build skipped ({message}); the engine runs as pure Python", file=sys.stderr)


def source_of(name: str) -> str:
    return os.path.join(HERE, *name.split(".")) + ".py"


class OptionalBuildExt(build_ext):
    """Compile what can be compiled; fall back to pure Python for the rest, never fail."""

    def finalize_options(self):
        super().finalize_options()
        if self.parallel is None:
            self.parallel = min(2, os.cpu_count() or 1)

    def run(self):
        self.built = {}
        self.failed = {}            # module -> why (one warning line for all of them at the end)
        if os.environ.get("REGELWERK_NATIVE", "0").strip().lower() in ("", "0", "no", "false", "off"):
            print("regelwerk: native build off; the engine runs as pure Python "
                  "(REGELWERK_NATIVE=1 pip install ... compiles its hot modules: about 2 minutes, 8-20 % faster)",
                  file=sys.stderr)
            self._clean(keep=())
            self.extensions = []
            return
        try:
            import Cython
        except Exception as exc:  # noqa: BLE001
            warn(f"Cython is not available: {exc}")
            self._clean(keep=())
            self.extensions = []
            return
        self.stamp = {"python": sys.implementation.cache_tag, "cython": Cython.__version__}
        self.sources = {e.name: sha256(source_of(e.name)) for e in self.extensions}
        reuse = {} if self.force else self._reusable()
        self._clean(keep=reuse)
        todo = [e for e in self.extensions if e.name not in reuse]
        try:
            self.extensions = self._cythonize(todo)
            if self.extensions:
                super().run()
        except Exception as exc:  # noqa: BLE001 - no compiler, a broken toolchain: pure Python
            self.failed = {e.name: f"{type(exc).__name__}: {exc}".splitlines()[0] for e in todo}
            self.built = {}
            self._clean(keep=reuse)
        self.built.update(reuse)
        self._write_manifest()
        if self.failed and self.built:
            names = ", ".join(n.rpartition(".")[2] for n in sorted(self.failed))
            print(f"regelwerk: native build failed for {names} ({sorted(set(self.failed.values()))[0]}); "
                  "those modules run as pure Python", file=sys.stderr)
        elif self.failed:
            warn(sorted(set(self.failed.values()))[0])

    def _cythonize(self, extensions):
        from Cython.Build import cythonize
        out = []
        for ext in extensions:
            try:
                # keep setuptools' Extension (its build_ext set attributes on it): only its source changes
                [translated] = cythonize([ext], quiet=True, force=True, build_dir=self.build_temp,
                                 compiler_directives={"language_level": 3,
                                                      # annotations stay hints, as in Python:
                                                      # an LStr is a str, a subclass is accepted
                                                      "annotation_typing": False})
                ext.sources = translated.sources
                out.append(ext)
            except Exception as exc:  # noqa: BLE001 - Cython could not translate it: stay pure
                self.failed[ext.name] = f"{type(exc).__name__}: {exc}".splitlines()[0]
        return out

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001 - CompileError, LinkError, a missing compiler
            self.failed[ext.name] = f"{type(exc).__name__}: {exc}".splitlines()[0]
            return
        if sha256(source_of(ext.name)) != self.sources[ext.name]:
            # edited during the build: which text was compiled is unknown, so it is never used
            self.failed[ext.name] = "its source changed during the build"
            return
        self.built[ext.name] = self.sources[ext.name]

    def copy_extensions_to_source(self):
        # only the modules that were built now reach the source tree
        self.extensions = [e for e in self.extensions if e.name in self.built]
        super().copy_extensions_to_source()

    def _base(self) -> str:
        """The folder that ends up holding the installed packages (the checkout itself when editable)."""
        return HERE if self.inplace or self.editable_mode else self.build_lib

    def _target(self) -> str:
        """The package directory that ends up holding the manifest."""
        return os.path.join(self._base(), "interpreter")

    def _path(self, name: str) -> str:
        """Where module ``name``'s compiled file ends up."""
        return os.path.join(self._base(), *name.split(".")[:-1], self._file(name))

    def _reusable(self) -> dict:
        """Modules whose compiled file there was built from exactly today's source, by the same tools."""
        try:
            with open(os.path.join(self._target(), MANIFEST)) as f:
                old = json.load(f)
        except (OSError, ValueError):
            return {}
        if any(old.get(k) != v for k, v in self.stamp.items()):
            return {}
        entries = old.get("modules", {})
        return {name: digest for name, digest in self.sources.items()
                if entries.get(name, {}).get("sha256") == digest
                and entries[name].get("file") == self._file(name)
                and os.path.exists(self._path(name))}

    def _file(self, name: str) -> str:
        return os.path.basename(self.get_ext_filename(name))

    def _clean(self, keep):
        """Remove the manifest and every compiled module not in ``keep`` from the target directory."""
        base = self._base()
        for path in [os.path.join(self._target(), MANIFEST)] + [
                os.path.join(base, *name.split(".")[:-1], name.rsplit(".", 1)[1] + suffix)
                for name in NATIVE_MODULES if name not in keep for suffix in _ext_suffixes()]:
            if os.path.exists(path):
                os.remove(path)

    def _write_manifest(self):
        if not self.built or not os.path.isdir(self._target()):
            return
        manifest = dict(self.stamp, modules={name: {"file": self._file(name), "sha256": digest}
                                             for name, digest in sorted(self.built.items())},
                        # what failed, so that the backend can say which modules are not native
                        not_built=sorted(set(NATIVE_MODULES) - set(self.built)))
        with open(os.path.join(self._target(), MANIFEST), "w") as f:
            json.dump(manifest, f, indent=1)
            f.write("\n")


def _ext_suffixes():
    from importlib.machinery import EXTENSION_SUFFIXES
    return EXTENSION_SUFFIXES


def extensions():
    args = ["-g0"] if os.name == "posix" else []     # no debug info: smaller, faster to build
    return [Extension(name, [os.path.relpath(source_of(name), HERE)], extra_compile_args=args)
            for name in NATIVE_MODULES]


def packages():
    """The packages pyproject.toml's find gives, and the shipped rulebooks: rules/ installed as the
    package ``regelwerk_rules`` (its folders are data; interpreter/engine/shipped.py finds them by name)."""
    from setuptools import find_packages
    # every folder under rules/ is named a package (of data only), so setuptools does not warn
    # once per folder that package data lies in a folder "absent from the packages"
    folders = sorted(os.path.relpath(d, os.path.join(HERE, "rules")).replace(os.sep, ".")
                     for d, _, _ in os.walk(os.path.join(HERE, "rules")) if d != os.path.join(HERE, "rules")
                     and not os.path.basename(d).startswith((".", "__")))
    data_folders = ["dsl.schemas", "interpreter.play.web.static"]     # package data, no code
    return find_packages(include=["dsl*", "interpreter*"]) + data_folders + ["regelwerk_rules"] + [
        "regelwerk_rules." + f for f in folders if all(part.isidentifier() for part in f.split("."))]


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt},
      packages=packages(), package_dir={"regelwerk_rules": "rules"})
