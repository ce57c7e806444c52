"""The skill ladder of a game: how many steps of playing strength the game can tell apart.

A ladder is a list of rungs: a bottom player (``random``), then a look-ahead player with a
budget ``B`` (``ismcts:B``) and the same player with the budget doubled again and again
(``ismcts:2B``, ``ismcts:4B``, ...). Every pair of rungs plays a duplicate match: each
deal is played once per rotation of the seats, the higher rung in one seat and the lower
rung in all the others (``recycle duplicate``'s line-up A, B, B, ...), so that the luck of
the deal cancels. From the matches come

- the win-rate matrix: how often the row's rung beats the column's, seat against seat,
  ties counting half, with a 95% Wilson interval;
- the *skill depth*: the number of steps in the longest chain of rungs, in ladder order,
  each of which beats the one before it at 95% (the interval lies above 0.5) — after
  Lantz, Isaksen, Jaffe, Nealen and Togelius (2017), "Depth in strategic games": a game
  of pure chance has depth 0;
- Elo ratings of the rungs, fitted by maximum likelihood to the whole matrix
  (Bradley–Terry), the bottom rung at 0.

Every deal, pair and rotation is one item of a single run (``map_games``), in deal order:
results depend on the seed only, not on the number of workers, and a run stopped by its
time budget or by Ctrl-C keeps the deals that every pair finished. docs/analysis.md
("Skill ladder") defines every number.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from dataclasses import dataclass

from ..engine.game import rollout_seed
from .analysis import _played
from .engine_use import GAMES_ENGINE, combined, engine_line
from .intervals import wilson
from .parallel import map_games
from .stopping import Stop

MAX_DOUBLINGS = 10
ELO_SCALE = 400 / math.log(10)  # Elo points per unit of the Bradley–Terry log-strength
PRIOR_DRAWS = 1.0  # games drawn added to every pair, so that a rung winning every game has a finite rating


class LadderError(ValueError):
    """A ladder that cannot be built from what was asked (a bad --players or --doublings)."""


@dataclass
class Ladder:
    """The result of ``run_ladder``; ``rate[i][j]`` is rung i's win rate against rung j."""

    game: str
    nplayers: int
    rungs: list[str]
    seed: int
    deals: int  # deals played by every pair (each in every seat rotation)
    deals_requested: int
    games_per_pair: int  # deals × nplayers
    rate: list[list[float | None]]  # None on the diagonal
    ci: list[list[list[float] | None]]
    games: list[list[int]]  # games counted for each pair (deals stopped by the step limit are left out)
    depth: int
    chain: list[int]  # the rungs of a longest chain, bottom first
    elo: list[float]
    games_played: int
    step_limit_deals: int  # (pair, deal) matches left out because a game hit the step limit
    stopped: str | None  # None, "seconds" (the time budget) or "interrupted" (Ctrl-C)
    seconds: float
    # what stepped the games and played their playouts (``engine_use``: a look-ahead player's
    # games are the reference interpreter's, their playouts native wherever the game builds)
    engine: str = "reference"
    playouts_engine: str | None = None

    def to_dict(self) -> dict:
        """The ladder as a JSON-ready dict."""
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        """The ladder as one line of JSON."""
        return json.dumps(self.to_dict())


def ladder_rungs(players: str, doublings: int) -> list[str]:
    """The rungs of ``--players BOTTOM,KIND:B --doublings D``: BOTTOM, KIND:B, KIND:2B, …, KIND:(2^D)B.

    Raises ``LadderError`` with a message for a user when the spec cannot make a ladder."""
    from ..players import make_player

    if isinstance(doublings, bool) or not isinstance(doublings, int) or not 1 <= doublings <= MAX_DOUBLINGS:
        raise LadderError(f"--doublings must be between 1 and {MAX_DOUBLINGS}, not {doublings!r}")
    names = [p.strip() for p in (players or "").split(",")]
    if len(names) != 2 or not all(names):
        raise LadderError(
            f"--players {players!r}: give two players, the bottom rung and the first look-ahead "
            "rung with its budget, e.g. random,ismcts:25"
        )
    bottom, first = names
    kind, _, budget = first.partition(":")
    try:
        b = int(budget)
    except ValueError:
        b = 0
    if b < 1:
        raise LadderError(f"--players {players!r}: the second player needs a budget to double, e.g. {kind}:25")
    rungs = [bottom] + [f"{kind}:{b << k}" for k in range(doublings + 1)]
    for spec in (bottom, rungs[1]):
        try:
            player = make_player(spec)
        except ValueError as exc:
            raise LadderError(f"--players {players!r}: {exc}") from None
        if getattr(player, "name", None) == "human":
            raise LadderError("a ladder's games are played by computer players, not by a person")
    return rungs


