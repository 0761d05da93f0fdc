"""An expression of the rules language read out in the rulebook's own names.

Where a rule has no words of its own, a rules document prints its expression as a phrase:
every name through :class:`Namer` (``display: names:`` and ``titles:``, a plain word as itself,
a plain constant as its value), operators and the standard library as words.  Never Python,
never a raw name: a name without words reads with spaces for underscores (``validate`` warns
about those: RW274).
"""
from __future__ import annotations

from dsl import ast
from dsl.parser import ParseError, parse_assignment, parse_expression, parse_for_head

from ...game import words as raw_words
from ...game import display_words, plain_constants

#: names of the language and the words a rules document has for them
LANGUAGE = {"player": "the player", "players": "the players", "num_players": "the number of players",
            "num_seats": "the number of seats", "viewer": "the viewer", "event": "the event", "box": "the box",
            "round": "the round"}
_COMPARE = {"==": "is", "!=": "is not", "<": "is less than", "<=": "is at most", ">": "is more than",
            ">=": "is at least", "in": "is one of", "notin": "is not one of"}
_ARITH = {"+": "+", "-": "−", "*": "×", "//": "÷", "%": "modulo", "**": "to the power of"}


#: the fields of the built-in events (docs/language.md, Triggers)
EVENT_FIELDS = {"from": "the place they come from", "to": "the place they go to", "components": "the components",
                "count": "how many", "short": "fewer could be drawn than asked for"}
_ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth"]
_PREPOSITIONS = ("of", "on", "in", "for", "at", "to", "with", "from", "by")


def prose(title: str) -> str:
    """A title inside a sentence: "Quarry bag" -> "quarry bag" (not "NOTES" or "K2")."""
    if len(title) > 1 and title[0].isupper() and title[1].islower():
        return title[0].lower() + title[1:]
    return title


class Namer:
    """The words for each name of one rulebook."""

    def __init__(self, source):
        self.words = display_words(source.sections.get("display"))
        self.values = plain_constants(source)
        functions = source.sections.get("functions")
        #: the rulebook's own functions: a call of one is never a library function's phrase, even
        #: under a library name (the rulebook's name wins, docs/compatibility.md)
        self.functions = set(functions) if isinstance(functions, dict) else set()

    def name(self, ident: str) -> str:
        if ident in self.words:
            return prose(self.words[ident])
        if ident in LANGUAGE:
            return LANGUAGE[ident]
        return raw_words(ident)

    def value(self, ident: str) -> str:
        """A name used as a value: a plain constant reads as what it is."""
        if ident in self.words:
            return prose(self.words[ident])
        if ident in self.values:
            v = self.values[ident]
            return ("yes" if v else "no") if isinstance(v, bool) else str(v)
        return self.name(ident)


