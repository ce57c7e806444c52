"""What each piece of hidden information is worth: ``recycle analyze GAME --information``.

For a seat and a location that seat may not see (another player's hand, the stock, a pile
put aside face down), two line-ups play the same deals: the seat is an ISMCTS player that
sees exactly what the rules let it see (the baseline), or the same ISMCTS player that also
sees the true cards of that one location (``RevealingPlayer``: its sampled worlds keep that
location's cards and re-deal every other hidden card). The other seats are the same players
in both. The difference of the seat's win rates is what seeing that location is worth, with
a paired interval over the deals (both line-ups play deal i with the same seed).

Which locations count: those that hold cards at one of the seat's own decisions while the
seat may not see them, found by a few random games of the game (``TRIAL_GAMES``). Every
game's seed is derived from the run's seed, so the result does not depend on the number of
worker processes. Defined in docs/analysis.md ("The value of each hidden location").
"""

from __future__ import annotations

import time

from ..errors import StepLimitExceeded
from ..engine.game import rollout_seed
from ..lang.forms.values import MEMORY, may_see
from .analysis import mean_ci, wilson

TRIAL_GAMES = 8  # random games that find the locations hidden from each seat
DEFAULT_BUDGET = 50  # ISMCTS iterations per decision when no --skilled budget is given


def hidden_locations(game, seed: int = 0, max_steps: int = 100_000, trials: int = TRIAL_GAMES) -> dict[int, list[int]]:
    """Seat → the indices of the locations that held cards the seat may not see at one of its
    own decisions, in ``trials`` random games (seeds derived from ``seed``)."""
    from .trace_native import walk_natively

    found: dict[int, set] = {p: set() for p in range(game.nplayers)}
    infos = game.layout.infos

    def on_stop(player, filled, team_of):
        seen = found[player]
        for i in filled:
            if i < len(infos) and i not in seen:
                info = infos[i]
                if info.visibility != MEMORY and not may_see(info, player, team_of):
                    seen.add(i)

    def on_decision(state, player, options, index):
        on_stop(player, [i for i, lst in enumerate(state.locs) if lst], state.team_of)

    for k in range(trials):
        sd = rollout_seed(seed, 1_000_000 + k)
        # random games stepped natively where the game builds, else (or where native code
        # stops) by the reference interpreter: the same locations either way
        if walk_natively(game, sd, max_steps, on_stop):
            continue
        try:
            game.play(seed=sd, max_steps=max_steps, on_decision=on_decision)
        except StepLimitExceeded:
            continue
    return {p: sorted(v) for p, v in found.items()}


def seat_game(game, seat: int, budget: int, reveal: tuple, others: list, seed: int, max_steps: int):
    """One game with an ISMCTS player (seeing the ``reveal`` locations too) in ``seat``:
    ``(won, playouts)``, ``won`` 1 if that seat is among the winners, 0 if not, ``playouts``
    what played the game's playouts (``engine_use.game_playouts``); None at the step limit."""
    from .engine_use import game_playouts
    from ..players import make_player
    from ..players.lookahead import ISMCTSPlayer, RevealingPlayer

    players = [make_player(others[p]) for p in range(game.nplayers)]
    players[seat] = RevealingPlayer(budget, reveal) if reveal else ISMCTSPlayer(budget)
    try:
        # natively wherever the game builds: the seeing seat is handed the table twin's live
        # observation, as the reference engine hands it the live state (the same games)
        r = game.play(players, seed=seed, max_steps=max_steps, engine="auto")
    except StepLimitExceeded:
        return None
    return int(seat in r.winners), game_playouts(players)


