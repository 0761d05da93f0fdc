"""Load a rulebook folder: the entry file, its includes, structure checks.

A rulebook is a folder with ``game.yaml``; ``include:`` lists other YAML
files of the same folder by relative path.  Nothing outside the folder is
ever read: absolute paths, ``..`` and links that lead out are refused.
The result is a :class:`RulebookSource` whose sections are merged across
files, every value still carrying its position.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from . import schema
from .diagnostics import LANGUAGE_VERSION, Pos, Report
from .yamlload import LDict, LList, load_yaml_text, read_source_file

ENTRY_FILE = "game.yaml"
MAPPING_SECTIONS = (
    "enums constants tables functions components zones variables options variants "
    "actions procedures triggers invariants"
).split()


def display_path(path: Path) -> str:
    """A path as it should appear in diagnostics: relative to the cwd if inside."""
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


@dataclass
class RulebookSource:
    root: Path
    files: list[str] = field(default_factory=list)
    #: the text read of each file of ``files`` (None: it could not be read)
    texts: list = field(default_factory=list)
    sections: dict = field(default_factory=dict)
    #: position of each section key, for "defined here" messages
    section_pos: dict = field(default_factory=dict)
    #: the files read, as paths under ``root`` (the order of ``files``): what the rulebook is made of
    paths: list = field(default_factory=list)

    def mapping(self, name: str) -> LDict:
        value = self.sections.get(name)
        if isinstance(value, dict):
            return value
        empty = LDict()
        empty.pos, empty.key_pos, empty.val_pos = Pos(self.files[0] if self.files else "?"), {}, {}
        return empty

    def steps(self, name: str) -> LList:
        value = self.sections.get(name)
        if isinstance(value, list):
            return value
        empty = LList()
        empty.pos, empty.item_pos = Pos(self.files[0] if self.files else "?"), []
        return empty


def find_entry(path: Path) -> Path:
    path = Path(path)
    return path / ENTRY_FILE if path.is_dir() else path


def inside_folder(root: Path, candidate: Path) -> bool:
    """Is ``candidate``, links followed, inside ``root``?  (A link loop is not.)  Also the check of
    every other file a rulebook names (its pictures: interpreter/engine/display/display.py)."""
    try:
        candidate.resolve().relative_to(root.resolve())
        return True
    except (ValueError, RuntimeError, OSError):   # RuntimeError: a link loop (before Python 3.13)
        return False


_inside = inside_folder


def _declare_version(data: dict, report: Report) -> None:
    """The language version game.yaml declares (``regelwerk: N``; without it 1, the first) decides
    which findings are errors for this rulebook (``Report.version``, docs/compatibility.md).  A
    version this engine does not know is the schema's located error."""
    version = data.get("regelwerk", 1)
    if isinstance(version, int) and not isinstance(version, bool) and 1 <= version <= LANGUAGE_VERSION:
        report.version = version


def load_rulebook(path, report: Report) -> RulebookSource:
    """Load the rulebook at ``path`` (a folder or its ``game.yaml``).

    Every problem goes to ``report``; the returned source holds whatever
    could be read, so that later checks can still report their findings.
    """
    entry = find_entry(Path(path))
    root = entry.parent
    src = RulebookSource(root=root)
    try:
        exists = entry.exists()
    except OSError:
        exists = False
    if not exists and not entry.is_symlink():
        report.error(Pos(display_path(entry)), f"no rulebook here: {display_path(entry)} does not exist", "RW004")
        return src
    if not _inside(root, entry):     # the entry file is checked like an include: a link out is not read
        report.error(Pos(display_path(entry)), f"{entry.name} leaves the rulebook folder (a link to a file "
                                               f"outside it, or a link loop)", "RW005")
        return src
    queue = [(entry, None)]
    seen: set[Path] = set()
    merged: dict = {}
    unreadable = False  # a file that could not be read: its sections are not missing, only unknown
    while queue:
        file, included_at = queue.pop(0)
        real = file.resolve()
        if real in seen:
            continue
        seen.add(real)
        src.paths.append(file)
        shown = display_path(file)
        text = read_source_file(file, report, shown)
        data = None if text is None else load_yaml_text(text, shown, report)
        src.files.append(shown)
        src.texts.append(text)
        if data is None:
            unreadable = True
            continue
        if included_at is None and isinstance(data, dict):
            _declare_version(data, report)
        report.extend(schema.check(data, "rulebook", shown))
        if not isinstance(data, dict):
            continue
        includes = data.get("include")
        for inc_i, inc in enumerate(includes if isinstance(includes, list) else []):  # else: the schema says
            if not isinstance(inc, str):
                continue
            inc_pos = includes.pos_of(inc_i)
            target = root / inc
            try:
                if Path(inc).is_absolute() or ".." in Path(inc).parts or not _inside(root, target):
                    report.error(inc_pos, f"include '{inc}' leaves the rulebook folder (or is a link loop)", "RW005")
                    continue
                if not target.is_file():
                    what = "is not a regular file" if target.exists() else "does not exist"
                    report.error(inc_pos, f"included file '{inc}' {what}", "RW004")
                    continue
            except OSError as exc:  # a name too long for the file system, and the like
                report.error(inc_pos, f"included file '{inc[:80]}{'…' if len(inc) > 80 else ''}' cannot be read: "
                                      f"{exc.strerror or exc}", "RW004")
                continue
            queue.append((target, inc_pos))
        _merge(data, merged, src, report)
    src.sections = merged
    if unreadable:
        return src
    if "game" not in merged and src.files:
        report.error(Pos(src.files[0]), "the rulebook has no 'game' section", "RW011")
    if "flow" not in merged and src.files:
        report.error(Pos(src.files[0]), "the rulebook has no 'flow' section", "RW011")
    return src


def _merge(data: LDict, merged: dict, src: RulebookSource, report: Report) -> None:
    for key, value in data.items():
        if key == "include":
            continue
        kpos = data.key_pos.get(key, data.pos)
        if key in MAPPING_SECTIONS and isinstance(value, dict) and isinstance(merged.get(key, value), dict):
            if key not in merged:
                target = LDict()
                target.pos, target.key_pos, target.val_pos = value.pos, {}, {}
                merged[key] = target
                src.section_pos[key] = kpos
            target = merged[key]
            for name, item in value.items():
                if name in target:
                    first = target.key_pos[name]
                    report.error(
                        value.key_pos[name],
                        f"'{name}' is defined twice in {key} (also at {first})",
                        "RW012",
                    )
                    continue
                target[name] = item
                target.key_pos[name] = value.key_pos[name]
                target.val_pos[name] = value.val_pos[name]
        else:
            if key in merged:
                report.error(kpos, f"section '{key}' is defined twice (also at {src.section_pos[key]})", "RW012")
                continue
            merged[key] = value
            src.section_pos[key] = kpos
