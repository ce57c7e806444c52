"""Worker processes that play games, with results independent of the number of workers.

Compiled games hold closures, which cannot be pickled, so a worker receives the game's
*source text*, file name and options (``fast``, ``max_work``: ``_initargs``) once, compiles
it itself, and then gets batches of plain arguments (seeds, player specs). A job is a module-level function ``job(game, *args)``
returning a plain, picklable record. Each game's record depends only on its arguments, so
gathering the records back in order gives the same result for any number of workers.

The pool is our own (``_Pool``: one pipe per worker) rather than ``multiprocessing.Pool``,
which replaces a worker that died but waits for ever for the task it was running. Here a
worker's death (killed, out of memory) is seen on its process sentinel, and the task it
was running is given to a new worker: a task's records depend only on its arguments, so
the run's results are those of an undisturbed run. A run whose workers die more than
``MAX_LOST`` times stops with ``WorkersLost``. Workers ignore SIGINT (Ctrl-C reaches the
whole process group): the parent decides what an interrupt means and stops them.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections import deque
from contextlib import contextmanager
from collections.abc import Callable

from ..errors import RecycleError

_GAME = None  # the worker's compiled game
# worker deaths a run survives (each lost task is run again); one more stops the run
MAX_LOST = 4


class WorkersLost(RecycleError):
    """Worker processes kept dying (killed, out of memory): the run was stopped."""


def _init(text: str, filename: str, options: dict | None = None) -> None:
    global _GAME
    from .game import PreparedGame

    _GAME = PreparedGame.from_text(text, filename, **(options or {}))


def _initargs(game) -> tuple:
    """What a worker compiles: the game's text, its file name, and the options it was
    prepared with, so that its games are the parent's (the same work budget too)."""
    return game.source.text, game.source.filename, {"max_work": game.max_work}


def _serve(conn, initargs) -> None:
    """A worker's life: compile the game, then run ``(key, fn, arg)`` tasks until told to stop."""
    # Ctrl-C is the parent's to handle (it stops the workers); a worker interrupted while it
    # waits would print a traceback of its own ("Process SpawnProcess-2: ...")
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _init(*initargs)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):  # the parent is gone
            return
        if task is None:
            return
        key, fn, arg = task
        conn.send((key, fn(arg)))


@contextmanager
def _sigint_blocked():
    """SIGINT held back (not lost) in this thread; a process started meanwhile inherits the
    blocked mask, so that it cannot be interrupted before ``_serve`` ignores SIGINT."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


# tasks sent to a worker ahead: it starts the next one without waiting for the parent
AHEAD = 2


class _Worker:
    __slots__ = ("proc", "conn", "tasks")

    def __init__(self, ctx, initargs):
        parent, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, initargs), daemon=True)
        with _sigint_blocked():
            self.proc.start()
        child.close()  # only the worker holds its end: its death is an end of file here
        self.conn = parent
        self.tasks: deque = deque()  # the (key, fn, arg) sent to it, in the order it runs them


class _Pool:
    """``workers`` processes running tasks ``fn(arg)``; a task lost with its worker is run again.

    ``put(key, fn, arg)`` queues a task; ``get()`` waits for any task's result, as
    ``(key, result)``. ``close()`` stops the workers (at once when tasks are left)."""

    def __init__(self, game, workers: int):
        self.ctx = multiprocessing.get_context("spawn")
        self.initargs = _initargs(game)
        self.queue: deque = deque()
        self.lost = 0
        self.workers: list[_Worker] = []
        try:
            for _ in range(workers):
                self.workers.append(_Worker(self.ctx, self.initargs))
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> _Pool:
        return self

    def __exit__(self, *exc) -> bool:
        self.close()
        return False

    @property
    def running(self) -> int:
        """Tasks queued or being run."""
        return len(self.queue) + sum(len(w.tasks) for w in self.workers)

    def put(self, key, fn, arg) -> None:
        self.queue.append((key, fn, arg))
        self._dispatch()

    def _dispatch(self) -> None:
        for w in self.workers:
            while len(w.tasks) < AHEAD and self.queue:
                w.tasks.append(self.queue.popleft())
                try:
                    w.conn.send(w.tasks[-1])
                except OSError:  # it died: its sentinel says so in ``get``
                    break

    def get(self):
        """The next finished task's ``(key, result)``; raises ``WorkersLost`` when workers
        keep dying."""
        from multiprocessing.connection import wait

        while True:
            busy = [w for w in self.workers if w.tasks]
            if not busy:
                raise RuntimeError("no task is running")
            ready = set(wait([w.conn for w in busy] + [w.proc.sentinel for w in busy]))
            for w in busy:
                if w.conn in ready:
                    try:
                        key, result = w.conn.recv()
                    except (EOFError, OSError):  # died while sending: its result is lost
                        self._replace(w)
                        continue
                    w.tasks.popleft()
                    self._dispatch()
                    return key, result
                if w.proc.sentinel in ready:
                    self._replace(w)

    def _replace(self, w: _Worker) -> None:
        """``w`` died: a new worker takes its place and its tasks go first in the queue."""
        self.lost += 1
        code = w.proc.exitcode
        self._stop(w)
        if self.lost > MAX_LOST:
            how = f"signal {-code}" if code is not None and code < 0 else f"exit status {code}"
            raise WorkersLost(
                f"worker processes died {self.lost} times (the last by {how}: killed, or out of "
                f"memory?); the run was stopped. Try fewer --workers, or none"
            )
        self.queue.extendleft(reversed(w.tasks))
        self.workers[self.workers.index(w)] = _Worker(self.ctx, self.initargs)
        self._dispatch()

    @staticmethod
    def _stop(w: _Worker, wait: float = 5.0) -> None:
        if w.proc.is_alive():
            w.proc.terminate()
        w.proc.join(wait)
        if w.proc.is_alive():
            w.proc.kill()
            w.proc.join()
        w.conn.close()

    def close(self) -> None:
        """Stop the workers: idle ones are asked to leave, busy ones are terminated."""
        for w in self.workers:
            if not w.tasks and w.proc.is_alive():
                try:
                    w.conn.send(None)
                except OSError:
                    pass
            else:
                w.proc.terminate()
        for w in self.workers:
            self._stop(w)
        self.workers = []
        self.queue.clear()


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
    items wait in the workers), so ``items`` may be endless or stopped early: closing the
    generator stops the workers."""
    if workers <= 1:
        for args in items:
            yield job(game, *args)
        return
    window = window or 4 * workers
    done: dict = {}
    with _Pool(game, workers) as pool:
        source = iter(items)
        sent = nxt = 0
        while True:
            while pool.running < window:
                args = next(source, None)
                if args is None:
                    break
                pool.put(sent, _run_one, (job, args))
                sent += 1
            if nxt == sent:
                return
            while nxt not in done:
                k, rec = pool.get()
                done[k] = rec
            yield _unwrap(done.pop(nxt))
            nxt += 1


def _unwrap(rec):
    if isinstance(rec, _Failure):
        raise rec.exc
    return rec
