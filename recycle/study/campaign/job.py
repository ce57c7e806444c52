"""One chunk of a campaign, played where a worker runs it (a local process or a Dask worker).

Compiled games cannot be pickled, so a task carries the game's text, file name and the
variant's settings; each worker compiles a variant once and keeps it (``_CACHE``). A task's
result is plain data: the chunk's games as columns, or the message of the error that
stopped it. Nothing here depends on which worker runs the task or when.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import time
from dataclasses import dataclass, field

COLUMNS = (
    "idx",
    "seed",
    "scores",
    "winners",
    "decisions",
    "choices",
    "options",
    "rounds",
    "steps",
    "stopped_by",
    "lead_changes",
    "settled_at",
    "winner_gap",
    "final_spread",
)


@dataclass(frozen=True)
class ChunkTask:
    """Everything a worker needs to play one chunk."""

    game: str
    variant: str
    lineup: str
    chunk: int
    seed: int
    first: int  # index in the cell of the chunk's first game
    n: int
    file: str
    text: str
    settings: tuple
    players: str
    max_steps: int
    max_work: int | None
    heuristics: bool

    @property
    def key(self) -> tuple:
        return (self.game, self.variant, self.lineup, self.chunk)

    @property
    def digest(self) -> str:
        """SHA-256 of everything that decides the chunk's games: the game's text, the variant's
        values, the players, the seed and place, the limits and recycle's version. Two
        campaigns that share a Dask cluster never share a task key (``dask_key``)."""
        from ...version import __version__

        body = [
            __version__,
            self.game,
            self.variant,
            self.lineup,
            self.chunk,
            self.seed,
            self.first,
            self.n,
            self.file,
            hashlib.sha256(self.text.encode("utf-8", "surrogatepass")).hexdigest(),
            repr(self.settings),
            self.players,
            self.max_steps,
            self.max_work,
            self.heuristics,
        ]
        return hashlib.sha256(json.dumps(body).encode()).hexdigest()

    @property
    def dask_key(self) -> str:
        return f"recycle-chunk-{self.digest}"


@dataclass
class ChunkResult:
    key: tuple
    seed: int
    n: int
    columns: dict = field(default_factory=dict)  # name -> list, one entry per game
    error: str | None = None
    worker: str = ""
    seconds: float = 0.0
    digest: str = ""  # of the task that was run (ChunkTask.digest)


_CACHE: dict = {}
_CACHE_SIZE = 16


def compiled(task: ChunkTask):
    """The worker's compiled variant of the task's game (compiled once per worker)."""
    from ...engine.game import PreparedGame
    from .plan import GameEntry, variant_source

    key = (task.file, hashlib.sha256(task.text.encode()).hexdigest(), task.settings, task.max_work)
    game = _CACHE.get(key)
    if game is None:
        source = variant_source(GameEntry(task.game, task.file, task.text, ()), task.settings)
        game = PreparedGame(source, max_work=task.max_work)
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = game
    return game


def worker_name() -> str:
    """Which worker ran a chunk: the Dask worker's address, else host and process id."""
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return f"{socket.gethostname()}:{os.getpid()}"


def run_chunk(task: ChunkTask) -> ChunkResult:
    """Play the chunk's ``task.n`` games: game ``k`` with seed ``rollout_seed(task.seed, k)``.
    A game's error stops the chunk and is returned as its ``error`` (never raised)."""
    from ...engine.game import rollout_seed
    from ...errors import RecycleBug, RecycleError, StepLimitExceeded

    t0 = time.perf_counter()
    out = ChunkResult(task.key, task.seed, task.n, worker=worker_name(), digest=task.digest)
    cols = {c: [] for c in COLUMNS}
    try:
        game = compiled(task)
    except (RecycleError, RecycleBug, ValueError) as exc:
        out.error = f"the variant does not compile: {_message(exc)}"
        return out
    natively = {} if task.heuristics else native_rows(game, task)
    for k in range(task.n):
        sd = rollout_seed(task.seed, k)
        try:
            row = natively.get(k) or play_one(game, task.players, sd, task.max_steps, task.heuristics)
        except StepLimitExceeded as exc:
            row = _limited(str(exc))
        except (RecycleError, RecycleBug, RecursionError, MemoryError, ValueError) as exc:
            out.error = f"game {task.first + k} (seed {sd}): {_message(exc)}"
            out.seconds = time.perf_counter() - t0
            return out
        row["idx"] = task.first + k
        row["seed"] = sd
        for c in COLUMNS:
            cols[c].append(row.get(c))
    out.columns = cols
    out.seconds = time.perf_counter() - t0
    return out


