"""A game's page drawn: its figures (matplotlib PNGs, the flow graph as SVG by Graphviz) and its
HTML (recycle/study/page.py makes the ``GamePage``; this module only draws it).

The page opens offline: no fonts, scripts or styles from elsewhere; the figures are files
beside it, shown with ``<img>`` (an SVG shown so runs no script). Every text of the game —
its name, summary, code, lint messages — is HTML-escaped, and text drawn in a figure goes
through ``plots.plot_text`` (matplotlib reads ``$...$`` as math).
"""

from __future__ import annotations

import html
import io
import shutil
import subprocess

from .page_measures import measure_figures, measures_html
from .plots import plain_text, plot_text

DPI = 100
MIN_SHARE = 10  # a mean is drawn where at least 1/MIN_SHARE of the games reached the decision


def _ordinal(r: int) -> str:
    return f"{r}{'th' if 10 <= r % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(r % 10, 'th')}"


def _png(fig) -> bytes:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    plt.close(fig)
    return buf.getvalue()


def _reached(rows: list, games: int) -> list:
    need = max(1, games // MIN_SHARE)
    return [r for r in rows if r["games"] >= need]


def _legend(ax) -> None:
    """The legend beside the plot (never over its lines), its samples opaque."""
    legend = ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    for handle in legend.legend_handles:
        handle.set_alpha(1)


def _no_estimates(ax, page) -> None:
    """Say on an empty figure why it is empty."""
    why = (
        "no look-ahead player had a decision of two or more options"
        if page.estimated_games
        else "no game between look-ahead players was played"
    )
    ax.text(0.5, 0.5, f"no estimates: {why}", ha="center", transform=ax.transAxes)


def branching_figure(page):
    """Options per decision point: every game's points (faint), the smoothed mean and its band."""
    import matplotlib.pyplot as plt

    b = page.branching
    fig, ax = plt.subplots(figsize=(9, 4))
    xs, ys = [], []
    for opts in b["per_game"]:
        xs += range(1, len(opts) + 1)
        ys += opts
    if xs:
        ax.scatter(xs, ys, s=6, alpha=0.15, color="tab:blue", linewidths=0, label="each game's decisions")
    rows = _reached(b["by_decision"], b["games"])
    if rows:
        _band(ax, rows, ("smooth", "smooth_low", "smooth_high"), "tab:orange", 0.3, 2, "smoothed mean")
    if xs:
        _legend(ax)
    ax.set_xlabel("decision point")
    ax.set_ylabel("options (branching factor)")
    ax.set_ylim(bottom=0)
    ax.set_title(plot_text(f"Branching factor per decision point ({b['games']} random games)"))
    fig.tight_layout()
    return fig


def _band(ax, rows, keys: tuple[str, str, str], color: str, alpha: float, width: float, label: str) -> None:
    """A mean line over the decision points of ``rows`` with its 95% band (``keys``: the
    mean's, the band's low and high fields)."""
    kx = [r["decision"] for r in rows]
    mid, low, high = keys
    ax.fill_between(
        kx, [r[low] for r in rows], [r[high] for r in rows], color=color, alpha=alpha, linewidth=0, label="95% band"
    )
    ax.plot(kx, [r[mid] for r in rows], color=color, linewidth=width, label=label)


def spread_figure(page):
    """Normalised decision spread per decision point: each game faint, the mean bold with its band."""
    import matplotlib.pyplot as plt

    s = page.spread
    fig, ax = plt.subplots(figsize=(9, 4))
    for pts in s["per_game"]:
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color="tab:gray", alpha=0.15, linewidth=0.8)
    rows = _reached(s["by_decision"], s["games"])
    if rows:
        _band(ax, rows, ("mean", "low", "high"), "tab:red", 0.25, 2.2, "mean")
        _legend(ax)
    else:
        _no_estimates(ax, page)
    ax.set_ylim(-0.02, 1.05)
    ax.set_xlabel("decision point (decisions with two or more options)")
    ax.set_ylabel("normalised spread")
    ax.set_title(plot_text(f"Decision spread ({s['games']} games, {_players(page)})"))
    fig.tight_layout()
    return fig


