"""The N-Tuple Bandit Evolutionary Algorithm (NTBEA), for noisy and expensive searches over a
few discrete parameters: ``recycle balance`` (docs/balance.md).

NTBEA is Lucas, Liu and Perez-Liebana's (2018), "The N-Tuple Bandit Evolutionary Algorithm
for Game Agent Optimisation" (IEEE CEC; arXiv:1802.05991), as the Tabletop Games Framework
(TAG) runs it (``evaluation/optimisation/ntbea``: ``NTupleBanditEA``, ``NTupleSystem``).
Written here from the paper's definition:

* A *point* is one value index per dimension. Every evaluation of a point (one noisy
  fitness, higher is better) is added to an *N-tuple landscape model*: for each tuple of
  dimensions — every single dimension, every pair, and all of them together (TAG's default:
  1-, 2- and N-tuples) — the count and the sum of the fitness of every combination of values
  of those dimensions seen so far.
* The model's *mean estimate* of a point is the mean, over the tuples whose combination of
  the point's values was seen, of that combination's mean fitness (0 when none was seen).
  Its *upper bound* adds ``k_explore`` times the mean over all tuples of the exploration term
  ``sqrt(log((1 + n_tuple) / (epsilon + n_combination)))`` — ``n_tuple`` the evaluations the
  tuple has seen, ``n_combination`` those of the point's combination (UCB1-like: a value
  combination seldom tried looks promising).
* The search holds one *current* point. Each iteration evaluates it once, adds the result to
  the model, then makes ``neighbours`` mutants of it (each dimension changed to another value,
  with probability 1/d; at least one dimension changed) and moves to the mutant with the
  highest upper bound — the mutants are judged by the model alone, never played. The first
  point is given (``start``) or drawn at random.
* Where ours differs from TAG's: TAG draws a changed dimension's new value uniformly; our
  dimensions are ordered integers (a constant's range), so with probability ``local`` (0.5)
  the new value is a neighbour (one or two steps up or down) and otherwise uniform. With
  ``local=0`` the search is TAG's.
* The *recommendation* is the evaluated point with the highest mean estimate (no
  exploration): the model pools every evaluation that shares values with a point, which is
  what makes NTBEA sample-efficient on noisy fitness.

Everything is driven by one ``random.Random``: the same seed gives the same search.
``NTBEA.ask()`` gives the point to evaluate next and ``tell(point, fitness)`` reports it,
so the caller decides how (and whether, under a time budget) a point is played.
"""

from __future__ import annotations

import itertools
import math
import random

EPSILON = 0.1  # TAG's NTupleSystem.epsilon: keeps the exploration term finite for an unseen combination
K_EXPLORE = 1.0  # exploration weight, for a fitness on the scale of about 1 (ours: minus a distance)
NEIGHBOURS = 50  # mutants judged by the model per iteration (TAG's default; fewer in a small space)
LOCAL = 0.5  # chance that a changed value moves to a neighbour rather than anywhere (ordered values)


