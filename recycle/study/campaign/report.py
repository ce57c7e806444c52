"""The report of a campaign database: per cell, every measure with a 95% interval; every
variant against its game's baseline (same line-up), with the difference, its interval, an
effect size and a Holm-corrected p-value. Renderers are in render.py.

Measures (over the games that finished; docs/campaigns.md, "Reports", defines each):
win rate per seat and ties (rates: Wilson), fairness (the spread between the best and the
worst seat's win rate, with the χ² test of equal win shares), decisions, choices, rounds,
steps, branching (options per decision: a ratio of sums, with a delta-method interval),
lead changes, decisiveness, drama and comebacks (as ``recycle analyze`` defines them).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field

from ..analysis import Z95, chi2_sf, wilson
from ..intervals import ALPHA, holm, mean_diff, mean_interval, rate_diff
from . import store
from .measures import COMPARED, MEANS, RATES
from .store import StoreError


@dataclass
class Estimate:
    value: float
    lo: float
    hi: float
    n: int = 0
    sd: float | None = None  # of a mean: the sample standard deviation; of a rate: None
    k: float | None = None  # of a rate: the count


@dataclass
class CellReport:
    game: str
    variant: str
    lineup: str
    baseline: bool
    players: str
    nplayers: int
    settings: list
    games: int  # rows in the database
    finished: int
    stopped: dict  # limit -> games it stopped
    chunks_failed: int
    win_rate: list = field(default_factory=list)  # an Estimate per seat
    measures: dict = field(default_factory=dict)  # name -> Estimate
    fairness: dict = field(default_factory=dict)


@dataclass
class Comparison:
    game: str
    lineup: str
    variant: str
    measure: str
    baseline_value: float
    value: float
    diff: float
    ci: list
    effect: float
    effect_kind: str
    p: float
    p_holm: float = 1.0
    beyond_chance: bool = False
    against: str = "baseline"  # "baseline": the variant against its game's baseline (same line-up);
    # "line-up": the line-up against the plan's first line-up (same variant)
    reference: str = ""  # the baseline variant's or the first line-up's name


@dataclass
class Report:
    """A campaign's report; ``text()``, ``to_dict()``/``to_json()``, ``html()``, ``write_plots(dir)``."""

    name: str
    db: str
    plan: dict
    cells: list
    comparisons: list
    failures: list  # (game, variant, lineup, chunk, error)
    chunks_total: int
    chunks_done: int

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "db": self.db,
            "plan": self.plan,
            "chunks_total": self.chunks_total,
            "chunks_done": self.chunks_done,
            "complete": self.chunks_done == self.chunks_total,
            "cells": [asdict(c) for c in self.cells],
            "comparisons": [asdict(c) for c in self.comparisons],
            "failures": [list(f) for f in self.failures],
            "alpha": ALPHA,
            "correction": "holm",
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), default=_num)

    def text(self) -> str:
        from .render import text

        return text(self)

    def html(self) -> str:
        from .render import html

        return html(self)

    def write_plots(self, out_dir) -> list:
        from .render import write_plots

        return write_plots(self, out_dir)

    def cell(self, game: str, variant: str, lineup: str) -> CellReport:
        return next(c for c in self.cells if (c.game, c.variant, c.lineup) == (game, variant, lineup))


def _num(x):
    return None if isinstance(x, float) and not math.isfinite(x) else x


def report(db) -> Report:
    """The report of the campaign in the DuckDB file ``db`` (finished or not). The file may be
    someone else's: it is opened read-only without file system access, and refused (StoreError)
    unless its tables and rows are those a campaign writes (foreign.py)."""
    from .foreign import check_rows, check_schema, open_foreign

    duckdb = store._duckdb()
    con = open_foreign(db)
    try:
        check_schema(con, db)
        check_rows(con, db)
        return _report(con, str(db))
    except (duckdb.Error, KeyError, ValueError, TypeError, ArithmeticError) as exc:
        # a last guard: what check_rows lets through must still end in a message
        raise StoreError(
            f"{db} is not a valid campaign database: {type(exc).__name__}: "
            f"{str(exc).splitlines()[0][:200] if str(exc) else ''}"
        ) from None
    finally:
        con.close()


