"""Luck and skill, suspense and surprise, CardStock's heuristics (recycle/study/equity.py,
luck.py, heuristics.py, measures.py): known answers on tiny games, determinism, stopping."""

from __future__ import annotations

import pytest

from pathlib import Path

import recycle
from recycle.study.equity import equity_game
from recycle.study.estimates import decision_spread, estimate_game
from recycle.study.luck import belief_path
from recycle.study.measures import measure, measures_lines

from .test_ladder import coin_game, skill_game

# The known-answer games (each says what it is in its ;@ summary): a coin flip, a game of pure
# skill, a known best first move. Three-player versions come from test_ladder's tiny games.
GAMES = Path(__file__).parent / "games"


def load(name: str):
    return recycle.load(GAMES / f"{name}.rcy")


def first_game():
    return load("best-first-move")


def _measure(game, **kw):
    return measure(game, games=kw.pop("games", 6), seed=kw.pop("seed", 1), players=["ismcts:20"], rollouts=8, **kw)


@pytest.mark.parametrize("make", [lambda: load("coin-flip"), lambda: coin_game(3)], ids=["2p", "3p"])
def test_a_coin_flip_game_is_all_luck(make):
    m = _measure(make())
    lk = m.luck
    assert lk.luck_share == 1.0 and lk.luck_share_ci == [1.0, 1.0]
    for s in lk.seats:
        # options that change nothing get equal estimates (common random numbers): no skill at all
        assert s.own == 0.0 and s.others == 0.0 and s.own_ci == [0.0, 0.0]
        assert s.luck == pytest.approx(s.change)
    h = m.heuristics
    assert h.meaningful_moves == h.killer_move == h.clarity == h.coolness == 0.0
    assert m.suspense.deal_suspense > 0.1  # the deal is the only thing that moves the belief


@pytest.mark.parametrize("make", [lambda: load("pure-skill"), lambda: skill_game(3)], ids=["2p", "3p"])
def test_a_game_of_pure_skill_has_no_luck(make):
    m = _measure(make())
    lk = m.luck
    assert lk.luck_share == 0.0 and lk.chance_steps == 0.0
    for s in lk.seats:
        assert s.luck == 0.0 and s.luck_ci == [0.0, 0.0]
        assert s.own + s.others + s.noise == pytest.approx(s.change)
    assert m.suspense.deal_suspense == 0.0  # nothing is dealt: the first belief is known
    assert m.heuristics.meaningful_moves == 1.0  # taking a point always beats passing


def test_a_known_best_first_move_shows_at_decision_one():
    g = first_game()
    m = _measure(g)
    h = m.heuristics
    # the winning option lifts the mover from 1/4 (a random pick) to 1; three of four lose
    assert h.killer_move == pytest.approx(0.75) and h.clarity == pytest.approx(0.75)
    assert h.meaningful_moves == 1.0
    # the winning move's skill: its lift over an average move (the same playouts), exactly 3/4;
    # the estimate before the deal (random games) differs from 1/4 by noise, kept apart
    p0 = m.luck.seats[0]
    assert m.luck.luck_share == 0.0 and p0.own == pytest.approx(0.75)
    assert p0.own + p0.noise == pytest.approx(1 - m.prior[0])
    # the look-ahead players' decision spread (recycle page) is largest at decision 1
    recs = [estimate_game(g, ["ismcts:40"] * 2, s) for s in range(4)]
    assert decision_spread(recs)["by_decision"][0]["mean"] == 1.0
    # suspense at decision 1: the variance of Q over the options (the next belief is the end)
    row = m.suspense.by_decision[0]
    assert row["decision"] == 1 and row["suspense"] == pytest.approx(2 * 0.75**2 / 4 + 2 * 3 * 0.25**2 / 4)


def test_heuristics_high_and_low():
    coin, skill3, first = (_measure(g).heuristics for g in (load("coin-flip"), skill_game(3), first_game()))
    # meaningful moves, killer move, clarity: high with a best first move, none in a coin flip
    for name in ("meaningful_moves", "killer_move", "clarity"):
        assert getattr(first, name) >= 0.75 and getattr(coin, name) == 0.0
    # coolness: with two skilled opponents between one's turns, one loses ground whatever one does
    assert skill3.coolness >= 0.2 and coin.coolness == 0.0
    # stability: one choice decides everything (low) against a belief settled at the deal (high)
    assert first.stability < 0.7 and coin.stability > 0.9


