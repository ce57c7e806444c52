"""Running a campaign: local worker processes by default, a Dask cluster with ``scheduler``.

The coordinating process (the one calling ``run_campaign``) hands out chunks and is the
database's only writer: each chunk that comes back is written in one transaction
(store.write_chunk). Lost work is run again: a local worker process that dies (SIGKILL, out
of memory) breaks the process pool, which is made anew, and every chunk not yet written is
handed out again; Dask reruns the tasks of a lost worker itself. A chunk written once is
never written again, so nothing is counted twice; a campaign killed as a whole goes on
with ``resume=True`` from the chunks in the database.
"""

from __future__ import annotations

import time
from concurrent.futures import CancelledError
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable

from . import store
from .job import ChunkResult, ChunkTask, mismatch, run_chunk
from .plan import Plan, PlanError, chunk_seed, variant_source

MAX_POOL_BREAKS = 3  # a chunk that was running when a worker died this often is recorded as failed
SCHEDULER_LOST_AFTER = 30.0  # seconds without a connection to the Dask scheduler before the run stops
POLL = 2.0  # seconds between looks at the scheduler's connection while no chunk finishes
PING_TIMEOUT = 10.0  # seconds a scheduler has to answer a ping (one that is stopped keeps its connection)


@dataclass
class CampaignProgress:
    """What a progress display shows; passed to ``progress`` after every chunk."""

    chunks_total: int
    chunks_done: int = 0
    chunks_before: int = 0  # finished by an earlier run (resume)
    chunks_failed: int = 0
    games_total: int = 0
    games_done: int = 0
    started: float = field(default_factory=time.perf_counter)
    workers: set = field(default_factory=set)
    restarts: int = 0  # local pools made anew after a worker died

    @property
    def games_per_second(self) -> float:
        dt = time.perf_counter() - self.started
        return self.games_done / dt if dt > 0 else 0.0

    @property
    def seconds_left(self) -> float | None:
        rate = self.games_per_second
        left = self.games_total - self.games_done
        return left / rate if rate > 0 else None


@dataclass
class CampaignRun:
    """What ``run_campaign`` did."""

    db: str
    chunks: int
    chunks_run: int
    chunks_failed: int
    games: int
    seconds: float
    workers: list
    restarts: int
    failures: list  # (game, variant, lineup, chunk, error) of the chunks that failed in this run
    lost: int = 0  # chunks the cluster could not run (not in the database: run them with resume)
    rejected: list = field(default_factory=list)  # (game, variant, lineup, chunk, why) of results not stored


def prepare(plan: Plan) -> tuple[list[dict], list[ChunkTask]]:
    """The plan's cells (rows of the ``cells`` table) and every chunk's task, in plan order.
    Each variant is compiled once here, so that a wrong setting or line-up is told before any
    game is played."""
    from ...engine.game import PreparedGame
    from ...errors import RecycleBug, RecycleError
    from ...players import make_players

    plan.check_size()
    cells, tasks = [], []
    for game, variant, lineup in plan.cells():
        key = (game.name, variant.name)
        if key not in plan.nplayers:
            try:
                g = PreparedGame(variant_source(game, variant.settings), max_work=plan.max_work)
            except (RecycleError, RecycleBug) as exc:
                raise PlanError(f"{game.name} {variant.name}: {exc.format()}") from None
            except ValueError as exc:
                raise PlanError(f"{game.name} {variant.name}: {exc}") from None
            plan.nplayers[key] = (g.nplayers, "max" if g.scoring_max else "min")
        nplayers, scoring = plan.nplayers[key]
        try:
            make_players(lineup.players, nplayers)
        except ValueError as exc:
            raise PlanError(f"line-up {lineup.name!r} with {game.name} {variant.name}: {exc}") from None
        chunks = plan.chunks_of((game.name, variant.name, lineup.name))
        cells.append(
            {
                "game": game.name,
                "variant": variant.name,
                "lineup": lineup.name,
                "baseline": variant.baseline,
                "settings": [[k, list(v) if isinstance(v, tuple) else v] for k, v in variant.settings],
                "players": lineup.players,
                "nplayers": nplayers,
                "scoring": scoring,
                "chunks": len(chunks),
                "games": plan.games_per_cell,
            }
        )
        for c, first, n in chunks:
            tasks.append(
                ChunkTask(
                    game.name,
                    variant.name,
                    lineup.name,
                    c,
                    chunk_seed(plan.seed, game.name, variant.name, lineup.name, c),
                    first,
                    n,
                    game.file,
                    game.text,
                    variant.settings,
                    lineup.players,
                    plan.max_steps,
                    plan.max_work,
                    plan.heuristics,
                )
            )
    return cells, tasks


