#!/usr/bin/env python3
"""OpenSpiel stepping: random episodes of games/hearts.rcy stepped through recycle's OpenSpiel
game, against OpenSpiel's own hearts stepped from Python (../shared/bench/openspiel_hearts.py).

    PYTHONPATH=$PWD python tools/bench_spiel.py [--games 40] [--repeat 5] [--engines rules,native,reference]

Sides: ``rules`` is ``openspiel_game(path)`` as users make it (the default chance as the rules
draw it, stepped by the game's native chance module when it builds), ``native`` and
``reference`` the seeded game (``chance="seed"``) on each engine.

Both sides run the same loop (the shared script's ``play``: a chance outcome drawn from
``chance_outcomes()``, a decision drawn from ``legal_actions()``, until ``is_terminal()``),
in alternating rounds, best of ``--repeat`` with the spread. games/hearts.rcy plays deals until
someone has 100 points, OpenSpiel's hearts one deal: the figures are deals a second (each
recycle episode's deals counted from its final state's ``DEAL`` storage). The native side waits
for the optimised library (gcc -O2, built in the background) before the clock starts. The load is printed
before and after: figures taken on a busy machine are not current ones (docs/performance.md).
Each side's rate by the process's CPU time is printed too: on a loaded machine it moves far less
than the wall clock (a system call may give the core away), though it is not what a user waits.
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
sys.path.insert(0, str(ROOT / "tools"))

from timing import Side, alternate, load_text, ratio_text  # noqa: E402

SCRIPT = ROOT.parent / "shared" / "bench" / "openspiel_hearts.py"


def shared_loop():
    """The shared benchmark's module (its ``play`` loop and ``pyspiel``), or None."""
    if not SCRIPT.exists():
        return None
    spec = importlib.util.spec_from_file_location("openspiel_hearts", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(mod)
    except ImportError:
        return None
    return mod


def recycle_round(game, mod, games: int, seed: int) -> tuple[float, float, float]:
    """Deals played, seconds taken and CPU seconds used by ``games`` random episodes of
    recycle's game, each through the shared loop (the deals read from the final state)."""
    rng = random.Random(seed)
    deals = 0
    seconds = cpu = 0.0
    for _ in range(games):
        t, c = time.perf_counter(), time.process_time()
        state = _played(game, rng)
        seconds += time.perf_counter() - t
        cpu += time.process_time() - c
        deals += _deals(state)
    return deals, seconds, cpu


def _played(game, rng):
    """The shared script's ``play`` loop, keeping the final state (to count its deals)."""
    state = game.new_initial_state()
    choices, choice = rng.choices, rng.choice
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(choices(actions, probs)[0])
        else:
            state.apply_action(choice(state.legal_actions()))
    state.returns()
    return state


def _deals(state) -> int:
    core = state._core
    ns = getattr(core, "ns", None)
    if ns is not None:  # a natively stepped chance-driven state: its final storages, not its twin's replay
        game = core.spec.game
        return int(ns._final[5][3][game.layout.storage_slot("sto", "game", "DEAL")])
    s = state.recycle_state()  # (read after the clock stopped)
    return s.sto("game", "DEAL") if s is not None else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=40, help="recycle episodes a round (about 12 deals each)")
    ap.add_argument("--spiel-games", type=int, default=500, help="OpenSpiel hearts deals a round")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--engines",
        default="rules,native,reference",
        help="recycle's sides: rules (the default chance, natively stepped when it builds), native, reference (seeded)",
    )
    a = ap.parse_args(argv)
    mod = shared_loop()
    if mod is None:
        print(f"OpenSpiel not available ({SCRIPT}; pip install open_spiel): nothing measured")
        return 1
    from recycle.env import openspiel_game

    print("command: python tools/bench_spiel.py " + " ".join(argv if argv is not None else sys.argv[1:]))
    print("start", time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), load_text())
    sides, cpu_sides = [], []
    for side_name in a.engines.split(","):
        # "rules": the default chance (native when the game's chance module builds); the others seeded
        chance, engine = ("rules", "auto") if side_name == "rules" else ("seed", side_name)
        game = openspiel_game(ROOT / "games" / "hearts.rcy", chance=chance, engine=engine)
        _played(game, random.Random(0))  # the native build (or its cache) before the clock
        if engine != "reference":  # the optimised library (gcc -O2, built in the background)
            from recycle.native import native_game
            from recycle.native.chance_module import chance_native_game

            ng = chance_native_game(game.spec.game) if chance == "rules" else native_game(game.spec.game)
            lib = ng.module.games
            lib.ready.wait(300)
            print(f"recycle {side_name}: the {lib.tier} library")
        engine = side_name

        by_cpu = Side(f"recycle {engine}", lambda: 0.0)

        def run(game=game, by_cpu=by_cpu) -> float:
            deals, seconds, cpu = recycle_round(game, mod, a.games, a.seed)
            by_cpu.rates.append(deals / cpu)
            return deals / seconds

        sides.append(Side(f"recycle {engine}", run))
        cpu_sides.append(by_cpu)
    spiel = mod.pyspiel.load_game("hearts")
    rng_seed = a.seed

    their_cpu = Side("OpenSpiel hearts", lambda: 0.0)

    def theirs() -> float:
        rng = random.Random(rng_seed)
        t, c = time.perf_counter(), time.process_time()
        for _ in range(a.spiel_games):
            mod.play(spiel, rng)
        their_cpu.rates.append(a.spiel_games / (time.process_time() - c))
        return a.spiel_games / (time.perf_counter() - t)

    other = Side("OpenSpiel hearts", theirs)
    alternate([*sides, other], a.repeat)
    print(f"{other.name:18} {other.best():8,.0f} deals/s ({other.spread()})")
    for side in sides:
        print(
            f"{side.name:18} {side.best():8,.0f} deals/s ({side.spread()})   "
            f"ratio to OpenSpiel {ratio_text(side, other)}  (games/hearts.rcy through recycle.env.openspiel_game)"
        )
    print("by CPU time:")
    print(f"{their_cpu.name:18} {their_cpu.best():8,.0f} deals/s ({their_cpu.spread()})")
    for side in cpu_sides:
        print(f"{side.name:18} {side.best():8,.0f} deals/s ({side.spread()})   ratio {ratio_text(side, their_cpu)}")
    print("end  ", time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), load_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