class Speaker:
    def __init__(self, namer: Namer):
        self.n = namer

    # --- texts as written in the rulebook ------------------------------------------------------------
    def expr(self, text) -> str:
        """An expression (text) as words; a text that does not parse stays as it is written, named."""
        if isinstance(text, bool):
            return "yes" if text else "no"
        if isinstance(text, (int, float)):
            return str(text)
        try:
            return self.node(parse_expression(str(text)))
        except (ParseError, RecursionError):
            return self.names_in(str(text))

    def assignment(self, text) -> str:
        try:
            a = parse_assignment(str(text))
        except (ParseError, RecursionError):
            return self.names_in(str(text))
        target = self.n.name(a.name)
        if a.index:
            target = f"{target} of {self.join([self.node(i) for i in a.index])}"
        value = self.node(a.value)
        return {"=": f"set {target} to {value}", "+=": f"add {value} to {target}",
                "-=": f"take {value} off {target}", "*=": f"multiply {target} by {value}"}.get(a.op, f"{target}: {value}")

    def let(self, text) -> str:
        try:
            a = parse_assignment(str(text))
        except (ParseError, RecursionError):
            return self.names_in(str(text))
        return f"let {self.n.name(a.name)} be {self.node(a.value)}"

    def for_head(self, text) -> str:
        try:
            f = parse_for_head(str(text))
        except (ParseError, RecursionError):
            return self.names_in(str(text))
        return f"{self.join([self.n.name(x) for x in f.names])} in {self.node(f.iter)}"

    def random_head(self, text) -> str:
        """``removed in colors`` (random:): which name gets which values."""
        try:
            node = parse_expression(str(text))
        except (ParseError, RecursionError):
            return self.names_in(str(text))
        if isinstance(node, ast.Compare) and node.op == "in":
            return f"choose {self.node(node.left)} at random from {self.node(node.right)}"
        return self.node(node)

    def template(self, text) -> str:
        """A log text: its {expression} parts read out."""
        out, i, s = [], 0, str(text)
        while i < len(s):
            j = s.find("{", i)
            if j < 0:
                out.append(s[i:])
                break
            k = s.find("}", j)
            if k < 0:
                out.append(s[i:])
                break
            out.append(s[i:j])
            out.append(self.expr(s[j + 1:k]))
            i = k + 1
        return "".join(out)

    def names_in(self, text: str) -> str:
        import re
        return re.sub(r"[A-Za-z_][A-Za-z0-9_]*", lambda m: self.n.name(m.group()), text)

    # --- the tree ------------------------------------------------------------------------------------
    @staticmethod
    def join(items: list, last: str = "and") -> str:
        items = [x for x in items if x]
        if not items:
            return "nothing"
        if len(items) == 1:
            return items[0]
        return ", ".join(items[:-1]) + f" {last} " + items[-1]

    def sub(self, node) -> str:
        """A part of a larger phrase: bracketed where it is itself an operation."""
        text = self.node(node)
        if isinstance(node, (ast.BinOp, ast.BoolOp, ast.IfExp, ast.Compare)) or text.startswith("it is not so that"):
            return f"({text})"
        return text

    def node(self, n) -> str:  # noqa: C901 - one case per kind of node
        if isinstance(n, ast.Number):
            return str(n.value)
        if isinstance(n, ast.String):
            return f"“{n.value}”"
        if isinstance(n, ast.Const):
            return {True: "yes", False: "no", None: "nobody"}.get(n.value, str(n.value))
        if isinstance(n, ast.Name):
            return self.n.value(n.id)
        if isinstance(n, ast.Attr):
            if isinstance(n.obj, ast.Name) and n.obj.id == "option":
                return f"the option “{self.n.name(n.name)}”"
            if isinstance(n.obj, ast.Name) and n.obj.id == "variant":
                return f"the variant “{self.n.name(n.name)}” is played"
            if isinstance(n.obj, ast.Name) and n.obj.id == "event":
                return EVENT_FIELDS.get(n.name) or f"the event's {self.n.name(n.name)}"
            return f"the {self.n.name(n.name)} of {self.sub(n.obj)}"
        if isinstance(n, ast.Index):
            if len(n.args) == 1 and isinstance(n.args[0], ast.Number) and 0 <= n.args[0].value < len(_ORDINALS):
                return f"the {_ORDINALS[n.args[0].value]} of {self.sub(n.obj)}"
            if len(n.args) == 1:
                return f"{self.sub(n.obj)} of {self.sub(n.args[0])}"
            return f"{self.sub(n.obj)} at ({', '.join(self.node(a) for a in n.args)})"
        if isinstance(n, ast.Call):
            return self.call(n)
        if isinstance(n, ast.Lambda):
            return f"{self.n.name(n.param)} such that {self.node(n.body)}"
        if isinstance(n, ast.BinOp):
            op = _ARITH.get(n.op, n.op)
            chain = isinstance(n.left, ast.BinOp) and n.left.op in ("+", "-") and n.op in ("+", "-")
            left = self.node(n.left) if chain or (isinstance(n.left, ast.BinOp) and n.left.op == n.op == "*") \
                else self.sub(n.left)
            text = f"{left} {op} {self.sub(n.right)}"
            return text + (" (rounded down)" if n.op == "//" else "")
        if isinstance(n, ast.Neg):
            return f"−{self.sub(n.operand)}"
        if isinstance(n, ast.Compare):
            return f"{self.sub(n.left)} {_COMPARE.get(n.op, n.op)} {self.sub(n.right)}"
        if isinstance(n, ast.BoolOp):
            return f" {n.op} ".join(self.sub(v) for v in n.values)
        if isinstance(n, ast.Not):
            o = n.operand
            if (isinstance(o, ast.Call) and isinstance(o.func, ast.Name) and o.func.id in ("empty", "full") and o.args
                    and o.func.id not in self.n.functions):
                return f"{self.sub(o.args[0])} is not {o.func.id}"
            inner = self.sub(n.operand)
            return f"it is not so that {inner}" if " " in inner else f"not {inner}"
        if isinstance(n, ast.IfExp):
            return f"{self.sub(n.body)} if {self.node(n.test)}, otherwise {self.sub(n.orelse)}"
        if isinstance(n, ast.Range):
            return f"{self.sub(n.lo)} to {self.sub(n.hi)}"
        if isinstance(n, ast.ListExpr):
            return "no one" if not n.items else "the list " + self.join([self.node(i) for i in n.items])
        if isinstance(n, ast.TupleExpr):
            return "(" + ", ".join(self.node(i) for i in n.items) + ")"
        if isinstance(n, ast.RecordExpr):
            return "(" + ", ".join(f"{self.n.name(k)} {self.node(v)}" for k, v in n.fields) + ")"
        if isinstance(n, ast.ListComp):
            fors = " and ".join(f"{self.join([self.n.name(x) for x in f.names])} in {self.node(f.iter)}"
                                for f in n.fors)
            cond = f" where {self.node(n.cond)}" if n.cond is not None else ""
            simple = (len(n.fors) == 1 and isinstance(n.elt, ast.Name) and n.fors[0].names == [n.elt.id])
            if simple:
                return f"every {fors}{cond}"
            return f"{self.node(n.elt)} for every {fors}{cond}"
        return "…"

    def lam(self, node) -> tuple[str, str]:
        if isinstance(node, ast.Lambda):
            return self.n.name(node.param), self.node(node.body)
        return "x", f"{self.node(node)} of x"

    def call(self, n: ast.Call) -> str:  # noqa: C901 - one phrase per function of the standard library
        name = n.func.id if isinstance(n.func, ast.Name) else None
        args = n.args
        a = [self.sub(x) for x in args]
        if name in self.n.functions:        # the rulebook's own function, named as the rulebook names it
            return self._named_call(name, args, a)
        one = a[0] if a else ""
        keyed = len(args) == 2 and isinstance(args[1], ast.Lambda)
        if name == "count":
            if keyed:
                v, body = self.lam(args[1])
                return f"the number of {v} in {one} such that {body}"
            return f"the number of {one}"
        if name in ("any", "all") and keyed:
            v, body = self.lam(args[1])
            return f"{body}, for {'some' if name == 'any' else 'every'} {v} in {one}"
        if name in ("first", "last") and keyed:
            v, body = self.lam(args[1])
            return f"the {name} {v} in {one} such that {body}"
        if name == "filter" and keyed:
            v, body = self.lam(args[1])
            return f"every {v} in {one} such that {body}"
        if name in ("sum", "max", "min", "argmax", "argmin") and keyed:
            v, body = self.lam(args[1])
            what = {"sum": "the sum of", "max": "the largest", "min": "the smallest",
                    "argmax": "the one with the largest", "argmin": "the one with the smallest"}[name]
            return f"{what} {body} over every {v} in {one}"
        if name in ("rank", "dense_rank") and keyed:
            v, body = self.lam(args[1])
            return f"{one} ranked by {body} (for each {v})"
        phrases = {
            "empty": "{0} is empty", "full": "{0} is full", "room": "the room left in {0}",
            "first": "the first of {0}", "last": "the last of {0}", "top": "the top of {0}",
            "bottom": "the bottom of {0}", "sum": "the sum of {0}", "max": "the largest of {0}",
            "min": "the smallest of {0}", "distinct": "the different {0}", "take": "{1} of {0}",
            "next": "the player after {0}", "prev": "the player before {0}", "seat_name": "{0}",
            "str": "{0}", "abs": "the size of {0}", "sorted": "{0} in order", "reversed": "{0} in reverse order",
            "zones": "every {0} of {1}", "count_nonempty": "the number of filled {0}",
            "capacity": "how much {0} holds at most", "owner": "the owner of {0}", "zone_of": "where {0} lies",
            "known": "{0} knows {1}", "len": "the length of {0}", "index_of": "the place of {1} in {0}",
            "labels": "the names of {0}", "flatten": "every item of {0}", "keys": "the keys of {0}",
            "seats_from": "the seats in turn from {0}", "repeat_list": "{0} repeated {1} times",
            "subsets": "the subsets of {0}", "permutations": "the orders of {0}",
            "best_assignment": "the best way to give each of {0} one of {1} (by {2})",
            "groups": "the groups of {0} that touch (by {1}) and match (by {2})",
            "automaton": "the automaton's choice of {0}",
        }
        if name in ("max", "min") and len(args) > 1:
            return f"the {'largest' if name == 'max' else 'smallest'} of {self.join(a)}"
        if name in phrases:
            try:
                return phrases[name].format(*a)
            except IndexError:
                pass
        return self._named_call(name, args, a) if name else self._named_call(None, args, a, self.sub(n.func))

    def _named_call(self, name, args, a, head=None) -> str:
        head = self.n.name(name) if head is None else head
        if not a:
            return head
        if "…" in head:                     # words with a place for the arguments: "… is full"
            return head.replace("…", ", ".join(self.node(x) for x in args), 1)
        if len(a) == 1:
            return f"{head} {a[0]}" if head.rsplit(" ", 1)[-1] in _PREPOSITIONS else f"{head} of {a[0]}"
        joint = " " if head.rsplit(" ", 1)[-1] in _PREPOSITIONS else " of "
        return f"{head}{joint}({', '.join(self.node(x) for x in args)})"
