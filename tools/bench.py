#!/usr/bin/env python3
"""Benchmarks of the engine (figures for the README; never timed assertions in tests).

    python tools/bench.py [rollouts] [--games 20000] [--repeat 5]   # Schwimmen vs the hand-written simulator
    python tools/bench.py lookahead [--budget 300]                  # ISMCTS iterations per second
    python tools/bench.py clone                                     # clone() early and late in a Hearts deal
    python tools/bench.py all

``rollouts``: random rollouts of Schwimmen by recycle and by ../shared/bench/schwimmen_native.py
in this one process, in alternating rounds, best of ``--repeat`` each, so that a machine whose
speed drifts slows both alike and the ratio is comparable across machines.
``lookahead``: one ISMCTS decision with ``--budget`` iterations at several decisions (those
with two or more options, counted from 1) of a corpus Hearts4 deal and of a Schwimmen game
(best of 3).
``clone``: the cost of ``State.clone()`` at the first and the 40th decision of a deal of
games/hearts.rcy (best of many).
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
from recycle.players.lookahead import ISMCTSPlayer  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "cardstock"


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


def bench_rollouts(args) -> None:
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
        return
    native_rate = args.games / native
    print(f"native  : {native_rate:10,.0f} rollouts/s")
    print(f"ratio   : {ours_rate / native_rate:10.3f}  (recycle / hand-written; goal >= 0.5)")


def state_at(game, seed: int, decision: int):
    """A state of ``game`` (random players, seed ``seed``) waiting at its ``decision``-th
    real decision (1-based, counting decisions with two or more options), or None if the
    game ends before."""
    s = game.new_state(seed=seed)
    draw = random.Random(seed).random
    seen = 0
    while not s.is_terminal():
        n = s.num_options()
        if n > 1:
            seen += 1
            if seen == decision:
                return s
        s.apply(int(draw() * n) if n > 1 else 0)
    return None


def bench_lookahead(args) -> None:
    cases = [("Hearts4 (corpus)", CORPUS / "Hearts4.rcy", (1, 20, 30, 40)),
             ("schwimmen.rcy", ROOT / "games" / "schwimmen.rcy", (1, 5, 10))]
    for name, path, decisions in cases:
        if not path.exists():
            print(f"{name}: {path} not found")
            continue
        game = recycle.load(path)
        for d in decisions:
            s = state_at(game, 3, d)
            if s is None:
                continue
            obs, options = s.observation(s.current_player()), s.legal_options()
            best = float("inf")
            for _ in range(3):
                player = ISMCTSPlayer(args.budget)
                t0 = time.perf_counter()
                player.choose(obs, options, random.Random(1))
                best = min(best, time.perf_counter() - t0)
            print(f"ismcts {name:17} decision {d:3}: {args.budget / best:8,.0f} iterations/s "
                  f"({best / args.budget * 1000:.2f} ms each)")


def bench_clone(args) -> None:
    game = recycle.load(ROOT / "games" / "hearts.rcy")
    for d in (1, 40):
        s = state_at(game, 5, d)
        n = 2000
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(n):
                s.clone()
            best = min(best, (time.perf_counter() - t0) / n)
        print(f"clone hearts.rcy decision {d:3}: {best * 1e6:7.1f} µs")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", nargs="?", default="rollouts", choices=["rollouts", "lookahead", "clone", "all"])
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", type=int, default=300)
    ap.add_argument("--game", default=str(ROOT / "games" / "schwimmen.rcy"))
    ap.add_argument("--native", default=str(ROOT.parent / "shared" / "bench" / "schwimmen_native.py"))
    args = ap.parse_args(argv)
    if args.what in ("rollouts", "all"):
        bench_rollouts(args)
    if args.what in ("lookahead", "all"):
        bench_lookahead(args)
    if args.what in ("clone", "all"):
        bench_clone(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
