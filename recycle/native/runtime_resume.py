"""What a generated native module calls to play a look-ahead playout from a sampled world
(recycle/native/playouts.py): the forced choices, and the world put in place at its decision
(a search's choices: ``choose_searching`` in runtime_search.py)."""

from __future__ import annotations

from .runtime import CHANCE_N, DECISIONS, FORCED_AT, MAX_WORK, MISMATCH, RESUMING, STATUS, STEPPING, WORK, pick
from .runtime_step import stepping_wanted, suspend, suspend_at  # noqa: F401 - the module's entry calls stepping_wanted

# A playout from a sampled world (recycle/native/playouts.py) is the game played again from its
# start: its choices forced to the decision's history, the world's cards put in place when the
# decision is reached, then the rest forced (a look-ahead player's tree) and random. ``resume``
# (in the state, int64) says how; ctr[RESUMING] is 1 in such a playout, ctr[FORCED_AT] the
# next forced choice.
(R_NFORCED, R_ROOT_DECISIONS, R_STAGE, R_ROOT_WORK, R_ROOT_CHANCE, R_FUTURE_COUNT, R_NPLACES, R_AT_ROOT, R_HEADER) = (
    range(9)
)
# resume[R_HEADER:]: the forced choices (R_NFORCED, in order), then R_NPLACES places of the
# world (location, index, card); resume[R_STAGE]: 0 before the root decision, 1 its cards put
# in place, 2 its first choice made; keys[2]: the world's future chance stream (the key
# sample_world gave it, at count resume[R_FUTURE_COUNT])


def arrive(ctr, keys, resume, locs, card_loc, ver):
    """At a choice, before its options are listed, in a playout from a sampled world: at the
    decision the world was sampled at (the one counted resume[R_ROOT_DECISIONS]), the world's
    cards are put in place and its own chance stream takes over. A replay that reaches it with
    another history or another count of chance draws than the real game stops (MISMATCH)."""
    if resume[R_STAGE] != 0 or ctr[DECISIONS] != resume[R_ROOT_DECISIONS] - 1:
        return
    if ctr[FORCED_AT] != resume[R_AT_ROOT] or ctr[CHANCE_N] != resume[R_ROOT_CHANCE]:
        ctr[STATUS] = MISMATCH
        return
    base = R_HEADER + resume[R_NFORCED]
    for j in range(resume[R_NPLACES]):
        i = resume[base + 3 * j]
        c = resume[base + 3 * j + 2]
        locs[i, resume[base + 3 * j + 1]] = c
        card_loc[c] = i
    for i in range(ver.shape[0]):
        ver[i] += 1  # every location may have changed: no answer remembered holds
    keys[0] = keys[2]
    ctr[CHANCE_N] = resume[R_FUTURE_COUNT]
    resume[R_STAGE] = 1


def reach_root(ctr, resume):
    """The root decision's choice is made: the world's work budget starts there."""
    ctr[MAX_WORK] = ctr[WORK] + resume[R_ROOT_WORK]
    resume[R_STAGE] = 2


def choose_at(ctr, keys, resume, n, site):
    """``choose`` at the choice numbered ``site`` (the module's CHOICE_SITES): a game stepped
    from outside stops there saying which choice waits (an observation's one-hot of it)."""
    if ctr[STEPPING]:
        return suspend_at(n, site)
    return choose(ctr, keys, resume, n)


def choose(ctr, keys, resume, n):
    """The option taken among ``n``: a random player's pick, or in a playout from a sampled
    world (ctr[RESUMING]) the next forced choice while there is one. At the root decision the
    world's work budget starts (resume[R_ROOT_WORK]: what the world had left there)."""
    if ctr[STEPPING]:  # stepped from outside: the caller applies an option (runtime_step.py)
        return suspend(n)
    if ctr[RESUMING] == 0:
        return pick(ctr, keys, 1, n) if n > 1 else 0
    if resume[R_STAGE] == 1:
        reach_root(ctr, resume)
    if n <= 1:
        return 0
    f = ctr[FORCED_AT]
    if f < resume[R_NFORCED]:
        ctr[FORCED_AT] = f + 1
        k = resume[R_HEADER + f]
        if k < 0 or k >= n:
            ctr[STATUS] = MISMATCH
            return 0
        return k
    if resume[R_STAGE] == 0:  # the history ran out before the root decision
        ctr[STATUS] = MISMATCH
        return 0
    return pick(ctr, keys, 1, n)
