"""Compiling RECYCLE expressions (integers, booleans, strings, cards, locations,
collections, players, teams) into closures ``f(state, env)``.

Each ``c_*`` method reads one form by its head keyword, checks its shape once, and
returns a closure; nothing on the rollout path looks at the syntax tree again.
Variables are resolved at compile time to slots of the ``env`` list.
"""

from __future__ import annotations

import itertools
from typing import Callable

from .errors import RecycleCompileError, RecycleRuntimeError, Span
from .runtime import KINDS, Card, Groups, PLoc, PlayerId, TeamId
from .syntax import COMMA, DOTDOT, INT, OP, SYMBOL, VAR, Atom, SList

MAX_COLLECTION = 200_000
MAX_INT = 2**63 - 1
MAX_TUPLE = 64

GROUP_HEADS = {"partition", "tuples", "subsets", "runs"}
LOC_HEADS = {"union", "intersect", "disjunction", "sort", "filter", "run"}
CARD_HEADS = {"top", "bottom", "max", "min", "actual"}
INT_HEADS = {"+", "-", "*", "//", "%", "^", "tri", "fib", "random", "size", "sum", "score"}
BOOL_HEADS = {"and", "or", "not", "==", "!=", "<", ">", "<=", ">="}
STORAGE_SORTS = {"sto", "str", "points"}


def fail(message: str, node, form: str | None = None):
    """Raise a positioned compile error about ``node``."""
    raise RecycleCompileError(message, getattr(node, "span", None), form=form)


def rt_error(message: str, span: Span, form: str | None = None):
    """Raise a positioned runtime error (called from closures)."""
    raise RecycleRuntimeError(message, span, form=form)


def is_atom(x, kind=None, value=None) -> bool:
    if not isinstance(x, Atom):
        return False
    return (kind is None or x.kind == kind) and (value is None or x.value == value)


def kw(x, *values) -> bool:
    """True if ``x`` is the keyword atom with one of ``values``."""
    return isinstance(x, Atom) and x.kind == SYMBOL and x.value in values


def head_of(x) -> str | None:
    if isinstance(x, SList) and x.items and isinstance(x.items[0], Atom) and x.items[0].kind in (SYMBOL, OP):
        return x.items[0].value
    return None


def is_storage_form(x) -> str | None:
    """``(HOLDER sto|str|points NAME)`` → the sort, else None."""
    if isinstance(x, SList) and len(x.items) == 3 and kw(x.items[1], *STORAGE_SORTS):
        return x.items[1].value
    return None


def is_location_form(x) -> bool:
    """``(OWNER KIND NAME)``."""
    return isinstance(x, SList) and len(x.items) == 3 and kw(x.items[1], *KINDS)


def describe_value(v) -> str:
    if isinstance(v, PLoc):
        return f"location #{v.idx}"
    if isinstance(v, Groups):
        return "a list of groups"
    if isinstance(v, Card):
        return "a card"
    if isinstance(v, PlayerId):
        return "a player"
    if isinstance(v, TeamId):
        return "a team"
    if isinstance(v, int):
        return f"the integer {v}"
    if isinstance(v, str):
        return f"the string {v!r}"
    if isinstance(v, list):
        return "a collection"
    return type(v).__name__


