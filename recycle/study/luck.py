"""Luck and skill (Guo, Khuu, Zhu, Rosenthal and Schoenberg 2019), suspense and surprise (Ely,
Frankel and Kamenica 2015), from the win-probability traces of recycle/study/equity.py.

Each traced game is a path of the spectator's belief (every seat's probability of winning,
``belief_path``): before the deal, at every decision point, after every choice, at the end.

* **Luck and skill**: a game's change of equity (a seat's final win share minus its belief
  before the deal) is the sum of the belief's steps; a step across chance (the deal, a draw, a
  shuffle, a card no one had seen coming to light) is luck, a step across a choice is skill —
  the seat's own choices, or the others' — and the rest is the estimates' own error (noise).
  Per seat: the mean of each part over the games, with 95% intervals. The game's *luck share*
  is the chance steps' share of all the belief's movement (the sum over seats of the absolute
  steps), over all the games, with a bootstrap interval over games.
* **Suspense** of a decision point: the expected squared distance (summed over seats) of the
  next decision point's belief from this one's (equity.py estimates it); **surprise** of a
  decision point: the (Euclidean) distance of its belief from the previous one's. Per decision
  number: the means with 95% bands; per game: their sums (the deal's suspense and the
  end's surprise included).

docs/analysis.md defines every number and says where ours differ from the papers.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from ..streams import Stream
from .intervals import Z95, mean_ci

BOOTSTRAP = 400  # resamples of the games for the luck share's interval


def belief_path(record: dict, prior: list[float]) -> dict:
    """The belief along one traced game: ``{"points": [belief at each decision point],
    "steps": [(kind, mover, change), ...]}``; ``kind`` is ``"chance"`` (chance drew, or cards
    no player had seen came to light, since the last belief), ``"decision"`` (the chosen
    option's estimate against the mean of the options', the same playouts: ``mover`` chose) or
    ``"noise"`` (two estimates with nothing in between: the estimates' own error); ``change``
    is every seat's change of belief. The last step reaches the outcome (``record["final"]``)."""
    n = len(prior)
    b = list(prior)
    points, steps = [], []

    def step(kind, mover, new):
        steps.append((kind, mover, [new[p] - b[p] for p in range(n)]))
        return list(new)

    for pt in record["points"]:
        mean = [sum(v[p] for v in pt["q"]) / len(pt["q"]) for p in range(n)]
        b = step("chance" if pt["chance_before"] else "noise", None, mean)
        points.append(list(b))
        b = step("decision", pt["mover"], pt["q"][pt["looked"].index(pt["chosen"])])
    step("chance" if record["chance_after"] or not record["points"] else "noise", None, record["final"])
    return {"points": points, "steps": steps}


@dataclass
class SeatEquity:
    """One seat's mean change of equity over the games, split (95% intervals)."""

    seat: int
    player: str
    prior: float  # its belief before the deal (win probability)
    change: float  # mean final win share minus the prior
    luck: float
    luck_ci: list
    own: float  # its own choices
    own_ci: list
    others: float  # the other seats' choices
    others_ci: list
    noise: float  # the estimates' own error (steps with nothing in between)


@dataclass
class LuckSkill:
    """Luck and skill of a game (module docstring): per seat and as the luck share."""

    games: int
    luck_share: float | None  # None when the belief never moved across chance or a choice
    luck_share_ci: list
    chance_steps: float  # per game, steps across chance that moved the belief
    noise_share: float  # the estimates' error's share of all the belief's movement
    seats: list = field(default_factory=list)  # SeatEquity
    per_game: list = field(default_factory=list)  # {"seed", "luck", "own", "others", "luck_share"}

    def to_dict(self) -> dict:
        return asdict(self)


def _ci(xs):
    if not xs:
        return 0.0, [0.0, 0.0]
    m, lo, hi = mean_ci(xs)
    return m, [lo, hi]


def luck_and_skill(records: list[dict], prior: list[float], players: list[str], seed: int = 0) -> LuckSkill:
    """Luck and skill over the finished ``records`` (equity.py) with the belief ``prior``."""
    done = [r for r in records if not r["limit"]]
    n = len(prior)
    rows, moved = [], []
    noise_sum, noise_size = [0.0] * n, 0.0
    for rec in done:
        luck, own, others = [0.0] * n, [0.0] * n, [0.0] * n
        L = S = 0.0
        chance = 0
        for kind, mover, d in belief_path(rec, prior)["steps"]:
            size = sum(abs(x) for x in d)
            if kind == "noise":
                noise_size += size
                for p in range(n):
                    noise_sum[p] += d[p]
            elif kind == "chance":
                L += size
                chance += size > 0
                for p in range(n):
                    luck[p] += d[p]
            else:
                S += size
                for p in range(n):
                    (own if p == mover else others)[p] += d[p]
        rows.append(
            {
                "seed": rec["seed"],
                "luck": luck,
                "own": own,
                "others": others,
                "luck_share": L / (L + S) if L + S else None,
            }
        )
        moved.append((L, S, chance))
    seats = []
    for p in range(n):
        lm, lci = _ci([r["luck"][p] for r in rows])
        om, oci = _ci([r["own"][p] for r in rows])
        xm, xci = _ci([r["others"][p] for r in rows])
        change = sum(rec["final"][p] for rec in done) / len(done) - prior[p] if done else 0.0
        noise = noise_sum[p] / len(done) if done else 0.0
        seats.append(
            SeatEquity(p, players[min(p, len(players) - 1)], prior[p], change, lm, lci, om, oci, xm, xci, noise)
        )
    share, ci = _share(moved, seed)
    total = sum(L + S for L, S, _ in moved) + noise_size
    return LuckSkill(
        games=len(done),
        luck_share=share,
        luck_share_ci=ci,
        chance_steps=sum(c for _, _, c in moved) / len(moved) if moved else 0.0,
        noise_share=noise_size / total if total else 0.0,
        seats=seats,
        per_game=rows,
    )


def _share(moved: list, seed: int) -> tuple[float | None, list]:
    """ΣL / Σ(L + S) over the games, with a percentile bootstrap interval (resampling games)."""
    total = sum(L + S for L, S, _ in moved)
    if not total:
        return None, [0.0, 1.0]
    share = sum(L for L, _, _ in moved) / total
    rng = Stream.keyed(seed ^ 0x1C4)
    k = len(moved)
    stats = []
    for _ in range(BOOTSTRAP):
        pick = [moved[int(rng.random() * k)] for _ in range(k)]
        t = sum(L + S for L, S, _ in pick)
        if t:
            stats.append(sum(L for L, _, _ in pick) / t)
    stats.sort()
    lo = stats[int(0.025 * (len(stats) - 1))] if stats else share
    hi = stats[int(0.975 * (len(stats) - 1))] if stats else share
    return share, [lo, hi]


@dataclass
class SuspenseSurprise:
    """Suspense and surprise (module docstring): per decision number and per game."""

    games: int
    deal_suspense: float  # the suspense before the deal (of the belief at the first decision point)
    suspense_per_game: float  # mean over games of the sum of the suspense of its periods
    suspense_per_game_ci: list
    surprise_per_game: float  # mean over games of the sum of its surprises (the end's included)
    surprise_per_game_ci: list
    end_surprise: float  # mean surprise of the outcome (the last period)
    by_decision: list = field(default_factory=list)  # {"decision", "games", "suspense", "suspense_low", ...}
    per_game: list = field(default_factory=list)  # {"seed", "suspense", "surprise", "points": [[k, susp, surp]]}

    def to_dict(self) -> dict:
        return asdict(self)


def _dist(a, b) -> float:
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))


