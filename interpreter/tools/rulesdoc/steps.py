"""Steps as sentences: one template per step kind (the kinds of docs/language.md, Steps).

:class:`StepWriter` turns a step list of the rulebook (setup, flow, an action's effects …) into
:class:`Line` s, each linked to the step's ``file:line``; a step's own steps (a loop's body, a
branch) become its children.
"""
from __future__ import annotations

from ...game import STEP_KINDS
from .model import Line
from .speak import Speaker

_SCOPE_WORDS = {"turn": "turn", "action": "action", "phase": "phase", "round": "round", "game": "game"}


def cap(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def sentence(text: str) -> str:
    text = cap(text.strip())
    return text if text.endswith((".", ":", "!", "?", "”")) else text + "."


class StepWriter:
    def __init__(self, speaker: Speaker, src, source):
        self.s = speaker
        self.src = src                      # Pos -> Source
        self.source = source
        self.actions = source.mapping("actions")
        self.procedures = source.mapping("procedures")

    def steps(self, steps) -> list:
        out = []
        if not isinstance(steps, list):
            return out
        for i, step in enumerate(steps):
            pos = steps.pos_of(i) if hasattr(steps, "pos_of") else None
            if isinstance(step, dict):
                out.extend(self.step(step, pos))
        return out

    def step(self, st: dict, pos) -> list:
        """The step as a Line (an ``if`` with an ``else``: the Line and its "Otherwise")."""
        kind = next((k for k in st if k in STEP_KINDS), None)
        src = self.src(getattr(st, "pos", pos))
        if kind is None:
            return [Line(sentence("(a step this document cannot read)"), src, "unknown")]
        text, children = getattr(self, "k_" + kind)(st[kind], st)
        out = [Line(sentence(text), src, kind, children)]
        if kind == "if" and st.get("else"):
            out.append(Line("Otherwise:", self.src(st.pos_of("else")), "else", self.steps(st["else"])))
        return out

    # --- one template per step kind -------------------------------------------------------------------
    def k_set(self, v, st):
        return self.s.assignment(v), []

    def k_let(self, v, st):
        return self.s.let(v), []

    def k_move(self, v, st):
        text = f"move {self.s.expr(v)} to {self.s.expr(st.get('to'))}"
        if st.get("bottom") is True:
            text += ", under what is there"
        if st.get("at") is not None:
            text += f", with {self.s.expr(st['at'])} of its other components under it"
        if st.get("cells") is not None:
            text += f", covering the cells {self.s.expr(st['cells'])}"
        return text, []

    def k_draw(self, v, st):
        text = f"draw {self.s.expr(v)} from {self.s.expr(st.get('from'))} into {self.s.expr(st.get('to'))}"
        if st.get("as"):
            text += f" (call them {self.s.n.name(str(st['as']))})"
        return text, []

    def k_shuffle(self, v, st):
        return f"shuffle {self.s.expr(v)}", []

    def k_if(self, v, st):
        return f"if {self.s.expr(v)}:", self.steps(st.get("then"))

    def k_for(self, v, st):
        return f"for each {self.s.for_head(v)}:", self.steps(st.get("do"))

    def k_while(self, v, st):
        return f"as long as {self.s.expr(v)}:", self.steps(st.get("do"))

    def k_random(self, v, st):
        return self.s.random_head(v), []

    def k_repeat(self, v, st):
        return f"do this {self.s.expr(v)} times:", self.steps(st.get("do"))

    def k_turns(self, v, st):
        text = f"the players take turns clockwise, starting with {self.s.expr(v)}"
        if st.get("once") is True:
            text += "; each player has one turn"
        if st.get("while") is not None:
            text += f"; turns go on as long as {self.s.expr(st['while'])}"
        if st.get("skip") is not None:
            text += f"; a player is skipped when {self.s.expr(st['skip'])}"
        return text + ". In a turn:", self.steps(st.get("do"))

    def _scope(self, what, v, st):
        name = self.s.n.name(str(v))
        return f"{what} “{name}”:", self.steps(st.get("do"))

    def k_phase(self, v, st):
        return self._scope("the phase", v, st)

    def k_round(self, v, st):
        return self._scope("a round, the", v, st)

    def k_scope(self, v, st):
        return self._scope("the part", v, st)

    def k_decide(self, v, st):
        names, children = [], []
        items = v if isinstance(v, list) else [v]
        for i, item in enumerate(items):
            pos = items.pos_of(i) if hasattr(items, "pos_of") else None
            if isinstance(item, dict):          # an action written in place
                line = self.action(str(item.get("name", "")), item, getattr(item, "pos", pos))
                children.append(line)
                names.append(line.lead)
            else:
                names.append(self.action_name(str(item)))
        chooser = "every player chooses at once" if st.get("simultaneous") else "the player chooses"
        text = f"{chooser}: {self.s.join(names, 'or')}"
        if st.get("otherwise") is not None:
            other = Line("If there is nothing to choose:", self.src(st.pos_of("otherwise")), "otherwise",
                         self.steps(st["otherwise"]))
            children.append(other)
        return text, children

    def k_bidding(self, v, st):
        names = [self.action_name(str(x)) for x in (v if isinstance(v, list) else [v])]
        first = st.get("first")
        who = f"starting with {self.s.expr(first)}" if first is not None else "starting with the player"
        if st.get("together") is not None:
            how = "every player says at once whether to raise, again and again, until a call brings no raise"
        else:
            again = "the player after the last raise" if st.get("restart") == "after" else "the first again"
            how = f"the players are asked in turn, {who}; after a raise the asking begins with {again}; " \
                  f"the bidding ends when every player, asked in turn, has passed"
        return f"bidding: {self.s.join(names, 'or')} — {how}", []

    def k_call(self, v, st):
        name = str(v)
        text = f"carry out “{self.s.n.name(name)}”"
        args = st.get("with")
        if isinstance(args, dict) and args:
            text += " with " + self.s.join([f"{self.s.n.name(str(k))} = {self.s.expr(x)}" for k, x in args.items()])
        return text, []

    def k_emit(self, v, st):
        return f"the event “{self.s.n.name(str(v))}” happens", []

    def k_defer(self, v, st):
        until = st.get("until", "turn")
        text = f"at the end of the {_SCOPE_WORDS.get(str(until), self.s.n.name(str(until)))}: carry out " \
               f"“{self.s.n.name(str(v))}”"
        if st.get("once") is True:
            text += " (once, however often this happens)"
        return text, []

    def k_end_game(self, v, st):
        said = f" (everyone is told “{self.s.template(v)}”)" if isinstance(v, str) else ""
        return f"the game ends now{said}", []

    def k_log(self, v, st):
        return f"everyone is told “{self.s.template(v)}”", []

    def k_fail(self, v, st):
        # the message is the designer's note for a broken game (it may name action ids): not a rule
        return "this cannot happen (the game would stop with an error)", []

    def k_break(self, v, st):
        return "stop repeating", []

    def k_end_turn(self, v, st):
        return "the turn ends now", []

    def k_reveal(self, v, st):
        who = self.s.expr(st["to"]) if st.get("to") is not None else "the player"
        return f"{self.s.expr(v)} is shown to {who}", []

    def k_tell(self, v, st):
        who = self.s.expr(st["to"]) if st.get("to") is not None else "the player"
        about = self.s.for_head(st["about"]) if st.get("about") is not None else "it"
        return f"{who} is told, for each {about}, whether {self.s.expr(v)}", []

    # --- actions ------------------------------------------------------------------------------------
    def action_name(self, name: str) -> str:
        return self.s.n.name(name)

    def action(self, name: str, spec, pos) -> Line:
        """An action as rules: what the player may do, when, what they choose and what happens."""
        lead = self.action_name(name)
        said = spec.get("description") if isinstance(spec, dict) else None
        say = self.says().get(name)
        if isinstance(said, str):
            text = f"you may {lead}: {said.strip()}"
        elif isinstance(say, str):
            text = f"you may {lead}: {self.s.template(self._blank(say))}"
        else:
            text = f"you may {lead}"
        children = []
        if isinstance(spec, dict):
            params = spec.get("params")
            if isinstance(params, dict):
                for p, values in params.items():
                    children.append(Line(sentence(f"you choose {self.s.n.name(str(p))} from {self.s.expr(values)}"),
                                         self.src(params.pos_of(p)), "choice"))
            if spec.get("where") is not None:
                children.append(Line(sentence(f"only if {self.s.expr(spec['where'])}"), self.src(spec.pos_of("where")),
                                     "condition"))
            effects = self.steps(spec.get("do"))
            if effects:
                children.append(Line("Then:", self.src(spec.pos_of("do")), "effects", effects))
        return Line(sentence(text), self.src(pos), "action", children, lead=cap(lead))

    def says(self) -> dict:
        d = self.source.sections.get("display")
        say = d.get("say") if isinstance(d, dict) else None
        return say if isinstance(say, dict) else {}

    @staticmethod
    def _blank(template: str) -> str:
        """A say: template with its choices left open: ``{n:stone}`` -> ``… stone``, ``[…|x]`` kept plain."""
        import re
        text = re.sub(r"\{(\w+)(?::(\w+))?\}", lambda m: "…" + (f" {m.group(2)}" if m.group(2) else ""), template)
        text = re.sub(r"\[([^\]|]*)(?:\|[^\]]*)?\]", r"\1", text)
        return text.replace("{", "").replace("}", "")
