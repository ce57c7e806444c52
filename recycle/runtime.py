"""The game state: cards, locations with visibility, storages, turn-order cycles, events.

Everything here is plain lists indexed by small integers that the compiler resolved once:
a location is ``state.locs[i]`` (bottom first, top last), an integer storage is
``state.ints[j]``. A card is a ``Card`` (an ``int`` subclass: its id). Player and team
values are ``PlayerId`` / ``TeamId`` (``int`` subclasses) so storage and location
addressing can tell them apart.
"""

from __future__ import annotations

import random
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
    ``chooser`` is the player whose decision caused it, ``None`` for the game's own actions.
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


@dataclass(frozen=True, slots=True)
class StorageEvent:
    """An integer or string storage got a new value."""

    step: int
    slot: str
    value: object
    chooser: int | None
    decision: int


WORK_PER_STEP = 1000
MIN_WORK = 1_000_000


class State:
    """The mutable state of one game in progress. Created by ``PreparedGame.new_state``."""

    __slots__ = ("game", "locs", "card_loc", "ints", "strs", "points", "pstack", "tstack", "rng",
                 "events", "steps", "decisions", "options_total", "max_steps", "chooser",
                 "team_members", "team_of", "nteams", "scores", "decide", "decide_all", "pick",
                 "seed", "history", "work", "env")

    def __init__(self, game, rng: random.Random, record: bool, max_steps: int):
        self.game = game
        layout = game.layout
        self.locs = [[] for _ in range(layout.nlocs)]
        self.card_loc: list[int] = []
        self.ints = [0] * layout.nints
        self.strs = [""] * layout.nstrs
        self.points = [game.empty_points] * layout.npoints
        self.pstack = [[0, None]]
        self.tstack = [[0, None]]
        self.rng = rng
        self.events = [] if record else None
        self.steps = 0
        self.decisions = 0
        self.options_total = 0
        self.max_steps = max_steps
        # loop iterations (repeat, all, any) left: steps only advance at choices and stage
        # rounds, so nested loops inside one step need a budget of their own
        self.work = max(MIN_WORK, WORK_PER_STEP * max_steps)
        self.chooser = None
        n = layout.nplayers
        self.team_members = [[p] for p in range(n)]
        self.team_of = list(range(n))
        self.nteams = n
        self.scores = None
        # set by the rollout loop: decide(options) -> index; decide_all: ask even for one option
        self.decide = None
        self.decide_all = False
        # set only for random players with nothing watched: pick(number of options) -> index,
        # the same draw as decide, without listing the options
        self.pick = None
        # the seed and the choices made at decisions with 2+ options: enough to replay the game
        self.seed = None
        self.history: list[int] = []
        # the game's top-level environment (its declared variables), set when setup starts
        self.env = None

    def grow_locs(self) -> None:
        """Make room for locations registered after this state was made (computed names)."""
        missing = self.game.layout.nlocs - len(self.locs)
        if missing > 0:
            self.locs.extend([] for _ in range(missing))

    def grow_storage(self) -> None:
        """Make room for storages registered after this state was made (computed names)."""
        layout = self.game.layout
        self.ints.extend([0] * (layout.nints - len(self.ints)))
        self.strs.extend([""] * (layout.nstrs - len(self.strs)))
        self.points.extend([self.game.empty_points] * (layout.npoints - len(self.points)))

    # -- snapshots, used when working out options that need the state mid-option --------
    def snapshot(self):
        """A copy of everything an action can change (not the RNG or counters)."""
        return ([l[:] for l in self.locs], self.card_loc[:], self.ints[:], self.strs[:], self.points[:],
                [c[:] for c in self.pstack], [c[:] for c in self.tstack],
                [m[:] for m in self.team_members], self.team_of[:], self.nteams)

    def restore(self, snap) -> None:
        """Undo everything since ``snapshot()``.

        Lists are restored in place: running stages hold their cycle entries, and bound
        variables may hold location lists, so the objects must stay the same.
        """
        locs, card_loc, ints, strs, points, pstack, tstack, members, team_of, nteams = snap
        for lst, saved in zip(self.locs, locs):
            if lst != saved:
                lst[:] = saved
        del self.locs[len(locs):]
        self.card_loc, self.ints, self.strs, self.points = card_loc, ints, strs, points
        for stack, saved_stack in ((self.pstack, pstack), (self.tstack, tstack)):
            if len(stack) != len(saved_stack):
                raise RuntimeError("a stage began or ended while working out options")
            for entry, saved in zip(stack, saved_stack):
                entry[:] = saved
        self.team_members, self.team_of, self.nteams = members, team_of, nteams

    # -- convenience for tests, transcripts and players -----------------------------------
    @property
    def current_player(self) -> int:
        return self.pstack[-1][0]

    def location(self, owner: str | int, kind: str, name: str) -> list:
        """The cards (as ids, bottom first) of a location, e.g. ``state.location(0, 'iloc', 'HAND')``.

        ``owner`` is ``"game"`` or a player index.
        """
        return [int(c) for c in self.locs[self.game.layout.find(owner, kind, name)]]

    def sto(self, owner: str | int, name: str) -> int:
        """An integer storage's value; ``owner`` is ``"game"`` or a player index."""
        return self.ints[self.game.layout.storage_slot("sto", owner, name)]

    def view(self, player: int):
        """What ``player`` may know of this state (see ``recycle.view.View``)."""
        from .view import View

        return View(self, player)
