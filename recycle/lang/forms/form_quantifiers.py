"""The quantifiers ``(any COLLECTION 'V CONDITION)`` and ``(all COLLECTION 'V CONDITION)``.

Each form is kept whole here, registered together as this module is imported (``flow.py``
imports every ``form_*.py``): its node (``Exists``, ``ForAll``: ``lang/nodes/numbers.py``), its
reading of the s-expression (``read_quantifier``: the binder shape filter shares, read by the
elaborator's ``binder``), its meaning in the reference interpreter (``QuantifierForms``: a
loop stopping at the first answer, paying for its turns as the cost model says), its facts and
words (the ``@form`` record) and its native writer (``write_quantifier``).
"""

from __future__ import annotations

from collections.abc import Callable

from ..nodes.base import Everyone
from ..nodes.numbers import Exists, ForAll
from ..nodes.sexpr import Scope
from ..syntax.reader import SList
from .registry import Kind, family, form
from .runtime import SMALL, out_of_work
from .writers import native


def read_quantifier(cls: type) -> Callable:
    """The reading of ``(any|all COLLECTION 'VARIABLE CONDITION)``."""

    def read(e, x: SList, scope: Scope):
        return cls(*e.binder(x, scope, e.bool_), span=x.span, source=x)

    return read


@family
class QuantifierForms:
    """``any`` and ``all`` in the compiler (a mixin of ``FlowCompiler``)."""

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
        node=Exists,
        reads=read_quantifier(Exists),
    )
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
        node=ForAll,
        reads=read_quantifier(ForAll),
    )
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


@native(Kind.BOOL, Exists, ForAll)
def write_quantifier(w, x, sc) -> str:
    """A function of its own: the loop over the collection, stopping at the first answer; its
    answer remembered by the version of the one location it reads, where it reads one (the
    writer's ``remembered``)."""
    name = x.variable.name
    exists = isinstance(x, Exists)
    word = type(x).HEAD
    params = sc.params()
    with w.function(f"{word}_of", params, f"({word} ...) at line {x.span.line}"):
        var = w.local(name)
        loop = w.collection(x.collection, sc, var, in_place=True)
        depth = w.fn.depth
        w.open_loop(loop)
        cond = w.bool_(x.condition, sc.bind(name, var, loop.type))
        with w.block(f"if {'' if exists else 'not '}{cond}:"):
            w.line(f"return {exists}")
        w.fn.depth = depth
        w.line(f"return {not exists}")
    compute = w.fns[-1].call(*params)
    return w.remembered(x, sc, compute) or compute
