#!/usr/bin/env python3
"""Throughput of campaigns (figures for docs/campaigns.md; never timed assertions in tests).

    python tools/bench_campaign.py [--games 100000] [--chunk 5000] [--game games/schwimmen.rcy]
           [--workers 1,2,4] [--dask 2] [--heuristics] [--overhead] [--writes]

Runs one plan (one game, its baseline, random players, ``--games`` games) into a fresh
DuckDB file with each number of local workers and on a Dask cluster of ``--dask`` worker
processes started on this machine (127.0.0.1), and prints games per second. ``--overhead``
also measures the cost of one chunk (handing it out, its result coming back, its
transaction): the same games with 1 local worker process in chunks of ``--small`` and in
chunks of ``--chunk``, the difference divided by the difference in the number of chunks;
and the chunk size that keeps that overhead under 5% of a chunk's time.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def plan_text(game: str, games: int, chunk: int, heuristics: bool) -> str:
    return (
        f"seed = 1\ngames = {games}\nchunk = {chunk}\nheuristics = {str(heuristics).lower()}\n"
        f'[[game]]\nfile = "{Path(game).name}"\n[[lineup]]\nname = "random"\nplayers = "random"\n'
    )


def timed(folder: Path, game: str, games: int, chunk: int, heuristics: bool, **kw) -> float:
    from recycle.study.campaign import Plan, run_campaign

    (folder / "plan.toml").write_text(plan_text(game, games, chunk, heuristics))
    db = folder / f"run-{time.monotonic_ns()}.duckdb"
    plan = Plan.from_toml(folder / "plan.toml")
    t0 = time.perf_counter()
    run = run_campaign(plan, db, **kw)
    dt = time.perf_counter() - t0
    assert run.games == games and not run.failures, run
    db.unlink()
    return dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--chunk", type=int, default=5000)
    ap.add_argument("--small", type=int, default=50, help="--overhead: the small chunk size")
    ap.add_argument("--game", default=str(ROOT / "games" / "schwimmen.rcy"))
    ap.add_argument("--workers", default="1,2,4")
    ap.add_argument("--dask", type=int, default=2, help="Dask worker processes (0: no Dask run)")
    ap.add_argument("--heuristics", action="store_true", help="trace every game for the heuristics")
    ap.add_argument("--overhead", action="store_true")
    ap.add_argument("--writes", action="store_true")
    a = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-campaign-"))
    shutil.copy(a.game, folder / Path(a.game).name)
    print(
        f"{Path(a.game).stem}: {a.games:,} games in chunks of {a.chunk:,}, heuristics {'on' if a.heuristics else 'off'}"
    )
    try:
        for w in [int(x) for x in a.workers.split(",") if x]:
            dt = timed(folder, a.game, a.games, a.chunk, a.heuristics, workers=w)
            print(
                f"local, {w} worker{'s' if w > 1 else ' (in this process)'}: {dt:8.1f} s  "
                f"{a.games / dt:10,.0f} games/s",
                flush=True,
            )
        if a.dask:
            from distributed import Client, LocalCluster

            with (
                LocalCluster(
                    n_workers=a.dask, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
                ) as cluster,
                Client(cluster),
            ):
                dt = timed(folder, a.game, a.games, a.chunk, a.heuristics, scheduler=cluster.scheduler_address)
            print(f"Dask, {a.dask} workers on 127.0.0.1: {dt:8.1f} s  {a.games / dt:10,.0f} games/s", flush=True)
        if a.overhead:
            n = min(a.games, 20 * a.chunk)
            big = timed(folder, a.game, n, a.chunk, a.heuristics, workers=2)
            small = timed(folder, a.game, n, a.small, a.heuristics, workers=2)
            extra = n // a.small - -(-n // a.chunk)
            per_chunk = (small - big) / extra
            per_game = big / n
            print(
                f"overhead per chunk (2 local workers, {n:,} games in chunks of {a.small} and of {a.chunk}): "
                f"{1000 * per_chunk:.2f} ms; a game {1e6 * per_game:.0f} µs of wall time; chunks of at least "
                f"{max(1, round(per_chunk / (0.05 * per_game))):,} games keep the overhead under 5%"
            )
        if a.writes:
            writes(folder, a.game, a.chunk, a.heuristics)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def writes(folder: Path, game: str, chunk: int, heuristics: bool, rounds: int = 20) -> None:
    """Play one chunk, then write it ``rounds`` times (as different chunks) and time the writes."""
    from dataclasses import replace

    from recycle.study.campaign import Plan, store
    from recycle.study.campaign.job import run_chunk
    from recycle.study.campaign.run import prepare

    (folder / "plan.toml").write_text(plan_text(game, chunk * rounds, chunk, heuristics))
    plan = Plan.from_toml(folder / "plan.toml")
    cells, tasks = prepare(plan)
    res = run_chunk(tasks[0])
    con = store.connect(folder / "writes.duckdb")
    store.begin(con, plan, cells, False)
    t0 = time.perf_counter()
    for k in range(rounds):
        cols = dict(res.columns, idx=[i + k * chunk for i in res.columns["idx"]])
        store.write_chunk(con, replace(res, key=(*res.key[:3], k), columns=cols))
    dt = time.perf_counter() - t0
    con.close()
    print(
        f"coordinator writes: {rounds} chunks of {chunk:,} games in {dt:.2f} s: {1e6 * dt / (rounds * chunk):.1f} µs "
        f"a game, {rounds * chunk / dt:,.0f} games/s at most with one writer",
        flush=True,
    )


if __name__ == "__main__":
    main()
