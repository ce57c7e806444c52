"""Game records: `run --record` writes one, `replay` plays it back identically and reads it out."""

import json
import os
import shutil

import pytest

from typer.testing import CliRunner

import recycle
from recycle.cli import app
from recycle.players import make_players
from recycle.study.records import play_recorded, read_record, record_text, replay

from ..conftest import GAMES

runner = CliRunner()
SCHWIMMEN = str(GAMES / "schwimmen.rcy")


def test_run_record_then_replay_gives_the_same_transcript(tmp_path):
    out = tmp_path / "game.json"
    r = runner.invoke(app, ["run", SCHWIMMEN, "--seed", "7", "--players", "pimc:6,random", "--record", str(out)])
    assert r.exit_code == 0, r.output
    rec = json.loads(out.read_text())
    assert rec["format"] == "recycle-game-record" and rec["seed"] == 7
    assert rec["players"] == ["pimc:6", "random", "random", "random", "random"]
    assert rec["decisions"] and {"player", "chosen", "options", "description", "revealed"} <= set(rec["decisions"][0])
    assert rec["deal"]["HAND(P0)"] and len(rec["deal"]["HAND(P0)"]) == 3
    again = runner.invoke(app, ["replay", str(out), "--game-folder", str(GAMES)])  # the game is not beside it
    assert again.exit_code == 0, again.output
    # the replay prints the same transcript as the run (stderr carries the confirmation)
    assert again.stdout.splitlines() == r.stdout.splitlines()
    assert "replay identical to the record: deal #7" in again.stderr


def test_replay_text_is_a_readable_game_record(tmp_path):
    out = tmp_path / "game.json"
    assert runner.invoke(app, ["run", SCHWIMMEN, "--seed", "3", "--record", str(out)]).exit_code == 0
    rec = read_record(out)
    r = runner.invoke(app, ["replay", str(out), "--text", "--reveal", "--game-folder", str(GAMES)])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[1] == "Deal #3"
    assert lines[2] == "Players: P0 random, P1 random, P2 random, P3 random, P4 random"
    assert any(line.strip().startswith("HAND(P0)") for line in lines)
    assert sum(1 for line in lines if ". P" in line) == len(rec["decisions"])
    assert lines[-2].startswith("Final scores: P0 ")
    hidden = runner.invoke(app, ["replay", str(out), "--text", "--game-folder", str(GAMES)]).stdout
    assert "HAND(P0)" not in hidden  # the deal is shown only with --reveal


def test_replay_text_says_the_decisions_in_the_games_words_without_running_the_players(tmp_path, monkeypatch):
    """Issue 40.7: --text printed the options as raw forms, after running the recorded
    look-ahead players again (36-40 s for a Hearts record)."""
    out = tmp_path / "game.json"
    assert (
        runner.invoke(
            app, ["run", SCHWIMMEN, "--seed", "3", "--players", "pimc:4,random", "--record", str(out)]
        ).exit_code
        == 0
    )
    rec = read_record(out)
    run = runner.invoke(app, ["run", SCHWIMMEN, "--seed", "3", "--players", "pimc:4,random"]).stdout
    ran = []
    monkeypatch.setattr("recycle.players.make_player", lambda spec, *a, **k: ran.append(spec) or 1 / 0)
    r = runner.invoke(app, ["replay", str(out), "--text", "--game-folder", str(GAMES)])
    assert r.exit_code == 0, r.output
    assert ran == []  # no player was made: the recorded choices were played back
    plays = [line for line in r.stdout.splitlines() if ". P" in line]
    assert len(plays) == len(rec["decisions"])
    assert plays[0] == "   1. P0 [pimc:4] 2/2: pass"
    assert "swap a card from P1's HAND for " in r.stdout
    assert not any("(swap" in line or "(do" in line or "current player" in line for line in plays)
    assert "replay identical to the record: deal #3" in r.stderr
    # the words of a scripted replay are those of `recycle run`'s transcript
    said = [line.split(": ", 1)[1] for line in run.splitlines() if " chooses option " in line]
    assert [line.split(": ", 1)[1].removesuffix("  (forced)") for line in plays] == said


