"""``recycle duplicate``: each deal played once per rotation of the seats, so that the luck of
the deal cancels and the player kinds are compared on the same cards (docs/analysis.md)."""

from __future__ import annotations

import time

from ..engine.game import rollout_seed
from .analysis import _played
from .engine_use import GAMES_ENGINE, combined
from .intervals import mean_ci, wilson
from .parallel import map_games
from .stopping import Stop


def duplicate(
    game,
    kinds: list[str],
    deals: int = 100,
    seed: int = 0,
    max_steps: int = 100_000,
    workers: int = 1,
    progress=None,
    timeout: float | None = None,
    interruptible: bool = False,
) -> dict:
    """Play each deal once per rotation of the seats and compare the player kinds.

    Seat i gets ``kinds[i]`` and the last kind repeats (A, B, B, B, ...), as ``--players``
    means in every command; rotation r shifts that pattern by r seats, and
    every deal is played in all ``nplayers`` rotations with the same seed, so each kind
    sits in every seat equally often on every deal. ``timeout`` (seconds): no game is started
    after that time, and the comparison is over the deals whose rotations all finished
    (with ``interruptible``, so does Ctrl-C: ``interrupted``)."""

    np_ = game.nplayers
    k = len(kinds)
    if not 1 <= k <= np_:
        raise ValueError(f"give between 1 and {np_} player kinds for this game, not {k}")
    t0 = time.perf_counter()
    base = [kinds[min(s, k - 1)] for s in range(np_)]
    kinds = list(dict.fromkeys(kinds))
    k = len(kinds)
    items = []
    for d in range(deals):
        sd = rollout_seed(seed, d)
        for r in range(np_):
            items.append(([base[(s + r) % np_] for s in range(np_)], sd, max_steps))
    with Stop(timeout, interruptible, t0) as stop:
        results = map_games(game, _played, items, workers, progress, stop=stop)
    requested, deals = deals, len(results) // np_
    if not deals and stop.interrupted:
        raise KeyboardInterrupt
    if not deals:
        raise TimeoutError("the time limit ended before the first deal was played in every rotation")
    sign = 1 if game.scoring_max else -1
    diffs = {kd: [] for kd in kinds}
    wins = {kd: 0 for kd in kinds}
    seat_games = {kd: 0 for kd in kinds}
    score_sum = {kd: 0.0 for kd in kinds}
    pair = []
    dropped = 0
    deduction: dict = {}  # per deducing kind, its samples' counts over every game
    for d in range(deals):
        games = results[d * np_ : (d + 1) * np_]
        if any(g is None for g in games):
            dropped += 1
            continue
        tot = {kd: 0.0 for kd in kinds}
        cnt = {kd: 0 for kd in kinds}
        all_sum = 0.0
        for r, (scores, winners, deduced, *_engines) in enumerate(games):
            specs = items[d * np_ + r][0]
            for s, v in enumerate(scores):
                kd = specs[s]
                if deduced[s] is not None:
                    _add_up(deduction.setdefault(kd, {}), deduced[s])
                tot[kd] += v
                cnt[kd] += 1
                all_sum += v
                seat_games[kd] += 1
                score_sum[kd] += v
                wins[kd] += s in winners
        mean_all = all_sum / (np_ * np_)
        for kd in kinds:
            diffs[kd].append(tot[kd] / cnt[kd] - mean_all)
        if k >= 2:
            pair.append(tot[kinds[0]] / cnt[kinds[0]] - tot[kinds[1]] / cnt[kinds[1]])
    used = deals - dropped
    rows = []
    for kd in kinds:
        m, lo, hi = mean_ci(diffs[kd])
        rows.append(
            {
                "player": kd,
                "seat_games": seat_games[kd],
                "score_mean": score_sum[kd] / seat_games[kd] if seat_games[kd] else 0.0,
                "score_diff": m,
                "score_diff_ci": [lo, hi],
                "advantage": sign * m,
                "win_rate": wins[kd] / seat_games[kd] if seat_games[kd] else 0.0,
                "win_rate_ci": list(wilson(wins[kd], seat_games[kd])),
            }
        )
        if kd in deduction:
            rows[-1]["deduction"] = deduction[kd]
    out = {
        "game": game.name,
        "deals": deals,
        "deals_used": used,
        "deals_dropped_step_limit": dropped,
        "deals_requested": requested,
        "stopped_by_time_limit": deals < requested and not stop.interrupted,
        "interrupted": stop.interrupted,
        "seed": seed,
        "rotations": np_,
        "games_played": deals * np_,
        "scoring": "max" if sign > 0 else "min",
        "players": rows,
        "seconds": time.perf_counter() - t0,
        "engine": combined(g[4] for g in results if g is not None) or GAMES_ENGINE,
        "playouts_engine": combined(g[3] for g in results if g is not None),
    }
    if k >= 2:
        m, lo, hi = mean_ci(pair)
        out["head_to_head"] = {
            "a": kinds[0],
            "b": kinds[1],
            "score_diff": m,
            "score_diff_ci": [lo, hi],
            "advantage_of_a": sign * m,
        }
    return out


def _add_up(total: dict, counts: dict) -> None:
    for key, v in counts.items():
        total[key] = total.get(key, 0) + v
