"""dsl.quickschema: its "certainly valid" must never hide an error jsonschema would report."""
import copy
import random
from pathlib import Path

import pytest

from dsl import schema
from dsl.diagnostics import Report
from dsl.quickschema import quick_validator
from dsl.yamlload import load_yaml_file

from conftest import SHIPPED

ROOT = Path(__file__).resolve().parents[1]


def _files():
    out = []
    # the shipped games by their list (a user's own folder in rules/ is not the project's)
    for folder in [ROOT / "rules" / game for game in SHIPPED] + [ROOT / "tests"]:
        out.extend(sorted(folder.rglob("*.yaml")))
    return out


def _documents():
    docs = []
    for f in _files():
        data = load_yaml_file(f, Report())
        if isinstance(data, dict):
            docs.append(data)
    return docs


def _valid(name, data) -> bool:
    return not any(True for _ in schema.validator(name).iter_errors(data))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["rulebook", "scenario"])
def test_quick_check_agrees_with_jsonschema_on_every_file_here(name):
    quick = schema.quick(name)
    assert quick is not None, "the schema uses a keyword dsl/quickschema.py does not know: teach it"
    docs = _documents()
    valid = 0
    for data in docs:
        want = _valid(name, data)
        assert quick(data) == want
        valid += want
    assert valid >= 10  # the games' files and scenarios are among them


@pytest.mark.slow     # 4-7 s each: moved out of the default run, which must stay under 5 minutes
@pytest.mark.parametrize("name", ["rulebook", "scenario"])
def test_quick_check_never_accepts_a_damaged_file(name):
    rnd = random.Random(9)
    junk = [None, True, False, 0, 3, 1.5, 2.0, -1, "x", "", [], {}, ["a"], ["a", "a"], [1, True], {"zz": 1}]
    keys = ["zz", "then", "do", "on", "when", "if", "set", "to", "steps", "expect", "params", "type"]

    def mutate(x):
        if isinstance(x, dict) and x and rnd.random() < 0.8:
            k = rnd.choice(list(x))
            r = rnd.random()
            if r < 0.15:
                del x[k]
            elif r < 0.3:
                x[rnd.choice(keys)] = copy.deepcopy(rnd.choice(junk))
            elif r < 0.45:
                x[k] = copy.deepcopy(rnd.choice(junk))
            else:
                x[k] = mutate(x[k])
            return x
        if isinstance(x, list) and x and rnd.random() < 0.8:
            i = rnd.randrange(len(x))
            r = rnd.random()
            if r < 0.15:
                del x[i]
            elif r < 0.3:
                x.append(copy.deepcopy(x[i]))
            elif r < 0.45:
                x[i] = copy.deepcopy(rnd.choice(junk))
            else:
                x[i] = mutate(x[i])
            return x
        return copy.deepcopy(rnd.choice(junk)) if rnd.random() < 0.5 else x

    quick = schema.quick(name)
    plain = [copy.deepcopy(d) for d in _documents()]
    seen = [0, 0]
    for _ in range(200):
        data = copy.deepcopy(rnd.choice(plain))
        for _ in range(rnd.randint(1, 3)):
            data = mutate(data)
        if not isinstance(data, dict):
            continue
        want = _valid(name, data)
        if quick(data):
            assert want, data
        seen[want] += 1
    assert seen[0] > 30 and seen[1] > 5


def test_quick_check_keeps_json_schema_meanings():
    q = quick_validator({"type": "object", "properties": {
        "n": {"type": "integer", "minimum": 1}, "f": {"const": False}, "s": {"enum": ["a", 1]},
        "u": {"type": "array", "uniqueItems": True}}, "additionalProperties": False})
    assert q({"n": 2}) and q({"n": 2.0}) and not q({"n": True}) and not q({"n": 0})
    assert q({"f": False}) and not q({"f": 0})
    assert q({"s": "a"}) and q({"s": 1}) and not q({"s": True}) and not q({"s": "b"})
    assert q({"u": ["a", "b"]}) and not q({"u": ["a", "a"]})
    assert not q({"u": [1, True]})  # not sure (jsonschema decides: valid), never a wrong yes
    assert not q({"other": 1}) and not q([])
    assert quick_validator({"patternProperties": {"^a": {}}}) is None
    assert quick_validator({"$ref": "https://example.com/s.json"}) is None
    assert quick_validator({"format": "email"}) is None


@pytest.mark.parametrize("name", ["rulebook", "scenario"])
def test_the_schemas_follow_the_draft_2020_12_meta_schema(name):
    from jsonschema import Draft202012Validator
    Draft202012Validator.check_schema(schema.schema_of(name))  # raises SchemaError if not


def test_validating_a_valid_rulebook_does_not_import_jsonschema():
    # start-up speed: jsonschema (and its ~60 ms import) is only for explaining an invalid file
    import subprocess
    import sys
    code = ("import sys; from interpreter.game import check_rulebook; "
            "report, _ = check_rulebook('rules/iquazu'); print(len(report.items), 'jsonschema' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "False"]