def run_campaign(
    plan: Plan | str | Path,
    db=None,
    scheduler: str | None = None,
    workers: int = 1,
    resume: bool = False,
    progress: Callable[[CampaignProgress], None] | None = None,
) -> CampaignRun:
    """Run the plan's missing chunks and write them to the DuckDB file ``db`` (default: the
    plan's file with ``.duckdb``). ``scheduler``: the address of a Dask scheduler
    (``tcp://HOST:8786``) or a ``distributed.Client``; else ``workers`` local processes (1:
    this process). ``resume``: go on with a database that holds this plan's campaign.
    The tables are the same whatever ran the chunks, in whatever order."""
    if not isinstance(plan, Plan):
        path = Path(plan)
        plan = Plan.from_toml(path)
        db = db if db is not None else path.with_suffix(".duckdb")
    if db is None:
        raise ValueError("give the database file (db=...)")
    cells, tasks = prepare(plan)
    t0 = time.perf_counter()
    con = store.connect(db)
    try:
        from .foreign import check_schema

        check_schema(con, db)  # a file with views or macros is not written to (they would run on resume)
        done = store.begin(con, plan, cells, resume)
        todo = [t for t in tasks if t.key not in done]
        state = CampaignProgress(
            chunks_total=len(tasks), chunks_before=len(tasks) - len(todo), games_total=sum(t.n for t in todo)
        )
        failures, rejected = [], []
        lost = 0

        def finished(task: ChunkTask, res: ChunkResult) -> None:
            why = mismatch(task, res)
            if why is not None:
                rejected.append((*task.key, why))
                return
            if not store.write_chunk(con, res, db):
                return
            state.chunks_done += 1
            state.workers.add(res.worker)
            if res.error:
                state.chunks_failed += 1
                failures.append((*res.key, res.error))
            else:
                state.games_done += res.n
            if progress:
                progress(state)

        if progress:
            progress(state)
        if todo:
            if scheduler is not None:
                lost = _run_dask(todo, scheduler, finished)
            elif workers <= 1:
                for t in todo:
                    finished(t, run_chunk(t))
            else:
                _run_local(todo, workers, finished, state)
        return CampaignRun(
            str(db),
            len(tasks),
            state.chunks_done,
            state.chunks_failed,
            state.games_done,
            time.perf_counter() - t0,
            sorted(state.workers),
            state.restarts,
            failures,
            lost,
            rejected,
        )
    finally:
        store.close(con, db)


