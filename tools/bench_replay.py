#!/usr/bin/env python3
"""ISMCTS iterations of this checkout against an older one, on the same host, in one run.

    git worktree add /tmp/old e7d3c6d          # the replaying engine (before the stepping one)
    python tools/bench_replay.py /tmp/old .    # ms per iteration, older checkout first (--repeat K)
    git worktree add /tmp/pre27 0ca98a9        # before the native engine (issue 27)
    python tools/bench_replay.py /tmp/pre27 .  # this checkout's playouts native (--playouts python)

For each checkout (its own ``recycle`` package, imported in a fresh process) the corpus
Hearts4 and games/schwimmen.rcy are played by random players (seed 3); at the d-th decision
with two or more options an ISMCTS player of budget 300 chooses, best of 3, in
``--repeat`` fresh processes per checkout, alternating. Both engines'
player interface, ``choose(view, options, rng)``, is used, so commits from before the stepping
engine can be measured too (issue 11's "at least 5x more iterations" compares these).
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = [
    (ROOT.parent / "shared" / "corpus" / "cardstock" / "Hearts4.rcy", 4, (1, 20, 30)),
    (ROOT / "games" / "schwimmen.rcy", 5, (1, 5)),
]

PROBE = r"""
import random, sys, time
sys.path.insert(0, sys.argv[1])
import recycle
try:
    from recycle.ai import ISMCTSPlayer
except ImportError:
    from recycle.players.lookahead import ISMCTSPlayer
path, nplayers, d = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
import inspect
try:  # a checkout with one generator for every engine: the players' stream a game gives
    from recycle.streams import Stream
    make_rng = lambda: Stream(1)
except ImportError:
    make_rng = lambda: random.Random(1)
# a checkout with native playouts plays them natively (the --playouts python switch: not)
native = {"playouts": sys.argv[5]} if "playouts" in inspect.signature(ISMCTSPlayer.__init__).parameters else {}
game = recycle.load(path)
draw = random.Random(3).random
seen, found = [0], []


class Probe:
    name, needs_view = "probe", True

    def choose(self, view, options, rng):
        n = len(options)
        if n > 1:
            seen[0] += 1
            if seen[0] == d:
                best = float("inf")
                if native:  # the machine code made or loaded before the clock starts
                    ISMCTSPlayer(2, **native).choose(view, options, make_rng())
                for _ in range(3):
                    t0 = time.perf_counter()
                    ISMCTSPlayer(300, **native).choose(view, options, make_rng())
                    best = min(best, time.perf_counter() - t0)
                found.append(best / 300)
        return int(draw() * n) if n > 1 else 0


try:  # a checkout with privileged players hands a player of its own a view without the state
    from recycle.engine.runner import privileged
    privileged(Probe)
except ImportError:
    pass
game.play([Probe() for _ in range(nplayers)], seed=3)
print(found[0] * 1000 if found else "nan")
"""

ROLLOUTS = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import recycle
game = recycle.load(sys.argv[2])
for seed in range(200):
    game.random_rollout(seed)
best = float("inf")
for _ in range(3):
    t0 = time.perf_counter()
    for seed in range(1000):
        game.random_rollout(seed)
    best = min(best, time.perf_counter() - t0)
print(1000 / best)
"""


PLAYOUTS = ["native"]  # --playouts: who plays a checkout's ISMCTS playouts, where it can choose


def probe(root: str, path: Path, nplayers: int, d: int) -> str:
    """ms per ISMCTS iteration at decision ``d`` (d == 0: random rollouts per second)."""
    args = (
        [ROLLOUTS, str(Path(root).resolve()), str(path)]
        if d == 0
        else [PROBE, str(Path(root).resolve()), str(path), str(nplayers), str(d), PLAYOUTS[0]]
    )
    out = subprocess.run([sys.executable, "-c", *args], capture_output=True, text=True)
    return out.stdout.strip() or "error: " + out.stderr.strip().splitlines()[-1]


def _number(text: str) -> bool:
    """Is the probe's answer a figure (not an error, nor "nan" for a decision never reached)?"""
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("roots", nargs="*", help="checkouts to compare (default: this one)")
    ap.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="fresh processes per checkout, alternating; the best is shown (the host drifts)",
    )
    ap.add_argument(
        "--playouts",
        choices=["native", "reference", "auto"],
        default="native",
        help="who plays the playouts of a checkout whose look-ahead players can choose",
    )
    args = ap.parse_args(argv)
    PLAYOUTS[0] = args.playouts
    roots = args.roots or [str(ROOT)]
    for path, nplayers, decisions in CASES:
        if not path.exists():
            print(f"{path.name}: not found")
            continue
        for d in (0, *decisions):
            # d == 0: rollouts per second (higher is better); else ms per iteration (lower is)
            better = max if d == 0 else min
            cells = [None] * len(roots)
            for _ in range(args.repeat):
                for k, root in enumerate(roots):
                    got = probe(root, path, nplayers, d)
                    if cells[k] is None or not _number(got):
                        cells[k] = got
                    elif _number(cells[k]):
                        cells[k] = better(cells[k], got, key=float)
            values = [float(c) if _number(c) else None for c in cells]
            known = len(values) > 1 and None not in values
            if d == 0:
                ratio = f"   x{values[-1] / values[0]:.2f}" if known else ""
                print(
                    f"{path.stem:10} rollouts/s  : "
                    + "   ".join(c if v is None else f"{v:,.0f}" for c, v in zip(cells, values))
                    + ratio
                )
            else:
                ratio = f"   x{values[0] / values[-1]:.2f}" if known else ""
                print(
                    f"{path.stem:10} decision {d:3}: "
                    + "   ".join(c if v is None else f"{v:.3f} ms" for c, v in zip(cells, values))
                    + ratio
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
