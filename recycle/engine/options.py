"""Typed options of a decision: what a player (or a person) chooses among.

An ``Option`` stands for one legal option of the decision a state waits at: ``index`` is
what ``State.apply`` takes, ``describe()`` says it in words as its chooser sees it,
``cards`` lists the cards it would move, and ``key`` identifies it across copies and
re-dealt worlds (the same forms with the same values bound).
"""

from __future__ import annotations

from itertools import product

from ..lang.items import ANY, STATIC, LazyOptions
from ..lang.values import MoveEvent


def _canon(v):
    if isinstance(v, int):
        return (type(v).__name__, int(v))
    if v is None or isinstance(v, str):
        return v
    idx = getattr(v, "idx", None)
    if idx is not None:
        return ("loc", idx)
    if isinstance(v, list):
        return ("list", tuple(_canon(x) for x in v[:16]))
    return type(v).__name__


def _bound_slots(item) -> tuple:
    return tuple(sorted(v for v in item.scope.names().values() if isinstance(v, int)))


def option_key(steps, cache: dict | None = None) -> tuple:
    """A hashable identity for an option's steps ``[(item, env), ...]``: each action's
    source position and the values bound where it stands. Two options with the same key
    do the same thing, whichever copy of the state they were listed in. ``cache`` (a dict
    the caller keeps while it looks at one game) saves working out each item's part again."""
    if cache is None:
        cache = {}
    out = []
    for item, env in steps:
        got = _item_part(item, cache)
        out.append((got[1], got[2], tuple([_canon(env[s]) for s in got[3]])))
    return tuple(out)


def _item_part(item, cache: dict) -> tuple:
    got = cache.get(id(item))
    if got is None or got[0] is not item:
        got = cache[id(item)] = (item, item.node.span.line, item.node.span.column, _bound_slots(item))
    return got


def option_keys(options, cache: dict | None = None) -> list:
    """``option_key`` of every option of a decision's raw options (a list of steps, or
    ``LazyOptions``, whose keys are worked out from its segments without building them)."""
    if cache is None:
        cache = {}
    if not isinstance(options, LazyOptions):
        return [option_key(o, cache) for o in options]
    out: list = []
    for count, kind, data, e, elems in options.segments:
        if kind == STATIC:
            out.append(option_key([(data, e)], cache))
            continue
        if kind == ANY:
            _, slot, item = data
            binds = ((slot, elems),)
        else:
            _, slot, _, slot2, item = data
            binds = ((slot, elems[0]), (slot2, elems[1]))
        _, line, column, slots = _item_part(item, cache)
        base = [_canon(e[s]) for s in slots]
        # where each bound value goes in the key (the inner binding wins a shared slot,
        # as segment_option assigns it last)
        places = [[j for j, s in enumerate(slots) if s == slot_ and all(s != b for b, _ in binds[k + 1:])]
                  for k, (slot_, _) in enumerate(binds)]
        canons = [[_canon(x) for x in values] for _, values in binds]
        if [j for pos in places for j in pos] == list(range(len(slots))) and all(len(p) == 1 for p in places):
            # the key is the bound values themselves, in order (Schwimmen's card-for-card swaps)
            out += [((line, column, combo),) for combo in product(*canons)]
            continue
        for combo in product(*canons):
            vals = base[:]
            for pos, v in zip(places, combo):
                for j in pos:
                    vals[j] = v
            out.append(((line, column, tuple(vals)),))
    return out


class Option:
    """One legal option of a waiting decision (see the module docstring)."""

    __slots__ = ("index", "steps", "_state", "player", "_key")

    def __init__(self, index: int, steps, state, player: int):
        self.index = index
        self.steps = steps
        self._state = state
        self.player = player
        self._key = None

    def describe(self, viewer: int | None = -2) -> str:
        """What the option would do, in words (``play Q♠ from your HAND to TRICK``).

        By default as its chooser sees it (cards hidden from it are "a card");
        ``viewer=-1`` as a spectator, ``viewer=None`` revealing every card."""
        from .describe import describe_option

        return describe_option(self._state, self.steps, self.player, self.player if viewer == -2 else viewer)

    def render(self, viewer: int | None = -1) -> str:
        """The option's forms with the values bound in them filled in, as transcripts show it
        (``-1``: as a spectator sees it, ``None``: every card revealed)."""
        from .transcript import describe_option

        s = self._state
        return describe_option(s.game, s, self.steps, self.player, viewer)

    @property
    def key(self) -> tuple:
        """A stable, hashable identity (see ``option_key``)."""
        if self._key is None:
            self._key = option_key(self.steps)
        return self._key

    @property
    def cards(self) -> list:
        """The cards this option would move or swap, in order (worked out on a copy): card
        ids where its chooser may see them now, ``None`` for cards hidden from it."""
        from .describe import effects, seen_now

        s = self._state
        out: list = []
        moved: set = set()
        for ev in effects(s, self.steps, self.player):
            if isinstance(ev, MoveEvent) and ev.action in ("move", "swap") and ev.card not in moved:
                moved.add(ev.card)
                out.append(ev.card if seen_now(s, ev, self.player) else None)
        return out

    def __int__(self) -> int:
        return self.index

    def __index__(self) -> int:
        return self.index

    def __repr__(self) -> str:
        return f"Option({self.index}: {self.describe()})"
