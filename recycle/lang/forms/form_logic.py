"""The connectives ``and``, ``or`` and ``not``: conditions from conditions.

Each form is kept whole here, registered together as this module is imported (``flow.py``
imports every ``form_*.py``): its node (``lang/nodes/numbers.py``), its reading of the
s-expression (``read_junction``, ``read_not``), its meaning in the reference interpreter
(``LogicForms``: left to right, stopping at the first answer), its facts and words (the
``@form`` record) and its native writer (``write_junction``, ``write_not``).
"""

from __future__ import annotations

from collections.abc import Callable

from ..nodes.numbers import And, Not, Or
from ..nodes.sexpr import Scope, fail
from ..syntax.reader import SList
from .registry import Kind, family, form
from .writers import native


# -- readings ----------------------------------------------------------------------------------


def read_junction(cls: type) -> Callable:
    """The reading of ``(and C C ...)`` or ``(or C C ...)``: two or more conditions."""
    h = cls.HEAD

    def read(e, x: SList, scope: Scope):
        if len(x.items) < 3:
            fail(f"({h} ...) takes two or more conditions", x, h)
        return cls(tuple(e.bool_(i, scope) for i in x.items[1:]), span=x.span, source=x)

    return read


def read_not(e, x: SList, scope: Scope) -> Not:
    """``(not CONDITION)``."""
    e.arity(x, 2)
    return Not(e.bool_(x.items[1], scope), span=x.span, source=x)


# -- meanings in the reference interpreter -----------------------------------------------------


@family
class LogicForms:
    """The connectives of the compiler (a mixin of ``FlowCompiler``)."""

    def conditions(self, x, scope: Scope) -> list:
        """The closures of a junction's conditions."""
        return [self.c_bool(i, scope) for i in x.conditions]

    @form(
        "and",
        "(and CONDITION CONDITION ...)",
        Kind.BOOL,
        pure=True,
        role="junction",
        words="{1~* and }",
        node=And,
        reads=read_junction(And),
    )
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

    @form(
        "or",
        "(or CONDITION CONDITION ...)",
        Kind.BOOL,
        pure=True,
        role="junction",
        words="{1~* or }",
        node=Or,
        reads=read_junction(Or),
    )
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

    @form("not", "(not CONDITION)", Kind.BOOL, pure=True, words="not {1~}", node=Not, reads=read_not)
    def bool_not(self, x: Not, scope: Scope) -> Callable:
        """(not CONDITION)

        True when the condition does not hold."""
        p = self.c_bool(x.condition, scope)
        return lambda s, e: not p(s, e)


# -- native writers ----------------------------------------------------------------------------


@native(Kind.BOOL, And, Or)
def write_junction(w, x, sc) -> str:
    """The native ``and`` / ``or``: Python's, which stops at the first answer too."""
    op = " and " if isinstance(x, And) else " or "
    return "(" + op.join(w.bool_(i, sc) for i in x.conditions) + ")"


@native(Kind.BOOL, Not)
def write_not(w, x, sc) -> str:
    """The native ``not``."""
    return f"(not {w.bool_(x.condition, sc)})"
