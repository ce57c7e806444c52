"""The native engine: random rollouts of a game built into machine code from C.

``rollout_records(game, seeds, ...)`` plays one game per seed with random players and gives
the same records as the Python engine's ``random_rollout`` (scores, decisions, options), seed
for seed; ``native_game(game)`` is the compiled game itself. The writer is
``recycle/native/writer.py`` (one writer per form, registered in ``registry.py``), the arrays
and helpers every game uses are in ``runtime.py``, the translation to C and the build in
``c/``, loading in ``engine.py``, the cache of libraries in ``cache.py`` (authenticated entries
of a user-only folder).

NumPy (the ``native`` extra) and a C compiler (tcc or gcc) are needed: without them,
or for a game that uses a form the writer does not write, ``NativeUnavailable`` /
``NativeUnsupported`` say why and the callers play on the reference interpreter.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from .registry import NativeUnsupported

__all__ = [
    "NativeUnsupported",
    "NativeUnavailable",
    "native_game",
    "rollout_records",
    "native_source",
    "why_not_native",
    "available",
    "native_ready",
    "native_playouts",
]


class NativeUnavailable(Exception):
    """The native engine cannot run here: NumPy (the ``native`` extra) or a C compiler is
    missing."""


def available() -> bool:
    """Can the native engine run here (NumPy imports, a C compiler is found)? With
    the native extra installed and no compiler, one line on stderr says so (once)."""
    from .engine import available as _available

    if _available():
        return True
    say_unavailable(only_without_compiler=True)
    return False


def say_unavailable(only_without_compiler: bool = False) -> None:
    """One line on stderr (once per process): why the reference interpreter plays instead."""
    why = _why_unavailable()
    if not only_without_compiler or "compiler" in why:
        from .cache import say

        say(f"{why}; the reference interpreter plays")


def native_source(game, search: bool = False) -> str:
    """The source of the game's native module (``recycle compile --native``), or NativeUnsupported.
    Written once per prepared game (asked again by every look-ahead player of ``auto``).
    ``search``: its search module, made for the players that search natively (ISMCTS: its
    choices also key their options, which costs a fifth more compile time; runtime_search.py)."""
    from .engine import native_source as _native_source

    return _native_source(game, search)


def native_game(game, search: bool = False):
    """The game's compiled native module (made once per prepared game); ``search``: its search
    module (``native_source``)."""
    if not available():
        raise NativeUnavailable(_why_unavailable())
    from .engine import native_game as _native_game

    return _native_game(game, search)


def _why_unavailable() -> str:
    import importlib.util

    if importlib.util.find_spec("numpy") is None:
        return "the native engine needs NumPy (pip install 'recycle[native]')"
    return "the native engine needs a C compiler (tcc or gcc: setup.sh installs them)"


def native_ready(game, on_disk: bool = False, search: bool = False) -> bool:
    """Is the game's native module compiled already (in this process, or in the cache folder)?
    ``on_disk``: in the cache folder, where worker processes load it from; ``search``: its
    search module."""
    got = getattr(game, "_native_search" if search else "_native", None)
    if got is not None and (isinstance(got, Exception) or not on_disk):
        return not isinstance(got, Exception)
    if not available():
        return False
    from .engine import is_cached

    try:
        return is_cached(native_source(game, search), on_disk)
    except NativeUnsupported:
        return False


def why_not_native(game) -> str | None:
    """None when the game's rollouts can run natively here, else one line saying why not."""
    try:
        native_game(game)
    except NativeUnavailable as exc:
        return str(exc)
    except NativeUnsupported as exc:
        where = exc.where()
        return f"the native engine does not write {exc.what}" + (f" ({where})" if where else "")
    return None


def native_playouts(game, engine: str = "auto", search: bool = False):
    """The game's ``NativePlayouts``, or None (the reference interpreter plays the playouts):
    ``engine`` "reference" never; "auto" whenever the game builds (a cold build takes a
    fraction of a second: recycle/native/c/), else None; "native" the same, but raises
    why it cannot. ``search``: for a player that searches natively (its search module; with
    "auto", the plain module when only that one builds: native playouts, the search in Python)."""
    if engine == "reference":
        return None
    if engine == "auto" and not available():
        return None  # (available() said so once on stderr)
    from .playouts import NativePlayouts

    try:
        ng = native_game(game, search)
    except (NativeUnavailable, NativeUnsupported):
        if engine == "native":
            raise
        if not search:
            return None
        try:
            ng = native_game(game)
        except (NativeUnavailable, NativeUnsupported):
            return None
    return NativePlayouts(ng)


def rollout_arrays(game, seeds, max_steps: int, threads: int = 1, max_work: int | None = None, keys=None):
    """The native rollouts of ``seeds`` as arrays: (scores[n, P], counters[n, 5]: status,
    steps, decisions, options, rounds). A row whose status is not 0 was stopped by native code
    and must be played again by Python (``rollout_records`` does). ``keys``: the seeds' stream
    keys already made (``engine.range_keys``); then ``seeds`` is not read."""
    import numpy as np

    from .engine import chance_and_player_keys

    ng = native_game(game)
    if keys is None:
        keys = chance_and_player_keys(list(seeds))
    work = (game.max_work if max_work is None else max_work) // 4
    if threads > 1 and len(keys) > 1:
        # each call makes its own native arrays: two runs on one game may share the pool
        size = -(-len(keys) // threads)
        parts = [keys[i : i + size] for i in range(0, len(keys), size)]
        results = list(_pool(threads).map(lambda part: ng.rollouts_of_keys(part, max_steps, work), parts))
        return np.concatenate([r[0] for r in results]), np.concatenate([r[1] for r in results])
    scores, counts, _ = ng.rollouts_of_keys(keys, max_steps, work)
    return scores, counts


_POOLS: dict = {}


def _pool(threads: int) -> ThreadPoolExecutor:
    """One pool of ``threads`` threads per process, kept for the next chunk of rollouts."""
    pool = _POOLS.get(threads)
    if pool is None:
        pool = _POOLS[threads] = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="recycle-native")
    return pool


def rollout_records(game, seeds, max_steps: int, threads: int = 1, max_work: int | None = None):
    """One record per seed, as ``study.stats`` keeps them: ``(scores, decisions, options_total,
    team_of)``, or None for a game that hit the step limit. A rollout the native code stopped
    (a rule broken, a limit, a state it could not hold) is played again by the Python engine,
    which gives the exact outcome, or raises the exact positioned error. ``threads`` share the
    seeds; the records are the same for any number."""
    seeds = list(seeds)
    scores, counts = rollout_arrays(game, seeds, max_steps, threads, max_work)
    team_of = initial_teams(game)
    out = []
    for i, sd in enumerate(seeds):
        if counts[i, 0] == 0:
            out.append(([int(v) for v in scores[i]], int(counts[i, 2]), int(counts[i, 3]), team_of))
        else:
            out.append(python_record(game, sd, max_steps, max_work))
    return out


def initial_teams(game) -> list:
    """Each player's team as the game deals (native code does not change teams)."""
    return [None if t < 0 else int(t) for t in native_game(game).initial[6]]


def python_record(game, seed, max_steps: int, max_work: int | None = None):
    """The rollout of ``seed`` played by the Python engine: its record, None at the step
    limit, or its exact error (a rollout native code stopped is played again this way)."""
    from ..errors import StepLimitExceeded

    try:
        r = game.random_rollout(seed, max_steps, max_work)
    except StepLimitExceeded:
        return None
    return (r.scores, r.decisions, r.options_total, r.team_of[:])
