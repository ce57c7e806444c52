"""What one player may know: the identities of cards it may see, counts everywhere else.

A ``View`` is all a Player receives (with the list of legal options). Its methods
answer only what the visibility model of RECYCLE.md section 6 allows that player.
"""

from __future__ import annotations

from .runtime import HIDDEN, MEMORY, OTHERS, PRIVATE, PUBLIC


def may_see(info, player: int, team_of: list) -> bool:
    """True if ``player`` may see the cards of the location described by ``info``."""
    vis = info.visibility
    if vis is PUBLIC or vis is MEMORY or vis == PUBLIC or vis == MEMORY:
        return True
    if vis == HIDDEN:
        return False
    mine = (info.owner_kind == "player" and info.owner == player) or (
        info.owner_kind == "team" and player >= 0 and team_of[player] == info.owner)
    if vis == PRIVATE:
        return mine
    if vis == OTHERS:
        return not mine
    return False


class View:
    """One player's observation of a state."""

    __slots__ = ("_state", "player")

    def __init__(self, state, player: int):
        self._state = state
        self.player = player

    @property
    def game(self):
        return self._state.game

    @property
    def current_player(self) -> int:
        return self._state.pstack[-1][0]

    def can_see(self, location: int) -> bool:
        """May this player see the cards of the location with this index?"""
        s = self._state
        return may_see(s.game.layout.info(location), self.player, s.team_of)

    def cards(self, location: int) -> list:
        """The location's cards, bottom first: card ids where visible, ``None`` where not."""
        s = self._state
        lst = s.locs[location]
        if may_see(s.game.layout.info(location), self.player, s.team_of):
            return [int(c) for c in lst]
        return [None] * len(lst)

    def count(self, location: int) -> int:
        return len(self._state.locs[location])

    def locations(self) -> dict[str, list]:
        """Every non-empty location by label, with ``cards()`` of each."""
        s = self._state
        out = {}
        for info in s.game.layout.infos:
            if info.index < len(s.locs) and s.locs[info.index]:
                out[info.label] = self.cards(info.index)
        return out

    def known_cards(self) -> set[int]:
        """Every card whose identity and place this player can see now."""
        s = self._state
        known: set[int] = set()
        for info in s.game.layout.infos:
            if info.index < len(s.locs) and s.locs[info.index] and may_see(info, self.player, s.team_of):
                known.update(int(c) for c in s.locs[info.index])
        return known

    def ints(self) -> dict[str, int]:
        """All integer storages (public to everyone), by label."""
        s = self._state
        layout = s.game.layout
        return {layout.slot_label("sto", i): v for i, v in enumerate(s.ints) if v}

    def strs(self) -> dict[str, str]:
        s = self._state
        layout = s.game.layout
        return {layout.slot_label("str", i): v for i, v in enumerate(s.strs) if v}
