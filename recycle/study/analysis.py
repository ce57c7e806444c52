"""Game analysis: what a game is like when played many times (CardStock-style heuristics).

``analyze`` plays ``n`` games, evaluating the game's ``scoring`` expression for every
player at every decision, and summarises: win rate per seat (fairness), ties, length
(decisions, choices, rounds), branching over the course of the game, lead changes, how
early the winner is settled (decisiveness), how far behind the eventual winner was
(drama), and — when asked — how much skill and hidden information matter (``duplicate.py``
plays each deal once per rotation of the seats, so that the luck of the deal cancels).
Every measure is defined in docs/analysis.md. Results depend on the seed only, not on
the number of worker processes.
"""

from __future__ import annotations

import itertools
import math
import time

from ..errors import RecycleRuntimeError, StepLimitExceeded
from ..engine.game import rollout_seed, tied_sides
from .analysis_result import Analysis
from .turns import TurnCounter
from .engine_use import GAMES_ENGINE, combined, game_playouts
from .intervals import Z95, chi2_sf, mean_ci, wilson  # also this module's API
from .parallel import map_games
from .stopping import Stop
from .trace_native import game_shape as _shape
from .trace_native import trace_natively, traceable

DECILES = 10


# -- small statistics: recycle/study/intervals.py ------------------------------------------


def _summary(xs: list[float]) -> dict:
    if not xs:
        return {"mean": 0.0, "sd": 0.0, "min": 0, "max": 0}
    m = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) if len(xs) > 1 else 0.0
    return {"mean": m, "sd": sd, "min": min(xs), "max": max(xs)}


# -- one game, traced ----------------------------------------------------------------------


def score_now(game, state, draws: bool) -> list[int] | None:
    """The ``scoring`` value of every player in a live state, or None if it cannot be computed.

    The state is left as it was (random generator and step count included).
    """
    rng_state = state.rng.getstate() if draws else None
    steps = state.steps
    try:
        return game.final_scores(state)
    except RecycleRuntimeError:
        # the scoring expression cannot be evaluated at this point of the game (e.g. the
        # max of a pile that is empty until the end)
        return None
    finally:
        state.steps = steps
        if draws:
            state.rng.setstate(rng_state)


def _scoring_draws(game) -> bool:
    """Does the scoring expression draw random numbers (a form the registry says draws)?"""
    return _shape(game)[0]


def parse_values(spec: str | None) -> int:
    """``scoring`` → 0; ``winprob:N`` → N rollouts per decision (``winprob`` alone: 20)."""
    if not spec or spec == "scoring":
        return 0
    kind, _, n = spec.partition(":")
    if kind != "winprob":
        raise ValueError(f"unknown --values {spec!r}: use scoring or winprob:N")
    try:
        r = int(n) if n else 20
    except ValueError:
        raise ValueError(f"bad --values {spec!r}: expected winprob:N") from None
    if r < 1:
        raise ValueError("winprob needs at least 1 rollout")
    return r


def win_estimate(game, state, rollouts: int, rng, native=None) -> list[float]:
    """Each player's expected win share, estimated by random rollouts from the true state.

    An analyst's estimate (it sees every card, like a spectator with all hands shown);
    players never call this. ``native`` (``native_playouts``): the rollouts are played in
    machine code, draw for draw the reference interpreter's (it plays those native code
    declines).
    """
    from ..errors import RecycleRuntimeError
    from ..players.lookahead import finish_randomly, rewards

    from ..streams import fold

    places = None
    if native is not None:
        try:
            root = native.root(state.observation(state.current_player()))
        except RecycleRuntimeError:
            root = None
        # the true state's cards: every world is the state itself (no copy made for native code)
        places = native.world_places(root, state) if root is not None else None
    total = [0.0] * game.nplayers
    done = 0
    for _ in range(rollouts):
        chance = rng.getrandbits(64)  # a copy's chance stream, seeded so
        got = None
        if places is not None:
            got = native.play(root, places, (fold(chance), 0), state.work, [], rng)
        if got is not None:
            scores = got[0]
        else:
            world = state.clone()
            world.rng.seed(chance)
            scores = finish_randomly(world, rng.random)
        if scores is None:
            continue
        done += 1
        for p, r in enumerate(rewards(scores, game.scoring_max, "win")):
            total[p] += r
    return [t / done for t in total] if done else [1.0 / game.nplayers] * game.nplayers


