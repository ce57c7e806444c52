"""Run many games in worker processes, with results independent of the number of workers.

Compiled games hold closures, which cannot be pickled, so a worker receives the game's
*source text*, file name and options (``fast``, ``max_work``: ``_initargs``) once, compiles
it itself, and then gets batches of plain arguments (seeds, player specs). A job is a module-level function ``job(game, *args)``
returning a plain, picklable record. Each game's record depends only on its arguments, so
gathering the records back in order gives the same result for any number of workers.
"""

from __future__ import annotations

import multiprocessing
import os
from typing import Callable, Sequence

_GAME = None  # the worker's compiled game


def _init(text: str, filename: str, options: dict | None = None) -> None:
    global _GAME
    from ..engine.game import PreparedGame

    _GAME = PreparedGame.from_text(text, filename, **(options or {}))


def _initargs(game) -> tuple:
    """What a worker compiles: the game's text, its file name, and the options it was
    prepared with, so that its games are the parent's (the same work budget too)."""
    return game.source.text, game.source.filename, {"fast": game.fast, "max_work": game.max_work}


def _run_batch(batch):
    job, items = batch
    out = []
    for k, args in items:
        out.append((k, _call(job, _GAME, args)))
    return out


def _call(job, game, args):
    try:
        return job(game, *args)
    except Exception as exc:  # noqa: BLE001 - shipped back and re-raised in the parent
        import pickle

        try:
            pickle.loads(pickle.dumps(exc))
        except Exception:  # noqa: BLE001
            exc = RuntimeError(exc.format() if hasattr(exc, "format") else f"{type(exc).__name__}: {exc}")
        return _Failure(exc)


class _Failure:
    """An exception raised by a job, carried back to the parent process."""

    def __init__(self, exc: BaseException):
        self.exc = exc


def _run_one(args):
    job, item = args
    return _call(job, _GAME, item)


def stream_games(game, job: Callable, items, workers: int = 1, window: int | None = None):
    """``job(game, *args)`` for each ``args`` of the iterable ``items``, yielded in order.

    Unlike ``map_games``, items are taken only as the results are used (at most ``window``
    batches wait in the workers), so ``items`` may be endless or stopped early: closing the
    generator stops the workers."""
    if workers <= 1:
        for args in items:
            yield job(game, *args)
        return
    from collections import deque

    window = window or 4 * workers
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(workers, initializer=_init, initargs=_initargs(game)) as pool:
        pending: deque = deque()
        for args in items:
            pending.append(pool.apply_async(_run_one, ((job, args),)))
            if len(pending) >= window:
                yield _unwrap(pending.popleft().get())
        while pending:
            yield _unwrap(pending.popleft().get())


def _unwrap(rec):
    if isinstance(rec, _Failure):
        raise rec.exc
    return rec


def default_workers() -> int:
    return max(1, os.cpu_count() or 1)


def map_games(game, job: Callable, items: Sequence[tuple], workers: int = 1,
              progress: Callable[[int], None] | None = None, deadline: float | None = None) -> list:
    """``[job(game, *args) for args in items]``, in ``workers`` processes when more than one.

    ``progress(done)`` is called as records arrive (``done`` counts finished items). An
    exception raised by a job is re-raised here (the first one in item order). After
    ``deadline`` (a ``time.perf_counter()`` value) no more items are started and the
    results of the first items, up to the first one not finished, are returned.
    """
    import time

    items = list(items)
    n = len(items)
    results: list = [None] * n
    if workers <= 1 or n <= 1:
        for k, args in enumerate(items):
            if deadline is not None and time.perf_counter() > deadline:
                return results[:k]
            results[k] = job(game, *args)
            if progress:
                progress(k + 1)
        return results
    workers = min(workers, n)
    size = max(1, min(64, n // (workers * 8)))
    indexed = list(enumerate(items))
    batches = [(job, indexed[i:i + size]) for i in range(0, n, size)]
    ctx = multiprocessing.get_context("spawn")
    done = 0
    finished = [False] * n
    with ctx.Pool(workers, initializer=_init, initargs=_initargs(game)) as pool:
        for out in pool.imap_unordered(_run_batch, batches):
            for k, rec in out:
                results[k] = rec
                finished[k] = True
            done += len(out)
            if progress:
                progress(done)
            if deadline is not None and time.perf_counter() > deadline:
                break  # leaving the pool stops the workers
    if done < n:  # stopped by the deadline: the games up to the first unfinished one
        results = results[:finished.index(False)]
    for rec in results:
        if isinstance(rec, _Failure):
            raise rec.exc
    return results


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
        with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), TimeRemainingColumn(), transient=True,
                      console=Console(file=terminal)) as p:
            task = p.add_task(escape(printable(label)), total=total)
            yield lambda done: p.update(task, completed=done)

    return bar()
