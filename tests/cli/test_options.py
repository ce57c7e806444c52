"""One CLI (issue 16): --players means the same everywhere, --num-players, --version,
``recycle players``, the step-limit warning of simulate, analyze on a game without decisions."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import recycle
from recycle.cli.main import app
from recycle.lang.reading.player_count import with_player_count
from recycle.lang.syntax.reader import parse_file, parse_text
from recycle.study.duplicate import duplicate

from ..conftest import CORPUS, GAMES, requires_corpus

runner = CliRunner()
EIGHTS = str(GAMES / "crazy-eights.rcy")


def test_version_and_player_kinds():
    r = runner.invoke(app, ["--version"])
    assert r.exit_code == 0 and r.output.strip() == f"recycle {recycle.__version__}"
    r = runner.invoke(app, ["players"])
    assert r.exit_code == 0
    lines = r.output.splitlines()
    for kind in ("random", "greedy", "pimc", "ismcts", "omniscient", "human"):
        assert any(line.startswith(f"{kind} ") for line in lines), kind
    assert "(budget 200 by default, ismcts:N sets it)" in r.output and "CHEATS" in r.output
    assert "the last one repeats" in r.output


@pytest.mark.parametrize("command", ["run", "simulate", "analyze", "duplicate"])
def test_every_command_says_the_players_rule(command):
    r = runner.invoke(app, [command, "--help"], terminal_width=400)
    assert "(the last one repeats" in " ".join(r.output.split())


def test_duplicate_seats_follow_the_same_rule():
    g = recycle.load(EIGHTS)
    d = duplicate(g, ["greedy:1", "random"], deals=2, seed=1)
    rows = {row["player"]: row for row in d["players"]}
    # greedy, random, random over 3 rotations: greedy sits 1 seat of 3 in every game
    assert rows["greedy:1"]["seat_games"] == 6 and rows["random"]["seat_games"] == 12


def test_num_players_sets_a_declared_count_and_a_literal():
    r = runner.invoke(app, ["simulate", EIGHTS, "-p", "5", "-n", "20", "--json"])
    assert r.exit_code == 0
    import json

    assert len(json.loads(r.output)["win_rate"]) == 5
    r = runner.invoke(app, ["run", str(GAMES / "oh-hell.rcy"), "--num-players", "3", "--seed", "2"])
    assert r.exit_code == 0 and r.output.startswith("oh-hell: 3 players, seed 2")
    # the rules that read the declared count follow it: 7 cards each with two players
    g = recycle.engine.game.PreparedGame(with_player_count(parse_file(EIGHTS), 2))
    s = g.new_state(seed=1)
    assert g.nplayers == 2 and [len(s.location(p, "iloc", "HAND")) for p in range(2)] == [7, 7]
    src = parse_text(
        "(game (setup (create players 3) (create deck (game iloc S) (deck (R (A, B)))))"
        " (do ((shuffle (game iloc S)))) (scoring max 0))",
        "lit.rcy",
    )
    assert recycle.engine.game.PreparedGame(with_player_count(src, 6)).nplayers == 6


def test_num_players_says_where_it_cannot(tmp_path):
    game = tmp_path / "computed.rcy"
    game.write_text(
        "(game (setup (create players (+ 1 1)) (create deck (game iloc S) (deck (R (A, B)))))\n"
        " (do ((shuffle (game iloc S)))) (scoring max 0))\n"
    )
    r = runner.invoke(app, ["run", str(game), "-p", "3"])
    assert r.exit_code == 1
    assert (
        f"{game}:1:30: error: cannot set the number of players of {game}: (create players ...) computes it" in r.output
    )
    r = runner.invoke(app, ["run", EIGHTS, "-p", "3", "--record", str(tmp_path / "r.json")])
    assert r.exit_code == 2 and "cannot be used with --num-players" in r.output


@requires_corpus()
def test_num_players_refuses_listed_teams():
    r = runner.invoke(app, ["simulate", str(CORPUS / "Whist4.rcy"), "-p", "3", "-n", "2"])
    assert r.exit_code == 1 and "its teams are listed in (create teams ...)" in r.output


def test_simulate_warns_of_the_step_limit_and_of_no_finished_game(tmp_path):
    loop = tmp_path / "loop.rcy"
    loop.write_text(
        "(game (setup (create players 2) (create deck (game iloc S) (deck (R (A)))))\n"
        " (stage player (end (== 1 2)) (choice ((turn pass))))\n (scoring max 0))\n"
    )
    r = runner.invoke(app, ["simulate", str(loop), "-n", "4", "--max-steps", "50"])
    assert r.exit_code == 0
    assert "warning: 4 of 4 games hit the step limit: a game that never ends?" in r.output
    assert "statistics over 0 of 4 games: 4 hit the step limit" in r.output
    assert "no game finished: no win rates or scores to report" in r.output and "seat  win rate" not in r.output


def test_analyze_a_game_without_decisions():
    import recycle
    from recycle.study.analysis import analyze

    g = recycle.load(GAMES / "war.rcy")
    # rounds are the passes of the outermost stage: War's battles, told by its BATTLES storage
    battles = [g.play(seed=s).state for s in range(3)]
    slot = g.layout.storage_slot("sto", "game", "BATTLES")
    assert all(st.rounds == st.ints[slot] > 0 for st in battles)
    a = analyze(g, 4, 1, ["random"]).to_dict()
    L = a["length"]
    assert L["decisions"]["max"] == 0 and L["rounds"]["min"] > 0 and L["steps"]["min"] >= L["rounds"]["min"]
    r = runner.invoke(app, ["analyze", str(GAMES / "war.rcy"), "-n", "4", "--seed", "1"])
    assert r.exit_code == 0
    assert f"length: no decisions (the game plays itself); {L['rounds']['mean']:.1f} rounds" in r.output
    assert "who leads: not measured" in r.output and "settled at" not in r.output
    assert "analysing war: 4 games (random,random)" in r.output


def test_analyze_says_what_it_will_play():
    r = runner.invoke(
        app,
        [
            "analyze",
            str(GAMES / "schwimmen.rcy"),
            "-n",
            "3",
            "--values",
            "winprob:2",
            "--skilled",
            "greedy:1",
            "--skill-games",
            "2",
        ],
    )
    assert r.exit_code == 0, r.output
    assert (
        "analysing schwimmen: 3 games (random,random,random,random,random); 2 playouts after every "
        "decision for the win probabilities; 2 games with greedy:1 in each seat in turn"
    ) in r.output


def test_run_shows_options_in_words():
    r = runner.invoke(app, ["run", EIGHTS, "--seed", "1"])
    assert "[2] P1 chooses option 2 of 4: move a card from P1's HAND to DISCARD; set SUIT to DIAMONDS" in r.output
    r = runner.invoke(app, ["run", EIGHTS, "--seed", "1", "--reveal"])
    assert "[2] P1 chooses option 2 of 4: move 8♥ from P1's HAND to DISCARD; set SUIT to DIAMONDS" in r.output


@pytest.mark.parametrize(
    "args",
    [
        ["duplicate", str(GAMES / "schwimmen.rcy"), "--players", "human,random", "--deals", "2"],
        ["analyze", str(GAMES / "schwimmen.rcy"), "-n", "2", "--skilled", "human"],
        ["simulate", str(GAMES / "schwimmen.rcy"), "-n", "2", "--players", "random,human"],
    ],
)
def test_commands_of_many_games_refuse_a_person(args):
    r = runner.invoke(app, args)
    assert r.exit_code == 2, r.output
    assert "a person plays one game at a time: `recycle play`" in r.output
