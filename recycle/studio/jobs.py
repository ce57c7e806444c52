"""Long runs of the studio (simulate, analyze, the graph, the lint backed by simulation, the
Study view's page, ladder and balance):
each in a process of its own (``recycle.studio.worker``), with its progress, a time limit
and a cancel button.

A run is bounded three ways: by the number of games asked for (at most ``MAX_GAMES``), by
its ``seconds`` (at most ``MAX_SECONDS``: no game is started after them), and by a hard
limit, ``seconds + GRACE``, when its process is killed whatever it is doing (one decision of
a look-ahead player can outlast the run's seconds by far). Cancel kills the process at once.

Two lanes, so that the page's own work never blocks the person's: the lint backed by
simulation, which the page starts by itself whenever the open game checks, runs in the
``lint`` lane, one at a time (a new lint cancels the one before); the runs a person starts
go in the ``user`` lane, at most ``MAX_RUNNING`` at once.
"""

from __future__ import annotations

import atexit
import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

MAX_GAMES = {"simulate": 100_000, "analyze": 20_000, "graph": 2_000, "simlint": 2_000}
# the Study view's runs (recycle/studio/study.py): games per page, per pair of rungs, per variant
MAX_GAMES.update({"page": 200, "ladder": 200, "balance": 2_000})
MAX_SECONDS = 120.0
GRACE = 15.0  # seconds past a run's own limit before its process is killed
MAX_RUNNING = 2  # a person's runs at once (the page's lint has its own lane)
KEEP_FINISHED = 20
LANES = {"simlint": "lint"}  # a kind's lane; every other kind is the person's ("user")
POLL = 0.05  # seconds between looks at a running process (a cancel acts within this)
_LIVE: set = set()  # every worker process still running, killed when the studio exits


def _kill(proc) -> None:
    """Kill ``proc`` and its process group (Graphviz's ``dot`` with it)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the worker leads its own session (start_new_session)
    except (ProcessLookupError, PermissionError, AttributeError):  # gone already; no groups here
        pass
    try:
        proc.kill()
    except OSError:
        pass


@atexit.register
def _kill_all() -> None:
    for proc in list(_LIVE):
        _kill(proc)


class Job:
    """One run: ``done`` of ``total`` games, ``status`` running/done/failed/cancelled,
    ``result`` (a JSON-ready dict) or ``error`` (a message)."""

    def __init__(self, jid: str, kind: str, total: int, lane: str = "user", limit: float = MAX_SECONDS + GRACE):
        self.id = jid
        self.kind = kind
        self.lane = lane
        self.total = total
        self.done = 0
        self.status = "running"
        self.result = None
        self.error = None
        self.cancelled = threading.Event()
        self.started = time.monotonic()
        self.limit = limit  # seconds from the start when the process is killed
        self.process = None

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "kind": self.kind,
            "total": self.total,
            "done": self.done,
            "status": self.status,
            "error": self.error,
            # a page's files are served one by one (/api/jobs/{id}/page/{name}), not in every answer
            "result": {**self.result, "files": sorted(self.result["files"])}
            if isinstance(self.result, dict) and "files" in self.result
            else self.result,
        }


def _worker_env() -> dict:
    """The environment of a worker: this one, with the folder this ``recycle`` was imported
    from first on the path (the worker runs the same code as the studio)."""
    env = dict(os.environ)
    here = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


class Jobs:
    """The studio's runs by id."""

    def __init__(self, grace: float = GRACE):
        self._jobs: dict[str, Job] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self.grace = grace

    def start(self, kind: str, total: int, request: dict) -> Job:
        """Run ``request`` (see ``recycle.studio.worker``) in a process; ``ValueError`` if the
        person's lane is full. A lint cancels the lint before it."""
        lane = LANES.get(kind, "user")
        with self._lock:
            running = [j for j in self._jobs.values() if j.status == "running" and j.lane == lane]
            if lane == "lint":
                for j in running:
                    j.cancelled.set()
            elif len(running) >= MAX_RUNNING:
                raise ValueError(f"{MAX_RUNNING} runs are going already: wait for one or cancel it")
            finished = [k for k, j in self._jobs.items() if j.status != "running"]
            for k in finished[:-KEEP_FINISHED] if len(finished) > KEEP_FINISHED else []:
                del self._jobs[k]
            job = Job(str(next(self._ids)), kind, total, lane, float(request["seconds"]) + self.grace)
            self._jobs[job.id] = job
        threading.Thread(
            target=self._supervise,
            args=(job, {**request, "kind": kind, "n": total, "limit": job.limit + 1}),
            name=f"studio-{kind}-{job.id}",
            daemon=True,
        ).start()
        return job

    def _supervise(self, job: Job, request: dict) -> None:
        answer: dict = {}
        timed_out = False
        try:
            proc = subprocess.Popen(
                [sys.executable, "-m", "recycle.studio.worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=_worker_env(),
                start_new_session=True,
            )
        except OSError as exc:
            job.error, job.status = f"the run could not start: {exc}", "failed"
            return
        job.process = proc
        _LIVE.add(proc)
        reader = threading.Thread(target=self._read, args=(job, proc, answer), daemon=True)
        reader.start()
        try:
            proc.stdin.write(json.dumps(request).encode("utf-8"))
            proc.stdin.close()
        except OSError:
            pass  # the process ended already: said below
        while proc.poll() is None:
            if job.cancelled.wait(POLL):
                break
            if time.monotonic() - job.started > job.limit:
                timed_out = True
                break
        _kill(proc)
        proc.wait()
        _LIVE.discard(proc)
        reader.join(5)
        if job.cancelled.is_set():
            job.status = "cancelled"
        elif timed_out:
            job.error = (
                f"stopped at the time limit ({job.limit:.0f} s): a look-ahead player's decisions can "
                f"take long; ask fewer games or a smaller budget"
            )
            job.status = "failed"
        elif "result" in answer:
            job.result, job.status = answer["result"], "done"
        else:
            job.error = answer.get("error") or f"the run ended without an answer (exit code {proc.returncode})"
            job.status = "failed"

    @staticmethod
    def _read(job: Job, proc, answer: dict) -> None:
        for line in proc.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if "done" in msg:
                job.done, job.total = int(msg["done"]), int(msg["total"])
            else:
                answer.update(msg)

    def get(self, jid: str) -> Job | None:
        return self._jobs.get(jid)

    def running(self) -> list[Job]:
        """The runs still going, of every lane."""
        return [j for j in list(self._jobs.values()) if j.status == "running"]

    def cancel_all(self) -> None:
        """Cancel every run and kill its process now (the studio is stopping)."""
        for j in list(self._jobs.values()):
            j.cancelled.set()
            if j.process is not None:
                _kill(j.process)
