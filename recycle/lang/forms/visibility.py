"""Where a card lies and who may see it: the kinds of location, a location's static facts
(``LocationInfo``: owner, kind, name, visibility class) and the visibility rules of RECYCLE.md
section 6 (``visibility_class``, ``may_see``).
"""

from __future__ import annotations

from dataclasses import dataclass

PUBLIC, PRIVATE, HIDDEN, OTHERS, MEMORY = "public", "private", "hidden", "others", "memory"
KINDS = ("vloc", "iloc", "hloc", "oloc", "mem")


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
