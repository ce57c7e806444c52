"""Compiling RECYCLE's integer forms into closures ``f(state, env)``: literals, variables,
integer storages, arithmetic (64-bit, C# division), tri, fib, random, size, sum, score.
"""

from __future__ import annotations

from collections.abc import Callable

from .reads import reads_node
from ..nodes.base import Const, FormNode, Loc, Num, Storage, Turn, Unread, Var, Word, written
from ..nodes.numbers import Add, Div, Fib, Mod, Mul, Pid, Pow, Random, Score, ScoreMax, ScoreMin, Size, Sub, Sum, Tri
from .registry import Kind, form
from .runtime import out_of_work
from .runtime import SMALL
from .runtime import MAX_INT, c_div, describe_value, rt_error, tag
from ..nodes.sexpr import Scope, fail
from .values import Card


class IntForms:
    """The integer forms of the compiler (a mixin of ``FlowCompiler``)."""

    def c_int(self, x, scope: Scope) -> Callable:
        """An integer: a number, a constant, a variable, ``(HOLDER sto NAME)`` or an integer form."""
        x = self.entry(x, "int_", scope)
        match x:
            case Num(value=v):
                return lambda s, e: v
            case Const():
                v = scope.lookup(x.name).value
                return lambda s, e: v
            case Var():
                f = self.c_var(x, scope)
                span, name = x.span, x.name
                if scope.hint(name) == "int":
                    return f

                def var_int(s, e):
                    v = f(s, e)
                    if v.__class__ is int or (isinstance(v, int) and not isinstance(v, Card)):
                        return v
                    rt_error(f"'{name} holds {describe_value(v)}, not an integer", span)

                return var_int
            case Storage(sort="sto"):
                return self.c_storage_get("sto", x, scope)
            case FormNode() | Unread():
                return self.form_of(x, scope)
        fail(f"expected an integer expression, got {self.form_name(x)}", x)

    # -- arithmetic ------------------------------------------------------------------------
    def int_operands(self, a, b, scope: Scope):
        """The operands A and B → (A closure, B closure, B's constant value or None)."""
        return self.c_int(a, scope), self.c_int(b, scope), self.const_value(b, scope)

    def int_chain(self, x, scope: Scope, add: bool) -> Callable:
        """(+ A B C ...) / (* A B C ...): three or more operands, the result checked once
        (an error beyond 64 bits)."""
        op = x.HEAD
        parts = [self.c_int(i, scope) for i in x.operands]
        span = x.span

        def chain(s, e):
            if add:
                r = 0
                for f in parts:
                    r += f(s, e)
            else:
                r = 1
                for f in parts:
                    r *= f(s, e)
            if -MAX_INT <= r <= MAX_INT:
                return r
            rt_error("integer overflow (beyond 64 bits)", span, op)

        return chain

    # + and - check the 64-bit range too: (set X (+ X X)) in a loop would otherwise grow
    # without bound
    @form("+", "(+ A B) | (+ A B C ...)", Kind.INT, pure=True)
    @reads_node
    def int_add(self, x: Add, scope: Scope) -> Callable:
        """(+ A B) | (+ A B C ...)

        The sum of two or more integers (an error when it is beyond 64 bits)."""
        if len(x.operands) > 2:
            return self.int_chain(x, scope, True)
        a, b, cb = self.int_operands(*x.operands, scope)
        span = x.span
        if cb is not None:

            def add_const(s, e):
                r = a(s, e) + cb
                if -MAX_INT <= r <= MAX_INT:
                    return r
                rt_error("integer overflow (beyond 64 bits)", span, "+")

            return add_const

        def add(s, e):
            r = a(s, e) + b(s, e)
            if -MAX_INT <= r <= MAX_INT:
                return r
            rt_error("integer overflow (beyond 64 bits)", span, "+")

        return add

    @form("-", "(- A B)", Kind.INT, pure=True)
    @reads_node
    def int_sub(self, x: Sub, scope: Scope) -> Callable:
        """(- A B)

        A minus B (an error beyond 64 bits)."""
        a, b, cb = self.int_operands(x.a, x.b, scope)
        span = x.span
        if cb is not None:

            def sub_const(s, e):
                r = a(s, e) - cb
                if -MAX_INT <= r <= MAX_INT:
                    return r
                rt_error("integer overflow (beyond 64 bits)", span, "-")

            return sub_const

        def sub(s, e):
            r = a(s, e) - b(s, e)
            if -MAX_INT <= r <= MAX_INT:
                return r
            rt_error("integer overflow (beyond 64 bits)", span, "-")

        return sub

    @form("*", "(* A B) | (* A B C ...)", Kind.INT, pure=True)
    @reads_node
    def int_mul(self, x: Mul, scope: Scope) -> Callable:
        """(* A B) | (* A B C ...)

        The product of two or more integers (an error beyond 64 bits)."""
        if len(x.operands) > 2:
            return self.int_chain(x, scope, False)
        a, b, _ = self.int_operands(*x.operands, scope)
        span = x.span

        def mul(s, e):
            r = a(s, e) * b(s, e)
            if -MAX_INT <= r <= MAX_INT:
                return r
            rt_error("integer overflow (beyond 64 bits)", span, "*")

        return mul

    @form("//", "(// A B)", Kind.INT, pure=True)
    @reads_node
    def int_div(self, x: Div, scope: Scope) -> Callable:
        """(// A B)

        Integer division truncating toward zero (C# semantics); division by zero is an
        error."""
        a, b, _ = self.int_operands(x.a, x.b, scope)
        span = x.span

        def div(s, e):
            p, q = a(s, e), b(s, e)
            if q == 0:
                rt_error("division by zero", span, "//")
            return c_div(p, q)

        return div

    @form("%", "(% A B)", Kind.INT, pure=True)
    @reads_node
    def int_mod(self, x: Mod, scope: Scope) -> Callable:
        """(% A B)

        The remainder of A // B, with the sign of A (C# semantics); by zero is an error."""
        a, b, _ = self.int_operands(x.a, x.b, scope)
        span = x.span

        def mod(s, e):
            p, q = a(s, e), b(s, e)
            if q == 0:
                rt_error("division by zero", span, "%")
            return p - q * c_div(p, q)

        return mod

    @form("^", "(^ A B)", Kind.INT, pure=True)
    @reads_node
    def int_pow(self, x: Pow, scope: Scope) -> Callable:
        """(^ A B)

        A to the power B; a negative exponent, or a result beyond 64 bits, is an error."""
        a, b, _ = self.int_operands(x.a, x.b, scope)
        span = x.span

        def power(s, e):
            p, q = a(s, e), b(s, e)
            if q < 0:
                rt_error(f"negative exponent {q}", span, "^")
            if abs(p) > 1 and q > 63:
                rt_error("integer overflow (beyond 64 bits)", span, "^")
            r = p**q
            if -MAX_INT <= r <= MAX_INT:
                return r
            rt_error("integer overflow (beyond 64 bits)", span, "^")

        return power

    @form("tri", "(tri N)", Kind.INT, pure=True)
    @reads_node
    def int_tri(self, x: Tri, scope: Scope) -> Callable:
        """(tri N)

        The N-th triangular number, N(N+1)/2."""
        f = self.c_int(x.n, scope)
        span = x.span

        def tri(s, e):
            n = f(s, e)
            r = n * (n + 1) // 2
            if -MAX_INT <= r <= MAX_INT:
                return r
            rt_error(f"integer overflow (beyond 64 bits): tri of {n}", span, "tri")

        return tri

    @form("fib", "(fib N)", Kind.INT, pure=True)
    @reads_node
    def int_fib(self, x: Fib, scope: Scope) -> Callable:
        """(fib N)

        The N-th Fibonacci number (fib 0 = 0, fib 1 = fib 2 = 1), for N in 0..90."""
        f = self.c_int(x.n, scope)
        span = x.span

        def fib(s, e):
            n = f(s, e)
            if n < 0 or n > 90:
                rt_error(f"fib of {n} is out of range (0..90)", span, "fib")
            a, b = 0, 1
            for _ in range(n):
                a, b = b, a + b
            return a

        return fib

    @form("random", "(random N) | (random A..B)", Kind.INT, draws=True)
    @reads_node
    def int_random(self, x: Random, scope: Scope) -> Callable:
        """(random N) | (random A..B)

        A uniformly random integer in 0..N, or in A..B, both ends included."""
        span = x.span
        if x.low is None:
            hi = self.c_int(x.high, scope)

            def rand(s, e):
                n = hi(s, e)
                if n < 0:
                    rt_error(f"(random {n}) needs a non-negative bound", span, "random")
                return int(s.rng.random() * (n + 1))

            return rand
        lo, hi = self.c_int(x.low, scope), self.c_int(x.high, scope)

        def rand_range(s, e):
            a, b = lo(s, e), hi(s, e)
            if b < a:
                rt_error(f"(random {a}..{b}) is an empty range", span, "random")
            return a + int(s.rng.random() * (b - a + 1))

        return rand_range

    # -- counting and scoring cards --------------------------------------------------------
    @form("size", "(size COLLECTION)", Kind.INT, pure=True, words="size {1}")
    @reads_node
    def int_size(self, x: Size, scope: Scope) -> Callable:
        """(size COLLECTION)

        The number of elements of a collection: cards of a location, groups of a group
        list, players, teams, names or integers of a range."""
        return self.c_size(x.collection, scope)

    def c_size(self, x, scope: Scope) -> Callable:
        """The size of a collection; a location's is fused into one closure where it can be."""
        if isinstance(x, Loc):
            idx = self.static_loc_index(x, scope)
            if idx is not None:
                return tag(lambda s, e: len(s.locs[idx]), size_loc=idx)
            o, name = x.owner, x.name
            if isinstance(o, Var) and scope.hint(o.name) == "player" and isinstance(name, Word):
                b1 = self.layout.loc_block(x.kind, name.value) + 1
                slot = scope.lookup(o.name)
                return tag(lambda s, e: len(s.locs[b1 + e[slot]]), size_player=(b1, slot))
            cards = self.c_cards(x, scope)
            return lambda s, e: len(cards(s, e))
        if isinstance(x, Var) and scope.hint(x.name) == "cards":
            slot = scope.lookup(x.name)
            return lambda s, e: len(e[slot])
        coll = self.c_coll(x, scope)
        return lambda s, e: len(coll(s, e))

    @form("sum", "(sum LOCATION using POINTS)", Kind.INT, pure=True, expensive=True, words="sum {1} {2=using} {3}")
    @reads_node
    def int_sum(self, x: Sum, scope: Scope) -> Callable:
        """(sum LOCATION using POINTS)

        The total score of the cards under the point map (0 for no cards)."""
        cards = self.c_cards(x.location, scope)
        pts = self.c_points(x.points, scope)
        vs, ps = getattr(cards, "var_slot", None), getattr(pts, "points_slot", None)
        span = x.span

        def checked(s, n: int, total: int) -> int:
            # the rare case: many cards (each costs a unit), or a map whose sums may pass 64 bits
            if n > SMALL:
                s.work -= n
                if s.work < 0:
                    out_of_work(s, span, "sum")
            if -MAX_INT <= total <= MAX_INT:
                return total
            rt_error("integer overflow (beyond 64 bits)", span, "sum")

        # a sum is a leaf (no loop inside): it pays for its cards after adding them, and a
        # hand of up to SMALL cards is paid for by the form itself
        if vs is not None and ps is not None and vs in self.once_slots:

            def sum_group(s, e):
                # a group of a list made afresh for the loop around (its cards paid for there);
                # a plain loop beats sum(map(...)) on the few cards of a hand or group
                pm = s.points[ps]
                table = pm.table
                total = 0
                for c in e[vs]:
                    total += table[c]
                if pm.wide:
                    return checked(s, 0, total)
                return total

            return sum_group
        if vs is not None and ps is not None:

            def sum_var(s, e):
                pm = s.points[ps]
                table = pm.table
                lst = e[vs]
                total = 0
                for c in lst:
                    total += table[c]
                if pm.wide or len(lst) > 8:  # 8: SMALL
                    return checked(s, len(lst), total)
                return total

            return sum_var

        def sum_(s, e):
            pm = pts(s, e)
            sc = pm.table
            lst = cards(s, e)
            if len(lst) > SMALL:
                s.work -= len(lst)
                if s.work < 0:
                    out_of_work(s, span, "sum")
            total = sum([sc[c] for c in lst])
            if pm.wide:
                return checked(s, 0, total)
            return total

        return sum_

    @form("score", "(score CARD using POINTS)", Kind.INT, pure=True, words="score {1} {2=using} {3}")
    @reads_node
    def int_score(self, x: Score, scope: Scope) -> Callable:
        """(score CARD using POINTS)

        One card's score under the point map."""
        card = self.c_card(x.card, scope, optional=True)
        pts = self.c_points(x.points, scope)
        span = x.span
        why = self.no_card(x.card, scope)

        def score(s, e):
            c = card(s, e)
            if c is None:
                rt_error(f"{why(s, e)}, and score needs a card", span, "score")
            pm = pts(s, e)
            v = pm.table[c]
            if not pm.wide or -MAX_INT <= v <= MAX_INT:
                return v
            rt_error("integer overflow (beyond 64 bits): the card's points add up beyond 64 bits", span, "score")

        return score

    @form("scoremax", "(scoremax COLLECTION using POINTS)", Kind.INT, pure=True, expensive=True)
    @reads_node
    def int_scoremax(self, x: ScoreMax, scope: Scope) -> Callable:
        """(scoremax COLLECTION using POINTS)

        The highest score under the point map among the cards of a location, view or group
        (the score of the card ``max`` gives); an error when there are no cards."""
        return self.score_extreme(x, scope, True)

    @form("scoremin", "(scoremin COLLECTION using POINTS)", Kind.INT, pure=True, expensive=True)
    @reads_node
    def int_scoremin(self, x: ScoreMin, scope: Scope) -> Callable:
        """(scoremin COLLECTION using POINTS)

        The lowest score under the point map among the cards of a location, view or group
        (the score of the card ``min`` gives); an error when there are no cards."""
        return self.score_extreme(x, scope, False)

    def score_extreme(self, x, scope: Scope, highest: bool) -> Callable:
        head = x.HEAD
        cards = self.c_cards(x.collection, scope)
        pts = self.c_points(x.points, scope)
        span = x.span
        pick = max if highest else min
        what = written(x.collection)
        if len(what) > 60:
            what = what[:57] + "..."

        def extreme(s, e):
            lst = cards(s, e)
            if not lst:
                rt_error(f"({head} ...) of no cards: {what} is empty here", span, head)
            if len(lst) > SMALL:  # a hand of up to SMALL cards is paid for by the form itself
                s.work -= len(lst)
                if s.work < 0:
                    out_of_work(s, span, head)
            pm = pts(s, e)
            sc = pm.table
            v = pick([sc[c] for c in lst])
            if not pm.wide or -MAX_INT <= v <= MAX_INT:
                return v
            rt_error("integer overflow (beyond 64 bits): a card's points add up beyond 64 bits", span, head)

        return extreme

    @form("pid", "(pid PLAYER)", Kind.INT, pure=True)
    @reads_node
    def int_pid(self, x: Pid, scope: Scope) -> Callable:
        """(pid PLAYER)

        The player's number, 0 to the number of players - 1, as an integer (to keep a
        player in an integer storage); ``(N player)`` gives the player back from it."""
        if x.player == Turn("current", "player"):
            return lambda s, e: s.pstack[-1][0]
        p = self.c_player(x.player, scope)
        return lambda s, e: int(p(s, e))
