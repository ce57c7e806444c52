"""Random rollouts and their statistics (the numbers ``recycle simulate`` prints)."""

from __future__ import annotations

import math
import time
from copy import deepcopy
from dataclasses import dataclass, field, fields

from ..engine.game import tied_sides
from ..native.choose import ENGINES

__all__ = ["ENGINES", "SimulationStats", "simulate"]


_NOT_IN_JSON = ("records", "engine_note")


class _Records:
    """The games' records as they were added: lists of Python's records, arrays of native
    chunks, made into lists (decision counts, scores, winners) only when first read."""

    def __init__(self):
        self.parts: list = []  # ("lists", decisions, scores, winners) or ("arrays", decisions, scores, won)
        self._lists = None

    def add(self, d: int, scores: list, winners: list) -> None:
        if not self.parts or self.parts[-1][0] != "lists":
            self.parts.append(("lists", [], [], []))
        _, ds, ss, ws = self.parts[-1]
        ds.append(d)
        ss.append(scores)
        ws.append(winners)

    def add_arrays(self, decisions, scores, won) -> None:
        """``won[i, p]``: is player p a winner of game i."""
        self.parts.append(("arrays", decisions, scores, won))

    def lists(self) -> tuple[list, list, list]:
        if self._lists is None:
            ds: list = []
            ss: list = []
            ws: list = []
            for kind, d, sc, w in self.parts:
                if kind == "lists":
                    ds += d
                    ss += sc
                    ws += w
                    continue
                import numpy as np

                ds += d.tolist()
                ss += sc.tolist()
                winners = w.argmax(axis=1)[:, None].tolist()  # [p]: one winner, but where several tie
                several = np.flatnonzero(np.count_nonzero(w, axis=1) > 1)
                for i, row in zip(several.tolist(), w[several].tolist()):
                    winners[i] = [p for p, won in enumerate(row) if won]
                ws += winners
            self._lists, self.parts = (ds, ss, ws), []
        return self._lists


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
    played: int = 0
    # what played the games: "native" (machine code, recycle/native) or "reference" (the
    # reference interpreter); and, when a game of random players stayed on it, why (one line)
    engine: str = "reference"
    engine_note: str | None = None
    # the threads native code's games were shared among (1 on the reference interpreter and in
    # worker processes); the figures are the same for any number
    threads: int = 1
    # why fewer than ``games`` were played: "time limit" (timeout) or "interrupted" (Ctrl-C)
    stopped: str | None = None
    # each game's record, in order (kept with ``keep_records``): ``decision_counts``, ``scores``
    # and ``winners`` read them, made into lists when first read
    records: _Records | None = field(default=None, repr=False, compare=False)

    @property
    def decision_counts(self) -> list[int]:
        return self.records.lists()[0] if self.records else []

    @property
    def scores(self) -> list[list[int]]:
        return self.records.lists()[1] if self.records else []

    @property
    def winners(self) -> list[list[int]]:
        """Each game's winners (every player tied for best), in seat order."""
        return self.records.lists()[2] if self.records else []

    def to_dict(self) -> dict:
        """The ``--json`` object: the figures of the games, the same whichever engine played
        them, and ``engine``, which one did ("native" or "reference"), and ``threads``, how many
        shared native code's games (compare runs without these two).
        ``engine_note`` is left out (the text output and stderr give it)."""
        return {f.name: deepcopy(getattr(self, f.name)) for f in fields(self) if f.name not in _NOT_IN_JSON}

    def __str__(self) -> str:
        return "\n".join(self.table())

    def engine_line(self) -> str:
        """Which engine played the games (and why not native, when there is a reason to give)."""
        line = "played by: " + ("native code" if self.engine == "native" else "the reference interpreter")
        if self.threads > 1:
            line += f", {self.threads} threads"
        return line + (f" ({self.engine_note})" if self.engine_note else "")

    def table(self) -> list[str]:
        """Human-readable lines."""
        n = max(self.finished, 1)
        lines = [
            f"{self.game}: {self.games} rollouts, seed {self.seed}, players {','.join(self.players)}",
            f"rollouts/second: {self.rollouts_per_second:,.0f}  ({self.seconds:.2f} s)",
            self.engine_line(),
            f"decisions per game: mean {self.decisions['mean']:.3f}, min {self.decisions['min']}, "
            f"max {self.decisions['max']}",
            f"options per decision: {self.options_per_decision:.3f}",
            f"ties for first: {self.tie_rate:.2%} (two or more sides, teams or players, tied for best)",
            f"mean winning score: {self.winning_score_mean:.3f}",
            f"rollouts that hit the step limit: {self.step_limit_hits}",
        ]
        if self.stopped == "interrupted":
            lines.append(f"interrupted after {self.played:,} of {self.games:,} games")
        elif self.played < self.games:
            lines.append(f"stopped by the time limit after {self.played} of {self.games} rollouts")
        if self.step_limit_hits:
            lines.append(
                f"warning: {self.step_limit_hits} of {self.played} games hit the step limit: a game that "
                f"never ends? (raise --max-steps if it is meant to be this long)"
            )
            lines.append(
                f"statistics over {self.finished} of {self.played} games: {self.step_limit_hits} hit the step limit"
            )
        if not self.finished:
            lines.append("no game finished: no win rates or scores to report")
            return lines
        lines.append("seat  win rate        ±95%    mean score")
        for p, (w, sc) in enumerate(zip(self.win_rate, self.score_mean)):
            half = 1.96 * math.sqrt(max(w * (1 - w), 1e-12) / n)
            lines.append(f"P{p:<4} {w:8.2%}   ±{half:7.2%}   {sc:10.3f}")
        lines.append(
            f"every player tied for best counts a win, so the win rates can add up to more than "
            f"100% (here {sum(self.win_rate):.2%})"
        )
        return lines


