"""The command line under hostile or careless use: bad numbers, unwritable outputs, time
limits, encodings that cannot show suits — a clear message and status, never a traceback."""

import errno
import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from recycle.cli import app

from ..conftest import GAMES

runner = CliRunner()
SCHWIMMEN = str(GAMES / "schwimmen.rcy")
HEARTS = str(GAMES / "hearts.rcy")


def run(*args):
    r = runner.invoke(app, [str(a) for a in args])
    assert "Traceback" not in r.output
    return r


@pytest.mark.parametrize(
    "args, message",
    [
        (["simulate", SCHWIMMEN, "-n", "-5"], "'-n' / '--games'"),
        (["simulate", SCHWIMMEN, "-n", "0"], "'-n' / '--games'"),
        (["simulate", SCHWIMMEN, "--max-steps", "0"], "'--max-steps'"),
        (["run", SCHWIMMEN, "--max-steps", "-1"], "'--max-steps'"),
        (["simulate", SCHWIMMEN, "--workers", "65"], "'--workers'"),
        (["duplicate", SCHWIMMEN, "--players", "random", "--deals", "-1"], "'--deals'"),
        (["graph", SCHWIMMEN, "--rollouts", "0"], "'--rollouts'"),
        (["simulate", SCHWIMMEN, "--timeout", "-1"], "'--timeout'"),
    ],
)
def test_numbers_out_of_range_are_refused(args, message):
    r = run(*args)
    assert r.exit_code == 2 and message in r.output


def test_a_huge_simulation_streams_and_stops_at_its_time_limit():
    r = run("simulate", HEARTS, "-n", 10**12, "--workers", 2, "--timeout", 1, "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["games"] == 10**12 and 1 <= d["played"] < 10**6
    again = run("simulate", HEARTS, "-n", 10**12, "--timeout", 0.5)
    assert again.exit_code == 0 and "stopped by the time limit after" in again.stdout


def test_time_limits_stop_cleanly_with_the_results_so_far(tmp_path):
    r = run("run", HEARTS, "--timeout", 0)
    assert r.exit_code == 1
    assert "time limit: the game was stopped after 0 s (--timeout), at decision 1" in r.output
    assert r.output.startswith("hearts: 4 players, seed 0")  # the transcript so far
    g = run("graph", SCHWIMMEN, "--rollouts", 50, "--timeout", 0, "--json", tmp_path / "g.json")
    assert g.exit_code == 0 and "stopped by the time limit after 1 of 50 rollouts" in g.output
    assert json.loads((tmp_path / "g.json").read_text())["graph"]["played"] == 1
    for args in (
        ["analyze", SCHWIMMEN, "-n", 50, "--timeout", 0],
        ["duplicate", SCHWIMMEN, "--players", "random", "--deals", 5, "--timeout", 0],
    ):
        r = run(*args)
        assert r.exit_code == 1 and "the time limit ended before" in r.output


def test_the_step_limit_is_reported_beside_the_statistics():
    r = run("simulate", SCHWIMMEN, "-n", 20, "--max-steps", 12)
    assert r.exit_code == 0
    hits = int(next(line for line in r.stdout.splitlines() if "hit the step limit:" in line).split()[-1])
    assert hits > 0
    assert f"statistics over {20 - hits} of 20 games: {hits} hit the step limit" in r.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["graph", SCHWIMMEN, "--json", "{tmp}/missing/g.json"], "the folder {tmp}/missing does not exist"),
        (["graph", SCHWIMMEN, "--json", "{tmp}"], "cannot write the JSON file {tmp}: it is a folder"),
        (["graph", SCHWIMMEN, "-o", "{tmp}/missing/g.svg"], "the folder {tmp}/missing does not exist"),
        (["tree", SCHWIMMEN, "-o", "{tmp}/missing/t.svg"], "the folder {tmp}/missing does not exist"),
        (
            ["analyze", SCHWIMMEN, "-n", "3", "--games-csv", "{tmp}/missing/a.csv"],
            "the folder {tmp}/missing does not exist",
        ),
        (["analyze", SCHWIMMEN, "-n", "3", "--plots", "{tmp}/file.txt"], "it is a file, not a folder"),
        (["run", SCHWIMMEN, "--record", "{tmp}"], "cannot write the game record {tmp}: it is a folder"),
    ],
)
def test_unwritable_outputs_are_refused_before_any_game(tmp_path, args, message):
    (tmp_path / "file.txt").write_text("x")
    r = run(*[a.format(tmp=tmp_path) for a in args])
    assert r.exit_code == 2, r.output
    assert message.format(tmp=tmp_path) in r.output
    assert "rollouts" not in r.output and "analysing" not in r.output


