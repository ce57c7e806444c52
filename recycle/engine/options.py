"""Typed options of a decision: what a player (or a person) chooses among.

An ``Option`` stands for one legal option of the decision a state waits at: ``index`` is
what ``State.apply`` takes, ``describe()`` says it in words as its chooser sees it,
``cards`` lists the cards it would move, and ``key`` identifies it across copies and
re-dealt worlds (the same forms with the same values bound).

An ``Option`` holds the live state: it is for code that holds the state anyway (stepping a
game from outside, the package's own look-ahead players). A player of someone else's gets a
``public.PublicOption`` instead, whose key is ``masked_key``: a card its chooser does not see
is named there by its place, never by its id.
"""

from __future__ import annotations

from ..lang.forms.values import Card, may_see


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


def masked_key(state, steps, chooser: int | None) -> tuple:
    """``option_key`` of an option's steps as ``chooser`` may know it: a bound card the
    chooser does not see now is ``("hidden", location, position)`` (where it lies) instead
    of its id, so two worlds that differ only in cards hidden from the chooser give the same
    key (issue 25, item 13). ``chooser=None`` masks nothing."""
    if chooser is None:
        return option_key(steps)
    infos = state.game.layout.infos
    card_loc, locs, team_of = state.card_loc, state.locs, state.team_of

    def canon(v):
        if isinstance(v, Card) and v < len(card_loc):
            where = card_loc[v]
            if not may_see(infos[where], chooser, team_of):
                return ("hidden", where, locs[where].index(v))
        if isinstance(v, list):
            return ("list", tuple(canon(x) for x in v[:16]))
        return _canon(v)

    cache: dict = {}
    out = []
    for item, env in steps:
        got = _item_part(item, cache)
        out.append((got[1], got[2], tuple([canon(env[s]) for s in got[3]])))
    return tuple(out)


def option_keys(options, cache: dict | None = None) -> list:
    """``option_key`` of every option of a decision's raw options (a list of steps)."""
    if cache is None:
        cache = {}
    return [option_key(o, cache) for o in options]


class Option:
    """One legal option of a waiting decision (see the module docstring)."""

    __slots__ = ("index", "steps", "_state", "player", "_key")

    def __init__(self, index: int, steps, state, player: int):
        self.index = index
        self.steps = steps
        self._state = state
        self.player = player
        self._key: tuple | None = None

    def describe(self, viewer: int | None = -2) -> str:
        """What the option would do, in words (``play Q♠ from your HAND to TRICK``).

        By default as its chooser sees it (cards hidden from it are "a card"; a storage
        value set after a card moved unseen, or after a draw from the generator, is not
        named); ``viewer=-1`` as a spectator, ``viewer=None`` revealing every card. These
        words are of the real state: what the option does there may depend on cards its
        chooser does not see. A player is told ``public.PublicOption.words`` instead."""
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
        from .describe import effects, moved_cards

        return moved_cards(self._state, effects(self._state, self.steps, self.player), self.player)

    def __int__(self) -> int:
        return self.index

    def __index__(self) -> int:
        return self.index

    def __repr__(self) -> str:
        return f"Option({self.index}: {self.describe()})"