def information_value(
    game,
    n: int = 100,
    seed: int = 0,
    budget: int = DEFAULT_BUDGET,
    others: list[str] | None = None,
    seats: list[int] | None = None,
    locations: dict[int, list[int]] | None = None,
    max_steps: int = 100_000,
    workers: int = 1,
    progress=None,
    timeout: float | None = None,
) -> dict:
    """The value of seeing each hidden location, per seat: a JSON-ready dict.

    ``n`` games per measurement (the baseline of each seat, and each of its hidden
    locations), deal seeds ``rollout_seed(seed, i)`` for both; ``others``: the players of the
    other seats (the last one repeats; default random); ``seats``: the seats measured (default
    all); ``locations``: seat → location indices (default ``hidden_locations``).
    ``timeout`` (seconds): no game is started after it, the rows are over the deals played."""
    from .engine_use import GAMES_ENGINE, combined
    from .parallel import map_games

    t0 = time.perf_counter()
    np_ = game.nplayers
    others = list(others or ["random"])
    others = [others[min(p, len(others) - 1)] for p in range(np_)]
    seats = list(range(np_)) if seats is None else list(seats)
    for s in seats:
        if not 0 <= s < np_:
            raise ValueError(f"seat {s} does not exist: {game.name} has seats 0 to {np_ - 1}")
    if locations is None:
        locations = hidden_locations(game, seed, max_steps)
    groups = []  # (seat, reveal) per measurement, in order
    for s in seats:
        if locations.get(s):  # a seat that sees every location holding cards has nothing to compare
            groups.append((s, ()))
            groups.extend((s, (i,)) for i in locations[s])
    seeds = [rollout_seed(seed, i) for i in range(n)]
    items = [(s, budget, reveal, others, sd, max_steps) for s, reveal in groups for sd in seeds]
    deadline = None if timeout is None else t0 + timeout
    results = map_games(game, seat_game, items, workers, progress, deadline=deadline)
    if items and not results:
        raise TimeoutError("the time limit ended before the first game")
    played = len(results)
    playouts = combined(r[1] for r in results if r is not None)
    results = [None if r is None else r[0] for r in results]
    results += [None] * (len(items) - len(results))  # games not started: left out, as a step-limit hit
    by_group = {g: results[k * n : (k + 1) * n] for k, g in enumerate(groups)}
    infos = game.layout.infos
    rows = []
    baselines = {}
    for s in seats:
        if (s, ()) not in by_group:
            continue
        base = by_group[(s, ())]
        baselines[s] = _rate(base)
        for i in locations.get(s, []):
            seen = by_group[(s, (i,))]
            row = {
                "seat": s,
                "location": infos[i].label,
                "index": i,
                "owner": infos[i].owner_label,
                "kind": infos[i].kind,
                "with": _rate(seen),
                "without": baselines[s],
            }
            diffs = [a - b for a, b in zip(seen, base) if a is not None and b is not None]
            m, lo, hi = mean_ci([float(d) for d in diffs])
            row.update({"paired_games": len(diffs), "value": m, "value_ci": [lo, hi]})
            rows.append(row)
    return {
        "game": game.name,
        "games": n,
        "seed": seed,
        "player": f"ismcts:{budget}",
        "others": others,
        "seats": seats,
        "baselines": [{"seat": s, **baselines[s]} for s in seats if s in baselines],
        "locations": rows,
        "games_played": sum(1 for r in results if r is not None),
        "stopped_by_time_limit": played < len(items),
        "seconds": time.perf_counter() - t0,
        "engine": GAMES_ENGINE,
        "playouts_engine": playouts,
    }


def _rate(outcomes: list) -> dict:
    done = [o for o in outcomes if o is not None]
    won = sum(done)
    return {
        "games": len(done),
        "win_rate": won / len(done) if done else 0.0,
        "win_rate_ci": list(wilson(won, len(done))),
    }


def information_lines(a: dict) -> list[str]:
    """The information map as a text table."""
    from .engine_use import engine_line_of

    lines = [
        f"{a['game']}: what seeing each hidden location is worth to {a['player']} "
        f"(other seats {','.join(a['others'])}; {a['games']} deals per measurement, seed {a['seed']})",
        engine_line_of(a),
        "seat  location              sees it   95% CI            without   95% CI            value    95% CI",
    ]
    for r in a["locations"]:
        w, wo = r["with"], r["without"]
        lines.append(
            f"P{r['seat']:<4} {r['location'][:20]:<20} {w['win_rate']:7.1%}   "
            f"[{w['win_rate_ci'][0]:5.1%}, {w['win_rate_ci'][1]:5.1%}]   {wo['win_rate']:7.1%}   "
            f"[{wo['win_rate_ci'][0]:5.1%}, {wo['win_rate_ci'][1]:5.1%}]   {r['value']:+6.1%}  "
            f"[{r['value_ci'][0]:+.1%}, {r['value_ci'][1]:+.1%}]"
        )
    for s in a["seats"]:
        if not any(r["seat"] == s for r in a["locations"]):
            lines.append(f"P{s:<4} (no location hidden from it holds cards at its decisions: nothing to measure)")
    lines.append(
        f"{a['games_played']} games in {a['seconds']:.1f} s; value = win rate seeing the location "
        "minus without, paired over the same deals"
    )
    return lines
