"""Win-probability traces of skilled play: what luck and skill, suspense and surprise, and
CardStock's heuristics are measured from (recycle/study/luck.py, recycle/study/heuristics.py).

A game is played by skilled players (ISMCTS by default). At each of its *decision points* (a
decision with two or more options) an analyst who sees every card some player sees or knows
(every hand) estimates, for every option (up to ``MAX_OPTIONS``), every seat's probability of
winning if that option is taken: ``rollouts`` random playouts with the option forced, each with
fresh chance (the state's future shuffles and draws reseeded) and the cards no player has seen
(a shuffled stock: ``unseen_plan``) dealt again; playout r deals and draws alike for every
option (common random numbers: options that change nothing get equal estimates, exactly). A win
counts 1/k for each of k seats tied for best (``lookahead.rewards``).

The belief of a spectator (``docs/analysis.md``, "Luck and skill") is these estimates under
random continuation, a martingale when the next choice is taken uniformly at random:

* before the deal, ``prior``: the mean outcome of random games with fresh seeds;
* at a decision point, the mean over its options of their estimates;
* after the choice, the chosen option's estimate; at the end, the outcome.

Chance is seen exactly: the game's chance stream counts its draws (``Stream.count``), and the
cards no player has seen are listed at every decision point, so a stretch of play with no draw
and no unseen card coming to light has no chance event in it. The *suspense* of a decision point
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


def unseen_plan(state) -> list | None:
    """The re-deal plan (``knowledge.redeal_plan``'s shape) of the cards no player sees or knows
    the place of (a shuffled stock, say), or None when the state keeps no record of what the
    players have seen (then the analyst keeps the true cards: every card counts as dealt)."""
    from ..engine.knowledge import redeal_plan

    if state.knowledge is None:
        return None
    common = None
    for p in range(state.game.nplayers):
        slots = {x for family, _ in redeal_plan(state, p, state.known_locations(p)) for x in family}
        common = slots if common is None else common & slots
    decks = state.game.card_table.decks
    by_family: dict = {}
    for i, k, c in sorted(common or ()):
        by_family.setdefault(decks[c], []).append((i, k, c))
    return [(tuple(f), tuple(sorted(c for _, _, c in f))) for _, f in sorted(by_family.items())]


def _unseen_cards(plan) -> frozenset:
    return frozenset(c for _, cards in plan or () for c in cards)


def _world(state, plan, key: int, track: bool = False):
    """A copy of ``state`` with the cards of ``plan`` (``unseen_plan``) dealt again at random
    (keyed by ``key``), or None when that world offers another number of options here."""
    from ..engine.knowledge import redeal
    from ..players.lookahead import DealRng

    world = state.clone(track=track)
    if plan:
        redeal(world, plan, DealRng(key))
        try:
            if not world.is_terminal() and world.num_options() != state.num_options():
                return None
        except RecycleRuntimeError:
            return None
    return world


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
            s = game.new_state(seed=rollout_seed(_key(seed, _CHANCE), r), track=True)
            _to_next_point(s)
        except RecycleRuntimeError:
            continue
        plan = unseen_plan(s)
        dealt = dealt or s.rng.count > 0
        pair = []
        for h in (0, 1):
            chance, draw = _key(seed, _PAIR, r, h), _key(seed, _DRAW, r, h)
            world = _world(s, plan, _key(seed, _PAIR, r, h, 7))
            here = native.at(s) if world is not None and not s.is_terminal() else None
            if world is None:
                pair.append(None)
            elif here is not None:
                pair.append(native.finish(world, here, chance, draw, higher))
            else:
                pair.append(_finish(world, chance, draw, higher))
        pairs.append(tuple(pair))
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
    """The game's native playouts for the analyst (``playouts``: "auto" whenever the game builds,
    "native" the same or an error, "reference" never), as the look-ahead players use them
    (recycle/native/playouts.py): a playout from the live state, its true cards in place, with an
    option forced and fresh chance. The result is the Python engine's, draw for draw; where
    native code declines, Python plays the playout."""

    def __init__(self, game, playouts: str):
        from ..native import native_playouts

        # (the native layer decides: None for "reference" and where "auto" cannot build the game)
        self.nat = native_playouts(game, playouts)
        self.played = 0

    def at(self, state):
        """The ``Root`` of the live ``state``'s decision, or None (Python plays)."""
        if self.nat is None:
            return None
        try:
            return self.nat.root(state.observation(state.current_player()))
        except RecycleRuntimeError:
            return None

    def finish(self, world, root, chance: int, draw: int, higher: bool, option: int | None = None):
        """``_finish`` of ``world`` (the live state, or a copy with unseen cards dealt again)
        played natively from ``root`` (``at``); by Python where native code declines."""
        places = self.nat.world_places(root, world)
        if places is None:
            return _finish(world, chance, draw, higher, option)
        path = [option] if option is not None and world.num_options() > 1 else []
        got = self.nat.play(root, places, (chance, 0), world.work, path, Stream.keyed(draw))
        if got is None:
            return _finish(world, chance, draw, higher, option)
        from ..players.lookahead import rewards

        self.played += 1
        return rewards(got[0], higher, "win")


