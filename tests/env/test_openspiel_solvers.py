"""OpenSpiel's own exact algorithms on recycle's games through the adapter, with no export
(issue 44): games/leduc.rcy is OpenSpiel's ``leduc_poker`` to the digit under CFR and
exploitability, and a best response on recycle's Kuhn is the one on OpenSpiel's ``kuhn_poker``."""

from __future__ import annotations

from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the rl extra is not installed (pip install -e '.[rl]'): no open_spiel")

from recycle.env.spiel import openspiel_game  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
KUHN = ROOT.parent / "shared" / "corpus" / "cardstock" / "KuhnPoker2.rcy"


def test_best_response_on_recycles_kuhn_is_openspiels():
    if not KUHN.exists():
        pytest.skip(f"{KUHN} is absent (../shared)")
    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms.best_response import BestResponsePolicy

    values = []
    for game in (openspiel_game(KUHN, reward="score"), pyspiel.load_game("kuhn_poker")):
        uniform = policy_lib.UniformRandomPolicy(game)
        values.append([BestResponsePolicy(game, p, uniform).value(game.new_initial_state()) for p in (0, 1)])
    assert values[0] == pytest.approx(values[1], abs=1e-12)
    assert values[0] != pytest.approx([0.0, 0.0])  # a best response to uniform play wins something


@pytest.mark.slow
def test_openspiels_cfr_and_exploitability_on_recycles_leduc_are_its_own_leduc_poker():
    """About a minute: every pass walks Leduc's whole tree through the Python adapter."""
    ours = openspiel_game(ROOT / "games" / "leduc.rcy", reward="score")
    theirs = pyspiel.load_game("leduc_poker")
    figures = []
    for game in (ours, theirs):
        uniform = pyspiel.exploitability(game, pyspiel.UniformRandomPolicy(game))
        solver = pyspiel.CFRSolver(game)
        for _ in range(3):
            solver.evaluate_and_update_policy()
        figures.append((uniform, pyspiel.exploitability(game, solver.average_policy())))
    assert figures[0] == pytest.approx(figures[1], abs=1e-9)
    assert figures[0][1] < figures[0][0]  # CFR learns
