"""What the studio's editor and its Run panel ask of the Python API: a check with
positioned messages (as ``recycle check`` gives them), statistics, the analysis with its
plots, the information-flow graph and the structure tree, drawn as SVG."""

from __future__ import annotations

import io
import re
import shutil
import subprocess

from ..errors import RecycleBug, RecycleError

POSITIONED = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): (?:warning|note): (?P<msg>.*)$", re.S)
DOT_SECONDS = 60


def message(kind: str, text: str, span=None) -> dict:
    """One positioned message for the editor (line and column 1-based; 0 when unknown)."""
    if span is None:
        return {"severity": kind, "message": text, "line": 0, "column": 0, "end_line": 0, "end_column": 0}
    return {
        "severity": kind,
        "message": text,
        "line": span.line,
        "column": span.column,
        "end_line": span.end_line,
        "end_column": span.end_column,
    }


def check_text(text: str, name: str, max_work: int | None = None):
    """Parse, compile and lint ``text``: ``(game or None, messages)``; the messages are
    those of ``recycle check``, each with its line and column."""
    from ..engine.game import loads
    from ..lang.reading.lint import lint

    try:
        game = loads(text, name, max_work=max_work)
    except (RecycleError, RecycleBug) as exc:
        kind = getattr(exc, "kind", "error")
        msg = exc.message if isinstance(exc, RecycleError) else str(exc)
        if getattr(exc, "form", None):
            msg += f" (in the form ({exc.form} ...))"
        return None, [message("error", f"{kind}: {msg}", getattr(exc, "span", None))]
    out = []
    for w in game.warnings:
        m = POSITIONED.match(w)
        if m:
            out.append(
                {
                    "severity": "warning",
                    "message": m.group("msg"),
                    "line": int(m.group("line")),
                    "column": int(m.group("col")),
                    "end_line": int(m.group("line")),
                    "end_column": int(m.group("col")) + 1,
                }
            )
        else:
            out.append(message("warning", w))
    out += [message("warning", w.message, w.span) for w in lint(game.nodes)]
    return game, out


def svg_of_dot(source: str) -> str:
    """DOT text drawn as SVG by Graphviz's ``dot`` (``RuntimeError`` when it cannot be)."""
    exe = shutil.which("dot")
    if exe is None:
        raise RuntimeError("Graphviz's dot is not installed (apt-get install graphviz): no drawing")
    proc = subprocess.run([exe, "-Tsvg"], input=source.encode("utf-8"), capture_output=True, timeout=DOT_SECONDS)
    if proc.returncode != 0:
        raise RuntimeError(f"dot failed: {proc.stderr.decode('utf-8', 'replace').strip()[:500]}")
    return proc.stdout.decode("utf-8", "replace")


def run_simulate(game, job, n: int, seed: int, players: str | None, timeout: float) -> dict:
    """``recycle simulate``: its figures and its table as lines."""
    from ..players import make_players
    from ..study.stats import simulate

    pl = make_players(players, game.nplayers) if players else None
    stats = simulate(game, n, seed, pl, progress=lambda i: job.tick(i + 1), keep_records=False, timeout=timeout)
    return {"kind": "simulate", "stats": stats.to_dict(), "lines": stats.table()}


def _figure_svg(fig) -> str:
    import matplotlib.pyplot as plt

    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    plt.close(fig)
    return buf.getvalue()


def run_analyze(game, job, n: int, seed: int, players: str | None, timeout: float) -> dict:
    """``recycle analyze``: its report as lines, the summary and the two plots as SVG."""
    import matplotlib

    matplotlib.use("Agg")
    from ..cli.analysis_text import text_lines
    from ..study.analysis import analyze
    from ..study.plots import branching_figure, trend_figure

    specs = [s.strip() for s in players.split(",")] if players else None
    a = analyze(game, n, seed, specs, progress=job.tick, keep_games=True, timeout=timeout).to_dict()
    plots = {"branching": _figure_svg(branching_figure(a))}
    fig, name = trend_figure(a)
    plots[name] = _figure_svg(fig)
    summary = {k: v for k, v in a.items() if k != "games_detail"}
    return {"kind": "analyze", "summary": summary, "lines": text_lines(a), "plots": plots}


def run_graph(game, job, rollouts: int, seed: int, per_player: bool, timeout: float) -> dict:
    """The information-flow graph of ``rollouts`` random games, folded or per player, as SVG."""
    from ..study.graphs import flow_graph, to_dot

    job.total = rollouts
    G = flow_graph(game, rollouts=rollouts, seed=seed, per_player=per_player, timeout=timeout)
    job.done = G.graph.get("played", rollouts)
    return {
        "kind": "graph",
        "svg": svg_of_dot(to_dot(G)),
        "locations": len(G),
        "edges": G.number_of_edges(),
        "played": G.graph.get("played"),
        "skipped": G.graph.get("skipped"),
    }


def editor_words() -> dict:
    """The words the editor colours, from the form registry (``recycle.lang.forms.shapes.known_words``:
    every head and every lowercase word of a form's syntax): ``locations`` (location kinds and
    storage sorts) and ``keywords`` (the rest). Nothing is kept by hand in the page."""
    from ..lang.forms import flow  # noqa: F401 - assembles the compiler, which seals the registry
    from ..lang.forms.shapes import STORAGE_SORTS, known_words
    from ..lang.forms.values import KINDS

    locations = set(KINDS) | STORAGE_SORTS
    return {"keywords": sorted(known_words() - locations), "locations": sorted(locations)}


def structure(game) -> dict:
    """The structure tree: an outline (lines) and, when Graphviz is there, an SVG."""
    from ..study.structure import game_tree, outline, tree_dot

    t = game_tree(game.source)
    out = {"outline": outline(t), "svg": None, "note": None}
    try:
        out["svg"] = svg_of_dot(tree_dot(t, f"{game.name}: structure"))
    except (RuntimeError, subprocess.TimeoutExpired) as exc:
        out["note"] = str(exc)
    return out
