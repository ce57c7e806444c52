"""What each player has observed: the cards whose location it knows, kept up to date.

A player knows where a card is when it saw the card arrive (the destination is visible to
it) or saw it leave (the source was visible to it): a card passed face down to a neighbour
is known to be in the neighbour's hand; a card seen face up and then turned face down is
known to be in the face-down pile. A card that moves unseen out of a location makes every
card the player knew to be there uncertain (it cannot tell which one left); the same for a
card swapped unseen. A known card follows a swap of two whole locations. Facts kept here
are always true of the state.

``KnowledgeSink`` is an event sink (``state.events``); ``determinize`` re-deals the cards
a player neither sees nor knows, so sampled worlds agree with everything it observed.
"""

from __future__ import annotations

from ..lang.forms.values import MEMORY, Card, MoveEvent
from ..lang.forms.values import may_see


class KnowledgeSink:
    """Receives the state's events, updates every player's knowledge, passes them on."""

    __slots__ = ("state", "inner", "infos")

    def __init__(self, state, inner=None):
        self.state = state
        self.inner = inner
        self.infos = state.game.layout.infos
        if state.knowledge is None:
            state.knowledge = [{} for _ in range(state.game.nplayers)]

    def append(self, ev) -> None:
        if isinstance(ev, MoveEvent) and ev.action in ("move", "swap", "create"):
            self.see(ev)
        if self.inner is not None:
            self.inner.append(ev)

    def see(self, ev: MoveEvent) -> None:
        s = self.state
        infos = self.infos
        c, src, dst = ev.card, ev.src, ev.dst
        dinfo = infos[dst]
        sinfo = infos[src] if src is not None else None
        for p, known in enumerate(s.knowledge):
            if may_see(dinfo, p, s.team_of) or (sinfo is not None and may_see(sinfo, p, s.team_of)):
                known[c] = dst
            elif ev.whole:
                if known.get(c) == src:
                    known[c] = dst
            elif src is not None:
                # an unseen card left src: any card known to be there may be the one
                for k in [k for k, where in known.items() if where == src]:
                    del known[k]

    def __len__(self) -> int:
        return len(self.inner) if self.inner is not None else 0

    def __iter__(self):
        return iter(self.inner if self.inner is not None else ())


def determinize(state, observer: int, rng, known: dict | None = None) -> None:
    """Re-deal every card ``observer`` neither sees nor knows the place of, among those places.

    Counts per location are kept, and cards only trade places with cards of the same deck
    (family), so the result is a state consistent with what the observer saw, drawn
    uniformly. The unseen cards are sorted before the shuffle, so the world drawn depends
    on the observer's information and the generator only, never on where they truly lie.
    """
    redeal(state, redeal_plan(state, observer, known), rng)


def redeal_plan(state, observer: int, known: dict | None = None) -> list:
    """What ``determinize`` re-deals in ``state`` (or in any copy of it): per deck family,
    in name order, the places ``(location, position, card now there)`` and the family's
    cards sorted. Worked out once, it serves every world sampled from the same state."""
    game = state.game
    infos = game.layout.infos
    known = known or {}
    decks = game.card_table.decks
    team_of = state.team_of
    slots: dict[str, list] = {}
    for i, lst in enumerate(state.locs):
        if not lst or i >= len(infos):
            continue
        info = infos[i]
        if info.visibility == MEMORY or may_see(info, observer, team_of):
            continue
        for k, c in enumerate(lst):
            if known.get(c) != i:
                slots.setdefault(decks[c], []).append((i, k, c))
    return [(tuple(slots[name]), tuple(sorted(c for _, _, c in slots[name]))) for name in sorted(slots)]


def redeal(state, plan: list, rng) -> dict:
    """Deal ``plan``'s cards (``redeal_plan`` of this state or of the one it was copied
    from) at random among its places, each family shuffled by ``rng.shuffle``. Returns
    which card now lies where each card lay (old -> new, the cards that changed)."""
    dealt = []
    for _family, ordered in plan:
        cards = list(ordered)
        rng.shuffle(cards)
        dealt.append(cards)
    return place(state, plan, dealt)


def place(state, plan: list, dealt: list) -> dict:
    """Put ``dealt[f]`` (family f's cards, in the order of its places) at ``plan``'s places;
    returns which card now lies where each card lay (old -> new, the cards that changed)."""
    locs, card_loc = state.locs, state.card_loc
    renamed = {}
    for (family, _ordered), cards in zip(plan, dealt):
        for (i, k, old), c in zip(family, cards):
            locs[i][k] = c
            card_loc[c] = i
            if c != old:
                renamed[old] = c
    follow(state, renamed)
    return renamed


def relabel(state, renamed: dict) -> None:
    """Put card ``renamed[c]`` wherever card ``c`` lies in ``state`` (``renamed``: what
    ``redeal`` returned for a later state of the same game, a permutation of cards), and
    make the variables and loops follow: the earlier state as it was in the re-dealt world
    (``engine.deduce``)."""
    locs, card_loc = state.locs, state.card_loc
    for i, lst in enumerate(locs):
        for k, c in enumerate(lst):
            new = renamed.get(c)
            if new is not None:
                lst[k] = new
                card_loc[new] = i
    follow(state, renamed)


def follow(state, renamed: dict) -> None:
    """Variables and loops that hold a card of ``renamed`` (old -> new) hold its new card."""
    if renamed:
        # variables and loops that hold a re-dealt card now hold the card dealt in its place:
        # at a choice, the variables in scope there (ChoicePoint.live; a slot out of scope is
        # bound again before anything reads it)
        memo: dict = {}
        waiting = state.waiting
        env = state.env
        if waiting is not None and env is not None:
            env = state.env = env[:]
            for j in waiting.live:
                v = env[j]
                if isinstance(v, (list, Card)):
                    env[j] = _rename(v, renamed, memo)
        elif env is not None:
            state.env = [_rename(v, renamed, memo) if isinstance(v, (list, Card)) else v for v in env]
        if state.frames:
            state.frames = [(_rename(f[0], renamed, memo), f[1]) if type(f) is tuple else f for f in state.frames]
        state.options = None


def _rename(v, renamed: dict, memo: dict):
    if isinstance(v, list):
        got = memo.get(id(v))
        if got is None:
            got = memo[id(v)] = type(v)(_rename(x, renamed, memo) for x in v)
        return got
    if isinstance(v, Card):
        return renamed.get(v, v)
    return v
