#!/usr/bin/env python3
"""Python-stepped play, timed: best of ``--repeat`` for each of three workloads, never native.

    PYTHONPATH=TREE python tools/bench_stepped.py [--repeat 3] [--only env,ismcts,rollouts]

Run from a checkout's root; it runs on checkouts from before issue 41 too (where the Python
engine was the generated-Python one), so that two trees can be compared in alternating runs
(docs/performance.md, "Python-stepped play without the generated-Python engine").

- env: 20 PettingZoo episodes of games/hearts.rcy, random legal actions (recycle/env);
- ismcts: one game of games/hearts.rcy, ismcts:40 against three random players, seed 3, the
  playouts on the Python engine;
- rollouts: 2000 random games of games/schwimmen.rcy, ``play(seed=s)`` on the Python engine.

It prints seconds (best, and every round), not rates; it does not check the load: run
``uptime`` before and after, as tools/bench.py would print it.
"""

import argparse
import random
import time

import recycle
from recycle.env import pettingzoo_env
from recycle.players import RandomPlayer, make_player


def env_episodes(n=20):
    """``n`` PettingZoo episodes of games/hearts.rcy with random legal actions; the steps taken."""
    env = pettingzoo_env("games/hearts.rcy", seed=0)
    rng = random.Random(0)
    steps = 0
    for ep in range(n):
        env.reset(seed=ep)
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            legal = [i for i, m in enumerate(mask) if m]
            env.step(rng.choice(legal))
            steps += 1
    return steps


def ismcts_game():
    """One game of games/hearts.rcy, ismcts:40 (playouts on the Python engine) against random."""
    from recycle.players import lookahead

    game = recycle.load("games/hearts.rcy")
    ai = make_player("ismcts:40")
    ai.playouts = "reference" if "reference" in lookahead.PLAYOUT_ENGINES else "python"  # never native
    players = [ai] + [RandomPlayer() for _ in range(game.nplayers - 1)]
    return game.play(players=players, seed=3).state


def rollouts(n=2000):
    """``n`` random games of games/schwimmen.rcy played on the Python engine."""
    game = recycle.load("games/schwimmen.rcy")
    return [game.play(seed=s) for s in range(n)]


def main():
    """Time each workload asked for, best of ``--repeat``."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="env,ismcts,rollouts")
    a = ap.parse_args()
    print("recycle from", recycle.__file__)
    for name in a.only.split(","):
        fn = {"env": env_episodes, "ismcts": ismcts_game, "rollouts": rollouts}[name]
        times = []
        for _ in range(a.repeat):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        print(f"{name}: best {min(times):.2f} s of {', '.join(f'{x:.2f}' for x in times)}", flush=True)


if __name__ == "__main__":
    main()
