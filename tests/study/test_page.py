"""A game's page (recycle/study/page.py, estimates.py, page_render.py; ``recycle page``): the
figures' data has the shapes and ranges its definitions promise (docs/analysis.md, "A game's
page"), the page escapes the game's text, runs are deterministic, and bad input is a message."""

from __future__ import annotations

import json
import os
import signal

from typer.testing import CliRunner

import recycle
from recycle.cli.main import app
from recycle.players.lookahead import ISMCTSPlayer, PIMCPlayer
from recycle.study.estimates import game_spreads, normalised_ranks
from recycle.study.page import build_page, safe_name, write_page

from ..helpers import BLACKJACK

# P0 chooses 10 points or none (the game's whole outcome: a known best first move), then
# chooses 1 more point or none (a small difference). Nothing is hidden and nothing is left to
# chance after the last decision, so the estimates there are exact.
TINY = """;@ summary: Two moves: the first player's choice decides the game.
(game
 (setup (create players 2))
 (stage player
  (end (> (game sto T) 0))
  (choice (
   (do ((set ((current player) sto SCORE) 10) (inc (game sto T))))
   (do ((set ((current player) sto SCORE) 0) (inc (game sto T)))))))
 (stage player
  (end (> (game sto T) 1))
  (choice (
   (do ((set ((current player) sto EXTRA) 1) (inc (game sto T))))
   (do ((set ((current player) sto EXTRA) 0) (inc (game sto T)))))))
 (scoring max (+ ((current player) sto SCORE) ((current player) sto EXTRA))))
"""

HOSTILE = '<script>alert("x")</script> & <img src=x onerror=alert(1)>'


def _page(text=TINY, name="tiny.rcy", games=4, players=("ismcts:30",), seed=3):
    g = recycle.loads(text, name)
    return build_page(g, games=games, seed=seed, players=list(players))


def test_the_figures_data_has_its_shapes(tmp_path):
    p = _page()
    write_page(p, tmp_path)
    d = json.loads((tmp_path / "page.json").read_text())
    assert d["game"] == "tiny" and d["summary"] == "Two moves: the first player's choice decides the game."
    assert recycle.loads(TINY, "tiny.rcy").note_warnings == []  # ;@ summary: is a note `recycle check` knows
    assert d["random_games"] == d["estimated_games"] == 4 and d["stopped"] is None
    # branching: each game's options per decision, and one row per decision number
    assert d["branching"]["per_game"] == [[2, 2]] * 4
    rows = d["branching"]["by_decision"]
    assert [r["decision"] for r in rows] == [1, 2]
    assert all(r["mean"] == r["smooth"] == 2 and r["games"] == 4 for r in rows)
    # spread: one point per decision of each game; lead: a line per final rank (1 and 2)
    assert [len(pts) for pts in d["spread"]["per_game"]] == [2] * 4
    assert [r["decision"] for r in d["spread"]["by_decision"]] == [1, 2]
    assert sorted(d["lead"]["ranks"]) == ["1", "2"]
    assert [r["decision"] for r in d["lead"]["ranks"]["1"]] == [1, 2]
    assert set(d["lint"]) == {"games", "findings"}
    # every figure's numbers in a file beside it, the same as the page's
    for name in ("branching", "spread", "lead", "lint", "flow"):
        assert json.loads((tmp_path / f"{name}.json").read_text()) == d[name]
    assert {"index.html", "branching.png", "spread.png", "lead.png"} <= set(os.listdir(tmp_path))


def test_a_known_best_first_move_has_the_largest_spread():
    p = _page()
    for pts in p.spread["per_game"]:
        # about 10 points between the first options (the second decision still to come is
        # played out), 1 between the second's: 1 and about 0.1 once normalised
        assert pts[0] == [1, 1.0]
        assert 0.05 < pts[1][1] < 0.15
    assert p.spread["by_decision"][0]["mean"] == 1.0


def test_the_winner_line_ends_at_1_when_the_last_estimates_are_exact():
    p = _page()
    winner, loser = p.lead["ranks"]["1"], p.lead["ranks"]["2"]
    assert winner[-1]["mean"] == 1.0 and loser[-1]["mean"] == 0.0
    for rows in (winner, loser):
        assert all(0.0 <= r["low"] <= r["mean"] <= r["high"] <= 1.0 for r in rows)


