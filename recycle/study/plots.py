"""PNG plots of an analysis (``recycle analyze --plots DIR``), drawn with matplotlib."""

from __future__ import annotations

from contextlib import contextmanager

from ..errors import printable
from .analysis import DECILES

Z95 = 1.96  # a 95% normal confidence interval: mean ± Z95 standard errors
PLAIN_TEXT = {"text.usetex": False}  # a user's matplotlibrc may turn LaTeX on: outside text is never LaTeX


@contextmanager
def plain_text():
    """A context in which figures are drawn without LaTeX and without a warning per glyph that
    the font lacks (a name in another script is drawn as boxes, not reported line by line)."""
    import warnings

    import matplotlib

    with matplotlib.rc_context(PLAIN_TEXT), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .* missing from font")
        yield


def plot_text(text, limit: int = 120) -> str:
    """Text from outside (a game's or file's name, a plan's names, a player's spec) as a plot
    shows it: printable, and with every ``$`` escaped, so that matplotlib never reads it as
    math markup (``$\\frac$`` in a name was a ValueError traceback)."""
    text = printable(str(text))
    if len(text) > limit:  # a name of 1,000 characters would push the plot out of its figure
        text = text[: limit - 1] + "…"
    return text.replace("$", r"\$")


def write_plots(a: dict, out_dir) -> list:
    """PNG plots of branching and of scores over the course of the game; returns the paths."""
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    with plain_text():
        for fig, name in ((branching_figure(a), "branching"), trend_figure(a)):
            p = out / f"{a['game']}-{name}.png"
            fig.savefig(p, dpi=110)
            plt.close(fig)
            paths.append(p)
    return paths


def branching_figure(a: dict):
    """The branching figure: options per decision (mean and the 10–90% band) and by decile.

    The band is filled between the 10th and 90th percentile and its edges are drawn as lines,
    so it shows even where it has no width (every game had the same number of options there).
    """
    import matplotlib.pyplot as plt

    b = a["branching"]
    N = max(a["finished"], 1)
    idx = [r for r in b["by_index"] if r["games"] >= max(1, N // 10)]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    if idx:
        xs = [r["decision"] for r in idx]
        lo, hi = [r["p10"] for r in idx], [r["p90"] for r in idx]
        ax1.fill_between(xs, lo, hi, alpha=0.25, color="tab:blue", label="10–90% of games")
        ax1.plot(xs, lo, color="tab:blue", alpha=0.6, linewidth=0.8, linestyle="--", marker="v", markersize=3)
        ax1.plot(xs, hi, color="tab:blue", alpha=0.6, linewidth=0.8, linestyle="--", marker="^", markersize=3)
        ax1.plot(xs, [r["mean"] for r in idx], marker=".", color="tab:blue", label="mean")
        flat = sum(1 for x, y in zip(lo, hi) if x == y)
        ax1.set_ylim(0, max(hi) * 1.3 + 0.5)  # room for the legend above the band
        ax1.legend(fontsize="small", loc="upper right", ncol=2)
    else:
        flat = 0
    ax1.set_xlabel(
        "decision number"
        + (
            f"\n(no band at {flat} of {len(idx)} decisions: there every game had the same number of options)"
            if flat
            else ""
        )
    )
    ax1.set_ylabel("options")
    ax1.set_title("Options per decision: mean, 10–90% band\n(decisions reached by ≥ 10% of games)")
    dec = [x if x is not None else 0 for x in b["by_decile"]]
    ax2.bar([f"{10 * i}–{10 * i + 10}%" for i in range(DECILES)], dec)
    ax2.set_xlabel("progress through the game")
    ax2.set_title("Mean options by decile of the game")
    ax2.tick_params(axis="x", labelrotation=45)
    fig.suptitle(plot_text(f"{a['game']}: branching ({a['finished']} games, {','.join(a['players'])})"))
    fig.tight_layout()
    return fig


def trend_figure(a: dict):
    """``(figure, name)``: each seat's win probability (or score) over the game, and the
    eventual winner's distance from the leader, each mean with its 95% confidence band."""
    import matplotlib.pyplot as plt

    bins = 20
    np_ = len(a["seats"])
    sums = [[0.0] * (bins + 1) for _ in range(np_)]
    squares = [[0.0] * (bins + 1) for _ in range(np_)]
    counts = [0] * (bins + 1)
    gap_sum = [0.0] * (bins + 1)
    gap_squares = [0.0] * (bins + 1)
    higher = a["scoring"] == "max" or a["values"] != "scoring"
    for g in a.get("games_detail", []):
        if g["limit"] or not g["options"]:
            continue
        D = len(g["trace"])
        points = [(min(bins - 1, k * bins // D), s) for k, s in enumerate(g["trace"]) if s is not None]
        points.append((bins, g["final"]))
        for j, s in points:
            counts[j] += 1
            for pl in range(np_):
                sums[pl][j] += s[pl]
                squares[pl][j] += s[pl] * s[pl]
            best = max(s) if higher else min(s)
            gap = min(abs(best - s[w]) for w in g["winners"])
            gap_sum[j] += gap
            gap_squares[j] += gap * gap
    xs = [j / bins for j in range(bins)] + [1.0]
    keep = [j for j in range(bins + 1) if counts[j]]

    def band(total, squared, low=None, high=None):
        """Means and their 95% confidence limits over the kept bins (clipped to ``low``..``high``)."""
        means, lows, highs = [], [], []
        for j in keep:
            n = counts[j]
            m = total[j] / n
            var = max(0.0, squared[j] / n - m * m) * n / (n - 1) if n > 1 else 0.0
            half = Z95 * (var / n) ** 0.5
            means.append(m)
            lows.append(m - half if low is None else max(low, m - half))
            highs.append(m + half if high is None else min(high, m + half))
        return means, lows, highs

    winprob = a["values"] != "scoring"
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    px = [xs[j] for j in keep]
    for pl in range(np_):
        means, lows, highs = band(sums[pl], squares[pl], *((0.0, 1.0) if winprob else (None, None)))
        (line,) = ax1.plot(px, means, marker=".", label=plot_text(f"P{pl} {a['seats'][pl]['player']}"))
        ax1.fill_between(px, lows, highs, color=line.get_color(), alpha=0.15, linewidth=0)
    ax1.set_xlabel("progress through the game (1 = final scores)")
    ax1.set_ylabel("estimated win probability" if winprob else "mean score (scoring expression)")
    ax1.set_title(
        ("Win probability over time, per seat" if winprob else "Score over time, per seat")
        + "\n(mean, shaded: 95% confidence band)"
    )
    ax1.legend(fontsize="small")
    means, lows, highs = band(gap_sum, gap_squares, 0.0, 1.0 if winprob else None)
    ax2.plot(px, means, marker=".", color="tab:red")
    ax2.fill_between(px, lows, highs, color="tab:red", alpha=0.15, linewidth=0)
    ax2.set_xlabel("progress through the game (1 = final scores)")
    ax2.set_ylabel("win probability behind the leader" if winprob else "points behind the leader")
    ax2.set_title("How far behind the eventual winner is\n(mean, shaded: 95% confidence band)")
    fig.suptitle(
        plot_text(
            f"{a['game']}: {'win probability (' + a['values'] + ')' if winprob else 'scores'} "
            f"over time (scoring {a['scoring']}; {a['finished']} games)"
        )
    )
    fig.tight_layout()
    return fig, "winprob" if winprob else "scores"


# -- duplicate play ------------------------------------------------------------------------
