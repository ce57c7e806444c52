"""Win-probability traces of skilled play: what luck and skill, suspense and surprise, and
CardStock's heuristics are measured from (recycle/study/luck.py, recycle/study/heuristics.py).

A game is played by skilled players (ISMCTS by default). At each of its *decision points* (a
decision with two or more options) an analyst who sees every card estimates, for every option
(up to ``MAX_OPTIONS``), every seat's probability of winning if that option is taken:
``rollouts`` random playouts from the true state with the option forced, each with fresh
chance (the state's future shuffles and draws reseeded) and the same chance streams for every
option (common random numbers: options that change nothing get equal estimates, exactly).
A win counts 1/k for each of k seats tied for best (``lookahead.rewards``).

The belief of a spectator (``docs/analysis.md``, "Luck and skill") is these estimates under
random continuation, a martingale when the next choice is taken uniformly at random:

* before the deal, ``prior``: the mean outcome of random games with fresh seeds;
* at a decision point, the mean over its options of their estimates (when chance moved since
  the last belief; when it did not, the belief carried over: nothing happened but choices);
* after the choice, the chosen option's estimate; at the end, the outcome.

Chance is seen exactly: the game's chance stream counts its draws (``Stream.count``), so a
stretch of play without a draw has no chance event in it. The *suspense* of a decision point
(Ely, Frankel and Kamenica 2015: the variance of the next belief) is estimated without nested
playouts: from pairs of playouts that share the way to the next decision point (a random option,
fresh chance) and part there: E[(Y1 − q)·(Y2 − q)] is the variance the chance on that way
adds to the next belief (q the option's estimate), and the choice adds the variance of the
options' estimates.

``equity_game`` plays one game (a job for ``parallel.map_games``; its record depends on its
arguments alone); ``prior_belief`` estimates the belief before the deal.
"""

from __future__ import annotations

from ..errors import RecycleRuntimeError, StepLimitExceeded
from ..engine.game import rollout_seed
from ..streams import Stream, mix64

DEFAULT_ROLLOUTS = 16
MAX_OPTIONS = 24  # options of a decision point estimated at most (the chosen one always)
PRIOR_DEALS = 100  # deals the belief before the deal is estimated from (at least): it is every game's start
_CHANCE, _DRAW, _PAIR = 0x51, 0x52, 0x53  # purposes of the analyst's streams (apart from the players')


def _key(seed: int, purpose: int, *more: int) -> int:
    k = mix64((seed * 0x9E3779B97F4A7C15 + purpose) & ((1 << 64) - 1))
    for m in more:
        k = mix64(k ^ (m & ((1 << 64) - 1)))
    return k


def _finish(state, chance: int, draw: int, higher: bool, option: int | None = None) -> list[float] | None:
    """Each seat's win share at the end of a random playout of a copy of ``state`` (``option``
    forced first) with chance keyed by ``chance`` and choices by ``draw``; None when the playout
    breaks a rule or hits the step limit."""
    from ..players.lookahead import finish_randomly, rewards

    world = state.clone(rng=Stream.keyed(chance))
    try:
        if option is not None:
            world.apply(option)
    except RecycleRuntimeError:
        return None
    scores = finish_randomly(world, Stream.keyed(draw).random)
    return None if scores is None else rewards(scores, higher, "win")


def _to_next_point(world) -> None:
    """Run ``world`` on through decisions of one option to its next decision point (or end)."""
    while not world.is_terminal() and world.num_options() == 1:
        world.apply(0)


def _mean(vectors: list, nplayers: int) -> list[float]:
    ok = [v for v in vectors if v is not None]
    if not ok:
        return [1.0 / nplayers] * nplayers
    return [sum(v[p] for v in ok) / len(ok) for p in range(nplayers)]


