"""The lint backed by simulation, reading the game's nodes (issue 41)."""

import recycle
from recycle.study.simlint import simulation_lint

GAME = """(game
 (setup (create players 2) (create deck (game iloc STOCK) (deck (RANK (A, B)))))
 (stage player (end (== (size (game iloc STOCK)) 0))
  (choice (
    (move (top (game iloc STOCK)) (top ((current player) vloc PILE)))
    ((> (size (game iloc STOCK)) 5) (move (top (game iloc STOCK)) (top (game vloc OUT)))))))
 (scoring max 0))"""


def test_each_option_of_a_choice_never_offered_is_a_finding_at_that_option():
    """Every option of a choice is checked (read from the nodes: the options themselves; read
    from the s-expression, the check looked at the list of options as a whole, which a choice
    reached always offers from, so it never spoke)."""
    found = simulation_lint(recycle.loads(GAME, "t.rcy"), games=5, seconds=60)["findings"]
    never = [(f["line"], f["column"]) for f in found if f["message"].startswith("this option was never offered")]
    assert never == [(6, 5)]
    assert "this option was never offered in 5 random games" in [f["message"] for f in found]
