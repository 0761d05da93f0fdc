"""The rulebook's names declared and compiled: enums, options and variants, constants,
tables, kinds of components, zone families (grids, visibility), variables, functions, and
the clashes between names.  A part of :class:`~interpreter.engine.compile.compiler.Compiler`
(compiler.py composes it and runs the passes).
"""
from __future__ import annotations

import re

from dsl.diagnostics import Pos, Report
from dsl.yamlload import LDict, LList

from . import types as T
from .context import E_NAME, E_TYPE, Cx, Scope, suggest
from .exprs import compile_expr
from .calls import compile_function, inlinable
from .model import (ConstDecl, EnumDecl, FuncDecl, IndexSpec, ItemSpec, KindDecl, OptionDecl, TableDecl, VarDecl, ZoneFamily)


#: the expression language's own words (dsl/grammar.lark): no name can be spelled like them
KEYWORDS = frozenset({"true", "false", "none", "and", "or", "not", "in", "if", "else", "for"})
RESERVED = {"player", "players", "num_players", "num_seats", "option", "variant", "event", "viewer", "box",
            "kind"} | KEYWORDS


class Declarations:
    """The declaration passes of :class:`Compiler`."""

    __slots__ = ()

    # enums ------------------------------------------------------------------------
    def declare_enums(self, enums: LDict):
        g = self.game
        for name, symbols in enums.items():
            if not isinstance(symbols, list):
                continue
            syms = []
            for i, sym in enumerate(symbols):
                spos = symbols.pos_of(i)
                if not isinstance(sym, str):
                    continue
                if sym in g.symbol_enum:
                    self.report.error(spos, f"symbol '{sym}' is already in enum '{g.symbol_enum[sym]}'", "RW120")
                    continue
                if sym in KEYWORDS:
                    self.report.error(spos, f"symbol '{sym}' is a word of the expression language: an expression "
                                            f"could never name it (rename it)", "RW120")
                    continue
                if sym in self.kind_names:
                    self.report.error(spos, f"symbol '{sym}' is also a component kind", "RW120")
                    continue
                g.symbol_enum[sym] = name
                syms.append(str(sym))
            g.enums[name] = EnumDecl(name, tuple(syms), enums.key_pos[name])

    def declare_options(self, options: LDict, variants: LDict):
        g = self.game
        for name, spec in options.items():
            if not isinstance(spec, dict):
                continue
            allowed = spec.get("allowed")
            if isinstance(allowed, str):
                scope = Scope()
                fn, typ = self.static_expr(allowed, spec.pos_of("allowed"), scope, what="allowed values")
                if fn is not None and not isinstance(typ, T.ListT) and not T.is_any(typ):
                    self.report.error(spec.pos_of("allowed"), f"allowed values must be a list, not "
                                                              f"{T.describe(typ)}", E_TYPE)
                    fn = None
                allowed = sized(fn, scope) if fn is not None else None
            elif isinstance(allowed, list):
                allowed = [str(a) if isinstance(a, str) else a for a in allowed]
            default = spec.get("default")
            default = str(default) if isinstance(default, str) else default
            g.options[name] = OptionDecl(name, default, allowed, options.key_pos[name])
        for name in variants:
            g.variants[name] = variants.key_pos[name]

    def declare_constants(self, consts: LDict):
        g = self.game
        for name, value in consts.items():
            pos = consts.pos_of(name)
            if isinstance(value, dict) and set(value) == {"expr"}:
                g.constants[name] = ConstDecl(name, T.ANY, consts.key_pos[name])
                continue
            v, t = self.literal(value, pos)
            g.constants[name] = ConstDecl(name, t, consts.key_pos[name], value=v)

    def compile_constants(self, consts: LDict):
        g = self.game
        for name, value in consts.items():
            if isinstance(value, dict) and set(value) == {"expr"}:
                scope = Scope()
                fn, typ = self.static_expr(value["expr"], value.pos_of("expr"), scope, what=f"constant {name}")
                decl = g.constants[name]
                decl.type = typ
                decl.compute = sized(fn, scope) if fn is not None else (lambda st, L: None)

    # tables -----------------------------------------------------------------------
    def declare_tables(self, tables: LDict):
        g = self.game
        for name, rows in tables.items():
            if not isinstance(rows, dict):
                continue
            decl = TableDecl(name, T.ANY, T.ANY, tables.key_pos[name])
            ktypes, vtypes = [], []
            for key, value in rows.items():
                kpos = rows.key_pos.get(key, rows.pos)
                v, vt = self.literal(value, rows.pos_of(key))
                vtypes.append(vt)
                if isinstance(key, bool):
                    self.report.error(kpos, "a table key is a number, a range or a symbol", E_TYPE)
                    continue
                if isinstance(key, int):
                    decl.ranges.append((key, key, v, kpos))
                    ktypes.append(T.INT)
                    continue
                text = str(key).strip()
                m = re.fullmatch(r"(-?\d+)\s*(?:-|\.\.)\s*(-?\d+)", text)
                if m:
                    lo, hi = int(m.group(1)), int(m.group(2))
                    if lo > hi:
                        self.report.error(kpos, f"range '{text}' is empty (its start is above its end)", "RW201")
                    decl.ranges.append((lo, hi, v, kpos))
                    ktypes.append(T.INT)
                    continue
                m = re.fullmatch(r"(-?\d+)\s*\+", text)
                if m:
                    decl.ranges.append((int(m.group(1)), None, v, kpos))
                    ktypes.append(T.INT)
                    continue
                if text in g.symbol_enum:
                    decl.exact[text] = v
                    ktypes.append(T.Sym(g.symbol_enum[text]))
                    continue
                self.report.error(kpos, f"table key '{text}' is not a number, a range (3-5), an open range (7+) "
                                        f"or a known symbol{suggest(text, g.symbol_enum)}", E_NAME)
            decl.ranges.sort(key=lambda r: r[0])
            for prev, cur in zip(decl.ranges, decl.ranges[1:]):
                if prev[1] is None or cur[0] <= prev[1]:
                    self.report.error(cur[3], f"table '{name}': key {_key_text(cur)} overlaps {_key_text(prev)}",
                                      "RW205")
                elif cur[0] > prev[1] + 1:
                    gap = f"{prev[1] + 1}" if cur[0] == prev[1] + 2 else f"{prev[1] + 1}-{cur[0] - 1}"
                    self.report.error(cur[3], f"table '{name}' has a gap: no row for {gap}", "RW205")
            decl.key_type = T.join_all(ktypes) if ktypes else T.ANY
            decl.value_type = T.join_all(vtypes) if vtypes else T.ANY
            g.tables[name] = decl

    # components -----------------------------------------------------------------
    def declare_kinds(self, comps: LDict):
        g = self.game
        for name, spec in comps.items():
            if not isinstance(spec, dict):
                continue
            attrs = {}
            for aname, tname in (spec.get("attributes") or {}).items():
                apos = spec["attributes"].pos_of(aname)
                problem = T.attribute_name_problem(str(aname))
                if problem:
                    self.report.error(apos, problem, E_NAME)
                    g.shadowed_attrs = g.shadowed_attrs | {str(aname)}
                    continue
                attrs[aname] = self.type_name(tname, apos)
            kind = KindDecl(name, attrs, comps.key_pos[name])
            label = spec.get("label")
            if isinstance(label, str):
                kind.label = label
                parts = []
                for piece in re.split(r"(\{[^{}]*\})", label):
                    if piece.startswith("{") and piece.endswith("}"):
                        field = piece[1:-1].strip()
                        if field in g.shadowed_attrs:
                            pass                # its declaration is the error (reported once)
                        elif field in T.RESERVED_ATTRIBUTES:
                            self.report.error(spec.pos_of("label"), f"label field: {T.attribute_name_problem(field)}",
                                              E_NAME)
                        elif field not in attrs:
                            self.report.error(spec.pos_of("label"), f"label field '{field}' is not an attribute of "
                                                                    f"'{name}'{suggest(field, attrs)}", E_NAME)
                        parts.append((True, field))
                    elif piece:
                        parts.append((False, piece))
                kind.label_parts = parts
            g.kinds[name] = kind

    def compile_kinds(self, comps: LDict):
        g = self.game
        for name, spec in comps.items():
            if not isinstance(spec, dict) or name not in g.kinds:
                continue
            kind = g.kinds[name]
            items = spec.get("items")
            if items is None:
                items_list = [(spec, spec.pos)]
            else:
                items_list = [(it, items.pos_of(i)) for i, it in enumerate(items) if isinstance(it, dict)]
                if "count" in spec:
                    self.report.error(spec.pos_of("count"), "give 'count' in each item when there are items", E_TYPE)
            for item, ipos in items_list:
                kind.items.append(self.compile_item(kind, item, ipos, items is None))
            if "home" in spec:
                scope = Scope([(a, t) for a, t in kind.attributes.items()])
                fn, typ = self.dyn_expr(spec["home"], spec.pos_of("home"), scope, "home")
                if fn is not None and not isinstance(typ, T.ZoneT) and not T.is_any(typ):
                    self.report.error(spec.pos_of("home"), f"home must be a zone, not {T.describe(typ)}", E_TYPE)
                kind.home = fn
                kind.home_pos = spec.pos_of("home")
                kind.home_nslots = scope.nslots
            if "shape" in spec:                 # a piece's cells as drawn: as many as its parts
                scope = Scope([(a, t) for a, t in kind.attributes.items()])
                fn, typ = self.dyn_expr(spec["shape"], spec.pos_of("shape"), scope, "shape")
                if fn is not None and not T.is_listlike(typ) and not T.is_any(typ):
                    self.report.error(spec.pos_of("shape"), f"shape is the list of a piece's cells, not "
                                                            f"{T.describe(typ)}", E_TYPE)
                kind.shape = fn
                kind.shape_pos = spec.pos_of("shape")
                kind.shape_nslots = scope.nslots

    def compile_item(self, kind: KindDecl, item: LDict, pos: Pos, whole_spec: bool) -> ItemSpec:
        scope = Scope()
        for_each = []
        for var, domain in (item.get("for_each") or {}).items():
            dpos = item["for_each"].pos_of(var)
            fn, typ = self.static_expr(domain, dpos, scope, f"for_each {var}")
            elem = T.elem_of(typ)
            if fn is not None and not T.is_listlike(typ):
                self.report.error(dpos, f"for_each '{var}' must range over a list, not {T.describe(typ)}", E_TYPE)
            slot = scope.declare(var, elem)
            for_each.append(IndexSpec(var, fn or (lambda st, L: ()), elem, slot, dpos))
        count = self.compile_count(item.get("count", 1), item.pos_of("count") if "count" in item else pos, scope)
        attrs = {}
        skip = {"count", "for_each"} | ({"attributes", "label", "home", "shape", "description", "items"} if whole_spec
                                        else set())
        for aname, value in item.items():
            if aname in skip:
                continue
            apos = item.pos_of(aname)
            if aname not in kind.attributes:
                self.report.error(item.key_pos.get(aname, apos),
                                  f"'{aname}' is not an attribute of '{kind.name}'{suggest(aname, kind.attributes)}",
                                  E_NAME)
                continue
            fn, typ = self.static_expr(value, apos, scope, aname)
            if fn is not None and not T.compatible(typ, kind.attributes[aname]):
                self.report.error(apos, f"attribute '{aname}' is {T.describe(kind.attributes[aname])}, "
                                        f"not {T.describe(typ)}", E_TYPE)
            attrs[aname] = fn or (lambda st, L: None)
        for spec in for_each:  # a for_each name that is an attribute sets it
            if spec.name in kind.attributes and spec.name not in attrs:
                slot = spec.slot
                attrs[spec.name] = lambda st, L, slot=slot: L[slot]
                if not T.compatible(spec.type, kind.attributes[spec.name]):
                    self.report.error(spec.pos, f"attribute '{spec.name}' is {T.describe(kind.attributes[spec.name])}, "
                                                f"not {T.describe(spec.type)}", E_TYPE)
        return ItemSpec(count, for_each, attrs, scope.nslots, pos)

    def compile_count(self, value, pos: Pos, scope: Scope | None = None):
        if isinstance(value, bool):
            self.report.error(pos, "a count is a number", E_TYPE)
            return lambda st, L: 0
        if isinstance(value, int):
            return lambda st, L: value
        if isinstance(value, dict):
            table = {}
            for k, v in value.items():
                if not isinstance(k, int):
                    self.report.error(value.key_pos.get(k, pos), "a count by player count has numbers as keys",
                                      E_TYPE)
                    continue
                table[k] = v

            def by_players(st, L):
                n = st.lay.num_players
                if n not in table:
                    from dsl.diagnostics import RuleRuntimeError
                    raise RuleRuntimeError(f"no count given for {n} players", pos)
                return table[n]
            return by_players
        fn, typ = self.static_expr(value, pos, scope, "count")
        if fn is not None and not T.is_numeric(typ):
            self.report.error(pos, f"a count must be a number, not {T.describe(typ)}", E_TYPE)
        return fn or (lambda st, L: 0)

    # zones ------------------------------------------------------------------------
    def declare_zones(self, zones: LDict):
        g = self.game
        for name, spec in zones.items():
            if not isinstance(spec, dict):
                continue
            if name == "box":
                self.report.error(zones.key_pos[name], "'box' is the built-in zone of components out of the game",
                                  E_NAME)
                continue
            holds = spec.get("holds") or []
            if isinstance(holds, str):
                holds = [holds]
            for i, k in enumerate(holds):
                if k not in self.kind_names:
                    hpos = spec["holds"].pos_of(i) if isinstance(spec["holds"], LList) else spec.pos_of("holds")
                    self.report.error(hpos, f"unknown component kind '{k}'{suggest(k, self.kind_names)}", E_NAME)
            fam = ZoneFamily(name, len(g.zone_list), zones.key_pos[name], [], spec.get("type", "area"),
                             frozenset(str(k) for k in holds))
            g.zones[name] = fam
            g.zone_list.append(fam)
            scope = Scope()
            for var in (spec.get("index") or {}):
                scope.declare(var, T.ANY)  # types filled in compile_zones
            fam.nslots = scope.nslots

    def compile_zones(self, zones: LDict):
        g = self.game
        for name, spec in zones.items():
            if name not in g.zones:
                continue
            fam = g.zones[name]
            scope = Scope()
            for var, domain in (spec.get("index") or {}).items():
                dpos = spec["index"].pos_of(var)
                fn, typ = self.static_expr(domain, dpos, scope, f"index {var}")
                if fn is not None and not T.is_listlike(typ):
                    self.report.error(dpos, f"index '{var}' must range over a list, not {T.describe(typ)}", E_TYPE)
                elem = T.elem_of(typ)
                slot = scope.declare(var, elem)
                fam.index.append(IndexSpec(var, fn or (lambda st, L: ()), elem, slot, dpos))
            if "capacity" in spec:
                if isinstance(spec["capacity"], int) and not isinstance(spec["capacity"], bool):
                    fam.capacity_literal = spec["capacity"]
                elif isinstance(spec["capacity"], str) and spec["capacity"] in g.constants and \
                        isinstance(g.constants[spec["capacity"]].value, int):
                    fam.capacity_literal = g.constants[spec["capacity"]].value
                fn, typ = self.static_expr(spec["capacity"], spec.pos_of("capacity"), scope, "capacity")
                if fn is not None and not T.is_numeric(typ):
                    self.report.error(spec.pos_of("capacity"), f"capacity must be a number, not {T.describe(typ)}",
                                      E_TYPE)
                fam.capacity = fn
            if "owner" in spec:
                fn, typ = self.static_expr(spec["owner"], spec.pos_of("owner"), scope, "owner")
                if fn is not None and not T.compatible(typ, T.PLAYER):
                    self.report.error(spec.pos_of("owner"), f"owner must be a seat, not {T.describe(typ)}", E_TYPE)
                fam.owner = fn
            if "refill" in spec and isinstance(spec["refill"], dict):
                rpos = spec["refill"].pos_of("from")
                fn, typ = self.dyn_expr(spec["refill"].get("from"), rpos, scope, "refill")
                if fn is not None and not isinstance(typ, T.ZoneT) and not T.is_any(typ):
                    self.report.error(rpos, f"refill comes from a zone, not {T.describe(typ)}", E_TYPE)
                fam.refill = fn
            if "visible" in spec:
                self.compile_visible(fam, spec, scope)
            if "cells" in spec:
                self.compile_grid(fam, spec, scope)
            fam.nslots = scope.nslots

    def compile_grid(self, fam, spec: LDict, scope: Scope) -> None:
        """``cells:`` of a zone family: each zone is a grid of these cells, its components
        pieces that cover some of them (a `move` with `cells:`).  A grid is an area everyone
        sees (what covers each cell is shown per cell), so neither hidden nor a bag or deck."""
        cpos = spec.pos_of("cells")
        fn, typ = self.static_expr(spec["cells"], cpos, scope, "cells")
        if fn is not None and not T.is_listlike(typ):
            self.report.error(cpos, f"cells must be a list of cells, not {T.describe(typ)}", E_TYPE)
        if spec.get("visible", True) is not True or spec.get("type", "area") != "area":
            self.report.error(cpos, f"zone '{fam.name}' has cells: a grid is an area everyone sees "
                                    "(no 'visible:' other than true, no bag or deck)", "RW270")
        fam.cells = fn or (lambda st, L: ())
        fam.cells_pos = cpos
        self.game.grids = True

    def compile_visible(self, target, spec: LDict, scope: Scope) -> None:
        """``visible:`` of a zone family or a variable: a constant or a condition on ``viewer``."""
        vis = spec["visible"]
        if isinstance(vis, bool):
            target.visible_const = vis
            return
        target.viewer_slot = scope.declare("viewer", T.PLAYER)
        before = dict(self.game.uses)
        dynamic_before = self.game.dynamic_reads
        fn, _ = self.dyn_expr(vis, spec.pos_of("visible"), scope, "visible", cond=True)
        target.visible = fn
        target.visible_const = None
        # the same for every seat when it never names the viewer (what a replay remembers asks once)
        target.visible_by_viewer = not isinstance(vis, str) or re.search(r"\bviewer\b", vis) is not None
        # what the condition reads (tensors.py keeps its values per viewer while they stay the same)
        target.visible_reads = frozenset(n for n, c in self.game.uses.items() if c > before.get(n, 0))
        target.visible_reads_any = self.game.dynamic_reads > dynamic_before

    # variables --------------------------------------------------------------------
    def declare_variables(self, variables: LDict):
        g = self.game
        for name, spec in variables.items():
            pos = variables.key_pos[name]
            if name in RESERVED:
                self.report.error(pos, f"'{name}' is a reserved name", E_NAME)
                continue
            if isinstance(spec, dict):
                declared = self.type_name(spec["type"], spec.pos_of("type")) if "type" in spec else None
                index = spec.get("index") or {}
            else:
                declared, index = None, {}
            var = VarDecl(name, declared or T.ANY, pos, init=lambda st, L: None)
            var.index = [IndexSpec(k, None, T.ANY, i, pos) for i, k in enumerate(index)]
            var.shown = isinstance(spec, dict) and spec.get("shown") is True
            if not isinstance(spec, dict) or "type" not in spec:
                init = spec.get("init") if isinstance(spec, dict) else spec
                var.type = self._init_type(init)
            g.variables[name] = var
            if var.index:
                var.family_id = len(g.family_vars)
                g.family_vars.append(var)
            else:
                var.offset = len(g.scalar_vars)
                g.scalar_vars.append(var)

    def _init_type(self, init) -> T.Type:
        if isinstance(init, (bool, int)) or init is None or isinstance(init, (list, dict)):
            return self.literal(init, Pos("?"))[1] if init is not None else T.ANY
        if isinstance(init, str):
            node = self.parse(init, getattr(init, "pos", Pos("?")))
            if node is None:
                return T.ANY
            _, typ = compile_expr(node, Cx(self.game, Report(), Scope(), True, {}, None))
            return typ
        return T.ANY

    def compile_variables(self, variables: LDict):
        g = self.game
        # scalars first, then families: State.v is laid out in that order
        offset = 0
        for var in g.scalar_vars:
            var.offset = offset
            offset += 1
        for name, spec in variables.items():
            var = g.variables.get(name)
            if var is None:
                continue
            scope = Scope()
            if isinstance(spec, dict):
                for spec_i, (iname, domain) in enumerate((spec.get("index") or {}).items()):
                    dpos = spec["index"].pos_of(iname)
                    fn, typ = self.static_expr(domain, dpos, scope, f"index {iname}")
                    elem = T.elem_of(typ)
                    slot = scope.declare(iname, elem)
                    var.index[spec_i] = IndexSpec(iname, fn or (lambda st, L: ()), elem, slot, dpos)
                init = spec.get("init")
                ipos = spec.pos_of("init")
            else:
                init, ipos = spec, variables.pos_of(name)
            if isinstance(init, (list, dict)):
                value, typ = self.literal(init, ipos)
                var.init = lambda st, L, value=value: value
            elif init is None:
                var.init = lambda st, L: None
                typ = T.NONE
            else:
                fn, typ = self.static_expr(init, ipos, scope, f"init of {name}")
                var.init = fn or (lambda st, L: None)
            if not T.compatible(typ, var.type):
                self.report.error(ipos, f"variable '{name}' holds {T.describe(var.type)}, but its init is "
                                        f"{T.describe(typ)}", E_TYPE)
            if isinstance(spec, dict):
                for bound in ("min", "max"):
                    if bound in spec:
                        fn, bt = self.static_expr(spec[bound], spec.pos_of(bound), scope, bound)
                        if fn is not None and not T.is_numeric(bt):
                            self.report.error(spec.pos_of(bound), f"{bound} must be a number", E_TYPE)
                        setattr(var, bound, fn)
                if "visible" in spec:
                    self.compile_visible(var, spec, scope)
            var.nslots = scope.nslots

    # functions --------------------------------------------------------------------
    def declare_functions(self, funcs: LDict):
        g = self.game
        for name, spec in funcs.items():
            if not isinstance(spec, dict):
                continue
            pos = funcs.key_pos[name]
            # a name of the standard library is the rulebook's own from here on, in every
            # expression of the rulebook (docs/compatibility.md: the library may grow)
            params = []
            for pname, tname in (spec.get("params") or {}).items():
                params.append((pname, self.type_name(tname, spec["params"].pos_of(pname))))
            g.functions[name] = FuncDecl(name, params, spec.get("value"), pos, slot=len(g.functions))
            g.functions[name].value_pos = spec.pos_of("value")

    def compile_function(self, f: FuncDecl, pos: Pos, static: bool = False):
        if f.compiled is not None or f.compiling:
            return
        f.compiling = True
        scope = Scope(f.params)
        before = dict(self.game.uses)
        dynamic_before = self.game.dynamic_reads
        node = f.tree = self.parse(f.body, f.value_pos)
        if node is None:
            f.compiled, f.type = (lambda st, *args: None), T.ANY
        else:
            errors = len(self.report.errors)
            domains, self.in_option_domains = self.in_option_domains, False    # its calls are a function's
            try:
                fn, typ = compile_function(node, Cx(self.game, self.report, scope, False, {}, self), f.slot,
                                           len(f.params), f.params, owner=f)
            finally:
                self.in_option_domains = domains
            f.compiled, f.type = fn, typ
            fill = getattr(fn, "_rw_fill", None)
            if fill is not None:
                fill._rw_decl = f           # for probes.plain_calls: is it called only by options?
            if len(self.report.errors) == errors and inlinable(node, self.game.functions):
                f.inline_body = node
        f.reads = {n for n, c in self.game.uses.items() if c > before.get(n, 0)}
        f.reads_dynamic = self.game.dynamic_reads > dynamic_before
        f.reads_any = f.reads_dynamic or any(T.may_hold_zone(t) for _, t in f.params)
        f.nslots = max(scope.nslots, 1)
        f.compiling = False

    # names ---------------------------------------------------------------------------
    def check_name_clashes(self):
        g = self.game
        seen = {}
        groups = [("enum", g.enums), ("symbol", g.symbol_enum), ("constant", g.constants), ("table", g.tables),
                  ("component kind", g.kinds), ("zone", g.zones), ("variable", g.variables),
                  ("function", g.functions)]
        for what, table in groups:
            for name in table:
                if name in RESERVED and what != "symbol":
                    self.report.error(self._pos_of(what, name), f"'{name}' is a reserved name", E_NAME)
                if name in seen and not (what == "symbol" and seen[name] == "enum"):
                    self.report.error(self._pos_of(what, name), f"'{name}' is both a {seen[name]} and a {what}",
                                      "RW121")
                seen.setdefault(name, what)

    def _pos_of(self, what, name) -> Pos:
        g = self.game
        obj = {"enum": g.enums, "constant": g.constants, "table": g.tables, "component kind": g.kinds,
               "zone": g.zones, "variable": g.variables, "function": g.functions}.get(what, {}).get(name)
        if obj is not None:
            return obj.pos
        if what == "symbol":
            return g.enums[g.symbol_enum[name]].pos
        return Pos(self.first_file)


def _key_text(r) -> str:
    lo, hi = r[0], r[1]
    if hi is None:
        return f"'{lo}+'"
    return f"'{lo}'" if lo == hi else f"'{lo}-{hi}'"


def sized(fn, scope: Scope):
    """Give ``fn`` a frame as large as its scope needs; callers pass ``[first]``."""
    n = max(scope.nslots, 1)
    if n == 1:
        return fn

    def call(st, L):
        frame = [None] * n
        frame[0] = L[0]
        return fn(st, frame)
    return call
