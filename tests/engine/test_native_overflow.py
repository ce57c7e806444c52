"""Integers beyond 64 bits natively: the reference's range is +-(2**63 - 1), an error beyond
(lang/forms/form_arithmetic.py); native code wrapped silently, so a game that overflowed ended
natively with other scores than the reference's error. Now a sum, difference, product or
storage step that may leave the range hands the game to the reference interpreter, which gives
its exact outcome (runtime_cards.add_ck, sub_ck, mul_ck)."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy", reason="the native extra is not installed (pip install -e '.[native]'): no numpy")

import recycle
from recycle.errors import RecycleRuntimeError
from recycle.native import available

pytestmark = pytest.mark.skipif(not available(), reason="the native engine needs NumPy and a C compiler")

BIG = 2**62


def _game(step: str, start: int = BIG, declare: str = "") -> recycle.PreparedGame:
    return recycle.loads(
        f"""(game
 (declare {start} 'START) {declare}
 (setup (create players 2) (create deck (game iloc STOCK) (deck (COLOR (A, B)))))
 (do ((set (game sto X) 'START)))
 (stage player (end (>= (game sto T) 3))
  (choice ((inc (game sto T)) (inc (game sto T))))
  (do ({step})))
 (scoring max (game sto X)))""",
        "big.rcy",
    )


@pytest.mark.parametrize(
    "step",
    [
        "(set (game sto X) (+ (game sto X) (game sto X)))",
        "(set (game sto X) (* (game sto X) 2))",
        "(set (game sto X) (- (- 0 (game sto X)) (game sto X)))",
        "(inc (game sto X) (game sto X))",
        "(dec (game sto X) (* 3 (game sto X)))",
    ],
)
def test_an_overflow_is_the_reference_error_natively(step):
    g = _game(step)
    with pytest.raises(RecycleRuntimeError) as reference:
        g.play(seed=1)
    with pytest.raises(RecycleRuntimeError) as native:
        g.play(seed=1, engine="native")
    assert "integer overflow (beyond 64 bits)" in str(reference.value)
    assert str(native.value) == str(reference.value)


def test_a_chain_beyond_64_bits_on_the_way_but_not_at_the_end_is_the_references_value():
    """The reference checks a chain's total; native code checks each part and, where one
    leaves the range, the reference plays the game again: the same scores."""
    g = _game("(set (game sto X) (+ (game sto X) (game sto X) (- 0 (game sto X))))")
    for seed in range(3):
        want = g.play(seed=seed)
        got = g.play(seed=seed, engine="native")
        assert (got.scores, got.steps) == (want.scores, want.steps) == ([BIG, BIG], got.steps)


def test_rollouts_of_a_game_that_overflows_say_the_reference_error():
    from recycle.native import rollout_records

    g = _game("(set (game sto X) (* (game sto X) (game sto X)))", start=2**31)
    with pytest.raises(RecycleRuntimeError, match="integer overflow"):
        rollout_records(g, [1, 2], 1000)
    small = _game("(set (game sto X) (* (game sto X) 3))", start=5)
    assert [r[0] for r in rollout_records(small, [1, 2], 1000)] == [[135, 135]] * 2


def test_a_sum_under_a_wide_point_map_beyond_64_bits_is_the_reference_error():
    g = recycle.loads(
        f"""(game
 (setup (create players 2) (create deck (game iloc STOCK) (deck (COLOR (A, B)))))
 (do ((set (game points P) (((COLOR : A) {BIG}) ((COLOR : B) {BIG})))
      (repeat all (move (top (game iloc STOCK)) (top ((current player) iloc HAND))))))
 (stage player (end (>= (game sto T) 2))
  (choice ((inc (game sto T)) (inc (game sto T)))))
 (scoring max (sum ((current player) iloc HAND) using (game points P))))""",
        "wide.rcy",
    )
    with pytest.raises(RecycleRuntimeError) as reference:
        g.play(seed=1)
    with pytest.raises(RecycleRuntimeError) as native:
        g.play(seed=1, engine="native")
    assert "integer overflow (beyond 64 bits)" in str(reference.value)
    assert str(native.value) == str(reference.value)

    # the wide map's sum is checked; a game whose maps cannot reach 64 bits sums unchecked
    from recycle.native import native_source

    from ..conftest import GAMES

    assert "score_sum_loc(ctr" in native_source(g) and "_plain(" not in native_source(g)
    schwimmen = native_source(recycle.load(GAMES / "schwimmen.rcy"))
    assert "score_sum_plain(ctr" in schwimmen and "score_sum(ctr" not in schwimmen
