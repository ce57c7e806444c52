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

from .conftest import GAMES

runner = CliRunner()
SCHWIMMEN = str(GAMES / "schwimmen.rcy")
HEARTS = str(GAMES / "hearts.rcy")


def run(*args):
    r = runner.invoke(app, [str(a) for a in args])
    assert "Traceback" not in r.output
    return r


@pytest.mark.parametrize("args, message", [
    (["simulate", SCHWIMMEN, "-n", "-5"], "'-n' / '--games'"),
    (["simulate", SCHWIMMEN, "-n", "0"], "'-n' / '--games'"),
    (["simulate", SCHWIMMEN, "--max-steps", "0"], "'--max-steps'"),
    (["run", SCHWIMMEN, "--max-steps", "-1"], "'--max-steps'"),
    (["simulate", SCHWIMMEN, "--workers", "65"], "'--workers'"),
    (["duplicate", SCHWIMMEN, "--players", "random", "--deals", "-1"], "'--deals'"),
    (["graph", SCHWIMMEN, "--rollouts", "0"], "'--rollouts'"),
    (["simulate", SCHWIMMEN, "--timeout", "-1"], "'--timeout'"),
])
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
    for args in (["analyze", SCHWIMMEN, "-n", 50, "--timeout", 0],
                 ["duplicate", SCHWIMMEN, "--players", "random", "--deals", 5, "--timeout", 0]):
        r = run(*args)
        assert r.exit_code == 1 and "the time limit ended before" in r.output


def test_the_step_limit_is_reported_beside_the_statistics():
    r = run("simulate", SCHWIMMEN, "-n", 20, "--max-steps", 12)
    assert r.exit_code == 0
    hits = int(next(line for line in r.stdout.splitlines() if "hit the step limit:" in line).split()[-1])
    assert hits > 0
    assert f"statistics over {20 - hits} of 20 games: {hits} hit the step limit" in r.stdout


@pytest.mark.parametrize("args, message", [
    (["graph", SCHWIMMEN, "--json", "{tmp}/missing/g.json"], "the folder {tmp}/missing does not exist"),
    (["graph", SCHWIMMEN, "--json", "{tmp}"], "cannot write the JSON file {tmp}: it is a folder"),
    (["graph", SCHWIMMEN, "-o", "{tmp}/missing/g.svg"], "the folder {tmp}/missing does not exist"),
    (["tree", SCHWIMMEN, "-o", "{tmp}/missing/t.svg"], "the folder {tmp}/missing does not exist"),
    (["analyze", SCHWIMMEN, "-n", "3", "--games-csv", "{tmp}/missing/a.csv"], "the folder {tmp}/missing does not exist"),
    (["analyze", SCHWIMMEN, "-n", "3", "--plots", "{tmp}/file.txt"], "it is a file, not a folder"),
    (["run", SCHWIMMEN, "--record", "{tmp}"], "cannot write the game record {tmp}: it is a folder"),
])
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
    p = subprocess.run([sys.executable, "-m", "recycle", "run", HEARTS, "--seed", "1", "--reveal"],
                       capture_output=True, env=env, timeout=120)
    out = p.stdout.decode(encoding)
    assert p.returncode == 0, p.stderr.decode(encoding, "replace")
    assert "Traceback" not in p.stderr.decode(encoding, "replace")
    assert "HAND(P0) -> PASS(P0): " in out or "-> " in out
    assert any(name in out for name in ("2C", "QS", "10H"))