def c_div(a: int, b: int) -> int:
    """Integer division truncating toward zero (C# semantics)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


class Scope:
    """Compile-time variable scope: names to env slots, or to folded constants."""

    def __init__(self, parent: "Scope | None" = None, bindings: dict | None = None, hints: dict | None = None):
        self.parent = parent
        self.bindings = bindings or {}
        self.hints = hints or {}

    def hint(self, name: str) -> str | None:
        """What a variable is known to hold ("player", "card") when the binder tells."""
        s = self
        while s is not None:
            if name in s.bindings:
                return s.hints.get(name)
            s = s.parent
        return None

    def lookup(self, name: str):
        s = self
        while s is not None:
            if name in s.bindings:
                return s.bindings[name]
            s = s.parent
        return None

    def bind(self, name: str, what, hint: str | None = None) -> "Scope":
        return Scope(self, {name: what}, {name: hint} if hint else None)

    def names(self) -> dict:
        out = {}
        chain = []
        s = self
        while s is not None:
            chain.append(s)
            s = s.parent
        for s in reversed(chain):
            out.update(s.bindings)
        return out


class Const:
    """A declared constant's folded value."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class ExprCompiler:
    """Expression half of the compiler; ``FlowCompiler`` adds actions and stages."""

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

    # -- players and teams -----------------------------------------------------------------
    def c_player(self, x, scope: Scope) -> Callable:
        players = self.players
        n = self.layout.nplayers
        if isinstance(x, Atom) and x.kind == VAR:
            f = self.c_var(x, scope)
            span, name = x.span, x.value

            def var_player(s, e):
                v = f(s, e)
                if isinstance(v, PlayerId):
                    return v
                rt_error(f"'{name} holds {describe_value(v)}, not a player", span)
            return var_player
        if isinstance(x, SList) and len(x.items) == 2 and kw(x.items[1], "player"):
            which = x.items[0]
            if kw(which, "current"):
                return lambda s, e: players[s.pstack[-1][0]]

            if kw(which, "next"):
                def next_player(s, e):
                    top = s.pstack[-1]
                    q = top[1]
                    return players[q] if q is not None else players[(top[0] + 1) % n]
                return next_player
            if kw(which, "previous"):
                return lambda s, e: players[(s.pstack[-1][0] - 1) % n]
            i = self.c_int(which, scope)
            span = x.span

            def nth_player(s, e):
                k = i(s, e)
                if 0 <= k < n:
                    return players[k]
                rt_error(f"there is no player {k} (players are 0..{n - 1})", span)
            return nth_player
        if head_of(x) == "owner":
            self.arity(x, 2)
            card = self.c_card(x.items[1], scope)
            span = x.span
            layout = self.layout

            def owner(s, e):
                info = layout.info(s.card_loc[card(s, e)])
                if info.owner_kind == "player":
                    return players[info.owner]
                rt_error(f"the card is in {info.label}, which no player owns", span, "owner")
            return owner
        fail(f"expected a player, got {self.form_name(x)}", x)

    def c_team(self, x, scope: Scope) -> Callable:
        teams = self.teams
        if isinstance(x, Atom) and x.kind == VAR:
            f = self.c_var(x, scope)
            span, name = x.span, x.value

            def var_team(s, e):
                v = f(s, e)
                if isinstance(v, TeamId):
                    return v
                rt_error(f"'{name} holds {describe_value(v)}, not a team", span)
            return var_team
        if isinstance(x, SList) and len(x.items) == 2 and kw(x.items[1], "team"):
            which = x.items[0]
            if kw(which, "current"):
                return lambda s, e: teams[s.tstack[-1][0]]
            if kw(which, "next"):
                def next_team(s, e):
                    top = s.tstack[-1]
                    return teams[top[1]] if top[1] is not None else teams[(top[0] + 1) % s.nteams]
                return next_team
            if kw(which, "previous"):
                return lambda s, e: teams[(s.tstack[-1][0] - 1) % s.nteams]
            i = self.c_int(which, scope)
            span = x.span

            def nth_team(s, e):
                k = i(s, e)
                if 0 <= k < s.nteams:
                    return teams[k]
                rt_error(f"there is no team {k}", span)
            return nth_team
        if head_of(x) == "team":
            self.arity(x, 2)
            p = self.c_player(x.items[1], scope)
            span = x.span

            def team_of(s, e):
                t = s.team_of[p(s, e)]
                if t is None:
                    rt_error("that player is on no team", span, "team")
                return teams[t]
            return team_of
        fail(f"expected a team, got {self.form_name(x)}", x)

    # -- cards -----------------------------------------------------------------------------
    def c_card(self, x, scope: Scope, optional: bool = False) -> Callable:
        """A card expression → closure giving a Card (or None when ``optional`` and empty)."""
        if isinstance(x, Atom) and x.kind == VAR:
            f = self.c_var(x, scope)
            span, name = x.span, x.value
            if scope.hint(name) == "card":
                return f

            def var_card(s, e):
                v = f(s, e)
                if isinstance(v, Card) or (optional and v is None):
                    return v
                rt_error(f"'{name} holds {describe_value(v)}, not a card", span)
            return var_card
        h = head_of(x)
        if not isinstance(x, SList):
            fail(f"expected a card, got {x}", x)
        items = x.items
        span = x.span
        if h in ("top", "bottom") or (items and is_atom(items[0], INT)) or (
                items and is_atom(items[0], VAR) and len(items) == 2):
            if len(items) != 2:
                fail("expected (top LOCATION), (bottom LOCATION) or (INDEX LOCATION)", x)
            cards = self.c_cards(items[1], scope, first_group=True)
            where = f"({items[0]} ...)"
            if h == "top":
                def top(s, e):
                    lst = cards(s, e)
                    if lst:
                        return lst[-1]
                    if optional:
                        return None
                    rt_error("(top ...) of an empty location", span, "top")
                return top
            if h == "bottom":
                def bottom(s, e):
                    lst = cards(s, e)
                    if lst:
                        return lst[0]
                    if optional:
                        return None
                    rt_error("(bottom ...) of an empty location", span, "bottom")
                return bottom
            idx = self.c_int(items[0], scope)

            def nth(s, e):
                lst = cards(s, e)
                i = idx(s, e)
                if 0 <= i < len(lst):
                    return lst[i]
                if optional:
                    return None
                rt_error(f"index {i} out of range for a location of {len(lst)} cards", span, where)
            return nth
        if h in ("max", "min"):
            if len(items) != 4 or not kw(items[2], "using"):
                fail(f"expected ({h} LOCATION using POINTS)", x, h)
            cards = self.c_cards(items[1], scope)
            pts = self.c_points(items[3], scope)
            pick_max = h == "max"

            def extreme(s, e):
                lst = cards(s, e)
                if not lst:
                    if optional:
                        return None
                    rt_error(f"({h} ...) of an empty location", span, h)
                sc = pts(s, e).table
                best = max(sc[c] for c in lst) if pick_max else min(sc[c] for c in lst)
                tied = [c for c in lst if sc[c] == best]
                return tied[0] if len(tied) == 1 else tied[s.rng.randrange(len(tied))]
            return extreme
        if h == "actual":
            self.arity(x, 2)
            return self.c_card(items[1], scope, optional)
        fail(f"expected a card, got {self.form_name(x)}", x)

    # -- locations -------------------------------------------------------------------------
    def static_loc_index(self, x: SList, scope: Scope):
        """The constant index of ``(game KIND NAME)`` with a literal name, else None."""
        if is_location_form(x) and kw(x.items[0], "game"):
            name = self.storage_name(x.items[2], scope)
            if isinstance(name, str):
                return self.layout.loc_block(x.items[1].value, name)
        return None

    def c_loc_index(self, x, scope: Scope, purpose: str = "a location") -> Callable:
        """A physical location expression → closure giving its index in ``state.locs``."""
        if isinstance(x, Atom) and x.kind == VAR:
            f = self.c_var(x, scope)
            span, name = x.span, x.value

            def var_loc(s, e):
                v = f(s, e)
                if isinstance(v, PLoc):
                    return v.idx
                rt_error(f"'{name} holds {describe_value(v)}, not {purpose}", span)
            return var_loc
        if not is_location_form(x):
            fail(f"expected {purpose} (OWNER KIND NAME), got {self.form_name(x)}", x)
        kind = x.items[1].value
        name = self.storage_name(x.items[2], scope)
        layout = self.layout
        if isinstance(name, str):
            base = layout.loc_block(kind, name)
            o = x.items[0]
            if kw(o, "game"):
                return lambda s, e: base
            if isinstance(o, SList) and len(o.items) == 2 and kw(o.items[0], "current") and kw(o.items[1], "player"):
                b1 = base + 1
                return tag(lambda s, e: b1 + s.pstack[-1][0], loc_current=b1)
            owner = self.c_owner(o, scope, "a location owner")
            return lambda s, e: base + owner(s, e)
        owner = self.c_owner(x.items[0], scope, "a location owner")
        name_fn = name

        bases: dict = {}
        width = layout.width

        def dyn_loc(s, e):
            nm = name_fn(s, e)
            b = bases.get(nm)
            if b is None:
                b = bases[nm] = layout.loc_block(kind, nm)
            if b + width > len(s.locs):
                s.grow_locs()
            return b + owner(s, e)
        return dyn_loc

    def c_locval(self, x, scope: Scope) -> Callable:
        """A location as a value: PLoc for a physical location, a list for a view."""
        if is_location_form(x):
            idx = self.c_loc_index(x, scope)
            return lambda s, e: PLoc(idx(s, e))
        return self.c_cards(x, scope)

    def c_cards(self, x, scope: Scope, first_group: bool = False) -> Callable:
        """A location or view → closure giving its cards (bottom first).

        For a physical location the live list is returned: callers that move cards while
        iterating must copy it. With ``first_group``, a variable holding a list of groups
        stands for its first group (``(top 'PAIRS)`` as a card: the top card of the first
        pair, our reading of a form the reference rejects; docs/language.md).
        """
        if isinstance(x, Atom) and x.kind == VAR:
            f = self.c_var(x, scope)
            span, name = x.span, x.value

            hint = scope.hint(name)
            if hint == "cards":
                return tag(f, var_slot=scope.lookup(name))
            if hint == "loc":
                slot = scope.lookup(name)
                return lambda s, e: s.locs[e[slot].idx]

            def var_cards(s, e):
                v = f(s, e)
                if isinstance(v, PLoc):
                    return s.locs[v.idx]
                if isinstance(v, list) and not isinstance(v, Groups):
                    return v
                if first_group and isinstance(v, Groups):
                    return v[0] if v else []
                rt_error(f"'{name} holds {describe_value(v)}, not a location", span)
            return var_cards
        if is_location_form(x):
            const = self.static_loc_index(x, scope)
            if const is not None:
                return tag(lambda s, e: s.locs[const], loc_const=const)
            o, name = x.items[0], x.items[2]
            if is_atom(o, VAR) and scope.hint(o.value) == "player" and is_atom(name, SYMBOL):
                b1 = self.layout.loc_block(x.items[1].value, name.value) + 1
                slot = scope.lookup(o.value)
                return tag(lambda s, e: s.locs[b1 + e[slot]], loc_player_var=(b1, slot))
            if isinstance(o, SList) and len(o.items) == 2 and kw(o.items[0], "current") and kw(o.items[1], "player") \
                    and is_atom(name, SYMBOL):
                b1 = self.layout.loc_block(x.items[1].value, name.value) + 1
                return tag(lambda s, e: s.locs[b1 + s.pstack[-1][0]], loc_current=b1)
            idx = self.c_loc_index(x, scope)
            return lambda s, e: s.locs[idx(s, e)]
        h = head_of(x)
        items = x.items if isinstance(x, SList) else ()
        span = getattr(x, "span", None)
        if h in ("union", "intersect", "disjunction"):
            parts = self.c_loc_list(items[1:], scope, x)
            if h == "union":
                def union(s, e):
                    out = []
                    for p in parts(s, e):
                        out.extend(p)
                    return out
                return union
            if h == "intersect":
                def intersect(s, e):
                    lists = parts(s, e)
                    if not lists:
                        return []
                    rest = [set(l) for l in lists[1:]]
                    return [c for c in lists[0] if all(c in r for r in rest)]
                return intersect

            def disjunction(s, e):
                count: dict = {}
                order = []
                for l in parts(s, e):
                    for c in l:
                        if c not in count:
                            order.append(c)
                        count[c] = count.get(c, 0) + 1
                return [c for c in order if count[c] == 1]
            return disjunction
        if h == "sort":
            if len(items) != 4 or not kw(items[2], "using"):
                fail("expected (sort LOCATION using POINTS)", x, "sort")
            cards = self.c_cards(items[1], scope)
            pts = self.c_points(items[3], scope)

            def sort(s, e):
                sc = pts(s, e).table
                return sorted(cards(s, e), key=sc.__getitem__)
            return sort
        if h == "filter":
            coll, slot, cond = self.c_binder(x, scope, self.c_bool)

            def filter_(s, e):
                out = []
                for v in coll(s, e):
                    e[slot] = v
                    if cond(s, e):
                        out.append(v)
                return out
            return filter_
        if h == "run":
            if len(items) != 6 or not kw(items[1], "top", "bottom") or not kw(items[4], "using"):
                fail("expected (run top|bottom N LOCATION using POINTS)", x, "run")
            from_top = items[1].value == "top"
            nmin = self.c_int(items[2], scope)
            cards = self.c_cards(items[3], scope)
            pts = self.c_points(items[5], scope)

            def run_(s, e):
                lst = cards(s, e)
                sc = pts(s, e).table
                best: list = []
                for k in range(max(nmin(s, e), 1), len(lst) + 1):
                    chunk = lst[-k:] if from_top else lst[:k]
                    vals = sorted(chunk, key=sc.__getitem__)
                    if all(sc[vals[i + 1]] - sc[vals[i]] == 1 for i in range(len(vals) - 1)):
                        best = vals
                return best
            return run_
        if h in ("top", "bottom") or (items and is_atom(items[0], INT)) or (items and is_atom(items[0], VAR)):
            if len(items) == 2:
                return self.c_group_pick(x, scope)
            if len(items) == 3 and h in ("top", "bottom"):
                nf = self.c_int(items[1], scope)
                cards = self.c_cards(items[2], scope)
                top = h == "top"

                def first_n(s, e):
                    lst = cards(s, e)
                    k = nf(s, e)
                    if k < 0 or k > len(lst):
                        rt_error(f"({h} {k} ...) of a location of {len(lst)} cards", span, h)
                    if k == 0:
                        return []
                    return lst[-k:][::-1] if top else lst[:k]
                return first_n
        if h == "let":
            return self.c_let_value(x, scope, self.c_cards)
        fail(f"expected a location, got {self.form_name(x)}", x)

    def c_let_value(self, x, scope, body_compiler):
        if len(x.items) != 4 or not is_atom(x.items[2], VAR):
            fail("expected (let VALUE 'VARIABLE BODY)", x, "let")
        val = self.c_value(x.items[1], scope)
        slot = self.new_slot()
        body = body_compiler(x.items[3], scope.bind(x.items[2].value, slot, value_hint(x.items[1], scope)))

        def let_(s, e):
            e[slot] = val(s, e)
            return body(s, e)
        return let_

    def c_loc_list(self, items, scope, x) -> Callable:
        """Arguments of union/intersect/disjunction/partition: locations or (all C 'V LOC)."""
        if len(items) == 1 and head_of(items[0]) == "all":
            coll, slot, inner = self.c_binder(items[0], scope, self.c_cards)

            def each(s, e):
                out = []
                for v in coll(s, e):
                    e[slot] = v
                    out.append(inner(s, e))
                return out
            return each
        if not items:
            fail("expected one or more locations", x)
        parts = [self.c_cards(i, scope) for i in items]
        return lambda s, e: [p(s, e) for p in parts]

    # -- groups ----------------------------------------------------------------------------
    def is_groups_form(self, x) -> bool:
        return head_of(x) in GROUP_HEADS

    def c_group_pick(self, x: SList, scope: Scope) -> Callable:
        """(top G), (bottom G), (i G): one group of a group list (top = first)."""
        items = x.items
        groups = self.c_groups(items[1], scope)
        h = head_of(x)
        span = x.span
        if h == "top":
            pos = lambda s, e: 0  # noqa: E731
        elif h == "bottom":
            pos = lambda s, e: -1  # noqa: E731
        else:
            pos = self.c_int(items[0], scope)

        def pick(s, e):
            g = groups(s, e)
            i = pos(s, e)
            if -len(g) <= i < len(g) and g:
                return g[i]
            rt_error(f"no group {'at ' + str(i) if h not in ('top', 'bottom') else h} in a list of {len(g)} groups",
                     span, h or str(items[0]))
        return pick

    def c_groups(self, x, scope: Scope) -> Callable:
        if isinstance(x, Atom) and x.kind == VAR:
            f = self.c_var(x, scope)
            span, name = x.span, x.value

            def var_groups(s, e):
                v = f(s, e)
                if isinstance(v, list):
                    return v
                rt_error(f"'{name} holds {describe_value(v)}, not a list of groups", span)
            return var_groups
        h = head_of(x)
        items = x.items if isinstance(x, SList) else ()
        span = getattr(x, "span", None)
        if h == "partition":
            if len(items) < 3:
                fail("expected (partition KEY LOCATION...)", x, h)
            key = self.storage_name(items[1], scope)
            game = self.game
            if len(items) == 3 and head_of(items[2]) != "all":
                cards = self.c_cards(items[2], scope)
                if isinstance(key, str):
                    col = game.attr_column(key)

                    def partition1(s, e):
                        groups: dict = {}
                        for c in cards(s, e):
                            k = col[c]
                            g = groups.get(k)
                            if g is None:
                                groups[k] = [c]
                            else:
                                g.append(c)
                        return Groups(groups.values())
                    return partition1
            parts = self.c_loc_list(items[2:], scope, x)
            key_fn = (lambda s, e: key) if isinstance(key, str) else key

            def partition(s, e):
                col = game.attr_column(key_fn(s, e))
                groups: dict = {}
                for lst in parts(s, e):
                    for c in lst:
                        groups.setdefault(col[c], []).append(c)
                return Groups(groups.values())
            return partition
        if h == "tuples":
            if len(items) != 5 or not kw(items[3], "using"):
                fail("expected (tuples N LOCATION using POINTS)", x, h)
            nf = self.c_int(items[1], scope)
            cards = self.c_cards(items[2], scope)
            pts = self.c_points(items[4], scope)

            def tuples(s, e):
                k = nf(s, e)
                if not 1 <= k <= MAX_TUPLE:
                    rt_error(f"(tuples {k} ...): the size of a tuple must be 1..{MAX_TUPLE}", span, h)
                sc = pts(s, e).table
                by_score: dict = {}
                for c in cards(s, e):
                    by_score.setdefault(sc[c], []).append(c)
                out = Groups()
                for score in sorted(by_score):
                    for combo in itertools.combinations(by_score[score], k):
                        out.append(list(combo))
                        if len(out) > MAX_COLLECTION:
                            rt_error("tuples would make too many groups", span, h)
                return out
            return tuples
        if h == "subsets":
            self.arity(x, 2)
            cards = self.c_cards(items[1], scope)

            def subsets(s, e):
                lst = cards(s, e)
                if len(lst) > 16:
                    rt_error(f"subsets of {len(lst)} cards would make {2 ** len(lst)} groups (limit 2^16)", span, h)
                out = Groups()
                for r in range(len(lst) + 1):
                    out.extend(list(c) for c in itertools.combinations(lst, r))
                return out
            return subsets
        if h == "runs":
            if len(items) != 6 or not kw(items[1], "largest", "all") or not kw(items[4], "using"):
                fail("expected (runs largest|all N LOCATION using POINTS)", x, h)
            largest = items[1].value == "largest"
            nf = self.c_int(items[2], scope)
            cards = self.c_cards(items[3], scope)
            pts = self.c_points(items[5], scope)

            def runs(s, e):
                return Groups(find_runs(cards(s, e), pts(s, e).table, nf(s, e), largest, span))
            return runs
        if h == "filter":
            return self.c_cards(x, scope)
        if h == "let":
            return self.c_let_value(x, scope, self.c_groups)
        fail(f"expected a list of groups, got {self.form_name(x)}", x)

    # -- collections (anything any/all/filter/size can range over) -------------------------
    def c_coll(self, x, scope: Scope) -> Callable:
        players = self.players
        teams = self.teams
        if isinstance(x, Atom):
            if kw(x, "player"):
                return lambda s, e: players
            if kw(x, "team"):
                return lambda s, e: teams[: s.nteams]
            if x.kind == VAR:
                f = self.c_var(x, scope)
                span, name = x.span, x.value

                def var_coll(s, e):
                    v = f(s, e)
                    if isinstance(v, PLoc):
                        return s.locs[v.idx]
                    if isinstance(v, (list, range)):
                        return v
                    if isinstance(v, TeamId):
                        return [players[p] for p in s.team_members[v]]
                    rt_error(f"'{name} holds {describe_value(v)}, not a collection", span)
                return var_coll
            fail(f"expected a collection, got {x}", x)
        items = x.items
        h = head_of(x)
        if is_location_form(x):
            return self.c_cards(x, scope)
        if h in GROUP_HEADS:
            return self.c_groups(x, scope)
        if h == "range":
            if len(items) != 4 or not is_atom(items[2], DOTDOT):
                fail("expected (range A..B)", x, h)
            lo, hi = self.c_int(items[1], scope), self.c_int(items[3], scope)
            span = x.span

            def range_(s, e):
                a, b = lo(s, e), hi(s, e)
                if b - a > MAX_COLLECTION:
                    rt_error(f"(range {a}..{b}) is too long", span, "range")
                return range(a, b + 1)
            return range_
        if h == "other":
            if len(items) != 2 or not kw(items[1], "player", "team"):
                fail("expected (other player) or (other team)", x, h)
            if items[1].value == "player":
                return lambda s, e: [p for p in players if p != s.pstack[-1][0]]
            return lambda s, e: [t for t in teams[: s.nteams] if t != s.tstack[-1][0]]
        if h == "all" and len(items) == 4 and not (head_of(items[3]) in BOOL_HEADS):
            return self.c_loc_list([x], scope, x)
        if h == "let":
            return self.c_let_value(x, scope, self.c_coll)
        if len(items) == 2 and kw(items[1], "team") or h == "team":
            t = self.c_team(x, scope)
            return lambda s, e: [players[p] for p in s.team_members[t(s, e)]]
        if items and all(isinstance(i, Atom) and (i.is_name or i.kind == COMMA) for i in items):
            names = [i.value for i in items if i.kind == SYMBOL]
            return lambda s, e: names
        return self.c_cards(x, scope)

    # -- helpers ---------------------------------------------------------------------------
    def arity(self, x: SList, n: int) -> None:
        if len(x.items) != n:
            h = head_of(x) or "form"
            fail(f"({h} ...) takes {n - 1} argument{'s' if n != 2 else ''}, got {len(x.items) - 1}", x, h)

    @staticmethod
    def form_name(x) -> str:
        if isinstance(x, Atom):
            return f"'{x}'" if x.kind != VAR else str(x)
        h = head_of(x)
        if h:
            return f"({h} ...)"
        return "()" if not x.items else "a form " + str(x)[:40]