def test_a_tampered_record_is_reported(tmp_path):
    out = tmp_path / "game.json"
    assert runner.invoke(app, ["run", SCHWIMMEN, "--seed", "5", "--record", str(out)]).exit_code == 0
    rec = json.loads(out.read_text())
    first = next(d for d in rec["decisions"] if d["options"] > 1)
    first["chosen"] = (first["chosen"] + 1) % first["options"]
    out.write_text(json.dumps(rec))
    r = runner.invoke(app, ["replay", str(out), "--game-folder", str(GAMES)])
    assert r.exit_code == 1
    assert "replay differs: decision" in r.stderr


def test_not_a_record(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text('{"hello": 1}')
    r = runner.invoke(app, ["replay", str(bad)])
    assert r.exit_code == 2 and "not a recycle game record" in r.stderr


def test_replay_reproduces_ai_choices_by_running_the_players_again():
    g = recycle.load(SCHWIMMEN)
    players = make_players("ismcts:6,greedy:1,random", 5)
    result, rec = play_recorded(g, players, 21, "schwimmen.rcy", [p.name for p in players])
    rp = replay(rec, game_folder=GAMES)
    assert rp.identical, rp.problems
    assert replay(rec, scripted=True, game_folder=GAMES).identical
    assert rp.result.scores == result.scores and rp.result.winners == result.winners
    assert [d["chosen"] for d in rp.replayed["decisions"]] == [d["chosen"] for d in rec["decisions"]]
    text = record_text(rec)
    assert text[0].startswith("Game record: schwimmen") and "P0 ismcts:6" in text[2]


# -- records are checked, not trusted ------------------------------------------------------------


def recorded(tmp_path, seed=7, players="pimc:4,random"):
    out = tmp_path / "game.json"
    r = runner.invoke(app, ["run", SCHWIMMEN, "--seed", str(seed), "--players", players, "--record", str(out)])
    assert r.exit_code == 0, r.output
    return out, json.loads(out.read_text())


def replay_of(path, *extra):
    return runner.invoke(app, ["replay", str(path), "--game-folder", str(GAMES), *extra])


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda r: r.pop("decisions"), "'decisions' is a required property"),
        (lambda r: r.pop("seed"), "'seed' is a required property"),
        (lambda r: r.pop("source_sha256"), "'source_sha256' is a required property"),
        (lambda r: r.__setitem__("seed", "7"), "seed: '7' is not of type 'integer'"),
        (lambda r: r.__setitem__("seed", 7.0), "seed must be a whole number"),
        (lambda r: r.__setitem__("seed", True), "seed: True is not of type 'integer'"),
        (lambda r: r.__setitem__("players", "random"), "players: 'random' is not of type 'array'"),
        (lambda r: r["decisions"][0].__setitem__("chosen", "0"), "decisions/0/chosen: '0' is not of type 'integer'"),
        (lambda r: r["decisions"][0].pop("options"), "'options' is a required property"),
        (lambda r: r["decisions"][0].__setitem__("chosen", 5), "decision 1 chooses option 6 of"),
        (lambda r: r.__setitem__("game", 17), "game: 17 is not of type 'string'"),
        (lambda r: r.__setitem__("decisions", [[]]), "decisions/0: [] is not of type 'object'"),
    ],
)
def test_a_malformed_record_is_refused_with_what_is_wrong(tmp_path, edit, message):
    out, rec = recorded(tmp_path)
    edit(rec)
    out.write_text(json.dumps(rec))
    r = replay_of(out)
    assert r.exit_code == 2, r.output
    assert message in r.stderr and "Traceback" not in r.output