def head_to_head(winners, lone: int, nplayers: int) -> float:
    """The lone seat's share against the other seats in one game: against each other seat 1 if
    it won and that seat did not, 0 the other way round, ½ if both or neither won; averaged."""
    won = lone in winners
    total = 0.0
    for s in range(nplayers):
        if s != lone:
            other = s in winners
            total += 0.5 if won == other else (1.0 if won else 0.0)
    return total / (nplayers - 1)


def skill_depth(rate, ci) -> tuple[int, list[int]]:
    """``(depth, chain)``: the longest chain of rungs i₀ < i₁ < … (ladder order) in which every
    rung beats the one before at 95% (``ci[i_{k+1}][i_k]`` lies above 0.5); depth counts its steps."""
    n = len(rate)
    best = [0] * n  # steps of the longest chain ending at rung j
    before = [None] * n
    for j in range(n):
        for i in range(j):
            if ci[j][i] is not None and ci[j][i][0] > 0.5 and best[i] + 1 > best[j]:
                best[j], before[j] = best[i] + 1, i
    if not n:
        return 0, []
    end = max(range(n), key=lambda j: (best[j], -j))
    chain = [end]
    while before[chain[-1]] is not None:
        chain.append(before[chain[-1]])
    return best[end], chain[::-1]


def elo_ratings(score, games, iterations: int = 10_000) -> list[float]:
    """Elo ratings (bottom rung 0) fitted by maximum likelihood to a Bradley–Terry model.

    ``score[i][j]``: rung i's points against rung j (a win 1, a tie ½), over ``games[i][j]``
    games. Every pair gets ``PRIOR_DRAWS`` drawn games more, so that ratings stay finite when
    a rung wins every game. Fitted by Hunter's (2004) minorization–maximization iteration."""
    n = len(score)
    w = [[score[i][j] + PRIOR_DRAWS / 2 if i != j else 0.0 for j in range(n)] for i in range(n)]
    m = [[games[i][j] + PRIOR_DRAWS if i != j else 0.0 for j in range(n)] for i in range(n)]
    gamma = [1.0] * n
    for _ in range(iterations):
        new = []
        for i in range(n):
            denom = sum(m[i][j] / (gamma[i] + gamma[j]) for j in range(n) if j != i)
            new.append(sum(w[i]) / denom if denom else gamma[i])
        g0 = new[0] if new else 1.0
        new = [g / g0 for g in new]
        done = max((abs(math.log(a / b)) for a, b in zip(new, gamma)), default=0.0) < 1e-10
        gamma = new
        if done:
            break
    return [ELO_SCALE * math.log(g) for g in gamma]


def _items(rungs: list[str], deals: int, nplayers: int, seed: int, max_steps: int) -> list[tuple]:
    """Every game of the ladder, deal by deal: for each pair (lower i, higher j), the higher rung
    alone in seat r and the lower rung in the others, for every seat r."""
    items = []
    for d in range(deals):
        sd = rollout_seed(seed, d)
        for j in range(len(rungs)):
            for i in range(j):
                for r in range(nplayers):
                    items.append(([rungs[j] if s == r else rungs[i] for s in range(nplayers)], sd, max_steps))
    return items