def lead_figure(page):
    """Normalised rank estimates per decision point: one line per final rank, with its band."""
    import matplotlib.pyplot as plt

    lead = page.lead
    fig, ax = plt.subplots(figsize=(9, 4))
    for r, rows in lead["ranks"].items():
        rows = _reached(rows, lead["games"])
        if not rows:
            continue
        kx = [x["decision"] for x in rows]
        (line,) = ax.plot(kx, [x["mean"] for x in rows], linewidth=2, marker=".", label=f"finished {_ordinal(int(r))}")
        ax.fill_between(
            kx, [x["low"] for x in rows], [x["high"] for x in rows], color=line.get_color(), alpha=0.15, linewidth=0
        )
    if lead["ranks"]:
        _legend(ax)
    else:
        _no_estimates(ax, page)
    ax.set_ylim(-0.02, 1.05)
    ax.set_xlabel("decision point (decisions with two or more options)")
    ax.set_ylabel("estimated rank (1 first, 0 last)")
    ax.set_title(plot_text(f"Lead history ({lead['games']} games, {_players(page)})"))
    fig.tight_layout()
    return fig


def _players(page) -> str:
    kinds = list(dict.fromkeys(page.players))
    return "all " + kinds[0] if len(kinds) == 1 else ",".join(page.players)


def flow_svg(dot_text: str) -> bytes | None:
    """The flow graph drawn by Graphviz's ``dot`` as SVG, or None when it is not installed."""
    exe = shutil.which("dot")
    if exe is None:
        return None
    proc = subprocess.run([exe, "-Tsvg"], input=dot_text.encode("utf-8"), capture_output=True, timeout=300, check=False)
    if proc.returncode != 0:
        return None
    return proc.stdout


def figures(page) -> dict:
    """The page's figure files: name -> bytes (``flow.svg``, or ``flow.gv`` without Graphviz)."""
    import matplotlib

    matplotlib.use("Agg")
    out = {}
    svg = flow_svg(page.flow_dot)
    if svg is None:
        out["flow.gv"] = page.flow_dot.encode("utf-8")
    else:
        out["flow.svg"] = svg
    with plain_text():
        out["branching.png"] = _png(branching_figure(page))
        out["spread.png"] = _png(spread_figure(page))
        out["lead.png"] = _png(lead_figure(page))
        out.update(measure_figures(page, _png))
    return out


# -- HTML ----------------------------------------------------------------------------------

STYLE = """
body { font-family: sans-serif; max-width: 60em; margin: 1.5em auto; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { margin-bottom: 0.2em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ccc; }
.meta { color: #555; font-size: 0.9em; } .summary { white-space: pre-line; }
.note { background: #fff6d5; border: 1px solid #e6d38a; padding: 0.4em 0.7em; }
figure { margin: 0.5em 0; } figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-size: 0.9em; color: #444; }
table.code { border-collapse: collapse; font-family: monospace; font-size: 0.85em; width: 100%; }
table.code td { padding: 0 0.6em; vertical-align: top; white-space: pre-wrap; word-break: break-word; }
table.code td.n { color: #999; text-align: right; user-select: none; width: 3em; border-right: 1px solid #ddd; }
ul.lint li { margin: 0.2em 0; } a { color: #0645ad; }
"""

CAPTIONS = {
    "flow": "Where cards go and who learns what, in one random game (recycle graph): public locations "
    "green, hidden yellow, private blue, memory grey; edges are card movements, red dotted: "
    "taken (public to private or hidden), blue dashed: shared (private cards to another player).",
    "branching": "The branching factor (options) at each decision point of {n} random games: every game's "
    "decisions as faint points (darker where many games had that number), their mean smoothed over "
    "seven decision points with its 95% band. "
    "A decision point is every moment a player chooses, one with a single option included.",
    "spread": "At each decision point (with two or more options) of {n} games between {players} players, "
    "the mover's best estimated option minus its worst (its own estimated final score), divided "
    "by the largest spread of that game: each game faint, the mean bold with its 95% band.",
    "lead": "At each decision point of the same {n} games, the mover's estimate of every player's final "
    "score for the option it chose, turned into ranks (1 first, 0 last), averaged over the games "
    "by each player's final rank, with 95% bands.",
}


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _figure(kind: str, src: str, page, json_name: str) -> str:
    caption = CAPTIONS[kind].format(
        n={"branching": page.random_games}.get(kind, page.estimated_games), players=_e(_players(page))
    )
    return (
        f'<figure><img src="{_e(src)}" alt="{_e(kind)} figure"><figcaption>{caption} '
        f'<a href="{_e(json_name)}">Numbers (JSON)</a>.</figcaption></figure>'
    )


