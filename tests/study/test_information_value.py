"""analyze --information: a player that sees exactly one more location, and the map of what
each hidden location is worth."""

import json
import random

import pytest
from typer.testing import CliRunner

import recycle
from recycle.engine.runner import privileged
from recycle.cli import app
from recycle.players.lookahead import ISMCTSPlayer, RevealingPlayer
from recycle.study.information import hidden_locations, information_lines, information_value

from ..conftest import GAMES

runner = CliRunner()

# Kuhn poker (the CardStock corpus's KuhnPoker2, shortened): three cards, one each, one in the
# stock; bet, call or fold
KUHN = """(game
 (setup (create players 2) (create deck (game iloc STOCK) (deck (RANK (J, Q, K)))))
 (do (
  (set (game points PRECEDENCE) (((RANK : K) 3) ((RANK : Q) 2) ((RANK : J) 1)))
  (shuffle (game iloc STOCK))
  (all player 'P (do ((dec ('P sto CHIPS) 1) (inc (game sto POT) 1)
                      (move (top (game iloc STOCK)) (top ('P iloc HAND))))))))
 (stage player
  (end (or (any player 'P (== ('P str MOVE) FOLD))
           (all player 'P (== ('P str MOVE) CHECK))
           (and (== ((previous player) str MOVE) BET) (== ((current player) str MOVE) CALL))))
  (choice (
   ((!= ((previous player) str MOVE) BET) (set ((current player) str MOVE) CHECK))
   ((!= ((previous player) str MOVE) BET)
    (do ((set ((current player) str MOVE) BET) (dec ((current player) sto CHIPS) 1) (inc (game sto POT) 1))))
   ((== ((previous player) str MOVE) BET)
    (do ((set ((current player) str MOVE) FOLD) (inc ((previous player) sto CHIPS) (game sto POT)))))
   ((== ((previous player) str MOVE) BET)
    (do ((set ((current player) str MOVE) CALL) (dec ((current player) sto CHIPS) 1) (inc (game sto POT) 1)))))))
 (do (
  ((all player 'P (!= ('P str MOVE) FOLD))
   (do ((all player 'P (move (top ('P iloc HAND)) (top ('P vloc REVEAL))))
        (inc ((owner (max (union (all player 'P ('P vloc REVEAL))) using (game points PRECEDENCE))) sto CHIPS)
             (game sto POT)))))))
 (scoring max ((current player) sto CHIPS)))"""


# P0 guesses the suit of the one card P1 holds (three suits): a third of the time unless it sees
GUESS = """(game
 (setup (create players 2) (create deck (game iloc STOCK) (deck (SUIT (X, Y, Z)))))
 (do ((shuffle (game iloc STOCK)) (move (top (game iloc STOCK)) (top ((1 player) iloc HAND)))))
 (stage player
  (end (== (game sto DONE) 1))
  (choice (
   (do ((set ((0 player) str GUESS) X) (set (game sto DONE) 1)))
   (do ((set ((0 player) str GUESS) Y) (set (game sto DONE) 1)))
   (do ((set ((0 player) str GUESS) Z) (set (game sto DONE) 1))))))
 (do (
  ((== (cardatt SUIT (top ((1 player) iloc HAND))) ((0 player) str GUESS)) (inc ((0 player) sto SCORE) 1))
  ((!= (cardatt SUIT (top ((1 player) iloc HAND))) ((0 player) str GUESS)) (inc ((1 player) sto SCORE) 1))))
 (scoring max ((current player) sto SCORE)))"""


def loc(game, label):
    [info] = [i for i in game.layout.infos if i.label == label]
    return info.index


# -- the player ---------------------------------------------------------------------------------


class _Stop(Exception):
    pass


@privileged  # it hands the live observation to the test, as the look-ahead players get it
class _Grab:
    needs_view = True

    def choose(self, view, options, rng):
        if view.player == 0:
            raise _Stop(view, options)
        return 0


def first_decision(game, seed):
    try:
        game.play([_Grab()] * game.nplayers, seed=seed)
    except _Stop as stop:
        return stop.args
    raise AssertionError("no decision of seat 0")


def swapped(view, a: int, b: int):
    """The observation of a copy of the state with the top cards of locations a and b swapped."""
    s = view._state.clone(track=True)
    x, y = s.locs[a][-1], s.locs[b][-1]
    s.locs[a][-1], s.locs[b][-1] = y, x
    s.card_loc[x], s.card_loc[y] = b, a
    return s.observation(0)


@pytest.fixture(scope="module")
def hearts_one_deal():
    text = (GAMES / "hearts.rcy").read_text().replace("(declare 100 'GOAL)", "(declare 0 'GOAL)")
    return recycle.loads(text, "hearts-one-deal.rcy")


