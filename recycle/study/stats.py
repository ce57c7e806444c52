"""Random rollouts and their statistics (the numbers ``recycle simulate`` prints)."""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field

from ..engine.game import tied_sides
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
    played: int = 0
    # what played the games: "native" (machine code, recycle/native) or "reference" (the
    # reference interpreter); and, when a game of random players stayed on it, why (one line)
    engine: str = "reference"
    engine_note: str | None = None
    # why fewer than ``games`` were played: "time limit" (timeout) or "interrupted" (Ctrl-C)
    stopped: str | None = None
    decision_counts: list[int] = field(default_factory=list, repr=False)
    scores: list[list[int]] = field(default_factory=list, repr=False)
    winners: list[list[int]] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict:
        """The ``--json`` object: the figures of the games, the same whichever engine played
        them (so ``engine`` and ``engine_note``, how this run played them, are left out)."""
        d = asdict(self)
        for k in ("decision_counts", "scores", "winners", "engine", "engine_note"):
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


def _all_random(players) -> bool:
    from ..engine.runner import RandomPlayer

    return all(type(p) is RandomPlayer for p in players)


def _simulate_one(game, players, seed: int, max_steps: int, all_random: bool):
    """One rollout's record: ``(scores, decisions, options_total, team_of)``, or None at the step
    limit (``team_of``: each player's team at the end, for telling a tie of sides)."""
    try:
        if all_random:
            r = game.random_rollout(seed, max_steps)
        else:
            r = game.play(players, seed=seed, max_steps=max_steps).state
    except StepLimitExceeded:
        return None
    return r.scores, r.decisions, r.options_total, r.team_of[:]


def _simulate_batch(game, players, seeds, max_steps: int, engine: str = "auto"):
    all_random = _all_random(players)
    if all_random and engine == "native" and _native_reason(game) is None:
        from ..native import rollout_records

        return rollout_records(game, seeds, max_steps)
    return [_simulate_one(game, players, sd, max_steps, all_random) for sd in seeds]


ENGINES = ("auto", "native", "reference")  # (auto: native where it plays the game, else reference)
NATIVE_MIN_GAMES = 20_000  # "auto" compiles a game natively for this many games (a cached one: any)
NATIVE_CHUNK = 5000  # rollouts per call of native code (progress and --timeout are checked between)


def _native_ready(game, on_disk: bool = False) -> bool:
    """Is the game's native module compiled already (this process, or the cache folder; only
    the folder when ``on_disk``)?"""
    from ..native import native_ready

    return native_ready(game, on_disk)


def _why_not_written(game) -> str | None:
    """Why the native writer cannot write the game (None when it can, or the native engine
    cannot run here: then native.available() said why on stderr)."""
    from ..native import NativeUnsupported, available, native_source

    if not available():
        return None
    try:
        native_source(game)
    except NativeUnsupported as exc:
        where = exc.where()
        return f"the native engine does not write {exc.what}" + (f" ({where})" if where else "")
    return None