def _lint(page) -> str:
    found = page.lint.get("findings", [])
    if not found:
        return f"<p>No finding in {page.lint.get('games', 0)} random games.</p>"
    items = []
    for f in found:
        where = f"line {f['line']}: " if f.get("line") else ""
        items.append(f"<li>{_e(where)}{_e(f['message'])}</li>")
    return (
        f'<p>{len(found)} finding{"s" if len(found) > 1 else ""} in {page.lint.get("games", 0)} random games:</p><ul class="lint">'
        + "".join(items)
        + "</ul>"
    )


def _code(source: str) -> str:
    rows = [
        f'<tr id="L{i}"><td class="n">{i}</td><td>{_e(line) or " "}</td></tr>'
        for i, line in enumerate(source.splitlines(), 1)
    ]
    return '<table class="code">' + "".join(rows) + "</table>"


def _stopped(page) -> str:
    if page.stopped is None:
        return ""
    why = "interrupted (Ctrl-C)" if page.stopped == "interrupted" else "stopped by the time budget"
    return (
        f'<p class="note">This page is partial: {why} after {page.random_games} of {page.games} random '
        f"games and {page.estimated_games} of {page.games} games between look-ahead players; the later "
        "sections are over the games they played, or say they were not measured.</p>"
    )


def played_by(page) -> str:
    """What stepped the page's games: the random games' engine and the look-ahead players'
    (``branching.engine``, ``estimates_engine``), in words; "" for a page that played none."""
    from .engine_use import _words

    parts = []
    for what, engine in (("random games", page.branching.get("engine")), ("look-ahead games", page.estimates_engine)):
        if engine:
            parts.append(f"{what}: {_words(engine)}")
    return ("played by " + "; ".join(parts)) if parts else ""


def page_html(page, files: set) -> str:
    """The page's HTML; ``files``: the names of the files written beside it."""
    flow = "flow.svg" if "flow.svg" in files else None
    flow_part = (
        _figure("flow", flow, page, "flow.json")
        if flow
        else (
            '<p class="note">Graphviz\'s dot is not installed: the graph was not drawn. Its DOT text is in '
            '<a href="flow.gv">flow.gv</a> (render it with <code>dot -Tsvg flow.gv -o flow.svg</code>); its '
            'numbers in <a href="flow.json">flow.json</a>.</p>'
        )
    )
    summary = (
        f'<p class="summary">{_e(page.summary)}</p>'
        if page.summary
        else "<p><em>No summary: add <code>;@ summary:</code> lines to the game.</em></p>"
    )
    meta = (
        f"{_e(page.file)} · {page.nplayers} players · scoring {page.scoring} · seed {page.seed} · "
        f"{page.random_games} random games, {page.estimated_games} games of {_e(_players(page))} players · "
        f"{page.seconds:.0f} s"
    )
    if played_by(page):
        meta += f" · {_e(played_by(page))}"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_e(page.game)}</title>
<style>{STYLE}</style></head>
<body>
<h1>{_e(page.game)}</h1>
<p class="meta">{meta}</p>
{_stopped(page)}
<h2>Summary</h2>
{summary}
<h2>Information flow</h2>
{flow_part}
<h2>Branching factor</h2>
{_figure("branching", "branching.png", page, "branching.json")}
<h2>Decision spread</h2>
{_figure("spread", "spread.png", page, "spread.json")}
<h2>Lead history</h2>
{_figure("lead", "lead.png", page, "lead.json")}
{measures_html(page, _players(page))}
<h2>Simulation lint</h2>
{_lint(page)}
<h2>RECYCLE code</h2>
<p><a href="page.json">All of this page's numbers (JSON)</a>.</p>
{_code(page.source)}
<p class="meta">Made by recycle page. The figures are defined in recycle's docs/analysis.md ("A game's page").</p>
</body></html>
"""


def index_html(entries: list) -> str:
    """An index of pages: ``entries`` are ``(folder name, GamePage)``."""
    rows = "".join(
        f'<li><a href="{_e(name)}/index.html">{_e(p.game)}</a> — {p.nplayers} players, '
        f"{p.estimated_games} games of {_e(_players(p))} players</li>"
        for name, p in entries
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Game pages</title><style>{STYLE}</style></head>
<body><h1>Game pages</h1><ul>{rows}</ul></body></html>
"""
