"""The optional native build: a compiled module only while its source is unchanged, REGELWERK_PURE,
the backend that ``regelwerk bench`` names, and an install without a working compiler (slow)."""
import importlib
import json
import os
import shutil
import subprocess
import sys
import venv
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from interpreter import native

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "interpreter"
SUFFIX = EXTENSION_SUFFIXES[0]              # e.g. .cpython-311-x86_64-linux-gnu.so


def fake_package(tmp_path, name="natpkg", body="X = 1\n"):
    """A package with module m.py and beside it a "compiled" m.so that is not a loadable binary."""
    d = tmp_path / name
    d.mkdir()
    (d / "__init__.py").write_text("")
    (d / "m.py").write_text(body)
    (d / f"m{SUFFIX}").write_bytes(b"not a shared object")
    return d


def write_manifest(d, name, digest, python=sys.implementation.cache_tag):
    (d / native.MANIFEST).write_text(json.dumps(
        {"python": python, "modules": {name: {"file": f"m{SUFFIX}", "sha256": digest}}}))


def test_the_compiled_file_is_chosen_only_for_the_source_it_was_built_from(tmp_path):
    d = fake_package(tmp_path)
    py, so = str(d / "m.py"), str(d / f"m{SUFFIX}")
    assert native.NativeFinder("natpkg", str(d)).choose("natpkg.m", py) == (None, "not compiled")
    write_manifest(d, "natpkg.m", native.sha256_of(py))
    assert native.NativeFinder("natpkg", str(d)).choose("natpkg.m", py) == (so, "native")
    assert native.NativeFinder("natpkg", str(d), pure=True).choose("natpkg.m", py) == (
        None, "REGELWERK_PURE is set")
    (d / "m.py").write_text("X = 2\n")                       # edited after the build
    assert native.NativeFinder("natpkg", str(d)).choose("natpkg.m", py) == (
        None, "its source changed since the build")
    write_manifest(d, "natpkg.m", native.sha256_of(py))
    os.remove(so)
    assert native.NativeFinder("natpkg", str(d)).choose("natpkg.m", py) == (
        None, "its compiled file is missing")
    write_manifest(d, "natpkg.m", native.sha256_of(py), python="cpython-00")   # another Python's build
    assert native.NativeFinder("natpkg", str(d)).choose("natpkg.m", py) == (None, "not compiled")


@pytest.mark.parametrize("manifest", ["none", "stale"])
def test_a_binary_beside_an_edited_or_unlisted_source_is_never_imported(tmp_path, monkeypatch, manifest):
    d = fake_package(tmp_path, body="X = 'old'\n")
    if manifest == "stale":
        write_manifest(d, "natpkg.m", native.sha256_of(str(d / "m.py")))
    (d / "m.py").write_text("X = 'new'\n")
    # Python alone imports the .so first (and fails on it: it is no binary)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ImportError):
        importlib.import_module("natpkg.m")
    for mod in ("natpkg", "natpkg.m"):
        sys.modules.pop(mod, None)
    finder = native.NativeFinder("natpkg", str(d))
    monkeypatch.setattr(sys, "meta_path", [finder] + sys.meta_path)
    try:
        assert importlib.import_module("natpkg.m").X == "new"
    finally:
        for mod in ("natpkg", "natpkg.m"):
            sys.modules.pop(mod, None)
    assert finder.decided == ({} if manifest == "none" else {"natpkg.m": "its source changed since the build"})


def test_the_backend_names_the_modules_that_are_not_native_and_why(tmp_path, monkeypatch):
    d = fake_package(tmp_path, body="X = 'old'\n")
    (d / "n.py").write_text("Y = 1\n")
    (d / native.MANIFEST).write_text(json.dumps(
        {"python": sys.implementation.cache_tag, "not_built": ["natpkg.n"],
         "modules": {"natpkg.m": {"file": f"m{SUFFIX}", "sha256": native.sha256_of(str(d / "m.py"))}}}))
    (d / "m.py").write_text("X = 'new'\n")
    finder = native.NativeFinder("natpkg", str(d))
    assert native.backend(finder) == "pure Python"                      # nothing of it imported yet
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "meta_path", [finder] + sys.meta_path)
    try:
        importlib.import_module("natpkg.m"), importlib.import_module("natpkg.n")
        assert native.status(finder) == {"natpkg.m": "its source changed since the build",
                                         "natpkg.n": "its native build failed"}
        assert native.backend(finder) == "pure Python: its native build failed; its source changed since the build"
    finally:
        for mod in ("natpkg", "natpkg.m", "natpkg.n"):
            sys.modules.pop(mod, None)


def test_the_finder_is_first_and_leaves_other_imports_alone():
    assert isinstance(sys.meta_path[0], native.NativeFinder)
    assert sys.meta_path[0].find_spec("json", None) is None
    assert sys.meta_path[0].find_spec("interpreter.no_such_module", [str(PKG)]) is None


BUILT = native.read_manifest(str(PKG))
needs_build = pytest.mark.skipif(not BUILT, reason="no native build here (pip install -e . with a C compiler)")


