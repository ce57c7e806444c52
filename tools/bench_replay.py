#!/usr/bin/env python3
"""ISMCTS iterations of this checkout against an older one, on the same host, in one run.

    git worktree add /tmp/old e7d3c6d          # the replaying engine (before the stepping one)
    python tools/bench_replay.py /tmp/old .    # ms per iteration, older checkout first (--repeat K)

For each checkout (its own ``recycle`` package, imported in a fresh process) the corpus
Hearts4 and games/schwimmen.rcy are played by random players (seed 3); at the d-th decision
with two or more options an ISMCTS player of budget 300 chooses, best of 3, in
``--repeat`` fresh processes per checkout, alternating. Both engines'
player interface, ``choose(view, options, rng)``, is used, so commits from before the stepping
engine can be measured too (issue 11's "at least 5x more iterations" compares these).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = [(ROOT.parent / "shared" / "corpus" / "cardstock" / "Hearts4.rcy", 4, (1, 20, 30)),
         (ROOT / "games" / "schwimmen.rcy", 5, (1, 5))]

PROBE = r'''
import random, sys, time
sys.path.insert(0, sys.argv[1])
import recycle
try:
    from recycle.ai import ISMCTSPlayer
except ImportError:
    from recycle.players.lookahead import ISMCTSPlayer
path, nplayers, d = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
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
                for _ in range(3):
                    t0 = time.perf_counter()
                    ISMCTSPlayer(300).choose(view, options, random.Random(1))
                    best = min(best, time.perf_counter() - t0)
                found.append(best / 300)
        return int(draw() * n) if n > 1 else 0


game.play([Probe() for _ in range(nplayers)], seed=3)
print(found[0] * 1000 if found else "nan")
'''


def probe(root: str, path: Path, nplayers: int, d: int) -> str:
    out = subprocess.run([sys.executable, "-c", PROBE, str(Path(root).resolve()), str(path),
                          str(nplayers), str(d)], capture_output=True, text=True)
    return out.stdout.strip() or "error: " + out.stderr.strip().splitlines()[-1]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("roots", nargs="*", help="checkouts to compare (default: this one)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="fresh processes per checkout, alternating; the best is shown (the host drifts)")
    args = ap.parse_args(argv)
    roots = args.roots or [str(ROOT)]
    for path, nplayers, decisions in CASES:
        if not path.exists():
            print(f"{path.name}: not found")
            continue
        for d in decisions:
            cells = [None] * len(roots)
            for _ in range(args.repeat):
                for k, root in enumerate(roots):
                    got = probe(root, path, nplayers, d)
                    if cells[k] is None or not got.replace(".", "", 1).isdigit():
                        cells[k] = got
                    elif cells[k].replace(".", "", 1).isdigit():
                        cells[k] = min(cells[k], got, key=float)
            ms = [float(c) if c.replace(".", "", 1).isdigit() else None for c in cells]
            ratio = f"   x{ms[0] / ms[-1]:.2f}" if len(ms) > 1 and None not in ms else ""
            print(f"{path.stem:10} decision {d:3}: " + "   ".join(
                f"{c if m is None else f'{m:.3f} ms'}" for c, m in zip(cells, ms)) + ratio)
    return 0


if __name__ == "__main__":
    sys.exit(main())
