"""What a player of someone else's receives: plain data, from which nothing hidden is reachable.

The runner (``runner.consult``) hands a player that is not one of the package's own a
``PlayerView`` and a tuple of ``PublicOption`` (issue 25, items 13-15). Both are frozen
dataclasses of plain values — ints, strings, tuples, read-only mappings — built from the
state at the decision and holding no reference to it: not the state, not its generator
(the future), not the compiled game's closures, not a card the player may not see. So a
player cannot peek by reading attributes, whatever it tries; it is so by construction,
not by the player's good manners.

* ``PlayerView`` has what ``Observation`` answers — the cards the player sees, the count of
  every location, the storages, the cards whose place it knows — and the same methods
  (``cards``, ``count``, ``can_see``, ``locations``, ``known_cards``, ``known_locations``,
  ``ints``, ``strs``), plus ``game``: the rules' plain facts (``PublicGame``: the name, the
  number of players, the scoring direction, the card table, the locations). It has no
  ``sample_world``: simulating needs the state.
* ``PublicOption`` has the option's ``index``, its ``words`` (``describe()``), its ``text``
  (``render()``: the forms with the values bound, hidden cards as ``?``), the ``cards`` it
  moves (ids where the chooser sees them now, ``None`` elsewhere) and a ``key`` in which a
  card the chooser does not see is named by its place (``options.masked_key``).

An option is told as its chooser knows it *before* choosing (item 15). What an option does
can depend on cards the chooser does not see (the option list was worked out on the real
state) and on the generator, so it is not told from the real state at all: it is told in
``PROBES`` *probe worlds* (``probe_worlds``), copies with every card the chooser does not see
re-dealt and the generator reseeded by fixed seeds. The re-dealt cards are sorted before
the fixed shuffle, so the probe worlds, and so everything told, depend on the chooser's
information only: the same in the real state and in any world it cannot tell from it. Where
the worlds disagree, only what they share is told, and ``VARIES`` says there is more.
"""

from __future__ import annotations

import warnings
import weakref
from dataclasses import dataclass
from types import MappingProxyType

from ..lang.syntax.notes import NO_WORDS, GameWords
from ..streams import Stream


@dataclass(frozen=True)
class PublicLayout:
    """The locations of a game: ``infos[i]`` is location i's ``LocationInfo`` (its owner,
    kind, name and visibility class: frozen plain data)."""

    infos: tuple

    def info(self, index: int):
        return self.infos[index]


@dataclass(frozen=True)
class PublicGame:
    """The plain facts of a game's rules a player may read: no closures, no states."""

    name: str
    nplayers: int
    scoring_max: bool
    card_attrs: tuple  # per card id: a read-only mapping of its attributes (RANK, SUIT, ...)
    card_names: tuple  # per card id: its short name (``A♠``)
    layout: PublicLayout
    words: GameWords = NO_WORDS  # the game's names of options and labels of storages (lang/syntax/notes.py)

    def card_name(self, c: int) -> str:
        """A short name for a card, e.g. ``A♠`` or ``RED-7``."""
        return self.card_names[c]


_GAMES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def public_game(game) -> PublicGame:
    """``game``'s ``PublicGame`` (made once per game, again when it has created cards)."""
    got = _GAMES.get(game)
    if got is None or len(got.card_names) != len(game.card_attrs):
        got = _GAMES[game] = PublicGame(
            game.name,
            game.nplayers,
            bool(game.scoring_max),
            tuple(MappingProxyType(dict(a)) for a in game.card_attrs),
            tuple(game.card_name(c) for c in range(len(game.card_attrs))),
            PublicLayout(tuple(game.layout.infos)),
            getattr(game, "words", NO_WORDS),
        )
    return got


