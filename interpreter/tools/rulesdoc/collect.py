"""A rulebook's structure gathered into a rules document (the sections of issue 41).

The rulebook is loaded and compiled first (a broken one stops here with its located errors,
like every command); then its located source is read section by section: the game and its
player counts, components with their counts (from the layout of each player count), setup,
the flow, actions, procedures, triggers, scoring with its score parts, the end and tie-breaks,
options and variants, and what each player sees.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from dsl.diagnostics import Report
from dsl.loader import load_rulebook

from ...game import Rulebook, read_hints, words
from .model import Document, Line, Para, Rules, Section, Source, Sub, Table
from .pictures import pictures_of
from .speak import Namer, Speaker
from .steps import StepWriter, cap, sentence

_EVENTS = {"drawn": "whenever components are drawn", "moved": "whenever components move",
           "turn_end": "at the end of every turn", "turn_start": "at the start of every turn",
           "round_end": "at the end of every round", "round_start": "at the start of every round",
           "phase_end": "at the end of every phase", "phase_start": "at the start of every phase",
           "action_end": "at the end of every action"}


_ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth"]
_TYPES = {"player": "a player", "int": "a number", "bool": "yes or no", "str": "a text"}


def _anchor(kind: str, name) -> str:
    return f"{kind}-{str(name).replace('_', '-')}"


def _a(text: str) -> str:
    return ("an " if text[:1].lower() in "aeiou" else "a ") + text


def build_document(path, players: int | None = None) -> Document:
    rb = Rulebook.load(path)                # every error at once, located (RulebookError)
    report = Report()
    source = load_rulebook(rb.path, report)
    return _Collector(rb, source, players).document()


class _Collector:
    def __init__(self, rb, source, players):
        self.rb, self.g, self.src_ = rb, rb.game, source
        self.root = Path(source.root)
        self.players = players
        self.namer = Namer(source)
        self.s = Speaker(self.namer)
        self.w = StepWriter(self.s, self.at, source)
        self.hints = read_hints(self.g)
        self._files: dict = {}              # a file as positions name it -> (its path, its label)
        self._made: list = []               # the sections made so far (the end reads their end_game steps)

    # --- sources ------------------------------------------------------------------------------------
    def at(self, pos) -> Source | None:
        if pos is None or not getattr(pos, "file", None):
            return None
        found = self._files.get(pos.file)
        if found is None:
            path = Path(pos.file).resolve()
            try:
                label = str(path.relative_to(self.root.resolve()))
            except ValueError:
                label = path.name
            found = self._files[pos.file] = (path, label)
        return Source(found[0], pos.line, f"{found[1]}:{pos.line}")

    def key_at(self, mapping, key):
        kp = getattr(mapping, "key_pos", {}) or {}
        return self.at(kp.get(key, getattr(mapping, "pos", None)))

    def name(self, ident) -> str:
        return self.namer.name(str(ident))

    # --- the document -------------------------------------------------------------------------------
    def document(self) -> Document:
        self._made = [self.game(), self.components(), self.setup(), self.flow(), self.actions(), self.triggers(),
                      self.scoring()]
        sections = self._made + [self.end(), self.options(), self.visibility(), self.terms()]
        lo, hi = self.g.min_players, self.g.max_players
        count = f"{lo} player{'s' * (lo != 1)}" if lo == hi else f"{lo} to {hi} players"
        sub = f"for {count}" + (f" (this document: {self.players} players)" if self.players else "")
        return Document(self.g.name, sub, sections, self.root)

    def game(self) -> Section:
        sec = Section("game", "The game")
        game = self.src_.mapping("game")
        lo, hi = self.g.min_players, self.g.max_players
        count = f"{lo} player{'s' * (lo != 1)}" if lo == hi else f"{lo} to {hi} players"
        sec.blocks.append(Para(f"{self.g.name} is a game for {count}.", self.key_at(game, "players")))
        if isinstance(game.get("description"), str):
            sec.blocks.append(Para(sentence(game["description"]), self.key_at(game, "description")))
        seats = self.src_.sections.get("seats")
        if isinstance(seats, dict) and seats.get("automata") is not None:
            sec.blocks.append(Para(sentence(f"automated players (not people) take part: "
                                            f"{self.s.expr(seats['automata'])}"), self.at(seats.pos)))
        if isinstance(game.get("source"), str):
            sec.blocks.append(Para("Encoded from a published rulebook (named in the source link).",
                                   self.key_at(game, "source")))
        return sec

    def _counts(self) -> dict:
        """kind -> {players: how many} over the player counts shown."""
        counts = [self.players] if self.players else list(range(self.g.min_players, self.g.max_players + 1))
        out: dict = {}
        for n in counts:
            try:
                lay = self.rb.layout(n)
            except Exception:  # noqa: BLE001 - a layout that cannot be made: no count shown for it
                continue
            for kind, k in Counter(c.kind for c in lay.components).items():
                out.setdefault(kind, {})[n] = k
        return out

    def components(self) -> Section:
        sec = Section("components", "Components")
        comps = self.src_.mapping("components")
        counts = self._counts()
        rows, srcs, pics = [], [], []
        for kind, spec in comps.items():
            by = counts.get(kind, {})
            if len(set(by.values())) == 1:
                n = str(next(iter(by.values())))
            else:
                n = "; ".join(f"{k} with {p} players" for p, k in sorted(by.items())) or "–"
            desc = spec.get("description") if isinstance(spec, dict) else None
            attrs = spec.get("attributes") if isinstance(spec, dict) else None
            what = sentence(desc) if isinstance(desc, str) else ""
            if isinstance(attrs, dict) and attrs:
                what += (" " if what else "") + sentence("each has " + self.s.join(
                    [_a(f"{self.name(a)} ({_TYPES.get(str(t)) or self.name(t)})") for a, t in attrs.items()]))
            rows.append([cap(self.name(kind)), n, what])
            srcs.append(self.key_at(comps, kind))
            pics.append(pictures_of(self.hints, self.root, str(kind)))
        if rows:
            sec.blocks.append(Table("Components", ["Component", "How many", "What it is"], rows, srcs,
                                    ["component"] * len(rows), pics))
        else:
            sec.blocks.append(Para("The game has no components: it keeps only numbers and names."))
        enums = self.src_.mapping("enums")
        if enums:
            rows = [[cap(self.name(e)), self.s.join([self.name(x) for x in (v if isinstance(v, list) else [])])]
                    for e, v in enums.items()]
            sec.blocks.append(Table("Kinds of things", ["Kind", "Values"], rows,
                                    [self.key_at(enums, e) for e in enums], ["enum"] * len(rows)))
        zones = self.src_.mapping("zones")
        rows, srcs = [], []
        for z, spec in zones.items():
            if not isinstance(spec, dict):
                continue
            holds = spec.get("holds")
            holds = self.s.join([self.name(h) for h in (holds if isinstance(holds, list) else [holds])])
            index = spec.get("index")
            each = (" (one per " + self.s.join([f"{self.name(i)} in {self.s.expr(v)}" for i, v in index.items()]) + ")"
                    if isinstance(index, dict) and index else "")
            extra = []
            if spec.get("capacity") is not None:
                extra.append(f"holds at most {self.s.expr(spec['capacity'])}")
            if spec.get("type") in ("bag", "deck"):
                extra.append("drawn at random" if spec["type"] == "bag" else "a face-down deck, drawn from the top")
            desc = spec.get("description")
            text = (sentence(desc) + " " if isinstance(desc, str) else "") + sentence(
                f"holds {holds}{each}" + (("; " + "; ".join(extra)) if extra else ""))
            rows.append([cap(self.name(z)), text])
            srcs.append(self.key_at(zones, z))
        if rows:
            sec.blocks.append(Table("Places on the table", ["Place", "What it is"], rows, srcs, ["zone"] * len(rows)))
        tables = self.src_.mapping("tables")
        for t, spec in tables.items():
            if isinstance(spec, dict):
                sec.blocks.append(Table(cap(self.name(t)), ["For", "Value"],
                                        [[str(k), self.s.expr(v) if isinstance(v, str) else str(v)]
                                         for k, v in spec.items()],
                                        [self.at(spec.pos_of(k)) for k in spec], ["table"] * len(spec)))
        return sec

    def setup(self) -> Section:
        sec = Section("setup", "Setup")
        lines = self.w.steps(self.src_.steps("setup"))
        homes = self._homes()
        if homes:
            sec.blocks.append(Rules(homes, ordered=False))
        sec.blocks.append(Rules(lines) if lines else Para("There is nothing to set up beyond the components' places."))
        starts = self._starts()
        if starts:
            sec.blocks.append(Para("What the game keeps track of starts as follows:"))
            sec.blocks.append(Rules(starts, ordered=False))
        return sec

    def _starts(self) -> list:
        """Each variable's starting value (``init:``), with its description."""
        out = []
        variables = self.src_.mapping("variables")
        for v, spec in variables.items():
            init = spec.get("init") if isinstance(spec, dict) else spec
            if init is None and not (isinstance(spec, dict) and "init" in spec):
                continue
            if isinstance(spec, dict) and spec.get("type") == "player" and isinstance(init, int) \
                    and not isinstance(init, bool) and 0 <= init < 6:
                value = f"the {_ORDINALS[init]} player"
            else:
                value = self.s.expr(init) if isinstance(init, str) else (
                    "nobody" if init is None else ("yes" if init is True else "no" if init is False else str(init)))
            index = spec.get("index") if isinstance(spec, dict) else None
            each = (" for each " + self.s.join([self.name(i) for i in index])) if isinstance(index, dict) else ""
            desc = spec.get("description") if isinstance(spec, dict) else None
            about = f" ({desc.strip()})" if isinstance(desc, str) else ""
            out.append(Line(sentence(f"{self.name(v)}{about}{each} starts at {value}"), self.key_at(variables, v),
                            "start"))
        return out

    def _homes(self) -> list:
        """Where the components start (``home:``), before the setup steps."""
        out = []
        comps = self.src_.mapping("components")
        for kind, spec in comps.items():
            if isinstance(spec, dict) and spec.get("home") is not None:
                out.append(Line(sentence(f"every {self.name(kind)} starts in {self.s.expr(spec['home'])}"),
                                self.at(spec.pos_of("home")), "home"))
        return out

    def flow(self) -> Section:
        sec = Section("flow", "Course of the game")
        sec.blocks.append(Para("The game runs as follows; the player named in a turn is the one who decides."))
        sec.blocks.append(Rules(self.w.steps(self.src_.steps("flow"))))
        return sec

    def actions(self) -> Section:
        sec = Section("actions", "Actions")
        actions = self.src_.mapping("actions")
        for name, spec in actions.items():
            line = self.w.action(str(name), spec, actions.key_pos.get(name))
            sec.blocks.append(Sub(line.lead, [Rules([line], ordered=False)], anchor=_anchor("action", name)))
        procs = self.src_.mapping("procedures")
        for name, spec in procs.items():
            steps = spec.get("do") if isinstance(spec, dict) else spec
            desc = spec.get("description") if isinstance(spec, dict) else None
            params = spec.get("params") if isinstance(spec, dict) else None
            text = f"“{self.name(name)}”" + (f": {desc.strip()}" if isinstance(desc, str) else "")
            if isinstance(params, dict) and params:
                text += f" (it is given {self.s.join([self.name(p) for p in params])})"
            line = Line(sentence(text), self.key_at(procs, name), "procedure", self.w.steps(steps),
                        lead=cap(self.name(name)))
            sec.blocks.append(Sub(f"{cap(self.name(name))} (used by other rules)", [Rules([line], ordered=False)],
                                  anchor=_anchor("procedure", name)))
        return sec

    def triggers(self) -> Section:
        sec = Section("triggers", "Triggers: what happens by itself")
        trig = self.src_.mapping("triggers")
        if not trig:
            sec.blocks.append(Para("Nothing happens by itself: every rule runs where the course of the game says."))
        for name, spec in trig.items():
            if not isinstance(spec, dict):
                continue
            on, when = spec.get("on"), spec.get("when")
            if on is not None:
                lead = _EVENTS.get(str(on), f"whenever the event “{self.name(on)}” happens")
                if when is not None:
                    lead += f" and {self.s.expr(when)}"
            else:
                lead = f"as soon as {self.s.expr(when)}"
            if spec.get("at") is not None:
                lead += f" (carried out at the end of the {self.name(spec['at'])})"
            desc = spec.get("description")
            text = f"{lead}: {desc.strip()}" if isinstance(desc, str) else f"{lead}:"
            line = Line(sentence(text), self.key_at(trig, name), "trigger", self.w.steps(spec.get("do")),
                        lead=cap(self.name(name)))
            sec.blocks.append(Sub(cap(self.name(name)), [Rules([line], ordered=False)], anchor=_anchor("trigger", name)))
        return sec

    def scoring(self) -> Section:
        sec = Section("scoring", "Scoring")
        end = self.src_.mapping("end")
        if isinstance(end.get("scoring"), list):
            sec.blocks.append(Para("When play stops, the final scoring is carried out:", self.at(end.pos_of("scoring"))))
            sec.blocks.append(Rules(self.w.steps(end["scoring"])))
        if end.get("score") is not None:
            sec.blocks.append(Para(sentence(f"a player's score is {self.s.expr(end['score'])}"),
                                   self.at(end.pos_of("score"))))
        parts = end.get("parts")
        if isinstance(parts, dict) and parts:
            rows = [[cap(words(str(k))), cap(self.s.expr(v))] for k, v in parts.items()]
            srcs = [self.key_at(parts, k) for k in parts]
            if end.get("rest") is not None:
                rows.append([cap(words(str(end["rest"]))), "Whatever the score holds beyond the parts above"])
                srcs.append(self.at(end.pos_of("rest")))
            sec.blocks.append(Table("The parts of the score", ["Part", "Points"], rows, srcs, ["part"] * len(rows)))
        return sec

    def end(self) -> Section:
        sec = Section("end", "End of the game and ties")
        ends = [line for line in self._all_lines() if line.kind == "end_game"]
        sec.blocks.append(Para("Play stops when the course of the game is over" +
                               (", or at once where a rule says the game ends:" if ends else "."),
                               self.at(self.src_.section_pos.get("flow"))))
        if ends:
            sec.blocks.append(Rules([Line(line.text, line.src, "end_game") for line in ends], ordered=False))
        end = self.src_.mapping("end")
        better = "lowest" if end.get("better") == "lower" else "highest"
        keys = end.get("rank_by")
        if isinstance(keys, list) and keys:
            said = [self._key(k) for k in keys]
            text = f"the players are ranked by {said[0]}"
            if len(said) > 1:
                text += "; a tie is broken by " + self.s.join(said[1:], "then by")
            sec.blocks.append(Para(sentence(text + "; players still equal share the place"),
                                   self.at(end.pos_of("rank_by"))))
        elif end.get("score") is not None:
            sec.blocks.append(Para(sentence(f"the {better} score wins; players with the same score share the place"),
                                   self.at(end.pos_of("score"))))
        if end.get("better") is not None:
            sec.blocks.append(Para(sentence(f"the {better} score is best"), self.at(end.pos_of("better"))))
        together = end.get("together")
        if isinstance(together, dict):
            if together.get("win") is not None:
                text = f"the players win or lose together: they win if {self.s.expr(together['win'])}"
            else:
                text = f"the players win or lose together: they win if their score reaches " \
                       f"{self.s.expr(together.get('target'))}"
            sec.blocks.append(Para(sentence(text), self.at(end.pos_of("together"))))
        return sec

    def _key(self, text) -> str:
        t = str(text).strip()
        if t.startswith("-"):
            return f"{self.s.expr(t[1:])} (fewer is better)"
        return f"{self.s.expr(t)} (more is better)"

    def _all_lines(self):
        from .model import lines_of
        return list(lines_of(Document("", "", self._made, self.root)))

    def options(self) -> Section:
        sec = Section("options", "Options and variants")
        opts, vars_ = self.src_.mapping("options"), self.src_.mapping("variants")
        if not opts and not vars_:
            sec.blocks.append(Para("The game has no options and no variants."))
        if opts:
            rows = []
            for k, spec in opts.items():
                spec = spec if isinstance(spec, dict) else {}
                rows.append([cap(self.name(k)), sentence(str(spec.get("description", ""))) if spec.get("description") else "",
                             self.s.expr(spec["default"]) if spec.get("default") is not None else "–",
                             self.s.expr(spec["allowed"]) if spec.get("allowed") is not None else "any"])
            sec.blocks.append(Table("Options", ["Option", "What it does", "Unless chosen", "Allowed"], rows,
                                    [self.key_at(opts, k) for k in opts], ["option"] * len(rows)))
        if vars_:
            rows = [[cap(self.name(k)), sentence(str(spec.get("description"))) if isinstance(spec, dict)
                     and spec.get("description") else ""] for k, spec in vars_.items()]
            sec.blocks.append(Table("Variants", ["Variant", "What it changes"], rows,
                                    [self.key_at(vars_, k) for k in vars_], ["variant"] * len(rows)))
        return sec

    def visibility(self) -> Section:
        sec = Section("visibility", "What each player sees")
        lines = []
        zones = self.src_.mapping("zones")
        for z, spec in zones.items():
            if isinstance(spec, dict) and "visible" in spec:
                lines.append(Line(sentence(f"{self.name(z)}: {self._seen(spec['visible'], spec)}"),
                                  self.at(spec.pos_of("visible")), "visible"))
            elif isinstance(spec, dict) and spec.get("type") == "bag":
                lines.append(Line(sentence(f"{self.name(z)}: nobody sees what it holds, only how many"),
                                  self.key_at(zones, z), "visible"))
        variables = self.src_.mapping("variables")
        for v, spec in variables.items():
            if isinstance(spec, dict) and "visible" in spec:
                lines.append(Line(sentence(f"{self.name(v)}: {self._seen(spec['visible'], spec)}"),
                                  self.at(spec.pos_of("visible")), "visible"))
        actions = self.src_.mapping("actions")
        for a, spec in actions.items():
            if isinstance(spec, dict) and spec.get("secret") is not None and spec.get("secret") is not False:
                what = ("only that it was chosen" if spec["secret"] is True else
                        "everything but " + self.s.join([self.name(x) for x in spec["secret"]]))
                lines.append(Line(sentence(f"when a player chooses to {self.name(a)}, the others learn {what}"),
                                  self.at(spec.pos_of("secret")), "secret"))
        sec.blocks.append(Para("Everything on the table is seen by everyone, except:"))
        sec.blocks.append(Rules(lines, ordered=False) if lines else Para("nothing: the game has no hidden information."))
        return sec

    def terms(self) -> Section:
        """The rulebook's functions: the terms the rules above use, each in its own words or read out."""
        sec = Section("terms", "Terms used in the rules")
        funcs = self.src_.mapping("functions")
        rows, srcs = [], []
        for f, spec in funcs.items():
            if not isinstance(spec, dict):
                continue
            params = spec.get("params")
            names = [self.name(p) for p in params] if isinstance(params, dict) else []
            term = self.name(f)
            if "…" in term:                  # words with a place for the arguments
                term = term.replace("…", ", ".join(names), 1)
            elif names:
                term += " (" + ", ".join(names) + ")"
            desc = spec.get("description")
            meaning = sentence(desc) if isinstance(desc, str) else sentence(self.s.expr(spec.get("value", "")))
            rows.append([cap(term), meaning])
            srcs.append(self.key_at(funcs, f))
        kinds = ["function"] * len(rows)
        consts = self.src_.mapping("constants")
        for c, value in consts.items():
            if isinstance(value, (int, bool)):
                continue                    # a plain number reads as itself wherever it is used
            rows.append([cap(self.name(c)), sentence(self._value(value))])
            srcs.append(self.key_at(consts, c))
            kinds.append("constant")
        if rows:
            sec.blocks.append(Table("Terms", ["Term", "Meaning"], rows, srcs, kinds))
        else:
            sec.blocks.append(Para("The rules use no terms of their own."))
        return sec

    def _value(self, value) -> str:
        """A constant as written: ``{expr: …}`` read out, lists and records in the rulebook's names."""
        if isinstance(value, dict) and set(value) == {"expr"}:
            return self.s.expr(value["expr"])
        if isinstance(value, dict):
            return "; ".join(f"{self.name(k) if isinstance(k, str) else k}: {self._value(v)}" for k, v in value.items())
        if isinstance(value, list):
            return "none" if not value else ", ".join(self._value(v) for v in value)
        if isinstance(value, str):
            return self.name(value)
        return "yes" if value is True else "no" if value is False else str(value)

    def _seen(self, visible, spec) -> str:
        if visible is True:
            return "everyone sees what it holds"
        if visible is False:
            return "nobody sees what it holds, only how many"
        text = str(visible).replace(" ", "")
        index = spec.get("index") if isinstance(spec.get("index"), dict) else {}
        for i in index:
            if text in (f"viewer=={i}", f"{i}==viewer"):
                return "only its owner sees what it holds; the others see how many"
        return f"seen by a player (the viewer) only if {self.s.expr(visible)}"
