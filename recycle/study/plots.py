"""PNG plots of an analysis (``recycle analyze --plots DIR``), drawn with matplotlib."""

from __future__ import annotations

from .analysis import DECILES


def write_plots(a: dict, out_dir) -> list:
    """PNG plots of branching and of scores over the course of the game; returns the paths."""
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    b = a["branching"]
    N = max(a["finished"], 1)
    idx = [r for r in b["by_index"] if r["games"] >= max(1, N // 10)]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    if idx:
        xs = [r["decision"] for r in idx]
        ax1.fill_between(xs, [r["p10"] for r in idx], [r["p90"] for r in idx], alpha=0.25, label="10–90%")
        ax1.plot(xs, [r["mean"] for r in idx], marker=".")
    ax1.set_xlabel("decision number")
    ax1.set_ylabel("options")
    ax1.set_title("Options per decision: mean, 10–90% band\n(decisions reached by ≥ 10% of games)")
    dec = [x if x is not None else 0 for x in b["by_decile"]]
    ax2.bar([f"{10 * i}–{10 * i + 10}%" for i in range(DECILES)], dec)
    ax2.set_xlabel("progress through the game")
    ax2.set_title("Mean options by decile of the game")
    ax2.tick_params(axis="x", labelrotation=45)
    fig.suptitle(f"{a['game']}: branching ({a['finished']} games, {','.join(a['players'])})")
    fig.tight_layout()
    p = out / f"{a['game']}-branching.png"
    fig.savefig(p, dpi=110)
    plt.close(fig)
    paths.append(p)

    bins = 20
    np_ = len(a["seats"])
    sums = [[0.0] * (bins + 1) for _ in range(np_)]
    counts = [0] * (bins + 1)
    gap_sum = [0.0] * (bins + 1)
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
            best = max(s) if higher else min(s)
            gap_sum[j] += min(abs(best - s[w]) for w in g["winners"])
    xs = [j / bins for j in range(bins)] + [1.0]
    keep = [j for j in range(bins + 1) if counts[j]]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for pl in range(np_):
        ax1.plot([xs[j] for j in keep], [sums[pl][j] / counts[j] for j in keep], marker=".",
                 label=f"P{pl} {a['seats'][pl]['player']}")
    ax1.set_xlabel("progress through the game (1 = final scores)")
    winprob = a["values"] != "scoring"
    ax1.set_ylabel("estimated win probability" if winprob else "mean score (scoring expression)")
    ax1.set_title("Win probability over time, per seat" if winprob else "Score over time, per seat")
    ax1.legend(fontsize="small")
    ax2.plot([xs[j] for j in keep], [gap_sum[j] / counts[j] for j in keep], marker=".", color="tab:red")
    ax2.set_xlabel("progress through the game (1 = final scores)")
    ax2.set_ylabel("win probability behind the leader" if winprob else "points behind the leader")
    ax2.set_title("How far behind the eventual winner is (mean)")
    fig.suptitle(f"{a['game']}: {'win probability (' + a['values'] + ')' if winprob else 'scores'} over time "
                 f"(scoring {a['scoring']}; {a['finished']} games)")
    fig.tight_layout()
    p = out / f"{a['game']}-{'winprob' if winprob else 'scores'}.png"
    fig.savefig(p, dpi=110)
    plt.close(fig)
    paths.append(p)
    return paths


# -- duplicate play ------------------------------------------------------------------------
