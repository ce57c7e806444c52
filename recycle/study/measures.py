"""Luck and skill, suspense and surprise and CardStock's heuristics of a game, in one run:
``measure`` plays the traced games (recycle/study/equity.py) and summarises them
(recycle/study/luck.py, recycle/study/heuristics.py). ``recycle analyze --luck`` and
``recycle page`` call it; docs/analysis.md defines every number.

Results depend on the seed only, not on the number of workers; a run stopped by its time
budget or Ctrl-C keeps the games it finished (``stopped``).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass

from ..engine.game import rollout_seed
from .equity import DEFAULT_ROLLOUTS, equity_game, prior_belief
from .heuristics import Heuristics, heuristics
from .luck import LuckSkill, SuspenseSurprise, luck_and_skill, suspense_and_surprise
from .parallel import map_games
from .stopping import Stop

DEFAULT_GAMES = 20
DEFAULT_PLAYERS = "ismcts:50"


@dataclass
class Measures:
    """The three summaries of ``measure`` and what they were measured on."""

    game: str
    seed: int
    players: list
    rollouts: int
    games: int  # asked
    finished: int  # played to the end (those at the step limit left out)
    prior: list  # every seat's win probability before the deal
    luck: LuckSkill
    suspense: SuspenseSurprise
    heuristics: Heuristics
    stopped: str | None  # None, "seconds" or "interrupted"
    seconds: float

    def to_dict(self, per_game: bool = True) -> dict:
        """JSON-ready data; ``per_game=False`` leaves out the per-game rows."""
        d = asdict(self)
        if not per_game:
            for k in ("luck", "suspense", "heuristics"):
                d[k].pop("per_game", None)
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict())


def measure(
    game,
    games: int = DEFAULT_GAMES,
    seed: int = 0,
    players: list[str] | None = None,
    rollouts: int = DEFAULT_ROLLOUTS,
    max_steps: int = 100_000,
    workers: int = 1,
    progress=None,
    seconds: float | None = None,
    interruptible: bool = False,
    stop=None,
    playouts: str = "auto",
) -> Measures:
    """Play ``games`` games between ``players`` (one spec per seat, the last repeats; default
    ``ismcts:50``) traced with ``rollouts`` playouts per option at each decision point, and
    measure them. ``progress(done)`` counts games; ``seconds``: no game is started after that
    time (with ``interruptible``, nor after Ctrl-C), or a caller's active ``stop``. Raises
    ``TimeoutError`` (``KeyboardInterrupt``) when no game was played. ``playouts``: who plays
    the analyst's playouts (recycle/study/equity.py; the same measures either way)."""
    if rollouts < 1:
        raise ValueError("the measures need at least 1 rollout")
    if stop is not None:
        return _measure(
            game, games, seed, players, rollouts, max_steps, workers, progress, stop, time.perf_counter(), playouts
        )
    with Stop(seconds, interruptible, t0 := time.perf_counter()) as own:
        return _measure(game, games, seed, players, rollouts, max_steps, workers, progress, own, t0, playouts)


def _measure(game, games, seed, players, rollouts, max_steps, workers, progress, stop, t0, playouts) -> Measures:
    specs = list(players or [DEFAULT_PLAYERS])
    specs = [specs[min(p, len(specs) - 1)] for p in range(game.nplayers)]
    prior = prior_belief(game, seed, rollouts, playouts)
    items = [(specs, rollout_seed(seed, i), max_steps, rollouts, playouts) for i in range(games)]
    records = map_games(game, equity_game, items, workers, progress, stop=stop)
    if not records:
        if stop.interrupted:
            raise KeyboardInterrupt
        raise TimeoutError("the time limit ended before the first traced game")
    stopped = "interrupted" if stop.interrupted else ("seconds" if len(records) < games else None)
    return Measures(
        game=game.name,
        seed=seed,
        players=specs,
        rollouts=rollouts,
        games=games,
        finished=sum(1 for r in records if not r["limit"]),
        prior=prior["belief"],
        luck=luck_and_skill(records, prior["belief"], specs, seed),
        suspense=suspense_and_surprise(records, prior),
        heuristics=heuristics(records, prior["belief"]),
        stopped=stopped,
        seconds=time.perf_counter() - t0,
    )


def measures_lines(m: Measures) -> list[str]:
    """The measures as a human reads them."""
    lk, su, h = m.luck, m.suspense, m.heuristics
    lines = [
        f"luck and skill ({m.finished} games of {','.join(m.players)}, win probabilities from {m.rollouts} "
        "playouts per option at each decision point):"
    ]
    if lk.luck_share is None:
        lines.append("  luck share: none (the belief never moved)")
    else:
        lo, hi = lk.luck_share_ci
        lines.append(
            f"  luck share {lk.luck_share:.0%} [{lo:.0%}, {hi:.0%}] of the belief's movement across chance and "
            f"choices, skill the rest (the estimates' noise, {lk.noise_share:.0%} of all movement, left out)"
        )
    for s in lk.seats:
        lines.append(
            f"  P{s.seat} {s.player:<14} before the deal {s.prior:.2f}; change {s.change:+.3f} = luck {s.luck:+.3f} "
            f"[{s.luck_ci[0]:+.3f}, {s.luck_ci[1]:+.3f}] + own choices {s.own:+.3f} [{s.own_ci[0]:+.3f}, "
            f"{s.own_ci[1]:+.3f}] + others' {s.others:+.3f} [{s.others_ci[0]:+.3f}, {s.others_ci[1]:+.3f}]"
            + (f" + noise {s.noise:+.3f}" if s.noise else "")
        )
    lines.append(
        f"suspense per game {su.suspense_per_game:.3f} [{su.suspense_per_game_ci[0]:.3f}, "
        f"{su.suspense_per_game_ci[1]:.3f}] (the deal's {su.deal_suspense:.3f}); surprise per game "
        f"{su.surprise_per_game:.3f} [{su.surprise_per_game_ci[0]:.3f}, {su.surprise_per_game_ci[1]:.3f}] "
        f"(the outcome's {su.end_surprise:.3f})"
    )
    lines.append(
        f"CardStock's heuristics ({h.decision_points} decision points; a difference counts from {h.delta}): "
        + ", ".join(
            f"{k.replace('_', ' ')} {getattr(h, k):.2f}" for k in ("meaningful_moves", "killer_move", "clarity")
        )
        + f", coolness {h.coolness:.2f}, stability {h.stability:.2f}"
    )
    return lines
