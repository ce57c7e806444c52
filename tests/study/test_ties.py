"""Ties for first count sides: partners sharing their team's win are no tie (issue 26)."""

from __future__ import annotations

import pytest

from recycle.engine.game import tied_sides
from recycle.study.analysis import analyze
from recycle.study.stats import simulate

from ..conftest import tiny

# p0 gives a point to team 0 (players 0, 2), to team 1 (1, 3), or passes: then all four tie
TEAM_GAME = """(do ((create teams (0, 2) (1, 3))))
 (stage player (end (> (game sto T) 0))
  (do ((inc (game sto T) 1)))
  (choice ((inc ((0 team) sto SCORE) 1) (inc ((1 team) sto SCORE) 1) (turn pass))))"""


def team_game():
    return tiny(TEAM_GAME, players=4, scoring="(scoring max ((team (current player)) sto SCORE))")


def test_tied_sides_counts_teams_and_players_on_no_team():
    assert tied_sides([0, 2], [0, 1, 0, 1]) == 1  # partners: one side
    assert tied_sides([0, 1, 2, 3], [0, 1, 0, 1]) == 2
    assert tied_sides([0, 1], [0, 1, 2]) == 2  # no teams: every player a side
    assert tied_sides([1, 3], [0, None, 0, None]) == 2  # players on no team are sides of their own
    assert tied_sides([0, 2], [0, None, 0, None]) == 1


def test_a_team_game_ties_only_when_both_teams_tie():
    s = simulate(team_game(), 300, seed=3)
    passes = sum(1 for sc in s.scores if sc == [0, 0, 0, 0])
    assert 60 < passes < 140  # a third of the games: nobody scores, both teams tie
    assert s.tie_rate == pytest.approx(passes / 300)  # partners sharing a win are no tie
    # every player tied for best counts a win: the seats' rates add up to more than 1
    assert s.win_rate[0] == s.win_rate[2] and s.win_rate[1] == s.win_rate[3]
    assert sum(s.win_rate) == pytest.approx(2 * (1 + passes / 300))
    text = str(s)
    assert "can add up to more than 100%" in text and "two or more sides" in text


def test_analyze_counts_the_same_ties_as_simulate():
    g = team_game()
    a = analyze(g, n=60, seed=5, keep_games=False).to_dict()
    s = simulate(g, 60, 5)
    assert 0 < s.tie_rate < 1
    assert a["ties"]["rate"] == pytest.approx(s.tie_rate)


def test_without_teams_every_player_tied_is_a_side():
    g = tiny(
        """(stage player (end (> (game sto T) 0)) (do ((inc (game sto T) 1)))
  (choice ((inc ((0 player) sto SCORE) 1) (turn pass))))""",
        players=2,
        scoring="(scoring max ((current player) sto SCORE))",
    )
    s = simulate(g, 100, seed=1)
    passes = sum(1 for sc in s.scores if sc == [0, 0])
    assert 0 < passes < 100 and s.tie_rate == pytest.approx(passes / 100)
