"""Which engine played a run of ``analyze``, ``duplicate`` or ``evolve`` games, as the text and
JSON say it.

``analyze``'s and ``evolve``'s traced games of random players are stepped natively wherever the
game builds (recycle/study/trace_native.py: each stop's scores, or ``--values winprob:N``'s
rollouts from copies of the stopped state, and its stage entries worked out by native code, the
record the reference's), and so are ``evolve``'s trial games; ``duplicate``'s and ``ladder``'s
games are stepped by native code wherever the game builds, look-ahead players at the table
included (but in a game with a simultaneous stage: recycle/native/choose.py, ``blind_serves``).
A traced game with a look-ahead player at the table, or one native code does not trace, is
stepped by the reference interpreter. Each game's record says what stepped it (its ``engine``)
and what played its playouts (``game_playouts``: the look-ahead players' playouts and searches
and ``--values winprob:N``'s rollouts, native wherever the game builds), read in the process
that played it; ``combined`` adds the records up; ``engine_line`` is the text's line.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["combined", "engine_line", "game_playouts"]

# what stepped a run's games when no game says (a result written before games said, or a run
# whose games were all cut short): the reference interpreter
GAMES_ENGINE = "reference"


def game_playouts(players, values_native=None, values: int = 0) -> str | None:
    """What played one game's playouts: "native", "reference", "native and reference" (some
    players' or the values' in each), or None when the game had none (random players only,
    the scoring values). A look-ahead player says, of each decision, whether native code
    played its playouts (``_AIPlayer.playouts_used``: at a decision native code declines, the
    reference interpreter does).
    ``values_native``: ``--values winprob:N``'s native playouts (None: the reference's) when
    ``values`` > 0."""
    used = []
    for p in players:
        got = getattr(p, "playouts_used", None)
        if got:  # a look-ahead player that decided: who played each decision's playouts
            used.append(combined(sorted(got)))
    if values:
        used.append("native" if values_native is not None else "reference")
    return combined(used)


def combined(engines: Iterable[str | None]) -> str | None:
    """The engines of many games' playouts as one: "native" or "reference" when they all
    agree, "native and reference" when they differ, None when no game had playouts."""
    seen = set()
    for e in engines:
        if e == "native and reference":
            seen |= {"native", "reference"}
        elif e is not None:
            seen.add(e)
    if len(seen) == 2:
        return "native and reference"
    return next(iter(seen), None)


def _words(engine: str) -> str:
    return {
        "native": "native code",
        "reference": "the reference interpreter",
        "native and reference": "native code and the reference interpreter",
    }.get(engine, engine)


def engine_line_of(result: dict) -> str:
    """``engine_line`` of an analysis, duplicate or information result (its ``engine`` and
    ``playouts_engine`` keys; a result written before they were kept: the reference interpreter)."""
    return engine_line(result.get("engine", "reference"), result.get("playouts_engine"))


def engine_line(games: str, playouts: str | None) -> str:
    """The text output's line: what stepped the games and what played their playouts."""
    if playouts is None:
        return f"played by: {_words(games)}"
    if playouts == games:
        return f"played by: {_words(games)} (the games, their playouts and searches)"
    if playouts == "native and reference":
        return (
            f"played by: {_words(games)} (the games), native code (their playouts and searches, "
            "the reference interpreter where native code declined)"
        )
    return f"played by: {_words(games)} (the games), {_words(playouts)} (their playouts and searches)"
