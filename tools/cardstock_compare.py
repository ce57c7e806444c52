"""recycle against CardStock itself: ``python tools/conformance.py --cardstock`` (see there).

For each game, CardStock's own engine (``../shared/cardstock/cardstock.exe``, run with Mono)
plays N random games and recycle plays N random rollouts; both count choice points per game
(every choice, one-option choices included), win rates per seat (every player tied for best
counts a win) and mean scores per seat. Each difference gets a z-score:

* choices: (m_r - m_c) / sqrt(sd_r^2/n_r + sd_c^2/n_c), from both engines' standard deviations;
* win rate of seat p: the two-proportion test, (w_r - w_c) / sqrt(w(1-w) (1/n_r + 1/n_c)) with w
  the pooled rate (sound also when one engine played few games or a rate is near 0 or 1);
* mean score of seat p: CardStock reports no standard deviation of scores, so recycle's is
  used for both: (s_r - s_c) / (sd_r * sqrt(1/n_r + 1/n_c)).

A game whose largest |z| is beyond ``Z_LIMIT`` (3) is "explained" when ``EXPLAINED`` names a
documented reference bug for it (docs/reference.md, docs/conformance.md), otherwise "DIFFERS".
CardStock seeds its generator from the clock, so its figures change from run to run; with some
400 z-scores over the corpus about one is beyond 3 by chance alone (p = 0.0027 each): run a
game again (``--only GAME``, more games) before believing a lone one.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import time
from pathlib import Path

Z_LIMIT = 3.0

# Differences beyond noise that are CardStock's, not recycle's: game -> where it is documented.
EXPLAINED = {
    "GoFish2": "reference bug: a let bound to a filter is re-read at every use (docs/reference.md)",
    "CrazyEights4": "harness limit: CardStock stops a game after 500 choices and scores it (docs/reference.md)",
    "ContinuousPairs4": (
        "reference bug: a let bound to a group list cannot be used as a location, so "
        "CardStock fails every game in which a player holds a pair (docs/reference.md)"
    ),
    "Coup4": (
        "reference bug: a second any in one option lists the hand as it was before the first "
        "moved a card, so the Ambassador discards one card instead of two (docs/conformance.md)"
    ),
}


def find_mono() -> str | None:
    """The ``mono`` command, or None when Mono is not installed."""
    return shutil.which("mono")


def run_cardstock(exe: Path, game: Path, n: int, seconds: float, mono: str) -> dict:
    """CardStock's JSON line for ``n`` random games of ``game`` (at most ``seconds`` of play)."""
    cmd = [mono, str(exe), str(game), str(n), str(max(1, int(seconds)))]
    try:
        out = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=seconds + 120,
            cwd=str(exe.parent),
            env={**os.environ, "LC_ALL": "C"},
        )
    except subprocess.TimeoutExpired:
        return {"error": f"cardstock: no answer within {seconds + 120:g} s"}
    for line in reversed(out.stdout.splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                break
    tail = (out.stderr or out.stdout).strip().splitlines()
    return {"error": "cardstock: " + (tail[-1] if tail else f"exit status {out.returncode}")}


def run_recycle(path: Path, n: int, seed: int, max_steps: int, seconds: float | None) -> dict:
    """recycle's figures for ``n`` random rollouts (the same ones ``recycle simulate`` plays)."""
    import recycle
    from recycle.study.stats import simulate

    try:
        game = recycle.load(path)
    except recycle.RecycleError as exc:
        return {"error": exc.format().splitlines()[0]}
    st = simulate(game, n, seed, max_steps=max_steps, timeout=seconds, keep_records=True)
    k = st.finished
    dc = st.decision_counts
    mean = sum(dc) / k if k else 0.0
    sd = math.sqrt(sum((d - mean) ** 2 for d in dc) / (k - 1)) if k > 1 else 0.0
    score_sd = []
    for p in range(game.nplayers):
        col = [s[p] for s in st.scores]
        m = sum(col) / k if k else 0.0
        score_sd.append(math.sqrt(sum((v - m) ** 2 for v in col) / (k - 1)) if k > 1 else 0.0)
    return {
        "finished": k,
        "played": st.played,
        "step_limit_hits": st.step_limit_hits,
        "mean_choices": mean,
        "sd_choices": sd,
        "win_rate": st.win_rate,
        "tie_rate": st.tie_rate,
        "score_mean": st.score_mean,
        "score_sd": score_sd,
    }


def _z(diff: float, se: float) -> float:
    if se > 0:
        return diff / se
    return 0.0 if abs(diff) < 1e-12 else math.copysign(math.inf, diff)


def compare(r: dict, c: dict) -> dict:
    """The z-scores of one game's figures (recycle ``r`` minus CardStock ``c``)."""
    nr, nc = r["finished"], c["finished"]  # CardStock's "finished" leaves out its failed games
    if nr < 2 or nc < 2:
        return {"z_choices": None, "z_win": [], "z_score": [], "z_max": None}
    zc = _z(r["mean_choices"] - c["mean_choices"], math.sqrt(r["sd_choices"] ** 2 / nr + c["sd_choices"] ** 2 / nc))
    zw = []
    for a, b in zip(r["win_rate"], c["win_full"]):
        w = (a * nr + b * nc) / (nr + nc)
        zw.append(_z(a - b, math.sqrt(w * (1 - w) * (1 / nr + 1 / nc))))
    zs = [
        _z(a - b, sd * math.sqrt(1 / nr + 1 / nc)) for a, b, sd in zip(r["score_mean"], c["score_mean"], r["score_sd"])
    ]
    return {"z_choices": zc, "z_win": zw, "z_score": zs, "z_max": max(abs(z) for z in [zc, *zw, *zs])}


def compare_game(path: str, n: int, seed: int, max_steps: int, seconds: float, exe: str, mono: str) -> dict:
    """One game's row: both engines' figures, the z-scores and the verdict."""
    path = Path(path)
    t0 = time.perf_counter()
    row = {"game": path.stem, "file": str(path)}
    row["cardstock"] = run_cardstock(Path(exe), path, n, seconds, mono)
    row["recycle"] = run_recycle(path, n, seed, max_steps, seconds)
    row["seconds"] = time.perf_counter() - t0
    return judge(row)


def judge(row: dict) -> dict:
    """Work out a row's z-scores and verdict from its two engines' figures (also of a saved row)."""
    r, c, game = row["recycle"], row["cardstock"], row["game"]
    if "error" in r or "error" in c or c.get("syntax_errors") or not c.get("finished"):
        row.update(z_choices=None, z_win=[], z_score=[], z_max=None, verdict="not compared")
        return row
    row.update(compare(r, c))
    z = row["z_max"]
    if z is None:
        row["verdict"] = "not compared"
    elif c.get("failures") and game in EXPLAINED:
        row["verdict"] = "explained"  # CardStock fails some games: its figures are of the others
    elif z <= Z_LIMIT:
        row["verdict"] = "agrees"
    elif game in EXPLAINED:
        row["verdict"] = "explained"
    else:
        row["verdict"] = "DIFFERS"
    row["explanation"] = EXPLAINED.get(game)
    return row


def _f(v, spec: str) -> str:
    if v is None:
        return "-"
    if isinstance(v, float) and math.isinf(v):
        return "∞" if v > 0 else "-∞"
    return format(v, spec)


def _why(row: dict) -> str:
    r, c = row["recycle"], row["cardstock"]
    if "error" in r:
        return r["error"]
    if "error" in c:
        return c["error"]
    if c.get("syntax_errors"):
        return "CardStock cannot parse it"
    return ""


def table(rows: list[dict]) -> list[str]:
    """The Markdown table: per game, games played, choices, win rates and scores per seat, z."""
    head = [
        "game",
        "games r/c",
        "choices recycle",
        "choices CardStock",
        "z",
        "win rate r / c per seat",
        "max \\|z\\| win",
        "mean score r / c per seat",
        "max \\|z\\| score",
        "verdict",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        r, c = row["recycle"], row["cardstock"]
        if row["z_max"] is None:
            lines.append(f"| {row['game']} | " + " | ".join(["-"] * 8) + f" | not compared: {_why(row)} |")
            continue
        nr, nc = r["finished"], c["finished"]
        wins = " ".join(f"{a:.2f}/{b:.2f}" for a, b in zip(r["win_rate"], c["win_full"]))
        scores = " ".join(f"{a:.2f}/{b:.2f}" for a, b in zip(r["score_mean"], c["score_mean"]))
        se_r = r["sd_choices"] / math.sqrt(nr)
        se_c = c["sd_choices"] / math.sqrt(nc)
        verdict = row["verdict"]
        if row.get("explanation") and verdict == "explained":
            verdict += ": " + row["explanation"]
        if c.get("failures"):
            kinds = "; ".join(k.split(":")[0] for k in c.get("failure_kinds", {}))
            verdict += f" (CardStock failed {c['failures']} of {c.get('games_run')} games: {kinds})"
        lines.append(
            f"| {row['game']} | {nr}/{nc} | {r['mean_choices']:.2f} ± {se_r:.2f} | {c['mean_choices']:.2f} ± "
            f"{se_c:.2f} | {_f(row['z_choices'], '+.1f')} | {wins} | {_f(max(map(abs, row['z_win'])), '.1f')} | "
            f"{scores} | {_f(max(map(abs, row['z_score'])), '.1f')} | {verdict} |"
        )
    return lines


def summary(rows: list[dict]) -> str:
    """One paragraph: how many games agree, are explained, differ, or could not be compared."""
    by = {}
    for row in rows:
        by.setdefault(row["verdict"], []).append(row["game"])
    parts = [
        f"{len(rows)} games: {len(by.get('agrees', []))} agree within {Z_LIMIT:g} standard errors, "
        f"{len(by.get('explained', []))} differ as documented, {len(by.get('DIFFERS', []))} differ "
        f"unexplained, {len(by.get('not compared', []))} not compared"
    ]
    for k in ("explained", "DIFFERS", "not compared"):
        if by.get(k):
            parts.append(f"{k}: {', '.join(by[k])}")
    return "\n".join(parts)