def value_playouts(game, values: int, playouts: str = "auto"):
    """The native playouts ``win_estimate`` uses (``playouts``: "auto" wherever the game
    builds, "reference" never), or None."""
    if not values:
        return None
    from ..native import native_playouts  # (which engine: the native layer decides)

    return native_playouts(game, playouts)


def trace_game(
    game,
    specs: list[str],
    seed: int,
    max_steps: int = 100_000,
    values: int = 0,
    playouts: str = "auto",
    engine: str = "auto",
) -> dict:
    """Play one game and keep, for every decision, its player, its number of options and
    every player's score just before it (``values`` > 0: every player's win probability
    estimated with that many rollouts, just after it; natively wherever the game builds,
    ``playouts``: ``value_playouts``). ``{"seed", "limit": True}`` at the step limit.
    ``engine``: "auto" steps it natively where native code traces it (random players:
    recycle/study/trace_native.py), the same record; "reference" never; the
    record's ``engine`` says which stepped it."""
    from ..players.lookahead import rewards
    from ..streams import Stream
    from ..players import make_player

    draws = _scoring_draws(game)
    native = value_playouts(game, values, playouts)
    if engine != "reference" and traceable(specs, draws and not values, _shape(game)[1], values, native):
        got = trace_natively(game, seed, max_steps, TurnCounter(game), values, Stream(f"winprob:{seed}"))
        if got is not None:
            if values:
                got["final"] = rewards(got["scores"], game.scoring_max, "win")
            return {
                "seed": seed,
                "limit": False,
                **got,
                "playouts": game_playouts((), native, values),
                "engine": "native",
            }
    players = [make_player(s) for s in specs]
    est_rng = Stream(f"winprob:{seed}")
    movers, options, trace = [], [], []
    turns = TurnCounter(game)

    def on_decision(state, player, opts, index):
        movers.append(player)
        options.append(len(opts))
        trace.append(win_estimate(game, state, values, est_rng, native) if values else score_now(game, state, draws))
        turns.see(state.pstack, opts[index].steps)

    # a look-ahead player at the table: a native table keeps its reference twin in step anyway
    # (the seats' blind copies are made from it), and hands it to on_decision, so the record is
    # the reference's while the game, its seats' playouts and searches are stepped natively
    from ..native.choose import samples_worlds

    table = engine if engine != "reference" and samples_worlds(players) else "reference"
    try:
        r = game.play(players, seed=seed, max_steps=max_steps, on_decision=on_decision, engine=table)
    except StepLimitExceeded:
        return {"seed": seed, "limit": True, "engine": "reference"}
    final = rewards(r.scores, game.scoring_max, "win") if values else r.scores
    return {
        "seed": seed,
        "limit": False,
        "scores": r.scores,
        "winners": r.winners,
        "sides": tied_sides(r.winners, r.state.team_of),
        "movers": movers,
        "options": options,
        "trace": trace,
        "final": final,
        "turns": turns.turns,
        "rounds": r.state.rounds,
        "steps": r.state.steps,
        "playouts": game_playouts(players, native, values),
        "engine": r.engine,
    }


def outcome(game, specs: list[str], seed: int, max_steps: int = 100_000):
    """``(scores, winners)`` of one game with these players, or None at the step limit."""
    got = _played(game, specs, seed, max_steps)
    return None if got is None else got[:2]


def _played(game, specs: list[str], seed: int, max_steps: int = 100_000, engine: str = "auto"):
    """``(scores, winners, deduction, playouts, engine)`` of one game with these players, or
    None at the step limit; ``deduction``: per seat, what a deducing player's samples did
    (``_AIPlayer.deduction``), or None for a player that does not deduce; ``playouts``: what
    played its playouts (``engine_use.game_playouts``); ``engine``: what stepped the game
    (``PreparedGame.play(engine="auto")``: native code where the game builds, look-ahead
    players at the table included; the reference interpreter for look-ahead players in a game
    with a simultaneous stage: recycle/native/choose.py, ``blind_serves``)."""
    from ..players import make_player

    players = [make_player(s) for s in specs]
    try:
        r = game.play(players, seed=seed, max_steps=max_steps, engine=engine)
    except StepLimitExceeded:
        return None
    deduced = [dict(p.deduction) if getattr(p, "deduce", False) else None for p in players]
    return r.scores, r.winners, deduced, game_playouts(players), r.engine


