#!/usr/bin/env python3
"""Schwimmen random rollouts per second: recycle against the hand-written simulator.

Both run in this one process, in alternating rounds (recycle, native, recycle, native ...),
best of ``--repeat`` rounds each, so that a machine whose speed drifts (other jobs, a shared
host) slows both alike and the ratio is comparable across machines. Event recording is off
(the rollout hot path).

    python tools/bench.py [--games 20000] [--repeat 3] [--native PATH]
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import recycle  # noqa: E402


def load_native(path: Path):
    spec = importlib.util.spec_from_file_location("schwimmen_native", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def time_native(mod, games: int, seed: int) -> float:
    rng = random.Random(seed)
    play = mod.play_round
    t0 = time.perf_counter()
    for _ in range(games):
        play(rng)
    return time.perf_counter() - t0


def time_recycle(game, games: int, seed: int) -> float:
    t0 = time.perf_counter()
    recycle.simulate(game, games, seed=seed)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--game", default=str(ROOT / "games" / "schwimmen.rcy"))
    ap.add_argument("--native", default=str(ROOT.parent / "shared" / "bench" / "schwimmen_native.py"))
    args = ap.parse_args(argv)

    game = recycle.load(args.game)
    recycle.simulate(game, 500, seed=args.seed + 99)  # warm caches, as a long run would
    native_path = Path(args.native)
    mod = load_native(native_path) if native_path.exists() else None
    ours = native = float("inf")
    for _ in range(args.repeat):
        ours = min(ours, time_recycle(game, args.games, args.seed))
        if mod is not None:
            native = min(native, time_native(mod, args.games, args.seed))
    ours_rate = args.games / ours
    print(f"recycle : {ours_rate:10,.0f} rollouts/s  ({args.games} games, best of {args.repeat})")
    if mod is None:
        print(f"native  : {native_path} not found; no ratio")
        return 0
    native_rate = args.games / native
    print(f"native  : {native_rate:10,.0f} rollouts/s")
    print(f"ratio   : {ours_rate / native_rate:10.3f}  (recycle / hand-written; target >= 0.10, goal >= 0.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
