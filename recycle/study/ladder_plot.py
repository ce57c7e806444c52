"""The skill ladder's figure (``recycle ladder --plot FILE.png``): the win-rate matrix as a
heatmap and the rungs' Elo ratings, drawn with matplotlib."""

from __future__ import annotations

from .ladder import Ladder
from .plots import plain_text, plot_text


def ladder_figure(lad: Ladder):
    """The heatmap of the win-rate matrix (cells beyond chance outlined, the skill chain named
    in the title) beside a bar chart of the Elo ratings."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    k = len(lad.rungs)
    names = [plot_text(r, 30) for r in lad.rungs]
    size = max(4.0, 0.9 * k + 2)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(size * 2 + 1, size), gridspec_kw={"width_ratios": [1.2, 1]})
    grid = [[0.5 if v is None else v for v in row] for row in lad.rate]
    im = ax1.imshow(grid, cmap="RdBu", vmin=0, vmax=1)
    font = 9 if k <= 5 else 7 if k <= 8 else 6
    for i in range(k):
        for j in range(k):
            if i == j:
                ax1.text(j, i, "–", ha="center", va="center", color="grey")
                continue
            lo, hi = lad.ci[i][j]
            v = lad.rate[i][j]
            ax1.text(
                j,
                i,
                f"{v:.2f}\n[{lo:.2f}, {hi:.2f}]",
                ha="center",
                va="center",
                fontsize=font,
                color="white" if abs(v - 0.5) > 0.3 else "black",
            )
            if lo > 0.5 or hi < 0.5:  # beyond chance at 95%
                ax1.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="black", linewidth=1.5))
    ax1.set_xticks(range(k), names, rotation=45, ha="right")
    ax1.set_yticks(range(k), names)
    ax1.set_xlabel("against (column)")
    ax1.set_ylabel("rung (row)")
    ax1.set_title(
        "Win rate of the row against the column\n(ties half; 95% interval; outlined: beyond chance)", fontsize=10
    )
    fig.colorbar(im, ax=ax1, fraction=0.046, pad=0.04)
    bars = ax2.bar(
        range(k), lad.elo, color=["tab:orange" if i in lad.chain and lad.depth else "tab:blue" for i in range(k)]
    )
    ax2.axhline(0, color="grey", linewidth=0.8)
    for b, e in zip(bars, lad.elo):
        ax2.annotate(
            f"{e:+.0f}", (b.get_x() + b.get_width() / 2, e), ha="center", va="bottom" if e >= 0 else "top", fontsize=8
        )
    ax2.set_xticks(range(k), names, rotation=45, ha="right")
    if lad.depth:  # the bottom rung's bar has no height: its name shows it is in the chain
        for i, label in enumerate(ax2.get_xticklabels()):
            if i in lad.chain:
                label.set_color("tab:orange")
                label.set_fontweight("bold")
    ax2.set_ylabel("Elo (bottom rung 0)")
    ax2.set_title(
        "Elo ratings (Bradley–Terry fit)" + ("\norange: the rungs of the skill chain" if lad.depth else ""), fontsize=10
    )
    lo_e, hi_e = min(lad.elo + [0.0]), max(lad.elo + [0.0])
    pad = max(20.0, 0.15 * (hi_e - lo_e))
    ax2.set_ylim(lo_e - pad, hi_e + pad)
    fig.suptitle(
        plot_text(
            f"{lad.game}: skill ladder, skill depth {lad.depth} "
            f"({lad.games_per_pair} games per pair, {lad.nplayers} players)"
        )
    )
    fig.tight_layout()
    return fig


def write_ladder_plot(lad: Ladder, path) -> None:
    """Write the ladder's figure to ``path`` (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with plain_text():
        fig = ladder_figure(lad)
        try:
            fig.savefig(path, dpi=110)
        finally:
            plt.close(fig)
