"""The forms of the turn order: ``(cycle next|current WHO)`` (who plays next, or at once) and
``(turn pass)`` (an option that does nothing).

Each form is kept whole in this one module, registered together as it is imported (``flow.py``
imports every ``form_*.py``): its reading of the s-expression (``read_*``; its node classes are
in ``lang/nodes/actions.py``), its meaning in the reference interpreter (``TurnOrderForms``),
its facts and words (the ``@form`` record) and its native writer (``write_*``).
"""

from __future__ import annotations

from ..nodes.actions import Cycle, Pass
from ..nodes.base import Turn
from ..nodes.sexpr import Scope, fail, kw
from ..syntax.reader import SList
from .items import Item
from .registry import Kind, family, form
from .writers import native


def read_cycle(e, x: SList, scope: Scope) -> Cycle:
    """``next`` or ``current``, and a player (``current``, ``next`` and ``previous`` bare)."""
    e.arity(x, 3)
    which, target = x.items[1], x.items[2]
    if not kw(which, "next", "current"):
        fail("expected (cycle next|current WHO)", x, "cycle")
    if kw(target, "current", "next", "previous"):
        who = Turn(target.value, "player", bare=True, span=target.span, source=target)
    else:
        who = e.player(target, scope)
    return Cycle(which.value, who, span=x.span, source=x)


def read_turn(e, x: SList, scope: Scope) -> Pass:
    """``(turn pass)``."""
    if len(x.items) != 2 or not kw(x.items[1], "pass"):
        fail("expected (turn pass)", x, "turn")
    return Pass(span=x.span, source=x)


@family
class TurnOrderForms:
    """The turn order's actions in the reference interpreter (a mixin of ``FlowCompiler``)."""

    @form("cycle", "(cycle next|current WHO)", Kind.ACTION, words="{1} player := {2}", node=Cycle, reads=read_cycle)
    def a_cycle(self, x: Cycle, scope: Scope) -> Item:
        """(cycle next|current WHO)

        Queues WHO (current, next, previous or a player) as the next player of the top
        player cycle, or makes WHO current at once."""
        target = x.who.position if isinstance(x.who, Turn) else None
        n = self.layout.nplayers
        if target == "current":
            who = lambda s, e: s.pstack[-1][0]  # noqa: E731
        elif target == "next":

            def who(s, e):
                top = s.pstack[-1]
                return top[1] if top[1] is not None else (top[0] + 1) % n
        elif target == "previous":
            who = lambda s, e: (s.pstack[-1][0] - 1) % n  # noqa: E731
        else:
            who = self.c_player(x.who, scope)
        if x.which == "next":

            def cycle_next(s, e):
                s.pstack[-1][1] = int(who(s, e))

            return Item(x, scope, run=cycle_next, static=True)

        def cycle_current(s, e):
            p = int(who(s, e))
            top = s.pstack[-1]
            top[0], top[1] = p, None

        return Item(x, scope, run=cycle_current, static=True)

    @form("turn", "(turn pass)", Kind.ACTION, words="{1=pass}", node=Pass, reads=read_turn)
    def a_turn(self, x: Pass, scope: Scope) -> Item:
        """(turn pass)

        Does nothing: the action of an option that passes (the rest of the turn still
        runs)."""
        return Item(x, scope, run=lambda s, e: None, static=True)


@native(Kind.ACTION, Pass)
def write_turn(w, x: Pass, sc) -> None:
    """Nothing done: a pass."""
    w.line("pass  # (turn pass)")


@native(Kind.ACTION, Cycle)
def write_cycle(w, x: Cycle, sc) -> None:
    """The player queued as the next one of the top player cycle, or made current at once."""
    who = w.player(x.who, sc)
    w.comment(x)
    if x.which == "next":
        w.line(f"pst[ctr[PSP], 1] = {who}")
    else:
        w.line(f"pst[ctr[PSP], 0] = {who}")
        w.line("pst[ctr[PSP], 1] = -1")
    w.check()
