"""``tools/conformance.py --cardstock``: recycle against CardStock's engine (Mono; skipped without it)."""

from __future__ import annotations

import importlib.util
import json
import math
import shutil

import pytest

from ..conftest import ROOT, SHARED

EXE = SHARED / "cardstock" / "cardstock.exe"
needs_cardstock = pytest.mark.skipif(
    shutil.which("mono") is None or not EXE.is_file(),
    reason="CardStock under Mono is not installed (apt-get install mono-runtime)",
)

# one choice a turn for 10 turns: +1, or a do whose only action is guarded by a false condition
# (an option without actions, dropped by both engines): every game scores 5 per player
NOOP = """(game
 (setup (create players 2) (create deck (game iloc STOCK) (deck (RANK (A, TWO)))))
 (stage player (end (>= (game sto T) 10))
  (do ((inc (game sto T) 1)))
  (choice ((inc ((current player) sto SCORE) 1)
           (do (((> (game sto T) 100) (inc ((current player) sto SCORE) 5)))))))
 (scoring max ((current player) sto SCORE)))
"""


def _tool(name):
    spec = importlib.util.spec_from_file_location(f"tool_{name}", ROOT / "tools" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_z_scores_of_known_figures():
    cc = _tool("cardstock_compare")
    r = {
        "finished": 100,
        "mean_choices": 10.0,
        "sd_choices": 2.0,
        "win_rate": [0.5, 0.6],
        "score_mean": [1.0, 2.0],
        "score_sd": [1.0, 0.0],
    }
    c = {
        "finished": 101,
        "failures": 1,
        "mean_choices": 11.0,
        "sd_choices": 2.0,
        "win_full": [0.5, 0.4],
        "score_mean": [1.0, 3.0],
    }
    z = cc.compare(r, c)
    assert z["z_choices"] == pytest.approx(-1 / math.sqrt(4 / 100 + 4 / 101))  # "finished" excludes failures
    w = (60 + 0.4 * 101) / 201  # the pooled win rate
    assert z["z_win"][0] == 0 and z["z_win"][1] == pytest.approx(0.2 / math.sqrt(w * (1 - w) * (1 / 100 + 1 / 101)))
    assert z["z_score"] == [0.0, -math.inf]  # no spread in recycle and a different mean: beyond any noise
    assert z["z_max"] == math.inf


def test_without_mono_the_comparison_is_skipped(tmp_path, capsys, monkeypatch):
    conf = _tool("conformance")
    (tmp_path / "Noop.rcy").write_text(NOOP)
    assert conf.main([str(tmp_path), "--cardstock", "--cardstock-exe", str(tmp_path / "none.exe")]) == 0
    assert "skipped the CardStock comparison: no " in capsys.readouterr().err
    import cardstock_compare

    monkeypatch.setattr(cardstock_compare, "find_mono", lambda: None)
    assert conf.main([str(tmp_path), "--cardstock"]) == 0
    assert "Mono is not installed" in capsys.readouterr().err


@needs_cardstock
def test_both_engines_agree_on_a_small_game(tmp_path, capsys):
    conf = _tool("conformance")
    (tmp_path / "Noop.rcy").write_text(NOOP)
    (tmp_path / "Bad.rcy").write_text(NOOP.replace("(choice", "(choyce"))
    assert conf.main([str(tmp_path), "--cardstock", "-n", "20", "--seconds", "20", "--json"]) == 0
    rows = {r["game"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    noop = rows["Noop"]
    assert noop["verdict"] == "agrees" and noop["z_max"] == 0
    assert noop["cardstock"]["mean_choices"] == noop["recycle"]["mean_choices"] == 10
    assert noop["cardstock"]["score_mean"] == noop["recycle"]["score_mean"] == [5, 5]
    assert rows["Bad"]["verdict"] == "not compared"


def test_a_saved_run_is_judged_again_and_a_later_file_replaces_a_row(tmp_path, capsys):
    conf = _tool("conformance")
    r = {
        "finished": 100,
        "played": 100,
        "step_limit_hits": 0,
        "mean_choices": 10.0,
        "sd_choices": 1.0,
        "win_rate": [0.5, 0.5],
        "tie_rate": 0.0,
        "score_mean": [1.0, 1.0],
        "score_sd": [1.0, 1.0],
    }
    c = {
        "games_run": 100,
        "finished": 100,
        "failures": 0,
        "syntax_errors": 0,
        "mean_choices": 12.0,
        "sd_choices": 1.0,
        "win_full": [0.5, 0.5],
        "score_mean": [1.0, 1.0],
        "failure_kinds": {},
    }
    # a folder of games of its own: --from-json reads none, but the tool wants DIR to hold some,
    # and its default (../shared/corpus/cardstock) is absent in a user's clone
    games = tmp_path / "games"
    games.mkdir()
    (games / "Noop.rcy").write_text(NOOP)
    first = tmp_path / "a.json"
    first.write_text(
        json.dumps(
            {
                "games": 100,
                "rows": [
                    {"game": "Odd", "recycle": r, "cardstock": c},
                    {"game": "GoFish2", "recycle": r, "cardstock": c},
                ],
            }
        )
    )
    assert conf.main([str(games), "--cardstock", "--from-json", str(first)]) == 1
    out = capsys.readouterr().out
    assert "| Odd | 100/100 | 10.00 ± 0.10 | 12.00 ± 0.10 | -14.1 |" in out and "DIFFERS: Odd" in out
    assert "| GoFish2 |" in out and "explained: reference bug" in out
    second = tmp_path / "b.json"
    second.write_text(
        json.dumps({"games": 100, "rows": [{"game": "Odd", "recycle": r, "cardstock": {**c, "mean_choices": 10.0}}]})
    )
    assert conf.main([str(games), "--cardstock", "--from-json", str(first), str(second)]) == 0
    assert "2 games: 1 agree within 3 standard errors, 1 differ as documented" in capsys.readouterr().out
    (tmp_path / "bad.json").write_text("[1, 2")
    assert conf.main([str(games), "--cardstock", "--from-json", str(tmp_path / "bad.json")]) == 2
    assert "not a --cardstock --json output" in capsys.readouterr().err


def test_a_second_any_goes_through_the_hand_the_first_one_left():
    """Coup4's Ambassador, "discard any two": recycle keeps its reading where CardStock's second
    ``any`` still lists the card the first one moved (docs/conformance.md, Coup4)."""
    from recycle.study.stats import simulate

    from ..conftest import tiny

    g = tiny(
        """(do ((repeat 4 (move (top (game iloc STOCK)) (top ((0 player) iloc HAND))))))
 (stage player (end (> (game sto T) 0)) (do ((inc (game sto T) 1)))
  (choice ((do (
   (any ((current player) iloc HAND) 'C (move 'C (top (game vloc DISCARD))))
   (any ((current player) iloc HAND) 'C (move 'C (top (game vloc DISCARD)))))))))""",
        scoring="(scoring max (size ((current player) iloc HAND)))",
    )
    st = simulate(g, 40, 1)
    assert st.options_per_decision == 12  # 4 × 3: never the same card twice
    assert st.score_mean[0] == 2  # every option discards two of the four cards (CardStock: 2.81)
