"""Random rollouts and their statistics (the numbers ``recycle simulate`` prints)."""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field

from ..errors import StepLimitExceeded


@dataclass
class SimulationStats:
    """Aggregates over many rollouts. ``to_dict()`` gives the ``--json`` object."""

    game: str
    games: int
    seed: int
    players: list[str]
    seconds: float
    rollouts_per_second: float
    decisions: dict
    options_per_decision: float
    win_rate: list[float]
    tie_rate: float
    score_mean: list[float]
    winning_score_mean: float
    step_limit_hits: int
    finished: int
    decision_counts: list[int] = field(default_factory=list, repr=False)
    scores: list[list[int]] = field(default_factory=list, repr=False)
    winners: list[list[int]] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict:
        d = asdict(self)
        for k in ("decision_counts", "scores", "winners"):
            d.pop(k)
        return d

    def __str__(self) -> str:
        return "\n".join(self.table())

    def table(self) -> list[str]:
        """Human-readable lines."""
        n = max(self.finished, 1)
        lines = [
            f"{self.game}: {self.games} rollouts, seed {self.seed}, players {','.join(self.players)}",
            f"rollouts/second: {self.rollouts_per_second:,.0f}  ({self.seconds:.2f} s)",
            f"decisions per game: mean {self.decisions['mean']:.3f}, min {self.decisions['min']}, "
            f"max {self.decisions['max']}",
            f"options per decision: {self.options_per_decision:.3f}",
            f"ties for first: {self.tie_rate:.2%}",
            f"mean winning score: {self.winning_score_mean:.3f}",
            f"rollouts that hit the step limit: {self.step_limit_hits}",
            "seat  win rate        ±95%    mean score",
        ]
        for p, (w, sc) in enumerate(zip(self.win_rate, self.score_mean)):
            half = 1.96 * math.sqrt(max(w * (1 - w), 1e-12) / n)
            lines.append(f"P{p:<4} {w:8.2%}   ±{half:7.2%}   {sc:10.3f}")
        return lines


def _all_random(players) -> bool:
    from ..engine.runner import RandomPlayer

    return all(type(p) is RandomPlayer for p in players)


def _simulate_one(game, players, seed: int, max_steps: int, all_random: bool):
    """One rollout's record: ``(scores, decisions, options_total)``, or None at the step limit."""
    try:
        if all_random:
            r = game.random_rollout(seed, max_steps)
        else:
            r = game.play(players, seed=seed, max_steps=max_steps).state
    except StepLimitExceeded:
        return None
    return r.scores, r.decisions, r.options_total


def _simulate_batch(game, players, seeds, max_steps: int):
    all_random = _all_random(players)
    return [_simulate_one(game, players, sd, max_steps, all_random) for sd in seeds]


def simulate(game, n: int, seed: int, players=None, max_steps: int = 100_000, progress=None,
             keep_records: bool = True, workers: int = 1) -> SimulationStats:
    """Play ``n`` games with rollout seeds ``rollout_seed(seed, i)``; collect statistics.

    A rollout that hits the step limit is counted in ``step_limit_hits`` and left out of
    the other figures. ``progress(i)`` is called after each rollout when given (after
    each batch with ``workers`` > 1). ``workers`` processes share the rollouts; every
    figure except the timings is the same whatever their number.
    """
    from ..engine.game import rollout_seed
    from ..engine.runner import RandomPlayer

    if players is None:
        players = [RandomPlayer() for _ in range(game.nplayers)]
    t0 = time.perf_counter()
    if workers > 1 and n > 1:
        from .parallel import map_games

        size = max(1, min(200, n // (workers * 8)))
        chunks = [(players, [rollout_seed(seed, i) for i in range(a, min(n, a + size))], max_steps)
                  for a in range(0, n, size)]
        ends = [min(n, a + size) for a in range(0, n, size)]
        batches = map_games(game, _simulate_batch, chunks, workers,
                            progress=(lambda done: progress(ends[done - 1] - 1)) if progress else None)
        records = [rec for batch in batches for rec in batch]
    else:
        records = []
        all_random = _all_random(players)
        for i in range(n):
            records.append(_simulate_one(game, players, rollout_seed(seed, i), max_steps, all_random))
            if progress:
                progress(i)
    return _aggregate(game, n, seed, players, records, time.perf_counter() - t0, keep_records)


def _aggregate(game, n, seed, players, records, dt, keep_records) -> SimulationStats:
    np_ = game.nplayers
    wins = [0] * np_
    score_sum = [0] * np_
    ties = 0
    win_score = 0
    dec_total = opt_total = 0
    dec_min, dec_max = None, 0
    limit_hits = 0
    decision_counts, all_scores, all_winners = [], [], []
    higher_wins = game.scoring_max
    for rec in records:
        if rec is None:
            limit_hits += 1
            continue
        scores, d, options_total = rec
        best = max(scores) if higher_wins else min(scores)
        winners = [p for p, v in enumerate(scores) if v == best]
        for w in winners:
            wins[w] += 1
        if len(winners) > 1:
            ties += 1
        for p, v in enumerate(scores):
            score_sum[p] += v
        win_score += best
        dec_total += d
        opt_total += options_total
        dec_min = d if dec_min is None or d < dec_min else dec_min
        dec_max = max(dec_max, d)
        if keep_records:
            decision_counts.append(d)
            all_scores.append(scores)
            all_winners.append(winners)
    done = n - limit_hits
    m = max(done, 1)
    return SimulationStats(
        game=game.name, games=n, seed=seed, players=[getattr(p, "name", type(p).__name__) for p in players],
        seconds=dt, rollouts_per_second=n / dt if dt > 0 else float("inf"),
        decisions={"mean": dec_total / m, "min": dec_min or 0, "max": dec_max},
        options_per_decision=opt_total / dec_total if dec_total else 0.0,
        win_rate=[w / m for w in wins], tie_rate=ties / m, score_mean=[v / m for v in score_sum],
        winning_score_mean=win_score / m, step_limit_hits=limit_hits, finished=done,
        decision_counts=decision_counts, scores=all_scores, winners=all_winners)
