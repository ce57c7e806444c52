"""The skill ladder: known answers on tiny games (a coin flip, a game of pure skill), the depth and
Elo computations on known matrices, the rungs' spec, determinism, stopping, and the command."""

import json
import math
import os
import signal

import pytest
from typer.testing import CliRunner

from recycle.cli import app
from recycle.study.ladder import (
    LadderError,
    elo_ratings,
    head_to_head,
    ladder_games,
    ladder_lines,
    ladder_rungs,
    run_ladder,
    skill_depth,
)

from ..conftest import tiny

runner = CliRunner()

# Each player is dealt one card and makes a few choices that change nothing: the card alone
# decides (a coin flip). Played in duplicate, every seat's card goes to each rung in turn.
COIN = """(do ((shuffle (game iloc STOCK))
     (set (game points V) (((RANK : A) 1) ((RANK : B) 2) ((RANK : C) 3)))
     (all player 'P (move (top (game iloc STOCK)) (top ('P iloc HAND))))))
 (stage player (end (> (game sto T) LAST)) (do ((inc (game sto T) 1)))
  (choice ((inc ((current player) sto X) 1) (inc ((current player) sto X) 2))))"""
COIN_SCORING = "(scoring max (sum ((current player) iloc HAND) using (game points V)))"
# Three turns each: take a point or pass. Whoever takes more points wins: pure skill.
SKILL = """(stage player (end (> (game sto T) LAST)) (do ((inc (game sto T) 1)))
  (choice ((inc ((current player) sto SCORE) 1) (turn pass))))"""
SKILL_SCORING = "(scoring max ((current player) sto SCORE))"


def coin_game(players=2):
    return tiny(COIN.replace("LAST", str(3 * players - 1)), players=players, scoring=COIN_SCORING)


def skill_game(players=2):
    return tiny(SKILL.replace("LAST", str(3 * players - 1)), players=players, scoring=SKILL_SCORING)


def _game_text(body, players, scoring):
    return f"""(game
 (setup (create players {players})
  (create deck (game iloc STOCK) (deck (RANK (A, B, C)) (SUIT (X, Y)))))
 {body.replace("LAST", str(3 * players - 1))}
 {scoring})"""


# -- known answers ----------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3])
def test_a_coin_flip_game_has_skill_depth_zero(players):
    lad = run_ladder(coin_game(players), ladder_rungs("random,ismcts:4", 1), games=30, seed=3)
    assert lad.rungs == ["random", "ismcts:4", "ismcts:8"]
    assert lad.depth == 0 and len(lad.chain) == 1
    for i in range(3):
        for j in range(3):
            if i != j:
                # duplicate play: each seat's card goes to both rungs, so the luck cancels exactly
                assert lad.rate[i][j] == 0.5
                lo, hi = lad.ci[i][j]
                assert lo < 0.5 < hi
    assert lad.elo == pytest.approx([0.0, 0.0, 0.0], abs=1e-6)


@pytest.mark.parametrize("players", [2, 3])
def test_in_a_game_of_skill_random_loses_to_lookahead(players):
    lad = run_ladder(skill_game(players), ladder_rungs("random,ismcts:4", 1), games=40, seed=1)
    for j in (1, 2):
        assert lad.ci[j][0][0] > 0.5 and lad.ci[0][j][1] < 0.5
        assert lad.rate[0][j] == pytest.approx(1 - lad.rate[j][0])
    assert lad.depth >= 1 and lad.chain[0] == 0
    assert lad.elo[0] == 0.0 and min(lad.elo[1:]) > 100
    text = "\n".join(ladder_lines(lad))
    assert f"skill depth: {lad.depth} (random < ismcts:" in text


def test_the_same_seed_gives_the_same_ladder_with_any_workers():
    g = skill_game(3)
    rungs = ladder_rungs("random,ismcts:3", 1)
    one = run_ladder(g, rungs, games=12, seed=5).to_dict()
    two = run_ladder(g, rungs, games=12, seed=5, workers=2).to_dict()
    other = run_ladder(g, rungs, games=12, seed=6).to_dict()
    for d in (one, two, other):
        d.pop("seconds")
    assert one == two and one["games_played"] == 3 * 12
    assert one != other


# -- the pieces -------------------------------------------------------------------------------


def test_head_to_head_counts_ties_half():
    assert head_to_head([0], 0, 2) == 1.0
    assert head_to_head([1], 0, 2) == 0.0
    assert head_to_head([0, 1], 0, 2) == 0.5
    assert head_to_head([], 0, 3) == 0.5
    assert head_to_head([0, 2], 0, 3) == pytest.approx(0.75)  # beat seat 1, tied with seat 2
    assert head_to_head([1], 2, 3) == pytest.approx(0.25)  # lost to seat 1, tied with seat 0


