"""Leaks (issue 26): an action parameter whose ids name what its chooser cannot see.
`validate` warns (RW261, at the parameter); `check` finds it in play (RW920, with a
replay file).  Rulebook: tests/rulebooks/leaky_param (the issue's, unchanged)."""
from pathlib import Path

from interpreter.game import check_rulebook

LEAKY = Path(__file__).parent / "rulebooks" / "leaky_param"


def test_leaky_param_is_warned_at_its_card_parameter():
    report, _ = check_rulebook(LEAKY)
    [d] = report.items
    assert (d.code, d.severity, d.pos.line, d.pos.col) == ("RW261", "warning", 15, 20)
    assert "'card' of 'play'" in d.message and "hand[0]" in d.message


def test_a_hand_its_owner_sees_is_no_leak(rulebook):
    text = (LEAKY / "game.yaml").read_text().replace('visible: "viewer != p"', 'visible: "viewer == p"')
    report, _ = check_rulebook(rulebook(text))
    assert report.items == []


def test_a_condition_or_a_count_over_a_hidden_zone_is_no_leak(rulebook):
    text = (LEAKY / "game.yaml").read_text().replace(
        'params: {card: "hand[player]"}',
        'params: {q: "[q for q in players if not empty(hand[q]) and count(hand[q]) > 0]"}').replace(
        "do: [{move: card, to: table}]", 'do: [{move: "first(hand[player])", to: table}]')
    report, _ = check_rulebook(rulebook(text))
    assert report.items == []


def test_a_parameter_from_another_seats_hidden_value_is_a_leak(rulebook):
    text = """\
    regelwerk: 1
    game: {name: Peek, players: {min: 2, max: 2}}
    variables:
      die: {index: {p: players}, init: 1, visible: "viewer == p"}
      said: {init: 0}
    actions:
      say:
        params: {v: "[die[next(player)]]"}
        bounds: {v: "1..6"}
        do: [{set: "said = v"}]
    flow:
      - turns: 0
        once: true
        do: [{decide: [say], otherwise: [{fail: "one value"}]}]
    end:
      score: "said"
    """
    report, _ = check_rulebook(rulebook(text))
    [d] = report.items
    assert d.code == "RW261" and d.pos.line == 8 and "variable 'die[1]'" in d.message
    report, _ = check_rulebook(rulebook(text.replace("die[next(player)]", "die[player]")))
    assert report.items == []


def test_check_finds_the_leak_in_play_with_a_replay_file(tmp_path, capsys):
    # issue 36: a leak is found by what changes (the legal ids differ between worlds the chooser cannot
    # otherwise tell apart), and is a warning for rulebooks of this language version: check passes
    from interpreter.cli import main
    replays = tmp_path / "replays"
    code = main(["check", str(LEAKY), "--games", "3", "--jobs", "1", "--replays", str(replays)])
    out = capsys.readouterr().out
    assert code == 0 and "warning:" in out and "[RW920]" in out and "the legal action 'play(card=v" in out
    assert "game.yaml:14:3" in out                               # the action whose ids leak
    files = sorted(replays.glob("*RW920.jsonl"))
    assert files
    assert main(["replay", str(files[0])]) == 0


def test_a_decision_told_to_others_is_knowledge_not_a_leak(rulebook):
    # the card goes face down into a hidden pile, and `secret: false` tells the others which:
    # 'play(card=v3)'.  What an action tells is the rulebook's word: the seats know it, resample keeps it
    from interpreter.game import Rulebook
    from interpreter.tools.simulate import run_check
    text = (LEAKY / "game.yaml").read_text().replace('visible: "viewer != p"', 'visible: "viewer == p"').replace(
        "  table: {holds: card}", "  table: {holds: card, visible: false}")
    told = text.replace('    params: {card: "hand[player]"}', '    params: {card: "hand[player]"}\n    secret: false')
    assert run_check(str(rulebook(told)), 2, [2], {}, []) == []
    rb = Rulebook.load(rulebook(told))
    st = rb.new_game(2, 1)
    st.apply_action(st.legal_actions()[0])
    card = st.history[0][1].split("=")[1].rstrip(")")
    assert all(rb.evaluate(st.resample(1, k), "labels(table)") == (card,) for k in range(20))


def test_check_catches_a_resample_that_changes_what_the_seat_sees(monkeypatch):
    # a resample that redraws what the seat sees (its own die) is RW923
    from interpreter.engine.run import runtime
    from interpreter.tools.simulate import run_check
    real = runtime.State.resample

    def cheating(self, seat, seed):
        r = real(self, seat, seed)
        r.v[seat] = r.v[seat] % 6 + 1
        return r
    monkeypatch.setattr(runtime.State, "resample", cheating)
    findings = run_check(str(Path(__file__).parent / "rulebooks" / "hidden_die"), 2, [2], {}, [])
    assert findings and findings[0].code == "RW923"


def test_a_log_line_that_names_a_hidden_card_is_a_leak(rulebook):
    # the card goes face down (secret by default), but the rulebook's log, told to all, names it:
    # the line differs between worlds the others cannot otherwise tell apart (a warning, RW920)
    from interpreter.tools.simulate import run_check
    text = (LEAKY / "game.yaml").read_text().replace('visible: "viewer != p"', 'visible: "viewer == p"').replace(
        "  table: {holds: card}", "  table: {holds: card, visible: false}")
    logged = text.replace("    do: [{move: card, to: table}]",
                          '    do: [{move: card, to: table}, {log: "{seat_name(player)} puts {card} face down"}]')
    findings = run_check(str(rulebook(logged)), 2, [2], {}, [])
    assert findings and findings[0].code == "RW920" and findings[0].severity == "warning"
    assert "the log line 'Player 1 puts v" in findings[0].message
    quiet = text.replace("    do: [{move: card, to: table}]",
                         '    do: [{move: card, to: table}, {log: "{seat_name(player)} puts a card face down"}]')
    assert run_check(str(rulebook(quiet)), 2, [2], {}, []) == []
