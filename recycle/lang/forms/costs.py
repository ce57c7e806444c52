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
from ..nodes.actions import Award, Deck, TeamList
from ..nodes.base import Everyone, FormNode, Loc, Names, Node, Nth, Storage, Turn
from ..nodes.flow import Declare, GameNode
from ..nodes.groups import Members
from .wording import Items, items_of


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
        return self._lists(node, self.layout.nplayers, self.weights)

    def _lists(self, x, nplayers: int, memo: dict) -> int:
        """The number of parenthesised lists ``x`` is written with (its items laid out from the
        node as its words are: ``wording.items_of``), a players loop's body once per player."""
        w = memo.get(id(x))
        if w is not None:
            return w
        match x:
            case GameNode():  # (game DECLARE ... (setup (create players N) ITEM ...) ITEM ... (scoring max|min N))
                parts = (x.declares, x.players, x.setup, x.flow, x.score)
                w = 4 + sum(self._lists(p, nplayers, memo) for p in parts)
            case Declare(value=value, literal=literal):  # (declare VALUE 'NAME), VALUE as written
                w = 1 + self._lists(literal if literal is not None else value, nplayers, memo)
            case Deck(location=location, lists=lists):
                w = 1 + self._lists(location, nplayers, memo) + lists
            case Loc(owner=owner, name=name) | Storage(holder=owner, name=name):
                w = 1 + self._lists(owner, nplayers, memo) + self._lists(name, nplayers, memo)
            case Turn(bare=bare):
                w = 0 if bare else 1
            case Nth(index=index):
                w = 1 + self._lists(index, nplayers, memo)
            case Names() | TeamList():
                w = 1
            case Items() | tuple():
                w = (1 if isinstance(x, Items) else 0) + sum(self._lists(i, nplayers, memo) for i in x)
            case FormNode() if x.HEAD is not None and self.players_loop(x):
                body = getattr(x, fields(x)[-1].name)
                w = 1 + self._lists(x.collection, nplayers, memo) + nplayers * self._lists(body, nplayers, memo)
            case FormNode() if x.HEAD is not None:
                items = items_of(x)
                w = 1 + sum(self._lists(i, nplayers, memo) for i in items[1:]) if items is not None else 1
            case Members(team=team):
                w = self._lists(team, nplayers, memo)  # written as the team itself
            case Award(conditions=conditions, points=points):  # ((KEY : VALUE) ... POINTS)
                w = 1 + self._lists(points, nplayers, memo)
                w += sum(1 + sum(self._lists(v, nplayers, memo) for v in c) for c in conditions)
            case FormNode():  # (top X), (2 X), ((CONDITION) ITEM)
                w = 1 + sum(self._lists(getattr(x, f.name), nplayers, memo) for f in fields(x) if f.compare)
            case _:
                w = 0  # a number, a name, a variable, a keyword
        if isinstance(x, Node):  # (the lists laid out are made afresh: their ids are reused)
            memo[id(x)] = w
        return w

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
