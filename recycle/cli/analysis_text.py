"""How ``analyze`` and ``duplicate`` results are written as text and CSV rows (the commands are
in ``analysis.py``; the studio's runs print ``text_lines`` too)."""

from __future__ import annotations

from ..study.analysis import game_heuristics
from ..study.engine_use import engine_line_of


def text_lines(a: dict) -> list[str]:
    """Human-readable lines of an analysis."""
    L = a["length"]
    b = a["branching"]
    sc = a["scores"]
    lines = [
        f"{a['game']}: {a['finished']} games analysed (seed {a['seed']}, players {','.join(a['players'])}, "
        f"scoring {a['scoring']}), {a['step_limit_hits']} hit the step limit",
        engine_line_of(a),
        "seat  player           win rate   95% CI            win share  mean score  decisions  options",
    ]
    for s in a["seats"]:
        lo, hi = s["win_rate_ci"]
        lines.append(
            f"P{s['seat']:<4} {s['player']:<16} {s['win_rate']:7.1%}   [{lo:5.1%}, {hi:5.1%}]   "
            f"{s['win_share']:8.1%}  {s['score_mean']:10.2f}  {s['decisions_mean']:9.2f}  "
            f"{s['options_mean']:7.2f}"
        )
    f = a["fairness"]
    lines += [
        f"fairness: win-rate spread {f['win_rate_spread']:.1%} (chi-square {f['chi2']:.2f}, df {f['df']}, "
        f"p = {f['p_value']:.3f})",
        f"win rates: every player tied for best counts a win, so they can add up to more than 100% "
        f"(here {sum(s['win_rate'] for s in a['seats']):.1%}); the win share splits a tie",
        f"ties for first: {a['ties']['rate']:.1%} (two or more sides, teams or players, tied for best)",
        f"length: {L['decisions']['mean']:.1f} decisions (sd {L['decisions']['sd']:.1f}, {L['decisions']['min']}"
        f"–{L['decisions']['max']}), {L['choices']['mean']:.1f} with 2+ options, {L['rounds']['mean']:.1f} rounds; "
        "turns by stage depth " + ", ".join(f"{t:.1f}" for t in L["turns_by_stage_depth"])
        if L["decisions"]["max"]
        else f"length: no decisions (the game plays itself); {L['rounds']['mean']:.1f} rounds (sd {L['rounds']['sd']:.1f}, "
        f"{L['rounds']['min']}–{L['rounds']['max']}), {L['steps']['mean']:.1f} steps (stage turns and choices)",
        f"branching: {b['options_per_decision']:.2f} options per decision, {b['options_per_choice']:.2f} per real "
        f"choice, {b['forced_share']:.1%} forced",
        "  by decile of the game: " + " ".join("-" if x is None else f"{x:.1f}" for x in b["by_decile"]),
    ]
    if L["decisions"]["max"]:
        lines += [
            f"who leads, by {a['values']} (known at {sc['evaluated_share']:.0%} of decisions): "
            f"{sc['lead_changes']['mean']:.2f} lead changes per game; drama {sc['drama']:.2f}; comebacks "
            f"{sc['comeback_rate']:.0%}",
            f"  the winner is settled at {sc['settled_at']:.0%} of the game (decisiveness {sc['decisiveness']:.2f})",
        ]
    else:
        lines.append("who leads: not measured (the leader is read at decisions, and this game has none)")
    if a.get("skill"):
        s = a["skill"]
        lines.append(
            f"skill: {s['player']} wins {s['win_rate']:.1%} [{s['win_rate_ci'][0]:.1%}, "
            f"{s['win_rate_ci'][1]:.1%}] vs random seats {s['random_seat_win_rate']:.1%} over "
            f"{s['games']} games: skill {s['skill']:+.1%}"
        )
    if a.get("hidden_information"):
        h = a["hidden_information"]
        lines.append(
            f"hidden information: omniscient {h['omniscient']['win_rate']:.1%} vs ismcts "
            f"{h['ismcts']['win_rate']:.1%} (same budget, against random): value {h['value']:+.1%} "
            f"[{h['value_ci'][0]:+.1%}, {h['value_ci'][1]:+.1%}]"
        )
    return lines


def csv_rows(a: dict) -> list[list]:
    """The analysis in long format: metric, seat, value, ci_low, ci_high."""
    rows = [["metric", "seat", "value", "ci_low", "ci_high"]]
    for s in a["seats"]:
        p = s["seat"]
        rows.append(["win_rate", p, s["win_rate"], *s["win_rate_ci"]])
        for k in ("win_share", "score_mean", "decisions_mean", "options_mean"):
            rows.append([k, p, s[k], "", ""])
    f = a["fairness"]
    rows += [
        ["win_rate_spread", "", f["win_rate_spread"], "", ""],
        ["fairness_p_value", "", f["p_value"], "", ""],
        ["tie_rate", "", a["ties"]["rate"], *a["ties"]["ci"]],
    ]
    for k in ("decisions", "choices", "rounds"):
        rows.append([f"{k}_mean", "", a["length"][k]["mean"], "", ""])
    b = a["branching"]
    rows += [
        ["options_per_decision", "", b["options_per_decision"], "", ""],
        ["options_per_choice", "", b["options_per_choice"], "", ""],
        ["forced_share", "", b["forced_share"], "", ""],
    ]
    for d, x in enumerate(b["by_decile"]):
        rows.append([f"options_decile_{d + 1}", "", "" if x is None else x, "", ""])
    sc = a["scores"]
    rows += [
        ["lead_changes", "", sc["lead_changes"]["mean"], "", ""],
        ["settled_at", "", sc["settled_at"], "", ""],
        ["decisiveness", "", sc["decisiveness"], "", ""],
        ["drama", "", sc["drama"], "", ""],
        ["comeback_rate", "", sc["comeback_rate"], "", ""],
    ]
    if a.get("skill"):
        s = a["skill"]
        rows += [
            ["skilled_win_rate", "", s["win_rate"], *s["win_rate_ci"]],
            ["random_seat_win_rate", "", s["random_seat_win_rate"], *s["random_seat_win_rate_ci"]],
            ["skill", "", s["skill"], *s["skill_ci"]],
        ]
    if a.get("hidden_information"):
        h = a["hidden_information"]
        rows.append(["hidden_information", "", h["value"], *h["value_ci"]])
    if a.get("luck"):
        rows += _luck_rows(a["luck"])
    return rows


