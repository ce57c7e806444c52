#!/usr/bin/env python3
"""Benchmarks of the engine (figures for the README; never timed assertions in tests).

    python tools/bench.py [rollouts] [--games 20000] [--repeat 5]   # Schwimmen vs the hand-written simulator
    python tools/bench.py lookahead [--budget 300]                  # ISMCTS iterations per second
    python tools/bench.py clone                                     # clone() early and late in a Hearts deal
    python tools/bench.py hearts [--games 2000]                     # Hearts against OpenSpiel's (needs open_spiel)
    python tools/bench.py corpus [--seconds 0.5]                    # every corpus game: compiled against closures
    python tools/bench.py all

``--engine compiled|closures|plain`` chooses the engine measured (compiled, the default).

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


def load_openspiel():
    """The OpenSpiel benchmark module of ../shared/bench, or None (no file or no pyspiel)."""
    path = ROOT.parent / "shared" / "bench" / "openspiel_hearts.py"
    try:
        return load_native(path) if path.exists() else None
    except ImportError:
        return None


def time_openspiel(mod, game, games: int, seed: int) -> float:
    rng = random.Random(seed)
    t0 = time.perf_counter()
    for _ in range(games):
        mod.play(game, rng)
    return time.perf_counter() - t0


def bench_hearts(args) -> None:
    """Hearts against OpenSpiel's hearts, alternating rounds in this process (best of each)."""
    mod = load_openspiel()
    if mod is None:
        print("hearts: OpenSpiel not available (pip install open_spiel; ../shared/bench/openspiel_hearts.py)")
        return
    cases = [("corpus Hearts4.rcy", CORPUS / "Hearts4.rcy", "hearts(pass_cards=false)"),
             ("games/hearts.rcy", ROOT / "games" / "hearts.rcy", "hearts")]
    for name, path, spiel_name in cases:
        if not path.exists():
            print(f"{name}: not found")
            continue
        game = recycle.load(path, engine=args.engine)
        spiel = mod.pyspiel.load_game(spiel_name)
        recycle.simulate(game, 200, seed=args.seed + 99)
        ours = theirs = float("inf")
        n = max(1, args.games // 10)
        for _ in range(args.repeat):
            ours = min(ours, time_recycle(game, n, args.seed))
            theirs = min(theirs, time_openspiel(mod, spiel, n, args.seed))
        # games/hearts.rcy plays deals until someone has 100 points: compare deals
        deals = 1.0
        if "DEAL" in game.layout._bases["sto"]:
            deals = sum(game.random_rollout(i).sto("game", "DEAL") for i in range(n)) / n
        what = "deals" if deals != 1.0 else "games"
        print(f"{name:20} {n * deals / ours:8,.0f} {what}/s   OpenSpiel {spiel_name}: {n / theirs:8,.0f} deals/s   "
              f"ratio {n * deals / ours / (n / theirs):5.2f}  ({args.engine}, {n} games of {deals:.1f} deals, "
              f"best of {args.repeat})")


def bench_corpus(args) -> None:
    """Rollouts per second of every corpus game, compiled and by the closures, and the speed-up."""
    import statistics

    rows = []
    for path in sorted(CORPUS.glob("*.rcy")):
        rates, gen = {}, None
        for engine in ("closures", "compiled"):
            t0 = time.perf_counter()
            try:
                game = recycle.load(path, engine=engine)
            except recycle.RecycleError:
                break
            if engine == "compiled":
                gen = game.generation_seconds
            best = 0.0
            for _ in range(args.repeat):
                n, seed, t0 = 0, 0, time.perf_counter()
                while time.perf_counter() - t0 < args.seconds:
                    try:
                        game.random_rollout(seed, max_steps=20_000)
                    except recycle.RecycleError:
                        pass
                    n, seed = n + 1, seed + 1
                best = max(best, n / (time.perf_counter() - t0))
            rates[engine] = best
        if len(rates) == 2:
            rows.append((path.stem, rates["closures"], rates["compiled"], gen))
    for name, slow, fast, gen in rows:
        print(f"{name:22} closures {slow:9,.0f}/s  compiled {fast:9,.0f}/s  x{fast / slow:5.2f}  "
              f"generate {gen * 1000:5.0f} ms")
    ups = sorted(fast / slow for _, slow, fast, _ in rows)
    slowest = min(rows, key=lambda r: r[2])
    print(f"median speed-up x{statistics.median(ups):.2f} (range x{ups[0]:.2f}..x{ups[-1]:.2f}) over {len(rows)} "
          f"games; slowest compiled: {slowest[0]} {slowest[2]:,.0f}/s; longest generation "
          f"{max(r[3] for r in rows) * 1000:.0f} ms")


def time_recycle(game, games: int, seed: int) -> float:
    t0 = time.perf_counter()
    recycle.simulate(game, games, seed=seed)
    return time.perf_counter() - t0


def bench_rollouts(args) -> None:
    game = recycle.load(args.game, engine=args.engine)
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
        game = recycle.load(path, engine=args.engine)
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
    ap.add_argument("what", nargs="?", default="rollouts",
                    choices=["rollouts", "lookahead", "clone", "hearts", "corpus", "all"])
    ap.add_argument("--engine", default="compiled", choices=["compiled", "closures", "plain"])
    ap.add_argument("--seconds", type=float, default=0.5, help="corpus: seconds of rollouts per game and engine")
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
    if args.what in ("hearts", "all"):
        bench_hearts(args)
    if args.what in ("corpus", "all"):
        bench_corpus(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