def _report(con, db: str) -> Report:
    plan = store.plan_rows(con)
    cells = {}
    for g, v, ln, base, settings, players, nplayers, _scoring, _nch, _ng in con.execute(
        "SELECT * FROM cells ORDER BY rowid"
    ).fetchall():
        cells[(g, v, ln)] = CellReport(g, v, ln, bool(base), players, nplayers, json.loads(settings), 0, 0, {}, 0)
    for g, v, ln, n, fin in con.execute(
        "SELECT game, variant, lineup, count(*), count(*) FILTER (stopped_by IS NULL) FROM games GROUP BY ALL"
    ).fetchall():
        cells[(g, v, ln)].games, cells[(g, v, ln)].finished = n, fin
    for g, v, ln, why, n in con.execute(
        "SELECT game, variant, lineup, stopped_by, count(*) FROM games "
        "WHERE stopped_by IS NOT NULL GROUP BY ALL ORDER BY ALL"
    ).fetchall():
        cells[(g, v, ln)].stopped[why] = n
    failures = con.execute(
        "SELECT game, variant, lineup, chunk, error FROM chunks WHERE status = 'failed' ORDER BY ALL"
    ).fetchall()
    for g, v, ln, *_ in failures:
        cells[(g, v, ln)].chunks_failed += 1
    chunks_done = con.execute("SELECT count(*) FROM chunks").fetchone()[0]
    chunks_total = con.execute("SELECT coalesce(sum(chunks), 0) FROM cells").fetchone()[0]
    _seats(con, cells)
    _measures(con, cells)
    comps = _compare(list(cells.values()))
    info = {k: int(plan[k]) for k in ("seed", "games", "chunk") if k in plan}
    info["heuristics"] = plan.get("heuristics") == "true"
    return Report(
        plan.get("name", "campaign"),
        db,
        info,
        list(cells.values()),
        comps,
        [tuple(f) for f in failures],
        int(chunks_total),
        int(chunks_done),
    )


FINISHED = "FROM games WHERE stopped_by IS NULL"


def _seats(con, cells: dict) -> None:
    wins = {}
    for g, v, ln, seat, n, share in con.execute(
        f"SELECT game, variant, lineup, w, count(*), sum(1.0 / len(winners)) FROM "
        f"(SELECT game, variant, lineup, winners, unnest(winners) AS w {FINISHED}) GROUP BY ALL"
    ).fetchall():
        wins[(g, v, ln, seat)] = (n, float(share))
    for key, c in cells.items():
        N = c.finished
        c.win_rate = []
        shares = []
        for s in range(c.nplayers):
            k, share = wins.get((*key, s), (0, 0.0))
            lo, hi = wilson(k, N)
            c.win_rate.append(Estimate(k / N if N else 0.0, lo, hi, N, k=k))
            shares.append(share)
        if N and c.nplayers > 1:
            rates = [e.value for e in c.win_rate]
            a, b = rates.index(max(rates)), rates.index(min(rates))
            spread = rates[a] - rates[b]
            # the two seats' rates are of the same games: Var(p_a - p_b) = (p_a + p_b - (p_a - p_b)²)/N
            # when no game has both among the winners (ties make this an approximation)
            se = math.sqrt(max(rates[a] + rates[b] - spread**2, 0.0) / N)
            expected = N / c.nplayers
            chi2 = sum((x - expected) ** 2 / expected for x in shares)
            c.fairness = {
                "win_rate_spread": Estimate(
                    spread, max(0.0, spread - Z95 * se), spread + Z95 * se, N, sd=se * math.sqrt(N)
                ),
                "best_seat": a,
                "worst_seat": b,
                "chi2": chi2,
                "df": c.nplayers - 1,
                "p_value": chi2_sf(chi2, c.nplayers - 1),
            }


