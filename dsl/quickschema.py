"""A quick yes/unsure check of a file against a JSON Schema, before the full validator runs.

``jsonschema`` finds *why* a file is wrong and says where; that is most of a
valid rulebook's load time too, though a valid file has nothing to report.
:func:`quick_validator` compiles a schema into plain Python predicates that
answer "certainly valid" (True) or "not sure" (False).  Only True skips
``jsonschema``; False runs it as before, so every diagnostic is the one
``jsonschema`` gives.  Hence the rule this module keeps: True only where the
JSON Schema (draft 2020-12) semantics say valid.  Where it cannot be exact
cheaply (``uniqueItems`` over non-strings, an exotic number) it answers
False; a keyword it does not know makes :func:`quick_validator` return None
(always run ``jsonschema``).
"""
from __future__ import annotations

import re
from typing import Callable

Check = Callable[[object], bool]

#: keywords that never affect validity
_ANNOTATIONS = {"description", "title", "$schema", "$id", "$defs", "default", "examples", "$comment"}


class Unsupported(Exception):
    """The schema uses something this module does not check exactly."""



def anchored(pattern: str) -> "re.Pattern":
    """A schema ``pattern`` as Python compiles it, a final ``$`` meaning the end of the text (``\\Z``):
    Python's ``$`` also matches before a final newline, so ``"go\\n"`` would pass as a name."""
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + "\\Z"
    return re.compile(pattern)

def _is_type(name: str) -> Check:
    if name == "object":
        return lambda x: isinstance(x, dict)
    if name == "array":
        return lambda x: isinstance(x, list)
    if name == "string":
        return lambda x: isinstance(x, str)
    if name == "boolean":
        return lambda x: isinstance(x, bool)
    if name == "null":
        return lambda x: x is None
    if name == "integer":
        return lambda x: (isinstance(x, int) and not isinstance(x, bool)) or (
            isinstance(x, float) and x.is_integer())
    if name == "number":
        return lambda x: isinstance(x, (int, float)) and not isinstance(x, bool)
    raise Unsupported(f"type {name!r}")


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _equal_to(c) -> Check:
    """``x == c`` as JSON Schema means it, for the constants a schema here uses."""
    if isinstance(c, bool) or c is None:
        return lambda x: x is c
    if isinstance(c, str):
        return lambda x: isinstance(x, str) and x == c
    if isinstance(c, int):
        return lambda x: _is_number(x) and x == c
    raise Unsupported(f"constant {c!r}")


class _Compiler:
    def __init__(self, root: dict):
        self.root = root
        self.refs: dict = {}

    def ref(self, target: str) -> Check:
        if target in self.refs:
            return self.refs[target]
        if target == "#":
            schema = self.root
        elif target.startswith("#/$defs/") and target[8:] in self.root.get("$defs", {}):
            schema = self.root["$defs"][target[8:]]
        else:
            raise Unsupported(f"$ref {target!r}")
        box: list = []
        self.refs[target] = lambda x: box[0](x)  # recursion: resolved once compiled
        box.append(self.compile(schema))
        self.refs[target] = box[0]
        return box[0]

    def compile(self, schema) -> Check:
        if schema is True:
            return lambda x: True
        if schema is False:
            return lambda x: False
        if not isinstance(schema, dict):
            raise Unsupported(repr(schema))
        checks: list = []
        add = checks.append
        for key, value in schema.items():
            if key in _ANNOTATIONS:
                continue
            if key == "type":
                tests = [_is_type(t) for t in (value if isinstance(value, list) else [value])]
                add(tests[0] if len(tests) == 1 else (lambda x, tests=tests: any(t(x) for t in tests)))
            elif key == "$ref":
                add(self.ref(value))
            elif key == "properties":
                props = {k: self.compile(v) for k, v in value.items()}

                def properties(x, props=props):
                    if isinstance(x, dict):
                        for k, check in props.items():
                            if k in x and not check(x[k]):
                                return False
                    return True
                add(properties)
            elif key == "additionalProperties":
                known = frozenset(schema.get("properties", {}))
                if "patternProperties" in schema:
                    raise Unsupported("patternProperties")
                if value is False:
                    add(lambda x, known=known: not isinstance(x, dict) or all(k in known for k in x))
                else:
                    extra = self.compile(value)
                    add(lambda x, known=known, extra=extra: not isinstance(x, dict) or all(
                        extra(v) for k, v in x.items() if k not in known))
            elif key == "required":
                names = tuple(value)
                add(lambda x, names=names: not isinstance(x, dict) or all(n in x for n in names))
            elif key == "items":
                if "prefixItems" in schema:
                    raise Unsupported("prefixItems")
                each = self.compile(value)
                add(lambda x, each=each: not isinstance(x, list) or all(each(v) for v in x))
            elif key == "if":
                cond = self.compile(value)
                then = self.compile(schema["then"]) if "then" in schema else None
                other = self.compile(schema["else"]) if "else" in schema else None
                add(lambda x, cond=cond, then=then, other=other: (
                    (then is None or then(x)) if cond(x) else (other is None or other(x))))
            elif key in ("then", "else"):
                continue  # with "if" (alone they mean nothing)
            elif key == "allOf":
                subs = [self.compile(s) for s in value]
                add(lambda x, subs=subs: all(s(x) for s in subs))
            elif key == "anyOf":
                subs = [self.compile(s) for s in value]
                add(lambda x, subs=subs: any(s(x) for s in subs))
            elif key == "oneOf":
                subs = [self.compile(s) for s in value]
                add(lambda x, subs=subs: sum(1 for s in subs if s(x)) == 1)
            elif key == "not":
                sub = self.compile(value)
                add(lambda x, sub=sub: not sub(x))
            elif key == "const":
                add(_equal_to(value))
            elif key == "enum":
                tests = [_equal_to(v) for v in value]
                add(lambda x, tests=tests: any(t(x) for t in tests))
            elif key == "pattern":
                rx = anchored(value)
                add(lambda x, rx=rx: not isinstance(x, str) or rx.search(x) is not None)
            elif key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
                if not _is_number(value):
                    raise Unsupported(key)
                cmp = {"minimum": lambda a, b: a >= b, "maximum": lambda a, b: a <= b,
                       "exclusiveMinimum": lambda a, b: a > b, "exclusiveMaximum": lambda a, b: a < b}[key]
                add(lambda x, v=value, cmp=cmp: not _is_number(x) or cmp(x, v))
            elif key in ("minItems", "maxItems", "minProperties", "maxProperties", "minLength", "maxLength"):
                typ = {"I": list, "P": dict, "L": str}[key[3]]
                if key.startswith("min"):
                    add(lambda x, n=value, typ=typ: not isinstance(x, typ) or len(x) >= n)
                else:
                    add(lambda x, n=value, typ=typ: not isinstance(x, typ) or len(x) <= n)
            elif key == "uniqueItems":
                if value:
                    # exact for strings; anything else: not sure (jsonschema decides)
                    add(lambda x: not isinstance(x, list) or (
                        all(isinstance(v, str) for v in x) and len(set(x)) == len(x)))
            else:
                raise Unsupported(key)
        if not checks:
            return lambda x: True
        if len(checks) == 1:
            return checks[0]
        return lambda x, checks=tuple(checks): all(c(x) for c in checks)


def quick_validator(schema: dict) -> Check | None:
    """A predicate: True only if ``schema`` certainly accepts the value; None if the
    schema uses a keyword this module does not check exactly."""
    try:
        return _Compiler(schema).ref("#")
    except Unsupported:
        return None
