"""Worlds for a look-ahead player of a native game, dealt without a path to the true game.

A look-ahead player samples worlds from its ``Observation`` (``sample_world``). The reference
interpreter's observation holds the live state; a native state's (``OutsideState``) holds
only what the player may be told (``Seen``), which cannot deal. ``blind_observation`` gives
the player an ``Observation`` over a *blind copy* of the reference twin at this decision:
every card the player neither sees nor knows the place of lies, in its deck family's places,
in sorted order (the variables and loops that held it follow), the other players' pending
choices of a simultaneous stage are drawn anew, the other players' memories are empty, and
the copy has no seed and a private generator. What the observation answers is the real
observation's; the worlds it deals are, for the same ``rng``, the real State's, card for card
(a re-deal puts a family's sorted cards at its places whatever lay there:
tests/engine/test_native_worlds.py). The copy holds nothing that says where a hidden card
truly lies, no native state, no twin, no generator of the game and no seed.

Limits: a blind copy is not the game its seed replays, so a deduction-aware sample
(``deduce=True``) deals a plain world (counted in ``deduction["fallbacks"]``), and the
look-ahead player's simulations charge the copy's work budget, not the real game's; native
playouts decline a copy (no game generator to start from) and the simulations run in Python.
"""

from __future__ import annotations

import random

from ..engine.state import State

__all__ = ["BlindState", "blind_copy", "blind_observation"]


class _NoGenerator(random.Random):
    """The generator of a blind copy: any draw from it is a fault (a world's is replaced)."""

    def random(self) -> float:
        raise RuntimeError("a blind copy has no generator of its own (sample a world from its observation)")


class BlindState(State):
    """A blind copy (``blind_copy``): a reference State that says how many options the real
    decision offers (which its hidden cards, in their sorted order, may not)."""

    __slots__ = ("wanted",)

    def num_options(self) -> int:
        return self.wanted


def blind_copy(state, player: int) -> BlindState:
    """A copy of the reference State ``state`` that tells nothing ``player`` may not know
    (see the module's docstring). Its copies (``clone``: the worlds) are plain States."""
    from ..engine.knowledge import _rename, place, redeal_plan

    known = state.known_locations(player)
    copied = state.clone(rng=_NoGenerator(0))
    c = BlindState.__new__(BlindState)
    for name in State.__slots__:
        if hasattr(copied, name):
            setattr(c, name, getattr(copied, name))
    c.wanted = state.num_options()
    c.seed = None
    c.history = state.history[:]
    if state.knowledge is not None:
        c.knowledge = [dict(known) if q == player else {} for q in range(len(state.knowledge))]
    env = c.env
    plan = redeal_plan(c, player, known)
    renamed = place(c, plan, [list(ordered) for _family, ordered in plan])
    if env is not None and renamed:
        # every variable, in scope at the choice or not (place renames only those in scope)
        memo: dict = {}
        c.env = [_rename(v, renamed, memo) for v in env]
    hide = getattr(c.waiting, "hide_pending", None)
    if hide is not None:
        hide(c, player, random.Random(0))
    c.options = None
    return c


def blind_observation(state, player: int):
    """``player``'s ``Observation`` over ``blind_copy(state, player)``: what a look-ahead
    player of a native game receives (it deals worlds as the real state's would)."""
    from ..engine.view import Observation

    return Observation(blind_copy(state, player), player)
