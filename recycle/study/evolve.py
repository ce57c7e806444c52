"""Evolving variants of a game: ``recycle evolve GAME`` (docs/evolve.md).

A *variant* is the game's source text changed by one or more mutation operators
(``recycle.study.mutations``). Every variant made is loaded and trial-played
(``validate``): one that does not load, hits the step limit or exceeds the work budget in a
trial game, or fails in play, is rejected. A valid variant is evaluated by ``games`` random
games (or the given line-up), played in chunks through ``recycle.study.parallel`` (one pool
per generation, any number of workers), each game seeded from the run's seed, the
generation and the variant, so the same seed gives the same evolution with any number of
workers. Its measures are the heuristics of ``recycle.study.analysis`` (the same
definitions) and its ``fitness`` a weighted mean of fairness, drama, lead changes and
length in a range.

The search is MAP-Elites (Mouret and Clune 2015): an archive keeps the fittest variant of
each cell of two behaviour descriptors, game length (relative to the original) and
decisiveness, and every new variant is a mutation of an elite drawn at random. The best
elites are then measured again on fresh deals by ``analysis.analyze`` (``compare``), which
removes the optimism of having been selected on their own games, and written as
``variant-NN.rcy`` files with a comment at the top saying what changed.

A variant may change the number of players (the ``constant`` operator on the declared count
of ``(create players 'NUMP)``): its games are then played by that many players, the given
``specs`` spread over its seats the same way (the last one repeats), and its measures are over
its own seats.

With a ``stopping.Stop`` (``--seconds``, Ctrl-C), no new variant is made and no new game is
started once it says stop: the variants whose games all finished are kept, and the result says
``stopped`` ("time" or "interrupted").
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import RecycleError, StepLimitExceeded, printable
from ..engine.game import PreparedGame, rollout_seed
from ..lang.syntax.reader import parse_text
from .evolve_fitness import (
    CHUNK,
    cell_of,
    evaluate_variants,
    first_line,
    fitness,
    length_of,
    measures,
    measures_of_summary,
    seat_specs,
    variant_seed,
)
from .mutations import OPERATORS, mutate

WEIGHTS = {"fairness": 1.0, "drama": 1.0, "lead_changes": 1.0, "length": 1.0}
LENGTH_RANGE = (0.5, 2.0)  # default length range, relative to the original's mean length
TRIAL_GAMES = 3  # random games a variant must finish to be evaluated
MAX_TRIES = 20  # attempts at a valid new variant per slot of a generation
TWO_MUTATIONS = 0.25  # chance that a child gets two mutations instead of one


@dataclass
class Variant:
    """A game text with its history and measures."""

    text: str
    changes: list[str]
    generation: int
    index: int
    measures: dict = field(default_factory=dict)
    fitness: float = 0.0
    cell: tuple = ()
    nplayers: int = 0

    @property
    def name(self) -> str:
        return "original" if not self.changes else f"g{self.generation}v{self.index}"


@dataclass
class EvolveResult:
    """What ``evolve`` found: the original, the archive of elites, the best variants (by
    fitness, best first), what happened in each generation, and the comparison of the best
    with the original once ``compare`` ran."""

    game: str
    filename: str
    seed: int
    settings: dict
    original: Variant
    archive: dict
    best: list
    history: list
    rejected: dict
    comparison: dict | None = None
    stopped: str | None = None  # "time" (the --seconds budget) or "interrupted" (Ctrl-C); None: ran to the end
    # what stepped the search's trial and traced games ("native", "reference" or "native and
    # reference": docs/engines.md) and, for look-ahead players, what played their playouts
    # (``engine_use.combined``: "native", "reference", "native and reference" or None)
    engine: str = "reference"
    playouts_engine: str | None = None

    def variant_text(self, v: Variant, number: int | None = None) -> str:
        """The variant's file text: a comment saying what changed, then the game."""
        return variant_header(self, v, number) + v.text

    def write(self, folder) -> list[Path]:
        """Write ``variant-NN.rcy`` for each of the best variants into ``folder`` (made if
        missing); returns the paths."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        paths = []
        for k, v in enumerate(self.best, 1):
            p = folder / f"variant-{k:02d}.rcy"
            p.write_text(self.variant_text(v, k), encoding="utf-8")
            paths.append(p)
        return paths

    def to_json(self) -> dict:
        """A JSON-ready summary (texts left out)."""

        def one(v):
            return {
                "name": v.name,
                "generation": v.generation,
                "changes": v.changes,
                "fitness": v.fitness,
                "players": v.nplayers,
                "cell": list(v.cell),
                "measures": v.measures,
            }

        return {
            "game": self.game,
            "seed": self.seed,
            "settings": self.settings,
            "original": one(self.original),
            "best": [one(v) for v in self.best],
            "archive_cells": len(self.archive),
            "history": self.history,
            "rejected": self.rejected,
            "comparison": self.comparison,
            "stopped": self.stopped,
            "engine": self.engine,
            "playouts_engine": self.playouts_engine,
        }


def variant_header(result: EvolveResult, v: Variant, number: int | None = None) -> str:
    """The comment at the top of a variant's file."""
    base = printable(Path(result.filename).name).replace("\n", " ")
    title = f"variant-{number:02d}" if number else v.name
    lines = [
        f";; {title}: a variant of {base} made by `recycle evolve` (seed {result.seed}, "
        f"generation {v.generation}, fitness {v.fitness:.3f}).",
        ";; What changed (each line number is of the text before that change):",
    ]
    lines += [f";;   {printable(c)}" for c in v.changes]
    lines.append(";; The rest is the original's text.")
    return "\n".join(lines) + "\n\n"


