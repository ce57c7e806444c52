"""The page's later sections (``recycle page``): the skill ladder (recycle/study/ladder.py), luck
and skill, suspense and surprise, and CardStock's heuristics (recycle/study/measures.py) —
played within the page's budget (``add_measures``) and drawn (``measure_figures``,
``measures_html``). recycle/study/page.py and page_render.py call these; docs/analysis.md
defines every number.
"""

from __future__ import annotations

import html

from .plots import plot_text


# (games, playouts per option) of the luck traces; the ladder's first rungs, doublings and games per pair
LUCK_GAMES, LUCK_ROLLOUTS = 20, 16
QUICK_LUCK_GAMES, QUICK_LUCK_ROLLOUTS = 6, 8
LADDER_PLAYERS, LADDER_DOUBLINGS, LADDER_GAMES = "random,ismcts:25", 2, 20
QUICK_LADDER_PLAYERS, QUICK_LADDER_DOUBLINGS, QUICK_LADDER_GAMES = "random,ismcts:10", 1, 8


def page_sizes(quick: bool) -> dict:
    """The sizes of the page's luck traces and ladder (``build_page``'s keywords)."""
    if quick:
        return {
            "luck_games": QUICK_LUCK_GAMES,
            "rollouts": QUICK_LUCK_ROLLOUTS,
            "ladder_players": QUICK_LADDER_PLAYERS,
            "ladder_doublings": QUICK_LADDER_DOUBLINGS,
            "ladder_games": QUICK_LADDER_GAMES,
        }
    return {
        "luck_games": LUCK_GAMES,
        "rollouts": LUCK_ROLLOUTS,
        "ladder_players": LADDER_PLAYERS,
        "ladder_doublings": LADDER_DOUBLINGS,
        "ladder_games": LADDER_GAMES,
    }


def extra_games(game, sizes: dict) -> int:
    """The games ``add_measures`` plays (for the progress bar's total)."""
    from .ladder import ladder_games, ladder_rungs

    n = sizes.get("luck_games", 0)
    if sizes.get("ladder_games") and game.nplayers > 1:
        rungs = ladder_rungs(sizes["ladder_players"], sizes["ladder_doublings"])
        n += ladder_games(len(rungs), sizes["ladder_games"], game.nplayers)
    return n


def add_measures(page, game, specs, seed, stop, workers, max_steps, progress, sizes: dict) -> bool:
    """Play the luck traces (``specs``' players) and the ladder into ``page`` (its ``luck``,
    ``suspense``, ``heuristics``, ``ladder``), while ``stop`` allows; a part with no game
    played stays empty. ``progress(done)`` counts the games. True when all was played."""
    from .ladder import LadderError, ladder_rungs, run_ladder
    from .measures import measure

    base = [0]

    def tick(done):
        if progress:
            progress(base[0] + done)

    n = sizes.get("luck_games", 0)
    complete = True
    if n and stop():
        complete = False
    elif n:
        try:
            m = measure(game, n, seed, specs, sizes["rollouts"], max_steps, workers, tick, stop=stop)
        except (TimeoutError, KeyboardInterrupt):
            m = None
        complete = m is not None and m.stopped is None
        if m is not None:
            page.measured_games = m.finished
            page.prior = m.prior
            page.luck = m.luck.to_dict()
            page.suspense = m.suspense.to_dict()
            page.heuristics = m.heuristics.to_dict()
        base[0] += n
    if sizes.get("ladder_games") and game.nplayers > 1 and not stop():
        rungs = ladder_rungs(sizes["ladder_players"], sizes["ladder_doublings"])
        try:
            lad = run_ladder(game, rungs, sizes["ladder_games"], seed, max_steps, workers, tick, stop=stop)
        except (TimeoutError, KeyboardInterrupt, LadderError):
            lad = None
        complete = complete and lad is not None and lad.stopped is None
        if lad is not None:
            page.ladder = lad.to_dict()
            page.ladder.pop("seconds")  # a page is the same every time
    elif sizes.get("ladder_games") and game.nplayers > 1:
        complete = False
    return complete


# -- figures ---------------------------------------------------------------------------------


def luck_figure(page):
    """Per seat, the mean change of its win probability split into luck, its own choices and the
    others' choices (95% intervals), the luck share in the title."""
    import matplotlib.pyplot as plt

    lk = page.luck
    fig, ax = plt.subplots(figsize=(9, 4))
    seats = lk["seats"]
    parts = (
        ("luck", "chance (luck)", "tab:purple"),
        ("own", "own choices", "tab:green"),
        ("others", "others' choices", "tab:gray"),
    )
    width = 0.8 / len(parts)
    for j, (key, label, color) in enumerate(parts):
        xs = [s["seat"] + (j - 1) * width for s in seats]
        ys = [s[key] for s in seats]
        err = [[y - s[f"{key}_ci"][0] for y, s in zip(ys, seats)], [s[f"{key}_ci"][1] - y for y, s in zip(ys, seats)]]
        ax.bar(xs, ys, width, yerr=err, capsize=3, color=color, label=label)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks([s["seat"] for s in seats], [plot_text(f"P{s['seat']} {s['player']}", 30) for s in seats])
    ax.set_ylabel("mean change of win probability")
    share = lk["luck_share"]
    said = (
        "the belief never moved"
        if share is None
        else f"luck share {share:.0%} [{lk['luck_share_ci'][0]:.0%}, {lk['luck_share_ci'][1]:.0%}]"
    )
    ax.set_title(plot_text(f"Luck and skill ({lk['games']} games, {said})"))
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return fig


