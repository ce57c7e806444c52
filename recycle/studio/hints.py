"""Hints at the studio's tables, worked out one at a time, in the order asked.

A hint is a look-ahead search: a second or more of a core. Worked out in the request's
thread, a dozen asked at once took every worker thread the server has, and another seat's
page waited 15 s for its view. So a hint request only queues the work and returns; one
thread (``HintQueue``) works the queue in order, and each seat has at most one hint waiting
or being worked out (a second is refused with 429): every seat of every table is served in
its turn, and a view never waits for a hint.
"""

from __future__ import annotations

import sys
import threading
import traceback
from collections import deque
from collections.abc import Callable, Hashable

from .security import Refused

# hints waiting or being worked out at most, over every table of the studio (16 tables of a few seats each)
MAX_WAITING = 64


class HintQueue:
    """Jobs (functions of no argument) run one at a time by one thread, in the order given;
    at most one job waits or runs per key (a seat)."""

    def __init__(self, limit: int = MAX_WAITING):
        self.limit = limit
        self.cond = threading.Condition()
        self.jobs: deque = deque()
        self.keys: set = set()  # the seats with a hint waiting or being worked out
        self.thread: threading.Thread | None = None

    def ask(self, key: Hashable, job: Callable[[], None]) -> None:
        """Queue ``job`` for ``key``; ``Refused`` (429) while ``key`` has one waiting or
        running, or when the queue is full."""
        with self.cond:
            if key in self.keys:
                raise Refused(429, "your hint is still being worked out: it shows when it is ready")
            if len(self.keys) >= self.limit:  # waiting or running: not a race with the worker
                raise Refused(429, "too many hints are being worked out: ask again in a moment")
            self.keys.add(key)
            self.jobs.append((key, job))
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._work, name="studio-hints", daemon=True)
                self.thread.start()
            self.cond.notify()

    def busy(self, key: Hashable) -> bool:
        """Whether ``key`` has a hint waiting or being worked out."""
        with self.cond:
            return key in self.keys

    def _work(self) -> None:
        while True:
            with self.cond:
                while not self.jobs:
                    self.cond.wait()
                key, job = self.jobs.popleft()
            try:
                job()
            except Exception:  # noqa: BLE001 -- a job reports its own failures; this is a bug: log it, go on
                traceback.print_exc(file=sys.stderr)
            finally:
                with self.cond:
                    self.keys.discard(key)


# the studio's one queue: every table's hints share it (one process, one queue)
HINTS = HintQueue()
