"""A campaign report as text, as one HTML page (tables and PNG plots inside it), and as PNG files."""

from __future__ import annotations

import base64
import html as _html
import io

from ...errors import printable
from ..plots import plain_text, plot_text
from .measures import MEANS, RATES

LABELS = (
    {name: label for name, _, label in MEANS}
    | {name: label for name, _, _, label in RATES}
    | {"branching": "branching (options per decision)", "fairness": "fairness (best seat's win rate - worst's)"}
)
ORDER = [
    "ties",
    "decisions",
    "choices",
    "rounds",
    "steps",
    "branching",
    "lead_changes",
    "decisiveness",
    "drama",
    "comebacks",
]
PERCENT = {"ties", "comebacks", "fairness"}


def _fmt(name: str, x: float) -> str:
    if name in PERCENT or name.startswith("win_rate"):
        return f"{100 * x:.1f}%"
    return f"{x:,.2f}" if abs(x) < 1000 else f"{x:,.0f}"


def _est(name: str, e) -> str:
    return f"{_fmt(name, e.value)} [{_fmt(name, e.lo)}, {_fmt(name, e.hi)}]"


def _cell_title(c) -> str:
    return printable(f"{c.game} · {c.variant} · {c.lineup} ({c.players})")


# the measures that need the score to move during play (job.score_moved)
SCORE_MEASURES = {"lead_changes", "decisiveness", "drama", "comebacks"}
NOT_MEASURABLE = "not measurable (the score does not move during play)"
SECTIONS = [("baseline", "variants against the baseline"), ("line-up", "line-ups against the first line-up")]


def _measure_text(name: str, c, scored: bool) -> str:
    """A measure of a cell as the report shows it: its estimate (and in how many games, when
    not all), "not measurable", or "" when it was not measured at all."""
    e = c.measures.get(name)
    if e is None:
        return NOT_MEASURABLE if scored and name in SCORE_MEASURES and c.finished else ""
    part = (
        f" (in {e.n:,} of {c.finished:,} games: those whose score moved)"
        if (name in SCORE_MEASURES and e.n < c.finished)
        else ""
    )
    return _est(name, e) + part


def _p(p: float) -> str:
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def text(r) -> str:
    """The report as plain text: a block per cell, then the comparisons with the baseline."""
    lines = [
        printable(
            f"campaign {r.name}: {r.chunks_done} of {r.chunks_total} chunks in {r.db}"
            + ("" if r.chunks_done == r.chunks_total else " (not finished: --resume to go on)")
        ),
        "95% intervals: Wilson for rates, Student's t for means; differences vs the baseline: Newcombe "
        "(rates), Welch (means); p-values Holm-corrected",
    ]
    scored = bool(r.plan.get("heuristics"))
    for c in r.cells:
        lines += ["", _cell_title(c) + ("  [baseline]" if c.baseline else "")]
        stopped = ", ".join(f"{n} by {k}" for k, n in c.stopped.items())
        lines.append(
            f"  games {c.games:,}, finished {c.finished:,}"
            + (f" (stopped: {stopped})" if stopped else "")
            + (f", {c.chunks_failed} chunk(s) failed" if c.chunks_failed else "")
        )
        if not c.finished:
            continue
        lines.append("  win rate      " + "  ".join(f"P{s} {_est('win_rate', e)}" for s, e in enumerate(c.win_rate)))
        if c.fairness:
            f = c.fairness
            lines.append(
                f"  fairness      spread {_est('fairness', f['win_rate_spread'])} (P{f['best_seat']} - "
                f"P{f['worst_seat']}), chi2 {f['chi2']:.2f} df {f['df']}, p {_p(f['p_value'])}"
            )
        for name in ORDER:
            shown = _measure_text(name, c, scored)
            if shown:
                lines.append(f"  {name:<13} {shown}")
    for against, title in SECTIONS:
        comps = [x for x in r.comparisons if x.against == against]
        if not comps:
            continue
        refs = "" if against == "baseline" else f" ({', '.join(sorted({x.reference for x in comps}))})"
        lines += [
            "",
            printable(
                f"{title}{refs}: {len(comps)} comparisons; * beyond chance, Holm-corrected "
                f"p < 0.05 over all {len(r.comparisons)}; effect: Cohen's h for rates, d for means"
            ),
        ]
        vw = min(40, max(7, *(len(x.variant) for x in comps)))
        lines.append(
            f"  {'game':<14} {'line-up':<14} {'variant':<{vw}} {'measure':<14} {'reference':>10} "
            f"{'this':>10} {'difference [95%]':>28} {'effect':>8} {'p (Holm)':>9}"
        )
        for x in comps:
            diff = f"{_fmt(x.measure, x.diff)} [{_fmt(x.measure, x.ci[0])}, {_fmt(x.measure, x.ci[1])}]"
            lines.append(
                printable(
                    f"  {x.game[:14]:<14} {x.lineup[:14]:<14} {x.variant[:vw]:<{vw}} {x.measure:<14} "
                    f"{_fmt(x.measure, x.baseline_value):>10} {_fmt(x.measure, x.value):>10} {diff:>28} "
                    f"{x.effect_kind}={x.effect:+.2f} {_p(x.p_holm):>9}{' *' if x.beyond_chance else ''}"
                )
            )
    for g, v, ln, ch, err in r.failures:
        lines.append(printable(f"failed chunk {ch} of {g} · {v} · {ln}: {err.splitlines()[0] if err else ''}"))
    return "\n".join(lines)


