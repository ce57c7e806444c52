"""analyze and duplicate say which engine played: the games (native code for random players'
games wherever the game builds, the reference interpreter with a look-ahead player at the table)
and their playouts and searches (native code wherever the game builds), in text and JSON."""

import json

import pytest

import recycle
from typer.testing import CliRunner

from recycle.cli import app
from recycle.native import available
from recycle.engine.runner import RandomPlayer
from recycle.players.lookahead import ISMCTSPlayer
from recycle.study.engine_use import combined, engine_line, game_playouts

from ..conftest import GAMES

runner = CliRunner()
SCHWIMMEN = str(GAMES / "schwimmen.rcy")
native = pytest.mark.skipif(not available(), reason="the native engine needs NumPy and a C compiler")
NATIVE_LINE = "played by: the reference interpreter (the games), native code (their playouts and searches)"


def test_engines_of_many_games_add_up_to_one_word():
    assert combined([None, "native", "native"]) == "native"
    assert combined(["native", None, "reference"]) == "native and reference"
    assert combined(["reference", "native and reference"]) == "native and reference"
    assert combined([None, None]) is None
    assert engine_line("reference", None) == "played by: the reference interpreter"
    assert engine_line("reference", "reference") == (
        "played by: the reference interpreter (the games, their playouts and searches)"
    )
    assert engine_line("reference", "native") == NATIVE_LINE
    assert engine_line("reference", "native and reference").endswith(
        "native code (their playouts and searches, the reference interpreter where native code declined)"
    )


def test_analyze_of_random_players_says_native_code_played():
    """Random players' traced games are stepped natively wherever the game builds
    (recycle/study/trace_native.py), on the reference interpreter with --engine reference."""
    stepped = "native" if available() else "reference"
    r = runner.invoke(app, ["analyze", SCHWIMMEN, "-n", "3", "--no-progress"])
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[1] == f"played by: {'native code' if available() else 'the reference interpreter'}"
    r = runner.invoke(app, ["analyze", SCHWIMMEN, "-n", "3", "--json"])
    d = json.loads(r.stdout)
    assert (d["engine"], d["playouts_engine"]) == (stepped, None)
    r = runner.invoke(app, ["analyze", SCHWIMMEN, "-n", "3", "--json", "--engine", "reference"])
    d = json.loads(r.stdout)
    assert (d["engine"], d["playouts_engine"]) == ("reference", None)


@native
def test_analyze_says_native_code_played_the_searches_and_value_playouts():
    args = ["analyze", SCHWIMMEN, "-n", "2", "--skilled", "ismcts:5", "--skill-games", "2"]
    r = runner.invoke(app, args + ["--no-progress"])
    assert r.exit_code == 0, r.output
    d = json.loads(runner.invoke(app, args + ["--json"]).stdout)
    # the traced random games natively; the look-ahead player's skill games as duplicate's
    # (recycle/native/choose.py says which engine steps a look-ahead table)
    assert d["engine"] in ("native", "native and reference") and d["playouts_engine"] == "native"
    assert r.stdout.splitlines()[1] == engine_line(d["engine"], d["playouts_engine"])
    r = runner.invoke(app, ["analyze", SCHWIMMEN, "-n", "2", "--values", "winprob:2", "--json"])
    d = json.loads(r.stdout)
    assert (d["engine"], d["playouts_engine"]) == ("native", "native")
    r = runner.invoke(
        app, ["analyze", SCHWIMMEN, "-n", "2", "--values", "winprob:2", "--json", "--engine", "reference"]
    )
    d = json.loads(r.stdout)
    assert (d["engine"], d["playouts_engine"]) == ("reference", "native")


def test_a_game_says_what_played_its_players_playouts():
    g = recycle.load(SCHWIMMEN)
    python = [ISMCTSPlayer(5, playouts="reference")] + [RandomPlayer() for _ in range(g.nplayers - 1)]
    g.play(python, seed=3)
    assert game_playouts(python) == "reference"
    assert game_playouts([RandomPlayer()]) is None  # no look-ahead player: no playouts
    assert game_playouts([RandomPlayer()], None, values=4) == "reference"  # the values' own
    if available():
        machine = [ISMCTSPlayer(5)] + [RandomPlayer() for _ in range(g.nplayers - 1)]
        g.play(machine, seed=3)
        assert game_playouts(machine) == "native"
        assert game_playouts(machine + python) == "native and reference"


@native
def test_duplicate_says_which_engine_played():
    args = ["duplicate", SCHWIMMEN, "--players", "ismcts:5,random", "--deals", "1", "--no-progress"]
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    # a look-ahead player's games are stepped natively too (its seat searches from a blind copy)
    assert r.stdout.splitlines()[1] == "played by: native code (the games, their playouts and searches)"
    d = json.loads(runner.invoke(app, args + ["--json"]).stdout)
    assert (d["engine"], d["playouts_engine"]) == ("native", "native")
    # and random players' games
    r = runner.invoke(app, ["duplicate", SCHWIMMEN, "--players", "random", "--deals", "1", "--no-progress"])
    assert r.stdout.splitlines()[1] == "played by: native code"


@native
def test_analyze_information_says_which_engine_played(tmp_path):
    args = ["analyze", SCHWIMMEN, "--information", "-n", "1", "--skilled", "ismcts:4", "--seat", "0"]
    r = runner.invoke(app, args + ["--no-progress"])
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[1] == NATIVE_LINE
    d = json.loads(runner.invoke(app, args + ["--json"]).stdout)
    assert (d["engine"], d["playouts_engine"]) == ("reference", "native")
