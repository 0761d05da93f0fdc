"""The engine's public face: what the tools, play and AI wings (and users) take from the engine.

    from interpreter.game import Rulebook
    rules = Rulebook.load("rules/<game>")      # or a shipped game by its name: Rulebook.load("<game>")
    state = rules.new_game(players=3, seed=7)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    state.scores(), state.ranking()

The engine (``interpreter/engine/``: load, compile, run) imports nothing from
the wings around it; they import from this module only, never from
``interpreter.engine.*`` (``tests/test_architecture.py`` checks both).  The
names are grouped by who needs them; docs/api.md documents the first group.
"""
from __future__ import annotations

from dsl.diagnostics import RulebookError, RuleRuntimeError

# --- games: load, start, play, serialise (docs/api.md) ----------------------------------------------
from .engine.run.chance import ChanceState
from .engine.run.layout import GameSetupError
from .engine.rulebook import Rulebook, check_names, check_rulebook, load_rulebook_once
from .engine.run.runtime import IllegalAction, State
from .engine.run.playerapi import public_action_id
from .engine.run.together import choosing_states, pending_decisions
from .engine.shipped import rulebook_path, shipped_games

# --- values as the engine holds them, and how they read --------------------------------------------
from .engine.compile import types
from .engine.run.values import Component, Zone, format_value, plain
from .engine.run.rng import Rng

# --- the fixed action space as the engine keeps it (also where a parameter has none: RW240) ----------
from .engine.run.spaces import space_of

# --- seats' knowledge: what a seat has seen, as text --------------------------------------------------
from .engine.knowledge.infosets import information_state_string

# --- what each seat may be shown, checked in random games (issue 26: RW920, RW923) ------------------
from .engine.knowledge.properties import resample_problem
from .engine.knowledge import record_of, shown_leaks

# --- the rulebook's display: section (drawing a state is the play wing's) --------------------------
from .engine.display.display import DisplayHints, check_display, fact_problem, read_hints, space_readers
# issue 30: pictures, boards and score tracks of `display:` (the view and the web server read them)
from .engine.display.display import IMAGE_BYTES, IMAGE_TYPES, image_folder, image_name, image_problem, image_url, track_problem
from .engine.display.say import Phrases, check_say, parse_template, words
# --- issue 30: the display language's component looks and picks ---------------------------------------
from .engine.display.display import SHAPES, Pick, fill_template, template_fields
# --- pieces with a shape (issue 27): what a grid cell covered by a piece's part shows ----------------
from .engine.display.display import part_problem

# --- issue 41: the rulebook's names in words, for a rules document (`regelwerk rules`; RW274) --------
from .engine.display.wording import display_words, plain_constants

# --- the engine's limits (the play wing's server adds its own fields: serve_tables, serve_streams…) -
from .engine.run.limits import LIMITS, configure as configure_limits
# --- AI environments: observation vectors, their bounds, the full (privileged) view ------------------
from .engine.knowledge.tensors import EVERYONE, observation_bounds, observation_vector
from .engine.run.facts import draws_at_random, perfect_information
# --- AI environments (issue 29): observation vectors written over the last one (only what changed) ---
from .engine.knowledge.observation_writer import ObservationWriter

# --- compiling rulebook text outside a rulebook (scenarios' steps and expressions, coverage, mutants) -
from .engine.compile.context import Cx, Scope, suggest
from .engine.compile.exprs import compile_expr
from .engine.compile.flowcode import instruction, rule_error
from .engine.compile.model import Procedure
from .engine.run.frames import Frame
from .engine.compile.steps import STEP_KINDS, StepCompiler

__all__ = [
    "Rulebook", "State", "ChanceState", "IllegalAction", "GameSetupError", "RulebookError", "RuleRuntimeError",
    "check_rulebook", "check_names", "load_rulebook_once", "public_action_id", "rulebook_path", "shipped_games",
    "types", "Component", "Zone", "format_value", "plain", "Rng",
    "information_state_string", "space_of",
    "resample_problem", "record_of", "shown_leaks",
    "EVERYONE", "observation_bounds", "observation_vector", "draws_at_random", "perfect_information",
    "DisplayHints", "check_display", "read_hints", "space_readers", "fact_problem", "Phrases", "check_say",
    "parse_template", "words", "SHAPES", "Pick", "fill_template", "template_fields",
    "part_problem", "display_words", "plain_constants",
    "IMAGE_BYTES", "IMAGE_TYPES", "image_folder", "image_name", "image_problem", "image_url", "track_problem",
    "LIMITS", "configure_limits",
    "Cx", "Scope", "compile_expr", "suggest", "instruction", "rule_error", "Procedure", "Frame", "STEP_KINDS",
    "StepCompiler",
    "ObservationWriter",
]
