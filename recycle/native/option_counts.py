"""Random games with their options counted at every decision (the game page's branching figure).

A native rollout keeps the totals (decisions, options) only; the branching figure needs each
decision's number of options. ``random_options`` plays the game of one seed stepped from
outside (``stepped.start``: machine code between decisions, a ``NativeState``), counting the
options of every decision, a one-option decision too, and picking as the reference
interpreter's random player does: ``int(random() * n)`` from the players' stream of the seed
(no draw for one option). So the counts are the reference interpreter's, decision for decision.
A game native code does not step (no compiler, a form it does not write) or stops (a rule
broken, the step limit, the work budget, a capacity) is played by the reference interpreter,
which gives the exact outcome or raises the exact positioned error.
"""

from __future__ import annotations

__all__ = ["random_options", "stepping_engine"]


def stepping_engine(game, engine: str = "auto") -> str:
    """ "native" when the game's random games can be stepped natively here, else "reference"
    (``engine`` "reference" always; "auto" and "native" whenever the game builds)."""
    from ..engine.runner import RandomPlayer
    from .choose import engine_for

    return engine_for(game, [RandomPlayer()] * game.nplayers, engine)[0]


def random_options(game, seed: int, max_steps: int = 100_000, engine: str = "auto") -> dict:
    """One game of random players: ``{"seed", "limit", "options", "engine"}``, ``options`` the
    number of options of every decision in order (``limit``: the game hit the step limit, and
    ``options`` is empty), ``engine`` what played it ("native" or "reference"). ``engine``:
    "auto" asks ``stepping_engine`` (a look for a compiler: choose once for many games and
    pass its answer), "native" tries native code (the reference interpreter where it declines),
    "reference" does not."""
    if engine == "auto":
        engine = stepping_engine(game)
    if engine == "native":
        got = _native(game, seed, max_steps)
        if got is not None:
            return {"seed": seed, "limit": False, "options": got, "engine": "native"}
    return _reference(game, seed, max_steps)


def _native(game, seed: int, max_steps: int) -> list[int] | None:
    """The options of every decision, or None when native code does not step the game or stopped."""
    from ..engine.game import players_stream
    from . import NativeUnavailable, NativeUnsupported
    from .stepped import start
    from .stepping import NativeStopped

    try:
        st = start(game, seed, max_steps)
    except (NativeUnavailable, NativeUnsupported):
        return None
    draw = players_stream(seed).random
    counts = []
    try:
        while not st.is_terminal():
            n = st.num_options()
            counts.append(n)
            st.apply(0 if n == 1 else int(draw() * n))
        st.returns()  # (raises NativeStopped where only the reference interpreter knows the end)
    except NativeStopped:
        return None
    finally:
        st.release()
    return counts


def _reference(game, seed: int, max_steps: int) -> dict:
    from ..errors import StepLimitExceeded

    counts: list[int] = []
    try:
        game.play(seed=seed, max_steps=max_steps, on_decision=lambda _s, _p, opts, _i: counts.append(len(opts)))
    except StepLimitExceeded:
        return {"seed": seed, "limit": True, "options": [], "engine": "reference"}
    return {"seed": seed, "limit": False, "options": counts, "engine": "reference"}