def find_runs(cards, scores, nmin: int, largest: bool, span) -> list:
    """Runs of scores increasing by exactly 1 (RECYCLE.md 5.3), one per choice of tied cards."""
    by_score: dict = {}
    for c in cards:
        by_score.setdefault(scores[c], []).append(c)
    values = sorted(by_score)
    out: list = []
    i = 0
    nmin = max(nmin, 1)
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        block = values[i : j + 1]
        if largest:
            spans = [(0, len(block))] if len(block) >= nmin else []
        else:
            spans = [(a, a + k) for k in range(nmin, len(block) + 1) for a in range(len(block) - k + 1)]
        for a, b in spans:
            for combo in itertools.product(*(by_score[v] for v in block[a:b])):
                out.append(list(combo))
                if len(out) > MAX_COLLECTION:
                    rt_error("runs would make too many groups", span, "runs")
        i = j + 1
    return out


def compare_size(a: Callable, op: str, cb) -> Callable | None:
    """``(OP (size LOCATION) CONSTANT)`` as one closure, for a fixed or a player's location."""
    idx = getattr(a, "size_loc", None)
    if idx is not None:
        return {"<": lambda s, e: len(s.locs[idx]) < cb, ">": lambda s, e: len(s.locs[idx]) > cb,
                "<=": lambda s, e: len(s.locs[idx]) <= cb, ">=": lambda s, e: len(s.locs[idx]) >= cb,
                "==": lambda s, e: len(s.locs[idx]) == cb, "!=": lambda s, e: len(s.locs[idx]) != cb}[op]
    player = getattr(a, "size_player", None)
    if player is not None:
        b1, slot = player
        return {"<": lambda s, e: len(s.locs[b1 + e[slot]]) < cb, ">": lambda s, e: len(s.locs[b1 + e[slot]]) > cb,
                "<=": lambda s, e: len(s.locs[b1 + e[slot]]) <= cb,
                ">=": lambda s, e: len(s.locs[b1 + e[slot]]) >= cb,
                "==": lambda s, e: len(s.locs[b1 + e[slot]]) == cb,
                "!=": lambda s, e: len(s.locs[b1 + e[slot]]) != cb}[op]
    return None