def test_the_revealing_player_sees_its_location_and_nothing_else(hearts_one_deal):
    g = hearts_one_deal
    h1, h2, h3 = (loc(g, f"HAND(P{p})") for p in (1, 2, 3))
    view, options = first_decision(g, 4)
    assert not view.can_see(h1) and not view.can_see(h2) and not view.can_see(h3)

    def decide(v, player):
        i = player.choose(v, options, random.Random(5))
        return i, player.last_values

    sees_p1 = decide(view, RevealingPlayer(30, [h1]))
    # cards changing places between two hands it may not see change nothing
    assert decide(swapped(view, h2, h3), RevealingPlayer(30, [h1])) == sees_p1
    # a card of the hand it sees changing: it decides on other values
    assert decide(swapped(view, h1, h2), RevealingPlayer(30, [h1]))[1] != sees_p1[1]
    # without the location it is plain ISMCTS, which sees neither change
    plain = decide(view, ISMCTSPlayer(30))
    assert decide(view, RevealingPlayer(30, [])) == plain
    assert decide(swapped(view, h1, h2), ISMCTSPlayer(30)) == plain
    assert sees_p1[1] != plain[1]


def test_the_revealed_location_keeps_its_true_cards_in_every_world(hearts_one_deal):
    g = hearts_one_deal
    h1, h2 = loc(g, "HAND(P1)"), loc(g, "HAND(P2)")
    view, _ = first_decision(g, 9)
    truth = view._state.locs
    for k in range(5):
        world = view.sample_world(random.Random(k), reveal=frozenset([h1]))
        assert world.locs[h1] == truth[h1]
        assert sorted(world.locs[h2] + world.locs[loc(g, "HAND(P3)")]) == sorted(truth[h2] + truth[loc(g, "HAND(P3)")])
    assert any(view.sample_world(random.Random(k)).locs[h1] != truth[h1] for k in range(5))


# -- the measurement --------------------------------------------------------------------------


def test_hidden_locations_per_seat():
    g = recycle.loads(KUHN, "kuhn.rcy")
    where = hidden_locations(g)
    assert {s: [g.layout.infos[i].label for i in v] for s, v in where.items()} == {
        0: ["STOCK", "HAND(P1)"],
        1: ["STOCK", "HAND(P0)"],
    }
    war = recycle.load(GAMES / "war.rcy")
    assert hidden_locations(war) == {0: [], 1: []}  # no decisions: nothing is looked at


def test_information_value_in_kuhn_poker():
    """With three cards, seeing the stock tells the other hand: both rows are the same games."""
    g = recycle.loads(KUHN, "kuhn.rcy")
    a = information_value(g, n=60, seed=2, budget=16, seats=[0])
    rows = a["locations"]
    assert [r["location"] for r in rows] == ["STOCK", "HAND(P1)"]
    assert rows[0]["with"] == rows[1]["with"] and rows[0]["value"] == rows[1]["value"]
    r = rows[1]
    assert r["paired_games"] == 60 and r["with"]["games"] == 60
    assert r["value"] == pytest.approx(r["with"]["win_rate"] - r["without"]["win_rate"])
    lo, hi = r["value_ci"]
    assert lo <= r["value"] <= hi
    assert r["with"]["win_rate_ci"][0] <= r["with"]["win_rate"] <= r["with"]["win_rate_ci"][1]
    assert a["games_played"] == 180 and a["player"] == "ismcts:16"
    assert information_value(g, n=60, seed=2, budget=16, seats=[0], workers=2)["locations"] == rows
    lines = information_lines(a)
    assert lines[1].startswith("played by: the reference interpreter")  # (native or not, its searches)
    assert lines[3].startswith("P0    STOCK") and "value = win rate seeing the location minus without" in lines[-1]


def test_seeing_the_card_to_guess_is_worth_two_thirds_of_the_games():
    g = recycle.loads(GUESS, "guess.rcy")
    a = information_value(g, n=150, seed=1, budget=10, seats=[0])
    [stock, hand] = a["locations"]
    assert (stock["location"], hand["location"]) == ("STOCK", "HAND(P1)")
    assert hand["with"]["win_rate"] == 1.0 and stock["with"]["win_rate"] == 1.0  # the stock's two tell the third
    assert 0.22 < hand["without"]["win_rate"] < 0.45
    assert hand["value_ci"][0] > 0.5 and hand["value"] == pytest.approx(1.0 - hand["without"]["win_rate"])


def test_cli_information(tmp_path):
    path = tmp_path / "kuhn.rcy"
    path.write_text(KUHN)
    r = runner.invoke(
        app, ["analyze", str(path), "--information", "-n", "10", "--skilled", "ismcts:8", "--seat", "1", "--json"]
    )
    assert r.exit_code == 0, r.output
    a = json.loads(r.stdout)
    assert a["seats"] == [1] and [x["location"] for x in a["locations"]] == ["STOCK", "HAND(P0)"]
    t = runner.invoke(app, ["analyze", str(path), "--information", "-n", "4", "--skilled", "ismcts:4"])
    assert t.exit_code == 0 and "P1    HAND(P0)" in t.output
    for args, message in (
        (["--skilled", "pimc:10"], "give its budget as --skilled ismcts:N"),
        (["--seat", "2"], "--seat 2: kuhn has seats 0 to 1"),
    ):
        bad = runner.invoke(app, ["analyze", str(path), "--information", "-n", "2", *args])
        assert bad.exit_code == 2 and message in bad.output
    no = runner.invoke(app, ["analyze", str(path), "-n", "2", "--seat", "0"])
    assert no.exit_code == 2 and "--seat goes with --information" in no.output