def test_spread_is_in_0_1_and_each_game_reaches_1():
    p = _page(BLACKJACK, "blackjack.rcy", games=4, players=("pimc:20",), seed=5)
    nonzero = 0
    for pts in p.spread["per_game"]:
        values = [s for _, s in pts]
        assert all(0.0 <= s <= 1.0 for s in values)
        if any(values):
            nonzero += 1
            assert max(values) == 1.0
    assert nonzero  # (the test means something: some game had a spread)
    for rows in p.lead["ranks"].values():
        assert all(0.0 <= r["mean"] <= 1.0 for r in rows)


def test_spreads_and_ranks_by_their_definitions():
    rec = {
        "points": [
            {"decision": 1, "values": [3.0, None, 1.0]},
            {"decision": 2, "values": [2.0, 6.0]},
            {"decision": 4, "values": [5.0, None]},
        ]
    }
    assert game_spreads(rec) == [[1, 0.5], [2, 1.0], [4, 0.0]]
    assert game_spreads({"points": [{"decision": 1, "values": [2.0, 2.0]}]}) == [[1, 0.0]]
    assert normalised_ranks([10, 0, 5]) == [1.0, 0.0, 0.5]
    assert normalised_ranks([10, 0, 5], higher=False) == [0.0, 1.0, 0.5]
    assert normalised_ranks([7, 7, 1]) == [0.75, 0.75, 0.0]
    assert normalised_ranks([4]) == [1.0]


def test_same_seed_same_page():
    a, b = _page(BLACKJACK, "blackjack.rcy", seed=9), _page(BLACKJACK, "blackjack.rcy", seed=9)
    da, db = a.to_dict(), b.to_dict()
    da.pop("seconds"), db.pop("seconds")
    assert da == db
    c = _page(BLACKJACK, "blackjack.rcy", seed=10).to_dict()
    assert c["spread"] != da["spread"]


def test_the_page_is_the_same_with_worker_processes():
    one = _page(games=3, seed=4).to_dict()
    two = build_page(recycle.loads(TINY, "tiny.rcy"), games=3, seed=4, players=["ismcts:30"], workers=2).to_dict()
    one.pop("seconds"), two.pop("seconds")
    assert one == two


def test_tracking_estimates_changes_no_decision():
    g = recycle.loads(BLACKJACK, "blackjack.rcy")
    for cls, budget in ((ISMCTSPlayer, 30), (PIMCPlayer, 20)):
        for seed in range(3):
            made = []
            for track in (False, True):
                players = [cls(budget) for _ in range(2)]
                for pl in players:
                    pl.track_scores = track
                chosen: list = []
                g.play(players, seed=seed, on_decision=lambda s, pl, o, i, into=chosen: into.append((pl, i)))
                made.append(chosen)
            assert made[0] == made[1]
            assert players[0].last_scores is not None


def test_the_page_escapes_the_games_text(tmp_path):
    text = TINY.replace("Two moves: the first player's choice decides the game.", HOSTILE) + f";; {HOSTILE}\n"
    p = _page(text, "x<b>.rcy", games=2)
    write_page(p, tmp_path)
    page = (tmp_path / "index.html").read_text()
    assert "<script" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(1)&gt;" in page
    assert "<title>x&lt;b&gt;</title>" in page
    # offline: nothing is fetched from elsewhere
    assert "http://" not in page.replace("http://www.w3.org", "") and "https://" not in page


def test_math_markup_in_a_name_or_players_is_drawn_as_text(tmp_path):
    # matplotlib reads $...$ as math: a bad formula in text it draws was a ValueError
    p = _page(TINY, "$\\frac$.rcy", games=2)
    p.players = ["$\\frac{$"] * 2
    written = write_page(p, tmp_path)
    assert (tmp_path / "lead.png").stat().st_size > 0 and len(written) == 11


def test_folder_names_come_from_a_safe_alphabet():
    taken: set = set()
    assert safe_name("../../etc/passwd", taken) == "etc-passwd"
    assert safe_name("Schwimmen", taken) == "schwimmen"
    assert safe_name("schwimmen", taken) == "schwimmen-2"
    assert safe_name("..", taken) == "game"
    assert safe_name("<é\u202e>" * 40) == "game"
    assert len(safe_name("a" * 500)) == 60


def _run(*args):
    return CliRunner().invoke(app, ["page", *map(str, args)])