def prior_belief(game, seed: int, rollouts: int = DEFAULT_ROLLOUTS, playouts: str = "auto") -> dict:
    """The belief before the deal and its suspense: ``{"belief", "suspense"}``. At least
    ``PRIOR_DEALS`` fresh deals (``rollouts`` if more), each run to its first decision point and
    finished twice at random (all the playouts' mean is the belief; the pairs' products, the
    suspense of the deal: 0 when the deal draws nothing). ``playouts``: as ``equity_game``'s."""
    higher = game.scoring_max
    native = _Native(game, playouts)
    pairs, dealt = [], False
    for r in range(max(PRIOR_DEALS, rollouts)):
        try:
            s = game.new_state(seed=rollout_seed(_key(seed, _CHANCE), r))
            _to_next_point(s)
        except RecycleRuntimeError:
            continue
        dealt = dealt or s.rng.count > 0
        here = native.at(s) if not s.is_terminal() else None
        keys = [(_key(seed, _PAIR, r, h), _key(seed, _DRAW, r, h)) for h in (0, 1)]
        if here is not None:
            pairs.append(tuple(native.finish(s, here, c, d, higher) for c, d in keys))
        else:
            pairs.append(tuple(_finish(s, c, d, higher) for c, d in keys))
    belief = _mean([y for pair in pairs for y in pair], game.nplayers)
    terms = [_dot(y1, y2, belief) for y1, y2 in pairs if y1 is not None and y2 is not None] if dealt else []
    return {"belief": belief, "suspense": sum(terms) / len(terms) if terms else 0.0}


def _dot(y1, y2, centre) -> float:
    return sum((a - m) * (b - m) for a, b, m in zip(y1, y2, centre))


def _options_looked(n: int, chosen: int, key: int) -> list[int]:
    if n <= MAX_OPTIONS:
        return list(range(n))
    rest = [i for i in range(n) if i != chosen]
    Stream.keyed(key).shuffle(rest)
    return sorted([chosen] + rest[: MAX_OPTIONS - 1])


class _Native:
    """The game's native playouts for the analyst (``playouts``: "auto" where its machine code is
    made already, "native" compiling it, "reference" never), as the look-ahead players use them
    (recycle/native/playouts.py): a playout from the live state, its true cards in place, with an
    option forced and fresh chance. The result is the Python engine's, draw for draw; where
    native code declines, Python plays the playout."""

    def __init__(self, game, playouts: str):
        self.nat = None
        if playouts != "reference":
            from ..native import NativeUnavailable, NativeUnsupported, native_playouts

            try:
                self.nat = native_playouts(game, playouts)
            except (NativeUnavailable, NativeUnsupported):
                if playouts == "native":
                    raise
        self.played = 0

    def at(self, state):
        """``(root, places)`` of the live ``state``'s decision, or None (Python plays)."""
        if self.nat is None:
            return None
        try:
            root = self.nat.root(state.observation(state.current_player()))
        except RecycleRuntimeError:
            return None
        places = self.nat.world_places(root, state) if root is not None else None
        return None if places is None else (root, places)

    def finish(self, state, here, chance: int, draw: int, higher: bool, option: int | None = None):
        """``_finish`` played natively from ``here`` (``at(state)``); by Python where native
        code declines."""
        path = [option] if option is not None and state.num_options() > 1 else []
        got = self.nat.play(here[0], here[1], (chance, 0), state.work, path, Stream.keyed(draw))
        if got is None:
            return _finish(state, chance, draw, higher, option)
        from ..players.lookahead import rewards

        self.played += 1
        return rewards(got[0], higher, "win")


