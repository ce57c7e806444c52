"""How ``recycle evolve`` evaluates a variant (recycle/study/evolve.py runs the search): its
games played in chunks (``play_chunk``, a job of ``recycle.study.parallel``), each game's record
compacted, their measures (the heuristics of ``recycle.study.analysis``), the ``fitness`` (a
weighted mean of fairness, drama, lead changes and length in a range) and the cell of the
archive a variant falls in (``cell_of``: length and decisiveness); docs/evolve.md."""

from __future__ import annotations

import math
import random
import time

from ..engine.game import PreparedGame, rollout_seed
from ..errors import RecycleError, printable
from .analysis import game_heuristics, trace_game

CHUNK = 25  # games per parallel job
LENGTH_BINS = (0.5, 0.71, 0.9, 1.11, 1.41, 2.0)  # edges of the length descriptor (ratio to the original)
DECISIVENESS_BINS = 5  # cells of the decisiveness descriptor, over [0, 1]


def first_line(exc: Exception) -> str:
    """An error's first line, printable (what a rejected variant or a failed game is told by)."""
    return printable(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)


_COMPILED: dict = {}  # a worker's compiled variants, by text (a few at a time)


def _compiled(game, text: str, filename: str):
    g = _COMPILED.get(text)
    if g is None:
        if len(_COMPILED) >= 8:
            _COMPILED.clear()
        g = _COMPILED[text] = PreparedGame.from_text(text, filename, max_work=game.max_work)
    return g


def play_chunk(
    game, text: str, filename: str, seeds: list, specs: list, max_steps: int, until: float | None = None
) -> list | None:
    """Play a variant's games (a parallel job: ``game`` is the worker's original, used for its
    options); one compact record per seed (``compact``). None when the wall-clock time
    ``until`` (``time.time()``, the same in every process) passes before its last game starts:
    a slow variant's chunk does not hold a time limit up for long."""
    g = _compiled(game, text, filename)
    out = []
    for sd in seeds:
        if until is not None and time.time() > until:
            return None
        try:
            t = trace_game(g, specs, sd, max_steps)
        except RecycleError as exc:
            out.append({"limit": False, "error": first_line(exc)})
            continue
        out.append(compact(t, g.scoring_max))
    return out


def compact(t: dict, higher: bool) -> dict:
    """What the measures need of a traced game (``analysis.trace_game``)."""
    if t["limit"]:
        return {"limit": True}
    return {
        "limit": False,
        "winners": t["winners"],
        "decisions": len(t["options"]),
        "rounds": t["turns"][0] if t["turns"] else t.get("rounds", 0),
        "heuristics": game_heuristics(t, higher),
        "playouts": t.get("playouts"),
        "engine": t.get("engine", "reference"),
    }


def measures(records: list, nplayers: int) -> dict:
    """The heuristics of a variant's games, with the definitions of ``analysis.summarize``
    (docs/analysis.md), plus ``fairness`` in [0, 1] (docs/evolve.md)."""
    done = [r for r in records if not r["limit"] and "error" not in r]
    n = max(len(done), 1)
    shares = [0.0] * nplayers
    ties = 0
    for r in done:
        for w in r["winners"]:
            shares[w] += 1 / len(r["winners"])
        ties += len(r["winners"]) > 1
    shares = [s / n for s in shares]
    heur = [r["heuristics"] for r in done]
    scale = sum(h["final_spread"] for h in heur) / len(heur) if heur else 0.0
    drama = [h["winner_gap"] / scale for h in heur] if scale > 0 else [0.0 for _ in heur]
    settled = [h["settled_at"] for h in heur if h["settled_at"] is not None]
    return {
        "games": len(records),
        "finished": len(done),
        "step_limit_share": sum(1 for r in records if r["limit"]) / max(len(records), 1),
        "errors": sum(1 for r in records if "error" in r),
        "win_shares": shares,
        "fairness": fairness(shares),
        "ties": ties / n,
        "decisions": sum(r["decisions"] for r in done) / n,
        "rounds": sum(r["rounds"] for r in done) / n,
        "lead_changes": sum(h["lead_changes"] for h in heur) / n,
        "drama": sum(drama) / len(drama) if drama else 0.0,
        "decisiveness": 1 - (sum(settled) / len(settled) if settled else 0.0),
    }


