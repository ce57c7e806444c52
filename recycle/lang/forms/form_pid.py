"""The form ``(pid PLAYER)``: a player's number as an integer, to keep a player in an integer
storage (``(N player)`` gives the player back from it).

The form is kept whole here, registered together as this module is imported (``flow.py``
imports every ``form_*.py``): its node (``Pid``, ``lang/nodes/numbers.py``), its reading
(``read_pid``), its meaning in the reference interpreter (``PidForms.int_pid``), its facts (the
``@form`` record) and its native writer (``write_pid``).
"""

from __future__ import annotations

from collections.abc import Callable

from ..nodes.base import Turn
from ..nodes.numbers import Pid
from ..nodes.sexpr import Scope
from ..syntax.reader import SList
from .registry import Kind, family, form
from .writers import native


def read_pid(e, x: SList, scope: Scope) -> Pid:
    """``(pid PLAYER)``, read by the elaborator ``e``."""
    e.arity(x, 2)
    return Pid(e.player(x.items[1], scope), span=x.span, source=x)


@family
class PidForms:
    """``(pid PLAYER)`` in the reference interpreter (a mixin of ``FlowCompiler``)."""

    @form("pid", "(pid PLAYER)", Kind.INT, pure=True, node=Pid, reads=read_pid)
    def int_pid(self, x: Pid, scope: Scope) -> Callable:
        """(pid PLAYER)

        The player's number, 0 to the number of players - 1, as an integer (to keep a
        player in an integer storage); ``(N player)`` gives the player back from it."""
        if x.player == Turn("current", "player"):
            return lambda s, e: s.pstack[-1][0]
        p = self.c_player(x.player, scope)
        return lambda s, e: int(p(s, e))


@native(Kind.INT, Pid)
def write_pid(w, x: Pid, sc) -> str:
    """The native code of ``(pid PLAYER)``: a player is its number there already."""
    return f"({w.player(x.player, sc)})"
