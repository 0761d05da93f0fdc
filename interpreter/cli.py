"""The ``regelwerk`` command line: validate, play, test, bench, check, replay.

Every error the user can cause — a bad argument, a broken rulebook, an
illegal option — is one clear line (and, for rulebooks, one located line per
problem) with a non-zero exit status, never a Python traceback.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from dsl.diagnostics import RulebookError, RuleRuntimeError, format_report

from .ai.bots import make_bots, play_out
from .commands import SEED, UsageError, whole
from .game import GameSetupError, Rulebook, check_rulebook, rulebook_path, shipped_games
from .commands import safe_output
from .userstate import replays_dir


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, no usage dump
        raise UsageError(message)


_whole, _SEED = whole, SEED


def _rulebook_dirs(paths) -> list[Path]:
    out = []
    for raw in paths:
        p = Path(raw)
        if p.is_file() or (p / "game.yaml").exists():  # not only a regular file: the loader says what is wrong
            out.append(p)
        elif p.is_dir():
            subs = sorted(s for s in p.iterdir() if (s / "game.yaml").is_file())
            if not subs:
                raise UsageError(f"{raw}: no rulebook here (no game.yaml)")
            out.extend(subs)
        else:
            raise UsageError(f"{raw}: no such file or folder")
    return out


def cmd_validate(args) -> int:
    from .tools.scenarios import check_scenario, is_scenario_file
    failed = False
    all_diags = []
    for path in _validate_targets(args.paths):
        scenarios = []
        if is_scenario_file(path):
            # a scenario: its format and action ids, against the rulebook two folders up
            book = path.parent.parent
            _, game = check_rulebook(book, semantic=False)
            diags = check_scenario(game, path)
            what = (f": a scenario of {book}, its format and action ids checked"
                    + ("" if game is not None else " (not the ids: the rulebook has errors)")
                    + f"; `regelwerk test {path}` runs it")
        else:
            report, game = check_rulebook(path)
            diags = report.sorted()
            if Path(path).is_dir():
                scenarios = sorted((Path(path) / "scenarios").glob("*.yaml"))
                for file in scenarios:
                    diags.extend(check_scenario(game, file))
            what = (f"; {len(scenarios)} scenario{'s' * (len(scenarios) != 1)} checked (format, action ids; "
                    f"`regelwerk test {path}` runs them)" if scenarios else "")
        all_diags.extend(diags)
        errors = sum(1 for d in diags if d.is_error)
        if errors:
            failed = True
        if args.format == "text":
            if diags:
                print(format_report(diags))
            warnings = len(diags) - errors
            status = "ok" if not errors else "invalid"
            print(f"{path}: {status} ({errors} error{'s' * (errors != 1)}, "
                  f"{warnings} warning{'s' * (warnings != 1)}){what}")
    if args.format == "json":
        print(format_report(all_diags, "json"))
    return 1 if failed else 0


def _validate_targets(paths) -> list[Path]:
    """The rulebooks of ``paths`` (as _rulebook_dirs), a scenario file standing for itself."""
    from .tools.scenarios import is_scenario_file
    out = []
    for raw in paths:
        out.extend([Path(raw)] if is_scenario_file(Path(raw)) else _rulebook_dirs([raw]))
    return out


def _parse_options(items) -> dict:
    out = {}
    for item in items or []:
        if "=" not in item:
            raise UsageError(f"--option takes NAME=VALUE, not '{item}'")
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def _variants(items) -> list:
    out = []
    for item in items or []:
        out.extend(v.strip() for v in item.split(",") if v.strip())
    return out


def cmd_play(args) -> int:
    from .play.gamelog import header
    from .play.narrate import Narrator
    rb = Rulebook.load(args.rulebook)
    options = _parse_options(args.option)
    variants = _variants(args.variant)
    seats = args.seats or args.bots
    if args.resume:
        from .play.tui import resume_in_terminal
        if args.seats:
            from .play.session import parse_seats
            parse_seats(args.seats, 1)
        return resume_in_terminal(rb, args.resume, args.seats, args.log, args.complete_lines, compact=args.compact)
    if args.players is None:
        # the fewest the game allows (said, so that --players is found when another count is wanted)
        args.players = rb.game.min_players
        if not args.json and not args.quiet:
            n = rb.game.min_players
            more = "" if rb.game.max_players == n else f"; --players up to {rb.game.max_players}"
            print(f"{n} player{'s' if n != 1 else ''} (the fewest {rb.name} allows{more})")
    if "human" in [x.strip() for x in seats.split(",")]:
        from .play.session import parse_seats
        from .play.tui import play_in_terminal
        parse_seats(seats, 1)  # an unknown name: one clear line
        if args.seed is None:
            import secrets
            args.seed = secrets.randbelow(1_000_000)
        return play_in_terminal(rb, args, options, variants, seats)
    if args.seed is None:
        import secrets
        args.seed = secrets.randbelow(1_000_000)
        if not args.json:
            print(f"seed {args.seed} (play the same game again with --seed {args.seed})")
    names = [n.strip() for n in args.names.split(",")] if args.names else None
    try:
        state = rb.new_game(args.players, args.seed, options, variants, names=names)
    except ValueError as exc:
        raise UsageError(f"--names: {exc}") from None
    bots = make_bots(seats, state.lay.num_seats, args.seed)
    log_file = open(args.log, "w", encoding="utf-8") if args.log else None
    decisions = 0
    tell = not args.json and not args.quiet
    narrator = Narrator(state)
    try:
        if log_file:
            log_file.write(json.dumps(header(args.rulebook, args.log, rb.name, args.players, args.seed, options,
                                             variants, [b.name for b in bots], names)) + "\n")
            log_file.flush()
        while not state.is_terminal():
            seat = state.current_player()
            action = bots[seat].choose(state)
            if tell:
                for line in narrator.lines_before(state):
                    print(line)
                print(narrator.decision(seat, action, everyone=True))
            state.apply_action(action)
            decisions += 1
            if log_file:
                log_file.write(json.dumps({"seat": seat, "action": action}) + "\n")
                log_file.flush()            # a kill keeps every decision made so far
            if tell:
                for line in narrator.lines_after(state, (seat, action)):
                    print(line)
        if tell:
            for line in narrator.lines_after(state) + narrator.ending(state):
                print(line)
    finally:
        if log_file:
            log_file.close()
    result = {
        "game": rb.name,
        "players": args.players,
        "seed": args.seed,
        "options": {k: v for k, v in state.lay.options.items()},
        "variants": sorted(state.lay.variants),
        "seats": list(state.lay.seat_names),
        "bots": [b.name for b in bots],
        "decisions": decisions,
        "scores": state.scores(),
        "ranking": state.ranking(),
        "winners": state.winners(),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(f"\n{rb.name}: {decisions} decisions")
        order = sorted(range(len(result["scores"])), key=lambda p: result["ranking"][p])
        for p in order:
            print(f"  {result['ranking'][p]}. {result['seats'][p]:<12} {result['scores'][p]:>4}  ({result['bots'][p]})")
    return 0


def cmd_test(args) -> int:
    from .progress import progress
    from .tools.scenarios import find_scenarios, iter_scenarios
    try:
        found = find_scenarios(args.paths)
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    passed = 0
    results = []
    # a bar only for long runs (the lines above it say the rest)
    with progress(len(found), "test", enabled=len(found) >= 20) as done:
        for r in iter_scenarios(found):
            results.append(r)
            print(r.line())
            if r.ok:
                passed += 1
            for d in r.messages:                 # a failure's errors; a pass's warnings (RW301)
                print("  " + d.format().replace("\n", "\n  "))
            done(1)
    failed = len(results) - passed
    print(f"{passed} passed, {failed} failed, {len(results)} scenarios")
    if not results:
        print("no scenarios found", file=sys.stderr)
        return 1
    return 1 if failed else 0


def cmd_bench(args) -> int:
    from .tools.bench import bench, format_line, to_json
    rb = Rulebook.load(args.rulebook)
    counts = _counts(None if args.players is None else str(args.players), rb.game)
    results = bench(rb, counts, args.games, args.repeat, args.seed,
                    _parse_options(args.option), _variants(args.variant), show_progress=not args.json)
    print(to_json(results) if args.json else "\n".join(format_line(r) for r in results))
    return 0


def _counts(text, game) -> list:
    if not text:
        return list(range(game.min_players, game.max_players + 1))
    try:
        counts = [int(x) for x in text.split(",")]
    except ValueError:
        raise UsageError(f"--players takes numbers like 2,3,4, not '{text}'") from None
    for n in counts:
        if not game.min_players <= n <= game.max_players:
            raise UsageError(f"{game.name} is for {game.min_players} to {game.max_players} players, not {n}")
    return counts


def cmd_check(args) -> int:
    import os
    from .tools.simulate import policy_findings, run_check, write_replay
    from dsl.diagnostics import Diagnostic
    rb = Rulebook.load(args.rulebook)
    counts = _counts(args.players, rb.game)
    options = _parse_options(args.option)
    variant_sets = [_variants(args.variant)]
    if args.all_variants:
        variant_sets = [[]] + [[v] for v in sorted(rb.game.variants)]
    for vs in variant_sets:
        rb.layout(counts[0], options, vs)  # bad options or variants: one clear line now
    jobs = args.jobs or min(os.cpu_count() or 1, 4)
    from .tools.backends import BackendError, make_backend
    try:
        backend = make_backend(args.backend, jobs, args.address)
    except BackendError as exc:
        raise UsageError(str(exc)) from None
    started = time.perf_counter()
    findings = []
    from .progress import progress
    with progress(args.games * len(counts) * len(variant_sets), f"check {rb.name}",
                  enabled=args.format != "json") as done:
        for vs in variant_sets:
            findings.extend(run_check(args.rulebook, args.games, counts, options, vs, args.max_decisions,
                                      args.check_every, jobs, done=done, backend=backend))
            for n in counts:                    # RW907: simple policies past the decision bound (warnings)
                findings.extend(policy_findings(args.rulebook, n, options, vs))
    elapsed = time.perf_counter() - started
    # one report per distinct problem, with the first game that shows it
    distinct = {}
    for f in sorted(findings, key=lambda f: (f.players, f.seed)):
        distinct.setdefault(f.key(), [f, 0])[1] += 1
    played = args.games * len(counts) * len(variant_sets)
    if args.format == "json":
        out = []
        for f, count in distinct.values():
            item = Diagnostic(f.pos, f.message, f.severity, f.code).as_json()
            item.update({"players": f.players, "seed": f.seed, "variants": f.variants, "options": f.options,
                         "decisions": f.decisions, "games_affected": count})
            out.append(item)
        print(json.dumps(out, indent=2))
    else:
        replays = Path(args.replays) if args.replays else replays_dir()     # never the current folder
        for f, count in distinct.values():
            try:
                replay = f"replay: regelwerk replay {write_replay(f, args.rulebook, rb.name, replays)}"
            except OSError as exc:      # a read-only folder: the finding still counts, without its replay file
                replay = f"no replay file: {exc.strerror or exc}"
            where = f"{f.players} players, seed {f.seed}" + (f", variant {'+'.join(f.variants)}" if f.variants else "")
            print(Diagnostic(f.pos, f"{f.message} ({where}, after {len(f.decisions)} decisions; "
                                    f"{count} game{'s' * (count != 1)} affected; {replay})",
                             f.severity, f.code).format())
        errors = sum(f.severity == "error" for f, _ in distinct.values())
        warned = len(distinct) - errors
        print(f"{rb.name}: {played} games ({', '.join(map(str, counts))} players), {errors} "
              f"problem{'s' * (errors != 1)} found" + (f", {warned} warning{'s' * (warned != 1)}" if warned else "")
              + f", {elapsed:.1f}s")
    return 1 if any(f.severity == "error" for f, _ in distinct.values()) else 0


def cmd_report(args) -> int:
    from .tools.backends import BackendError, make_backend
    from .ai.bots import make_bots as _check_bots
    from .progress import progress
    try:
        from .tools.report import Plan, ReportError, configs_from, write_report
        import matplotlib  # noqa: F401
    except ImportError as exc:
        raise UsageError(f"report needs the report extra: pip install 'regelwerk[report]' ({exc})") from None
    rb = Rulebook.load(args.rulebook)
    players = args.players if args.players is not None else rb.game.min_players
    _counts(str(players), rb.game)
    bots = args.seats or args.bots
    _check_bots(bots, 1, 0)                        # an unknown bot: one clear line now
    try:
        configs = configs_from(args.compare, _variants(args.variant), _parse_options(args.option), rb)
    except ReportError as exc:
        raise UsageError(str(exc)) from None
    for c in configs:
        rb.layout(players, c.option_dict, list(c.variants))   # a bad option or variant: one clear line now
    plan = Plan(str(args.rulebook), players, args.games, bots, args.seed, configs, args.max_decisions)
    try:
        backend = make_backend(args.backend, args.jobs or None, args.address)
    except BackendError as exc:
        raise UsageError(str(exc)) from None
    timing: dict = {}
    try:
        with progress(args.games * len(configs), f"report {rb.name}", enabled=not args.json) as done:
            result = write_report(plan, backend, Path(args.out), f"{rb.name}: balance report", done, timing)
    except BackendError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"bots: {result['bots_strength']}")
    if result.get("warning"):
        print(f"warning: {result['warning']}")
    for label, summ in result["configs"].items():
        head = f"{rb.name}, {players} players" + (f", {label}" if len(configs) > 1 else "")
        print(f"{head}: {summ['finished']} of {summ['games']} games finished")
        for seat in summ.get("seats", []):
            flag = "  (significant)" if seat["significant"] else ""
            print(f"  {seat['name']:<14} wins {seat['win_rate']:6.1%}  95% CI {seat['ci'][0]:.1%}–{seat['ci'][1]:.1%}"
                  f"  mean score {seat['mean_score']:.1f}{flag}")
        if summ.get("first_player"):
            fp = summ["first_player"]
            flag = "  (significant)" if fp["significant"] else ""
            print(f"  {'first player':<14} wins {fp['win_rate']:6.1%}  95% CI {fp['ci'][0]:.1%}–{fp['ci'][1]:.1%}{flag}")
        for f in summ.get("failed", [])[:5]:
            print(f"  failed: seed {f['seed']}: {f['error']}")
    games = args.games * len(configs)
    print(f"played {games} games in {timing['play']:.1f}s ({games / max(timing['play'], 1e-9):.1f} games/s) on "
          f"{backend.describe()}; wrote {Path(args.out) / 'report.html'} in {timing['write']:.1f}s")
    return 0


def cmd_ladder(args) -> int:
    """Every pair of bots plays seeded games; their Elo with 95 % intervals (interpreter/tools/ladder.py)."""
    from .tools.backends import BackendError, make_backend
    from .tools.ladder import deciding_seats, default_players, elo_table, parse_bots, run_ladder
    from .progress import progress
    rb = Rulebook.load(args.rulebook)
    players = args.players if args.players is not None else default_players(rb)
    if players is None:
        raise UsageError(f"{rb.name}: at no player count do two seats decide (the others are automata), "
                         f"so no two bots can play each other")
    _counts(str(players), rb.game)
    deciding = len(deciding_seats(rb.new_game(players, args.seed, logging=False)))
    if deciding < 2:
        fewest = default_players(rb)
        raise UsageError(f"{rb.name} with {players} player(s) has {deciding} seat(s) that decide (the others "
                         f"are automata): a ladder sets two bots against each other"
                         + (f"; try --players {fewest}" if fewest is not None else ""))
    try:
        bots = parse_bots(args.bots)
        from .ai.bots import make_bots as _check_bots
        _check_bots(",".join(bots), len(bots), 0)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if len(bots) < 2:
        raise UsageError("a ladder needs at least two bots")
    if len(set(bots)) < len(bots):
        raise UsageError(f"a bot is named twice in '{','.join(bots)}': each plays every other once")
    try:
        backend = make_backend("processes", args.jobs or None, None)
    except BackendError as exc:
        raise UsageError(str(exc)) from None
    pairs = len(bots) * (len(bots) - 1) // 2
    started = time.perf_counter()
    with progress(pairs * args.games, f"ladder {rb.name}", enabled=not args.json) as done:
        ladder = run_ladder(args.rulebook, players, bots, args.games, args.seed, args.seconds, backend, done)
    rows = elo_table(ladder)
    elapsed = time.perf_counter() - started
    if args.json:
        print(json.dumps({"game": rb.name, "players": players, "games_per_pair": args.games, "seed": args.seed,
                          "seconds": args.seconds, "bots": rows,
                          "pairs": [{"bots": list(k), "points": sum(v), "games": len(v)}
                                    for k, v in ladder.results.items()]}, indent=2))
        return 0
    print(f"{rb.name}, {players} player{'s' if players != 1 else ''}: {args.games} games per pair "
          f"(seeds {args.seed}–{args.seed + args.games - 1}, seats alternating), "
          f"ISMCTS at most {args.seconds:g} s a decision")
    print(f"  {'bot':<12} {'Elo':>6}  {'95% CI':>14}  points")
    for r in sorted(rows, key=lambda r: -r["elo"]):
        print(f"  {r['bot']:<12} {r['elo']:6.0f}  {r['ci95'][0]:6.0f}–{r['ci95'][1]:<6.0f}  "
              f"{r['points']:g}/{r['games']}")
    for (a, b), v in ladder.results.items():
        print(f"  {a} vs {b}: {sum(v):g}/{len(v)}")
    print(f"played {pairs * args.games} games in {elapsed:.0f}s on {backend.describe()}")
    return 0


def cmd_games(args) -> int:
    """The rulebooks shipped with the package: a line each (name, players, folder), or JSON."""
    rows = []
    for name, folder in shipped_games().items():
        game = Rulebook.load(folder).game
        rows.append({"name": name, "title": game.name, "players": [game.min_players, game.max_players],
                     "path": str(folder)})
    if args.json:
        print(json.dumps(rows, ensure_ascii=False))
        return 0
    if not rows:
        print("no shipped rulebooks are installed")
        return 0
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        lo, hi = r["players"]
        players = f"{lo} player{'s' * (hi != 1)}" if lo == hi else f"{lo}-{hi} players"
        print(f"{r['name']:<{width}}  {r['title']} ({players})  {r['path']}")
    return 0


def _cmd_serve(args) -> int:
    try:
        from .play.web.server import cmd_serve
    except ImportError as exc:
        raise UsageError(f"serve needs the web extra: pip install 'regelwerk[web]' ({exc})") from None
    return cmd_serve(args)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("regelwerk")
    except PackageNotFoundError:
        return "(not installed)"


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="regelwerk", description="Regelwerk: a rules language and engine for board games.")
    p.add_argument("--version", action="version", version=f"regelwerk {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    g = sub.add_parser("games", help="list the rulebooks shipped with regelwerk (usable by name anywhere)")
    g.add_argument("--json", action="store_true", help="one JSON list")
    g.set_defaults(func=cmd_games)

    v = sub.add_parser("validate", help="check rulebooks: YAML, schema, names, types")
    v.add_argument("paths", nargs="+", metavar="PATH", help="rulebook folders (or a folder of rulebooks)")
    v.add_argument("--format", choices=["text", "json"], default="text")
    v.set_defaults(func=cmd_validate)

    from .ai.bots import BOTS
    kinds = ", ".join(["human"] + [f"{b}[:N]" if b == "ismcts" else b for b in BOTS])
    pl = sub.add_parser("play", help="play a game: people at this terminal, bots, or both")
    pl.add_argument("rulebook", metavar="RULEBOOK")
    pl.add_argument("--players", type=_whole(1), help="how many play (default: the fewest the game allows)")
    pl.add_argument("--seed", type=_SEED, help="the game's seed (default: a random one, printed)")
    pl.add_argument("--bots", default="random", help="comma-separated, per seat (the last repeats): "
                                                     f"{kinds} (ismcts:N: at most N iterations a decision)")
    pl.add_argument("--seats", help="like --bots: who plays each seat, e.g. human,random (a person at this "
                                    "terminal; two or more people take turns at it)")
    pl.add_argument("--names", metavar="NAME,NAME…", help="the people's names for the seats, in seat order "
                                                         "(e.g. Ann,Bob; shown instead of Player 1, Player 2)")
    pl.add_argument("--resume", metavar="LOG", help="go on with a game saved by quit (seats as in the log, "
                                                       "or --seats)")
    pl.add_argument("--complete-lines", action="store_true",
                    help="with --resume: a log cut in its last line (a killed game) goes on from its complete lines")
    pl.add_argument("--json", action="store_true", help="print one JSON object with the result")
    pl.add_argument("--log", metavar="FILE", help="write every decision to FILE (JSON lines; a game with a "
                                                  "person is saved in ~/.local/state/regelwerk/logs otherwise)")
    pl.add_argument("--compact", action=argparse.BooleanOptionalAction, default=None,
                    help="a person's screen drawn to fit the terminal (default: when the full drawing does not)")
    pl.add_argument("--variant", action="append", metavar="NAME", help="play a variant (repeatable)")
    pl.add_argument("--option", action="append", metavar="NAME=VALUE", help="set a game option (repeatable)")
    pl.add_argument("--quiet", action="store_true", help="print only the result")
    pl.set_defaults(func=cmd_play)

    t = sub.add_parser("test", help="run scenarios")
    t.add_argument("paths", nargs="+", metavar="PATH", help="rulebook folders, scenario files, or a folder of rulebooks")
    t.set_defaults(func=cmd_test)

    b = sub.add_parser("bench", help="measure random games per second")
    b.add_argument("rulebook", metavar="RULEBOOK")
    b.add_argument("--games", type=_whole(1), default=50)
    b.add_argument("--players", type=_whole(1), help="a player count (default: every count in turn)")
    b.add_argument("--seed", type=_SEED, default=1)
    b.add_argument("--repeat", type=_whole(1), default=1, help="runs to make (the median is printed)")
    b.add_argument("--variant", action="append", metavar="NAME")
    b.add_argument("--option", action="append", metavar="NAME=VALUE")
    b.add_argument("--json", action="store_true", help="one JSON object per player count")
    b.set_defaults(func=cmd_bench)

    c = sub.add_parser("check", help="play many random games and report what breaks")
    c.add_argument("rulebook", metavar="RULEBOOK")
    c.add_argument("--games", type=_whole(1), default=100, help="games per player count (seeds 1..N)")
    c.add_argument("--players", metavar="N[,N…]", help="player counts (default: all)")
    c.add_argument("--variant", action="append", metavar="NAME")
    c.add_argument("--all-variants", action="store_true", help="also every variant on its own")
    c.add_argument("--option", action="append", metavar="NAME=VALUE")
    c.add_argument("--max-decisions", type=_whole(1), default=5000, help="a game longer than this does not end")
    c.add_argument("--check-every", type=_whole(1), default=10, help="check zones and capacities every K decisions")
    c.add_argument("--jobs", type=_whole(0, 256), default=0, help="processes (default: the CPU count, at most 4)")
    c.add_argument("--backend", choices=["processes", "ray"], default="processes",
                   help="processes on this machine, or Ray (the ray extra)")
    c.add_argument("--address", help="with --backend ray: a cluster's address (default: a local Ray)")
    c.add_argument("--format", choices=["text", "json"], default="text")
    c.add_argument("--replays", metavar="DIR", help="where to write replay files (default: replays/ in the "
                                                    "user state folder, ~/.local/state/regelwerk)")
    c.set_defaults(func=cmd_check)

    rp = sub.add_parser("report", help="play many games and write a balance report (HTML, plots, JSON Lines)")
    rp.add_argument("rulebook", metavar="RULEBOOK")
    rp.add_argument("--games", type=_whole(1), default=200, help="games per configuration (seeds S..S+N-1)")
    rp.add_argument("--players", type=_whole(1), help="how many play (default: the fewest the game allows)")
    rp.add_argument("--bots", default="random", help="who plays each seat, comma-separated (the last repeats)")
    rp.add_argument("--seats", help="the same as --bots")
    rp.add_argument("--variant", action="append", metavar="NAME", help="play a variant in every game")
    rp.add_argument("--option", action="append", metavar="NAME=VALUE", help="set an option in every game")
    rp.add_argument("--compare", action="append", metavar="KEY=VALUE",
                    help="variant=NAME (without and with it) or option=NAME=V1,V2: side by side (repeatable)")
    rp.add_argument("--out", required=True, metavar="DIR", help="where to write report.html, the plots and games.jsonl")
    rp.add_argument("--seed", type=_SEED, default=1, help="the first seed")
    rp.add_argument("--jobs", type=_whole(0, 256), default=0, help="worker processes (default: the CPU count, at most 4)")
    rp.add_argument("--backend", choices=["processes", "ray"], default="processes",
                    help="processes on this machine, or Ray (the ray extra)")
    rp.add_argument("--address", help="with --backend ray: a cluster's address (default: a local Ray)")
    rp.add_argument("--max-decisions", type=_whole(1), default=20_000, help="a game longer than this fails")
    rp.add_argument("--json", action="store_true", help="print the summary as JSON (no progress bar)")
    rp.set_defaults(func=cmd_report)

    ld = sub.add_parser("ladder", help="how strong the bots are: every pair plays seeded games; Elo with 95%% intervals")
    ld.add_argument("rulebook", metavar="RULEBOOK")
    ld.add_argument("--bots", help="comma-separated (default: random,greedy,ismcts:20,ismcts:200)")
    ld.add_argument("--games", type=_whole(1), default=10, help="games per pair of bots (default 10)")
    ld.add_argument("--players", type=_whole(1),
                    help="how many play (default: the fewest the game allows with two seats that decide)")
    ld.add_argument("--seed", type=_SEED, default=1, help="the first seed")
    ld.add_argument("--seconds", type=float, default=1.0, help="ISMCTS's time per decision (default 1)")
    ld.add_argument("--jobs", type=_whole(0, 256), default=0, help="worker processes (default: the CPU count, at most 4)")
    ld.add_argument("--json", action="store_true", help="print the table as JSON")
    ld.set_defaults(func=cmd_ladder)

    sv = sub.add_parser("serve", help="play in the browser: tables with a link per seat, kept in SQLite; "
                                      "127.0.0.1 unless --host (needs the web extra)")
    sv.add_argument("rulebook", metavar="RULEBOOK", nargs="+")
    sv.add_argument("--port", type=_whole(0, 65535), default=8000, help="the port (0: any free one)")
    sv.add_argument("--replay", metavar="LOG", help="open a game log (time travel over it)")
    sv.add_argument("--db", metavar="PATH", help="the SQLite file keeping the tables (default: serve.sqlite in the "
                                                       "user state folder, ~/.local/state/regelwerk)")
    sv.add_argument("--host", default="127.0.0.1",
                    help="the address to listen on (default 127.0.0.1: this computer only; 0.0.0.0: the network)")
    sv.add_argument("--allow-host", action="append", metavar="NAME",
                    help="a host name the server answers to besides localhost and IP addresses (repeatable)")
    sv.add_argument("--bot-delay", type=float, default=0.3, metavar="SECONDS",
                    help="a pause before each bot decision, so people can follow (default 0.3)")
    sv.add_argument("--sync", choices=["normal", "full"], default="normal",
                    help="full: every decision waits for the disk (survives a power cut, slower)")
    sv.set_defaults(func=_cmd_serve)

    from .play.replay import cmd_replay
    r = sub.add_parser("replay", help="replay a game log, checking every line; --show draws the game")
    r.add_argument("file", metavar="LOG")
    r.add_argument("--until", type=_whole(0), metavar="N", help="stop after N decisions")
    r.add_argument("--complete-lines", action="store_true",
                   help="a log cut in its last line (a killed game): replay its complete lines")
    r.add_argument("--show", action="store_true", help="tell every decision and draw the state at the end")
    r.add_argument("--seat", type=_whole(0), metavar="S", help="with --show: draw what seat S sees, counted "
                                                           "from 0 as in the API and the log (default: an onlooker)")
    r.set_defaults(func=cmd_replay)

    from .tools import coverage_command as coverage, mutate             # issue 15: their own modules, registered here
    coverage.add_parser(sub)
    mutate.add_parser(sub)
    from .tools.rulesdoc import command as rules_document                   # issue 41
    rules_document.add_parser(sub)
    return p


def _shipped_hint(raw: str) -> None:
    """A path that does not exist but ends in a shipped game's name (``rules/<game>`` outside the
    checkout): say the game's name, which works from anywhere."""
    p = Path(raw)
    if not p.exists() and p.name in shipped_games() and str(p) != p.name:
        raise UsageError(f"{raw}: no such file or folder; the shipped game is called '{p.name}' "
                         f"(e.g. regelwerk play {p.name})")


def main(argv=None) -> int:
    with safe_output():         # nothing a rulebook or a log says drives the terminal
        return _main(argv)


def _main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "command", None):
            parser.print_help()
            return 2
        # a shipped game's name stands for its folder wherever a rulebook is named (a path that exists wins)
        if isinstance(getattr(args, "rulebook", None), str):
            args.rulebook = str(rulebook_path(args.rulebook))
            _shipped_hint(args.rulebook)
        if isinstance(getattr(args, "paths", None), list):
            args.paths = [str(rulebook_path(x)) for x in args.paths]
            for x in args.paths:
                _shipped_hint(x)
        return args.func(args)
    except UsageError as exc:
        print(f"regelwerk: error: {exc}", file=sys.stderr)
        return 2
    except RulebookError as exc:
        print(format_report(exc.diagnostics), file=sys.stderr)
        return 1
    except (GameSetupError, ValueError) as exc:
        print(f"regelwerk: error: {exc}", file=sys.stderr)
        return 2
    except RuleRuntimeError as exc:
        print(exc.diagnostic().format(), file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"regelwerk: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
