"""The native writer of ``(stage player simultaneous (end C) ITEM ...)`` (recycle/lang/forms/simultaneous.py):
the stage is written as a stage (forms_flow.stage, its keyword left out), and each choice in it
as every player's (``every_player_chooses``), counter for counter as the reference interpreter
makes it: for each player in seat order, current while its options are counted, a step, a
decision and its options counted, a pick; then the picks run in seat order, each with its
player current, and the stage's current player is restored.

Where the native engine could differ, it stops and Python plays the rollout (CAPACITY): a later
player whose number of options is no longer the one it chose among once the earlier choices
ran (the reference runs the options listed before any was applied), and a playout from a
sampled world (its forced history holds the other players' real pending choices, which
Python's sampled worlds draw anew). A search module does not write it.
"""

from __future__ import annotations

from .registry import NativeUnsupported


def every_player_chooses(w, x, count: str, run) -> None:
    """Statements of a choice in a simultaneous stage: ``count`` is the code counting the
    options of the current player, ``run(k)`` the code running its option k."""
    if w.search:
        raise NativeUnsupported("(stage player simultaneous ...) in a look-ahead search", x)
    chosen, counted, first, p = w.fresh("chosen"), w.fresh("counted"), w.fresh("first"), w.fresh("seat")
    with w.block("if ctr[RESUMING]:"):
        w.line("ctr[STATUS] = CAPACITY  # a playout from a sampled world: Python draws the pending choices")
        w.line("return")
    w.line(f"{chosen} = alloc(scratch, ctr, NPLAYERS)  # each player's pick")
    w.line(f"{counted} = alloc(scratch, ctr, NPLAYERS)  # and how many options it picked among")
    w.check()
    w.line(f"{first} = pst[ctr[PSP], 0]")
    with w.block(f"for {p} in range(NPLAYERS):"):
        w.line(f"pst[ctr[PSP], 0] = {p}")
        w.line(f"n = {count}")
        w.check()
        with w.block("if n == 0:"):
            w.line("ctr[STATUS] = RULE  # a choice with no legal option")
            w.line("return")
        w.line("ctr[STEPS] += 1")
        with w.block("if ctr[STEPS] > ctr[MAX_STEPS]:"):
            w.line("ctr[STATUS] = STEP_LIMIT")
            w.line("return")
        w.line("ctr[DECISIONS] += 1")
        w.line("ctr[OPTIONS] += n")
        w.line("ctr[WORK] += n")
        w.line("k = choose(ctr, keys, resume, n)")
        w.check()
        w.line(f"scratch[{chosen} + 1 + {p}] = k")
        w.line(f"scratch[{counted} + 1 + {p}] = n")
    with w.block(f"for {p} in range(NPLAYERS):"):
        w.line(f"pst[ctr[PSP], 0] = {p}")
        with w.block(f"if {p} > 0 and {count} != scratch[{counted} + 1 + {p}]:"):
            w.line("ctr[STATUS] = CAPACITY  # its options changed with an earlier pick: Python plays it")
            w.line("return")
        w.line(run(f"scratch[{chosen} + 1 + {p}]"))
        w.check()
    w.line(f"pst[ctr[PSP], 0] = {first}")
