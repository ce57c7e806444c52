"""A game with a look-ahead player at the table is stepped natively by default (issue 42: "the
default path everywhere"): ``recycle run``, records, ``duplicate`` and ``ladder`` say ``played
by: native code`` and give, for a fixed seed, the reference interpreter's transcript, JSON,
record and figures byte for byte. Its seats get blind copies (recycle/native/worlds.py) whose
worlds are played out from the table's block, and an ISMCTS seat searches whole from it
(recycle/native/blind_search.py); a cheating seat gets the twin's live observation, as the
reference engine hands it the live state. Games with a simultaneous stage stay on the reference
interpreter (recycle/native/choose.py, ``blind_serves``)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("numpy", reason="the native extra is not installed (pip install -e '.[native]'): no numpy")

import recycle
from recycle.native import available
from recycle.native.choose import start_play
from recycle.players import make_player
from recycle.study.records import play_recorded

from ..conftest import GAMES

pytestmark = pytest.mark.skipif(not available(), reason="the native engine needs NumPy and a C compiler")

NATIVE = "played by: native code (the games, their playouts and searches)"
REFERENCE = "played by: the reference interpreter (the games), native code (their playouts and searches)"


def _run(*args: str):
    from typer.testing import CliRunner

    from recycle.cli.main import app

    got = CliRunner().invoke(app, ["run", *args])
    assert got.exit_code == 0, got.output
    return got.stdout


@pytest.mark.parametrize(
    "name,players,seed",
    [
        ("hearts", "ismcts:16,random,pimc:8,random", 3),
        ("schwimmen", "ismcts:40,pimc:30,random", 7),
    ],
)
def test_recycle_run_with_look_ahead_players_is_native_and_the_reference_s_transcript(name, players, seed):
    game = str(GAMES / f"{name}.rcy")
    native = _run(game, "--players", players, "--seed", str(seed))
    reference = _run(game, "--players", players, "--seed", str(seed), "--engine", "reference")
    assert native.splitlines()[-1] == NATIVE
    assert reference.splitlines()[-1] == REFERENCE
    assert native.splitlines()[:-1] == reference.splitlines()[:-1]
    if name == "hearts":
        return  # (a long game: its JSON is the transcript's figures, which Schwimmen's checks)
    got = json.loads(_run(game, "--players", players, "--seed", str(seed), "--json"))
    want = json.loads(_run(game, "--players", players, "--seed", str(seed), "--json", "--engine", "reference"))
    assert (got.pop("engine"), want.pop("engine")) == ("native", "reference")
    assert got == want


def test_a_record_with_look_ahead_players_is_the_same_byte_for_byte():
    path = GAMES / "schwimmen.rcy"
    game = recycle.load(path)
    specs = ["ismcts:20", "pimc:12", "random", "random", "random"]
    records = {}
    for engine in ("reference", "auto"):
        players = [make_player(s) for s in specs]
        result, records[engine] = play_recorded(game, players, 4, path, specs, describe=True, engine=engine)
        assert result.engine == ("native" if engine == "auto" else "reference")
    assert records["auto"] == records["reference"]


def test_duplicate_and_ladder_step_look_ahead_games_natively_with_the_reference_figures(monkeypatch):
    from recycle.study.duplicate import duplicate
    from recycle.study.ladder import run_ladder

    game = recycle.load(GAMES / "schwimmen.rcy")
    dup = duplicate(game, ["ismcts:12", "random"], deals=2, seed=5)
    lad = run_ladder(game, ["random", "pimc:6", "ismcts:6"], games=3, seed=1)
    assert (dup["engine"], lad.engine) == ("native", "native")
    monkeypatch.setattr("recycle.native.choose.native_here", lambda: False)  # (the games on the reference)
    dup_ref = duplicate(game, ["ismcts:12", "random"], deals=2, seed=5)
    lad_ref = run_ladder(game, ["random", "pimc:6", "ismcts:6"], games=3, seed=1)
    assert (dup_ref["engine"], lad_ref.engine) == ("reference", "reference")
    apart = {"engine": None, "seconds": None}  # (what played them, and how long it took)
    assert {**dup, **apart} == {**dup_ref, **apart}
    assert {**lad.to_dict(), **apart} == {**lad_ref.to_dict(), **apart}


def test_a_simultaneous_stage_keeps_the_reference_table():
    """A simultaneous stage keeps the others' pending picks in the native block: its seats'
    worlds would be played in Python at a native table (the same decisions, more slowly)."""
    goof = recycle.load(GAMES / "goofspiel.rcy")
    players = [make_player("pimc:4")] + [make_player("random") for _ in range(goof.nplayers - 1)]
    assert start_play(goof, 3, 1000, None, None, False, "auto", players) is None
    assert start_play(goof, 3, 1000, None, None, False, "native", players) is not None


@pytest.mark.parametrize("cheat", ["omniscient", "revealing"])
def test_a_cheating_player_sees_the_true_cards_at_a_native_table_as_on_the_reference(cheat):
    """The omniscient player and the one seeing a location read the true cards of the live state:
    a native table hands them the twin's live observation (a blind copy would show them sorted
    cards), so the game is the reference's: the same decisions, values and visit counts (once
    another game: ``--engine native`` played them on blind copies)."""
    from recycle.engine.runner import consult
    from recycle.players.lookahead import OmniscientPlayer, RevealingPlayer
    from recycle.streams import Stream

    game = recycle.load(GAMES / "schwimmen.rcy")

    def make():
        return OmniscientPlayer(20) if cheat == "omniscient" else RevealingPlayer(20, reveal=(5,))

    for seed in (2, 4):
        players = [make()] + [recycle.RandomPlayer()] * (game.nplayers - 1)
        table = start_play(game, seed, 100_000, None, None, False, "auto", players)
        assert table is not None and table.engine == "native"
        ref, theirs, mine = game.new_state(seed), make(), make()
        while not ref.is_terminal():
            if ref.num_options() == 1:
                ref.apply(0)
                table.apply(0)
                continue
            p = ref.current_player()
            a = consult(theirs, ref, p, ref.legal_options(), Stream(seed * 1000 + ref.decisions))
            b = consult(mine, table, p, table.legal_options(), Stream(seed * 1000 + ref.decisions))
            assert (a, theirs.last_values, theirs.last_visits) == (b, mine.last_values, mine.last_visits)
            ref.apply(a)
            table.apply(b)
        assert table.returns() == ref.returns()
    got = game.play([make()] + [recycle.RandomPlayer()] * (game.nplayers - 1), seed=4, engine="auto")
    want = game.play([make()] + [recycle.RandomPlayer()] * (game.nplayers - 1), seed=4)
    assert (got.engine, want.engine) == ("native", "reference")
    assert (got.scores, got.decisions, got.steps) == (want.scores, want.decisions, want.steps)


def test_a_searching_table_waits_for_the_optimised_library_on_a_cold_cache(tmp_path, monkeypatch):
    """A native table's blocks run only in the library that started it: on a cold cache a table
    with an ISMCTS seat is dealt once the search module's optimised build is in place (else its
    searches would run in the fast build's code for the whole game)."""
    from recycle.native import native_game

    from ..players.test_native_search import keyed_game

    monkeypatch.setenv("RECYCLE_CACHE_DIR", str(tmp_path))  # (nothing built yet)
    game = keyed_game()
    players = [make_player("ismcts:4")] + [recycle.RandomPlayer()] * (game.nplayers - 1)
    table = start_play(game, 1, 1000, None, None, False, "auto", players)
    games = native_game(game, True).module.games
    assert games.ready.is_set()
    assert table._ns._runner.lib is games.lib  # (the best library loaded: gcc's where there is one)