def _measures(con, cells: dict) -> None:
    cols = ", ".join(f"count({e}), avg({e}), stddev_samp({e})" for _, e, _ in MEANS)
    rates = ", ".join(f"count(*) FILTER ({e}), count({known})" for _, e, known, _ in RATES)
    sql = (
        f"WITH f AS (SELECT *, avg(final_spread) OVER (PARTITION BY game, variant, lineup) AS scale {FINISHED}) "
        f"SELECT game, variant, lineup, {cols}, {rates}, sum(options), sum(decisions), var_samp(options), "
        f"var_samp(decisions), covar_samp(options, decisions), count(*) FROM f GROUP BY ALL"
    )
    for row in con.execute(sql).fetchall():
        c = cells[tuple(row[:3])]
        vals = row[3:]
        for j, (name, _, _) in enumerate(MEANS):
            n, m, sd = vals[3 * j : 3 * j + 3]
            if n:
                lo, hi = mean_interval(float(m), sd, n)
                c.measures[name] = Estimate(float(m), lo, hi, n, sd=None if sd is None else float(sd))
        base = 3 * len(MEANS)
        for j, (name, *_) in enumerate(RATES):
            k, n = vals[base + 2 * j : base + 2 * j + 2]
            if n:
                lo, hi = wilson(k, n)
                c.measures[name] = Estimate(k / n, lo, hi, n, k=k)
        so, sdec, vo, vd, cov, n = vals[base + 2 * len(RATES) :]
        if sdec:
            r = so / sdec
            dbar = sdec / n
            # delta method: the ratio's variance from that of the residuals o_i - r·d_i
            var = ((vo or 0.0) + r * r * (vd or 0.0) - 2 * r * (cov or 0.0)) if n > 1 else 0.0
            sd = math.sqrt(max(var, 0.0)) / dbar
            half = Z95 * sd / math.sqrt(n)
            c.measures["branching"] = Estimate(r, r - half, r + half, n, sd=sd)


def _compare(cells: list) -> list:
    """Each variant against its game's baseline with the same line-up, and each line-up against
    the game's first line-up with the same variant; Holm-corrected over all of them."""
    base = {(c.game, c.lineup): c for c in cells if c.baseline}
    first = {}
    for c in cells:
        first.setdefault((c.game, c.variant), c)
    out = []
    for c in cells:
        b = base.get((c.game, c.lineup))
        if not c.baseline and b is not None:
            out += _pair(c, b, "baseline", b.variant)
        f = first[(c.game, c.variant)]
        if f is not c:
            out += _pair(c, f, "line-up", f.lineup)
    for comp, p in zip(out, holm([x.p for x in out])):
        comp.p_holm = p
        comp.beyond_chance = p < ALPHA
    return out


def _pair(c: CellReport, b: CellReport, against: str, reference: str) -> list:
    """The comparisons of cell ``c`` with the reference cell ``b``, measure by measure."""
    if not c.finished or not b.finished:
        return []
    out = []

    def add(measure, x: Estimate, y: Estimate):
        if x.k is not None:
            d = rate_diff(x.k, x.n, y.k, y.n)
        elif x.n > 1 and y.n > 1 and x.sd is not None and y.sd is not None:
            if x.sd == 0 and y.sd == 0 and x.value == y.value:
                return  # a constant, the same in both: nothing to compare (and no comparison to correct for)
            d = mean_diff(x.value, x.sd, x.n, y.value, y.sd, y.n)
        else:
            return
        out.append(
            Comparison(
                c.game,
                c.lineup,
                c.variant,
                measure,
                y.value,
                x.value,
                d["diff"],
                d["ci"],
                d["effect"],
                d["effect_kind"],
                d["p"],
                against=against,
                reference=reference,
            )
        )

    if c.nplayers == b.nplayers:
        for s, (x, y) in enumerate(zip(c.win_rate, b.win_rate)):
            add(f"win_rate P{s}", x, y)
    if c.fairness and b.fairness:
        add("fairness", c.fairness["win_rate_spread"], b.fairness["win_rate_spread"])
    for m in COMPARED:
        if m in c.measures and m in b.measures:
            add(m, c.measures[m], b.measures[m])
    return out
