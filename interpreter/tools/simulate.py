"""Simulation checks: play many seeded random games and report what breaks.

``regelwerk check RULEBOOK --games N`` plays N games for every player count
with random bots and reports, each with the seed and the decisions that
reproduce it (written as a replay file, see ``regelwerk replay``):

======  ================================================================
RW901   the game does not end within the bound on decisions
RW902   a seat must decide but no action is legal (and no ``otherwise``)
RW903   an invariant declared by the rulebook is broken
RW904   the engine's own invariants broken: a component in two zones or in
        none, a capacity exceeded, a zone holding a kind it may not hold
RW905   an error inside the rules (an expression that fails, a full zone…)
RW906   a legal action id outside the layout's fixed action space
        (``Rulebook.action_space``: a parameter's ``bounds`` are too narrow)
RW907   (a warning) a game played by a simple policy — always the lowest-numbered
        legal action, always the highest, or random — runs past the layout's
        decision bound (``max_decisions``, else 1000 per seat), where the AI
        environments truncate it: a learner whose policy collapses there never
        sees the game end (:func:`policy_findings`)
RW920   a text shown to a seat — a line of the log, its legal actions, another seat's decision as
        told — differs between worlds the seat cannot otherwise tell apart: it tells the seat
        something it cannot see (engine/knowledge/leaks.py); a warning (a rulebook that means to
        tell it says so: ``tell:``)
RW921   ``resample`` finds no world consistent with what the seat saw
RW922   ``resample`` cannot replay the state from its seed and decisions
RW923   ``resample`` changes what the seat observes (a resample that cheats)
======  ================================================================

Findings are located at the rulebook line that caused them.  Games run in
several processes (``--jobs``); the result does not depend on how many.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from dsl.diagnostics import Pos, RuleRuntimeError

from ..ai.bots import make_bots
from ..game import space_of
from ..game import resample_problem, shown_leaks


#: what the seats are shown is compared between sampled worlds (RW920) at every this-many-th watch
#: point (each comparison replays worlds; a leak shows again and again, once is enough to report it)
LEAK_EVERY = 4


@dataclass
class Finding:
    code: str
    message: str
    file: str
    line: int
    col: int
    players: int
    seed: int
    variants: list
    options: dict
    decisions: list = field(default_factory=list)
    replay: str | None = None
    severity: str = "error"

    @property
    def pos(self) -> Pos:
        return Pos(self.file, self.line, self.col)

    def key(self):
        return (self.code, self.file, self.line, self.col, self.message.split(":")[0])


_BOOKS: dict = {}


def _book(path: str):
    from ..game import Rulebook
    if path not in _BOOKS:
        _BOOKS[path] = Rulebook.load(path)
    return _BOOKS[path]


def structure_problems(st) -> list[str]:
    """The engine's own invariants; an empty list when all hold."""
    problems = []
    seen = {}
    total = 0
    for zid, zone in enumerate(st.z):
        total += len(zone)
        for c in zone:
            if c.id in seen:
                problems.append(f"{c.label} is in {st.lay.zones[seen[c.id]].name} and {st.lay.zones[zid].name}")
            seen[c.id] = zid
            if st.where[c.id] != zid:
                problems.append(f"{c.label} is in {st.lay.zones[zid].name} but recorded elsewhere")
    if total != len(st.lay.components):
        problems.append(f"{len(st.lay.components)} components exist but the zones hold {total}")
    for zone in st.lay.zones:
        contents = st.z[zone.id]
        if zone.capacity is not None and len(contents) > zone.capacity:
            problems.append(f"{zone.name} holds {len(contents)}, more than its capacity {zone.capacity}")
        if zone.holds:
            for c in contents:
                if c.kind not in zone.holds:
                    problems.append(f"{zone.name} holds {c.label}, a {c.kind}")
                    break
    return problems