def test_a_write_that_fails_midway_is_a_message(tmp_path, monkeypatch):
    import builtins

    real_open = builtins.open

    def full(path, mode="r", *a, **k):
        if "w" in mode and str(path).endswith(".json"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_open(path, mode, *a, **k)

    monkeypatch.setattr(builtins, "open", full)
    r = run("graph", SCHWIMMEN, "--json", tmp_path / "g.json")
    assert r.exit_code == 1 and f"cannot write {tmp_path / 'g.json'}: No space left on device" in r.output


@pytest.mark.parametrize("encoding", ["latin-1", "ascii"])
def test_an_output_that_cannot_show_suits_gets_ascii_card_names(encoding):
    env = dict(os.environ, PYTHONIOENCODING=encoding)
    p = subprocess.run(
        [sys.executable, "-m", "recycle", "run", HEARTS, "--seed", "1", "--reveal"],
        capture_output=True,
        env=env,
        timeout=120,
    )
    out = p.stdout.decode(encoding)
    assert p.returncode == 0, p.stderr.decode(encoding, "replace")
    assert "Traceback" not in p.stderr.decode(encoding, "replace")
    assert "HAND(P0) -> PASS(P0): " in out or "-> " in out
    assert any(name in out for name in ("2C", "QS", "10H"))


# -- --max-work: the work budget of each game, on every command that plays games ------------------

WORK = """(game (setup (create players 2) (create deck (game iloc STOCK) (deck (RANK (A, B, C)) (SUIT (X, Y)))))
 (do ((repeat 20000 (inc (game sto X)))))
 (scoring max (game sto X)))
"""
OUT_OF_WORK = (
    "step limit: the game did more than its limit of 5,000 units of work (loop iterations, cards and "
    "options handled); raise max_work (--max-work) if it is meant to"
)


def test_max_work_stops_a_game_with_a_clear_message_and_a_larger_one_lets_it_finish(tmp_path):
    path = tmp_path / "work.rcy"
    path.write_text(WORK)
    r = run("run", path, "--max-work", 5000)
    assert r.exit_code == 1
    assert f"{path}:2:7: {OUT_OF_WORK}" in r.output and "in the form (repeat ...)" in r.output
    r = run("run", path, "--max-work", 50_000)
    assert r.exit_code == 0 and "Final scores: P0 20000, P1 20000" in r.output
    for bad in (0, -3, "x"):
        r = run("run", path, "--max-work", bad)
        assert r.exit_code == 2 and "'--max-work'" in r.output


@pytest.mark.parametrize("workers", [1, 2])
def test_max_work_reaches_every_game_of_a_simulation(tmp_path, workers):
    path = tmp_path / "work.rcy"
    path.write_text(WORK)
    for max_work, hits in ((5000, 6), (50_000, 0)):
        r = run("simulate", path, "-n", 6, "--max-work", max_work, "--workers", workers, "--json")
        assert r.exit_code == 0, r.output
        d = json.loads(r.stdout)
        assert d["step_limit_hits"] == hits and d["finished"] == 6 - hits, (max_work, d)


def test_max_work_on_analyze_duplicate_graph_and_check(tmp_path):
    path = tmp_path / "work.rcy"
    path.write_text(WORK)
    r = run("analyze", path, "-n", 3, "--max-work", 5000, "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["step_limit_hits"] == 3
    r = run("analyze", path, "-n", 3, "--max-work", 50_000, "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["step_limit_hits"] == 0
    r = run("duplicate", path, "--players", "random", "--deals", 2, "--max-work", 5000)
    assert r.exit_code == 0 and "2 deals left out: a game hit the step limit" in r.output
    r = run("graph", path, "--max-work", 5000)
    assert r.exit_code == 0 and "1 of 1 rollouts hit the step limit" in r.output
    r = run("check", path, "--max-work", 5)  # the setup, run once to make the cards, within the budget
    assert r.exit_code == 0 and ": ok — 2 players" in r.output


def test_a_record_keeps_its_work_budget_and_replay_can_change_it(tmp_path):
    rec = tmp_path / "game.json"
    r = run("run", SCHWIMMEN, "--seed", 3, "--max-work", 2_000_000, "--record", rec)
    assert r.exit_code == 0, r.output
    assert json.loads(rec.read_text())["max_work"] == 2_000_000
    folder = GAMES  # the game is not beside the record: its folder is named
    r = run("replay", rec, "--game-folder", folder)
    assert r.exit_code == 0 and "replay identical to the record" in r.output
    r = run("replay", rec, "--max-work", 300, "--game-folder", folder)
    assert r.exit_code == 1 and "units of work" in r.output and "300 units" in r.output
    plain = tmp_path / "plain.json"
    assert run("run", SCHWIMMEN, "--seed", 3, "--record", plain).exit_code == 0
    assert "max_work" not in json.loads(plain.read_text())  # the default budget is not written
