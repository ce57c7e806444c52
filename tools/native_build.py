#!/usr/bin/env python3
"""How long a game's native library takes to build and to load, and how fast it plays.

    python tools/native_build.py [GAME ...] [--corpus N] [--repeat 2] [--games 20000] [--busy]

For each game, in fresh processes with an empty cache folder of their own (recycle and NumPy
imported first, the game loaded: not counted): the *cold build* with tcc
(``native_game(game)``: the module written, translated to C, built by tcc and loaded; what a
first native command waits for), the same with ``gcc -O2`` alone (what the background
build takes), and the *cached load* (a second process with the first one's cache folder:
the library loaded, nothing built). Then random rollouts per second under each library (best
of 3 rounds of ``--games``). Default games: every game of games/ and every ``--corpus``-th game
of ../shared/corpus/cardstock (all of them with ``--corpus 1``). Best of ``--repeat`` per game;
the median and the slowest game are printed at the end. The command, the date and the load
(as ``uptime`` prints it) are printed first and the load again at the end; above a 1-minute
load of 0.5 it refuses to run unless ``--busy`` is given (tools/timing.py). Never part of the
tests.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from timing import QUIET_LOAD, busy_banner, load_average, load_text  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "cardstock"

CHILD = r"""
import json, sys, time
import ctypes, numpy  # imported by any run that plays natively: not counted in a build or load
import recycle
from recycle.native import native_game
from recycle.native import engine, kept, module, playouts, runtime_search
from recycle.native.c import build, cmodule, library
game = recycle.load(sys.argv[1])
start = time.perf_counter()
native = native_game(game)
took = time.perf_counter() - start
lib = native.module.games
if sys.argv[2] == "gcc":  # the optimised build alone, timed apart, then played
    from recycle.native.c.library import ModuleLibrary
    fast, best = build.compilers()
    start = time.perf_counter()
    lib = ModuleLibrary(native.source, lambda: engine.module_namespace(native.source), tiers=(best, None))
    took = time.perf_counter() - start
    native.module.games = lib
rate = 0.0
n = int(sys.argv[3])
if n:
    for _ in range(3):
        t = time.perf_counter()
        native.rollouts(range(n), 100_000, game.max_work)
        rate = max(rate, n / (time.perf_counter() - t))
print(json.dumps({"seconds": took, "tier": lib.tier, "rate": rate}))
"""


def child(path: Path, cache: str, way: str, games: int) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RECYCLE_")}
    env.update(PYTHONPATH=str(ROOT), RECYCLE_CACHE_DIR=cache, RECYCLE_NATIVE_CC="tcc" if way == "tcc" else "tcc,gcc")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), way, str(games)], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"{path.name}: {done.stderr.strip()[-600:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(path: Path, repeat: int, games: int) -> dict:
    """Best of ``repeat``: tcc's cold build, gcc -O2's, the cached load, and the rates."""
    best: dict = {}
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="recycle-bench-") as tmp:
            cache = os.path.join(tmp, "cache")
            os.mkdir(cache, 0o700)
            cold = child(path, cache, "tcc", games)
            load = child(path, cache, "tcc", 0)
        with tempfile.TemporaryDirectory(prefix="recycle-bench-") as tmp:
            cache = os.path.join(tmp, "cache")
            os.mkdir(cache, 0o700)
            gcc = child(path, cache, "gcc", games)
        for key, value in (("tcc", cold["seconds"]), ("load", load["seconds"]), ("gcc", gcc["seconds"])):
            best[key] = min(best.get(key, value), value)
        best["tcc_rate"] = max(best.get("tcc_rate", 0.0), cold["rate"])
        best["gcc_rate"] = max(best.get("gcc_rate", 0.0), gcc["rate"])
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games_", nargs="*", metavar="GAME", help="game files (default: games/ and a corpus sample)")
    ap.add_argument("--corpus", type=int, default=4, help="every N-th corpus game (1: all of them)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--games", type=int, default=20_000, help="rollouts a round (0: no rates)")
    ap.add_argument("--busy", action="store_true", help="run on a busy machine (the figures are not current)")
    args = ap.parse_args(argv)
    paths = [Path(p) for p in args.games_]
    if not paths:
        paths = sorted((ROOT / "games").glob("*.rcy"))
        if CORPUS.is_dir():
            paths += sorted(CORPUS.glob("*.rcy"))[:: max(args.corpus, 1)]
    print(f"$ python tools/native_build.py {' '.join(sys.argv[1:] if argv is None else argv)}")
    print(f"{datetime.datetime.now().isoformat(timespec='seconds')}  load: {load_text()}")
    one = load_average()[0]
    if one > QUIET_LOAD:
        if not args.busy:
            print(f"the 1-minute load is {one:.2f} (> {QUIET_LOAD}): not a quiet machine; --busy to run anyway")
            return 2
        print(busy_banner(one, "start"))
    rows = []
    print(
        f"{'game':34s} {'tcc build':>10s} {'cached load':>12s} {'gcc -O2 build':>14s} {'tcc games/s':>12s} {'gcc games/s':>12s}"
    )
    for path in paths:
        m = measure(path, args.repeat, args.games)
        rows.append((path, m))
        print(
            f"{path.stem[:34]:34s} {m['tcc']:9.3f}s {1000 * m['load']:10.1f}ms {m['gcc']:13.2f}s "
            f"{m['tcc_rate']:12,.0f} {m['gcc_rate']:12,.0f}"
        )
    for key, label in (("tcc", "tcc cold build"), ("load", "cached load"), ("gcc", "gcc -O2 build")):
        values = [m[key] for _, m in rows]
        worst = max(rows, key=lambda r: r[1][key])
        print(
            f"{label:15s}: median {statistics.median(values):.3f} s, slowest {max(values):.3f} s "
            f"({worst[0].stem}), {len(values)} games"
        )
    print(f"load at the end: {load_text()}")
    if load_average()[0] > QUIET_LOAD:
        print(busy_banner(load_average()[0], "end"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
