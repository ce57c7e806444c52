"""The command line: exit codes, key output lines, JSON keys, errors without tracebacks."""

import json

from typer.testing import CliRunner

from recycle.cli import app

from ..conftest import GAMES

runner = CliRunner()
SCHWIMMEN = str(GAMES / "schwimmen.rcy")


def test_run_prints_a_transcript_with_scores_and_winner():
    r = runner.invoke(app, ["run", SCHWIMMEN, "--seed", "7"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0] == "schwimmen: 5 players, seed 7"
    assert any(line.startswith("[1] P0 chooses ") for line in lines)
    assert lines[-4].startswith("Final scores: P0 ")
    assert lines[-3].startswith("Winner: P") or lines[-3].startswith("Tie for first: ")
    assert lines[-1].startswith("played by: ")  # which engine stepped the game


def test_run_reveal_shows_the_deal():
    hidden = runner.invoke(app, ["run", SCHWIMMEN, "--seed", "7"]).output
    shown = runner.invoke(app, ["run", SCHWIMMEN, "--seed", "7", "--reveal"]).output
    assert "STOCK → HAND(P0): ? ? ?" in hidden
    assert "STOCK → HAND(P0): ? ? ?" not in shown and "STOCK → HAND(P0): " in shown


def test_simulate_json_has_the_promised_keys():
    r = runner.invoke(app, ["simulate", SCHWIMMEN, "-n", "200", "--seed", "1", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    for key in (
        "games",
        "seed",
        "rollouts_per_second",
        "decisions",
        "options_per_decision",
        "win_rate",
        "tie_rate",
        "score_mean",
        "winning_score_mean",
        "step_limit_hits",
    ):
        assert key in d
    assert d["games"] == 200 and d["seed"] == 1 and len(d["win_rate"]) == 5 and len(d["score_mean"]) == 5
    assert set(d["decisions"]) == {"mean", "min", "max"} and d["decisions"]["min"] >= 1
    assert sum(d["win_rate"]) >= 1.0  # every tied winner counts
    assert d["step_limit_hits"] == 0


def test_simulate_is_deterministic_for_a_seed():
    a = json.loads(runner.invoke(app, ["simulate", SCHWIMMEN, "-n", "100", "--seed", "3", "--json"]).output)
    b = json.loads(runner.invoke(app, ["simulate", SCHWIMMEN, "-n", "100", "--seed", "3", "--json"]).output)
    for d in (a, b):
        d.pop("seconds")
        d.pop("rollouts_per_second")
    assert a == b


def test_simulate_table():
    r = runner.invoke(app, ["simulate", SCHWIMMEN, "-n", "50", "--seed", "1"])
    assert r.exit_code == 0
    assert "rollouts/second:" in r.output and "P4" in r.output and "step limit: 0" in r.output


def test_check_reports_ok_and_locations():
    r = runner.invoke(app, ["check", SCHWIMMEN])
    assert r.exit_code == 0 and "ok" in r.output and "HAND (iloc)" in r.output


def test_syntax_error_exit_1_no_traceback(tmp_path):
    bad = tmp_path / "bad.rcy"
    bad.write_text(
        "(game (setup (create players 2)\n  (create deck (game iloc S) (deck (R (A)))))\n  (do ((turn pass))\n"
    )
    r = runner.invoke(app, ["check", str(bad)])
    assert r.exit_code == 1
    assert "Traceback" not in r.output
    assert f"{bad}:3:3: syntax error" in r.output or f"{bad}:1:1: syntax error" in r.output


def test_runtime_error_names_form_and_line(tmp_path):
    bad = tmp_path / "bad.rcy"
    bad.write_text(
        "(game (setup (create players 2)\n (create deck (game iloc S) (deck (R (A)))))\n"
        " (do ((move (top (game iloc EMPTY)) (top (game vloc X)))))\n (scoring max 0))\n"
    )
    r = runner.invoke(app, ["run", str(bad)])
    assert r.exit_code == 1 and "Traceback" not in r.output
    # the (top ...) that names no card, with its position (the same with fast=False)
    assert f"{bad}:3:13: runtime error: move from the empty location EMPTY" in r.output
    assert "in the form (top ...)" in r.output


def test_step_limit_message(tmp_path):
    loop = tmp_path / "loop.rcy"
    loop.write_text(
        "(game (setup (create players 2) (create deck (game iloc S) (deck (R (A)))))\n"
        " (stage player (end (== 1 2)) (choice ((turn pass))))\n (scoring max 0))\n"
    )
    r = runner.invoke(app, ["run", str(loop), "--max-steps", "300"])
    assert r.exit_code == 1
    assert "step limit: the game did not end within 300 steps" in r.output
    # the transcript's last lines come first, to show where the game went round
    lines = r.output.splitlines()
    assert lines[0] == "loop: 2 players, seed 0" and lines[1] == "... (112 earlier lines left out)"
    assert lines[-7:-5] == ["[149] P0 chooses option 1 of 1: pass", "[150] P1 chooses option 1 of 1: pass"]
    assert lines[-5] == "Stopped after 150 decisions, 301 steps"  # a step per choice and per stage round
    r = runner.invoke(app, ["simulate", str(loop), "-n", "3", "--max-steps", "300", "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["step_limit_hits"] == 3


def test_missing_file_is_a_clean_error(tmp_path):
    r = runner.invoke(app, ["check", str(tmp_path / "nope.rcy")])
    assert r.exit_code == 1 and "cannot read" in r.output and "Traceback" not in r.output


def test_check_warns_of_slips_and_strict_makes_them_fail(tmp_path):
    game = tmp_path / "slip.rcy"
    game.write_text("""(game (setup (create players 2) (create deck (game iloc STOCK) (deck (R (A, B)))))
 (do ((move (top (game iloc STOCK)) (top (game vloc PILE)))
      ((== (game sto FLAG) 1) (move (top (game vloc PLIE)) (top (game iloc STOCK))))))
 (scoring max 0))""")
    r = runner.invoke(app, ["check", str(game)])
    assert r.exit_code == 0
    assert f"{game}:3:42: warning: vloc PLIE never receives cards" in r.output
    assert f"{game}:3:12: warning: sto FLAG is read but never set" in r.output
    assert "2 warnings" in r.output
    assert runner.invoke(app, ["check", "--strict", str(game)]).exit_code == 1
    clean = runner.invoke(app, ["check", "--strict", SCHWIMMEN])
    assert clean.exit_code == 0 and "warning" not in clean.output
