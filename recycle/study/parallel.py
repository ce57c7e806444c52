"""Run many games in worker processes, with results independent of the number of workers.

The processes themselves (``_Pool``, ``stream_games``: a worker compiles the game from its text
and runs plain jobs) are recycle/engine/pool.py's, beneath the native engine, whose one call
that plays many games (recycle/native/batch.py) uses them too. Here: ``map_games`` (a list of
jobs with a stop and progress) and the progress bar.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..engine.pool import MAX_LOST, WorkersLost, _Failure, _Pool, _run_batch, stream_games

__all__ = ["MAX_LOST", "WorkersLost", "map_games", "progress_bar", "stream_games"]


def map_games(
    game,
    job: Callable,
    items: Sequence[tuple],
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    deadline: float | None = None,
    stop=None,
) -> list:
    """``[job(game, *args) for args in items]``, in ``workers`` processes when more than one.

    ``progress(done)`` is called as records arrive (``done`` counts finished items). An
    exception raised by a job is re-raised here (the first one in item order). Once
    ``stop()`` is true (a ``stopping.Stop``: its time limit passed, or Ctrl-C), or after
    ``deadline`` (a ``time.perf_counter()`` value), no more items are started and the
    results of the first items, up to the first one not finished, are returned.
    """
    from .stopping import as_stop

    stop = as_stop(stop, deadline)
    items = list(items)
    n = len(items)
    results: list = [None] * n
    finished = [False] * n
    try:
        if workers <= 1 or n <= 1:
            for k, args in enumerate(items):
                if stop():
                    break
                stop.hold = False
                results[k] = job(game, *args)
                stop.hold = True
                finished[k] = True
                if progress:
                    progress(k + 1)
        else:
            _map_in_workers(game, job, items, min(workers, n), progress, stop, results, finished)
    except KeyboardInterrupt as exc:
        if not stop.catches(exc):
            raise
    finally:
        stop.hold = True
    if not all(finished):  # stopped early: the games up to the first unfinished one
        results = results[: finished.index(False)]
    for rec in results:
        if isinstance(rec, _Failure):
            raise rec.exc
    return results


# a batch of games sent to a worker is sized to take about this long: a few milliseconds'
# games go by the dozen (one message each way per batch), games of seconds or minutes (a
# look-ahead player's) one at a time, so that their results (a deal's last rotation) are not
# held back by the rest of a batch, and a stop throws little started work away
BATCH_SECONDS = 0.5


def batch_size(done: int, elapsed: float, workers: int, cap: int) -> int:
    """How many items the next batch holds: 1 until a result has come back, then as many as
    one worker plays in ``BATCH_SECONDS`` at the pace so far (``done`` items in ``elapsed``
    seconds over ``workers``), from 1 to ``cap``."""
    if done <= 0 or elapsed <= 0:
        return 1
    per_item = elapsed * workers / done
    return max(1, min(cap, int(BATCH_SECONDS / per_item)))


def _map_in_workers(game, job, items, workers, progress, stop, results, finished) -> None:
    import time

    n = len(items)
    cap = max(1, min(64, n // (workers * 8)))
    sent = done = 0
    start = time.perf_counter()
    with _Pool(game, workers) as pool:
        while True:
            while not stop() and pool.running < 2 * workers and sent < n:
                size = batch_size(done, time.perf_counter() - start, workers, cap)
                batch = [(k, items[k]) for k in range(sent, min(n, sent + size))]
                pool.put(sent, _run_batch, (job, batch))
                sent += len(batch)
            if not pool.running:
                return
            stop.hold = False
            _, out = pool.get()
            stop.hold = True
            for k, rec in out:
                results[k] = rec
                finished[k] = True
            done += len(out)
            if progress:
                progress(done)
            if stop():
                if not stop.interrupted:
                    _play_out_started(pool, stop, results, finished)
                return  # leaving the pool stops the workers


def _play_out_started(pool, stop, results, finished) -> None:
    """At the time limit, the batches sent to the workers are played out, as one process plays
    out its game in progress (only the batches not yet sent are dropped): killed,
    their games were lost, and a deal whose last rotation was among them went unreported (with
    slow games, every deal: "the time limit ended before the first deal was played")."""
    # every batch already sent to a worker (the one it plays and the one queued behind it, at
    # most AHEAD): a worker's queued batch may come before another's started one in the items'
    # order, and the results kept are those up to the first unfinished item
    pool.queue.clear()
    sent = {t[0] for w in pool.workers for t in w.tasks}
    while sent:
        stop.hold = False  # Ctrl-C still stops at once
        key, out = pool.get()
        stop.hold = True
        for k, rec in out:
            results[k] = rec
            finished[k] = True
        sent.discard(key)


def progress_bar(total: int, label: str, enabled: bool = True):
    """A context manager giving ``update(done)``: a rich progress bar on a terminal, else no-op."""
    import sys
    from contextlib import contextmanager

    @contextmanager
    def bar():
        if not (enabled and sys.stderr.isatty()):
            yield None
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn, TimeRemainingColumn

        from rich.markup import escape

        from ..errors import printable

        # the bar is drawn with escape sequences: on the stream under the CLI's printable
        # one (recycle.cli.printing), with the label (a game's name) escaped here instead
        terminal = getattr(sys.stderr, "terminal", sys.stderr)
        with Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            transient=True,
            console=Console(file=terminal),
        ) as p:
            task = p.add_task(escape(printable(label)), total=total)
            yield lambda done: p.update(task, completed=done)

    return bar()