@dataclass(frozen=True)
class PlayerView:
    """One player's view of a decision, as plain data (see the module docstring)."""

    player: int
    current_player: int
    decisions_so_far: int  # real decisions (two or more options) so far
    game: PublicGame
    seen: tuple  # per location index: its cards bottom first, ids where visible, None where not
    visible: tuple  # per location index: may this player see its cards?
    int_values: tuple  # ((label, value), ...) of the integer storages that are set
    str_values: tuple  # the same for the string storages
    known: tuple  # ((card, location), ...): cards it does not see now but knows the place of

    def can_see(self, location: int) -> bool:
        """May this player see the cards of the location with this index?"""
        return self.visible[location]

    def cards(self, location: int) -> list:
        """The location's cards, bottom first: card ids where visible, ``None`` where not."""
        return list(self.seen[location])

    def count(self, location: int) -> int:
        return len(self.seen[location])

    def locations(self) -> dict[str, list]:
        """Every non-empty location by label, with ``cards()`` of each."""
        infos = self.game.layout.infos
        return {infos[i].label: list(cards) for i, cards in enumerate(self.seen) if cards and i < len(infos)}

    def known_cards(self) -> set[int]:
        """Every card whose identity and place this player can see now."""
        return {c for cards in self.seen for c in cards if c is not None}

    def known_locations(self) -> dict[int, int]:
        """Cards this player cannot see now but knows the place of (card -> location)."""
        return dict(self.known)

    def ints(self) -> dict[str, int]:
        """All integer storages that are set (public to everyone), by label."""
        return dict(self.int_values)

    def strs(self) -> dict[str, str]:
        return dict(self.str_values)

    def __repr__(self) -> str:
        g = self.game
        lines = [f"View of P{self.player} (P{self.current_player} to move, decision {self.decisions_so_far})"]
        for label, cards in self.locations().items():
            lines.append(f"  {label}: {' '.join('?' if c is None else g.card_name(c) for c in cards)}")
        for label, v in {**self.ints(), **self.strs()}.items():
            lines.append(f"  {label} = {v}")
        return "\n".join(lines)


def player_view(state, player: int) -> PlayerView:
    """``player``'s ``PlayerView`` of ``state`` (copied out of its ``Observation``)."""
    obs = state.observation(player)
    n = min(len(state.locs), len(state.game.layout.infos))
    visible = tuple(obs.can_see(i) for i in range(n))
    seen = tuple(tuple(obs.cards(i)) if visible[i] else (None,) * len(state.locs[i]) for i in range(n))
    return PlayerView(
        int(player),
        int(obs.current_player),
        obs.decisions_so_far,
        public_game(state.game),
        seen,
        visible,
        tuple((k, int(v)) for k, v in obs.ints().items()),
        tuple((k, str(v)) for k, v in obs.strs().items()),
        tuple(sorted((int(c), int(i)) for c, i in obs.known_locations().items())),
    )


_CHOOSER = object()  # describe()/render() without a viewer: as the chooser sees it
# the worlds an option is told in (``probe_worlds``), and the seeds tried to find them
PROBES = 4
PROBE_TRIES = 16
# said where the worlds consistent with the chooser's information disagree
VARIES = "(more, depending on cards you do not see)"


@dataclass(frozen=True)
class PublicOption:
    """One legal option, as its chooser may know it (see the module docstring)."""

    index: int
    player: int  # its chooser
    words: str
    text: str
    cards: tuple
    key: tuple

    def describe(self, viewer=_CHOOSER) -> str:
        """What the option would do, in words, as its chooser sees it before choosing.
        (``viewer`` is accepted for the ``Option`` API it replaces, and ignored: a player
        sees options as their chooser only.)"""
        if viewer is not _CHOOSER and viewer != self.player:
            warnings.warn(
                "a player sees options as their chooser only: describe(viewer) is ignored",
                DeprecationWarning,
                stacklevel=2,
            )
        return self.words

    def render(self, viewer=_CHOOSER) -> str:
        """The option's forms with the values bound in them filled in (cards the chooser
        does not see as ``?``); ``viewer`` is ignored, as in ``describe``."""
        if viewer is not _CHOOSER and viewer != self.player:
            warnings.warn(
                "a player sees options as their chooser only: render(viewer) is ignored",
                DeprecationWarning,
                stacklevel=2,
            )
        return self.text

    def __int__(self) -> int:
        return self.index

    def __index__(self) -> int:
        return self.index

    def __repr__(self) -> str:
        return f"PublicOption({self.index}: {self.words})"


def probe_worlds(state, chooser: int, n: int) -> list:
    """Up to ``PROBES`` copies of ``state`` in which every card ``chooser`` does not see is
    re-dealt and the generator reseeded, each by a fixed seed, keeping those that offer
    ``n`` options like the real decision. They depend on the chooser's information only:
    the cards re-dealt are sorted before the fixed shuffle (``knowledge.redeal``)."""
    from ..errors import RecycleRuntimeError
    from .knowledge import redeal, redeal_plan

    plan = redeal_plan(state, chooser)
    out: list = []
    for seed in range(1, PROBE_TRIES + 1):
        world = state.clone(rng=Stream(seed))
        redeal(world, plan, Stream(seed))
        try:
            if world.num_options() == n:
                out.append(world)
        except RecycleRuntimeError:  # a world in which this decision offers nothing
            continue
        if len(out) == PROBES:
            break
    return out


