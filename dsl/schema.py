"""Structure checks of rulebook and scenario files against the JSON Schemas.

The schemas in ``schemas/`` (draft 2020-12) are the single description of
the file structure, used by editors too.  This module runs them and turns
every :class:`jsonschema.ValidationError` into a located, readable
diagnostic: an unknown key is reported at the key with a suggestion, a
missing key at the mapping, a wrong type at the value.
"""
from __future__ import annotations

import difflib
import json
from functools import lru_cache
from pathlib import Path
from importlib import resources
from typing import Iterator

from .diagnostics import Diagnostic, ERROR, Pos
from .quickschema import anchored, quick_validator
from .yamlload import LDict, LList

#: the JSON Schemas, package data (``dsl/schemas`` links to the top-level ``schemas/``)
SCHEMA_DIR = resources.files("dsl") / "schemas"
STEP_KINDS = (
    "set let move draw shuffle if for while repeat turns phase round scope decide "
    "call emit defer end_game log fail random"
).split()


@lru_cache(maxsize=None)
def schema_of(name: str) -> dict:
    """The JSON Schema ``name`` (a test checks it against the draft 2020-12 meta-schema)."""
    return json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def validator(name: str) -> "Draft202012Validator":
    # imported here: a valid file never needs jsonschema (see quick), and it takes ~60 ms to import
    from jsonschema import Draft202012Validator, ValidationError, validators

    def pattern(validator, patrn, instance, schema):      # a final $ is the end of the text (quickschema)
        if validator.is_type(instance, "string") and not anchored(patrn).search(instance):
            yield ValidationError(f"{instance!r} does not match {patrn!r}")
    return validators.extend(Draft202012Validator, {"pattern": pattern})(schema_of(name))


@lru_cache(maxsize=None)
def quick(name: str):
    """The schema's quick check (:mod:`dsl.quickschema`): True only for a certainly valid file."""
    return quick_validator(schema_of(name))


def _locate(root, path) -> tuple[object, Pos]:
    """The value at ``path`` below ``root`` and its position."""
    node, pos = root, getattr(root, "pos", Pos("<unknown>"))
    for key in path:
        if isinstance(node, LDict) and key in node:
            pos = node.pos_of(key)
            node = node[key]
        elif isinstance(node, LList) and isinstance(key, int) and key < len(node):
            pos = node.pos_of(key)
            node = node[key]
        else:
            break
    return node, pos


_TYPE_WORDS = {
    "string": "a string",
    "integer": "a whole number",
    "boolean": "true or false",
    "object": "a mapping",
    "array": "a list",
    "null": "nothing",
    "number": "a number",
}


def _type_words(t) -> str:
    if isinstance(t, list):
        return " or ".join(_TYPE_WORDS.get(x, x) for x in t)
    return _TYPE_WORDS.get(t, str(t))


def _where(path) -> str:
    parts = [str(p) for p in path if not isinstance(p, int)]
    return f" in '{parts[-1]}'" if parts else ""


def _messages(err: "ValidationError", root) -> Iterator[tuple[Pos, str]]:
    value, pos = _locate(root, err.absolute_path)
    kind = err.validator
    if kind == "additionalProperties" and isinstance(value, dict):
        allowed = sorted(err.schema.get("properties", {}))
        for key in value:
            if key not in err.schema.get("properties", {}):
                hint = difflib.get_close_matches(str(key), allowed, n=1)
                suffix = f"; did you mean '{hint[0]}'?" if hint else (
                    f"; allowed: {', '.join(allowed)}" if allowed else "")
                kpos = value.key_pos.get(key, pos) if isinstance(value, LDict) else pos
                yield kpos, f"unknown key '{key}'{_where(err.absolute_path)}{suffix}"
        return
    if kind == "required":
        missing = err.message.split("'")[1] if "'" in err.message else err.message
        yield pos, f"missing key '{missing}'{_where(err.absolute_path)}"
        return
    if kind == "anyOf" and err.schema is schema_of("rulebook")["$defs"]["step"]:
        keys = ", ".join(STEP_KINDS)
        first = next(iter(value), None) if isinstance(value, dict) else None
        hint = difflib.get_close_matches(str(first), STEP_KINDS, n=1) if first else []
        kpos = value.key_pos.get(first, pos) if isinstance(value, LDict) and first in value else pos
        msg = f"unknown step '{first}'" if first is not None else "empty step"
        yield kpos, msg + (f"; did you mean '{hint[0]}'?" if hint else f"; a step starts with one of: {keys}")
        return
    if kind == "anyOf" and "on" in json.dumps(err.schema.get("anyOf", [])):
        yield pos, "a trigger needs 'on' (an event) or 'when' (a condition)"
        return
    if kind == "type":
        yield pos, f"expected {_type_words(err.validator_value)}{_where(err.absolute_path)}, found {_show(value)}"
        return
    if kind == "const":
        yield pos, f"expected {err.validator_value!r}{_where(err.absolute_path)}, found {_show(value)}"
        return
    if kind == "enum":
        choices = ", ".join(str(v) for v in err.validator_value)
        yield pos, f"expected one of {choices}{_where(err.absolute_path)}, found {_show(value)}"
        return
    if kind == "pattern":
        if err.validator_value.startswith("^[A-Za-z_]"):
            shown = str(value).replace("\n", "\\n")
            yield pos, f"'{shown}' is not a valid name (letters, digits and _ only)"
        elif err.validator_value.startswith("^#"):
            yield pos, f"'{value}' is not a colour: write it as #rrggbb (six hexadecimal digits, e.g. #1f77b4)"
        else:
            yield pos, f"'{value}' is not a rulebook file in this folder"
        return
    if kind in ("oneOf", "anyOf") and err.context:
        # Report the branch that got furthest (jsonschema's relevance order).
        best = sorted(err.context, key=lambda e: -len(e.absolute_path))[0]
        yield from _messages(best, root)
        return
    yield pos, err.message


def _show(value) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, str) else str(value)


def check(data, schema_name: str, file: str) -> Iterator[Diagnostic]:
    """Yield every structure error of ``data`` (loaded from ``file``)."""
    if not isinstance(data, dict):
        yield Diagnostic(getattr(data, "pos", Pos(file)), "the file must be a YAML mapping", ERROR, "RW010")
        return
    q = quick(schema_name)
    if q is not None and q(data):
        return  # certainly valid: jsonschema would find nothing (and takes ten times as long to say so)
    seen = set()
    for err in validator(schema_name).iter_errors(data):
        for pos, msg in _messages(err, data):
            if (pos, msg) not in seen:
                seen.add((pos, msg))
                yield Diagnostic(pos, msg, ERROR, "RW010")