def test_the_belief_path_adds_up_to_the_outcome():
    g = load("pure-skill")
    rec = equity_game(g, ["random", "ismcts:10"], 4, rollouts=4)
    prior = [0.5, 0.5]
    path = belief_path(rec, prior)
    for p in range(2):
        assert prior[p] + sum(d[p] for _, _, d in path["steps"]) == pytest.approx(rec["final"][p])
    assert [k for k, _, _ in path["steps"]] == ["noise", "decision"] * len(rec["points"]) + ["noise"]
    # the analyst's playouts run on copies: the game is the one played without them
    from recycle.players import make_player

    seen = []
    played = g.play(
        [make_player("random"), make_player("ismcts:10")], seed=4, on_decision=lambda s, p, o, i: seen.append((p, i))
    )
    assert rec["scores"] == played.scores
    assert [(pt["mover"], pt["chosen"]) for pt in rec["points"]] == seen  # every decision here has two options


def test_the_same_seed_gives_the_same_measures_with_any_workers():
    g = load("coin-flip")
    one = _measure(g, games=4).to_dict()
    two = _measure(g, games=4, workers=2).to_dict()
    for d in (one, two):
        d.pop("seconds")
    assert one == two


def test_a_run_out_of_time_keeps_what_it_played():
    with pytest.raises(TimeoutError):
        _measure(load("pure-skill"), seconds=0.0)
    m = _measure(load("pure-skill"), games=3)
    assert m.stopped is None and m.finished == 3
    text = "\n".join(measures_lines(m))
    assert "luck share 0%" in text and "CardStock's heuristics" in text


