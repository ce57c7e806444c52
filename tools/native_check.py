#!/usr/bin/env python3
"""Every game of some folders on the native engine: written or not (and why), its first
build, and whether it plays the same games as the Python engine.

    python tools/native_check.py games ../shared/corpus/cardstock --seeds 20
    python tools/native_check.py games --json
    python tools/native_check.py games ../shared/corpus/cardstock --search 4   # look-ahead searches too
    python tools/native_check.py games ../shared/corpus/cardstock --step      # stepped from outside too

For each game: the form the native writer does not write (the game stays on Python), or the
seconds of its first native call (a build, or a load from the cache) and how many of ``--seeds``
rollouts agree with the Python engine on scores, steps, decisions, options and every card's
final place (a rollout native code stopped is played again by Python, so it agrees by
construction and is counted apart). The differential test (tests/engine/test_native.py) runs a
few games; this runs them all, which takes a few minutes (a first build is a fraction of a second a game).

``--search K``: at K decisions of one game played at random (the 1st, 4th, 7th ... of those
with two or more options), an ISMCTS decision (budget 60) searched in machine code and in Python
(recycle/native/runtime_search.py): the same choice, visits, values and player's stream after,
or the search declined natively (and why; Python searches then, so it agrees by construction);
and over every decision of three random games, whether native option keys are equal exactly
when Python's are (``playouts.key_agreement``).

``--step``: the ``--seeds`` games stepped from outside at random through a ``NativeState`` and
the reference State (``stepping_check.step_agreement``: options' count, player, steps, card
places at every decision, clones played on, scores), then again on the search module with the
options' keys compared (where it is made: a simultaneous stage is not).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def check(path: Path, seeds: int) -> dict:
    """One game's row (see the module docstring)."""
    import recycle
    from recycle.engine.game import rollout_seed
    from recycle.errors import RecycleError
    from recycle.native import NativeUnsupported, native_game

    row = {"game": path.name}
    try:
        g = recycle.load(path)
    except RecycleError as exc:
        row["native"] = f"does not load: {exc.message if hasattr(exc, 'message') else exc}"[:120]
        return row
    t0 = time.perf_counter()
    try:
        ng = native_game(g)
        ss = [rollout_seed(1, i) for i in range(seeds)]
        scores, counts, places = ng.rollouts(ss, 100_000, g.max_work // 4, places=True)
    except NativeUnsupported as exc:
        where = exc.where()
        row["native"] = f"not written: {exc.what}" + (f" ({where})" if where else "")
        return row
    row["first_call_s"] = round(time.perf_counter() - t0, 1)
    agree = stopped = 0
    differ = []
    for i, sd in enumerate(ss):
        if counts[i, 0]:
            stopped += 1
            continue
        try:
            s = g.random_rollout(sd)
        except RecycleError as exc:
            differ.append(f"seed {sd}: Python raised {type(exc).__name__}")
            continue
        same = (
            list(s.scores) == [int(v) for v in scores[i]]
            and s.steps == counts[i, 1]
            and s.decisions == counts[i, 2]
            and s.options_total == counts[i, 3]
            and [int(c) for c in s.card_loc] == [int(c) for c in places[i]]
        )
        if same:
            agree += 1
        else:
            differ.append(f"seed {sd}")
    row.update(native="written", agree=agree, stopped=stopped, differ=differ[:5])
    t0 = time.perf_counter()
    ng.rollouts([rollout_seed(2, i) for i in range(2000)], 100_000, g.max_work // 4)
    row["games_per_s"] = round(2000 / (time.perf_counter() - t0))
    return row


def check_search(path: Path, decisions: int, budget: int = 60) -> dict:
    """Native and Python ISMCTS searches at ``decisions`` decisions of one random game of
    ``path``: how many agree, differ or were declined natively (by the runtime's status)."""
    import random

    import recycle
    from recycle.engine.runner import privileged
    from recycle.native import native_playouts
    from recycle.native.playouts import key_agreement
    from recycle.native.runtime import STATUS_WORDS
    from recycle.players.lookahead import ISMCTSPlayer
    from recycle.streams import Stream

    g = recycle.load(path)
    row = {"agree": 0, "differ": [], "declined": {}}
    draw = random.Random(1).random
    seen = [0]
    wanted = {1 + 3 * i for i in range(decisions)}  # the 1st, 4th, 7th ... decision

    @privileged
    class Probe:
        name, needs_view = "probe", True

        def choose(self, view, options, rng):
            n = len(options)
            if n > 1:
                seen[0] += 1
                if seen[0] in wanted:
                    got = []
                    for mode in ("native", "reference"):
                        player = ISMCTSPlayer(budget, playouts=mode)
                        stream = Stream(seen[0])
                        choice = player.choose(view, options, stream)
                        got.append((choice, player.last_visits, player.last_values, stream.count))
                        native = player._native[1]
                        if native is not None:
                            for status, times in native.why.items():
                                word = STATUS_WORDS.get(status, str(status))
                                row["declined"][word] = row["declined"].get(word, 0) + times
                    if got[0] == got[1]:
                        row["agree"] += 1
                    else:
                        row["differ"].append(seen[0])
            return int(draw() * n) if n > 1 else 0

    try:
        g.play([Probe() for _ in range(g.nplayers)], seed=1)
        row["keys"] = key_agreement(native_playouts(g, "native", search=True), range(1, 4), upto=60)
    except recycle.errors.RecycleError as exc:
        row["error"] = str(exc)[:100]
    return row


def check_step(path: Path, seeds: int) -> dict:
    """``--step``: the game stepped from outside both ways (plain module, then keyed)."""
    import recycle
    from recycle.native.registry import NativeUnsupported
    from recycle.native.stepping_check import step_agreement

    game = recycle.load(path)
    plain = step_agreement(game, range(seeds))
    out = {"decisions": plain.decisions, "keyed": 0, "stopped": plain.stopped, "differences": plain.differences}
    try:
        keyed = step_agreement(game, range(seeds), keys=True)
    except NativeUnsupported:
        return out
    out["keyed"] = keyed.keyed
    out["differences"] += keyed.differences
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--json", action="store_true", help="one JSON object per game, a line each")
    ap.add_argument(
        "--search",
        type=int,
        default=0,
        metavar="K",
        help="compare native and Python ISMCTS searches at K decisions of each native game",
    )
    ap.add_argument("--step", action="store_true", help="step each native game from outside against Python")
    args = ap.parse_args()
    games = sorted(p for f in args.folders for p in (f.glob("*.rcy") if f.is_dir() else [f]))
    rows, bad = [], 0
    for p in games:
        row = check(p, args.seeds)
        if args.search and row["native"] == "written":
            row["search"] = check_search(p, args.search)
            keys = row["search"].get("keys", {})
            bad += bool(row["search"]["differ"] or keys.get("split") or keys.get("merged"))
        if args.step and row["native"] == "written":
            row["step"] = check_step(p, args.seeds)
            bad += bool(row["step"]["differences"])
        rows.append(row)
        bad += bool(row.get("differ"))
        if args.json:
            print(json.dumps(row), flush=True)
        elif row["native"] == "written":
            print(
                f"{row['game']:28} native  {row['first_call_s']:5.1f} s  {row['agree']}/{args.seeds} agree"
                + (f", {row['stopped']} replayed by Python" if row["stopped"] else "")
                + f"  {row['games_per_s']:>9,} games/s"
                + (f"  DIFFER: {row['differ']}" if row["differ"] else ""),
                flush=True,
            )
            if "step" in row:
                st = row["step"]
                print(
                    f"{'':28} stepped {st['decisions']} decisions, keys at {st['keyed']}"
                    + (f", stopped natively: seeds {st['stopped']}" if st["stopped"] else "")
                    + (f"  DIFFER: {st['differences'][:3]}" if st["differences"] else ""),
                    flush=True,
                )
            if "search" in row:
                sr = row["search"]
                keys = sr.get("keys", {})
                print(
                    f"{'':28} search  {sr['agree']} agree"
                    + (f", declined: {sr['declined']}" if sr["declined"] else "")
                    + (
                        f"; keys of {keys['keys']} options, {keys['declined']} decisions not keyed"
                        + (
                            f", SPLIT {keys['split']} MERGED {keys['merged']}"
                            if keys["split"] or keys["merged"]
                            else ""
                        )
                        if keys
                        else ""
                    )
                    + (f"  DIFFER at decisions {sr['differ']}" if sr["differ"] else "")
                    + (f"  ({sr['error']})" if "error" in sr else ""),
                    flush=True,
                )
        else:
            print(f"{row['game']:28} python  {row['native']}", flush=True)
    if not args.json:
        written = sum(r["native"] == "written" for r in rows)
        print(f"{written} of {len(rows)} games native; {bad} with a difference")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
