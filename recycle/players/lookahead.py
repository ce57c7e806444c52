"""Computer players that never peek: greedy, PIMC, ISMCTS, and an omniscient (cheating) MCTS.

Every player here decides from its ``Observation`` only. (The runner hands these players,
registered with ``privileged``, the live ``Observation``: they need ``sample_world``, and
they read nothing else of the state.) It looks ahead by *sampling
worlds* (``Observation.sample_world``): a copy of the state at the current decision in
which every card the player neither sees nor knows the place of is re-dealt among such
places, and the future randomness is reseeded. From there it steps the copy with
``clone``/``apply`` and finishes games with ``play_randomly``, or in machine code where the
game is native (``playouts``: recycle/native/playouts.py; an ISMCTS decision's whole search,
where the game's search module is made: recycle/native/runtime_search.py; the same decisions
either way). A player therefore never learns which of the consistent worlds is the true one.

Budgets count iterations (rollouts), never seconds, and each player draws only from the
``rng`` passed to ``choose``, so a game with a given seed is played the same way every time.
Two more bounds keep a decision's time in check whatever the game: at most
``MAX_CONSIDERED`` options of a decision are looked at (a random sample of them when there
are more), and the simulations of one decision share one work budget (``max_work``; by
default a fifth of the game's budget per simulation, 2,000,000 units: three times what the
hungriest game of the corpus costs, and never more than ``DECISION_SHARE`` times the game's
budget for all of them, whatever the iterations asked); when it runs out, the player decides
on what it has simulated so far. Either is said once per player, in
``warnings`` and on the ``recycle.players`` logger. A budget is at most ``MAX_BUDGET``
iterations: a game record names its players, and a record is untrusted input.

**Estimates** (for ``recycle page``: recycle/study/estimates.py). Set ``track_scores`` on a
PIMC or ISMCTS player and after each decision ``last_scores`` holds, per option, every
player's mean final score over the simulations that began with that option (None for an
option never simulated): the player's own estimate of where each option leads. Tracking only
adds up scores the simulations already had; it draws nothing, so the player decides exactly as
it would without it. (An ISMCTS player that tracks keeps its search in Python, with the native
playouts where there are any: the machine-code search keeps no scores; the decisions are the
same either way, draw for draw.)

Rewards (the ``reward`` argument, ``"win"`` by default) are in [0, 1] for every player:

* ``win``: 1/k for each of the k players tied for best final score, 0 for the others;
* ``score``: (v - worst) / (best - worst) with the game's direction (``scoring max|min``);
  every player gets 0.5 when all scores are equal.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Callable

from ..errors import RecycleRuntimeError
from ..engine.options import option_key, option_keys
from ..engine.runner import privileged
from ..lang.forms.items import shuffle as _shuffle
from ..streams import MASK, Stream, mix64

REWARDS = ("win", "score")
# who plays the look-ahead's playouts: the native engine whenever the game builds ("auto"; built
# at the first decision, a fraction of a second), the same or an error ("native"), or always the
# reference interpreter ("reference");
# the same decisions
PLAYOUT_ENGINES = ("auto", "native", "reference")
# options of one decision a look-ahead player considers at most (a random sample beyond)
MAX_CONSIDERED = 64
# a decision's simulations may use 1/SIMULATION_SHARE of the game's work budget each, on
# average (2,000,000 units by default: three times the hungriest game of the corpus)
SIMULATION_SHARE = 5
# ... and all of one decision's simulations at most DECISION_SHARE times the game's budget
# (100,000,000 units by default, about 15 s of play), however many iterations were asked
DECISION_SHARE = 10
# the largest budget (iterations per decision) a player may be given
MAX_BUDGET = 100_000
_log = logging.getLogger("recycle.players")
_SPENT = "the simulations of a decision used up its work budget (max_work); it decides on fewer simulations"


# -- sampling worlds -----------------------------------------------------------------------


class DealRng(Stream):
    """The generator handed to ``View.rollout``: its re-deal depends on the view alone.

    ``determinize`` already sorts the unseen cards of each deck family before shuffling,
    so any generator deals a world that depends on the view only. This one also gives
    each family a stream of its own (keyed by the key and the family), so the world
    dealt to one family does not shift when another family's size changes. A family dealt
    again by the same generator (a world ``sample_world`` rejected) gets another deal.
    Its own draws (the world's future, ``getrandbits``) are the stream keyed by ``key``.
    """

    def __init__(self, key: int):
        self.key, self.count, self.gauss_next = key & MASK, 0, None
        self.dealt: dict = {}  # family (lowest card, size) -> how often it was dealt

    def shuffle(self, x) -> None:  # same contract as random.Random.shuffle
        x.sort()
        if x:
            low, size = int(x[0]), len(x)
            again = self.dealt.get((low, size), 0)
            self.dealt[low, size] = again + 1
            # the family's own key, from integers (no hashing of text): the family's lowest
            # card and size, then how often it was dealt, so that a world dealt again
            # (sample_world's retry) is another deal
            family = mix64(((low << 32) + size) & MASK)
            key = mix64(self.key ^ family) ^ again
            _shuffle(x, Stream.keyed(mix64(key)).random)


def finish_randomly(world, draw):
    """Play ``world`` to its end at random; its final scores, or None if it hits the step
    limit or breaks a rule of the game (a sampled world can be impossible: one where a card
    the game's flow depended on lies elsewhere)."""
    try:
        world.play_randomly(draw)
    except RecycleRuntimeError:
        return None
    return world.scores


def rewards(scores, higher_wins: bool, mode: str = "win") -> list[float]:
    """Each player's reward in [0, 1] for final ``scores`` (see the module docstring)."""
    best = max(scores) if higher_wins else min(scores)
    if mode == "win":
        k = sum(1 for v in scores if v == best)
        return [1.0 / k if v == best else 0.0 for v in scores]
    worst = min(scores) if higher_wins else max(scores)
    if best == worst:
        return [0.5] * len(scores)
    span = best - worst
    return [(v - worst) / span for v in scores]


# -- players ---------------------------------------------------------------------------------


class _AIPlayer:
    needs_view = True
    kind = "?"
    default_budget = 100
    searches = False  # does it search natively (the game's search module: recycle/native/runtime_search.py)?
    determinize = True  # re-deal the cards it cannot see (False: the omniscient cheat)

    def __init__(self, budget: int | None = None, reward: str = "win", playouts: str = "auto", deduce: bool = False):
        self.budget = int(budget if budget is not None else self.default_budget)
        if self.budget < 1:
            raise ValueError(f"{self.kind}: the budget must be at least 1")
        if self.budget > MAX_BUDGET:
            raise ValueError(f"{self.kind}: the budget must be at most {MAX_BUDGET:,} iterations")
        if reward not in REWARDS:
            raise ValueError(f"unknown reward {reward!r}; known: {', '.join(REWARDS)}")
        self.reward = reward
        from ..engine.game import check_engine

        check_engine(playouts, PLAYOUT_ENGINES)
        self.playouts = playouts
        self._native: tuple = (None, None)  # (game, its NativePlayouts or None)
        self.playouts_used: set = set()  # "native" / "reference": who played its decisions' playouts
        # sample only worlds in which the others' earlier choices were legal (engine/deduce.py)
        self.deduce = bool(deduce)
        if self.deduce and not self.determinize:
            raise ValueError(f"{self.kind} sees the true cards: it has nothing to deduce")
        self.name = f"{self.kind}:{self.budget}" + (":deduce" if self.deduce else "")
        # what its deduction-aware samples did, over all its decisions (Observation.deduction)
        self.deduction = {"worlds": 0, "rejected": 0, "fallbacks": 0}
        self.last_values: list[float] | None = None  # per option, from the last decision
        self.track_scores = False  # keep ``last_scores`` (see the module docstring)
        self.last_scores: list | None = None  # per option: each player's mean final score, or None
        self.max_work: int | None = None  # work budget of one decision's simulations (None: the game's)
        self.warnings: list[str] = []  # what this player had to cut short, each said once
        # None, or a function that says True when a search must end now (a hint no longer
        # wanted, a table dealt again, a time limit): the search stops after the iteration under
        # way, and decides on what it has. None keeps decisions exactly reproducible.
        self.stop: Callable[[], bool] | None = None

    def __repr__(self) -> str:
        return self.name

    def sample(self, view, rng, reveal: frozenset = frozenset()):
        """A world from ``view`` (``sample_world``), deduction-aware when ``deduce`` is set:
        its counts are added to ``deduction``, and a sample that had to fall back to a plain
        world is said once (``warn``)."""
        if not self.deduce:
            return view.sample_world(rng, self.determinize, reveal)
        got = view.deduction
        before = {k: got[k] for k in self.deduction}
        world = view.sample_world(rng, self.determinize, reveal, deduce=True)
        for k in self.deduction:
            self.deduction[k] += got[k] - before[k]
        if got["fallbacks"] != before["fallbacks"]:
            self.warn(got["why"])
        return world

    def stopped(self) -> bool:
        """Must the search under way end now (``stop``)? Checked between iterations."""
        return self.stop is not None and bool(self.stop())

    def __getstate__(self) -> dict:
        # a copy for another process makes its own native playouts (machine code is per process)
        state = dict(self.__dict__)
        state["stop"] = None  # a stop belongs to its caller's process
        state["_native"] = (None, None)
        return state

    def warn(self, message: str) -> None:
        """Say ``message`` once for this player (``warnings`` and the ``recycle.players`` log)."""
        if message not in self.warnings:
            self.warnings.append(message)
            _log.warning("%s: %s", self.name, message)

    def native_playouts(self, view):
        """(the game's ``NativePlayouts``, this decision's ``Root``), or (None, None) when the
        playouts are Python's here (see ``playouts`` and recycle/native/playouts.py)."""
        game = view.game
        if self._native[0] is not game:
            from ..native import native_playouts

            self._native = (game, native_playouts(game, self.playouts, self.searches))
        native = self._native[1]
        root = native.root(view) if native is not None else None
        self.playouts_used.add("native" if root is not None else "reference")
        return (native, root) if root is not None else (None, None)

    def considered(self, n: int, rng: random.Random) -> list[int]:
        """The options looked at: all of them, or a sorted random sample of MAX_CONSIDERED."""
        if n <= MAX_CONSIDERED:
            return list(range(n))
        self.warn(
            f"a decision had more than {MAX_CONSIDERED} options; it looks at a random sample of "
            f"{MAX_CONSIDERED} of them"
        )
        return sorted(rng.sample(range(n), MAX_CONSIDERED))

    def work_left(self, view, simulations: int) -> list:
        """A decision's work budget, as a one-element list its simulations draw from:
        ``max_work`` when set, else ``SIMULATION_SHARE`` of the game's per simulation, up to
        ``DECISION_SHARE`` times the game's budget in all."""
        if self.max_work is not None:
            return [self.max_work]
        game_work = view.game.max_work
        return [min(max(1, simulations) * (game_work // SIMULATION_SHARE), DECISION_SHARE * game_work)]

    def budgeted(self, world, left: list):
        """``world`` limited to the decision's budget left; returns the work it had."""
        world.work = min(world.work, left[0])
        return world.work

    def spent(self, world, had: int, left: list, view=None, finished: bool = True) -> bool:
        """Take what ``world`` used from the budget; False (and say so) once it is spent.

        A simulation that did not reach its end (``finished`` False: cut by the step limit
        or the work budget, or an impossible world) is also charged to the game's own work
        budget through ``view``: in a game that never ends every simulation is cut, and the
        game must stop with the work budget's message instead of spending a decision's whole
        budget at each of its 100,000 steps (days)."""
        used = had - world.work
        left[0] -= used
        if not finished and view is not None and hasattr(view, "spend_work"):
            view.spend_work(used)
        if left[0] > 0:
            return True
        self.warn(_SPENT)
        return False


@privileged
class GreedyPlayer(_AIPlayer):
    """One-ply look-ahead on the game's own scoring: apply each option, score the state.

    The budget is the number of sampled worlds per option (the worlds are shared by all
    options). The value of an option is the player's own ``scoring`` value right after
    it, at the next decision with two or more options or at the end (negated for
    ``scoring min``); ties are broken at random.
    In games that set the scores only at the end, this is close to a random player.
    """

    kind = "greedy"
    default_budget = 3

    def choose(self, view, options, rng: random.Random) -> int:
        n = len(options)
        me = view.player
        game = view.game
        sign = 1 if game.scoring_max else -1
        looked = self.considered(n, rng)
        totals = [0.0] * n
        counts = [0] * n
        left = self.work_left(view, self.budget * len(looked))
        going = True
        for done in range(self.budget):
            if done and self.stopped():
                break
            world = self.sample(view, DealRng(rng.getrandbits(64)))
            left[0] -= n  # listing the options again in that world
            for i in looked:
                t = world.clone()
                had = self.budgeted(t, left)
                score = self._score_after(game, t, i, me)
                totals[i] += 0.0 if score is None else sign * score
                counts[i] += 1
                going = self.spent(t, had, left, view, score is not None)
                if not going:
                    break
            if not going:
                break
        return _best_of(self, totals, counts, rng, looked, not going)

    @staticmethod
    def _score_after(game, t, i: int, me: int) -> float | None:
        """The player's score after option ``i`` in ``t`` (a copy of a world, changed); None
        when the option breaks a rule there or the world runs too long (it scores nothing)."""
        try:
            t.apply(i)
            while not t.is_terminal() and t.num_options() == 1:  # on to the next real decision
                t.apply(0)
            scores = t.scores if t.is_terminal() else game.final_scores(t)
        except RecycleRuntimeError:
            return None
        return float(scores[me])


@privileged
class PIMCPlayer(_AIPlayer):
    """Perfect-information Monte Carlo: sample worlds, play every option out randomly.

    For each sampled world (consistent with the view), every option is played at the
    root and the game is finished by random players; the same world and the same random
    numbers serve all options (common random numbers). The budget is the total number
    of rollouts per decision (at least one world). The option with the best mean reward
    for this player is chosen, ties at random.
    """

    kind = "pimc"
    default_budget = 200

    def choose(self, view, options, rng: random.Random) -> int:
        n = len(options)
        looked = self.considered(n, rng)
        worlds = max(1, self.budget // len(looked))
        higher = view.game.scoring_max
        me = view.player
        totals = [0.0] * n
        counts = [0] * n
        sums = _ScoreSums(n, view.game.nplayers) if self.track_scores else None
        left = self.work_left(view, worlds * len(looked))
        native, here = self.native_playouts(view)
        going = True
        for done in range(worlds):
            if done and self.stopped():
                break
            world = self.sample(view, DealRng(rng.getrandbits(64)))
            left[0] -= n  # listing the options again in that world
            play_seed = rng.getrandbits(64)
            places = native.world_places(here, world) if native is not None else None
            for i in looked:
                if places is not None:
                    had = min(world.work, left[0])
                    got = native.play(
                        here, places, world.rng.getstate()[:2], had, [i] if n > 1 else [], Stream.keyed(play_seed)
                    )
                    if got is not None:  # finished natively
                        scores, _steps, work = got
                        left[0] -= had - work
                        totals[i] += rewards(scores, higher, self.reward)[me]
                        counts[i] += 1
                        if sums is not None:
                            sums.add(i, scores)
                        if left[0] <= 0:
                            self.warn(_SPENT)
                            going = False
                            break
                        continue
                t = world.clone()
                had = self.budgeted(t, left)
                try:
                    t.apply(i)
                except RecycleRuntimeError:  # an impossible world (see finish_randomly)
                    going = self.spent(t, had, left, view, False)
                    if not going:
                        break
                    continue
                scores = finish_randomly(t, Stream.keyed(play_seed).random)
                going = self.spent(t, had, left, view, scores is not None)
                if scores is not None:
                    totals[i] += rewards(scores, higher, self.reward)[me]
                    counts[i] += 1
                    if sums is not None:
                        sums.add(i, scores)
                if not going:
                    break
            if not going:
                break
        self.last_scores = sums.means() if sums is not None else None
        return _best_of(self, totals, counts, rng, looked, not going)


class _Node:
    __slots__ = ("children", "visits", "reward", "avail")

    def __init__(self):
        self.children: dict = {}
        self.visits = 0
        self.reward = 0.0
        self.avail = 1


@privileged
class ISMCTSPlayer(_AIPlayer):
    """Single-observer information-set MCTS (Cowling, Powley and Whitehouse 2012).

    Each iteration samples a world consistent with the view and walks one tree shared by
    all worlds: at each decision (anyone's) the children are the options legal in this
    world, keyed by ``option_key`` (the root by option index). Selection is UCB1 with
    availability counts, one node is expanded per iteration, the rest of the game is
    played at random, and each node on the path gets the reward of the player who chose
    it. The budget is the number of iterations; the most visited root option is played.
    """

    kind = "ismcts"
    default_budget = 200
    searches = True
    determinize = True
    exploration = 0.7
    reveal: frozenset = frozenset()  # locations seen beyond the rules (RevealingPlayer)

    def choose(self, view, options, rng: random.Random) -> int:
        root = _Node()
        higher = view.game.scoring_max
        c = self.exploration
        if len(options) == 1:
            self.last_values, self.last_visits, self.last_scores = [0.0], [0], None
            return 0
        key_cache: dict = {}
        n = len(options)
        looked = self.considered(n, rng)
        left = self.work_left(view, self.budget)
        native, here = self.native_playouts(view) if type(rng) is Stream else (None, None)
        sums = _ScoreSums(n, view.game.nplayers) if self.track_scores else None
        self.last_scores = None
        # the machine-code search deals plain worlds: a deducing player searches in Python
        if native is not None and sums is None and self.stop is None and not self.deduce:
            got = native.search(
                here,
                view,
                looked,
                self.budget,
                left[0],
                rng,
                self.reward,
                self.exploration,
                self.determinize,
                self.reveal,
            )
            if got is not None:  # the whole search in machine code: the same tree, draw for draw
                visits, sums, spent, unfinished, _ = got
                if spent:
                    self.warn(_SPENT)
                if unfinished and hasattr(view, "spend_work"):
                    view.spend_work(unfinished)
                return self._most_visited(visits, [t / v if v else 0.0 for t, v in zip(sums, visits)], rng)
        for done in range(self.budget):
            if done and self.stopped():
                break
            world = self.sample(view, DealRng(rng.getrandbits(64)), self.reveal)
            left[0] -= n  # listing the options again in that world
            had = self.budgeted(world, left)
            places = native.world_places(here, world) if native is not None else None
            future = world.rng.getstate()[:2]
            path: list = []
            node = root
            try:
                while not world.is_terminal():
                    opts = world._raw_options()
                    if len(opts) == 1 and node is not root:
                        world.apply(0)
                        continue
                    p = world.pstack[-1][0]
                    # the root's options are the player's own (by index); deeper ones may
                    # differ between worlds, so they are told apart by what they do
                    if node is root:
                        keyed = [(i, i) for i in looked]
                    elif len(opts) <= MAX_CONSIDERED:
                        keyed = list(enumerate(option_keys(opts, key_cache)))
                    else:
                        idx = sorted(rng.sample(range(len(opts)), MAX_CONSIDERED))
                        keyed = [(i, option_key(opts[i], key_cache)) for i in idx]
                    children = node.children
                    untried = []
                    best_i, best_child, best_ucb = -1, None, -1.0
                    seen = set()
                    for i, k in keyed:
                        if k in seen:
                            continue
                        seen.add(k)
                        ch = children.get(k)
                        if ch is None:
                            untried.append((i, k))
                            continue
                        ch.avail += 1
                        if not untried:
                            ucb = (
                                ch.reward / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                                if ch.visits
                                else float("inf")
                            )
                            if ucb > best_ucb:
                                best_i, best_child, best_ucb = i, ch, ucb
                    if untried:
                        i, k = untried[int(rng.random() * len(untried))]
                        ch = children[k] = _Node()
                        path.append((ch, p, i))
                        got = None
                        if places is not None:
                            got = native.play(here, places, future, had, world.history[len(here.history) :] + [i], rng)
                        if got is None:
                            world.apply(i)
                            world.play_randomly(rng.random)
                        else:  # finished natively: the world keeps its scores and counters, not its cards
                            world.scores, world.steps, world.work = got
                            world.frames = world.waiting = world.options = None
                        break
                    path.append((best_child, p, best_i))
                    node = best_child
                    world.apply(best_i)
            except RecycleRuntimeError:  # the step limit, or an impossible world (see finish_randomly)
                if not self.spent(world, had, left, view, False):
                    break
                continue
            r = rewards(world.scores, higher, self.reward)
            if sums is not None and path:
                sums.add(path[0][2], world.scores)
            for ch, p, _i in path:
                ch.visits += 1
                ch.reward += r[p]
            if not self.spent(world, had, left):
                break
        visits = [0] * n
        means = [0.0] * n
        for i, ch in root.children.items():
            visits[i] = ch.visits
            means[i] = ch.reward / ch.visits if ch.visits else 0.0
        if sums is not None:
            self.last_scores = sums.means()
        return self._most_visited(visits, means, rng)

    def _most_visited(self, visits: list, means: list, rng) -> int:
        """The root option visited most (ties: the best mean, then the first); sets
        ``last_values`` and ``last_visits``."""
        n = len(visits)
        self.last_values = means
        self.last_visits = visits
        if not any(visits):
            return int(rng.random() * n)
        return max(range(n), key=lambda i: (visits[i], means[i], -i))


@privileged
class OmniscientPlayer(ISMCTSPlayer):
    """CHEATING: the same MCTS, but it sees every hidden card (no re-deal of the world).

    Only the future randomness (shuffles still to come) is unknown to it. For measuring
    how much hidden information is worth in a game, never as a fair opponent.
    """

    kind = "omniscient"
    determinize = False


@privileged  # exact classes only: a subclass is registered on its own (runner.is_privileged)
class RevealingPlayer(ISMCTSPlayer):
    """CHEATING BY ONE LOCATION: the same MCTS, seeing the true cards of the locations in
    ``reveal`` (indices) and of nothing else it may not see: every other hidden card is
    re-dealt as for ISMCTS. For ``recycle analyze --information`` (what seeing one hidden
    location is worth), never as a fair opponent.
    """

    kind = "ismcts"

    def __init__(self, budget: int | None = None, reveal=(), reward: str = "win", playouts: str = "auto"):
        super().__init__(budget, reward, playouts)
        self.reveal = frozenset(int(i) for i in reveal)
        self.name = f"{self.name}+sees{sorted(self.reveal)}"


class _ScoreSums:
    """Each player's final scores summed per option of one decision (``track_scores``)."""

    def __init__(self, n: int, nplayers: int):
        self.sums = [[0.0] * nplayers for _ in range(n)]
        self.counts = [0] * n

    def add(self, option: int, scores) -> None:
        row = self.sums[option]
        for p, v in enumerate(scores):
            row[p] += v
        self.counts[option] += 1

    def means(self) -> list:
        """Per option, each player's mean final score (None for an option never simulated)."""
        return [[v / c for v in row] if c else None for row, c in zip(self.sums, self.counts)]


def _best_of(player, totals: list, counts: list, rng: random.Random, looked: list, cut: bool) -> int:
    """The option of ``looked`` with the best mean value, ties at random (after a ``cut``,
    among those simulated at least once); sets ``player.last_values`` (0.0 for an option
    never simulated) and ``player.last_visits`` (the simulations of each)."""
    values = [t / c if c else 0.0 for t, c in zip(totals, counts)]
    player.last_values = values
    player.last_visits = list(counts)  # what each value rests on (a hint shows it)
    pool = looked
    if cut:
        pool = [i for i in looked if counts[i]] or looked
    best = max(values[i] for i in pool)
    ties = [i for i in pool if values[i] == best]
    return ties[0] if len(ties) == 1 else ties[int(rng.random() * len(ties))]


AI_KINDS = {cls.kind: cls for cls in (GreedyPlayer, PIMCPlayer, ISMCTSPlayer, OmniscientPlayer)}