def test_analyze_luck_adds_the_measures_to_its_json_and_text():
    import json

    from typer.testing import CliRunner

    from recycle.cli.main import app

    args = [
        "analyze",
        str(GAMES / "best-first-move.rcy"),
        "-n",
        "4",
        "--luck",
        "--luck-games",
        "3",
        "--rollouts",
        "4",
        "--no-progress",
    ]
    r = CliRunner().invoke(app, [*args, "--skilled", "ismcts:10", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["luck"]["finished"] == 3 and d["luck"]["players"] == ["ismcts:10"] * 2
    assert d["luck"]["heuristics"]["killer_move"] == pytest.approx(0.75) and "per_game" not in d["luck"]["luck"]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0 and "luck share 0% [0%, 0%]" in r.stdout and "killer move 0.75" in r.stdout
    r = CliRunner().invoke(app, [*args, "--csv"])
    assert r.exit_code == 0 and "\nkiller_move,,0.75," in r.stdout and "\nequity_own,0," in r.stdout
    r = CliRunner().invoke(app, [*args[:-1], "--rollouts", "0"])
    assert r.exit_code == 2 and "Traceback" not in r.output


SMALL = {"luck_games": 3, "rollouts": 4, "ladder_players": "random,ismcts:4", "ladder_doublings": 1, "ladder_games": 4}


def test_the_page_shows_the_ladder_luck_suspense_and_heuristics(tmp_path):
    import json

    from recycle.study.page import build_page, write_page
    from recycle.study.page_measures import extra_games

    g = first_game()
    seen = []
    p = build_page(g, games=2, seed=1, players=["ismcts:10"], sizes=SMALL, progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (2 * 2 + extra_games(g, SMALL),) * 2 == (2 * 2 + 3 + 3 * 2 * 2,) * 2
    assert p.stopped is None and p.measured_games == 3
    assert p.ladder["rungs"] == ["random", "ismcts:4", "ismcts:8"] and "seconds" not in p.ladder
    names = {x.name for x in write_page(p, tmp_path)}
    assert {"luck.png", "suspense.png", "ladder.png", "luck.json", "suspense.json", "heuristics.json"} <= names
    assert json.loads((tmp_path / "heuristics.json").read_text())["killer_move"] == pytest.approx(0.75)
    assert json.loads((tmp_path / "luck.json").read_text())["luck_share"] == 0.0
    page = (tmp_path / "index.html").read_text()
    for title in ("Skill ladder", "Luck and skill", "Suspense and surprise", "CardStock's heuristics"):
        assert f"<h2>{title}</h2>" in page
    assert '<img src="luck.png"' in page and "<td>killer move</td><td>0.75</td>" in page
    # without sizes (the Python default) the sections say they were not measured
    bare = build_page(g, games=2, seed=1, players=["ismcts:10"])
    assert not bare.luck and not bare.ladder
    write_page(bare, tmp_path / "bare")
    assert "Not measured (not asked" in (tmp_path / "bare" / "index.html").read_text()
    assert not (tmp_path / "bare" / "luck.json").exists()


def test_a_page_out_of_time_before_the_measures_says_so():
    from recycle.study.page import build_page

    p = build_page(first_game(), games=2, seed=1, players=["ismcts:10"], sizes=SMALL, seconds=0.0)
    assert p.stopped == "time" and not p.luck and not p.ladder


def test_native_playouts_give_the_same_traces():
    from recycle.native import available, native_playouts

    if not available():
        pytest.skip("the native engine needs the native extra (NumPy) and a C compiler")
    g = load("coin-flip")
    native_playouts(g, "native")  # compiled now: "auto" then plays the playouts natively
    ref = equity_game(g, ["ismcts:10"] * 2, 5, rollouts=6, playouts="reference")
    nat = equity_game(g, ["ismcts:10"] * 2, 5, rollouts=6)
    assert ref.pop("native") == 0 and nat.pop("native") == 6 * 2 * 6
    assert nat == ref
    ref, nat = (measure(g, 2, 3, ["ismcts:10"], 6, playouts=p).to_dict() for p in ("reference", "auto"))
    ref.pop("seconds"), nat.pop("seconds")
    assert nat == ref  # the belief before the deal too


def test_a_hostile_name_reaches_the_later_sections_as_text(tmp_path):
    import recycle
    from recycle.study.page import build_page, write_page

    hostile = "<b>coin$\\frac$</b>"
    g = recycle.loads(
        load("coin-flip").source.text.replace("(game", f";@ summary: {hostile}\n(game", 1), "coin$\\frac$.rcy"
    )
    p = build_page(g, games=2, seed=1, players=["ismcts:4"], sizes=SMALL)
    # the coin flip on the page: no rung of the ladder beats another, and it is all luck
    assert p.ladder["depth"] == 0 and p.luck["luck_share"] == 1.0
    names = {x.name for x in write_page(p, tmp_path)}  # no ValueError from matplotlib's math
    assert {"ladder.png", "luck.png", "suspense.png"} <= names
    page = (tmp_path / "index.html").read_text()
    assert hostile not in page and "&lt;b&gt;coin$\\frac$&lt;/b&gt;" in page


def test_ctrl_c_keeps_the_games_traced():
    import os
    import signal

    def progress(done):
        if done == 2:
            os.kill(os.getpid(), signal.SIGINT)

    m = measure(
        load("pure-skill"), games=6, seed=1, players=["ismcts:20"], rollouts=8, progress=progress, interruptible=True
    )
    assert m.stopped == "interrupted" and m.finished == 2 == m.luck.games
    first_two = measure(load("pure-skill"), games=2, seed=1, players=["ismcts:20"], rollouts=8)
    assert first_two.heuristics == m.heuristics and first_two.luck == m.luck


def test_the_coin_flip_has_skill_depth_zero_and_pure_skill_more():
    from recycle.study.ladder import ladder_rungs, run_ladder

    rungs = ladder_rungs("random,ismcts:4", 1)
    assert run_ladder(load("coin-flip"), rungs, games=12, seed=3).depth == 0
    assert run_ladder(load("pure-skill"), rungs, games=30, seed=1).depth >= 1


def test_cards_no_one_has_seen_are_luck_when_they_come_to_light():
    # the deck is shuffled at the start but its cards are drawn at the end: an analyst who read
    # the shuffled deck would put all the luck in the deal; ours deals the unseen cards again in
    # every playout, so the belief stays open until they are drawn
    g = load("late-draw")
    m = _measure(g, games=8)
    assert m.luck.luck_share == 1.0
    for rec in equity_records(g, 8):
        path = belief_path(rec, m.prior)
        assert all(abs(b[0] - 0.5) < 0.35 for b in path["points"])  # nothing is known before the draw
        kind, _, last = path["steps"][-1]
        assert kind == "chance" and rec["chance_after"]
        if rec["final"] != [0.5, 0.5]:
            assert (last[0] >= 0) if rec["final"][0] == 1.0 else (last[0] <= 0)  # the draw decides


def equity_records(g, n):
    return [equity_game(g, ["ismcts:20"] * 2, s, rollouts=8) for s in range(n)]