def suspense_figure(page):
    """Suspense and surprise per decision point: each game's surprises faint, the means bold with
    their 95% bands."""
    import matplotlib.pyplot as plt

    su = page.suspense
    fig, ax = plt.subplots(figsize=(9, 4))
    for g in su["per_game"]:
        pts = g["points"]
        if pts:
            ax.plot([p[0] for p in pts], [p[2] for p in pts], color="tab:blue", alpha=0.12, linewidth=0.8)
    need = max(1, su["games"] // 10)
    rows = [r for r in su["by_decision"] if r["games"] >= need]
    if rows:
        kx = [r["decision"] for r in rows]
        for key, color, label in (
            ("suspense", "tab:red", "suspense: expected\nsquared change to come"),
            ("surprise", "tab:blue", "surprise: size of the\nchange that came"),
        ):
            ax.fill_between(
                kx,
                [r[f"{key}_low"] for r in rows],
                [r[f"{key}_high"] for r in rows],
                color=color,
                alpha=0.2,
                linewidth=0,
            )
            ax.plot(kx, [r[key] for r in rows], color=color, linewidth=2, label=label)
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    else:
        ax.text(0.5, 0.5, "no decision point with two or more options", ha="center", transform=ax.transAxes)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("decision point (decisions with two or more options)")
    ax.set_ylabel("change of the belief")
    ax.set_title(
        plot_text(
            f"Suspense and surprise ({su['games']} games; per game: suspense {su['suspense_per_game']:.2f}, "
            f"surprise {su['surprise_per_game']:.2f})"
        )
    )
    fig.tight_layout()
    return fig


def measure_figures(page, png) -> dict:
    """The figures of the parts ``page`` has: name -> PNG bytes (``png`` draws a figure)."""
    from .ladder import Ladder
    from .ladder_plot import ladder_figure

    out = {}
    if page.luck:
        out["luck.png"] = png(luck_figure(page))
    if page.suspense:
        out["suspense.png"] = png(suspense_figure(page))
    if page.ladder:
        out["ladder.png"] = png(ladder_figure(Ladder(**page.ladder, seconds=0.0)))
    return out


# -- HTML ------------------------------------------------------------------------------------

CAPTIONS = {
    "ladder": "The skill ladder: every pair of rungs (random, then a look-ahead player whose budget doubles) "
    "plays duplicate deals; the win rate of the row's rung against the column's with its 95% interval, the "
    "skill depth (rungs each beating the one before at 95%) and Elo ratings.",
    "luck": "From {n} games between {players} players: each seat's change of win probability (its final win "
    "share minus its chance before the deal), split into the steps across chance (luck), across its own "
    "choices and across the others' choices (the estimates' noise left out), as a spectator who sees every hand "
    "but not the cards no one has seen estimates them.",
    "suspense": "Suspense of a decision point: the expected squared change of the win-probability belief by the "
    "next one; surprise: the size of the change that came. Each game's surprises faint, the means bold.",
}


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _fig(kind, players, n) -> str:
    return (
        f'<figure><img src="{kind}.png" alt="{kind} figure"><figcaption>'
        f"{CAPTIONS[kind].format(n=n, players=_e(players))} "
        f'<a href="{kind}.json">Numbers (JSON)</a>.</figcaption></figure>'
    )


def _heuristics(h: dict) -> str:
    rows = [
        ("meaningful moves", "meaningful_moves", "share of decision points whose best and worst options differ"),
        ("killer move", "killer_move", "largest lift one option gives over a random choice, per game"),
        ("clarity", "clarity", "share of a decision's options plainly below the best"),
        ("coolness", "coolness", "share of decisions where even the best option loses ground"),
        ("stability", "stability", "1 minus the mean change of the belief between decision points"),
    ]
    body = "".join(
        f"<tr><td>{name}</td><td>{h[key]:.2f}</td><td>[{h[key + '_ci'][0]:.2f}, {h[key + '_ci'][1]:.2f}]</td>"
        f"<td>{what}</td></tr>"
        for name, key, what in rows
    )
    return (
        f"<p>From the same games ({h['decision_points']} decision points; a difference counts from "
        f'{h["delta"]}). <a href="heuristics.json">Numbers (JSON)</a>.</p>'
        f'<table class="code"><tr><th>heuristic</th><th>mean</th><th>95% interval</th><th>what it is</th></tr>{body}</table>'
    )


def measures_html(page, players: str) -> str:
    """The page's sections for the ladder, luck and skill, suspense and surprise, the heuristics."""
    parts = ["<h2>Skill ladder</h2>"]
    if page.ladder:
        parts.append(_fig("ladder", players, page.measured_games))
    else:
        parts.append("<p><em>Not measured (not asked, no time left, or a game of one player).</em></p>")
    if page.luck:
        parts += [
            "<h2>Luck and skill</h2>",
            _fig("luck", players, page.measured_games),
            "<h2>Suspense and surprise</h2>",
            _fig("suspense", players, page.measured_games),
            "<h2>CardStock's heuristics</h2>",
            _heuristics(page.heuristics),
        ]
    else:
        parts.append("<h2>Luck and skill</h2><p><em>Not measured (not asked, or no time left).</em></p>")
    return "\n".join(parts)