def estimate_point(state, chosen: int, seed: int, k: int, rollouts: int, higher: bool, native=None) -> dict:
    """The analyst's estimates at one decision point of a live ``state`` (left unchanged):
    ``{"looked", "q", "suspense"}``: the options estimated, every seat's win share per option
    (common random numbers; native playouts where ``native`` (``_Native``) plays them), and the
    suspense of the point (module docstring)."""
    nplayers = state.game.nplayers
    looked = _options_looked(state.num_options(), chosen, _key(seed, _DRAW, k, -1))
    here = native.at(state) if native is not None else None
    q = []
    for i in looked:
        runs = []
        for r in range(rollouts):
            chance, draw = _key(seed, _CHANCE, k, r), _key(seed, _DRAW, k, r)
            if here is not None:
                runs.append(native.finish(state, here, chance, draw, higher, i))
            else:
                runs.append(_finish(state, chance, draw, higher, i))
        q.append(_mean(runs, nplayers))
    belief = _mean(q, nplayers)
    # suspense = E_a ‖Q(a) − μ‖² (the choice, taken at random) + E_a Var(next belief | a) (the
    # chance on the way to the next decision point: pairs of playouts that part there, exactly 0
    # when that way draws nothing)
    choice = sum(_dot(v, v, belief) for v in q) / len(q)
    terms = []
    for r in range(rollouts):
        j = int(Stream.keyed(_key(seed, _PAIR, k, r)).random() * len(looked))
        world = state.clone(rng=Stream.keyed(_key(seed, _PAIR, k, r, 1)))
        try:
            world.apply(looked[j])
            _to_next_point(world)
        except RecycleRuntimeError:
            continue
        if world.rng.count == 0:
            terms.append(0.0)
            continue
        y1, y2 = (
            _finish(world, _key(seed, _PAIR, k, r, 2 + h), _key(seed, _DRAW, k, r, 2 + h), higher) for h in (0, 1)
        )
        if y1 is not None and y2 is not None:
            terms.append(_dot(y1, y2, q[j]))
    return {"looked": looked, "q": q, "suspense": choice + (sum(terms) / len(terms) if terms else 0.0)}


def equity_game(
    game,
    specs: list[str],
    seed: int,
    max_steps: int = 100_000,
    rollouts: int = DEFAULT_ROLLOUTS,
    playouts: str = "auto",
) -> dict:
    """Play one game with ``specs`` and keep the analyst's estimates at each decision point:
    ``{"seed", "limit", "scores", "final", "points", "chance_after"}``; each point is
    ``{"decision", "mover", "options", "chosen", "looked", "q", "chance_before", "suspense"}``
    (``decision``: the 1-based number of the decision point; ``q[j]``: every seat's estimated win
    share if option ``looked[j]`` is taken; ``chance_before``: did chance draw since the last
    decision point (the deal, for the first); ``suspense``: the belief's expected squared change
    to the next decision point, from the playout pairs). ``final``: every seat's win share.
    ``{"seed", "limit": True}`` at the step limit. ``playouts``: who plays the estimates'
    playouts (``_Native``; the record is the same either way, ``native`` counts those played in
    machine code)."""
    from ..players import make_player
    from ..players.lookahead import rewards

    players = [make_player(s) for s in specs]
    higher = game.scoring_max
    points: list = []
    native = _Native(game, playouts)
    drawn = [0]  # the chance stream's draws at the last decision point

    def on_decision(state, player, opts, index):
        if len(opts) < 2:
            return
        k = len(points) + 1
        est = estimate_point(state, index, seed, k, rollouts, higher, native)
        count = state.rng.count if type(state.rng) is Stream else None
        chance = count is None or count != drawn[0]
        drawn[0] = count if count is not None else drawn[0]
        points.append(
            {
                "decision": k,
                "mover": player,
                "options": len(opts),
                "chosen": index,
                "looked": est["looked"],
                "q": est["q"],
                "chance_before": chance,
                "suspense": est["suspense"],
            }
        )

    try:
        r = game.play(players, seed=seed, max_steps=max_steps, on_decision=on_decision)
    except StepLimitExceeded:
        return {"seed": seed, "limit": True}
    end = r.state.rng.count if type(r.state.rng) is Stream else None
    return {
        "seed": seed,
        "limit": False,
        "scores": list(r.scores),
        "final": rewards(r.scores, higher, "win"),
        "points": points,
        "chance_after": end is None or end != drawn[0],
        "native": native.played,
    }
