"""Write the options of every game in words, to compare two versions of recycle: each game of
games/, ../shared/corpus and the tests is played (seed 7, the options chosen by a seeded
generator, at most 120 decisions) and at each decision every option is written as its chooser
sees it (``describe``), as a spectator, and as a transcript renders it (``render``), with its
``key``. Run from the repository's root of each version and compare the files:

    python tools/options_snapshot.py /tmp/before.txt
    python tools/options_snapshot.py /tmp/after.txt
    cmp /tmp/before.txt /tmp/after.txt
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import recycle
from words_snapshot import write_all  # (tools/, beside this file: the same games, the same file)

DECISIONS = 120


def snapshot(path: Path) -> list[str]:
    """One game's options, decision by decision."""
    try:
        game = recycle.load(path, engine="reference")
        state = game.new_state(seed=7)
    except recycle.RecycleError as exc:
        return [f"error: {exc}"]
    rng, lines = random.Random(7), []
    for _ in range(DECISIONS):
        if state.is_terminal():
            break
        options = state.legal_options()
        for o in options:
            lines.append(f"P{o.player} {o.index}: {o.describe()} | {o.describe(-1)} | {o.render()} | {o.key}")
        state.apply(rng.randrange(len(options)))
    return lines


if __name__ == "__main__":
    write_all(sys.argv[1], snapshot)
