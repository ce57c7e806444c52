"""Stopping a run of many games early: one mechanism for the time limit and for Ctrl-C.

``recycle simulate``, ``analyze`` and ``duplicate`` stop starting games when ``--timeout``
passes and report the games finished so far. Ctrl-C (SIGINT) stops them the same way: the
games finished are reported, marked as interrupted, instead of being thrown away.

A ``Stop`` is asked ``stop()`` before each game (or batch) is started. With
``interruptible``, while it is active (``with Stop(...) as stop``) it catches SIGINT in the
main thread: in the parts of the loop that only do bookkeeping (adding a record to the
totals, drawing a progress bar) it merely notes the interrupt, so that totals are never
left half-updated; where the loop waits for a game or a worker (``stop.hold`` is False),
it raises ``KeyboardInterrupt`` at once so that a long game does not delay the stop. The
loop catches that ``KeyboardInterrupt`` (``stop.catches(exc)``) and keeps what it has.
"""

from __future__ import annotations

import signal
import threading
import time


class Stop:
    """When a run stops early: after ``timeout`` seconds, or at Ctrl-C when ``interruptible``."""

    def __init__(self, timeout: float | None = None, interruptible: bool = False, start: float | None = None):
        start = time.perf_counter() if start is None else start
        self.deadline = None if timeout is None else start + timeout
        self.interruptible = interruptible
        self.interrupted = False
        # True while the loop does bookkeeping: an interrupt is only noted then
        self.hold = True
        self._installed = False
        self._old = None

    def __enter__(self) -> Stop:
        # a handler can only be set in the main thread, and only replaces Python's own
        # (an embedding program with a SIGINT handler of its own keeps it)
        if (
            self.interruptible
            and threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler
        ):
            self._old = signal.signal(signal.SIGINT, self._on_sigint)
            self._installed = True
        return self

    def __exit__(self, *exc) -> bool:
        self.hold = True
        if self._installed:
            signal.signal(signal.SIGINT, self._old)
            self._installed = False
        return False

    def _on_sigint(self, signum, frame) -> None:
        self.interrupted = True
        if not self.hold:
            raise KeyboardInterrupt

    def __call__(self) -> bool:
        """Is it time to stop (no new game should be started)?"""
        return self.interrupted or (self.deadline is not None and time.perf_counter() > self.deadline)

    def catches(self, exc: BaseException) -> bool:
        """Is ``exc`` (a ``KeyboardInterrupt``) this run's stop, to be kept rather than re-raised?"""
        if self._installed and isinstance(exc, KeyboardInterrupt):
            self.interrupted = True
            self.hold = True
            return True
        return False


def as_stop(stop, deadline: float | None = None) -> Stop:
    """``stop`` itself, or a ``Stop`` for ``deadline`` (a ``time.perf_counter()`` value) alone."""
    if stop is not None:
        return stop
    s = Stop()
    s.deadline = deadline
    return s
