"""``analysis.trace_game``'s game stepped by native code: the same record, number for number.

A traced game reads, at every decision, what the reference interpreter's live state holds: the
player to move, the count of options, every player's ``scoring`` value now (None where it cannot
be evaluated yet) and the stage stack (for the turns of each stage, ``turns.TurnCounter``).
Natively the game is started *traced* (``stepped.start(trace=True)``): at each stop the module's
``score_now`` works the scoring out into the counters' tail (1 and the scores; 2 where a rule
breaks, the reference's ``RecycleRuntimeError``; 3 where native code cannot say) and leaves the
state as it was (steps, work, chance draws, stacks); each player stage's entry on the native
stack holds ``ctr[STEPS]`` when it was entered, which tells a stage entered anew from the same
entry (the reference compares the entries' identity); the chosen option's place in the text is
its choice's (``CHOICE_SITES``). The random players draw from the players' stream as
``runner.play_out`` does.

With ``--values winprob:N`` each decision's values are N rollouts, each a copy of the stopped
native state with its own chance stream played out natively (``win_shares``), the estimator's
stream moved on as the reference's native rollouts move it (they start from its twin, the same
state: recycle/native/playouts_state.py).

``trace_natively`` returns None where the reference interpreter must trace the game (and
``analysis.trace_game`` then does): players other than random ones, a scoring that draws (with
``--values scoring``), a simultaneous stage, a game native code does not build here (or whose
rollouts are not native: ``--playouts reference``), a rollout native code declines, and any
game native code stops (a rule broken, the step limit, the work budget, a capacity, an integer
that may leave 64 bits), or that may be near the reference's work budget (``WORK_MARGIN``; the
reference charges the scoring at every decision too: a traced game near its budget could stop
where native code does not). ``walk_natively`` steps the random games of ``analyze
--information`` that find the hidden locations. tests/study/test_trace_native.py requires the
same analysis both ways.

What is not proven but measured: the work-budget margin rests on the ratio of the two engines'
work counts seen over the corpus (at most 87), not on a bound.
"""

from __future__ import annotations

__all__ = ["game_shape", "trace_natively", "traceable", "walk_natively", "win_shares"]

# The native work count is far coarser than the reference's: over games/ and a third of the
# corpus the reference counted 5 to 87 times the native units of the same game. A game whose
# native count is more than max_work / WORK_MARGIN may be near the reference's budget.
WORK_MARGIN = 256


def game_shape(game) -> tuple:
    """What tracing reads of the game's nodes, walked once a game (not once a traced game):
    whether the scoring draws, whether a stage is simultaneous, the player stages' places."""
    got = game.__dict__.get("_trace_shape")
    if got is None:
        from ..lang.forms.registry import registry
        from ..lang.nodes.flow import Stage
        from ..lang.nodes.walk import walk

        drawing = registry().drawing
        draws = any(getattr(n, "HEAD", None) in drawing for n in walk(game.nodes.score))
        stages = [x for x in walk(game.nodes) if isinstance(x, Stage)]
        places = sorted(
            ((x.span.line, x.span.column), (x.span.end_line, x.span.end_column)) for x in stages if not x.team
        )
        got = game.__dict__["_trace_shape"] = (draws, any(x.simultaneous for x in stages), places)
    return got


def traceable(specs: list[str], draws: bool, simultaneous: bool, values: int = 0, playouts=None) -> bool:
    """Can native code trace the games of these players (see the module's docstring), of a game
    whose scoring ``draws`` (read unless ``values``) or that has a ``simultaneous`` stage?
    ``values`` > 0 (``--values winprob:N``): only with the native ``playouts`` the reference's
    estimates would use (``analysis.value_playouts``)."""
    if draws or simultaneous or any(s != "random" for s in specs):
        return False
    return not values or playouts is not None


