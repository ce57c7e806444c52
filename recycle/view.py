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

    def rollout(self, decide, rng, determinize: bool = True, max_steps: int | None = None):
        """Simulate the rest of the game from this decision in a world consistent with this
        view (see ``rollout_from``); ``determinize=False`` sees the true cards (cheating)."""
        return rollout_from(self._state, self.player if determinize else None, decide, rng, max_steps)

    @property
    def decisions_so_far(self) -> int:
        return len(self._state.history)

    def strs(self) -> dict[str, str]:
        s = self._state
        layout = s.game.layout
        return {layout.slot_label("str", i): v for i, v in enumerate(s.strs) if v}


class SimulationEnd(Exception):
    """Raised by a rollout's ``decide`` to stop a simulation early (e.g. one-ply look-ahead)."""


def determinize(state, observer: int, rng) -> None:
    """Re-deal every card ``observer`` cannot see among the places it cannot see.

    Counts per location are kept, and cards only trade places with cards of the same deck
    (family), so the result is a state consistent with the observer's view, drawn uniformly.
    """
    game = state.game
    infos = game.layout.infos
    slots: dict[str, list] = {}
    for i, lst in enumerate(state.locs):
        if not lst or i >= len(infos):
            continue
        info = infos[i]
        if info.visibility == MEMORY or may_see(info, observer, state.team_of):
            continue
        for k, c in enumerate(lst):
            slots.setdefault(game.card_deck[c], []).append((i, k, c))
    # the cards are sorted (and the families taken in name order) before the shuffle, so
    # the world drawn depends on the view and the generator only, never on where the
    # hidden cards truly lie
    for name in sorted(slots):
        family = slots[name]
        cards = sorted(c for _, _, c in family)
        rng.shuffle(cards)
        for (i, k, _), c in zip(family, cards):
            state.locs[i][k] = c
            state.card_loc[c] = i


def rollout_from(state, observer: int | None, decide, rng, max_steps: int | None = None):
    """Play the game again from its start to the decision ``state`` is at, then on.

    The first decisions replay ``state.history``; at the current decision (the *root*) the
    state is re-dealt for ``observer`` before the root's options are listed again (``determinize``; ``observer=None`` keeps the true
    cards: cheating, for comparison) and the game's generator is reseeded from ``rng`` so
    the future is unknown too. From the root on, ``decide(sim_state, options)`` picks every
    choice with 2+ options. Returns the final scores, or ``None`` if the step limit hit;
    ``decide`` may raise ``SimulationEnd`` to stop early, and then the scores are evaluated
    on the state as it is.
    """
    import random as _random

    from .errors import StepLimitExceeded
    from .runtime import State

    game = state.game
    prefix = list(state.history)
    k = len(prefix)
    sim = State(game, _random.Random(state.seed), False, max_steps or state.max_steps)
    sim.seed = state.seed
    position = 0

    def replay_then_decide(opts):
        nonlocal position
        if position < k:
            position += 1
            return prefix[position - 1]
        if position == k:
            # the root: re-deal, reseed, and have the choice list its options again in the
            # new world (options bound to hidden cards must not come from the true state)
            position += 1
            if observer is not None:
                determinize(sim, observer, rng)
            sim.rng.seed(rng.getrandbits(64))
            return None
        return decide(sim, opts)

    sim.decide = replay_then_decide
    env = [None] * game._compiler.nslots
    try:
        game._start(sim, env)
        game._flow.run(sim, env)
    except SimulationEnd:
        pass
    except StepLimitExceeded:
        return None
    return game.final_scores(sim, env)
