"""`recycle play` at a simultaneous stage (games/goofspiel.rcy): the person is told that the
computer player has chosen, never what, before choosing; once both bids are applied, each is
told under its chooser, in seat order."""

import io

import recycle
from recycle.cli.play import PlaySession, Terminal, seat_specs

from ..conftest import GAMES


def test_the_other_bid_is_unseen_until_both_are_made(tmp_path):
    path = GAMES / "goofspiel.rcy"
    g = recycle.load(path)
    term = Terminal(io.StringIO("1\n" + "q\n"), io.StringIO(), tty=False)
    session = PlaySession(term, g, path, 1, seat_specs("random", 2, 1), deal=1, record=tmp_path / "g.json")
    session.run(1)
    first, second = term.stdout.getvalue().split("Your choice", 2)[:2]
    assert "  P0    chose (unseen until every player has chosen)" in first
    assert (
        "BID:" not in first.split("Your options:")[0] and "P0 random      HAND 7 cards" in first
    )  # nothing of P0's bid before the person bids
    told = second.split("Since your last turn:")[1].splitlines()
    assert told[1:3] == ["  P0    P0's HAND → P0's BID: 4♥", "  you   your HAND → your BID: 2♠"]  # seat order
