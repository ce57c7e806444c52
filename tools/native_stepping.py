#!/usr/bin/env python3
"""Native stepping against the reference interpreter's: microseconds a decision.

    PYTHONPATH=$PWD python tools/native_stepping.py [GAME ...] [--games 200] [--repeat 2]

For each game (default: games/schwimmen.rcy and games/hearts.rcy), ``--games`` games stepped
from Python with the same random choices, once as ``NativeState`` (recycle/native/stepping.py;
the gcc -O2 library once it is built, tcc's before) and once as the reference interpreter's
State: ``start``/``new_state``, then ``num_options`` and ``apply`` at every decision, the choice
drawn from a Stream. Best of ``--repeat``, alternating; the load is printed before and after (it
does not refuse a busy machine: say so with the figures). Never part of the tests.
"""

from __future__ import annotations

import argparse
import time

import recycle
from recycle.native.engine import native_game
from recycle.native.stepped import start
from recycle.streams import Stream

try:
    from timing import load_text
except ImportError:  # run from elsewhere than tools/
    from tools.timing import load_text


def stepped(make, seeds) -> tuple[int, float]:
    """Decisions stepped and seconds taken for one game per seed."""
    decisions = 0
    t = time.perf_counter()
    for sd in seeds:
        s = make(sd)
        rng = Stream(sd + 1)
        while not s.is_terminal():
            s.apply(int(rng.random() * s.num_options()))
            decisions += 1
    return decisions, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="*", default=["games/schwimmen.rcy", "games/hearts.rcy"])
    ap.add_argument("--games", dest="n", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()
    print("load:", load_text())
    for path in a.games:
        g = recycle.load(path)
        lib = native_game(g).module.games
        lib.ready.wait(120)
        best_n = best_p = float("inf")
        for _ in range(a.repeat):
            d, tn = stepped(lambda sd, g=g: start(g, sd), range(a.n))
            _, tp = stepped(g.new_state, range(a.n))
            best_n, best_p = min(best_n, tn / d * 1e6), min(best_p, tp / d * 1e6)
        print(
            f"{path} ({lib.tier}, {d} decisions): native {best_n:.1f} us a decision, reference {best_p:.1f} (x{best_p / best_n:.1f})"
        )
    print("load:", load_text())


if __name__ == "__main__":
    main()