def test_cli_writes_a_page_per_game_and_an_index(tmp_path):
    a, b = tmp_path / "tiny.rcy", tmp_path / "Tiny!.rcy"
    a.write_text(TINY)
    b.write_text(TINY)
    out = tmp_path / "pages"
    r = _run(a, b, "-o", out, "-n", "2", "--players", "ismcts:10", "--no-progress")
    assert r.exit_code == 0, r.output
    assert sorted(os.listdir(out)) == ["index.html", "tiny", "tiny-2"]
    index = (out / "index.html").read_text()
    assert 'href="tiny/index.html"' in index and 'href="tiny-2/index.html"' in index
    assert (out / "tiny-2" / "lead.json").is_file()


def test_cli_json_prints_the_figures_data(tmp_path):
    game = tmp_path / "tiny.rcy"
    game.write_text(TINY)
    r = CliRunner().invoke(app, ["page", str(game), "--json", "-n", "2", "--players", "ismcts:10"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["estimated_games"] == 2 and d["spread"]["per_game"][0][0] == [1, 1.0]


def test_cli_bad_input_is_a_message(tmp_path):
    game = tmp_path / "tiny.rcy"
    game.write_text(TINY)
    broken = tmp_path / "broken.rcy"
    broken.write_text("(game (setup (create players 2)")
    target = tmp_path / "real"
    target.mkdir()
    link = tmp_path / "link"
    link.symlink_to(target)
    afile = tmp_path / "afile"
    afile.write_text("x")
    cases = [
        ((tmp_path / "missing.rcy", "-o", tmp_path / "o1"), "cannot read the game"),
        ((broken, "-o", tmp_path / "o2"), "error"),
        ((game, "-o", link), "it is a symbolic link"),
        ((game, "-o", afile), "it is a file, not a folder"),
    ]
    for args, said in cases:
        r = _run(*args, "-n", "1", "--players", "ismcts:5")
        assert r.exit_code == 1, (args, r.output)
        assert said in r.output and "Traceback" not in r.output
    assert os.listdir(target) == []  # nothing written through the link
    # nor through a link planted in the folder under a page file's name
    planted = tmp_path / "planted"
    planted.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (planted / "spread.png").symlink_to(victim)
    r = _run(game, "-o", planted, "-n", "1", "--players", "ismcts:5")
    assert r.exit_code == 1 and "cannot write" in r.output and "Traceback" not in r.output
    assert victim.read_text() == "keep me"


def test_a_time_budget_or_ctrl_c_keeps_what_is_done(tmp_path):
    g = recycle.loads(TINY, "tiny.rcy")
    p = build_page(g, games=3, seed=1, players=["ismcts:10"], seconds=0, lint_seconds=0.2)
    assert (p.stopped, p.random_games, p.estimated_games) == ("time", 0, 0)
    write_page(p, tmp_path / "empty")  # a page with no games is still a page
    assert "This page is partial: stopped by the time budget" in (tmp_path / "empty" / "index.html").read_text()

    def ctrl_c_after_the_second(done, total):
        if done == 2:
            os.kill(os.getpid(), signal.SIGINT)

    p = build_page(
        g,
        games=3,
        seed=1,
        players=["ismcts:10"],
        progress=ctrl_c_after_the_second,
        interruptible=True,
        lint_seconds=0.2,
    )
    assert (p.stopped, p.random_games, p.estimated_games) == ("interrupted", 2, 0)
    assert p.branching["per_game"] == [[2, 2]] * 2


def test_the_look_ahead_games_are_native_the_same_estimates_and_the_page_says_so(tmp_path):
    """The look-ahead players' games of a page are stepped natively wherever the game builds
    (``estimate_game(engine="auto")``): the same estimates as the reference interpreter's, and
    the page's first line and page.json say which engine stepped its games."""
    from recycle.native import available
    from recycle.study.estimates import estimate_game

    g = recycle.loads(BLACKJACK, "blackjack.rcy")
    for seed in range(3):
        native, ref = (estimate_game(g, ["ismcts:30", "pimc:10"], seed, engine=e) for e in ("auto", "reference"))
        assert ref.pop("engine") == "reference"
        assert native.pop("engine") == ("native" if available() else "reference")
        assert native == ref and ref["points"]
    p = _page(BLACKJACK, "blackjack.rcy", games=2, seed=5)
    write_page(p, tmp_path)
    html = (tmp_path / "index.html").read_text()
    said = "native code" if available() else "the reference interpreter"
    assert f"played by random games: {said}; look-ahead games: {said}" in html
    assert json.loads((tmp_path / "page.json").read_text())["estimates_engine"] == p.estimates_engine