def _told_in(world, index: int, chooser: int):
    """(words, text, cards, key) of option ``index`` of ``world``'s decision, as its chooser
    is told it there; None if the option breaks a rule of the game in that world."""
    from ..errors import RecycleRuntimeError
    from .describe import AT_RANDOM, describe_option, effects, moved_cards
    from .options import masked_key
    from .transcript import describe_option as render

    try:
        steps = world._raw_options()[index]
        events = effects(world, steps, chooser, watch=True)
        # the steps after one that draws from the generator were listed by a draw: the future's
        drawing = next((k for k, (item, _) in enumerate(steps) if item.draws), len(steps))
        text = render(world.game, world, steps[: drawing + 1], chooser, chooser)
        if drawing + 1 < len(steps):
            text += f"; {AT_RANDOM}"
        return (
            describe_option(world, steps, chooser, chooser, events),
            text,
            tuple(moved_cards(world, events, chooser)),
            masked_key(world, steps, chooser),
        )
    except RecycleRuntimeError:
        return None


def public_options(state, options) -> tuple:
    """``PublicOption``s of ``options`` (``Option``s of ``state.legal_options()``, or some
    of them): each told as it is in every probe world (``probe_worlds``), never from the
    real state's hidden cards or generator. Where the worlds disagree (what the option does
    depends on cards the chooser does not see, or on the future), only what they have in
    common is told, and ``VARIES`` says so."""
    if not options:
        return ()
    chooser = options[0].player
    # the state the options were listed in: a native state's options are its reference twin's
    state = options[0]._state
    worlds = probe_worlds(state, chooser, state.num_options())
    out = []
    for o in options:
        told = [t for t in (_told_in(w, o.index, chooser) for w in worlds) if t is not None]
        out.append(_common(o.index, chooser, told))
    return tuple(out)


def _common(index: int, chooser: int, told: list) -> PublicOption:
    """What all the worlds' accounts ``told`` of option ``index`` have in common."""
    if not told:
        return PublicOption(index, chooser, VARIES, VARIES, (), ("varies", index, ()))
    first = told[0]
    if all(t == first for t in told[1:]):
        return PublicOption(index, chooser, *first)
    words, text, cards, key = zip(*told)
    same_cards = all(c == cards[0] for c in cards[1:])
    return PublicOption(
        index,
        chooser,
        _common_parts(words, _coarse),
        _common_parts(text, None),
        cards[0] if same_cards else tuple(c for c in cards[0] if c is not None and all(c in k for k in cards[1:])),
        key[0]
        if all(k == key[0] for k in key[1:])
        else ("varies", index, tuple(step for step in key[0] if all(step in k for k in key[1:]))),
    )


def _common_parts(texts, coarse) -> str:
    """The "; "-separated parts of ``texts`` that all of them have (in the first one's
    order; else, with ``coarse``, a coarser part all of them have), then ``VARIES``."""
    lists = [t.split("; ") for t in texts]
    rest = [list(parts) for parts in lists[1:]]
    out: list[str] = []
    for part in lists[0]:
        if all(part in r for r in rest):
            for r in rest:
                r.remove(part)
            out.append(part)
            continue
        c = coarse(part) if coarse is not None else None
        if c and c not in out and all(any(coarse(x) == c for x in r) for r in rest):
            out.append(c)
    return "; ".join(out + [VARIES])


def _coarse(part: str) -> str | None:
    """A part of an option's words without what may vary between worlds: ``set TOTAL(P0)``
    for ``set TOTAL(P0) to 15``, ``move cards to TRICK`` for any move to TRICK."""
    if part.startswith("set "):
        return part.split(" to ", 1)[0]
    if part.startswith("move ") and " to " in part:
        return f"move cards to {part.rsplit(' to ', 1)[1]}"
    if part.startswith("swap ") and " from " in part:
        return f"swap cards with {part.rsplit(' from ', 1)[1]}"
    return None