# -- validity --------------------------------------------------------------------------------


def validate(
    text: str,
    filename: str,
    seed: int = 0,
    max_steps: int = 100_000,
    max_work: int | None = None,
    trials: int = TRIAL_GAMES,
    engines: list | None = None,
) -> tuple[PreparedGame | None, str | None]:
    """``(game, None)`` for a valid variant, ``(None, reason)`` if not: it must load (what
    ``recycle check`` does) and finish ``trials`` random games within the step limit and the
    work budget, without a runtime error. The trial games are stepped natively wherever the
    variant builds (``engine="auto"``: a game native code stops is handed to the reference
    interpreter, which gives the same outcome and message); ``engines`` gets what played each."""
    try:
        game = PreparedGame.from_text(text, filename, max_work=max_work)
    except RecycleError as exc:
        return None, f"does not load: {first_line(exc)}"
    for k in range(trials):
        try:
            r = game.play(seed=rollout_seed(seed, k), max_steps=max_steps, engine="auto")
        except StepLimitExceeded:
            return None, "hits the step limit or the work budget in a trial game"
        except RecycleError as exc:
            return None, f"fails in a trial game: {first_line(exc)}"
        if engines is not None:
            engines.append(r.engine)
    return game, None


# -- the search ------------------------------------------------------------------------------