def compare_slot(a: Callable, op: str, cb) -> Callable | None:
    """``(==|!= X CONSTANT)`` as one closure when X is a string storage or a bound card's
    attribute (Hearts asks both of every card in a hand, at every play)."""
    k = getattr(a, "str_slot", None)
    if k is not None:
        return (lambda s, e: s.strs[k] == cb) if op == "==" else (lambda s, e: s.strs[k] != cb)
    attr = getattr(a, "attr_of_var", None)
    if attr is not None:
        col, vs = attr
        return (lambda s, e: col[e[vs]] == cb) if op == "==" else (lambda s, e: col[e[vs]] != cb)
    return None


def tag(f: Callable, **facts) -> Callable:
    """Attach facts about a closure's shape (e.g. ``sto_slot``) so callers can fuse it."""
    f.__dict__.update(facts)
    return f


def element_hint(coll) -> str | None:
    """What the elements of a collection form are, when its syntax tells."""
    h = head_of(coll)
    if kw(coll, "player") or (h == "other" and len(coll.items) == 2 and kw(coll.items[1], "player")):
        return "player"
    if is_location_form(coll) or h in ("filter", "union", "intersect", "disjunction", "sort") and \
            len(coll.items) > 1 and is_location_form(coll.items[1]):
        return "card"
    if h in GROUP_HEADS:
        return "cards"
    if h == "range":
        return "int"
    return None


def value_hint(x, scope) -> str | None:
    """What a let-bound value is, when its syntax tells."""
    if is_atom(x, INT) or is_storage_form(x) == "sto" or head_of(x) in INT_HEADS:
        return "int"
    if is_location_form(x):
        return "loc"
    return None