# -- score-based heuristics of one game ---------------------------------------------------


def _leaders(scores, higher: bool) -> frozenset:
    best = max(scores) if higher else min(scores)
    return frozenset(p for p, v in enumerate(scores) if v == best)


def game_heuristics(g: dict, higher: bool) -> dict:
    """Lead changes, settle point and the winner's worst deficit of one traced game."""
    points = [s for s in g["trace"] if s is not None] + [g["final"]]
    winners = frozenset(g["winners"])
    sole = [next(iter(L)) for L in (_leaders(s, higher) for s in points) if len(L) == 1]
    changes = sum(1 for a, b in itertools.pairwise(sole) if a != b)
    d = len(g["trace"])
    settle = d  # index (0-based) of the first point from which the leaders are the winners
    for k in range(d - 1, -1, -1):
        s = g["trace"][k]
        if s is None or _leaders(s, higher) != winners:
            break
        settle = k
    gap = 0.0
    for s in points:
        best = max(s) if higher else min(s)
        gap = max(gap, min(abs(best - s[w]) for w in winners))
    final = g["final"]
    return {
        "lead_changes": changes,
        "settled_at": settle / d if d else None,
        "winner_gap": gap,
        "final_spread": abs(max(final) - min(final)),
    }


# -- the analysis --------------------------------------------------------------------------


def analyze(
    game,
    n: int = 500,
    seed: int = 0,
    specs: list[str] | None = None,
    max_steps: int = 100_000,
    skilled: str | None = None,
    hidden: bool = False,
    skill_games: int | None = None,
    workers: int = 1,
    progress=None,
    keep_games: bool = True,
    values: str = "scoring",
    timeout: float | None = None,
    interruptible: bool = False,
    stop=None,
    engine: str = "auto",
) -> Analysis:
    """Play ``n`` traced games (and the skill / hidden-information games when asked); return
    the summary, an ``Analysis`` (recycle/study/analysis_result.py; ``to_dict()`` is the JSON of
    ``recycle analyze --json``; ``games_detail`` holds the per-game records when kept).

    ``timeout`` (seconds): no game is started after that time (with ``interruptible``, nor after
    Ctrl-C); the summary is over the games played (a skill measure with no game is left out).
    ``stop``: a caller's ``stopping.Stop`` (already active) instead of those two. ``engine``:
    "auto" steps the traced games natively wherever native code traces them (``trace_game``),
    "reference" on the reference interpreter; the same analysis either way."""
    args = (game, n, seed, specs, max_steps, skilled, hidden, skill_games, workers, progress, keep_games, values)
    args += (engine,)
    if stop is not None:
        return _analyze(*args, stop, time.perf_counter())
    with Stop(timeout, interruptible, t0 := time.perf_counter()) as own:
        return _analyze(*args, own, t0)


