"""``PreparedGame.play(engine=...)``, the default path of ``recycle run``, records and their replay
and evolve's trial games (issue 42, requirements 4 and 6): native code steps the game wherever it
builds, and the game is the reference interpreter's to the letter: scores, ranks, winners, the
counters, every event, every decision in words, the record written, the exact error of a rule
broken. recycle/native/choose.py decides which engine plays, once, for every caller."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("numpy", reason="the native extra is not installed (pip install -e '.[native]'): no numpy")

import recycle
from recycle.errors import RecycleError
from recycle.native import available
from recycle.native.choose import engine_for, start_play
from recycle.players import make_player
from recycle.study.records import play_recorded, replay

from ..conftest import GAMES, tiny

pytestmark = pytest.mark.skipif(not available(), reason="the native engine needs NumPy and a C compiler")

# short games of different shapes (a trick game, a draw-and-discard race, a bet, simultaneous play)
PLAYED = ("schwimmen", "golf-six", "crazy-eights", "oh-hell", "war")


def _outcome(r) -> tuple:
    choices = [(d.index, d.player, d.chosen, d.options, d.description) for d in r.choices]
    return (r.scores, r.ranks, r.winners, r.decisions, r.options_total, r.steps, r.events, choices)


@pytest.mark.parametrize("name", PLAYED)
def test_a_watched_game_is_the_same_game_natively(name):
    game = recycle.load(GAMES / f"{name}.rcy")
    for seed in range(3):
        want = game.play(seed=seed, record=True, describe=True, reveal=True)
        got = game.play(seed=seed, record=True, describe=True, reveal=True, engine="native")
        assert want.engine == "reference" and got.engine == "native"
        assert _outcome(got) == _outcome(want), (name, seed)


@pytest.mark.parametrize("name", PLAYED)
def test_an_unwatched_game_of_random_players_steps_without_its_twin(name):
    game = recycle.load(GAMES / f"{name}.rcy")
    for seed in range(6):
        want = game.play(seed=seed)
        got = game.play(seed=seed, engine="auto")
        assert got.engine == "native"
        assert got.state._twin is None  # (native code alone: no reference twin was made)
        assert (got.scores, got.decisions, got.options_total, got.steps) == (
            want.scores,
            want.decisions,
            want.options_total,
            want.steps,
        )


def test_a_look_ahead_player_s_game_is_stepped_natively_and_its_playouts_are_native():
    # a native table hands a look-ahead player a blind copy whose worlds native code plays out
    # from the table's own block (recycle/native/blind.py): "auto" steps such a game natively
    game = recycle.load(GAMES / "schwimmen.rcy")
    players = [make_player("pimc:4")] + [make_player("random") for _ in range(4)]
    r = game.play(players, seed=3, engine="auto")
    assert r.engine == "native"
    assert players[0].playouts_used == {"native"}
    assert start_play(game, 3, 1000, None, None, True, "auto", players) is not None


def test_a_rule_broken_natively_gives_the_reference_message_and_transcript():
    game = tiny(
        """(stage player (end (== 0 (size (game iloc STOCK))))
  (choice ((move (top (game iloc STOCK)) (top ((current player) iloc HAND)))
           (repeat 4 (move (top (game iloc STOCK)) (top ((current player) iloc HAND)))))))"""
    )
    greedy = [recycle.ScriptedPlayer([1, 1, 1])] * 2
    with pytest.raises(RecycleError) as want:
        game.play(greedy, seed=1, record=True)
    greedy = [recycle.ScriptedPlayer([1, 1, 1])] * 2
    with pytest.raises(RecycleError) as got:
        game.play(greedy, seed=1, record=True, engine="native")
    assert str(got.value) == str(want.value)
    assert got.value.partial.engine == "reference"  # (handed to the reference interpreter)
    assert _outcome(got.value.partial)[3:] == _outcome(want.value.partial)[3:]


def test_a_record_is_the_same_whichever_engine_plays_it_and_replays_natively(tmp_path):
    game = recycle.load(GAMES / "crazy-eights.rcy")
    specs = ["random"] * game.nplayers
    path = GAMES / "crazy-eights.rcy"
    records = {}
    for engine in ("reference", "native"):
        players = [make_player(s) for s in specs]
        result, records[engine] = play_recorded(game, players, 5, path, specs, describe=True, engine=engine)
        assert result.engine == engine
    assert records["native"] == records["reference"]
    again = replay(records["reference"], game=game)
    assert again.identical and again.result.engine == "native"
    assert replay(records["native"], game=game, engine="reference").identical


def test_the_engine_of_a_run_of_games_is_chosen_in_one_place():
    game = recycle.load(GAMES / "schwimmen.rcy")
    randoms = [recycle.RandomPlayer()] * game.nplayers
    assert engine_for(game, randoms) == ("native", None)
    assert engine_for(game, randoms, "reference") == ("reference", None)
    greedy = [make_player("greedy")] * game.nplayers
    assert engine_for(game, greedy, "native") == ("reference", "the native engine plays random players only")
    with pytest.raises(ValueError, match="engine must be one of auto, native, reference, not 'fast'"):
        engine_for(game, randoms, "fast")


def test_recycle_run_says_which_engine_played():
    from typer.testing import CliRunner

    from recycle.cli.main import app

    runner = CliRunner()
    game = str(GAMES / "schwimmen.rcy")
    native = runner.invoke(app, ["run", game, "--seed", "7"])
    reference = runner.invoke(app, ["run", game, "--seed", "7", "--engine", "reference"])
    assert native.exit_code == 0 and reference.exit_code == 0, native.output + reference.output
    assert native.stdout.splitlines()[-1] == "played by: native code"
    assert reference.stdout.splitlines()[-1] == "played by: the reference interpreter"
    assert native.stdout.splitlines()[:-1] == reference.stdout.splitlines()[:-1]
    got = json.loads(runner.invoke(app, ["run", game, "--seed", "7", "--json"]).stdout)
    want = json.loads(runner.invoke(app, ["run", game, "--seed", "7", "--json", "--engine", "reference"]).stdout)
    assert (got.pop("engine"), want.pop("engine")) == ("native", "reference")
    assert got == want
    searched = json.loads(
        runner.invoke(app, ["run", game, "--seed", "7", "--json", "--players", "pimc:3,random"]).stdout
    )
    assert (searched["engine"], searched["playouts_engine"]) == ("native", "native")
    bad = runner.invoke(app, ["run", game, "--engine", "python"])
    assert bad.exit_code == 2 and "the engine 'python' is retired" in bad.stderr


def test_a_campaign_chunk_of_random_players_is_the_same_natively(monkeypatch):
    from recycle.study.campaign import job

    text = (GAMES / "golf-six.rcy").read_text()
    task = job.ChunkTask(
        "golf-six", "base", "random", 0, 11, 0, 40, "golf-six.rcy", text, (), "random", 100_000, None, False
    )
    native = job.run_chunk(task)
    assert len(job.native_rows(job.compiled(task), task)) == 40  # (every game finished natively)
    monkeypatch.setattr("recycle.native.choose.native_here", lambda: False)
    monkeypatch.setattr("recycle.native.available", lambda: False)
    reference = job.run_chunk(task)
    assert job.native_rows(job.compiled(task), task) == {}
    assert native.error is None and reference.error is None
    assert native.columns == reference.columns


def test_auto_says_once_why_a_game_native_code_does_not_write_plays_on_the_reference_interpreter(monkeypatch, capsys):
    from recycle.native import NativeUnsupported

    def unwritten(*args, **kwargs):
        raise NativeUnsupported("(a form of this test only)")

    monkeypatch.setattr("recycle.native.outside.start_outside", unwritten)
    game = recycle.load(GAMES / "golf-six.rcy")
    assert [game.play(seed=s, engine="auto").engine for s in range(3)] == ["reference"] * 3
    err = capsys.readouterr().err
    assert err == (
        "recycle: golf-six is played by the reference interpreter: "
        "the native engine does not write (a form of this test only)\n"
    )
    with pytest.raises(NativeUnsupported):
        game.play(seed=1, engine="native")


def test_evolve_says_its_look_ahead_players_playouts_are_native(tmp_path):
    from recycle.study.evolve import evolve

    r = evolve(GAMES / "golf-six.rcy", generations=0, population=1, games=2, seed=1, specs=["pimc:2"])
    # (the traced games of look-ahead players too: a native table, whose twin the trace reads)
    assert (r.engine, r.playouts_engine) == ("native", "native")


def test_duplicate_steps_random_players_games_natively_and_says_so():
    from recycle.study.duplicate import duplicate
    from recycle.study.engine_use import engine_line_of

    game = recycle.load(GAMES / "golf-six.rcy")
    got = duplicate(game, ["random", "random"], deals=3, seed=2)
    assert (got["engine"], got["playouts_engine"]) == ("native", None)
    assert engine_line_of(got) == "played by: native code"
    mixed = duplicate(game, ["pimc:2", "random"], deals=1, seed=2)
    assert (mixed["engine"], mixed["playouts_engine"]) == ("native", "native")
    # the same games either way: the random players' figures are the reference interpreter's
    from recycle.study import analysis

    for d in range(3):
        seed = recycle.engine.game.rollout_seed(2, d)
        native = analysis._played(game, ["random"] * game.nplayers, seed)
        assert native[4] == "native"
        reference = game.play([recycle.RandomPlayer()] * game.nplayers, seed=seed)
        assert (native[0], native[1]) == (reference.scores, reference.winners)


def test_a_ladder_says_which_engine_played_its_games_and_their_playouts():
    from recycle.study.ladder import ladder_lines, run_ladder

    game = recycle.load(GAMES / "golf-six.rcy")
    lad = run_ladder(game, ["random", "pimc:2"], games=4, seed=1)
    assert (lad.engine, lad.playouts_engine) == ("native", "native")
    assert ladder_lines(lad)[-1] == "played by: native code (the games, their playouts and searches)"
    assert lad.to_dict()["engine"] == "native"
