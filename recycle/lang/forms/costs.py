"""What the forms of a game cost from its work budget (a mixin of the compiler).

The budget (``State.work``, ``max_work``; ``items.DEFAULT_MAX_WORK``) bounds what a game may
do between two steps: every loop pays for its turns before it runs them, at the number of
forms of its body per turn (``weight``), every card or group an expression reads or builds
costs a unit, and so does every option a choice lists. A loop over the players or teams is
paid for with the form around it (``players_loop``), a loop of at most ``SMALL`` turns
whose body holds no loop by its own forms (``loop_free``). docs/language.md, "Limits".
"""

from __future__ import annotations

from .registry import Kind, registry
from .items import Item
from .runtime import out_of_work
from ..nodes.sexpr import head_of, is_atom, kw
from ..nodes.base import Node
from ..syntax.reader import VAR, Atom, SList


def written_form(x):
    """The s-expression a node was read from: a form's cost is what is written (its number of
    parenthesised lists), a fact of the text the nodes keep as ``source``."""
    return x.source if isinstance(x, Node) else x


class Costs:
    """The costs of forms, in units of work (a mixin of ``FlowCompiler``)."""

    weights: dict  # id(node) -> its weight, set by the compiler
    once_slots: set
    layout = None
    forms = None

    def weight(self, node) -> int:
        """What evaluating ``node`` once costs from the work budget: its number of forms
        (parenthesised lists), a loop over the players or teams counting its body once per
        player (``players_loop``); other loops charge their iterations when they run."""
        node = written_form(node)
        memo = self.weights
        w = memo.get(id(node))
        if w is None:
            if not isinstance(node, SList):
                w = 0
            elif self.players_loop(node):
                w = 1 + self.weight(node.items[1]) + self.layout.nplayers * self.weight(node.items[3])
            else:
                w = 1 + sum(self.weight(i) for i in node.items if isinstance(i, SList))
            memo[id(node)] = w
        return w

    @staticmethod
    def loop_free(x, loops: frozenset | None = None) -> bool:
        """Does ``x`` hold no loop (any/all/filter: the forms registered with ``loops=True``)?
        A loop with such a body over at most SMALL elements is paid for by its forms (its
        cost is a bounded multiple of them)."""
        x = written_form(x)
        if not isinstance(x, SList):
            return True
        if loops is None:
            loops = registry().loops
        if x.items and x.items[0].__class__ is Atom and x.items[0].value in loops:
            return False
        return all(Costs.loop_free(i, loops) for i in x.items)

    @staticmethod
    def players_loop(x) -> bool:
        """Is ``x`` a loop (any/all/filter) over ``player``, ``team`` or a collection of role
        "players" (``(other player|team)``)? At most one element per player: such a loop is
        paid for with the form around it (its ``weight`` counts its body once per player)
        instead of when it runs, which keeps the conditions asked about every player at
        every turn free of any check."""
        x = written_form(x)
        forms = registry()
        if not (
            isinstance(x, SList)
            and len(x.items) == 4
            and x.items[0].__class__ is Atom
            and x.items[0].value in forms.loops
            and is_atom(x.items[2], VAR)
        ):
            return False
        c = x.items[1]
        if kw(c, "player", "team"):
            return True
        f = forms.lookup(Kind.COLL, head_of(c))
        return f is not None and f.role == "players" and len(c.items) == 2 and kw(c.items[1], "player", "team")

    def fresh_groups(self, x: SList, slot: int) -> None:
        """Note ``slot`` (bound by the loop ``x``) in ``once_slots`` when ``x`` runs over a
        group list made afresh (partition, tuples, subsets, runs) with a body without loops:
        each group is read a bounded number of times, and making the list paid for its cards."""
        x = written_form(x)
        if head_of(x.items[1]) in self.forms.only[Kind.GROUPS] and self.loop_free(x.items[3]):
            self.once_slots.add(slot)

    @staticmethod
    def charge_per_run(item: Item, span) -> None:
        """Make the body of a ``(repeat N BODY)`` pay for its forms each time it runs (the
        repeat pays one unit per time): a large body repeated is work in proportion."""
        extra = item.weight - 1
        run = item.run

        def charged(s, e):
            s.work -= extra
            if s.work < 0:
                out_of_work(s, span, "repeat")
            run(s, e)

        item.run = charged
        item.charge = extra
