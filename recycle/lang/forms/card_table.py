"""A game's card table: every card made so far, what the compiled forms read of it, and its
point maps. The one thing of a game's that the compiler and its closures hold.

The contract: ``FlowCompiler`` is given the table (as ``cards``) and neither it nor the closures,
nor the writers of the generated Python, ask anything of a game but this:

* ``attrs[card]``: the card's attributes (``{"RANK": "A", "SUIT": "SPADES", "__serial__": "0"}``;
  ``__serial__`` is its number in its deck). Read card by card by a computed key.
* ``column(key)``: ``column[card]`` = the card's value for ``key``, "" when it has none. One list
  per key, extended in place as cards are made: a closure (or a generated module, or a native
  one, as a constant) keeps the list itself.
* ``point_map(awards, s, span)``: the ``PointMap`` of ``awards``, one object per distinct awards;
  ``maps_full(n)``: is a cache of ``n`` maps full (what the compiled ``set`` keeps of its own).
* ``deal(s, key, deck, combos, span)``: the cards of one run of a ``(create deck ...)`` in state
  ``s``: made the first time, the same ``Card``s at the same point of every later game.
* ``empty_points``: the map of no awards, every point map storage's value in a new state.

And of the table the game asks ``decks[card]`` (the deck's name: knowledge, graphs) and ``attrs``
(names of cards, learning environments, the native engine's ``NCARDS``).

Why it grows while games are played: cards are made by ``(create deck ...)``, an action run by
a game, not by the compiler. ``PreparedGame`` runs the setup once at load so that the usual
table is complete before the first game, but a deck created in the flow, or by a setup that
chance or the seats steer, adds its cards the first time a game gets there. A card's id is
its place in the table, the same in every game (a deck must be created at the same point
in every game: ``deal`` checks it), so the columns and the point maps grow with the table
and keep the lists already handed out.
"""

from __future__ import annotations

import weakref

from ...errors import RecycleRuntimeError
from .runtime import charge
from .values import Card

# point maps kept for reuse (``CardTable.maps_full``): a game that computes a new map at every
# turn makes memory grow with its maps' card scores otherwise
MAX_POINT_MAPS = 10_000
MAX_MAP_CELLS = 4_000_000
NARROW = 2**32  # the largest card score whose sums need no check (PointMap.wide)
MAX_CARDS = 200_000


class PointMap:
    """A point map: awards ``((KEY, VALUE), ...) → points``.

    ``table[card]`` is every card's score, computed once and refreshed when the card table
    grows.
    """

    __slots__ = ("awards", "table", "cards", "wide", "__weakref__")

    def __init__(self, cards: CardTable, awards):
        self.cards = cards
        self.awards = awards
        self.table: list[int] = []
        # a card scores beyond 2^32 in magnitude: sums of its cards may pass 64 bits and are
        # checked (a narrow map's sums of fewer than 2^31 cards cannot)
        self.wide = False
        self.refresh()

    def refresh(self) -> None:
        """Score the cards added to the card table since the last refresh (award by award: the
        cards meeting its conditions are found condition by condition)."""
        table = self.table
        cards = self.cards.attrs[len(table) :]
        new = [0] * len(cards)
        for conds, pts in self.awards:
            if not pts:
                continue
            hits = None
            for k, v in conds:
                if hits is None:
                    hits = [i for i, attrs in enumerate(cards) if attrs.get(k, "") == v]
                else:
                    hits = [i for i in hits if cards[i].get(k, "") == v]
            for i in range(len(cards)) if hits is None else hits:
                new[i] += pts
        table.extend(new)
        if new and not self.wide and (max(new) > NARROW or min(new) < -NARROW):
            self.wide = True

    def scores(self, s=None) -> list[int]:
        """Score of every card of the card table, indexed by card id."""
        return self.table


class CardTable:
    """The cards of one game, by id; see the module docstring for what may be asked of it."""

    def __init__(self):
        self.attrs: list[dict] = []  # card id -> its attributes
        self.decks: list[str] = []  # card id -> the name of its deck
        self._cards: list[Card] = []  # card id -> its Card
        self._origin: list[tuple] = []  # card id -> (create-deck form, index in its run)
        self._columns: dict[str, list[str]] = {}
        self._point_maps: dict = {}  # awards -> its map, the last ones made (``maps_full``)
        self._live_maps = weakref.WeakSet()  # every map still in use, refreshed as the table grows
        self._deck_sizes: dict[str, int] = {}  # deck name -> cards of it in the table
        self._deck_runs: dict = {}  # (create-deck form, first id) -> its cards, checked once
        self.empty_points = PointMap(self, ())

    def __len__(self) -> int:
        return len(self.attrs)

    def deal(self, s, key, deck_name: str, combos: list[dict], span) -> list[Card]:
        """Card ids for one execution of a ``create deck`` (the same ids in every rollout)."""
        start = len(s.card_loc)
        cached = self._deck_runs.get((key, start))
        if cached is not None:
            return cached
        ids = []
        if start == len(self.decks):
            serial = self._deck_sizes.get(deck_name, 0)
        else:
            serial = sum(1 for d in self.decks[:start] if d == deck_name)
        for k, attrs in enumerate(combos):
            cid = start + k
            if cid < len(self.attrs):
                if self._origin[cid] != (key, k):
                    raise RecycleRuntimeError(
                        "decks are created in a different order than in an earlier game; create decks only in setup",
                        span,
                        form="create",
                    )
            else:
                if cid >= MAX_CARDS:
                    raise RecycleRuntimeError(f"more than {MAX_CARDS} cards created", span, form="create")
                self.attrs.append(dict(attrs, __serial__=str(serial + k)))
                self.decks.append(deck_name)
                self._deck_sizes[deck_name] = self._deck_sizes.get(deck_name, 0) + 1
                self._origin.append((key, k))
                self._cards.append(Card(cid))
                for col_key, col in self._columns.items():
                    col.append(attrs.get(col_key, ""))
            ids.append(self._cards[cid])
        if len(self.empty_points.table) != len(self.attrs):
            for pm in (self.empty_points, *self._live_maps):
                pm.refresh()
        self._deck_runs[(key, start)] = ids
        return ids

    def column(self, key: str) -> list[str]:
        """``column[card]`` = the card's value for ``key`` ("" when it has none); grows with the table."""
        col = self._columns.get(key)
        if col is None:
            col = [a.get(key, "") for a in self.attrs]
            self._columns[key] = col
        return col

    def point_map(self, awards, s=None, span=None) -> PointMap:
        """The point map of ``awards`` (one object per distinct awards). Making a new one
        scores every card of the table: with ``s`` given, that costs one unit of its work
        budget per card and award (a game that makes a new map at every turn pays)."""
        pm = self._point_maps.get(awards)
        if pm is None:
            if s is not None:
                charge(s, len(self.attrs) * max(1, len(awards)), span, "set")
            if self.maps_full(len(self._point_maps)):
                self._point_maps.clear()  # the maps still in use stay alive (and refreshed)
            pm = PointMap(self, awards)
            self._point_maps[awards] = pm
            self._live_maps.add(pm)
        return pm

    def maps_full(self, n: int) -> bool:
        """Is a cache of ``n`` point maps full? At most ``MAX_POINT_MAPS`` maps, and at most
        ``MAX_MAP_CELLS`` card scores in all, are kept for reuse."""
        return n >= MAX_POINT_MAPS or n * len(self.attrs) >= MAX_MAP_CELLS


__all__ = ["CardTable", "PointMap", "MAX_POINT_MAPS", "MAX_MAP_CELLS"]