def trace_natively(game, seed: int, max_steps: int, turns, values: int = 0, est_rng=None) -> dict | None:
    """The traced record of the game dealt with ``seed`` played by random players (the keys of
    ``analysis.trace_game``'s but ``seed``, ``limit`` and ``playouts``), stepped natively;
    ``turns`` (a fresh ``TurnCounter``) counts its turns. ``values`` > 0: each decision's trace
    is every player's win share over that many rollouts from the state (``win_shares``),
    drawn from ``est_rng``. None where the reference must trace it."""
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
        if site == 0 or (flag not in (1, 2) and not values):
            ns.release()
            return None  # a stop the module did not trace, or a scoring native code cannot say
        ctr[at] = 0
        n = ns.num_options()
        p = ns.current_player()
        movers.append(p)
        options.append(n)
        stack = [base]
        for d in range(1, int(ctr[PSP]) + 1):
            entry = entries.setdefault((d, int(pst[d, 2])), [0, None])
            entry[0] = int(pst[d, 0])
            stack.append(entry)
        turns.see_at(stack, sites[site - 1])
        if values:  # (after the stack is read: the rollouts' copies take the runner's arrays)
            shares = win_shares(game, ns, values, est_rng)
            if shares is None:
                ns.release()
                return None
            trace.append(shares)
        else:
            trace.append(ctr[at + 1 : at + 1 + np_].tolist() if flag == 1 else None)
        ns.apply(0 if n == 1 else int(rng.random() * n))
    try:
        scores = ns.returns()
    except NativeStopped:
        return None
    final_ctr = ns._final[3]
    scoring = 0 if values else len(options) * np_ * game._score_cost[0]  # what the reference charges
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


def win_shares(game, ns, rollouts: int, rng) -> list[float] | None:
    """``analysis.win_estimate`` from the stopped native state ``ns``: each player's expected
    win share over ``rollouts`` random rollouts, each a copy of ``ns`` with its own chance stream
    played out natively, ``rng`` moved on as the reference's estimate moves it (its rollouts
    are native too, from its twin: recycle/native/playouts_state.py). None where native code
    declines a rollout, or one that may be declined by the reference's budget."""
    from ..native.playouts_state import finish_world
    from ..players.lookahead import rewards
    from ..streams import fold

    total = [0.0] * game.nplayers
    budget = game.max_work
    for _ in range(rollouts):
        chance = rng.getrandbits(64)
        w = ns.clone()
        with w._runner.lock:
            try:
                got = finish_world(w, [], (fold(chance), 0), budget, [], rng)
            finally:
                w.release()
        # (the reference's rollout has the work its state has left, at least two thirds of
        # max_work in a game within WORK_MARGIN: a native quarter of that bounds this one)
        if got is None or (budget - got[2]) * 8 > budget:
            return None
        for p, r in enumerate(rewards(got[0], game.scoring_max, "win")):
            total[p] += r
    return [t / rollouts for t in total]


def walk_natively(game, seed: int, max_steps: int, on_stop) -> bool:
    """Play the game dealt with ``seed`` with random players natively, calling
    ``on_stop(player, filled, team_of)`` at every decision (``filled``: the indices of the
    locations holding cards; ``team_of``: each player's team, None for none). False where the
    reference interpreter must play it (and call back again: a game native code stops has been
    called back up to its stop, as the reference would have been)."""
    from ..engine.game import players_stream
    from ..native import NativeUnavailable, NativeUnsupported
    from ..native.choose import declined, native_here
    from ..native.stepped import start

    if not native_here() or game_shape(game)[1]:  # (a simultaneous stage: the reference's)
        return False
    try:
        ns = start(game, seed, max_steps)
    except (NativeUnsupported, NativeUnavailable) as exc:
        declined(game, exc)
        return False
    rng = players_stream(seed)
    while not ns.is_terminal():
        a = ns.arrays()
        team_of = [None if t < 0 else t for t in a[10].tolist()]
        on_stop(ns.current_player(), [i for i, n in enumerate(a[1].tolist()) if n], team_of)
        n = ns.num_options()
        ns.apply(0 if n == 1 else int(rng.random() * n))
    return not ns._status