def estimate_point(state, chosen: int, seed: int, k: int, rollouts: int, higher: bool, native=None) -> dict:
    """The analyst's estimates at one decision point of a live ``state`` (left unchanged):
    ``{"looked", "q", "suspense", "unseen"}``: the options estimated, every seat's win share per
    option (common random numbers: playout r deals the unseen cards and draws its chance alike
    for every option; native playouts where ``native`` (``_Native``) plays them), the suspense of
    the point (module docstring) and the cards no player has seen (``unseen_plan``)."""
    nplayers = state.game.nplayers
    looked = _options_looked(state.num_options(), chosen, _key(seed, _DRAW, k, -1))
    plan = unseen_plan(state)
    root = native.at(state) if native is not None else None
    worlds = [_world(state, plan, _key(seed, _CHANCE, k, r, 7)) for r in range(rollouts)]
    q = []
    for i in looked:
        runs = []
        for r, world in enumerate(worlds):
            chance, draw = _key(seed, _CHANCE, k, r), _key(seed, _DRAW, k, r)
            if world is None:
                continue
            if root is not None:
                runs.append(native.finish(world, root, chance, draw, higher, i))
            else:
                runs.append(_finish(world, chance, draw, higher, i))
        q.append(_mean(runs, nplayers))
    belief = _mean(q, nplayers)
    # suspense = E_a ‖Q(a) − μ‖² (the choice, taken at random) + E_a Var(next belief | a) (the
    # chance on the way to the next decision point: pairs of playouts that part there, exactly 0
    # when that way draws nothing and shows no unseen card)
    choice = sum(_dot(v, v, belief) for v in q) / len(q)
    unseen = _unseen_cards(plan)
    terms = []
    for r in range(rollouts):
        j = int(Stream.keyed(_key(seed, _PAIR, k, r)).random() * len(looked))
        world = _world(state, plan, _key(seed, _PAIR, k, r, 7), track=plan is not None)
        if world is None:
            continue
        world.rng = Stream.keyed(_key(seed, _PAIR, k, r, 1))
        try:
            world.apply(looked[j])
            _to_next_point(world)
        except RecycleRuntimeError:
            continue
        there = unseen_plan(world) if plan is not None else None
        if world.rng.count == 0 and _unseen_cards(there) == unseen:
            terms.append(0.0)
            continue
        ys = []
        for h in (0, 1):
            again = _world(world, there, _key(seed, _PAIR, k, r, 2 + h, 7)) if there else world
            ys.append(
                None
                if again is None
                else _finish(again, _key(seed, _PAIR, k, r, 2 + h), _key(seed, _DRAW, k, r, 2 + h), higher)
            )
        if ys[0] is not None and ys[1] is not None:
            terms.append(_dot(ys[0], ys[1], q[j]))
    suspense = choice + (sum(terms) / len(terms) if terms else 0.0)
    return {"looked": looked, "q": q, "suspense": suspense, "unseen": unseen}


def equity_game(
    game,
    specs: list[str],
    seed: int,
    max_steps: int = 100_000,
    rollouts: int = DEFAULT_ROLLOUTS,
    playouts: str = "auto",
    engine: str = "auto",
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
    machine code). ``engine``: what steps the game ("auto": natively wherever the game builds,
    the analyst reading the table's reference twin, kept in step, so the record is the same;
    ``"engine"`` says which did)."""
    from ..players import make_player
    from ..players.lookahead import rewards

    players = [make_player(s) for s in specs]
    higher = game.scoring_max
    points: list = []
    native = _Native(game, playouts)
    drawn = [0]  # the chance stream's draws at the last decision point
    hidden = [None]  # the cards no player had seen at the last decision point (None: not known)

    def on_decision(state, player, opts, index):
        if len(opts) < 2:
            return
        k = len(points) + 1
        est = estimate_point(state, index, seed, k, rollouts, higher, native)
        count = state.rng.count if type(state.rng) is Stream else None
        # chance: a draw of the chance stream, or a card no one had seen coming to light
        chance = count is None or count != drawn[0] or (k > 1 and est["unseen"] != hidden[0])
        drawn[0] = count if count is not None else drawn[0]
        hidden[0] = est["unseen"]
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
        r = game.play(players, seed=seed, max_steps=max_steps, on_decision=on_decision, engine=engine)
    except StepLimitExceeded:
        return {"seed": seed, "limit": True}
    ref = r.state.twin() if r.engine == "native" else r.state  # (what the analyst read all along)
    end = ref.rng.count if type(ref.rng) is Stream else None
    shown = points and hidden[0] != _unseen_cards(unseen_plan(ref))
    return {
        "seed": seed,
        "limit": False,
        "scores": list(r.scores),
        "final": rewards(r.scores, higher, "win"),
        "points": points,
        "chance_after": end is None or end != drawn[0] or bool(shown),
        "native": native.played,
        "engine": r.engine,
    }