def simulate(
    game,
    n: int,
    seed: int,
    players=None,
    max_steps: int = 100_000,
    progress=None,
    keep_records: bool = True,
    workers: int = 1,
    timeout: float | None = None,
    interruptible: bool = False,
    engine: str = "auto",
    threads: int | None = 1,
) -> SimulationStats:
    """Play ``n`` games with rollout seeds ``rollout_seed(seed, i)``; collect statistics.

    The games are played by ``recycle.native.batch.play_games`` (which engine, threads,
    worker processes, the hand-back of a game native code stopped); this adds them up.
    A rollout that hits the step limit is counted in ``step_limit_hits`` and left out of
    the other figures. ``progress(i)`` is called after each chunk of games played (``i``:
    the last one's index). Every figure except the timings is the same whatever the engine
    and the number of ``threads`` (None: the cores here) and ``workers``. Seeds are made as the games are played
    (any ``n`` fits in memory when ``keep_records`` is off). ``timeout`` (seconds) stops
    starting new games after that time: the statistics are those of the games played
    (``played``), in order, so they are the first ``played`` games of the run.
    ``interruptible``: Ctrl-C stops the run the same way (``stopped == "interrupted"``)
    instead of raising ``KeyboardInterrupt`` (the command line's behaviour).
    """
    from ..engine.runner import RandomPlayer
    from ..native.batch import play_games
    from .stopping import Stop

    if players is None:
        players = [RandomPlayer() for _ in range(game.nplayers)]
    games = play_games(game, n, seed, players, max_steps, engine, threads, workers)
    t0 = time.perf_counter()
    agg = _Aggregate(game, keep_records)
    with Stop(timeout, interruptible, t0) as stop:
        try:
            for chunk in games.chunks(stop):
                if chunk.arrays is not None:
                    agg.add_arrays(*chunk.arrays, chunk.team_of)
                else:
                    for rec in chunk.records:
                        agg.add(rec)
                if progress:
                    progress(agg.played - 1)
        except KeyboardInterrupt as exc:
            if not stop.catches(exc):
                raise
    stats = agg.stats(n, seed, players, time.perf_counter() - t0)
    stats.engine, stats.engine_note, stats.threads = games.engine, games.note, games.threads
    if stats.played < n:
        stats.stopped = "interrupted" if stop.interrupted else "time limit"
    return stats