def measures_of_summary(a: dict) -> dict:
    """The same measures from a summary of ``analysis.analyze`` (for the comparison)."""
    shares = [s["win_share"] for s in a["seats"]]
    sc = a["scores"]
    return {
        "games": a["games"],
        "finished": a["finished"],
        "step_limit_share": a["step_limit_hits"] / max(a["games"], 1),
        "errors": 0,
        "win_shares": shares,
        "fairness": fairness(shares),
        "ties": a["ties"]["rate"],
        "decisions": a["length"]["decisions"]["mean"],
        "rounds": a["length"]["rounds"]["mean"],
        "lead_changes": sc["lead_changes"]["mean"],
        "drama": sc["drama"],
        "decisiveness": sc["decisiveness"],
    }


def fairness(shares: list[float]) -> float:
    """1 minus the distance of the seats' win shares from equal shares, scaled to [0, 1]:
    1 when every seat wins as often, 0 when one seat always wins."""
    n = len(shares)
    if n < 2:
        return 1.0
    total = sum(shares) or 1.0
    tv = 0.5 * sum(abs(s / total - 1 / n) for s in shares)
    return max(0.0, 1 - tv / (1 - 1 / n))


def length_of(m: dict, by: str) -> float:
    return m["decisions"] if by == "decisions" else m["rounds"]


def fitness(m: dict, length_range: tuple, weights: dict, by: str = "decisions") -> tuple[float, dict]:
    """The fitness of measures ``m`` and its terms (each in [0, 1]; docs/evolve.md)."""
    lo, hi = length_range
    L = length_of(m, by)
    length = 1.0 if lo <= L <= hi else (L / lo if lo > L else hi / L)
    lc = m["lead_changes"]
    terms = {"fairness": m["fairness"], "drama": min(1.0, m["drama"]), "lead_changes": lc / (1 + lc), "length": length}
    if by != "decisions":  # a game without decisions: nobody leads at a decision, no drama to see
        weights = {k: w for k, w in weights.items() if k not in ("drama", "lead_changes")}
    total = sum(weights.values()) or 1.0
    f = sum(weights.get(k, 0.0) * v for k, v in terms.items()) / total
    if m["errors"] or not m["finished"]:
        return 0.0, terms
    return f * (1 - m["step_limit_share"]), terms


def cell_of(m: dict, base_length: float, by: str) -> tuple[int, int]:
    """The archive cell: (length bin relative to the original, decisiveness bin)."""
    ratio = length_of(m, by) / base_length if base_length else 1.0
    lb = sum(1 for e in LENGTH_BINS if ratio >= e)
    db = min(DECISIVENESS_BINS - 1, max(0, int(m["decisiveness"] * DECISIVENESS_BINS)))
    return (lb, db)


def variant_seed(seed: int, generation: int, index: int) -> int:
    """The seed of a variant's games (and of its mutations): from the run's seed, the
    generation and the variant's index in it."""
    return random.Random(f"evolve:{seed}:{generation}:{index}").getrandbits(62)


def seat_specs(specs: list[str], nplayers: int) -> list[str]:
    """The players of each of ``nplayers`` seats from ``specs`` (the last one repeats)."""
    return [specs[min(p, len(specs) - 1)] for p in range(nplayers)]


def evaluate_variants(
    game, batch: list, games: int, specs: list, max_steps: int, workers: int, tick, stop=None
) -> list:
    """The records of each variant of ``batch`` (each played by its own number of players);
    when ``stop`` cut the games short, only the variants whose games all finished, in order."""
    from .parallel import map_games

    until = None
    if stop is not None and stop.deadline is not None:
        until = time.time() + (stop.deadline - time.perf_counter())
    items = []
    for v in batch:
        base = variant_seed(v["seed_of"][0], v["seed_of"][1], v["seed_of"][2])
        seeds = [rollout_seed(base, i) for i in range(games)]
        seats = seat_specs(specs, v["nplayers"])
        for c in range(0, games, CHUNK):
            items.append((v["text"], game.source.filename, seeds[c : c + CHUNK], seats, max_steps, until))
    chunks = map_games(game, play_chunk, items, workers, tick, stop=stop)
    if None in chunks:  # cut by the time limit: the variants before the first cut chunk
        chunks = chunks[: chunks.index(None)]
    per = math.ceil(games / CHUNK)
    return [[rec for ch in chunks[k * per : (k + 1) * per] for rec in ch] for k in range(len(chunks) // per)]
