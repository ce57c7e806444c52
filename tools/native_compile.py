#!/usr/bin/env python3
"""A game's first native compile, with recycle's changes to Numba's compile and without.

    python tools/native_compile.py [GAME ...] [--repeat 2] [--games 5000] [--as-is] [--search]

Each measurement is a fresh process with no cache (``RECYCLE_NO_CACHE=1``): the game is loaded,
then its native module written, compiled and warmed (``native_game(game).warm()``, what the
first native command of a session waits for; Numba's import is in it). The same process then
plays ``--games`` random rollouts (best of 3), so that a compile made shorter at the cost of
slower machine code shows. ``--as-is`` also measures with Numba left as it is
(``RECYCLE_NUMBA_AS_IS=1``, recycle/native/compiling.py), alternating with the changed compile.
``--search``: the game's search module (ISMCTS's, recycle/native/runtime_search.py) instead.
Default games: the corpus's slowest to compile (Coup4), its largest file (Cribbage2), Hearts4
and games/schwimmen.rcy. Best of ``--repeat`` per game and way (this machine's timings swing
by 10-20% from run to run). Needs Numba; never part of the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "cardstock"
DEFAULT = [CORPUS / "Coup4.rcy", CORPUS / "Cribbage2.rcy", CORPUS / "Hearts4.rcy", ROOT / "games" / "schwimmen.rcy"]

CHILD = r"""
import json, sys, time
import recycle
from recycle.native import native_game
from recycle.native import compiling
game = recycle.load(sys.argv[1])
start = time.perf_counter()
native = native_game(game, search=sys.argv[3] == "search")
native.warm()
compile_s = time.perf_counter() - start
n = int(sys.argv[2])
best = 0.0
for _ in range(3):
    t = time.perf_counter()
    native.rollouts(range(n), 100_000, game.max_work)
    best = max(best, n / (time.perf_counter() - t))
print(json.dumps({"compile": compile_s, "rate": best, "changes": list(compiling.installed())}))
"""


def measure(path: Path, games: int, as_is: bool, search: bool = False) -> dict:
    """One fresh process's first compile of ``path`` and its rollouts per second."""
    env = dict(os.environ, RECYCLE_NO_CACHE="1", PYTHONPATH=str(ROOT))
    env.pop("RECYCLE_NUMBA_AS_IS", None)
    if as_is:
        env["RECYCLE_NUMBA_AS_IS"] = "1"
    way = "search" if search else "plain"
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), str(games), way], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"{path.name}: {done.stderr.strip()[-400:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "games_", nargs="*", metavar="GAME", help="game files (default: Coup4, Cribbage2, Hearts4, Schwimmen)"
    )
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--games", type=int, default=5000, help="rollouts per timing of the machine code")
    ap.add_argument("--as-is", action="store_true", help="also compile with Numba as it is, alternating")
    ap.add_argument("--search", action="store_true", help="the search module (ISMCTS's) instead of the plain one")
    ap.add_argument("--json", action="store_true", help="one JSON object per game instead of the table")
    args = ap.parse_args(argv)
    paths = [Path(p) for p in args.games_] or [p for p in DEFAULT if p.is_file()]
    ways = [False, True] if args.as_is else [False]
    for path in paths:
        best: dict[bool, dict] = {}
        for _ in range(args.repeat):
            for as_is in ways:
                m = measure(path, args.games, as_is, args.search)
                old = best.get(as_is)
                best[as_is] = (
                    m
                    if old is None
                    else {
                        "compile": min(old["compile"], m["compile"]),
                        "rate": max(old["rate"], m["rate"]),
                        "changes": m["changes"],
                    }
                )
        if args.json:
            print(json.dumps({"game": path.name, **{("as_is" if k else "changed"): v for k, v in best.items()}}))
            continue
        line = f"{path.stem:12} compile {best[False]['compile']:5.1f} s  {best[False]['rate']:9,.0f} games/s"
        if True in best:
            line += (
                f"   Numba as is: {best[True]['compile']:5.1f} s  {best[True]['rate']:9,.0f} games/s"
                f"   x{best[True]['compile'] / best[False]['compile']:.2f} shorter"
            )
        if not best[False]["changes"]:
            line += "   (no change installed: Numba version not measured)"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