# -- plots ---------------------------------------------------------------------------------

PLOT_CELLS = 30
PLOT_COMPARISONS = 80
PLOT_SEATS = 12  # seats drawn in the win-rate figure


def figures(r) -> list:
    """``(name, matplotlib figure)`` pairs: per game, the win rates per seat and cell, the
    measures per cell, and the differences from the baseline (when there are variants)."""
    import matplotlib

    matplotlib.use("Agg")
    out = []
    for game in dict.fromkeys(c.game for c in r.cells):
        # a figure shows at most PLOT_CELLS cells and PLOT_COMPARISONS comparisons (those beyond
        # chance first): a database of 10,000 cells would make a figure hundreds of metres tall
        cells = [c for c in r.cells if c.game == game and c.finished][:PLOT_CELLS]
        if not cells:
            continue
        out.append((f"{game}-win-rates", _win_figure(game, cells)))
        out.append((f"{game}-measures", _measures_figure(game, cells)))
        comps = sorted((x for x in r.comparisons if x.game == game), key=lambda x: not x.beyond_chance)
        if comps:
            out.append((f"{game}-vs-baseline", _effects_figure(game, comps[:PLOT_COMPARISONS])))
    return out


def _win_figure(game, cells):
    import matplotlib.pyplot as plt

    seats = min(PLOT_SEATS, max(c.nplayers for c in cells))
    fig, ax = plt.subplots(figsize=(min(30, max(6, 1.2 * len(cells) * max(seats, 2) / 2)), 4))
    width = 0.8 / seats
    for s in range(seats):
        xs, ys, err = [], [], [[], []]
        for i, c in enumerate(cells):
            if s < c.nplayers:
                e = c.win_rate[s]
                xs.append(i + (s - (seats - 1) / 2) * width)
                ys.append(e.value)
                lo, hi = _err(e)
                err[0] += lo
                err[1] += hi
        ax.bar(xs, ys, width, yerr=err, capsize=3, label=f"P{s}")
    ax.set_xticks(range(len(cells)), [plot_text(c.variant) + "\n" + plot_text(c.lineup) for c in cells], fontsize=8)
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_title(plot_text(f"{game}: win rate per seat"))
    ax.legend(fontsize=8, ncol=min(seats, 8))
    fig.tight_layout()
    return fig


def _err(e) -> list:
    """Error bar lengths below and above (an interval's bound can miss its point by a rounding error)."""
    return [[max(0.0, e.value - e.lo)], [max(0.0, e.hi - e.value)]]


