"""The one loop that plays a game: players, people and analyses all drive a state through it.

Like OpenSpiel's ``evaluate_bots``: while the state is not terminal, the player to move
chooses among the legal options from its observation, and the state applies the choice.
Players are consulted only when there is a real choice (two or more options), so the
random numbers a player draws do not depend on forced moves.

What a player receives depends on who wrote it (``consult``). A player of someone else's
gets plain data (``public.PlayerView`` and ``public.PublicOption``s) from which no state,
no generator and no hidden card is reachable. Only the classes registered with
``privileged`` — the package's own players, whose look-ahead needs to sample worlds — get
the live ``Observation`` and ``Option``s.
"""

from __future__ import annotations

import operator
import random

# player classes whose instances get the live Observation and Options (exact classes: a
# subclass written elsewhere is not privileged unless registered itself)
_PRIVILEGED: set = set()


def privileged(cls):
    """Register a player class (a class decorator): its players get the live
    ``Observation`` (with ``sample_world``) and ``Option``s, from which every hidden card
    and the game's future are reachable. For look-ahead players that simulate the game;
    never for a player whose code you do not trust."""
    _PRIVILEGED.add(cls)
    return cls


def is_privileged(player) -> bool:
    return type(player) in _PRIVILEGED


def sees_true_cards(player) -> bool:
    """Is ``player`` one of the cheating look-ahead players (the omniscient one, or one seeing a
    location's true cards: players/lookahead.py), which read the true cards of the live state?"""
    return getattr(player, "determinize", True) is False or bool(getattr(player, "reveal", None))


def consult(player, state, p: int, options, rng) -> int:
    """Ask ``player`` (seat ``p``) to choose among ``options`` (``state.legal_options()``),
    handing it what its kind may receive (see the module docstring); the index chosen."""
    needs_view = getattr(player, "needs_view", True)
    if type(player) in _PRIVILEGED:
        # (a native state hands its players an observation that deals worlds without a path
        # to the true game: OutsideState.player_observation, recycle/native/worlds.py)
        view = None
        if needs_view:
            look = getattr(state, "player_observation", None)
            if look is None:
                view = state.observation(p)
            else:
                view = look(p, bool(getattr(player, "deduce", False)), sees_true_cards(player))
        got = player.choose(view, options, rng)
    else:
        from .public import player_view, public_options

        got = player.choose(player_view(state, p) if needs_view else None, public_options(state, options), rng)
    i = operator.index(got)
    if not 0 <= i < len(options):
        raise ValueError(f"player {p} ({player!r}) chose option {i} of {len(options)}")
    return i


def play_out(state, players, rng, on_decision=None) -> list[int]:
    """Play ``state`` to its end with one player per seat; returns the final scores.

    ``on_decision(state, player, options, index)`` is called before each option is applied.
    """
    while not state.is_terminal():
        p = state.current_player()
        if on_decision is None and type(players[p]) is RandomPlayer:
            # the random player needs the count of options only (the same draw as its
            # ``choose``): a native state steps on without its twin listing them in words
            n = state.num_options()
            state.apply(0 if n == 1 else int(rng.random() * n))
            continue
        options = state.legal_options()
        i = 0 if len(options) == 1 else consult(players[p], state, p, options, rng)
        if on_decision is not None:
            on_decision(state, p, options, i)
        state.apply(i)
    return state.returns()


@privileged
class RandomPlayer:
    """Picks uniformly among the legal options (CardStock's random player)."""

    needs_view = False
    name = "random"

    def choose(self, view, options, rng: random.Random) -> int:
        # a float draw: uniform to within 2**-53 and several times cheaper than randrange
        return int(rng.random() * len(options))


def replay_choices(state, chosen) -> None:
    """Step ``state`` through ``chosen``, the options taken at its decisions of two or more
    options in order (``state.history``), taking every one-option decision as it comes, and
    then those that follow: the state waits at the next real decision or has ended. Undo plays
    a deal again this way, up to a person's last decision."""
    j = 0
    while j < len(chosen):
        if state.num_options() == 1:
            state.apply(0)
        else:
            state.apply(chosen[j])
            j += 1
    while not state.is_terminal() and state.num_options() == 1:
        state.apply(0)