def _run_local(todo: list[ChunkTask], workers: int, finished, state: CampaignProgress) -> None:
    """Chunks in a pool of ``workers`` processes, at most ``2 * workers`` handed out at a time;
    a worker that dies breaks the pool: a new pool runs every chunk not yet finished."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    pending = list(reversed(todo))  # popped from the end: plan order
    breaks: dict = {}
    ctx = multiprocessing.get_context("spawn")
    while pending:
        running: dict = {}
        broken = False
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            try:
                while pending or running:
                    while pending and len(running) < 2 * workers:
                        # submit raises BrokenProcessPool too: the chunk leaves `pending` only once handed out
                        running[pool.submit(run_chunk, pending[-1])] = pending[-1]
                        pending.pop()
                    ready, _ = wait(running, return_when=FIRST_COMPLETED)
                    for f in ready:
                        res = f.result()  # raises BrokenProcessPool: the chunk stays in `running`
                        finished(running.pop(f), res)
            except BrokenProcessPool:
                broken = True
        if broken:
            state.restarts += 1
            for f, t in running.items():
                if f.done() and not f.exception():
                    finished(t, f.result())
                    continue
                breaks[t.key] = breaks.get(t.key, 0) + 1
                if breaks[t.key] >= MAX_POOL_BREAKS:
                    finished(
                        t,
                        ChunkResult(
                            t.key,
                            t.seed,
                            t.n,
                            digest=t.digest,
                            error=f"a worker process died while running this chunk, {MAX_POOL_BREAKS} times",
                        ),
                    )
                else:
                    pending.append(t)


def _run_dask(todo: list[ChunkTask], scheduler, finished) -> int:
    """Chunks as tasks of a Dask cluster; the scheduler reruns a lost worker's tasks. Each
    task's key is the digest of what decides its games (``ChunkTask.dask_key``), so two
    campaigns on one cluster never receive each other's results. A scheduler out of reach
    for ``SCHEDULER_LOST_AFTER`` seconds stops the run with StoreError; the chunks written
    until then are kept, and ``resume`` finishes on any scheduler."""
    try:
        from distributed import Client, wait
    except ImportError:
        raise store.StoreError(
            "--scheduler needs 'distributed', which is not installed: pip install -e '.[campaign]'"
        ) from None
    own = not isinstance(scheduler, Client)
    try:
        client = Client(scheduler, timeout="20s") if own else scheduler
    except (OSError, TimeoutError) as exc:
        raise store.StoreError(f"cannot reach the Dask scheduler {scheduler}: {exc}") from None
    address = scheduler if own else getattr(client.scheduler, "address", "of the client")
    try:
        futures = {client.submit(run_chunk, t, key=t.dask_key, pure=False, retries=2): t for t in todo}
        lost = 0
        reached = time.monotonic()
        while futures:
            cancelled = False
            try:
                done = wait(list(futures), timeout=POLL, return_when="FIRST_COMPLETED").done
            except TimeoutError:
                done = set()
            except CancelledError:  # the client cancels every future when its scheduler's connection breaks
                done, cancelled = set(), True
            except OSError:  # the client's own connection broke: seen as the scheduler lost below
                done = set()
            if done or (not cancelled and client.status == "running" and _answers(client)):
                reached = time.monotonic()
            now = time.monotonic()
            if cancelled or now - reached > SCHEDULER_LOST_AFTER:
                raise store.StoreError(
                    f"lost the Dask scheduler {address} ("
                    + ("the connection broke" if cancelled else f"no answer for {SCHEDULER_LOST_AFTER:.0f} s")
                    + "): the finished chunks are kept; run the same command with --resume "
                    "(on this or another scheduler) to finish"
                )
            for f in done:
                t = futures.pop(f)
                # run_chunk returns a game's error: an exception here is the cluster's (a worker
                # lost again and again, or the scheduler): not recorded, run again on resume
                try:
                    res = f.result(timeout=SCHEDULER_LOST_AFTER) if f.status == "finished" else None
                except Exception:  # noqa: BLE001 - any failure to fetch a result is the cluster's
                    res = None
                if res is None:
                    lost += 1
                else:
                    finished(t, res)
                f.release()
        return lost
    finally:
        if own:
            try:
                client.close(timeout=5)
            except Exception:  # noqa: BLE001 - closing a client whose scheduler is gone: nothing to keep
                pass


def _answers(client) -> bool:
    """Whether the scheduler answers a ping within PING_TIMEOUT seconds (a scheduler whose
    machine stopped keeps its connection open, so the connection alone does not tell)."""
    import asyncio

    try:
        client.sync(lambda: asyncio.wait_for(client.scheduler.identity(), PING_TIMEOUT))
        return True
    except Exception:  # noqa: BLE001 - no answer, whatever the reason
        return False
