"""Where things live in a state: every location and storage resolved to a list index.

Owners are numbered once per game: 0 is the game (table), ``1 + p`` player ``p``,
``1 + n + t`` team ``t``. A location named (KIND, NAME) owns a block of ``1 + 2n``
consecutive indices, one per owner, so ``((current player) iloc HAND)`` is
``base + 1 + current`` at run time and ``(game vloc MIDDLE)`` is a constant.
"""

from __future__ import annotations

from .visibility import LocationInfo, visibility_class


class Layout:
    """The index plan of one prepared game (number of players, locations, storages)."""

    def __init__(self, nplayers: int):
        self.nplayers = nplayers
        self.width = 1 + 2 * nplayers
        self.loc_base: dict[tuple[str, str], int] = {}
        self._bases: dict[str, dict[str, int]] = {"sto": {}, "str": {}, "points": {}}
        self._infos: list[LocationInfo] = []

    # -- locations -------------------------------------------------------------------------
    @property
    def nlocs(self) -> int:
        return len(self.loc_base) * self.width

    def loc_block(self, kind: str, name: str) -> int:
        """The first index of the block for (kind, name), registering it on first use."""
        key = (kind, name)
        base = self.loc_base.get(key)
        if base is None:
            base = self.nlocs
            self.loc_base[key] = base
            for owner in range(self.width):
                owner_kind, index = self.owner_of(owner)
                self._infos.append(
                    LocationInfo(base + owner, owner_kind, index, kind, name, visibility_class(kind, owner_kind))
                )
        return base

    def owner_of(self, owner_id: int) -> tuple[str, int]:
        """(``"game"|"player"|"team"``, index) of an owner id."""
        n = self.nplayers
        if owner_id == 0:
            return "game", 0
        if owner_id <= n:
            return "player", owner_id - 1
        return "team", owner_id - 1 - n

    def info(self, index: int) -> LocationInfo:
        """Static facts about the location at ``index``."""
        return self._infos[index]

    @property
    def infos(self) -> list[LocationInfo]:
        return self._infos

    def owner_id(self, owner: str | int) -> int:
        if owner == "game":
            return 0
        if isinstance(owner, str) and owner.startswith("T"):
            return 1 + self.nplayers + int(owner[1:])
        return 1 + int(owner)

    def find(self, owner: str | int, kind: str, name: str) -> int:
        """The index of a location; raises KeyError when the game never names it."""
        return self.loc_base[(kind, name)] + self.owner_id(owner)

    # -- storages --------------------------------------------------------------------------
    def storage_block(self, sort: str, name: str) -> int:
        table = self._bases[sort]
        base = table.get(name)
        if base is None:
            base = len(table) * self.width
            table[name] = base
        return base

    def storage_count(self, sort: str) -> int:
        return len(self._bases[sort]) * self.width

    @property
    def nints(self) -> int:
        return self.storage_count("sto")

    @property
    def nstrs(self) -> int:
        return self.storage_count("str")

    @property
    def npoints(self) -> int:
        return self.storage_count("points")

    def storage_slot(self, sort: str, owner: str | int, name: str) -> int:
        return self._bases[sort][name] + self.owner_id(owner)

    def storage_names(self, sort: str) -> dict[str, int]:
        return dict(self._bases[sort])

    def slot_label(self, sort: str, slot: int) -> str:
        """A readable name for a storage slot, e.g. ``CLOSE`` or ``SCORE(P1)``."""
        for name, base in self._bases[sort].items():
            if base <= slot < base + self.width:
                kind, index = self.owner_of(slot - base)
                if kind == "game":
                    return name
                return f"{name}({'P' if kind == 'player' else 'T'}{index})"
        return f"?{slot}"