def suspense_and_surprise(records: list[dict], prior: dict) -> SuspenseSurprise:
    """Suspense and surprise over the finished ``records`` (equity.py); ``prior`` is
    ``equity.prior_belief``'s ``{"belief", "suspense"}``."""
    done = [r for r in records if not r["limit"]]
    rows, by_k, ends = [], {}, []
    for rec in done:
        beliefs = belief_path(rec, prior["belief"])["points"]
        prev = prior["belief"]
        pts = []
        for pt, mu in zip(rec["points"], beliefs):
            s = _dist(mu, prev)
            pts.append([pt["decision"], pt["suspense"], s])
            by_k.setdefault(pt["decision"], ([], []))
            by_k[pt["decision"]][0].append(pt["suspense"])
            by_k[pt["decision"]][1].append(s)
            prev = mu
        end = _dist(rec["final"], prev)
        ends.append(end)
        rows.append(
            {
                "seed": rec["seed"],
                "suspense": prior["suspense"] + sum(p[1] for p in pts),
                "surprise": sum(p[2] for p in pts) + end,
                "points": pts,
            }
        )
    table = []
    for k in sorted(by_k):
        susp, surp = by_k[k]
        a, b = _band(susp), _band(surp)
        table.append(
            {
                "decision": k,
                "games": len(susp),
                "suspense": a[0],
                "suspense_low": a[1],
                "suspense_high": a[2],
                "surprise": b[0],
                "surprise_low": b[1],
                "surprise_high": b[2],
            }
        )
    sm, sci = _ci([r["suspense"] for r in rows])
    um, uci = _ci([r["surprise"] for r in rows])
    return SuspenseSurprise(
        games=len(done),
        deal_suspense=prior["suspense"],
        suspense_per_game=sm,
        suspense_per_game_ci=sci,
        surprise_per_game=um,
        surprise_per_game_ci=uci,
        end_surprise=sum(ends) / len(ends) if ends else 0.0,
        by_decision=table,
        per_game=rows,
    )


def _band(xs: list[float]) -> tuple[float, float, float]:
    n = len(xs)
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    half = Z95 * math.sqrt(var / n)
    return m, m - half, m + half
