"""``recycle page`` for every game of games/ and a sample of the CardStock corpus (slow: run with
``-m slow``): each page is built with a small budget (its shape is ``--quick``'s: the Valet
figures, the luck traces and the skill ladder, only fewer games and playouts) and written, and
its files are checked complete and well-formed — every file it names is there, every JSON is
strict JSON (no NaN or infinity), every figure is a PNG or an SVG, the numbers lie in the
ranges docs/analysis.md gives them.

Each page has ``SECONDS``: a page stopped by them must say so and be well-formed over what it
played. On the development machine (2 cores shared by other work) the sweep took 3 minutes
(19 pages, 2026-11-28; 56 s of CPU): `pytest -m slow tests/study/test_page_sweep.py`."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

import recycle
from recycle.study.page import build_page, write_page

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus" / "cardstock"
CORPUS_SAMPLE = 8  # corpus games, every k-th of the sorted names so that the sample is fixed
# the budget: enough for every section to have data, small enough for a long game (Hearts: 52
# decisions of 4 players) to take seconds
GAMES, PLAYERS = 2, "ismcts:2"
SIZES = {"luck_games": 1, "rollouts": 1, "ladder_players": "random,ismcts:1", "ladder_doublings": 1, "ladder_games": 1}
# seconds a page: a game of many deals (games/hearts.rcy plays to 100 points: some 800
# decisions) stops there, and its page must then say so and be well-formed all the same
SECONDS = 8.0


def _corpus_sample() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    names = sorted(CORPUS.glob("*.rcy"))
    step = max(1, len(names) // CORPUS_SAMPLE)
    return names[::step][:CORPUS_SAMPLE]


GAMES_HERE = sorted((ROOT / "games").glob("*.rcy"))
SAMPLE = _corpus_sample()


def _strict(text: str):
    """JSON as a browser's ``JSON.parse`` reads it: NaN and infinities refused."""

    def refuse(name):
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def _in01(x) -> bool:
    return isinstance(x, (int, float)) and -1e-9 <= x <= 1 + 1e-9


def check_page(folder: Path, page) -> None:
    """The page in ``folder`` is complete and well-formed (see the module docstring)."""
    files = {p.name for p in folder.iterdir()}
    sections = {"luck", "suspense", "heuristics"} | ({"ladder"} if page.nplayers > 1 else set())
    sections = {n for n in sections if page.stopped is None or getattr(page, n)}  # a stopped page: those played
    need = {"index.html", "page.json", "branching.png", "spread.png", "lead.png"}
    need |= {f"{n}.json" for n in ("flow", "branching", "spread", "lead", "lint", *sections)}
    need |= {f"{n}.png" for n in sections - {"heuristics"}}
    need.add("flow.svg" if "flow.svg" in files else "flow.gv")  # flow.gv when Graphviz is missing
    assert need <= files, sorted(need - files)
    for name in files:
        data = (folder / name).read_bytes()
        assert data, name
        if name.endswith(".json"):
            _strict(data.decode("utf-8"))
        elif name.endswith(".png"):
            assert data.startswith(b"\x89PNG\r\n\x1a\n"), name
        elif name.endswith(".svg"):
            assert b"<svg" in data and b"<script" not in data.lower(), name
    html = (folder / "index.html").read_text("utf-8")
    assert "<script" not in html.lower()
    links = set(re.findall(r'(?:src|href)="([^"#:]+)"', html))
    assert links and links <= files, sorted(links - files)  # every relative link is a file here
    d = _strict((folder / "page.json").read_text("utf-8"))
    assert d == _strict(page.to_json())
    if d["stopped"] is None:
        assert d["random_games"] == d["estimated_games"] == GAMES
    else:  # stopped by the time budget: the page says so, and what it has is well-formed
        assert d["stopped"] == "time" and "This page is partial: stopped by the time budget" in html
        assert d["random_games"] <= GAMES and d["estimated_games"] <= GAMES
        if not d["ladder"] or not d["luck"]:
            assert "Not measured" in html
    for name in ("branching", "spread", "lead", "lint", *[n for n in sections if d[n]]):
        assert _strict((folder / f"{name}.json").read_text("utf-8")) == d[name], name
    # the numbers in their ranges (docs/analysis.md, "A game's page")
    assert d["branching"]["games"] == len(d["branching"]["per_game"]) <= GAMES
    assert all(o >= 1 for game in d["branching"]["per_game"] for o in game)
    assert all(_in01(r["mean"]) for r in d["spread"]["by_decision"])
    assert all(_in01(r["mean"]) for line in d["lead"]["ranks"].values() for r in line)
    assert d["measured_games"] <= SIZES["luck_games"]
    if d["luck"]:
        share = d["luck"]["luck_share"]
        assert share is None or _in01(share)
        h = d["heuristics"]
        for key in ("meaningful_moves", "killer_move", "clarity", "coolness", "stability"):
            assert _in01(h[key]) and not math.isnan(h[key]), (key, h[key])
    if d["ladder"]:
        k = len(d["ladder"]["rungs"])
        assert k == 3 and 0 <= d["ladder"]["depth"] <= k - 1
        assert all(_in01(r) for i, row in enumerate(d["ladder"]["rate"]) for j, r in enumerate(row) if i != j)


@pytest.mark.slow
@pytest.mark.parametrize("path", GAMES_HERE + SAMPLE, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_game_has_a_complete_page(path, tmp_path):
    game = recycle.load(path)
    page = build_page(game, GAMES, seed=1, players=[PLAYERS], seconds=SECONDS, lint_seconds=1.0, sizes=SIZES)
    write_page(page, tmp_path / "page")
    check_page(tmp_path / "page", page)
