"""CardStock's heuristics of a game (after Browne 2008, as CardStock reports them: Bell and
Goadrich 2016; Goadrich and Shaw 2021), from the win-probability traces of
recycle/study/equity.py.

At each decision point the analyst has every option's estimated win probability for the mover
(``Q(a)``); ``DELTA`` (a win probability of 0.05) is where a difference starts to count.

* **Meaningful moves**: the share of decision points whose best and worst options differ by
  ``DELTA`` or more (a choice that matters).
* **Killer move**: per game, the largest lift one option gives the mover over a random choice
  at any of its decision points (best ``Q`` minus the options' mean); the mean over games.
* **Clarity**: per decision point, the share of its options ``DELTA`` or more below the best
  (how plainly the best stands out); the mean over decision points.
* **Coolness**: the share of decision points (a seat's first excepted) at which even the
  mover's best option leaves it ``DELTA`` or more below where its own previous choice left it
  (forced to lose ground, whatever it does).
* **Stability**: 1 minus the mean change of the belief from one decision point to the next
  (and to the outcome), the change measured as total variation (half the sum over seats of
  the absolute differences, in [0, 1]).

Every value is in [0, 1]; docs/analysis.md gives the definitions and their sources.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, field

from .intervals import mean_ci
from .luck import belief_path

DELTA = 0.05
NAMES = ("meaningful_moves", "killer_move", "clarity", "coolness", "stability")


@dataclass
class Heuristics:
    """The heuristics' means over the games (``*_ci``: 95% intervals over games) and per game."""

    games: int
    decision_points: int  # over all the games
    meaningful_moves: float
    meaningful_moves_ci: list
    killer_move: float
    killer_move_ci: list
    clarity: float
    clarity_ci: list
    coolness: float
    coolness_ci: list
    stability: float
    stability_ci: list
    delta: float = DELTA
    per_game: list = field(default_factory=list)  # {"seed", name: value or None, ...}

    def to_dict(self) -> dict:
        return asdict(self)


def game_heuristics(record: dict, prior: list[float]) -> dict:
    """The five heuristics of one traced game (None where it has no decision point to measure)."""
    meaningful, clarity, cool = [], [], []
    killer = None
    last_own: dict = {}  # seat -> its win probability after its previous choice
    for pt in record["points"]:
        m = pt["mover"]
        qs = [v[m] for v in pt["q"]]
        best = max(qs)
        meaningful.append(best - min(qs) >= DELTA)
        clarity.append(sum(1 for x in qs if best - x >= DELTA) / len(qs))
        lift = best - sum(qs) / len(qs)
        killer = lift if killer is None else max(killer, lift)
        if m in last_own:
            cool.append(best <= last_own[m] - DELTA)
        last_own[m] = pt["q"][pt["looked"].index(pt["chosen"])][m]
    path = belief_path(record, prior)
    beliefs = [prior] + path["points"] + [record["final"]]
    changes = [sum(abs(a - b) for a, b in zip(x, y)) / 2 for x, y in itertools.pairwise(beliefs)]

    def share(xs):
        return sum(xs) / len(xs) if xs else None

    return {
        "seed": record["seed"],
        "meaningful_moves": share(meaningful),
        "killer_move": killer,
        "clarity": share(clarity),
        "coolness": share(cool),
        "stability": 1 - sum(changes) / len(changes) if changes else None,
    }


def heuristics(records: list[dict], prior: list[float]) -> Heuristics:
    """The heuristics over the finished ``records`` (each game's values, then their means)."""
    done = [r for r in records if not r["limit"]]
    rows = [game_heuristics(r, prior) for r in done]
    out = {}
    for name in NAMES:
        xs = [r[name] for r in rows if r[name] is not None]
        if xs:
            m, lo, hi = mean_ci(xs)
            out[name], out[f"{name}_ci"] = m, [max(0.0, lo), min(1.0, hi)]
        else:
            out[name], out[f"{name}_ci"] = 0.0, [0.0, 0.0]
    return Heuristics(games=len(done), decision_points=sum(len(r["points"]) for r in done), per_game=rows, **out)