def evolve(
    game,
    generations: int = 10,
    population: int = 12,
    games: int = 200,
    seed: int = 0,
    workers: int = 1,
    specs: list[str] | None = None,
    keep: int = 5,
    weights: dict | None = None,
    length_range: tuple | None = None,
    operators: list[str] | None = None,
    max_steps: int = 100_000,
    progress=None,
    stop=None,
    compare_games: int = 0,
) -> EvolveResult:
    """Search variants of ``game`` (a ``PreparedGame`` or a path) by MAP-Elites.

    ``generations`` × ``population`` new valid variants, each evaluated by ``games`` games
    of ``specs`` (players per seat, the last repeats; default random; a variant with another
    number of players gets them spread the same way). ``keep``: how many of the best elites
    to return. ``weights``: of the fitness terms (``WEIGHTS``); ``length_range``: (low, high)
    mean length counted as ideal (default ``LENGTH_RANGE`` times the original's);
    ``operators``: the mutation operators used (default all). ``progress(done)`` counts games
    played. Same seed, same result, for any ``workers``.

    ``stop`` (a ``stopping.Stop``: a time limit, Ctrl-C): the search ends early with what it
    has; ``compare_games``: the games ``compare`` will play after it within the same time
    limit, for which the search leaves time (at the rate of the original's games, at most
    half of what is left)."""
    from ..engine.game import load
    from .stopping import as_stop

    if not isinstance(game, PreparedGame):
        game = load(game)
    if generations < 0 or population < 1 or games < 1 or keep < 1:
        raise ValueError("generations must be 0 or more; population, games and keep at least 1")
    unknown = [o for o in operators or [] if o not in OPERATORS]
    if unknown:
        raise ValueError(f"unknown mutation operator {unknown[0]!r}; known: {', '.join(OPERATORS)}")
    weights = dict(WEIGHTS if weights is None else weights)
    bad = [k for k in weights if k not in WEIGHTS]
    if bad or any(w < 0 for w in weights.values()) or not sum(weights.values()):
        raise ValueError(f"weights: give non-negative numbers, not all 0, for {', '.join(WEIGHTS)}")
    stop = as_stop(stop)
    np_ = game.nplayers
    given = list(specs or ["random"])
    specs = seat_specs(given, np_)
    filename = game.source.filename
    done = [0]
    used: list = []  # what played each game's playouts (``engine_use.game_playouts``)
    stepped: list = []  # what stepped each trial and traced game ("native" or "reference")

    def run(batch):
        before = done[0]
        per = math.ceil(games / CHUNK)
        sizes = []
        for _ in batch:
            sizes += [min(CHUNK, games - c * CHUNK) for c in range(per)]

        def tick(k):  # k chunks finished (in no particular order): about as many games
            if progress:
                progress(before + sum(sizes[:k]))

        recs = evaluate_variants(game, batch, games, given, max_steps, workers, tick, stop)
        done[0] = before + games * len(recs)
        used.extend(rec.get("playouts") for rs in recs for rec in rs)
        stepped.extend(rec.get("engine", "reference") for rs in recs for rec in rs if "error" not in rec)
        return recs

    original_text = game.source.text
    t0 = time.perf_counter()
    evaluated = run([{"text": original_text, "seed_of": (seed, 0, 0), "nplayers": np_}])
    if not evaluated:
        raise (
            KeyboardInterrupt
            if stop.interrupted
            else TimeoutError("the time limit ended before the original's games were played")
        )
    [recs] = evaluated
    final_deadline = stop.deadline
    per_game = (time.perf_counter() - t0) / games  # seconds a game, the slowest seen so far

    def leave_time():  # for the comparison: a quarter to a half of the budget, at the rate seen
        if final_deadline is not None and compare_games:
            budget = final_deadline - t0
            stop.deadline = final_deadline - min(max(per_game * compare_games, budget / 4), budget / 2)

    leave_time()
    m0 = measures(recs, np_)
    by = "decisions" if m0["decisions"] > 0 else "rounds"
    base_length = length_of(m0, by)
    if length_range is None:
        length_range = (LENGTH_RANGE[0] * base_length, LENGTH_RANGE[1] * base_length)
    original = Variant(original_text, [], 0, 0, m0, nplayers=np_)
    original.fitness, terms = fitness(m0, length_range, weights, by)
    original.measures["terms"] = terms
    original.cell = cell_of(m0, base_length, by)
    archive = {original.cell: original}
    seen = {original_text}
    history = []
    rejected: dict = {}
    for gen in range(1, generations + 1):
        if stop():
            break
        batch = _make_batch(
            archive,
            seen,
            rejected,
            seed,
            gen,
            population,
            operators,
            filename,
            max_steps,
            game.max_work,
            stop,
            np_,
            engines=stepped,
        )
        new_elites = 0
        t1 = time.perf_counter()
        results = run(batch) if batch and not stop() else []
        if results:  # the variants may play slower than the original (longer games, another engine)
            per_game = max(per_game, (time.perf_counter() - t1) / (games * len(results)))
            leave_time()
        for v, recs in zip(batch, results):
            m = measures(recs, v["nplayers"])
            var = Variant(v["text"], v["changes"], gen, v["index"], m, nplayers=v["nplayers"])
            var.fitness, terms = fitness(m, length_range, weights, by)
            var.measures["terms"] = terms
            var.cell = cell_of(m, base_length, by)
            held = archive.get(var.cell)
            if held is None or var.fitness > held.fitness:
                archive[var.cell] = var
                new_elites += 1
        if not results and stop():
            break  # stopped before any variant of this generation was played
        history.append(
            {
                "generation": gen,
                "evaluated": len(results),
                "new_elites": new_elites,
                "cells": len(archive),
                "best_fitness": max(v.fitness for v in archive.values()),
            }
        )
    stopped = "interrupted" if stop.interrupted else ("time" if stop() else None)
    stop.deadline = final_deadline
    best = sorted((v for v in archive.values() if v.changes), key=lambda v: (-v.fitness, v.generation, v.index))[:keep]
    settings = {
        "generations": generations,
        "population": population,
        "games": games,
        "players": specs,
        "weights": weights,
        "length_range": list(length_range),
        "length_by": by,
        "operators": list(operators or OPERATORS),
        "max_steps": max_steps,
        "max_work": game.max_work,
    }
    from .engine_use import combined

    return EvolveResult(
        game.name,
        filename,
        seed,
        settings,
        original,
        archive,
        best,
        history,
        rejected,
        stopped=stopped,
        engine=combined(stepped) or "reference",
        playouts_engine=combined(used),
    )