def _ci(lower_bounds):
    """A matrix of intervals from the lower bounds of the higher rungs against the lower ones."""
    n = len(lower_bounds)
    ci = [[None] * n for _ in range(n)]
    for j in range(n):
        for i in range(j):
            lo = lower_bounds[j][i]
            ci[j][i] = [lo, lo + 0.2]
            ci[i][j] = [1 - lo - 0.2, 1 - lo]
    return ci


def test_skill_depth_is_the_longest_chain_of_significant_steps():
    # rung 1 does not beat rung 0, but rung 2 beats both and rung 3 beats rung 2: 0 < 2 < 3
    lows = [[None], [0.4], [0.6, 0.55], [0.7, 0.45, 0.52]]
    depth, chain = skill_depth([[0.5] * 4] * 4, _ci(lows))
    assert (depth, chain) == (2, [0, 2, 3])
    # nothing beats anything: depth 0
    assert skill_depth([[0.5] * 3] * 3, _ci([[None], [0.3], [0.3, 0.3]]))[0] == 0
    # every rung beats the one below it: depth = rungs - 1
    assert skill_depth([[0.5] * 4] * 4, _ci([[None], [0.6], [0.6, 0.6], [0.6, 0.6, 0.6]])) == (3, [0, 1, 2, 3])


def test_elo_of_two_rungs_is_the_logit_with_one_draw_added():
    elo = elo_ratings([[0.0, 25.0], [75.0, 0.0]], [[0, 100], [100, 0]])
    assert elo[0] == 0.0
    assert elo[1] == pytest.approx(400 * math.log10(75.5 / 25.5), abs=1e-6)
    # a rung that wins every game still has a finite rating
    assert math.isfinite(elo_ratings([[0.0, 0.0], [10.0, 0.0]], [[0, 10], [10, 0]])[1])


def test_elo_orders_three_rungs_and_is_zero_for_equals():
    games = [[0, 50, 50], [50, 0, 50], [50, 50, 0]]
    assert elo_ratings([[0, 25, 25], [25, 0, 25], [25, 25, 0]], games) == pytest.approx([0, 0, 0], abs=1e-6)
    elo = elo_ratings([[0, 20, 10], [30, 0, 20], [40, 30, 0]], games)
    assert elo[0] == 0.0 and 0 < elo[1] < elo[2]


def test_rungs_double_the_budget():
    assert ladder_rungs("random,ismcts:25", 3) == ["random", "ismcts:25", "ismcts:50", "ismcts:100", "ismcts:200"]
    assert ladder_rungs(" greedy , pimc:3 ", 1) == ["greedy", "pimc:3", "pimc:6"]
    assert ladder_games(5, 40, 5) == 10 * 40
    assert ladder_games(3, 5, 2) == 3 * 6


@pytest.mark.parametrize(
    "players, doublings, message",
    [
        ("random,ismcts:25", 0, "--doublings must be between 1 and 10, not 0"),
        ("random,ismcts:25", 11, "--doublings must be between 1 and 10, not 11"),
        ("random", 2, "give two players, the bottom rung and the first look-ahead rung"),
        ("random,ismcts:5,pimc:3", 2, "give two players"),
        ("random,ismcts", 2, "the second player needs a budget to double, e.g. ismcts:25"),
        ("random,ismcts:0", 2, "the second player needs a budget to double"),
        ("random,ismcts:x", 2, "the second player needs a budget to double"),
        ("nobody,ismcts:5", 2, "unknown player 'nobody'"),
        ("random,nobody:5", 2, "unknown player 'nobody:5'"),
        ("human,ismcts:5", 2, "played by computer players, not by a person"),
    ],
)
def test_bad_rungs_are_refused_with_a_reason(players, doublings, message):
    with pytest.raises(LadderError) as err:
        ladder_rungs(players, doublings)
    assert message in str(err.value)


def test_a_game_of_one_player_has_no_ladder():
    with pytest.raises(LadderError, match="a game of one player"):
        run_ladder(skill_game(1), ["random", "ismcts:2"], games=2)


def test_no_time_for_a_deal_is_a_timeout():
    with pytest.raises(TimeoutError, match="before every pair of rungs had played one deal"):
        run_ladder(skill_game(), ["random", "ismcts:2"], games=4, seconds=0)