def play_one(path: str, players: int, seed: int, options: dict, variants: list, max_decisions: int,
             check_every: int) -> list[dict]:
    rb = _book(path)
    findings = []
    decisions = []
    first_file = rb.game.source_files[0] if rb.game.source_files else path

    def finding(code, message, pos: Pos, severity="error"):
        findings.append(asdict(Finding(code, message, pos.file, pos.line, pos.col, players, seed, list(variants),
                                       dict(options), list(decisions), severity=severity)))

    try:
        st = rb.new_game(players, seed, options, variants, logging=False)
        bots = make_bots("random", st.lay.num_seats, seed)
        invariants = rb.game.invariants
        space = space_of(rb.game, rb.layout(players, options, variants))
        unbounded = {id(u[0]) for u in space.unbounded}      # reported by validate (RW240, a warning)
        n = 0
        leaked = False
        watches = 0                             # watch points passed, this one included
        while not st.is_terminal():
            outside = [a for a in st.legal_actions() if a not in space.index
                       and id(st.pending.by_id[a].action) not in unbounded]
            if outside:
                pos = st.pending.by_id[outside[0]].action.pos
                finding("RW906", f"legal action '{outside[0]}' is not in the fixed action space "
                                 f"({len(space)} ids); widen the parameter's bounds", pos)
                return findings
            stated = st.lay.max_decisions
            if stated is not None and n >= stated:
                finding("RW901", f"the game has not ended after {stated} decisions, the rulebook's "
                                 f"max_decisions for {players} players", rb.game.max_decisions_pos)
                return findings
            if n >= max_decisions:
                finding("RW901", f"the game has not ended after {max_decisions} decisions",
                        rb.game.flow.pos if rb.game.flow else Pos(first_file))
                return findings
            seat = st.current_player()
            action = bots[seat].choose(st)
            watch = n % check_every == 0 and seat is not None     # what each seat is shown (issue 26)
            if watch:
                problem = resample_problem(st, seat, seed + n)
                if problem is not None:
                    finding("RW923", problem, st.pending.pos)
                    return findings
                chosen = st.pending.by_id[action]
            decisions.append(action)
            st.apply_action(action)
            n += 1
            watches += watch
            if watch and not leaked and (watches - 1) % LEAK_EVERY == 0:     # the first, then every LEAK_EVERY-th
                # what the seats are shown (a warning, once a game): another seat than the one that
                # decided (the decision as told, the log), and the seat that decides next (its legal actions)
                looked = {(seat + 1 + (n // check_every)) % st.lay.num_seats}
                if st.current_player() is not None:
                    looked.add(st.current_player())
                for p in sorted(looked):
                    found = shown_leaks(st, p, samples=4, seed=seed + n)
                    if found:
                        kind, text = found[0]
                        what = {"log": "the log line", "legal": "the legal action", "told": "the decision"}[kind]
                        finding("RW920", f"{what} '{text}' shown to seat {p} differs between games it cannot "
                                         f"otherwise tell apart: it tells the seat something it cannot see (say "
                                         f"so with tell:, or hide it)", chosen.action.pos, "warning")
                        leaked = True
                        break
            for name, fn, pos in invariants:
                if not fn(st, [None]):
                    finding("RW903", f"invariant '{name}' is broken", pos)
                    return findings
            if st.broken:                       # `when: turn_end` ...: broken as such a scope ended
                name, pos, kind = st.broken[0]
                finding("RW903", f"invariant '{name}' is broken at the end of a {kind}", pos)
                return findings
            if n % check_every == 0:
                for problem in structure_problems(st):
                    finding("RW904", problem, Pos(first_file))
                    return findings
        for name, fn, pos in invariants:
            if not fn(st, [None]):
                finding("RW903", f"invariant '{name}' is broken at the end", pos)
        for problem in structure_problems(st):
            finding("RW904", problem, Pos(first_file))
            break
    except RuleRuntimeError as exc:
        code = exc.code if exc.code in ("RW921", "RW922") else \
            "RW902" if "no legal action" in exc.message else "RW905"
        finding(code, exc.message, exc.pos)
    return findings


#: the policies of RW907: the index among the legal actions they take, given how many there are
POLICIES = {"lowest-first": lambda n, rng: 0, "highest-first": lambda n, rng: n - 1,
            "random": lambda n, rng: rng.randrange(n)}


def policy_findings(path, players: int, options: dict, variants: list, seeds=(1, 2)) -> list[Finding]:
    """RW907 warnings: games of the lowest-first, highest-first and random policies (on the
    engine's index path, seeds ``seeds``) that have not ended at the layout's decision bound,
    one per policy, with the seed and the decisions that reproduce it.  (A game that fails on
    the way is left to the random games' checks.)"""
    import random
    rb = _book(path)
    bound = rb.layout(players, options, variants).decision_bound
    declared = rb.game.max_decisions_pos
    out = []
    for name, policy in POLICIES.items():
        for seed in seeds:
            try:
                st = rb.new_game(players, seed, options, variants, logging=False)
                rng = random.Random(seed)
                while not st.is_terminal() and not st.truncated:
                    st.apply_index(policy(len(st.legal_action_indices()), rng))
            except RuleRuntimeError:
                continue
            if st.truncated:
                pos = declared or (rb.game.flow.pos if rb.game.flow else Pos(rb.game.source_files[0]))
                what = "rulebook's max_decisions" if declared else "default bound (1000 decisions per seat)"
                out.append(Finding("RW907", f"a game played {name} has not ended after {bound} decisions, the "
                                            f"{what}: the AI environments truncate it there",
                                   pos.file, pos.line, pos.col, players, seed, list(variants), dict(options),
                                   [a for _w, a in st.history], severity="warning"))
                break
    return out


def _play_batch(args) -> list[dict]:
    path, players, seeds, options, variants, max_decisions, check_every = args
    out = []
    for seed in seeds:
        out.extend(play_one(path, players, seed, options, variants, max_decisions, check_every))
    return out


def run_check(path, games: int, player_counts, options: dict, variants: list, max_decisions: int = 5000,
              check_every: int = 10, jobs: int = 1, first_seed: int = 1, done=None, backend=None) -> list[Finding]:
    """Play the games on ``backend`` (default: ``jobs`` local processes, see
    interpreter/backends.py); ``done(n)``, if given, is called as each batch of
    n games finishes.  A batch whose worker fails is an RW905 finding naming
    its seeds; the other batches' findings are kept."""
    from .backends import LocalBackend
    path = str(path)
    backend = backend or LocalBackend(jobs)
    batches = []
    size = max(1, games // (4 * max(getattr(backend, "jobs", None) or jobs, 1)))
    for n in player_counts:
        seeds = list(range(first_seed, first_seed + games))
        for i in range(0, len(seeds), size):
            batches.append((path, n, seeds[i:i + size], options, variants, max_decisions, check_every))
    results: dict = {}
    for d in backend.run(_play_batch, batches):
        _, n, seeds, *_ = batches[d.index]
        if d.error is None:
            results[d.index] = d.value
        else:
            first_file = _book(path).game.source_files[0]
            results[d.index] = [asdict(Finding(
                "RW905", f"the simulation of seeds {seeds[0]}-{seeds[-1]} failed: {d.error}", first_file, 1, 1,
                n, seeds[0], list(variants), dict(options)))]
        if done:
            done(len(seeds))
    return [Finding(**f) for i in sorted(results) for f in results[i]]


def write_replay(finding: Finding, rulebook: str, game_name: str, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{Path(rulebook).name}-{finding.players}p-seed{finding.seed}-{finding.code}.jsonl"
    path = folder / name
    with path.open("w", encoding="utf-8") as f:
        f.write(json.dumps({"rulebook": str(rulebook), "game": game_name, "players": finding.players,
                            "seed": finding.seed, "options": finding.options, "variants": finding.variants,
                            "finding": finding.code}) + "\n")
        for action in finding.decisions:
            f.write(json.dumps({"action": action}) + "\n")
    return path


def replay(path: Path):
    """Re-run a replay (or `play --log`) file; return (state, decisions applied)."""
    from ..game import Rulebook
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    if not lines:
        raise ValueError(f"{path}: empty replay file")
    head, moves = lines[0], lines[1:]
    rb = Rulebook.load(head["rulebook"])
    st = rb.new_game(head["players"], head["seed"], head.get("options") or {}, head.get("variants") or [])
    applied = 0
    for move in moves:
        st.apply_action(move["action"])
        applied += 1
    return rb, st, applied