def _measures_figure(game, cells):
    import matplotlib.pyplot as plt

    names = [n for n in ORDER if any(n in c.measures for c in cells)]
    cols = 3
    rows = (len(names) + cols - 1) // cols
    fig, axes = plt.subplots(
        rows, cols, figsize=(11, 0.35 * len(cells) * rows + 1.2 * rows), squeeze=False, sharey=True
    )
    for ax, name in zip(axes.flat, names):
        ys = range(len(cells))
        for y, c in zip(ys, cells):
            e = c.measures.get(name)
            if e is not None:
                ax.errorbar([e.value], [y], xerr=_err(e), fmt="o", capsize=3, color="C3" if c.baseline else "C0")
        ax.set_yticks(list(ys), [plot_text(f"{c.variant} · {c.lineup}") for c in cells], fontsize=7)
        ax.set_ylim(len(cells) - 0.5, -0.5)  # the first cell on top (the axes share y)
        ax.set_title(name.replace("_", " "), fontsize=9)
        ax.tick_params(axis="x", labelsize=7)
    for ax in list(axes.flat)[len(names) :]:
        ax.axis("off")
    fig.suptitle(plot_text(f"{game}: measures per cell (95% intervals; red: baseline)"), fontsize=10)
    fig.tight_layout()
    return fig


def _effects_figure(game, comps):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 0.28 * len(comps) + 1.4))
    for y, x in enumerate(comps):
        # the interval of the difference, scaled like the effect size (difference / its scale)
        scale = x.effect / x.diff if x.diff else 0.0
        lo, hi = sorted((x.ci[0] * scale, x.ci[1] * scale)) if scale else (x.effect, x.effect)
        # (Cohen's h is not linear in the rates: the scaled interval may miss the point by a little)
        ax.errorbar(
            [x.effect],
            [y],
            xerr=[[max(0.0, x.effect - lo)], [max(0.0, hi - x.effect)]],
            fmt="o",
            capsize=2,
            color="C3" if x.beyond_chance else "C7",
        )
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(
        range(len(comps)),
        [
            plot_text(
                f"{x.variant} · {x.lineup} · {x.measure}" + ("" if x.against == "baseline" else f" (vs {x.reference})")
            )
            for x in comps
        ],
        fontsize=7,
    )
    ax.invert_yaxis()
    ax.set_xlabel("effect size vs the reference (Cohen's h for rates, d for means), 95% interval")
    ax.set_title(
        plot_text(f"{game}: against the baseline and the first line-up\n(red: beyond chance, Holm)"), fontsize=10
    )
    fig.tight_layout()
    return fig


def write_plots(r, out_dir) -> list:
    """Write the report's figures as PNG files into ``out_dir`` (made if missing); their paths."""
    from pathlib import Path

    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    with plain_text():
        for name, fig in figures(r):
            p = out / f"{_safe(name)}.png"
            fig.savefig(p, dpi=110)
            plt.close(fig)
            paths.append(p)
    return paths


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)[:120]


CSS = (
    "body{font-family:sans-serif;margin:1em 2em;max-width:100%;box-sizing:border-box}"
    ".wide{overflow-x:auto;max-width:100%}"  # a table wider than the window scrolls inside its box
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 6px;font-size:85%;"
    "text-align:right;vertical-align:top}th{background:#eee}.l{text-align:left}.sig{background:#fde2e2}"
    "td small{color:#555}.na{color:#888;font-style:italic}"
    "table.cells{width:100%}"  # the browser wraps headers and cells to fit the window before it scrolls
    "img{max-width:100%;height:auto}"
)


def _cell_html(name: str, e, c=None, scored: bool = False) -> str:
    """A table cell: the estimate over its interval (two short lines, not one long one)."""
    esc = _html.escape
    if e is None:
        na = c is not None and scored and name in SCORE_MEASURES and c.finished
        return "<td class=na>not measurable</td>" if na else "<td></td>"
    part = ""
    if c is not None and name in SCORE_MEASURES and e.n < c.finished:
        part = f"<br><small>in {e.n:,} of {c.finished:,} games</small>"
    return (
        f"<td>{esc(_fmt(name, e.value))}<br><small>[{esc(_fmt(name, e.lo))}, {esc(_fmt(name, e.hi))}]</small>"
        f"{part}</td>"
    )


