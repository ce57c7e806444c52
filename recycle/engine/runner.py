"""The one loop that plays a game: players, people and analyses all drive a state through it.

Like OpenSpiel's ``evaluate_bots``: while the state is not terminal, the player to move
chooses among the legal options from its observation, and the state applies the choice.
Players are consulted only when there is a real choice (two or more options), so the
random numbers a player draws do not depend on forced moves.
"""

from __future__ import annotations

import operator
import random


def play_out(state, players, rng, on_decision=None) -> list[int]:
    """Play ``state`` to its end with one player per seat; returns the final scores.

    ``on_decision(state, player, options, index)`` is called before each option is applied.
    """
    while not state.is_terminal():
        p = state.current_player()
        options = state.legal_options()
        if len(options) == 1:
            i = 0
        else:
            player = players[p]
            obs = state.observation(p) if player.needs_view else None
            i = operator.index(player.choose(obs, options, rng))
            if not 0 <= i < len(options):
                raise ValueError(f"player {p} ({player!r}) chose option {i} of {len(options)}")
        if on_decision is not None:
            on_decision(state, p, options, i)
        state.apply(i)
    return state.returns()


class RandomPlayer:
    """Picks uniformly among the legal options (CardStock's random player)."""

    needs_view = False
    name = "random"

    def choose(self, view, options, rng: random.Random) -> int:
        # a float draw: uniform to within 2**-53 and several times cheaper than randrange
        return int(rng.random() * len(options))