class _Aggregate:
    """Running totals over rollout records ``(scores, decisions, options_total[, team_of])`` or
    None (without ``team_of`` every player is a side of its own)."""

    def __init__(self, game, keep_records: bool):
        self.game = game
        np_ = game.nplayers
        self.wins = [0] * np_
        self.score_sum = [0] * np_
        self.ties = self.win_score = self.dec_total = self.opt_total = 0
        self.dec_min, self.dec_max = None, 0
        self.limit_hits = self.played = 0
        self.records = _Records() if keep_records else None

    def add(self, rec) -> None:
        self.played += 1
        if rec is None:
            self.limit_hits += 1
            return
        scores, d, options_total = rec[:3]
        best = max(scores) if self.game.scoring_max else min(scores)
        winners = [p for p, v in enumerate(scores) if v == best]
        for w in winners:
            self.wins[w] += 1
        # a tie is two or more sides (teams; players where there are none) tied for best:
        # partners sharing their team's win are not a tie
        if len(winners) > 1 and (len(rec) < 4 or tied_sides(winners, rec[3]) > 1):
            self.ties += 1
        for p, v in enumerate(scores):
            self.score_sum[p] += v
        self.win_score += best
        self.dec_total += d
        self.opt_total += options_total
        self.dec_min = d if self.dec_min is None or d < self.dec_min else self.dec_min
        self.dec_max = max(self.dec_max, d)
        if self.records is not None:
            self.records.add(d, scores, winners)

    def add_arrays(self, scores, decisions, options, team_of) -> None:
        """Many finished rollouts at once (native ones: scores[n, P], decisions[n], options[n],
        every game with the same teams): the same totals as ``add`` of each, in numbers."""
        import numpy as np

        n = len(decisions)
        if not n:
            return
        # each game's best score, a column at a time (NumPy's reduce along short rows is slow)
        best = scores[:, 0].copy()
        for p in range(1, scores.shape[1]):
            (np.maximum if self.game.scoring_max else np.minimum)(best, scores[:, p], out=best)
        won = scores == best[:, None]
        for p, w in enumerate(np.count_nonzero(won, axis=0).tolist()):
            self.wins[p] += w
        several = np.flatnonzero(np.count_nonzero(won, axis=1) > 1)
        # a tie is two or more sides among the winners (engine.game.tied_sides): each side's
        # players as columns, a side winning when one of them does, counted for every game
        sides: dict = {}
        for p in range(scores.shape[1]):
            sides.setdefault(("team", team_of[p]) if team_of[p] is not None else ("player", p), []).append(p)
        tied = won[several]
        side_wins = np.zeros(len(several), np.int64)
        for members in sides.values():
            side_wins += tied[:, members].any(axis=1)
        self.ties += int((side_wins > 1).sum())
        for p, v in enumerate(scores.sum(axis=0)):
            self.score_sum[p] += int(v)
        self.win_score += int(best.sum())
        self.dec_total += int(decisions.sum())
        self.opt_total += int(options.sum())
        lo, hi = int(decisions.min()), int(decisions.max())
        self.dec_min = lo if self.dec_min is None or lo < self.dec_min else self.dec_min
        self.dec_max = max(self.dec_max, hi)
        self.played += n
        if self.records is not None:
            self.records.add_arrays(decisions, scores, won)

    def stats(self, n: int, seed: int, players, dt: float) -> SimulationStats:
        done = self.played - self.limit_hits
        m = max(done, 1)
        return SimulationStats(
            game=self.game.name,
            games=n,
            seed=seed,
            players=[getattr(p, "name", type(p).__name__) for p in players],
            seconds=dt,
            rollouts_per_second=self.played / dt if dt > 0 else float("inf"),
            decisions={"mean": self.dec_total / m, "min": self.dec_min or 0, "max": self.dec_max},
            options_per_decision=self.opt_total / self.dec_total if self.dec_total else 0.0,
            win_rate=[w / m for w in self.wins],
            tie_rate=self.ties / m,
            score_mean=[v / m for v in self.score_sum],
            winning_score_mean=self.win_score / m,
            step_limit_hits=self.limit_hits,
            finished=done,
            played=self.played,
            records=self.records,
        )
