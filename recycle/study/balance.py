"""Balancing a game toward a designer's targets: ``recycle balance GAME --vary ... --target ...``
(docs/balance.md).

The designer names the integers that may change (*knobs*: declared constants and point-map
values, each over a range) and what the game should measure (*targets*: the first seat's
share of the wins, the mean number of decisions, the score gap, ties, the order of the skill
ladder); ``recycle.study.balance_spec`` parses both. The search is NTBEA
(``recycle.study.ntbea``): each iteration plays ``games`` games of one variant (random players
unless ``players`` says otherwise) and tells NTBEA minus the variant's *distance* (the sum
over the targets of ``Target.distance``). The games are played by ``stats.simulate`` — the
native engine where it builds the variant (``engine``: "auto" and "native" build every variant,
a fraction of a second each; "reference" never: recycle/native/batch.py)
— and the ladder by ``ladder.run_ladder``.

When the search ends, the ``keep`` variants NTBEA rates best (by its model's mean estimate,
which pools every evaluation sharing a value with them) and the original are measured again
on ``final_games`` fresh deals, the same deals for each: these are the figures reported, each
target's measured value with its 95% interval and its distance, free of the optimism of
having been selected on their own games. The variants are written as ``variant-NN.rcy``
files (checked to load first) with a comment at the top saying what changed.

Determinism: the same seed gives the same search and the same figures, for any number of
workers. ``stop`` (a ``stopping.Stop``: ``--seconds``, Ctrl-C) ends the search early, leaving
time for the final measurement as ``evolve`` does; an evaluation cut short is dropped whole.
"""

from __future__ import annotations

import dataclasses
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..errors import RecycleError, printable
from ..engine.game import PreparedGame
from .balance_spec import CAP, Knob, Target, variant_text
from .intervals import mean_ci, wilson
from .ntbea import NTBEA, K_EXPLORE

LADDER_RUNGS = ("random", "ismcts:8", "ismcts:16")  # the ladder a ``ladder`` target plays by default
LADDER_GAMES = 12  # games per pair of rungs in one evaluation


@dataclass
class Estimate:
    """A measure's value with its 95% interval."""

    value: float
    low: float
    high: float


@dataclass
class TargetResult:
    """One target, the measured value with its interval, and how far it is from the target."""

    target: str
    measure: str
    value: float | None
    low: float | None
    high: float | None
    distance: float


@dataclass
class Candidate:
    """A variant (or the original) as measured again at the end of the search."""

    name: str
    values: dict  # knob name → value
    text: str
    games: int
    nplayers: int
    targets: list[TargetResult]
    distance: float
    measures: dict = field(default_factory=dict)  # every measure played: name → Estimate
    step_limit_share: float = 0.0
    engine: str = ""
    search_estimate: float | None = None  # NTBEA's mean estimate of minus the distance
    search_evaluations: int = 0  # how often the search played exactly this variant
    error: str | None = None  # why it could not be measured (does not load, no game finished)
    fresh: bool = True  # measured again on the final deals (False: the time ran out; the search's figures)


