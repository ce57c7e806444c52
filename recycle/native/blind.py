"""Where a look-ahead player's native playouts start on a native table state: a blind start.

A look-ahead seat of a native game (``OutsideState``, recycle/native/outside.py) decides from
an observation over a *blind copy* of the reference twin (recycle/native/worlds.py): every card
it cannot place lies, in its family's places, in sorted order; the copy has no generator and no
seed. Its worlds are played out by native code from a ``BlindStart``: a copy of the native
state's block at this decision (the game stopped at the choice, recycle/native/stepping.py),
made blind the same way before the player receives it:

* the cards of the places a world re-deals are put there in the blind copy's (sorted) order,
  and every card's place follows;
* the chance and the players' stream keys and their counts are zero (no generator, no seed:
  a world sets its own, ``playouts_state.finish_world``);
* what native code remembered of the true cards is dropped: what lies above each location's top
  (the cards that left it, in their order), the answers kept per location version (``memo``), a
  dry run's saved state (``dry``), the last rollout's final places and scores; every location's
  version is 1 (they counted the changes of every game the library's runner played), so no
  answer is taken from before; a search module's keys of earlier decisions' options (which
  hash other players' cards) and its resume array are zeroed. So two true states that the
  player cannot tell apart give the same start, byte for byte (tests/players/test_native_blind.py).

A start is not made (the player's playouts run in Python, as before) where the copy could not be
blind: a variable or loop of the game holds, at the choice, a card of a re-dealt place (the
reference copy renames it; native code holds the true card), or the game has a simultaneous stage
(the other players' pending picks are in the block). What is not blinded is the C stack of the
stopped choice beyond its live variables (registers and slots of values the game computed before
the choice and reads no more), which nothing of the player reads.

Playouts from a start are the twin's, draw for draw (the same block but for the re-dealt places,
which every world overwrites): the same decisions as on the reference engine
(tests/players/test_native_blind.py).
"""

from __future__ import annotations

from .playouts_state import SIMULTANEOUS
from .runtime import CHANCE_N, PLAYERS_N

__all__ = ["BlindStart", "blind_start"]


class BlindStart:
    """A native state's block at a decision, made blind (see the module's docstring): what
    ``NativePlayouts`` starts a world from (``world``)."""

    __slots__ = ("block", "lib", "nopts", "max_steps", "max_work")

    def __init__(self, block, lib, nopts: int, max_steps: int, max_work):
        self.block, self.lib, self.nopts = block, lib, nopts
        self.max_steps, self.max_work = max_steps, max_work

    def world(self):
        """A ``NativeState`` stopped at the decision, of this block (a copy), to put a world's cards
        into and play on; None when its library's runner is gone (nothing to play it on)."""
        from .stepping import NativeState, runner_of_lib

        r = runner_of_lib(self.lib)
        if r is None:
            return None
        w = NativeState(r, self.nopts)
        w._block = self.block.copy()
        w._max_steps, w._max_work = self.max_steps, self.max_work
        return w


def blind_start(ns, twin, plan: list, blind) -> BlindStart | None:
    """The blind start of the native state ``ns`` (an ``OutsideState``'s, at a decision), or None
    where it cannot be blind (see the module's docstring). ``twin``: the reference State at the
    same decision; ``plan``: the re-deal plan of the observer (``knowledge.redeal_plan``);
    ``blind``: the blind copy made with it, whose cards the start's re-dealt places take."""
    if ns is None or ns._nopts < 1 or ns._final is not None:
        return None
    r = ns._runner
    if SIMULTANEOUS in r.ng.source:
        return None
    slots = {(i, k) for family, _ordered in plan for i, k, _c in family}
    from .playouts import held_places

    if any((i, k) in slots for i, k, _c in held_places(twin)):
        return None
    copy = ns.clone()
    block = copy._block
    copy._block = None
    if block is None:
        return None
    a = r.views(block)
    locs, lens, card_loc, ctr, keys, ver, memo, dry = a[0], a[1], a[2], a[8], a[9], a[12], a[13], a[14]
    blind_locs = blind.locs
    for i, k in sorted(slots):
        c = blind_locs[i][k]
        locs[i, k] = c
        card_loc[c] = i
    for i, n in enumerate(lens.tolist()):
        locs[i, n:] = 0  # what lay above a location's top: the cards that left it, in their order
    # every version 1 (they counted the changes of every game this library's runner played) and
    # no answer remembered (a zeroed memo entry matches no version from 1 on)
    ver[...] = 1
    memo[...] = 0
    dry[...] = 0
    keys[...] = 0
    ctr[CHANCE_N] = 0
    ctr[PLAYERS_N] = 0
    # a search module's: the keys its choices gave the options of earlier decisions (others'
    # options, their cards) and the resume array; a search from it sets its own
    for part in a[15:17]:
        part[...] = 0
    if r.ng.searches:
        from .runtime_search import T_HEADER, T_KEYS

        a[16][T_KEYS] = T_HEADER
    import numpy as np

    for i, off, shape, dtype in r.layout:
        if i >= len(a):  # the last rollout's scores, counters and final places
            np.ndarray(shape, dtype, buffer=block.pool, offset=off)[...] = 0
    block.views = None
    return BlindStart(block, r.lib, ns._nopts, ns._max_steps, ns._max_work)
