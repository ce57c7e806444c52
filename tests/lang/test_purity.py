"""Conditions over the cards of a location answer for every order of the cards."""

from ..conftest import tiny


def test_a_condition_on_the_top_card_sees_every_order():
    # one condition asked twice about the same two cards in two orders (a cache keyed by the
    # sorted cards once answered the second question with the first answer)
    g = tiny("""(do ((move (top (game iloc STOCK)) (top (game vloc A)))
                     (move (top (game iloc STOCK)) (top (game vloc A)))
                     (repeat 2 (do (
                       ((any (partition RANK (game vloc A)) 'G (== (cardatt SUIT (top 'G)) Y))
                        (inc (game sto HIT)))
                       ((any (partition RANK (game vloc A)) 'G (== (cardatt RANK (top 'G)) C))
                        (inc (game sto SAME)))
                       (move (bottom (game vloc A)) (top (game vloc A))))))))""")
    s = g.play(seed=0).state
    assert (s.sto("game", "HIT"), s.sto("game", "SAME")) == (1, 2)