def _luck_rows(m: dict) -> list[list]:
    """``--luck``'s measures in the long format (``Measures.to_dict()``)."""
    lk, su, h = m["luck"], m["suspense"], m["heuristics"]
    rows = [["luck_share", "", "" if lk["luck_share"] is None else lk["luck_share"], *lk["luck_share_ci"]]]
    for s in lk["seats"]:
        for k in ("luck", "own", "others"):
            rows.append([f"equity_{k}", s["seat"], s[k], *s[f"{k}_ci"]])
    rows += [
        ["suspense_per_game", "", su["suspense_per_game"], *su["suspense_per_game_ci"]],
        ["surprise_per_game", "", su["surprise_per_game"], *su["surprise_per_game_ci"]],
    ]
    for k in ("meaningful_moves", "killer_move", "clarity", "coolness", "stability"):
        rows.append([k, "", h[k], *h[f"{k}_ci"]])
    return rows


def plan_line(name: str, n: int, specs: list, skilled, hidden: bool, skill_games: int, rollouts: int) -> str:
    """What an analysis is about to play, said before it starts (long runs give no sign otherwise)."""
    seats = ",".join(specs)
    parts = [f"{n:,} games ({seats})"]
    if rollouts:
        parts.append(f"{rollouts} playouts after every decision for the win probabilities")
    if skilled:
        parts.append(f"{skill_games:,} games with {skilled} in each seat in turn")
    if hidden:
        parts.append(f"{2 * skill_games:,} games of omniscient and ismcts players")
    return f"analysing {name}: " + "; ".join(parts)


def game_rows(a: dict) -> list[list]:
    """One CSV row per game: seed, decisions, choices, rounds, winners, scores, heuristics."""
    rows = [
        [
            "seed",
            "step_limit",
            "decisions",
            "choices",
            "rounds",
            "winners",
            "scores",
            "lead_changes",
            "settled_at",
            "winner_gap",
        ]
    ]
    higher = a["scoring"] == "max" or a["values"] != "scoring"
    for g in a.get("games_detail", []):
        if g["limit"]:
            rows.append([g["seed"], 1, "", "", "", "", "", "", "", ""])
            continue
        h = game_heuristics(g, higher)
        rows.append(
            [
                g["seed"],
                0,
                len(g["options"]),
                sum(1 for o in g["options"] if o > 1),
                g["turns"][0] if g["turns"] else 0,
                " ".join(map(str, g["winners"])),
                " ".join(map(str, g["scores"])),
                h["lead_changes"],
                "" if h["settled_at"] is None else round(h["settled_at"], 4),
                h["winner_gap"],
            ]
        )
    return rows


def duplicate_lines(d: dict) -> list[str]:
    better = "higher" if d["scoring"] == "max" else "lower"
    lines = [
        f"{d['game']}: duplicate play, {d['deals_used']} deals × {d['rotations']} seat rotations "
        f"(seed {d['seed']}); scores: {better} is better",
        engine_line_of(d),
        "player           seat-games  mean score  vs table   95% CI              win rate  95% CI",
    ]
    for r in d["players"]:
        lo, hi = r["score_diff_ci"]
        wl, wh = r["win_rate_ci"]
        lines.append(
            f"{r['player']:<16} {r['seat_games']:>10}  {r['score_mean']:10.2f}  {r['score_diff']:+8.2f}   "
            f"[{lo:+7.2f}, {hi:+7.2f}]  {r['win_rate']:7.1%}  [{wl:.1%}, {wh:.1%}]"
        )
    for r in d["players"]:
        got = r.get("deduction")
        if got:
            lines.append(
                f"{r['player']}: {got['worlds']:,} worlds dealt or proposed, {got['rejected']:,} rejected by the "
                f"others' earlier choices; {got['fallbacks']:,} samples fell back to plain worlds"
            )
    h = d.get("head_to_head")
    if h:
        lo, hi = h["score_diff_ci"]
        lines.append(f"{h['a']} − {h['b']}: {h['score_diff']:+.2f} points per seat-game [{lo:+.2f}, {hi:+.2f}]")
    if d["deals_dropped_step_limit"]:
        lines.append(f"{d['deals_dropped_step_limit']} deals left out: a game hit the step limit")
    return lines