def run_python(code, env=None, cwd=None, path=None):
    """Run ``code`` in a new process (without REGELWERK_PURE unless ``env`` sets it); its output lines."""
    env = dict({k: v for k, v in os.environ.items() if k != "REGELWERK_PURE"}, **(env or {}))
    if path is not None:
        env["PYTHONPATH"] = str(path)
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()


PLAY = """
import interpreter.engine.run.runtime as r
from interpreter.tools.bench import backend, run_once
from interpreter.game import Rulebook
rb = Rulebook.load({rules!r})
print(r.__file__)
print(backend())
print(run_once(rb, 2, 3, 1, {{}}, [])[0])
"""


@needs_build
def test_the_native_build_is_what_runs_and_plays_the_same_games_as_pure_python():
    code = PLAY.format(rules=str(ROOT / "rules" / "yak"))
    native_run = run_python(code)
    pure_run = run_python(code, env={"REGELWERK_PURE": "1"})
    assert not native_run[0].endswith(".py") and native_run[1] == "native"
    assert pure_run[0].endswith("runtime.py") and pure_run[1] == "pure Python: REGELWERK_PURE is set"
    assert native_run[2] == pure_run[2]                      # the same decisions in the same seeded games


@needs_build
def test_an_edited_source_runs_as_python_beside_its_stale_binary(tmp_path):
    """A copy of the built package whose runtime.py was edited: that module runs from its .py."""
    for d in ("dsl", "interpreter", "schemas"):
        shutil.copytree(ROOT / d, tmp_path / d, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    edited = tmp_path / "interpreter" / "engine" / "run" / "runtime.py"
    edited.write_text(edited.read_text() + "\nEDITED_AFTER_THE_BUILD = True\n")
    out = run_python("import interpreter.engine.run.runtime as r, interpreter.engine.compile.exprs as e\n"
                     "from interpreter.tools.bench import backend\n"
                     "print(r.__file__); print(e.__file__); print(r.EDITED_AFTER_THE_BUILD); print(backend())",
                     cwd=tmp_path, path=tmp_path)
    assert out[0] == str(edited)
    assert out[1].startswith(str(tmp_path / "interpreter" / "engine" / "compile" / "exprs.")) and not out[1].endswith(".py")
    assert out[2] == "True"
    assert out[3] == "native except runtime: its source changed since the build"


def copy_project(dest: Path) -> Path:
    """The files an install needs, without any build output (no .so, no manifest, no build/)."""
    dest.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, dest / name)
    skip = shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "*.c", native.MANIFEST)
    for d in ("dsl", "interpreter", "schemas", "rules"):
        shutil.copytree(ROOT / d, dest / d, symlinks=True, ignore=skip)
    return dest


@pytest.mark.slow
@pytest.mark.parametrize("no_compiler", ["CC=/bin/false", "no compiler on PATH"])
def test_install_without_a_working_compiler_is_pure_python_and_plays(tmp_path, no_compiler):
    project = copy_project(tmp_path / "project")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    env = {k: v for k, v in os.environ.items() if k not in ("REGELWERK_PURE", "REGELWERK_NATIVE", "CC")}
    env.pop("PYTHONPATH", None)
    env["REGELWERK_NATIVE"] = "1"                           # the build is asked for, and cannot be made
    if no_compiler == "CC=/bin/false":
        env["CC"] = "/bin/false"
    else:
        env["PATH"] = str(env_dir / "bin")                    # no gcc, cc or clang to be found
    pip = subprocess.run([str(env_dir / "bin" / "python"), "-m", "pip", "install", "-v", "-e", str(project)],
                         env=env, capture_output=True, text=True, timeout=900)
    assert pip.returncode == 0, pip.stdout[-3000:] + pip.stderr[-3000:]
    said = [ln for ln in (pip.stdout + pip.stderr).splitlines() if "regelwerk: native build" in ln]
    assert len(said) == 1 and "native build skipped (" in said[0] and "pure Python" in said[0], said
    assert not list((project / "interpreter").glob("**/*.so")) and not (project / "interpreter" / native.MANIFEST).exists()
    code = PLAY.format(rules=str(ROOT / "rules" / "yak"))
    out = subprocess.run([str(env_dir / "bin" / "python"), "-c", code], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    file, backend, decisions = out.stdout.strip().splitlines()
    assert file == str(project / "interpreter" / "engine" / "run" / "runtime.py") and backend == "pure Python"
    assert int(decisions) > 0


def test_every_pxd_file_is_package_data():
    """A compiled module's digest covers the .pxd beside its .py (native.sha256_of): a .pxd left out
    of the wheel makes the installed module count as changed since the build, so it runs as pure
    Python (movewrite.pxd once was: "native except movewrite" in CI's wheel)."""
    import fnmatch
    import tomllib
    root = Path(__file__).resolve().parents[1]
    data = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    pxds = sorted((root / "interpreter").rglob("*.pxd"))
    assert pxds
    for pxd in pxds:
        package = ".".join(pxd.parent.relative_to(root).parts)
        assert any(fnmatch.fnmatch(pxd.name, pattern) for pattern in data.get(package, ())), \
            f"{pxd.relative_to(root)} is not in [tool.setuptools.package-data] {package!r}"
