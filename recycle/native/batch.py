"""One call that plays many games: which engine plays them, in how many threads and worker
processes, and the hand-back of a game native code stopped to the reference interpreter.

``play_games(game, n, seed, players, ...)`` plays a run of games (``recycle simulate``,
``balance``, ``recycle.simulate``, campaigns, the studio's runs) on the engine
``choose.engine_for`` picks (recycle/native/choose.py, the one place that decides):

- ``engine="auto"`` (the default): native code whenever the players are all random and the
  game builds, from the first game, for any number of games (a cold build with tcc takes a
  fraction of a second, less than twenty games on the reference interpreter); else the
  reference interpreter, with one line saying why (``Games.note``);
- ``"native"``: the same, but the note says why too when the players are not random;
- ``"reference"``: the reference interpreter always.

A game native code stops (a rule broken, the step limit, the work budget) is played again by
the reference interpreter, which gives the exact outcome or raises the exact positioned error.
The games are those of seeds ``rollout_seed(seed, i)``, ``i`` from 0, so every engine, number
of ``threads`` and of ``workers`` gives the same records, in order; ``study/`` only adds them
up (recycle/study/stats.py).

``threads=None`` means the cores this process may use (``cores()``: what ``recycle simulate``
plays with by default). While gcc -O2's library is built in the background (a separate process
that needs a core of its own for up to a second), tcc's library plays on one thread fewer
(``_Spans.playing``): three things at once on two cores would slow the build by half and keep
the slower code playing longer. Once the best library is in place the chunks are sized for the
threads to finish together (each a share of what is left, ``_Spans``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .choose import ENGINES, all_random, engine_for

__all__ = ["ENGINES", "Chunk", "Games", "all_random", "game_record", "play_games"]

CHUNK = 5000  # games per call of native code (the stop and the progress are checked between)
TIMED_CHUNK = 200  # the same with a time limit to keep (a chunk started is finished)
FIRST_CHUNK = 250  # games a chunk while tcc's library plays (then they double up to CHUNK)
TAIL_CHUNK = 100  # the smallest chunk of the last games shared among threads


@dataclass
class Chunk:
    """Consecutive games of a run. ``records``: one per game, ``(scores, decisions,
    options_total, team_of)`` or None at the step limit; or, for native games that all
    finished, ``arrays``: ``(scores[n, P], decisions[n], options[n])``, every game with the
    teams ``team_of``."""

    records: list | None = None
    arrays: tuple | None = None
    team_of: list | None = None

    def __len__(self) -> int:
        return len(self.records) if self.records is not None else len(self.arrays[1])


@dataclass
class Games:
    """A run of games, chosen but not played yet: ``engine`` ("native" or "reference") plays
    them, ``note`` says why not native (None when it is, or when nothing more is to be said);
    ``chunks(stop)`` plays them."""

    engine: str
    note: str | None
    chunks: Callable[..., Iterator[Chunk]]
    threads: int = 1  # the threads native chunks are shared among (1 on the reference interpreter)


class _Never:
    """A stop that never stops (``study.stopping.Stop``'s interface: call, ``hold``, ``deadline``)."""

    deadline = None
    hold = True

    def __call__(self) -> bool:
        return False


def cores() -> int:
    """The cores this process may run on (``--threads``' default)."""
    import os

    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # (not on every system)
        return os.cpu_count() or 1


def play_games(
    game,
    n: int,
    seed: int,
    players,
    max_steps: int,
    engine: str = "auto",
    threads: int | None = 1,
    workers: int = 1,
):
    """The ``n`` games of ``seed`` (see the module's docstring): a ``Games`` whose ``chunks(stop)``
    yields ``Chunk``s in order. ``stop`` (``study.stopping.Stop``, optional) is asked before each
    chunk; while a chunk plays, ``stop.hold`` is False. ``threads`` share native chunks (None:
    ``cores()``); ``workers`` processes share the games (each builds or loads the machine code
    itself, on one thread)."""
    chosen, note = engine_for(game, players, engine)  # (recycle/native/choose.py decides)
    threads = cores() if threads is None else max(1, int(threads))

    def chunks(stop=None) -> Iterator[Chunk]:
        stop = stop or _Never()
        if workers > 1 and n > 1:
            return _in_workers(game, n, seed, players, max_steps, chosen, workers, stop)
        if chosen == "native":
            return _native(game, n, seed, max_steps, threads, stop)
        return _reference(game, n, seed, players, max_steps, stop)

    return Games(chosen, note, chunks, threads if chosen == "native" and workers <= 1 else 1)


def game_record(game, players, seed: int, max_steps: int):
    """One game on the reference interpreter: ``(scores, decisions, options_total, team_of)``,
    or None at the step limit; a broken rule raises its exact positioned error."""
    from ..errors import StepLimitExceeded

    try:
        if all_random(players):
            r = game.random_rollout(seed, max_steps)
        else:
            r = game.play(players, seed=seed, max_steps=max_steps).state
    except StepLimitExceeded:
        return None
    return r.scores, r.decisions, r.options_total, r.team_of[:]


def _reference(game, n, seed, players, max_steps, stop) -> Iterator[Chunk]:
    from ..engine.game import rollout_seed

    for i in range(n):
        if stop():
            return
        stop.hold = False  # Ctrl-C stops a game at once; the totals are kept whole
        rec = game_record(game, players, rollout_seed(seed, i), max_steps)
        stop.hold = True
        yield Chunk(records=[rec])


def _native(game, n, seed, max_steps, threads, stop) -> Iterator[Chunk]:
    """Native chunks, in order; the rows native code stopped are played again by the reference
    interpreter (its exact record, or its exact error). With ``threads`` the chunks are played
    by that many threads at once, one chunk more queued, while this thread adds up the last
    ones: only the hand-back and the caller's totals are Python's, and they overlap the play."""
    from . import initial_teams, native_game

    ng = native_game(game)
    team_of = initial_teams(game)
    work = game.max_work // 4
    spare: list = []  # native arrays made for this run, free (one per thread playing at once)

    def play(a: int, b: int):
        from .engine import range_keys

        state = spare.pop() if spare else ng.new_arrays()
        fast, t0 = not _best_in_place(game), time.monotonic()
        try:
            scores, counts, _ = ng.rollouts_of_keys(range_keys(seed, a, b), max_steps, work, state=state)
        finally:
            spare.append(state)  # (list.pop and append are atomic: the threads share ``spare``)
        if fast:
            spans.played_fast(b - a, time.monotonic() - t0)
        return scores, counts

    spans = _Spans(game, n, CHUNK if stop.deadline is None else TIMED_CHUNK, threads)
    played = _played_in_threads(play, spans, threads, stop) if threads > 1 else _played(play, spans, stop)
    for a, b, (scores, counts) in played:
        stop.hold = False  # (a game native code stopped is played again: Ctrl-C stops it at once)
        chunk = _chunk(game, seed, max_steps, a, b, scores, counts, team_of)
        stop.hold = True
        yield chunk


class _Spans:
    """The chunks' ranges of games, in order. Small (``FIRST_CHUNK``) while tcc's library plays
    and gcc -O2's, three to four times faster, is built in the background (it takes over at the
    next chunk); then, on one thread, doubling up to ``full``; on several, each a share of the
    games left (``1 / (2 * threads)``, at least ``TAIL_CHUNK``), so that the threads finish
    together. ``playing``: the threads that may play at once now (one fewer than the cores
    while gcc builds, so that it keeps a core)."""

    def __init__(self, game, n: int, full: int, threads: int):
        self.game, self.n, self.full, self.threads = game, n, full, threads
        self.a = 0
        self.size = full if _best_in_place(game) else min(full, FIRST_CHUNK)
        self.fewer = max(1, min(threads, cores() - 1))  # the threads playing while gcc builds
        self.fast = [0, 0.0]  # games played by tcc's library, and their seconds (a thread's)

    def played_fast(self, games: int, seconds: float) -> None:
        """A chunk tcc's library played (from the thread that played it)."""
        self.fast[0] += games  # (a rate read while it is added to is only a little off)
        self.fast[1] += seconds

    @property
    def playing(self) -> int:
        if _best_in_place(self.game) or self._ends_before_the_build():
            return self.threads
        return self.fewer

    def _ends_before_the_build(self) -> bool:
        """Would the games not started yet, on every thread at tcc's rate so far, end within the
        time gcc has built already? Then its library would come too late to matter (a quick
        game: crazy-eights plays 10,000 games in 0.3 s on one thread, gcc takes 0.4 s), and
        tcc's library plays on every thread."""
        started = _build_started(self.game)
        games, seconds = self.fast
        if started is None or games == 0 or seconds <= 0 or self.fewer >= self.threads:
            return False
        return (self.n - self.a) * seconds / games / self.threads < time.monotonic() - started

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return self

    def __next__(self) -> tuple[int, int]:
        a, left = self.a, self.n - self.a
        if left <= 0:
            raise StopIteration
        size = self.size
        if self.threads > 1 and _best_in_place(self.game):
            size = min(self.full, max(min(TAIL_CHUNK, self.full), -(-left // (2 * self.threads))))
        self.a = b = min(self.n, a + size)
        if _best_in_place(self.game):
            self.size = min(self.full, 2 * self.size)
        return a, b


def _played(play, spans, stop):
    for a, b in spans:
        if stop():
            return
        stop.hold = False
        got = play(a, b)
        stop.hold = True
        yield a, b, got


def _played_in_threads(play, spans: _Spans, threads: int, stop):
    """``play`` of each span by ``threads`` threads, one span more queued, yielded in order
    (while ``spans.playing`` is fewer than ``threads``: that many at once, none queued). A
    stop asked for lets the spans started finish in their threads, unused."""
    from collections import deque

    from . import _pool

    pool = _pool(threads)
    queued: deque = deque()
    try:
        while True:
            while not stop():
                playing = spans.playing
                if len(queued) >= (playing + 1 if playing == threads else playing):
                    break
                span = next(spans, None)
                if span is None:
                    break
                queued.append((*span, pool.submit(play, *span)))
            if not queued or stop():
                return
            a, b, future = queued.popleft()
            stop.hold = False
            got = future.result()
            stop.hold = True
            yield a, b, got
    finally:
        for *_, future in queued:
            future.cancel()


def _chunk(game, seed, max_steps, a, b, scores, counts, team_of) -> Chunk:
    """Games ``a`` to ``b`` as native code played them, those it stopped played again by the
    reference interpreter."""
    import numpy as np

    from ..engine.game import rollout_seed
    from . import python_record

    stopped = np.flatnonzero(counts[:, 0]).tolist()
    if not stopped:
        return Chunk(arrays=(scores, counts[:, 2], counts[:, 3]), team_of=team_of)
    redo = {i: python_record(game, rollout_seed(seed, a + i), max_steps) for i in stopped}
    records = [
        redo[i] if i in redo else ([int(v) for v in scores[i]], int(counts[i, 2]), int(counts[i, 3]), team_of)
        for i in range(b - a)
    ]
    return Chunk(records=records)


def _build_started(game) -> float | None:
    """When the game's best library began to build in the background (``time.monotonic``), or None."""
    from . import native_game

    return getattr(native_game(game).module.games, "best_started", None)


def _best_in_place(game) -> bool:
    """Is the game's best library (gcc -O2's) in place, or none coming (c/library.py)?"""
    from . import native_game

    ready = getattr(native_game(game).module.games, "ready", None)
    return ready is None or ready.is_set()


def _worker_batch(game, players, seeds, max_steps: int, engine: str) -> list:
    """A worker's batch of games (a module-level job: recycle/engine/pool.py pickles it)."""
    if engine == "native":
        from . import rollout_records

        return rollout_records(game, seeds, max_steps)
    return [game_record(game, players, sd, max_steps) for sd in seeds]


def _in_workers(game, n, seed, players, max_steps, engine, workers, stop) -> Iterator[Chunk]:
    """The games in ``workers`` processes, in batches, yielded in order. With native code the
    workers load the machine code from the cache folder (this process built it: ``choose.engine_for``),
    or build it themselves when there is none."""
    from ..engine.game import rollout_seed
    from ..engine.pool import stream_games

    # native batches are big (a worker plays thousands of games a second); small ones keep a time limit
    most = (2000 if engine == "native" else 200) if stop.deadline is None else 10
    size = max(1, min(most, n // (workers * 8)))

    def batches():
        for a in range(0, n, size):
            if stop():
                return
            yield players, [rollout_seed(seed, i) for i in range(a, min(n, a + size))], max_steps, engine

    stream = stream_games(game, _worker_batch, batches(), workers, window=2 * workers)
    try:
        while True:
            stop.hold = False
            batch = next(stream, None)
            stop.hold = True
            if batch is None:
                return
            yield Chunk(records=batch)
            if stop():
                return  # the games so far are a prefix of the run
    finally:
        stream.close()  # stops the workers