def test_ctrl_c_keeps_the_deals_every_pair_finished():
    g = skill_game()
    rungs = ladder_rungs("random,ismcts:2", 1)
    per_deal = 3 * 2  # three pairs, two rotations

    def progress(done):
        if done == 2 * per_deal + 1:  # in the middle of the third deal
            os.kill(os.getpid(), signal.SIGINT)

    lad = run_ladder(g, rungs, games=20, seed=2, progress=progress, interruptible=True)
    assert lad.stopped == "interrupted" and lad.deals == 2 and lad.deals_requested == 10
    assert lad.games[1][0] == 4 and lad.games_per_pair == 4
    full = run_ladder(g, rungs, games=4, seed=2)
    assert full.rate == lad.rate and full.stopped is None


# -- the command ------------------------------------------------------------------------------


def test_cli_prints_the_matrix_the_depth_and_the_ratings(tmp_path):
    path = tmp_path / "skill.rcy"
    path.write_text(_game_text(SKILL, 2, SKILL_SCORING))
    r = runner.invoke(
        app,
        [
            "ladder",
            str(path),
            "--players",
            "random,ismcts:4",
            "--doublings",
            "1",
            "--games",
            "20",
            "--seed",
            "1",
            "--no-progress",
        ],
    )
    assert r.exit_code == 0, r.output
    assert "skill ladder of skill: 3 rungs, 20 games per pair (10 deals x 2 seat rotations), seed 1" in r.output
    assert "skill depth: " in r.output and "Elo (Bradley-Terry fit, bottom rung 0): random +0, ismcts:4 +" in r.output
    r2 = runner.invoke(
        app,
        [
            "ladder",
            str(path),
            "--players",
            "random,ismcts:4",
            "--doublings",
            "1",
            "--games",
            "20",
            "--seed",
            "1",
            "--json",
        ],
    )
    d = json.loads(r2.stdout.strip().splitlines()[-1])
    assert d["rungs"] == ["random", "ismcts:4", "ismcts:8"] and d["depth"] >= 1 and d["deals"] == 10
    assert d["rate"][0][0] is None and d["ci"][1][0][0] > 0.5


def test_cli_writes_the_plot_of_a_game_named_with_dollars(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "coin$\\frac$.rcy"  # math markup: a ValueError if matplotlib read it
    path.write_text(_game_text(COIN, 2, COIN_SCORING))
    out = tmp_path / "ladder.png"
    r = runner.invoke(
        app,
        [
            "ladder",
            str(path),
            "--players",
            "random,ismcts:2",
            "--doublings",
            "1",
            "--games",
            "4",
            "--no-progress",
            "--plot",
            str(out),
        ],
    )
    assert r.exit_code == 0, r.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "skill depth: 0" in r.output
    assert "skill ladder of coin$\\frac$:" in r.output  # the name reached the plot too, as plain text


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--players", "random,ismcts", "--doublings", "2"],
            "error: --players 'random,ismcts': the second player needs a budget to double, e.g. ismcts:25",
        ),
        (["--players", "random,ismcts:5", "--doublings", "11"], "error: --doublings must be between 1 and 10, not 11"),
        (["--players", "random,ismcts:5", "--doublings", "0"], "error: --doublings must be between 1 and 10, not 0"),
        (["--players", "bogus,ismcts:5"], "error: --players 'bogus,ismcts:5': unknown player 'bogus'"),
    ],
)
def test_cli_refuses_bad_options_with_exit_1(tmp_path, args, message):
    path = tmp_path / "skill.rcy"
    path.write_text(_game_text(SKILL, 2, SKILL_SCORING))
    r = runner.invoke(app, ["ladder", str(path), "--no-progress", *args])
    assert r.exit_code == 1
    assert message in r.output and "Traceback" not in r.output


def test_cli_refuses_a_missing_or_broken_game(tmp_path):
    r = runner.invoke(app, ["ladder", str(tmp_path / "nope.rcy"), "--no-progress"])
    assert r.exit_code == 1 and "cannot read the game" in r.output and "no such file" in r.output
    bad = tmp_path / "bad.rcy"
    bad.write_text("(game (setup (create players 2)")
    r = runner.invoke(app, ["ladder", str(bad), "--no-progress"])
    assert r.exit_code == 1 and "bad.rcy" in r.output and "Traceback" not in r.output
    r = runner.invoke(app, ["ladder", str(tmp_path), "--no-progress"])
    assert r.exit_code == 1 and "it is a folder" in r.output


def test_cli_with_no_time_for_a_deal_says_so(tmp_path):
    path = tmp_path / "skill.rcy"
    path.write_text(_game_text(SKILL, 2, SKILL_SCORING))
    r = runner.invoke(
        app,
        ["ladder", str(path), "--players", "random,ismcts:2", "--doublings", "1", "--seconds", "0", "--no-progress"],
    )
    assert r.exit_code == 1
    assert "error: the time budget ended before every pair of rungs had played one deal (--seconds 0)" in r.output