def native_rows(game, task: ChunkTask) -> dict:
    """The rows of the chunk's games of random players that native code finished, by index
    (recycle/native/choose.py chooses the engine: native wherever the game builds); the others,
    and every game of other players, are ``play_one``'s (the exact limit or error)."""
    from ...native import rollout_arrays
    from ...native.choose import engine_for
    from ...native.engine import range_keys
    from ...players import make_players

    if engine_for(game, make_players(task.players, game.nplayers))[0] != "native":
        return {}
    scores, counts = rollout_arrays(game, None, task.max_steps, keys=range_keys(task.seed, 0, task.n))
    rows = {}
    for k in range(task.n):
        if counts[k, 0]:
            continue  # stopped natively: played again by the reference interpreter
        sc = [int(v) for v in scores[k]]
        best = max(sc) if game.scoring_max else min(sc)
        rows[k] = {
            "scores": sc,
            "winners": [p for p, v in enumerate(sc) if v == best],
            "decisions": int(counts[k, 2]),
            "options": int(counts[k, 3]),
            "rounds": int(counts[k, 4]),
            "steps": int(counts[k, 1]),
        }
    return rows


def mismatch(task: ChunkTask, res) -> str | None:
    """Why ``res`` is not the result of ``task`` (None when it is): checked before a result is
    stored, so that a result made for another task (another campaign's, on a shared cluster)
    never enters the database."""
    if not isinstance(res, ChunkResult):
        return f"the cluster returned a {type(res).__name__}, not a chunk's result"
    if res.digest != task.digest or tuple(res.key) != task.key or res.seed != task.seed or res.n != task.n:
        return "the cluster returned the result of another task (another campaign's?)"
    if res.error is not None:
        return None if isinstance(res.error, str) else "the result's error is not text"
    cols = res.columns
    from ...engine.game import rollout_seed

    if set(cols) != set(COLUMNS) or any(not isinstance(cols[c], list) or len(cols[c]) != task.n for c in COLUMNS):
        return f"the result does not hold the {task.n} games of the chunk"
    if cols["idx"] != list(range(task.first, task.first + task.n)) or cols["seed"] != [
        rollout_seed(task.seed, k) for k in range(task.n)
    ]:
        return "the result's games are not the chunk's (indexes or seeds differ)"
    return None


def _message(exc: BaseException) -> str:
    text = exc.format() if hasattr(exc, "format") else f"{type(exc).__name__}: {exc}"
    return text[:2000]


def _limited(message: str) -> dict:
    kind = "max_work" if "units of work" in message else "events" if "events" in message else "max_steps"
    return {"stopped_by": kind}


def play_one(game, players: str, seed: int, max_steps: int, heuristics: bool) -> dict:
    """One game's row (without ``idx`` and ``seed``)."""
    from ...players import make_players

    pl = make_players(players, game.nplayers)
    if not heuristics:
        from ...engine.runner import RandomPlayer

        if all(type(p) is RandomPlayer for p in pl):
            s = game.random_rollout(seed, max_steps)
            scores = list(s.scores)
            best = max(scores) if game.scoring_max else min(scores)
            winners = [p for p, v in enumerate(scores) if v == best]
            return {
                "scores": scores,
                "winners": winners,
                "decisions": s.decisions,
                "options": s.options_total,
                "rounds": s.rounds,
                "steps": s.steps,
            }
        r = game.play(pl, seed=seed, max_steps=max_steps)
        return {
            "scores": list(r.scores),
            "winners": list(r.winners),
            "decisions": r.decisions,
            "options": r.options_total,
            "rounds": r.state.rounds,
            "steps": r.state.steps,
        }
    from ..analysis import game_heuristics, score_now, trace_game

    from ...engine.runner import RandomPlayer

    t = None
    if all(type(p) is RandomPlayer for p in pl):
        # random players' games traced natively where native code traces them, else on the
        # reference interpreter: the same record (recycle/study/trace_native.py); a game at a
        # limit is played again below, for the reference's exact exception
        t = trace_game(game, ["random"] * game.nplayers, seed, max_steps)
    if t is not None and not t["limit"]:
        scores, winners, options, trace = t["scores"], t["winners"], t["options"], t["trace"]
        rounds, steps = t["rounds"], t["steps"]
    else:
        from ..analysis import _scoring_draws

        draws = _scoring_draws(game)
        options, trace = [], []

        def on_decision(state, player, opts, index):
            options.append(len(opts))
            trace.append(score_now(game, state, draws))

        r = game.play(pl, seed=seed, max_steps=max_steps, on_decision=on_decision)
        scores, winners, rounds, steps = r.scores, r.winners, r.state.rounds, r.state.steps
    h = game_heuristics({"trace": trace, "final": scores, "winners": winners}, game.scoring_max)
    row = {
        "scores": list(scores),
        "winners": list(winners),
        "decisions": len(options),
        "choices": sum(1 for o in options if o > 1),
        "options": sum(options),
        "rounds": rounds,
        "steps": steps,
        "final_spread": h["final_spread"],
    }
    if score_moved(trace):
        row.update(lead_changes=h["lead_changes"], settled_at=h["settled_at"], winner_gap=h["winner_gap"])
    return row


def score_moved(trace: list) -> bool:
    """Whether the scores seen at the decisions changed during the game. When they never did
    (the scoring can be computed only at the end, or its value moves only after the last
    decision), lead changes, the settle point and the winner's deficit measure nothing: they
    are stored as NULL, not as zeros, and the report says "not measurable"."""
    seen = [s for s in trace if s is not None]
    return any(s != seen[0] for s in seen[1:])
