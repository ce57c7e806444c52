"""Compiling RECYCLE's scalar forms into closures ``f(state, env)``: variables, integers
and arithmetic, sizes, owners, storages, point maps, strings, conditions, and values.

Each ``c_*`` method reads one form by its head keyword, checks its shape once, and
returns a closure; nothing on the rollout path looks at the syntax tree again.
Variables are resolved at compile time to slots of the ``env`` list.
"""

from __future__ import annotations

from typing import Callable

from .syntax import DOTDOT, INT, SYMBOL, VAR, Atom, SList
from .values import Card, PlayerId, TeamId
from .shapes import (MAX_INT, LOC_HEADS, INT_HEADS, BOOL_HEADS, fail, rt_error, is_atom, kw, head_of, is_storage_form, is_location_form, describe_value, c_div, Scope, Const, compare_size, compare_slot, tag, element_hint)


class ScalarForms:
    """Scalar half of the expression compiler (a mixin of ``FlowCompiler``)."""

    layout = None  # set by the subclass
    fast = True  # speed special cases on; False compiles the plain path of every form

    # -- variables -------------------------------------------------------------------------
    def new_slot(self) -> int:
        self.nslots += 1
        return self.nslots - 1

    def c_var(self, x: Atom, scope: Scope) -> Callable:
        what = scope.lookup(x.value)
        if what is None:
            fail(f"unknown variable '{x.value} (not declared, and not bound by an enclosing any/all/filter/let)", x)
        if isinstance(what, Const):
            v = what.value
            return lambda s, e: v
        slot = what
        return tag(lambda s, e: e[slot], var_slot=slot)

    def const_value(self, x, scope: Scope):
        """The folded value of a literal or declared constant, else None."""
        if isinstance(x, Atom):
            if x.kind == INT:
                return x.value
            if x.kind == VAR:
                what = scope.lookup(x.value)
                if isinstance(what, Const):
                    return what.value
        return None

    # -- integers --------------------------------------------------------------------------
    def c_int(self, x, scope: Scope) -> Callable:
        if isinstance(x, Atom):
            if x.kind == INT:
                v = x.value
                return lambda s, e: v
            if x.kind == VAR:
                what = scope.lookup(x.value)
                if isinstance(what, Const):
                    v = what.value
                    if not isinstance(v, int):
                        fail(f"'{x.value} is {describe_value(v)}, not an integer", x)
                    return lambda s, e: v
                f = self.c_var(x, scope)
                span, name = x.span, x.value
                if scope.hint(name) == "int":
                    return f

                def var_int(s, e):
                    v = f(s, e)
                    if v.__class__ is int or (isinstance(v, int) and not isinstance(v, Card)):
                        return v
                    rt_error(f"'{name} holds {describe_value(v)}, not an integer", span)
                return var_int
            fail(f"expected an integer, got {x}", x)
        if not isinstance(x, SList) or not x.items:
            fail("expected an integer expression, got ()", x)
        sort = is_storage_form(x)
        if sort == "sto":
            return self.c_storage_get("sto", x, scope)
        h = head_of(x)
        if h in ("+", "-", "*", "//", "%", "^"):
            return self.c_arith(h, x, scope)
        if h in ("tri", "fib"):
            self.arity(x, 2)
            f = self.c_int(x.items[1], scope)
            span = x.span
            if h == "tri":
                def tri(s, e):
                    n = f(s, e)
                    r = n * (n + 1) // 2
                    if -MAX_INT <= r <= MAX_INT:
                        return r
                    rt_error(f"integer overflow (beyond 64 bits): tri of {n}", span, "tri")
                return tri

            def fib(s, e):
                n = f(s, e)
                if n < 0 or n > 90:
                    rt_error(f"fib of {n} is out of range (0..90)", span, "fib")
                a, b = 0, 1
                for _ in range(n):
                    a, b = b, a + b
                return a
            return fib
        if h == "random":
            items = x.items
            span = x.span
            if len(items) == 2:
                hi = self.c_int(items[1], scope)

                def rand(s, e):
                    n = hi(s, e)
                    if n < 0:
                        rt_error(f"(random {n}) needs a non-negative bound", span, "random")
                    return s.rng.randint(0, n)
                return rand
            if len(items) == 4 and is_atom(items[2], DOTDOT):
                lo, hi = self.c_int(items[1], scope), self.c_int(items[3], scope)

                def rand_range(s, e):
                    a, b = lo(s, e), hi(s, e)
                    if b < a:
                        rt_error(f"(random {a}..{b}) is an empty range", span, "random")
                    return s.rng.randint(a, b)
                return rand_range
            fail("expected (random N) or (random A..B)", x, "random")
        if h == "size":
            self.arity(x, 2)
            return self.c_size(x.items[1], scope)
        if h == "sum":
            if len(x.items) != 4 or not kw(x.items[2], "using"):
                fail("expected (sum LOCATION using POINTS)", x, "sum")
            cards = self.c_cards(x.items[1], scope)
            pts = self.c_points(x.items[3], scope)
            vs, ps = getattr(cards, "var_slot", None), getattr(pts, "points_slot", None)
            if vs is not None and ps is not None:
                def sum_var(s, e):
                    # a plain loop beats sum(map(...)) on the few cards of a hand or group
                    table = s.points[ps].table
                    total = 0
                    for c in e[vs]:
                        total += table[c]
                    return total
                return sum_var

            def sum_(s, e):
                sc = pts(s, e).table
                return sum([sc[c] for c in cards(s, e)])
            return sum_
        if h == "score":
            if len(x.items) != 4 or not kw(x.items[2], "using"):
                fail("expected (score CARD using POINTS)", x, "score")
            card = self.c_card(x.items[1], scope, optional=True)
            pts = self.c_points(x.items[3], scope)
            span = x.span

            def score(s, e):
                c = card(s, e)
                if c is None:
                    rt_error("score of a card reference that names no card", span, "score")
                return pts(s, e).table[c]
            return score
        fail(f"expected an integer expression, got {self.form_name(x)}", x)

    def c_arith(self, op: str, x: SList, scope: Scope) -> Callable:
        if len(x.items) != 3:
            fail(f"({op} A B) takes exactly two integers", x, op)
        a, b = self.c_int(x.items[1], scope), self.c_int(x.items[2], scope)
        cb = self.const_value(x.items[2], scope)
        span = x.span
        # + and - check the 64-bit range too: (set X (+ X X)) in a loop would otherwise grow
        # without bound
        if op == "+":
            if cb is not None:
                def add_const(s, e):
                    r = a(s, e) + cb
                    if -MAX_INT <= r <= MAX_INT:
                        return r
                    rt_error("integer overflow (beyond 64 bits)", span, op)
                return add_const

            def add(s, e):
                r = a(s, e) + b(s, e)
                if -MAX_INT <= r <= MAX_INT:
                    return r
                rt_error("integer overflow (beyond 64 bits)", span, op)
            return add
        if op == "-":
            if cb is not None:
                def sub_const(s, e):
                    r = a(s, e) - cb
                    if -MAX_INT <= r <= MAX_INT:
                        return r
                    rt_error("integer overflow (beyond 64 bits)", span, op)
                return sub_const

            def sub(s, e):
                r = a(s, e) - b(s, e)
                if -MAX_INT <= r <= MAX_INT:
                    return r
                rt_error("integer overflow (beyond 64 bits)", span, op)
            return sub
        if op == "*":
            def mul(s, e):
                r = a(s, e) * b(s, e)
                if -MAX_INT <= r <= MAX_INT:
                    return r
                rt_error("integer overflow (beyond 64 bits)", span, op)
            return mul
        if op in ("//", "%"):
            def div(s, e):
                p, q = a(s, e), b(s, e)
                if q == 0:
                    rt_error("division by zero", span, op)
                d = c_div(p, q)
                return d if op == "//" else p - q * d
            return div

        def power(s, e):
            p, q = a(s, e), b(s, e)
            if q < 0:
                rt_error(f"negative exponent {q}", span, op)
            if abs(p) > 1 and q > 63:
                rt_error("integer overflow (beyond 64 bits)", span, op)
            r = p**q
            if -MAX_INT <= r <= MAX_INT:
                return r
            rt_error("integer overflow (beyond 64 bits)", span, op)
        return power

    def c_size(self, x, scope: Scope) -> Callable:
        if is_location_form(x):
            idx = self.static_loc_index(x, scope)
            if idx is not None:
                return tag(lambda s, e: len(s.locs[idx]), size_loc=idx)
            o, name = x.items[0], x.items[2]
            if is_atom(o, VAR) and scope.hint(o.value) == "player" and is_atom(name, SYMBOL):
                b1 = self.layout.loc_block(x.items[1].value, name.value) + 1
                slot = scope.lookup(o.value)
                return tag(lambda s, e: len(s.locs[b1 + e[slot]]), size_player=(b1, slot))
            cards = self.c_cards(x, scope)
            return lambda s, e: len(cards(s, e))
        if is_atom(x, VAR) and scope.hint(x.value) == "cards":
            slot = scope.lookup(x.value)
            return lambda s, e: len(e[slot])
        coll = self.c_coll(x, scope)
        return lambda s, e: len(coll(s, e))

    # -- storage ---------------------------------------------------------------------------
    def c_owner(self, x, scope: Scope, what: str = "an owner") -> Callable:
        """An owner expression → owner id (0 game, 1+p player, 1+n+t team)."""
        n = self.layout.nplayers
        if kw(x, "game"):
            return lambda s, e: 0
        if isinstance(x, Atom) and x.kind == VAR:
            f = self.c_var(x, scope)
            span, name = x.span, x.value
            if scope.hint(name) == "player":
                slot = scope.lookup(name)
                return lambda s, e: 1 + e[slot]

            def var_owner(s, e):
                v = f(s, e)
                if isinstance(v, PlayerId):
                    return 1 + v
                if isinstance(v, TeamId):
                    return 1 + n + v
                rt_error(f"'{name} holds {describe_value(v)}, not a player or team", span)
            return var_owner
        h = head_of(x)
        if isinstance(x, SList) and len(x.items) == 2 and kw(x.items[1], "player"):
            p = self.c_player(x, scope)
            if kw(x.items[0], "current"):
                return lambda s, e: 1 + s.pstack[-1][0]
            return lambda s, e: 1 + p(s, e)
        if h == "owner":
            p = self.c_player(x, scope)
            return lambda s, e: 1 + p(s, e)
        if (isinstance(x, SList) and len(x.items) == 2 and kw(x.items[1], "team")) or h == "team":
            t = self.c_team(x, scope)
            return lambda s, e: 1 + n + t(s, e)
        fail(f"expected {what}: game, a player, a team or a variable; got {self.form_name(x)}", x)

    def storage_name(self, x, scope: Scope):
        """A storage/location NAME: constant str, or a closure for a computed name."""
        if isinstance(x, Atom) and x.kind == SYMBOL:
            return x.value
        if isinstance(x, Atom) and x.kind == INT:
            return str(x.value)
        if isinstance(x, Atom) and x.kind == VAR:
            what = scope.lookup(x.value)
            if isinstance(what, Const) and isinstance(what.value, str):
                return what.value
        return self.c_str(x, scope)

    def c_storage_slot(self, sort: str, x: SList, scope: Scope):
        """(HOLDER sort NAME) → (constant slot or None, slot closure)."""
        name = self.storage_name(x.items[2], scope)
        owner = self.c_owner(x.items[0], scope, "a storage holder")
        layout = self.layout
        if isinstance(name, str):
            base = layout.storage_block(sort, name)
            if kw(x.items[0], "game"):
                return base, (lambda s, e: base)
            if isinstance(x.items[0], SList) and len(x.items[0].items) == 2 and kw(x.items[0].items[0], "current") \
                    and kw(x.items[0].items[1], "player"):
                b1 = base + 1
                return None, (lambda s, e: b1 + s.pstack[-1][0])
            return None, (lambda s, e: base + owner(s, e))
        name_fn = name

        bases: dict = {}
        width = layout.width
        attr = {"sto": "ints", "str": "strs", "points": "points"}[sort]

        def dyn_slot(s, e):
            nm = name_fn(s, e)
            b = bases.get(nm)
            if b is None:
                b = bases[nm] = layout.storage_block(sort, nm)
            if b + width > len(getattr(s, attr)):
                s.grow_storage()
            return b + owner(s, e)
        return None, dyn_slot

    def c_storage_get(self, sort: str, x: SList, scope: Scope) -> Callable:
        const, slot = self.c_storage_slot(sort, x, scope)
        attr = {"sto": "ints", "str": "strs", "points": "points"}[sort]
        if const is not None:
            if attr == "ints":
                return tag(lambda s, e: s.ints[const], sto_slot=const)
            if attr == "strs":
                return tag(lambda s, e: s.strs[const], str_slot=const)
            return tag(lambda s, e: s.points[const], points_slot=const)
        if attr == "ints":
            return lambda s, e: s.ints[slot(s, e)]
        if attr == "strs":
            return lambda s, e: s.strs[slot(s, e)]
        return lambda s, e: s.points[slot(s, e)]

    def c_points(self, x, scope: Scope) -> Callable:
        if is_storage_form(x) == "points":
            return self.c_storage_get("points", x, scope)
        if isinstance(x, Atom) and x.kind == VAR:
            return self.c_var(x, scope)
        fail(f"expected a point map (OWNER points NAME), got {self.form_name(x)}", x)

    # -- strings ---------------------------------------------------------------------------
    def c_str(self, x, scope: Scope) -> Callable:
        if isinstance(x, Atom):
            if x.kind == SYMBOL:
                v = x.value
                return lambda s, e: v
            if x.kind == VAR:
                return self.c_var(x, scope)
            if x.kind == INT:
                v = str(x.value)
                return lambda s, e: v
            fail(f"expected a string (a NAME), got {x}", x)
        if is_storage_form(x) == "str":
            return self.c_storage_get("str", x, scope)
        if head_of(x) == "cardatt":
            self.arity(x, 3)
            key = self.storage_name(x.items[1], scope)
            card = self.c_card(x.items[2], scope, optional=True)
            game = self.game
            if isinstance(key, str):
                col = game.attr_column(key)
                if getattr(card, "var_slot", None) is not None and scope.hint(x.items[2].value) == "card":
                    # the attribute of a card bound by any/all/filter over a location: never empty
                    vs = card.var_slot
                    return tag(lambda s, e: col[e[vs]], attr_of_var=(col, vs))
                return lambda s, e: "" if (c := card(s, e)) is None else col[c]
            key_fn = key
            return lambda s, e: "" if (c := card(s, e)) is None else game.attr_column(key_fn(s, e))[c]
        fail(f"expected a string expression, got {self.form_name(x)}", x)

    # -- booleans --------------------------------------------------------------------------
    def c_bool(self, x, scope: Scope) -> Callable:
        if not isinstance(x, SList) or not x.items:
            fail(f"expected a condition, got {x if isinstance(x, Atom) else '()'}", x)
        h = head_of(x)
        items = x.items
        if h in ("and", "or"):
            if len(items) < 3:
                fail(f"({h} ...) takes two or more conditions", x, h)
            parts = [self.c_bool(i, scope) for i in items[1:]]
            if h == "and":
                if len(parts) == 2:
                    p, q = parts
                    return lambda s, e: p(s, e) and q(s, e)
                if len(parts) == 3:
                    p, q, r = parts
                    return lambda s, e: p(s, e) and q(s, e) and r(s, e)

                def and_(s, e):
                    for p in parts:
                        if not p(s, e):
                            return False
                    return True
                return and_
            if len(parts) == 2:
                p, q = parts
                return lambda s, e: p(s, e) or q(s, e)
            if len(parts) == 3:
                p, q, r = parts
                return lambda s, e: p(s, e) or q(s, e) or r(s, e)

            def or_(s, e):
                for p in parts:
                    if p(s, e):
                        return True
                return False
            return or_
        if h == "not":
            self.arity(x, 2)
            p = self.c_bool(items[1], scope)
            return lambda s, e: not p(s, e)
        if h in ("<", ">", "<=", ">="):
            if len(items) != 3:
                fail(f"({h} A B) compares two integers", x, h)
            a, b = self.c_int(items[1], scope), self.c_int(items[2], scope)
            cb = self.const_value(items[2], scope)
            k = getattr(a, "sto_slot", None)
            if cb is not None and k is not None and self.fast:
                return {"<": lambda s, e: s.ints[k] < cb, ">": lambda s, e: s.ints[k] > cb,
                        "<=": lambda s, e: s.ints[k] <= cb, ">=": lambda s, e: s.ints[k] >= cb}[h]
            if cb is not None and self.fast:
                fused = compare_size(a, h, cb)
                if fused is not None:
                    return fused
                return {"<": lambda s, e: a(s, e) < cb, ">": lambda s, e: a(s, e) > cb,
                        "<=": lambda s, e: a(s, e) <= cb, ">=": lambda s, e: a(s, e) >= cb}[h]
            return {"<": lambda s, e: a(s, e) < b(s, e), ">": lambda s, e: a(s, e) > b(s, e),
                    "<=": lambda s, e: a(s, e) <= b(s, e), ">=": lambda s, e: a(s, e) >= b(s, e)}[h]
        if h in ("==", "!="):
            if len(items) != 3:
                fail(f"({h} A B) compares two values", x, h)
            a, b = self.c_value(items[1], scope), self.c_value(items[2], scope)
            cb = self.const_value(items[2], scope)
            if cb is None and isinstance(items[2], Atom) and items[2].kind == SYMBOL:
                cb = items[2].value
            k = getattr(a, "sto_slot", None)
            if cb is not None and k is not None and self.fast:
                if h == "==":
                    return lambda s, e: s.ints[k] == cb
                return lambda s, e: s.ints[k] != cb
            if cb is not None and self.fast:
                fused = compare_size(a, h, cb) or compare_slot(a, h, cb)
                if fused is not None:
                    return fused
            if h == "==":
                if cb is not None:
                    return lambda s, e: a(s, e) == cb
                return lambda s, e: a(s, e) == b(s, e)
            if cb is not None:
                return lambda s, e: a(s, e) != cb
            return lambda s, e: a(s, e) != b(s, e)
        if h in ("any", "all"):
            coll, slot, inner = self.c_binder(x, scope, self.c_bool)
            if h == "any" and kw(items[1], "player"):
                players = self.players

                def any_player(s, e):
                    for v in players:
                        e[slot] = v
                        if inner(s, e):
                            return True
                    return False
                return any_player
            if h == "all" and kw(items[1], "player"):
                players = self.players

                def all_players(s, e):
                    for v in players:
                        e[slot] = v
                        if not inner(s, e):
                            return False
                    return True
                return all_players
            if h == "any":
                def any_(s, e):
                    for v in coll(s, e):
                        e[slot] = v
                        if inner(s, e):
                            return True
                    return False
                return any_

            def all_(s, e):
                for v in coll(s, e):
                    e[slot] = v
                    if not inner(s, e):
                        return False
                return True
            return all_
        fail(f"expected a condition, got {self.form_name(x)}", x)

    def c_binder(self, x: SList, scope: Scope, body_compiler):
        """(any|all|filter COLL 'V BODY) → (collection closure, slot, body closure)."""
        h = head_of(x)
        if len(x.items) != 4 or not is_atom(x.items[2], VAR):
            fail(f"expected ({h} COLLECTION 'VARIABLE BODY)", x, h)
        coll = self.c_coll(x.items[1], scope)
        slot = self.new_slot()
        inner_scope = scope.bind(x.items[2].value, slot, element_hint(x.items[1]))
        inner = body_compiler(x.items[3], inner_scope)
        if body_compiler == self.c_bool:
            inner = self.cache_pure(x.items[3], inner_scope, inner)
        return coll, slot, inner

    def cache_pure(self, x, scope: Scope, fn: Callable) -> Callable:
        """``fn`` wrapped in a cache when ``x`` depends only on the cards of a few locations."""
        if not self.fast:
            return fn
        from .purity import analyse, cached, order_free

        found = analyse(x, lambda name: isinstance(scope.lookup(name), Const))
        if found is None:
            return fn
        locs, pts = found
        return cached(fn, [self.c_cards(l, scope) for l in locs], [self.c_points(p, scope) for p in pts],
                      sort_cards=order_free(x))

    def c_value(self, x, scope: Scope) -> Callable:
        """Any value, by the form's shape (for ==, !=, let and declare)."""
        if isinstance(x, Atom):
            if x.kind == INT:
                return self.c_int(x, scope)
            if x.kind == VAR:
                return self.c_var(x, scope)
            if x.kind == SYMBOL:
                if x.value in ("player", "team"):
                    return self.c_coll(x, scope)
                return self.c_str(x, scope)
            fail(f"expected a value, got {x}", x)
        sort = is_storage_form(x)
        if sort == "sto":
            return self.c_int(x, scope)
        if sort == "str":
            return self.c_str(x, scope)
        if sort == "points":
            return self.c_points(x, scope)
        if is_location_form(x):
            return self.c_locval(x, scope)
        h = head_of(x)
        if h in INT_HEADS:
            return self.c_int(x, scope)
        if h in BOOL_HEADS:
            return self.c_bool(x, scope)
        if h == "cardatt":
            return self.c_str(x, scope)
        if h in ("max", "min", "actual"):
            return self.c_card(x, scope)
        if h in ("top", "bottom") or (isinstance(x, SList) and x.items and is_atom(x.items[0], INT)):
            if len(x.items) == 2 and kw(x.items[1], "player"):
                return self.c_player(x, scope)
            if len(x.items) == 2 and kw(x.items[1], "team"):
                return self.c_team(x, scope)
            if len(x.items) == 2 and self.is_groups_form(x.items[1]):
                return self.c_group_pick(x, scope)
            if len(x.items) == 3:
                return self.c_locval(x, scope)
            return self.c_card(x, scope)
        if isinstance(x, SList) and len(x.items) == 2 and kw(x.items[1], "player"):
            return self.c_player(x, scope)
        if isinstance(x, SList) and len(x.items) == 2 and kw(x.items[1], "team"):
            return self.c_team(x, scope)
        if h == "owner":
            return self.c_player(x, scope)
        if h == "team":
            return self.c_team(x, scope)
        if h in ("any", "all"):
            body = x.items[3] if len(x.items) == 4 else None
            if body is not None and (head_of(body) in BOOL_HEADS or head_of(body) in ("any", "all")):
                return self.c_bool(x, scope)
            return self.c_coll(x, scope)
        if h in LOC_HEADS:
            return self.c_locval(x, scope)
        return self.c_coll(x, scope)