def _make_batch(
    archive,
    seen,
    rejected,
    seed,
    gen,
    population,
    operators,
    filename,
    max_steps,
    max_work,
    stop,
    nplayers,
    engines=None,
) -> list:
    """Up to ``population`` new valid variants of generation ``gen`` (fewer once ``stop`` says
    stop); ``seen`` and ``rejected`` are updated, ``engines`` gets what stepped each trial game. A variant of a game of ``nplayers`` (2 or
    more) that leaves one player is rejected: a game against nobody is trivially fair."""
    batch = []
    for k in range(population):
        rng = random.Random(variant_seed(seed, gen, k))
        for _ in range(MAX_TRIES):
            if stop():
                return batch
            parents = [archive[c] for c in sorted(archive)]
            parent = parents[rng.randrange(len(parents))]
            text, changes = parent.text, list(parent.changes)
            for _ in range(2 if rng.random() < TWO_MUTATIONS else 1):
                mut = mutate(parse_text(text, filename), rng, operators)
                if mut is None:
                    break
                text = mut.apply(text)
                changes.append(mut.description)
            if text in seen:
                rejected["already made"] = rejected.get("already made", 0) + 1
                continue
            try:
                stop.hold = False  # Ctrl-C in a long trial game stops at once
                variant, reason = validate(
                    text, filename, variant_seed(seed, gen, k), max_steps, max_work, engines=engines
                )
            except KeyboardInterrupt as exc:
                if not stop.catches(exc):
                    raise
                return batch
            finally:
                stop.hold = True
            seen.add(text)
            if not reason and variant.nplayers < 2 <= nplayers:
                reason = "leaves a single player"
            if reason:
                key = reason.split(":")[0]
                rejected[key] = rejected.get(key, 0) + 1
                continue
            batch.append(
                {"text": text, "changes": changes, "seed_of": (seed, gen, k), "index": k, "nplayers": variant.nplayers}
            )
            break
    return batch


def compare(result: EvolveResult, games: int | None = None, workers: int = 1, progress=None, stop=None) -> dict:
    """Measure the original and every best variant again with ``analysis.analyze`` on the same
    fresh deals (seed derived from the run's, never used by the search), so the figures are
    free of the selection's optimism; sets and returns ``result.comparison``.

    ``stop`` (a ``stopping.Stop``): once it says stop, the variants not measured again on all
    the deals are left out of the rows (named in ``not_measured``)."""
    from .analysis import analyze

    games = games or result.settings["games"]
    given = result.settings["players"]
    seed = variant_seed(result.seed, -1, 0)
    rows = []
    done = [0]
    variants = [result.original] + result.best
    for v in variants:
        if stop is not None and stop():
            break
        g = PreparedGame.from_text(v.text, result.filename, max_work=result.settings["max_work"])
        base = done[0]
        try:
            a = analyze(
                g,
                games,
                seed,
                seat_specs(given, g.nplayers),
                result.settings["max_steps"],
                workers=workers,
                keep_games=False,
                stop=stop,
                progress=(lambda k, base=base: progress(base + k)) if progress else None,
            ).to_dict()
        except (KeyboardInterrupt, TimeoutError):
            if stop is None or not stop():
                raise
            break
        if a["games"] < games:  # cut short: not the same deals as the others
            break
        done[0] += games
        m = measures_of_summary(a)
        f, terms = fitness(
            m, tuple(result.settings["length_range"]), result.settings["weights"], result.settings["length_by"]
        )
        a["branching"].pop("by_index", None)
        rows.append(
            {
                "name": v.name,
                "changes": v.changes,
                "fitness_in_search": v.fitness,
                "fitness": f,
                "terms": terms,
                "measures": m,
                "analysis": a,
            }
        )
    if not rows:
        result.comparison = None
        return None
    result.comparison = {
        "games": games,
        "seed": seed,
        "rows": rows,
        "not_measured": [v.name for v in variants[len(rows) :]],
    }
    if stop is not None and stop() and result.stopped is None:
        result.stopped = "interrupted" if stop.interrupted else "time"
    return result.comparison
