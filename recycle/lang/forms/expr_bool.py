"""Compiling RECYCLE's conditions into closures ``f(state, env) -> bool``: and, or, not,
comparisons, and any/all over a collection; the binder shape they share with filter.
"""

from __future__ import annotations

from collections.abc import Callable

from .reads import reads_node
from ..nodes.base import Everyone, FormNode, Num, Unread, Word
from ..nodes.places import Actual, At, Bottom, Highest, Lowest, Top
from ..nodes.numbers import And, AtLeast, AtMost, Equal, Exists, ForAll, Greater, Less, Not, NotEqual, Or
from .registry import Kind, form
from .runtime import out_of_work
from .runtime import SMALL
from ..nodes.sexpr import Scope, fail

CARD_REFS = (Top, Bottom, At, Highest, Lowest, Actual)  # the nodes naming a card of a place (or none)


class BoolForms:
    """The boolean forms of the compiler (a mixin of ``FlowCompiler``)."""

    def c_bool(self, x, scope: Scope) -> Callable:
        """A condition: a boolean form (there are no boolean literals or storages)."""
        x = self.entry(x, "bool_", scope)
        if isinstance(x, (FormNode, Unread)):
            return self.form_of(x, scope)
        fail(f"expected a condition, got {self.form_name(x)}", x)

    # -- connectives -----------------------------------------------------------------------
    def conditions(self, x, scope: Scope) -> list:
        return [self.c_bool(i, scope) for i in x.conditions]

    @form("and", "(and CONDITION CONDITION ...)", Kind.BOOL, pure=True, role="junction", words="{1~* and }")
    @reads_node
    def bool_and(self, x: And, scope: Scope) -> Callable:
        """(and CONDITION CONDITION ...)

        True when every condition holds; they are evaluated left to right, stopping at the
        first that fails."""
        parts = self.conditions(x, scope)
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

    @form("or", "(or CONDITION CONDITION ...)", Kind.BOOL, pure=True, role="junction", words="{1~* or }")
    @reads_node
    def bool_or(self, x: Or, scope: Scope) -> Callable:
        """(or CONDITION CONDITION ...)

        True when at least one condition holds; they are evaluated left to right, stopping
        at the first that holds."""
        parts = self.conditions(x, scope)
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

    @form("not", "(not CONDITION)", Kind.BOOL, pure=True, words="not {1~}")
    @reads_node
    def bool_not(self, x: Not, scope: Scope) -> Callable:
        """(not CONDITION)

        True when the condition does not hold."""
        p = self.c_bool(x.condition, scope)
        return lambda s, e: not p(s, e)

    # -- comparisons -----------------------------------------------------------------------
    def c_order(self, x, scope: Scope) -> Callable:
        """(< > <= >= A B) on two integers."""
        h = x.HEAD
        a, b = self.c_int(x.a, scope), self.c_int(x.b, scope)
        return {
            "<": lambda s, e: a(s, e) < b(s, e),
            ">": lambda s, e: a(s, e) > b(s, e),
            "<=": lambda s, e: a(s, e) <= b(s, e),
            ">=": lambda s, e: a(s, e) >= b(s, e),
        }[h]

    @form("<", "(< A B)", Kind.BOOL, pure=True)
    @reads_node
    def bool_lt(self, x: Less, scope: Scope) -> Callable:
        """(< A B)

        True when the integer A is less than B."""
        return self.c_order(x, scope)

    @form(">", "(> A B)", Kind.BOOL, pure=True)
    @reads_node
    def bool_gt(self, x: Greater, scope: Scope) -> Callable:
        """(> A B)

        True when the integer A is greater than B."""
        return self.c_order(x, scope)

    @form("<=", "(<= A B)", Kind.BOOL, pure=True)
    @reads_node
    def bool_le(self, x: AtMost, scope: Scope) -> Callable:
        """(<= A B)

        True when the integer A is at most B."""
        return self.c_order(x, scope)

    @form(">=", "(>= A B)", Kind.BOOL, pure=True)
    @reads_node
    def bool_ge(self, x: AtLeast, scope: Scope) -> Callable:
        """(>= A B)

        True when the integer A is at least B."""
        return self.c_order(x, scope)

    def c_equal(self, x, scope: Scope) -> Callable:
        """(== != A B) on two values of any one kind (a constant B worked out once)."""
        if x.cards:
            return self.c_card_equal(x, scope)
        a, b = self.c_value(x.a, scope), self.c_value(x.b, scope)
        cb = self.const_value(x.b, scope)
        if cb is None and isinstance(x.b, Word):
            cb = x.b.value
        elif cb is None and isinstance(x.b, Everyone):
            cb = x.b.what
        if isinstance(x, Equal):
            if cb is not None:
                return lambda s, e: a(s, e) == cb
            return lambda s, e: a(s, e) == b(s, e)
        if cb is not None:
            return lambda s, e: a(s, e) != cb
        return lambda s, e: a(s, e) != b(s, e)

    @staticmethod
    def is_card_ref(x) -> bool:
        """Is ``x`` a form that names a card of a location (top, bottom, index, max, min,
        actual), one that may name no card? (An index of a place is one when written out.)"""
        return isinstance(x, CARD_REFS) and (not isinstance(x, At) or isinstance(x.index, Num))

    def c_card_equal(self, x, scope: Scope) -> Callable:
        """(== != A B) with a card reference: the same physical card. A reference that names
        no card (the top of an empty location) equals no card: ``==`` is false and ``!=``
        true, even when both name none (RECYCLE.md 9.2)."""
        a, b = (
            self.c_card(i, scope, optional=True) if self.is_card_ref(i) else self.c_card(i, scope) for i in (x.a, x.b)
        )
        if isinstance(x, Equal):

            def card_eq(s, e):
                c = a(s, e)
                return c is not None and c == b(s, e)

            return card_eq

        def card_ne(s, e):
            c = a(s, e)
            if c is None:
                return True
            d = b(s, e)
            return d is None or c != d

        return card_ne

    @form("==", "(== A B)", Kind.BOOL, pure=True, role="equality")
    @reads_node
    def bool_eq(self, x: Equal, scope: Scope) -> Callable:
        """(== A B)

        True when A and B are the same integer, string, card (the same physical card),
        player or team."""
        return self.c_equal(x, scope)

    @form("!=", "(!= A B)", Kind.BOOL, pure=True, role="equality")
    @reads_node
    def bool_ne(self, x: NotEqual, scope: Scope) -> Callable:
        """(!= A B)

        True when A and B differ (integers, strings, cards, players or teams)."""
        return self.c_equal(x, scope)

    # -- any / all -------------------------------------------------------------------------
    @form(
        "any",
        "(any COLLECTION 'VARIABLE CONDITION)",
        Kind.BOOL,
        pure=True,
        expensive=True,
        binds=True,
        loops=True,
        role="quantifier",
        words="any {1:each}: {3}",
    )
    @reads_node
    def bool_any(self, x: Exists, scope: Scope) -> Callable:
        """(any COLLECTION 'VARIABLE CONDITION)

        True when the condition holds for at least one element bound to 'VARIABLE (false
        for an empty collection)."""
        coll, slot, inner = self.c_binder(x, scope, self.c_bool)
        w = self.weight(x.condition)
        span = x.span
        if x.collection == Everyone("player"):
            players = self.players

            def any_player(s, e):  # a players loop: paid with the form around it
                for v in players:
                    e[slot] = v
                    if inner(s, e):
                        return True
                return False

            return any_player

        if self.players_loop(x):

            def any_free(s, e):
                for v in coll(s, e):
                    e[slot] = v
                    if inner(s, e):
                        return True
                return False

            return any_free

        if self.loop_free(x.condition):

            def any_small(s, e):
                c = coll(s, e)
                if len(c) > SMALL:  # a few turns of a body without loops: paid for by its forms
                    s.work -= len(c) * w
                    if s.work < 0:
                        out_of_work(s, span, "any")
                for v in c:
                    e[slot] = v
                    if inner(s, e):
                        return True
                return False

            return any_small

        def any_(s, e):
            c = coll(s, e)
            s.work -= len(c) * w
            if s.work < 0:
                out_of_work(s, span, "any")
            for v in c:
                e[slot] = v
                if inner(s, e):
                    return True
            return False

        return any_

    @form(
        "all",
        "(all COLLECTION 'VARIABLE CONDITION)",
        Kind.BOOL,
        pure=True,
        expensive=True,
        binds=True,
        loops=True,
        role="quantifier",
        words="all {1:each}: {3}",
    )
    @reads_node
    def bool_all(self, x: ForAll, scope: Scope) -> Callable:
        """(all COLLECTION 'VARIABLE CONDITION)

        True when the condition holds for every element bound to 'VARIABLE (true for an
        empty collection)."""
        coll, slot, inner = self.c_binder(x, scope, self.c_bool)
        w = self.weight(x.condition)
        span = x.span
        if x.collection == Everyone("player"):
            players = self.players

            def all_players(s, e):  # a players loop: paid with the form around it
                for v in players:
                    e[slot] = v
                    if not inner(s, e):
                        return False
                return True

            return all_players

        if self.players_loop(x):

            def all_free(s, e):
                for v in coll(s, e):
                    e[slot] = v
                    if not inner(s, e):
                        return False
                return True

            return all_free

        if self.loop_free(x.condition):

            def all_small(s, e):
                c = coll(s, e)
                if len(c) > SMALL:  # a few turns of a body without loops: paid for by its forms
                    s.work -= len(c) * w
                    if s.work < 0:
                        out_of_work(s, span, "all")
                for v in c:
                    e[slot] = v
                    if not inner(s, e):
                        return False
                return True

            return all_small

        def all_(s, e):
            c = coll(s, e)
            s.work -= len(c) * w
            if s.work < 0:
                out_of_work(s, span, "all")
            for v in c:
                e[slot] = v
                if not inner(s, e):
                    return False
            return True

        return all_

    def c_binder(self, x, scope: Scope, body_compiler):
        """(any|all|filter COLL 'V BODY) → (collection closure, slot, body closure)."""
        coll = self.c_coll(x.collection, scope)
        slot = self.new_slot()
        self.binder_colls[slot] = x.collection  # (families of locations: the members it may name)
        self.fresh_groups(x, slot)
        body = x.condition if hasattr(x, "condition") else x.location
        inner = body_compiler(body, scope.bind(x.variable.name, slot, x.variable.hint))
        return coll, slot, inner
