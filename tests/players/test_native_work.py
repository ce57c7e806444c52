"""A look-ahead seat at a native table spends the game's work budget as at a reference one: its
simulations that never end are charged to the real game (through its blind copy, then the
table's state), so a game that never ends stops on the work budget, at the same decision where
the seats count work alike (PIMC), not on the step limit much later."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy", reason="the native extra is not installed (pip install -e '.[native]'): no numpy")

from recycle.engine.game import loads
from recycle.engine.runner import play_out
from recycle.env.engines import is_native, table_state
from recycle.errors import StepLimitExceeded
from recycle.native import available
from recycle.players import make_players
from recycle.streams import Stream

pytestmark = pytest.mark.skipif(not available(), reason="the native engine needs NumPy and a C compiler")

FOREVER = """(game (setup (create players 2) (create deck (game iloc S) (deck (R (A B)))))
 (stage player (end (== 1 2))
   (choice ((turn pass) ((== 1 1) (turn pass)))))
 (scoring max 0))
"""


@pytest.mark.parametrize("spec", ["pimc:2", "ismcts:2"])
def test_a_game_that_never_ends_stops_on_the_work_budget_at_the_same_decision(spec):
    game = loads(FOREVER, "forever", max_work=200_000)
    said = {}
    for engine in ("auto", "reference"):
        s = table_state(game, 1, 5_000, engine, track=True)
        assert is_native(s) == (engine == "auto")
        with pytest.raises(StepLimitExceeded) as got:
            play_out(s, make_players(spec, 2), Stream(2))
        said[engine] = str(got.value)
    for text in said.values():
        assert "used up by the look-ahead players' simulations" in text
    if spec.startswith("pimc"):
        assert said["auto"] == said["reference"]
    # (an ISMCTS seat searches in machine code on the reference engine, where the work is counted
    # in native units: it may stop at another decision than the search walked in Python)