def _native_reason(game) -> str | None:
    """None when the game's random rollouts run natively here, else why not (one line)."""
    from ..native import why_not_native

    return why_not_native(game)


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
    threads: int = 1,
) -> SimulationStats:
    """Play ``n`` games with rollout seeds ``rollout_seed(seed, i)``; collect statistics.

    A rollout that hits the step limit is counted in ``step_limit_hits`` and left out of
    the other figures. ``progress(i)`` is called after each rollout when given (after
    each batch with ``workers`` > 1). ``workers`` processes share the rollouts; every
    figure except the timings is the same whatever their number. Seeds are made as the
    games are played (any ``n`` fits in memory when ``keep_records`` is off). ``timeout``
    (seconds) stops starting new games after that time: the statistics are those of the
    games played (``played``), in order, so they are the first ``played`` games of the run.
    ``interruptible``: Ctrl-C stops the run the same way (``stopped == "interrupted"``)
    instead of raising ``KeyboardInterrupt`` (the command line's behaviour).
    """
    from ..engine.game import check_engine, rollout_seed
    from ..engine.runner import RandomPlayer
    from .stopping import Stop

    check_engine(engine, ENGINES)
    if players is None:
        players = [RandomPlayer() for _ in range(game.nplayers)]
    native_note = None
    use_native = False
    compiling = None  # the background compile of "auto" (Python plays until it is done)
    if _all_random(players) and engine != "reference":
        native_note = _native_reason(game) if engine == "native" else _why_not_written(game)
        # worker processes load the machine code from the cache folder: made in this process
        # alone, each worker would compile it again
        if native_note is None and engine == "auto" and not _native_ready(game, on_disk=workers > 1 and n > 1):
            if n < NATIVE_MIN_GAMES:
                native_note = (
                    f"{n} games: fewer than {NATIVE_MIN_GAMES:,}, which Python plays faster than a first "
                    f"native compile (engine='native' compiles it)"
                )
            elif workers > 1:
                # worker processes play from the start; the machine code is made by a run
                # without them (or engine='native'), and from then on they load it
                native_note = "not compiled yet, and worker processes do not compile (a run with --threads does)"
            else:
                compiling = _compile_in_background(game)
        use_native = native_note is None
    t0 = time.perf_counter()
    agg = _Aggregate(game, keep_records)
    by_python = 0  # games Python played while the machine code was being made
    with Stop(timeout, interruptible, t0) as stop:
        try:
            if workers > 1 and n > 1:
                ready = (lambda: compiling is None or not compiling.is_alive()) if use_native else (lambda: False)
                _in_workers(game, n, seed, players, max_steps, progress, workers, stop, agg, ready)
            else:
                all_random = _all_random(players)
                i = 0
                while i < n:
                    if use_native and (compiling is None or not compiling.is_alive()):
                        if compiling is not None and isinstance(getattr(game, "_native", None), Exception):
                            use_native, native_note = False, _native_reason(game)
                            continue
                        i = _natively(game, i, n, seed, max_steps, progress, threads, stop, agg)
                        break
                    if stop():
                        break
                    stop.hold = False  # Ctrl-C stops a game at once; the totals are kept whole
                    rec = _simulate_one(game, players, rollout_seed(seed, i), max_steps, all_random)
                    stop.hold = True
                    agg.add(rec)
                    if progress:
                        progress(i)
                    i += 1
                    by_python += use_native
        except KeyboardInterrupt as exc:
            if not stop.catches(exc):
                raise
    stats = agg.stats(n, seed, players, time.perf_counter() - t0)
    stats.engine = "native" if use_native else "reference"
    stats.engine_note = native_note
    if use_native and by_python:
        stats.engine_note = f"the first {by_python:,} games were played by Python while the game was compiled"
    if stats.played < n:
        stats.stopped = "interrupted" if stop.interrupted else "time limit"
    return stats


def _compile_in_background(game, in_thread: bool = False):
    """Make the game's machine code in another process (its own core, not this one's GIL),
    into the cache folder; returns an object whose ``is_alive()`` is False once it is done.
    Then this process loads it from the cache. Without a cache folder, or ``in_thread``
    (this process plays no game itself): a thread here."""
    import subprocess
    import sys
    import threading

    from ..native import native_game
    from ..native.engine import cache_folder

    if in_thread or cache_folder() is None:

        def make():
            try:
                native_game(game).warm()
            except Exception:  # noqa: BLE001 - native_game keeps the reason in game._native
                pass

        t = threading.Thread(target=make, name="recycle-native-compile", daemon=True)
        t.start()
        return t
    script = (
        "import sys; from recycle.lang.syntax.reader import parse_text; "
        "from recycle.engine.game import PreparedGame; from recycle.native import native_game; "
        "native_game(PreparedGame(parse_text(sys.stdin.read(), sys.argv[1]))).warm()"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script, game.source.filename],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        proc.stdin.write(game.source.text.encode("utf-8", "surrogatepass"))
        proc.stdin.close()
    except OSError:
        pass

    class Compiling:
        def is_alive(self) -> bool:
            if proc.poll() is None:
                return True
            try:
                native_game(game)  # from the cache now (or compiled here, if the other process failed)
            except Exception:  # noqa: BLE001 - game._native says why
                pass
            return False

    return Compiling()