def html(r) -> str:
    """One self-contained HTML page: the tables and the plots (PNG, inline), as wide as the window."""
    esc = _html.escape
    scored = bool(r.plan.get("heuristics"))
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{esc(r.name)}: campaign report</title><style>{CSS}</style></head><body>",
        f"<h1>{esc(r.name)}</h1><p>{r.chunks_done} of {r.chunks_total} chunks; seed {esc(str(r.plan.get('seed')))}"
        f", {esc(str(r.plan.get('games')))} games per cell. 95% intervals: Wilson for rates, Student's t for "
        "means. Differences from the baseline (and from the first line-up): Newcombe (rates) and Welch (means); "
        'p-values Holm-corrected over all comparisons. "not measurable": the score does not move during '
        "play, so lead changes, decisiveness, drama and comebacks say nothing.</p>",
    ]
    for game in dict.fromkeys(c.game for c in r.cells):
        cells = [c for c in r.cells if c.game == game]
        seats = max(c.nplayers for c in cells)
        names = [n for n in ORDER if any(n in c.measures for c in cells)]
        unmeasured = [
            n for n in ORDER if scored and n in SCORE_MEASURES and n not in names and any(c.finished for c in cells)
        ]
        parts.append(
            f"<h2>{esc(game)}</h2><div class=wide><table class=cells><tr><th class=l>variant</th>"
            "<th class=l>line-up</th><th>games</th>"
            + "".join(f"<th>win P{s}</th>" for s in range(seats))
            + "<th>fairness</th>"
            + "".join(f"<th>{esc(n.replace('_', ' '))}</th>" for n in names)
            + "</tr>"
        )
        for c in cells:
            row = [
                f"<td class=l>{esc(c.variant)}{' (baseline)' if c.baseline else ''}</td>",
                f"<td class=l>{esc(c.lineup)}</td>",
                f"<td>{c.finished:,}</td>",
            ]
            row += [_cell_html("win_rate", c.win_rate[s]) if s < len(c.win_rate) else "<td></td>" for s in range(seats)]
            row.append(_cell_html("fairness", c.fairness.get("win_rate_spread") if c.fairness else None))
            row += [_cell_html(n, c.measures.get(n), c, scored) for n in names]
            parts.append("<tr>" + "".join(row) + "</tr>")
        parts.append("</table></div>")
        if unmeasured:
            parts.append(
                f"<p class=na>{esc(', '.join(n.replace('_', ' ') for n in unmeasured))}: not measurable in "
                "any cell (the score does not move during play)</p>"
            )
        for against, title in SECTIONS:
            comps = [x for x in r.comparisons if x.game == game and x.against == against]
            if not comps:
                continue
            parts.append(
                f"<h3>{esc(title)}</h3><div class=wide><table><tr><th class=l>variant</th>"
                "<th class=l>line-up</th><th class=l>against</th><th class=l>measure</th><th>reference</th>"
                "<th>this</th><th>difference [95%]</th><th>effect</th><th>p (Holm)</th></tr>"
            )
            for x in comps:
                diff = f"{_fmt(x.measure, x.diff)} [{_fmt(x.measure, x.ci[0])}, {_fmt(x.measure, x.ci[1])}]"
                parts.append(
                    f"<tr{' class=sig' if x.beyond_chance else ''}><td class=l>{esc(x.variant)}</td>"
                    f"<td class=l>{esc(x.lineup)}</td><td class=l>{esc(x.reference)}</td>"
                    f"<td class=l>{esc(x.measure)}</td><td>{_fmt(x.measure, x.baseline_value)}</td>"
                    f"<td>{_fmt(x.measure, x.value)}</td><td>{esc(diff)}</td>"
                    f"<td>{x.effect_kind}={x.effect:+.2f}</td><td>{_p(x.p_holm)}"
                    f"{' *' if x.beyond_chance else ''}</td></tr>"
                )
            parts.append("</table></div>")
        for name, png in _figures_plain(_only(r, game)):
            parts.append(f"<p><img alt='{esc(name)}' src='data:image/png;base64,{base64.b64encode(png).decode()}'></p>")
    if r.failures:
        parts.append(
            "<h2>Failed chunks</h2><ul>"
            + "".join(
                f"<li>{esc(f'{g} · {v} · {ln} chunk {ch}')}: <code>{esc(err or '')}</code></li>"
                for g, v, ln, ch, err in r.failures
            )
            + "</ul>"
        )
    parts.append("</body></html>")
    return "\n".join(parts)


def _figures_plain(r) -> list:
    """``(name, PNG bytes)`` of the report's figures, drawn without LaTeX."""
    import matplotlib.pyplot as plt

    out = []
    with plain_text():
        for name, fig in figures(r):
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=90)
            plt.close(fig)
            out.append((name, buf.getvalue()))
    return out


def _only(r, game):
    from dataclasses import replace

    return replace(
        r, cells=[c for c in r.cells if c.game == game], comparisons=[x for x in r.comparisons if x.game == game]
    )