def _analyze(
    game,
    n,
    seed,
    specs,
    max_steps,
    skilled,
    hidden,
    skill_games,
    workers,
    progress,
    keep_games,
    values,
    engine,
    stop,
    t0,
) -> Analysis:
    np_ = game.nplayers
    specs = list(specs or ["random"])
    specs = [specs[min(p, len(specs) - 1)] for p in range(np_)]  # the last one repeats
    seeds = [rollout_seed(seed, i) for i in range(n)]
    m = skill_games if skill_games is not None else 100
    extra_kinds: list[str] = []
    if skilled:
        extra_kinds.append(skilled)
    if hidden:
        budget = skilled.partition(":")[2] if skilled else ""
        for kind in ("ismcts", "omniscient"):
            spec = f"{kind}:{budget}" if budget else kind
            if spec not in extra_kinds:
                extra_kinds.append(spec)
    total = n + m * len(extra_kinds)
    done_before = 0

    def tick(done):
        if progress:
            progress(done_before + done)

    rollouts = parse_values(values)
    items = [(specs, sd, max_steps, rollouts, "auto", engine) for sd in seeds]
    traced = map_games(game, trace_game, items, workers, tick, stop=stop)
    if not traced:
        if stop.interrupted:
            raise KeyboardInterrupt
        raise TimeoutError("the time limit ended before the first game")
    done_before = n
    rotations = {}
    for spec in extra_kinds:
        items = []
        for i in range(m):
            seat = i % np_
            line_up = [spec if p == seat else "random" for p in range(np_)]
            items.append((line_up, rollout_seed(seed, i), max_steps, engine))
        rotations[spec] = map_games(game, _played, items, workers, tick, stop=stop)
        done_before += m
    out = summarize(game, traced, specs, seed, len(traced), values=f"winprob:{rollouts}" if rollouts else "scoring")
    out["skill"] = _skill(rotations[skilled], np_, skilled) if skilled and rotations[skilled] else None
    if hidden and all(rotations[k] for k in extra_kinds):
        budget = skilled.partition(":")[2] if skilled else ""
        ism = f"ismcts:{budget}" if budget else "ismcts"
        omni = f"omniscient:{budget}" if budget else "omniscient"
        a, b = _skill(rotations[ism], np_, ism), _skill(rotations[omni], np_, omni)
        out["hidden_information"] = {
            "ismcts": a,
            "omniscient": b,
            "value": b["win_rate"] - a["win_rate"],
            "value_ci": _diff_ci(b["win_rate"], b["games"], a["win_rate"], a["games"]),
        }
    else:
        out["hidden_information"] = None
    out["seconds"], out["interrupted"] = time.perf_counter() - t0, stop.interrupted
    if keep_games:
        out["games_detail"] = traced
    out["total_games_played"] = len(traced) + sum(len(r) for r in rotations.values())
    stepped = [g.get("engine", GAMES_ENGINE) for g in traced] + [r[4] for rs in rotations.values() for r in rs if r]
    out["engine"] = combined(stepped) or GAMES_ENGINE
    played = [g.get("playouts") for g in traced] + [r[3] for rs in rotations.values() for r in rs if r is not None]
    out["playouts_engine"] = combined(played)
    out["stopped_by_time_limit"] = out["total_games_played"] < total and not stop.interrupted
    return Analysis.from_dict(out)


def _diff_ci(p1, n1, p2, n2) -> list[float]:
    half = Z95 * math.sqrt(p1 * (1 - p1) / max(n1, 1) + p2 * (1 - p2) / max(n2, 1))
    return [p1 - p2 - half, p1 - p2 + half]


def _skill(results, np_, spec) -> dict:
    """Win rate of ``spec`` seated in turn at every seat against random players."""
    won = games = 0
    rand_wins = 0.0
    for i, res in enumerate(results):
        if res is None:
            continue
        winners = res[1]
        seat = i % np_
        games += 1
        won += seat in winners
        rand_wins += sum(1 for w in winners if w != seat) / max(np_ - 1, 1)
    w = won / games if games else 0.0
    rw = rand_wins / games if games else 0.0
    return {
        "player": spec,
        "games": games,
        "win_rate": w,
        "win_rate_ci": list(wilson(won, games)),
        "random_seat_win_rate": rw,
        "random_seat_win_rate_ci": list(wilson(rand_wins, games)),
        "skill": w - rw,
        "skill_ci": _diff_ci(w, games, rw, games),
    }