class NTupleModel:
    """The N-tuple landscape model over dimensions of ``sizes[d]`` values each."""

    def __init__(self, sizes: list[int], k_explore: float = K_EXPLORE, epsilon: float = EPSILON):
        self.sizes = list(sizes)
        d = len(sizes)
        tuples = [(i,) for i in range(d)]
        tuples += list(itertools.combinations(range(d), 2)) if d > 2 else []
        if d > 1:
            tuples.append(tuple(range(d)))
        self.tuples = tuples
        # per tuple: {values of its dimensions: [count, sum of fitness]}
        self.stats: list[dict] = [{} for _ in tuples]
        self.samples = [0] * len(tuples)
        self.k_explore = k_explore
        self.epsilon = epsilon
        self.points: list[tuple] = []  # every point evaluated, in order (repeats included)

    def add(self, point: tuple, fitness: float) -> None:
        """Add one evaluation of ``point``."""
        for t, dims in enumerate(self.tuples):
            key = tuple(point[i] for i in dims)
            cell = self.stats[t].setdefault(key, [0, 0.0])
            cell[0] += 1
            cell[1] += fitness
            self.samples[t] += 1
        self.points.append(tuple(point))

    def _cells(self, point: tuple):
        for t, dims in enumerate(self.tuples):
            yield t, self.stats[t].get(tuple(point[i] for i in dims))

    def mean(self, point: tuple) -> float:
        """The mean over the tuples that saw the point's values of their mean fitness (0 if none)."""
        means = [c[1] / c[0] for _, c in self._cells(point) if c]
        return sum(means) / len(means) if means else 0.0

    def count(self, point: tuple) -> int:
        """How many evaluations of exactly this point the model holds."""
        cell = self.stats[-1].get(tuple(point))
        return cell[0] if cell else 0

    def upper_bound(self, point: tuple) -> float:
        """The mean estimate plus ``k_explore`` times the mean exploration term."""
        terms = [
            math.sqrt(max(0.0, math.log((1 + self.samples[t]) / (self.epsilon + (c[0] if c else 0)))))
            for t, c in self._cells(point)
        ]
        return self.mean(point) + self.k_explore * sum(terms) / len(terms)

    def ranked(self) -> list[tuple]:
        """The distinct points evaluated, best mean estimate first (ties: the first evaluated)."""
        seen = list(dict.fromkeys(self.points))
        order = {p: k for k, p in enumerate(seen)}
        return sorted(seen, key=lambda p: (-self.mean(p), order[p]))


class NTBEA:
    """One NTBEA search over dimensions of ``sizes[d]`` values (ask/tell)."""

    def __init__(
        self,
        sizes: list[int],
        rng: random.Random,
        start: tuple | None = None,
        neighbours: int = NEIGHBOURS,
        k_explore: float = K_EXPLORE,
        local: float = LOCAL,
    ):
        if not sizes or any(s < 1 for s in sizes):
            raise ValueError("NTBEA needs at least one dimension, each with at least one value")
        self.model = NTupleModel(sizes, k_explore)
        self.rng = rng
        space = math.prod(sizes)
        # TAG: at most a quarter of the space, at least 5
        self.neighbours = max(5, min(neighbours, space // 4))
        self.local = local
        self.current = tuple(start) if start is not None else tuple(rng.randrange(s) for s in sizes)

    def ask(self) -> tuple:
        """The point to evaluate next."""
        return self.current

    def tell(self, point: tuple, fitness: float) -> None:
        """Report one evaluation of ``point`` (higher is better) and move to the next point."""
        self.model.add(point, fitness)
        self.current = self._next(tuple(point))

    def _mutant(self, point: tuple) -> tuple:
        sizes = self.model.sizes
        free = [d for d, s in enumerate(sizes) if s > 1]
        if not free:
            return point
        new = list(point)
        changed = False
        for d in free:
            if self.rng.random() < 1 / len(sizes):
                new[d] = self._other(d, point[d])
                changed = True
        if not changed:
            d = free[self.rng.randrange(len(free))]
            new[d] = self._other(d, point[d])
        return tuple(new)

    def _other(self, d: int, value: int) -> int:
        """Another value of dimension ``d``: a neighbour with probability ``local``, else any, uniformly."""
        size = self.model.sizes[d]
        if self.rng.random() < self.local:
            near = [v for v in (value - 2, value - 1, value + 1, value + 2) if 0 <= v < size]
            return near[self.rng.randrange(len(near))]
        v = self.rng.randrange(size - 1)
        return v + 1 if v >= value else v

    def _next(self, point: tuple) -> tuple:
        best, best_ub = point, -math.inf
        for _ in range(self.neighbours):
            m = self._mutant(point)
            ub = self.model.upper_bound(m)
            if ub > best_ub:
                best, best_ub = m, ub
        return best

    def recommend(self, k: int = 1) -> list[tuple]:
        """The ``k`` evaluated points with the best mean estimates, best first."""
        return self.model.ranked()[:k]
