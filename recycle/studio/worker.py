"""One studio run in a process of its own: ``python -m recycle.studio.worker``.

Why a process and not a thread: a thread cannot be stopped from outside, and a run stops
itself only between games. One decision of a look-ahead player (``ismcts:100000`` at
Hearts) can take minutes, and a game hours; a cancelled run then went on, holding its slot,
until the server was restarted. A process is killed — its whole group, Graphviz's ``dot``
with it — the moment the run is cancelled or passes its time limit (``recycle.studio.jobs``),
whatever it is doing, native code included.

The request is one JSON object on standard input: ``kind`` (simulate, analyze, graph,
simlint, or a Study run: page, ladder, balance), ``path`` and ``text`` of the game, ``n``,
``seed``, ``players``, ``per_player``, ``seconds``, ``options`` (a Study run's, checked by
``recycle.studio.study.study_options``), and ``limit``: the seconds after which the process ends itself (SIGALRM), as the
studio would kill it. The answer is JSON lines on standard output: ``{"done": k, "total": n}`` now
and then, then ``{"result": ...}`` or ``{"error": "..."}``.
"""

from __future__ import annotations

import json
import math
import signal
import sys
import threading
import time

PROGRESS_EVERY = 0.1  # seconds between progress lines


class Unfit(Exception):
    """A request the worker cannot run (a game that does not check, an unknown kind)."""


class Progress:
    """What a run function is handed as its ``job``: it writes its progress as JSON lines.
    (Nothing cancels a run from inside: the studio kills the process.)"""

    def __init__(self, out, total: int):
        self.out = out
        self.total = total
        self.done = 0
        self.cancelled = threading.Event()  # never set here: simulation_lint asks it
        self._said = 0.0

    def tick(self, done: int) -> None:
        self.done = done
        now = time.monotonic()
        if now - self._said >= PROGRESS_EVERY:
            self._said = now
            self.say({"done": done, "total": self.total})

    def say(self, message: dict) -> None:
        self.out.write(json.dumps(message) + "\n")
        self.out.flush()


def run_request(req: dict, job: Progress) -> dict:
    """The run ``req`` asks for (see the module docstring), its result as a JSON-ready dict."""
    from . import runs, study
    from ..study.simlint import simulation_lint

    game, messages = runs.check_text(req["text"], req["path"])
    if game is None:
        raise Unfit("the game does not check: " + messages[0]["message"])
    kind, n, seed, players, seconds = req["kind"], req["n"], req["seed"], req.get("players"), req["seconds"]
    if kind == "simulate":
        return runs.run_simulate(game, job, n, seed, players, seconds)
    if kind == "analyze":
        return runs.run_analyze(game, job, n, seed, players, seconds)
    if kind == "graph":
        return runs.run_graph(game, job, n, seed, bool(req.get("per_player")), seconds)
    if kind in study.KINDS:
        try:
            return study.run_study(kind, game, job, n, seed, seconds, req["options"])
        except study.StudyError as exc:
            raise Unfit(str(exc)) from None
    if kind == "simlint":
        out = simulation_lint(game, n, seed, seconds=seconds, stop=job.cancelled.is_set)
        job.done = out["games"]
        return out
    raise Unfit(f"no such run: {kind}")


def main() -> int:
    """Read one request, run it, write its progress and its answer (see the docstring)."""
    from ..errors import RecycleBug, RecycleError

    out = sys.stdout
    sys.stdout = sys.stderr  # whatever a run prints goes to the server's log, not into the answer
    try:
        req = json.loads(sys.stdin.read())
        if req.get("limit"):  # its own end too, should the studio die without killing it
            signal.alarm(max(1, math.ceil(float(req["limit"]))))
        job = Progress(out, int(req["n"]))
        result = run_request(req, job)
        job.say({"done": job.done, "total": job.total})
        job.say({"result": result})
    except (RecycleError, RecycleBug) as exc:
        Progress(out, 0).say({"error": exc.format()})
    except Unfit as exc:
        Progress(out, 0).say({"error": str(exc)})
    except Exception as exc:  # noqa: BLE001 - a bug: said in words, the traceback on the server's log
        import traceback

        traceback.print_exc()
        Progress(out, 0).say({"error": f"internal error: {exc.__class__.__name__}: {exc}"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
