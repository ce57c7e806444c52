"""The values a compiled game works with: cards, players, teams, location references and
group lists; static facts about locations and their visibility; the events a game emits;
and the ``Suspend`` signal of a choice waiting for a decision.
"""

from __future__ import annotations

from dataclasses import dataclass


PUBLIC, PRIVATE, HIDDEN, OTHERS, MEMORY = "public", "private", "hidden", "others", "memory"
KINDS = ("vloc", "iloc", "hloc", "oloc", "mem")


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


@dataclass(frozen=True, slots=True)
class LocationInfo:
    """Static facts about a location: who owns it, its kind and name, its visibility class."""

    index: int
    owner_kind: str  # "game", "player" or "team"
    owner: int  # player/team index, 0 for the game
    kind: str
    name: str
    visibility: str

    @property
    def label(self) -> str:
        """A short human name, e.g. ``HAND(P2)`` or ``STOCK``."""
        if self.owner_kind == "game":
            return self.name
        return f"{self.name}({'P' if self.owner_kind == 'player' else 'T'}{self.owner})"

    @property
    def owner_label(self) -> str:
        return "table" if self.owner_kind == "game" else f"{'P' if self.owner_kind == 'player' else 'T'}{self.owner}"


def visibility_class(kind: str, owner_kind: str) -> str:
    """The visibility class of a location from its kind and owner (RECYCLE.md section 6)."""
    if kind == "vloc":
        return PUBLIC
    if kind == "mem":
        return MEMORY
    if kind == "hloc":
        return HIDDEN
    if kind == "iloc":
        return HIDDEN if owner_kind == "game" else PRIVATE
    if kind == "oloc":
        return PUBLIC if owner_kind == "game" else OTHERS
    raise ValueError(kind)


@dataclass(frozen=True, slots=True)
class MoveEvent:
    """One card changed location (move, swap, deal) or was remembered/forgotten.

    ``src``/``dst`` are location indices (``None`` for a card that appears or is forgotten);
    ``chooser`` is the player whose decision caused it, ``None`` for the game's own actions;
    ``whole``: the card moved with its whole location (a swap of two locations), so anyone
    who knew it was there knows where it went.
    """

    step: int
    action: str  # "move", "swap", "remember", "forget", "create"
    card: int
    src: int | None
    dst: int | None
    src_vis: str | None
    dst_vis: str | None
    chooser: int | None
    decision: int
    whole: bool = False


@dataclass(frozen=True, slots=True)
class StorageEvent:
    """An integer or string storage got a new value."""

    step: int
    slot: str
    value: object
    chooser: int | None
    decision: int


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


WORK_PER_STEP = 1000
MIN_WORK = 1_000_000


def may_see(info, player: int, team_of: list) -> bool:
    """True if ``player`` may see the cards of the location described by ``info``."""
    vis = info.visibility
    if vis is PUBLIC or vis is MEMORY or vis == PUBLIC or vis == MEMORY:
        return True
    if vis == HIDDEN:
        return False
    mine = (info.owner_kind == "player" and info.owner == player) or (
        info.owner_kind == "team" and player >= 0 and team_of[player] == info.owner
    )
    if vis == PRIVATE:
        return mine
    if vis == OTHERS:
        return not mine
    return False
