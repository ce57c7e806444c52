"""`recycle play` works for every game: each game of games/ and of the CardStock corpus is
played by a scripted person choosing option 1 at every decision (random opponents)."""

import io
import json

import pytest

import recycle
from recycle.cli.play import PlaySession, Terminal, seat_specs

from ..conftest import CORPUS, GAMES, requires_corpus, sweep_marks

ANSWERS = 600  # decisions of the person at most; then the game is quit (and saved)
GAME_FILES = sorted(GAMES.glob("*.rcy"))
CORPUS_FILES = sorted(CORPUS.glob("*.rcy")) if CORPUS.is_dir() else []


def play_option_one(path, tmp_path):
    g = recycle.load(path)
    term = Terminal(io.StringIO("1\n" * ANSWERS + "q\n"), io.StringIO(), tty=False)
    out = tmp_path / "game.json"
    session = PlaySession(term, g, path, 0, seat_specs("random", g.nplayers, 0), deal=1, record=out)
    session.run(1)
    text = term.stdout.getvalue()
    assert "game over" in text  # played to its end
    rec = json.loads(out.read_text())
    assert rec["players"][0] == "human"
    return session, text


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.stem)
def test_every_game_of_games_can_be_played(path, tmp_path):
    play_option_one(path, tmp_path)


@requires_corpus()
@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem, marks=sweep_marks(p)) for p in CORPUS_FILES])
def test_every_corpus_game_can_be_played(path, tmp_path):
    play_option_one(path, tmp_path)