@dataclass
class BalanceResult:
    """What ``balance`` found: the best variants (best first) and the original, measured again."""

    game: str
    filename: str
    seed: int
    knobs: list[dict]
    targets: list[str]
    settings: dict
    original: Candidate | None
    best: list[Candidate]
    history: list[dict]  # every evaluation of the search: its values and distance
    stopped: str | None = None  # "time" (--seconds) or "interrupted" (Ctrl-C); None: ran to the end
    engines: dict = field(default_factory=dict)  # evaluations played by each engine

    def variant_text(self, c: Candidate, number: int) -> str:
        """The variant's file text: a comment saying what changed and what it measured, then the game."""
        base = printable(Path(self.filename).name).replace("\n", " ")
        changed = ", ".join(f"{k}={v}" for k, v in c.values.items())
        lines = [
            f";; variant-{number:02d}: a variant of {base} made by `recycle balance` (seed {self.seed}): {changed}",
            f";; measured on {c.games} {'fresh ' if c.fresh else ''}games (95% intervals); "
            f"distance to the targets {c.distance:.3f}:",
        ]
        for t in c.targets:
            lines.append(f";;   {printable(t.target)}: {_shown(t)}")
        lines.append(";; The rest is the original's text with those values.")
        return "\n".join(lines) + "\n\n" + c.text

    def write(self, folder) -> list[Path]:
        """Write ``variant-NN.rcy`` for each of the best variants (made if missing); the paths."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        paths = []
        for k, c in enumerate(self.best, 1):
            p = folder / f"variant-{k:02d}.rcy"
            p.write_text(self.variant_text(c, k), encoding="utf-8")
            paths.append(p)
        return paths

    def to_json(self) -> dict:
        """A JSON-ready summary (the texts left out)."""

        def one(c):
            if c is None:
                return None
            d = asdict(c)
            d.pop("text")
            return d

        return {
            "game": self.game,
            "seed": self.seed,
            "knobs": self.knobs,
            "targets": self.targets,
            "settings": self.settings,
            "original": one(self.original),
            "best": [one(c) for c in self.best],
            "evaluations": len(self.history),
            "history": self.history,
            "engines": self.engines,
            "stopped": self.stopped,
        }


def _shown(t: TargetResult) -> str:
    if t.value is None:
        return f"not measured (distance {t.distance:.3f})"
    return f"{t.value:.3f} [{t.low:.3f}, {t.high:.3f}], distance {t.distance:.3f}"


def evaluation_seed(seed: int, index: int) -> int:
    """The seed of the games of evaluation ``index`` (-1: the final measurement)."""
    return random.Random(f"balance:{seed}:{index}").getrandbits(40)


# -- measuring one variant -------------------------------------------------------------------


def _gap(scores: list, higher: bool) -> float:
    ordered = sorted(scores, reverse=higher)
    return abs(ordered[0] - ordered[1]) if len(ordered) > 1 else 0.0


def play_measures(g, games: int, seed: int, specs: list[str], max_steps: int, workers: int, engine: str, until):
    """The games' measures of the variant ``g``: ``({measure: Estimate}, step-limit share, engine)``,
    or None when the time ran out first (``until``: a ``time.perf_counter()`` deadline)."""
    from ..players import make_players
    from .stats import simulate

    timeout = None if until is None else max(0.0, until - time.perf_counter())
    players = make_players(",".join(specs), g.nplayers)
    s = simulate(g, games, seed, players, max_steps, workers=workers, timeout=timeout, engine=engine)
    if s.played < games:
        return None
    done = [(sc, w, d) for sc, w, d in zip(s.scores, s.winners, s.decision_counts)]
    n = len(done)
    if not n:
        return {}, 1.0, s.engine
    first = sum(1 / len(w) for _, w, _ in done if 0 in w)
    ties = sum(1 for _, w, _ in done if len(w) > 1)
    dec = mean_ci([d for _, _, d in done])
    gap = mean_ci([_gap(sc, g.scoring_max) for sc, _, _ in done])
    out = {
        "first_player": Estimate(first / n, *wilson(first, n)),
        "ties": Estimate(ties / n, *wilson(ties, n)),
        "decisions": Estimate(*dec),
        "score_gap": Estimate(*gap),
    }
    return out, s.step_limit_hits / games, s.engine


def ladder_measure(g, rungs, games: int, seed: int, max_steps: int, workers: int, until) -> Estimate | None:
    """The weakest step of the skill ladder: the lowest win rate of a rung against the one below,
    with its interval; None when the time ran out first."""
    from .ladder import run_ladder

    seconds = None if until is None else max(0.0, until - time.perf_counter())
    try:
        lad = run_ladder(g, list(rungs), games, seed, max_steps, workers, seconds=seconds)
    except TimeoutError:
        return None
    if lad.stopped:
        return None
    j = min(range(1, len(rungs)), key=lambda j: lad.rate[j][j - 1])
    return Estimate(lad.rate[j][j - 1], *lad.ci[j][j - 1])


@dataclass
class _Setup:
    """How every variant is measured (the search's settings)."""

    filename: str
    max_work: int | None
    targets: list[Target]
    specs: list[str]
    max_steps: int
    workers: int
    engine: str
    rungs: tuple
    ladder_games: int
    compiled: dict = field(default_factory=dict)  # text → PreparedGame or the reason it does not load

    def load(self, text: str):
        got = self.compiled.get(text)
        if got is None:
            if len(self.compiled) > 64:
                self.compiled.clear()
            try:
                got = PreparedGame.from_text(text, self.filename, max_work=self.max_work)
            except RecycleError as exc:
                got = "does not load: " + printable(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
            self.compiled[text] = got
        return got

    def measure(self, name: str, values: dict, text: str, games: int, seed: int, until) -> Candidate | None:
        """The variant measured on ``games`` games of ``seed``; None when the time ran out first."""
        g = self.load(text)
        if isinstance(g, str):
            return self._failed(name, values, text, games, 0, g)
        try:
            played = play_measures(g, games, seed, self._seats(g), self.max_steps, self.workers, self.engine, until)
        except RecycleError as exc:
            return self._failed(name, values, text, games, g.nplayers, "fails in play: " + printable(str(exc)))
        if played is None:
            return None
        measures, limit_share, engine = played
        if not measures:
            return self._failed(name, values, text, games, g.nplayers, "no game finished within the step limit")
        if any(t.measure == "ladder" for t in self.targets):
            if g.nplayers < 2:
                return self._failed(name, values, text, games, g.nplayers, "a game of one player has no ladder")
            lad = ladder_measure(g, self.rungs, self.ladder_games, seed, self.max_steps, self.workers, until)
            if lad is None:
                return None
            measures["ladder"] = lad
        results = [_result(t, measures.get(t.measure)) for t in self.targets]
        # a variant whose games hit the step limit is pushed away: its figures leave those games out
        distance = sum(r.distance for r in results) + CAP * limit_share
        return Candidate(name, values, text, games, g.nplayers, results, distance, measures, limit_share, engine)

    def _seats(self, g) -> list[str]:
        return [self.specs[min(p, len(self.specs) - 1)] for p in range(g.nplayers)]

    def _failed(self, name, values, text, games, nplayers, why) -> Candidate:
        results = [_result(t, None) for t in self.targets]
        return Candidate(name, values, text, games, nplayers, results, CAP * len(self.targets), error=why)


def _result(t: Target, e: Estimate | None) -> TargetResult:
    if e is None:
        return TargetResult(t.text, t.measure, None, None, None, CAP)
    return TargetResult(t.text, t.measure, e.value, e.low, e.high, t.distance(e.value))


# -- the search ------------------------------------------------------------------------------


def balance(
    game,
    knobs: list[Knob | str],
    targets: list[Target | str],
    iterations: int = 60,
    games: int = 100,
    final_games: int = 400,
    keep: int = 3,
    seed: int = 0,
    specs: list[str] | None = None,
    workers: int = 1,
    engine: str = "auto",
    max_steps: int = 100_000,
    rungs: tuple = LADDER_RUNGS,
    ladder_games: int = LADDER_GAMES,
    k_explore: float = K_EXPLORE,
    progress=None,
    stop=None,
) -> BalanceResult:
    """Search values of ``knobs`` that bring ``game`` (a ``PreparedGame`` or a path) to ``targets``.

    ``knobs`` and ``targets`` are parsed ``Knob``/``Target`` objects or their specs as the
    command line takes them (``"GOAL=50..150"``, ``"decisions=60..90"``; ``BalanceError`` if one
    does not parse or names what the game does not declare).

    ``iterations`` evaluations of ``games`` games each, then the ``keep`` best and the original
    measured again on ``final_games`` fresh deals. ``specs``: players per seat (the last
    repeats; default random). ``progress(done)`` counts games played (of ``total_games``).
    Raises ``TimeoutError`` (``KeyboardInterrupt``) when ``stop`` ended the run before one
    evaluation was played; ``ValueError`` for settings out of range."""
    from ..engine.game import check_engine, load
    from .balance_spec import parse_targets, parse_varies
    from .stats import ENGINES
    from .stopping import as_stop

    if not isinstance(game, PreparedGame):
        game = load(game)
    check_engine(engine, ENGINES)
    if any(isinstance(k, str) for k in knobs):
        knobs = parse_varies([k for k in knobs if isinstance(k, str)], game) + [k for k in knobs if isinstance(k, Knob)]
    if any(isinstance(t, str) for t in targets):
        targets = parse_targets([t for t in targets if isinstance(t, str)]) + [
            t for t in targets if isinstance(t, Target)
        ]
    if iterations < 1 or games < 1 or final_games < 1 or keep < 1:
        raise ValueError("iterations, games, final games and keep must each be at least 1")
    if not knobs or not targets:
        raise ValueError("balance needs at least one knob and one target")
    stop = as_stop(stop)
    setup = _Setup(
        game.source.filename,
        game.max_work,
        targets,
        list(specs or ["random"]),
        max_steps,
        workers,
        engine,
        tuple(rungs),
        ladder_games,
    )
    text = game.source.text
    original_values = tuple(k.original for k in knobs)

    def point_values(point) -> tuple:
        return tuple(k.values[i] for k, i in zip(knobs, point))

    def named(values) -> dict:
        return {k.name: v for k, v in zip(knobs, values)}

    start = tuple(min(range(len(k.values)), key=lambda i: abs(k.values[i] - k.original)) for k in knobs)
    search = NTBEA([len(k.values) for k in knobs], random.Random(f"balance:{seed}"), start, k_explore=k_explore)
    final_deadline = stop.deadline
    t0 = time.perf_counter()
    per_eval = None  # seconds an evaluation took, the slowest seen
    history: list[dict] = []
    engines: dict = {}
    done = [0]

    def reserve():  # leave time for the final measurement (as evolve does for its comparison)
        if final_deadline is not None and per_eval is not None:
            budget = final_deadline - t0
            need = per_eval * (keep + 1) * final_games / games
            stop.deadline = final_deadline - min(max(need, budget / 4), budget / 2)

    seen: dict = {}  # point → its last evaluation in the search (kept if the final one is cut)
    for i in range(iterations):
        if stop():
            break
        point = search.ask()
        values = point_values(point)
        t1 = time.perf_counter()
        variant = variant_text(text, knobs, values)
        c = _guarded(stop, setup.measure, "", named(values), variant, games, evaluation_seed(seed, i), stop.deadline)
        if c is None:
            break
        search.tell(point, -c.distance)
        seen[point] = c
        played_by = c.engine or "not played"  # a variant that does not load
        engines[played_by] = engines.get(played_by, 0) + 1
        history.append({"evaluation": i, "values": named(values), "distance": c.distance, "error": c.error})
        per_eval = max(per_eval or 0.0, time.perf_counter() - t1)
        reserve()
        done[0] += games
        if progress:
            progress(done[0])
    stopped = "interrupted" if stop.interrupted else ("time" if stop() else None)
    stop.deadline = final_deadline
    if not history:
        if stop.interrupted:
            raise KeyboardInterrupt
        raise TimeoutError("the time budget ended before one variant was played")
    # the keep best by the model (the original aside: it is measured anyway), then the original
    todo = [(p, point_values(p)) for p in search.recommend(keep + 1) if point_values(p) != original_values][:keep]
    todo.append((start if point_values(start) == original_values else None, original_values))
    best: list[Candidate] = []
    original = None
    for point, values in todo:
        name = "original" if values == original_values else "variant"
        c = None
        if not stop():
            c = _guarded(stop, setup.measure, name, named(values), variant_text(text, knobs, values),
                         final_games, evaluation_seed(seed, -1), stop.deadline)  # fmt: skip
        if c is not None:
            done[0] += final_games
            if progress:
                progress(done[0])
        elif point in seen:  # no time left to measure it again: its figures from the search
            c = dataclasses.replace(seen[point], name=name, fresh=False)
        else:
            continue
        if point is not None:
            c.search_estimate = search.model.mean(point) if search.model.count(point) else None
            c.search_evaluations = search.model.count(point)
        if name == "original":
            original = c
        elif c.error is None:
            best.append(c)
    if stop() and stopped is None:
        stopped = "interrupted" if stop.interrupted else "time"
    best.sort(key=lambda c: (not c.fresh, c.distance))
    for k, c in enumerate(best, 1):
        c.name = f"variant-{k:02d}"
    return BalanceResult(
        game=game.name,
        filename=game.source.filename,
        seed=seed,
        knobs=[
            {"name": k.name, "original": k.original, "values": [k.values[0], k.values[-1]], "count": len(k.values)}
            for k in knobs
        ],
        targets=[t.text for t in targets],
        settings={
            "iterations": iterations,
            "games": games,
            "final_games": final_games,
            "keep": keep,
            "players": setup.specs,
            "engine": engine,
            "max_steps": max_steps,
            "k_explore": k_explore,
            "neighbours": search.neighbours,
            "ladder_rungs": list(rungs),
            "ladder_games": ladder_games,
        },
        original=original,
        best=best,
        history=history,
        stopped=stopped,
        engines=engines,
    )


def _guarded(stop, measure, *args):
    """``measure(*args)``, or None when Ctrl-C came while it played (the evaluation is dropped whole)."""
    try:
        stop.hold = False  # Ctrl-C in a long evaluation stops at once
        return measure(*args)
    except KeyboardInterrupt as exc:
        if not stop.catches(exc):
            raise
        return None
    finally:
        stop.hold = True


def total_games(iterations: int, games: int, final_games: int, keep: int) -> int:
    """The games a full run plays (the progress bar's total; the ladder's games not counted)."""
    return iterations * games + (keep + 1) * final_games


def report_lines(r: BalanceResult) -> list[str]:
    """The result as a human reads it: the best variants and the original, target by target."""
    s = r.settings
    lines = [
        f"{r.game}: NTBEA over {', '.join(k['name'] + '=' + str(k['values'][0]) + '..' + str(k['values'][1]) for k in r.knobs)}"
        f"; {len(r.history)} of {s['iterations']} evaluations of {s['games']} games "
        f"(seed {r.seed}, players {','.join(s['players'])}"
        + (", engines " + ", ".join(f"{e} {n}" for e, n in sorted(r.engines.items())) if r.engines else "")
        + ")",
    ]
    rows = list(r.best) + ([r.original] if r.original is not None else [])
    if any(c.fresh for c in rows):
        lines.append(f"measured again on {s['final_games']} fresh games each; 95% intervals in brackets; "
                     "distance 0 is on target")  # fmt: skip
    else:
        lines.append("stopped before the final measurement: the figures are of the search's games; 95% intervals")
    if not r.best:
        lines.append("no variant to report: the search played none but the original (the time ran out), or none loads")
    for c in rows:
        values = ", ".join(f"{k}={v}" for k, v in c.values.items())
        tried = f"; played {c.search_evaluations}x in the search" if c.search_evaluations else ""
        if not c.fresh:
            tried += f"; not measured again (no time left): the figures of {c.games} games of the search"
        lines.append(f"{c.name}: {values}  distance {c.distance:.3f}{tried}")
        if c.error:
            lines.append(f"  {c.error}")
            continue
        for t in c.targets:
            lines.append(f"  {t.target:<24} {_shown(t)}")
        if c.step_limit_share:
            lines.append(f"  {c.step_limit_share:.1%} of its games hit the step limit (left out of the figures)")
    return lines