def test_a_record_of_the_earlier_generator_is_refused_in_one_line(tmp_path):
    """Version 1 records were dealt by Mersenne Twisters: their seeds deal other cards now."""
    out, rec = recorded(tmp_path)
    assert rec["version"] == 2
    rec["version"] = 1
    out.write_text(json.dumps(rec))
    r = replay_of(out)
    assert r.exit_code == 1, r.output
    assert "Traceback" not in r.output and len(r.stderr.strip().splitlines()) == 1
    assert "recorded with an earlier generator (recycle before the SplitMix generator)" in r.stderr
    assert "cannot be replayed" in r.stderr
    rec["version"] = 3  # a version never written is still just unsupported
    out.write_text(json.dumps(rec))
    r = replay_of(out)
    assert r.exit_code == 2 and "record version 3 is not supported (expected 2)" in r.stderr


def test_deep_nesting_and_special_files_are_refused(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text('{"format": "recycle-game-record", "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    r = replay_of(deep)
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert replay_of("/dev/zero").exit_code == 2
    assert "not a regular file" in replay_of("/dev/zero").stderr
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    r = replay_of(fifo)
    assert r.exit_code == 2 and "not a regular file" in r.stderr
    r = replay_of(tmp_path / "missing.json")
    assert r.exit_code == 2 and "cannot read game record" in r.stderr


@pytest.mark.parametrize(
    "edit",
    [
        lambda r: r.__setitem__("players", ["random"] * 5),  # pimc replaced by random
        lambda r: r.__setitem__("seed", -7),  # another deal
        lambda r: r.__setitem__("seed", 8),
    ],
)
def test_tampering_with_what_determines_the_game_does_not_replay(tmp_path, edit):
    out, rec = recorded(tmp_path)
    edit(rec)
    out.write_text(json.dumps(rec))
    r = replay_of(out)
    assert r.exit_code == 1, r.output
    assert "replay differs" in r.stderr


def test_players_must_fit_the_game(tmp_path):
    out, rec = recorded(tmp_path)
    rec["players"] = rec["players"][:3]
    out.write_text(json.dumps(rec))
    r = replay_of(out)
    assert r.exit_code == 1 and "the record lists 3 players for a game of 5" in r.stderr


def test_a_record_cannot_ask_for_a_player_that_never_finishes(tmp_path):
    # the 20,000-input fuzz run: a record naming ismcts:99999999 replayed for ever
    out, rec = recorded(tmp_path)
    rec["players"][0] = "ismcts:99999999"
    out.write_text(json.dumps(rec))
    r = replay_of(out)
    assert r.exit_code == 1, r.output
    assert "ismcts: the budget must be at most 100,000 iterations" in r.stderr


def test_another_game_file_is_refused_unless_forced(tmp_path):
    out, rec = recorded(tmp_path)
    rec["source_sha256"] = "0" * 64
    out.write_text(json.dumps(rec))
    r = replay_of(out)
    assert r.exit_code == 1 and "not the one recorded" in r.stderr and "--force" in r.stderr
    forced = replay_of(out, "--force")
    assert forced.exit_code == 0 and "not the one recorded (--force)" in forced.stderr


def test_the_game_is_found_relative_to_the_record(tmp_path, monkeypatch):
    shutil.copy(SCHWIMMEN, tmp_path / "schwimmen.rcy")
    out = tmp_path / "game.json"
    r = runner.invoke(app, ["run", str(tmp_path / "schwimmen.rcy"), "--seed", "7", "--record", str(out)])
    assert r.exit_code == 0, r.output
    assert json.loads(out.read_text())["game"] == "schwimmen.rcy"  # stored relative to the record's folder
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    r = runner.invoke(app, ["replay", str(out)])
    assert r.exit_code == 0, r.output
    moved = tmp_path / "sub"
    moved.mkdir()
    (moved / "game.json").write_text(out.read_text())
    r = runner.invoke(app, ["replay", str(moved / "game.json")])
    assert r.exit_code == 1 and "is not there" in r.stderr


def test_negative_seeds_deal_other_cards_than_positive_ones():
    g = recycle.load(SCHWIMMEN)
    assert g.new_state(seed=-1).locs != g.new_state(seed=1).locs
    assert g.new_state(seed=-1).locs == g.new_state(seed=-1).locs
