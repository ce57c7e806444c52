"""Deduction on a native state: the others' earlier choices, made blind.

A deduction-aware player (``:deduce``, recycle/engine/deduce.py) checks each world against the
other players' earlier choices: ``PastChoices`` replays the game from its seed and keeps, for
each such choice, the state as it was then. A look-ahead seat of a native game decides from a
blind copy (recycle/native/worlds.py), which has no seed to replay. So the replay is made here,
by the table's side, from the reference twin, and each earlier state kept is made blind as the
copy is: every card the player cannot place now is renamed as the blind copy renamed it (the
copy's re-dealt places hold the family's cards sorted), its variables follow, and it keeps no
generator, no seed and no one's memory. The checks hold nothing the copy does not tell.

A world's checks come out as the reference's: a world is a re-deal of the blind copy's places,
and an earlier state renamed by the blind renaming and then by the world's is the true earlier
state renamed by the world's re-deal of the true places (``knowledge.relabel`` composes), so a
deducing seat samples the same worlds and decides alike on both engines
(tests/players/test_native_deduce.py). In a simultaneous stage the others' pending picks of an
earlier state are drawn anew, as the blind copy's are.
"""

from __future__ import annotations

import random

__all__ = ["blind_past"]


def blind_past(twin, blind, player: int):
    """The ``deduce.PastChoices`` of ``player`` at the reference State ``twin``'s decision, its
    earlier states made blind with ``blind`` (``worlds.blind_copy(twin, player)``): what the
    blind copy's ``Deducer`` checks worlds against (``past``)."""
    from ..engine.deduce import PastChoices
    from ..engine.knowledge import _rename, redeal_plan, relabel

    plan = redeal_plan(twin, player, twin.known_locations(player))
    unknown = frozenset(c for _family, cards in plan for c in cards)
    past = PastChoices(twin, player, unknown)
    renamed = {}
    for family, _ordered in plan:
        for i, k, true in family:
            c = blind.locs[i][k]
            if c != true:
                renamed[true] = c
    checks = []
    for state, chooser, key, after in past.checks:
        b = state.clone(rng=type(blind.rng)(0))  # (the blind copy's kind: no generator)
        relabel(b, renamed)
        if b.env is not None and renamed:
            memo: dict = {}
            b.env = [_rename(v, renamed, memo) for v in b.env]  # (in scope or not, as blind_copy)
        b.seed = None
        b.knowledge = None
        hide = getattr(b.waiting, "hide_pending", None)
        if hide is not None:
            hide(b, player, random.Random(0))
        b.options = None
        checks.append((b, chooser, key, after))
    past.checks = checks
    return past
