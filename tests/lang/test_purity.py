"""Which pure conditions may cache their value under the sorted cards of a location."""

import pytest

from recycle.lang.forms.purity import order_free
from recycle.lang.syntax.reader import parse_text

from ..conftest import tiny

HAND = "((current player) iloc HAND)"


def form(text: str):
    return parse_text(text, "t.rcy").forms[0]


@pytest.mark.parametrize("text", [
    f"(== (size {HAND}) 3)",
    f"(> (sum {HAND} using (game points SCORE)) 30)",
    f"(any (partition RANK {HAND}) 'G (== (sum 'G using (game points SCORE)) 33))",
    f"(any (partition RANK {HAND}) 'G (and (== (size 'G) 3) (== (cardatt RANK (top 'G)) A)))",
    f"(all {HAND} 'C (== (cardatt SUIT 'C) HEARTS))",
    "(or (any (partition SUIT ('P iloc HAND)) 'G (== (sum 'G using (game points S)) 31)) (== (size ('P iloc HAND)) 0))",
])
def test_set_readings_are_order_free(text):
    assert order_free(form(text))


@pytest.mark.parametrize("text", [
    f"(== (cardatt RANK (top {HAND})) A)",                                      # the top card
    f"(any (partition RANK {HAND}) 'G (== (cardatt SUIT (top 'G)) HEARTS))",    # top of a group, other key
    f"(any (partition RANK {HAND}) 'G (== (cardatt RANK (bottom 'G)) A))",      # bottom is not allowed
    f"(> (size (union {HAND} (game vloc MIDDLE))) 3)",                          # union keeps order
    f"(any (runs RANK {HAND}) 'G (== (size 'G) 3))",                            # runs follow the order
    f"(== (cardatt RANK (0 {HAND})) A)",                                        # an index
])
def test_order_readings_are_not(text):
    assert not order_free(form(text))


def test_a_cached_condition_on_the_top_card_sees_every_order():
    # one condition asked twice about the same two cards in two orders: a key that sorted
    # the cards would answer the second question with the first answer
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
