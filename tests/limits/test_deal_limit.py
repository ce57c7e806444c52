"""--num-players beyond what a game's deal can serve is refused before playing (issue 28):
recycle.lang.reading.deal_limit counts the deal from the text, soundly, and says nothing where it cannot."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from recycle.lang.reading import player_count
from recycle.cli.main import app
from recycle.engine.game import PreparedGame
from recycle.errors import RecycleCompileError, RecycleError
from recycle.lang.reading.deal_limit import DealFailure, deal_failure, refusal, supported_counts
from recycle.lang.reading.player_count import with_player_count
from recycle.lang.syntax.reader import parse_file, parse_text

from ..conftest import CORPUS, GAMES, requires_corpus

runner = CliRunner()
HEARTS, WAR = GAMES / "hearts.rcy", GAMES / "war.rcy"
STOCK = ("game", "iloc", "STOCK")


def game(flow: str, cards: str = "(R (A, B, C, D, E, F, G, H, I, J))", players: int = 2) -> str:
    """A game of 10 cards in S (by default) with ``flow`` as its flow."""
    return (
        f"(game (setup (create players {players}) (create deck (game iloc S) (deck {cards})))\n"
        f" {flow}\n (scoring max 0))"
    )


DEAL4 = "(all player 'P (repeat 4 (move (top (game iloc S)) (top ('P iloc H)))))"


def src(text: str):
    return parse_text(text, "t.rcy")


# -- the command line --------------------------------------------------------------------------
def test_hearts_for_9_is_refused_before_playing_with_the_counts_it_supports():
    r = runner.invoke(app, ["run", str(HEARTS), "-p", "9"])
    assert r.exit_code == 1
    assert r.output == (
        f"error: {HEARTS} deals 13 cards to each player from a deck of 52: it supports at most "
        "4 players; -p 9 asks for 9\n"
    )  # no "hearts: 9 players": nothing was played


def test_war_deals_the_whole_pack_so_it_is_for_two():
    r = runner.invoke(app, ["simulate", str(WAR), "-p", "3", "-n", "2"])
    assert r.exit_code == 1
    assert (
        f"error: {WAR} deals 26 cards to each player from a deck of 52: it supports at most 2 players; -p 3 asks for 3"
    ) in r.output
    assert runner.invoke(app, ["run", str(WAR), "-p", "2", "--seed", "1"]).exit_code == 0


def test_a_deal_that_cannot_be_counted_keeps_the_runtime_message(tmp_path):
    """(random 1) is always 0, but the analysis does not work out random numbers: it says
    nothing, and the game stops at the move from the empty location."""
    path = tmp_path / "g.rcy"
    path.write_text(
        game("(do ((all player 'P (repeat (+ 4 (random 1))\n  (move (top (game iloc S)) (top ('P iloc H)))))))")
    )
    assert deal_failure(parse_file(path), 3) is None
    r = runner.invoke(app, ["run", str(path), "-p", "3"])
    assert r.exit_code == 1 and "runtime error: move from the empty location S (with 3 players)" in r.output


# -- the analysis ------------------------------------------------------------------------------
def test_the_failure_and_the_counts_of_hearts():
    s = parse_file(HEARTS)
    assert deal_failure(s, 4) is None
    assert deal_failure(s, 5) == DealFailure(5, STOCK, taken=65, per_player=13, held=52, deck=True)
    assert supported_counts(s, 8) == [1, 2, 3, 4]
    # the declared count of crazy eights deals 7 cards each to 2 players, 5 to more: 10 of 52 at most
    assert supported_counts(parse_file(GAMES / "crazy-eights.rcy"), 12) == list(range(1, 11))


@pytest.mark.parametrize(
    "flow, n, expected",
    [
        # a plain deal of 4 each from 10 cards
        (f"(do ({DEAL4}))", 3, DealFailure(3, ("game", "iloc", "S"), 12, 4, 10, True)),
        # a card turned up first: 9 left, and the message says so
        (
            f"(do ((move (top (game iloc S)) (top (game vloc UP))) {DEAL4}))",
            3,
            DealFailure(3, ("game", "iloc", "S"), 12, 4, 9, False),
        ),
        # the first turn of a stage whose end is false on arrival (a storage 0 until set, a declared count)
        (
            f"(stage player (end (> (game sto ROUND) 0)) (do ({DEAL4} (inc (game sto ROUND)))))",
            3,
            DealFailure(3, ("game", "iloc", "S"), 12, 4, 10, True),
        ),
        # a condition worked out: the deal depends on the number of players
        (
            "(do (((== (size player) 3) (repeat 11 (move (top (game iloc S)) (top (game vloc UP)))))))",
            3,
            DealFailure(3, ("game", "iloc", "S"), 11, None, 10, True),
        ),
    ],
)
def test_the_deal_is_followed(flow, n, expected):
    assert deal_failure(src(game(flow)), n) == expected
    assert deal_failure(src(game(flow)), 2) is None


@pytest.mark.parametrize(
    "flow, expected",
    [
        # a stage in which nobody decides is followed turn by turn (issue 40.12): a card to each in
        # turn, the stage told as a whole (6 each)
        (
            "(stage player (end (all player 'P (== (size ('P iloc H)) 6))) (do ((move (top (game iloc S)) "
            "(top ((current player) iloc H))))))",
            DealFailure(2, ("game", "iloc", "S"), 12, 6, 10, True),
        ),
        # a hand at each turn: the turn that fails is told (the second one, 2 cards left)
        (
            f"(stage player (end (== (game sto T) 2)) (do ({DEAL4} (inc (game sto T)))))",
            DealFailure(2, ("game", "iloc", "S"), 8, 4, 2, False),
        ),
    ],
)
def test_a_stage_in_which_nobody_decides_is_followed_to_its_end(flow, expected):
    assert deal_failure(src(game(flow)), 2) == expected
    assert deal_failure(src(game(flow)), 1) is None


KNOCKOUT = Path(__file__).parent / "knockout-whist.rcy"


@pytest.mark.slow  # (over 7 s: the fast suite stays under 5 minutes)
def test_knockout_whist_for_8_is_refused_before_playing():
    """Issue 40.12: its deal goes round the table a card at a time, which was not followed:
    -p 8 played, and stopped on an empty stock."""
    r = runner.invoke(app, ["run", str(KNOCKOUT), "-p", "8"])
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert r.output.strip().endswith(
        "deals 7 cards to each player from a deck of 52: it supports at most 7 players; -p 8 asks for 8"
    ), r.output
    assert "STOCK →" not in r.output  # nothing was played
    assert runner.invoke(app, ["run", str(KNOCKOUT), "-p", "7", "--seed", "1"]).exit_code == 0


@pytest.mark.parametrize(
    "flow",
    [
        f"(choice ((turn pass))) (do ({DEAL4}))",  # a choice first: not followed
        f"(stage player (end (== (size (game iloc S)) 10)) (do ({DEAL4})))",  # ends on arrival: no deal
        f"(stage player (end (> (random 3) 1)) (do ({DEAL4})))",  # an end not worked out
        f"(do ((let (random 2) 'K (repeat 'K (move (top (game iloc S)) (top (game iloc T))))) {DEAL4}))",
    ],
)
def test_what_is_not_followed_refuses_nothing(flow):
    assert deal_failure(src(game(flow)), 3) is None


def test_a_location_of_an_unknown_owner_is_unknown_for_every_owner():
    # 'P's hand gets a card from (next player)'s... the owner is not worked out, so no hand's count is known
    flow = (
        "(do ((move (top (game iloc S)) (top ((next player) iloc H)))"
        " (all player 'P (repeat 5 (move (top ('P iloc H)) (top (game iloc T)))))))"
    )
    assert deal_failure(src(game(flow)), 2) is None
    known = "(do ((all player 'P (repeat 5 (move (top ('P iloc H)) (top (game iloc T)))))))"
    assert deal_failure(src(game(known)), 2) == DealFailure(2, (("player", 0), "iloc", "H"), 5, None, 0, False)


def test_the_message_names_the_counts():
    s = src(game(f"(do ({DEAL4}))"))
    assert refusal(s, 3, 64) == (
        "t.rcy deals 4 cards to each player from a deck of 10: it supports at most 2 players; -p 3 asks for 3"
    )
    assert refusal(s, 2, 64) is None
    with pytest.raises(RecycleCompileError, match="it supports at most 2 players; -p 5 asks for 5"):
        with_player_count(s, 5)


# -- never a count that works ------------------------------------------------------------------
def _games():
    return sorted(GAMES.glob("*.rcy")) + (sorted(CORPUS.glob("*.rcy")) if CORPUS.is_dir() else [])


def _default(s) -> int:
    return PreparedGame(s).nplayers


def test_every_game_accepts_its_own_number_of_players():
    paths = _games()
    assert len(paths) > (60 if CORPUS.is_dir() else 5)
    for path in paths:
        s = parse_file(path)
        assert deal_failure(s, _default(s)) is None, path.name


@requires_corpus()
def test_a_count_refused_fails_when_played(monkeypatch):
    """For 2..6 players, where the game lets its count be set: each count refused fails when
    played (one random game, the refusal switched off) at a move from an empty location."""
    refused = []
    for path in _games():
        s = parse_file(path)
        for n in range(2, 7):
            if deal_failure(s, n) is None:
                continue  # accepted
            with monkeypatch.context() as m:
                m.setattr(player_count, "refusal", lambda *a: None)
                try:
                    g = PreparedGame(with_player_count(s, n))
                except RecycleCompileError:
                    continue  # the count cannot be set (teams listed)
            with pytest.raises(RecycleError, match=f"move from the empty location .* \\(with {n} players\\)"):
                g.play(seed=1)
            refused.append((path.name, n))
    assert ("hearts.rcy", 5) in refused and ("war.rcy", 3) in refused and ("KuhnPoker2.rcy", 4) in refused
    assert len(refused) > 40
