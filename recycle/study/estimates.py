"""Decision spread and lead history: what the look-ahead players themselves think of a game.

These are two of the four figures of a game's page (``recycle page``: recycle/study/page.py),
as the Valet testbed's pages draw them (docs/analysis.md, "A game's page", defines both and says
where ours differ from Valet's). Games are played by look-ahead players (ISMCTS by default) that
keep their own estimates (``track_scores``: recycle/players/lookahead.py): at every decision
with two or more options, the mover's mean final score of every player over the simulations
that began with each option.

* **Decision spread** of a decision: the mover's best estimated option minus its worst (its own
  final score), divided by the largest spread of that game: in [0, 1], each game's largest is 1
  (a game whose spreads are all 0 stays at 0).
* **Lead history**: at each decision, the mover's estimate of every player's final score for the
  option it chose, turned into normalised ranks (1 first, 0 last, ties sharing the mean of their
  places); averaged over the games, grouped by each player's final rank.

``estimate_game`` plays one game (a job for ``parallel.map_games``: its record depends on its
arguments alone); ``decision_spread`` and ``lead_history`` summarise the records.
"""

from __future__ import annotations

import math

from ..errors import StepLimitExceeded
from .intervals import Z95


def estimate_game(game, specs: list[str], seed: int, max_steps: int = 100_000, engine: str = "auto") -> dict:
    """Play one game with ``specs`` and keep the movers' estimates at every decision with two or
    more options: ``{"seed", "limit", "scores", "ranks", "choices", "points", "engine"}``
    (``engine``: what stepped the game, natively wherever the game builds: ``engine="auto"``,
    recycle/native/choose.py; the same game either way); each point is
    ``{"decision", "mover", "options", "chosen", "values", "estimate"}`` (``decision``: the
    1-based number of the choice in the game; ``values``: the mover's own estimated final score
    per option, None for an option it never simulated; ``estimate``: every player's estimated
    final score for the chosen option). A mover that keeps no estimates (random) adds no point.
    ``{"seed", "limit": True}`` at the step limit."""
    from ..players import make_player

    players = [make_player(s) for s in specs]
    for p in players:
        if hasattr(p, "track_scores"):
            p.track_scores = True
    points: list = []
    count = [0]

    def on_decision(state, player, opts, index):
        if len(opts) < 2:
            return
        count[0] += 1
        est = getattr(players[player], "last_scores", None)
        if not est or est[index] is None:
            return
        values = [None if e is None else e[player] for e in est]
        points.append(
            {
                "decision": count[0],
                "mover": player,
                "options": len(opts),
                "chosen": index,
                "values": values,
                "estimate": list(est[index]),
            }
        )

    try:
        r = game.play(players, seed=seed, max_steps=max_steps, on_decision=on_decision, engine=engine)
    except StepLimitExceeded:
        return {"seed": seed, "limit": True}
    return {
        "seed": seed,
        "limit": False,
        "scores": list(r.scores),
        "ranks": list(r.ranks),
        "choices": count[0],
        "points": points,
        "engine": r.engine,
    }


def normalised_ranks(values, higher: bool = True) -> list[float]:
    """Each value's place among ``values`` as a number in [0, 1]: 1 for the best, 0 for the
    worst (``higher``: larger is better), players tied sharing the mean of their places; 1.0
    for a lone player."""
    n = len(values)
    if n < 2:
        return [1.0] * n
    out = []
    for v in values:
        better = sum(1 for w in values if (w > v if higher else w < v))
        tied = sum(1 for w in values if w == v)  # itself included
        place = better + (tied - 1) / 2  # 0 = first
        out.append(1.0 - place / (n - 1))
    return out


def game_spreads(record: dict) -> list[list]:
    """``[[decision, spread], ...]`` of one game: each decision's best minus worst estimated
    option (options never simulated left out; a decision with fewer than two simulated options
    has spread 0), divided by the game's largest spread (all 0 when that is 0)."""
    raw = []
    for pt in record["points"]:
        known = [v for v in pt["values"] if v is not None]
        raw.append((pt["decision"], max(known) - min(known) if len(known) > 1 else 0.0))
    top = max((s for _, s in raw), default=0.0)
    return [[k, s / top if top > 0 else 0.0] for k, s in raw]


def _band(xs: list[float], low: float | None = None, high: float | None = None) -> dict:
    """Mean of ``xs`` and its 95% confidence limits (normal approximation), clipped."""
    n = len(xs)
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    half = Z95 * math.sqrt(var / n)
    lo, hi = m - half, m + half
    if low is not None:
        lo = max(low, lo)
    if high is not None:
        hi = min(high, hi)
    return {"games": n, "mean": m, "low": lo, "high": hi}


def decision_spread(records: list[dict]) -> dict:
    """The decision-spread figure's data: each game's ``[decision, spread]`` points
    (``per_game``) and, per decision number, the mean spread with its 95% band
    (``by_decision``: ``{"decision", "games", "mean", "low", "high"}``)."""
    done = [r for r in records if not r["limit"]]
    per_game = [game_spreads(r) for r in done]
    by_k: dict = {}
    for pts in per_game:
        for k, s in pts:
            by_k.setdefault(k, []).append(s)
    rows = [{"decision": k, **_band(by_k[k], 0.0, 1.0)} for k in sorted(by_k)]
    return {"games": len(done), "per_game": per_game, "by_decision": rows}


def lead_history(records: list[dict], nplayers: int, higher: bool = True) -> dict:
    """The lead-history figure's data: for each final rank r (1 = first; players tied share
    the best rank), per decision number, the mean normalised rank estimate (1 first, 0 last)
    of the players who finished r-th, with its 95% band: ``{"games", "ranks": {r: [{"decision",
    "games", "mean", "low", "high"}, ...]}}``. ``games`` counts player-games (a rank shared by
    two players of one game counts both)."""
    done = [r for r in records if not r["limit"]]
    by_rank: dict = {}
    for rec in done:
        for pt in rec["points"]:
            est = normalised_ranks(pt["estimate"], higher)
            for p in range(nplayers):
                by_rank.setdefault(rec["ranks"][p], {}).setdefault(pt["decision"], []).append(est[p])
    ranks = {
        str(r): [{"decision": k, **_band(xs, 0.0, 1.0)} for k, xs in sorted(by_k.items())]
        for r, by_k in sorted(by_rank.items())
    }
    return {"games": len(done), "ranks": ranks}
