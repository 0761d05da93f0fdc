"""Scenarios: executable examples of a rulebook (``rules/<game>/scenarios``).

A scenario names a player count and a seed, may set up an arbitrary
starting position in the rulebook's own names (zones, variables, the phase
to start at, the next random draws), plays decisions by action id, and
checks expectations written as expressions of the rulebook's language.
The format is described in ``docs/scenarios.md``; its schema is
``schemas/scenario.schema.json``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from dsl import schema
from dsl.diagnostics import Diagnostic, Pos, Report, RuleRuntimeError
from dsl.parser import ParseError, parse_expression
from dsl.yamlload import LDict, LList, load_yaml_file, located_str

from ..game import types as T
from ..game import Cx, Scope, compile_expr
from ..game import Rulebook
from ..game import GameSetupError
from ..game import Procedure
from ..game import Frame, IllegalAction
from ..game import instruction, rule_error
from ..game import StepCompiler
from ..game import Zone, format_value, plain


@dataclass
class ScenarioResult:
    file: str
    name: str
    ok: bool
    messages: list = field(default_factory=list)  # Diagnostic
    #: why the scenario did not run (its rulebook does not compile), or ""
    note: str = ""

    def line(self) -> str:
        status = "PASS" if self.ok else "FAIL"
        return f"{status} {self.name} ({self.file})" + (f": {self.note}" if self.note else "")


class ScenarioFailure(Exception):
    def __init__(self, pos: Pos, message: str):
        super().__init__(message)
        self.pos = pos
        self.message = message


def find_scenarios(paths) -> list[tuple[Path, Path]]:
    """(rulebook folder, scenario file) for every scenario under ``paths``."""
    found = []
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            rulebook = path.parent.parent if path.parent.name == "scenarios" else path.parent
            found.append((rulebook, path))
        elif (path / "game.yaml").is_file():
            found.extend((path, f) for f in sorted((path / "scenarios").glob("*.yaml")))
        elif path.is_dir():
            for sub in sorted(p for p in path.iterdir() if (p / "game.yaml").is_file()):
                found.extend((sub, f) for f in sorted((sub / "scenarios").glob("*.yaml")))
        else:
            raise FileNotFoundError(f"{raw}: no such file or folder")
    return found


class _Adapter:
    """What StepCompiler needs of a compiler, for compiling scenario edits."""

    def __init__(self, game, report: Report):
        self.game = game
        self.report = report
        self.procedures = {}
        self.deferrals = []
        # what StepCompiler records of a `set` for the compiler's whole-rulebook checks (RW260,
        # secret choices kept): the rulebook was checked already, so a scenario's edits are recorded
        # here and not checked again (tests/test_scenarios.py keeps this list complete)
        self.drawn_into: set = set()
        self.compound_sets: list = []
        self.param_sets: list = []

    def parse(self, value, pos):
        try:
            return parse_expression(value, getattr(value, "pos", pos))
        except ParseError as exc:
            self.report.error(exc.pos, exc.message, "RW100")
            return None

    def compile_function(self, *args, **kwargs):
        return None


def _yaml_plain(value):
    if isinstance(value, list):
        return [_yaml_plain(v) for v in value]
    if isinstance(value, dict):
        return {_yaml_plain(k): _yaml_plain(v) for k, v in value.items()}
    if isinstance(value, str):
        return str(value)
    return value


class ScenarioRunner:
    def __init__(self, rulebook: Rulebook, file: Path):
        self.rb = rulebook
        self.game = rulebook.game
        self.file = file
        self.shown = str(file)
        self.report = Report()
        #: warnings: `start` options that have no effect (RW301)
        self.warnings: list = []

    # compile an expression of the rulebook's language, located in the scenario
    def compile(self, text, pos: Pos):
        try:
            node = parse_expression(text, getattr(text, "pos", pos))
        except ParseError as exc:
            raise ScenarioFailure(exc.pos, exc.message) from None
        report = Report()
        scope = Scope([("player", T.PLAYER)])
        fn, _ = compile_expr(node, Cx(self.game, report, scope, False, {}, None))
        if report.has_errors:
            d = report.sorted()[0]
            raise ScenarioFailure(d.pos, d.message)
        size = max(scope.nslots, 1)

        def evaluate(st, L):
            frame = [None] * size
            frame[0] = L[0] if L else None
            return fn(st, frame)
        return evaluate

    def run(self) -> ScenarioResult:
        report = Report(version=self.rb.report.version)     # the rulebook's language version decides
        data = load_yaml_file(self.file, report, self.shown)
        if data is not None:
            report.extend(schema.check(data, "scenario", self.shown))
        name = str(data.get("scenario", self.file.stem)) if isinstance(data, dict) else self.file.stem
        if report.has_errors or data is None:
            return ScenarioResult(self.shown, name, False, report.sorted())
        unknown = unknown_action_ids(self.game, data)
        if unknown:
            return ScenarioResult(self.shown, name, False, unknown)
        try:
            self._run(data)
        except ScenarioFailure as exc:
            return ScenarioResult(self.shown, name, False, [Diagnostic(exc.pos, exc.message, "error", "RW300")])
        except RuleRuntimeError as exc:
            return ScenarioResult(self.shown, name, False, [exc.diagnostic()])
        return ScenarioResult(self.shown, name, True, list(self.warnings))

    def _run(self, data: LDict):
        start = data.get("start")
        players = data["players"]
        if "refused" in data:
            self._refused(data)
            return
        try:
            if isinstance(start, dict):
                state = self.rb.new_game(players, data.get("seed", 0), data.get("options") or {},
                                         data.get("variants") or [], start=lambda st: self._start(st, start))
            else:
                state = self.rb.new_game(players, data.get("seed", 0), data.get("options") or {},
                                         data.get("variants") or [])
        except GameSetupError as exc:
            raise ScenarioFailure(data.pos_of("players"), str(exc)) from None
        steps = data.get("steps") or []
        for i, step in enumerate(steps):
            self._step(state, step, steps.pos_of(i))
        if "expect" in data:
            self._expect(state, data["expect"], data.pos_of("expect"))
        if "sees" in data:
            self._sees(state, data["sees"], data.pos_of("sees"))
        if "knows" in data:
            self._knows(state, data["knows"], data.pos_of("knows"))

    def _refused(self, data: LDict):
        """``refused: TEXT``: setting the game up must fail with a message containing TEXT
        (a player count, variant or option value the rulebook does not allow)."""
        pos = data.pos_of("refused")
        for key in ("start", "steps", "expect", "sees", "knows"):
            if data.get(key):
                raise ScenarioFailure(data.pos_of(key), f"a scenario with 'refused' sets no game up: '{key}' has nothing to run on")
        try:
            self.rb.new_game(data["players"], data.get("seed", 0), data.get("options") or {},
                             data.get("variants") or [])
        except GameSetupError as exc:
            if str(data["refused"]) not in str(exc):
                raise ScenarioFailure(pos, f"setup refused the game, but with: {exc}") from None
            return
        raise ScenarioFailure(pos, "the game was set up, but it should have been refused")

    # --- the starting position -------------------------------------------------
    def _start(self, st, start: LDict):
        if "zones" in start:
            self._set_zones(st, start["zones"])
        if "lay" in start:
            self._lay_pieces(st, start["lay"])
        if "set" in start:
            self._set_vars(st, start["set"])
        st.forced = [str(x) for x in start.get("draws") or []]
        local_values = dict(start.get("locals") or {})
        if "player" in start:
            local_values["player"] = start["player"]
        self._unused_start_options(start)
        return start.get("at"), local_values

    def _unused_start_options(self, start: LDict) -> None:
        """Warn (RW301) about `start` options that change nothing: a local the
        flow does not have, or a `player` with no `turns` loop around `at:`
        to position (a turns loop inside the phase starts from its own seat)."""
        flow = self.game.flow
        names = flow.slot_names if flow is not None else []
        spot = start.get("locals") if start.get("at") is not None else None   # without at: an error
        for name in (spot or {}):
            if name not in names:
                self.warnings.append(Diagnostic(spot.pos_of(name) if hasattr(spot, "pos_of") else start.pos,
                                                f"the flow has no local '{name}': setting it has no effect",
                                                "warning", "RW301"))
        at = start.get("at")
        label = flow.labels.get(at) if (flow is not None and at is not None) else None
        if "player" in start and label is not None:
            if not any(getattr(info, "kind", None) == "turns" for info in label.enclosing):
                self.warnings.append(Diagnostic(
                    start.pos_of("player"),
                    f"no turns loop encloses '{at}', so 'player' positions none (a turns loop inside "
                    f"the phase starts from its own first seat)", "warning", "RW301"))

    def _zone_targets(self, st, key: str, pos: Pos) -> list:
        m = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*(?:\[(.*)\])?\s*", key)
        if not m:
            raise ScenarioFailure(pos, f"'{key}' is not a zone")
        fam_name, args = m.group(1), m.group(2)
        if fam_name not in self.game.zones:
            known = sorted(self.game.zones)
            from ..game import suggest
            raise ScenarioFailure(pos, f"unknown zone '{fam_name}'{suggest(fam_name, known)}")
        fam = self.game.zones[fam_name]
        if args is None or "*" not in args:
            fn = self.compile(located_str(key, pos), pos)
            zone = fn(st, [None])
            if not isinstance(zone, Zone):
                raise ScenarioFailure(pos, f"'{key}' is not a zone")
            return [zone]
        parts = [a.strip() for a in args.split(",")]
        if len(parts) != len(fam.index):
            raise ScenarioFailure(pos, f"zone family '{fam_name}' takes {len(fam.index)} index value(s)")
        wanted = []
        for part in parts:
            wanted.append(None if part == "*" else self.compile(located_str(part, pos), pos)(st, [None]))
        return [z for z in st.lay.zfam[fam.id].values()
                if all(w is None or w == v for w, v in zip(wanted, z.index_values))]

    def _set_zones(self, st, zones: LDict):
        lay = st.lay
        targets = []
        for key, spec in zones.items():
            kpos = zones.key_pos.get(key, zones.pos)
            labels = []
            if isinstance(spec, dict):
                for label, n in spec.items():
                    have = len(lay.by_label.get(str(label), ()))
                    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= have:
                        where = spec.pos_of(label) if hasattr(spec, "pos_of") else kpos
                        raise ScenarioFailure(where, f"{key} asks for {n} × '{label}'; the game has {have}")
                    labels.extend([str(label)] * n)
            else:
                labels = [str(x) for x in spec]
            for zone in self._zone_targets(st, str(key), kpos):
                if labels and zone.id in lay.grids:
                    raise ScenarioFailure(kpos, f"{zone.name} is a grid: lay its pieces with start: lay: "
                                                f"(the cells each covers)")
                targets.append((zone, labels, kpos))
        listed = {z.id for z, _, _ in targets}
        box = lay.box
        staged = []
        for zone, _, _ in targets:
            for c in list(st.z[zone.id]):
                staged.append(c)
                self._put(st, c, box)
        taken: dict = {}                    # unlisted zone id -> (how many were taken from it, first key)
        for zone, labels, kpos in targets:
            for label in labels:
                comp = self._find(st, label, listed, box)
                if comp is not None and st.where[comp.id] not in listed and st.where[comp.id] != box.id:
                    n, first = taken.get(st.where[comp.id], (0, kpos))
                    taken[st.where[comp.id]] = (n + 1, first)
                if comp is None:
                    raise ScenarioFailure(kpos, f"no component '{label}' is left for {zone.name}"
                                                f"{' (labels: ' + ', '.join(sorted(lay.by_label)[:12]) + ')' if label not in lay.by_label else ''}")
                if zone.capacity is not None and len(st.z[zone.id]) >= zone.capacity:
                    raise ScenarioFailure(kpos, f"{zone.name} holds at most {zone.capacity}")
                if zone.holds and comp.kind not in zone.holds:
                    raise ScenarioFailure(kpos, f"{zone.name} cannot hold {comp.kind}")
                self._put(st, comp, zone)
        for c in staged:  # what the edit displaced goes home (unless home was edited)
            if st.where[c.id] == box.id:
                home = lay.homes[c.id]
                if home.id not in listed:
                    self._put(st, c, home)
        for zid, (n, kpos) in taken.items():     # a zone it emptied without listing it: say so (RW302)
            if st.z[zid]:
                continue                    # (taking from a supply that still holds some is the usual start)
            zone = lay.zones[zid]
            self.warnings.append(Diagnostic(
                kpos, f"start: zones took every component of {zone.name} ({n}), which it does not list: "
                      f"{zone.name} is empty now; list it under zones: ({zone.name}: []) to say so, or take "
                      f"the components from elsewhere", "warning", "RW302"))

    def _lay_pieces(self, st, lay_spec: LDict):
        """``start: lay:`` — pieces laid on grid zones: ``"board[0]": {d17: "[(1, 2), (0, 2)]"}``, the
        cells each covers (cell i for its part i), taken like ``zones:`` takes components."""
        lay = st.lay
        for key, spec in lay_spec.items():
            kpos = lay_spec.key_pos.get(key, lay_spec.pos)
            if not isinstance(spec, dict):
                raise ScenarioFailure(kpos, f"{key}: map each piece's label to the cells it covers")
            for zone in self._zone_targets(st, str(key), kpos):
                if zone.id not in lay.grids:
                    raise ScenarioFailure(kpos, f"{zone.name} is not a grid (a zone with cells:)")
                for label, cells in spec.items():
                    lpos = spec.pos_of(label) if hasattr(spec, "pos_of") else kpos
                    comp = self._find(st, str(label), {zone.id}, lay.box)
                    if comp is None:
                        raise ScenarioFailure(lpos, f"no component '{label}' is left for {zone.name}")
                    if not isinstance(cells, str):
                        raise ScenarioFailure(lpos, f"{label}: write its cells as an expression, "
                                                    f"\"[(1, 2), (0, 2)]\"")
                    value = self.compile(located_str(cells, lpos), lpos)(st, [None])
                    try:
                        st.cover(comp, zone, value, lpos, events=False)
                    except RuleRuntimeError as exc:
                        raise ScenarioFailure(lpos, exc.message) from None

    @staticmethod
    def _put(st, comp, zone):
        if st.lay.grids:
            st.free_cells(comp)
        st.forget((st.where[comp.id], zone.id))
        st.z[st.where[comp.id]].remove(comp)
        st.z[zone.id].append(comp)
        st.where[comp.id] = zone.id

    @staticmethod
    def _find(st, label, listed, box):
        candidates = st.lay.by_label.get(label, [])
        for c in candidates:
            if st.where[c.id] == box.id:
                return c
        for c in candidates:
            if st.where[c.id] == st.lay.homes[c.id].id and st.where[c.id] not in listed:
                return c
        for c in candidates:
            if st.where[c.id] not in listed:
                return c
        return None

    def _set_vars(self, st, values: LDict):
        report = Report()
        adapter = _Adapter(self.game, report)
        proc = Procedure("scenario-set", values.pos)
        scope = Scope([("player", T.PLAYER)])
        sc = StepCompiler(adapter, proc, scope)
        for key, value in values.items():
            kpos = values.key_pos.get(key, values.pos)
            sc._assign(located_str(f"{key} = {format_value(value)}", kpos), kpos, declare=False)
        if report.has_errors:
            d = report.sorted()[0]
            raise ScenarioFailure(d.pos, d.message)
        proc.live = self.game.live
        frame = Frame(proc, [None] * max(scope.nslots, 1))
        for pc in range(len(proc.ops)):
            try:
                instruction(proc, pc)(st, frame)
            except RuleRuntimeError:
                raise
            except Exception as exc:  # noqa: BLE001 - a failing edit (no such index): a located rule error
                raise rule_error(exc, proc, pc) from None

    # --- steps ------------------------------------------------------------------------
    def _step(self, st, step: LDict, pos: Pos):
        if any(key in step for key in _ID_STEPS):
            self._within_space(st, step)
        if "play" in step:
            action = str(step["play"])
            try:
                st.apply_action(action)
            except IllegalAction as exc:
                legal = st.legal_actions()
                shown = ", ".join(legal[:12]) + (f", … ({len(legal)} in all)" if len(legal) > 12 else "")
                raise ScenarioFailure(step.pos_of("play"), f"{exc}; legal: {shown or 'none'}") from None
        if "reject" in step:
            action = str(step["reject"])
            if action in st.legal_actions():
                raise ScenarioFailure(step.pos_of("reject"), f"'{action}' should be illegal here, but it is legal")
            probe = st.clone()
            try:
                probe.apply_action(action)
            except IllegalAction:
                pass
            else:
                raise ScenarioFailure(step.pos_of("reject"), f"'{action}' was accepted")
        if "legal" in step:
            want = sorted(str(x) for x in step["legal"])
            got = sorted(st.legal_actions())
            if want != got:
                missing = [a for a in want if a not in got]
                extra = [a for a in got if a not in want]
                raise ScenarioFailure(step.pos_of("legal"), f"legal actions differ: missing {missing or 'none'}, "
                                                            f"unexpected {extra[:10] or 'none'}")
        if "legal_includes" in step:
            got = set(st.legal_actions())
            missing = [str(a) for a in step["legal_includes"] if a not in got]
            if missing:
                raise ScenarioFailure(step.pos_of("legal_includes"), f"not legal: {', '.join(missing)}")
        if "legal_excludes" in step:
            got = set(st.legal_actions())
            present = [str(a) for a in step["legal_excludes"] if a in got]
            if present:
                raise ScenarioFailure(step.pos_of("legal_excludes"), f"legal but should not be: {', '.join(present)}")
        if "current" in step:
            if st.current_player() != step["current"]:
                raise ScenarioFailure(step.pos_of("current"),
                                      f"seat {step['current']} should decide, but it is {st.current_player()}")
        if "draws" in step:
            st.forced = [str(x) for x in step["draws"]]
        if "expect" in step:
            self._expect(st, step["expect"], step.pos_of("expect"))
        if "sees" in step:
            self._sees(st, step["sees"], step.pos_of("sees"))
        if "knows" in step:
            self._knows(st, step["knows"], step.pos_of("knows"))

    # --- what a seat sees and knows ---------------------------------------------------
    def _seats(self, st, spec, pos: Pos, what: str):
        """(seats, their entries, position) for each key of a ``sees:``/``knows:`` mapping:
        a seat number, or ``each`` (every seat)."""
        if not isinstance(spec, dict):
            raise ScenarioFailure(pos, f"{what}: map a seat (0, 1, … or 'each') to what it {what}")
        out = []
        for key, entries in spec.items():
            kpos = spec.key_pos.get(key, pos) if hasattr(spec, "key_pos") else pos
            if key == "each":
                seats = list(st.lay.seats)
            elif isinstance(key, int) and not isinstance(key, bool) and 0 <= key < st.lay.num_seats:
                seats = [key]
            else:
                raise ScenarioFailure(kpos, f"{what}: '{key}' is not a seat of this game (0 to "
                                            f"{st.lay.num_seats - 1}, or 'each')")
            if not isinstance(entries, dict) or not entries:
                raise ScenarioFailure(kpos, f"{what}: seat {key}: map a zone or variable to what it {what} there")
            out.append((seats, entries, kpos))
        return out

    def _sees(self, st, spec, pos: Pos):
        """``sees: {SEAT: {ZONE: value}}`` — what the seat is shown of each zone (its
        observation): a list, exactly these labels (sorted, as ``labels()``); a number, only a
        count, and that count; ``hidden``, only a count; ``shown``, the contents."""
        for seats, entries, _ in self._seats(st, spec, pos, "sees"):
            for key, want in entries.items():
                kpos = entries.key_pos.get(key, pos) if hasattr(entries, "key_pos") else pos
                want = _yaml_plain(want)
                if not (want in ("hidden", "shown") or isinstance(want, list)
                        or (isinstance(want, int) and not isinstance(want, bool) and want >= 0)):
                    raise ScenarioFailure(kpos, f"sees: {key}: write a list of labels, a count, "
                                                f"'hidden' (only a count) or 'shown' (the contents), not {want!r}")
                zones = self._zone_targets(st, str(key), kpos)
                if not zones:
                    raise ScenarioFailure(kpos, f"sees: '{key}' names no zone of this game")
                for seat in seats:
                    seen = st.observation(seat)["zones"]
                    for zone in zones:
                        got = seen[zone.name]
                        counted = isinstance(got, dict)
                        where = f"seat {seat}, {zone.name}"
                        if want == "hidden" and not counted:
                            raise ScenarioFailure(kpos, f"{where}: expected only a count, but it sees "
                                                        f"{format_value(sorted(got))}")
                        if want == "shown" and counted:
                            raise ScenarioFailure(kpos, f"{where}: expected the contents, but it sees "
                                                        f"only a count ({got['count']})")
                        if isinstance(want, list):
                            if counted:
                                raise ScenarioFailure(kpos, f"{where}: expected {format_value(sorted(map(str, want)))}, "
                                                            f"but it sees only a count ({got['count']})")
                            if sorted(map(str, want)) != sorted(got):
                                raise ScenarioFailure(kpos, f"{where}: expected {format_value(sorted(map(str, want)))}, "
                                                            f"it sees {format_value(sorted(got))}")
                        if isinstance(want, int) and not isinstance(want, bool):
                            if not counted:
                                raise ScenarioFailure(kpos, f"{where}: expected only a count ({want}), but it sees "
                                                            f"{format_value(sorted(got))}")
                            if got["count"] != want:
                                raise ScenarioFailure(kpos, f"{where}: expected a count of {want}, "
                                                            f"it sees {got['count']}")

    def _knows(self, st, spec, pos: Pos):
        """``knows: {SEAT: {VARIABLE: value, facts: [...]}}`` — a variable (or an element,
        ``"secret[1]"``) the seat is shown, with its value, or ``hidden`` when it is not
        shown; ``facts``, exactly what `tell` told it about components it cannot see now,
        each as ``"ZONE POSITION: FACT"`` written as what is true (``"hand[1] 2: color == blue"``,
        ``"hand[1] 1: color != blue"``; position 1 = bottom);
        ``decisions``, every decision since the start as the seat is told it, in order, each as
        ``"SEAT: ACTION ID"`` (another seat's secret parameters as ``…``: ``"0: choose(…)"``)."""
        for seats, entries, _ in self._seats(st, spec, pos, "knows"):
            for key, want in entries.items():
                kpos = entries.key_pos.get(key, pos) if hasattr(entries, "key_pos") else pos
                want = _yaml_plain(want)
                if key == "facts":
                    if not isinstance(want, list):
                        raise ScenarioFailure(kpos, "knows: facts: a list of \"ZONE POSITION: FACT\"")
                    for seat in seats:
                        told = st.observation(seat).get("facts", [])
                        got = sorted(f"{zone} {at}: {_as_true(fact, holds)}" for zone, at, fact, holds in told)
                        if sorted(map(str, want)) != got:
                            raise ScenarioFailure(kpos, f"seat {seat} knows facts {got or 'none'}, expected "
                                                        f"{sorted(map(str, want)) or 'none'}")
                    continue
                if key == "decisions":
                    if not isinstance(want, list):
                        raise ScenarioFailure(kpos, "knows: decisions: a list of \"SEAT: ACTION ID\", as the seat is told them")
                    for seat in seats:
                        got = [f"{who}: {action}" for who, action in st.observation(seat)["history"]]
                        if [str(x) for x in want] != got:
                            raise ScenarioFailure(kpos, f"seat {seat} is told the decisions {got or 'none'}, expected "
                                                        f"{[str(x) for x in want] or 'none'}")
                    continue
                name, index = self._variable_key(st, str(key), kpos)
                for seat in seats:
                    shown = st.observation(seat)["variables"]
                    if index is None:
                        present, got = name in shown, shown.get(name)
                    else:
                        row = shown.get(name) or {}
                        present, got = index in row, row.get(index)
                    if want == "hidden":
                        if present:
                            raise ScenarioFailure(kpos, f"seat {seat} is shown {key} ({format_value(got)}), "
                                                        f"expected it hidden")
                        continue
                    if not present:
                        raise ScenarioFailure(kpos, f"seat {seat} is not shown {key}")
                    if got != _yaml_plain(_shown_value(want)):
                        raise ScenarioFailure(kpos, f"seat {seat} is shown {key} = {format_value(got)}, "
                                                    f"expected {format_value(want)}")

    def _variable_key(self, st, key: str, pos: Pos):
        """(variable name, its element as the observation names it, or None) for ``key``."""
        m = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*(?:\[(.*)\])?\s*", key)
        if not m:
            raise ScenarioFailure(pos, f"knows: '{key}' is not a variable")
        name, args = m.group(1), m.group(2)
        var = next((v for v in list(self.game.scalar_vars) + list(self.game.family_vars) if v.name == name), None)
        if var is None:
            from ..game import suggest
            names = sorted(v.name for v in list(self.game.scalar_vars) + list(self.game.family_vars))
            raise ScenarioFailure(pos, f"knows: unknown variable '{name}'{suggest(name, names)}")
        indexed = var in self.game.family_vars
        if indexed != (args is not None):
            raise ScenarioFailure(pos, f"knows: '{name}' {'takes an index' if indexed else 'takes no index'}")
        if args is None:
            return name, None
        values = [self.compile(located_str(a.strip(), pos), pos)(st, [None]) for a in _split_params(args)]
        return name, format_value(values[0] if len(values) == 1 else tuple(values))

    def _within_space(self, st, step: LDict):
        """Every legal action is an id of the layout's fixed action space (as `regelwerk check`
        requires, RW906): a parameter's ``bounds`` too narrow fails the scenario that meets it."""
        if st.pending is None:
            return
        from ..game import space_of
        space = space_of(self.game, st.lay)
        unbounded = {id(u[0]) for u in space.unbounded}
        outside = [a for a in st.legal_actions() if a not in space.index
                   and id(st.pending.by_id[a].action) not in unbounded]
        if outside:
            key = next(k for k in _ID_STEPS if k in step)
            raise ScenarioFailure(step.pos_of(key), f"legal action '{outside[0]}' is not in the fixed action "
                                                    f"space: a parameter's bounds are too narrow (RW906)")

    def _expect(self, st, expect: LDict, pos: Pos):
        for key, want in expect.items():
            kpos = expect.key_pos.get(key, pos)
            want = _yaml_plain(want)
            if key == "terminal":
                got = st.is_terminal()
            elif key == "scores":
                got = st.scores()
            elif key == "ranking":
                got = st.ranking()
            elif key == "winners":
                got = st.winners()
            elif key == "current":
                got = st.current_player()
            elif key == "score_parts":
                got = st.score_parts()
                if not isinstance(want, list) or len(want) != len(got) or not all(isinstance(w, dict) for w in want):
                    raise ScenarioFailure(kpos, f"score_parts: one mapping of part to points per seat "
                                                f"({len(got)} seats), as the game-over breakdown lists them")
                for seat, (w, g) in enumerate(zip(want, got)):
                    unknown = [k for k in w if k not in g]
                    if unknown:
                        raise ScenarioFailure(kpos, f"score_parts: seat {seat}: the rulebook has no score part "
                                                    f"'{unknown[0]}' (its parts: {', '.join(g) or 'none'})")
                    name = next((k for k in w if w[k] != g[k]), None)    # the parts listed (all or some)
                    if name is not None:
                        raise ScenarioFailure(kpos, f"score_parts: seat {seat}: {name}: expected "
                                                    f"{format_value(w[name])}, got {format_value(g[name])}")
                continue
            elif key == "log":
                lines = [str(x) for x in (want if isinstance(want, list) else [want])]
                missing = [x for x in lines if not any(x in line for line in st.log)]
                if missing:
                    raise ScenarioFailure(kpos, f"no log line contains {missing[0]!r}")
                continue
            else:
                fn = self.compile(located_str(str(key), kpos), kpos)
                got = plain(fn(st, [st.current_player()]))
            if got != want:
                shown_want, shown_got = format_value(_tuple(want)), format_value(_tuple(got))
                if shown_want == shown_got:   # 1 and '1' print alike: say which is text
                    shown_want, shown_got = _typed(want), _typed(got)
                raise ScenarioFailure(kpos, f"{key}: expected {shown_want}, got {shown_got}")


def _as_true(fact: str, holds: bool) -> str:
    """A told fact as what is true: ``color == red`` told false is ``color != red``."""
    if holds:
        return fact
    return fact.replace(" == ", " != ", 1) if " == " in fact else fact.replace(" != ", " == ", 1)


def _shown_value(value):
    """A value as an observation shows it (JSON: keys as text)."""
    if isinstance(value, dict):
        return {str(k): _shown_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shown_value(v) for v in value]
    return value


#: the steps whose values are action ids (a misspelt one in ``reject:`` or
#: ``legal_excludes:`` would pass silently: each is checked before the scenario runs)
_ID_STEPS = ("play", "reject", "legal", "legal_includes", "legal_excludes")


def unknown_action_ids(game, data) -> list:
    """An RW320 error, located at the id, for every action id of the scenario's steps
    whose action the rulebook does not have, or whose parameters are not the action's
    (names, in order).  Checked before the scenario runs, so a misspelt ``reject:`` fails."""
    actions = {a.name: [p.name for p in a.params]
               for a in list(game.actions.values()) + list(game.inline_actions.values())}
    out = []
    steps = data.get("steps") if isinstance(data, dict) else None
    for step in steps if isinstance(steps, list) else []:
        if not isinstance(step, dict):
            continue
        for key in _ID_STEPS:
            if key not in step:
                continue
            value = step[key]
            items = value if isinstance(value, list) else [value]
            for i, item in enumerate(items):
                where = (value.pos_of(i) if isinstance(value, list) and hasattr(value, "pos_of")
                         else step.pos_of(key))
                problem = _id_problem(actions, str(item))
                if problem:
                    out.append(Diagnostic(where, f"{key}: {problem}", "error", "RW320"))
    return out


def _id_problem(actions: dict, action_id: str) -> str | None:
    """Why ``action_id`` can never be an id of the rulebook's actions, or None."""
    from ..game import suggest
    m = re.fullmatch(r"([^()\s]+)(?:\((.*)\))?", action_id.strip(), re.S)
    if not m:
        return f"'{action_id}' is not an action id (name or name(param=value,…))"
    name, body = m.group(1), m.group(2)
    if name not in actions:
        return f"'{action_id}': unknown action '{name}'{suggest(name, sorted(actions))}"
    params = actions[name]
    given = [part.split("=", 1)[0].strip() for part in _split_params(body)] if body else []
    if given != params:
        unknown = [g for g in given if g not in params]
        if unknown:
            return (f"'{action_id}': action '{name}' has no parameter '{unknown[0]}'"
                    f"{suggest(unknown[0], params)} (its parameters: {', '.join(params) or 'none'})")
        want = f"{name}({','.join(p + '=…' for p in params)})" if params else name
        return f"'{action_id}' does not name the parameters of '{name}' as its ids do: {want}"
    return None


def _split_params(body: str) -> list:
    """``p=1,q=[1, 2]`` split at the top-level commas."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    parts.append(body[start:])
    return parts


def _typed(v) -> str:
    """A value written so that texts show their quotes (labels are texts: '1', not 1)."""
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_typed(x) for x in v) + "]"
    if isinstance(v, str):
        return repr(v)
    return format_value(v)


def _tuple(v):
    if isinstance(v, list):
        return [_tuple(x) for x in v]
    return v


def check_scenario(game, file: Path, shown: str | None = None) -> list:
    """What ``regelwerk validate`` finds in a scenario without running it: its YAML, its
    schema and (when the rulebook compiled, ``game`` not None) its action ids (RW320)."""
    report = Report()
    data = load_yaml_file(file, report, shown or str(file))
    if data is not None:
        report.extend(schema.check(data, "scenario", shown or str(file)))
    if data is not None and game is not None and not report.has_errors:
        report.extend(unknown_action_ids(game, data))
    return report.sorted()


def is_scenario_file(path: Path) -> bool:
    """Whether ``path`` is a scenario (a YAML file in a ``scenarios`` folder of a rulebook)."""
    return (path.is_file() and path.suffix in (".yaml", ".yml") and path.parent.name == "scenarios"
            and (path.parent.parent / "game.yaml").is_file())


def _outside_problem(rulebook_dir: Path, file: Path) -> str | None:
    """Why a scenario file may not be read (it leads out of its rulebook folder), or None."""
    try:
        if not file.resolve().is_relative_to(rulebook_dir.resolve()):
            return "this scenario leads out of its rulebook folder (a link?); it is not read"
    except (OSError, RuntimeError) as exc:  # a link loop
        return f"this scenario cannot be read: {exc}"
    return None


def run_scenarios(paths) -> list[ScenarioResult]:
    return list(iter_scenarios(find_scenarios(paths)))


def iter_scenarios(found: list):
    """Run the scenarios ``find_scenarios`` found, yielding each result as it is known."""
    books: dict = {}
    told: set = set()
    for rulebook_dir, file in found:
        outside = _outside_problem(rulebook_dir, file)
        if outside:
            yield ScenarioResult(str(file), file.stem, False, [Diagnostic(Pos(str(file)), outside, code="RW005", quote=False)])
            continue
        key = rulebook_dir.resolve()
        if key not in books:
            try:
                books[key] = Rulebook.load(rulebook_dir)
            except Exception as exc:  # noqa: BLE001 - reported as a failure of every scenario
                books[key] = exc
        rb = books[key]
        if isinstance(rb, Exception):
            # the rulebook's errors once, with its first scenario; the others only say why they did not run
            if key in told:
                yield ScenarioResult(str(file), file.stem, False, [], note=f"not run: {rulebook_dir} has errors (above)")
                continue
            told.add(key)
            diags = getattr(rb, "diagnostics", None) or [Diagnostic(Pos(str(rulebook_dir)), str(rb))]
            yield ScenarioResult(str(file), file.stem, False, list(diags),
                                 note=f"not run: {rulebook_dir} has errors")
            continue
        yield ScenarioRunner(rb, file).run()


__all__ = ["run_scenarios", "iter_scenarios", "find_scenarios", "ScenarioResult", "LList", "check_scenario",
           "is_scenario_file", "unknown_action_ids"]
