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

Its worlds are played out natively from a blind copy of the native state's block at the same
decision (``BlindState.native``: recycle/native/blind.py), not by replaying the game; where that
copy cannot be made blind (a simultaneous stage, a variable holding a re-dealt card) they are
played in Python. A deducing player's copy also keeps the others' earlier choices, made blind by
the table's side (``BlindState.past``: recycle/native/blind_past.py), so ``deduce=True`` deals the
reference's deduced worlds. The work the player's simulations that never end spend from the
copy's budget is charged to the real game at its next ``apply`` (``OutsideState._charge``).
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

    __slots__ = ("wanted", "native", "past")

    def num_options(self) -> int:
        return self.wanted


def blind_copy(state, player: int, native=None) -> BlindState:
    """A copy of the reference State ``state`` that tells nothing ``player`` may not know
    (see the module's docstring). Its copies (``clone``: the worlds) are plain States.
    ``native``: the native state at the same decision, whose blind start the copy keeps
    (``native``: recycle/native/blind.py; None where it cannot be made blind)."""
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
    c.native = None
    c.past = None
    if native is not None:
        from .blind import blind_start

        c.native = blind_start(native, state, plan, c)
    return c


def blind_observation(state, player: int, native=None, deduce: bool = False):
    """``player``'s ``Observation`` over ``blind_copy(state, player, native)``: what a look-ahead
    player of a native game receives (it deals worlds as the real state's would, and its
    playouts start natively from ``native``'s blind start). ``deduce``: the copy also keeps the
    others' earlier choices, made blind, for deduction-aware worlds (``blind_past``)."""
    from ..engine.view import Observation

    c = blind_copy(state, player, native)
    if deduce:
        from .blind_past import blind_past

        c.past = blind_past(state, c, player)
    return Observation(c, player)
