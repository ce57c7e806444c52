"""``recycle solve``: CFR+ on the whole tree of a small game (recycle/env/solve.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

pyspiel = pytest.importorskip("pyspiel", reason="the rl extra is not installed (pip install -e '.[rl]'): no open_spiel")

from recycle.cli.main import app  # noqa: E402
from recycle.env.solve import TooLarge, solve, solve_game  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
KUHN = ROOT.parent / "shared" / "corpus" / "cardstock" / "KuhnPoker2.rcy"
LEDUC = ROOT / "games" / "leduc.rcy"


def _kuhn():
    if not KUHN.exists():
        pytest.skip(f"{KUHN} is absent (../shared)")
    return KUHN


def _openspiel_kuhn(win_loss: bool) -> float:
    game = pyspiel.load_game("kuhn_poker")
    result = solve_game(game, "kuhn_poker", iterations=1000)
    if not win_loss:
        return result.value[0]
    # win/loss: the value of P0 under the game's own equilibrium is the chance of winning; the
    # game is constant-sum, so recycle's win/loss value is compared with the tree's own
    tree_value = _win_loss_value(game)
    return tree_value


def _win_loss_value(game) -> float:
    """kuhn_poker's value to P0 when a win scores 1 and a loss 0: solved with the same code on
    a tree whose utilities are mapped."""
    from recycle.env import solve as mod

    tree = mod.build_tree(game)
    tree.utility = [None if u is None else [1.0 if x > 0 else 0.0 for x in u] for u in tree.utility]
    cfr = mod._CFRPlus(tree)
    for it in range(1, 1001):
        cfr.iterate(it)
    values, _ = mod.evaluate(tree, cfr.average)
    return values[0]


def test_kuhn_score_value_is_minus_one_eighteenth_as_openspiels_kuhn_poker():
    r = solve(_kuhn(), reward="score", iterations=1000)
    assert r.exact_value == [pytest.approx(-1 / 18, abs=1e-9), pytest.approx(1 / 18, abs=1e-9)]
    assert r.value[0] == pytest.approx(-1 / 18, abs=1e-4)
    assert r.value[0] == pytest.approx(_openspiel_kuhn(False), abs=1e-4)
    assert r.infosets == [6, 6] and r.histories == 58 and r.terminals == 30
    assert r.utility_sums == [0.0]
    assert r.exploitability[-1][1] < 1e-3
    rows = {(row["player"], row["infostate"]): row["actions"] for row in r.strategy}
    # a player with the king always calls a bet
    assert rows[(1, "with HAND(P1) K, after P0 BET")]["CALL"] == pytest.approx(1.0, abs=1e-4)


def test_kuhn_win_loss_value_is_one_half_as_openspiels_kuhn_poker():
    r = solve(_kuhn(), iterations=1000)
    assert r.exact_value[0] == pytest.approx(0.5, abs=1e-9)
    assert r.value[0] == pytest.approx(0.5, abs=1e-4)
    assert r.value[0] == pytest.approx(_openspiel_kuhn(True), abs=1e-4)
    assert r.utility_sums == [1.0]


def test_a_game_too_large_is_refused_with_its_estimate():
    with pytest.raises(TooLarge, match=r"about [0-9.e+]+ histories .*more than the 500 recycle solve walks"):
        solve(LEDUC, reward="score", max_nodes=500)


def test_cli_prints_value_table_and_json():
    runner = CliRunner()
    out = runner.invoke(app, ["solve", str(_kuhn()), "--reward", "score", "--iterations", "300"])
    assert out.exit_code == 0, out.output
    assert "information states: P0 6, P1 6" in out.output
    assert "game value (sequence-form LP, exact): P0 -0.055556, P1 +0.055556" in out.output
    assert "value of the average policy: P0 -0.0555" in out.output
    assert "P1 with HAND(P1) K, after P0 BET -> FOLD: 0.000, CALL: 1.000" in out.output
    js = runner.invoke(app, ["solve", str(_kuhn()), "--json", "--iterations", "100"])
    data = json.loads(js.output)
    assert data["infosets"] == [6, 6] and data["iterations"] == 100
    big = runner.invoke(app, ["solve", str(LEDUC), "--max-nodes", "500"])
    assert big.exit_code == 1 and "histories" in big.output and "Traceback" not in big.output
    four = runner.invoke(app, ["solve", str(ROOT / "games" / "hearts.rcy")])
    assert four.exit_code == 1 and "needs a two-player game, not 4 players" in four.output


@pytest.mark.slow  # (over 7 s: the fast suite stays under 5 minutes)
def test_leduc_holdem_is_openspiels_leduc_poker():
    """games/leduc.rcy has leduc_poker's 9,457 histories and its exact value, -0.0856 (the
    sequence-form LP; OpenSpiel's own leduc_poker through the same code gives the same)."""
    r = solve(LEDUC, reward="score", iterations=1)
    assert r.histories == 9457 and r.terminals == 5520
    assert r.infosets == [144, 144]  # the two copies of a rank are one card to a player
    assert r.exact_value[0] == pytest.approx(-0.0856064, abs=1e-6)


@pytest.mark.slow
def test_leduc_holdem_cfr_plus_reaches_openspiels_value():
    theirs = solve_game(pyspiel.load_game("leduc_poker"), iterations=1)
    assert theirs.histories == 9457
    r = solve(LEDUC, reward="score", iterations=300)
    assert r.exact_value[0] == pytest.approx(theirs.exact_value[0], abs=1e-9)
    assert r.value[0] == pytest.approx(-0.0856, abs=1e-3)
    assert r.exploitability[-1][1] < 0.02


def test_cli_time_budget_stops_the_walk_with_a_message():
    out = CliRunner().invoke(app, ["solve", str(LEDUC), "--seconds", "0.001"])
    assert out.exit_code == 1
    assert "the time budget ran out walking the tree" in out.output and "Traceback" not in out.output