def _natively(game, start, n, seed, max_steps, progress, threads, stop, agg) -> int:
    """Rollouts ``start`` to ``n`` by native code, a chunk at a time (the stop and progress
    checked between); returns where it stopped."""
    from ..engine.game import rollout_seed
    import numpy as np

    from ..native import initial_teams, python_record, rollout_arrays
    from ..native.engine import range_keys

    size = NATIVE_CHUNK * max(1, threads) if stop.deadline is None else 200
    team_of = initial_teams(game)
    for a in range(start, n, size):
        if stop():
            return a
        stop.hold = False
        b = min(n, a + size)
        scores, counts = rollout_arrays(game, None, max_steps, threads, keys=range_keys(seed, a, b))
        # the rows native code stopped are played again by Python, in order
        redo = {
            i: python_record(game, rollout_seed(seed, a + i), max_steps) for i in np.nonzero(counts[:, 0])[0].tolist()
        }
        stop.hold = True
        if redo:
            for i in range(b - a):
                agg.add(
                    redo[i]
                    if i in redo
                    else ([int(v) for v in scores[i]], int(counts[i, 2]), int(counts[i, 3]), team_of)
                )
        else:
            agg.add_arrays(scores, counts[:, 2], counts[:, 3], team_of)
        if progress:
            progress(agg.played - 1)
    return n


def _in_workers(game, n, seed, players, max_steps, progress, workers, stop, agg, native_ready=lambda: False) -> None:
    """The games in ``workers`` processes, in batches; a batch is played natively once
    ``native_ready()`` (this process has the machine code, so the workers load it from the
    cache), by Python before."""
    from ..engine.game import rollout_seed
    from .parallel import stream_games

    # small batches when a time limit must be kept (a batch started is finished)
    size = max(1, min(200 if stop.deadline is None else 10, n // (workers * 8)))

    def chunks():
        for a in range(0, n, size):
            if stop():
                return
            yield (
                players,
                [rollout_seed(seed, i) for i in range(a, min(n, a + size))],
                max_steps,
                "native" if native_ready() else "reference",
            )

    stream = stream_games(game, _simulate_batch, chunks(), workers, window=2 * workers)
    try:
        while True:
            stop.hold = False
            batch = next(stream, None)
            stop.hold = True
            if batch is None:
                return
            for rec in batch:
                agg.add(rec)
            if progress:
                progress(agg.played - 1)
            if stop():
                return  # the games so far are a prefix of the run
    finally:
        stream.close()  # stops the workers


class _Aggregate:
    """Running totals over rollout records ``(scores, decisions, options_total[, team_of])`` or
    None (without ``team_of`` every player is a side of its own)."""

    def __init__(self, game, keep_records: bool):
        self.game = game
        self.keep = keep_records
        np_ = game.nplayers
        self.wins = [0] * np_
        self.score_sum = [0] * np_
        self.ties = self.win_score = self.dec_total = self.opt_total = 0
        self.dec_min, self.dec_max = None, 0
        self.limit_hits = self.played = 0
        self.decision_counts, self.all_scores, self.all_winners = [], [], []

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
        if self.keep:
            self.decision_counts.append(d)
            self.all_scores.append(scores)
            self.all_winners.append(winners)

    def add_arrays(self, scores, decisions, options, team_of) -> None:
        """Many finished rollouts at once (native ones: scores[n, P], decisions[n], options[n],
        every game with the same teams): the same totals as ``add`` of each, in numbers."""
        import numpy as np

        n = len(decisions)
        if not n:
            return
        best = scores.max(axis=1) if self.game.scoring_max else scores.min(axis=1)
        won = scores == best[:, None]
        for p, w in enumerate(won.sum(axis=0)):
            self.wins[p] += int(w)
        several = np.nonzero(won.sum(axis=1) > 1)[0]
        # a tie is two or more sides among the winners (engine.game.tied_sides): each side's
        # players as columns, a side winning when one of them does, counted for every game
        sides: dict = {}
        for p in range(scores.shape[1]):
            sides.setdefault(("team", team_of[p]) if team_of[p] is not None else ("player", p), []).append(p)
        side_wins = np.zeros(len(several), np.int64)
        for members in sides.values():
            side_wins += won[several][:, members].any(axis=1)
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
        if self.keep:
            self.decision_counts.extend(decisions.tolist())
            self.all_scores.extend(scores.tolist())
            winners = [[p] for p in won.argmax(axis=1).tolist()]  # one winner, but where several tie
            for i in several.tolist():
                winners[i] = [p for p in range(scores.shape[1]) if won[i, p]]
            self.all_winners.extend(winners)

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
            decision_counts=self.decision_counts,
            scores=self.all_scores,
            winners=self.all_winners,
        )
