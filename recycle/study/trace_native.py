"""``analysis.trace_game``'s game stepped by native code: the same record, number for number.

A traced game reads, at every decision, what the reference interpreter's live state holds: the
player to move, the count of options, every player's ``scoring`` value now (None where it cannot
be evaluated yet) and the stage stack (for the turns of each stage, ``analysis.TurnCounter``).
Natively the game is started *traced* (``stepped.start(trace=True)``): at each stop the module's
``score_now`` works the scoring out into the counters' tail (1 and the scores; 2 where a rule
breaks, the reference's ``RecycleRuntimeError``; 3 where native code cannot say) and leaves the
state as it was (steps, work, chance draws, stacks); each player stage's entry on the native
stack holds ``ctr[STEPS]`` when it was entered, which tells a stage entered anew from the same
entry (the reference compares the entries' identity); the chosen option's place in the text is
its choice's (``CHOICE_SITES``). The random players draw from the players' stream as
``runner.play_out`` does.

``trace_natively`` returns None where the reference interpreter must trace the game (and
``analysis.trace_game`` then does): players other than random ones, ``--values winprob:N``
(its rollouts start from the live reference state), a scoring that draws, a simultaneous stage,
a game native code does not build here, and any game native code stops (a rule broken, the
step limit, the work budget, a capacity), or that may be near the reference's work budget
(``WORK_MARGIN``; the reference charges the scoring at every decision too: a traced game near
its budget could stop where native code does not).
tests/study/test_trace_native.py requires the same analysis both ways.
"""

from __future__ import annotations

__all__ = ["trace_natively"]

# The native work count is far coarser than the reference's: over games/ and a third of the
# corpus the reference counted 5 to 87 times the native units of the same game. A game whose
# native count is more than max_work / WORK_MARGIN may be near the reference's budget.
WORK_MARGIN = 256


def traceable(specs: list[str], values: int, draws: bool, simultaneous: bool) -> bool:
    """Can native code trace the games of these players (see the module's docstring), of a game
    whose scoring ``draws`` or that has a ``simultaneous`` stage?"""
    return not (values or draws or simultaneous or any(s != "random" for s in specs))


def trace_natively(game, seed: int, max_steps: int, turns) -> dict | None:
    """The traced record of the game dealt with ``seed`` played by random players (the keys of
    ``analysis.trace_game``'s but ``seed``, ``limit`` and ``playouts``), stepped natively;
    ``turns`` (a fresh ``TurnCounter``) counts its turns. None where the reference must trace it."""
    from ..engine.game import players_stream, rank, tied_sides
    from ..native import NativeUnavailable, NativeUnsupported
    from ..native.choose import declined, native_here
    from ..native.runtime import PSP, WORK
    from ..native.stepped import start
    from ..native.stepping import NativeStopped

    if not native_here():
        return None
    try:
        ns = start(game, seed, max_steps, trace=True)
    except (NativeUnsupported, NativeUnavailable) as exc:
        declined(game, exc)
        return None
    np_ = game.nplayers
    sites = ns._runner.ng.module.CHOICE_SITES
    rng = players_stream(seed)
    movers, options, trace = [], [], []
    entries: dict = {}  # (depth, ctr[STEPS] when entered) -> the entry TurnCounter sees
    base = [0, None]
    while not ns.is_terminal():
        a = ns.arrays()
        ctr, pst = a[8], a[6]
        at = ctr.shape[0] - np_ - 1
        flag = int(ctr[at])
        site = ns.choice_site()
        if flag not in (1, 2) or site == 0:
            ns.release()
            return None  # a stop the module did not trace, or a scoring native code cannot say
        ctr[at] = 0
        n = ns.num_options()
        p = ns.current_player()
        movers.append(p)
        options.append(n)
        trace.append(ctr[at + 1 : at + 1 + np_].tolist() if flag == 1 else None)
        stack = [base]
        for d in range(1, int(ctr[PSP]) + 1):
            entry = entries.setdefault((d, int(pst[d, 2])), [0, None])
            entry[0] = int(pst[d, 0])
            stack.append(entry)
        turns.see_at(stack, sites[site - 1])
        ns.apply(0 if n == 1 else int(rng.random() * n))
    try:
        scores = ns.returns()
    except NativeStopped:
        return None
    final_ctr = ns._final[3]
    scoring = len(options) * np_ * game._score_cost[0]  # what the reference charges for the trace
    if int(final_ctr[WORK]) * WORK_MARGIN > game.max_work or scoring * 4 > game.max_work:
        return None  # (near the work budget: the reference's count decides)
    team_of = [None if t < 0 else t for t in ns._final[5][10].tolist()]
    winners = rank(scores, game.scoring_max)[1]
    c = ns.counters()
    return {
        "scores": scores,
        "winners": winners,
        "sides": tied_sides(winners, team_of),
        "movers": movers,
        "options": options,
        "trace": trace,
        "final": scores,
        "turns": turns.turns,
        "rounds": c["rounds"],
        "steps": c["steps"],
    }
