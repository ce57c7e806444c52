"""What the forms of a game cost from its work budget (a mixin of the compiler).

The budget (``State.work``, ``max_work``; ``runtime.DEFAULT_MAX_WORK``) bounds what a game may
do between two steps: every loop pays for its turns before it runs them, at the number of
forms of its body per turn (``weight``), every card or group an expression reads or builds
costs a unit, and so does every option a choice lists. A loop over the players or teams is
paid for with the form around it (``players_loop``), a loop of at most ``SMALL`` turns
whose body holds no loop by its own forms (``loop_free``). docs/language.md, "Limits".
"""

from __future__ import annotations

from dataclasses import fields

from .registry import Kind, registry
from .items import Item
from .runtime import out_of_work
from ..nodes.base import Everyone, FormNode, Node
from ..nodes.sexpr import over_players, written_weight


def written_form(x):
    """The s-expression a node was read from: a form's cost is what is written (its number of
    parenthesised lists), a fact of the text the nodes keep as ``source``."""
    return x.source if isinstance(x, Node) else x


def nodes_in(x):
    """``x`` and every node within it (its fields' nodes, and those of tuples of them)."""
    if isinstance(x, tuple):
        for i in x:
            yield from nodes_in(i)
    elif isinstance(x, Node):
        yield x
        for f in fields(x):
            if not f.kw_only:
                yield from nodes_in(getattr(x, f.name))


_PLAYERS_HEADS: list = []


def players_heads() -> frozenset:
    """The heads of the collections of at most one element per player (role ``players``)."""
    if not _PLAYERS_HEADS:
        _PLAYERS_HEADS.append(frozenset(f.head for f in registry().forms if f.role == "players"))
    return _PLAYERS_HEADS[0]


class Costs:
    """The costs of forms, in units of work (a mixin of ``FlowCompiler``)."""

    weights: dict  # id(s-expression) -> its weight, set by the compiler
    once_slots: set
    layout = None
    forms = None

    def weight(self, node) -> int:
        """What evaluating ``node`` once costs from the work budget: its number of forms
        as written (parenthesised lists), a loop over the players or teams counting its body
        once per player (``players_loop``); other loops charge their iterations when they run."""
        loops, heads = registry().loops, players_heads()
        return written_weight(
            written_form(node), lambda x: over_players(x, loops, heads), self.layout.nplayers, self.weights
        )

    @staticmethod
    def loop_free(x) -> bool:
        """Does the node ``x`` hold no loop (any/all/filter: the forms registered with
        ``loops=True``)? A loop with such a body over at most SMALL elements is paid for by
        its forms (its cost is a bounded multiple of them)."""
        loops = registry().loops
        return not any(isinstance(n, FormNode) and n.HEAD in loops for n in nodes_in(x))

    @staticmethod
    def players_loop(x) -> bool:
        """Is the node ``x`` a loop (any/all/filter) over ``player``, ``team`` or a collection
        of role "players" (``(other player|team)``)? At most one element per player: such a
        loop is paid for with the form around it (its ``weight`` counts its body once per
        player) instead of when it runs, which keeps the conditions asked about every player
        at every turn free of any check."""
        forms = registry()
        if not (isinstance(x, FormNode) and x.HEAD in forms.loops):
            return False
        c = x.collection
        if isinstance(c, Everyone):
            return True
        return isinstance(c, FormNode) and c.HEAD in players_heads()

    def fresh_groups(self, x, slot: int) -> None:
        """Note ``slot`` (bound by the loop node ``x``) in ``once_slots`` when ``x`` runs over
        a group list made afresh (partition, tuples, subsets, runs) with a body without loops:
        each group is read a bounded number of times, and making the list paid for its cards."""
        c, body = x.collection, getattr(x, fields(x)[-1].name)
        if isinstance(c, FormNode) and c.HEAD in self.forms.only[Kind.GROUPS] and self.loop_free(body):
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
