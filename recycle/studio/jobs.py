"""Long runs of the studio (simulate, analyze, the graph, the lint backed by simulation):
each in a thread of its own, with its progress, a time limit and a cancel button.

A run is bounded twice: by the number of games asked for (at most ``MAX_GAMES``) and by
``MAX_SECONDS``; cancelling stops it at its next game. Only ``MAX_RUNNING`` runs go at once.
"""

from __future__ import annotations

import itertools
import threading
import time
import traceback

MAX_GAMES = {"simulate": 100_000, "analyze": 20_000, "graph": 2_000, "simlint": 2_000}
MAX_SECONDS = 120.0
MAX_RUNNING = 2
KEEP_FINISHED = 20


class Cancelled(Exception):
    """Raised inside a run's progress callback when the run was cancelled."""


class Job:
    """One run: ``done`` of ``total`` games, ``status`` running/done/failed/cancelled,
    ``result`` (a JSON-ready dict) or ``error`` (a message)."""

    def __init__(self, jid: str, kind: str, total: int):
        self.id = jid
        self.kind = kind
        self.total = total
        self.done = 0
        self.status = "running"
        self.result = None
        self.error = None
        self.cancelled = threading.Event()
        self.started = time.monotonic()

    def tick(self, done: int) -> None:
        """The progress callback: records ``done`` and stops a cancelled run."""
        self.done = done
        if self.cancelled.is_set():
            raise Cancelled()

    def to_dict(self) -> dict:
        return {"id": self.id, "kind": self.kind, "total": self.total, "done": self.done,
                "status": self.status, "error": self.error, "result": self.result}


class Jobs:
    """The studio's runs by id."""

    def __init__(self):
        self._jobs: dict[str, Job] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def start(self, kind: str, total: int, work) -> Job:
        """Run ``work(job)`` in a thread; ``ValueError`` if too many runs go already."""
        with self._lock:
            if sum(j.status == "running" for j in self._jobs.values()) >= MAX_RUNNING:
                raise ValueError(f"{MAX_RUNNING} runs are going already: wait for one or cancel it")
            finished = [k for k, j in self._jobs.items() if j.status != "running"]
            for k in finished[:-KEEP_FINISHED] if len(finished) > KEEP_FINISHED else []:
                del self._jobs[k]
            job = Job(str(next(self._ids)), kind, total)
            self._jobs[job.id] = job

        def run():
            from ..errors import RecycleBug, RecycleError

            try:
                job.result = work(job)
                job.status = "done"
            except Cancelled:
                job.status = "cancelled"
            except (RecycleError, RecycleBug) as exc:
                job.error = exc.format()
                job.status = "failed"
            except Exception as exc:  # noqa: BLE001 - a bug: said in words, the traceback on the server's log
                traceback.print_exc()
                job.error = f"internal error: {exc.__class__.__name__}: {exc}"
                job.status = "failed"
            if job.cancelled.is_set() and job.status == "done":
                job.status = "cancelled"

        threading.Thread(target=run, name=f"studio-{kind}-{job.id}", daemon=True).start()
        return job

    def get(self, jid: str) -> Job | None:
        return self._jobs.get(jid)

    def cancel_all(self) -> None:
        for j in list(self._jobs.values()):
            j.cancelled.set()