def run_ladder(
    game,
    rungs: list[str],
    games: int = 100,
    seed: int = 0,
    max_steps: int = 100_000,
    workers: int = 1,
    progress=None,
    seconds: float | None = None,
    interruptible: bool = False,
    stop=None,
) -> Ladder:
    """Play the ladder's matches (about ``games`` games per pair of rungs) and measure it.

    A pair plays ``ceil(games / nplayers)`` deals, each in every rotation of the seats.
    ``progress(done)`` counts games finished (of ``ladder_games(...)``). ``seconds``: no game
    is started after that time (with ``interruptible``, nor after Ctrl-C); the ladder is over
    the deals that every pair finished; ``stop``: a caller's active ``stopping.Stop`` instead. Raises ``TimeoutError`` (``KeyboardInterrupt``) when
    no deal was finished by every pair, ``LadderError`` for fewer than two rungs or a game of
    one player."""
    np_ = game.nplayers
    if np_ < 2:
        raise LadderError(f"{game.name} is a game of one player: there is no one to beat")
    if len(rungs) < 2:
        raise LadderError("a ladder needs at least two rungs")
    if games < 1:
        raise LadderError("--games must be at least 1")
    t0 = time.perf_counter()
    requested = -(-games // np_)
    k = len(rungs)
    per_deal = k * (k - 1) // 2 * np_
    items = _items(rungs, requested, np_, seed, max_steps)
    if stop is None:
        with Stop(seconds, interruptible, t0) as own:
            results = map_games(game, _played, items, workers, progress, stop=own)
        stop = own
    else:
        results = map_games(game, _played, items, workers, progress, stop=stop)
    deals = len(results) // per_deal
    if not deals and stop.interrupted:
        raise KeyboardInterrupt
    if not deals:
        raise TimeoutError("the time budget ended before every pair of rungs had played one deal")
    score = [[0.0] * k for _ in range(k)]
    count = [[0] * k for _ in range(k)]
    dropped = 0
    for d in range(deals):
        at = d * per_deal
        for j in range(k):
            for i in range(j):
                match = results[at : at + np_]
                at += np_
                if any(g is None for g in match):
                    dropped += 1  # a game of this deal hit the step limit: the whole deal is left out
                    continue
                for r, (_, winners, *_more) in enumerate(match):
                    share = head_to_head(winners, r, np_)
                    score[j][i] += share
                    score[i][j] += 1 - share
                count[j][i] += np_
                count[i][j] += np_
    rate = [
        [None if i == j else (score[i][j] / count[i][j] if count[i][j] else 0.5) for j in range(k)] for i in range(k)
    ]
    ci = [[None if i == j else list(wilson(score[i][j], count[i][j])) for j in range(k)] for i in range(k)]
    depth, chain = skill_depth(rate, ci)
    stopped = "interrupted" if stop.interrupted else ("seconds" if deals < requested else None)
    return Ladder(
        game=game.name,
        nplayers=np_,
        rungs=list(rungs),
        seed=seed,
        deals=deals,
        deals_requested=requested,
        games_per_pair=deals * np_,
        rate=rate,
        ci=ci,
        games=count,
        depth=depth,
        chain=chain,
        elo=elo_ratings(score, count),
        games_played=len(results),
        step_limit_deals=dropped,
        stopped=stopped,
        seconds=time.perf_counter() - t0,
        engine=combined(g[4] for g in results if g is not None) or GAMES_ENGINE,
        playouts_engine=combined(g[3] for g in results if g is not None),
    )


def ladder_games(nrungs: int, games: int, nplayers: int) -> int:
    """The number of games a full ladder plays (the progress bar's total)."""
    return nrungs * (nrungs - 1) // 2 * -(-games // nplayers) * nplayers


def ladder_lines(lad: Ladder) -> list[str]:
    """The ladder as a human reads it: the matrix with intervals, the depth, the ratings."""
    k = len(lad.rungs)
    lines = [
        f"skill ladder of {lad.game}: {k} rungs, {lad.games_per_pair} games per pair "
        f"({lad.deals} deals x {lad.nplayers} seat rotations), seed {lad.seed}",
        "win rate of the row's rung against the column's, seat against seat (ties count half), "
        "95% interval; * beyond chance:",
    ]
    width = max(len(r) for r in lad.rungs)
    cell = 20

    def show(i, j):
        if i == j:
            return "- "  # the space stands where the other cells have their mark
        lo, hi = lad.ci[i][j]
        mark = "*" if lo > 0.5 or hi < 0.5 else " "
        return f"{lad.rate[i][j]:.2f} [{lo:.2f},{hi:.2f}]{mark}"

    lines.append(" " * width + "  " + "".join(r[: cell - 1].rjust(cell) for r in lad.rungs))
    for i, r in enumerate(lad.rungs):
        lines.append(r.ljust(width) + "  " + "".join(show(i, j).rjust(cell) for j in range(k)))
    chain = " < ".join(lad.rungs[i] for i in lad.chain)
    lines.append(
        f"skill depth: {lad.depth}"
        + (f" ({chain}: each beats the one before at 95%)" if lad.depth else " (no rung beats a lower one at 95%)")
    )
    lines.append(
        "Elo (Bradley-Terry fit, bottom rung 0): " + ", ".join(f"{r} {e:+.0f}" for r, e in zip(lad.rungs, lad.elo))
    )
    if lad.step_limit_deals:
        lines.append(f"left out: {lad.step_limit_deals} (pair, deal) matches in which a game hit the step limit")
    lines.append(engine_line(lad.engine, lad.playouts_engine))
    return lines
