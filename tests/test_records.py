"""Game records: `run --record` writes one, `replay` plays it back identically and reads it out."""

import json

from typer.testing import CliRunner

import recycle
from recycle.cli import app
from recycle.players import make_players
from recycle.study.records import play_recorded, read_record, record_text, replay

from .conftest import GAMES

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
    again = runner.invoke(app, ["replay", str(out)])
    assert again.exit_code == 0, again.output
    # the replay prints the same transcript as the run (stderr carries the confirmation)
    assert again.stdout.splitlines() == r.stdout.splitlines()
    assert "replay identical to the record: deal #7" in again.stderr


def test_replay_text_is_a_readable_game_record(tmp_path):
    out = tmp_path / "game.json"
    assert runner.invoke(app, ["run", SCHWIMMEN, "--seed", "3", "--record", str(out)]).exit_code == 0
    rec = read_record(out)
    r = runner.invoke(app, ["replay", str(out), "--text", "--reveal"])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[1] == "Deal #3"
    assert lines[2] == "Players: P0 random, P1 random, P2 random, P3 random, P4 random"
    assert any(line.strip().startswith("HAND(P0)") for line in lines)
    assert sum(1 for line in lines if ". P" in line) == len(rec["decisions"])
    assert lines[-2].startswith("Final scores: P0 ")
    hidden = runner.invoke(app, ["replay", str(out), "--text"]).stdout
    assert "HAND(P0)" not in hidden  # the deal is shown only with --reveal


def test_a_tampered_record_is_reported(tmp_path):
    out = tmp_path / "game.json"
    assert runner.invoke(app, ["run", SCHWIMMEN, "--seed", "5", "--record", str(out)]).exit_code == 0
    rec = json.loads(out.read_text())
    first = next(d for d in rec["decisions"] if d["options"] > 1)
    first["chosen"] = (first["chosen"] + 1) % first["options"]
    out.write_text(json.dumps(rec))
    r = runner.invoke(app, ["replay", str(out)])
    assert r.exit_code == 1
    assert "replay differs: decision" in r.stderr


def test_not_a_record(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text('{"hello": 1}')
    r = runner.invoke(app, ["replay", str(bad)])
    assert r.exit_code == 2 and "not a recycle game record" in r.stderr


def test_replay_reproduces_ai_choices_without_running_the_ai():
    g = recycle.load(SCHWIMMEN)
    players = make_players("ismcts:6,greedy:1,random", 5)
    result, rec = play_recorded(g, players, 21, SCHWIMMEN, [p.name for p in players])
    rp = replay(rec)
    assert rp.identical, rp.problems
    assert rp.result.scores == result.scores and rp.result.winners == result.winners
    assert [d["chosen"] for d in rp.replayed["decisions"]] == [d["chosen"] for d in rec["decisions"]]
    text = record_text(rec)
    assert text[0].startswith("Game record: schwimmen") and "P0 ismcts:6" in text[2]