def summarize(game, traced: list[dict], specs: list[str], seed: int, n: int, values: str = "scoring") -> dict:
    """The summary of traced games (see docs/analysis.md for every measure)."""
    np_ = game.nplayers
    higher = game.scoring_max or values != "scoring"
    done = [g for g in traced if not g["limit"]]
    N = len(done)
    wins = [0] * np_
    shares = [0.0] * np_
    score_sum = [0.0] * np_
    seat_dec = [0] * np_
    seat_opts = [0] * np_
    ties = 0
    lengths, choices, rounds, steps = [], [], [], []
    depth_turns: list[list[int]] = []
    dec_opts = [[] for _ in range(DECILES)]
    by_index: list[list[int]] = []
    total_opts = total_dec = total_choice_opts = total_choices = forced = 0
    scored = unscored = 0
    heur = []
    for g in done:
        W = g["winners"]
        for w in W:
            wins[w] += 1
            shares[w] += 1 / len(W)
        # a tie is two or more sides tied for best (partners sharing a win are one side)
        ties += g.get("sides", len(W)) > 1
        for p, v in enumerate(g["scores"]):
            score_sum[p] += v
        D = len(g["options"])
        lengths.append(D)
        c = sum(1 for o in g["options"] if o > 1)
        choices.append(c)
        # rounds are told at decisions; a game that plays itself has its outermost stage's passes
        rounds.append(g["turns"][0] if g["turns"] else g.get("rounds", 0))
        steps.append(g.get("steps", 0))
        for j, t in enumerate(g["turns"]):
            while len(depth_turns) <= j:
                depth_turns.append([])
            depth_turns[j].append(t)
        for k, (p, o) in enumerate(zip(g["movers"], g["options"])):
            seat_dec[p] += 1
            seat_opts[p] += o
            dec_opts[min(DECILES - 1, k * DECILES // D)].append(o)
            if k >= len(by_index):
                by_index.append([])
            by_index[k].append(o)
            total_opts += o
            total_dec += 1
            if o > 1:
                total_choice_opts += o
                total_choices += 1
            else:
                forced += 1
        for s in g["trace"]:
            if s is None:
                unscored += 1
            else:
                scored += 1
        heur.append(game_heuristics(g, higher))
    Nn = max(N, 1)
    seats = []
    for p in range(np_):
        seats.append(
            {
                "seat": p,
                "player": specs[min(p, len(specs) - 1)],
                "win_rate": wins[p] / Nn,
                "win_rate_ci": list(wilson(wins[p], N)),
                "win_share": shares[p] / Nn,
                "score_mean": score_sum[p] / Nn,
                "decisions_mean": seat_dec[p] / Nn,
                "options_mean": seat_opts[p] / seat_dec[p] if seat_dec[p] else 0.0,
            }
        )
    rates = [s["win_share"] for s in seats]
    expected = N / np_ if np_ else 0
    chi2 = sum((shares[p] - expected) ** 2 / expected for p in range(np_)) if expected else 0.0
    spread_final = [h["final_spread"] for h in heur]
    scale = sum(spread_final) / len(spread_final) if spread_final else 0.0
    drama = [h["winner_gap"] / scale for h in heur] if scale > 0 else [0.0 for _ in heur]
    settled = [h["settled_at"] for h in heur if h["settled_at"] is not None]  # games with no decision: undefined
    return {
        "game": game.name,
        "games": n,
        "finished": N,
        "step_limit_hits": n - N,
        "seed": seed,
        "players": [specs[min(p, len(specs) - 1)] for p in range(np_)],
        "scoring": "max" if game.scoring_max else "min",
        "values": values,
        "seats": seats,
        "fairness": {
            "win_rate_spread": max(s["win_rate"] for s in seats) - min(s["win_rate"] for s in seats),
            "win_share_spread": max(rates) - min(rates),
            "chi2": chi2,
            "df": np_ - 1,
            "p_value": chi2_sf(chi2, np_ - 1),
        },
        "ties": {"rate": ties / Nn, "ci": list(wilson(ties, N))},
        "length": {
            "decisions": _summary(lengths),
            "choices": _summary(choices),
            "rounds": _summary(rounds),
            "steps": _summary(steps),
            "turns_by_stage_depth": [sum(t) / Nn for t in depth_turns],
        },
        "branching": {
            "options_per_decision": total_opts / total_dec if total_dec else 0.0,
            "options_per_choice": total_choice_opts / total_choices if total_choices else 0.0,
            "forced_share": forced / total_dec if total_dec else 0.0,
            "by_decile": [sum(x) / len(x) if x else None for x in dec_opts],
            "by_index": [
                {
                    "decision": k + 1,
                    "games": len(x),
                    "mean": sum(x) / len(x),
                    "p10": _quantile(x, 0.1),
                    "p90": _quantile(x, 0.9),
                }
                for k, x in enumerate(by_index)
            ],
        },
        "scores": {
            "evaluated_share": scored / (scored + unscored) if scored + unscored else 0.0,
            "lead_changes": _summary([h["lead_changes"] for h in heur]),
            "settled_at": mean_ci(settled)[0] if settled else 0.0,
            "decisiveness": 1 - (mean_ci(settled)[0] if settled else 0.0),
            "drama": mean_ci(drama)[0] if drama else 0.0,
            "comeback_rate": sum(1 for h in heur if h["winner_gap"] > 0) / Nn,
            "final_spread_mean": scale,
        },
    }


def _quantile(xs: list[int], q: float) -> float:
    ys = sorted(xs)
    return float(ys[min(len(ys) - 1, int(q * len(ys)))])
