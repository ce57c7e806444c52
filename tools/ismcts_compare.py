#!/usr/bin/env python3
"""OpenSpiel's ISMCTS bot, playing a RECYCLE game through the adapter, beside recycle's own
``ismcts`` at the same budget (figures for docs/env.md; never a timed test).

    python tools/ismcts_compare.py [GAME] [--games 200] [--budget 100] [--seed 1]

Seat 0 is played by each searcher in turn, the other seats by random players, over the
same deals (deal k of the run is deal ``seed + k`` for both). A game counts as won when
seat 0 is among the winners (ties included), as the environments' default reward counts it.
OpenSpiel's bot: ``ISMCTSBot`` with a ``RandomRolloutEvaluator`` (one rollout), UCT c = 2,
``max_simulations`` = budget, the most visited action, inconsistent action sets allowed (a
re-dealt world may offer other options below the root); recycle's: ``ismcts:BUDGET``.
Needs the ``rl`` extra (``pip install -e '.[rl]'``).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def openspiel_games(path: str, games: int, budget: int, seed: int) -> tuple[int, float]:
    import numpy as np
    from open_spiel.python.algorithms import ismcts, mcts

    from recycle.env import openspiel_game

    game = openspiel_game(path, chance="seed")  # the figures of docs/env.md were taken with seeded chance
    rng = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = ismcts.ISMCTSBot(
        game, evaluator, uct_c=2.0, max_simulations=budget, random_state=rng, allow_inconsistent_action_sets=True
    )
    others = random.Random(seed + 1)
    won = 0
    t0 = time.perf_counter()
    for k in range(games):
        state = game.new_initial_state()
        for b in (seed + k).to_bytes(4, "big"):
            state.apply_action(b)
        while not state.is_terminal():
            if state.current_player() == 0 and len(state.legal_actions()) > 1:
                action = int(bot.step(state))
            else:
                legal = state.legal_actions()
                action = legal[int(others.random() * len(legal))]
            state.apply_action(action)
        won += state.returns()[0] > 0
    return won, time.perf_counter() - t0


def recycle_games(path: str, games: int, budget: int, seed: int) -> tuple[int, float]:
    import recycle

    game = recycle.load(path)
    won = 0
    t0 = time.perf_counter()
    for k in range(games):
        players = recycle.make_players(f"ismcts:{budget},random", game.nplayers)
        result = game.play(players, seed=seed + k)
        won += 0 in result.winners
    return won, time.perf_counter() - t0


def main(argv=None) -> None:
    from recycle.study.analysis import wilson

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game", nargs="?", default=str(ROOT / "games" / "schwimmen.rcy"))
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--budget", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    import recycle

    n = recycle.load(args.game).nplayers
    print(
        f"{Path(args.game).name}: seat 0 against {n - 1} random players, {args.games} deals, "
        f"budget {args.budget} simulations per decision"
    )
    for label, run in (
        ("OpenSpiel ISMCTSBot via recycle.env", openspiel_games),
        (f"recycle ismcts:{args.budget}", recycle_games),
    ):
        won, secs = run(args.game, args.games, args.budget, args.seed)
        lo, hi = wilson(won, args.games)
        print(
            f"  {label:38s} win rate {won / args.games:.3f} (95% CI {lo:.3f}-{hi:.3f}), "
            f"{secs / args.games:.2f} s per game",
            flush=True,
        )


if __name__ == "__main__":
    main()
