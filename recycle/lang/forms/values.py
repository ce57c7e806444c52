"""The values a compiled game's closures work with: cards, players, teams, location references
and group lists; and ``Suspend``, what a choice raises to wait for a decision. (What a location
is and who may see it is ``visibility.py``'s, the events a game emits ``events.py``'s:
re-exported here for the modules of other rooms that import them from here.)
"""

from __future__ import annotations

from .events import MoveEvent, StorageEvent  # noqa: F401 - re-exported (engine/, env/, study/, cli/)
from .visibility import (  # noqa: F401 - likewise
    HIDDEN,
    KINDS,
    MEMORY,
    OTHERS,
    PRIVATE,
    PUBLIC,
    LocationInfo,
    may_see,
    visibility_class,
)


class Card(int):
    """A card's identity (its index in the game's card table)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Card({int(self)})"


class PlayerId(int):
    """A player, by 0-based index."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"P{int(self)}"


class TeamId(int):
    """A team, by 0-based index."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"T{int(self)}"


class PLoc:
    """A reference to one physical (or memory) location, as a value a variable can hold."""

    __slots__ = ("idx",)

    def __init__(self, idx: int):
        self.idx = idx

    def __eq__(self, other):
        return isinstance(other, PLoc) and other.idx == self.idx

    def __hash__(self):
        return hash(("PLoc", self.idx))

    def __repr__(self) -> str:
        return f"PLoc({self.idx})"


class Groups(list):
    """A list of card groups (from partition, tuples, subsets, runs)."""

    __slots__ = ()


class Suspend(Exception):
    """Raised by a ``choice`` reached while the state is stepped from outside.

    It unwinds the flow to the stepping driver; every flow element it passes appends its
    own *frame* (where it stood: an item index, a loop position, a stage's cycle depth),
    so ``frames`` lists them from the choice outwards. ``Item.resume`` re-enters the flow
    at exactly that place once the option is chosen.
    """

    __slots__ = ("frames",)

    def __init__(self):
        self.frames = [None]
